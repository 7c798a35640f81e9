"""JSON schemas of figure configs and profiles, and readable validation errors.

The schemas check structure only (field names, types, allowed values).
Cross-field rules (a claim names a series that exists, plot.x is an axis,
...) are checked in crossfield.py, which reports them in the same format.
"""
from __future__ import annotations

from typing import Iterable

import jsonschema

from ccbench.specification.programs import ENGINE, PROGRAMS

PARAMETER_NAME = "^[a-z][a-z0-9_]*$"
SERIES_NAME = "^[A-Za-z0-9][A-Za-z0-9_.+-]*$"
METRIC_NAME = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*$"
CLAIM_ID = "^[a-z0-9][a-z0-9_-]*$"

# Human words for the patterns above, used in error messages.
PATTERN_MEANING = {
    PARAMETER_NAME: "an engine flag name in lower_snake_case (e.g. table_size)",
    SERIES_NAME: "letters, digits and _ . + - (e.g. silo, TSKD-S)",
    METRIC_NAME: "a result-JSON field, dotted for nested ones (e.g. throughput, latency_us.p99)",
    CLAIM_ID: "lower-case letters, digits, _ and - (e.g. silo-beats-occ)",
}

SCALAR = {"type": ["string", "number", "boolean"]}
TEXT = {"type": "string", "minLength": 1}
POSITIVE_INT = {"type": "integer", "minimum": 1}
POSITIVE_NUMBER = {"type": "number", "exclusiveMinimum": 0}
NON_NEGATIVE_NUMBER = {"type": "number", "minimum": 0}
METRIC = {"type": "string", "pattern": METRIC_NAME}
SERIES_REF = {"type": "string", "pattern": SERIES_NAME}

PARAMETERS = {
    "type": "object",
    "propertyNames": {"pattern": PARAMETER_NAME},
    "additionalProperties": SCALAR,
}
AXES = {
    "type": "object",
    "propertyNames": {"pattern": PARAMETER_NAME},
    "additionalProperties": {"type": "array", "minItems": 1, "items": SCALAR},
}

# How a point runs: natively on this machine's cores, or simulated on --threads virtual cores in virtual
# time (the simulation build, docs/sim.md). A series' `variant` wins over its profile's.
VARIANT_NATIVE = "native"
VARIANT_SIM = "sim"
VARIANTS = [VARIANT_NATIVE, VARIANT_SIM]
# A profile's sim_work_scale: fit each simulated configuration's work scale first (sim/workscale.py), or not.
WORK_SCALE_FIT, WORK_SCALE_NONE = "fit", "none"
DEFAULT_COST_TABLE = "sim/cost_table.json"   # under the results directory (--results); a profile may name another

# A series whose points are read from a data file (real measurements published with a paper), not run:
# `variant: reference` with `reference: {data: <a name of the figure's reference_data>, rows: {column:
# value}}` and no params (reference.py; docs/harness.md, "Reference series").
VARIANT_REFERENCE = "reference"
SERIES_VARIANTS = [*VARIANTS, VARIANT_REFERENCE]
# column -> the value a row must have in it (the rows of one curve)
ROW_FILTER = {
    "type": "object",
    "minProperties": 1,
    "propertyNames": {"minLength": 1},
    "additionalProperties": SCALAR,
}

SERIES = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],       # params (a run series) or reference (a reference series): crossfield.py
    "properties": {
        "name": SERIES_REF,
        "label": TEXT,
        "params": PARAMETERS,
        "marker": TEXT,
        "color": TEXT,
        # native or sim (default: the profile's variant): a figure may compare a point run natively with the
        # same point simulated (sim-validation); reference: the points come from a data file
        "variant": {"enum": SERIES_VARIANTS},
        "reference": {
            "type": "object",
            "additionalProperties": False,
            "required": ["data", "rows"],
            "properties": {"data": {"type": "string", "pattern": PARAMETER_NAME}, "rows": ROW_FILTER},
        },
    },
}

# A data file of real measurements that reference series read (reference.py): a CSV file relative to the
# configs directory, the rows every series of it shares (`rows`), which column gives each axis of the
# figure (`axes`), and which column (times `scale`) gives each field of the result document the series'
# metrics are computed from (`fields`: e.g. throughput, commits, aborts, so that a derived metric such as
# abort_rate is computed by the same code as for a run).
REFERENCE_DATA = {
    "type": "object",
    "propertyNames": {"pattern": PARAMETER_NAME},
    "additionalProperties": {
        "type": "object",
        "additionalProperties": False,
        "required": ["file", "axes", "fields"],
        "properties": {
            "file": TEXT,
            "separator": {"type": "string", "minLength": 1, "maxLength": 1},   # default ","
            "rows": ROW_FILTER,
            "axes": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": PARAMETER_NAME},
                     "additionalProperties": TEXT},
            # the axis values the data was measured at, where it covers only part of the figure's sweep (a
            # 16-core machine's runs in a figure swept to 28 threads): a point outside them is not read
            "covers": AXES,
            # several rows at one point (repeated runs the file does not tell apart): "mean" reads the
            # mean of each field over them; absent, such a point is an error
            "repeated_rows": {"enum": ["mean"]},
            "fields": {

                "type": "object",
                "minProperties": 1,
                "propertyNames": {"pattern": METRIC_NAME},
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["column"],
                    "properties": {"column": TEXT, "scale": POSITIVE_NUMBER},
                },
            },
        },
    },
}

# What a figure may change per profile: sizes, swept values, repetitions and
# the time limit. Never series, plot or claims: a profile scales a figure, it
# does not change what is compared.
PROFILE_OVERRIDE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "base": PARAMETERS,
        "axes": AXES,
        "repetitions": POSITIVE_INT,
        "timeout_s": POSITIVE_NUMBER,
    },
}

PLOT_KINDS = ["line", "bar", "grouped_bar", "stacked_bar", "scatter", "table", "timeseries"]
# the kinds whose y may be a list of metrics (line: one line per series and metric;
# grouped_bar: one bar per series and metric in each group)
MULTI_METRIC_PLOTS = ["line", "grouped_bar", "stacked_bar", "table"]
PLOT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "x", "y"],
    "properties": {
        "kind": {"enum": PLOT_KINDS},
        "x": TEXT,
        "y": {"anyOf": [METRIC, {"type": "array", "minItems": 1, "items": METRIC}]},
        "y_labels": {"type": "array", "items": TEXT},
        "xlabel": TEXT,
        "ylabel": TEXT,
        "title": TEXT,
        "xscale": {"enum": ["linear", "log"]},
        "yscale": {"enum": ["linear", "log"]},
        "y_factor": POSITIVE_NUMBER,
        "legend": {"enum": ["top", "right", "none"]},
        "error_bars": {"type": "boolean"},
        "label_points": TEXT,   # scatter: annotate each point with this axis's value
        "shown_series": {"type": "array", "minItems": 1, "items": SERIES_REF},   # table: these series only
        # line: a horizontal reference line at the median of a metric over the panel's runs
        # (e.g. the memory-latency bound the engine measured beside its own cost)
        "hline": {
            "type": "object",
            "additionalProperties": False,
            "required": ["metric", "label"],
            "properties": {"metric": METRIC, "label": TEXT},
        },
        # timeseries: the run's phases, a dotted line at each change: `field`, an array of objects
        # with `start_s` (seconds since the measured interval's start), each labelled with
        # prefix + its field `label` (Strife Fig 8d: config.hot_schedule, hot_partitions, "n=")
        "phases": {
            "type": "object",
            "additionalProperties": False,
            "required": ["field"],
            "properties": {"field": METRIC, "label": TEXT, "prefix": {"type": "string"}},
        },
    },
}

# bcc-tab1: the subject's slowdown against the baseline, 100 * (1 - subject / baseline) of
# `metric` at each point, split into parts (each a fraction of worker time, as a metric of a
# series, times 100) and the rest (the gap minus the parts). Columns `<name>`, `<name>.<part>`
# and `<name>.<rest>` on the subject's rows of the aggregated table (tables.py).
BREAKDOWN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["baseline", "subject", "parts"],
    "properties": {
        "name": {"type": "string", "pattern": PARAMETER_NAME},
        "baseline": SERIES_REF,
        "subject": SERIES_REF,
        "metric": METRIC,
        "parts": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "series", "metric"],
            "properties": {"name": {"type": "string", "pattern": PARAMETER_NAME}, "series": SERIES_REF,
                           "metric": METRIC}}},
        "rest": {"type": "string", "pattern": PARAMETER_NAME},
    },
}

# Another drawing of the same runs, written as <figure-id>.<name>.png/.pdf
# (e.g. the parameter on x and the paper's throughput-vs-#retry scatter).
VIEW = {**PLOT, "required": ["name", *PLOT["required"]],
        "properties": {**PLOT["properties"], "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"}}}

INFERENCE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["parameter", "note"],
    "properties": {"parameter": TEXT, "note": TEXT},
}

# A shared fragment (configs/fragments/<name>.yaml) that figures `include`:
# the parameters of a paper's setting table, defaults for every figure that
# includes it (a figure's own base, axes and series params win).
FRAGMENT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["description", "base"],
    "properties": {
        "description": TEXT,
        "source": TEXT,
        "base": PARAMETERS,
        "profiles": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False, "properties": {"base": PARAMETERS}}},
        "inferences": {"type": "array", "items": INFERENCE},
    },
}

# Why an asserted claim failed or stayed inconclusive at a profile (issue 60 item 8): finding (our method
# matches the paper's section and the measured cause contradicts the claim), method (our experiment still
# differs from the paper's), model (the simulation plausibly cannot show it).
CAUSE_CLASSES = ["finding", "method", "model"]
CAUSE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["class", "cause"],
    "properties": {"class": {"enum": CAUSE_CLASSES}, "cause": TEXT},
}

CLAIM_KINDS = ["ratio", "order", "best", "monotone", "value", "similar", "matches", "top_metric", "scaling",
               "interior_optimum", "peak", "superadditive", "agrees"]
CHECK_KINDS = ["trend", "absolute", "conditional"]
COMPARISONS = [">=", ">", "<=", "<", "between"]   # between: bound is [low, high], both included
REDUCTIONS = ["every", "mean", "min", "max", "spread"]   # spread: largest / smallest

# Only `kind` is checked here; each claim is then validated against the schema
# of its kind (CLAIM_SCHEMAS) so that errors name the exact field, instead of
# the unreadable "is not valid under any of the given schemas" of a oneOf.
CLAIM_ENVELOPE = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"enum": CLAIM_KINDS}},
}

_CLAIM_COMMON = {
    "id": {"type": "string", "pattern": CLAIM_ID},
    "kind": {"enum": CLAIM_KINDS},
    "text": TEXT,
    "check": {"enum": CHECK_KINDS},
    "condition": TEXT,
    "requires_hw_threads": POSITIVE_INT,
    "inferred": {"type": "boolean"},
    "source": TEXT,
    "metric": METRIC,
    # a claim known not to hold on this machine (it needs more cores than it has), with why: still
    # evaluated and reported with its reason (the fidelity report), never silently dropped
    "expected_here": {"enum": ["fail"]},
    "reason": TEXT,
    # profile -> {class, cause}: why the claim fails or stays inconclusive there, as measured (the reports
    # tally the classes per paper)
    "causes": {"type": "object", "minProperties": 1, "additionalProperties": CAUSE},
    # axis -> a swept value, a list of them, or max / min / all
    "at": {"type": "object", "propertyNames": {"pattern": PARAMETER_NAME},
           "additionalProperties": {"anyOf": [SCALAR, {"type": "array", "minItems": 1, "items": SCALAR}]}},
}
_TOLERANCE = NON_NEGATIVE_NUMBER
# A number, or [low, high] with op `between` (crossfield.py checks which goes with which op).
_BOUND = {"anyOf": [{"type": "number"}, {"type": "array", "minItems": 2, "maxItems": 2,
                                         "items": {"type": "number"}}]}
_SERIES_LIST = {"type": "array", "minItems": 1, "items": SERIES_REF}
_ONE_OR_MORE_SERIES = {"anyOf": [SERIES_REF, _SERIES_LIST]}


def _claim_schema(required: list[str], **specific: dict) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "kind", "text", "check", *required],
        "properties": {**_CLAIM_COMMON, **specific},
    }


CLAIM_SCHEMAS = {
    # numerator / denominator of one metric at the selected points, compared with a bound.
    "ratio": _claim_schema(
        ["numerator", "denominator", "op", "bound"],
        numerator=SERIES_REF, denominator=SERIES_REF,
        # compare two metrics (of one series or two): the numerator's and the denominator's,
        # each defaulting to the claim's metric
        numerator_metric=METRIC, denominator_metric=METRIC,
        op={"enum": COMPARISONS}, bound=_BOUND, reduce={"enum": REDUCTIONS}),
    # the listed series are ordered (first highest by default) at every selected point.
    "order": _claim_schema(
        ["series"],
        series={"type": "array", "minItems": 2, "items": SERIES_REF},
        direction={"enum": ["descending", "ascending"]}, tolerance=_TOLERANCE),
    # one series has the highest (or lowest) value among others at every selected point.
    "best": _claim_schema(
        ["series"],
        series=SERIES_REF, among={"type": "array", "minItems": 1, "items": SERIES_REF},
        direction={"enum": ["max", "min"]}, tolerance=_TOLERANCE),
    # a series (or a ratio of two series) rises or falls along an axis.
    "monotone": _claim_schema(
        ["direction"],
        series=_ONE_OR_MORE_SERIES,
        ratio={"type": "array", "minItems": 2, "maxItems": 2, "items": SERIES_REF},
        along=TEXT, direction={"enum": ["increasing", "decreasing"]},
        tolerance=_TOLERANCE, abs_tolerance=_TOLERANCE,
        # growth: the last value beats the first by this relative margin (beyond the steps' tolerance), so
        # that a flat series fails
        margin=POSITIVE_NUMBER,
        # only the swept values in [low, high] of a numeric axis
        within={"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number"}}),
    # a series is highest (or lowest) at one value of an axis, among all swept values
    # ("#lookups = 2 gives the best throughput").
    "peak": _claim_schema(
        ["series", "peak_at"],
        series=SERIES_REF, along=TEXT, peak_at=SCALAR, direction={"enum": ["max", "min"]}, tolerance=_TOLERANCE,
        # instead of tolerance: the peak beats every other value by this relative margin (a flat curve fails)
        margin=POSITIVE_NUMBER),
    # one series' value compared with a number (typically an absolute claim).
    "value": _claim_schema(
        ["series", "op", "bound"],
        series=SERIES_REF, op={"enum": COMPARISONS}, bound=_BOUND,
        reduce={"enum": REDUCTIONS}),
    # the series are within a factor of each other (highest / lowest <= factor) at every selected point.
    "similar": _claim_schema(
        ["series", "factor"],
        series={"type": "array", "minItems": 2, "items": SERIES_REF}, factor={"type": "number", "minimum": 1}),
    # the values match the paper's: one expected number per series (by: series) or per
    # value of an axis (by: <axis>, default the plot's x), within a relative/absolute tolerance.
    "matches": _claim_schema(
        ["expected"],
        expected={"type": "object", "minProperties": 1, "additionalProperties": {"type": "number"}},
        by=TEXT, series=_ONE_OR_MORE_SERIES, tolerance=_TOLERANCE, abs_tolerance=_TOLERANCE),
    # `metric` is the highest (direction max) or lowest of itself and `others`, for each series.
    "top_metric": _claim_schema(
        ["metric", "others"],
        others={"type": "array", "minItems": 1, "items": METRIC}, series=_ONE_OR_MORE_SERIES,
        direction={"enum": ["max", "min"]}, tolerance=_TOLERANCE),
    # parallel efficiency along a numeric axis: (y(v) / y(v0)) / (v / v0) op bound at every swept
    # v > v0 (v0 = `from`, default the lowest swept value), up to `up_to` if given, or only at v = `to`
    # (a value or max).
    "scaling": _claim_schema(
        ["op", "bound"],
        series=_ONE_OR_MORE_SERIES, along=TEXT, op={"enum": COMPARISONS}, bound=_BOUND, up_to=POSITIVE_NUMBER,
        **{"from": POSITIVE_NUMBER, "to": {"anyOf": [POSITIVE_NUMBER, {"enum": ["max"]}]}}),
    # a sweet spot: each series' highest (direction max) or lowest value along an axis lies strictly
    # inside the swept values (neither the first nor the last).
    "interior_optimum": _claim_schema(
        [], series=_ONE_OR_MORE_SERIES, along=TEXT, direction={"enum": ["max", "min"]}),
    # the combined series' gain over the baseline exceeds the sum of its parts' gains at every selected point.
    # the series' value within a relative tolerance (or an absolute one) of the reference series' at every
    # selected point (sim-validation: the simulated series against the native one of the same point).
    "agrees": _claim_schema(
        ["series", "reference"],
        series=SERIES_REF, reference=SERIES_REF, tolerance=_TOLERANCE, abs_tolerance=_TOLERANCE),
    "superadditive": _claim_schema(
        ["combined", "parts", "baseline"],
        combined=SERIES_REF, parts={"type": "array", "minItems": 2, "items": SERIES_REF}, baseline=SERIES_REF),
}

# Where a figure's points run on a cluster (docs/cluster.md): `exclusive` (the default), each alone on
# its machine; `shared`, packed by threads with other shared points, for the algorithm benchmarks
# whose numbers do not depend on what else the machine runs (FVS, Strife clustering, the checker).
PLACEMENT_EXCLUSIVE = "exclusive"
PLACEMENT_SHARED = "shared"

FIGURE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["title", "base", "series", "plot"],
    "properties": {
        "title": TEXT,
        "description": TEXT,
        "source": TEXT,
        "program": {"enum": [ENGINE, *sorted(set(PROGRAMS) - {ENGINE})]},
        "placement": {"enum": [PLACEMENT_EXCLUSIVE, PLACEMENT_SHARED]},
        "base": PARAMETERS,
        "axes": AXES,
        # Parameters that take the value of an axis at every point
        # (warehouses: threads, "cores = warehouses").
        "follow": {"type": "object", "additionalProperties": {"type": "string"}},
        "series": {"type": "array", "minItems": 1, "items": SERIES},
        "reference_data": REFERENCE_DATA,
        "repetitions": POSITIVE_INT,
        "timeout_s": POSITIVE_NUMBER,
        "profiles": {"type": "object", "additionalProperties": PROFILE_OVERRIDE},
        "plot": PLOT,
        "views": {"type": "array", "items": VIEW},
        "include": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"},
        "metrics": {"type": "array", "items": METRIC},
        "inferences": {"type": "array", "items": INFERENCE},
        "claims": {"type": "array", "items": CLAIM_ENVELOPE},
        "breakdown": BREAKDOWN,
        # metrics without measurement noise (an algorithm's output for a seed: FVS sizes, cluster
        # counts): claims on them are decided on the median, from one repetition on (claims.py)
        "deterministic_metrics": {"type": "array", "minItems": 1, "items": METRIC},
    },
}

PROFILE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["description", "base", "repetitions", "timeout_s"],
    "properties": {
        "description": TEXT,
        "base": PARAMETERS,
        "repetitions": POSITIVE_INT,
        # --until-decided adds repetitions to the points of undecided claims up to this many
        "max_repetitions": POSITIVE_INT,
        "timeout_s": POSITIVE_NUMBER,
        # native points run at most this many at a time on the local backend (default 1: a measurement runs
        # alone); more only for a profile whose numbers nothing reads (smoke: it checks the pipeline)
        "native_workers": POSITIVE_INT,

        # sim: every engine point is simulated (docs/sim.md), unless its series says native
        "variant": {"enum": VARIANTS},
        # the simulated points' cost table, relative to the results directory (calibrated if missing)
        "sim_cost_table": TEXT,
        # fit: each simulated configuration's work scale is fitted to a native single-thread run first
        # (workscale.py, docs/sim.md "The work scale"); none: the cost table alone
        "sim_work_scale": {"enum": [WORK_SCALE_FIT, WORK_SCALE_NONE]},
        # the modelled machine of the simulated points of figures that name none (configs/machines/<name>.yaml,
        # machines.py); absent: the calibrating machine's own costs
        "sim_machine": TEXT,
    },
}


def format_path(parts: Iterable[object]) -> str:
    """['series', 1, 'params'] -> 'series[1].params'."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "nothing (null)"}.get(type(value), type(value).__name__)


def _describe(error: jsonschema.ValidationError, path: list[object]) -> list[tuple[str, str]]:
    """Turn one jsonschema error into (field path, message) pairs a person can act on."""
    where = format_path(path)
    kind, schema, value = error.validator, error.schema, error.instance
    if kind == "not" and error.validator_value == {}:  # {"not": {}}: a field that must be absent here
        return [(where, "not allowed here")]
    if kind == "additionalProperties" and schema.get("additionalProperties") is False:
        allowed = sorted(schema.get("properties", {}))
        return [(format_path([*path, key]), f"unknown field; allowed fields here: {', '.join(allowed)}")
                for key in sorted(set(value) - set(allowed))]
    if kind == "required":
        missing = error.validator_value
        absent = [name for name in missing if name not in value]
        return [(where, f"missing required field '{name}'") for name in absent]
    if kind == "enum":
        allowed = ", ".join(str(option) for option in error.validator_value)
        return [(where, f"{value!r} is not allowed; allowed values: {allowed}")]
    if kind == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return [(where, f"expected {expected}, got {_type_name(value)} ({value!r})")]
    if kind == "pattern":
        meaning = PATTERN_MEANING.get(error.validator_value, f"matching {error.validator_value}")
        # A propertyNames failure points at the mapping; the bad name is the instance.
        if "propertyNames" in error.schema_path:
            return [(where, f"bad name {value!r}: must be {meaning}")]
        return [(where, f"{value!r} is not valid: must be {meaning}")]
    if kind in ("minItems", "maxItems", "minProperties"):
        bound = error.validator_value
        word = "at most" if kind == "maxItems" else "at least"
        return [(where, f"must have {word} {bound} item(s), has {len(value)}")]
    if kind in ("minimum", "exclusiveMinimum", "minLength"):
        return [(where, f"{value!r} is too small ({kind} {error.validator_value})")]
    if kind == "anyOf":
        # When the value has the type one option expects, that option's own
        # errors say exactly what is wrong (e.g. plot.y[1] is not a string).
        json_type = _json_type(value)
        for index, option in enumerate(error.validator_value):
            if option.get("type") == json_type:
                sub_errors = [sub for sub in error.context if sub.schema_path and sub.schema_path[0] == index]
                return [pair for sub in sub_errors for pair in _describe(sub, list(sub.absolute_path))]
        return [(where, f"{value!r} is not allowed here; expected "
                 + " or ".join(_summarize(option) for option in error.validator_value))]
    return [(where, error.message)]


def _json_type(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(type(value), "number")


def _summarize(schema: dict) -> str:
    if "pattern" in schema:
        return PATTERN_MEANING.get(schema["pattern"], f"a string matching {schema['pattern']}")
    if schema.get("type") == "array":
        return "a list of those"
    kind = schema.get("type", "a value")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def validation_problems(document: object, schema: dict, prefix: list[object] = ()) -> list[tuple[str, str]]:
    """All schema violations in ``document`` as (field path, message), sorted by path."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(document))
    # An object whose fields are checked by several subschemas reports every
    # field as "unevaluated" when one subschema fails: a consequence, so it is
    # named only when nothing else is wrong.
    errors = [error for error in errors if error.validator != "unevaluatedProperties"] or errors
    problems = []
    for error in errors:
        problems.extend(_describe(error, [*prefix, *error.absolute_path]))
    return sorted(set(problems))
