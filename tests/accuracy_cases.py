"""The accuracy bounds of docs/accuracy_and_speed.md and the points they are checked on.

Shared by tests/accuracy_test.py (the op, through JAX) and
tests/device_path_test.py (the solver's device path, which the CUDA kernel
runs, compiled for the host), so that both are held to the same bounds on the
same points. Imports no JAX.

  backward error |E' - e sin E' - M_red|: <= 2e-15 (float64; e <= 1 - 1e-6,
      |M| <= 1e3) and <= 4e-7 (float32; e <= 0.95, |M| <= 1e2);
  forward error of each output, e <= 0.5: <= 1e-15 (float64), 1e-6 (float32);
  sin^2 + cos^2 within 4 ulp of 1.
"""

import numpy as np

# dtype name -> (backward bound, max |M|, max e).
BACKWARD = {"float64": (2e-15, 1e3, 1 - 1e-6), "float32": (4e-7, 1e2, 0.95)}
# dtype name -> forward bound, for e <= FORWARD_MAX_E.
FORWARD = {"float64": 1e-15, "float32": 1e-6}
FORWARD_MAX_E = 0.5
NORM_ULPS = 4


def backward_bound(dtype):
  return BACKWARD[np.dtype(dtype).name][0]


def forward_bound(dtype):
  return FORWARD[np.dtype(dtype).name]


def norm_bound(dtype):
  return NORM_ULPS * np.finfo(dtype).eps


def inputs(dtype, domain=None):
  """(M, e) arrays of `dtype` inside the backward-error domain of `domain`.

  `domain` (default: dtype) is the dtype the op computes in: with jax x64
  off, float64 arrays are computed in float32, so they are drawn from
  float32's domain. The grid and random points are drawn in float64 and
  rounded to `dtype` (a float64 array holds values that JAX then rounds to
  float32); the adversarial points (subnormals, neighbours of multiples of
  2 pi and of pi) are values of `domain`.
  """
  dtype = np.dtype(dtype).type
  domain = dtype if domain is None else np.dtype(domain).type
  _, m_max, e_max = BACKWARD[np.dtype(domain).name]
  tiny = np.finfo(domain).smallest_subnormal
  eps = np.finfo(domain).eps
  pi = np.pi
  # Grid.
  m_grid = np.concatenate([np.linspace(-m_max, m_max, 21),
                           np.linspace(-pi, pi, 13)])
  e_grid = np.array([0.0, 1e-10, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99, 0.999,
                     1 - 1e-4, 1 - 1e-5, e_max])
  e_grid = e_grid[e_grid <= e_max]
  grid_m, grid_e = (a.ravel() for a in np.meshgrid(m_grid, e_grid))
  # Random draws: e uniform, and e crowding towards e_max.
  rng = np.random.default_rng(1234)
  n = 1500
  rand_m = rng.uniform(-m_max, m_max, 2 * n)
  rand_e = np.concatenate([
      rng.uniform(0, e_max, n),
      1 - (1 - e_max) * 10 ** rng.uniform(0, np.log10(1 / (1 - e_max)), n)])
  # Adversarial: M near 0 (down to subnormal), near +-pi, at multiples of
  # 2 pi (and their neighbours), with e near 1 and small.
  two_pi_k = (2 * pi * np.arange(1, int(m_max / (2 * pi)) + 1, 7)).astype(domain)
  adv_m = np.concatenate([
      [0.0, -0.0, tiny, -tiny, 64 * tiny, np.finfo(domain).tiny, 1e-30, 1e-15,
       1e-10, 1e-6, 1e-4, 1e-2, -1e-3],
      [pi, -pi, np.nextafter(domain(pi), domain(0)), pi * (1 - eps), pi - 1e-6,
       pi + 1e-6, 3 * pi, -3 * pi],
      two_pi_k, -two_pi_k,
      np.nextafter(two_pi_k, domain(np.inf)), np.nextafter(two_pi_k, domain(0)),
  ]).astype(domain)
  adv_e = np.array([0.0, 0.5, 0.9, 0.99, 1 - 1e-3, 1 - 1e-4, 1 - 1e-5, e_max])
  adv_e = adv_e[adv_e <= e_max].astype(domain)
  adv_m, adv_e = (a.ravel() for a in np.meshgrid(adv_m, adv_e))
  m = np.concatenate([grid_m, rand_m, adv_m]).astype(dtype)
  e = np.concatenate([grid_e, rand_e, adv_e]).astype(dtype)
  # Stay inside the domain after rounding (to dtype, then to domain).
  e = np.minimum(e, dtype(domain(e_max)))
  return m, e
