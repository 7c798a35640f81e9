"""Stage 1, the specification: programs and their metrics, the figure schema,
figure configs and profiles resolved into points, and the cross-field rules.
Imports nothing of the other stages."""
