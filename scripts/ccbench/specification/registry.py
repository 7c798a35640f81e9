"""The protocol, workload and front-end registries, read as CMake reads them.

engine/cc/protocols.txt is the only list of protocols and of their
properties (serializable, which workloads, which executors), each one's
home being engine/cc/<name>/ (`home_problems` checks them against it);
workloads/workloads.txt the only list of workloads (extensions, partitions,
high-contention flags); partitioners/frontends.txt the only list of
front-ends (executor, owner threads, input partition, factory, help). The harness, the soak, the benchmarks and the
contract test (`python -m ccbench.specification.registry protocol <name>`) read them here,
so no code tests a protocol's name.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from ccbench.fileio import REPOSITORY_ROOT as ROOT


@dataclass(frozen=True)
class Protocol:
    name: str
    cls: str
    serializable: bool     # False: not serializable by design (nocc: no CC; si: write skew); never verified or soaked
    partitioned_only: bool  # runs only workloads with a static partitioning (PartCC)
    bundle: bool           # runs the bundle executor's front-ends and --frontend=reorder


@dataclass(frozen=True)
class Workload:
    name: str
    extensions: bool       # takes TSKD's runtime-skew and I/O-latency extensions
    partitioned: bool      # has partition_of / partition_count
    contended_flags: tuple[str, ...]   # its high-contention setting (verify ctests, soak)


@dataclass(frozen=True)
class Frontend:
    name: str
    bundle: bool           # runs on the bundle executor (else the online executor's own)
    owner_threads: bool    # protocols with owner threads (executors "online": Dora, Orthrus) run with it
    partition: str         # the input partition its factory gets: "-", strife, schism, horticulture
    help: str


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _yes(value: str, what: str) -> bool:
    if value not in ("yes", "no"):
        raise ValueError(f"{what}: '{value}'; allowed: yes|no")
    return value == "yes"


def protocols(root: Path = ROOT) -> dict[str, Protocol]:
    path = root / "engine" / "cc" / "protocols.txt"
    found = {}
    for line in _lines(path):
        fields = line.split()
        if len(fields) != 5 or fields[3] not in ("all", "partitioned") or fields[4] not in ("online+bundle", "online"):
            raise ValueError(f"{path}: '{line}' is not '<name> <Class> <serializable: yes|no> "
                             "<workloads: all|partitioned> <executors: online+bundle|online>'")
        name, cls, serializable, workloads, executors = fields
        found[name] = Protocol(name, cls, _yes(serializable, f"{path}: {name}: serializable"),
                               workloads == "partitioned", executors == "online+bundle")
    return found


def home_problems(root: Path = ROOT) -> list[str]:
    """Why the protocols' homes disagree with the registry, one line each; empty when they agree.

    A registered protocol's home is engine/cc/<name>/ (cmake/registries.cmake
    builds from it): its header <name>.h, and a README.md that opens by naming
    that header (its documentation; docs/protocols.md holds only what the
    protocols share). Every folder under engine/cc/ is a registered protocol's
    home, and no registered protocol keeps a header outside it.
    """
    cc = root / "engine" / "cc"
    registered = protocols(root)
    problems = []
    for name in registered:
        home = cc / name
        header = f"engine/cc/{name}/{name}.h"
        if not (home / f"{name}.h").is_file():
            problems.append(f"{name}: no {header}")
        if (cc / f"{name}.h").exists():
            problems.append(f"{name}: engine/cc/{name}.h is outside its home engine/cc/{name}/")
        readme = home / "README.md"
        if not readme.is_file():
            problems.append(f"{name}: no engine/cc/{name}/README.md")
            continue
        first = readme.read_text(encoding="utf-8").split("\n", 1)[0]
        if not first.startswith("# ") or f"`{header}`" not in first:
            problems.append(f"{name}: engine/cc/{name}/README.md does not open with a '# ' title naming `{header}`")
    for folder in sorted(p.name for p in cc.iterdir() if p.is_dir()):
        if folder not in registered:
            problems.append(f"engine/cc/{folder}/ is no registered protocol's home (engine/cc/protocols.txt)")
    return problems


def _bar_lines(path: Path, count: int, form: str) -> list[list[str]]:
    """The lines of a registry whose `count` fields are separated by '|', stripped; `form` for the error."""
    rows = []
    for line in _lines(path):
        fields = [field.strip() for field in line.split("|")]
        if len(fields) != count:
            raise ValueError(f"{path}: '{line}' needs {count} fields separated by '|'{form}")
        rows.append(fields)
    return rows


def workloads(root: Path = ROOT) -> dict[str, Workload]:
    path = root / "workloads" / "workloads.txt"
    found = {}
    for fields in _bar_lines(path, 8, ""):
        name = fields[0]
        found[name] = Workload(name, _yes(fields[5], f"{path}: {name}: extensions"),
                               _yes(fields[6], f"{path}: {name}: partitions"), tuple(fields[7].split()))
    return found


def frontends(root: Path = ROOT) -> dict[str, Frontend]:
    """The front-ends in registry order (the order of --help and of the schema's enum)."""
    path = root / "partitioners" / "frontends.txt"
    found = {}
    for fields in _bar_lines(path, 8, " (name | executor | owner threads | partition | header | factory | library | help)"):
        name, executor, owner, partition = fields[:4]
        if executor not in ("online", "bundle"):
            raise ValueError(f"{path}: {name}: the executor field is '{executor}'; allowed: online|bundle")
        found[name] = Frontend(name, executor == "bundle", _yes(owner, f"{path}: {name}: owner threads"),
                               partition, fields[7])
    return found


def runs(protocol: Protocol, workload: Workload) -> bool:
    """Whether the protocol accepts the workload (a partitioned-only protocol needs partitions)."""
    return workload.partitioned or not protocol.partitioned_only


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ccbench.specification.registry", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("protocol", help="one protocol's properties as shell assignments")
    one.add_argument("name")
    sub.add_parser("unpartitioned", help="the workloads without partitions, one per line")
    args = parser.parse_args(argv)
    if args.what == "protocol":
        known = protocols()
        if args.name not in known:
            print(f"error: protocol '{args.name}'; allowed: {'|'.join(known)}", file=sys.stderr)
            return 2
        p = known[args.name]
        yn = lambda flag: "true" if flag else "false"
        print(f"serializable={yn(p.serializable)} partitioned_only={yn(p.partitioned_only)} bundle={yn(p.bundle)}")
    else:
        print("\n".join(w.name for w in workloads().values() if not w.partitioned))
    return 0


if __name__ == "__main__":
    sys.exit(main())
