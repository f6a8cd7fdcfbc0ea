// The device path (JAXEXT_DEVICE_PATH=1: the code the CUDA kernels run) of
// Kepler's solver, of the light curve and of the transit model, compiled for
// the host, for tests/device_path_test.py and tests/extreme_inputs_test.cc.
// Test-only.
//
// tests/BUILD.bazel compiles device_path_loops.cc twice, once per way a
// compiler may round the code (see there), each into its own namespace.
#ifndef TESTS_DEVICE_PATH_LOOPS_H_
#define TESTS_DEVICE_PATH_LOOPS_H_

#include <cstddef>

#include "jaxlib_ext/limb_dark/law_table.h"

namespace kepler_device_path {

// The most coefficients a law of LightCurve may have (limb_dark.h's
// kMaxOrder; device_path_loops.cc checks that the two agree).
constexpr int kLightCurveMaxOrder = 32;
// The laws, numbered as laws.h's Law (from the same table, law_table.h):
// how many, their names, the tabulated law's number; and the tabulated
// law's most grid points (tabulated_law.h's kMaxTableSize, checked there).
enum class LightCurveLaw : int {
#define KEPLER_DEVICE_PATH_LAW_(name, text, count) name,
  JAXEXT_LIMB_DARK_LAWS(KEPLER_DEVICE_PATH_LAW_)
#undef KEPLER_DEVICE_PATH_LAW_
};
inline constexpr const char* kLightCurveLawNames[] = {
#define KEPLER_DEVICE_PATH_LAW_(name, text, count) text,
    JAXEXT_LIMB_DARK_LAWS(KEPLER_DEVICE_PATH_LAW_)
#undef KEPLER_DEVICE_PATH_LAW_
};
constexpr int kLightCurveLawCount = sizeof(kLightCurveLawNames) / sizeof(kLightCurveLawNames[0]);
constexpr int kLightCurveTabulatedLaw = static_cast<int>(LightCurveLaw::kTabulated);
constexpr int kLightCurveMaxTableSize = 128;
// The transit row's orbital parameters, and the derivatives before dF/du:
// those parameters' and dF/dT (transit/orbit.h's kParamCount + 1); with the
// planet's light, its parameters after the orbit's and their derivatives
// after dF/dT (kLightParamCount).
constexpr int kTransitParams = 7;
constexpr int kTransitDerivatives = 8;
constexpr int kTransitLightParams = 5;

// Solve: out_sin[i], out_cos[i] = solve(mean_anomaly[i], ecc[i]) for i in
// [0, n): SolveTrue when true_anomaly is set, else SolveEccentric.
// LightCurve: the light-curve kernel's elements i in [0, n)
// (jaxext::limb_dark::CurveElement) for the law numbered `law` (laws.h's
// Law), group_size consecutive elements per row of u (`order` coefficients
// each: order <= kLightCurveMaxOrder for the polynomial law (0), the grid
// then the intensities (2 M, M <= kLightCurveMaxTableSize) for the tabulated
// law (6),
// LawCoefficientCount(law) for the others):
// flux[i] = F - 1 at (b[i], r[i]); d_db[i], d_dr[i] unless d_db is null
// (d_db and d_dr both null: the value alone); d_du[j][i] = dF/du_{j+1} for
// j < order (the tabulated law: M) unless d_du is null (else as many
// pointers).
// LightCurveFloat32Math: LightCurve for the polynomial law of order <= 2
// and float32 buffers by the float32-in-float32 path
// (jaxext::limb_dark::LowOrderCurveElementIn<float>).
// LawCoefficientCount(law): the coefficients a law other than the
// polynomial takes; -1 for the polynomial law or a number that is no law.
// LawDerivativesInU(law, order): how many of a row's `order` coefficients
// have a derivative (laws.h's DerivativesInU).
// Transit: the transit kernel's elements i in [0, n) (its Element:
// MakePlanetFromRow, then jaxext::transit::TransitElement, contacts found
// per element) for one row of parameters `row` (the orbit, then `order`
// coefficients of law `law`) and `geometry` (0: impact parameter, 1:
// inclination), with `light` the planet's light's parameters between them
// and then `epochs` timing variations (transit.h's ShiftedTime):
// out[0][i] = F - 1 at t[i] averaged over exposure[i], then, unless out[1]
// is null, out[1 + j][i] the derivatives in the row's parameters and T
// (kTransitDerivatives of them), with `light` those in the light's
// (kTransitLightParams), then dF/du.
#define KEPLER_DEVICE_PATH_DECLARE(ns)                                            \
  namespace ns {                                                                  \
  void Solve(const float* mean_anomaly, const float* ecc, float* out_sin,         \
             float* out_cos, std::size_t n, bool true_anomaly);                   \
  void Solve(const double* mean_anomaly, const double* ecc, double* out_sin,      \
             double* out_cos, std::size_t n, bool true_anomaly);                  \
  void LightCurve(int law, const float* u, int order, std::size_t group_size,     \
                  const float* b, const float* r, float* flux, float* d_db,       \
                  float* d_dr, float* const* d_du, std::size_t n);                \
  void LightCurve(int law, const double* u, int order, std::size_t group_size,    \
                  const double* b, const double* r, double* flux, double* d_db,   \
                  double* d_dr, double* const* d_du, std::size_t n);              \
  void LightCurveFloat32Math(const float* u, int order, std::size_t group_size,  \
                             const float* b, const float* r, float* flux,         \
                             float* d_db, float* d_dr, float* const* d_du,        \
                             std::size_t n);                                      \
  int LawCoefficientCount(int law);                                               \
  int LawDerivativesInU(int law, int order);                                      \
  void Transit(const double* row, int order, int law, int geometry, bool light,       \
               int epochs, const double* t, const double* exposure,                   \
               double* const* out, std::size_t n);                                    \
  }

// No contraction: only the explicit fma calls of the math headers fuse.
KEPLER_DEVICE_PATH_DECLARE(strict)
// The compiler may contract any a * b + c into an fma, as nvcc does.
KEPLER_DEVICE_PATH_DECLARE(fused)

#undef KEPLER_DEVICE_PATH_DECLARE

}  // namespace kepler_device_path

#endif  // TESTS_DEVICE_PATH_LOOPS_H_
