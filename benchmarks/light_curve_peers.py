"""The light curves of batman and PyTransit, as f(b, r, u) -> F - 1.

For //benchmarks:limb_dark_benchmark, on numpy float64 arrays, one thread
(NUMBA_NUM_THREADS=1 must be set before this module is imported). The laws
(LAWS) are the quadratic, power-2 and Claret's nonlinear, with batman's
coefficients (kepler.limb_dark.light_curve takes the same order):

  batman_light_curve   batman 2.5's C model, `batman._<law>_ld._<law>_ld(z, rp,
                       *u, [fac,] nthreads)` (returns F), the function its
                       TransitModel calls, with the integration step `fac` its
                       TransitModel picks for its default max_err (1 ppm; the
                       quadratic law is closed form and takes none). One radius
                       per call.
  pytransit_exact      PyTransit 2.10's exact Mandel & Agol model, quadratic only,
                       `pytransit.models.numba.ma_quadratic_nb.eval_quad_z_s(z, k, u)`
                       (one point, returns F) in a numba loop: a radius per point.
  RoadRunner           PyTransit 2.10's `RoadRunnerModel` (tabulated, interpolated)
                       of a law: it takes times, not separations, so the orbit is
                       circular with i = 90 deg and the times are those whose
                       separation is b; each call includes its orbit arithmetic
                       and its per-radius set-up. One radius per call.
"""

import functools
import importlib.util
import sys
import types
import warnings

import numba
import numpy as np

# The laws of the peers: the benchmark's name -> (batman's params.limb_dark,
# PyTransit RoadRunner's ldmodel).
LAWS = {
    "quadratic": ("quadratic", "quadratic"),
    "power2": ("power2", "power-2"),
    "nonlinear": ("nonlinear", "nonlinear"),
}


@functools.lru_cache(maxsize=None)
def _batman():
  """The batman package (imported once). Its batman/openmp.py, a check for
  OpenMP that TransitModel consults only for nthreads > 1, needs distutils,
  which Python 3.12 lacks without setuptools: a stand-in that finds no
  OpenMP then takes its place."""
  if importlib.util.find_spec("distutils") is None:
    openmp = types.ModuleType("batman.openmp")
    openmp.detect = lambda: False
    sys.modules["batman.openmp"] = openmp
  with warnings.catch_warnings():  # batman/tests.py's docstrings
    warnings.simplefilter("ignore", SyntaxWarning)
    import batman  # pylint: disable=g-import-not-at-top
  return batman


@functools.lru_cache(maxsize=None)
def _batman_fac(law, rp, u):
  """The integration step scale batman's TransitModel picks for `law` at its
  default max_err (1 ppm), or None for a law it computes in closed form."""
  batman = _batman()
  params = batman.TransitParams()
  params.t0, params.per, params.a, params.inc, params.ecc, params.w = 0, 1, 15, 90, 0, 90
  params.rp, params.u, params.limb_dark = rp, list(u), LAWS[law][0]
  return batman.TransitModel(params, np.zeros(1)).fac


def _one_radius(r, who):
  r = np.asarray(r, np.float64)
  if r.ndim and not np.all(r == r.flat[0]):
    raise ValueError(f"{who} takes one radius ratio per call")
  return float(r.flat[0])


def batman_light_curve(b, r, u, law="quadratic"):
  # z is read through its data pointer: it must be C-contiguous float64.
  z = np.ascontiguousarray(b, np.float64)
  rp, u = _one_radius(r, "batman"), tuple(float(x) for x in u)
  fac = _batman_fac(law, rp, u)
  name = "_" + LAWS[law][0] + "_ld"
  flux = getattr(getattr(_batman(), name), name)(z, rp, *u, *(() if fac is None else (fac,)), 1)
  return flux - 1.0


_PYTRANSIT_LOOP = []


def _pytransit_loop():
  """A numba loop over PyTransit's one-point model (compiled on first use)."""
  if not _PYTRANSIT_LOOP:
    from pytransit.models.numba.ma_quadratic_nb import eval_quad_z_s

    @numba.njit
    def loop(z, k, u):
      out = np.empty(z.size)
      for i in range(z.size):
        out[i] = eval_quad_z_s(z[i], k[i], u) - 1.0
      return out

    _PYTRANSIT_LOOP.append(loop)
  return _PYTRANSIT_LOOP[0]


def pytransit_exact(b, r, u):
  b = np.ascontiguousarray(b, np.float64)
  r = np.ascontiguousarray(np.broadcast_to(np.asarray(r, np.float64), b.shape))
  return _pytransit_loop()(b, r, np.asarray(u, np.float64))


class RoadRunner:
  """PyTransit's RoadRunner model of `law` (one of LAWS) at separations b
  (see the module docstring).

  z(t) = A |sin(2 pi t / P)| for a circular orbit seen edge-on, so t =
  P / (2 pi) arcsin(b / A) gives z = b (RoadRunner's own orbit expansion puts
  it within ~1e-8 of b). The times are set once per array of b (set_data),
  outside the timed call.
  """

  PERIOD, A = 10.0, 50.0

  def __init__(self, law="quadratic"):
    from pytransit import RoadRunnerModel

    self.model = RoadRunnerModel(LAWS[law][1], nthreads=1)
    self._b = None

  def __call__(self, b, r, u):
    if b is not self._b:
      self.model.set_data(self.PERIOD / (2 * np.pi) * np.arcsin(np.asarray(b, np.float64) / self.A))
      self._b = b
    flux = self.model.evaluate(k=_one_radius(r, "RoadRunner"), ldc=np.asarray(u, np.float64),
                               t0=0.0, p=self.PERIOD, a=self.A, i=0.5 * np.pi, e=0.0, w=0.0)
    return flux - 1.0
