"""The limb-darkening laws and separations the light-curve checks draw from
(tests/limb_dark_test.py, benchmarks/accuracy_sweep.py): the regions of
laws the accuracy bounds of docs/accuracy_and_speed.md speak of, and the
special points of the overlap.

A law is u_1..u_N, the intensity I(mu) = 1 - sum_n u_n (1 - mu)^n."""

import numpy as np

# The quadratic region u1 >= 0, u1 + u2 <= 1, u1 + 2 u2 >= 0 (the intensity
# is >= 0 and non-increasing toward the limb) is this triangle.
QUADRATIC_CORNERS = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, -1.0]])


def quadratic_laws(rng, count, extra=()):
  """The quadratic region's corners, its edge midpoints, the laws of
  `extra`, and `count` laws drawn uniformly from it with `rng`; shape
  (laws, 2)."""
  midpoints = (QUADRATIC_CORNERS + np.roll(QUADRATIC_CORNERS, 1, axis=0)) / 2
  drawn = rng.dirichlet(np.ones(3), count) @ QUADRATIC_CORNERS
  return np.vstack([QUADRATIC_CORNERS, midpoints] + [np.reshape(extra, (-1, 2))] + [drawn])


def is_physical(u, samples=401):
  """The intensity of law u, on `samples` values of mu in [0, 1], is
  non-negative and non-increasing toward the limb."""
  mu = np.linspace(0.0, 1.0, samples)
  intensity = 1 - ((1 - mu)[:, None] ** np.arange(1, len(u) + 1)) @ np.asarray(u)
  return intensity.min() >= 0 and np.diff(intensity).min() >= 0


def physical_laws(order, count, rng, box):
  """`count` laws of `order` coefficients drawn uniformly from [-box,
  box]^order with `rng`, kept where is_physical. From [-4, 4]: large
  coefficients of alternating sign, whose Green's-basis coefficients sum in
  absolute value to up to ~35 times the flux normalisation. Shape (count,
  order)."""
  laws = []
  while len(laws) < count:
    u = rng.uniform(-box, box, order)
    if is_physical(u):
      laws.append(u)
  return np.array(laws)


def special_points(radii, offsets):
  """(b, r), b >= 0, for each r of `radii` on and next to (by each of
  `offsets`) the special separations 0, r, |1 - r|, 1 and 1 + r; sorted."""
  points = set()
  for r in radii:
    for centre in (0.0, r, abs(1 - r), 1.0, 1 + r):
      for offset in offsets:
        if centre + offset >= 0:
          points.add((centre + offset, r))
  return sorted(points)
