"""Cross-field rules of the figure configs: what the schema (schema.py) cannot
express, checked for every profile when config.py loads a figure.

Each rule names the field at fault and what is allowed, in the format of the
schema's errors: parameters both swept and fixed, a figure setting what a
profile file sets, series and view names, plots (x an axis, options of their
kind), breakdowns, claims (their series, axes, bounds and selectors), the
points' special values (protocol names, threads, rows), and that every metric
the figure names is one its program's result document can have.
"""
from __future__ import annotations

import re
from typing import Mapping

from ccbench.specification import schema
from ccbench.specification.document import figure_metrics, profile_parameters, program_of, run_series
from ccbench.specification.metrics import SPEEDUP, SPEEDUP_AXIS, SPEEDUP_BASE, SPEEDUP_OF
from ccbench.specification.programs import ENGINE, PROGRAMS, Program
from ccbench.specification.result_fields import can_report, metric_origins

CC_NAME_CHARACTERS = set("abcdefghijklmnopqrstuvwxyz0123456789_")
TIMESERIES_X = "time"   # a timeseries' x: seconds since the start of the measured interval
AXIS_EXTREMES = ("max", "min", "all")
# Columns of the tidy tables (tables.py); an axis of the same name would clash.
RESERVED_AXIS_NAMES = {"series", "series_label", "repetition", "key", "status", "failure", "noisy", "simulated",
                       "reference",
                       "wall_s", "host", "cpu_model", "runs_ok", "runs_failed", "runs_missing", "runs_noisy",
                       *(metric for program in PROGRAMS.values() for metric in program.table_metrics)}


class ConsistencyChecker:
    """Cross-field rules the schema cannot express, checked for every profile.

    It reads plain data: the figure's document (schema-checked, its fragment merged) and the profiles,
    {name: {"base": the profile file's base, "file": its path, for messages}}."""

    def __init__(self, document: dict, profiles: Mapping[str, Mapping]):
        self.document = document
        self.profiles = profiles
        self.program = program_of(document)
        self.found: list[tuple[str, str]] = []

    def _parameters(self, profile_name: str) -> tuple[dict, dict[str, list]]:
        """The figure's fixed parameters and axes under one profile."""
        return profile_parameters(self.document, profile_name, self.profiles[profile_name]["base"])

    def _metrics(self, profile_name: str) -> list[str]:
        return figure_metrics(self.document, self._parameters(profile_name)[1])

    def problems(self) -> list[tuple[str, str]]:
        self._check_profile_names()
        if self.found:
            return self.found
        self._check_series_kinds()
        if self.found:
            return sorted(set(self.found))
        self._check_parameter_overlaps()
        self._check_series_names()
        self._check_plot()
        self._check_breakdown()
        self._check_claims()
        self._check_deterministic_metrics()
        self._check_speedup()
        for name in self.profiles:
            self._check_points(name)
            self._check_variants(name)
        self._check_metrics_reportable()
        return sorted(set(self.found))

    def _add(self, where: str, message: str) -> None:
        self.found.append((where, message))

    def _all_axes(self) -> dict[str, list[list]]:
        """axis -> its value list under each profile."""
        overrides = self.document.get("profiles", {})
        return {axis: [overrides.get(p, {}).get("axes", {}).get(axis, values) for p in self.profiles]
                for axis, values in self.document.get("axes", {}).items()}

    def _check_profile_names(self) -> None:
        known = sorted(self.profiles)
        for name in self.document.get("profiles", {}):
            if name not in self.profiles:
                self._add(f"profiles.{name}", f"unknown profile; profiles: {', '.join(known)}")

    def _check_parameter_overlaps(self) -> None:
        axes = self.document.get("axes", {})
        set_by_profiles = ({key: name for name, p in self.profiles.items() for key in p["base"]}
                           if self.program.takes_profile_base else {})
        for axis in axes:
            if axis in RESERVED_AXIS_NAMES:
                self._add(f"axes.{axis}", f"'{axis}' is a column of the result tables; it cannot be an axis")
        for key in self.document["base"]:
            if key in axes:
                self._add(f"base.{key}", "is swept in axes; remove it from base")
            elif key in set_by_profiles:
                self._add(f"base.{key}", f"is set by the profile files (e.g. {set_by_profiles[key]}); "
                          f"set it per profile under profiles.<name>.base instead")
        for index, series in run_series(self.document):
            for key in series["params"]:
                if key in axes:
                    self._add(f"series[{index}].params.{key}", "is swept in axes; a series may not fix it")
        for key, axis in self.document.get("follow", {}).items():
            if axis not in axes:
                self._add(f"follow.{key}", f"follows '{axis}', which is not an axis; axes: {', '.join(axes) or 'none'}")
            if key in axes or key in self.document["base"] or any(key in s["params"] for _, s in run_series(self.document)):
                self._add(f"follow.{key}", "is set by its axis at every point; remove it from axes, base and series")
        for name, override in self.document.get("profiles", {}).items():
            for key in override.get("axes", {}):
                if key not in axes:
                    self._add(f"profiles.{name}.axes.{key}",
                              f"is not an axis of this figure; axes: {', '.join(axes) or 'none'}")
            for key in override.get("base", {}):
                if key in axes:
                    self._add(f"profiles.{name}.base.{key}", "is swept in axes; override its values under axes")

    def _check_series_kinds(self) -> None:
        """A run series has params (its points run); a reference series (variant: reference) has a
        `reference` instead (its points are read from reference_data; reference.py)."""
        for index, series in enumerate(self.document["series"]):
            where = f"series[{index}]"
            if series.get("variant") == schema.VARIANT_REFERENCE:
                if "reference" not in series:
                    self._add(where, "missing required field 'reference' (variant reference: the series' rows of "
                              "a reference_data file, {data: <name>, rows: {<column>: <value>}})")
                if "params" in series:
                    self._add(f"{where}.params", "not allowed with variant reference: its points are read from "
                              "its reference data, not run; remove params")
            else:
                if "params" not in series:
                    self._add(where, "missing required field 'params'")
                if "reference" in series:
                    self._add(f"{where}.reference", f"only with variant: {schema.VARIANT_REFERENCE} (a series read "
                              f"from a data file); this series runs ({series.get('variant', 'the profile variant')})")
        if not run_series(self.document):
            self._add("series", "every series is a reference series: a figure needs at least one series that runs")
        if self.document.get("reference_data") and not any(
                series.get("variant") == schema.VARIANT_REFERENCE for series in self.document["series"]):
            self._add("reference_data", "no series reads it: add a series with variant: reference, or remove it")

    def _check_series_names(self) -> None:
        seen = set()
        for index, series in enumerate(self.document["series"]):
            if series["name"] in seen:
                self._add(f"series[{index}].name", f"duplicate series name '{series['name']}'")
            seen.add(series["name"])

    def _check_plot(self) -> None:
        self._check_one_plot(self.document["plot"], "plot")
        names = set()
        for index, view in enumerate(self.document.get("views", [])):
            self._check_one_plot(view, f"views[{index}]")
            if view["name"] in names:
                self._add(f"views[{index}].name", f"duplicate view name '{view['name']}'")
            names.add(view["name"])

    def _check_one_plot(self, plot: dict, where: str) -> None:
        axes = list(self.document.get("axes", {}))
        kind, x, y = plot["kind"], plot["x"], plot["y"]
        allowed_x = axes + (["series"] if kind in ("bar", "grouped_bar", "stacked_bar", "table") else [])
        if kind == "timeseries":   # seconds of the measured interval, not an axis
            allowed_x = [TIMESERIES_X]
            if self.program.name != ENGINE:
                self._add(f"{where}.kind", f"timeseries draws the engine's per-second timeline; program "
                          f"{self.program.name} writes none")
        if "phases" in plot and kind != "timeseries":
            self._add(f"{where}.phases", f"only for kind timeseries, not {kind}")
        if x not in allowed_x and not (kind == "scatter" and schema_metric(x)):
            extra = "; or a metric for scatter" if kind == "scatter" else ""
            self._add(f"{where}.x", f"'{x}' is not allowed; allowed: {', '.join(allowed_x) or 'no axes defined'}{extra}")
        if isinstance(y, list) and kind not in schema.MULTI_METRIC_PLOTS:
            self._add(f"{where}.y", f"a list of metrics needs kind {' or '.join(schema.MULTI_METRIC_PLOTS)}; "
                      f"kind {kind} plots one metric")
        if "y_labels" in plot and (not isinstance(y, list) or len(plot["y_labels"]) != len(y)):
            self._add(f"{where}.y_labels", "needs one label per metric of a list-valued plot.y")
        if "label_points" in plot:
            if kind != "scatter":
                self._add(f"{where}.label_points", f"only for kind scatter, not {kind}")
            elif plot["label_points"] not in axes:
                self._add(f"{where}.label_points",
                          f"'{plot['label_points']}' is not an axis; axes: {', '.join(axes) or 'none'}")
        if "hline" in plot and kind != "line":
            self._add(f"{where}.hline", f"only for kind line, not {kind}")
        series_names = [s["name"] for s in self.document["series"]]
        if "shown_series" in plot and kind != "table":
            self._add(f"{where}.shown_series", f"only a table shows a subset of the series; kind {kind} shows all")
        for name in plot.get("shown_series", []):
            if name not in series_names:
                self._add(f"{where}.shown_series", f"'{name}' is not a series of this figure; series: "
                          f"{', '.join(series_names)}")

    def _check_breakdown(self) -> None:
        breakdown = self.document.get("breakdown")
        if breakdown is None:
            return
        series_names = [s["name"] for s in self.document["series"]]
        references = [("baseline", breakdown["baseline"]), ("subject", breakdown["subject"]),
                      *((f"parts[{i}].series", part["series"]) for i, part in enumerate(breakdown["parts"]))]
        for where, name in references:
            if name not in series_names:
                self._add(f"breakdown.{where}", f"'{name}' is not a series of this figure; series: "
                          f"{', '.join(series_names)}")
        if breakdown["baseline"] == breakdown["subject"]:
            self._add("breakdown.subject", "must differ from breakdown.baseline: a slowdown compares two series")
        names = [part["name"] for part in breakdown["parts"]] + [breakdown.get("rest", "others")]
        if len(set(names)) != len(names):
            self._add("breakdown.parts", f"part names and rest must differ; got {', '.join(names)}")

    def _check_claims(self) -> None:
        series_names = [s["name"] for s in self.document["series"]]
        all_axes = self._all_axes()
        plot = self.document["plot"]
        seen_ids = set()
        for index, claim in enumerate(self.document.get("claims", [])):
            where = f"claims[{index}]"
            if claim["id"] in seen_ids:
                self._add(f"{where}.id", f"duplicate claim id '{claim['id']}'")
            seen_ids.add(claim["id"])
            if claim["check"] == "conditional" and "condition" not in claim:
                self._add(f"{where}.condition", "required when check is conditional: say what the claim needs")
            if "expected_here" in claim and "reason" not in claim:
                self._add(f"{where}.reason", "required with expected_here: say why the claim cannot hold here "
                          "(e.g. it needs 16 cores)")
            for profile in claim.get("causes", {}):
                if profile not in self.profiles:
                    self._add(f"{where}.causes.{profile}", f"unknown profile; profiles: {', '.join(sorted(self.profiles))}")
            if "causes" in claim and claim["check"] == "absolute":
                self._add(f"{where}.causes", "only for an asserted claim (check trend or conditional): an absolute "
                          "claim is reported, never asserted, so it has no failure to explain")
            if "reason" in claim and "expected_here" not in claim:
                self._add(f"{where}.reason", "only with expected_here: fail (the reason a claim is expected to fail "
                          "here)")
            names_both_metrics = "numerator_metric" in claim and "denominator_metric" in claim
            if "metric" not in claim and isinstance(plot["y"], list) and not names_both_metrics:
                self._add(f"{where}.metric", "required: plot.y is a list, so say which metric the claim is about")
            if "metric" not in claim and plot["kind"] == "timeseries" and not names_both_metrics:
                self._add(f"{where}.metric", "required: a timeseries' y is an array, so say which metric the claim "
                          "is about (e.g. throughput, phase_throughput_cv)")
            for field_name, names in series_references(claim):
                for name in names:
                    if name not in series_names:
                        self._add(f"{where}.{field_name}",
                                  f"'{name}' is not a series of this figure; series: {', '.join(series_names)}")
            if "op" in claim:
                self._check_bound(where, claim)
            if claim["kind"] == "peak" and "margin" in claim and "tolerance" in claim:
                self._add(f"{where}.margin", "not together with tolerance: a margin asks the peak to lead, "
                          "a tolerance lets it trail; give one")
            along = claim.get("along", plot["x"]) if claim["kind"] in ("monotone", "scaling", "interior_optimum", "peak") else None
            if along is not None and along not in all_axes:
                self._add(f"{where}.along", f"'{along}' is not an axis; axes: {', '.join(all_axes) or 'none'}")
            elif claim["kind"] == "scaling" and not all(_is_number(v) and v > 0 for vs in all_axes[along] for v in vs):
                self._add(f"{where}.along", f"'{along}' is not an axis of positive numbers; scaling needs them "
                          f"(e.g. threads)")
            if claim["kind"] == "scaling":
                self._check_scaling_range(where, claim)
            if claim["kind"] == "monotone" and "series" in claim and "ratio" in claim:
                self._add(f"{where}", "give either series or ratio, not both")
            if claim["kind"] == "matches":
                along = self._check_matches(where, claim, series_names, all_axes)
            if claim["kind"] == "peak" and along in all_axes:
                for profile, values in zip(self.profiles, all_axes[along]):
                    if claim["peak_at"] not in values or len(values) < 2:
                        self._add(f"{where}.peak_at", f"{claim['peak_at']!r} and another value of '{along}' must "
                                  f"be swept under every profile; profile {profile} sweeps {values}")
            for axis, value in claim.get("at", {}).items():
                for one in value if isinstance(value, list) else [value]:
                    self._check_selector(f"{where}.at.{axis}", axis, one, all_axes, along)

    def _check_speedup(self) -> None:
        """speedup is a series' throughput over its own at threads = 1 (metrics.py): the figure must sweep
        threads, with 1, under every profile."""
        metrics = {metric for name in self.profiles for metric in self._metrics(name)}
        if SPEEDUP not in metrics:
            return
        all_axes = self._all_axes()
        if SPEEDUP_AXIS not in all_axes:
            problem = f"the figure does not sweep {SPEEDUP_AXIS}; axes: {', '.join(all_axes) or 'none'}"
        else:
            without = [f"{profile} sweeps {values}" for profile, values in zip(self.profiles, all_axes[SPEEDUP_AXIS])
                       if SPEEDUP_BASE not in values]
            problem = f"{SPEEDUP_BASE} is not swept under every profile: {'; '.join(without)}" if without else None
        if problem:
            for place in metric_origins(self.document, SPEEDUP) or ["metrics"]:
                self._add(place, f"'{SPEEDUP}' is {SPEEDUP_OF} over the same series' {SPEEDUP_OF} at "
                          f"{SPEEDUP_AXIS}={SPEEDUP_BASE}: it needs {SPEEDUP_AXIS} swept with {SPEEDUP_BASE} "
                          f"under every profile; {problem}")

    def _check_deterministic_metrics(self) -> None:
        if not self.profiles or "deterministic_metrics" not in self.document:
            return
        known = self._metrics(next(iter(self.profiles)))
        for index, metric in enumerate(self.document["deterministic_metrics"]):
            if metric not in known:
                self._add(f"deterministic_metrics[{index}]", f"'{metric}' is not a metric of this figure's table; "
                          f"metrics: {', '.join(known)}")

    def _check_scaling_range(self, where: str, claim: dict) -> None:
        """`to` (one end value) and `up_to` (every value up to it) are two ways to pick the values checked; the
        end lies above the start."""
        if "to" in claim and "up_to" in claim:
            self._add(f"{where}.to", "not together with up_to: to checks one value, up_to every value up to it; "
                      "give one")
        start = claim.get("from")
        for name in ("to", "up_to"):
            end = claim.get(name)
            if start is not None and _is_number(end) and end <= start:
                self._add(f"{where}.{name}", f"{end} is not above from ({start}): the efficiency is measured "
                          "from the start to a higher value")

    def _check_bound(self, where: str, claim: dict) -> None:
        bound = claim["bound"]
        if claim["op"] == "between":
            if not isinstance(bound, list):
                self._add(f"{where}.bound", "op between needs bound: [low, high]")
            elif bound[0] > bound[1]:
                self._add(f"{where}.bound", f"{bound} is empty: low must be <= high")
        elif isinstance(bound, list):
            self._add(f"{where}.bound", f"a [low, high] bound needs op between; op {claim['op']} takes one number")

    def _check_matches(self, where: str, claim: dict, series_names: list[str], all_axes: dict) -> str | None:
        """Check a matches claim's `by` and `expected`; return the axis it matches along (None: by series)."""
        plot_x = self.document["plot"]["x"]
        by = claim.get("by", plot_x)
        if by == "series":
            if "series" in claim:
                self._add(f"{where}.series", "matches by series names its series in expected; remove series")
            for name in claim["expected"]:
                if name not in series_names:
                    self._add(f"{where}.expected.{name}",
                              f"'{name}' is not a series of this figure; series: {', '.join(series_names)}")
            return None
        if by not in all_axes:
            self._add(f"{where}.by", f"'{by}' is not allowed; allowed: series, {', '.join(all_axes) or 'no axes'}")
            return None
        for value in claim["expected"]:
            for profile, values in zip(self.profiles, all_axes[by]):
                if value not in values:
                    self._add(f"{where}.expected.{value}",
                              f"{value!r} is not a value of {by} swept under profile {profile} (values: {values})")
        return by

    def _check_selector(self, where: str, axis: str, value: object, all_axes: dict, along: str | None) -> None:
        if axis not in all_axes:
            self._add(where, f"'{axis}' is not an axis; axes: {', '.join(all_axes) or 'none'}")
        elif axis == along:
            self._add(where, "is the axis the claim runs along; it cannot also be fixed")
        elif value in AXIS_EXTREMES:
            if value != "all" and not all(_is_number(v) for values in all_axes[axis] for v in values):
                self._add(where, f"'{value}' needs a numeric axis")
        else:
            for profile, values in zip(self.profiles, all_axes[axis]):
                if value not in values:
                    self._add(where, f"{value!r} is not swept under profile {profile} (values: {values}); "
                              f"use a swept value or one of {', '.join(AXIS_EXTREMES)}")

    def _check_points(self, profile_name: str) -> None:
        program = self.program
        base, axes = self._parameters(profile_name)
        for index, series in run_series(self.document):
            known = {**base, **series["params"], **{axis: None for axis in axes}}
            missing = [name for name in program.required_parameters if name not in known]
            if missing:
                self._add(f"series[{index}]", f"under profile {profile_name}, no value for {', '.join(missing)} "
                          f"({program.name} needs {', '.join(program.required_parameters)}; set it in base, "
                          f"the series' params or axes)")
                continue
            for name in (program.binary_parameter, program.threads_parameter, program.rows_parameter):
                if name is None or name not in known:
                    continue
                for value in axes.get(name, [known[name]]):
                    problem = _special_value_problem(program, name, value)
                    if problem:
                        self._add(self._origin(name, index, profile_name), problem)

    def _check_variants(self, profile_name: str) -> None:
        """A series that asks for the simulation (variant: sim) must be able to have it: a program with a
        simulation build, and no flag that selects another build variant (--profile: the profile build).
        Under a simulating profile such points are reported as not run instead (points.Point.unrunnable)."""
        program = self.program
        base, _ = self._parameters(profile_name)
        for index, series in enumerate(self.document["series"]):
            if series.get("variant") != schema.VARIANT_SIM:
                continue
            if not program.sim_build:
                with_build = ", ".join(name for name, other in PROGRAMS.items() if other.sim_build)
                self._add(f"series[{index}].variant", f"sim is not allowed for program {program.name}, which has "
                          f"no simulation build; allowed: native (sim: only {with_build})")
                return
            flags = {**base, **series["params"]}
            for name in program.variant_flags:
                if flags.get(name) is True:
                    self._add(f"series[{index}].variant", f"sim is not allowed with {name}: true under profile "
                              f"{profile_name} (the {name} build has no simulation); allowed: native, or drop {name}")

    def _check_metrics_reportable(self) -> None:
        """Every metric the figure plots, tabulates or claims is a field the program's result document can
        have (its schema in docs/result.schema.json), a metric the harness derives, or a breakdown column:
        a misspelt metric is refused now, not after the points ran."""
        program = self.program
        if not program.result_schema or self.found:
            return
        breakdown = self.document.get("breakdown")
        computed = {SPEEDUP, *(breakdown_columns(breakdown) if breakdown else [])}
        metrics = dict.fromkeys(metric for name in self.profiles for metric in self._metrics(name))
        for metric in metrics:
            if metric in program.derived or metric in computed or can_report(program.result_schema, metric):
                continue
            for place in metric_origins(self.document, metric) or ["metrics"]:
                self._add(place, f"'{metric}' is not a field of {program.name}'s result document "
                          f"(docs/result.schema.json, $defs.{program.result_schema}) nor a metric the harness "
                          f"derives ({', '.join(sorted(program.derived)) or 'none'}); nested fields are dotted, "
                          f"e.g. latency_us.p99")

    def _origin(self, name: str, series_index: int, profile_name: str) -> str:
        """The field a point's parameter value comes from, for error messages."""
        override = self.document.get("profiles", {}).get(profile_name, {})
        if name in self.document.get("axes", {}):
            in_override = name in override.get("axes", {})
            return f"profiles.{profile_name}.axes.{name}" if in_override else f"axes.{name}"
        if name in self.document["series"][series_index].get("params", {}):
            return f"series[{series_index}].params.{name}"
        if name in override.get("base", {}):
            return f"profiles.{profile_name}.base.{name}"
        if name in self.profiles[profile_name]["base"]:
            return f"{self.profiles[profile_name]['file']}: base.{name}"
        return f"base.{name}"


def breakdown_columns(breakdown: dict) -> list[str]:
    """The columns tables.add_breakdown writes: the gap, then each part, then the rest."""
    name = breakdown.get("name", "slowdown_pct")
    parts = [part["name"] for part in breakdown["parts"]] + [breakdown.get("rest", "others")]
    return [name, *(f"{name}.{part}" for part in parts)]


def _special_value_problem(program: Program, name: str, value: object) -> str | None:
    """What is wrong with the value of a parameter the harness itself interprets, if anything."""
    if name == program.binary_parameter and not (isinstance(value, str) and value
                                                 and set(value) <= CC_NAME_CHARACTERS):
        return (f"{value!r} is not a protocol name: {name} must be lower-case letters, digits and _ "
                f"(e.g. silo), as it names the binary {program.binary.replace('{cc}', f'<{name}>')}")
    if name == program.threads_parameter and not (isinstance(value, int) and not isinstance(value, bool)
                                                  and value >= 1):
        return f"{value!r} is not allowed: {name} must be a positive integer"
    if name == program.rows_parameter and value not in program.row_lists:
        return (f"{value!r} is not allowed: a point of {program.name} takes the rows of one of "
                f"{', '.join(program.row_lists)}")
    return None


def series_references(claim: dict) -> list[tuple[str, list[str]]]:
    references = []
    for field_name in ("numerator", "denominator", "series", "among", "ratio", "combined", "parts", "baseline",
                       "reference"):
        value = claim.get(field_name)
        if value is not None:
            references.append((field_name, [value] if isinstance(value, str) else list(value)))
    return references


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def schema_metric(name: str) -> bool:
    return re.fullmatch(schema.METRIC_NAME, name) is not None
