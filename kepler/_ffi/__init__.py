"""The FFI plumbing every op's module uses, whatever the op.

  elementwise.prepare   argument checks, promotion and broadcasting;
  partition.call        the call of an FFI target as one primitive,
                        partitioned elementwise on many devices;
  jvp.register          derivatives of that primitive for a handler that
                        returns tangents with its values (forward mode in
                        one call, reverse mode through jnp);
  row_op.differentiable the derivatives of a row op (a shared 1-D row and
                        two elementwise arguments) whose handler returns
                        its first derivatives with its values: first from
                        one call, higher by central differences
                        (differences) of those;
  registration.register the handlers of every op, registered with XLA once;
  target(op), constant(name), constants_named(prefix)
                        what the compiled CPU module says of the ops.

The ops themselves are listed once, in jaxlib_ext/ops.bzl (OPS); each has its
module kepler/<op>.py.
"""

from kepler._lib import _kepler_cpu


def target(op):
  """The XLA FFI target name of `op` (its folder name, e.g. "limb_dark")."""
  return _kepler_cpu.TARGET_NAMES[op]


def constant(name):
  """An integer an op's C++ exports (JAXEXT_EXPORT_CONSTANT), e.g. LIMB_DARK_MAX_ORDER."""
  return _kepler_cpu.constants()[name]


def constants_named(prefix):
  """{rest of the name: value} of the exported integers whose names start
  with `prefix` (e.g. "LIMB_DARK_LAW:", one per law)."""
  return {name[len(prefix):]: value for name, value in _kepler_cpu.constants().items()
          if name.startswith(prefix)}
