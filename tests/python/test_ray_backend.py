"""The Ray backend on Ray clusters of this machine, over loopback (ray.cluster_utils.Cluster).

One module-scoped cluster: a head with no CPUs and no machine resource, and two
machines (2 CPUs and one `ccbench_machine` each), the first started with a CPU
mask of one CPU, as a `taskset` around `ray start` would leave it. Tests that
need a third machine (a wrong binary, a node that dies) add it and remove it.
The engine is the fake one, behind a wrapper script found on PATH, so that a
machine can be given another wrapper (another digest) through its PATH.
"""
from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path

import pandas
import pytest

from ccbench import cli
from ccbench.run.cluster import MACHINE_RESOURCE, SHARED_SLIVER, Machine, RayBackend
from ccbench.run.engine import Task
from ccbench.run.machine import format_cpu_list, online_cpus
from ccbench.run.runner import run_sweep
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import FAKE_ENGINE, Sandbox, figure_document

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402  (after the skip)

# One local Ray cluster per module (the fixture): its tests run on one xdist worker.
pytestmark = pytest.mark.xdist_group("ray")

WRAPPER = "ccbench-fake-engine"      # found on PATH by the driver and by every machine
ENGINE = f"{WRAPPER} --cc={{cc}}"
SMALL_NODE = dict(num_cpus=2, resources={MACHINE_RESOURCE: 1}, object_store_memory=80 * 1024 * 1024)


def _wrapper(directory: Path, note: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / WRAPPER
    script.write_text(f"#!/bin/sh\n# {note}\nexec {sys.executable} {FAKE_ENGINE} \"$@\"\n")
    script.chmod(0o755)
    return directory


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if len(online_cpus()) < 2:
        pytest.skip("needs 2 CPUs: one machine is started on a mask of one")
    good = _wrapper(tmp_path_factory.mktemp("good"), "the driver's build")
    saved_path, saved_mask = os.environ["PATH"], os.sched_getaffinity(0)
    os.environ["PATH"] = f"{good}{os.pathsep}{saved_path}"     # nodes inherit it when started
    # Fast failure detection: a killed node is noticed in about a second.
    head = cluster_utils.Cluster(initialize_head=True, head_node_args=dict(
        num_cpus=0, include_dashboard=False, object_store_memory=80 * 1024 * 1024,
        _system_config={"health_check_period_ms": 500, "health_check_failure_threshold": 3,
                        "health_check_initial_delay_ms": 0}))
    try:
        os.sched_setaffinity(0, {min(saved_mask)})
        masked = head.add_node(**SMALL_NODE)
        os.sched_setaffinity(0, saved_mask)
        plain = head.add_node(**SMALL_NODE)
        ray.init(address=head.address, log_to_driver=False)
        yield head, masked, plain
    finally:
        os.sched_setaffinity(0, saved_mask)
        ray.shutdown()
        head.shutdown()
        os.environ["PATH"] = saved_path


@pytest.fixture
def ray_sandbox(tmp_path: Path) -> Sandbox:
    sandbox = Sandbox(tmp_path)
    sandbox.workspace = Workspace.create(root=tmp_path, engine=ENGINE)
    return sandbox


def _figure(sandbox: Sandbox, duration: float, threads: list[int], thetas: list[float], **extra):
    document = figure_document(axes={"threads": threads, "theta": thetas}, base={"workload": "ycsb"},
                               series=[{"name": "silo", "params": {"cc": "silo"}}], claims=None,
                               plot={"kind": "line", "x": "threads", "y": "throughput"},
                               profiles={"quick": {"base": {"duration": duration}}}, **extra)
    path = sandbox.add_figure("ray-fig", document)
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")


def _sweep(sandbox: Sandbox, figure, **backend_options):
    messages: list[str] = []
    backend = RayBackend(workspace=sandbox.workspace, log=messages.append, **backend_options)
    summary = run_sweep([figure], sandbox.workspace, backend, progress=False, log=messages.append)
    records = [json.loads(path.read_text()) for path in sandbox.records().values()]
    return summary, records, messages


def _interval(record: dict) -> tuple[datetime.datetime, datetime.datetime]:
    return (datetime.datetime.fromisoformat(record["started_at"]),
            datetime.datetime.fromisoformat(record["finished_at"]))


def _most_at_once(records: list[dict]) -> int:
    """The most runs in progress at one instant among these records."""
    events = sorted((moment, step) for record in records for moment, step in zip(_interval(record), (1, -1)))
    return max(itertools.accumulate(step for _, step in events))


def _by_node(records: list[dict]) -> dict[str, list[dict]]:
    nodes: dict[str, list[dict]] = {}
    for record in records:
        nodes.setdefault(record["node"]["ray_node_id"], []).append(record)
    return nodes


def test_cli_backend_ray_starts_a_local_ray_whose_only_machine_is_this_one(sandbox):
    """Runs before the module's cluster starts: `--backend ray` without an address starts its own Ray."""
    sandbox.add_figure("solo", figure_document(axes={"theta": [0.0, 0.5]}, claims=None))
    assert cli.main(sandbox.cli_arguments("run", "solo", "--profile", "quick", "--backend", "ray", "--quiet")) == 0
    records = [json.loads(path.read_text()) for path in sandbox.records().values()]
    assert len(records) == 4 and all(record["status"] == "ok" for record in records)
    assert {record["node"]["hostname"] for record in records} == {os.uname().nodename}
    runs = pandas.read_csv(sandbox.workspace.tables_dir("quick") / "solo.runs.csv")   # a figure's machines, per run
    assert set(runs["host"]) == {os.uname().nodename} and runs["cpu_model"].notna().all()
    assert not ray.is_initialized()        # the Ray it started is stopped again


def _hold(seconds: float) -> tuple[float, float]:
    """Another user of a machine: holds its unit for a while; returns when (time.time())."""
    began = time.time()
    time.sleep(seconds)
    return began, time.time()


def test_machine_fits_a_point_by_placement_and_threads():
    """The driver's side of placement (Ray's resource request is the other, tested on the cluster)."""
    machine = Machine("n" * 56, cpus=4)
    exclusive, shared = (Task(key, "rundb", "silo", (), 1.0, threads, "t", placement=placement)
                         for key, threads, placement in (("e", 1, "exclusive"), ("s", 3, "shared")))
    assert machine.fits_now(exclusive) and machine.fits_now(shared)
    machine.take(shared)
    assert not machine.fits_now(exclusive)                        # not beside a shared point, CPUs or not
    assert not machine.fits_now(dataclasses.replace(shared, key="s2", threads=2))    # 3 + 2 > 4 CPUs
    assert machine.fits_now(dataclasses.replace(shared, key="s2", threads=1)) and machine.has_room()
    machine.release(shared)
    machine.take(exclusive)
    assert not machine.has_room() and not machine.fits_now(dataclasses.replace(shared, threads=1))
    machine.release(exclusive)
    assert machine.fits_now(dataclasses.replace(exclusive, threads=4))
    assert not machine.fits_now(dataclasses.replace(exclusive, threads=5))
    machine.retired = "node died"
    assert not machine.fits_now(exclusive) and not machine.has_room()


def test_exclusive_points_never_share_a_machine_and_the_head_takes_none(cluster, ray_sandbox):
    head, masked, plain = cluster
    figure = _figure(ray_sandbox, 0.6, threads=[1, 3], thetas=[0.0, 0.3, 0.6, 0.9])
    # Another sweep runs a shared point on one machine for a while: the exclusive points wait for it there.
    # The driver does not know it: Ray's resource request alone keeps them apart.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    other_user = ray.remote(_hold).options(num_cpus=0, resources={MACHINE_RESOURCE: SHARED_SLIVER}, scheduling_strategy=
                                           NodeAffinitySchedulingStrategy(plain.node_id, soft=False)).remote(2.0)
    summary, records, _ = _sweep(ray_sandbox, figure)
    held = [datetime.datetime.fromtimestamp(moment, datetime.timezone.utc) for moment in ray.get(other_user)]

    assert summary.ran == 4 and summary.failed == 0 and all(record["status"] == "ok" for record in records)
    # 3 threads on machines of 2 CPUs: reported before anything started, not stored, not hung.
    assert set(summary.skipped.values()) == {"needs 3 CPUs; the largest machine has 2"}
    nodes = _by_node(records)
    assert set(nodes) == {masked.node_id, plain.node_id}         # both machines, never the head
    for on_one_machine in nodes.values():
        assert _most_at_once(on_one_machine) == 1                # 2 CPUs free, yet one point at a time
    assert all(_interval(record)[0] >= held[1] for record in nodes[plain.node_id])
    for record in records:
        node = record["node"]
        assert node["hardware_threads"] == len(online_cpus()) and node["cpu_model"]
        assert node["physical_cores"] >= 1 and node["smt_siblings_in_use"] == 0


def test_shared_points_pack_by_threads(cluster, ray_sandbox):
    # Each point lasts 6 s: the second point on a machine needs a new Ray worker process, whose start
    # took over 2 s on a loaded 2-core CI machine, so that 2 s points never overlapped there.
    figure = _figure(ray_sandbox, 6.0, threads=[1], thetas=[0.0, 0.3, 0.6, 0.9], placement="shared")
    summary, records, _ = _sweep(ray_sandbox, figure)

    assert summary.ran == 4 and summary.failed == 0
    nodes = _by_node(records)
    assert max(_most_at_once(on_one_machine) for on_one_machine in nodes.values()) == 2   # two 1-thread points
    assert all(_most_at_once(on_one_machine) <= 2 for on_one_machine in nodes.values())   # of 2 CPUs


def test_each_point_gets_every_cpu_of_its_machine(cluster, ray_sandbox):
    head, masked, plain = cluster
    figure = _figure(ray_sandbox, 0.3, threads=[2], thetas=[0.0, 0.9])
    summary, records, _ = _sweep(ray_sandbox, figure)

    every_cpu = format_cpu_list(set(online_cpus()))
    assert summary.ran == 2 and {record["node"]["cpu_mask"] for record in records} == {every_cpu}
    inherited = {record["node"]["ray_node_id"]: record["node"]["cpu_mask_inherited"] for record in records}
    assert inherited == {masked.node_id: str(min(os.sched_getaffinity(0))), plain.node_id: every_cpu}
    assert all(record["node"]["smt_siblings_in_use"] == 0 for record in records)   # 2 threads, 2 cores


def test_a_machine_with_another_binary_is_refused_by_name(cluster, ray_sandbox, tmp_path):
    head, masked, plain = cluster
    other = _wrapper(tmp_path / "other", "another build")
    stranger = head.add_node(**SMALL_NODE, env_vars={"PATH": f"{other}{os.pathsep}{os.environ['PATH']}"})
    try:
        figure = _figure(ray_sandbox, 0.2, threads=[1], thetas=[0.0, 0.3, 0.6, 0.9, 0.99, 0.5])
        summary, records, messages = _sweep(ray_sandbox, figure)
    finally:
        head.remove_node(stranger)

    refusals = [message for message in messages if "refused" in message]
    assert len(refusals) == 1 and stranger.node_id[:12] in refusals[0] and f"{WRAPPER} has digest" in refusals[0]
    assert summary.ran == 6 and summary.failed == 0
    assert {record["node"]["ray_node_id"] for record in records} <= {masked.node_id, plain.node_id}


def test_a_machine_that_dies_mid_sweep_loses_no_point_and_stores_no_duplicate(cluster, ray_sandbox, tmp_path):
    head, masked, plain = cluster
    started_there = tmp_path / "doomed.log"      # the fake engine logs each start on that machine here
    doomed = head.add_node(**SMALL_NODE, env_vars={"FAKE_ENGINE_LOG": str(started_there)})
    figure = _figure(ray_sandbox, 1.5, threads=[1], thetas=[0.0, 0.2, 0.4, 0.6, 0.8, 0.9])

    def kill_once_a_point_runs_there() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (started_there.exists() and started_there.read_text()):
            time.sleep(0.05)
        head.remove_node(doomed, allow_graceful=False)

    killer = threading.Thread(target=kill_once_a_point_runs_there)
    killer.start()
    summary, records, messages = _sweep(ray_sandbox, figure)
    killer.join()

    assert started_there.read_text().count("\n") >= 1
    assert summary.total == 6 and summary.ran == 6 and summary.failed == 0 and not summary.skipped
    assert len(records) == 6 and len({record["key"] for record in records}) == 6
    assert all(record["status"] == "ok" for record in records)
    moved = [record for record in records if "moved" in record]
    assert moved and all(record["moved"][0]["ray_node_id"] == doomed.node_id for record in moved)
    assert {record["node"]["ray_node_id"] for record in moved} <= {masked.node_id, plain.node_id}
    assert any("lost" in message and doomed.node_id[:12] in message for message in messages)


def test_the_aws_cluster_config_passes_the_launchers_schema_and_keeps_points_off_the_head():
    import yaml
    from ray.autoscaler._private.util import prepare_config, validate_config

    path = Path(__file__).resolve().parents[2] / "configs" / "cluster" / "aws-m5.8xlarge.yaml"
    config = prepare_config(yaml.safe_load(path.read_text()))
    validate_config(config)
    types = config["available_node_types"]
    assert types[config["head_node_type"]]["resources"] == {"CPU": 0}
    assert {name: spec["resources"].get(MACHINE_RESOURCE) for name, spec in types.items()} == {"head": None, "worker": 1}
    assert all("debian/release/bookworm" in spec["node_config"]["ImageId"] for spec in types.values())
    assert all(MACHINE_RESOURCE in command for command in config["worker_start_ray_commands"][1:])
