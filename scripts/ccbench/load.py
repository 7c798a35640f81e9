"""What the machine did while a run ran: its load on record, and waiting for a quiet machine.

A run's record carries a `load` section, measured by the harness around the
program's process (the engine's own JSON is not touched): the load average
at the start and the end, the CPU time other processes used (the busy time
of /proc/stat's `cpu` line minus the harness's and the run's own), the steal
time (CPU a hypervisor gave to other guests), and the run's own CPU time
against threads x the run's wall time. The interval is the whole process
(load, warm-up and measured interval), which contains the measured one: a
run that was quiet as a whole was quiet while it measured.

A run is `noisy` when other processes used more than a threshold (default
0.1 cores: 10% of one core) on average, or steal time did: its throughput
then measured a share of the machine, not the machine (on a 2-core machine
one point varied 2-8x between repetitions while other work ran).

The /proc files are read under CCBENCH_PROC_ROOT (default /proc), so that
tests can plant readings. This module imports only the standard library: Ray
workers import it to run points.
"""
from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

DEFAULT_THRESHOLD_CORES = 0.1
# How long a run, calibration or work-scale fit waits for a quiet machine before it goes on (--quiet-wait).
DEFAULT_QUIET_WAIT_S = 300.0
QUIET_WINDOW_S = 1.0          # how long the quiet check watches the machine before a point
QUIET_POLL_S = 5.0            # how long it sleeps between checks while the machine is busy
PROC_ROOT_VARIABLE = "CCBENCH_PROC_ROOT"
# Fields of /proc/stat's cpu line (proc(5)): user nice system idle iowait irq softirq steal ...
BUSY_FIELDS = (0, 1, 2, 5, 6)   # user, nice, system, irq, softirq (idle, iowait and steal are not work done here)
STEAL_FIELD = 7


def proc_root() -> Path:
    return Path(os.environ.get(PROC_ROOT_VARIABLE, "/proc"))


@dataclass(frozen=True)
class Snapshot:
    """Cumulative counters at one instant."""
    at: float                 # time.monotonic()
    busy_s: float             # CPU seconds all processes have used since boot (all CPUs)
    steal_s: float
    loadavg: tuple[float, float, float]
    own_s: float              # CPU seconds of this process and its waited-for children
    children_s: float         # ... of its waited-for children alone (the runs)
    resolution_s: float = 0.0  # how far /proc/stat's tick counts can be off from the exact CPU times


def _cpu_seconds(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def take_snapshot(root: Path | None = None) -> Snapshot:
    """The counters now. Raises OSError or ValueError when /proc cannot be read as expected."""
    root = root or proc_root()
    fields = (root / "stat").read_text().splitlines()[0].split()
    if fields[0] != "cpu" or len(fields) < STEAL_FIELD + 2:
        raise ValueError(f"{root / 'stat'}: first line is not the cpu line with a steal field")
    jiffies = [int(value) for value in fields[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    loadavg = tuple(float(value) for value in (root / "loadavg").read_text().split()[:3])
    children = _cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN))
    # /proc/stat charges whole ticks to whatever ran at each tick, rusage counts exactly: a short run's own time
    # can show up there a tick or two per CPU larger, which is not other processes' work.
    resolution = 2 * (os.cpu_count() or 1) / ticks
    return Snapshot(time.monotonic(), sum(jiffies[i] for i in BUSY_FIELDS) / ticks, jiffies[STEAL_FIELD] / ticks,
                    loadavg, _cpu_seconds(resource.getrusage(resource.RUSAGE_SELF)) + children, children, resolution)


def load_section(before: Snapshot, after: Snapshot, threads: int, threshold_cores: float) -> dict:
    """The record's `load`: what the machine did between the two snapshots around one run."""
    interval = max(after.at - before.at, 1e-9)
    own = after.children_s - before.children_s
    harness = (after.own_s - before.own_s) - own
    # /proc/stat counts in ticks, rusage in microseconds: what other processes used is the busy time beyond the
    # run's and the harness's own by more than the ticks' resolution (never below 0).
    other = max(0.0, (after.busy_s - before.busy_s) - own - harness - max(before.resolution_s, after.resolution_s))
    steal = max(0.0, after.steal_s - before.steal_s)
    other_cores, steal_cores = other / interval, steal / interval
    return {
        "interval_s": round(interval, 3),
        "loadavg_start": list(before.loadavg), "loadavg_end": list(after.loadavg),
        "other_cpu_s": round(other, 3), "other_cores": round(other_cores, 3),
        "steal_s": round(steal, 3), "steal_cores": round(steal_cores, 3),
        "own_cpu_s": round(own, 3), "threads": threads,
        # the run's CPU over what its threads could have used: near 1 when every worker had a core
        "own_cpu_share": round(own / (threads * interval), 3),
        "threshold_cores": threshold_cores,
        "noisy": other_cores > threshold_cores or steal_cores > threshold_cores,
    }


def unavailable_section(error: Exception) -> dict:
    """The `load` of a run where /proc could not be read (not Linux, or a planted file is broken)."""
    return {"unavailable": f"{type(error).__name__}: {error}", "noisy": False}


def is_noisy(record: dict | None) -> bool:
    return bool(((record or {}).get("load") or {}).get("noisy"))


def describe(load: dict) -> str:
    """One line for messages: what made a run noisy."""
    if "unavailable" in load:
        return f"load not measured ({load['unavailable']})"
    return (f"other processes {load['other_cores']:.2f} cores, steal {load['steal_cores']:.2f} cores "
            f"(threshold {load['threshold_cores']:g}), load average {load['loadavg_start'][0]:.2f} -> "
            f"{load['loadavg_end'][0]:.2f}")


def other_cores_now(window_s: float | None = None, root: Path | None = None) -> float:
    """Cores used by other processes (and steal) over the next window_s seconds, this process excluded."""
    before = take_snapshot(root)
    time.sleep(QUIET_WINDOW_S if window_s is None else window_s)
    after = take_snapshot(root)
    load = load_section(before, after, 1, DEFAULT_THRESHOLD_CORES)
    return load["other_cores"] + load["steal_cores"]


def wait_until_quiet(threshold_cores: float, max_wait_s: float, log: Callable[[str], None], *,
                     measure: Callable[[], float] | None = None,
                     sleep: Callable[[float], None] = time.sleep,
                     clock: Callable[[], float] = time.monotonic) -> bool:
    """Wait (at most max_wait_s) until other processes use at most threshold_cores (measured by
    other_cores_now unless `measure` is given). True when quiet; False when the wait ran out (the caller
    runs anyway: the run's own load record says how it went)."""
    measure = measure or other_cores_now
    started = clock()
    busy = measure()
    if busy <= threshold_cores:
        return True
    log(f"ccbench: waiting for a quiet machine: other processes use {busy:.2f} cores "
        f"(threshold {threshold_cores:g}); waiting at most {max_wait_s:g} s")
    while clock() - started < max_wait_s:
        sleep(min(QUIET_POLL_S, max(0.0, max_wait_s - (clock() - started))))
        busy = measure()
        if busy <= threshold_cores:
            log(f"ccbench: the machine is quiet ({busy:.2f} cores used by others) after "
                f"{clock() - started:.0f} s")
            return True
    log(f"ccbench: the machine did not become quiet within {max_wait_s:g} s (others use {busy:.2f} cores); "
        f"running anyway, the run's load record will say so")
    return False


def snapshot() -> Snapshot | Exception:
    """take_snapshot(), or the error that kept it from reading /proc."""
    try:
        return take_snapshot()
    except (OSError, ValueError, IndexError) as error:
        return error


def load_record(before: Snapshot | Exception, after: Snapshot | Exception, threads: int,
                threshold_cores: float, simulated: bool = False) -> dict:
    """A record's `load` between two snapshots, or why it could not be measured. A simulated run's
    is never noisy: in virtual time, what else the machine ran does not change the result (sim.py)."""
    for taken in (before, after):
        if isinstance(taken, Exception):
            section = unavailable_section(taken)
            break
    else:
        section = load_section(before, after, threads, threshold_cores)
    if simulated:
        section.update(simulated=True, noisy=False)
    return section
