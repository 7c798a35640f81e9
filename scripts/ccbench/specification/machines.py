"""The modelled machines of simulated points (docs/sim.md, "The modelled machine").

A simulated point's cost table is calibrated on the machine that runs the
simulation: its local work (txn_begin .. abort) is that machine's. The costs
between cores (a line's transfer within and between sockets, an atomic
read-modify-write, a shared load, a spin round, a futex wake-up), the cores,
sockets, SMT factor and the lines' residency describe the machine the
simulation models, which is another one: configs/machines/<name>.yaml, every
value with its source. A figure (or a profile) names it with `sim_machine`;
each field <f> reaches the simulation as --sim_<f>, and --sim_machine=<name>
labels the result (its sim.model says which ops came from the machine).

The name `calibrating` is no file: the calibrating machine itself (every cost
from the cost table, the simulator's defaults for the rest), for figures that
compare the simulation with native runs on this machine (sim-validation).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ccbench.errors import ConfigError
from ccbench.fileio import load_yaml
from ccbench.specification import schema

PARAMETER = "sim_machine"        # the parameter (and engine flag) that names a point's machine
CALIBRATING = "calibrating"      # no machine file: the calibrating machine's own costs
FLAG_PREFIX = "sim_"
# A machine file's fields, each {value, source}; field <f> is the engine flag --sim_<f> (engine/sim/options.cpp).
INTEGER_FIELDS = ("physical_cores", "sockets")
NUMBER_FIELDS = ("smt_factor", "line_transfer_ns", "socket_transfer_ns", "atomic_rmw_ns", "atomic_load_ns",
                 "spin_round_ns", "wake_up_ns", "line_residency_ns")
FIELDS = INTEGER_FIELDS + NUMBER_FIELDS
# [MEAS] measured on that machine, [DOC] a datasheet or paper, [INF] an inference; then the reasoning.
SOURCE_PATTERN = r"^\[(MEAS|DOC|INF)\] \S"


def _field(value_schema: dict) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["value", "source"],
            "properties": {"value": value_schema, "source": {"type": "string", "pattern": SOURCE_PATTERN}}}


SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "description", "papers", *FIELDS],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$"},
        "description": schema.TEXT,
        "papers": {"type": "array", "items": schema.TEXT},   # whose figures model it
        **{name: _field(schema.POSITIVE_INT) for name in INTEGER_FIELDS},
        **{name: _field(schema.NON_NEGATIVE_NUMBER) for name in NUMBER_FIELDS},
        "smt_factor": _field({"type": "number", "minimum": 1}),   # replaces the generic entry: a slowdown, >= 1
    },
}


@dataclass(frozen=True)
class Machine:
    name: str
    description: str
    path: Path
    values: dict[str, int | float]    # field -> value
    sources: dict[str, str]           # field -> its source

    def flags(self) -> dict[str, object]:
        """The point parameters (engine flags) that model this machine: --sim_<field> and --sim_machine."""
        return {**{FLAG_PREFIX + name: value for name, value in self.values.items()}, PARAMETER: self.name}


def machines_dir(configs: Path) -> Path:
    return configs / "machines"


def where_named(document: dict, profile: str, series_index: int) -> str:
    """The field of a figure that gives a series' points their sim_machine under a profile (for messages)."""
    override = document.get("profiles", {}).get(profile, {})
    for where, place in ((f"series[{series_index}].params", document["series"][series_index].get("params", {})),
                         (f"profiles.{profile}.axes", override.get("axes", {})),
                         ("axes", document.get("axes", {})),
                         (f"profiles.{profile}.base", override.get("base", {})),
                         ("base", document.get("base", {}))):
        if PARAMETER in place:
            return f"{where}.{PARAMETER}"
    return f"profile {profile}'s {PARAMETER}"


def load_machine(path: Path) -> Machine:
    """One machine file, schema-checked (every field with a value and a source) and named as its file."""
    document = load_yaml(path)
    problems = schema.validation_problems(document, SCHEMA)
    if problems:
        raise ConfigError.many([(str(path), where, message) for where, message in problems])
    if document["name"] != path.stem:
        raise ConfigError(path, "name", f"'{document['name']}' is not allowed: a machine is named as its file "
                          f"('{path.stem}')")
    if document["physical_cores"]["value"] % document["sockets"]["value"]:
        raise ConfigError(path, "sockets", f"{document['sockets']['value']} is not allowed: a divisor of "
                          f"physical_cores ({document['physical_cores']['value']}), which split evenly among them")
    return Machine(document["name"], document["description"], path,
                   {name: document[name]["value"] for name in FIELDS},
                   {name: document[name]["source"] for name in FIELDS})


def load_machines(configs: Path) -> dict[str, Machine]:
    """Every configs/machines/<name>.yaml, by name."""
    return {path.stem: load_machine(path) for path in sorted(machines_dir(configs).glob("*.yaml"))}


def allowed_names(machines: dict[str, Machine]) -> str:
    return ", ".join([*sorted(machines), CALIBRATING])


def name_problem(name: object, machines: dict[str, Machine]) -> str | None:
    """What is wrong with a sim_machine value, if anything (the message names the allowed names)."""
    if isinstance(name, str) and (name in machines or name == CALIBRATING):
        return None
    return (f"{name!r} is not a modelled machine; allowed: {allowed_names(machines)} "
            f"(configs/machines/<name>.yaml; {CALIBRATING}: the calibrating machine's own costs)")


def machine_flags(name: str, machines: dict[str, Machine]) -> dict[str, object]:
    """The parameters a point with sim_machine `name` gets: the machine's flags (none for calibrating)."""
    return {} if name == CALIBRATING else machines[name].flags()


def overlap_problem(name: str, parameters: dict, machines: dict[str, Machine],
                    setter: str = "the figure") -> str | None:
    """A point that names a machine and also sets one of the flags the machine supplies: which one wins would
    be a silent choice, so it is refused."""
    clash = sorted(set(parameters) & (set(machine_flags(name, machines)) - {PARAMETER}))
    if not clash:
        return None
    return (f"{name} (configs/machines/{name}.yaml) sets {', '.join(clash)}, also set by {setter}; allowed: "
            f"drop them from {setter}, or name (or add) a machine in configs/machines/ that has those values")
