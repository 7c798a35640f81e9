"""Stage 2, the simulation's inputs: the cost table's calibration and the
work-scale fit of simulated points. Imports only the shared modules (load, fileio)."""
