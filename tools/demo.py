"""Solves, jits, differentiates and vmaps the Kepler op; prints a small table.

Then a transit: orbit -> b(t) -> limb-darkened light curve, its gradient, and
a plot written as an SVG file (the path is the first argument).
"""

import os
import sys

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
import numpy as np

import kepler

print(f"kepler {kepler.__version__} from {kepler.__file__}")
print(f"jax {jax.__version__}, devices {jax.devices()}")

mean_anomaly = np.array([0.1, 1.0, 2.0, 3.0, -2.5])
ecc = np.array([0.0, 0.3, 0.6, 0.9, 0.99])

solve = jax.jit(kepler.solve)
sin_e, cos_e = solve(mean_anomaly, ecc)
ecc_anom = np.arctan2(sin_e, cos_e)
sin_f, cos_f = jax.jit(kepler.true_anomaly)(mean_anomaly, ecc)
true_anom = np.arctan2(sin_f, cos_f)
# dE/dM through jax.grad, vectorised with jax.vmap.
d_e_d_m = jax.vmap(jax.grad(lambda m, e: jnp.arctan2(*kepler.solve(m, e))))(mean_anomaly, ecc)
residual = ecc_anom - ecc * np.sin(ecc_anom) - mean_anomaly

print(f"{'M':>6} {'e':>5} {'E':>10} {'f':>10} {'dE/dM':>10} {'E - e sinE - M':>15}")
for row in zip(mean_anomaly, ecc, ecc_anom, true_anom, d_e_d_m, residual):
  print("{:6.2f} {:5.2f} {:10.6f} {:10.6f} {:10.4f} {:15.1e}".format(*row))
assert np.all(np.abs(residual) < 1e-12), "Kepler's equation is not satisfied"
print("demo: ok")

# A transit: Kepler orbit -> projected separation b(t) -> limb-darkened light
# curve, and the gradient of the whole curve's depth in the planet's radius.
from kepler import limb_dark  # pylint: disable=g-import-not-at-top

PERIOD, A_OVER_R, INC, ECC, OMEGA = 3.0, 10.0, np.radians(88.0), 0.1, np.radians(40.0)
RADIUS, U = 0.1, jnp.array([0.4, 0.26])  # planet/star radius ratio, quadratic law


def separation(t):
  """b(t) in stellar radii (and whether the planet is in front), t in days from mid-transit."""
  # Mean anomaly at mid-transit: where the true anomaly is pi/2 - omega.
  f0 = jnp.pi / 2 - OMEGA
  e0 = 2 * jnp.arctan(jnp.sqrt((1 - ECC) / (1 + ECC)) * jnp.tan(f0 / 2))
  m = 2 * jnp.pi * t / PERIOD + (e0 - ECC * jnp.sin(e0))
  sin_f, cos_f = kepler.true_anomaly(m, jnp.full_like(m, ECC))
  dist = A_OVER_R * (1 - ECC**2) / (1 + ECC * cos_f)
  sin_wf = jnp.sin(OMEGA) * cos_f + jnp.cos(OMEGA) * sin_f
  cos_wf = jnp.cos(OMEGA) * cos_f - jnp.sin(OMEGA) * sin_f
  b = dist * jnp.sqrt(cos_wf**2 + (sin_wf * jnp.cos(INC)) ** 2)
  return b, sin_wf > 0


def flux(t, radius):
  b, in_front = separation(t)
  return jnp.where(in_front, limb_dark.light_curve(U, b, radius), 0.0)


t = jnp.linspace(-0.12, 0.12, 481)
curve = jax.jit(flux)(t, RADIUS)
d_depth_d_r = jax.grad(lambda r: -jnp.sum(flux(t, r)))(RADIUS)
depth = -float(jnp.min(curve))
print(f"transit: depth {depth * 1e6:.0f} ppm, mid-transit b = {float(separation(0.0)[0]):.3f}, "
      f"d(sum of depths)/dr = {float(d_depth_d_r):.2f}")
assert 0 < depth < 2 * RADIUS**2 and float(curve[0]) == 0.0, "the transit looks wrong"


def write_svg(path, x, y, title):
  """A line plot with axes, ticks and labels, as a standalone SVG file."""
  width, height, pad = 640, 400, 60
  x0, x1, y0, y1 = float(x.min()), float(x.max()), float(y.min()) * 1.1, float(y.max()) + 0.1 * depth
  sx = lambda v: pad + (v - x0) / (x1 - x0) * (width - 2 * pad)
  sy = lambda v: height - pad - (v - y0) / (y1 - y0) * (height - 2 * pad)
  points = " ".join(f"{sx(float(a)):.1f},{sy(float(b)):.1f}" for a, b in zip(x, y))
  parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15">{title}</text>',
           f'<polyline points="{points}" fill="none" stroke="#1f5fa8" stroke-width="2"/>',
           f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>']
  for v in np.linspace(x0, x1, 5):
    parts.append(f'<text x="{sx(v):.1f}" y="{height - pad + 18}" text-anchor="middle">{v * 24:.1f}</text>')
  for v in np.linspace(y0, y1, 5):
    parts.append(f'<text x="{pad - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{v * 1e6:.0f}</text>')
  parts.append(f'<text x="{width / 2}" y="{height - 15}" text-anchor="middle">hours from mid-transit</text>')
  parts.append(f'<text x="16" y="{height / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {height / 2})">flux - 1 (ppm)</text>')
  parts.append("</svg>")
  with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(parts) + "\n")


plot = sys.argv[1] if len(sys.argv) > 1 else "kepler_demo_transit.svg"
write_svg(plot, np.asarray(t), np.asarray(curve),
          f"Transit: r = {RADIUS}, u = (0.4, 0.26), P = {PERIOD} d, e = {ECC}")
print(f"demo: transit plot written to {os.path.abspath(plot)} (open it in a browser)")
print("demo: transit ok")
