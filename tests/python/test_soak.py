"""scripts/soak.py (`make soak`) against stand-in engines: chunking until the
target is verified, a violation or broken invariant makes it fail, a pair
the binary refuses (exit 2) is listed, not failed, resuming
reuses the stored chunks of the same binary, bad arguments exit 2."""
from __future__ import annotations

import csv
import importlib.util
import stat
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parents[2] / "scripts" / "soak.py"
spec = importlib.util.spec_from_file_location("soak", SOAK)
soak = importlib.util.module_from_spec(spec)
spec.loader.exec_module(soak)

# A stand-in rundb binary: verifies exactly --measure_txns transactions;
# behaves badly at the seed given by its name (rundb-<cc>); logs each call.
FAKE = """#!{python}
import json, sys
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
open("{log}", "a").write(args["seed"] + "\\n")
bad = "{bad}"
seed = int(args["seed"])
serializable = not (bad == "cycle" and seed == 2)
inv_ok = not (bad == "invariant" and seed == 2)
if bad == "crash":
    sys.exit(134)
if bad == "refuse":
    print("error: --cc: protocol refuses this workload", file=sys.stderr)
    sys.exit(2)
json.dump({{"serializable": serializable, "violation": None if serializable else {{"kind": "cycle"}},
           "verify": {{"counts": {{"txns": int(args["measure_txns"])}}}},
           "invariants": [{{"name": "total", "ok": inv_ok}}]}}, open(args["out"], "w"))
sys.exit(0 if serializable and inv_ok else 3)
"""


def make_engine(tmp_path: Path, cc: str, bad: str = "") -> Path:
    path = tmp_path / "bin" / f"rundb-{cc}"
    path.parent.mkdir(exist_ok=True)
    path.write_text(FAKE.format(python=sys.executable, log=tmp_path / f"{cc}.log", bad=bad))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def run(tmp_path: Path, *extra: str) -> int:
    return soak.main(["--engine", str(tmp_path / "bin" / "rundb-{cc}"), "--out-dir", str(tmp_path / "out"),
                      "--table", str(tmp_path / "soak.md"), "--workloads=ycsb", *extra])


def table(tmp_path: Path) -> dict[str, dict]:
    with open(tmp_path / "out" / "soak.csv") as f:
        return {row["protocol"]: row for row in csv.DictReader(f)}


def test_runs_chunks_until_the_target_is_verified_and_resumes(tmp_path):
    make_engine(tmp_path, "good")
    make_engine(tmp_path, "nocc")  # not serializable by design: never soaked
    assert run(tmp_path, "--txns=2500", "--chunk=1000") == 0
    row = table(tmp_path)["good"]
    assert (row["runs"], row["txns_verified"], row["violations"]) == ("3", "3000", "0")
    assert "nocc" not in table(tmp_path)
    assert (tmp_path / "good.log").read_text().split() == ["1", "2", "3"]
    assert run(tmp_path, "--txns=2500", "--chunk=1000") == 0   # stored chunks of the same binary
    assert (tmp_path / "good.log").read_text().split() == ["1", "2", "3"]
    assert "| good | ycsb | 3 | 3,000 | 0 |" in (tmp_path / "soak.md").read_text()


@pytest.mark.parametrize("bad, column", [("cycle", "violations"), ("invariant", "invariants_broken"),
                                         ("crash", "failed_runs")])
def test_a_violation_broken_invariant_or_failed_run_fails_the_soak(tmp_path, bad, column):
    make_engine(tmp_path, "good")
    make_engine(tmp_path, "buggy", bad)
    assert run(tmp_path, "--txns=3000", "--chunk=1000") == 1
    assert table(tmp_path)["good"][column] == "0"
    assert int(table(tmp_path)["buggy"][column]) >= 1


def test_a_pair_the_binary_refuses_is_listed_not_failed(tmp_path):
    make_engine(tmp_path, "good")
    make_engine(tmp_path, "partial", "refuse")
    assert run(tmp_path, "--txns=2000", "--chunk=1000") == 0
    row = table(tmp_path)["partial"]
    assert row["refused"] == "--cc: protocol refuses this workload" and row["runs"] == "0"
    assert (tmp_path / "partial.log").read_text().split() == ["1"]  # not retried
    assert "| partial | ycsb | refused by the binary: --cc: protocol refuses this workload" in \
        (tmp_path / "soak.md").read_text()


def test_bad_arguments_exit_2(tmp_path, capsys):
    make_engine(tmp_path, "good")
    for args in (["--protocols=nosuch"], ["--workloads=tpcx"], ["--chunk=0"]):
        with pytest.raises(SystemExit) as exit_info:
            run(tmp_path, *args)
        assert exit_info.value.code == 2
    assert "--protocols: no serializable binary for nosuch" in capsys.readouterr().err
