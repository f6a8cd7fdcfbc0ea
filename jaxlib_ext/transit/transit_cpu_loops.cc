// The transit model's loop, written once; compiled once per instruction-set
// variant like the other ops' loops (per_isa_cc_library), with
// JAXEXT_ISA_NAMESPACE naming its entry point's namespace and
// JAXEXT_MATH_NAMESPACE giving its copy of the math symbols of its own.
#include <cstddef>
#include <memory>

#include "jaxlib_ext/transit/transit.h"
#include "jaxlib_ext/transit/transit_cpu_loops.h"

#ifndef JAXEXT_ISA_NAMESPACE
#error "JAXEXT_ISA_NAMESPACE must name the variant (see cpu_isa.bzl)"
#endif

namespace jaxext {
namespace transit {
namespace JAXEXT_ISA_NAMESPACE {
namespace {

// The row is made ready once; its contacts once, at the first element with
// an exposure.
template <typename T>
size_t TransitRowLoop(const T* row, int order, Geometry geometry, limb_dark::Law law,
                      const T* t, const T* exposure, const Outputs<T>& out, size_t n) {
  // A table's row is several kB: on the heap, not the pool thread's stack.
  const std::unique_ptr<Planet> planet(new Planet);
  MakePlanetFromRow(row, order, geometry, law, planet.get());
  Contacts contacts;
  bool found = false;
  size_t evaluations = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!found && exposure[i] != 0) {
      contacts = FindContacts(*planet);
      found = true;
    }
    evaluations += TransitElement(*planet, found ? &contacts : nullptr, t, exposure,
                                  static_cast<std::int64_t>(i), out);
  }
  return evaluations;
}

}  // namespace

const TransitLoops& Loops() {
  static constexpr TransitLoops kLoops = {&TransitRowLoop<float>, &TransitRowLoop<double>};
  return kLoops;
}

}  // namespace JAXEXT_ISA_NAMESPACE
}  // namespace transit
}  // namespace jaxext
