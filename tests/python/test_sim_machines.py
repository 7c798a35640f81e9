"""The modelled machines (configs/machines/, machines.py; docs/sim.md, "The modelled machine"): the files
validate, the papers' figures model their machines, the harness passes a machine's values as --sim_* flags,
bad names and clashing flags are refused naming the field, and a point run by hand (`ccbench simulate`)
gets the calibrated table, the stored fit and the machine, and its result names them."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from ccbench import load
from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.sim import workscale
from ccbench.specification import machines as modelled
from ccbench.specification.config import FigureConfig, figure_config_paths, load_profiles
from ccbench.specification.metrics import rate_text
from conftest import Sandbox, figure_document
from fake_engine import COST_TABLE

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
SIM_PROFILE = {"description": "tests: simulated, instant", "base": {"duration": 0.02, "warmup": 0.0},
               "repetitions": 1, "timeout_s": 20, "variant": "sim", "sim_cost_table": "sim/cost_table.json"}
# The machines the issue asks for: the testbed's and TSKD's, BCC's, Strife's, Ding's, the reference's.
REQUIRED = {"m5.8xlarge", "bcc-xeon-e7-8830", "strife-xeon-e7-4890v2", "ding-xeon-e5-2690v4",
            "hpe-superdome-flex-28"}


@pytest.fixture
def machine_sandbox(sandbox, monkeypatch) -> Sandbox:
    """A workspace with a simulating profile and the repository's machines."""
    sandbox.write(sandbox.workspace.profiles_dir / "simulated.yaml", SIM_PROFILE)
    shutil.copytree(CONFIGS / "machines", modelled.machines_dir(sandbox.workspace.configs_dir))
    monkeypatch.setattr(load, "QUIET_WINDOW_S", 0.01)
    return sandbox


def machine_document(name: str = "m5.8xlarge") -> dict:
    return yaml.safe_load((CONFIGS / "machines" / f"{name}.yaml").read_text())


def write_machine(configs: Path, document: dict, name: str | None = None) -> Path:
    path = modelled.machines_dir(configs) / f"{name or document['name']}.yaml"
    return Sandbox.write(path, document)


def sim_series() -> list[dict]:
    return [{"name": "silo", "params": {"cc": "silo"}, "variant": "native"},
            {"name": "sim-silo", "params": {"cc": "silo"}, "variant": "sim"}]


def flags_of(point) -> dict:
    return dict(point.flags)


# --- the machine files --------------------------------------------------------------------------------------

def test_every_machine_file_validates_with_a_value_and_a_source_for_every_field():
    known = modelled.load_machines(CONFIGS)
    assert REQUIRED <= set(known)
    for machine in known.values():
        assert set(machine.values) == set(modelled.FIELDS) == set(machine.sources)
        for field, source in machine.sources.items():
            assert re.match(modelled.SOURCE_PATTERN, source), (machine.name, field)
        assert machine.values["physical_cores"] % machine.values["sockets"] == 0
    # The papers' machines as the papers describe them (the configs' and docs' record of them).
    cores = {name: (known[name].values["physical_cores"], known[name].values["sockets"]) for name in REQUIRED}
    assert cores == {"m5.8xlarge": (16, 1), "bcc-xeon-e7-8830": (32, 4), "strife-xeon-e7-4890v2": (30, 2),
                     "ding-xeon-e5-2690v4": (28, 2), "hpe-superdome-flex-28": (28, 1)}


def _drop(field):
    def change(document):
        del document[field]
    return change


def _set(path, value):
    def change(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


@pytest.mark.parametrize("change, where, message", [
    (_drop("wake_up_ns"), "", "missing required field 'wake_up_ns'"),
    (_drop("papers"), "", "missing required field 'papers'"),
    (_set(["spin_round_ns"], {"value": 4.7}), "spin_round_ns", "missing required field 'source'"),
    (_set(["line_transfer_ns", "source"], "measured somewhere"), "line_transfer_ns.source", "must be matching"),
    (_set(["physical_cores", "value"], 0), "physical_cores.value", "too small"),
    (_set(["smt_factor", "value"], 0.5), "smt_factor.value", "too small"),
    (_set(["sockets", "value"], 3), "sockets", "a divisor of physical_cores (16)"),
    (_set(["name"], "another"), "name", "named as its file"),
    (_set(["gpu"], {"value": 1, "source": "[INF] x"}), "gpu", "unknown field"),
])
def test_a_bad_machine_file_is_a_config_error_naming_the_field(tmp_path, change, where, message):
    document = machine_document()
    change(document)
    path = write_machine(tmp_path, document, "m5.8xlarge")
    with pytest.raises(ConfigError) as error:
        modelled.load_machine(path)
    assert any(problem[1] == where and message in problem[2] for problem in error.value.problems), \
        error.value.problems


# --- the figures name their machines ------------------------------------------------------------------------

@pytest.mark.parametrize("figure_id, machine", [
    ("bcc-fig09", "bcc-xeon-e7-8830"), ("bcc-fig07", "bcc-xeon-e7-8830"),
    ("strife-fig06a", "strife-xeon-e7-4890v2"), ("strife-fig08c", "strife-xeon-e7-4890v2"),
    ("sim-reference-tpcc", "hpe-superdome-flex-28"),
    ("ycsb-threads", "m5.8xlarge"),    # names none: the sim profile's machine (the testbed's and TSKD's)
    ("sim-validation", None),          # the calibrating machine: compared with native runs here
])
def test_the_figures_model_their_machines_under_the_sim_profile(figure_id, machine):
    profiles = load_profiles(CONFIGS / "profiles")
    figure = FigureConfig.load(figure_config_paths(CONFIGS / "figures")[figure_id], profiles).resolve("sim")
    known = modelled.load_machines(CONFIGS)
    for point in figure.points():
        flags = flags_of(point)
        if not point.simulated or machine is None:
            assert not {modelled.PARAMETER, "sim_wake_up_ns", "sim_physical_cores"} & set(flags), point
            continue
        assert {name: flags[name] for name in known[machine].flags()} == known[machine].flags()


def test_the_report_names_the_modelled_machine():
    profiles = load_profiles(CONFIGS / "profiles")
    figure = FigureConfig.load(figure_config_paths(CONFIGS / "figures")["bcc-fig09"], profiles)
    assert figure.resolve("sim").modelled_machines() == ["bcc-xeon-e7-8830"]
    assert figure.resolve("small").modelled_machines() == []   # nothing simulated


def test_the_ding_fragment_models_dings_machine():
    fragment = yaml.safe_load((CONFIGS / "fragments/ding-cicada.yaml").read_text())
    assert fragment["profiles"]["sim"]["base"] == {"sim_machine": "ding-xeon-e5-2690v4"}


def test_no_figure_sets_what_its_machine_supplies():
    """The papers' figures named their machine by sim_physical_cores before; now the machine file says it."""
    for path in figure_config_paths(CONFIGS / "figures").values():
        text = path.read_text()
        assert "sim_physical_cores:" not in text and "sim_sockets:" not in text, path


# --- the harness passes the machine's values as flags -------------------------------------------------------

def test_the_harness_passes_the_machines_values_as_flags_and_the_result_names_the_model(machine_sandbox):
    document = figure_document(series=sim_series(), claims=None,
                               profiles={"simulated": {"base": {"sim_machine": "bcc-xeon-e7-8830"}}})
    machine_sandbox.add_figure("test-fig", document)
    assert main(machine_sandbox.cli_arguments("run", "test-fig", "--profile", "simulated", "--quiet")) == 0
    machine = modelled.load_machines(machine_sandbox.workspace.configs_dir)["bcc-xeon-e7-8830"]
    runs = [json.loads(path.read_text()) for path in machine_sandbox.records().values()]
    simulated = [run for run in runs if "sim" in run["result"]]
    assert simulated and len(simulated) < len(runs)
    for run in runs:
        flags = [word for word in run["command"] if word.startswith("--sim_")]
        if "sim" not in run["result"]:   # the native series: no machine, no simulation flag
            assert flags == [], run["command"]
            continue
        for field, value in machine.values.items():
            assert f"--sim_{field}={value:g}" in run["command"]
        model = run["result"]["sim"]["model"]
        assert model["machine"] == "bcc-xeon-e7-8830"
        assert model["op_sources"]["wake_up"] == "machine" and model["op_sources"]["row_read"] == "cost_table"
        assert run["result"]["sim"]["cost_table"]["wake_up"] == machine.values["wake_up_ns"]
        assert run["result"]["sim"]["physical_cores"] == 32 and run["result"]["sim"]["sockets"] == 4
    assert main(machine_sandbox.cli_arguments("report", "--profile", "simulated")) == 0
    report = (machine_sandbox.workspace.images_dir("simulated") / "REPORT.md").read_text()
    assert "modelled machine `bcc-xeon-e7-8830` (configs/machines/" in report


def test_the_profiles_machine_applies_to_a_figure_that_names_none_and_calibrating_to_none(machine_sandbox):
    profile = {**SIM_PROFILE, "sim_machine": "m5.8xlarge"}
    machine_sandbox.write(machine_sandbox.workspace.profiles_dir / "simulated.yaml", profile)
    profiles = load_profiles(machine_sandbox.workspace.profiles_dir)
    path = machine_sandbox.add_figure("test-fig", figure_document(claims=None))
    points = FigureConfig.load(path, profiles).resolve("simulated").points()
    assert all(flags_of(point)["sim_machine"] == "m5.8xlarge" for point in points)
    assert all(flags_of(point)["sim_physical_cores"] == 16 for point in points)
    path = machine_sandbox.add_figure("test-fig", figure_document(claims=None, base={
        **figure_document()["base"], "sim_machine": "calibrating"}))
    points = FigureConfig.load(path, profiles).resolve("simulated").points()
    assert not any(name.startswith("sim_") for point in points for name in flags_of(point))


@pytest.mark.parametrize("place, where", [
    ({"profiles": {"simulated": {"base": {"sim_machine": "cray-1"}}}}, "profiles.simulated.base.sim_machine"),
    ({"axes": {"theta": [0.0, 0.9], "sim_machine": ["m5.8xlarge", "cray-1"]}},
     "axes.sim_machine"),
])
def test_an_unknown_machine_is_refused_naming_the_field_and_the_machines(machine_sandbox, place, where):
    path = machine_sandbox.add_figure("test-fig", figure_document(claims=None, **place))
    with pytest.raises(ConfigError) as error:
        FigureConfig.load(path, load_profiles(machine_sandbox.workspace.profiles_dir))
    (problem,) = error.value.problems
    assert problem[1] == where
    assert "'cray-1' is not a modelled machine; allowed: bcc-xeon-e7-8830," in problem[2]
    assert "m5.8xlarge" in problem[2] and "calibrating" in problem[2]


def test_an_unknown_profile_machine_is_refused_naming_the_field(machine_sandbox):
    machine_sandbox.write(machine_sandbox.workspace.profiles_dir / "simulated.yaml",
                          {**SIM_PROFILE, "sim_machine": "cray-1"})
    with pytest.raises(ConfigError) as error:
        load_profiles(machine_sandbox.workspace.profiles_dir)
    assert error.value.problems[0][1] == "sim_machine" and "allowed: bcc-xeon-e7-8830" in error.value.problems[0][2]


def test_a_figure_that_sets_a_flag_its_machine_supplies_is_refused(machine_sandbox):
    document = figure_document(claims=None, profiles={"simulated": {"base": {
        "sim_machine": "m5.8xlarge", "sim_physical_cores": 32}}})
    path = machine_sandbox.add_figure("test-fig", document)
    with pytest.raises(ConfigError) as error:
        FigureConfig.load(path, load_profiles(machine_sandbox.workspace.profiles_dir))
    (problem,) = error.value.problems
    assert problem[1] == "profiles.simulated.base.sim_machine"
    assert "sets sim_physical_cores, also set by the figure" in problem[2]


def test_an_unknown_machine_exits_2_before_anything_runs(machine_sandbox, capsys):
    machine_sandbox.add_figure("test-fig", figure_document(
        claims=None, profiles={"simulated": {"base": {"sim_machine": "cray-1"}}}))
    assert main(machine_sandbox.cli_arguments("run", "test-fig", "--profile", "simulated", "--quiet")) == 2
    assert "sim_machine: 'cray-1' is not a modelled machine" in capsys.readouterr().err
    assert not machine_sandbox.records()


# --- a point by hand: ccbench simulate ---------------------------------------------------------------------

def simulate(sandbox: Sandbox, *arguments: str) -> int:
    return main(sandbox.cli_arguments("simulate", "silo", "--profile", "simulated", *arguments))


def test_a_point_by_hand_gets_the_calibrated_table_the_stored_fit_and_the_machine(machine_sandbox, tmp_path,
                                                                                  capsys):
    table = machine_sandbox.workspace.results_dir / "sim/cost_table.json"
    table.parent.mkdir(parents=True)
    table.write_text(json.dumps(COST_TABLE))
    engine_flags = ["--workload=ycsb", "--theta=0.9", "--threads=8"]
    key = workscale.fit_key("silo", engine_flags)
    digest = hashlib.sha256(table.read_bytes()).hexdigest()
    workscale.store_path(table).write_text(json.dumps({key: {"scale": "ycsb:1.5", "cost_table_sha256": digest[:16]}}))
    out = tmp_path / "point.json"
    assert simulate(machine_sandbox, "--machine", "strife-xeon-e7-4890v2", *engine_flags, f"--out={out}") == 0
    printed = capsys.readouterr()
    err = printed.err
    result = json.loads(out.read_text())   # the summary on stdout is the result's
    assert printed.out.splitlines() == [
        f"silo, simulated: {result['throughput']:,.0f} txn/s, abort rate {rate_text(result['abort_rate'])}; 8 virtual "
        f"cores on 30 physical cores (SMT factor {result['sim']['smt_factor']:g}), 1 virtual s measured after 0 s of "
        f"warm-up ({result['sim']['wall_seconds']:.1f} s wall)",
        f"  model: cost table {result['sim']['model']['cost_table_source']}, machine strife-xeon-e7-4890v2, work "
        f"scale fit cost_table.work_scales.json [{key}] (the result's sim.model)",
        f"  result: {out}"]
    assert "ccbench: machine strife-xeon-e7-4890v2" in err and f"cost table {table}" in err
    assert "work scale ycsb:1.5" in err
    model = json.loads(out.read_text())["sim"]["model"]
    assert model["machine"] == "strife-xeon-e7-4890v2" and model["cost_table_sha256"] == digest
    assert model["work_scale"] == "ycsb:1.5"
    assert model["work_scale_source"] == f"fit cost_table.work_scales.json [{key}]"
    assert json.loads(out.read_text())["sim"]["physical_cores"] == 30


@pytest.mark.parametrize("misbehave, status, verdict", [
    ("none", 0, "  verified: serializable; history of {txns:,} committed transactions checked (docs/verify.md)"),
    ("unserializable", 3, "  verified: NOT serializable (the witness: verify.violation); history of {txns:,} "
                          "committed transactions checked (docs/verify.md)"),
])
def test_a_verified_point_by_hand_prints_the_verdict_and_without_out_keeps_stdout_the_result(
        machine_sandbox, capfd, misbehave, status, verdict):
    table = machine_sandbox.workspace.results_dir / "sim/cost_table.json"
    table.parent.mkdir(parents=True)
    table.write_text(json.dumps(COST_TABLE))
    assert simulate(machine_sandbox, "--workload=ycsb", "--threads=4", "--verify=true",
                    f"--misbehave={misbehave}") == status
    printed = capfd.readouterr()
    result = json.loads(printed.out)       # stdout: the result document alone, as the binary printed it
    assert printed.err.splitlines()[-1] == verdict.format(txns=result["verify"]["counts"]["txns"])
    assert "silo, simulated: " in printed.err and "4 virtual cores" in printed.err


def test_a_point_by_hand_without_a_calibration_says_it_runs_the_builtin_table(machine_sandbox, capsys, tmp_path):
    # The fake engine needs a table to simulate, so the refusal path is checked on the message alone: the
    # command says so and passes no --sim_cost_table (the binary then says "BUILT-IN" in its last log line).
    from ccbench.sim import point
    from ccbench.specification.config import load_profiles as profiles_of
    lines = []
    arguments = point.model_arguments("silo", ["--workload=ycsb"], profiles_of(
        machine_sandbox.workspace.profiles_dir)["simulated"], None, machine_sandbox.workspace.configs_dir,
        tmp_path / "no-results", None, lines.append)
    assert not any(word.startswith("--sim_cost_table") for word in arguments)
    assert any("the run uses the BUILT-IN table" in line for line in lines)


@pytest.mark.parametrize("arguments, message", [
    (["--machine", "cray-1"], "--machine: 'cray-1' is not a modelled machine; allowed: bcc-xeon-e7-8830"),
    (["--machine", "m5.8xlarge", "--sim_physical_cores=4"],
     "sets sim_physical_cores, also set by the engine flags"),
])
def test_a_point_by_hand_refuses_a_bad_machine(machine_sandbox, capsys, arguments, message):
    assert simulate(machine_sandbox, *arguments, "--workload=ycsb") == 2
    assert message in capsys.readouterr().err


def test_a_point_by_hand_fits_a_missing_work_scale_with_fit(machine_sandbox, tmp_path):
    table = machine_sandbox.workspace.results_dir / "sim/cost_table.json"
    table.parent.mkdir(parents=True)
    table.write_text(json.dumps(COST_TABLE))
    engine_flags = ["--workload=ycsb", "--theta=0.9", "--threads=4"]
    out = tmp_path / "point.json"
    assert simulate(machine_sandbox, "--fit", *engine_flags, f"--out={out}") == 0
    key = workscale.fit_key("silo", engine_flags)   # --out is not part of the configuration
    fits = json.loads(workscale.store_path(table).read_text())
    assert list(fits) == [key]
    model = json.loads(out.read_text())["sim"]["model"]
    assert model["work_scale"] == fits[key]["scale"]
    assert model["work_scale_source"] == f"fit cost_table.work_scales.json [{key}]"
    assert model["machine"] == ""   # the profile names none: the calibrating machine
