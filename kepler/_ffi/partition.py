"""FFI calls that XLA partitions elementwise on many devices.

`jax.ffi.ffi_call` is replicated under `jax.jit` with sharded inputs: XLA
gathers every input onto every device and each device computes everything.
`call` below binds the FFI target through a primitive of this module
instead, whose lowering tells XLA that the call is elementwise:

- the target is registered as batch-partitionable
  (`jax.ffi.register_ffi_target_as_batch_partitionable`), and the custom call
  carries the frontend attribute `num_batch_dims`: XLA's batch partitioner
  then gives each device its shard of the leading `num_batch_dims`
  dimensions of every operand and result, and replicates their other
  dimensions;
- under Shardy (jax's default partitioner from 0.7), an `sdy.sharding_rule`
  relating those dimensions, so that shardings propagate through the call.

Operands are elementwise (all of one shape S, already broadcast) or shared
(the same for every element, e.g. limb-darkening coefficients u of shape
(N,)); every result is elementwise (several values per element, such as
one per coefficient, are as many results). The lowering reshapes the
elementwise operands and the results to (1, *S, 1) with num_batch_dims =
len(S) + 1. XLA's batch partitioner shards the leading num_batch_dims
dimensions of every operand of higher rank, replicates those of lower
rank, and replicates everything when no operand has a dimension past the
batch ones: the trailing 1 gives every elementwise operand one, the leading
1 keeps a rank-1 shared operand below num_batch_dims (replicated, not
split) even when S is 1-D.

Under `vmap` of a shared operand (a batch of stars, each with its own u)
the leading dimensions K of the shared operand index rows of the
elementwise ones (shape (*K, *R)); then num_batch_dims = len(K): devices
split K and the R dimensions are replicated (gathered if sharded).

Inside `shard_map` (manual sharding) the call runs on each device's block.
With jax 0.6 (Shardy off by default) the batch partitioner alone applies;
with `jax_use_shardy_partitioner` on, the rule is attached as well.
"""

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax.interpreters import batching
from jax.extend.core import Primitive
from jax.interpreters import mlir

# Private modules, used where no public API exists across the supported
# range (kepler/_version.py): ShapedArray (to build the call's avals), and, in
# _sharding_rule, the Shardy rule helpers of custom_partitioning.
from jax._src import core as _core

__all__ = ["call", "register_target"]


def register_target(name):
  """Marks an FFI target (registered on every platform) as batch-partitionable."""
  jax.ffi.register_ffi_target_as_batch_partitionable(name)


def _varying(aval):
  """The manual mesh axes an aval varies over inside shard_map (jax 0.7 to
  0.11: `vma`; 0.12: `manual_axis_type.varying`; 0.6: none)."""
  if hasattr(aval, "manual_axis_type"):
    return frozenset(aval.manual_axis_type.varying)
  return frozenset(getattr(aval, "vma", frozenset()))


def _out_aval(elem_avals, all_avals, dtype):
  """The aval of a result: the elementwise shape, sharded like the first
  sharded elementwise operand, varying over the manual axes of the operand
  that varies over the most (shard_map): derived from that operand's aval so
  that every jax version's way of recording them carries over."""
  shape = tuple(elem_avals[0].shape)
  base = max(all_avals, key=lambda a: len(_varying(a)))
  kwargs = {}
  shardings = [a.sharding for a in elem_avals if getattr(a, "sharding", None) is not None]
  if shardings:
    def spec_of(sh):
      return tuple(sh.spec) + (None,) * (len(elem_avals[0].shape) - len(sh.spec))
    chosen = next((sh for sh in shardings if any(x is not None for x in spec_of(sh))), shardings[0])
    kwargs["sharding"] = jax.sharding.NamedSharding(
        chosen.mesh, jax.sharding.PartitionSpec(*spec_of(chosen)))
  return base.update(shape=shape, dtype=np.dtype(dtype), weak_type=False, **kwargs)


def _abstract_eval(*avals, target, n_shared, row_dims, n_results, dtype, attrs):
  del target, attrs, row_dims
  return [_out_aval(avals[n_shared:], avals, dtype) for _ in range(n_results)]


def _layout(elem_shape, row_dims):
  """(the shape of the elementwise operands and results, num_batch_dims) as
  the custom call sees them (module docstring); shared operands keep their
  shapes."""
  if row_dims == 0:
    lead, batch = (1,) + tuple(elem_shape), len(elem_shape) + 1
  else:
    rest = int(np.prod(elem_shape[row_dims:], dtype=np.int64))
    lead, batch = tuple(elem_shape[:row_dims]) + (rest,), row_dims
  return lead + (1,), batch


def _sharding_rule(shared_types, elem_types, result_types, num_batch_dims, row_dims):
  """The sdy.sharding_rule attribute: the batch dimensions shared by the
  elementwise operands and the results (and by shared operands under vmap),
  every other dimension a factor of its own."""
  from jax._src import custom_partitioning_sharding_rule as sdy_rule

  batch = [f"b{i}" for i in range(num_batch_dims)]
  names = (f"x{i}" for i in itertools.count())

  def spec(t, batched):
    rank = len(mlir.ir.RankedTensorType(t).shape)
    lead = batch if batched else []
    return " ".join(lead + [next(names) for _ in range(rank - len(lead))])

  operands = list(shared_types) + list(elem_types)
  text = (", ".join([spec(t, row_dims > 0) for t in shared_types] +
                    [spec(t, True) for t in elem_types]) +
          " -> " + ", ".join(spec(t, True) for t in result_types))
  return sdy_rule.sdy_sharding_rule_to_mlir(
      sdy_rule.str_to_sdy_sharding_rule(text), operands, list(result_types))


def lower_call(ctx, *args, target, n_shared, row_dims, n_results, dtype, attrs):
  from jax._src.lib.mlir.dialects import hlo

  shared_avals = ctx.avals_in[:n_shared]
  elem_shape, num_batch_dims = _layout(ctx.avals_in[n_shared].shape, row_dims)
  element = mlir.dtype_to_ir_type(np.dtype(dtype))

  def tensor(shape):
    return mlir.ir.RankedTensorType.get(shape, element)

  elem_args = [hlo.reshape(tensor(elem_shape), a) for a in args[n_shared:]]
  call_args = list(args[:n_shared]) + elem_args
  in_avals = list(shared_avals) + [_core.ShapedArray(elem_shape, dtype)] * len(elem_args)
  out_avals = [_core.ShapedArray(elem_shape, dtype)] * n_results
  extra = {"mhlo.frontend_attributes": mlir.ir.DictAttr.get(
      {"num_batch_dims": mlir.ir.StringAttr.get(str(num_batch_dims))})}
  if jax.config.jax_use_shardy_partitioner:
    extra["sdy.sharding_rule"] = _sharding_rule(
        [a.type for a in args[:n_shared]], [a.type for a in elem_args],
        [tensor(elem_shape)] * n_results, num_batch_dims, row_dims)
  rule = jax.ffi.ffi_lowering(target, extra_attributes=extra)
  results = rule(ctx.replace(avals_in=in_avals, avals_out=out_avals), *call_args, **dict(attrs))
  return [hlo.reshape(tensor(aval.shape), r) for aval, r in zip(ctx.avals_out, results)]


def batch(prim, args, dims, *, target, n_shared, row_dims, n_results, dtype, attrs):
  """vmap. A batched shared operand (one u per star) adds a row dimension in
  front of the elementwise operands' (axis 0 everywhere); otherwise the new
  axis is an elementwise one, placed after the row dimensions."""
  size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
  shared_batched = any(d is not None for d in dims[:n_shared])
  axis = 0 if shared_batched else row_dims

  def move(x, d, to):
    if d is None:
      x = jnp.expand_dims(x, to)
      return jnp.broadcast_to(x, x.shape[:to] + (size,) + x.shape[to + 1:])
    return jnp.moveaxis(x, d, to)

  if shared_batched:
    shared = [move(a, d, 0) for a, d in zip(args[:n_shared], dims[:n_shared])]
  else:
    shared = list(args[:n_shared])
  elem = [move(a, d, axis) for a, d in zip(args[n_shared:], dims[n_shared:])]
  outs = prim.bind(*shared, *elem, target=target, n_shared=n_shared,
                    row_dims=row_dims + 1 if shared_batched else row_dims,
                    n_results=n_results, dtype=dtype, attrs=attrs)
  return outs, [axis] * len(outs)


def make_primitive(name):
  """A primitive that calls the FFI target of its parameters, partitioned
  elementwise: abstract evaluation, the FFI lowering (lower_call), vmap, and
  outside jit one cached jit per parameter set (so that repeated calls reuse
  the compiled program). Parameters: those `call` gives."""
  prim = Primitive(name)
  prim.multiple_results = True
  prim.def_abstract_eval(_abstract_eval)

  @functools.lru_cache(maxsize=None)
  def jitted(**params):
    return jax.jit(functools.partial(prim.bind, **params))

  prim.def_impl(lambda *args, **params: jitted(**params)(*args))
  mlir.register_lowering(prim, lower_call)
  batching.primitive_batchers[prim] = functools.partial(batch, prim)
  return prim


primitive = make_primitive("kepler_elementwise_ffi")


def params(target, n_shared, n_results, dtype, attrs):
  """The primitive's parameters for a call (see `call`)."""
  return dict(target=target, n_shared=n_shared, row_dims=0, n_results=int(n_results),
              dtype=np.dtype(dtype), attrs=tuple(attrs))


def call(target, elementwise, shared=(), n_results=1, attrs=()):
  """Calls FFI target `target`, partitioned elementwise.

  Args:
    target: the FFI target name (registered with `register_target` too).
    elementwise: arrays of one shape S and one float dtype (already broadcast).
    shared: arrays every element uses whole (e.g. coefficients (N,)), of the
      same dtype; the handler receives them before the elementwise ones.
    n_results: how many results the handler writes.
    attrs: ((name, value), ...): the FFI attributes of the call.

  Returns:
    The results, each of shape S, in the dtype of the operands.
  """
  return primitive.bind(*shared, *elementwise, **params(
      target, len(shared), n_results, elementwise[0].dtype, attrs))
