"""Every op partitions elementwise on 8 CPU devices (kepler/_ffi/partition.py).

Under jax.jit with inputs sharded on 1-D and 2-D meshes (Auto and Explicit
axis types, any dimension of the array), and under grad, jvp, vmap and
shard_map: the compiled HLO has no all-gather, all-to-all or
collective-permute, the custom call sees one device's block, the outputs keep
the inputs' sharding, and the values equal the unsharded op's. Mismatched
shardings of the inputs give correct values.
"""

import functools
import os

# 8 host devices; must be set before JAX starts.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=8").strip()

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from tests import x64_mode  # sets jax_enable_x64 before JAX is used
import kepler
from kepler import limb_dark

MOVES = ("all-gather", "all-to-all", "collective-permute")
FLOAT = x64_mode.FLOAT
QUADRATIC = (0.4, 0.26)
# Explicit axis types: supported from jax 0.7 (docs/api.md, "Many
# devices"); in jax 0.6 they are an experiment of JAX's own (its matmul
# rejects an array on an Explicit mesh next to a constant), so only Auto
# meshes are tested there.
_JAX = tuple(int(x) for x in jax.__version__.split(".")[:2])
AXIS_TYPES = ("auto", "explicit") if _JAX >= (0, 7) else ("auto",)


def _mesh(shape, names, kind):
  if not hasattr(jax.sharding, "AxisType"):
    return jax.make_mesh(shape, names)
  t = jax.sharding.AxisType.Auto if kind == "auto" else jax.sharding.AxisType.Explicit
  return jax.make_mesh(shape, names, axis_types=(t,) * len(shape))


def _compiled(fn, *args):
  return jax.jit(fn).lower(*args).compile().as_text()


def _custom_call_shapes(hlo):
  """The operand/result shape strings of the kepler custom calls in `hlo`."""
  return [line.split("custom-call(")[0] for line in hlo.splitlines()
          if "custom-call(" in line and "kepler_jax_" in line]


def _solve_inputs(shape):
  rng = np.random.default_rng(0)
  m = rng.uniform(-10, 10, shape).astype(FLOAT)
  e = rng.uniform(0, 0.95, shape).astype(FLOAT)
  return m, e


def _light_curve_inputs(shape):
  rng = np.random.default_rng(1)
  b = rng.uniform(0, 1.2, shape).astype(FLOAT)
  r = rng.uniform(0.01, 0.2, shape).astype(FLOAT)
  return b, r


class ShardingTest(parameterized.TestCase):

  def assert_partitioned(self, fn, args, shards):
    """No data movement, and custom calls on blocks 1/shards of the data."""
    hlo = _compiled(fn, *args)
    for word in MOVES:
      lines = [l.strip()[:200] for l in hlo.splitlines() if f"{word}(" in l]
      self.assertEmpty(lines, f"{word} in the compiled HLO")
    calls = _custom_call_shapes(hlo)
    self.assertNotEmpty(calls)
    size = max(np.size(a) for a in args)
    for call in calls:
      # f64[1,8,1] or f32[...]: the elements the call sees.
      dims = [int(x) for x in call.split("[", 1)[1].split("]", 1)[0].split(",") if x]
      self.assertEqual(int(np.prod(dims)), size // shards, call)

  def assert_same_sharding(self, out, like):
    self.assertTrue(out.sharding.is_equivalent_to(like.sharding, like.ndim),
                    f"{out.sharding} vs {like.sharding}")

  @parameterized.product(
      kind=AXIS_TYPES,
      layout=[((8,), ("x",), (64,), P("x")),
              ((2, 4), ("a", "b"), (8, 16), P("a", "b")),
              ((2, 4), ("a", "b"), (8, 16), P(None, ("a", "b"))),
              ((2, 4), ("a", "b"), (8, 16), P("b", None)),
              ((2, 4), ("a", "b"), (4, 6, 16), P(None, "a", "b"))],
      op=["solve", "true_anomaly"])
  def test_solve_jit(self, kind, layout, op):
    mesh_shape, names, shape, spec = layout
    mesh = _mesh(mesh_shape, names, kind)
    fn = getattr(kepler, op)
    m, e = _solve_inputs(shape)
    sharding = NamedSharding(mesh, spec)
    ms, es = jax.device_put(m, sharding), jax.device_put(e, sharding)
    shards = int(np.prod([mesh.shape[a] for p in spec if p for a in (p if isinstance(p, tuple) else (p,))]))
    self.assert_partitioned(fn, (ms, es), shards)
    got = jax.jit(fn)(ms, es)
    want = fn(m, e)
    for g, w in zip(got, want):
      self.assert_same_sharding(g, ms)
      np.testing.assert_array_equal(np.asarray(g), np.asarray(w))

  @parameterized.parameters(*[(k,) for k in AXIS_TYPES])
  def test_solve_grad_jvp_vmap(self, kind):
    mesh = _mesh((8,), ("x",), kind)
    m, e = _solve_inputs((64,))
    sh = NamedSharding(mesh, P("x"))
    ms, es = jax.device_put(m, sh), jax.device_put(e, sh)

    def grad_fn(m, e):
      return jax.grad(lambda m, e: jnp.sum(kepler.solve(m, e)[0]), argnums=(0, 1))(m, e)

    def jvp_fn(m, e):
      return jax.jvp(lambda m: kepler.true_anomaly(m, e)[1], (m,), (jnp.ones_like(m),))

    for fn in (grad_fn, jvp_fn):
      self.assert_partitioned(fn, (ms, es), 8)
      for g, w in zip(jax.tree.leaves(jax.jit(fn)(ms, es)), jax.tree.leaves(fn(m, e))):
        self.assert_same_sharding(g, ms)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12 if FLOAT == np.float64 else 1e-5)
    m2, e2 = m.reshape(8, 8), e.reshape(8, 8)
    sh2 = NamedSharding(mesh, P(None, "x"))
    vm = jax.vmap(kepler.solve)
    self.assert_partitioned(vm, (jax.device_put(m2, sh2), jax.device_put(e2, sh2)), 8)
    got = jax.jit(vm)(jax.device_put(m2, sh2), jax.device_put(e2, sh2))
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(kepler.solve(m2, e2)[0]))
    self.assertEqual(got[0].sharding.spec, P(None, "x"))

  # The polynomial laws, the tabulated one and the others (law=, each its own
  # handler path; the table's grid joins its intensities in the op's u).
  @parameterized.parameters(*[(k, law, u) for k in AXIS_TYPES
                              for law, u in (("polynomial", QUADRATIC), ("power2", (0.6, 0.6)),
                                             ("tabulated", (0.4, 0.7, 1.0)))])
  def test_light_curve(self, kind, law, u):
    light_curve = functools.partial(
        limb_dark.light_curve, law=law, **({"mu": (0.0, 0.4, 1.0)} if law == "tabulated" else {}))
    mesh = _mesh((2, 4), ("a", "b"), kind)
    b, r = _light_curve_inputs((8, 16))
    u = np.array(u, FLOAT)
    sh = NamedSharding(mesh, P("a", "b"))
    bs, rs = jax.device_put(b, sh), jax.device_put(r, sh)
    us = jax.device_put(u, NamedSharding(mesh, P()))
    self.assert_partitioned(light_curve, (us, bs, rs), 8)
    got = jax.jit(light_curve)(us, bs, rs)
    self.assert_same_sharding(got, bs)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(light_curve(u, b, r)))

    def grad_br(u, b, r):
      return jax.grad(lambda b, r: jnp.sum(light_curve(u, b, r)), argnums=(0, 1))(b, r)

    self.assert_partitioned(grad_br, (us, bs, rs), 8)
    for g, w in zip(jax.jit(grad_br)(us, bs, rs), grad_br(u, b, r)):
      self.assert_same_sharding(g, bs)
      np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12 if FLOAT == np.float64 else 1e-5)

    # The gradient in u sums over every point: an all-reduce, nothing moved.
    def grad_u(u, b, r):
      return jax.grad(lambda u: jnp.sum(light_curve(u, b, r)))(u)

    hlo = _compiled(grad_u, us, bs, rs)
    for word in MOVES:
      self.assertEmpty([l.strip()[:200] for l in hlo.splitlines() if f"{word}(" in l])
    # Sums in another order (per device, then across): float32 differs by
    # up to ~1.3e-4 relative (the terms nearly cancel).
    np.testing.assert_allclose(np.asarray(jax.jit(grad_u)(us, bs, rs)), np.asarray(grad_u(u, b, r)),
                               rtol=1e-10 if FLOAT == np.float64 else 1e-3)

  @parameterized.parameters(*[(k,) for k in AXIS_TYPES])
  def test_light_curve_vmap(self, kind):
    mesh = _mesh((2, 4), ("a", "b"), kind)
    b, r = _light_curve_inputs((4, 32))
    stars = np.array([[0.4, 0.26], [0.3, 0.2], [0.1, 0.5], [0.2, 0.2]], FLOAT)
    want = np.stack([np.asarray(limb_dark.light_curve(stars[i], b[i], r[i])) for i in range(4)])
    # One u for all (vmap over b, r): partitioned on every axis.
    u = np.array(QUADRATIC, FLOAT)
    sh = NamedSharding(mesh, P("a", "b"))
    bs, rs = jax.device_put(b, sh), jax.device_put(r, sh)
    per_row = jax.vmap(limb_dark.light_curve, in_axes=(None, 0, 0))
    self.assert_partitioned(per_row, (u, bs, rs), 8)
    np.testing.assert_array_equal(np.asarray(jax.jit(per_row)(u, bs, rs)),
                                  np.asarray(limb_dark.light_curve(u, b, r)))
    # A u per star (vmap over u too): partitioned along the stars.
    star_sh = NamedSharding(mesh, P("a", None))
    us = jax.device_put(stars, star_sh)
    bs, rs = jax.device_put(b, star_sh), jax.device_put(r, star_sh)
    per_star = jax.vmap(limb_dark.light_curve)
    self.assert_partitioned(per_star, (us, bs, rs), 2)
    got = jax.jit(per_star)(us, bs, rs)
    self.assert_same_sharding(got, bs)
    np.testing.assert_array_equal(np.asarray(got), want)

  @parameterized.parameters(*[(k,) for k in AXIS_TYPES])
  def test_transit(self, kind):
    """Times sharded on 8 devices, with exposures; the gradient in the
    orbit's parameters sums over the times: an all-reduce, nothing moved."""
    mesh = _mesh((8,), ("x",), kind)
    t = np.linspace(-0.2, 0.2, 64).astype(FLOAT)
    sh = NamedSharding(mesh, P("x"))
    ts = jax.device_put(t, sh)
    params = np.array([3.0, 0.01, 8.0, 0.3, 0.1], FLOAT)

    def model(t, p):
      return kepler.transit.light_curve(t, period=p[0], t0=p[1], a=p[2], b=p[3], r=p[4],
                                        u=QUADRATIC, exposure_time=0.02)

    ps = jax.device_put(params, NamedSharding(mesh, P()))
    self.assert_partitioned(model, (ts, ps), 8)
    got = jax.jit(model)(ts, ps)
    self.assert_same_sharding(got, ts)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(model(t, params)))
    grad = jax.grad(lambda p, t: jnp.sum(model(t, p)))
    hlo = _compiled(grad, ps, ts)
    for word in MOVES:
      moved = [l.strip()[:200] for l in hlo.splitlines() if f"{word}(" in l]
      if word == "all-gather" and _JAX < (0, 7):
        # jax 0.6's partitioner gathers the times once for the derivatives'
        # call (docs/api.md, "Many devices"): one all-gather of t, no more.
        self.assertLen(moved, 1)
        self.assertIn(f"[1,{t.size},1]", moved[0])
      else:
        self.assertEmpty(moved)
    np.testing.assert_allclose(np.asarray(jax.jit(grad)(ps, ts)), np.asarray(grad(params, t)),
                               rtol=1e-10 if FLOAT == np.float64 else 1e-3)

  def test_mismatched_shardings(self):
    mesh = _mesh((2, 4), ("a", "b"), "auto")
    m, e = _solve_inputs((8, 16))
    want = kepler.solve(m, e)
    cases = [(P("a", "b"), P()), (P(), P(None, "b")), (P("a", None), P(None, "b")),
             (P("a", "b"), P("b", "a"))]
    for spec_m, spec_e in cases:
      got = jax.jit(kepler.solve)(jax.device_put(m, NamedSharding(mesh, spec_m)),
                                  jax.device_put(e, NamedSharding(mesh, spec_e)))
      for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=f"{spec_m}, {spec_e}")
    b, r = _light_curve_inputs((8, 16))
    u = np.array(QUADRATIC, FLOAT)
    got = jax.jit(limb_dark.light_curve)(u, jax.device_put(b, NamedSharding(mesh, P("a", None))),
                                         jax.device_put(r, NamedSharding(mesh, P(None, "b"))))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(limb_dark.light_curve(u, b, r)))

  def test_shard_map(self):
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:  # jax < 0.6.1 (the floor, 0.6.0)
      from jax.experimental.shard_map import shard_map
    mesh = _mesh((8,), ("x",), "explicit" if "explicit" in AXIS_TYPES else "auto")
    sh = NamedSharding(mesh, P("x"))
    m, e = _solve_inputs((64,))
    f = shard_map(kepler.solve, mesh=mesh, in_specs=(P("x"), P("x")), out_specs=(P("x"), P("x")))
    got = jax.jit(f)(jax.device_put(m, sh), jax.device_put(e, sh))
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(kepler.solve(m, e)[0]))
    b, r = _light_curve_inputs((64,))
    u = np.array(QUADRATIC, FLOAT)
    g = shard_map(limb_dark.light_curve, mesh=mesh, in_specs=(P(), P("x"), P("x")), out_specs=P("x"))
    us = jax.device_put(u, NamedSharding(mesh, P()))
    bs, rs = jax.device_put(b, sh), jax.device_put(r, sh)
    self.assert_partitioned(g, (us, bs, rs), 8)
    np.testing.assert_array_equal(np.asarray(jax.jit(g)(us, bs, rs)),
                                  np.asarray(limb_dark.light_curve(u, b, r)))
    # Gradients through shard_map, in u (replicated inside) and in b.
    loss = lambda u, b, r: jnp.sum(g(u, b, r))
    got_u, got_b = jax.jit(jax.grad(loss, argnums=(0, 1)))(us, bs, rs)
    want_u, want_b = jax.grad(lambda u, b: jnp.sum(limb_dark.light_curve(u, b, r)), argnums=(0, 1))(u, b)
    tol = 1e-10 if FLOAT == np.float64 else 1e-3  # summation order, as above
    np.testing.assert_allclose(np.asarray(got_u), np.asarray(want_u), rtol=tol)
    np.testing.assert_allclose(np.asarray(got_b), np.asarray(want_b), rtol=tol)

  def test_scalars_and_empty_arrays(self):
    mesh = _mesh((8,), ("x",), "auto")
    rep = NamedSharding(mesh, P())
    s, c = jax.jit(kepler.solve)(jax.device_put(np.asarray(1.0, FLOAT), rep), 0.3)
    self.assertEqual(s.shape, ())
    # E - e sin E = M at M = 1, e = 0.3 (E = atan2(sin E, cos E)).
    ecc_anom = np.arctan2(np.float64(s), np.float64(c))
    self.assertLess(abs(ecc_anom - 0.3 * np.sin(ecc_anom) - 1.0), 1e-6)
    empty = jax.device_put(np.zeros((8, 0), FLOAT), NamedSharding(mesh, P("x")))
    self.assertEqual(jax.jit(kepler.solve)(empty, empty)[0].shape, (8, 0))
    self.assertEqual(jax.jit(limb_dark.light_curve)(np.array(QUADRATIC, FLOAT), empty, empty).shape,
                     (8, 0))


if __name__ == "__main__":
  absltest.main()
