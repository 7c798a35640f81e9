"""Tidy tables of a figure: one row per run, and one row per (series, axis values).

The aggregated table has, for each metric m, the median of the successful
repetitions in column m and their range in m_min and m_max, plus the counts
runs_ok, runs_failed, runs_missing (not in the store) and runs_noisy (runs
during which other processes used the machine, load.py). The runs table says
per run whether it was simulated (docs/sim.md) and its wall time. A reference
series' points (reference.py) are rows too, one per point, `reference` true,
with the metrics of the measured data: everything after the tables (plots,
claims, the report) treats them as any point. `speedup` (metrics.py) is a
column of the aggregated table, computed from its throughput medians.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ccbench.fileio import write_atomically
from ccbench.load import is_noisy
from ccbench.run.engine import STATUS_OK
from ccbench.run.interface import check_metrics_reported
from ccbench.run.store import ResultStore
from ccbench.specification.config import ResolvedFigure
from ccbench.specification.crossfield import breakdown_columns
from ccbench.specification.metrics import SPEEDUP, SPEEDUP_OF, metric_value, speedup_baseline

STATUS_MISSING = "missing"


def runs_table(figure: ResolvedFigure, store: ResultStore, template: str) -> pd.DataFrame:
    """`template`: the command template of the figure's program, as the keys were made with.

    One row per run: the figure's repetitions of each point (missing ones too), then any further
    repetitions the store holds for the point (added by --until-decided), up to the profile's
    max_repetitions. `noisy` says whether the machine was busy with other work during the run."""
    labels = {series.name: series.label for series in figure.config.series}
    metrics = run_metrics(figure)
    derived = figure.config.program.derived
    rows, results = [], []

    def add(point, key: str, record: dict | None) -> None:
        status = record["status"] if record else STATUS_MISSING
        result = record.get("result") if record and status == STATUS_OK else None
        if result is not None:
            results.append(result)
        machine = (record or {}).get("node") or {}      # records made before they described their machine: none
        row = {"series": point.series, "series_label": labels[point.series], **dict(point.coords),
               "repetition": point.repetition, "key": key, "status": status,
               "failure": record.get("failure") if record else None, "noisy": is_noisy(record),
               "simulated": point.simulated, "reference": False, "wall_s": (record or {}).get("wall_s"),
               "host": machine.get("hostname"), "cpu_model": machine.get("cpu_model")}
        row.update({metric: metric_value(result, metric, derived) for metric in metrics})
        rows.append(row)

    for point in figure.points():
        key = point.key(template)
        add(point, key, store.get(key))
        if point.repetition == figure.repetitions - 1:
            for repetition in range(figure.repetitions, figure.max_repetitions):
                extra = point.with_repetition(repetition)
                record = store.get(extra.key(template))
                if record is None:
                    break
                add(extra, extra.key(template), record)
    for reference in figure.reference_points():   # the measured curves: one row per point, from the data
        rows.append({"series": reference.series, "series_label": labels[reference.series], **dict(reference.coords),
                     "repetition": 0, "key": None, "status": STATUS_OK, "failure": None, "noisy": False,
                     "simulated": False, "reference": True, "wall_s": None, "host": None,
                     "cpu_model": f"measured data: {reference.source}",
                     **{metric: metric_value(reference.document, metric, derived) for metric in metrics}})
    # A metric no run reports is a config error, not an empty plot (the breakdown's columns and the speedup are
    # the harness's). The reference data's documents are not runs: only the runs say what the program reports.
    breakdown = figure.config.breakdown
    check_metrics_reported(figure, results, computed=[SPEEDUP, *(breakdown_columns(breakdown) if breakdown else [])])
    return pd.DataFrame(rows)


def run_metrics(figure: ResolvedFigure) -> list[str]:
    """The metrics each run (and reference point) has: the figure's, but those computed from the table."""
    return [metric for metric in figure.metrics() if metric != SPEEDUP]


def aggregate(runs: pd.DataFrame, figure: ResolvedFigure) -> pd.DataFrame:
    group_columns = ["series", *figure.axes]
    rows = []
    for values, group in runs.groupby(group_columns, sort=False):
        values = values if isinstance(values, tuple) else (values,)
        ok = group[group["status"] == STATUS_OK]
        row = dict(zip(group_columns, values))
        row["series_label"] = group["series_label"].iloc[0]
        row["runs_ok"] = len(ok)
        row["runs_failed"] = int((group["status"] == "failed").sum())
        row["runs_missing"] = int((group["status"] == STATUS_MISSING).sum())
        row["runs_noisy"] = int(group["noisy"].sum())
        for metric in run_metrics(figure):
            column = ok[metric].dropna()
            row[metric] = column.median() if len(column) else float("nan")
            row[f"{metric}_min"] = column.min() if len(column) else float("nan")
            row[f"{metric}_max"] = column.max() if len(column) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def add_speedup(table: pd.DataFrame, figure: ResolvedFigure) -> pd.DataFrame:
    """`speedup` (metrics.py): each point's throughput median over the median of the same series and other
    axes at one thread; speedup_min and speedup_max are the point's throughput range over that median. No
    one-thread point, or a zero there, leaves the speedup NaN (no data)."""
    table = table.copy()
    axes = list(figure.axes)

    def baseline(row: pd.Series) -> float:
        context = speedup_baseline({axis: row[axis] for axis in axes})
        mask = table["series"] == row["series"]
        for axis, value in context.items():
            mask &= table[axis] == value
        found = table.loc[mask, SPEEDUP_OF]
        return float(found.iloc[0]) if not found.empty and float(found.iloc[0]) != 0 else math.nan

    base = table.apply(baseline, axis=1) if len(table) else pd.Series(dtype=float)
    for suffix in ("", "_min", "_max"):
        table[SPEEDUP + suffix] = table[SPEEDUP_OF + suffix] / base
    return table


def breakdown_values(breakdown: dict, value: Callable[[str, str], object]) -> dict[str, object]:
    """The subject's breakdown at one point, {column: value} in the order of breakdown_columns:
      gap  = 100 * (1 - subject / baseline)       (of the breakdown's metric, default throughput)
      part = 100 * the part's metric on its series (a fraction of worker time)
      rest = gap - sum(parts)
    so the parts and the rest sum to the measured gap by construction. value(series, metric) gives a
    number or a numpy array (claims.py: a median and its bootstrap replicates); a zero or missing
    baseline gives NaN."""
    metric = breakdown.get("metric", "throughput")
    baseline = np.asarray(value(breakdown["baseline"], metric), dtype=float)
    subject = np.asarray(value(breakdown["subject"], metric), dtype=float)
    usable = (baseline != 0) & ~np.isnan(baseline)
    gap = np.where(usable, 100.0 * (1.0 - subject / np.where(usable, baseline, 1.0)), math.nan)
    parts = [100.0 * np.asarray(value(part["series"], part["metric"]), dtype=float) for part in breakdown["parts"]]
    return dict(zip(breakdown_columns(breakdown), [gap, *parts, gap - sum(parts)]))


def add_breakdown(table: pd.DataFrame, figure: ResolvedFigure) -> pd.DataFrame:
    """bcc-tab1: the subject's slowdown against the baseline, in percent, split into parts
    (breakdown_values), on the subject's rows, from the medians. A value it needs that is missing
    leaves the point's columns NaN (no data). Medians are combined, so the _min/_max columns equal
    the value."""
    breakdown = figure.config.breakdown
    columns = breakdown_columns(breakdown)
    table = table.copy()
    for column in columns:
        for suffix in ("", "_min", "_max"):
            table[column + suffix] = math.nan
    axes = list(figure.axes)

    def value(series: str, row: pd.Series, column: str) -> float:
        mask = table["series"] == series
        for axis in axes:
            mask &= table[axis] == row[axis]
        found = table.loc[mask, column] if column in table.columns else pd.Series(dtype=float)
        return float(found.iloc[0]) if not found.empty else math.nan

    for index, row in table[table["series"] == breakdown["subject"]].iterrows():
        numbers = breakdown_values(breakdown, lambda series, metric: value(series, row, metric))
        for column, number in numbers.items():
            for suffix in ("", "_min", "_max"):
                table.at[index, column + suffix] = float(number)
    return table


@dataclass
class FigureTables:
    runs: pd.DataFrame
    table: pd.DataFrame
    runs_path: Path
    table_path: Path

    @property
    def run_rows(self) -> pd.DataFrame:
        """The runs table without the reference series' rows (measured data, not runs)."""
        return self.runs[~self.runs["reference"].astype(bool)]

    @property
    def has_data(self) -> bool:
        """Whether some run succeeded (a reference series alone is not a result of this figure's runs)."""
        return bool((self.run_rows["status"] == STATUS_OK).any())

    def failures(self) -> list[str]:
        failed = self.runs[self.runs["status"] == "failed"]
        return sorted(set(failed["failure"].dropna()))

    def simulation_wall_s(self) -> tuple[float, int]:
        """(wall seconds, runs) of the simulated runs stored ok: what the simulation cost on this machine."""
        simulated = self.runs[(self.runs["status"] == STATUS_OK) & self.runs["simulated"].astype(bool)]
        return float(simulated["wall_s"].fillna(0).sum()), len(simulated)

    def noisy_counts(self) -> tuple[int, int]:
        """(noisy runs, points with at least one noisy run)."""
        return int(self.runs["noisy"].sum()), int((self.table["runs_noisy"] > 0).sum())


def build_tables(figure: ResolvedFigure, store: ResultStore, template: str, tables_dir: Path) -> FigureTables:
    runs = runs_table(figure, store, template)
    table = aggregate(runs, figure)
    if figure.config.breakdown:
        table = add_breakdown(table, figure)
    if SPEEDUP in figure.metrics():
        table = add_speedup(table, figure)
    runs_path = tables_dir / f"{figure.figure_id}.runs.csv"
    table_path = tables_dir / f"{figure.figure_id}.csv"
    write_atomically(runs_path, lambda temp: runs.to_csv(temp, index=False))
    write_atomically(table_path, lambda temp: table.to_csv(temp, index=False))
    return FigureTables(runs, table, runs_path, table_path)
