"""kepler.transit against independent references, and its API.

- Without exposures: F - 1 against kepler.limb_dark.light_curve at the
  separation of an mpmath orbit (Kepler's equation solved to 30 digits, the
  sky position from the true anomaly), within 1e-14; the derivatives in
  every orbital parameter against the chain of limb_dark's derivatives and
  mpmath differences of the orbit's separation (1e-9 relative).
- With exposures: the mean against an adaptive reference (the op's own
  non-integrated curve, verified above, integrated over panels graded
  geometrically toward the contact times, which a numpy orbit and a root
  finder give independently), within 1e-9, for T from seconds to three
  transit durations; its derivatives against central differences of it.
- Radial velocities against the mpmath orbit; the API: errors, NaN rules,
  broadcasting, dtypes, jit, grad, vmap (one kernel call for a batch).
"""

import re

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import mpmath as mp
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
import kepler
from kepler import limb_dark
from kepler import transit

X64 = x64_mode.X64
# The computation's dtype: float32 with jax_enable_x64 off, where every
# reference is evaluated at the float32-rounded inputs and the bounds are
# float32's (the kernel computes in float64 and rounds once: half an ulp of
# 1 is 6e-8, twice that for a difference of two such results).
FLOAT = np.dtype(x64_mode.FLOAT).type
QUADRATIC = (0.4, 0.26)
# Laws of every kind: (law, u, mu).
LAWS = (("polynomial", QUADRATIC, None), ("power2", (0.7, 0.6), None),
        ("nonlinear", (0.5, -0.2, 0.6, -0.2), None),
        ("tabulated", (1.0, 0.9, 0.75, 0.45), (1.0, 0.7, 0.35, 0.0)))
mp.mp.dps = 30


def _orbits(seed, count):
  """Orbits drawn (seeded): P in [1, 30], a with periastron beyond 1.5 +
  r, e in [0, 0.9] (every other one circular), omega any, r in [0.01, 0.3],
  b0 in [0, 1 + r] (full, grazing and near-grazing transits)."""
  rng = np.random.default_rng(seed)
  out = []
  for k in range(count):
    period, e = rng.uniform(1, 30), (rng.uniform(0, 0.9) if k % 2 else 0.0)
    r = rng.uniform(0.01, 0.3)
    a = max(rng.uniform(3, 40), (1.5 + r) / (1 - e))
    p = dict(period=period, t0=rng.uniform(-10, 10), a=a, b=rng.uniform(0, 1 + r), r=r, ecc=e,
             omega=rng.uniform(-np.pi, np.pi))
    out.append({k: float(FLOAT(v)) for k, v in p.items()})
  return out


def _mp_sky(t, p, inc=None):
  """(b, Z) at t from mpmath: E by Newton's method to 30 digits, the true
  anomaly, the position; the orbit of docs/transit_model.md."""
  e, w, a = mp.mpf(p["ecc"]), mp.mpf(p["omega"]), mp.mpf(p["a"])
  fc = mp.pi / 2 - w
  ec = 2 * mp.atan2(mp.sqrt(1 - e) * mp.sin(fc / 2), mp.sqrt(1 + e) * mp.cos(fc / 2))
  m = ec - e * mp.sin(ec) + 2 * mp.pi * (mp.mpf(t) - mp.mpf(p["t0"])) / mp.mpf(p["period"])
  m = m - 2 * mp.pi * mp.floor(m / (2 * mp.pi))
  big_e = m if e < 0.8 else mp.pi
  for _ in range(60):
    big_e -= (big_e - e * mp.sin(big_e) - m) / (1 - e * mp.cos(big_e))
  f = 2 * mp.atan2(mp.sqrt(1 + e) * mp.sin(big_e / 2), mp.sqrt(1 - e) * mp.cos(big_e / 2))
  d = a * (1 - e * mp.cos(big_e))
  cos_i = (mp.cos(inc) if inc is not None
           else mp.mpf(p["b"]) * (1 + e * mp.sin(w)) / (a * (1 - e * e)))
  sin_i = mp.sqrt(1 - cos_i**2) if inc is None else mp.sin(inc)
  x, y = -d * mp.cos(w + f), -d * mp.sin(w + f) * cos_i
  return mp.sqrt(x * x + y * y), d * mp.sin(w + f) * sin_i


def _half_duration(p):
  """About half the transit's duration: (1 + r) over the sky speed at
  conjunction, 2 pi a (1 + e sin omega) / (P sqrt(1 - e^2))."""
  speed = 2 * np.pi * p["a"] * (1 + p["ecc"] * np.sin(p["omega"])) / (
      p["period"] * np.sqrt(1 - p["ecc"]**2))
  return (1 + p["r"]) / speed


def _times(p, rng, count, spread=1.5):
  """Times around transits of several epochs: within `spread` half-durations
  of a conjunction."""
  epochs = rng.integers(-3, 4, count)
  t = p["t0"] + epochs * p["period"] + rng.uniform(-spread, spread, count) * _half_duration(p)
  return t.astype(FLOAT).astype(np.float64)


def _model(t, p, law="polynomial", u=QUADRATIC, mu=None, exposure_time=0.0, **kwargs):
  return transit.light_curve(t, period=p["period"], t0=p["t0"], a=p["a"], b=p["b"], r=p["r"],
                             ecc=p["ecc"], omega=p["omega"], u=u, law=law, mu=mu,
                             exposure_time=exposure_time, **kwargs)


class ValuesTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(law, law, u, mu) for law, u, mu in LAWS])
  def test_against_the_light_curve_at_an_mpmath_orbit(self, law, u, mu):
    rng = np.random.default_rng(7)
    worst = 0.0
    for p in _orbits(11, 8):
      t = _times(p, rng, 12)
      sky = [_mp_sky(x, p) for x in t]
      b = np.array([float(s[0]) for s in sky])
      front = np.array([s[1] > 0 for s in sky])
      ref = np.where(front, np.asarray(limb_dark.light_curve(u, b, p["r"], law=law, mu=mu)), 0.0)
      got = np.asarray(_model(t, p, law, u, mu))
      worst = max(worst, np.max(np.abs(got - ref)))
      self.assertTrue(np.any(ref < 0), "some times in transit")
    self.assertLess(worst, 1e-14 if X64 else 1.2e-7)

  def test_inclination_equals_impact_parameter(self):
    rng = np.random.default_rng(8)
    for p in _orbits(12, 6):
      cos_i = p["b"] * (1 + p["ecc"] * np.sin(p["omega"])) / (p["a"] * (1 - p["ecc"]**2))
      inc = float(FLOAT(np.arccos(cos_i)))
      t = _times(p, rng, 20)
      by_inc = transit.light_curve(t, period=p["period"], t0=p["t0"], a=p["a"], inc=inc,
                                   r=p["r"], ecc=p["ecc"], omega=p["omega"], u=QUADRATIC)
      np.testing.assert_allclose(by_inc, _model(t, p), atol=1e-13 if X64 else 1e-5)

  def test_blocked_paths_equal_a_path_without_the_window_over_whole_orbits(self):
    """The CPU handler takes times without an exposure in blocks that skip
    the orbit outside a window around each conjunction
    (jaxlib_ext/transit/transit_window.h): a polynomial law of at most two
    coefficients through its vectorised light curve, any other law (here
    a third, zero coefficient: the same F) through the law's point. With
    the planet's light (a zero day-side flux, passed traced so that the
    call keeps it: the same F) every time takes the orbit, no window. The
    three agree at every time of whole orbits, values and gradients, over
    orbits up to e = 0.95 (periastron just beyond the star), both
    geometries, inclinations on either side of the sky (sin i < 0: the
    transit at the other node) and planets that can overlap the star far
    from conjunction (no window)."""
    rng = np.random.default_rng(21)
    worst, worst_grad, transits = 0.0, 0.0, 0
    names = ("period", "t0", "a", "r", "ecc", "omega")
    for k in range(16):
      e = (0.0, 0.3, 0.7, 0.95)[k % 4]
      r = rng.uniform(0.01, 0.3)
      a = (1 + r) / (1 - e) * rng.uniform(1.02, 1.5 if k % 3 else 20)
      p = dict(period=rng.uniform(1, 30), t0=rng.uniform(-10, 10), a=a, r=r, ecc=e,
               omega=rng.uniform(-np.pi, np.pi))
      if k % 2:
        # Near edge-on, on either side: sin i of either sign.
        p["inc"] = (np.pi / 2 + rng.uniform(-0.5, 0.5) / a) * (1 if k % 4 == 1 else -1)
      else:
        p["b"] = rng.uniform(0, 1 + r)
      p = {name: FLOAT(v) for name, v in p.items()}
      t = (p["t0"] + rng.uniform(-0.5, 1.5) * p["period"]
           + np.linspace(0, 1, 20000) * p["period"]).astype(FLOAT)

      @jax.jit
      def flux(q, u, planet_flux, t=t):
        return transit.light_curve(t, u=u, planet_flux=planet_flux, **q)

      paths = ((QUADRATIC, None), (QUADRATIC + (0.0,), None), (QUADRATIC, FLOAT(0)))
      fast, general, everywhere = (flux(p, u, x) for u, x in paths)
      transits += int(np.any(np.asarray(everywhere) != 0))
      for got in (fast, general):
        worst = max(worst, float(np.max(np.abs(np.asarray(got) - np.asarray(everywhere)))))
      # Each parameter's derivative at every time (a JVP along it).
      for name in names + (("inc",) if "inc" in p else ("b",)):
        along = {key: FLOAT(key == name) for key in p}
        d_fast, d_general, d_everywhere = (
            np.asarray(jax.jvp(lambda q, u=u, x=x: flux(q, u, x), (p,), (along,))[1])
            for u, x in paths)
        scale = max(float(np.max(np.abs(d_everywhere))), 1e-300)
        for d in (d_fast, d_general):
          worst_grad = max(worst_grad, float(np.max(np.abs(d - d_everywhere))) / scale)
    self.assertGreaterEqual(transits, 12, "most orbits transit")
    self.assertLess(worst, 1e-15 if X64 else 1.2e-7)
    self.assertLess(worst_grad, 1e-10 if X64 else 1e-4)

  def test_behind_the_star_is_zero(self):
    p = dict(period=3.0, t0=0.5, a=3.0, b=0.0, r=0.2, ecc=0.0, omega=0.0)
    # Half a period from t0 the planet is behind the star, at b = 0 on the sky.
    t = 0.5 + 1.5 + np.linspace(-0.05, 0.05, 11)
    self.assertTrue(np.all(np.asarray(_model(t, p)) == 0))

  def test_radial_velocity_against_the_mpmath_orbit(self):
    rng = np.random.default_rng(9)
    for p in _orbits(13, 6):
      t = p["t0"] + rng.uniform(-2, 2, 15) * p["period"]
      got = transit.radial_velocity(t, period=p["period"], t0=p["t0"], K=12.5, ecc=p["ecc"],
                                    omega=p["omega"])
      ref = []
      for x in t:
        e, w = mp.mpf(p["ecc"]), mp.mpf(p["omega"])
        fc = mp.pi / 2 - w
        ec = 2 * mp.atan2(mp.sqrt(1 - e) * mp.sin(fc / 2), mp.sqrt(1 + e) * mp.cos(fc / 2))
        m = ec - e * mp.sin(ec) + 2 * mp.pi * (mp.mpf(x) - p["t0"]) / p["period"]
        big_e = mp.findroot(lambda z: z - e * mp.sin(z) - m, m)
        f = 2 * mp.atan2(mp.sqrt(1 + e) * mp.sin(big_e / 2), mp.sqrt(1 - e) * mp.cos(big_e / 2))
        ref.append(float(12.5 * (mp.cos(w + f) + e * mp.cos(w))))
      np.testing.assert_allclose(got, ref, atol=1e-12 if X64 else 1e-4)
    # Circular: receding before the transit, approaching after.
    v = transit.radial_velocity(np.array([-0.1, 0.0, 0.1]), period=3.0, t0=0.0, K=1.0)
    self.assertGreater(v[0], 0)
    self.assertLess(abs(float(v[1])), 1e-6)
    self.assertLess(v[2], 0)


class DerivativeTest(parameterized.TestCase):

  @parameterized.named_parameters(("impact", False), ("inclination", True))
  def test_orbit_derivatives_against_mpmath(self, by_inc):
    """dF/dx = dF/db db/dx (+ dF/dr for r): db/dx by mpmath central
    differences of the orbit (step 1e-12, 30 digits), dF/db and dF/dr from
    kepler.limb_dark's own derivatives."""
    rng = np.random.default_rng(10)
    names = ("period", "t0", "a", "inc" if by_inc else "b", "ecc", "omega")
    worst = 0.0
    for p in _orbits(14, 6):
      if by_inc:
        cos_i = p["b"] * (1 + p["ecc"] * np.sin(p["omega"])) / (p["a"] * (1 - p["ecc"]**2))
        p = dict(p, inc=float(FLOAT(np.arccos(cos_i))))
      t = _times(p, rng, 8, spread=0.5)
      inc = p.get("inc")

      def model(params):
        kwargs = dict(params)
        kwargs.pop("b" if by_inc else "inc", None)
        return transit.light_curve(t, u=QUADRATIC, **kwargs)

      params = {k: jnp.asarray(v, FLOAT) for k, v in p.items()}
      jac = jax.jacfwd(model)(params)
      for k, x in enumerate(t):
        b, z = _mp_sky(x, p, inc)
        if z <= 0 or not float(b) < 1 + p["r"]:
          continue
        d_db, d_dr = jax.grad(lambda bb, rr: limb_dark.light_curve(QUADRATIC, bb, rr),
                              argnums=(0, 1))(float(b), p["r"])
        for name in names:
          h = mp.mpf("1e-12")
          up, down = dict(p), dict(p)
          up[name] = mp.mpf(p[name]) + h
          down[name] = mp.mpf(p[name]) - h
          db = (_mp_sky(x, up, up.get("inc"))[0] - _mp_sky(x, down, down.get("inc"))[0]) / (2 * h)
          ref = float(d_db) * float(db)
          got = float(jac[name][k])
          worst = max(worst, abs(got - ref) / max(abs(ref), 1e-6))
        worst = max(worst, abs(float(jac["r"][k]) - float(d_dr)) / max(abs(float(d_dr)), 1e-6))
    # float32: the separation rounded to float32 before limb_dark's dF/db.
    self.assertLess(worst, 1e-9 if X64 else 1e-4)

  def test_coefficients_time_and_reverse_mode(self):
    """dF/du from the op equals limb_dark's at the same separation; dF/dt
    = -dF/dt0; reverse mode equals forward mode."""
    p = _orbits(15, 1)[0]
    t = jnp.asarray(_times(p, np.random.default_rng(3), 30, spread=0.6), FLOAT)
    for law, u, mu in LAWS:
      u = jnp.asarray(u, FLOAT)
      d_u = jax.jacfwd(lambda uu: _model(t, p, law, uu, mu))(u)
      sky = [_mp_sky(float(x), p) for x in t]
      b = np.array([float(s[0]) for s in sky])
      front = np.array([s[1] > 0 for s in sky])
      ref = jax.jacfwd(lambda uu: limb_dark.light_curve(uu, b, p["r"], law=law, mu=mu))(u)
      ref = np.where(front[:, None], ref, 0)
      np.testing.assert_allclose(d_u, ref, atol=1e-12 if X64 else 1e-5)
    d_t = jax.vmap(jax.grad(lambda x: _model(x, p)))(t)
    d_t0 = jax.jacfwd(lambda x0: _model(t, dict(p, t0=x0)))(jnp.asarray(p["t0"], FLOAT))
    np.testing.assert_allclose(d_t, -d_t0, rtol=1e-12 if X64 else 1e-6, atol=1e-30)
    args = {k: jnp.asarray(v, FLOAT) for k, v in p.items()}
    loss = lambda q: jnp.sum(transit.light_curve(t, u=QUADRATIC, exposure_time=0.02, **q)**2)
    rev = jax.grad(loss)(args)
    fwd = jax.jacfwd(loss)(args)
    for k in args:
      np.testing.assert_allclose(rev[k], fwd[k], rtol=1e-10 if X64 else 1e-4, atol=1e-30)


  def test_long_calls_contract_per_entry(self):
    """A call whose stacked derivatives would pass 4 MiB contracts them
    entry by entry (kepler/_ffi/row_op.py): its gradient and its JVP equal
    the sums over chunks short enough for the one dot."""
    p = _orbits(21, 1)[0]
    n, chunks = 1 << 17, 16
    t = jnp.asarray(_times(p, np.random.default_rng(5), n, spread=1.2), FLOAT)
    args = {k: jnp.asarray(v, FLOAT) for k, v in p.items()}
    args["u"] = jnp.asarray(QUADRATIC, FLOAT)
    weights = jnp.asarray(np.random.default_rng(6).normal(size=n), FLOAT)
    loss = lambda q, tt, w: jnp.sum(w * transit.light_curve(tt, **q))
    grad = jax.jit(jax.grad(loss))
    long = grad(args, t, weights)
    parts = [grad(args, tt, w) for tt, w in zip(jnp.split(t, chunks), jnp.split(weights, chunks))]
    tangent = {k: jnp.ones_like(v) for k, v in args.items()}
    jvp = jax.jit(lambda tt, w: jax.jvp(lambda q: loss(q, tt, w), (args,), (tangent,))[1])
    for k in args:
      np.testing.assert_allclose(long[k], sum(g[k] for g in parts), rtol=1e-11 if X64 else 1e-3,
                                 atol=1e-30)
    np.testing.assert_allclose(
        jvp(t, weights), sum(jvp(tt, w) for tt, w in zip(jnp.split(t, chunks),
                                                         jnp.split(weights, chunks))),
        rtol=1e-11 if X64 else 1e-3)
    # The two contractions are the ones the limit chose.
    dots = lambda m: str(jax.make_jaxpr(jax.grad(loss))(args, t[:m], weights[:m])).count(
        "dot_general")
    self.assertEqual(dots(n), 0)
    self.assertGreater(dots(n // chunks), 0)


class SecondDerivativeTest(parameterized.TestCase):

  @parameterized.parameters((0.0, 1e-5), (0.01, 5e-3))
  def test_hessian_against_differences_of_the_gradient(self, exposure, bound):
    """Second derivatives (central differences of the handler's first ones,
    one-sided at a domain's edge: here a circular orbit, e = 0, and b = 0)
    against central differences of the gradient. With exposures both carry
    the quadrature's steps where a piece's node count changes with the
    parameters (about 1e-8 in the first derivatives): 5e-3 of the scale."""
    t = jnp.asarray(np.linspace(-0.12, 0.12, 40), FLOAT)
    names = ("t0", "b", "r", "ecc", "omega")

    def loss(x):
      q = dict(zip(names, x))
      return jnp.sum(transit.light_curve(t, period=3.0, a=8.0, u=QUADRATIC,
                                         exposure_time=exposure, **q) ** 2)

    for x in ([0.001, 0.3, 0.1, 0.2, 0.7], [0.0, 0.0, 0.1, 0.0, 0.0]):
      x = jnp.asarray(x, FLOAT)
      hessian = np.asarray(jax.hessian(loss)(x))
      self.assertTrue(np.all(np.isfinite(hessian)), hessian)
      grad = jax.grad(loss)
      h = 1e-6 if X64 else 1e-3
      rows = []
      for j in range(len(names)):
        up, down = x.at[j].add(h), x.at[j].add(-h)
        lo = x if names[j] in ("b", "ecc") and x[j] < h else down
        rows.append((grad(up) - grad(lo)) / (up[j] - lo[j]))
      scale = np.max(np.abs(hessian))
      np.testing.assert_allclose(hessian, np.stack(rows), rtol=0, atol=bound * scale)


if not X64:
  # float32: differences of 1e-6 relative are below float32's resolution,
  # so second derivatives are float64-only (docs/transit_model.md).
  del SecondDerivativeTest


def _np_separation(t, p):
  """b^2(t) and Z(t) in numpy (an orbit written apart from the op's: E by
  Newton's method, position from the true anomaly)."""
  e, w = p["ecc"], p["omega"]
  fc = np.pi / 2 - w
  ec = 2 * np.arctan2(np.sqrt(1 - e) * np.sin(fc / 2), np.sqrt(1 + e) * np.cos(fc / 2))
  m = np.mod(ec - e * np.sin(ec) + 2 * np.pi * (np.asarray(t) - p["t0"]) / p["period"], 2 * np.pi)
  big_e = np.where(e < 0.8, m, np.pi)
  for _ in range(50):
    big_e = big_e - (big_e - e * np.sin(big_e) - m) / (1 - e * np.cos(big_e))
  f = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(big_e / 2), np.sqrt(1 - e) * np.cos(big_e / 2))
  d = p["a"] * (1 - e * np.cos(big_e))
  cos_i = p["b"] * (1 + e * np.sin(w)) / (p["a"] * (1 - e * e))
  return d**2 * (np.cos(w + f)**2 + (np.sin(w + f) * cos_i)**2), d * np.sin(w + f)


def _contacts(p):
  """The transit's breakpoints relative to t0 (times where b = 1 + r and b =
  |1 - r|, and the least separation), by a fine scan and bisection."""
  half = 3 * _half_duration(p)
  grid = np.linspace(-half, half, 4001)
  b2, z = _np_separation(p["t0"] + grid, p)
  front = z > 0
  out = [grid[np.argmin(np.where(front, b2, np.inf))]]
  for radius in (1 + p["r"], abs(1 - p["r"])):
    g = np.where(front, b2 - radius**2, 1.0)
    for k in np.nonzero(np.sign(g[:-1]) != np.sign(g[1:]))[0]:
      lo, hi = grid[k], grid[k + 1]
      sign = np.sign(g[k])
      for _ in range(80):
        mid = (lo + hi) / 2
        if np.sign(_np_separation(p["t0"] + mid, p)[0] - radius**2) == sign:
          lo = mid
        else:
          hi = mid
      out.append((lo + hi) / 2)
  return sorted(out)


def _reference_mean(p, t, exposure, law, u, mu, taus=None, step=None, **light):
  """The mean of the op's non-integrated F - 1 over each exposure: Gauss-
  Legendre (12 points) on panels between the breakpoints (`taus`, relative
  to t0, repeated every period; default every transit's contacts), graded
  geometrically (ratio 0.3) toward each breakpoint; with `step`, a cut every
  `step` as well (for a phase curve). `light`: the planet's light's
  arguments."""
  x12, w12 = np.polynomial.legendre.leggauss(12)
  x12, w12 = (x12 + 1) / 2, w12 / 2
  grading = np.array([0.0] + [0.5 * 0.3**k for k in range(30, 0, -1)] + [0.5] +
                     [1 - 0.5 * 0.3**k for k in range(1, 31)] + [1.0])
  taus = sorted(_contacts(p) if taus is None else taus)
  nodes, weights, owner = [], [], []
  for i, (c, s) in enumerate(zip(t, exposure)):
    lo, hi = c - s / 2 - p["t0"], c + s / 2 - p["t0"]
    k0, k1 = int(np.floor((lo - taus[-1]) / p["period"])), int(np.ceil((hi - taus[0]) / p["period"]))
    cuts = [lo, hi] + [x + k * p["period"] for k in range(k0, k1 + 1) for x in taus
                       if lo < x + k * p["period"] < hi]
    if step is not None:
      cuts += list(np.arange(np.ceil(lo / step), np.floor(hi / step) + 1) * step)
    cuts = sorted(set(x for x in cuts if lo <= x <= hi))
    for a, b in zip(cuts[:-1], cuts[1:]):
      edges = a + (b - a) * grading
      for q0, q1 in zip(edges[:-1], edges[1:]):
        nodes.append(p["t0"] + q0 + (q1 - q0) * x12)
        weights.append((q1 - q0) * w12 / s)
        owner.append(np.full(12, i))
  nodes, weights, owner = map(np.concatenate, (nodes, weights, owner))
  values = np.asarray(_model(nodes, p, law, u, mu, **light))
  return np.bincount(owner, weights * values, minlength=len(t))


def _check_exposure_derivatives(test, p, t, exposure, **light):
  """The exposure mean's derivatives at times t (float32 with x64 off): dF/dt0
  = -(F(t + T/2) - F(t - T/2)) / T and dF/dT = (F(t + T/2) + F(t - T/2)) /
  (2 T) - mean / T exactly (the mean is an integral of F(t - t0) over [t -
  T/2, t + T/2]), F the op's non-integrated values, within 1e-7 of the
  derivatives' scale; in float64 every derivative (the orbit's and the
  `light` parameters') against central differences of the mean (step 1e-6,
  bound 2e-5)."""
  args = {k: jnp.asarray(v, FLOAT) for k, v in dict(p, **light).items()}
  model = lambda q, x: transit.light_curve(t, u=QUADRATIC, exposure_time=x, **q)
  mean = model(args, exposure)
  jac, jac_x = jax.jacfwd(model, argnums=(0, 1))(args, jnp.asarray(exposure))
  ends = [np.asarray(_model(np.float64(t) + s * np.float64(exposure) / 2, p, **light), np.float64)
          for s in (1, -1)]
  # float64: the derivatives' quadrature (of dF/dx, whose terms at a
  # contact are a power 1/2 lower) is good to about 3e-8 of their scale;
  # float32: F and the float32 times rounded, over T.
  tolerance = 1e-7 if X64 else 2e-4
  bound = tolerance * np.max(np.abs(jac["t0"]))
  err = np.abs(jac["t0"] + (ends[0] - ends[1]) / exposure)
  test.assertTrue(np.all(err <= bound), (err, bound))
  d_exposure = (ends[0] + ends[1]) / (2 * exposure) - mean / exposure
  bound = tolerance * np.max(np.abs(jac_x))
  err = np.abs(np.diagonal(jac_x) - d_exposure)
  test.assertTrue(np.all(err <= bound), (err, bound))
  if not X64:
    return
  for name in args:
    h = 1e-6 * max(1.0, abs(float(args[name]))) * (0.1 if name == "period" else 1.0)
    at = lambda k: model(dict(args, **{name: args[name] + k * h}), exposure)
    if name == "ecc" and p["ecc"] < 2 * h:  # one-sided at a circular orbit
      fd = (4 * at(1) - 3 * at(0) - at(2)) / (2 * h)
    else:
      fd = (at(1) - at(-1)) / (2 * h)
    # (absolute floor: the differences of a mean exact to ~1e-10)
    np.testing.assert_allclose(jac[name], fd, rtol=2e-5,
                               atol=max(2e-5 * np.max(np.abs(jac[name])), 1e-8), err_msg=name)


class ExposureTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(law, law, u, mu) for law, u, mu in LAWS[:3]])
  def test_mean_against_the_adaptive_reference(self, law, u, mu):
    rng = np.random.default_rng(16)
    worst = 0.0
    for p in _orbits(17, 6):
      taus = _contacts(p)
      duration = taus[-1] - taus[0]
      exposure = duration * np.repeat([1e-4, 0.01, 0.1, 0.3, 1.0, 3.0], 5)
      t = (p["t0"] + rng.integers(-2, 3, exposure.size) * p["period"] + rng.uniform(
          -0.8, 0.8, exposure.size) * duration).astype(FLOAT).astype(np.float64)
      exposure = exposure.astype(FLOAT).astype(np.float64)
      got = np.asarray(_model(t, p, law, u, mu, exposure_time=exposure))
      ref = _reference_mean(p, t, exposure, law, u, mu)
      worst = max(worst, np.max(np.abs(got - ref)))
    # float32: the reference's nodes are rounded to float32 times.
    self.assertLess(worst, 1e-9 if X64 else 1e-5)

  def test_derivatives_of_the_mean(self):
    # _check_exposure_derivatives: the exact relations, and differences.
    rng = np.random.default_rng(18)
    for p in _orbits(19, 4):
      taus = _contacts(p)
      duration = taus[-1] - taus[0]
      exposure = (duration * np.repeat([0.05, 0.3, 2.0], 4)).astype(FLOAT)
      t = (p["t0"] + rng.uniform(-0.6, 0.6, exposure.size) * duration).astype(FLOAT)
      _check_exposure_derivatives(self, p, t, exposure)

  def test_exposures_of_many_orbits(self):
    """docs/transit_model.md, Extreme values: an exposure of more than 2^32
    periods is the orbit average, W / P with W the integral of F - 1 over one
    transit (the reference: _reference_mean over one whole period), and an
    exposure of 1e9 periods (counted transit by transit) is within 2e-9 of
    it, relative; each within 1e-9 of the depth of the reference, as the
    exposure integral's bound. The average's derivative in the period
    equals central differences of it; an exposure centred beyond 2^52
    periods from t0 is NaN, while the same time without an exposure is a
    value."""
    for p in _orbits(21, 3):
      average = _reference_mean(p, [p["t0"]], [p["period"]], "polynomial", QUADRATIC, None)[0]
      depth = abs(float(_model(np.array([p["t0"]]), p)[0]))
      t = p["t0"] + np.array([0.0, 0.3, -2.7]) * p["period"]
      tolerance = (1e-9 if X64 else 1e-6) * depth
      # (1e300 periods: inf, so NaN, in float32)
      for orbits in (1e9, 1e12, 1e20) + ((1e300,) if X64 else ()):
        got = np.asarray(_model(t, p, exposure_time=orbits * p["period"]), np.float64)
        slack = 2e-9 * abs(average) if orbits < 2.0**32 else 0.0
        np.testing.assert_allclose(got, average, rtol=0, atol=tolerance + slack,
                                   err_msg=f"{orbits} orbits")
      far = np.array([p["t0"] + 2.0**53 * p["period"]])
      self.assertTrue(np.isnan(_model(far, p, exposure_time=0.01 * p["period"])[0]))
      self.assertTrue(np.isfinite(_model(far, p)[0]))
      if X64:
        exposure = 1e15 * p["period"]
        args = {k: jnp.float64(v) for k, v in p.items()}
        mean = lambda period: transit.light_curve(
            t[:1], u=QUADRATIC, exposure_time=exposure, **dict(args, period=period))[0]
        h = 1e-6 * p["period"]
        fd = (mean(args["period"] + h) - mean(args["period"] - h)) / (2 * h)
        np.testing.assert_allclose(jax.grad(mean)(args["period"]), fd, rtol=1e-5,
                                   atol=1e-9 * depth / p["period"])

  def test_out_of_transit_and_scalar_exposure(self):
    p = _orbits(20, 1)[0]
    taus = _contacts(p)
    far = p["t0"] + p["period"] / 2 + np.linspace(-0.01, 0.01, 5)
    self.assertTrue(np.all(np.asarray(_model(far, p, exposure_time=0.01)) == 0))
    t = p["t0"] + np.linspace(taus[0], taus[-1], 7)
    np.testing.assert_array_equal(_model(t, p, exposure_time=0.02),
                                  _model(t, p, exposure_time=np.full(7, 0.02)))


class FloatTest(parameterized.TestCase):
  """(With jax_enable_x64 on only: off, every array is float32 and the other
  tests bound float32's results.)"""

  def test_float32_is_float64_rounded_once(self):
    """float32 in, float32 out: the kernel computes in float64 and rounds
    once, so F - 1 is within 6e-8 of the float64 result at the same
    (float32-rounded) inputs, with and without exposures."""
    rng = np.random.default_rng(23)
    for p in _orbits(24, 4):
      p32 = {k: np.float32(v) for k, v in p.items()}
      p64 = {k: np.float64(v) for k, v in p32.items()}
      t = _times(p, rng, 40).astype(np.float32)
      for exposure in (0.0, 0.01):
        got = _model(t, p32, u=np.float32(QUADRATIC), exposure_time=np.float32(exposure))
        ref = _model(t.astype(np.float64), p64, u=np.float32(QUADRATIC).astype(np.float64),
                     exposure_time=np.float64(np.float32(exposure)))
        self.assertEqual(got.dtype, np.float32)
        np.testing.assert_allclose(got, ref, atol=6e-8, rtol=0)


if not X64:
  del FloatTest  # (see its docstring)


class ApiTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(law, law, u, mu) for law, u, mu in LAWS])
  def test_derivative_graphs_are_exact_on_gpus(self, law, u, mu):
    """The first and second derivatives of both ops (this and limb_dark)
    lower to no scatter (XLA's GPU scatter kernel read past a small buffer
    under compute-sanitizer) and to dots at full precision only (a float32
    dot on a GPU defaults to TF32: 5e-4 off, seen on an H200). Checked on
    the lowered program, for the GPU and the CPU alike."""
    p = dict(period=3.0, t0=0.1, a=8.0, b=0.3, r=0.1, ecc=0.2, omega=0.5)
    t = jnp.linspace(-0.1, 0.1, 8, dtype=FLOAT)
    u = jnp.asarray(u, FLOAT)

    def transit_loss(q, u):
      return jnp.sum(transit.light_curve(t, u=u, law=law, mu=mu, exposure_time=0.01, **q))

    def limb_dark_loss(q, u):
      return jnp.sum(limb_dark.light_curve(u, t + q["b"], q["r"], law=law, mu=mu))

    q = {k: jnp.asarray(v, FLOAT) for k, v in p.items()}
    for name, loss in (("transit", transit_loss), ("limb_dark", limb_dark_loss)):
      for what, fn in (("grad", jax.grad(loss, argnums=(0, 1))),
                       ("jvp", lambda q, u, loss=loss: jax.jvp(loss, (q, u), (q, u))),
                       ("hessian", jax.hessian(loss, argnums=(0, 1)))):
        text = jax.jit(fn).lower(q, u).as_text()
        self.assertFalse("stablehlo.scatter" in text, f"{name} {what}: a scatter")
        for dot in re.findall(r"stablehlo.dot_general[^\n]*", text):
          self.assertRegex(dot, r"precision = \[HIGHEST, HIGHEST\]", f"{name} {what}: {dot}")

  def test_errors(self):
    p = dict(period=3.0, t0=0.0, a=8.0, r=0.1, u=QUADRATIC)
    with self.assertRaisesRegex(ValueError, "exactly one of b"):
      transit.light_curve(0.0, **p)
    with self.assertRaisesRegex(ValueError, "exactly one of b"):
      transit.light_curve(0.0, b=0.3, inc=1.5, **p)
    with self.assertRaisesRegex(ValueError, "period must be a scalar"):
      transit.light_curve(0.0, **dict(p, period=np.ones(3)), b=0.3)
    with self.assertRaisesRegex(ValueError, "takes 4 coefficients"):
      transit.light_curve(0.0, b=0.3, **dict(p, u=(0.1, 0.2)), law="nonlinear")
    with self.assertRaisesRegex(ValueError, "unknown law"):
      transit.light_curve(0.0, b=0.3, **p, law="cubic")
    with self.assertRaisesRegex(ValueError, "do not broadcast"):
      transit.light_curve(np.zeros(3), b=0.3, **p, exposure_time=np.ones(2))
    with self.assertRaisesRegex(TypeError, "complex"):
      transit.light_curve(0.0, b=0.3, **dict(p, a=1j))

  def test_nan_rules(self):
    good = dict(period=3.0, t0=0.0, a=8.0, b=0.3, r=0.1, ecc=0.2, omega=0.5)
    t = np.array([0.0, 0.01])
    for name, value in (("period", 0.0), ("a", -1.0), ("ecc", 1.0), ("ecc", -0.1),
                        ("b", -0.1), ("b", 10.0), ("r", -0.1), ("t0", np.nan),
                        ("omega", np.inf)):
      out = _model(t, dict(good, **{name: value}))
      self.assertTrue(np.all(np.isnan(out)), (name, value, out))
    self.assertTrue(np.all(np.isnan(_model(t, good, exposure_time=-1.0))))
    self.assertTrue(np.all(np.isnan(_model(np.array([np.nan, np.inf]), good))))
    # An orbit through the star: no contact times for an exposure.
    through = dict(good, a=1.05, ecc=0.0)
    self.assertTrue(np.all(np.isnan(_model(t, through, exposure_time=0.01))))
    self.assertTrue(np.all(np.isfinite(_model(t, through))))

  def test_shapes_and_dtypes(self):
    p = _orbits(21, 1)[0]
    for shape in ((), (0,), (3, 4)):
      t = np.full(shape, p["t0"], np.float32)
      out = _model(t, p)
      self.assertEqual(out.shape, shape)
      self.assertEqual(out.dtype, x64_mode.canonical(np.float64))
    out = transit.light_curve(np.float32(p["t0"]), period=np.float32(3), t0=np.float32(p["t0"]),
                              a=np.float32(8), b=np.float32(0.3), r=np.float32(0.1),
                              u=np.float32([0.4, 0.26]))
    self.assertEqual(out.dtype, np.float32)

  def test_jit_and_vmap_is_one_call(self):
    p = _orbits(22, 1)[0]
    t = jnp.asarray(_times(p, np.random.default_rng(4), 50), FLOAT)
    radii = jnp.asarray([0.05, 0.1, 0.2], FLOAT)
    model = lambda r: _model(t, dict(p, r=r), exposure_time=0.01)
    batched = jax.jit(jax.vmap(model))(radii)
    for k, r in enumerate(radii):
      np.testing.assert_array_equal(batched[k], model(r))
    text = str(jax.make_jaxpr(jax.vmap(jax.grad(lambda r: jnp.sum(model(r)))))(radii))
    self.assertEqual(text.count("kepler_jax_transit"), 1, text)
    # A multi-planet light curve: a sum over a vmapped planet axis.
    self.assertEqual(jnp.sum(batched, axis=0).shape, t.shape)


def _transit_times(p, rng, count, scale=0.3):
  """Mid-transit times of epochs 0..count-1 of p's linear ephemeris, each off
  by up to `scale` half-durations (increasing: the period is days, the
  variations minutes)."""
  epochs = np.arange(count)
  offsets = rng.uniform(-scale, scale, count) * _half_duration(p)
  return (p["t0"] + epochs * p["period"] + offsets).astype(FLOAT).astype(np.float64)


def _rounding_of_time(t, p, times):
  """What rounding a time to its dtype's spacing moves the model by: four
  spacings of t times |dF/dt| (the op subtracts the variation from t in the
  computation's dtype: float32 with x64 off, where t ~ 100 has a spacing of
  8e-6)."""
  slope = jax.vmap(jax.grad(lambda x: _model(x, p, transit_times=times)))(jnp.asarray(t, FLOAT))
  return 4 * np.spacing(np.abs(t).astype(FLOAT)).astype(np.float64) * np.abs(slope)


class TransitTimesTest(parameterized.TestCase):
  """transit_times: each time shifted by its epoch's variation."""

  def test_against_the_mpmath_orbit_at_shifted_times(self):
    rng = np.random.default_rng(31)
    worst = 0.0
    for p in _orbits(31, 4):
      times = _transit_times(p, rng, 5)
      # Times around every epoch's observed transit, and before the first
      # and after the last (clipped to epochs 0 and 4).
      k = rng.integers(-1, 6, 30)
      t = (times[np.clip(k, 0, 4)] + (k - np.clip(k, 0, 4)) * p["period"]
           + rng.uniform(-1.5, 1.5, 30) * _half_duration(p)).astype(FLOAT).astype(np.float64)
      epoch = np.clip(np.round((t - p["t0"]) / p["period"]), 0, 4).astype(int)
      shifted = t - (times[epoch] - p["t0"] - epoch * p["period"])
      sky = [_mp_sky(x, p) for x in shifted]
      b = np.array([float(q[0]) for q in sky])
      front = np.array([q[1] > 0 for q in sky])
      ref = np.where(front, np.asarray(limb_dark.light_curve(QUADRATIC, b, p["r"])), 0.0)
      got = np.asarray(_model(t, p, transit_times=times))
      excess = np.abs(got - ref) - _rounding_of_time(t, p, times)
      worst = max(worst, np.max(excess))
      self.assertTrue(np.any(ref < 0), "some times in transit")
    self.assertLess(worst, 1e-14 if X64 else 1.2e-7)

  def test_each_transit_is_centred_on_its_time(self):
    # A circular orbit's transit is symmetric about its mid-time.
    rng = np.random.default_rng(32)
    p = dict(_orbits(32, 1)[0], ecc=0.0)
    times = _transit_times(p, rng, 4)
    tau = rng.uniform(0, 1.2, 10) * _half_duration(p)
    for tk in times:
      early = (tk - tau).astype(FLOAT).astype(np.float64)
      late = (tk + tau).astype(FLOAT).astype(np.float64)
      before = np.asarray(_model(early, p, transit_times=times))
      after = np.asarray(_model(late, p, transit_times=times))
      bound = (1e-14 if X64 else 2.4e-7) + _rounding_of_time(early, p, times) + \
          _rounding_of_time(late, p, times) + np.abs(early + late - 2 * tk) * np.abs(
              jax.vmap(jax.grad(lambda x: _model(x, p, transit_times=times)))(
                  jnp.asarray(late, FLOAT)))
      self.assertTrue(np.all(np.abs(before - after) <= bound), (before - after, bound))
      self.assertLess(float(_model(np.array([tk]), p, transit_times=times)[0]), 0)

  def test_a_linear_ephemeris_changes_nothing(self):
    p = _orbits(33, 1)[0]
    t = _times(p, np.random.default_rng(33), 50)
    times = p["t0"] + p["period"] * np.arange(8)
    np.testing.assert_allclose(_model(t, p, transit_times=times), _model(t, p),
                               atol=1e-12 if X64 else 2e-6)
    v = transit.radial_velocity(t, period=p["period"], t0=p["t0"], K=3.0, ecc=p["ecc"],
                                omega=p["omega"], transit_times=times)
    np.testing.assert_allclose(v, transit.radial_velocity(
        t, period=p["period"], t0=p["t0"], K=3.0, ecc=p["ecc"], omega=p["omega"]),
                               atol=1e-10 if X64 else 2e-5)

  def test_radial_velocity_at_shifted_times(self):
    rng = np.random.default_rng(34)
    p = _orbits(34, 2)[1]
    times = _transit_times(p, rng, 3)
    t = p["t0"] + rng.uniform(-0.5, 2.5, 30) * p["period"]
    epoch = np.clip(np.round((t - p["t0"]) / p["period"]), 0, 2)
    shifted = t - (times[epoch.astype(int)] - p["t0"] - epoch * p["period"])
    kwargs = dict(period=p["period"], t0=p["t0"], K=3.0, ecc=p["ecc"], omega=p["omega"])
    np.testing.assert_allclose(transit.radial_velocity(t, transit_times=times, **kwargs),
                               transit.radial_velocity(shifted, **kwargs),
                               atol=1e-10 if X64 else 2e-5)

  def test_derivatives_in_every_transit_time(self):
    rng = np.random.default_rng(35)
    p = _orbits(35, 2)[1]
    times = _transit_times(p, rng, 3)
    t = np.concatenate([times[k] + rng.uniform(-1.2, 1.2, 6) * _half_duration(p)
                        for k in range(3)])
    loss = lambda tt, period, t0, tv=t, exposure=0.0: jnp.sum(
        _model(tv, dict(p, period=period, t0=t0), transit_times=tt,
               exposure_time=exposure) ** 2)
    # The chain rule, with exposures too: a transit time moves its epoch's
    # times back.
    for exposure in (0.0, 0.3 * _half_duration(p)):
      args = (jnp.asarray(times, FLOAT), FLOAT(p["period"]), FLOAT(p["t0"]),
              jnp.asarray(t, FLOAT), exposure)
      by_tt, by_t = jax.grad(loss, argnums=(0, 3))(*args)
      for k in range(3):
        np.testing.assert_allclose(by_tt[k], -np.sum(by_t[6 * k:6 * (k + 1)]),
                                   rtol=1e-12 if X64 else 1e-5)
    if not X64:  # the differences below need float64
      return
    # Without exposures (their derivatives' own accuracy: ExposureTest),
    # against differences of the value.
    grads = jax.grad(loss, argnums=(0, 1, 2))(jnp.asarray(times), p["period"], p["t0"])

    def difference(j, h=1e-6):  # the five-point stencil in argument j
      def at(step):
        args = [times.copy(), p["period"], p["t0"]]
        if isinstance(j, tuple):
          args[0][j[1]] += step
        else:
          args[j] += step
        return float(loss(*args))
      return (8 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12 * h)

    for k in range(3):
      np.testing.assert_allclose(grads[0][k], difference((0, k)), rtol=1e-7, atol=1e-10)
      self.assertNotEqual(float(grads[0][k]), 0.0)
    for j, name in ((1, "period"), (2, "t0")):
      np.testing.assert_allclose(grads[j], difference(j), rtol=1e-7, atol=1e-10, err_msg=name)

  def test_the_kernels_shift_is_the_epochs_variation_to_the_bit(self):
    # The handler shifts each time itself; the shift computed here in the
    # dtype's own arithmetic (numpy), the model then called at the shifted
    # times without transit_times: the same values, bit for bit, at times
    # around every transit, at the half-periods between them (where the
    # epoch rounds to even) and beyond both ends, with and without
    # exposures; and the value of a derivative's call is the same too.
    rng = np.random.default_rng(38)
    for p in _orbits(38, 3):
      times = _transit_times(p, rng, 4)
      k = rng.integers(-1, 5, 40)
      t = np.concatenate([times[np.clip(k, 0, 3)] + (k - np.clip(k, 0, 3)) * p["period"]
                          + rng.uniform(-1.5, 1.5, 40) * _half_duration(p),
                          p["t0"] + (np.arange(-2, 6) + 0.5) * p["period"]]).astype(FLOAT)
      t0, period, tt = FLOAT(p["t0"]), FLOAT(p["period"]), times.astype(FLOAT)
      epoch = np.clip(np.round((t - t0) / period), 0, 3)
      shifted = t - (tt - t0 - np.arange(4, dtype=FLOAT) * period)[epoch.astype(int)]
      for exposure in (0.0, 0.3 * _half_duration(p)):
        got = np.asarray(_model(t, p, transit_times=times, exposure_time=exposure))
        np.testing.assert_array_equal(got, _model(shifted, p, exposure_time=exposure))
        value, _ = jax.jvp(lambda x: _model(t, p, transit_times=x, exposure_time=exposure),
                           (jnp.asarray(tt),), (jnp.ones_like(jnp.asarray(tt)),))
        np.testing.assert_array_equal(got, value)
        self.assertTrue(np.any(got < 0), "some times in transit")

  def test_bad_transit_times(self):
    p = _orbits(36, 1)[0]
    t = _times(p, np.random.default_rng(36), 10)
    for times in ([p["t0"], p["t0"]], [p["t0"] + p["period"], p["t0"]], [p["t0"], np.nan]):
      self.assertTrue(np.all(np.isnan(_model(t, p, transit_times=np.array(times)))), times)
    for times in (p["t0"], np.zeros((2, 2)), np.zeros(0)):
      with self.assertRaisesRegex(ValueError, "transit_times must be a 1-d array"):
        _model(t, p, transit_times=times)
    with self.assertRaisesRegex(TypeError, "complex"):
      _model(t, p, transit_times=np.array([1j]))
    with self.assertRaisesRegex(ValueError, "4194305 epochs, more than the 4194304"):
      _model(t, p, transit_times=np.arange(2.0 ** 22 + 1))

  def test_vmap_over_planets_is_one_call(self):
    rng = np.random.default_rng(37)
    p = _orbits(37, 1)[0]
    times = jnp.asarray(np.stack([_transit_times(p, rng, 4) for _ in range(3)]), FLOAT)
    t = jnp.asarray(_times(p, rng, 40), FLOAT)
    model = lambda tt: _model(t, p, transit_times=tt)
    batched = jax.jit(jax.vmap(model))(times)
    for k in range(3):
      np.testing.assert_array_equal(batched[k], model(times[k]))
    text = str(jax.make_jaxpr(jax.vmap(jax.grad(lambda tt: jnp.sum(model(tt)))))(times))
    self.assertEqual(text.count("kepler_jax_transit"), 1, text)


def _mp_true_anomaly(t, p):
  """The planet's true anomaly at t from mpmath (Kepler's equation to 30
  digits), t0 a mid-transit time (f = pi/2 - omega there)."""
  e, w = mp.mpf(p["ecc"]), mp.mpf(p["omega"])
  fc = mp.pi / 2 - w
  ec = 2 * mp.atan2(mp.sqrt(1 - e) * mp.sin(fc / 2), mp.sqrt(1 + e) * mp.cos(fc / 2))
  m = ec - e * mp.sin(ec) + 2 * mp.pi * (mp.mpf(t) - mp.mpf(p["t0"])) / mp.mpf(p["period"])
  big_e = mp.findroot(lambda z: z - e * mp.sin(z) - m, m)
  return 2 * mp.atan2(mp.sqrt(1 + e) * mp.sin(big_e / 2), mp.sqrt(1 - e) * mp.cos(big_e / 2))


class HelpersTest(parameterized.TestCase):
  """The parameter helpers against mpmath, round trips and light_curve."""

  def test_semi_major_axis_and_density(self):
    # The Sun and the Earth: a = (G M P^2 / (4 pi^2))^(1/3) from the Sun's
    # GM (IAU) and radius, in mpmath; the density 3 M / (4 pi R^3).
    gm, radius, g = mp.mpf("1.32712440018e26"), mp.mpf("6.957e10"), mp.mpf("6.67430e-8")
    year = mp.mpf("365.256363004")
    a_ref = mp.cbrt(gm * (year * 86400) ** 2 / (4 * mp.pi ** 2)) / radius
    rho = 3 * (gm / g) / (4 * mp.pi * radius ** 3)
    got = transit.semi_major_axis(FLOAT(year), FLOAT(rho))
    self.assertLess(abs(float(got) / float(a_ref) - 1), 1e-14 if X64 else 3e-7)
    self.assertLess(abs(float(a_ref) - 215.03), 0.01)  # 1 au in solar radii
    rng = np.random.default_rng(41)
    period, rho = rng.uniform(0.3, 300, 50).astype(FLOAT), rng.uniform(0.01, 50, 50).astype(FLOAT)
    back = transit.stellar_density(period, transit.semi_major_axis(period, rho))
    np.testing.assert_allclose(back, rho, rtol=1e-14 if X64 else 1e-6)
    for bad in ((0.0, 1.0), (1.0, -1.0), (np.nan, 1.0)):
      self.assertTrue(np.isnan(transit.semi_major_axis(*bad)), bad)
      self.assertTrue(np.isnan(transit.stellar_density(*bad)), bad)

  def test_eccentricity_vector(self):
    rng = np.random.default_rng(42)
    ecc, omega = rng.uniform(0, 0.95, 50).astype(FLOAT), rng.uniform(-3, 3, 50).astype(FLOAT)
    h, k = transit.sqrt_ecc_vector(ecc, omega)
    np.testing.assert_allclose(h, np.sqrt(ecc) * np.cos(omega), rtol=1e-14 if X64 else 1e-6,
                               atol=1e-15 if X64 else 1e-7)
    e2, w2 = transit.ecc_omega(h, k)
    np.testing.assert_allclose(e2, ecc, rtol=1e-14 if X64 else 1e-6)
    np.testing.assert_allclose(w2, omega, rtol=1e-13 if X64 else 1e-5)
    self.assertEqual(tuple(map(float, transit.ecc_omega(0.0, 0.0))), (0.0, 0.0))
    self.assertTrue(np.isnan(transit.sqrt_ecc_vector(-0.1, 0.0)[0]))

  def test_impact_parameter_and_inclination(self):
    rng = np.random.default_rng(43)
    for p in _orbits(43, 6):
      inc = transit.inclination(p["b"], p["a"], p["ecc"], p["omega"])
      np.testing.assert_allclose(transit.impact_parameter(inc, p["a"], p["ecc"], p["omega"]),
                                 p["b"], rtol=1e-12 if X64 else 1e-5, atol=1e-13 if X64 else 1e-6)
      t = _times(p, rng, 20)
      by_inc = transit.light_curve(t, period=p["period"], t0=p["t0"], a=p["a"], inc=inc,
                                   r=p["r"], ecc=p["ecc"], omega=p["omega"], u=QUADRATIC)
      np.testing.assert_allclose(by_inc, _model(t, p), atol=1e-13 if X64 else 1e-5)
    for bad in ((-0.1, 8.0, 0.0), (9.0, 8.0, 0.0), (0.3, 0.0, 0.0), (0.3, 8.0, 1.0)):
      self.assertTrue(np.isnan(transit.inclination(*bad)), bad)
    self.assertTrue(np.isnan(transit.impact_parameter(1.5, 8.0, -0.1)))

  def test_eclipse_time_against_the_mpmath_orbit(self):
    for p in _orbits(44, 8):
      t_ecl = float(transit.eclipse_time(p["period"], p["t0"], p["ecc"], p["omega"]))
      self.assertGreater(t_ecl, p["t0"])
      self.assertLess(t_ecl, p["t0"] + p["period"])
      f = _mp_true_anomaly(t_ecl, p)
      off = float(mp.fmod(f + mp.mpf(p["omega"]) - 3 * mp.pi / 2 + 5 * mp.pi, 2 * mp.pi) - mp.pi)
      # float32: the eclipse time rounded to float32 (4e-6 days at 40),
      # times the angular speed, up to (1 + e) / (1 - e)^2 of the mean
      # motion.
      self.assertLess(abs(off), 1e-11 if X64 else 2e-4 * (1 + p["ecc"]) / (1 - p["ecc"]) ** 2)
    self.assertAlmostEqual(float(transit.eclipse_time(3.0, 1.0)), 2.5, places=12 if X64 else 5)
    self.assertTrue(np.isnan(transit.eclipse_time(3.0, 1.0, 1.0)))
    self.assertTrue(np.isnan(transit.eclipse_time(0.0, 1.0)))
    grad = jax.grad(lambda e: transit.eclipse_time(3.0, 0.0, e, 0.3))(FLOAT(0.2))
    self.assertTrue(np.isfinite(grad))

  def test_transit_duration_against_the_mpmath_orbit(self):
    # The contacts of each drawn orbit by the numpy scan and bisection
    # (_contacts), refined by mpmath's findroot on the mpmath orbit.
    for p in _orbits(45, 12):
      scan = _contacts(p)
      for full in (False, True):
        radius = 1 - p["r"] if full else 1 + p["r"]
        got = float(transit.transit_duration(p["period"], p["a"], p["r"], b=p["b"], ecc=p["ecc"],
                                             omega=p["omega"], full=full))
        if p["b"] >= radius:
          self.assertTrue(np.isnan(got), (p, full))
          continue
        # _contacts: the times of the 1 + r pair, the 1 - r pair (when there
        # is one) and the least separation, sorted.
        self.assertEqual(len(scan), 5 if p["b"] < 1 - p["r"] else 3)
        pair = (scan[1], scan[-2]) if full else (scan[0], scan[-1])
        ends = [mp.findroot(lambda dt: _mp_sky(mp.mpf(p["t0"]) + dt, p)[0] - radius, mp.mpf(x))
                for x in pair]
        want = float(ends[1] - ends[0])
        # float32: the parameters' rounding moves a contact by up to the
        # duration's relative 1e-5 (1e-3 of it where b is within 1e-2 of the
        # circle: the root's sensitivity grows as 1 / sqrt(radius - b)).
        tol = 1e-11 if X64 else 2e-5 / min(1.0, 10 * np.sqrt(max(radius - p["b"], 1e-6)))
        self.assertLess(abs(got - want), tol * want, (p, full, got, want))
    # The circular orbit's closed form (Winn 2010, eq. 14 with e = 0).
    period, a, r, b = 3.5, 8.7, 0.1, 0.4
    inc = np.arccos(b / a)
    want = period / np.pi * np.arcsin(np.sqrt((1 + r) ** 2 - b ** 2) / (a * np.sin(inc)))
    self.assertLess(abs(float(transit.transit_duration(period, a, r, inc=inc)) / want - 1),
                    1e-13 if X64 else 1e-5)
    for kwargs in (dict(b=1.2), dict(b=0.5, ecc=1.0), dict(b=0.5, r=-0.1), dict(b=0.95, full=True)):
      args = dict(period=3.0, a=8.0, r=0.1, ecc=0.0)
      args.update(kwargs)
      full = args.pop("full", False)
      self.assertTrue(np.isnan(transit.transit_duration(
          args["period"], args["a"], args["r"], b=args["b"], ecc=args["ecc"], full=full)), kwargs)
    with self.assertRaises(ValueError):
      transit.transit_duration(3.0, 8.0, 0.1)

  def test_transit_duration_derivatives(self):
    # Five-point differences: steps of 1e-5 (float64) or 3e-3 (float32) of
    # the value, and a tolerance above their truncation and rounding.
    step, tol = (1e-5, 1e-8) if X64 else (3e-3, 3e-3)
    p = dict(period=4.3, a=11.0, r=0.09, b=0.55, ecc=0.3, omega=0.7)
    names = tuple(p)

    def duration(*values):
      return transit.transit_duration(values[0], values[1], values[2], b=values[3],
                                      ecc=values[4], omega=values[5])

    values = tuple(p[k] for k in names)
    grads = jax.grad(duration, argnums=tuple(range(6)))(*values)
    for j, name in enumerate(names):
      h = step * max(1.0, abs(values[j]))
      up = list(values); up[j] += h
      down = list(values); down[j] -= h
      up2 = list(values); up2[j] += 2 * h
      down2 = list(values); down2[j] -= 2 * h
      fd = (8 * (duration(*up) - duration(*down)) - (duration(*up2) - duration(*down2))) / (12 * h)
      self.assertLess(abs(float(grads[j]) - float(fd)), tol * max(1.0, abs(float(fd))), name)


def _mp_hidden(b, r):
  """The area of the planet's disk (radius r, at b from the star's centre)
  that the unit disk covers, in mpmath: the lens of two circles."""
  b, r = mp.mpf(b), mp.mpf(r)
  if b >= 1 + r:
    return mp.mpf(0)
  if b <= 1 - r:
    return mp.pi * r * r
  kite = mp.sqrt((-b + r + 1) * (b + r - 1) * (b - r + 1) * (b + r + 1)) / 2
  return (r * r * mp.acos((b * b + r * r - 1) / (2 * b * r)) +
          mp.acos((b * b + 1 - r * r) / (2 * b)) - kite)


# The planet's light of the tests: (planet_flux, night_flux, phase_offset,
# beaming, ellipsoidal), in light_curve's order.
GLOW_NAMES = ("planet_flux", "night_flux", "phase_offset", "beaming", "ellipsoidal")


def _glow(rng):
  fp = rng.uniform(1e-4, 3e-3)
  values = (fp, rng.uniform(0, fp), rng.uniform(-0.6, 0.6), rng.uniform(-3e-5, 3e-5),
            rng.uniform(0, 1e-4))
  return dict(zip(GLOW_NAMES, (float(FLOAT(v)) for v in values)))


def _mp_light(t, p, glow, u=QUADRATIC):
  """F - 1 with the planet's light at t, from mpmath: the true anomaly and
  the sky position of the mpmath orbit, the star's modulation, the phase
  curve, the lens of the two disks behind the star; the transit's deficit
  in front from kepler.limb_dark.light_curve at the mpmath separation."""
  b, z = _mp_sky(t, p)
  w, e = mp.mpf(p["omega"]), mp.mpf(p["ecc"])
  f = _mp_true_anomaly(t, p)
  phi = w + f - mp.pi / 2
  fp, fn = mp.mpf(glow["planet_flux"]), mp.mpf(glow["night_flux"])
  phase = fn + (fp - fn) * (1 - mp.cos(phi + mp.mpf(glow["phase_offset"]))) / 2
  star = (1 - mp.mpf(glow["beaming"]) * (mp.cos(w + f) + e * mp.cos(w)) -
          mp.mpf(glow["ellipsoidal"]) * mp.cos(2 * phi))
  if z > 0:
    deficit = mp.mpf(float(limb_dark.light_curve(u, float(b), p["r"])))
    visible = mp.mpf(1)
  else:
    deficit = mp.mpf(0)
    visible = 1 - _mp_hidden(b, p["r"]) / (mp.pi * mp.mpf(p["r"]) ** 2)
  return deficit * star + star - 1 + visible * phase


def _eclipse_times(p, rng, count, spread=1.5):
  """Times around secondary eclipses of several epochs: within `spread`
  half-durations (the sky speed at superior conjunction) of one."""
  t_ecl = float(transit.eclipse_time(p["period"], p["t0"], p["ecc"], p["omega"]))
  speed = 2 * np.pi * p["a"] * (1 - p["ecc"] * np.sin(p["omega"])) / (
      p["period"] * np.sqrt(1 - p["ecc"]**2))
  epochs = rng.integers(-2, 3, count)
  t = t_ecl + epochs * p["period"] + rng.uniform(-spread, spread, count) * (1 + p["r"]) / speed
  return t.astype(FLOAT).astype(np.float64)


def _eclipse_contacts(p):
  """The secondary eclipse's breakpoints relative to t0: the transit's of
  the orbit turned by pi (omega + pi, the same inclination), by
  _contacts."""
  t_ecl = float(transit.eclipse_time(p["period"], p["t0"], p["ecc"], p["omega"]))
  e, w = p["ecc"], p["omega"]
  turned = dict(p, t0=t_ecl, omega=w + np.pi, b=p["b"] * (1 + e * np.sin(w)) / (1 - e * np.sin(w)))
  return [t_ecl - p["t0"] + x for x in _contacts(turned)]


def _check_jacobian(model, x0, names, checked, step, tol, rounding):
  """jax.jacfwd of model at x0 against five-point differences in each
  argument named in `checked` (steps of `step` relative, at least 1e-3
  absolute times it): within tol of the largest difference, plus the
  differences' rounding (`rounding`, a few ulps of F, over the step)."""
  jac = np.asarray(jax.jacfwd(model)(x0))
  for j, name in enumerate(names):
    if name not in checked:
      continue
    h = step * max(1e-3, abs(float(x0[j])))
    shift = np.zeros(len(names), FLOAT)
    shift[j] = h
    fd = np.asarray((8 * (model(x0 + shift) - model(x0 - shift)) -
                     (model(x0 + 2 * shift) - model(x0 - 2 * shift))) / (12 * h))
    np.testing.assert_allclose(jac[:, j], fd, rtol=0,
                               atol=tol * float(np.max(np.abs(fd))) + rounding / h,
                               err_msg=name)


class PlanetLightTest(parameterized.TestCase):
  """The planet's light (phase curve, secondary eclipse) and the star's
  beaming and ellipsoidal variation against mpmath."""

  def test_against_mpmath_around_transits_eclipses_and_whole_orbits(self):
    rng = np.random.default_rng(51)
    worst = 0.0
    for p in _orbits(52, 10):
      glow = _glow(rng)
      t = np.concatenate([_times(p, rng, 6), _eclipse_times(p, rng, 10),
                          (p["t0"] + rng.uniform(-2, 2, 6) * p["period"]).astype(FLOAT)])
      got = np.asarray(_model(t, p, **glow))
      ref = np.array([float(_mp_light(x, p, glow)) for x in t])
      worst = max(worst, float(np.max(np.abs(got - ref))))
    # In transit, the bound of ValuesTest (the mpmath separation rounded to
    # float64 for limb_dark's reference); float32: the result rounded once.
    self.assertLess(worst, 1e-14 if X64 else 1.2e-8)

  def test_the_eclipse_to_1e_13_of_the_planet_flux(self):
    # Only planet_flux: batman's secondary eclipse less one, fp times the
    # visible share of the disk; at and near the four contacts and across
    # grazing eclipses.
    rng = np.random.default_rng(53)
    eclipses = 0
    for p in _orbits(54, 10):
      fp = 2e-3
      scan = p["t0"] + np.asarray(_eclipse_contacts(p))
      t = np.concatenate([scan, scan + 1e-7, _eclipse_times(p, rng, 12)])
      t = t.astype(FLOAT).astype(np.float64)
      got = np.asarray(_model(t, p, planet_flux=fp))
      ref = np.array([float(_mp_light(x, p, dict(zip(GLOW_NAMES, (fp, fp, 0, 0, 0)))))
                      for x in t])
      self.assertLess(np.max(np.abs(got - ref)), 1e-13 * fp if X64 else 6e-8 * fp + 1e-10,
                      p)
      eclipses += bool(np.any(ref < 0.999 * fp))
    # An eccentric orbit's eclipse may miss the star where its transit does
    # not (b at the eclipse: b (1 + e sin w) / (1 - e sin w)).
    self.assertGreaterEqual(eclipses, 6)

  def test_full_phase_and_full_eclipse(self):
    p = dict(period=3.0, t0=0.5, a=8.0, b=0.2, r=0.1, ecc=0.0, omega=0.0)
    t_ecl = 0.5 + 1.5
    got = np.asarray(_model(np.array([t_ecl, t_ecl + 0.4]), p, planet_flux=1e-3))
    self.assertEqual(float(got[0]), 0.0)  # the planet wholly behind the star
    self.assertLess(abs(float(got[1]) - 1e-3), 1e-15 if X64 else 1e-10)
    # A planet of radius 0 is hidden behind the disk, as a point.
    got = np.asarray(_model(np.array([t_ecl]), dict(p, r=0.0), planet_flux=1e-3))
    self.assertEqual(float(got[0]), 0.0)

  def test_defaults_change_nothing(self):
    rng = np.random.default_rng(55)
    p = _orbits(56, 2)[1]
    t = np.concatenate([_times(p, rng, 20), _eclipse_times(p, rng, 5)])
    plain = np.asarray(_model(t, p))
    zeros = np.asarray(_model(t, p, planet_flux=0.0, night_flux=None, phase_offset=0,
                              beaming=0.0, ellipsoidal=np.float64(0)))
    np.testing.assert_array_equal(zeros, plain)  # the same kernel path, to the bit
    traced = jax.jit(lambda fp: _model(t, p, planet_flux=fp))(FLOAT(0.0))
    # The light's path takes the transit a time at a time: the same to
    # rounding.
    np.testing.assert_allclose(traced, plain, rtol=0, atol=1e-16 if X64 else 2e-9)

  def test_derivatives_against_differences(self):
    # Five-point differences of the op in each parameter (float32: in the
    # light's, in which F is linear but for the offset), at times in
    # transit, in eclipse and in between.
    step, tol = (1e-6, 2e-7) if X64 else (1e-2, 1e-3)
    rng = np.random.default_rng(57)
    for p in _orbits(58, 4)[1::2]:
      glow = _glow(rng)
      t = jnp.asarray(np.concatenate([_times(p, rng, 3), _eclipse_times(p, rng, 3, 1.0),
                                      [p["t0"] + 0.3 * p["period"]]]).astype(FLOAT))
      names = ("period", "t0", "a", "b", "r", "ecc", "omega") + GLOW_NAMES
      values = dict(p, **glow)

      def model(x, at=t):
        kwargs = dict(zip(names, x))
        return transit.light_curve(at, u=QUADRATIC, **kwargs)

      x0 = jnp.asarray([values[k] for k in names], dtype=FLOAT)
      checked = names if X64 else GLOW_NAMES
      _check_jacobian(model, x0, names, checked, step, tol, rounding=1e-16)

  def test_errors_and_nan(self):
    p = dict(period=3.0, t0=0.5, a=8.0, b=0.2, r=0.1, ecc=0.0, omega=0.0)
    for bad in (dict(planet_flux=-1e-3), dict(planet_flux=1e-3, night_flux=-1e-4),
                dict(beaming=np.nan)):
      self.assertTrue(np.all(np.isnan(np.asarray(_model(np.array([0.5, 2.0]), p, **bad)))), bad)



class LightExposureTest(parameterized.TestCase):
  """Exposures with the planet's light: the mean against _reference_mean
  with the transit's and the eclipse's contacts as breakpoints and a cut
  every P/64 (the phase curve), from a tenth of a second to several
  orbits, around transits, eclipses and anywhere; its derivatives; the
  orbit average."""

  def test_mean_against_the_adaptive_reference(self):
    rng = np.random.default_rng(61)
    worst = 0.0
    for p in _orbits(62, 6):
      glow = _glow(rng)
      taus = _contacts(p) + _eclipse_contacts(p)
      spans = np.concatenate([2 * _half_duration(p) * np.array([1e-4, 0.01, 0.1, 0.3, 1.0, 3.0]),
                              p["period"] * np.array([0.07, 0.5, 1.0, 2.6])])
      t = np.concatenate([_times(p, rng, spans.size), _eclipse_times(p, rng, spans.size),
                          (p["t0"] + rng.uniform(-2, 2, spans.size) * p["period"])])
      t = t.astype(FLOAT).astype(np.float64)
      exposure = np.tile(spans, 3).astype(FLOAT).astype(np.float64)
      got = np.asarray(_model(t, p, exposure_time=exposure, **glow))
      ref = _reference_mean(p, t, exposure, "polynomial", QUADRATIC, None, taus,
                            p["period"] / 64, **glow)
      worst = max(worst, np.max(np.abs(got - ref)))
    # The transit's bound (ExposureTest); float32: the reference's nodes
    # are rounded to float32 times.
    self.assertLess(worst, 1e-9 if X64 else 1e-5)

  def test_derivatives_of_the_mean(self):
    # _check_exposure_derivatives, the light's parameters too.
    rng = np.random.default_rng(63)
    for p in _orbits(64, 4)[1:]:
      glow = _glow(rng)
      spans = np.array([0.05, 0.3, 2.0]) * 2 * _half_duration(p)
      t = np.concatenate([_times(p, rng, 3, 1.0), _eclipse_times(p, rng, 3, 1.0),
                          p["t0"] + rng.uniform(0.1, 0.4, 3) * p["period"]]).astype(FLOAT)
      exposure = np.tile(spans, 3).astype(FLOAT)
      _check_exposure_derivatives(self, p, t, exposure, **glow)

  def test_exposures_of_many_orbits(self):
    """An exposure of more than 2^32 periods is the orbit average (the
    reference: _reference_mean over one period); one of 1e9 periods is
    within 2e-9 of it, relative; the average's derivatives in the period
    and t0 vanish (F is a function of the mean anomaly), in the light's
    parameters they are the averages of F's."""
    rng = np.random.default_rng(65)
    for p in _orbits(66, 3):
      glow = _glow(rng)
      taus = _contacts(p) + _eclipse_contacts(p)
      average = _reference_mean(p, [p["t0"]], [p["period"]], "polynomial", QUADRATIC, None,
                                taus, p["period"] / 64, **glow)[0]
      t = p["t0"] + np.array([0.0, 0.3, -2.7]) * p["period"]
      tolerance = (1e-9 if X64 else 1e-6) * glow["planet_flux"]
      for orbits in (1e9, 1e20):
        got = np.asarray(_model(t, p, exposure_time=orbits * p["period"], **glow), np.float64)
        slack = 2e-9 * abs(average) if orbits < 2.0**32 else 0.0
        np.testing.assert_allclose(got, average, rtol=0, atol=tolerance + slack,
                                   err_msg=f"{orbits} orbits")
      if X64:
        args = {k: jnp.float64(v) for k, v in dict(p, **glow).items()}
        mean = lambda q: transit.light_curve(t[:1], u=QUADRATIC, exposure_time=1e15 * p["period"],
                                             **q)[0]
        grad = jax.grad(mean)(args)
        # (the derivatives' quadrature: about 3e-8 of their terms' scale,
        # here F over P)
        for name in ("period", "t0"):
          self.assertLess(abs(float(grad[name])), 1e-7 * glow["planet_flux"] / p["period"], name)
        for name in ("planet_flux", "night_flux", "beaming"):
          h = 1e-6
          fd = (mean(dict(args, **{name: args[name] + h})) -
                mean(dict(args, **{name: args[name] - h}))) / (2 * h)
          self.assertLess(abs(float(grad[name]) - float(fd)), 1e-8, name)


def _delay_for(p, speed):
  """light_travel_time whose orbital speed factor (delay 2 pi / P (1 + e) /
  sqrt(1 - e^2)) is `speed`."""
  e = p["ecc"]
  return float(FLOAT(speed * p["period"] / (2 * np.pi) * np.sqrt(1 - e * e) / (1 + e)))


def _mp_emission_time(t, p, delay):
  """The time tau = t + delay / a (Z(tau) - Z(t0)) of the mpmath orbit, Z
  the planet's distance towards the observer in stellar radii: the light
  received at t left the planet then. Fixed-point steps to 30 digits."""
  z_c = _mp_sky(p["t0"], p)[1]
  tau = mp.mpf(t)
  for _ in range(12):
    tau = mp.mpf(t) + mp.mpf(delay) / mp.mpf(p["a"]) * (_mp_sky(tau, p)[1] - z_c)
  return tau


class LightTravelTimeTest(parameterized.TestCase):
  """light_travel_time: the planet where the light received at t left it,
  the transit kept at t0."""

  def test_against_mpmath(self):
    # The whole model (transit, eclipse, phase curve, beaming, ellipsoidal)
    # at the mpmath time of emission; orbital speeds up to c / 1000 (delays
    # exaggerated some 2x to 20x over real planets'), times around
    # transits, eclipses and whole orbits.
    rng = np.random.default_rng(61)
    worst = 0.0
    for p in _orbits(62, 6):
      glow = _glow(rng)
      delay = _delay_for(p, rng.uniform(2e-4, 1e-3))
      t = np.concatenate([_times(p, rng, 4), _eclipse_times(p, rng, 6),
                          (p["t0"] + rng.uniform(-2, 2, 3) * p["period"]).astype(FLOAT)])
      got = np.asarray(_model(t, p, light_travel_time=delay, **glow))
      ref = np.array([float(_mp_light(_mp_emission_time(x, p, delay), p, glow)) for x in t])
      worst = max(worst, float(np.max(np.abs(got - ref))))
    # float64: the emission time within 1e-15 days of mpmath's (the fixed
    # point's four steps at c / 1000), times F's slope; float32: t rounded.
    self.assertLess(worst, 1e-13 if X64 else 2e-6)

  def test_a_circular_orbit_keeps_its_transit_and_delays_its_eclipse(self):
    # Mid-times from the half-depth crossings of ingress and egress: the
    # transit's at t0 and the eclipse's 2 light_travel_time sin(i) after t0 +
    # P / 2, within the delay's own variation across them (0.1 s here).
    p = dict(period=3.0, t0=0.5, a=8.8, b=0.4, r=0.1, ecc=0.0, omega=0.3)
    delay = float(transit.light_travel_time(8.8, 1.0))  # 20.4 s
    sin_i = np.sqrt(1 - (0.4 / 8.8)**2)
    day = 86400.0

    def mid(centre, **kwargs):
      t = centre + np.linspace(-0.08, 0.08, 16001)
      f = np.asarray(_model(t, p, planet_flux=1e-3, **kwargs), np.float64)
      level = (f.max() + f.min()) / 2
      below = np.flatnonzero(f < level)
      i, j = below[0], below[-1]
      t_in = t[i - 1] + (level - f[i - 1]) / (f[i] - f[i - 1]) * (t[i] - t[i - 1])
      t_out = t[j] + (level - f[j]) / (f[j + 1] - f[j]) * (t[j + 1] - t[j])
      return (t_in + t_out) / 2

    tol = 0.5 if X64 else 8.0  # seconds; float32: t's rounding near 2 days
    self.assertLess(abs(mid(0.5, light_travel_time=delay) - 0.5) * day, tol)
    eclipse = 2.0 + 2 * delay * sin_i
    self.assertLess(abs(mid(2.0, light_travel_time=delay) - eclipse) * day, tol)
    self.assertLess(abs(mid(2.0) - 2.0) * day, tol)  # without the delay: 41 s earlier

  def test_derivatives_against_differences(self):
    # Five-point differences of the op in the delay and the orbit's timing
    # parameters, around a transit and an eclipse (float64 only, below).
    rng = np.random.default_rng(63)
    step, tol = 1e-5, 1e-6
    for p in _orbits(64, 4)[1::2]:
      glow = _glow(rng)
      t = jnp.asarray(np.concatenate([_times(p, rng, 3), _eclipse_times(p, rng, 3, 1.0)]))
      names = ("light_travel_time", "period", "t0", "ecc", "omega")
      values = dict(p, light_travel_time=_delay_for(p, 1e-3))

      def model(x, p=p, glow=glow):
        kwargs = dict(p, **dict(zip(names, x)))
        return transit.light_curve(t, u=QUADRATIC, **kwargs, **glow)

      x0 = jnp.asarray([values[k] for k in names], dtype=FLOAT)
      _check_jacobian(model, x0, names, names, step, tol, rounding=1e-15)

  def test_radial_velocity(self):
    # The mpmath orbit's velocity K (cos(w + f) + e cos w) at t less the
    # planet's distance towards the observer at conjunction over c.
    rng = np.random.default_rng(65)
    for p in _orbits(66, 4):
      inc = float(transit.inclination(p["b"], p["a"], p["ecc"], p["omega"]))
      delay = _delay_for(p, 1e-3)
      t = (p["t0"] + rng.uniform(-2, 2, 8) * p["period"]).astype(FLOAT).astype(np.float64)
      got = np.asarray(transit.radial_velocity(t, period=p["period"], t0=p["t0"], K=50.0,
                                               ecc=p["ecc"], omega=p["omega"],
                                               light_travel_time=delay, inc=inc))
      shift = mp.mpf(delay) / mp.mpf(p["a"]) * _mp_sky(p["t0"], p)[1]
      e, w = mp.mpf(p["ecc"]), mp.mpf(p["omega"])
      ref = [float(50 * (mp.cos(w + _mp_true_anomaly(mp.mpf(x) - shift, p)) + e * mp.cos(w)))
             for x in t]
      np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11 if X64 else 2e-3)

  def test_eclipse_time(self):
    # The mpmath time of emission of the delayed eclipse time is the
    # undelayed one (superior conjunction).
    for p in _orbits(67, 4):
      inc = float(transit.inclination(p["b"], p["a"], p["ecc"], p["omega"]))
      delay = _delay_for(p, 1e-3)
      args = (p["period"], p["t0"], p["ecc"], p["omega"])
      seen = float(transit.eclipse_time(*args, light_travel_time=delay, inc=inc))
      emitted = _mp_emission_time(seen, p, delay)
      self.assertLess(abs(float(emitted) - float(transit.eclipse_time(*args))),
                      1e-12 * p["period"] if X64 else 2e-6 * p["period"])
    self.assertTrue(np.isnan(float(transit.eclipse_time(3.0, 0.0, light_travel_time=-1.0))))

  def test_helper_bad_values_and_defaults(self):
    # 1 au / c = 499.004784 s (IAU); 1 au = 215.032 nominal solar radii.
    self.assertAlmostEqual(float(transit.light_travel_time(215.03216, 1.0, unit=1.0)),
                           499.004784, delta=1e-3)
    self.assertTrue(np.isnan(float(transit.light_travel_time(-1.0, 1.0))))
    p = dict(period=3.0, t0=0.5, a=8.0, b=0.2, r=0.1, ecc=0.0, omega=0.0)
    t = np.array([0.45, 0.5, 2.0])
    for bad in (-1e-4, np.nan, 0.05):  # 0.05 d: the orbit at 0.1 c
      self.assertTrue(np.all(np.isnan(np.asarray(_model(t, p, light_travel_time=bad)))), bad)
    with self.assertRaisesRegex(ValueError, "light_travel_time must be a scalar"):
      _model(t, p, light_travel_time=np.array([1e-4, 2e-4]))
    np.testing.assert_array_equal(np.asarray(_model(t, p, light_travel_time=0.0)),
                                  np.asarray(_model(t, p)))
    # A traced delay of 0 leaves every time as it is.
    traced = jax.jit(lambda d: _model(t, p, light_travel_time=d))(FLOAT(0.0))
    np.testing.assert_array_equal(np.asarray(traced), np.asarray(_model(t, p)))


if not X64:
  # float32: times rounded to float32 do not resolve differences of the
  # timing parameters, so these derivatives are checked in float64 only.
  del LightTravelTimeTest.test_derivatives_against_differences


if __name__ == "__main__":
  absltest.main()
