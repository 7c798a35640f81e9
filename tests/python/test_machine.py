"""What a record says about the machine that measured it, its CPU mask, and program digests found on PATH."""
from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from ccbench.run import machine
from ccbench.run.engine import program_digest
from ccbench.run.machine import describe_run, every_cpu, format_cpu_list, online_cpus, parse_cpu_list

REPO = Path(__file__).resolve().parents[2]


def test_cpu_lists_round_trip_and_match_a_brute_force_reading():
    assert parse_cpu_list("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert format_cpu_list({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11"
    generator = random.Random(7)
    for _ in range(200):
        cpus = {cpu for cpu in range(40) if generator.random() < 0.5}
        text = format_cpu_list(cpus)
        assert parse_cpu_list(text) == cpus
        # brute force: a CPU starts a range iff its predecessor is absent, ends one iff its successor is
        starts = [cpu for cpu in sorted(cpus) if cpu - 1 not in cpus]
        ends = [cpu for cpu in sorted(cpus) if cpu + 1 not in cpus]
        assert text == ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(starts, ends))


def test_smt_siblings_in_use_count_threads_beyond_one_per_core_of_the_mask(monkeypatch):
    """Two hardware threads per core, as on an m5.8xlarge: CPUs 2k and 2k+1 are siblings."""
    if len(online_cpus()) < 2:
        pytest.skip("needs 2 CPUs")
    monkeypatch.setattr(machine, "_core_of", lambda cpu: ("0", str(cpu // 2)))
    first_two = set(sorted(online_cpus())[:2])
    saved = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, first_two)        # one core's two siblings
        assert describe_run(1)["smt_siblings_in_use"] == 0
        assert describe_run(2)["smt_siblings_in_use"] == 1
        assert describe_run(8)["smt_siblings_in_use"] == 1      # at most the mask's spare siblings
        assert describe_run(2)["cpu_mask"] == format_cpu_list(first_two) and describe_run(2)["cores_in_mask"] == 1
    finally:
        os.sched_setaffinity(0, saved)


def test_every_cpu_lifts_an_inherited_mask_for_its_duration():
    if len(online_cpus()) < 2:
        pytest.skip("needs 2 CPUs")
    saved = os.sched_getaffinity(0)
    one = {min(online_cpus())}
    try:
        os.sched_setaffinity(0, one)
        with every_cpu() as inherited:
            assert inherited == one
            assert os.sched_getaffinity(0) == set(online_cpus())
            assert describe_run(1)["cpu_mask"] == format_cpu_list(set(online_cpus()))
        assert os.sched_getaffinity(0) == one
    finally:
        os.sched_setaffinity(0, saved)


def test_a_bare_program_name_is_digested_as_found_on_path(tmp_path, monkeypatch):
    tool = tmp_path / "ccbench-test-tool"
    tool.write_text("#!/bin/sh\necho one\n")
    tool.chmod(0o755)
    assert program_digest(["ccbench-test-tool", "--x=1"]) is None          # not on PATH: no file
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    first = program_digest(["ccbench-test-tool", "--x=1"])
    assert first is not None and first == program_digest([str(tool)])
    tool.write_text("#!/bin/sh\necho two\n")
    assert program_digest(["ccbench-test-tool"]) not in (None, first)


def test_builds_of_the_same_code_at_another_commit_share_a_digest(tmp_path):
    """The engine's revision stamp (engine/stats/build_info.cpp.in) is masked: a docs-only commit keeps the stored
    results; any other byte of the program still changes the digest."""
    note = b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00"   # ELF NT_GNU_BUILD_ID, 20 bytes

    def binary(name: str, stamp: bytes, build_id: bytes, code: bytes = b"\x7fELF code") -> str:
        path = tmp_path / name
        path.write_bytes(code + note + build_id + b"\x00ccb-build-revision:" + stamp + b"\x00more code")
        return str(path)

    clean = program_digest([binary("a", b"4b08b1850cc00584f1ea341f8e60fe73a8dfe80c:0", bytes(range(20)))])
    assert clean == program_digest([binary("b", b"05d1eb0aa4c81ef0cf3bb3d50ee85c4ab5bd2fd1:1", bytes(range(5, 25)))])
    assert clean == program_digest([binary("c", b"unknown:0", bytes(20))])
    assert clean != program_digest([binary("d", b"unknown:0", bytes(20), b"\x7fELF kode")])
    assert clean != program_digest([binary("e", b"unknown:0", bytes(20) + b"!")])   # a byte past the ID is code


def test_the_engine_carries_one_revision_stamp():
    """The stamp the digest masks is in the built engine, holding the revision the result reports."""
    engine = REPO / "bin" / "rundb-silo"
    if not engine.is_file():
        pytest.skip("bin/rundb-silo not built")
    stamps = re.findall(rb"ccb-build-revision:([0-9a-f]{40}|unknown):([01])\x00", engine.read_bytes())
    assert len(stamps) == 1
