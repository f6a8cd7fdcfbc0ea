"""High-precision reference for Kepler's equation  M = E - e sin(E).

Independent of the C++/CUDA solver: every input is taken as the exact binary
value of the given float64/float32 number, the mean anomaly is reduced exactly
to (-pi, pi] in multiple precision, and the equation is solved by a
bracketed (bisection-safeguarded) Newton iteration in mpmath, started from a
plain float64 bisection.

Public functions (all accept scalars or array-likes, broadcast together, and
return float64 numpy arrays):

  reduce_mean_anomaly(M, dps=50)        -> M reduced exactly to (-pi, pi]
  eccentric_anomaly(M, e, dps=50)       -> (sin E, cos E)
  true_anomaly(M, e, dps=50)            -> (sin f, cos f)
  backward_error(M, e, sin_E, cos_E)    -> |E' - e sin E' - M_red|
  true_backward_error(M, e, sin_f, cos_f) -> same, with E' recovered from f'
  eccentric_anomaly_derivatives(M, e, dps=50)
      -> (d sin E/dM, d cos E/dM, d sin E/de, d cos E/de)
  true_anomaly_derivatives(M, e, dps=50)
      -> (d sin f/dM, d cos f/dM, d sin f/de, d cos f/de)

The derivatives are numerical (mpmath.diff: central differences of the
high-precision solution, carried out at a few hundred bits), not the
implicit-function formulas kepler's JVPs use, so they check those formulas.

Invalid inputs (e < 0, e >= 1, non-finite M or e) give NaN.
"""

import math

import mpmath
import numpy as np

__all__ = [
    "reduce_mean_anomaly",
    "eccentric_anomaly",
    "eccentric_anomaly_mp",
    "true_anomaly",
    "backward_error",
    "true_backward_error",
    "eccentric_anomaly_derivatives",
    "true_anomaly_derivatives",
]

_MAX_NEWTON = 40


def _as_arrays(*args):
  arrs = np.broadcast_arrays(*[np.asarray(a) for a in args])
  return [np.asarray(a, dtype=np.float64).ravel() for a in arrs], arrs[0].shape


def _valid(M, e):
  return math.isfinite(M) and math.isfinite(e) and 0.0 <= e < 1.0


def _reduce_mp(M):
  """Exact (to working precision) reduction of the double M to (-pi, pi]."""
  mm = mpmath.mpf(M)  # exact binary value
  if mm == 0:
    return mm
  extra = max(0, int(math.log10(abs(M)))) + 10 if M != 0 else 10
  with mpmath.workdps(mpmath.mp.dps + extra):
    two_pi = 2 * mpmath.pi
    k = mpmath.nint(mm / two_pi)
    r = mm - k * two_pi
    pi = mpmath.pi
    if r > pi:
      r -= two_pi
    elif r <= -pi:
      r += two_pi
    return +r


def _start_float(m, e):
  """Float64 bisection on [0, pi] for E - e sin E = m (m in [0, pi])."""
  lo, hi = 0.0, math.pi
  for _ in range(64):
    mid = 0.5 * (lo + hi)
    if mid - e * math.sin(mid) - m > 0.0:
      hi = mid
    else:
      lo = mid
  return 0.5 * (lo + hi)


def _solve_mp(m, e):
  """Solve E - e sin E = m for m in [0, pi] (mpf), e an mpf in [0, 1)."""
  if m == 0:
    return mpmath.mpf(0)
  pi = mpmath.pi
  lo, hi = mpmath.mpf(0), +pi
  E = mpmath.mpf(_start_float(float(m), float(e)))
  tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 4)
  for _ in range(_MAX_NEWTON):
    s, c = mpmath.sin(E), mpmath.cos(E)
    f = E - e * s - m
    if f == 0:
      return E
    if f > 0:
      hi = E
    else:
      lo = E
    fp = 1 - e * c
    if fp > 0:
      En = E - f / fp
      # Converged: the Newton step is below the working precision.
      if abs(En - E) <= tol * abs(E):
        return En
      if not (lo < En < hi):
        En = (lo + hi) / 2
    else:
      En = (lo + hi) / 2
    E = En
  return E


def _ecc_mp(M, e):
  """Returns (E as mpf in (-pi, pi]) for valid double inputs."""
  r = _reduce_mp(M)
  em = mpmath.mpf(e)
  E = _solve_mp(abs(r), em)
  return -E if r < 0 else E


def reduce_mean_anomaly(M, dps=50):
  (Mf,), shape = _as_arrays(M)
  out = np.empty(Mf.shape, dtype=np.float64)
  with mpmath.workdps(dps):
    for i, x in enumerate(Mf):
      out[i] = float(_reduce_mp(float(x))) if math.isfinite(x) else np.nan
  return out.reshape(shape)


def eccentric_anomaly_mp(M, e, dps=50):
  """Scalar version returning the eccentric anomaly E itself as an mpf."""
  with mpmath.workdps(dps):
    if not _valid(float(M), float(e)):
      return mpmath.mpf("nan")
    return _ecc_mp(float(M), float(e))


def _pair_map(fn, M, e, dps):
  """(first, second) float64 arrays of fn(M_i, e_i) over valid inputs, else NaN."""
  (Mf, ef), shape = _as_arrays(M, e)
  out = np.full((2,) + Mf.shape, np.nan)
  with mpmath.workdps(dps):
    for i in range(Mf.size):
      if _valid(Mf[i], ef[i]):
        out[:, i] = [float(v) for v in fn(float(Mf[i]), float(ef[i]))]
  return out[0].reshape(shape), out[1].reshape(shape)


def _ecc_sin_cos(M, e):
  # M and e: doubles, or mpf (the derivatives evaluate it between doubles).
  E = _ecc_mp(M, e)
  return mpmath.sin(E), mpmath.cos(E)


def _true_sin_cos(M, e):
  em = mpmath.mpf(e)
  sE, cE = _ecc_sin_cos(M, e)
  den = 1 - em * cE
  return mpmath.sqrt((1 - em) * (1 + em)) * sE / den, (cE - em) / den


def eccentric_anomaly(M, e, dps=50):
  """(sin E, cos E) as float64 arrays (correctly rounded high-precision values)."""
  return _pair_map(_ecc_sin_cos, M, e, dps)


def true_anomaly(M, e, dps=50):
  """(sin f, cos f) of the true anomaly as float64 arrays."""
  return _pair_map(_true_sin_cos, M, e, dps)


def _wrapped_residual(Ep, em, Mred):
  res = Ep - em * mpmath.sin(Ep) - Mred
  two_pi = 2 * mpmath.pi
  # Put E' on the same branch as M_red (the residual is 2*pi periodic).
  res -= two_pi * mpmath.nint(res / two_pi)
  return abs(res)


def _residual_map(recover_e, M, e, sin_x, cos_x, dps):
  """|E' - e sin E' - M_red| with E' = recover_e(angle of (sin_x, cos_x), e)."""
  (Mf, ef, sf, cf), shape = _as_arrays(M, e, sin_x, cos_x)
  out = np.full(Mf.shape, np.nan)
  with mpmath.workdps(dps):
    for i in range(Mf.size):
      if not _valid(Mf[i], ef[i]) or not (math.isfinite(sf[i]) and
                                           math.isfinite(cf[i])):
        continue
      em = mpmath.mpf(float(ef[i]))
      angle = mpmath.atan2(mpmath.mpf(float(sf[i])), mpmath.mpf(float(cf[i])))
      Mred = _reduce_mp(float(Mf[i]))
      out[i] = float(_wrapped_residual(recover_e(angle, em), em, Mred))
  return out.reshape(shape)


def backward_error(M, e, sin_E, cos_E, dps=50):
  """|E' - e sin E' - M_red| with E' = atan2(sin_E, cos_E) in high precision.

  NaN where the inputs are invalid or the returned values are not finite.
  """
  return _residual_map(lambda E, em: E, M, e, sin_E, cos_E, dps)


def _e_from_f(f, em):
  # E = 2 atan2(sqrt(1-e) sin(f/2), sqrt(1+e) cos(f/2))
  return 2 * mpmath.atan2(mpmath.sqrt(1 - em) * mpmath.sin(f / 2),
                          mpmath.sqrt(1 + em) * mpmath.cos(f / 2))


def true_backward_error(M, e, sin_f, cos_f, dps=50):
  """Backward error of a true-anomaly result: E' is recovered from f' exactly
  (tan(E/2) = sqrt((1-e)/(1+e)) tan(f/2)) and the Kepler residual returned."""
  return _residual_map(_e_from_f, M, e, sin_f, cos_f, dps)


def _derivative_map(sin_cos, M, e, dps):
  """Four float64 arrays: d/dM and d/de of both outputs of sin_cos(M, e).

  sin_cos takes mpf M and e (any working precision) and returns two mpf.
  mpmath.diff evaluates it at M +- h (or e +- h) with h ~ 2^-(prec + 10) in
  about twice the working precision, where the solver still converges fully.
  """
  (Mf, ef), shape = _as_arrays(M, e)
  out = np.full((4,) + Mf.shape, np.nan)
  with mpmath.workdps(dps):
    for i in range(Mf.size):
      if not _valid(Mf[i], ef[i]):
        continue
      m, em = mpmath.mpf(float(Mf[i])), mpmath.mpf(float(ef[i]))
      for k in range(2):
        out[k, i] = float(mpmath.diff(lambda x, k=k: sin_cos(x, em)[k], m))
        out[2 + k, i] = float(mpmath.diff(lambda x, k=k: sin_cos(m, x)[k], em))
  return tuple(o.reshape(shape) for o in out)


def eccentric_anomaly_derivatives(M, e, dps=50):
  """(d sin E/dM, d cos E/dM, d sin E/de, d cos E/de) as float64 arrays."""
  return _derivative_map(_ecc_sin_cos, M, e, dps)


def true_anomaly_derivatives(M, e, dps=50):
  """(d sin f/dM, d cos f/dM, d sin f/de, d cos f/de) as float64 arrays."""
  return _derivative_map(_true_sin_cos, M, e, dps)
