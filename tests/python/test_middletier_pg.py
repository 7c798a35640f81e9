"""The middle tier (bin/middletier) against a real PostgreSQL server, and the
harness's private-server lifecycle (scripts/ccbench/run/pgserver.py).

The server tests skip, with the reason, only when no server can be started
here (no PostgreSQL binaries, or no unprivileged user to run them as root);
CI installs the packages (scripts/install-deps.sh), so there they run.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from ccbench import cli
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.run.engine import build_binaries
from ccbench.run.pgserver import PostgresUnavailable, find_bindir, private_server, remove_stale, server_user
from ccbench.specification.result_fields import schema_problem

# bin/middletier is built in the repository's build directory (make): one xdist worker runs every
# test that builds there (a build directory takes one build at a time).
pytestmark = pytest.mark.xdist_group("repository-build")

MIDDLETIER = REPOSITORY_ROOT / "bin" / "middletier"
# Under the repository, not pytest's tmp_path: as root the server runs as another
# user, who must be able to reach its data directory (/tmp/pytest-of-root is 0700).
PG_PARENT = REPOSITORY_ROOT / "results" / "pg-tests"
SHORT_RUN = ["--workload=smallbank", "--theta=0.9", "--smallbank_customers=10000", "--duration=1.5",
             "--warmup=0.3", "--connections=4"]


@pytest.fixture(scope="module")
def middletier() -> Path:
    problem = build_binaries(REPOSITORY_ROOT, ["middletier"], ["bin/middletier"])
    if problem:
        pytest.fail(f"bin/middletier cannot be built (it needs libpq-dev: make deps): {problem}")
    return MIDDLETIER


@pytest.fixture(scope="module")
def server():
    try:
        with private_server(PG_PARENT) as started:
            yield started
    except PostgresUnavailable as error:
        pytest.skip(f"PostgreSQL server cannot be started here: {error}")


def run_middletier(binary: Path, server, *flags: str) -> tuple[subprocess.CompletedProcess, dict | None]:
    done = subprocess.run([str(binary), *SHORT_RUN, *server.flags(), *flags], capture_output=True, text=True,
                          timeout=120)
    try:
        return done, json.loads(done.stdout)
    except json.JSONDecodeError:
        return done, None


def psql(server, sql: str) -> str:
    done = subprocess.run([str(find_bindir() / "psql"), "-h", server.host, "-p", str(server.port), "-U", server.user,
                           "-d", server.database, "-At", "-c", sql], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize("mode", ["nobatch", "batch", "reorder"])
def test_modes_commit_and_conserve_money(middletier, server, mode):
    done, result = run_middletier(middletier, server, f"--mode={mode}")
    assert done.returncode == 0, done.stderr
    assert schema_problem(result, "middletier") is None   # docs/result.schema.json, $defs/middletier
    assert result["config"]["mode"] == mode and result["config"]["isolation"] == "serializable"
    assert result["commits"] > 0 and result["throughput"] > 0
    assert result["invariants_ok"] is True
    assert result["invariants"][0]["name"] == "smallbank_money"
    assert 0 <= result["abort_rate"] < 1
    assert result["latency_us"]["avg"] > 0
    if mode == "reorder":   # the FVS of a hot SmallBank batch is never empty at θ 0.9
        assert result["reorder"]["batches"] > 0 and result["reorder"]["avg_fvs_size"] > 0
    else:
        assert result["reorder"]["batches"] == 0
    # The middle tier's tables are in the server, with every customer still there.
    assert psql(server, "SELECT count(*) FROM savings") == "10000"


def test_sessions_are_serializable(server):
    assert psql(server, "SHOW default_transaction_isolation") == "read committed"   # the server's default...
    # ...so the middle tier must set SERIALIZABLE itself; it checks and reports it (see above).


def test_broken_accounting_fails_the_conservation_check(middletier, server):
    done, result = run_middletier(middletier, server, "--mode=batch", "--mutation=double_count_deposits")
    assert done.returncode == 3, done.stderr
    assert result["invariants_ok"] is False
    assert "invariant smallbank_money broken" in done.stderr


def test_bad_flags_exit_2_naming_the_flag(middletier):
    for flags, name in ((["--mode=sideways", "--pg_port=5432"], "--mode"), ([], "--pg_port"),
                        (["--pg_port=5432", "--threads=4"], "--threads"),
                        (["--pg_port=5432", "--fvs_algorithm=magic"], "--fvs_algorithm")):
        done = subprocess.run([str(middletier), "--workload=smallbank", *flags], capture_output=True, text=True)
        assert done.returncode == 2, (flags, done.stderr)
        assert done.stderr.startswith(f"error: {name}"), done.stderr
        assert done.stdout == ""


def test_list_flags(middletier):
    listed = subprocess.run([str(middletier), "--list_flags"], capture_output=True, text=True).stdout.split()
    assert {"mode", "connections", "batch_size", "pg_port", "theta", "duration"} <= set(listed)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that does not reap it counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _gone(pid: int) -> bool:
    """The process ends within 10 s (pg_ctl stop -m immediate has returned; the exit may lag)."""
    for _ in range(100):
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def _postmaster_pid(data: Path) -> int:
    return int((data / "cluster" / "postmaster.pid").read_text().split()[0])


def test_server_is_stopped_and_removed_after_an_exception():
    try:
        with private_server(PG_PARENT / "exception") as started:
            data = Path(started.host)
            pid = _postmaster_pid(data)
            assert _alive(pid)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    except PostgresUnavailable as error:
        pytest.skip(f"PostgreSQL server cannot be started here: {error}")
    assert not data.exists()
    assert _gone(pid)


CHILD = """
import sys, time
from pathlib import Path
from ccbench.run.pgserver import PostgresUnavailable, private_server
try:
    with private_server(Path(sys.argv[1])) as server:
        print(server.host, flush=True)
        time.sleep(120)
except PostgresUnavailable as error:
    print("UNAVAILABLE", error, flush=True)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_server_is_stopped_and_removed_on_a_signal(signum):
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT / "scripts")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(PG_PARENT / "signal")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    line = child.stdout.readline().strip()
    if line.startswith("UNAVAILABLE") or not line:
        child.kill()
        pytest.skip(f"PostgreSQL server cannot be started here: {line or child.stderr.read()}")
    data = Path(line)
    pid = _postmaster_pid(data)
    child.send_signal(signum)
    # A guard against a hang, not a speed bound: CI runs pytest beside the
    # release ctest (scripts/run-tests.sh), and on a 2-core machine that load
    # once stretched the stop past 60 s.
    child.wait(timeout=180)
    assert not data.exists()
    assert _gone(pid)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the server as another user")
def test_unreachable_results_directory_falls_back_to_the_temporary_directory():
    locked = PG_PARENT / "locked"
    locked.mkdir(parents=True, exist_ok=True)
    locked.chmod(0o700)              # the server's user cannot traverse it
    try:
        with private_server(locked / "pg") as started:
            assert Path(started.host).parent == Path(tempfile.gettempdir()) / "ccbench-pg"
            assert psql(started, "SELECT 1") == "1"
        assert not Path(started.host).exists()
    except PostgresUnavailable as error:
        pytest.skip(f"PostgreSQL server cannot be started here: {error}")


def test_stale_server_of_a_killed_harness_is_removed():
    parent = PG_PARENT / "stale"
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT / "scripts")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(parent)], stdout=subprocess.PIPE, text=True, env=env)
    line = child.stdout.readline().strip()
    if line.startswith("UNAVAILABLE") or not line:
        child.kill()
        pytest.skip(f"PostgreSQL server cannot be started here: {line}")
    data = Path(line)
    pid = _postmaster_pid(data)
    child.kill()          # SIGKILL: no cleanup runs
    child.wait()
    assert data.exists() and _alive(pid)
    assert remove_stale(parent, find_bindir(), server_user()) == [data]
    assert not data.exists() and _gone(pid)


def test_sweep_without_a_server_reports_why_and_retries_later(sandbox, monkeypatch):
    """No server: the points are stored as failed with the reason, and tried again by the next sweep."""
    monkeypatch.setenv("CCBENCH_PG_BINDIR", str(sandbox.root / "no-postgres-here"))
    sandbox.add_figure("mt-fig", {
        "title": "middle tier without a server", "program": "middletier",
        "base": {"workload": "smallbank"}, "axes": {"connections": [2]},
        "series": [{"name": "batch", "label": "batch", "params": {"mode": "batch"}}],
        "plot": {"kind": "line", "x": "connections", "y": "throughput"}})
    arguments = sandbox.cli_arguments("run", "mt-fig", "--profile", "quick", "--quiet", "--program", "middletier=false")
    assert cli.main(arguments) == cli.EXIT_RUNS_FAILED
    [record_path] = sandbox.records().values()
    record = json.loads(record_path.read_text())
    assert record["status"] == "failed" and record["unavailable"] is True
    assert record["failure"].startswith("PostgreSQL server could not be started here: no PostgreSQL server binaries")
    table = (sandbox.workspace.tables_dir("quick") / "mt-fig.csv")
    assert table.exists()
    record_path.write_text(json.dumps({**record, "failure": "old"}))
    cli.main(arguments)   # not stored for good: run (and fail) again without --retry-failed
    assert json.loads(record_path.read_text())["failure"] != "old"
