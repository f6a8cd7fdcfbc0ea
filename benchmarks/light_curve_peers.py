"""The quadratic-law light curves of batman and PyTransit, as f(b, r, u) -> F - 1.

For //benchmarks:limb_dark_benchmark, on numpy float64 arrays, one thread
(NUMBA_NUM_THREADS=1 must be set before this module is imported):

  batman_quadratic     batman 2.5's C model, `batman._quadratic_ld._quadratic_ld
                       (z, rp, u1, u2, nthreads)` (returns F); one radius per call.
  pytransit_exact      PyTransit 2.10's exact Mandel & Agol model,
                       `pytransit.models.numba.ma_quadratic_nb.eval_quad_z_s(z, k, u)`
                       (one point, returns F) in a numba loop: a radius per point.
  RoadRunner           PyTransit 2.10's `RoadRunnerModel("quadratic")` (tabulated,
                       interpolated): it takes times, not separations, so the
                       orbit is circular with i = 90 deg and the times are those
                       whose separation is b; each call includes its orbit
                       arithmetic and its per-radius set-up. One radius per call.
"""

import functools
import glob
import importlib.util
import os

import numba
import numpy as np


@functools.lru_cache(maxsize=None)
def _batman_quadratic_ld():
  """batman's compiled quadratic model (loaded once). `import batman` needs distutils
  (batman/openmp.py), which Python 3.12 lacks without setuptools: the
  extension module is then loaded from the package's folder directly."""
  try:
    from batman import _quadratic_ld
  except ModuleNotFoundError:
    folder = importlib.util.find_spec("batman").submodule_search_locations[0]
    (path,) = glob.glob(os.path.join(folder, "_quadratic_ld*.so"))
    spec = importlib.util.spec_from_file_location("batman._quadratic_ld", path)
    _quadratic_ld = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(_quadratic_ld)
  return _quadratic_ld._quadratic_ld


def _one_radius(r, who):
  r = np.asarray(r, np.float64)
  if r.ndim and not np.all(r == r.flat[0]):
    raise ValueError(f"{who} takes one radius ratio per call")
  return float(r.flat[0])


def batman_quadratic(b, r, u):
  # z is read through its data pointer: it must be C-contiguous float64.
  z = np.ascontiguousarray(b, np.float64)
  return _batman_quadratic_ld()(z, _one_radius(r, "batman"), float(u[0]), float(u[1]), 1) - 1.0


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
  """PyTransit's RoadRunner model at separations b (see the module docstring).

  z(t) = A |sin(2 pi t / P)| for a circular orbit seen edge-on, so t =
  P / (2 pi) arcsin(b / A) gives z = b (RoadRunner's own orbit expansion puts
  it within ~1e-8 of b). The times are set once per array of b (set_data),
  outside the timed call.
  """

  PERIOD, A = 10.0, 50.0

  def __init__(self):
    from pytransit import RoadRunnerModel

    self.model = RoadRunnerModel("quadratic", nthreads=1)
    self._b = None

  def __call__(self, b, r, u):
    if b is not self._b:
      self.model.set_data(self.PERIOD / (2 * np.pi) * np.arcsin(np.asarray(b, np.float64) / self.A))
      self._b = b
    flux = self.model.evaluate(k=_one_radius(r, "RoadRunner"), ldc=np.asarray(u, np.float64),
                               t0=0.0, p=self.PERIOD, a=self.A, i=0.5 * np.pi, e=0.0, w=0.0)
    return flux - 1.0
