"""Both ops on a global array sharded across two processes on localhost.

The test starts two worker processes (this file with --worker I), which join
one JAX distributed system (jax.distributed.initialize, coordinator on a
free localhost port, gloo CPU collectives), build global arrays sharded over
their 2 x 2 CPU devices, run kepler.solve and kepler.limb_dark.light_curve
under jit, and check their own shards: the solve against Kepler's equation
(E - e sin E = M), the light curve against the same op run unsharded on the
process's own copy of the inputs, and the shardings of the outputs. Workers
that hang are killed at the timeout; none is left behind when the test fails.
"""

import os
import socket
import subprocess
import sys

from absl.testing import absltest

TIMEOUT_S = 180
N_PROCESSES = 2
LOCAL_DEVICES = 2


def _worker(process_id, port):
  os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                             f" --xla_force_host_platform_device_count={LOCAL_DEVICES}").strip()
  import jax

  jax.config.update("jax_cpu_collectives_implementation", "gloo")
  jax.config.update("jax_enable_x64", True)
  jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}",
                             num_processes=N_PROCESSES, process_id=process_id)
  import numpy as np
  from jax.sharding import NamedSharding
  from jax.sharding import PartitionSpec as P

  import kepler
  from kepler import limb_dark

  assert jax.process_count() == N_PROCESSES, jax.process_count()
  assert jax.device_count() == N_PROCESSES * LOCAL_DEVICES, jax.devices()
  mesh = jax.make_mesh((jax.device_count(),), ("x",))
  sharding = NamedSharding(mesh, P("x"))
  n = 4096
  rng = np.random.default_rng(5)  # the same global data in every process
  m = rng.uniform(-20, 20, n)
  e = rng.uniform(0, 0.95, n)
  b = rng.uniform(0, 1.2, n)
  r = rng.uniform(0.01, 0.2, n)
  u = np.array([0.4, 0.26])

  def global_array(x):
    return jax.make_array_from_callback(x.shape, sharding, lambda index: x[index])

  ms, es, bs, rs = (global_array(x) for x in (m, e, b, r))
  sin_e, cos_e = jax.jit(kepler.solve)(ms, es)
  flux = jax.jit(limb_dark.light_curve)(u, bs, rs)
  checked = 0
  for out in (sin_e, cos_e, flux):
    assert out.sharding.is_equivalent_to(sharding, 1), out.sharding
  for s_shard, c_shard, f_shard in zip(sin_e.addressable_shards, cos_e.addressable_shards,
                                       flux.addressable_shards):
    index = s_shard.index
    s, c, f = (np.asarray(x.data) for x in (s_shard, c_shard, f_shard))
    ecc = np.arctan2(s, c)
    residual = ecc - e[index] * s - m[index]
    residual = np.abs(np.remainder(residual + np.pi, 2 * np.pi) - np.pi)
    assert np.max(residual) < 1e-12, np.max(residual)
    want = np.asarray(limb_dark.light_curve(u, b[index], r[index]))
    assert np.array_equal(f, want), np.max(np.abs(f - want))
    checked += s.size
  assert checked == n // N_PROCESSES, checked
  print(f"process {process_id}: {checked} elements checked on "
        f"{len(sin_e.addressable_shards)} local devices", flush=True)
  jax.distributed.shutdown()


def _free_port():
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


class MultiProcessTest(absltest.TestCase):

  def test_two_processes(self):
    # gloo's TCP transport binds to the address this machine's hostname
    # resolves to: say so plainly where it does not resolve.
    try:
      socket.getaddrinfo(socket.gethostname(), None)
    except OSError as e:
      self.fail(f"this machine's hostname {socket.gethostname()!r} does not resolve ({e}); "
                "gloo needs it (add it to /etc/hosts)")
    port = _free_port()
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", str(i),
                               str(port)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
             for i in range(N_PROCESSES)]
    outputs = []
    try:
      for p in procs:
        out, _ = p.communicate(timeout=TIMEOUT_S)
        outputs.append(out)
    except subprocess.TimeoutExpired:
      self.fail(f"a worker did not finish in {TIMEOUT_S} s")
    finally:
      for p in procs:  # none left behind, whatever happened
        if p.poll() is None:
          p.kill()
          p.wait()
    for i, (p, out) in enumerate(zip(procs, outputs)):
      self.assertEqual(p.returncode, 0, f"worker {i} failed:\n{out[-4000:]}")
      self.assertIn(f"process {i}: {4096 // N_PROCESSES} elements checked", out)


if __name__ == "__main__":
  if len(sys.argv) == 4 and sys.argv[1] == "--worker":
    _worker(int(sys.argv[2]), int(sys.argv[3]))
  else:
    absltest.main()
