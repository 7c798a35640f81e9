"""ccbench bench, compare, cost and account (make bench, demo, bench-compare, bench-cost, bench-account) against
the fake engine: the engine table with its memory bound, runs stored and reused, the interleaved before/after
comparison with per-point thread counts, the cost table and the account with their profile split, the repository's
grids, and bad input."""
from __future__ import annotations

import csv
import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest
import yaml

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.run import bench
from ccbench.run.workspace import Workspace
from conftest import FAKE_ENGINE

TINY = {"description": "tests: two skews, one and two threads", "run": {"duration": 0.02, "warmup": 0},
        "timeout_s": 20,
        "grid": [{"base": {"workload": "ycsb", "table_size": 1000, "req_per_txn": 16, "read_ratio": 0.5},
                  "axes": {"theta": [0.0, 0.9], "threads": [1, 2]}}]}


def write_grid(sandbox, name: str, document: dict) -> None:
    sandbox.write(sandbox.workspace.configs_dir / "bench" / f"{name}.yaml", document)


def log_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def logged(tmp_path, monkeypatch) -> Path:
    log = tmp_path / "engine.log"
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    return log


def test_bench_prints_the_engine_table_with_the_memory_bound_and_reuses_stored_runs(sandbox, logged, capsys):
    write_grid(sandbox, "tiny", TINY)
    assert main(sandbox.cli_arguments("bench", "tiny", "--protocols=silo,occ", "--quiet")) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("silo ", "occ "))]
    assert len(rows) == 8 and rows[0].split()[:4] == ["silo", "ycsb", "rows=1,000", "B=100"]
    # silo, theta 0, 1 thread, seed 1: 1e5 x 1.3 x 1.01 x 1.5 (prefetch) txn/s; 0.02 s -> 3939 commits;
    # 0.02e9 / 3939 = 5,077 ns per transaction, 317 per access, 1.59 x the fake's 200 ns access bound
    assert rows[0].split()[4:10] == ["theta=0.0", "1", "196,950", "5,077", "317", "1.59"]
    assert "memory bound, YCSB 1,000 rows x 100 B" in out and "bound per access 200.0 ns" in out
    calls = log_lines(logged)
    assert len(calls) == 8 and sum("--memory_bound=true" in call for call in calls) == 1
    with open(sandbox.workspace.results_dir / "tables" / "bench" / "tiny.csv") as f:
        table = list(csv.DictReader(f))
    assert [row["cc"] for row in table] == ["silo", "occ"] * 4 and float(table[0]["x_bound"]) == pytest.approx(
        5077.4 / 16 / 200, rel=1e-3)
    assert main(sandbox.cli_arguments("bench", "tiny", "--protocols=silo,occ", "--quiet")) == 0
    assert len(log_lines(logged)) == 8                         # every run stored from the same binary
    assert rows == [line for line in capsys.readouterr().out.splitlines() if line.startswith(("silo ", "occ "))]
    assert main(sandbox.cli_arguments("bench", "tiny", "--protocols=silo", "--rerun", "--quiet")) == 0
    assert len(log_lines(logged)) == 12


def test_a_failed_run_is_a_row_with_its_reason_and_exit_status_1(sandbox, capsys):
    write_grid(sandbox, "tiny", {**TINY, "run": {**TINY["run"], "misbehave": "crash", "misbehave_when": "theta=0.9"}})
    assert main(sandbox.cli_arguments("bench", "tiny", "--protocols=silo", "--quiet")) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("silo ") and "failed" in line]
    assert len(failed) == 2 and all("theta=0.9" in line and "killed by SIGABRT" in line
                                    and "fake engine: assertion failed, aborting" in line for line in failed)


def engine_directory(tmp_path: Path, name: str, protocols: list[str], *extra: str) -> Path:
    """A directory of rundb-<cc> binaries: scripts that run the fake engine as that protocol."""
    directory = tmp_path / name
    directory.mkdir()
    for cc in protocols:
        path = directory / f"rundb-{cc}"
        path.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_ENGINE} --cc={cc} {" ".join(extra)} "$@"\n')
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return directory


def test_compare_interleaves_both_sides_and_gives_each_points_threads_and_ratio(sandbox, tmp_path, logged, capsys):
    write_grid(sandbox, "tiny", TINY)
    before = engine_directory(tmp_path, "before", ["silo", "occ", "tictoc"], "--prefetch=false")   # 1.5x slower
    after = engine_directory(tmp_path, "after", ["silo", "occ"])
    arguments = sandbox.cli_arguments("compare", str(before), str(after), "--grid", "tiny", "--repeats", "3",
                                      "--quiet")
    assert main(arguments) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| silo") or line.startswith("| occ")]
    assert len(rows) == 8                                     # tictoc is not in both directories
    assert "| occ | ycsb rows=1,000 B=100 theta=0.0 threads=1 |" in rows[0]       # protocols innermost
    assert "| silo | ycsb rows=1,000 B=100 theta=0.0 threads=1 |" in rows[1]
    assert "| occ | ycsb rows=1,000 B=100 theta=0.0 threads=2 |" in rows[2]
    assert all(row.endswith("| 1.500 |") for row in rows)
    assert "8 points: geometric mean after/before 1.500, min 1.500, max 1.500" in out
    sides = ["before" if "--prefetch=false" in call else "after" for call in log_lines(logged)]
    assert sides[:6] == ["before", "after", "after", "before", "before", "after"]   # one point, three rounds
    assert len(sides) == 8 * 6
    seeds = [call.split("--seed=")[1].split()[0] for call in log_lines(logged)[:6]]
    assert seeds == ["1", "1", "2", "2", "3", "3"]
    assert main(arguments) == 0 and len(log_lines(logged)) == 2 * 8 * 6   # measured again, never reused


def test_compare_reads_builds_of_other_revisions_whose_results_follow_another_schema(sandbox, tmp_path, capsys):
    """BEFORE built at another revision echoes a flag today's schema does not know, so its result document does
    not match that schema as a whole; compare still reads its throughput beside AFTER's."""
    write_grid(sandbox, "tiny", TINY)
    older = tmp_path / "older"
    older.mkdir()
    echo_another_flag = tmp_path / "echo_another_flag.py"
    echo_another_flag.write_text(
        "import json, subprocess, sys\n"
        "code = subprocess.call([sys.executable, *sys.argv[1:]])\n"
        "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--out='))\n"
        "document = json.load(open(out))\n"
        "document['config']['a_flag_of_another_revision'] = 1\n"
        "json.dump(document, open(out, 'w'))\n"
        "sys.exit(code)\n")
    path = older / "rundb-silo"
    path.write_text(f'#!/bin/sh\nexec {sys.executable} {echo_another_flag} {FAKE_ENGINE} --cc=silo --prefetch=false "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    newer = engine_directory(tmp_path, "newer", ["silo"])
    assert main(sandbox.cli_arguments("compare", str(older), str(newer), "--grid", "tiny", "--quiet")) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| silo")]
    assert len(rows) == 4 and all(row.endswith("| 1.500 |") for row in rows)


def test_compare_refuses_a_missing_directory_no_common_protocol_or_one_directory_twice(sandbox, tmp_path, capsys):
    write_grid(sandbox, "tiny", TINY)
    only_silo, only_occ = (engine_directory(tmp_path, name, [cc]) for name, cc in (("a", "silo"), ("b", "occ")))
    assert main(sandbox.cli_arguments("compare", str(tmp_path / "nosuch"), str(only_silo), "--grid", "tiny")) == 2
    assert "is not a directory of rundb-<cc> binaries" in capsys.readouterr().err
    assert main(sandbox.cli_arguments("compare", str(only_silo), str(only_occ), "--grid", "tiny")) == 2
    assert "no rundb-<cc> of grid 'tiny' in both" in capsys.readouterr().err
    assert main(sandbox.cli_arguments("compare", str(only_silo), str(only_silo) + "/", "--grid", "tiny")) == 2
    assert "BEFORE and AFTER are the same directory" in capsys.readouterr().err   # one record per key: refused


def test_versus_runs_two_protocols_interleaved_on_the_same_flags_and_gives_the_ratio(sandbox, logged, capsys):
    arguments = sandbox.cli_arguments("versus", "occ", "silo", "--repeats", "3", "--quiet", "--workload=ycsb",
                                      "--table_size=1000", "--theta=0.5", "--threads=2", "--duration=0.02",
                                      "--warmup=0")
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert ("occ vs silo: ycsb rows=1,000 B=100 theta=0.5 threads=2; 3 interleaved run(s) of each, median and "
            "min-max over the runs") in out
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in out.splitlines() if line.startswith("| occ")
            or line.startswith("| silo")}
    # the fake engine: OCC 0.8 and Silo 1.3 of the base speed, abort rate 0.05 x theta x threads / speed,
    # throughput x 1.01, 1.02, 1.00 at seeds 1, 2, 3
    occ, silo = (float(rows[cc][1].replace(",", "")) for cc in ("occ", "silo"))
    assert occ * 1.3 == pytest.approx(silo * 0.8)
    low, high = (float(value.replace(",", "")) for value in rows["occ"][2].split("-"))
    assert low == pytest.approx(occ / 1.01, rel=1e-4) and high == pytest.approx(occ * 1.02 / 1.01, rel=1e-4)
    assert re.fullmatch(r"0\.06\d\d", rows["occ"][3]) and float(rows["occ"][3]) == pytest.approx(0.0625, abs=2e-4)
    low, high = rows["occ"][4].split("-")                                    # four digits shown, not 0.062
    assert re.fullmatch(r"0\.06\d\d", low) and re.fullmatch(r"0\.06\d\d", high) and low <= rows["occ"][3] <= high
    assert rows["silo"][5] == "3 / 3" and rows["silo"][6] == "0 |"               # runs ok, noisy
    assert "silo/occ throughput: 1.625 (ratio of the medians; 1.625-1.625 over the 3 pair(s) of runs)" in out
    assert "were noisy" not in out
    calls = log_lines(logged)
    assert [call.split("--cc=")[1].split()[0] for call in calls] == ["occ", "silo", "silo", "occ", "occ", "silo"]
    assert [call.split("--seed=")[1].split()[0] for call in calls] == ["1", "1", "2", "2", "3", "3"]
    assert all("--theta=0.5" in call and "--threads=2" in call for call in calls)
    assert main(arguments) == 0 and len(log_lines(logged)) == 12      # measured again, never reused


def test_versus_counts_and_says_its_noisy_runs(sandbox, logged, capsys, tmp_path, monkeypatch):
    """Runs during which other processes were busy are counted per protocol and said under the ratio."""
    queue = tmp_path / "busy"
    queue.write_text(f"{30 * os.sysconf('SC_CLK_TCK')}\n0\n{30 * os.sysconf('SC_CLK_TCK')}\n")  # runs 1 and 3 busy
    monkeypatch.setenv("FAKE_ENGINE_BUSY_QUEUE", str(queue))
    assert main(sandbox.cli_arguments("versus", "occ", "silo", "--repeats", "2", "--quiet", "--workload=ycsb",
                                      "--table_size=1000", "--duration=0.02", "--warmup=0")) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in out.splitlines() if line.startswith("| occ")
            or line.startswith("| silo")}
    # the order: occ silo, then silo occ: the busy runs are occ's first and silo's second
    assert rows["occ"][6] == "1 |" and rows["silo"][6] == "1 |"
    assert "2 of 4 runs were noisy: other processes used more than 0.1 cores while they ran" in out


@pytest.mark.parametrize("arguments, message", [
    (["occ", "occ"], "versus: name two different protocols, not occ occ"),
    (["occ", "nosuch"], "versus: 'nosuch' is not a protocol; did you mean nocc?; allowed: nowait|"),
    (["occ", "silp"], "versus: 'silp' is not a protocol; did you mean silo or si?; allowed: "),
    (["occ", "silo", "--threads", "2"], "versus: '2' is not an engine flag; write engine flags as --name=value"),
    (["occ", "silo", "--cc=tictoc"], "versus: --cc is not an engine flag"),
    (["occ", "silo", "--repeats", "0"], "--repeats: 0 is too small; it must be at least 1"),
    (["occ", "silo", "--threads=0"], "versus: --threads: invalid value '0'; allowed: an integer in [1, 1024]"),
    (["occ", "silo", "--threads=two"], "--threads: invalid int value: 'two'"),
    (["occ", "silo", "--theta=11"], "versus: --theta: invalid value '11'; allowed: a number in [0, 10]"),
])
def test_versus_refuses_bad_input_naming_it(sandbox, logged, capsys, arguments, message):
    """One line naming what is wrong, exit 2, nothing run: engine flags are asked of the binary first."""
    try:
        status = main(sandbox.cli_arguments("versus", *arguments))
    except SystemExit as exited:
        status = exited.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not logged.exists() and not sandbox.records()


def test_only_versus_takes_arguments_it_does_not_know(sandbox, capsys):
    with pytest.raises(SystemExit) as exited:
        main(sandbox.cli_arguments("list", "--workload=ycsb"))
    assert exited.value.code == 2 and "unrecognized arguments: --workload=ycsb" in capsys.readouterr().err


def test_cost_splits_the_prefetching_median_by_the_profile_run(sandbox, logged, capsys):
    sandbox.write(sandbox.workspace.configs_dir / "bench" / "cost.yaml",
                  yaml.safe_load((REPOSITORY_ROOT / "configs" / "bench" / "cost.yaml").read_text()))
    assert main(sandbox.cli_arguments("cost", "--rows", "1000", "--duration", "0.02", "--repeats", "2",
                                      "--protocols=nocc,silo", "--quiet")) == 0
    out = capsys.readouterr().out
    assert "ycsb rows=1,000 B=100 theta=0.0, 16 accesses, 2 threads (nocc 1); ns per access, median of 2" in out
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in out.splitlines() if line.startswith("| n")
            or line.startswith("| s")}
    for cc in ("nocc", "silo"):
        off, on, gain, index, lock, execute = (rows[cc][i] for i in range(1, 7))
        assert gain == "1.50x" and float(off) == pytest.approx(1.5 * float(on), abs=1)
        # the fake's profile: half index, a quarter each lock and execute
        assert float(index) == pytest.approx(float(on) / 2, abs=1) and lock == execute
    calls = log_lines(logged)
    assert len(calls) == 2 * 2 * 2 + 2 and sum("--profile=true" in call for call in calls) == 2
    assert all("--threads=1" in call for call in calls if "--cc=nocc" in call)
    assert all("--threads=2" in call and "--warmup=0.02" in call for call in calls if "--cc=silo" in call)


def test_account_splits_the_median_ns_per_commit_by_the_profile_run(sandbox, logged, capsys):
    write_grid(sandbox, "acct", {**TINY, "repetitions": 2, "protocols": ["silo"],
                                 "grid": [{"base": {"workload": "ycsb", "table_size": 1000, "threads": 2},
                                           "axes": {"theta": [0.0, 0.8]}}]})
    assert main(sandbox.cli_arguments("account", "acct", "--quiet")) == 0
    rows = {row["point"]: row for row in csv.DictReader(
        (sandbox.workspace.results_dir / "tables" / "bench" / "acct.csv").open())}
    calls = log_lines(logged)
    assert len(calls) == 2 * 2 + 2 and sum("--profile=true" in call for call in calls) == 2   # the grid's protocol
    assert all("--cc=silo" in call for call in calls)
    skewed, uniform = rows["ycsb rows=1,000 B=100 theta=0.8"], rows["ycsb rows=1,000 B=100 theta=0.0"]
    ns = float(skewed["ns_per_commit"])
    # the fake's profile at theta 0.8: abort 40 % of the timed 80 % (half attempts, half backoff), outside 20 %
    for part, share in {"aborted": 0.16, "backoff": 0.16, "outside": 0.2, "index": 0.24, "lock": 0.12,
                        "validation": 0.0}.items():
        assert float(skewed[part]) == pytest.approx(share * ns, rel=1e-6), part
    assert float(uniform["aborted"]) == float(uniform["backoff"]) == 0.0
    assert float(skewed["attempts_per_commit"]) > 1.0 == float(uniform["attempts_per_commit"])
    assert sum(float(skewed[part]) for part in bench.ACCOUNT_PARTS) == pytest.approx(ns)


@pytest.mark.parametrize("arguments, message", [
    (["bench", "nosuch"], "unknown grid 'nosuch'; grids (configs/bench/): mine, tiny"),
    (["bench", "tiny", "--protocols=silo,nosuch"], "--protocols: 'nosuch' cannot run grid 'tiny'"),
    (["bench", "tiny", "--protocols=nocc"], "--protocols: 'nocc' cannot run grid 'tiny'"),
    (["bench", "mine"], "mine.yaml: protocols: 'sillo' cannot run grid 'mine'; did you mean silo?"),
    (["cost", "--theta", "1"], "argument --theta: 1 is too large; it must be less than 1"),
    (["cost", "--repeats", "0"], "argument --repeats: 0 is too small; it must be at least 1"),
    (["cost", "--rows", "8"], "argument --rows: 8 is too small; it must be at least 16 (a transaction makes 16"),
])
def test_bad_arguments_exit_2_with_one_message(sandbox, capsys, arguments, message):
    write_grid(sandbox, "tiny", TINY)
    write_grid(sandbox, "mine", {**TINY, "protocols": ["sillo"]})
    try:
        status = main(sandbox.cli_arguments(*arguments))
    except SystemExit as exited:     # the parser's own checks
        status = exited.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("change, field", [
    ({"grid": [{"base": {"workload": "ycsb"}, "axis": {"theta": [0]}}]}, "grid[0].axis: unknown field"),
    ({"grid": [{"base": {"theta": 0.5}, "axes": {"theta": [0]}}]}, "grid[0].axes.theta: also set in base"),
    ({"grid": [{"base": {"duration": 1}}]}, "grid[0]: 'duration' is also set in run"),
    ({"unserializable": "sometimes"}, "unserializable: 'sometimes' is not allowed"),
    ({"tools": ["bench_nothing"]}, "tools[0]: 'bench_nothing' is not allowed"),
    ({"protocols": []}, "protocols: "),
])
def test_a_bad_grid_field_is_named_and_nothing_runs(sandbox, logged, capsys, change, field):
    write_grid(sandbox, "tiny", {**TINY, **change})
    assert main(sandbox.cli_arguments("bench", "tiny", "--protocols=silo")) == 2
    assert field in capsys.readouterr().err and not logged.exists()


def test_the_repository_grids_load_with_the_documented_points():
    workspace = Workspace.create()
    protocols = ["silo", "nowait"]
    sizes = {name: len(bench.Grid.load(workspace, name).points(workspace, protocols))
             for name in ("bench", "demo", "quick", "cost", "account")}
    # bench: YCSB 2 sizes x 5 skews x 2 thread counts + 3 DBx1000 points + TPC-C 2 mixes x 3 warehouse counts
    # quick: YCSB 3 skews + TPC-C 1, 2 and 4 warehouses
    # account: 3 rounds of YCSB 2 skews + TPC-C 1 and 2 warehouses
    assert sizes == {"bench": 2 * (20 + 3 + 6), "demo": 2, "quick": 2 * 6, "cost": 2 * 2 * 3, "account": 3 * 2 * 4}
    account = bench.Grid.load(workspace, "account")
    assert account.protocols(workspace) == ["nowait", "silo", "tictoc", "occ"]   # its own protocols: list
    assert account.protocols(workspace, ["silo"]) == ["silo"]                   # --protocols overrides it
    assert bench.Grid.load(workspace, "bench").tools == ("bench_fvs", "bench_strife")
    cost = bench.Grid.load(workspace, "cost")
    assert cost.protocols(workspace)[0] == "nocc"             # the floor first, on one worker
    assert {dict(p.flags)["threads"] for p in cost.points(workspace, ["nocc"])} == {1}


def test_a_flag_the_built_engine_does_not_list_is_one_error_before_any_run(sandbox):
    """The default engine (built by make, here a Makefile that writes the fake engine): the grid's flags are
    checked against `--list_flags` once the binaries are built, and nothing runs."""
    (sandbox.root / "Makefile").write_text(
        "all:\n\t@mkdir -p bin\n"
        f"\t@printf '#!/bin/sh\\nexec {sys.executable} {FAKE_ENGINE} --cc=$(CC) \"$$@\"\\n' > bin/rundb-$(CC)\n"
        "\t@chmod +x bin/rundb-$(CC)\n")
    workspace = Workspace.create(root=sandbox.root)
    write_grid(sandbox, "tiny", {**TINY, "grid": [{**TINY["grid"][0], "base": {**TINY["grid"][0]["base"],
                                                                              "tabel_size": 5}}]})
    grid = bench.Grid.load(workspace, "tiny")
    with pytest.raises(ConfigError) as error:
        bench.bench(workspace, grid, ["silo"], rerun=False, progress=False)
    assert str(error.value).endswith("tiny.yaml: grid[0].base.tabel_size: the engine has no flag --tabel_size "
                                     f"(`{sandbox.root / 'bin' / 'rundb-silo'} --list_flags` lists them)")
    assert (sandbox.root / "bin" / "rundb-silo").is_file() and not sandbox.records()
