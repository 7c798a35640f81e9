#!/usr/bin/env python3
"""Flag fuzzer (contract tier; issue 30): no input hangs, crashes or half-writes.

For every binary given (bin/rundb-<cc>, bin/pipeline, bin/middletier, the
tools), for every flag it lists (--list_flags; type, default and
documentation from --help), it tries the documented bounds (every number in
the flag's help text, the default, and the bounds the binary states when it
refuses a far-out value), just outside them, zero, negative,
huge, non-numeric and empty values, then random combinations of two or three
flags per workload and front-end, each run on tiny tables with a short
duration. Every outcome must be one of
  - exit 2 within --refusal_s (1 s) with a message naming one of the flags
    given (or a required flag missing), and no --out file (within the run's
    own limit for the one refusal made after a run: TSKD's t_T still
    calibrating in the measured interval);
  - a normal run (exit 0, or 3: a correctness check failed) that ends within
    its warm-up + duration plus --load_s, with its --out document written;
  - a run of bin/rundb-<cc> whose measured interval committed nothing (a
    duration too short for one commit): exit 4 with the message saying so,
    and no --out file;
    bin/middletier, run without a server, instead fails to connect (exit 1,
    "cannot connect to PostgreSQL") within --load_s;
never a timeout (hang), a signal, a sanitizer report, or another exit code.
Cases are drawn from --seed alone (reproducible); a failing case prints the
exact command line. --depth=ci samples the single-flag values (every flag,
a few values each) and a few combinations, sized for under 3 minutes of CI;
--depth=full (make fuzz) tries every value and many more combinations.

Values a binary accepts by design but that make its run long (a duration of
a day, 2^40 synthesized transactions) are tried only where they must be
refused: the flags of `LONG_BY_DESIGN` keep their in-range values small.

usage: flag_fuzz.py [--seed N] [--depth ci|full] BINARY...
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Tiny, fast runs. A fuzzed flag replaces its base value.
ENGINE_BASE = {"threads": "1", "warmup": "0", "duration": "0.1", "txn_buffer": "64", "load_threads": "1"}
RUNDB_TABLES = {
    "ycsb": {"table_size": "1000"},
    "tpcc": {"warehouses": "1", "expected_new_orders": "1000"},
    "smallbank": {"smallbank_customers": "1000"},
    "tpcw": {"tpcw_items": "1000"},
    "hot": {"hot_table_size": "10000", "hot_records": "10"},
    "micro": {"micro_objects": "1000"},
}
EXTENSIONS_ON = {"runtime_skew": "true", "io_latency_l": "50"}  # so their knobs take effect
POST_RUN_REFUSAL = "measured commits ran without runtime skew"  # rundb's refusal of an uncalibrated run
WORKLOAD_PREFIX = {"ycsb": "ycsb", "tpc-c": "tpcc", "smallbank": "smallbank", "tpc-w": "tpcw", "hot": "hot",
                   "micro": "micro"}
# Flags whose accepted values may make a run long on purpose (time, counts of
# work, table sizes): values in (cap, refused_from) are skipped as long by
# design; values from `refused_from` on must be refused (a table that cannot
# fit in memory: 2^34 rows and more) and are tried, as are out-of-range ones.
NEVER = float("inf")
TABLE = 2.0 ** 34
LONG_BY_DESIGN = {
    "engine": {"duration": (1.0, NEVER), "warmup": (1.0, NEVER), "measure_txns": (10000, NEVER),
               "memory_bound": None, "table_size": (1e6, TABLE), "hot_table_size": (1e6, TABLE),
               "micro_objects": (1e6, TABLE), "smallbank_customers": (1e6, TABLE), "tpcw_items": (1e6, TABLE),
               "warehouses": (4, 10000), "expected_new_orders": (1e7, NEVER), "txn_buffer": (1e5, NEVER),
               "runtime_skew_calibration_txns": (1e5, NEVER)},
    "bench_fvs": {"graphs": (20, NEVER), "batch": (200, NEVER), "time_reps": (3, NEVER),
                  "warmup_batches": (20, NEVER), "concurrency": (2000, NEVER), "search_time_limit_ms": (50, NEVER)},
    "bench_strife": {"batch": (20000, NEVER), "reps": (5, NEVER)},
    "bench_checker": {"txns": (100000, NEVER), "keys": (1e7, TABLE), "accesses": (64, NEVER)},
}
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|ThreadSanitizer|UndefinedBehaviorSanitizer|runtime error:")


@dataclass
class Flag:
    name: str
    type: str
    default: str
    doc: str


@dataclass
class Binary:
    path: str
    kind: str                     # rundb, pipeline, middletier, bench_fvs, bench_strife, bench_checker, check_history
    flags: dict[str, Flag]
    contexts: list[dict[str, str]]  # base flag sets (workload, front-end)
    takes_out: bool

    def long_by_design(self) -> dict[str, tuple[float, float] | None]:
        engine = self.kind in ("rundb", "pipeline", "middletier")
        return LONG_BY_DESIGN.get("engine" if engine else self.kind, {})


@dataclass
class Case:
    binary: Binary
    args: dict[str, str]          # flag -> value (base and fuzzed)
    fuzzed: tuple[str, ...]

    def argv(self, out_dir: str) -> list[str]:
        argv = [self.binary.path] + [f"--{k}={v}" for k, v in self.args.items()]
        if self.binary.takes_out and "out" not in self.args:
            argv.append(f"--out={out_dir}/out.json")
        return argv


@dataclass
class Tally:
    cases: int = 0
    refused: int = 0
    ran: int = 0
    failures: list[str] = field(default_factory=list)


def read_flags(path: str) -> dict[str, Flag]:
    names = subprocess.run([path, "--list_flags"], capture_output=True, text=True, timeout=10).stdout.split()
    help_text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10).stdout
    flags = {}
    for m in re.finditer(r"^  --(\w+) \((\w+), default (.*)\)\n      (.*)$", help_text, re.M):
        if m.group(1) in names:
            flags[m.group(1)] = Flag(m.group(1), m.group(2), m.group(3).strip('"'), m.group(4))
    return {n: flags.get(n, Flag(n, "string", "", "")) for n in names}


def kind_of(path: str) -> str:
    name = os.path.basename(path)
    return "rundb" if name.startswith("rundb-") else name


def options_in(doc: str, flag: str) -> list[str]:
    """Words the documentation offers as values ("... one of a, b, c", "a|b")."""
    words = re.findall(r"[a-z][a-z0-9_\-]*", doc.split(":", 1)[-1])
    return [w for w in dict.fromkeys(words) if len(w) > 1 and w != flag][:12]


def make_binary(path: str) -> Binary:
    kind = kind_of(path)
    flags = read_flags(path)
    contexts: list[dict[str, str]] = [{}]
    if kind == "rundb":
        frontends = ["none", "tsdefer", "reorder", "strife", "horticulture", "tskd-s"]
        contexts = [{**ENGINE_BASE, "workload": w, "frontend": f, **tables}
                    for w, tables in RUNDB_TABLES.items() for f in frontends]
    elif kind == "pipeline":
        contexts = [{"warmup": "0", "duration": "0.1", "workload": w, **RUNDB_TABLES[w]} for w in ("micro", "smallbank")]
    elif kind == "middletier":  # no server: an accepted run fails to connect
        contexts = [{"warmup": "0", "duration": "0.1", "pg_host": "/nonexistent-ccbench-fuzz", "pg_port": "5432",
                     "smallbank_customers": "100"}]
    elif kind == "bench_fvs":
        contexts = [{"theta": "0.9", "algorithm": a, "graphs": "5", "time_reps": "1", "source": s,
                     "warmup_batches": "2"} for a in ("greedy_sort", "search") for s in ("fresh", "validator")]
    elif kind == "bench_strife":
        contexts = [{"experiments": e, "batch": "500", "reps": "1", "threads": "1", "fig05_points": "ycsb:0.5,hot:10",
                     "fig09_points": "ycsb:0.5", "fig10_points": "tpcc:4", "format": "json"}
                    for e in ("fig05", "fig09", "fig10")]
    elif kind == "bench_checker":
        contexts = [{"txns": "1000", "keys": "1000", "json": "true"}]
    elif kind == "check_history":
        contexts = [{"json": "true"}]
    return Binary(path, kind, flags, contexts, "out" in flags)


def numbers_in(doc: str) -> list[float]:
    values = []
    for token in re.findall(r"2\^\d+|-?\d+(?:\.\d+)?(?:e-?\d+)?", doc):
        values.append(float(2 ** int(token[2:])) if token.startswith("2^") else float(token))
    return values


def stated_bounds(binary: Binary, flag: Flag, context: dict[str, str]) -> list[float]:
    """The bounds the binary states when it refuses a far-out value ("allowed: ... in [lo, hi]"):
    documented too, where the help text leaves them out."""
    found: list[float] = []
    for value in ("-1e30", "1e30"):
        argv = [binary.path, *(f"--{k}={v}" for k, v in {**context, flag.name: value}.items())]
        try:
            stderr = subprocess.run(argv, capture_output=True, text=True, timeout=5,
                                    stdin=subprocess.DEVNULL).stderr
        except subprocess.TimeoutExpired:
            continue  # accepted and running: no bound stated
        match = re.search(rf"--{flag.name}: .*allowed: (.*)", stderr)
        if match:
            found += numbers_in(match.group(1))
    return found


def candidates(flag: Flag, binary: Binary, stated: list[float] = ()) -> list[str]:
    """The values tried for one flag (`stated`: bounds from the binary's refusals)."""
    if flag.type == "bool":
        return ["true", "false", "", "maybe", "2"]
    out: list[str] = ["", "abc", "-1", "0"]
    if flag.type == "string":
        return out + [flag.default, "x" * 300, ",", "a,,b", "/nonexistent-dir/x", *options_in(flag.doc, flag.name)]
    integral = flag.type in ("int32", "uint32", "int64", "uint64")
    bounds = numbers_in(flag.doc) + numbers_in(flag.default) + list(stated)
    for b in dict.fromkeys(bounds):
        if integral:
            if b != int(b):
                continue
            out += [str(int(b)), str(int(b) - 1), str(int(b) + 1)]
        else:
            out += [repr(b), repr(b - 1e-3), repr(b + 1e-3)]
    out += ["1.5", "18446744073709551616", "9223372036854775807", "-9223372036854775809"] if integral else \
        ["1e308", "-1e308", "nan", "inf", "-inf", "1e-300"]
    return list(dict.fromkeys(out))


def too_long(binary: Binary, flag: str, value: str) -> bool:
    """A value of a LONG_BY_DESIGN flag in its skipped window (long by design)."""
    limits = binary.long_by_design()
    if flag not in limits:
        return False
    window = limits[flag]
    if window is None:  # a switch whose "on" is long by design
        return value.lower() in ("true", "1", "yes")
    try:
        number = float(value)
    except ValueError:
        return False
    cap, refused_from = window
    return cap < number < refused_from


def run_case(case: Case, refusal_s: float, load_s: float) -> tuple[str, str | None]:
    """('refused' | 'ran', failure or None)."""
    with tempfile.TemporaryDirectory(prefix="flag_fuzz_") as out_dir:
        argv = case.argv(out_dir)
        run_s = sum(_seconds(case.args.get(k, "")) for k in ("warmup", "duration")
                    if case.binary.kind in ("rundb", "pipeline"))
        limit = run_s + load_s
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return "ran", f"hang: no exit within {limit:.1f} s"
        elapsed = time.monotonic() - start
        rc = proc.returncode
        given = set(case.args) | ({"out"} if case.binary.takes_out else set())
        out_file = Path(out_dir, "out.json")
        if SANITIZER.search(stderr):
            return "ran", f"sanitizer report: {stderr.strip()[-300:]}"
        if rc < 0:
            return "ran", f"killed by signal {-rc}: {stderr.strip()[-300:]}"
        if rc == 2:
            named = re.findall(r"--(\w+)", stderr)
            required = {n for n, f in case.binary.flags.items() if "(required)" in f.doc}
            if not any(n in given or n in required for n in named):
                return "refused", f"exit 2 without naming a flag given: {stderr.strip()[-300:]!r}"
            # One refusal comes after the run, by design: t_T still calibrating in
            # the measured interval (workloads/README.md); it has the run's limit.
            after_run = case.binary.kind == "rundb" and POST_RUN_REFUSAL in stderr
            bound_s = limit if after_run else refusal_s
            if elapsed > bound_s:
                return "refused", f"exit 2 after {elapsed:.2f} s (> {bound_s:g} s): {stderr.strip()[-200:]}"
            if out_file.exists():
                return "refused", "exit 2 but the --out file was written"
            return "refused", None
        if rc == 0 and case.args.get("validate_only", "false").lower() in ("true", "1", "yes"):
            # --validate_only: every check passed, nothing loaded, connected or written
            return "ran", "--validate_only wrote the --out file" if out_file.exists() else None
        if case.binary.kind == "middletier":
            if rc == 1 and "cannot connect to PostgreSQL" in stderr:
                return "ran", None
            return "ran", f"exit {rc} without a server, not 'cannot connect': {stderr.strip()[-300:]}"
        if rc == 4 and case.binary.kind == "rundb":
            if "committed nothing" not in stderr:
                return "ran", f"exit 4 without 'committed nothing': {stderr.strip()[-300:]}"
            return "ran", "exit 4 but the --out file was written" if out_file.exists() else None
        if rc in (0, 3):
            if case.binary.takes_out and "out" not in case.args:
                try:
                    json.loads(out_file.read_text())
                except (OSError, ValueError) as e:
                    return "ran", f"exit {rc} but no readable --out document ({e})"
            return "ran", None
        return "ran", f"exit {rc}: {stderr.strip()[-300:]}"


def _seconds(text: str) -> float:
    """A time flag's value as the run's share of the limit (0 when it is not a plain number)."""
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if 0 < value < 1e6 else 0.0


def generate_cases(binaries: list[Binary], rng: random.Random, depth: str, only: set[str]) -> list[Case]:
    cases: list[Case] = []
    per_flag = None if depth == "full" else 3
    combos = 0 if only else 300 if depth == "full" else 12
    for b in binaries:
        for name, flag in sorted(b.flags.items()):
            if only and name not in only:
                continue
            contexts = _contexts_for(b, flag)
            stated = stated_bounds(b, flag, contexts[0]) if flag.type not in ("bool", "string") else []
            values = candidates(flag, b, stated)
            if per_flag is not None:
                values = rng.sample(values, min(per_flag, len(values)))
            for value in values:
                if too_long(b, name, value):
                    continue
                # full: in every context the flag matters in (e.g. --theta in YCSB, SmallBank and micro)
                for context in (contexts if depth == "full" else [rng.choice(contexts)]):
                    cases.append(Case(b, {**context, name: value}, (name,)))
        for _ in range(combos):
            context = dict(rng.choice(b.contexts))
            picked = rng.sample(sorted(b.flags), min(len(b.flags), rng.choice((2, 3))))
            for name in picked:
                value = rng.choice(candidates(b.flags[name], b))
                if not too_long(b, name, value):
                    context[name] = value
            cases.append(Case(b, context, tuple(picked)))
    return cases


def _contexts_for(b: Binary, flag: Flag) -> list[dict[str, str]]:
    """A workload's flags are fuzzed with that workload (its help text starts with its name)."""
    if b.kind != "rundb":
        return b.contexts
    prefix = flag.doc.split(":", 1)[0].lower()
    workloads = {w for p, w in WORKLOAD_PREFIX.items() if re.search(rf"\b{re.escape(p)}\b", prefix)}
    plain = [c for c in b.contexts if c["frontend"] == "none"]
    if flag.name.startswith(("runtime_skew", "io_latency")):  # TSKD's extensions: YCSB and TPC-C, switched on
        return [{**c, **EXTENSIONS_ON} for c in plain if c["workload"] == "ycsb"]
    return [c for c in plain if c["workload"] in workloads] or plain


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--depth", choices=["ci", "full"], default="ci")
    parser.add_argument("--refusal_s", type=float, default=1.0, help="exit 2 must come within this (s)")
    parser.add_argument("--load_s", type=float, default=30.0, help="a run may take warm-up + duration + this (s)")
    parser.add_argument("--flags", default="", help="comma-separated: fuzz only these flags, no combinations")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    binaries = [make_binary(p) for p in args.binaries]
    cases = generate_cases(binaries, rng, args.depth, set(filter(None, args.flags.split(","))))
    tally = Tally()
    start = time.monotonic()
    for case in cases:
        outcome, failure = run_case(case, args.refusal_s, args.load_s)
        tally.cases += 1
        tally.refused += outcome == "refused"
        tally.ran += outcome == "ran"
        if failure:
            line = f"FAIL [{' '.join(case.fuzzed)}] {failure}\n  command: {shlex.join(case.argv('OUT'))}"
            tally.failures.append(line)
            print(line, flush=True)
    elapsed = time.monotonic() - start
    print(f"flag_fuzz (seed {args.seed}, depth {args.depth}): {tally.cases} cases on {len(binaries)} binaries in "
          f"{elapsed:.0f} s: {tally.refused} refused (exit 2), {tally.ran} ran")
    print(f"{tally.cases - len(tally.failures)} passed, {len(tally.failures)} failed")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
