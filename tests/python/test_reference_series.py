"""Reference series (points read from a data file of real measurements, reference.py) and the speedup metric:
the rows a filter selects, the fields they give, the speedup on hand-computed numbers, every bad field refused
naming it, the whole pipeline on the fake engine, and the repository's sim-reference-tpcc figure."""
from __future__ import annotations

import copy
import hashlib
import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest

from ccbench.analysis.claims import FAILED, HELD, NO_DATA, Samples, evaluate_claim
from ccbench.analysis.tables import add_speedup
from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.report.pipeline import load_catalog
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles

# A small file in the shape of the 1000-cores data: two protocols at 1, 2 and 4 threads on 4 warehouses, and
# decoys the filter must leave out (8 warehouses; another backoff), so that a filter without them is ambiguous.
DATA = """CC;Threads;Warehouses;Backoff;NO HT;KTPS;txn_cnt;abort_cnt
SILO;1;4;15;False;100.0;1000;0
SILO;2;4;15;False;180.0;1800;200
SILO;4;4;15;False;350.0;3500;1500
SILO;4;8;15;False;999.0;9990;0
NO WAIT;1;4;15;False;100.0;1000;0
NO WAIT;2;4;15;False;150.0;1500;500
NO WAIT;4;4;15;False;200.0;2000;6000
NO WAIT;4;4;0;False;777.0;7770;0
TICTOC;1;4;15;False;oops;1000;0
"""


def reference_figure() -> dict:
    """The fake engine's silo swept over threads, beside two curves of DATA."""
    return {
        "title": "Reference test",
        "base": {"workload": "ycsb", "table_size": 1000},
        "axes": {"threads": [1, 2, 4]},
        "reference_data": {"dbx": {
            "file": "reference/data.csv", "separator": ";",
            "rows": {"Warehouses": 4, "Backoff": 15, "NO HT": False},
            "axes": {"threads": "Threads"},
            "fields": {"throughput": {"column": "KTPS", "scale": 1000}, "commits": {"column": "txn_cnt"},
                       "aborts": {"column": "abort_cnt"}}}},
        "series": [{"name": "silo", "label": "Silo", "params": {"cc": "silo"}},
                   {"name": "real-silo", "label": "SILO (real)", "variant": "reference",
                    "reference": {"data": "dbx", "rows": {"CC": "SILO"}}},
                   {"name": "real-nowait", "label": "NO WAIT (real)", "variant": "reference",
                    "reference": {"data": "dbx", "rows": {"CC": "NO WAIT"}}}],
        "plot": {"kind": "line", "x": "threads", "y": "speedup"},
        "views": [{"name": "aborts", "kind": "line", "x": "threads", "y": "abort_rate"}],
        "claims": [
            {"id": "silo-agrees", "kind": "agrees", "series": "silo", "reference": "real-silo", "tolerance": 0.25,
             "at": {"threads": [2, 4]}, "check": "trend", "text": "speedup within 25% of SILO's"},
            {"id": "nowait-agrees", "kind": "agrees", "series": "silo", "reference": "real-nowait",
             "tolerance": 0.25, "at": {"threads": 4}, "check": "trend", "text": "speedup within 25% of NO WAIT's"},
            {"id": "real-order", "kind": "order", "series": ["real-silo", "real-nowait"], "metric": "throughput",
             "at": {"threads": 4}, "check": "trend", "text": "SILO above NO WAIT at 4"}],
    }


def plant(sandbox, document: dict, data: str | None = DATA):
    if data is not None:
        path = sandbox.workspace.configs_dir / "reference" / "data.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data)
    return sandbox.add_figure("ref-fig", document)


def load(sandbox, document: dict, data: str | None = DATA) -> FigureConfig:
    return FigureConfig.load(plant(sandbox, document, data), load_profiles(sandbox.workspace.profiles_dir))


def problems(sandbox, document: dict, data: str | None = DATA) -> dict[str, str]:
    with pytest.raises(ConfigError) as raised:
        load(sandbox, document, data)
    return {where: message for _, where, message in raised.value.problems}


def changed(change) -> dict:
    document = reference_figure()
    change(document)
    return document


def test_the_filter_selects_one_row_per_point_and_maps_its_columns(sandbox):
    points = load(sandbox, reference_figure()).resolve("quick").reference_points()
    by_point = {(point.series, dict(point.coords)["threads"]): point.document for point in points}
    assert set(by_point) == {(series, threads) for series in ("real-silo", "real-nowait") for threads in (1, 2, 4)}
    # Warehouses 4 and Backoff 15: not the 8-warehouse SILO row (999) nor the backoff-0 NO WAIT row (777).
    assert by_point["real-silo", 4] == {"throughput": 350000.0, "commits": 3500.0, "aborts": 1500.0}
    assert by_point["real-nowait", 4] == {"throughput": 200000.0, "commits": 2000.0, "aborts": 6000.0}


def test_the_pipeline_plots_and_judges_the_reference_beside_the_runs(sandbox, capsys):
    plant(sandbox, reference_figure())
    assert main(sandbox.cli_arguments("run", "ref-fig", "--profile", "repeated", "--quiet")) == 0
    tables = sandbox.workspace.tables_dir("repeated")
    table = pd.read_csv(tables / "ref-fig.csv").set_index(["series", "threads"])
    # The measured data: KTPS x 1000, aborts / (commits + aborts) as for a run, speedup over its own 1 thread.
    assert table.loc[("real-silo", 4), "throughput"] == 350000.0
    assert table.loc[("real-silo", 4), "abort_rate"] == pytest.approx(1500 / 5000)
    assert table.loc[("real-silo", 2), "speedup"] == pytest.approx(1.8)
    assert table.loc[("real-nowait", 4), "speedup"] == pytest.approx(2.0)
    # The fake engine's throughput is linear in threads at one seed, so its median speedup at 4 is 4.
    assert table.loc[("silo", 4), "speedup"] == pytest.approx(4.0)
    runs = pd.read_csv(tables / "ref-fig.runs.csv")
    assert runs[runs["reference"]]["key"].isna().all() and len(runs[runs["reference"]]) == 6
    assert len(runs[~runs["reference"]]) == 9            # 3 thread counts x 3 repetitions, reference rows aside
    verdicts = {claim["id"]: claim for claim in json.loads((tables / "ref-fig.claims.json").read_text())}
    # silo 1.8-2.04 vs 1.8 at 2 threads (slack 0.45) and ~4 vs 3.5 at 4 (slack 0.875): held, decided from the
    # runs' intervals alone; ~4 vs NO WAIT's 2.0 (slack 0.5): failed.
    assert verdicts["silo-agrees"]["outcome"] == HELD, verdicts["silo-agrees"]["detail"]
    assert verdicts["nowait-agrees"]["outcome"] == FAILED, verdicts["nowait-agrees"]["detail"]
    assert verdicts["real-order"]["outcome"] == HELD
    images = sandbox.workspace.images_dir("repeated")
    assert (images / "ref-fig.png").is_file() and (images / "ref-fig.aborts.png").is_file()
    assert main(sandbox.cli_arguments("report", "--profile", "repeated")) == 0
    report = (sandbox.workspace.images_dir("repeated") / "REPORT.md").read_text()
    assert "**SILO (real)** (measured data: `reference/data.csv`, rows `CC=SILO`)" in report
    capsys.readouterr()


def test_speedup_on_a_hand_computed_example():
    # threads 1: 100, 100, 100; threads 4: 300, 330, 360 -> speedup 330 / 100 = 3.3, its range 3.0-3.6.
    runs = pd.DataFrame([{"series": "a", "threads": threads, "status": "ok", "throughput": value}
                         for threads, values in ((1, [100, 100, 100]), (4, [300, 330, 360])) for value in values])
    speedup = Samples(runs, ["threads"]).values("speedup", "a", {"threads": 4})
    assert speedup[0] == pytest.approx(3.3)
    assert 3.0 <= speedup[1:].min() <= speedup[1:].max() <= 3.6 and speedup[1:].min() < speedup[1:].max()
    table = pd.DataFrame([{"series": "a", "threads": 1, "throughput": 100.0, "throughput_min": 100.0,
                           "throughput_max": 100.0},
                          {"series": "a", "threads": 4, "throughput": 330.0, "throughput_min": 300.0,
                           "throughput_max": 360.0},
                          {"series": "b", "threads": 4, "throughput": 50.0, "throughput_min": 50.0,
                           "throughput_max": 50.0}])

    class Figure:   # what add_speedup reads of a resolved figure
        axes = {"threads": [1, 4]}
    with_speedup = add_speedup(table, Figure()).set_index(["series", "threads"])
    assert with_speedup.loc[("a", 4), ["speedup", "speedup_min", "speedup_max"]].tolist() == pytest.approx(
        [3.3, 3.0, 3.6])
    assert with_speedup.loc[("a", 1), "speedup"] == 1.0
    assert math.isnan(with_speedup.loc[("b", 4), "speedup"])      # b has no one-thread point: no data


def test_a_reference_point_is_one_fixed_number_and_decides_against_the_runs():
    runs = pd.DataFrame(
        [{"series": "sim", "threads": threads, "status": "ok", "reference": False, "throughput": value}
         for threads, values in ((1, [100, 101, 99]), (8, [500, 520, 480])) for value in values]
        + [{"series": "real", "threads": threads, "status": "ok", "reference": True, "throughput": value}
           for threads, value in ((1, 10.0), (8, 60.0))])
    real = Samples(runs, ["threads"]).values("speedup", "real", {"threads": 8})
    assert (real == 6.0).all()                      # one row, no resampling: no "only 1 repetition"
    claim = {"id": "c", "text": "t", "check": "trend", "kind": "agrees", "series": "sim", "reference": "real",
             "metric": "speedup", "tolerance": 0.25, "at": {"threads": 8}}
    result = evaluate_claim(claim, runs, {"threads": [1, 8]}, series_names=["sim", "real"], default_metric=None)
    assert result.outcome == HELD, result.detail    # 5.0 (4.8-5.2) within 6.0 ± 1.5
    result = evaluate_claim({**claim, "tolerance": 0.1}, runs, {"threads": [1, 8]}, series_names=["sim", "real"],
                            default_metric=None)
    assert result.outcome == FAILED, result.detail  # ± 0.6: every replicate is further away


@pytest.mark.parametrize("change, where, words", [
    (lambda d: d["series"][1]["reference"]["rows"].update(CC="SILOX"), "series[1].reference.rows",
     "no row of reference/data.csv has Warehouses = 4, Backoff = 15, NO HT = False, CC = 'SILOX'"),
    (lambda d: d["reference_data"]["dbx"]["rows"].pop("Warehouses"), "series[1].reference.rows",
     "2 rows of reference/data.csv with Backoff = 15, NO HT = False, CC = 'SILO' are at threads=4"),
    (lambda d: d["axes"].update(threads=[1, 2, 3, 4]), "series[1].reference.rows",
     "is at threads=3 (swept under profile"),
    (lambda d: d["reference_data"]["dbx"]["rows"].update(Warehouse=4), "reference_data.dbx.rows.Warehouse",
     "no column 'Warehouse' in the data; its columns: CC, Threads"),
    (lambda d: d["series"][2]["reference"]["rows"].update(Cc="x"), "series[2].reference.rows.Cc",
     "no column 'Cc' in the data"),
    (lambda d: d["reference_data"]["dbx"]["fields"].update(throughput={"column": "TPS"}),
     "reference_data.dbx.fields.throughput.column", "no column 'TPS' in the data"),
    (lambda d: d["reference_data"]["dbx"]["axes"].update(threads="Thread"), "reference_data.dbx.axes.threads",
     "no column 'Thread'"),
    (lambda d: d["reference_data"]["dbx"]["axes"].update(theta="Threads"), "reference_data.dbx.axes.theta",
     "'theta' is not an axis of this figure"),
    (lambda d: d["series"][1]["reference"].update(data="nope"), "series[1].reference.data",
     "'nope' is not a name of reference_data; names: dbx"),
    (lambda d: d["series"][1].update(params={"cc": "silo"}), "series[1].params", "not allowed with variant reference"),
    (lambda d: d["series"][1].pop("reference"), "series[1]", "missing required field 'reference'"),
    (lambda d: d["series"][0].update(reference={"data": "dbx", "rows": {"CC": "SILO"}}), "series[0].reference",
     "only with variant: reference"),
    (lambda d: d["series"][2]["reference"]["rows"].update(CC="TICTOC"), "reference_data.dbx.fields.throughput.column",
     "'oops' in column KTPS"),
    (lambda d: d["series"][1].update(variant="measured"), "series[1].variant", "allowed values: native, sim, reference"),
    (lambda d: d["reference_data"]["dbx"].update(separator=","), "reference_data.dbx.file", "is the separator right?"),
    (lambda d: d["axes"].update(threads=[2, 4]), "plot.y", "'speedup' is throughput over the same series' throughput "
     "at threads=1: it needs threads swept with 1 under every profile"),
])
def test_a_bad_reference_field_is_refused_naming_it(sandbox, change, where, words):
    found = problems(sandbox, changed(change))
    assert where in found, found
    assert words in found[where]


def test_data_that_covers_part_of_the_sweep_gives_points_only_there(sandbox):
    """A machine smaller than the sweep (covers: threads 1-2 of 1, 2, 4): no point at 4 and no problem; a claim
    that asks for the uncovered point cannot be decided from it, and says so."""
    document = reference_figure()
    document["reference_data"]["dbx"]["covers"] = {"threads": [1, 2]}
    points = load(sandbox, document).resolve("quick").reference_points()
    assert {dict(point.coords)["threads"] for point in points} == {1, 2}
    assert len(points) == 4


@pytest.mark.parametrize("change, where, words", [
    (lambda d: d["reference_data"]["dbx"].update(covers={"theta": [1]}), "reference_data.dbx.covers.theta",
     "'theta' is not one of this data's axes; its axes: threads"),
    (lambda d: d["reference_data"]["dbx"].update(covers={"threads": []}), "reference_data.dbx.covers.threads",
     "at least 1"),
])
def test_a_bad_covers_is_refused_naming_it(sandbox, change, where, words):
    found = problems(sandbox, changed(change))
    assert where in found, found
    assert words in found[where], found[where]


def test_a_covered_point_the_data_lacks_is_still_refused(sandbox):
    """covers says where the data was measured: a point inside it without a row is a problem, as without covers."""
    document = reference_figure()
    document["axes"]["threads"] = [1, 2, 4, 8]
    document["reference_data"]["dbx"]["covers"] = {"threads": [1, 2, 4, 8]}
    found = problems(sandbox, document)
    assert "is at threads=8" in found["series[1].reference.rows"]


def test_a_missing_data_file_is_refused_naming_the_field_and_the_path(sandbox, capsys):
    found = problems(sandbox, reference_figure(), data=None)
    path = sandbox.workspace.configs_dir.resolve() / "reference" / "data.csv"
    assert f"no such file: {path}" in found["reference_data.dbx.file"]
    assert main(sandbox.cli_arguments("run", "ref-fig", "--profile", "quick", "--dry-run")) == 2
    assert "ref-fig.yaml: reference_data.dbx.file: no such file" in capsys.readouterr().err


# The repository's figure against the vendored data (configs/reference/1000-cores).
REPOSITORY_FIGURE = "sim-reference-tpcc"


def test_the_vendored_data_is_the_one_its_readme_names():
    folder = REPOSITORY_ROOT / "configs" / "reference" / "1000-cores"
    digest = hashlib.sha256((folder / "tpcc-4wh-optimised-hpe.csv").read_bytes()).hexdigest()
    assert digest in (folder / "README.md").read_text()


def test_the_native_means_are_the_runs_they_name():
    """The figure reads tpcc-4wh-native.csv, derived from the runs file its README fingerprints: each row the
    mean throughput and the summed counts of its runs."""
    folder = REPOSITORY_ROOT / "configs" / "reference" / "lent-xeon-16"
    runs = pd.read_csv(folder / "tpcc-4wh-native-runs.csv")
    assert hashlib.sha256((folder / "tpcc-4wh-native-runs.csv").read_bytes()).hexdigest() in (
        folder / "README.md").read_text()
    means = pd.read_csv(folder / "tpcc-4wh-native.csv").set_index(["CC", "Threads"]).sort_index()
    grouped = runs.groupby(["CC", "Threads"])
    assert list(means.index) == list(grouped.groups)
    assert np.allclose(means["KTPS"], grouped["KTPS"].mean().sort_index(), atol=0.051)
    assert (means["Runs"] == grouped.size().sort_index()).all() and (means["Runs"] == 3).all()
    assert (means["KTPS_min"] == grouped["KTPS"].min().sort_index()).all()
    assert (means["txn_cnt"] == grouped["txn_cnt"].sum().sort_index()).all()
    assert (means["abort_cnt"] == grouped["abort_cnt"].sum().sort_index()).all()


def test_the_reference_figure_validates_and_reads_the_real_curves(capsys, tmp_path):
    config = load_catalog(Workspace.create()).figures[REPOSITORY_FIGURE]
    figure = config.resolve("smoke")
    run_series = [series.name for series in config.series if not series.is_reference]
    assert len(figure.points()) == len(run_series) * 5 and all(point.simulated for point in figure.points())
    measured = {(point.series, dict(point.coords)["threads"]): point.document
                for point in config.resolve("sim").reference_points()}
    real = {key: document for key, document in measured.items() if key[0].startswith("real-")}
    native = {key: document for key, document in measured.items() if key[0].startswith("native-")}
    assert len(real) == 7 * 6 and len(native) == 7 * 5 and len(measured) == len(real) + len(native)
    # The lent 16-core machine's runs cover 1-16 threads: no native point at 28, and none asked for.
    assert {threads for _, threads in native} == {1, 2, 4, 8, 16}
    silo_28, silo_1 = real["real-silo", 28], real["real-silo", 1]
    assert silo_28["throughput"] == pytest.approx(3682e3, rel=1e-3)
    assert silo_28["throughput"] / silo_1["throughput"] == pytest.approx(13.3, abs=0.05)      # issue 46's table
    assert silo_28["aborts"] / (silo_28["aborts"] + silo_28["commits"]) == pytest.approx(0.41, abs=0.005)
    assert real["real-partcc", 4]["throughput"] == pytest.approx(1207e3, rel=1e-3)            # HSTORE's peak
    # The dry run lists every simulated point's command and refuses nothing (an empty store: the
    # repository's results/ may hold some of them already, and a dry run lists only what would run).
    assert main(["run", REPOSITORY_FIGURE, "--profile", "smoke", "--dry-run", "--results", str(tmp_path)]) == 0
    commands = [line for line in capsys.readouterr().out.splitlines() if "bin/sim/rundb-" in line]
    assert len(commands) == len(figure.points())
    assert all("--sim_physical_cores=28" in command and "--warehouses=4" in command for command in commands)


def test_the_reference_figures_claims_cover_every_protocol_at_8_16_and_28():
    config = load_catalog(Workspace.create()).figures[REPOSITORY_FIGURE]
    protocols = ("nowait", "waitdie", "dldetect", "occ", "silo", "tictoc", "partcc")
    agrees = [claim for claim in config.claims if claim["kind"] == "agrees"]
    against_real = [claim for claim in agrees if claim["reference"].startswith("real-")]
    against_native = [claim for claim in agrees if claim["reference"].startswith("native-")]
    assert len(against_real) + len(against_native) == len(agrees)
    # The native OCC, Silo and TicToc runs used their default validation (wait); the figure's sim-occ, sim-silo
    # and sim-tictoc run DBx1000's (bounded), so the claims against them read the -wait series, simulated with wait.
    waiting = {cc: f"sim-{cc}-wait" for cc in ("occ", "silo", "tictoc")}
    for claims, threads, series_of in ((against_real, [8, 16, 28], {}), (against_native, [4, 8, 16], waiting)):
        assert sorted(claim["series"] for claim in claims) == sorted(series_of.get(cc, f"sim-{cc}") for cc in protocols)
        assert all(claim["reference"] == claim["series"].removesuffix("-wait").replace(
                   "sim-", claim["reference"].split("-")[0] + "-") for claim in claims)
        assert all(claim["metric"] == "speedup" and claim["tolerance"] == 0.25
                   and claim["at"] == {"threads": threads} for claim in claims)
    # Every order claim's real counterpart holds on the data itself: the order stated is the file's.
    order = next(claim for claim in config.claims if claim["id"] == "real-order-at-28")
    real = {point.series: point.document["throughput"] for point in config.resolve("smoke").reference_points()
            if dict(point.coords)["threads"] == 28}
    values = [real[name] for name in order["series"]]
    assert values == sorted(values, reverse=True)
    assert np.all(np.diff(values) < 0)
    sim_order = next(claim for claim in config.claims if claim["id"] == "sim-order-at-28")
    assert [name.replace("sim-", "real-") for name in sim_order["series"]] == order["series"]


def test_the_figure_without_its_data_is_refused(tmp_path):
    """A fresh clone reads the vendored copy: a configs directory without it is a config error naming the file."""
    root = REPOSITORY_ROOT / "configs"
    configs = tmp_path / "configs"
    (configs / "figures" / "testbed").mkdir(parents=True)
    shutil.copytree(root / "machines", configs / "machines")   # the figure's modelled machine is there
    (configs / "figures" / "testbed" / f"{REPOSITORY_FIGURE}.yaml").write_text(
        (root / "figures" / "testbed" / f"{REPOSITORY_FIGURE}.yaml").read_text())
    with pytest.raises(ConfigError) as raised:
        FigureConfig.load(configs / "figures" / "testbed" / f"{REPOSITORY_FIGURE}.yaml",
                          load_profiles(root / "profiles"))
    assert [where for _, where, _ in raised.value.problems] == ["reference_data.dbx1000_hpe.file",
                                                               "reference_data.native_lent16.file"]
    assert "tpcc-4wh-optimised-hpe.csv" in raised.value.problems[0][2]
    assert "tpcc-4wh-native.csv" in raised.value.problems[1][2]


def test_an_unused_reference_data_block_is_refused(sandbox):
    document = copy.deepcopy(reference_figure())
    document["series"] = document["series"][:1]
    document["claims"] = []
    found = problems(sandbox, {**document, "plot": {"kind": "line", "x": "threads", "y": "throughput"}, "views": []})
    assert "no series reads it" in found["reference_data"]


def test_a_claim_at_a_point_the_data_does_not_cover_is_not_decided(sandbox, capsys):
    document = reference_figure()
    document["reference_data"]["dbx"]["covers"] = {"threads": [1, 2]}
    plant(sandbox, document)
    assert main(sandbox.cli_arguments("run", "ref-fig", "--profile", "repeated", "--quiet")) == 0
    tables = sandbox.workspace.tables_dir("repeated")
    verdicts = {claim["id"]: claim for claim in json.loads((tables / "ref-fig.claims.json").read_text())}
    # silo-agrees asks for 2 (covered) and 4 (not covered); nowait-agrees and real-order for 4 only.
    for claim in ("silo-agrees", "nowait-agrees", "real-order"):
        assert verdicts[claim]["outcome"] == NO_DATA, verdicts[claim]["detail"]
        assert "at threads=4" in verdicts[claim]["detail"]
    capsys.readouterr()


def test_repeated_runs_at_a_point_are_read_as_their_mean_only_when_asked(sandbox):
    """Two rows of SILO at 4 threads (repeated runs, no column tells them apart): a problem naming
    repeated_rows, and with repeated_rows: mean the mean of each field."""
    data = DATA + "SILO;4;4;15;False;450.0;4500;500\n"
    found = problems(sandbox, reference_figure(), data)
    assert "2 rows of reference/data.csv" in found["series[1].reference.rows"]
    assert "repeated_rows: mean" in found["series[1].reference.rows"]
    document = reference_figure()
    document["reference_data"]["dbx"]["repeated_rows"] = "mean"
    points = load(sandbox, document, data).resolve("quick").reference_points()
    by_point = {(point.series, dict(point.coords)["threads"]): point.document for point in points}
    assert by_point["real-silo", 4] == {"throughput": 400000.0, "commits": 4000.0, "aborts": 1000.0}
    assert by_point["real-silo", 2] == {"throughput": 180000.0, "commits": 1800.0, "aborts": 200.0}


FULL_MIX_FIGURE = "sim-reference-tpcc-full"


def test_the_full_mix_figure_reads_the_mean_of_the_two_real_runs_and_states_the_real_order():
    folder = REPOSITORY_ROOT / "configs" / "reference" / "1000-cores"
    digest = hashlib.sha256((folder / "tpcc-4wh-full-mix-hpe.csv").read_bytes()).hexdigest()
    assert digest in (folder / "README.md").read_text()
    config = load_catalog(Workspace.create()).figures[FULL_MIX_FIGURE]
    real = {(point.series, dict(point.coords)["threads"]): point.document
            for point in config.resolve("sim").reference_points()}
    assert len(real) == 7 * 6
    silo_28, silo_1 = real["real-silo", 28], real["real-silo", 1]
    assert silo_28["throughput"] == pytest.approx((2389.113186 + 2392.185772) / 2 * 1e3)
    assert silo_28["throughput"] / silo_1["throughput"] == pytest.approx(18.1, abs=0.05)      # issue 61's table
    assert silo_28["aborts"] / (silo_28["aborts"] + silo_28["commits"]) == pytest.approx(0.28, abs=0.005)
    for series in ("real-partcc", "real-dldetect"):   # they wait: at most 0.2 % of attempts abort up to 28
        assert all(real[series, threads]["aborts"] <= 0.002 * (real[series, threads]["aborts"] +
                                                               real[series, threads]["commits"])
                   for threads in (1, 2, 4, 8, 16, 28))

    protocols = ("nowait", "waitdie", "dldetect", "occ", "silo", "tictoc", "partcc")
    for metric, bound in (("speedup", ("tolerance", 0.25)), ("abort_rate", ("abs_tolerance", 0.1))):
        claims = [claim for claim in config.claims if claim["kind"] == "agrees" and claim["metric"] == metric]
        assert sorted(claim["series"] for claim in claims) == sorted(f"sim-{cc}" for cc in protocols)
        assert all(claim["reference"] == claim["series"].replace("sim-", "real-") and claim[bound[0]] == bound[1]
                   and claim["at"] == {"threads": [8, 16, 28]} for claim in claims)
    order = next(claim for claim in config.claims if claim["id"] == "real-order-at-28")
    values = [real[name, 28]["throughput"] for name in order["series"]]
    assert np.all(np.diff(values) < 0)
    sim_order = next(claim for claim in config.claims if claim["id"] == "sim-order-at-28")
    assert [name.replace("sim-", "real-") for name in sim_order["series"]] == order["series"]
    for claim_id, series, peak in (("dldetect-peaks-at-16", "real-dldetect", 16), ("partcc-peaks-at-4", "real-partcc", 4)):
        claim = next(claim for claim in config.claims if claim["id"] == claim_id)
        curve = {threads: real[series, threads]["throughput"] for threads in (1, 2, 4, 8, 16, 28)}
        assert claim["peak_at"] == peak == max(curve, key=curve.get)
