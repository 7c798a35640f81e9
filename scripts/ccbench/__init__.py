"""ccbench: the experiment harness of the concurrency-control testbed.

A figure is one YAML file under configs/figures/<paper>/<figure-id>.yaml. The
harness expands it (under a profile: smoke, small, paper or sim) into engine
runs, runs the ones the result store lacks, aggregates them into tidy tables,
plots them like the papers do, checks the papers' claims and writes a
reproduction report. Entry point: the ``ccbench`` command (pyproject.toml;
``python -m ccbench`` runs the same; see docs/harness.md).
"""
