"""FFI calls whose JVP is one more call of the same handler.

An op registers `register(target, tangent)`: its handler, called with the
tangents of its elementwise operands after them, returns its results followed
by their tangents, in the same pass over memory. `tangent` says the same in
jnp: tangent(x, y, dx, attrs) gives the results' tangents from the operands
x, the results y and the operands' tangents dx, and is linear in dx.

Then the call's primitive (partition.primitive) differentiates as follows:

- forward mode (jax.jvp, jacfwd): the JVP primitive below, one handler call
  computing results and tangents (on the CPU; elsewhere it lowers to the
  plain call followed by `tangent`, which XLA fuses);
- reverse mode (jax.grad, vjp, linearize): the JVP primitive's partial
  evaluation splits it into the plain call (the known part, whose results
  become residuals) and `tangent`'s jnp operations on the tangents, which
  JAX transposes: both for the partial evaluation of traces (JaxprTrace:
  grad of eager and jitted code) and for that of jaxprs (jax.checkpoint,
  control flow), through the hooks JAX's own primitives use;
- higher orders: the JVP primitive's own JVP is that of the plain call
  followed by `tangent`, so derivatives of any order are defined.

Targets that are not registered (the light curve's, differentiated by its
custom_jvp in kepler/limb_dark.py) are never differentiated through the
primitive: doing so is an error naming the target.
"""

import jax
from jax.interpreters import ad
from jax.interpreters import batching
from jax.interpreters import mlir
from jax.interpreters import partial_eval as pe

from kepler._ffi import partition

# Private: the current-trace context (to run `tangent` inside a partial
# evaluation) has no public API across the supported range (kepler/_version.py).
from jax._src import core as _core

__all__ = ["register"]

_TANGENTS = {}


def register(target, tangent):
  """Declares that `target`'s handler also takes the JVP form (module docstring)."""
  _TANGENTS[target] = tangent


def _tangent_of(target):
  tangent = _TANGENTS.get(target)
  if tangent is None:
    raise NotImplementedError(
        f"kepler: the FFI target {target!r} has no derivative rule of its own; "
        "it is differentiated through its op's custom_jvp")
  return tangent


def _split(args, params):
  """(shared operands, elementwise operands, their tangents, the plain call's
  parameters) of a JVP call."""
  n_shared = params["n_shared"]
  shared, rest = list(args[:n_shared]), list(args[n_shared:])
  half = len(rest) // 2
  plain = dict(params, n_results=params["n_results"] // 2)
  return shared, rest[:half], rest[half:], plain


def _reference(*args, **params):
  """The JVP call as the plain call followed by `tangent` (jnp operations)."""
  shared, x, dx, plain = _split(args, params)
  y = partition.primitive.bind(*shared, *x, **plain)
  dy = _tangent_of(params["target"])(x, y, dx, dict(params["attrs"]))
  return [*y, *dy]


jvp_primitive = partition.make_primitive("kepler_elementwise_ffi_jvp")
# The handler's JVP form exists on the CPU; other platforms get the reference.
mlir.register_lowering(jvp_primitive, mlir.lower_fun(_reference, multiple_results=True))
mlir.register_lowering(jvp_primitive, partition.lower_call, platform="cpu")


def _jvp_batch(args, dims, **params):
  """vmap of a JVP call. With only tangents batched (jacfwd pushes a batch of
  tangents through one point), the values stay unbatched: the plain call,
  and `tangent` vmapped over the tangents; otherwise, one batched JVP call."""
  shared, x, dx, plain = _split(args, params)
  n_plain = len(shared) + len(x)
  if any(d is not None for d in dims[:n_plain]):
    return partition.batch(jvp_primitive, args, dims, **params)
  y = partition.primitive.bind(*shared, *x, **plain)
  tangent = _tangent_of(params["target"])
  attrs = dict(params["attrs"])
  dy = jax.vmap(lambda *d: tangent(x, y, list(d), attrs), in_axes=tuple(dims[n_plain:]))(*dx)
  return [*y, *dy], [None] * len(y) + [0] * len(dy)


batching.primitive_batchers[jvp_primitive] = _jvp_batch


def _call_jvp(primals, tangents, **params):
  """The plain call's JVP: one JVP call."""
  _tangent_of(params["target"])
  n_shared = params["n_shared"]
  if any(type(t) is not ad.Zero for t in tangents[:n_shared]):
    raise NotImplementedError(
        f"kepler: FFI target {params['target']!r}: derivatives in shared operands")
  dx = [ad.instantiate_zeros(t) for t in tangents[n_shared:]]
  jvp_params = dict(params, n_results=params["n_results"] * 2)
  out = jvp_primitive.bind(*primals, *dx, **jvp_params)
  half = len(out) // 2
  return out[:half], out[half:]


ad.primitive_jvps[partition.primitive] = _call_jvp


def _jvp_call_jvp(primals, tangents, **params):
  """The JVP call's own JVP (second-order forward mode): that of _reference."""
  tangents = [ad.instantiate_zeros(t) for t in tangents]
  return jax.jvp(lambda *a: _reference(*a, **params), tuple(primals), tuple(tangents))


ad.primitive_jvps[jvp_primitive] = _jvp_call_jvp


def _partial_eval_trace(trace, *tracers, **params):
  """Partial evaluation of a JVP call in a trace (linearize, grad, vjp): all
  known, the call itself; otherwise _reference, whose plain call is known
  when the operands are and whose jnp tangent operations are staged."""
  if all(t.is_known() for t in tracers):
    return trace.default_process_primitive(jvp_primitive, tracers, params)
  with _core.set_current_trace(trace):
    return _reference(*tracers, **params)


pe.custom_partial_eval_rules[jvp_primitive] = _partial_eval_trace


def _partial_eval_jaxpr(saveable, unks_in, inst_in, eqn):
  """The same for a JVP call in a jaxpr (jax.checkpoint, control flow):
  returns (known equation, staged equation, which results are unknown, which
  are available to the staged side, the residuals)."""
  del saveable
  n_out = len(eqn.outvars)
  if not any(unks_in):
    return eqn, None, [False] * n_out, [False] * n_out, []
  shared, x, dx, plain = _split(eqn.invars, eqn.params)
  n_plain = len(shared) + len(x)
  if any(unks_in[:n_plain]):
    # Unknown operands: the whole call is staged (as JAX does for any
    # primitive), its known operands becoming residuals.
    residuals = [v for v, unk, inst in zip(eqn.invars, unks_in, inst_in)
                 if type(v) is _core.Var and not unk and not inst]
    return None, eqn, [True] * n_out, [True] * n_out, residuals
  # Known operands, unknown tangents: the plain call is known, and the
  # tangent's jnp operations (one jitted equation, which JAX transposes) are
  # staged, the operands and results they use becoming residuals.
  # Values the caller drops are still the tangent's residuals: named here.
  y = [v if type(v) is _core.Var else _core.gensym()(v.aval)
       for v in eqn.outvars[:n_out // 2]]
  known = eqn.replace(primitive=partition.primitive, outvars=list(y),
                      invars=[*shared, *x], params=plain)
  tangent = _tangent_of(eqn.params["target"])
  attrs = dict(eqn.params["attrs"])

  def staged_fn(*args):
    return tangent(list(args[:len(x)]), list(args[len(x):len(x) + len(y)]),
                   list(args[len(x) + len(y):]), attrs)

  avals = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in [*x, *y, *dx]]
  traced = jax.make_jaxpr(jax.jit(staged_fn))(*avals)
  if len(traced.jaxpr.eqns) != 1 or traced.jaxpr.constvars:
    raise NotImplementedError("kepler: the tangent did not trace to one jitted equation")
  rename = dict(zip(traced.jaxpr.invars, [*x, *y, *dx]))
  inner = traced.jaxpr.eqns[0]
  staged = inner.replace(invars=[rename.get(v, v) for v in inner.invars],
                         outvars=list(eqn.outvars[n_out // 2:]))
  inst_x = inst_in[len(shared):n_plain]
  inst_dx = inst_in[n_plain:]
  residuals = [v for v, inst in zip(x, inst_x) if type(v) is _core.Var and not inst]
  residuals += list(y)
  residuals += [v for v, unk, inst in zip(dx, unks_in[n_plain:], inst_dx)
                if type(v) is _core.Var and not unk and not inst]
  half = n_out // 2
  return known, staged, [False] * half + [True] * half, [False] * half + [True] * half, residuals


pe.partial_eval_jaxpr_custom_rules[jvp_primitive] = _partial_eval_jaxpr
