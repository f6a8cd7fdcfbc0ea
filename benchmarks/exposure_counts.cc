// How many light-curve evaluations the transit model's exact exposure mean
// takes (ExposureMean's count, jaxlib_ext/transit/exposure.h), for
// benchmarks/transit_benchmark.py's report:
//
//   exposure_counts P t0 a b r ecc omega u_1 ... u_N  < lines "t T"
//
// a planet of impact parameter b and the polynomial law u (N <= 32); prints
// one count per input line (0 for T <= 0: no exposure to average).
#include <cstdio>
#include <cstdlib>

#include "jaxlib_ext/transit/transit.h"

namespace {

using jaxext::transit::Contacts;
using jaxext::transit::ExposureMean;
using jaxext::transit::FindContacts;
using jaxext::transit::Geometry;
using jaxext::transit::MakePlanet;
using jaxext::transit::Planet;

constexpr int kOrbitArgs = 7;
constexpr int kMaxCoefficients = 32;

}  // namespace

int main(int argc, char** argv) {
  const int order = argc - 1 - kOrbitArgs;
  if (order < 0 || order > kMaxCoefficients) {
    std::fprintf(stderr, "usage: %s P t0 a b r ecc omega u_1 ... u_N (N <= %d) < 't T' lines\n",
                 argv[0], kMaxCoefficients);
    return 2;
  }
  double orbit[kOrbitArgs], u[kMaxCoefficients];
  for (int j = 0; j < kOrbitArgs; ++j) orbit[j] = std::atof(argv[1 + j]);
  for (int j = 0; j < order; ++j) u[j] = std::atof(argv[1 + kOrbitArgs + j]);
  static Planet planet;  // large (the law's tables): not on the stack
  MakePlanet(orbit, Geometry::kImpactParameter, jaxext::limb_dark::Law::kPolynomial, u, order,
             false, &planet);
  const Contacts contacts = FindContacts(planet);
  double t, exposure;
  while (std::scanf("%lf %lf", &t, &exposure) == 2) {
    int evaluations = 0;
    if (exposure > 0) {
      ExposureMean(planet, contacts, t - orbit[1], exposure, nullptr, nullptr, nullptr,
                   &evaluations);
    }
    std::printf("%d\n", evaluations);
  }
  return 0;
}
