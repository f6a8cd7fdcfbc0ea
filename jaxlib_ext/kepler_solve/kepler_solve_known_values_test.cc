// The CPU handler's solve loop on known values, with no Python and no JAX:
// the loop variant the handler picks on this CPU (and every other variant the
// CPU supports) must reproduce sin and cos of the eccentric and true anomalies
// computed with mpmath at 50 digits. Built with the wheels' toolchain, this binary is also what
// tools/old_glibc/run.sh runs inside a Debian root older than the build
// machine, so it prints the glibc it runs on.
#include <gnu/libc-version.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "jaxlib_ext/kepler_solve/kepler_solve_cpu_loops.h"

namespace jaxext::kepler_solve {
namespace {

struct Known {
  double mean_anomaly, ecc;
  double sin_e, cos_e;  // of the eccentric anomaly E
  double sin_f, cos_f;  // of the true anomaly f
};

// mpmath (mp.dps = 50): E = findroot(E - e sin E - M), f = 2 atan(sqrt((1 +
// e) / (1 - e)) tan(E / 2)), printed to 20 digits. M and e are the decimal
// values written here.
constexpr Known kKnown[] = {
    {-7.5, 0, -9.3799997677473885795e-1, 3.4663531783502581097e-1, -9.3799997677473885795e-1, 3.4663531783502581097e-1},
    {-2, 0, -9.092974268256816954e-1, -4.16146836547142387e-1, -9.092974268256816954e-1, -4.16146836547142387e-1},
    {0.3, 0, 2.9552020666133957511e-1, 9.5533648912560601964e-1, 2.9552020666133957511e-1, 9.5533648912560601964e-1},
    {1, 0, 8.4147098480789650665e-1, 5.403023058681397174e-1, 8.4147098480789650665e-1, 5.403023058681397174e-1},
    {3, 0, 1.411200080598672221e-1, -9.8999249660044545727e-1, 1.411200080598672221e-1, -9.8999249660044545727e-1},
    {5, 0, -9.5892427466313846889e-1, 2.8366218546322626447e-1, -9.5892427466313846889e-1, 2.8366218546322626447e-1},
    {100, 0, -5.0636564110975879366e-1, 8.623188722876839341e-1, -5.0636564110975879366e-1, 8.623188722876839341e-1},
    {-7.5, 0.1, -9.6708747143448087943e-1, 2.5444414435090096811e-1, -9.8736275171286886586e-1, 1.5847648573208477575e-1},
    {-2, 0.1, -8.6971338731818734578e-1, -4.9355711312828289791e-1, -8.2465257961231572932e-1, -5.6563956981345750607e-1},
    {0.3, 0.1, 3.2655400424575914376e-1, 9.4517854520247163676e-1, 3.5883328388462137595e-1, 9.3340166829536935702e-1},
    {1, 0.1, 8.8597752397893618455e-1, 4.6372818224058105882e-1, 9.2440371118216592986e-1, 3.8141549359279934186e-1},
    {3, 0.1, 1.2839747166538206962e-1, -9.9172278852002660259e-1, 1.1622734099220282189e-1, -9.9322263627339978661e-1},
    {5, 0.1, -9.8211751141053945305e-1, 1.8826894003198962939e-1, -9.9594513918432882666e-1, 8.996265744800940008e-2},
    {100, 0.1, -5.532765520350996666e-1, 8.3299763323082236172e-1, -6.00526973262483044e-1, 7.9960449872683993996e-1},
    {-7.5, 0.5, -9.9006855824685195274e-1, -1.4058538320536712954e-1, -8.0111219076538552665e-1, -5.9851420852564941302e-1},
    {-2, 0.5, -7.084855164455618283e-1, -7.0572535237645072158e-1, -4.5353195579610181638e-1, -8.9124001541210140395e-1},
    {0.3, 0.5, 5.3936451288788950943e-1, 8.4207239726594154125e-1, 8.0679201179386917227e-1, 5.9083555216794568449e-1},
    {1, 0.5, 9.9740226703569662812e-1, 7.2032754438886448739e-2, 8.9604810769875014601e-1, -4.4395696715953119425e-1},
    {3, 0.5, 9.4301549404788870397e-2, -9.9554367949370064987e-1, 5.452602007431500093e-2, -9.9851235001619053462e-1},
    {5, 0.5, -9.7962666901505983139e-1, -2.0082726247812674417e-1, -7.7096607812509191985e-1, -6.3687620962037407723e-1},
    {100, 0.5, -8.0312977636088261843e-1, 5.9580413083707188314e-1, -9.9064639647296555618e-1, 1.3645408442083342952e-1},
    {-7.5, 0.9, -8.9843314291399106755e-1, -4.3911033660537769446e-1, -2.8068959533049245183e-1, -9.5979859922444374756e-1},
    {-2, 0.9, -5.8040603777804987184e-1, -8.1432722618784209786e-1, -1.459945345596480569e-1, -9.8928539657609003298e-1},
    {0.3, 0.9, 8.9279746700342997813e-1, 4.5045830318938439945e-1, 6.5450648695984177412e-1, -7.5605638581225307292e-1},
    {1, 0.9, 9.5787409652725806104e-1, -2.8718846634586338585e-1, 3.317741105546552909e-1, -9.4335886043735624029e-1},
    {3, 0.9, 7.4486107367431731157e-2, -9.9722205140542667022e-1, 1.7110800580641079023e-2, -9.9985359953519671915e-1},
    {5, 0.9, -8.768405665885154952e-1, -4.8078126085022399075e-1, -2.6677260114899264412e-1, -9.6375950282017997261e-1},
    {100, 0.9, -9.8878187624883533786e-1, 1.4936666697035480004e-1, -4.9793780712526700292e-1, -8.6721274220071305265e-1},
};

// The backward-error bounds of docs/accuracy_and_speed.md,
// |E' - e sin E' - M| (float64 for e <= 1 - 1e-6 and |M| <= 1e3, float32 for
// e <= 0.95 and |M| <= 1e2). A backward error b moves E by b / (1 - e cos E)
// and f by b sqrt(1 - e^2) / (1 - e cos E)^2; the tolerance is four times
// that, plus the rounding of the inputs and outputs.
template <typename T>
constexpr double kBackwardBound = sizeof(T) == 8 ? 2e-15 : 4e-7;

int g_failed = 0;
int g_passed = 0;

template <typename T>
void CheckVariant(jaxext::CpuIsa isa) {
  const SolveLoop<T> loop = LoopsForIsa(isa).get(T());
  const size_t n = sizeof(kKnown) / sizeof(kKnown[0]);
  std::vector<T> m(n), e(n), out_sin(n), out_cos(n);
  for (size_t i = 0; i < n; ++i) {
    m[i] = static_cast<T>(kKnown[i].mean_anomaly);
    e[i] = static_cast<T>(kKnown[i].ecc);
  }
  const double eps = std::numeric_limits<T>::epsilon();
  for (bool true_anomaly : {false, true}) {
    loop(m.data(), e.data(), out_sin.data(), out_cos.data(), n, true_anomaly);
    double worst = 0;  // error / tolerance
    size_t worst_i = 0;
    for (size_t i = 0; i < n; ++i) {
      const Known& k = kKnown[i];
      const double denom = 1 - k.ecc * k.cos_e;
      const double gain = true_anomaly
                              ? std::sqrt(1 - k.ecc * k.ecc) / (denom * denom)
                              : 1 / denom;
      const double input_rounding = eps * (std::fabs(k.mean_anomaly) + 1);
      const double tol = 4 * (kBackwardBound<T> + input_rounding) * gain + 4 * eps;
      const double want_sin = true_anomaly ? k.sin_f : k.sin_e;
      const double want_cos = true_anomaly ? k.cos_f : k.cos_e;
      const double err = std::max(std::fabs(out_sin[i] - want_sin),
                                  std::fabs(out_cos[i] - want_cos));
      const double ratio = std::isnan(err) ? INFINITY : err / tol;
      if (!(ratio <= worst)) {
        worst = ratio;
        worst_i = i;
      }
    }
    const bool ok = worst <= 1;
    std::printf("[%s] %s %s %s: worst error %.3g of its tolerance, at M=%g e=%g\n",
                ok ? "PASS" : "FAIL", jaxext::CpuIsaName(isa),
                sizeof(T) == 8 ? "float64" : "float32",
                true_anomaly ? "true anomaly" : "eccentric anomaly", worst,
                kKnown[worst_i].mean_anomaly, kKnown[worst_i].ecc);
    (ok ? g_passed : g_failed)++;
  }
}

}  // namespace
}  // namespace jaxext::kepler_solve

int main() {
  using jaxext::kepler_solve::CheckVariant;
  using jaxext::kepler_solve::g_failed;
  using jaxext::kepler_solve::g_passed;
  using namespace jaxext;
  std::printf("glibc %s; the handler's variant here: %s\n", gnu_get_libc_version(),
              CpuIsaName(ActiveCpuIsa().isa));
  int skipped = 0;
  for (CpuIsa isa : kAllCpuIsas) {
    if (!CpuSupports(isa)) {
      std::printf("[SKIP] %s: this CPU lacks it (not counted as passed)\n", jaxext::CpuIsaName(isa));
      ++skipped;
      continue;
    }
    CheckVariant<double>(isa);
    CheckVariant<float>(isa);
  }
  std::printf("%d passed, %d failed, %d variant(s) skipped\n", g_passed, g_failed, skipped);
  return g_failed == 0 && g_passed > 0 ? 0 : 1;
}
