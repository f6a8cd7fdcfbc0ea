"""The README's demo: fits a transit and radial velocities with the installed wheel.

    python tools/demo.py OUT.png [options of examples/transit_rv_fit.py]

A thin wrapper around examples/transit_rv_fit.py (the model, the simulated
data, the MAP, NUTS, the figure and the table live there, see docs/demo.md):
it says which kepler and jax run, then calls the example's main. tools/demo.sh
runs it in a fresh virtualenv with the wheel and the demo's locked packages.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

import transit_rv_fit  # pylint: disable=g-import-not-at-top,wrong-import-position

import jax  # pylint: disable=g-import-not-at-top,wrong-import-position

import kepler  # pylint: disable=g-import-not-at-top,wrong-import-position

print(f"kepler {kepler.__version__} from {kepler.__file__}")
print(f"jax {jax.__version__}, devices {jax.devices()}, x64 {jax.config.jax_enable_x64}")

if __name__ == "__main__":
  sys.exit(transit_rv_fit.main(sys.argv[1:]))
