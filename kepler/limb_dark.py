"""Limb-darkened transit light curves: kepler.limb_dark.light_curve.

The closed form of Agol, Luger & Foreman-Mackey (2020, AJ 159, 123) for a
star with polynomial limb darkening of any order, and the power-2, Claret
four-coefficient, square-root, logarithmic and exponential laws and
tabulated intensity profiles by edge integrals exact to rounding, computed by the compiled handlers (jaxlib_ext/limb_dark/:
limb_dark_cpu.cc, limb_dark_cuda.cc, the math in limb_dark.h) with their
first derivatives in b, r and u.
"""

import jax
import jax.numpy as jnp
import numpy as np

from kepler import _ffi
from kepler._ffi import differences
from kepler._ffi import elementwise
from kepler._ffi import partition
from kepler._ffi import row_op

__all__ = ["light_curve", "power2_from_h", "LAWS", "MAX_ORDER", "MAX_TABLE_SIZE",
           "MAX_CROSSING_RADIUS"]

_TARGET = _ffi.target("limb_dark")
# The most coefficients u the op takes (jaxlib_ext/limb_dark/solution_vector.h,
# kMaxOrder).
MAX_ORDER = _ffi.constant("LIMB_DARK_MAX_ORDER")
# The most points of the tabulated law's grid (jaxlib_ext/limb_dark/tabulated_law.h,
# kMaxTableSize).
MAX_TABLE_SIZE = _ffi.constant("LIMB_DARK_MAX_TABLE_SIZE")
# The largest occultor whose limb may cross the disk (limb_dark.h,
# kMaxCrossingRadius): beyond it, |b - r| < 1 gives NaN.
MAX_CROSSING_RADIUS = float(_ffi.constant("LIMB_DARK_MAX_CROSSING_RADIUS"))

# The laws `light_curve` takes, by name, in the order of the handler's `law`
# attribute, each with the number of coefficients u it takes (None: any
# number, up to MAX_ORDER for the polynomial law's order, MAX_TABLE_SIZE for
# the tabulated law's grid points): jaxlib_ext/limb_dark/law_table.h's table
# (JAXEXT_LIMB_DARK_LAWS), as the compiled module exports it.
_LAW_NUMBERS = _ffi.constants_named("LIMB_DARK_LAW:")
_LAW_NAMES = tuple(sorted(_LAW_NUMBERS, key=_LAW_NUMBERS.get))
if [_LAW_NUMBERS[name] for name in _LAW_NAMES] != list(range(len(_LAW_NAMES))):
  raise ImportError("kepler.limb_dark: the compiled module's laws are not numbered 0..N-1")
LAWS = {name: (None if count < 0 else count)
        for name, count in sorted(_ffi.constants_named("LIMB_DARK_LAW_COEFFICIENTS:").items(),
                                  key=lambda item: _LAW_NUMBERS[item[0]])}
_TABULATED = _LAW_NAMES.index("tabulated")


def first_differentiated(law, n_coefficients):
  """The index in the kernel's coefficients (n_coefficients of them) of the
  first with a derivative, for the law of handler index `law`: the
  tabulated law's are its grid then its intensities, and the grid has none."""
  return n_coefficients // 2 if law == _TABULATED else 0


def _attrs(law):
  return (("law", np.int32(law)),)


def _value(u, b, r, law):
  """F - 1 alone, which the handler computes faster than with its derivatives."""
  return partition.call(_TARGET, (b, r), shared=(u,), n_results=1, attrs=_attrs(law))[0]


def _derivatives(u, b, r, law, with_du):
  """(F - 1, (dF/db, dF/dr), dF/du) from one call of the handler: dF/du the
  tuple (dF/du_i, ...) of arrays of b's shape for the coefficients with a
  derivative (_entries) with with_du, else (). Partitioned elementwise in
  b, r on many devices, u replicated (kepler/_ffi/partition.py)."""
  n_du = u.shape[-1] - first_differentiated(law, u.shape[-1]) if with_du else 0
  out = partition.call(_TARGET, (b, r), shared=(u,), n_results=3 + n_du, attrs=_attrs(law))
  return out[0], (out[1], out[2]), tuple(out[3:])


def _entries(law, n):
  """The coefficients with a derivative: all but the tabulated law's grid."""
  return (slice(first_differentiated(law, n), n),)


# F - 1 of (u, b, r, law), differentiable to any order in u, b and r
# (kepler/_ffi/row_op.py): u is 1-D (vmap hides a batch), the tabulated
# law's grid constant; second derivatives by steps of 1e-6 in each
# coefficient, relative in b and r.
_light_curve = row_op.differentiable(
    _value, _derivatives, _entries,
    steps=((differences.fd_step, None), (differences.fd_step, None)),
    entry_step=lambda u, j: differences.fd_step(jnp.zeros((), u.dtype)))


def light_curve(u, b, r, *, law="polynomial", order=None, mu=None):
  """Relative flux minus one of a limb-darkened star occulted by a planet.

  For a star of unit radius with intensity I(mu) given by `law` and an
  opaque disk of radius r at projected separation b (|b| is used): 0 out of
  transit, negative in transit (-1 when the star is fully hidden).

  The laws (docs/limb_darkening_laws.md; batman's definitions and order of
  the coefficients, so that a fit's coefficients carry over):
    "polynomial" (default): I = 1 - sum_n u_n (1 - mu)^n, N <= MAX_ORDER (32)
      coefficients; empty: a uniform disk; 2: the quadratic law. The closed
      form of Agol, Luger & Foreman-Mackey (2020).
    "power2": u = (c, alpha), I = 1 - c (1 - mu^alpha), alpha > 0 (Maxted's
      (h1, h2): power2_from_h).
    "nonlinear": u = (c1, c2, c3, c4), I = 1 - sum_k c_k (1 - mu^(k/2))
      (Claret 2000).
    "square_root": u = (u1, u2), I = 1 - u1 (1 - mu) - u2 (1 - sqrt(mu)).
    "logarithmic": u = (u1, u2), I = 1 - u1 (1 - mu) - u2 mu log(mu).
    "exponential": u = (u1, u2), I = 1 - u1 (1 - mu) - u2 / (1 - e^mu)
      (infinite on the limb for u2 > 0, integrably: dF/db and dF/dr grow
      as log(1 / distance) at the inner contact, b + r = 1).
    "tabulated": u = (I_1, ..., I_M), the intensity at the points of the
      grid `mu` (2 <= M <= MAX_TABLE_SIZE = 128), as LDTk or ExoTiC-LD give a profile;
      between grid points I is linear in mu, below the first point I_1 and
      above the last I_M (exact for that interpolant).
  The laws other than the polynomial are integrated over the occultor's edge
  by rules exact to rounding (within about 1e-14 of an arbitrary-precision
  quadrature of the law; docs/accuracy_and_speed.md).

  Args:
    u: the law's coefficients, shape (N,): an array (jax or numpy), or a
      list or tuple of numbers, arrays or tracers (`(u1, u2)` inside a jitted
      model works).
    b, r: broadcast against each other like a jnp binary op; arrays, scalars,
      or lists or tuples of them.
    law: the law's name, one of LAWS; static (not traced).
    order: accepted for compatibility with jaxoplanet's light_curve (its
      quadrature order) and ignored: the closed form needs none.
    mu: the tabulated law's grid, and only its: M values strictly
      increasing or strictly decreasing (as model atmospheres list them,
      from the centre) within [0, 1], u's intensities in the same order; concrete (a numpy array, list or tuple; not
      traced: the grid is data, neither differentiated nor vmapped), rounded
      to the computation's dtype.

  Returns:
    F - 1, of the broadcast shape and the promoted float dtype of u, b, r
    (integers promote like jnp.sin). Computed in float64 inside the kernel
    for both float32 and float64, then rounded.

  Elements with r < 0, or NaN or +-inf in b or r, or an occultor larger than
  MAX_CROSSING_RADIUS (1e6) across the limb (|b - r| < 1), are NaN; NaN or
  inf in u, power2's alpha <= 0, or a law whose star has no positive flux
  (the normalisation pi (1 - c alpha / (alpha + 2)) for power2) makes every
  element NaN. Coefficients outside a law's physical region (a negative
  intensity somewhere) are computed as the formula says. Differentiable in
  u, b and r (first derivatives analytic, from the kernel, alpha's
  included; higher orders by central differences of them); vmap over any
  argument.

  Raises:
    TypeError: an argument of complex, bool or other non-real dtype.
    ValueError: an unknown law; u not 1-D, more than MAX_ORDER coefficients
      for the polynomial law or not the number another law takes; b and r
      shapes that do not broadcast; for the tabulated law, a grid `mu`
      missing, traced, of another length than u, with fewer than 2 or more
      than MAX_TABLE_SIZE points, or not strictly monotonic within [0, 1]
      (after rounding to the dtype); `mu` given for another law.
  """
  del order
  u = check_law("limb_dark.light_curve", law, u, mu)
  (b, r), (u,), dtype = elementwise.prepare(
      "limb_dark.light_curve", (("b", b), ("r", r)), others=(("u", u),))
  number, u = kernel_law("limb_dark.light_curve", law, u, mu)
  # |b| inside the kernel, whose dF/db is that in b itself (limb_dark.h).
  flux = _light_curve(u, b, r, number)
  return flux.astype(dtype)


def check_law(where, law, u, mu):
  """The checks of a law and its coefficients that light_curve documents
  (its Raises, but for the grid's values): u as an array. `where` names the
  public function in messages. Shared with kepler.transit."""
  if law not in LAWS:
    raise ValueError(f"kepler.{where}: unknown law {law!r}; the laws are "
                     f"{', '.join(map(repr, LAWS))}")
  u = elementwise.as_array(where, "u", u)
  if np.ndim(u) != 1:
    raise ValueError(f"kepler.{where}: u must be 1-D, got shape {np.shape(u)}")
  count = LAWS[law]
  if law != "tabulated" and mu is not None:
    raise ValueError(f"kepler.{where}: mu is the tabulated law's grid; law {law!r} "
                     "takes none")
  if law == "tabulated" and np.shape(u)[0] < 2:
    raise ValueError(f"kepler.{where}: the tabulated law takes at least 2 points, "
                     f"got {np.shape(u)[0]}")
  most = MAX_TABLE_SIZE if law == "tabulated" else MAX_ORDER
  if count is None and np.shape(u)[0] > most:
    raise ValueError(f"kepler.{where}: {np.shape(u)[0]} coefficients; at most "
                     f"{most} are supported for law {law!r}")
  if count is not None and np.shape(u)[0] != count:
    raise ValueError(f"kepler.{where}: law {law!r} takes {count} coefficients, "
                     f"got {np.shape(u)[0]}")
  return u


def kernel_law(where, law, u, mu):
  """The handlers' arguments of a checked law (check_law), u in the
  computation's dtype: its number (their `law` attribute) and its
  coefficients as they take them: u itself, or for the tabulated law the
  grid, increasing, then the intensities in its order. Shared with
  kepler.transit."""
  number = _LAW_NAMES.index(law)
  if law != "tabulated":
    return number, u
  grid = _table_grid(where, mu, np.shape(u)[0], u.dtype)
  if grid[0] > grid[-1]:
    grid, u = grid[::-1], u[::-1]
  return number, jnp.concatenate([jnp.asarray(grid), u])


def _table_grid(public, mu, size, dtype):
  """The tabulated law's grid as a numpy array of dtype, checked (see
  light_curve's Raises)."""
  where = "kepler." + public
  if mu is None:
    raise ValueError(f"{where}: the tabulated law needs its grid, mu=")
  try:
    grid = np.asarray(mu, dtype=np.float64)
  except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
    raise ValueError(f"{where}: the tabulated law's grid mu must be concrete (a numpy array, "
                     "list or tuple), not traced: it is data, neither differentiated nor "
                     "vmapped") from None
  if grid.ndim != 1 or grid.shape[0] != size:
    raise ValueError(f"{where}: the grid mu has shape {grid.shape}; u has {size} intensities")
  grid = grid.astype(dtype)
  steps = np.diff(grid)
  if not (np.all(np.isfinite(grid)) and (np.all(steps > 0) or np.all(steps < 0))
          and np.min(grid) >= 0 and np.max(grid) <= 1):
    raise ValueError(f"{where}: the grid mu must be strictly monotonic within [0, 1] (in "
                     f"{np.dtype(dtype).name}), got {grid.tolist()}")
  return grid


def power2_from_h(h1, h2):
  """The power-2 law's (c, alpha) from Maxted's (2018, A&A 616, A39) h1 = I(1/2)
  and h2 = I(1/2) - I(0) (intensities relative to the centre's):
  c = 1 - h1 + h2, alpha = log2(c / h2). Works on arrays and tracers.

  Returns:
    (c, alpha), for light_curve(jnp.stack([c, alpha]), b, r, law="power2").
  """
  c = 1 - h1 + h2
  return c, jnp.log2(c / h2)
