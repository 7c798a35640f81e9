"""The Ray backend on a local, loopback-only Ray instance started by the test."""
from __future__ import annotations

import json

import pytest

from ccbench.backends import RayBackend
from ccbench.config import FigureConfig, load_profiles
from ccbench.runner import run_sweep
from conftest import figure_document

ray = pytest.importorskip("ray")


@pytest.fixture
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             object_store_memory=80 * 1024 * 1024, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_backend_runs_a_two_point_sweep_into_the_same_store(sandbox, local_ray):
    document = figure_document(axes={"threads": [1, 2, 3]}, base={"workload": "ycsb", "theta": 0.5},
                               series=[{"name": "silo", "params": {"cc": "silo"}}], claims=None,
                               plot={"kind": "line", "x": "threads", "y": "throughput"})
    path = sandbox.add_figure("ray-fig", document)
    figure = FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)).resolve("quick")
    summary = run_sweep([figure], sandbox.workspace, RayBackend(), progress=False)

    records = [json.loads(p.read_text()) for p in sandbox.records().values()]
    assert summary.ran == 2 and summary.failed == 0
    assert sorted(record["result"]["config"]["threads"] for record in records) == [1, 2]
    assert all(record["status"] == "ok" for record in records)
    # The 3-thread point cannot get 3 CPUs from this 2-CPU cluster: skipped, not stored, not hung.
    assert list(summary.skipped.values()) == ["needs 3 CPUs; the Ray cluster has 2"]
    assert ray.is_initialized()            # a Ray instance the caller started is left running
