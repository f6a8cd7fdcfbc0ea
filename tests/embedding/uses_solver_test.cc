// The solver header is usable from another workspace's or module's C++ code.
#include <cmath>
#include <cstdio>

#include "jaxlib_ext/kepler_solve/kepler_solve.h"

int main() {
  int failed = 0;
  for (double m = -3.0; m <= 3.0; m += 0.25) {
    const double e = 0.6;
    double s, c;
    jaxext::kepler_solve::SolveEccentric(m, e, &s, &c);
    const double ecc_anom = std::atan2(s, c);
    const double residual = ecc_anom - e * std::sin(ecc_anom) - m;
    if (!(std::fabs(residual) < 1e-13)) {
      std::printf("FAIL M=%g e=%g residual=%g\n", m, e, residual);
      ++failed;
    }
  }
  std::printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
  return failed ? 1 : 0;
}
