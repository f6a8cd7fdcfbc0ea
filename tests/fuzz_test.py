"""Property-based fuzz tests of both ops (hypothesis, pinned in
tools/requirements/requirements.in).

Random shapes (0-d, empty, pairs that broadcast and pairs that do not),
dtypes (float16, bfloat16, float32, float64, integers; complex and bool,
which must raise), values (NaN, +-inf, huge, the largest float, subnormal,
-0.0, and each op's special points: e = 0, e just below 1, e = 1, e < 0;
r = 0, r < 0, b = r, b = 1 +- r, ...) and coefficient vectors u of every
length (0 to MAX_ORDER, as numpy and jax arrays, tuples and lists; longer
ones must raise) go through kepler.solve, kepler.true_anomaly and
kepler.limb_dark.light_curve eagerly and under jax.jit, jax.grad and jax.vmap.

What is expected comes from docs/api.md, through an oracle in numpy written
here from the values each op computes on (the arguments promoted and, without
jax_enable_x64, demoted as JAX does):

- output shape and dtype: the broadcast shape and the promoted dtype;
- NaN exactly where the documentation says (Kepler: e < 0, e >= 1, NaN or
  inf M or e; light curve: r < 0, NaN or inf b or r, and everywhere for NaN
  or inf in u), finite everywhere else (for the light curve, where the law's
  total flux is well away from 0 and its coefficients do not overflow); an
  element with a subnormal input counts either way where XLA's flushing of
  subnormals to zero changes the answer (a negative subnormal e or r);
- sin^2 + cos^2 = 1, and M = E - e sin E within rounding (the true anomaly
  mapped back to E);
- the light curve exactly 0 out of transit, -1 when the star is fully hidden,
  the uniform disk's overlap area for u = (), and within [-1, 0] for laws
  whose intensity is nowhere negative;
- jax.jit gives the same bits as the eager call; jax.vmap over a leading
  axis the same bits as the call on each row;
- jax.grad (of a sum) has the inputs' shapes and dtypes, is NaN where a value
  it sums is documented NaN (docs/api.md says so for Kepler's equation) and
  finite where every value it sums is finite;
- errors: shapes that do not broadcast, u not 1-D or longer than MAX_ORDER
  raise ValueError; complex and bool arguments raise TypeError naming the
  argument; eagerly and under jit.

Runs are reproducible: hypothesis is derandomized and keeps no example
database, so every run in one environment draws the same examples (hypothesis
also draws numbers it finds in the source of the modules it sees as local,
which differ between Bazel's runfiles and a virtualenv). Shapes have at most
three dimensions of at most three elements, which bounds the number of
distinct compilations. KEPLER_FUZZ_SCALE=10 (environment) multiplies every
test's number of examples, for a longer search.
"""

import math
import os
import tempfile

from absl.testing import absltest
import hypothesis
import hypothesis.configuration
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
import kepler
from kepler import limb_dark

MAX_ORDER = limb_dark.MAX_ORDER
KEPLER_OPS = {"solve": kepler.solve, "true_anomaly": kepler.true_anomaly}
_SCALE = float(os.environ.get("KEPLER_FUZZ_SCALE", "1"))
# hypothesis caches under .hypothesis/ in the working directory (even without
# an example database: the literals of local modules, which it also draws):
# a temporary folder instead, so that nothing is written into Bazel's runfiles
# or the source tree.
_HOME = tempfile.TemporaryDirectory(prefix="hypothesis.", dir=os.environ.get("TEST_TMPDIR"))
hypothesis.configuration.set_hypothesis_home_dir(_HOME.name)

BFLOAT16 = np.dtype(jnp.bfloat16)
FLOAT_DTYPES = [np.dtype(np.float16), BFLOAT16, np.dtype(np.float32), np.dtype(np.float64)]
INT_DTYPES = [np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32), np.dtype(np.int64)]
REAL_DTYPES = FLOAT_DTYPES + INT_DTYPES
BAD_DTYPES = [np.dtype(np.complex64), np.dtype(np.complex128), np.dtype(np.bool_)]
# The dtypes the kernels compute in, in this jax_enable_x64 mode: the
# derivatives are checked in these (float16 ones would overflow where the
# float32 ones are merely large).
KERNEL_DTYPES = sorted({np.dtype(np.float32), x64_mode.FLOAT}, key=str)

# Each argument's special values (rounded to its dtype, where float16 turns
# 1e300 into inf); "below 1" and "above 1" are the neighbours of 1 in the dtype.
M_SPECIALS = [0.0, -0.0, 1.0, -1.0, math.pi, -math.pi, 2 * math.pi, 1e-8, -1e-300, 100.0,
              -100.0, 1e6, 1e300, -1e300, math.nan, math.inf, -math.inf]
E_SPECIALS = [0.0, -0.0, 0.5, 0.9, 0.99, 1 - 1e-9, "below 1", 1.0, "above 1", 2.0, -0.5,
              -1.0, -1e-300, 1e300, math.nan, math.inf, -math.inf]
B_SPECIALS = [0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -0.5, -1.0, 1e6, 1e300, -1e300, math.nan,
              math.inf, -math.inf]
R_SPECIALS = [0.0, -0.0, 1e-3, 0.1, 0.5, 1.0, 1.5, 3.0, 1e6, 1e300, -0.1, -1.0, -1e300,
              math.nan, math.inf, -math.inf]
U_SPECIALS = [0.0, 1.0, -1.0, 0.5, 3.0, 1e300, -1e300, math.nan, math.inf, -math.inf]
# Relations that put b on a special point of r, elementwise.
B_OF_R = {
    "b = r": lambda r: r,
    "b = -r": lambda r: -r,
    "b = 1 + r": lambda r: 1 + r,
    "b = 1 - r": lambda r: 1 - r,
    "b = r - 1": lambda r: r - 1,
    "b = 0": lambda r: np.zeros_like(r),
    "b = 1": lambda r: np.ones_like(r),
}


def _settings(max_examples):
  return hypothesis.settings(
      max_examples=max(1, int(max_examples * _SCALE)), deadline=None, derandomize=True,
      database=None, print_blob=False,
      suppress_health_check=[hypothesis.HealthCheck.too_slow,
                             hypothesis.HealthCheck.data_too_large])


# ---------------------------------------------------------------------------
# Strategies.


def _rounded(values, dtype):
  """The floats `values` (and the dtype's extremes) rounded to dtype, as Python
  floats exactly representable in it, each once."""
  info = jnp.finfo(dtype)
  named = {"below 1": 1 - float(info.epsneg), "above 1": 1 + float(info.eps)}
  values = [named.get(v, v) for v in values]
  values += [info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
             -info.smallest_subnormal]
  with np.errstate(over="ignore", invalid="ignore"):
    cast = np.asarray(values, np.float64).astype(dtype).astype(np.float64)
  out, seen = [], set()
  for x in cast.tolist():
    key = repr(x)  # tells -0.0 from 0.0, keeps one NaN
    if key not in seen:
      seen.add(key)
      out.append(x)
  return out


def _elements(dtype, specials, low, high, int_range):
  """Array elements of dtype: special values, values in [low, high], and any
  value of the dtype; integers in int_range."""
  if jnp.issubdtype(dtype, jnp.integer):
    info = np.iinfo(dtype)
    lo, hi = max(info.min, int_range[0]), min(info.max, int_range[1])
    return st.integers(lo, hi)
  # bfloat16 is drawn as float32 and rounded (hypothesis has no bfloat16).
  drawn = np.dtype(np.float32) if dtype == BFLOAT16 else dtype
  return st.one_of(
      st.sampled_from(_rounded(specials, dtype)),
      st.floats(low, high, width=8 * drawn.itemsize),
      hnp.from_dtype(drawn))


@st.composite
def _numpy_array(draw, shape, dtypes, specials, low, high, int_range=(-1000, 1000)):
  dtype = draw(st.sampled_from(dtypes))
  drawn = np.dtype(np.float32) if dtype == BFLOAT16 else dtype
  x = draw(hnp.arrays(drawn, shape, elements=_elements(dtype, specials, low, high, int_range)))
  return x.astype(dtype)


def _python(x):
  """x as Python numbers: a scalar for 0-d, else nested lists (for arrays
  with elements: [] would lose the shape of an empty one)."""
  kind = np.float64 if jnp.issubdtype(x.dtype, jnp.floating) else np.int64
  return np.asarray(x, kind).tolist()


@st.composite
def _argument(draw, shape, dtypes, specials, low, high, int_range=(-1000, 1000)):
  """An argument of shape: a numpy array, a jax array or Python numbers."""
  x = draw(_numpy_array(shape, dtypes, specials, low, high, int_range))
  kind = draw(st.sampled_from(["numpy", "jax", "python"] if x.size else ["numpy", "jax"]))
  if kind == "jax":
    return jnp.asarray(x)
  return _python(x) if kind == "python" else x


def _pair_shapes():
  return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0,
                                           max_side=3)


@st.composite
def _non_broadcastable_shapes(draw):
  """Two shapes with an aligned pair of dimensions that differ, neither 1."""
  a = list(draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3)))
  back = draw(st.integers(1, len(a)))  # the clashing axis, counted from the end
  if a[-back] == 1:
    a[-back] = draw(st.sampled_from([0, 2, 3]))
  b = list(draw(hnp.array_shapes(min_dims=back, max_dims=3, min_side=0, max_side=3)))
  b[-back] = draw(st.sampled_from([n for n in (0, 2, 3) if n != a[-back]]))
  shapes = (tuple(a), tuple(b))
  return shapes if draw(st.booleans()) else shapes[::-1]


@st.composite
def kepler_cases(draw):
  """(op, M, e): any real dtypes, shapes that broadcast."""
  op = draw(st.sampled_from(sorted(KEPLER_OPS)))
  shapes = draw(_pair_shapes()).input_shapes
  m = draw(_argument(shapes[0], REAL_DTYPES, M_SPECIALS, -20, 20))
  e = draw(_argument(shapes[1], REAL_DTYPES, E_SPECIALS, 0, 1, int_range=(-2, 3)))
  return op, m, e


@st.composite
def kepler_grad_cases(draw):
  """(op, M, e): numpy arrays of one kernel dtype, shapes that broadcast."""
  op = draw(st.sampled_from(sorted(KEPLER_OPS)))
  shapes = draw(_pair_shapes()).input_shapes
  dtype = draw(st.sampled_from(KERNEL_DTYPES))
  m = draw(_numpy_array(shapes[0], [dtype], M_SPECIALS, -20, 20))
  e = draw(_numpy_array(shapes[1], [dtype], E_SPECIALS, 0, 1))
  return op, m, e


@st.composite
def _coefficients(draw, length=None):
  """u as a numpy array: a law with nonnegative intensity, moderate
  coefficients, or special values (NaN, inf, huge)."""
  if length is None:
    length = draw(st.one_of(st.integers(0, 3), st.integers(0, MAX_ORDER)))
  family = draw(st.sampled_from(["nonnegative intensity", "moderate", "special"]))
  if family == "special":
    return draw(_numpy_array((length,), REAL_DTYPES, U_SPECIALS, -2, 2, int_range=(-3, 3)))
  u = draw(_numpy_array((length,), REAL_DTYPES[:4], [0.0, 0.5, 1.0], -2, 2))
  u = np.where(np.isfinite(u), u, 0).astype(u.dtype)
  if family == "nonnegative intensity":
    # The positive coefficients summing to at most 1: I(mu) >= 0 everywhere.
    u64 = np.clip(u.astype(np.float64), -0.5, 1)
    positive = np.sum(np.maximum(u64, 0))
    u = np.where(u64 > 0, u64 / max(positive, 1), u64).astype(u.dtype)
  return u


@st.composite
def _u_argument(draw, length=None):
  """u as passed: an array, a tuple or list of Python floats, or a tuple of
  numpy scalars."""
  u = draw(_coefficients(length))
  kind = draw(st.sampled_from(["numpy", "jax", "tuple", "list", "tuple of numpy scalars"]))
  if kind == "jax":
    return jnp.asarray(u)
  if kind in ("tuple", "list"):
    values = _python(u)
    return tuple(values) if kind == "tuple" else values
  return tuple(u) if kind == "tuple of numpy scalars" else u


def _covers(shape, other):
  """Whether an array of `other` shape broadcasts to `shape`."""
  try:
    return np.broadcast_shapes(shape, other) == shape
  except ValueError:
    return False


@st.composite
def _b_and_r(draw, shapes, kinds=True):
  """b and r of the given shapes, b put on one of r's special points (b = r,
  b = 1 + r, ...) for a random set of its elements."""
  r = draw(_numpy_array(shapes[1], REAL_DTYPES, R_SPECIALS, 0, 2, int_range=(-2, 3)))
  b = draw(_numpy_array(shapes[0], REAL_DTYPES, B_SPECIALS, -2, 2, int_range=(-3, 3)))
  relation = draw(st.sampled_from([None] + sorted(B_OF_R)))
  if relation is not None and jnp.issubdtype(b.dtype, jnp.floating) and _covers(b.shape, r.shape):
    mask = draw(hnp.arrays(np.bool_, b.shape))
    with np.errstate(over="ignore", invalid="ignore"):
      on_point = B_OF_R[relation](np.broadcast_to(r, b.shape).astype(np.float64)).astype(b.dtype)
    b = np.where(mask, on_point, b).astype(b.dtype)
  if not kinds:
    return b, r
  out = []
  for x in (b, r):
    kind = draw(st.sampled_from(["numpy", "jax", "python"] if x.size else ["numpy", "jax"]))
    out.append(jnp.asarray(x) if kind == "jax" else _python(x) if kind == "python" else x)
  return tuple(out)


@st.composite
def light_curve_grad_cases(draw):
  """(u, b, r): numpy arrays of one kernel dtype; u's huge values made inf."""
  dtype = draw(st.sampled_from(KERNEL_DTYPES))
  u = draw(_coefficients()).astype(np.float64)
  u = np.where(np.abs(u) < 1e30, u, np.copysign(np.inf, u)).astype(dtype)
  shapes = draw(_pair_shapes()).input_shapes
  b, r = (x.astype(dtype) for x in draw(_b_and_r(shapes, kinds=False)))
  return u, b, r


@st.composite
def light_curve_cases(draw):
  """(u, b, r): u of 0 to MAX_ORDER coefficients, b and r that broadcast."""
  u = draw(_u_argument())
  b, r = draw(_b_and_r(draw(_pair_shapes()).input_shapes))
  return u, b, r


# ---------------------------------------------------------------------------
# The oracle: what docs/api.md says, in numpy.


def _as_numpy(x):
  """x as JAX sees it: lists and tuples as arrays, float64 demoted without x64."""
  return x64_mode.demote(np.asarray(x))


def result_dtype(*args):
  """JAX's promotion of the arguments, then jnp.sin's for integers."""
  dtype = jnp.result_type(*[np.asarray(a) if isinstance(a, (list, tuple)) else a for a in args])
  if not jnp.issubdtype(dtype, jnp.floating):
    dtype = jnp.sin(jnp.zeros((), dtype)).dtype
  return np.dtype(dtype)


def compute_dtype(dtype):
  """The dtype the op's kernel is called with: float16, bfloat16 in float32."""
  return dtype if dtype in (np.dtype(np.float32), np.dtype(np.float64)) else np.dtype(np.float32)


def _subnormal(x):
  if not jnp.issubdtype(x.dtype, jnp.floating):
    return np.zeros(x.shape, bool)
  return (x != 0) & (np.abs(x) < jnp.finfo(x.dtype).tiny)


def seen(x, dtype, shape=None):
  """(values, subnormal): the values the op computes on (x converted to the
  compute dtype of the result dtype, broadcast to shape, as float64), and
  where x is subnormal in its own dtype or in the compute dtype.

  XLA's CPU backend flushes subnormal numbers to zero (docs/api.md, "Invalid
  values"), in the kernels and in the conversion to the compute dtype when
  that runs in XLA (under jit or vmap; an eager call converts numpy arrays
  on the host, exactly): an element with a subnormal input may be computed
  as if that input were 0, or not."""
  x = _as_numpy(x)
  with np.errstate(over="ignore", invalid="ignore"):
    values = x.astype(compute_dtype(dtype))
  subnormal = _subnormal(x) | _subnormal(values)
  values = values.astype(np.float64)
  if shape is not None:
    values, subnormal = np.broadcast_to(values, shape), np.broadcast_to(subnormal, shape)
  return values, subnormal


def either(invalid, *args):
  """(must be NaN, must be finite) of a predicate invalid(*values) -> NaN
  where the values may have been flushed: args are (values, subnormal)
  pairs; an element where flushing changes the answer is in neither."""
  kept = invalid(*[v for v, _ in args])
  flushed = invalid(*[np.where(sub, 0.0, v) for v, sub in args])
  return kept & flushed, ~kept & ~flushed


def kepler_invalid(m, e):
  """Where both Kepler outputs are NaN: e < 0, e >= 1, NaN or inf M or e."""
  with np.errstate(invalid="ignore"):
    return ~np.isfinite(m) | ~np.isfinite(e) | (e < 0) | (e >= 1)


def light_curve_invalid(b, r):
  """Where the light curve is NaN for finite u: r < 0, NaN or inf b or r, an
  occultor larger than MAX_CROSSING_RADIUS across the limb."""
  with np.errstate(invalid="ignore"):
    crossing = (r > limb_dark.MAX_CROSSING_RADIUS) & (np.abs(np.abs(b) - r) < 1)
    return ~np.isfinite(b) | ~np.isfinite(r) | (r < 0) | crossing


def kepler_residual(op, sin_x, cos_x, m, e):
  """E - e sin E - M, wrapped to [-pi, pi), with E from (sin E, cos E) or, for
  the true anomaly, from tan(E/2) = sqrt((1 - e)/(1 + e)) tan(f/2)."""
  x = np.arctan2(sin_x, cos_x)
  if op == "true_anomaly":
    x = 2 * np.arctan2(np.sqrt(1 - e) * np.sin(x / 2), np.sqrt(1 + e) * np.cos(x / 2))
  return np.remainder(x - e * np.sin(x) - m + np.pi, 2 * np.pi) - np.pi


class Law:
  """What the oracle needs of u: finiteness, size, the normalisation."""

  def __init__(self, u):
    self.finite = bool(np.all(np.isfinite(u)))
    n = np.arange(1, len(u) + 1)
    with np.errstate(over="ignore", invalid="ignore"):
      # Sum_j 2^j |u_j|: how large the kernel's Green's-basis sums (binomial
      # sums of u) can get, and so the scale of their rounding errors.
      self.scale = 1 + float(np.sum(np.ldexp(np.abs(u), n))) if self.finite else math.inf
      # The total flux over that of a uniform disk: 1 - sum 2 u_n / ((n+1)(n+2)).
      self.norm = 1 - math.fsum(2 * (u / ((n + 1) * (n + 2)))) if self.finite else math.nan
    # The flux is a ratio whose denominator is the total flux: defined (and
    # then finite) where that is well away from 0, relative to the rounding
    # of the kernel's sums, and those sums do not overflow.
    self.defined = self.finite and self.scale < 1e100 and abs(self.norm) > 1e-8 * self.scale
    # The positive coefficients summing to at most 1: I(mu) = 1 - sum u_n (1 - mu)^n
    # >= 0, so the blocked flux is between 0 and the total.
    self.nonnegative = self.defined and float(np.sum(np.maximum(u, 0))) <= 1
    # A bound on the kernel's error in F - 1 (float64 sums of size scale).
    self.tolerance = 1e-12 * self.scale / abs(self.norm) if self.defined else math.inf


def uniform_disk(b, r):
  """F - 1 of a uniform disk: minus the area of the overlap of the unit disk
  and the planet's over pi (b >= 0, 0 <= r <= 3), to about 1e-8 (the lens
  formula's rounding near the contact points)."""
  with np.errstate(invalid="ignore", divide="ignore"):
    k0 = np.arccos(np.clip((r * r + b * b - 1) / (2 * b * r), -1, 1))
    k1 = np.arccos(np.clip((1 - r * r + b * b) / (2 * b), -1, 1))
    lens = r * r * k0 + k1 - 0.5 * np.sqrt(np.maximum(0, 4 * b * b - (1 + b * b - r * r) ** 2))
  area = np.where(b - r >= 1, 0,
                  np.where(r - b >= 1, np.pi, np.where(b + r <= 1, np.pi * r * r, lens)))
  return -area / np.pi


def uniform_disk_huge_planet(b, r):
  """F - 1 of a uniform disk behind a planet of radius r >> 1 at b - r = d in
  (-1, 1): the planet's edge is a straight line at d from the star's centre
  (a circular segment), to within about 1/r."""
  d = np.clip(b - r, -1, 1)
  return -(np.arccos(d) - d * np.sqrt(1 - d * d)) / np.pi


def reduce_any(mask, shape):
  """mask (of the broadcast shape) reduced to an argument of `shape`: True
  where any element the argument's element reaches is True."""
  extra = mask.ndim - len(shape)
  mask = mask.any(axis=tuple(range(extra))) if extra else mask
  axes = tuple(i for i, n in enumerate(shape) if n == 1 and mask.shape[i] != 1)
  return (mask.any(axis=axes, keepdims=True) if axes else mask).reshape(shape)


def eps(dtype):
  return float(jnp.finfo(dtype).eps)


# ---------------------------------------------------------------------------
# Comparisons.


def _where(mask, *arrays):
  """The first element where mask holds, with the arrays' values there."""
  index = tuple(int(i[0]) for i in np.nonzero(mask)) if np.ndim(mask) else ()
  return index, [np.asarray(a)[index] if np.ndim(a) else np.asarray(a) for a in arrays]


def assert_same_bits(test, got, want, what, skip=False):
  """Equal NaN placement and equal bits elsewhere (the sign of zero included),
  except where skip holds (elements with a subnormal input, see `seen`)."""
  got, want = np.asarray(got), np.asarray(want)
  test.assertEqual((got.shape, got.dtype), (want.shape, want.dtype), what)
  nan = np.isnan(got.astype(np.float64))
  want_nan = np.isnan(want.astype(np.float64))
  uint = np.dtype(f"u{got.dtype.itemsize}")
  differ = ((nan != want_nan) | (~nan & (got.view(uint) != want.view(uint)))) & ~skip
  if differ.any():
    index, (g, w) = _where(differ, got, want)
    test.fail(f"{what}: {g!r} vs {w!r} at {index}")


def check_mask(test, got, mask, predicate, what, *context):
  """predicate(got) holds wherever mask does; else fails naming the first element."""
  bad = mask & ~predicate(np.asarray(got).astype(np.float64))
  if bad.any():
    index, values = _where(bad, got, *context)
    test.fail(f"{what} at {index}: got {values[0]!r}; inputs there: {values[1:]!r}")


# ---------------------------------------------------------------------------
# Kepler's equation.


class KeplerFuzzTest(absltest.TestCase):

  def _expect(self, m, e):
    """(dtype, shape, M and e as computed, must be NaN, must be finite, has a
    subnormal input)."""
    dtype = result_dtype(m, e)
    shape = np.broadcast_shapes(np.shape(m), np.shape(e))
    (ms, m_sub), (es, e_sub) = seen(m, dtype, shape), seen(e, dtype, shape)
    nan, finite = either(kepler_invalid, (ms, m_sub), (es, e_sub))
    return dtype, shape, ms, es, nan, finite, m_sub | e_sub

  @_settings(250)
  @hypothesis.given(case=kepler_cases())
  @hypothesis.example(case=("solve", np.array([0.3, 1e300, -1e300, 1e-300, np.inf]),
                            np.array([1 - 2.0**-53, 0.5, 0.999, 1 - 2.0**-53, 0.5])))
  @hypothesis.example(case=("true_anomaly", np.array([1e-14, 3.0, 1.0, 1.0]),
                            np.array([1 - 2.0**-53, 1 - 2.0**-53, -5e-324, 1.0])))
  @hypothesis.example(case=("solve", np.float32(2.0),
                            np.array([1 - 2.0**-24, -1e-45, np.nan, -0.0], np.float32)))
  @hypothesis.example(case=("true_anomaly", [[1, 2]], np.zeros((0, 1), np.int8)))
  def test_values(self, case):
    op, m, e = case
    fn = KEPLER_OPS[op]
    dtype, shape, ms, es, nan, finite, subnormal = self._expect(m, e)
    got = fn(m, e)
    for name, x in zip(("sin", "cos"), got):
      what = f"{op} {name}"
      self.assertEqual((x.shape, x.dtype), (shape, dtype), what)
      check_mask(self, x, nan, np.isnan, f"{what}: not NaN", ms, es)
      check_mask(self, x, finite, np.isfinite, f"{what}: not finite", ms, es)
    sin_x, cos_x = (np.asarray(x).astype(np.float64) for x in got)
    tol = 8 * eps(dtype)
    check_mask(self, np.abs(sin_x**2 + cos_x**2 - 1), finite, lambda d: d <= tol,
               f"{op}: sin^2 + cos^2 - 1", ms, es)
    with np.errstate(invalid="ignore", divide="ignore"):
      residual = np.abs(kepler_residual(op, sin_x, cos_x, ms, es))
      # M = E - e sin E within the rounding of the outputs (and of M's
      # reduction); the true anomaly's E is ill-conditioned in f as e -> 1.
      bound = 16 * eps(dtype) * (1 + np.abs(ms))
      if op == "true_anomaly":
        bound = bound * (1 + 4 / np.sqrt((1 - es) * (1 + es)))
    check_mask(self, residual / bound, finite & ~subnormal & (np.abs(ms) <= 1e4),
               lambda ratio: ratio <= 1, f"{op}: Kepler's equation's residual over its bound",
               ms, es)
    for name, x, y in zip(("sin", "cos"), jax.jit(fn)(m, e), got):
      assert_same_bits(self, x, y, f"{op} {name}: jit against eager", skip=subnormal)

  @_settings(80)
  @hypothesis.given(case=kepler_grad_cases())
  @hypothesis.example(case=("true_anomaly", np.array([1e-14, 3.0, 1e300, 1.0, np.nan]),
                            np.array([[1 - 2.0**-53], [0.0], [1.0]])))
  def test_grad(self, case):
    # jax.grad of sum(sin) + 2 sum(cos) in M and e: NaN where a value it sums
    # is NaN ("Their derivatives are NaN too"), finite where all are finite
    # (d/dM ~ 1 / (1 - e) as e -> 1 is large, not infinite).
    op, m, e = case
    fn = KEPLER_OPS[op]

    def total(m, e):
      sin_x, cos_x = fn(m, e)
      return jnp.sum(sin_x) + 2 * jnp.sum(cos_x)

    grads = jax.jit(jax.grad(total, argnums=(0, 1)))(m, e)
    _, _, _, _, nan, finite, _ = self._expect(m, e)
    for name, g, x in zip(("d/dM", "d/de"), grads, (m, e)):
      what = f"{op} {name}"
      self.assertEqual((g.shape, g.dtype), (x.shape, x64_mode.canonical(x.dtype)), what)
      check_mask(self, g, reduce_any(nan, x.shape), np.isnan, f"{what}: not NaN", x)
      check_mask(self, g, ~reduce_any(~finite, x.shape), np.isfinite, f"{what}: not finite", x)

  @_settings(80)
  @hypothesis.given(data=st.data())
  def test_vmap(self, data):
    # vmap over a leading axis gives, bit for bit, the call on each row.
    op = data.draw(st.sampled_from(sorted(KEPLER_OPS)), "op")
    in_axes = data.draw(st.sampled_from([(0, 0), (0, None), (None, 0)]), "in_axes")
    rows = data.draw(st.integers(0, 3), "rows")
    shapes = data.draw(_pair_shapes(), "row shapes").input_shapes
    m_shape, e_shape = ((rows,) * (axis == 0) + shape for axis, shape in zip(in_axes, shapes))
    args = (data.draw(_numpy_array(m_shape, REAL_DTYPES, M_SPECIALS, -20, 20), "M"),
            data.draw(_numpy_array(e_shape, REAL_DTYPES, E_SPECIALS, 0, 1, int_range=(-2, 3)), "e"))
    fn = KEPLER_OPS[op]
    got = jax.vmap(fn, in_axes=in_axes)(*args)
    row_shape = np.broadcast_shapes(*shapes)
    for i in range(rows):
      row = [x if axis is None else x[i] for x, axis in zip(args, in_axes)]
      want = fn(*row)
      subnormal = self._expect(*row)[-1]
      for name, g, w in zip(("sin", "cos"), got, want):
        assert_same_bits(self, g[i], w, f"{op} {name}: vmap row {i} against the plain call",
                         skip=subnormal)
    for g in got:
      self.assertEqual((g.shape, g.dtype), ((rows,) + row_shape, result_dtype(*args)))

  @_settings(60)
  @hypothesis.given(data=st.data())
  def test_errors(self, data):
    op = data.draw(st.sampled_from(sorted(KEPLER_OPS)), "op")
    fn = KEPLER_OPS[op]
    if data.draw(st.booleans(), "shapes that do not broadcast"):
      shapes = data.draw(_non_broadcastable_shapes(), "shapes")
      args = [np.zeros(s, data.draw(st.sampled_from(REAL_DTYPES))) for s in shapes]
      error, names = ValueError, [str(s) for s in shapes]
    else:
      shapes = data.draw(_pair_shapes(), "shapes").input_shapes
      bad = data.draw(st.integers(0, 1), "bad argument")
      args = [np.zeros(s, data.draw(st.sampled_from(REAL_DTYPES))) for s in shapes]
      values = [np.zeros(shapes[bad], d) for d in BAD_DTYPES]
      values += [1j, True] if shapes[bad] == () else []
      args[bad] = data.draw(st.sampled_from(values), "bad value")
      error, names = TypeError, [("mean_anomaly", "eccentricity")[bad]]
    for how, call in (("eager", fn), ("jit", jax.jit(fn))):
      with self.assertRaises(error, msg=f"{op} {how}") as raised:
        call(*args)
      for name in names:
        self.assertIn(name, str(raised.exception), f"{op} {how}")


# ---------------------------------------------------------------------------
# The light curve.

# Cases the search found, kept as explicit examples:
# 1. Laws of at most two coefficients with a NaN or inf coefficient, at points
#    out of transit (b >= 1 + r): NaN everywhere (docs/api.md), from the
#    vectorised path (LowOrderLightCurvePoint in
#    jaxlib_ext/limb_dark/limb_dark.h) too, whose value there is otherwise 0
#    whatever the law.
NAN_U_OUT_OF_TRANSIT = ((np.nan,), np.array([0.3, 2.0]), np.array([0.1, 0.1]))
# 2. Laws with a coefficient past the linear one, planets of radius 1e6 across
#    the limb (|b - r| < 1): the closed form's terms grow as r^4 and cancel;
#    the large-planet form of SolutionVector keeps them accurate.
HUGE_PLANET_LIMB_DARKENED = ((0.4, 0.26), np.array([1e6, 1e6 + 0.5, 1e6 - 0.5]), 1e6)
# 3. r = 1 and 0 < b <= 1e-16, where 1 + (b - r) rounds to 0, and b below
#    1e-154, where Heron's product underflows: finite values in [-1, 0]
#    there, not NaN.
R_ONE_TINY_B = ((0.3, 0.2, 0.1), np.array([1e-17, 1e-16, 1e-100, 1e-170, 5e-324]), 1.0)
# 4. The uniform disk behind a planet of radius >= 2^53, where 1 + r rounds to
#    r: NaN at |b - r| < 1 (beyond MAX_CROSSING_RADIUS), and the misses and
#    full covers beside it.
HUGE_PLANET_UNIFORM = ((), np.array([2.0**53, 2.0**53 + 2, 2.0**53 - 2, 2.0**54, 2.0**52]), 2.0**53)


class LightCurveFuzzTest(absltest.TestCase):

  def _expect(self, u, b, r):
    """(dtype, shape, |b| and r as computed, the Law, must be NaN, must be
    finite, has a subnormal input)."""
    dtype = result_dtype(u, b, r)
    shape = np.broadcast_shapes(np.shape(b), np.shape(r))
    (bs, b_sub), (rs, r_sub) = seen(b, dtype, shape), seen(r, dtype, shape)
    us, u_sub = seen(u, dtype)
    law = Law(us)
    nan, finite = either(light_curve_invalid, (bs, b_sub), (rs, r_sub))
    if not law.finite:
      nan = np.ones(shape, bool)
    subnormal = b_sub | r_sub | u_sub.any()
    return dtype, shape, np.abs(bs), rs, law, nan, finite & law.defined, subnormal

  @_settings(250)
  @hypothesis.given(case=light_curve_cases())
  @hypothesis.example(case=NAN_U_OUT_OF_TRANSIT)
  @hypothesis.example(case=([0.1, np.inf], np.array([2.0, 1.1]), 0.1))
  @hypothesis.example(case=HUGE_PLANET_LIMB_DARKENED)
  @hypothesis.example(case=R_ONE_TINY_B)
  @hypothesis.example(case=HUGE_PLANET_UNIFORM)
  @hypothesis.example(case=((np.nan,) * 3, np.array([0.3, 2.0]), np.array([0.1, 0.1])))
  @hypothesis.example(case=((0.4, 0.26), np.array([0.0, 0.1, 0.9, 1.1, 0.5, -0.5, 1e300, 5e-324]),
                            np.array([0.1, 0.1, 0.1, 0.1, 0.5, 0.5, 1e300, 0.0])))
  @hypothesis.example(case=((), np.array([[0.0], [0.3], [1.0], [2.0]]),
                            np.array([0.0, 0.5, 1.0, 1.5, 3.0])))
  @hypothesis.example(case=(np.full(MAX_ORDER, 1 / MAX_ORDER), np.float32(0.5),
                            np.array([-0.0, -1e-45, -0.1, np.inf], np.float32)))
  @hypothesis.example(case=(np.zeros(0, np.float16), np.zeros((3, 0)), np.ones(1)))
  def test_values(self, case):
    u, b, r = case
    dtype, shape, bs, rs, law, nan, finite, subnormal = self._expect(u, b, r)
    got = limb_dark.light_curve(u, b, r)
    self.assertEqual((got.shape, got.dtype), (shape, dtype))
    check_mask(self, got, nan, np.isnan, "not NaN", bs, rs)
    check_mask(self, got, finite, np.isfinite, "not finite", bs, rs)
    flux = np.asarray(got).astype(np.float64)
    tol = 4 * eps(dtype) + law.tolerance
    with np.errstate(invalid="ignore"):
      # b - r is exact where it matters (Sterbenz), unlike 1 + r for r >= 2^53.
      out = finite & (bs - rs >= 1)
      full = finite & (rs - bs >= 1)
    check_mask(self, flux, out, lambda f: f == 0, "out of transit, not 0", bs, rs)
    check_mask(self, np.abs(flux + 1), full, lambda d: d <= tol, "fully hidden, not -1", bs, rs)
    if law.nonnegative:
      check_mask(self, flux, finite, lambda f: (f <= tol) & (f >= -1 - tol),
                 "outside [-1, 0] for a law with nonnegative intensity", bs, rs)
    if np.shape(u) == (0,):
      with np.errstate(invalid="ignore"):
        near = finite & (rs <= 3) & (bs <= 10)
        error = np.abs(flux - uniform_disk(np.where(near, bs, 0), np.where(near, rs, 0)))
        check_mask(self, error, near, lambda d: d <= 1e-7 + tol,
                   "uniform disk: error against the overlap area", bs, rs)
        huge = finite & (rs >= 1e6) & (np.abs(bs - rs) < 1)
        error = np.abs(flux - uniform_disk_huge_planet(bs, rs)) - 2 / np.where(huge, rs, 1)
        check_mask(self, error, huge, lambda d: d <= 1e-3 + tol,
                   "uniform disk, planet of radius >= 1e6: error against a straight edge", bs, rs)
    assert_same_bits(self, jax.jit(limb_dark.light_curve)(u, b, r), got, "jit against eager",
                     skip=subnormal)

  @_settings(80)
  @hypothesis.given(case=light_curve_grad_cases())
  @hypothesis.example(case=tuple(np.asarray(x, np.float64) for x in NAN_U_OUT_OF_TRANSIT))
  @hypothesis.example(case=(np.array([0.4, 0.26]),
                            np.array([0.0, -0.0, 0.1, 0.9, 1.1, 0.5, 0.0, 3.0]),
                            np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5, 0.0, 0.0])))
  def test_grad(self, case):
    # jax.grad of sum(F - 1) in u, b and r. docs/api.md says nothing of the
    # derivatives where the value is NaN; they are checked to be NaN there,
    # as for Kepler's equation, and finite where every value summed is.
    u, b, r = case
    total = lambda *args: jnp.sum(limb_dark.light_curve(*args))
    grads = jax.jit(jax.grad(total, argnums=(0, 1, 2)))(u, b, r)
    _, _, _, _, _, nan, finite, _ = self._expect(u, b, r)
    for name, g, x in zip(("d/du", "d/db", "d/dr"), grads, (u, b, r)):
      self.assertEqual((g.shape, g.dtype), (x.shape, x64_mode.canonical(x.dtype)), name)
      if name == "d/du":
        want_nan = np.full(np.shape(u), nan.any())
        want_finite = np.full(np.shape(u), finite.all())
      else:
        want_nan = reduce_any(nan, np.shape(x))
        want_finite = ~reduce_any(~finite, np.shape(x))
      check_mask(self, g, want_nan, np.isnan, f"{name}: not NaN", x)
      check_mask(self, g, want_finite, np.isfinite, f"{name}: not finite", x)

  @_settings(80)
  @hypothesis.given(data=st.data())
  def test_vmap(self, data):
    # vmap over a leading axis of any of u (a batch of stars), b and r gives,
    # bit for bit, the call on each row.
    in_axes = data.draw(st.sampled_from([(None, 0, 0), (None, 0, None), (None, None, 0),
                                         (0, None, None), (0, 0, 0), (0, 0, None)]), "in_axes")
    rows = data.draw(st.integers(0, 3), "rows")
    length = data.draw(st.one_of(st.integers(0, 3), st.integers(0, MAX_ORDER)), "order")
    if in_axes[0] == 0:
      # A batch of stars: rows of coefficients, in one float dtype.
      u = np.stack([data.draw(_coefficients(length), f"u[{i}]").astype(np.float64)
                    for i in range(rows)] or [np.zeros(length)])[:rows]
      with np.errstate(over="ignore"):
        u = u.astype(data.draw(st.sampled_from(FLOAT_DTYPES), "u dtype"))
    else:
      u = data.draw(_coefficients(length), "u")
    shapes = data.draw(_pair_shapes(), "row shapes").input_shapes
    shapes = [(rows,) * (axis == 0) + shape for axis, shape in zip(in_axes[1:], shapes)]
    b, r = data.draw(_b_and_r(shapes, kinds=False), "b, r")
    args = (u, b, r)
    got = jax.vmap(limb_dark.light_curve, in_axes=in_axes)(*args)
    for i in range(rows):
      row = [x if axis is None else x[i] for x, axis in zip(args, in_axes)]
      want = limb_dark.light_curve(*row)
      assert_same_bits(self, got[i], want, f"vmap row {i} against the plain call",
                       skip=self._expect(*row)[-1])
    row_shape = np.broadcast_shapes(*[s[axis == 0:] for s, axis in zip(shapes, in_axes[1:])])
    self.assertEqual((got.shape, got.dtype), ((rows,) + row_shape, result_dtype(*args)))

  @_settings(60)
  @hypothesis.given(data=st.data())
  def test_errors(self, data):
    fault = data.draw(st.sampled_from(["b, r shapes", "u not 1-D", "u too long", "dtype"]), "fault")
    shapes = data.draw(_pair_shapes(), "shapes").input_shapes
    u = np.zeros(data.draw(st.integers(0, MAX_ORDER), "order"))
    b, r = np.zeros(shapes[0]), np.zeros(shapes[1])
    error, names = ValueError, []
    if fault == "b, r shapes":
      b, r = (np.zeros(s) for s in data.draw(_non_broadcastable_shapes(), "shapes"))
      names = [str(np.shape(b)), str(np.shape(r))]
    elif fault == "u not 1-D":
      u = data.draw(st.sampled_from([0.4, np.float32(0.4), np.zeros(()), np.zeros((1, 2)),
                                     np.zeros((2, 0)), [[0.4, 0.26]], np.zeros((1, 1, 1))]), "u")
    elif fault == "u too long":
      u = np.zeros(data.draw(st.integers(MAX_ORDER + 1, MAX_ORDER + 8), "length"))
      u = data.draw(st.sampled_from([u, tuple(u.tolist()), list(u.tolist())]), "u")
    else:
      error = TypeError
      bad = data.draw(st.integers(0, 2), "bad argument")
      args = [u, b, r]
      values = [np.zeros(np.shape(args[bad]), d) for d in BAD_DTYPES]
      values += [1j, True] if np.shape(args[bad]) == () else []
      args[bad] = data.draw(st.sampled_from(values), "bad value")
      u, b, r = args
      names = [("u", "b", "r")[bad]]
    for how, call in (("eager", limb_dark.light_curve), ("jit", jax.jit(limb_dark.light_curve))):
      with self.assertRaises(error, msg=f"{fault}, {how}") as raised:
        call(u, b, r)
      for name in names:
        self.assertIn(name, str(raised.exception), f"{fault}, {how}")


if __name__ == "__main__":
  absltest.main()
