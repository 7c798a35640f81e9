"""A figure's plain document (its YAML, fragment merged) read under a profile.

The rules of resolution in one place, on plain dicts, so that config.py (the
figure as objects, and its points) and crossfield.py (the rules checked when
a figure loads) read a document the same way without importing each other.
A profile is given by its `base` (the run length the profile file sets).
"""
from __future__ import annotations

from typing import Mapping

from ccbench.specification.metrics import SPEEDUP, SPEEDUP_OF
from ccbench.specification.programs import ENGINE, PROGRAMS, Program
from ccbench.specification.schema import VARIANT_REFERENCE


def program_of(document: Mapping) -> Program:
    return PROGRAMS[document.get("program", ENGINE)]


def run_series(document: Mapping) -> list[tuple[int, dict]]:
    """(index, series) of the series whose points run (every series but the reference ones, whose points
    are read from a data file: reference.py)."""
    return [(index, series) for index, series in enumerate(document["series"])
            if series.get("variant") != VARIANT_REFERENCE]


def profile_parameters(document: Mapping, profile_name: str, profile_base: Mapping) -> tuple[dict, dict[str, list]]:
    """The figure's fixed parameters and swept axes under one profile: the figure's base, the profile
    file's base (engine figures only), then the figure's own override for that profile."""
    override = document.get("profiles", {}).get(profile_name, {})
    run_length = profile_base if program_of(document).takes_profile_base else {}
    base = {**document["base"], **run_length, **override.get("base", {})}
    axes = {**document.get("axes", {}), **override.get("axes", {})}
    return base, axes


def figure_metrics(document: Mapping, axes: Mapping[str, list]) -> list[str]:
    """Every metric the tidy table carries: the program's defaults, plotted, claimed and listed ones."""
    plot = document["plot"]
    claims = document.get("claims", [])
    breakdown = document.get("breakdown") or {}
    wanted = [*program_of(document).table_metrics, *([plot["y"]] if isinstance(plot["y"], str) else plot["y"]),
              *document.get("metrics", []),
              *(claim["metric"] for claim in claims if "metric" in claim),
              *(metric for claim in claims for metric in claim.get("others", [])),
              *(claim[side] for claim in claims
                for side in ("numerator_metric", "denominator_metric") if side in claim),
              *(part["metric"] for part in breakdown.get("parts", []))]
    for one in (plot, *document.get("views", [])):
        if one is not plot:
            wanted.extend([one["y"]] if isinstance(one["y"], str) else one["y"])
        if one["kind"] == "scatter" and one["x"] not in axes:
            wanted.append(one["x"])
        if "hline" in one:
            wanted.append(one["hline"]["metric"])
    if SPEEDUP in wanted:   # computed from the table's throughput (metrics.py)
        wanted.insert(wanted.index(SPEEDUP), SPEEDUP_OF)
    return list(dict.fromkeys(wanted))
