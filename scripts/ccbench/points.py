"""A point is one engine run: a protocol (which binary) plus its flags.

Its key, a hash of the engine command template, the protocol and every flag
value exactly as passed on the command line, names its record in the result
store. Two figures that need the same run therefore share it, and a sweep
that is run again finds every finished run under the same key.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


def format_flag_value(value: object) -> str:
    """The command-line spelling of a parameter value.

    Integral floats are written without '.0' so that `theta: 1` and
    `theta: 1.0` (the same setting to the engine) give the same key.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


@dataclass(frozen=True)
class Point:
    figure: str
    series: str
    coords: tuple[tuple[str, object], ...]   # (axis, value) for every swept axis
    repetition: int
    cc: str                                   # selects bin/rundb-<cc>; not passed as a flag
    flags: tuple[tuple[str, object], ...]    # every engine flag, sorted by name
    timeout_s: float

    @property
    def threads(self) -> int:
        return int(dict(self.flags)["threads"])

    def flag_arguments(self) -> list[str]:
        return [f"--{name}={format_flag_value(value)}" for name, value in self.flags]

    def key(self, engine: str) -> str:
        identity = {"engine": engine, "cc": self.cc,
                    "flags": {name: format_flag_value(value) for name, value in self.flags}}
        canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]
