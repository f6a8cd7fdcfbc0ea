"""The CPU half of the compiled extension: `_kepler_cpu.registrations()`."""
