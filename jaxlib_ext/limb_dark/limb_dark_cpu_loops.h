// The elementwise loops of the light curve's CPU handler, compiled once per
// CPU instruction-set variant (jaxlib_ext/cpu/cpu_isa.bzl).
#ifndef JAXLIB_EXT_LIMB_DARK_LIMB_DARK_CPU_LOOPS_H_
#define JAXLIB_EXT_LIMB_DARK_LIMB_DARK_CPU_LOOPS_H_

#include <cstddef>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/limb_dark/laws.h"

namespace jaxext::limb_dark {

// For i in [0, n), with g[0..order] the Green's-basis coefficients, q[0..order
// + 1] the edge polynomial and `norm` = pi g_0 + 2 pi g_1 / 3 (GreensRow):
//   flux[i] = F(b[i], r[i]) - 1, d_db[i] and d_dr[i] its derivatives (unless
//   both are null: the value alone, computed without them), and, unless
//   d_du is null, d_du[j][i] = dF/du_{j+1} at (b[i], r[i]) for j < order
//   (one array per coefficient; asked for only with d_db and d_dr).
// |b| is used; r < 0 or NaN/inf in b or r give NaN in every output.
template <typename T>
using LightCurveLoop = void (*)(const double* g, const double* q, int order, double norm,
                                const T* b, const T* r, T* flux, T* d_db,
                                T* d_dr, T* const* d_du, size_t n);

using LightCurveLoops = FloatLoops<LightCurveLoop>;

JAXEXT_PER_ISA_TABLE(LightCurveLoops, Loops)

// For i in [0, n), a law of laws.h or the tabulated law (not the
// polynomial) with coefficients u[0..order): the same outputs as
// LightCurveLoop's, d_du[j] for each of the law's coefficients (the
// tabulated law's intensities, order / 2).
template <typename T>
using LawCurveLoop = void (*)(Law law, const double* u, int order, const T* b, const T* r,
                              T* flux, T* d_db, T* d_dr, T* const* d_du, size_t n);

using LawCurveLoops = FloatLoops<LawCurveLoop>;

JAXEXT_PER_ISA_TABLE(LawCurveLoops, LawLoops)

}  // namespace jaxext::limb_dark

#endif  // JAXLIB_EXT_LIMB_DARK_LIMB_DARK_CPU_LOOPS_H_
