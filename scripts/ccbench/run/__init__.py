"""Stage 3, running: programs built and executed, backends (local, Ray
cluster), the result store, the sweep runner and its budget, the benchmarks
and the soak. Imports the specification and the simulation."""
