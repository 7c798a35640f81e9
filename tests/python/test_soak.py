"""ccbench soak (`make soak`) against stand-in engines: chunking until the
target is verified, a violation, broken invariant or failed run makes it
fail, a pair the binary refuses (exit 2) is listed, not failed, resuming
reuses the stored chunks of the same binary, bad arguments exit 2."""
from __future__ import annotations

import csv
import stat
import sys
from pathlib import Path

import pytest

from ccbench.cli import main
from ccbench.run.soak import Pair, Settings
from conftest import FAKE_ENGINE


def make_engine(tmp_path: Path, cc: str, *misbehaviour: str) -> Path:
    """bin/rundb-<cc>: the fake engine as that protocol, misbehaving as asked; each call logged to <cc>.log."""
    path = tmp_path / "bin" / f"rundb-{cc}"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\nFAKE_ENGINE_LOG={tmp_path / (cc + '.log')} exec {sys.executable} {FAKE_ENGINE} "
                    f"--cc={cc} {' '.join(misbehaviour)} \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, *extra: str) -> int:
    return main(["soak", "--engine", str(tmp_path / "bin" / "rundb-{cc}"), "--results", str(tmp_path / "results"),
                 "--out-dir", str(tmp_path / "figures"), "--workloads=ycsb", "--quiet", *extra])


def seeds(tmp_path: Path, cc: str) -> list[str]:
    log = tmp_path / f"{cc}.log"
    return [word.split("=")[1] for line in log.read_text().splitlines() for word in line.split()
            if word.startswith("--seed=")] if log.exists() else []


def table(tmp_path: Path) -> dict[str, dict]:
    with open(tmp_path / "results" / "soak" / "soak.csv") as f:
        return {row["protocol"]: row for row in csv.DictReader(f)}


def test_runs_chunks_until_the_target_is_verified_and_resumes(tmp_path):
    make_engine(tmp_path, "silo")
    make_engine(tmp_path, "nocc")  # not serializable by design: never soaked
    assert run(tmp_path, "--txns=2500", "--chunk=1000") == 0
    row = table(tmp_path)["silo"]
    assert (row["runs"], row["txns_verified"], row["violations"]) == ("3", "3000", "0")
    assert "nocc" not in table(tmp_path) and seeds(tmp_path, "nocc") == []
    assert seeds(tmp_path, "silo") == ["1", "2", "3"]
    assert run(tmp_path, "--txns=2500", "--chunk=1000") == 0   # stored chunks of the same binary
    assert seeds(tmp_path, "silo") == ["1", "2", "3"]
    assert "| silo | ycsb | 3 | 3,000 | 0 |" in (tmp_path / "figures" / "soak.md").read_text()
    assert run(tmp_path, "--txns=4000", "--chunk=1000") == 0   # a larger target adds chunks, keeps the others
    assert seeds(tmp_path, "silo") == ["1", "2", "3", "4"]


@pytest.mark.parametrize("misbehaviour, column", [
    (["--misbehave=unserializable", "--misbehave_when=seed=2"], "violations"),
    (["--misbehave=exit3", "--misbehave_when=seed=2"], "invariants_broken"),
    (["--misbehave=crash"], "failed_runs")])
def test_a_violation_broken_invariant_or_failed_run_fails_the_soak(tmp_path, capsys, misbehaviour, column):
    make_engine(tmp_path, "silo")
    make_engine(tmp_path, "occ", *misbehaviour)
    assert run(tmp_path, "--txns=3000", "--chunk=1000") == 1
    assert table(tmp_path)["silo"][column] == "0"
    assert int(table(tmp_path)["occ"][column]) >= 1
    if column == "violations":
        assert "soak: occ ycsb seed 2: NOT SERIALIZABLE: {'kind': 'lost_update'" in capsys.readouterr().err
    if column == "failed_runs":   # a pair that keeps failing stops after three failed chunks
        assert table(tmp_path)["occ"]["failed_runs"] == "3" and seeds(tmp_path, "occ") == ["1", "2", "3"]


def test_a_pair_the_binary_refuses_is_listed_not_failed(tmp_path):
    make_engine(tmp_path, "silo")
    make_engine(tmp_path, "occ", "--misbehave=exit2")
    assert run(tmp_path, "--txns=2000", "--chunk=1000") == 0
    row = table(tmp_path)["occ"]
    assert row["refused"] == "flag --theta: value rejected by the fake engine" and row["runs"] == "0"
    assert seeds(tmp_path, "occ") == ["1"]  # not retried
    assert "| occ | ycsb | refused by the binary: flag --theta: value rejected by the fake engine" in \
        (tmp_path / "figures" / "soak.md").read_text()


def test_bad_arguments_exit_2(tmp_path, capsys):
    make_engine(tmp_path, "silo")
    for args, message in ((["--protocols=nosuch"], "--protocols: no serializable binary for nosuch; allowed: silo"),
                          (["--protocols=nocc"], "--protocols: no serializable binary for nocc"),
                          (["--workloads=tpcx"], "--workloads: unknown tpcx; did you mean tpcw or tpcc?; allowed: "
                                                 "ycsb,tpcc"),
                          (["--chunk=0"], "argument --chunk: 0 is too small; it must be at least 1")):
        try:
            status = run(tmp_path, *args)
        except SystemExit as exited:     # the parser's own checks
            status = exited.code
        assert status == 2
        assert message in capsys.readouterr().err
    assert seeds(tmp_path, "silo") == [] and not (tmp_path / "results" / "soak").exists()


def chunk(txns: int, serializable: bool = True) -> dict:
    return {"returncode": 0 if serializable else 3, "result": {"verify": {"counts": {"txns": txns}},
            "serializable": serializable, "invariants": [{"ok": True}]}}


@pytest.mark.parametrize("records, planned", [
    ({}, [1]),                                                   # the first chunk alone
    ({1: chunk(1000)}, [2, 3, 4, 5]),                            # then what the target still needs
    ({1: chunk(1000), 2: chunk(2000)}, [3, 4]),                  # runs may verify more than a chunk
    ({1: chunk(1000, serializable=False)}, [2, 3, 4, 5]),        # a violation is counted, not retried
    ({1: {"returncode": 134}}, [2]),                             # a failed run: one chunk at a time
    ({1: {"returncode": 134}, 2: chunk(1000), 3: {"returncode": None}}, [4]),
    ({1: {"returncode": 134}, 2: {"returncode": 134}, 3: {"returncode": 134}}, []),   # three failures: stop
    ({1: {"returncode": 2, "stderr_tail": "error: no partitions"}}, []),              # refused
    ({i: chunk(1000) for i in range(1, 6)}, []),                 # done
])
def test_each_wave_plans_the_chunks_a_pair_still_needs(records, planned):
    assert Pair("silo", "ycsb", records).next_seeds(Settings(txns=5000, chunk=1000, threads=2, timeout_s=60)) \
        == planned
