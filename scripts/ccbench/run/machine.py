"""The machine a run is measured on, as the record describes it, and its CPU mask.

Every record carries `node` (describe_run): the host, its CPU model,
physical cores, hardware threads, NUMA nodes, the CPU mask the program ran
with and how many of the run's threads had to share a physical core with
another of its threads (SMT siblings in use), so that a figure measured on
several machines can be checked for mixed hardware.

Read from Linux's /proc and /sys; elsewhere the fields it cannot read are
None. This module imports only the standard library (Ray workers import it).
"""
from __future__ import annotations

import os
import socket
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator

SYS_CPU = Path("/sys/devices/system/cpu")
SYS_NODE = Path("/sys/devices/system/node")


def parse_cpu_list(text: str) -> set[int]:
    """'0-3,8,10-11' (the kernel's CPU list format) -> {0, 1, 2, 3, 8, 10, 11}."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def format_cpu_list(cpus: set[int]) -> str:
    """{0, 1, 2, 3, 8} -> '0-3,8' (the kernel's format)."""
    ranges: list[str] = []
    for cpu in sorted(cpus):
        if ranges and cpu == last + 1:
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{cpu}"
        else:
            ranges.append(str(cpu))
        last = cpu
    return ",".join(ranges)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


@lru_cache(maxsize=None)
def online_cpus() -> frozenset[int]:
    """The machine's CPUs (hardware threads), whatever this process's mask."""
    online = _read(SYS_CPU / "online")
    return frozenset(parse_cpu_list(online) if online else range(os.cpu_count() or 1))


def _core_of(cpu: int) -> tuple[str | None, str | None]:
    """(package, core) of a CPU: CPUs with the same pair are SMT siblings."""
    topology = SYS_CPU / f"cpu{cpu}" / "topology"
    return _read(topology / "physical_package_id"), _read(topology / "core_id")


def physical_cores(cpus: frozenset[int] | set[int]) -> int | None:
    cores = {_core_of(cpu) for cpu in cpus}
    return None if (None, None) in cores else len(cores)


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


@lru_cache(maxsize=None)
def describe_machine() -> dict:
    """What the machine is, independent of any run."""
    cpus = online_cpus()
    numa = sorted(SYS_NODE.glob("node[0-9]*")) if SYS_NODE.is_dir() else []
    return {"hostname": socket.gethostname(), "cpu_model": _cpu_model(), "physical_cores": physical_cores(cpus),
            "hardware_threads": len(cpus), "numa_nodes": len(numa) or None}


def describe_run(threads: int) -> dict:
    """The machine plus what a run of `threads` threads started now by this process gets: its CPU mask
    (inherited by the program), the physical cores in it, and the SMT siblings in use: how many of
    the run's threads must share a physical core with another (threads beyond one per core of the
    mask, at most the mask's spare siblings; 0 when every thread can have a core of its own)."""
    mask = os.sched_getaffinity(0)
    cores = physical_cores(mask)
    siblings = None if cores is None else max(0, min(threads, len(mask)) - cores)
    return {**describe_machine(), "cpu_mask": format_cpu_list(mask), "cores_in_mask": cores,
            "smt_siblings_in_use": siblings}


@contextmanager
def every_cpu() -> Iterator[set[int]]:
    """Within: this thread (and the programs it starts) may run on every CPU of the machine; yields the
    mask it had, which it gets back after.

    A Ray worker inherits the mask of whatever started Ray (a `taskset`, a
    systemd CPUAffinity, a container's cpuset); a point must not be measured
    on a subset of the machine by accident. Where a cpuset forbids some CPUs,
    the kernel grants the allowed ones, and the record shows the mask."""
    inherited = os.sched_getaffinity(0)
    os.sched_setaffinity(0, online_cpus())
    try:
        yield inherited
    finally:
        os.sched_setaffinity(0, inherited)
