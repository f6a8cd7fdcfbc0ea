"""The derivatives of a row op (kepler.limb_dark, kepler.transit), written once.

A row op takes a 1-D `row` (a law's coefficients; a planet's parameters and
its law's) and two elementwise arguments x and y (b and r; t and the
exposure time), and its handler returns F - 1 with its first derivatives
in x, in y and in the row's entries that have one, all from one call.
`differentiable` makes of it a function differentiable to any order:

- the function's own JVP is one handler call with the first derivatives:
  the tangent is d_x dF/dx + d_y dF/dy + the dot of the row's tangent with
  the entries' derivatives (that in the row only when its tangent is not a
  symbolic zero, so that a gradient in x alone does not ask for them);
- that call's own JVP, for second and higher derivatives, is central
  differences of its outputs (kepler/_ffi/differences.py) in x, in y and
  in each entry with a derivative.

Entries are named by slices of the row (a dot over slices, whose transpose
is a pad, not the scatter of a gather's), in the order the handler returns
their derivatives.
"""

import functools

import jax
import jax.numpy as jnp

from kepler._ffi import differences

__all__ = ["differentiable"]

# The largest stack of the entries' derivatives (bytes) the JVP contracts
# with one dot; past it, a sum per entry (the call's size as traced: under
# vmap, one example's). The stack is a copy, a temporary
# of the program that a gradient allocates on every call: from a few MB up
# glibc may map and fault it in anew each time (docs/api.md, "The CPU"),
# while below it the dot is faster than a reduction per entry in reverse
# mode. Measured on one Zen 5 core (2026-11-30, jax 0.12, a gradient of the
# transit model, 9 entries): the dot 44.7 against 62.8 ns a time at N =
# 1e3, 26.5 against 37.1 at 2e3, within 10% of each other from 5e3 to 9e4
# in a process that had allocated before, and at N = 1e5 in a fresh process
# 68.7 against 8.1 (benchmarks/cpu_runs/2026-11-30_gradient_contraction.md).
_LARGEST_STACK = 1 << 22


def differentiable(value, derivatives, entries, steps, entry_step, entry_lowest=None):
  """The function f(row, x, y, static) = F - 1 of a row op.

  Args:
    value: value(row, x, y, static) -> F - 1, from the handler alone.
    derivatives: derivatives(row, x, y, static, with_entries) -> (F - 1,
      (dF/dx, dF/dy), (dF/d entry, ...)), the entries' derivatives in the
      order of `entries` (with_entries False: the handler may leave them
      out, returning ()).
    entries: entries(static, n) -> the slices of a row of n values whose
      entries have derivatives, in the handler's order.
    steps: ((step_x, lowest_x), (step_y, lowest_y)): each argument's
      central-difference step as a function of it, and the bottom of its
      domain (None: none; differences.difference).
    entry_step: entry_step(row, j) -> the step in entry j.
    entry_lowest: entry_lowest(static, j) -> the bottom of entry j's domain,
      or None (the default: none for every entry).

  `static` is hashable (the handler's attributes); f is differentiable in
  row, x and y to any order and vmaps over any of them.
  """
  if entry_lowest is None:
    entry_lowest = lambda static, j: None

  def indices(static, n):
    return [j for s in entries(static, n) for j in range(*s.indices(n))]

  @functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4))
  def kernel(row, x, y, static, with_entries):
    return derivatives(row, x, y, static, with_entries)

  @kernel.defjvp
  def kernel_jvp(static, with_entries, primals, tangents):
    row, x, y = primals
    d_row, d_x, d_y = tangents
    out = kernel(row, x, y, static, with_entries)
    call = lambda rr, xx, yy: kernel(rr, xx, yy, static, with_entries)
    (step_x, lowest_x), (step_y, lowest_y) = steps
    by_x = differences.difference(lambda v: call(row, v, y), x, step_x(x), lowest_x)
    tangent = jax.tree_util.tree_map(lambda a: a * d_x, by_x)
    by_y = differences.difference(lambda v: call(row, x, v), y, step_y(y), lowest_y)
    tangent = jax.tree_util.tree_map(lambda s, a: s + a * d_y, tangent, by_y)
    for j in indices(static, row.shape[0]):
      by_j = differences.entry_difference(lambda v: call(v, x, y), row, j, entry_step(row, j),
                                          entry_lowest(static, j))
      tangent = jax.tree_util.tree_map(lambda s, a, j=j: s + a * d_row[j], tangent, by_j)
    return out, tangent

  @functools.partial(jax.custom_jvp, nondiff_argnums=(3,))
  def function(row, x, y, static):
    # Not differentiated (derivatives come from function_jvp).
    return value(row, x, y, static)

  def function_jvp(static, primals, tangents):
    row, x, y = primals
    d_row, d_x, d_y = tangents
    with_entries = not differences.is_zero(d_row)
    flux, by_args, by_entries = kernel(row, x, y, static, with_entries)
    tangent = jnp.zeros_like(flux)
    for by, d in zip(by_args, (d_x, d_y)):
      if not differences.is_zero(d):
        tangent = tangent + by * d
    if with_entries and by_entries:
      d_entries = jnp.concatenate([d_row[s] for s in entries(static, row.shape[0])])
      if flux.size * len(by_entries) * flux.dtype.itemsize < _LARGEST_STACK:
        # A dot over the entries (row is 1-D here; vmap hides a batch), at
        # full precision: a float32 dot on a GPU defaults to TF32 (~5e-4
        # relative).
        tangent = tangent + jnp.tensordot(d_entries, jnp.stack(by_entries), axes=1,
                                          precision=jax.lax.Precision.HIGHEST)
      else:
        for k, by in enumerate(by_entries):
          tangent = tangent + d_entries[k] * by
    return flux, tangent

  function.defjvp(function_jvp, symbolic_zeros=True)
  return function
