"""Reading metrics out of a result document."""
import math

from ccbench.metrics import metric_value

RESULT = {"throughput": 1000.0, "commits": 300, "aborts": 100, "latency_us": {"p99": 12.5},
          "aborts_by_reason": {"validation": 60}, "invariants_ok": True, "frontend": {"name": "strife"}}


def test_fields_nested_fields_and_derived_metrics():
    assert metric_value(RESULT, "latency_us.p99") == 12.5
    assert metric_value(RESULT, "aborts_by_reason.validation") == 60
    assert metric_value(RESULT, "abort_rate") == 0.25                   # 100 / (300 + 100)
    assert metric_value(RESULT, "processed_throughput") == 1000.0 * 400 / 300


def test_a_field_the_engine_writes_wins_over_the_derived_metric():
    assert metric_value({**RESULT, "abort_rate": 0.5}, "abort_rate") == 0.5


def test_missing_or_non_numeric_values_are_nan():
    for name in ("latency_us.p50", "frontend.name", "invariants_ok", "throughput.x", "nope"):
        assert math.isnan(metric_value(RESULT, name)), name
    assert math.isnan(metric_value(None, "throughput"))
    assert math.isnan(metric_value({"commits": 0, "aborts": 0}, "abort_rate"))
