"""Stage 5, reporting: plots, the per-figure pipeline, REPORT.md, FIDELITY.md
and the generated docs. Imports the stages below; only cli.py imports it."""
