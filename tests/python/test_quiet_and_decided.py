"""--require-quiet, --until-decided and `ccbench fidelity` end to end with the fake engine, and the config
fields behind them (expected_here/reason, deterministic_metrics, max_repetitions)."""
from __future__ import annotations

import json
import os

import pytest

from ccbench import load
from ccbench.cli import main
from conftest import figure_document

TICKS = os.sysconf("SC_CLK_TCK")
# The fake engine with --noise=0.1: Silo/OCC is 1.625 x a seed's noise; ">= 1.4" is undecided after the
# three repetitions and held after a fourth; ">= 1.55" stays undecided up to the test profile's cap of 6.
NOISY_BASE = {"workload": "ycsb", "threads": 1, "table_size": 1000, "noise": 0.1}


def ratio_claim(claim_id: str, bound: float, **more) -> dict:
    return {"id": claim_id, "kind": "ratio", "numerator": "silo", "denominator": "occ", "op": ">=", "bound": bound,
            "check": "trend", "text": f"Silo beats OCC by {bound}x", **more}


def engine_log(tmp_path, monkeypatch) -> list[str]:
    log = tmp_path / "engine.log"
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    return log


def lines(log) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def busy_queue(tmp_path, monkeypatch, *seconds: float) -> None:
    """The next runs of the fake engine each see that many seconds of other processes' CPU time."""
    queue = tmp_path / "busy"
    queue.write_text("".join(f"{int(s * TICKS)}\n" for s in seconds))
    monkeypatch.setenv("FAKE_ENGINE_BUSY_QUEUE", str(queue))


def claims_of(sandbox, profile: str, figure_id: str = "test-fig") -> dict:
    path = sandbox.workspace.tables_dir(profile) / f"{figure_id}.claims.json"
    return {claim["id"]: claim for claim in json.loads(path.read_text())}


@pytest.fixture
def quick_quiet_check(monkeypatch):
    monkeypatch.setattr(load, "QUIET_WINDOW_S", 0.01)


def test_require_quiet_runs_a_noisy_point_again(sandbox, tmp_path, monkeypatch, capsys, quick_quiet_check):
    log = engine_log(tmp_path, monkeypatch)
    busy_queue(tmp_path, monkeypatch, 30)               # the first run is disturbed, none after it
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0, 0.9]}, claims=None))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet", "--require-quiet")) == 0
    assert len(lines(log)) == 5 and len(set(lines(log))) == 4        # one point twice
    records = [json.loads(path.read_text()) for path in sandbox.records().values()]
    assert not any(record["load"]["noisy"] for record in records)
    assert sorted(record["quiet_attempts"] for record in records) == [1, 1, 1, 2]
    assert "run measured noisy (other processes" in capsys.readouterr().err


def test_require_quiet_keeps_the_last_run_when_the_retries_run_out(sandbox, tmp_path, monkeypatch, capsys,
                                                                   quick_quiet_check):
    log = engine_log(tmp_path, monkeypatch)
    busy_queue(tmp_path, monkeypatch, 30, 30)
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, series=[
        {"name": "silo", "params": {"cc": "silo"}}], claims=None))
    arguments = sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet", "--require-quiet",
                                      "--noisy-retries", "1")
    assert main(arguments) == 0
    assert len(lines(log)) == 2
    record, = [json.loads(path.read_text()) for path in sandbox.records().values()]
    assert record["load"]["noisy"] and record["quiet_attempts"] == 2
    assert "1 noisy run(s) at 1 point(s)" in (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()


def test_require_quiet_waits_for_the_machine_before_each_point(sandbox, tmp_path, monkeypatch, capsys):
    log = engine_log(tmp_path, monkeypatch)
    readings = []

    def measure() -> float:            # others busy at the first two looks before each point, then quiet
        readings.append(len(lines(log)))
        return 0.0 if len(readings) % 3 == 0 else 1.0
    monkeypatch.setattr(load, "other_cores_now", measure)
    monkeypatch.setattr(load, "QUIET_POLL_S", 0.01)
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0, 0.9]}, claims=None))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet", "--require-quiet")) == 0
    assert readings == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]     # three looks before each of the four runs
    assert capsys.readouterr().err.count("ccbench: waiting for a quiet machine: other processes use 1.00 cores") == 4


def test_without_require_quiet_nothing_waits(sandbox, monkeypatch):
    monkeypatch.setattr(load, "other_cores_now", lambda: pytest.fail("measured the machine without --require-quiet"))
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=None))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 0


def test_require_quiet_needs_the_local_backend(sandbox, capsys):
    sandbox.add_figure("test-fig")
    status = main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--require-quiet", "--backend", "ray"))
    assert status == 2 and "--require-quiet needs --backend local, not ray" in capsys.readouterr().err
    assert not sandbox.records()


def test_until_decided_adds_repetitions_until_the_verdict_is_decided(sandbox, tmp_path, monkeypatch, capsys):
    log = engine_log(tmp_path, monkeypatch)
    document = figure_document(base=NOISY_BASE, axes={"theta": [0.0]}, claims=[ratio_claim("clear", 1.4)])
    sandbox.add_figure("test-fig", document)
    plain = sandbox.cli_arguments("run", "test-fig", "--profile", "repeated", "--quiet")
    assert main(plain) == 0 and claims_of(sandbox, "repeated")["clear"]["outcome"] == "inconclusive"
    assert len(lines(log)) == 6
    assert main([*plain, "--until-decided"]) == 0
    assert len(lines(log)) == 8 and {line.split("--seed=")[1].split()[0] for line in lines(log)[6:]} == {"4"}
    clear = claims_of(sandbox, "repeated")["clear"]
    assert clear["outcome"] == "held" and clear["repetitions"] == [4, 4]
    assert "--until-decided: 2 further repetitions in 1 round(s)" in capsys.readouterr().err
    # The further repetitions are the figure's from now on: plot and report use them, nothing runs again.
    assert main(sandbox.cli_arguments("report", "--profile", "repeated")) == 0
    assert "| Silo beats OCC by 1.4x | trend ✔ | **held** | 4 |" in (sandbox.workspace.images_dir("repeated") / "REPORT.md").read_text()
    assert main([*plain, "--until-decided"]) == 0 and len(lines(log)) == 8


def test_until_decided_stops_at_the_profile_s_cap(sandbox, tmp_path, monkeypatch, capsys):
    log = engine_log(tmp_path, monkeypatch)
    claims = [ratio_claim("close", 1.55), ratio_claim("absolute", 1.55, check="absolute")]
    sandbox.add_figure("test-fig", figure_document(base=NOISY_BASE, axes={"theta": [0.0]}, claims=claims))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "repeated", "--quiet", "--until-decided")) == 0
    assert len(lines(log)) == 2 * 6                    # max_repetitions: 6 of the test profile
    close = claims_of(sandbox, "repeated")["close"]
    assert close["outcome"] == "inconclusive" and close["repetitions"] == [6, 6]
    assert close["checks"][0]["low"] < 1.55 <= close["checks"][0]["high"]
    assert "still inconclusive at the cap: test-fig/close" in capsys.readouterr().err


def test_until_decided_cannot_be_a_dry_run(sandbox, capsys):
    sandbox.add_figure("test-fig")
    assert main(sandbox.cli_arguments("run", "test-fig", "--until-decided", "--dry-run", "--profile", "quick")) == 2
    assert "--until-decided cannot be combined with --dry-run" in capsys.readouterr().err


def test_fidelity_writes_held_failed_inconclusive_and_not_checkable_per_paper(sandbox, capsys, quick_quiet_check):
    claims = [ratio_claim("beats", 1.2),
              ratio_claim("needs-cores", 2.0, expected_here="fail", reason="needs 16 cores to show"),
              ratio_claim("unexpected", 3.0),
              ratio_claim("authors-hardware", 1.0, check="absolute")]
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=claims))
    sandbox.add_figure("other-fig", figure_document(axes={"theta": [0.5]}, claims=[
        {"id": "falls", "kind": "value", "series": "occ", "op": "<", "bound": 1, "check": "trend", "text": "t"}]),
        paper="other")
    assert main(sandbox.cli_arguments("fidelity", "test-fig,other-fig", "--profile", "repeated", "--quiet")) == 0
    text = (sandbox.workspace.figures_dir / "FIDELITY.md").read_text()
    assert "| testbed | `test-fig` | 1 | 2 | 0 | 1 | 0 |" in text
    assert "| other | `other-fig` | 0 | 1 | 0 | 0 | 0 |" in text and "| **all** | | **1** | **3** | **0** | **1** |" in text
    assert "## other" in text and "## testbed" in text
    assert "| `beats` | **held** | 3 | silo/occ throughput: theta=0.0: 1.6" in text
    assert "| `needs-cores` | **failed** | 3 | expected here: needs 16 cores to show; numbers: silo/occ" in text
    assert "| `unexpected` | **failed** | 3 | no reason recorded (not expected to fail here)" in text
    assert "| `authors-hardware` | **not checkable here** | 3 | absolute number tied to the authors' hardware" in text
    assert "fidelity: " in capsys.readouterr().out


def test_fidelity_help_names_the_default_set(capsys):
    with pytest.raises(SystemExit) as done:
        main(["fidelity", "--help"])
    assert done.value.code == 0
    assert "ding-fig05" in capsys.readouterr().out.replace("\n", " ")


@pytest.mark.parametrize("change, message", [
    (lambda d: d["claims"][0].update(expected_here="pass", reason="r"),
     "claims[0].expected_here: 'pass' is not allowed; allowed values: fail"),
    (lambda d: d["claims"][0].update(expected_here="fail"), "claims[0].reason: required with expected_here"),
    (lambda d: d["claims"][0].update(reason="r"), "claims[0].reason: only with expected_here: fail"),
    (lambda d: d.update(deterministic_metrics=["throughput", "thruput"]),
     "deterministic_metrics[1]: 'thruput' is not a metric of this figure's table"),
])
def test_bad_verdict_fields_are_refused_naming_the_field(sandbox, capsys, change, message):
    document = figure_document()
    change(document)
    sandbox.add_figure("test-fig", document)
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick")) == 2
    assert message in capsys.readouterr().err and not sandbox.records()


def test_a_cap_below_the_repetitions_is_refused(sandbox, capsys):
    sandbox.write(sandbox.workspace.profiles_dir / "capped.yaml",
                  {"description": "d", "base": {}, "repetitions": 3, "max_repetitions": 2, "timeout_s": 5})
    sandbox.add_figure("test-fig")
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick")) == 2
    assert "capped.yaml: max_repetitions: 2 is below repetitions (3)" in capsys.readouterr().err
