"""Reading metrics out of a result document."""
import math

from ccbench.specification.metrics import metric_value

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


def test_engine_cost_metrics_per_access_and_against_the_measured_bound():
    run = {"commits": 400, "aborts": 0, "phases": {"measured_s": 2.0},
           "config": {"threads": 2, "req_per_txn": 16}, "memory_bound": {"access_bound_ns": 200.0}}
    assert metric_value(run, "ns_per_txn_per_thread") == 2 * 2.0 * 1e9 / 400   # 10 ms per commit per worker
    assert metric_value(run, "ns_per_access") == 2 * 2.0 * 1e9 / 400 / 16
    assert metric_value(run, "access_bound_ratio") == 2 * 2.0 * 1e9 / 400 / 16 / 200.0
    without_bound = {k: v for k, v in run.items() if k != "memory_bound"}
    assert math.isnan(metric_value(without_bound, "access_bound_ratio"))
    tpcc_like = {**run, "config": {"threads": 2}}                  # no fixed requests per transaction
    assert math.isnan(metric_value(tpcc_like, "ns_per_access"))
    assert math.isnan(metric_value({**run, "commits": 0}, "ns_per_access"))
