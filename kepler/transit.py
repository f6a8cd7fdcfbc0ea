"""The transit model, time to flux: kepler.transit.light_curve and
kepler.transit.radial_velocity.

A planet on a Keplerian orbit in front of a limb-darkened star: for each
time, the mean anomaly, Kepler's equation, the sky separation, the light
curve of kepler.limb_dark (any of its laws) and, for exposures of finite
length, the flux averaged over the exposure, integrated exactly (within
1e-9, 2.5e-10 the worst measured; docs/transit_model.md); with the first
derivatives in every parameter from the same handler call
(jaxlib_ext/transit/). The conventions are batman's and jaxoplanet's
(docs/transit_model.md derives them).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kepler import _ffi
from kepler import kepler_solve
from kepler import limb_dark
from kepler._ffi import differences
from kepler._ffi import elementwise
from kepler._ffi import partition
from kepler._ffi import row_op

__all__ = ["light_curve", "radial_velocity", "semi_major_axis", "stellar_density",
           "ecc_omega", "sqrt_ecc_vector", "impact_parameter", "inclination",
           "eclipse_time", "transit_duration", "light_travel_time"]

# Newton's constant in cm^3 g^-1 s^-2 (CODATA 2018) and the day in seconds:
# semi_major_axis's units.
_G_CGS = 6.67430e-8
_DAY = 86400.0
# The Sun's nominal radius (IAU 2015 Resolution B3) in metres and the speed
# of light in m/s: light_travel_time's units.
_R_SUN = 6.957e8
_C = 299792458.0
# The delay's fixed-point steps (_emission_times), and the largest orbital
# speed over c that they serve: the error after the steps is below that
# ratio to their power times the delay.
_DELAY_STEPS = 4
_MAX_SPEED_OVER_C = 1e-2

_TARGET = _ffi.target("transit")
# The orbital parameters of the kernel's row, in its order
# (jaxlib_ext/transit/orbit.h, Param), before the law's coefficients.
_PARAMS = ("period", "t0", "a", "b_or_inc", "r", "ecc", "omega")
if len(_PARAMS) != _ffi.constant("TRANSIT_PARAM_COUNT"):
  raise ImportError("kepler.transit: the compiled module's parameters are not this package's")
_T0 = _PARAMS.index("t0")
# The most transit times (epochs) the kernel's row takes.
_MAX_EPOCHS = _ffi.constant("TRANSIT_MAX_EPOCHS")
# The planet's light and the star's modulation, after the orbit's in a row
# of the kernel's light mode (orbit.h, LightParam).
_LIGHT = ("planet_flux", "night_flux", "phase_offset", "beaming", "ellipsoidal")
if len(_LIGHT) != _ffi.constant("TRANSIT_LIGHT_PARAM_COUNT"):
  raise ImportError("kepler.transit: the compiled module's light parameters are not this "
                    "package's")


def _attrs(law, geometry, light, epochs=0):
  # Sorted by name, as XLA passes them. epochs: the transit times' variations
  # the row holds (_timed_light_curve).
  return (("epochs", np.int32(epochs)), ("geometry", np.int32(geometry)), ("law", np.int32(law)),
          ("light", np.int32(light)))


def _names(light):
  """The row's parameters before the law's coefficients."""
  return _PARAMS + (_LIGHT if light else ())


def _value(row, t, exposure, static):
  """F - 1 alone; static: _attrs's arguments."""
  return partition.call(_TARGET, (t, exposure), shared=(row,), n_results=1,
                        attrs=_attrs(*static))[0]


def _derivatives(row, t, exposure, static, with_entries):
  """(F - 1, (dF/dt, dF/dT), dF/d row_j for every row entry with a
  derivative, in row order: _entries) from one call of the handler, which
  returns them all whatever with_entries says (dF/dt is -dF/dt0: F depends
  on t through t - t0 alone). The handler's order: the orbit's, dF/dT, the
  light's, the law's."""
  del with_entries
  law, geometry, light = static
  offset = len(_names(light))
  n_u = row.shape[-1] - offset
  n_du = n_u - limb_dark.first_differentiated(law, n_u)
  out = partition.call(_TARGET, (t, exposure), shared=(row,),
                       n_results=1 + offset + 1 + n_du, attrs=_attrs(*static))
  by_row = tuple(out[1:1 + len(_PARAMS)]) + tuple(out[2 + len(_PARAMS):])
  return out[0], (-by_row[_T0], out[1 + len(_PARAMS)]), by_row


def _entries(static, n):
  """The row entries with a derivative: the orbit's (and the light's), the
  law's but the tabulated law's grid."""
  law, _, light = static
  offset = len(_names(light))
  first_u = limb_dark.first_differentiated(law, n - offset)
  return slice(0, offset), slice(offset + first_u, n)


def _entry_lowest(static, j):
  """The bottom of entry j's domain: the period, a, b or i, r, e and the
  day and night fluxes are >= 0."""
  name = _names(static[2])[j:j + 1]
  return 0.0 if name in (("period",), ("a",), ("b_or_inc",), ("r",), ("ecc",),
                         ("planet_flux",), ("night_flux",)) else None


# F - 1 of (row, t, exposure, (law, geometry, light)), differentiable to any order
# in the row, t and the exposure time (kepler/_ffi/row_op.py); second
# derivatives by steps of 1e-6 relative in each, one-sided at the bottom of
# a domain.
_light_curve = row_op.differentiable(
    _value, _derivatives, _entries,
    steps=((differences.fd_step, None), (lambda x: 1e-6 * jnp.maximum(x, 1e-3), 0.0)),
    entry_step=lambda row, j: differences.fd_step(row[j]), entry_lowest=_entry_lowest)


def _transit_times(where, value):
  """transit_times as an array of shape (K,), 1 <= K <= the kernel's most;
  ValueError otherwise."""
  x = elementwise.as_array(where, "transit_times", value)
  if np.ndim(x) != 1 or np.shape(x)[0] < 1:
    raise ValueError(f"kepler.{where}: transit_times must be a 1-d array of at least one "
                     f"mid-transit time (epochs 0, 1, ...), got shape {np.shape(x)}")
  if np.shape(x)[0] > _MAX_EPOCHS:
    raise ValueError(f"kepler.{where}: transit_times has {np.shape(x)[0]} epochs, more than "
                     f"the {_MAX_EPOCHS} the kernel takes")
  return x


def _variations(period, t0, transit_times):
  """The timing variation of each epoch k < K = len(transit_times),
  transit_times[k] - t0 - k period; NaN everywhere where transit_times are
  not finite and increasing."""
  epoch = jnp.arange(transit_times.shape[0], dtype=transit_times.dtype)
  ordered = jnp.all(jnp.isfinite(transit_times)) & jnp.all(jnp.diff(transit_times) > 0)
  return jnp.where(ordered, transit_times - t0 - epoch * period, jnp.nan)


def _shifted_by(t, period, t0, variations):
  """t less the variation of its epoch k = round((t - t0) / period) (halves
  to even) clipped to [0, K - 1]: what the handler computes itself from a
  row with the variations (jaxlib_ext/transit/transit.h, ShiftedTime), the
  same times to the bit."""
  epoch = jnp.clip(jnp.round((t - t0) / period), 0, variations.shape[0] - 1)
  return t - jnp.take(variations, epoch.astype(jnp.int32))


def _shifted_times(t, period, t0, transit_times):
  """t less the timing variation of its epoch (_shifted_by)."""
  return _shifted_by(t, period, t0, _variations(period, t0, transit_times))


@functools.partial(jax.custom_jvp, nondiff_argnums=(4,))
def _timed_light_curve(row, variations, t, exposure, static):
  """_light_curve at t shifted by its epoch's variation (_shifted_by): the
  value from one handler call, the row holding the variations (the
  handler's `epochs`), which shifts each time itself; its derivatives
  those of _light_curve at the shifted times, in the row, the variations,
  t and the exposure time (the variation's derivative is minus the time's,
  for the times of its epoch)."""
  offset = len(_names(static[2]))
  full = jnp.concatenate([row[:offset], variations, row[offset:]])
  return _value(full, t, exposure, (*static, variations.shape[0]))


@_timed_light_curve.defjvp
def _timed_light_curve_jvp(static, primals, tangents):
  def shifted(row, variations, t, exposure):
    t = _shifted_by(t, row[_PARAMS.index("period")], row[_T0], variations)
    return _light_curve(row, t, exposure, static)

  return jax.jvp(shifted, primals, tangents)


def _orbit_phase(t, period, t0, ecc, omega):
  """(sin f, cos f) of the true anomaly at times t of the orbit whose
  conjunction (f = pi/2 - omega) is at t0; NaN where period <= 0."""
  period = jnp.where(period > 0, period, jnp.nan)
  mean = _mean_anomaly_at(jnp.pi / 2 - omega, ecc) + 2 * jnp.pi * (t - t0) / period
  return kepler_solve.true_anomaly(mean, ecc)


def _emission_times(t, period, t0, sin_i, ecc, omega, delay):
  """The times of the orbit at which the planet was where the light received
  at t left it, times and t0 referring to light from the star (the transit
  stays at t0): tau = t + delay sin(i) (rho(f) sin(omega + f) - rho_c), f
  the true anomaly at tau, rho = (1 - e^2) / (1 + e cos f) the planet's
  distance over a, rho_c its value at conjunction; the planet's distance
  towards the observer over a is rho sin(omega + f) sin(i). tau by
  _DELAY_STEPS fixed-point steps from t, each shrinking the error by the
  orbital speed over c at most (a speed factor delay 2 pi / period (1 + e)
  / sqrt(1 - e^2)): NaN where that factor is _MAX_SPEED_OVER_C or more, or
  where delay < 0."""
  e2 = ecc * ecc
  sin_w, cos_w = jnp.sin(omega), jnp.cos(omega)
  rho_c = _conjunction_distance(ecc, sin_w)
  speed = delay * 2 * jnp.pi / period * (1 + ecc) / jnp.sqrt(1 - e2)
  delay = jnp.where((delay >= 0) & (speed < _MAX_SPEED_OVER_C), delay, jnp.nan)
  tau = t
  for _ in range(_DELAY_STEPS):
    sin_f, cos_f = _orbit_phase(tau, period, t0, ecc, omega)
    rho = (1 - e2) / (1 + ecc * cos_f)
    tau = t + delay * sin_i * (rho * (sin_w * cos_f + cos_w * sin_f) - rho_c)
  return tau


def _timing(where, transit_times, light_travel_time):
  """The timing arguments given (transit_times, light_travel_time unless a
  literal zero), as (name, value) pairs for elementwise.prepare."""
  timing = ()
  if transit_times is not None:
    timing += (("transit_times", _transit_times(where, transit_times)),)
  if not _concrete_zero(light_travel_time):
    timing += (("light_travel_time", _scalar(where, "light_travel_time", light_travel_time)),)
  return timing


def _conjunction_distance(ecc, sin_w):
  """The planet's distance over a at inferior conjunction (f = pi/2 -
  omega), (1 - e^2) / (1 + e sin omega); at superior conjunction with
  -sin omega."""
  return (1 - ecc * ecc) / (1 + ecc * sin_w)


def _cos_inclination(b, a, ecc, omega):
  """cos(i) of the impact parameter b at conjunction: b / (a rho_c), rho_c
  the distance of _conjunction_distance."""
  return b * (1 + ecc * jnp.sin(omega)) / (a * (1 - ecc * ecc))


def _timed(t, period, t0, transit_times, timing, delayed):
  """t shifted by its epoch's timing variation, then by the light travel
  time, delayed(t, light_travel_time), for the timing arguments _timing
  gave (their values prepared, in its order)."""
  if transit_times is not None:
    t = _shifted_times(t, period, t0, timing[0])
    timing = timing[1:]
  if timing:
    t = delayed(t, timing[0])
  return t


def _scalar(where, name, value):
  x = elementwise.as_array(where, name, value)
  if np.ndim(x) != 0:
    raise ValueError(f"kepler.{where}: {name} must be a scalar, got shape {np.shape(x)}; "
                     "for many parameter sets, jax.vmap over them (one kernel call)")
  return x


def _concrete_zero(x):
  """True where x is a concrete zero (a number or a concrete array of
  zeros), False where it is concrete and not, None where it is traced."""
  try:
    return bool(np.all(np.asarray(x) == 0))
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    return None


def light_curve(t, *, period, t0, a, r, u, b=None, inc=None, ecc=0.0, omega=0.0,
                law="polynomial", mu=None, exposure_time=0.0, transit_times=None,
                planet_flux=0.0, night_flux=None, phase_offset=0.0, beaming=0.0,
                ellipsoidal=0.0, light_travel_time=0.0):
  """The relative flux minus one of a star transited by a planet on a
  Keplerian orbit, at times t, averaged over exposures.

  Args:
    t: the times, an array (any shape); `period`, `t0` and `exposure_time`
      in the same unit.
    period: the orbital period (> 0).
    t0: a time of mid-transit (inferior conjunction: the planet's true
      anomaly there is pi/2 - omega).
    a: the semi-major axis in stellar radii (> 0).
    r: the planet's radius in stellar radii (>= 0).
    u: the limb-darkening law's coefficients, as kepler.limb_dark.light_curve
      takes them for `law` (and `mu`, the tabulated law's grid).
    b: the impact parameter at conjunction, b = a cos(i) (1 - e^2) / (1 + e
      sin(omega)), in [0, a (1 - e^2) / (1 + e sin(omega))]; or
    inc: the inclination in radians (exactly one of b and inc).
    ecc: the eccentricity, in [0, 1).
    omega: the planet's argument of periastron in radians (batman's `w` in
      radians; jaxoplanet's `omega_peri`).
    law, mu: the law's name and the tabulated law's grid
      (kepler.limb_dark.light_curve); static.
    exposure_time: T >= 0, a scalar or an array broadcasting with t: the
      flux averaged over [t - T/2, t + T/2] (0: at t itself).
    transit_times: None, or the observed mid-transit times of epochs 0, 1,
      ..., K - 1 of the linear ephemeris (t0, period), an array of shape
      (K,), increasing: transit timing variations. A time t belongs to its
      nearest epoch k = round((t - t0) / period), clipped to [0, K - 1], and
      is evaluated at t - (transit_times[k] - t0 - k period), its exposure
      with it (docs/transit_model.md compares exoplanet's and jaxoplanet's
      choices).
    planet_flux: the planet's day-side flux over the star's (batman's fp),
      >= 0. The planet is a uniform disk of radius r, hidden by the star
      where it passes behind it (the secondary eclipse: the exact overlap of
      the two disks).
    night_flux: its night side's (None: planet_flux, no phase variation),
      >= 0; the planet's flux is night_flux + (planet_flux - night_flux) (1
      - cos(phi + phase_offset)) / 2, phi = omega + f - pi/2 its phase angle
      (0 at inferior conjunction).
    phase_offset: radians; positive moves the maximum before the secondary
      eclipse (an eastward hot spot).
    beaming, ellipsoidal: the star's flux is multiplied by 1 - beaming
      (cos(omega + f) + ecc cos(omega)) - ellipsoidal cos(2 phi): its
      radial velocity in units of its semi-amplitude (Doppler beaming) and
      its projected area (ellipsoidal variation); the transit's deficit
      applies to that star.
    With any of these five given (not a literal 0 or None), the result is
    the system's flux over the star's unocculted, unmodulated flux, minus
    one (planet_flux at full phase out of eclipse), averaged over exposures
    as the transit is (the eclipse's contacts are breakpoints too; between
    the events the phase curve is integrated in the eccentric anomaly). A
    planet of radius 0 vanishes behind the star at once: its exposures'
    derivatives leave out that step's motion.
    light_travel_time: a / c in the unit of t (>= 0; the helper
      light_travel_time computes it). Times and t0 refer to light from the
      star: the transit stays at t0, and the planet is taken where it was
      when the light received at t left it (the starlight it blocks, or its
      own), the time tau = t + light_travel_time sin(i) (rho sin(omega + f)
      - rho_c), rho the planet's distance over a (rho_c at conjunction), f
      at tau; on a circular orbit the secondary eclipse comes 2
      light_travel_time after t0 + period / 2. The star's beaming and
      ellipsoidal terms take the same tau (their phase at the star's own
      time differs by at most 2 light_travel_time 2 pi / period). An
      exposure is shifted as a whole by the delay at its mid-time (its
      width changes by a fraction below the orbital speed over c). NaN where
      the orbital speed at periastron, light_travel_time 2 pi / period (1 +
      e) / sqrt(1 - e^2), is 0.01 or more (c / 100).

  Every parameter but t and exposure_time is a scalar (an array of shape (),
  a number or a tracer); for many parameter sets (chains, planets), jax.vmap
  over them: the whole batch is one call of the handler.

  Returns:
    F - 1 (0 out of transit, negative in transit), of the broadcast shape of
    t and exposure_time and the promoted float dtype of all the arguments.
    Differentiable in every argument (first derivatives from the handler's
    same pass; higher orders by central differences of them).

  NaN where a parameter is outside its domain (period or a <= 0, ecc
  outside [0, 1), b < 0 or beyond the orbit, r < 0, NaN or inf anywhere, a
  law the light curve refuses, transit_times not increasing: everywhere),
  where t is NaN or inf, where T < 0 or NaN,
  and, for T > 0, where the orbit's periastron a (1 - ecc) is not beyond
  1 + r (an orbit through the star has no contact times).

  Raises:
    TypeError: an argument of complex, bool or other non-real dtype.
    ValueError: neither or both of b and inc; a parameter that is not a
      scalar (light_travel_time included); transit_times not of shape (K,),
      K >= 1; t and exposure_time
      shapes that do not broadcast; the law's errors of
      kepler.limb_dark.light_curve.
  """
  where = "transit.light_curve"
  if (b is None) == (inc is None):
    raise ValueError(f"kepler.{where}: give exactly one of b (the impact parameter) and inc "
                     "(the inclination)")
  u = limb_dark.check_law(where, law, u, mu)
  geometry = 0 if b is not None else 1
  glow = (planet_flux, night_flux, phase_offset, beaming, ellipsoidal)
  light = not all(x is None or _concrete_zero(x) for x in glow)
  scalars = (("period", period), ("t0", t0), ("a", a), ("b" if inc is None else "inc",
             b if inc is None else inc), ("r", r), ("ecc", ecc), ("omega", omega))
  if light:
    glow = glow[:1] + ((planet_flux if night_flux is None else night_flux),) + glow[2:]
    scalars += tuple(zip(_LIGHT, glow))
  scalars = tuple((name, _scalar(where, name, x)) for name, x in scalars)
  timing = _timing(where, transit_times, light_travel_time)
  (t, exposure), others, dtype = elementwise.prepare(
      where, (("t", t), ("exposure_time", exposure_time)),
      others=scalars + (("u", u),) + timing)
  others, timing = others[:len(others) - len(timing)], others[len(others) - len(timing):]
  period, t0, a, b_or_inc, _, ecc, omega = others[:7]

  def delayed(t, delay):
    if inc is None:
      cos_i = _cos_inclination(b_or_inc, a, ecc, omega)
    else:
      cos_i = jnp.cos(b_or_inc)
    sin_i = jnp.sqrt(jnp.maximum(1 - cos_i * cos_i, 0.0))
    return _emission_times(t, period, t0, sin_i, ecc, omega, delay)

  number, u = limb_dark.kernel_law(where, law, others[-1], mu)
  row = jnp.concatenate([jnp.stack(others[:-1]), u])
  static = (number, geometry, int(light))
  if transit_times is not None and len(timing) == 1:
    # The handler shifts the times by their epochs' variations itself.
    flux = _timed_light_curve(row, _variations(period, t0, timing[0]), t, exposure, static)
  else:
    t = _timed(t, period, t0, transit_times, timing, delayed)
    flux = _light_curve(row, t, exposure, static)
  return flux.astype(dtype)


def radial_velocity(t, *, period, t0, K, ecc=0.0, omega=0.0, transit_times=None,
                    light_travel_time=0.0, inc=None):
  """The star's radial velocity (positive receding) at times t, for a
  planet of the same orbit as light_curve's: K (cos(omega + f) + e cos
  omega), f the planet's true anomaly, omega the planet's argument of
  periastron, t0 a time of mid-transit. At a circular orbit's transit it
  falls through zero (the star recedes before, approaches after).

  Args:
    t: the times (any shape); period and t0 in the same unit.
    period, t0, K, ecc, omega: scalars (jax.vmap for many); K the
      semi-amplitude, in the velocity's unit.
    transit_times: None, or the mid-transit times of epochs 0 to K - 1, as
      light_curve takes them: each time shifted by its epoch's variation.
    light_travel_time: a / c in the unit of t (>= 0), as light_curve takes
      it: times and t0 refer to light from the star and the transit is
      observed at t0, so the star's velocity at t is the orbit's at t -
      light_travel_time rho_c sin(i) (the planet's distance towards the
      observer at conjunction, over c: the planet reaches conjunction that
      much after the transit is seen).
    inc: the inclination in radians for that delay (None: pi / 2);
      kepler.transit.inclination gives it from b.

  Returns:
    The velocity, of t's shape and the promoted float dtype; NaN where
    period <= 0, ecc is outside [0, 1), transit_times are not increasing
    or light_travel_time < 0. Differentiable in every argument (through
    kepler.true_anomaly's derivatives).

  Raises:
    TypeError, ValueError: as light_curve's, for these arguments.
  """
  where = "transit.radial_velocity"
  scalars = (("period", period), ("t0", t0), ("K", K), ("ecc", ecc), ("omega", omega),
             ("inc", jnp.pi / 2 if inc is None else inc))
  scalars = tuple((name, _scalar(where, name, x)) for name, x in scalars)
  timing = _timing(where, transit_times, light_travel_time)
  (t,), others, dtype = elementwise.prepare(where, (("t", t),), others=scalars + timing)
  period, t0, K, ecc, omega, inc = others[:6]

  def delayed(t, delay):
    rho_c = _conjunction_distance(ecc, jnp.sin(omega))
    return t - jnp.where(delay >= 0, delay, jnp.nan) * rho_c * jnp.sin(inc)

  t = _timed(t, period, t0, transit_times, others[6:], delayed)
  sin_f, cos_f = _orbit_phase(t, period, t0, ecc, omega)
  cos_w, sin_w = jnp.cos(omega), jnp.sin(omega)
  velocity = K * (cos_w * cos_f - sin_w * sin_f + ecc * cos_w)
  return velocity.astype(dtype)


# Helpers for the parameters users fit, in the conventions of light_curve
# (batman's and jaxoplanet's): plain jnp, differentiable, elementwise
# (arrays broadcast), in the promoted float dtype of their arguments.


def semi_major_axis(period, stellar_density):
  """a in stellar radii from the period (days) and the star's mean density
  (g/cm^3; the Sun's 1.41; jaxoplanet's solar unit M_sun / R_sun^3 is 5.905
  g/cm^3), by Kepler's third law for a planet of negligible mass: (a / R)^3
  = G rho P^2 / (3 pi). NaN for a period or density that is not positive."""
  period, rho = jnp.asarray(period), jnp.asarray(stellar_density)
  ok = (period > 0) & (rho > 0)
  cube = _G_CGS * rho * (period * _DAY) ** 2 / (3 * jnp.pi)
  return jnp.where(ok, jnp.cbrt(jnp.where(ok, cube, 1.0)), jnp.nan)


def stellar_density(period, a):
  """The star's mean density (g/cm^3) from the period (days) and a (stellar
  radii): semi_major_axis's inverse, 3 pi a^3 / (G P^2). NaN for a period or
  a that is not positive."""
  period, a = jnp.asarray(period), jnp.asarray(a)
  ok = (period > 0) & (a > 0)
  rho = 3 * jnp.pi * a ** 3 / (_G_CGS * (jnp.where(ok, period, 1.0) * _DAY) ** 2)
  return jnp.where(ok, rho, jnp.nan)


def ecc_omega(sqrt_e_cos_w, sqrt_e_sin_w):
  """(ecc, omega) from the parameters (sqrt(e) cos omega, sqrt(e) sin
  omega) that fits sample for a uniform prior in e and omega: e = h^2 + k^2,
  omega = atan2(k, h) (0 at e = 0). ecc >= 1 is returned as it is (light_curve
  gives NaN for it)."""
  h, k = jnp.asarray(sqrt_e_cos_w), jnp.asarray(sqrt_e_sin_w)
  return h * h + k * k, jnp.arctan2(k, h)


def sqrt_ecc_vector(ecc, omega):
  """(sqrt(e) cos omega, sqrt(e) sin omega): ecc_omega's inverse. NaN for
  a negative ecc."""
  ecc, omega = jnp.asarray(ecc), jnp.asarray(omega)
  root = jnp.where(ecc >= 0, jnp.sqrt(jnp.maximum(ecc, 0.0)), jnp.nan)
  return root * jnp.cos(omega), root * jnp.sin(omega)


def impact_parameter(inc, a, ecc=0.0, omega=0.0):
  """The impact parameter at conjunction, light_curve's b: a cos(inc) (1 -
  e^2) / (1 + e sin(omega)), inc in radians, a in stellar radii. NaN where
  a <= 0 or ecc is outside [0, 1)."""
  inc, a, ecc, omega = map(jnp.asarray, (inc, a, ecc, omega))
  ok = (a > 0) & (ecc >= 0) & (ecc < 1)
  return jnp.where(ok, a * jnp.cos(inc) * _conjunction_distance(ecc, jnp.sin(omega)), jnp.nan)


def inclination(b, a, ecc=0.0, omega=0.0):
  """The inclination (radians, in [0, pi/2] for b >= 0) of the impact
  parameter b at conjunction: impact_parameter's inverse. NaN where a <= 0,
  ecc is outside [0, 1), b < 0 or b beyond the orbit (cos i > 1)."""
  b, a, ecc, omega = map(jnp.asarray, (b, a, ecc, omega))
  cos_i = _cos_inclination(b, a, ecc, omega)
  ok = (a > 0) & (ecc >= 0) & (ecc < 1) & (b >= 0) & (cos_i <= 1)
  return jnp.where(ok, jnp.arccos(jnp.where(ok, cos_i, 0.0)), jnp.nan)


def eclipse_time(period, t0, ecc=0.0, omega=0.0, light_travel_time=0.0, inc=None):
  """The mid-time of the secondary eclipse (superior conjunction, true
  anomaly 3 pi/2 - omega) that follows the transit at t0, within one period
  after it; t0 + period / 2 on a circular orbit. With light_travel_time
  (a / c, as light_curve takes it) the time it is seen: later by
  light_travel_time sin(inc) (rho_e + rho_c), the planet's distances over a
  at superior and inferior conjunction (2 light_travel_time sin(inc) on a
  circular orbit); inc in radians (None: pi / 2). NaN where period <= 0,
  ecc is outside [0, 1) or light_travel_time < 0."""
  period, t0, ecc, omega, delay = map(jnp.asarray, (period, t0, ecc, omega, light_travel_time))
  sin_i = 1.0 if inc is None else jnp.sin(jnp.asarray(inc))
  ok = (period > 0) & (ecc >= 0) & (ecc < 1) & (delay >= 0)
  e = jnp.where(ok, ecc, 0.0)
  delta = _mean_anomaly_at(1.5 * jnp.pi - omega, e) - _mean_anomaly_at(0.5 * jnp.pi - omega, e)
  delta = jnp.mod(delta, 2 * jnp.pi)
  sin_w = jnp.sin(omega)
  seen = delay * sin_i * (_conjunction_distance(e, -sin_w) + _conjunction_distance(e, sin_w))
  return jnp.where(ok, t0 + period * delta / (2 * jnp.pi) + seen, jnp.nan)


def _mean_anomaly_at(f, e):
  """The mean anomaly at true anomaly f (e < 1), through the eccentric
  anomaly."""
  half = f / 2
  big_e = 2 * jnp.arctan2(jnp.sqrt(1 - e) * jnp.sin(half), jnp.sqrt(1 + e) * jnp.cos(half))
  return big_e - e * jnp.sin(big_e)


def light_travel_time(a, stellar_radius, *, unit=_DAY):
  """a / c, light_curve's and radial_velocity's light_travel_time, in the
  unit of t: a the semi-major axis in stellar radii, stellar_radius the
  star's radius in solar radii (the nominal 6.957e8 m), unit the seconds in
  one unit of t (default: a day, 86400). 2.32 s per stellar radius for a
  Sun-sized star. NaN where a or stellar_radius <= 0 or unit <= 0."""
  a, stellar_radius, unit = map(jnp.asarray, (a, stellar_radius, unit))
  ok = (a > 0) & (stellar_radius > 0) & (unit > 0)
  return jnp.where(ok, a * stellar_radius * (_R_SUN / _C) / unit, jnp.nan)


def transit_duration(period, a, r, b=None, inc=None, ecc=0.0, omega=0.0, *, full=False):
  """The duration of the transit at t0 on the Keplerian orbit: from the
  first to the fourth contact (T14, the sky separation 1 + r) or, with
  full=True, from the second to the third (T23, 1 - r), in the unit of
  `period`. Exact (no small-planet or circular approximation): each contact
  is the root of the separation on its side of conjunction, bracketed by
  bisection in the angle from conjunction, then two Newton steps (which
  carry the derivatives). The geometry is given by `b` or `inc` as for
  light_curve. NaN where an argument is outside light_curve's domain, where
  there is no such contact (b >= 1 + r; for full=True also b >= 1 - r or r
  >= 1) or where the planet does not leave that circle within a quarter
  orbit of conjunction (an orbit grazing the star)."""
  if (b is None) == (inc is None):
    raise ValueError("kepler.transit.transit_duration: give exactly one of b and inc")
  period, a, r, ecc, omega = map(jnp.asarray, (period, a, r, ecc, omega))
  ok = (period > 0) & (a > 0) & (r >= 0) & (ecc >= 0) & (ecc < 1)
  e = jnp.where(ok, ecc, 0.0)
  a = jnp.where(ok, a, 1.0)
  if b is not None:
    b = jnp.asarray(b)
    cos_i = _cos_inclination(b, a, e, omega)
    ok &= (b >= 0) & (cos_i <= 1)
  else:
    cos_i = jnp.cos(jnp.asarray(inc))
  c2 = cos_i * cos_i
  radius = 1 - r if full else 1 + r
  ok &= radius > 0
  f_c = jnp.pi / 2 - omega

  def excess(theta):
    # sep^2 - radius^2 at the angle theta from conjunction (f = f_c +
    # theta), and its derivative in theta.
    f = f_c + theta
    den = 1 + e * jnp.cos(f)
    d = a * (1 - e * e) / den
    s, c = jnp.sin(theta), jnp.cos(theta)
    shape = s * s + c2 * c * c
    d_d = d * e * jnp.sin(f) / den
    return d * d * shape - radius * radius, 2 * d * d_d * shape + 2 * d * d * s * c * (1 - c2)

  ok &= (excess(0.0)[0] < 0) & (excess(jnp.pi / 2)[0] > 0) & (excess(-jnp.pi / 2)[0] > 0)

  def contact(side):
    # The root in side * (0, pi/2): 64 bisections from the bracket, then two
    # Newton steps.
    def halve(_, bracket):
      lo, hi = bracket
      mid = (lo + hi) / 2
      inside = excess(side * mid)[0] < 0
      return jnp.where(inside, mid, lo), jnp.where(inside, hi, mid)

    zero = jnp.zeros(jnp.broadcast_shapes(*(jnp.shape(x) for x in (ok, radius, c2, f_c))))
    lo, hi = jax.lax.fori_loop(0, 64, halve, (zero, zero + jnp.pi / 2))
    theta = jax.lax.stop_gradient(side * (lo + hi) / 2)
    for _ in range(2):
      g, slope = excess(theta)
      theta = theta - g / jnp.where(slope != 0, slope, 1.0)
    return theta

  ingress, egress = contact(-1.0), contact(1.0)
  delta = jnp.mod(_mean_anomaly_at(f_c + egress, e) - _mean_anomaly_at(f_c + ingress, e),
                  2 * jnp.pi)
  return jnp.where(ok, period * delta / (2 * jnp.pi), jnp.nan)
