// The elementwise loop of the transit model's CPU handler, compiled once per
// CPU instruction-set variant (jaxlib_ext/cpu/cpu_isa.bzl).
#ifndef JAXLIB_EXT_TRANSIT_TRANSIT_CPU_LOOPS_H_
#define JAXLIB_EXT_TRANSIT_TRANSIT_CPU_LOOPS_H_

#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/limb_dark/laws.h"
#include "jaxlib_ext/transit/transit.h"

namespace jaxext::transit {

// For i in [0, n), one row of parameters (RowOffsetOfU(light) values,
// `epochs` timing variations, then `order` coefficients of `law`):
// out.flux[i] = F - 1 at t[i] (shifted by its epoch's variation:
// ShiftedTime, transit.h) averaged over the exposure exposure[i], and its
// derivatives where `out` asks for them (Outputs, transit.h). Returns the
// number of evaluations of F.
template <typename T>
using TransitLoop = size_t (*)(const T* row, int order, Geometry geometry, limb_dark::Law law,
                               bool light, int epochs, const T* t, const T* exposure,
                               const Outputs<T>& out, size_t n);

using TransitLoops = FloatLoops<TransitLoop>;

JAXEXT_PER_ISA_TABLE(TransitLoops, Loops)

}  // namespace jaxext::transit

#endif  // JAXLIB_EXT_TRANSIT_TRANSIT_CPU_LOOPS_H_
