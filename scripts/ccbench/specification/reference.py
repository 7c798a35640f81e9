"""Reference series: a figure's curves read from a data file of real measurements, not run.

A figure's `reference_data` names data files (CSV, relative to the configs
directory; e.g. configs/reference/1000-cores/, DBx1000 on a 28-core-per-socket
machine) and, for each, the rows every curve of it shares (`rows`), the column
that gives each axis of the figure (`axes`: threads -> Threads), the axis values it was
measured at where it covers only part of the sweep (`covers`: threads -> [1, ..., 16] for a
16-core machine; points outside are not read), and the column
(times `scale`) that gives each field of a result document (`fields`:
throughput <- KTPS x 1000, commits <- txn_cnt, aborts <- abort_cnt). A series
with `variant: reference` picks its rows with `reference: {data, rows}` (e.g.
CC: SILO). Each of its points is the one row whose axis columns hold the
point's axis values (or, with `repeated_rows: mean`, the mean of each field over
the repeated runs there); its metrics
 are read from the document those fields make,
by the same code as a run's (metrics.metric_value), so a derived metric such
as abort_rate = aborts / (commits + aborts) means the same for both.

Every problem is a (field, message) pair naming the config field at fault: a
missing or unreadable file (with its path), a column the file lacks (with the
columns it has), a filter that selects no row or more than one row at a point,
a cell that is not a number.
"""
from __future__ import annotations

import csv
import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from ccbench.specification.schema import VARIANT_REFERENCE

DEFAULT_SEPARATOR = ","


@dataclass(frozen=True)
class DataTable:
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class ReferencePoint:
    """One point of a reference series: its axis values and the result document its row gives."""
    series: str
    coords: tuple[tuple[str, object], ...]   # (axis, value) for every swept axis, in the figure's order
    document: dict
    source: str                              # the data file, as the config names it


class UnreadableData(Exception):
    pass


@lru_cache(maxsize=None)
def read_table(path: Path, separator: str) -> DataTable:
    """The file's header and rows (every cell a string). Raises UnreadableData saying why."""
    if not path.is_file():
        raise UnreadableData(f"no such file: {path}")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter=separator)
            rows = tuple(reader)
            columns = tuple(reader.fieldnames or ())
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UnreadableData(f"cannot read {path}: {error}") from error
    if len(columns) < 2:
        raise UnreadableData(f"{path} has {len(columns)} column(s) with separator {separator!r}: is the separator "
                             f"right? (reference_data.<name>.separator, default {DEFAULT_SEPARATOR!r})")
    short = next((index for index, row in enumerate(rows) if None in row.values() or None in row), None)
    if short is not None:
        raise UnreadableData(f"{path}: data row {short + 1} does not have the header's {len(columns)} columns")
    return DataTable(columns, rows)


def cell_number(cell: str) -> float | None:
    try:
        value = float(cell)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def cell_matches(cell: str, wanted: object) -> bool:
    """Whether a cell holds a filter's or an axis' value: booleans as True/False in any case, numbers by
    value (4 matches "4" and "4.0"), text exactly."""
    if isinstance(wanted, bool):
        return cell.strip().lower() == ("true" if wanted else "false")
    if isinstance(wanted, (int, float)):
        number = cell_number(cell)
        return number is not None and math.isclose(number, float(wanted), rel_tol=1e-9, abs_tol=1e-12)
    return cell == wanted


def _same_value(value: object, covered: object) -> bool:
    if isinstance(value, bool) or isinstance(covered, bool):
        return value is covered
    if isinstance(value, (int, float)) and isinstance(covered, (int, float)):
        return math.isclose(float(value), float(covered), rel_tol=1e-9, abs_tol=1e-12)
    return value == covered


def _describe(filters: Mapping[str, object]) -> str:
    return ", ".join(f"{column} = {value!r}" for column, value in filters.items())


def _values_of(rows, column: str) -> str:
    values = sorted({row[column] for row in rows}, key=lambda cell: (cell_number(cell) is None, cell_number(cell) or 0,
                                                                      cell))
    return ", ".join(values) if values else "none"


def _unknown_column(column: str, table: DataTable) -> str:
    return f"no column '{column}' in the data; its columns: {', '.join(table.columns)}"


def _nested(fields: Mapping[str, float]) -> dict:
    """{"throughput": 1.0, "latency_us.p99": 2.0} -> {"throughput": 1.0, "latency_us": {"p99": 2.0}}."""
    document: dict = {}
    for name, value in fields.items():
        *parents, leaf = name.split(".")
        node = document
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    return document


def _read_data(name: str, spec: dict, configs_root: Path, axes: Mapping[str, list],
               problems: list[tuple[str, str]]) -> DataTable | None:
    """The table of reference_data.<name>, its columns checked; None (with problems) if it cannot be used."""
    where = f"reference_data.{name}"
    try:
        table = read_table((configs_root / spec["file"]).resolve(), spec.get("separator", DEFAULT_SEPARATOR))
    except UnreadableData as error:
        problems.append((f"{where}.file", f"{error} (the path is relative to the configs directory, "
                                          f"{configs_root.resolve()})"))
        return None
    found = len(problems)
    for column in spec.get("rows", {}):
        if column not in table.columns:
            problems.append((f"{where}.rows.{column}", _unknown_column(column, table)))
    for axis, column in spec["axes"].items():
        if axis not in axes:
            problems.append((f"{where}.axes.{axis}", f"'{axis}' is not an axis of this figure; axes: "
                                                     f"{', '.join(axes) or 'none'}"))
        elif column not in table.columns:
            problems.append((f"{where}.axes.{axis}", _unknown_column(column, table)))
    for axis in spec.get("covers", {}):
        if axis not in spec["axes"]:
            problems.append((f"{where}.covers.{axis}", f"'{axis}' is not one of this data's axes; its axes: "
                                                       f"{', '.join(spec['axes'])}"))
    for axis in axes:
        if axis not in spec["axes"]:
            problems.append((f"{where}.axes", f"no column for the figure's axis '{axis}': a reference point needs "
                                              f"the value of every axis (e.g. {axis}: <column>)"))
    for field, mapping in spec["fields"].items():
        if mapping["column"] not in table.columns:
            problems.append((f"{where}.fields.{field}.column", _unknown_column(mapping["column"], table)))
    return table if len(problems) == found else None


def _curve_points(index: int, series: dict, spec: dict, table: DataTable, axes: Mapping[str, list],
                  profile: str, problems: list[tuple[str, str]]) -> list[ReferencePoint]:
    """The points of series[index] (a reference series of that data) at every combination of the axes."""
    where = f"series[{index}].reference"
    data = series["reference"]["data"]
    own = series["reference"]["rows"]
    unknown = [column for column in own if column not in table.columns]
    for column in unknown:
        problems.append((f"{where}.rows.{column}", _unknown_column(column, table)))
    if unknown:
        return []
    filters = {**spec.get("rows", {}), **own}
    selected = [row for row in table.rows if all(cell_matches(row[column], value) for column, value in filters.items())]
    if not selected:
        choices = "; ".join(f"{column} takes {_values_of(table.rows, column)}" for column in filters)
        problems.append((f"{where}.rows", f"no row of {spec['file']} has {_describe(filters)} (with "
                                          f"reference_data.{data}.rows); {choices}"))
        return []
    points = []
    names = list(axes)
    covers = spec.get("covers", {})
    for values in itertools.product(*(axes[name] for name in names)):
        coords = tuple(zip(names, values))
        if any(axis in covers and not any(_same_value(value, covered) for covered in covers[axis])
               for axis, value in coords):
            continue   # outside what the data measured (reference_data.<name>.covers): no point, not a problem
        rows = [row for row in selected if all(cell_matches(row[spec["axes"][axis]], value) for axis, value in coords)]
        at = ", ".join(f"{axis}={value}" for axis, value in coords)
        if len(rows) != 1 and not (rows and spec.get("repeated_rows") == "mean"):
            if rows:
                message = (f"{len(rows)} rows of {spec['file']} with {_describe(filters)} are at {at}: add a column "
                           f"to rows (here or in reference_data.{data}.rows) that tells them apart, or, if they "
                           f"are repeated runs, set reference_data.{data}.repeated_rows: mean")
            else:
                message = (f"no row of {spec['file']} with {_describe(filters)} is at {at} (swept under profile "
                           f"{profile}); those rows have " + "; ".join(
                               f"{spec['axes'][axis]} {_values_of(selected, spec['axes'][axis])}" for axis in names))
            problems.append((f"{where}.rows", message))
            continue
        fields = {}
        for field, mapping in spec["fields"].items():
            numbers = [cell_number(row[mapping["column"]]) for row in rows]
            bad = next((row[mapping["column"]] for row, number in zip(rows, numbers) if number is None), None)
            if bad is not None:
                problems.append((f"reference_data.{data}.fields.{field}.column",
                                 f"{bad!r} in column {mapping['column']} (a row with "
                                 f"{_describe(filters)} at {at}) is not a number"))
                continue
            fields[field] = sum(numbers) / len(numbers) * mapping.get("scale", 1)   # repeated_rows: mean

        points.append(ReferencePoint(series["name"], coords, _nested(fields), spec["file"]))
    return points


def reference_points(document: Mapping, configs_root: Path, axes: Mapping[str, list],
                     profile: str) -> tuple[list[ReferencePoint], list[tuple[str, str]]]:
    """(the points of every reference series at the swept axes, the problems found). `document` is the
    figure's (schema- and cross-field-checked), `axes` its axes under `profile` (named in messages)."""
    problems: list[tuple[str, str]] = []
    specs = document.get("reference_data", {})
    tables = {name: _read_data(name, spec, configs_root, axes, problems) for name, spec in specs.items()}
    points = []
    for index, series in enumerate(document["series"]):
        if series.get("variant") != VARIANT_REFERENCE or "reference" not in series:
            continue
        data = series["reference"]["data"]
        if data not in specs:
            problems.append((f"series[{index}].reference.data", f"'{data}' is not a name of reference_data; "
                                                               f"names: {', '.join(specs) or 'none'}"))
        elif tables[data] is not None:
            points += _curve_points(index, series, specs[data], tables[data], axes, profile, problems)
    return points, problems
