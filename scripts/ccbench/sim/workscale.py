"""The work scale of simulated points (docs/sim.md, "The work scale").

The cost table (sim.py) prices each engine operation by itself: a probe, a
row read, a commit, measured in tight loops on cold rows. A real transaction
costs something else: its procedure's own logic between the accesses, rows
that a skewed workload finds in the cache, misses that the core overlaps,
the executor's work around each attempt. So before a simulated point runs,
the harness fits, for its configuration (protocol, workload and every flag
but the thread count, the seed and TSKD's I/O latency), a factor on the local work of each
transaction type (`--sim_work_scale`, engine/sim/sim.h) such that one
virtual core runs the configuration as fast as one native thread of the same
protocol runs it on this machine (issue 32: "per-transaction logic of each
workload and transaction type, calibrated on the machine from native
single-thread runs"):

1. natively, on a quiet machine: bin/rundb-<cc> at one thread (two where the
   configuration needs two: Orthrus's lock server), three runs (seeds 1-3),
   of which the one of median throughput gives the time per commit T and
   each type's mean latency l_t. A round whose throughputs spread by more
   than NATIVE_SPREAD_LIMIT of its median (a machine that its load record
   called quiet once ran 166K, 241K and 271K txn/s for one configuration) is
   run again, up to NATIVE_ROUNDS rounds, and the fit takes the round of
   least spread (all rounds recorded; a spread still above the limit is
   logged);
2. simulated at the same threads (SIM_LENGTH), the local work scaled by 1 and by 2 (a
   bundle executor's analysis first gets its own factor, "analysis", which makes its simulated
   time per batch the native one: one charge per key, linear in the factor): a
   type's latency is a + s*b in its factor s (local work scales, the shared
   lines, atomics and spins do not), so s_t = (l_t - a_t) / b_t matches the
   type's native latency. Latencies count only the attempts, and a bundle
   executor's count from its batch's start: where the native latencies do not
   account for the run's time (their commit-weighted sum exceeds T) every
   type gets one common factor instead;
3. simulated with the factors d and 2d: time per commit is c*B + A in a
   common multiplier c, which the fit chooses so the simulated time per
   commit is T (the executor's work outside the attempts included);
4. simulated once more at the fitted factors: where the time per commit
   misses T by more than CHECK_TOLERANCE (the time per commit need not be
   linear in the factor), up to CHECK_STEPS secant steps on c, and
   the c that came closest is kept (the fit records the c tried and the
   error).

Factors are clamped to [MIN_SCALE, MAX_SCALE]; a clamp is recorded in the
fit. The fits live beside the cost table (`<table>.work_scales.json`), keyed
by configuration and valid for the cost table's digest; a simulated run's
factor is part of its digest (a refit runs it again). The fit's own native
run measures real time: like the calibration, it waits for a quiet machine
and records its load.

This module imports only the standard library and the harness's light
modules, as sim.py does.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from ccbench import load
from ccbench.fileio import write_json_atomically

FLAG = "sim_work_scale"
SOURCE_FLAG = "sim_work_scale_source"   # where the factor came from: a label the result's sim.model repeats
MIN_SCALE, MAX_SCALE = 0.02, 50.0
# TSKD's I/O latency (workloads/extensions): a busy wait after the transaction's work, as long natively as
# simulated, which the simulation charges as it is (virtual time, the breakdown's `delay`), so the fit's
# runs leave it out and measure the work alone. With it in, up to 60 % of a one-thread attempt was I/O
# delay beside a runtime bound that hides most of the work, and tskd-fig4k's fits moved with theta_IO from
# 1.9 down to a multiplier of -1.1 (clamped): the work's share of the time per commit was too small to fit.
IO_LATENCY_FLAGS = ("io_latency_l", "io_latency_theta", "io_latency_min_cycles")
# Flags a fit does not key on: the run's thread count, seed and lengths (the fit sets its own; min_batches
# too), the I/O latency, and
# every flag of the simulation itself (sim_*): its cost table (the store is per table), the factor,
# and the modelled machine (physical cores, SMT factor, line transfer), which leaves a one-core run's
# local work as it is. The fit's runs (native and simulated) get none of them.
UNKEYED_FLAGS = ("threads", "seed", "warmup", "duration", "measure_txns", "min_batches", *IO_LATENCY_FLAGS)
SIM_FLAG_PREFIX = "sim_"
NATIVE_LENGTH = ("--warmup=0.3", "--duration=1.5")   # real seconds: a native run's measured interval
NATIVE_RUNS = 3   # seeds 1..3; the fit takes the run of median throughput
NATIVE_SPREAD_LIMIT = 0.10   # a round whose (max - min) / median throughput exceeds this is run again
NATIVE_ROUNDS = 3   # at most; the fit takes the round of least spread
SIM_LENGTH = ("--warmup=0.02", "--duration=0.1")     # virtual seconds (the sim profile's): a fit's simulated runs
FIT_TIMEOUT_S = 900
EXIT_CONFIG_ERROR = 2


def store_path(cost_table: Path) -> Path:
    """Where the fits of a cost table live: <table>.work_scales.json beside it."""
    return cost_table.with_name(cost_table.stem + ".work_scales.json")


def source_label(cost_table: Path, key: str) -> str:
    """--sim_work_scale_source of a fitted factor: the fit store (beside the cost table) and the fit's key."""
    return f"fit {store_path(cost_table).name} [{key}]"


def _flag_name(argument: str) -> str:
    return argument[2:].split("=", 1)[0]


def keyed_flags(flags: Sequence[str]) -> list[str]:
    """A run's flag arguments (--name=value) less the ones a fit does not key on, sorted."""
    return sorted(flag for flag in flags if flag.startswith("--") and _flag_name(flag) not in UNKEYED_FLAGS
                  and not _flag_name(flag).startswith(SIM_FLAG_PREFIX))


def fit_key(cc: str, flags: Sequence[str]) -> str:
    """The configuration a fit is for: the protocol and the run's keyed flags."""
    return " ".join([cc, *keyed_flags(flags)])


def spec(scales: dict[str, float]) -> str:
    """The --sim_work_scale value of per-type factors: <type>:<factor>,... in type order."""
    return ",".join(f"{name}:{factor:.6g}" for name, factor in scales.items())


def _clamp(value: float, clamped: list[str], what: str) -> float:
    if value < MIN_SCALE or value > MAX_SCALE:
        clamped.append(f"{what}: {value:.4g} clamped to [{MIN_SCALE}, {MAX_SCALE}]")
        return min(max(value, MIN_SCALE), MAX_SCALE)
    return value


def time_per_commit(result: dict) -> float:
    """Seconds of one thread's time per commit (native or virtual): threads / throughput."""
    threads = result["config"]["threads"]
    return threads / result["throughput"] if result["throughput"] > 0 else float("inf")


def latencies(result: dict) -> dict[str, tuple[int, float]]:
    """Each transaction type's (commits, mean latency in seconds)."""
    return {name: (entry["commits"], entry["avg_latency_us"] * 1e-6)
            for name, entry in result["per_txn_type"].items()}


def type_directions(native: dict, once: dict, twice: dict, clamped: list[str]) -> dict[str, float]:
    """Step 2: per-type factors that match each type's native latency (sim runs at factor 1 and 2), or one
    common factor 1 where the native latencies do not account for the run's time (module docstring)."""
    lat_native, lat_once, lat_twice = latencies(native), latencies(once), latencies(twice)
    commits = sum(count for count, _ in lat_native.values())
    attributed = sum(count * latency for count, latency in lat_native.values())
    types = list(lat_native)
    if commits == 0 or attributed > commits * time_per_commit(native) * 1.02:
        return {name: 1.0 for name in types}
    directions = {}
    for name in types:
        (count, target), (_, one), (_, two) = lat_native[name], lat_once.get(name, (0, 0)), lat_twice.get(name, (0, 0))
        slope = two - one
        if count == 0 or one <= 0 or slope <= 0:
            directions[name] = 1.0   # no commits of the type, or no local work in it: unscaled
            continue
        directions[name] = _clamp((target - (one - slope)) / slope, clamped, f"type {name}")
    return directions


ANALYSIS = "analysis"   # the work type of a bundle executor's analysis (engine/sim/sim.h, kAnalysisWorkType)


def analysis_seconds_per_batch(result: dict) -> float | None:
    """A bundle executor's analysis time per batch (its front-end's phase_s.analysis over its batches), or None
    for a run without one. A TSKD front-end's schedule (frontend.schedule_s: its estimates, TSgen, TsDEFER's
    lanes, charged as analysis under sim) counts too where partition_time outside kept it out of the phase
    (issue 60 item 1), so that the factor matches the same work as when it was inside."""
    frontend = result.get("frontend") or {}
    seconds, batches = (frontend.get("phase_s") or {}).get("analysis"), frontend.get("batches")
    if seconds is not None and frontend.get("partition_time") == "outside":
        seconds += frontend.get("schedule_s") or 0.0
    return seconds / batches if seconds and batches else None


def analysis_factor(native: dict, once: dict, clamped: list[str]) -> dict[str, float]:
    """Step 0: {"analysis": factor} such that the simulated analysis takes the native time per batch (the
    simulated one is linear in the factor: one charge per key, scaled), or {} for a run without an analysis."""
    target, at_one = analysis_seconds_per_batch(native), analysis_seconds_per_batch(once)
    if target is None or at_one is None:
        return {}
    return {ANALYSIS: _clamp(target / at_one, clamped, "the analysis")}


def common_multiplier(native: dict, at_d: dict, at_2d: dict, clamped: list[str]) -> float:
    """Step 3: the c for which c*d matches the native time per commit (time per commit is linear in c)."""
    one, two = time_per_commit(at_d), time_per_commit(at_2d)
    slope = two - one
    if slope <= 0 or slope == float("inf"):
        clamped.append("common multiplier: the simulated time per commit does not grow with the local work; 1 kept")
        return 1.0
    return _clamp((time_per_commit(native) - (one - slope)) / slope, clamped, "common multiplier")


CHECK_TOLERANCE = 0.05   # step 4: the fitted factors' simulated time per commit within this of the native T
CHECK_STEPS = 3   # secant steps on the common multiplier where the first check misses


def next_multiplier(tried: list[tuple[float, float]], target: float) -> float:
    """Step 4's next c: between the two tried multipliers that bracket the target time per commit (linear
    in between), else along the secant of the two nearest it; within [MIN_SCALE, MAX_SCALE]."""
    below = [entry for entry in tried if entry[1] < target]
    above = [entry for entry in tried if entry[1] >= target]
    if below and above:
        (c0, t0), (c1, t1) = max(below, key=lambda e: e[1]), min(above, key=lambda e: e[1])
    else:
        (c0, t0), (c1, t1) = sorted(tried, key=lambda e: abs(e[1] - target))[:2]
    if t1 == t0 or c1 == c0:
        step = c0 * target / t0 if t0 > 0 else c0
    else:
        step = c0 + (target - t0) * (c1 - c0) / (t1 - t0)
    return min(max(step, MIN_SCALE), MAX_SCALE)


class Runner:
    """Runs the fit's engine commands (a seam for the tests) and returns each result document, or raises
    FitFailed naming the command."""

    def __call__(self, command: list[str]) -> tuple[int, dict | None, str]:
        with tempfile.TemporaryDirectory(prefix="ccbench-fit-") as directory:
            out = Path(directory) / "result.json"
            try:
                done = subprocess.run([*command, f"--out={out}"], capture_output=True, text=True, errors="replace",
                                      timeout=FIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return -1, None, f"did not finish in {FIT_TIMEOUT_S} s"
            except OSError as error:
                return -1, None, error.strerror or str(error)
            if done.returncode != 0 or not out.is_file():
                last = (done.stderr.strip().splitlines() or [""])[-1]
                return done.returncode, None, last
            return 0, json.loads(out.read_text(encoding="utf-8")), ""


class FitFailed(Exception):
    pass


def spread(native_runs: Sequence[tuple]) -> float:
    """(max - min) / median of a round's native throughputs (its entries: (throughput, ...))."""
    throughputs = sorted(entry[0] for entry in native_runs)
    median = throughputs[len(throughputs) // 2]
    return (throughputs[-1] - throughputs[0]) / median if median > 0 else 0.0


def _native_round(native_argv: Sequence[str], keyed: Sequence[str], threads: int, run: Callable, threshold_cores: float,
                  max_wait_s: float, log: Callable[[str], None]) -> tuple[list[tuple], tuple | None]:
    """Step 1's round: the native runs of seeds 1..NATIVE_RUNS, each on a quiet machine, as (throughput, result,
    load record); and None, or (exit code, command, why) of the run that failed (the round stops there)."""
    runs = []
    for seed in range(1, NATIVE_RUNS + 1):
        command = [*native_argv, *keyed, f"--threads={threads}", f"--seed={seed}", *NATIVE_LENGTH]
        load.wait_until_quiet(threshold_cores, max_wait_s, log)
        before = load.snapshot()
        code, result, why = run(command)
        section = load.load_record(before, load.snapshot(), threads, threshold_cores)
        if result is None:
            return runs, (code, command, why)
        runs.append((result["throughput"], result, section))
    return runs, None


def fit(native_argv: Sequence[str], sim_argv: Sequence[str], flags: Sequence[str], cost_table: Path, *,
        log: Callable[[str], None], run: Callable[[list[str]], tuple[int, dict | None, str]] = Runner(),
        threshold_cores: float = load.DEFAULT_THRESHOLD_CORES, max_wait_s: float = 300) -> dict:
    """The fit of one configuration (module docstring): {"scale": spec, "scales", "threads", the runs'
    numbers, "clamped", "load"}. Raises FitFailed."""
    keyed = keyed_flags(flags)
    for threads in (1, 2):
        rounds, failure = [], None
        while (failure is None and len(rounds) < NATIVE_ROUNDS
               and (not rounds or spread(rounds[-1]) > NATIVE_SPREAD_LIMIT)):
            native_runs, failure = _native_round(native_argv, keyed, threads, run, threshold_cores, max_wait_s, log)
            if failure is None:
                rounds.append(native_runs)
        if failure is None:
            break
        code, native_command, why = failure
        if code == EXIT_CONFIG_ERROR and threads == 1 and not rounds:
            continue   # the configuration needs two threads (a lock server beside a worker): fit at two
        raise FitFailed(f"the native run `{' '.join(native_command)}` failed (exit {code}): {why}")
    native_runs = min(rounds, key=spread)   # the first of least spread
    if spread(native_runs) > NATIVE_SPREAD_LIMIT:
        log(f"ccbench: the work-scale fit's native runs spread by {spread(native_runs):.0%} of their median in each "
            f"of {len(rounds)} rounds (limit {NATIVE_SPREAD_LIMIT:.0%}): its factor may be off; refit on a quieter "
            f"machine")
    # The run of median throughput (its latencies with it): one disturbed or lucky run does not set the factor.
    native_runs = sorted(native_runs, key=lambda entry: entry[0])
    _, native, section = native_runs[len(native_runs) // 2]
    sim_base = [*sim_argv, *keyed, f"--threads={threads}", "--seed=1", *SIM_LENGTH, f"--sim_cost_table={cost_table}"]

    sim_peak_rss: list[int] = []   # the simulated runs' peak RSS: what a point of this configuration holds

    def simulate(scales: dict[str, float] | float) -> dict:
        value = spec(scales) if isinstance(scales, dict) else f"{scales:g}"
        command = [*sim_base, f"--{FLAG}={value}"]
        code, result, why = run(command)
        if result is None:
            raise FitFailed(f"the simulated run `{' '.join(command)}` failed (exit {code}): {why}")
        peak = (result.get("memory") or {}).get("peak_rss_bytes")
        if isinstance(peak, int):
            sim_peak_rss.append(peak)
        return result

    clamped: list[str] = []
    once = simulate(1.0)
    analysis = analysis_factor(native, once, clamped)   # fixed from here on: the types' factors come on top
    if analysis:
        types = {name: 1.0 for name in native["per_txn_type"]}
        once, twice = simulate({**types, **analysis}), simulate({**{k: 2.0 for k in types}, **analysis})
    else:
        twice = simulate(2.0)
    directions = type_directions(native, once, twice, clamped)
    at_d = simulate({**directions, **analysis})
    at_2d = simulate({**{k: 2 * v for k, v in directions.items()}, **analysis})
    multiplier = common_multiplier(native, at_d, at_2d, clamped)

    def scales_at(c: float, record: list[str]) -> dict[str, float]:
        return {**{name: _clamp(direction * c, record, f"type {name}") for name, direction in directions.items()},
                **analysis}

    # Step 4: the factors run once more; where the simulated time per commit misses T by more than
    # CHECK_TOLERANCE (the two-point line of step 3 can miss), secant steps on c.
    target = time_per_commit(native)
    tried = [(1.0, time_per_commit(at_d)), (2.0, time_per_commit(at_2d))]
    for _ in range(CHECK_STEPS + 1):
        tried.append((multiplier, time_per_commit(simulate(scales_at(multiplier, [])))))
        if abs(tried[-1][1] / target - 1) <= CHECK_TOLERANCE:
            break
        multiplier = next_multiplier(tried, target)
    multiplier, achieved = min(tried[2:], key=lambda entry: abs(entry[1] / target - 1))
    check = {"multipliers_tried": [c for c, _ in tried[2:]], "sim_time_per_commit_s": achieved,
             "error": achieved / target - 1}
    if abs(check["error"]) > CHECK_TOLERANCE:
        log(f"ccbench: the work-scale fit's simulated time per commit misses the native one by "
            f"{check['error']:+.0%} after {len(tried) - 2} checks: its factor may be off")
    scales = scales_at(multiplier, clamped)
    if section["noisy"]:
        log(f"ccbench: the work-scale fit's native run ran on a busy machine ({load.describe(section)}): "
            f"its factor may be off; delete {store_path(cost_table)} and run again on a quiet machine")
    return {"scale": spec(scales), "scales": scales, "threads": threads,
            "native_throughputs": [throughput for throughput, _, _ in native_runs],
            "native_rounds": [[throughput for throughput, _, _ in entries] for entries in rounds],
            "native_spread": spread(native_runs), "native_time_per_commit_s":
            time_per_commit(native), "native_latency_s": {k: v for k, (_, v) in latencies(native).items()},
            "per_type": directions != {name: 1.0 for name in directions}, "multiplier": multiplier, "check": check,
            "clamped": clamped, "load": section, "sim_peak_rss_bytes": max(sim_peak_rss, default=None),
            "fitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def _current_key(key: str) -> str | None:
    """A stored fit's key under today's keyed flags: a fit stored while the I/O-latency flags were keyed is
    today's fit of the same configuration when its runs had no I/O delay (--io_latency_l=0); with a delay its
    runs measured something else, and it has no key (None)."""
    cc, *flags = key.split(" ")
    if any(flag.startswith("--io_latency_l=") and flag != "--io_latency_l=0" for flag in flags):
        return None
    return fit_key(cc, flags)


def _fits(cost_table: Path) -> dict:
    try:
        stored_fits = json.loads(store_path(cost_table).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    fits: dict = {}
    for key, entry in stored_fits.items():
        current = _current_key(key)
        if current is not None:
            fits.setdefault(current, entry)
    return fits


def stored(key: str, cost_table: Path, cost_table_digest: str | None) -> str | None:
    """The stored --sim_work_scale of a configuration, if it was fitted with this cost table."""
    entry = _fits(cost_table).get(key)
    return entry["scale"] if entry is not None and entry.get("cost_table_sha256") == cost_table_digest else None


def stored_peak_rss(key: str, cost_table: Path) -> int | None:
    """The largest peak RSS of a stored fit's simulated runs (None for a fit stored before it was recorded):
    what the runner expects a point of the configuration to hold (backends.MemoryGate)."""
    entry = _fits(cost_table).get(key)
    return entry.get("sim_peak_rss_bytes") if entry is not None else None


def ensure(key: str, native_argv: Sequence[str], sim_argv: Sequence[str], flags: Sequence[str], cost_table: Path,
           cost_table_digest: str | None, *, log: Callable[[str], None], **options) -> str:
    """The --sim_work_scale value for a configuration: the stored fit when it was made with this cost
    table, else a new fit (stored). Raises FitFailed."""
    scale = stored(key, cost_table, cost_table_digest)
    if scale is not None:
        return scale
    path = store_path(cost_table)
    fits = _fits(cost_table)
    log(f"ccbench: fitting the simulation's work scale for {key}")
    entry = {**fit(native_argv, sim_argv, flags, cost_table, log=log, **options),
             "cost_table_sha256": cost_table_digest}
    fits[key] = entry
    write_json_atomically(path, fits)
    log(f"ccbench: work scale {entry['scale']}" + (f" ({'; '.join(entry['clamped'])})" if entry["clamped"] else ""))
    return entry["scale"]
