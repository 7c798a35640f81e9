"""Figure configs and claims that must not distort the papers' results (issue 29, items 4 and 8-13):
each paper's Strife baseline, the pipeline's thread count, substitute labels, thread-conditional
claims, the batch-scaled edge cap, and the claim forms that a flat or merely bounded curve must not
pass."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA, evaluate_claim, evaluate_figure_claims
from ccbench.report.pipeline import load_catalog
from ccbench.run.workspace import Workspace
from ccbench.specification.programs import PIPELINE_DEFAULTS, pipeline_threads
from conftest import figure_document

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(Workspace.create())


# Each point gets this many identical runs: repetitions that agree decide a claim (claims.py), so the
# tests below see held or failed, not inconclusive.
AGREEING_RUNS = 3


def constant_table(figure, value: float = 1.0) -> pd.DataFrame:
    """The figure's runs table with every metric at `value` in each of AGREEING_RUNS runs per point
    (claims then hold or fail; what these tests look at is whether they are asserted, or how a given
    curve fares)."""
    rows = []
    for series in figure.config.series:
        for point in {p.coords for p in figure.points()}:
            rows += [{"series": series.name, **dict(point), **{m: value for m in figure.metrics()}}] * AGREEING_RUNS
    return pd.DataFrame(rows)


# -- item 8: the pipeline's threads ------------------------------------------------------------

@pytest.mark.parametrize("flags, threads", [
    ({}, 11),                                                    # srvc: 2 clients, processor, 2 storage, prep, 4 reorder, validation
    ({"mode": "srvc", "reorder_workers": 1}, 8),
    ({"mode": "vc", "reorder_workers": 3}, 10),
    ({"mode": "batch", "reorder_workers": 4}, 7),               # batched validator without reorder workers
    ({"mode": "base"}, 6),                                       # one validator thread
    ({"mode": "sr", "clients": 4, "storage_workers": 3}, 9),
])
def test_the_pipeline_s_threads_follow_from_its_flags(flags, threads):
    assert pipeline_threads(flags) == threads


def test_the_thread_count_knows_the_pipeline_s_defaults():
    # The rows of bin/pipeline's options table: CCB_OPTION(table, field, type, name, default, ...) or
    # CCB_PARSED_OPTION(table, type, name, default, ...).
    source = (ROOT / "systems/pipeline/options.cpp").read_text()
    for name, value in PIPELINE_DEFAULTS.items():
        match = re.search(rf'CCB_(?:OPTION\(PipelineOptions::flags, [\w.]+, \w+|PARSED_OPTION\(PipelineOptions::flags, \w+), '
                          rf'{name}, "?(\w+)"?,', source)
        assert match and match.group(1) == str(value), name


def test_reorder_worker_claims_are_asserted_on_a_machine_with_the_pipeline_s_threads(catalog):
    for figure_id in ("ding-fig20", "ding-fig21", "ding-fig22"):
        figure = catalog.figures[figure_id].resolve("paper")
        assert figure.max_threads() == 11
        assert {p.series: p.threads for p in figure.points()} == {"w1": 8, "w2": 9, "w3": 10, "w4": 11}
        table = constant_table(figure)
        conditional = [r for r in evaluate_figure_claims(figure, table, hw_threads=16)
                       if r.claim["check"] == "conditional"]
        assert conditional and all(r.asserted for r in conditional), figure_id
        assert not any(r.asserted for r in evaluate_figure_claims(figure, table, hw_threads=8)
                       if r.claim["check"] == "conditional"), figure_id


# -- item 9: substitutes are labelled as such ------------------------------------------------------

SUBSTITUTES = {("cc", "dora"): "Dora-like", ("cc", "orthrus"): "Orthrus-like",
               ("frontend", "schism"): "Schism-like", ("frontend", "horticulture"): "Horticulture-like"}


def test_every_substitute_series_is_labelled_like(catalog):
    seen = set()
    for figure_id, config in catalog.figures.items():
        for series in config.series:
            for (parameter, value), label in SUBSTITUTES.items():
                if series.params.get(parameter) == value:
                    seen.add(label)
                    assert series.label == label, f"{figure_id}: series {series.name} is labelled {series.label!r}"
    assert seen == set(SUBSTITUTES.values())


# -- item 10: bcc-fig06's claims are about 32 threads -------------------------------------------

def test_bcc_fig06_asserts_nothing_without_32_hardware_threads(catalog):
    config = catalog.figures["bcc-fig06"]
    small = config.resolve("small")
    results = evaluate_figure_claims(small, constant_table(small), hw_threads=2)
    assert results and not any(r.asserted for r in results)
    paper = config.resolve("paper")
    asserted = [r.asserted for r in evaluate_figure_claims(paper, constant_table(paper), hw_threads=32)
                if r.claim["check"] != "absolute"]
    assert asserted and all(asserted)


# -- item 11: the edge cap scales with a swept batch size -------------------------------------------

def test_a_batch_size_sweep_scales_the_dependency_graph_edge_cap(catalog):
    swept = [c for c in catalog.figures.values()
             if c.program.name == "pipeline" and "batch_size" in c.document.get("axes", {})]
    assert {c.figure_id for c in swept} >= {"ding-ext-bsize-tps", "ding-ext-bsize-lat", "ding-ext-bsize-p95"}
    for config in swept:
        for point in config.resolve("paper").points():
            flags = dict(point.flags)
            assert "max_graph_edges" not in flags and flags["max_graph_edge_share"] == 0.5, config.figure_id


# -- item 12: claims a flat or merely bounded curve must not pass ---------------------------------

AXES = {"x": [1, 2, 3]}


def table_of(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"series": name, "x": x, "y": y} for name, ys in values.items()
                         for x, y in zip(AXES["x"], ys)] * AGREEING_RUNS)


def check(claim: dict, values: dict[str, list[float]]):
    claim = {"id": "c", "text": "t", "check": "trend", **claim}
    return evaluate_claim(claim, table_of(values), AXES, series_names=list(values), default_metric="y",
                          default_along="x")


SUPERADDITIVE = {"kind": "superadditive", "combined": "both", "parts": ["one", "two"], "baseline": "base"}


@pytest.mark.parametrize("both, outcome", [(3.03, HELD), (2.81, FAILED), (2.812, FAILED)])
def test_superadditive_compares_the_gain_with_the_sum_of_the_parts(both, outcome):
    # TSKD Fig. 4j: +203% together against +108% and +73.2% apart (1.812 in all).
    values = {"base": [1.0] * 3, "one": [2.08] * 3, "two": [1.732] * 3, "both": [both] * 3}
    result = check(SUPERADDITIVE, values)
    assert result.outcome == outcome, result.detail
    assert "both gains 2.03 over base vs one 1.08 + two 0.732 = 1.812" in check(
        SUPERADDITIVE, {**values, "both": [3.03] * 3}).detail


def test_superadditive_needs_every_series():
    values = {"base": [1.0, 1.0, 1.0], "one": [2.0, 2.0, float("nan")], "two": [1.5] * 3, "both": [3.0] * 3}
    assert check(SUPERADDITIVE, values).outcome == NO_DATA


@pytest.mark.parametrize("curve, outcome", [
    ([100, 100, 100], FAILED),     # flat: the plain peak (ties allowed) would hold
    ([97, 100, 100], FAILED),      # only 3% below
    ([90, 100, 99], HELD),
])
def test_a_peak_with_a_margin_must_lead(curve, outcome):
    claim = {"kind": "peak", "series": "s", "peak_at": 1, "direction": "min", "margin": 0.05}
    assert check(claim, {"s": curve}).outcome == outcome
    without_margin = {key: value for key, value in claim.items() if key != "margin"}
    assert check(without_margin, {"s": [100, 100, 100]}).outcome == HELD


def test_spread_bounds_how_far_a_ratio_drifts():
    claim = {"kind": "ratio", "numerator": "a", "denominator": "b", "reduce": "spread", "op": "<=", "bound": 1.25}
    assert check(claim, {"a": [3.0, 3.1, 3.2], "b": [1.0] * 3}).outcome == HELD
    drifting = check(claim, {"a": [2.0, 3.0, 4.0], "b": [1.0] * 3})
    assert drifting.outcome == FAILED and "spread 2" in drifting.detail
    assert check(claim, {"a": [0.0, 3.0, 4.0], "b": [1.0] * 3}).outcome == NO_DATA


def test_a_peak_takes_a_margin_or_a_tolerance_not_both(sandbox):
    from ccbench.specification.config import FigureConfig, load_profiles
    from ccbench.errors import ConfigError
    document = figure_document(claims=[{"id": "p", "kind": "peak", "series": "silo", "peak_at": 0.0,
                                        "margin": 0.05, "tolerance": 0.1, "check": "trend", "text": "t"}])
    path = sandbox.add_figure("peak-fig", document)
    with pytest.raises(ConfigError, match=r"claims\[0\]\.margin.*not together with tolerance"):
        FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))


def test_strife_fig11_fails_a_flat_throughput_curve(catalog):
    figure = catalog.figures["strife-fig11"].resolve("small")
    table = constant_table(figure)
    table["frontend.batch_latency_ms.avg"] = table["batch_size"] / 1000     # latency grows with the batch
    results = {r.claim["id"]: r for r in evaluate_figure_claims(figure, table, hw_threads=2)}
    slower = [r for name, r in results.items() if name.startswith("small-batches-slower")]
    assert len(slower) == 3 and all(r.asserted and r.outcome == FAILED for r in slower)
    rising = table.assign(throughput=table["batch_size"].map({1000: 0.8, 5000: 1.0, 10000: 1.0, 50000: 0.95}))
    results = evaluate_figure_claims(figure, rising, hw_threads=2)
    assert all(r.outcome == HELD for r in results if r.asserted)


def test_bcc_fig10_asserts_the_paper_s_level_memory_not_the_engine_s_capacity(catalog):
    figure = catalog.figures["bcc-fig10"].resolve("paper")
    assert not any(claim.get("bound") == 4592762 for claim in figure.config.claims)
    avg, peak = "cc_stats.history_bytes_per_thread_avg", "cc_stats.history_bytes_per_thread_max"
    growing = constant_table(figure)
    growing[peak] = 4_000_000                                   # within the engine's 4.38 MB capacity ...
    growing[avg] = growing["threads"] * 10_000                  # ... but the average grows 32x with threads
    results = {r.claim["id"]: r for r in evaluate_figure_claims(figure, growing, hw_threads=32)}
    level = results["average-stays-low-across-thread-counts"]
    assert level.asserted and level.outcome == FAILED
    small = figure.config.resolve("small")
    results = {r.claim["id"]: r for r in evaluate_figure_claims(small, constant_table(small), hw_threads=2)}
    assert not results["average-stays-low-across-thread-counts"].asserted   # 8 threads on 2 cores


def test_tskd_ablation_and_io_claims_check_the_paper_s_words(catalog):
    ablation = catalog.figures["tskd-fig4j"].resolve("small")
    table = constant_table(ablation, 1.0)
    gains = {"strife": 1.0, "tspar-s": 2.08, "tsdefer-s": 1.732, "tskd-s": 3.03}
    table["throughput"] = table["series"].map(gains).fillna(1.0)
    results = {r.claim["id"]: r for r in evaluate_figure_claims(ablation, table, hw_threads=2)}
    assert results["together-better-than-the-sum-strife"].outcome == HELD
    table.loc[table["series"] == "tskd-s", "throughput"] = 2.5
    results = {r.claim["id"]: r for r in evaluate_figure_claims(ablation, table, hw_threads=2)}
    assert results["together-better-than-the-sum-strife"].outcome == FAILED

    io = catalog.figures["tskd-fig4k"].resolve("small")
    table = constant_table(io)
    table.loc[table["series"] == "tskd-s", "throughput"] = table["io_latency_theta"] * 3   # gain drifts 2x
    results = {r.claim["id"]: r for r in evaluate_figure_claims(io, table, hw_threads=2)}
    assert results["tskd-s-gain-stable-over-theta-io"].outcome == FAILED
    assert results["tskd-c-gain-stable-over-theta-io"].outcome == HELD

    retries = catalog.figures["tskd-fig4i"].resolve("small")
    table = constant_table(retries)
    table.loc[table["series"].str.startswith("tskd"), "retries_per_100k"] = 0.5
    results = {r.claim["id"]: r for r in evaluate_figure_claims(retries, table, hw_threads=2)}
    # Fewer retries at the same throughput is not the paper's "higher concurrency with fewer retries".
    assert results["tskd-s-fewer-retries-than-strife"].outcome == HELD
    assert results["tskd-s-more-concurrency-than-strife"].outcome == FAILED


def test_ding_fig05_and_fig06_state_the_search_budget_with_the_paper_s_reason(catalog):
    for figure_id in ("ding-fig05", "ding-fig06"):
        notes = {i["parameter"]: i["note"] for i in catalog.figures[figure_id].document["inferences"]}
        assert "[INF]" in notes["search_time_limit_ms"] and "too dense" in notes["search_time_limit_ms"]


# -- item 4: each paper's own Strife baseline -------------------------------------------------------

def test_tskd_figures_run_the_tskd_paper_s_strife_and_strife_figures_their_own(catalog):
    strife_frontends = {"strife", "strife-static"}
    seen = {"tskd": set(), "strife": set()}
    for figure_id, config in catalog.figures.items():
        paper = figure_id.split("-")[0]
        for series in config.series:
            frontend = series.params.get("frontend", config.document.get("base", {}).get("frontend"))
            if frontend in strife_frontends and paper in seen:
                seen[paper].add(frontend)
    # TSKD §2 / §6.1: k static per-thread partitions; the Strife paper: CF clusters on a shared worklist.
    assert seen == {"tskd": {"strife-static"}, "strife": {"strife"}}


def test_tskd_cc_retries_an_aborted_transaction_at_once(catalog):
    """TSKD §5, step 4: "If T aborts, thread i will retry T immediately until it commits". Every point of a
    TSKD[CC] series (--frontend=tsdefer) runs without the abort buffer and without backoff, at every profile;
    DbCC keeps DBx1000's abort buffer (tskd-tab1)."""
    seen = 0
    for config in catalog.figures.values():
        for profile in ("smoke", "small", "sim", "paper"):
            figure = config.resolve(profile)
            for series in config.series:
                flags = figure.series_parameters(series)
                if flags.get("frontend") == "tsdefer":
                    assert (flags["abort_policy"], flags["backoff_max_us"]) == ("backoff", 0), \
                        (config.figure_id, profile, series.name)
                    seen += 1
                elif config.document.get("include") == "tskd-tab1" and flags.get("frontend") == "none":
                    assert flags["abort_policy"] == "buffer", (config.figure_id, series.name)
    assert seen >= 4 * 11
