"""The vmap cases the CPU and GPU tests share: in_axes for (M, e) and their arguments."""

import numpy as np

# (name, in_axes): both mapped, one of them, along axis 1, mixed.
IN_AXES = [("both", (0, 0)), ("M_only", (0, None)), ("e_only", (None, 0)),
           ("axis1", (1, 1)), ("M_axis1_e_axis0", (1, 0))]
MAPPED = 4  # the size of the mapped axis


def rows_and_args(in_axes):
  """(m, e, m_arg, e_arg).

  m and e have shape (MAPPED, 3), the mapped axis first; m_arg and e_arg are
  the arguments of vmap: that axis moved to in_axes, or row 0 where in_axes
  is None. Row i of the result is the plain call on (m_row(i), e_row(i)).
  """
  rng = np.random.default_rng(1)
  m = rng.uniform(-5, 5, (MAPPED, 3))
  e = rng.uniform(0, 0.9, (MAPPED, 3))
  m_arg = m[0] if in_axes[0] is None else np.moveaxis(m, 0, in_axes[0])
  e_arg = e[0] if in_axes[1] is None else np.moveaxis(e, 0, in_axes[1])
  return m, e, m_arg, e_arg


def row(x, axis, i):
  """The argument of the plain call for row i: x[i], or x[0] when not mapped."""
  return x[0] if axis is None else x[i]
