"""Figure configs and profiles: loading, validation and resolution into points.

Parameters of a point are merged in this order (later wins):
  1. the figure's `base`                       (the paper's own setting)
  2. the profile file's `base`                 (run length: duration, warmup, ...;
                                                engine figures only)
  3. the figure's `profiles.<profile>.base`    (the figure scaled to that profile)
  4. the series' `params`                      (what the series compares)
  5. the swept axis values
A parameter may not be both swept and fixed, and a figure may not set in its
`base` what a profile file sets (it would be silently overridden).
A figure may `include` a fragment (configs/fragments/<name>.yaml, e.g. a
paper's table of defaults): its `base` and `profiles.<p>.base` fill in what
the figure does not set, sweep or fix per series (see include_fragment).
Repetition r of a point runs with seed = (seed or 1) + r.
A config is checked against its schema (schema.py), then by the cross-field
rules the schema cannot express (crossfield.py), for every profile.
"""
from __future__ import annotations

import functools
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Sequence

from ccbench.errors import ConfigError, UsageError, did_you_mean
from ccbench.fileio import load_yaml
from ccbench.specification import machines as modelled, schema
from ccbench.specification.crossfield import ConsistencyChecker
from ccbench.specification.document import figure_metrics, profile_parameters, program_of
from ccbench.specification.points import Point
from ccbench.specification.programs import ENGINE, SIM_VARIANT, Program
from ccbench.specification.reference import ReferencePoint, reference_points


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    base: dict
    repetitions: int
    timeout_s: float
    path: Path
    max_repetitions: int = 0     # --until-decided's cap; the profile file's, else its repetitions
    variant: str = schema.VARIANT_NATIVE    # sim: its engine points run on virtual cores (docs/sim.md)
    sim_cost_table: str = schema.DEFAULT_COST_TABLE   # the simulated points' cost table, under the results directory
    sim_work_scale: str = schema.WORK_SCALE_NONE      # fit: fit each simulated configuration's work scale (workscale.py)
    sim_machine: str = modelled.CALIBRATING          # the modelled machine of figures that name none (machines.py)
    native_workers: int = 1      # native points at a time on the local backend (1: each measured alone)

    @property
    def simulates(self) -> bool:
        return self.variant == schema.VARIANT_SIM


@dataclass(frozen=True)
class Series:
    name: str
    label: str
    params: dict
    marker: str | None = None
    color: str | None = None
    variant: str | None = None   # native, sim or reference; None: the profile's
    reference: dict | None = None   # a reference series' {data, rows} (reference.py)

    @property
    def is_reference(self) -> bool:
        """Its points are read from a data file of real measurements, not run (reference.py)."""
        return self.variant == schema.VARIANT_REFERENCE


def _check(document: object, schema_doc: dict, path: Path, prefix: list[object] = ()) -> None:
    problems = schema.validation_problems(document, schema_doc, list(prefix))
    if problems:
        raise ConfigError.many([(str(path), where, message) for where, message in problems])


def load_profiles(profiles_dir: Path) -> dict[str, Profile]:
    files = sorted(profiles_dir.glob("*.yaml"))
    if not files:
        raise ConfigError(profiles_dir, "", "no profile files (*.yaml) found")
    profiles = {}
    for path in files:
        document = load_yaml(path)
        _check(document, schema.PROFILE, path)
        cap = document.get("max_repetitions", document["repetitions"])
        if cap < document["repetitions"]:
            raise ConfigError(path, "max_repetitions", f"{cap} is below repetitions ({document['repetitions']}); "
                              f"the cap on --until-decided's repetitions must be at least the repetitions")
        machine = document.get(modelled.PARAMETER, modelled.CALIBRATING)
        problem = modelled.name_problem(machine, machines(profiles_dir.parent))
        if problem:
            raise ConfigError(path, modelled.PARAMETER, problem)
        profiles[path.stem] = Profile(path.stem, document["description"], document["base"],
                                      document["repetitions"], float(document["timeout_s"]), path, cap,
                                      document.get("variant", schema.VARIANT_NATIVE),
                                      document.get("sim_cost_table", schema.DEFAULT_COST_TABLE),
                                      document.get("sim_work_scale", schema.WORK_SCALE_NONE), machine,
                                      document.get("native_workers", 1))

    return profiles


@functools.lru_cache(maxsize=None)
def machines(configs: Path) -> dict[str, modelled.Machine]:
    """The modelled machines of configs/machines/ (read once per configs directory)."""
    return modelled.load_machines(configs)


def machine_problems(document: dict, path: Path, profiles: dict[str, Profile]) -> list[tuple[str, str]]:
    """Every sim_machine a figure's simulated points would get, under every profile: a known machine, and no
    flag that the machine supplies set by the figure too (machines.py)."""
    known = machines(configs_dir(path))
    problems = []
    for name, profile in profiles.items():
        base, axes = profile_parameters(document, name, profile.base)
        for index, series in enumerate(document["series"]):
            if (series.get("variant") or profile.variant) != schema.VARIANT_SIM:
                continue
            parameters = {**base, **series.get("params", {})}
            where = modelled.where_named(document, name, index)
            for machine in axes.get(modelled.PARAMETER, [parameters.get(modelled.PARAMETER, profile.sim_machine)]):
                problem = modelled.name_problem(machine, known)
                if problem is None:
                    problem = modelled.overlap_problem(machine, {**parameters, **axes}, known)
                if problem:
                    problems.append((where, problem))
    return problems


def figure_config_paths(figures_dir: Path) -> dict[str, Path]:
    """figure id -> config path for every configs/figures/<paper>/<id>.yaml."""
    found: dict[str, Path] = {}
    for path in sorted(figures_dir.glob("*/*.yaml")):
        if path.stem in found:
            raise ConfigError(path, "", f"figure id '{path.stem}' is also used by {found[path.stem]}; ids must be unique")
        found[path.stem] = path
    return found


def find_figure(reference: str, figures_dir: Path) -> Path:
    """A figure id (the config's file name, e.g. bcc-fig09) or the path of a config file."""
    as_path = Path(reference)
    if as_path.suffix in (".yaml", ".yml"):
        if not as_path.is_file():
            raise UsageError(f"no such config file: {reference}")
        return as_path
    known = figure_config_paths(figures_dir)
    if reference not in known:
        close = did_you_mean(reference, known)
        raise UsageError(f"unknown figure '{reference}'{close}; " + (
            f"`ccbench list` lists the {len(known)} figures with a config" if close else
            f"figures with a config: {', '.join(sorted(known)) or 'none'}"))
    return known[reference]


def configs_dir(figure_path: Path) -> Path:
    """configs/ for a figure at configs/figures/<paper>/<id>.yaml: where its fragments and reference data are."""
    return figure_path.resolve().parent.parent.parent


def fragments_dir(figure_path: Path) -> Path:
    """configs/fragments for a figure at configs/figures/<paper>/<id>.yaml."""
    return configs_dir(figure_path) / "fragments"


def include_fragment(document: dict, path: Path) -> dict:
    """The figure with its fragment merged in: the fragment's parameters are
    defaults, so a key the figure sets in base, sweeps, or fixes in a series
    is left to the figure; the fragment's inferences come first."""
    fragment_path = fragments_dir(path) / f"{document['include']}.yaml"
    if not fragment_path.is_file():
        known = sorted(p.stem for p in fragments_dir(path).glob("*.yaml"))
        raise ConfigError(path, "include", f"no fragment '{document['include']}' in {fragments_dir(path)}; "
                          f"fragments: {', '.join(known) or 'none'}")
    fragment = load_yaml(fragment_path)
    _check(fragment, schema.FRAGMENT, fragment_path)
    figure_owned = {*document["base"], *document.get("axes", {}),
                    *(key for series in document["series"] for key in series.get("params", {}))}
    merged = {**document, "base": {**{k: v for k, v in fragment["base"].items() if k not in figure_owned},
                                   **document["base"]}}
    profiles = {name: dict(override) for name, override in document.get("profiles", {}).items()}
    for name, override in fragment.get("profiles", {}).items():
        own = profiles.get(name, {}).get("base", {})
        inherited = {k: v for k, v in override.get("base", {}).items() if k not in figure_owned and k not in own}
        if inherited:
            profiles.setdefault(name, {})["base"] = {**inherited, **own}
    if profiles:
        merged["profiles"] = profiles
    if fragment.get("inferences"):
        merged["inferences"] = [*fragment["inferences"], *document.get("inferences", [])]
    return merged


@dataclass
class FigureConfig:
    """A validated figure config. Its id is the file name, its paper the directory."""
    figure_id: str
    paper: str
    path: Path
    document: dict
    profiles: dict[str, Profile]

    @classmethod
    def load(cls, path: Path, profiles: dict[str, Profile]) -> "FigureConfig":
        document = load_yaml(path)
        _check(document, schema.FIGURE, path)
        if "include" in document:
            document = include_fragment(document, path)
        for index, claim in enumerate(document.get("claims", [])):
            _check(claim, schema.CLAIM_SCHEMAS[claim["kind"]], path, ["claims", index])
        config = cls(path.stem, path.parent.name, path, document, profiles)
        plain_profiles = {name: {"base": profile.base, "file": str(profile.path)} for name, profile in profiles.items()}
        problems = ConsistencyChecker(document, plain_profiles).problems()
        if not problems:
            problems += machine_problems(document, path, profiles)
        if not problems:   # the reference series' rows, for every profile's sweep
            for name in profiles:
                axes = profile_parameters(document, name, profiles[name].base)[1]
                problems += reference_points(document, configs_dir(path), axes, name)[1]
        if problems:
            raise ConfigError.many([(str(path), where, message) for where, message in dict.fromkeys(problems)])
        return config

    @property
    def title(self) -> str:
        return self.document["title"]

    @property
    def program(self) -> Program:
        return program_of(self.document)

    @property
    def placement(self) -> str:
        """On a cluster: exclusive (each point alone on its machine) or shared (schema.py)."""
        return self.document.get("placement", schema.PLACEMENT_EXCLUSIVE)

    @property
    def series(self) -> list[Series]:
        return [Series(s["name"], s.get("label", s["name"]), s.get("params", {}), s.get("marker"), s.get("color"),
                       s.get("variant"), s.get("reference"))
                for s in self.document["series"]]

    @property
    def plot(self) -> dict:
        return self.document["plot"]

    @property
    def claims(self) -> list[dict]:
        return self.document.get("claims", [])

    @property
    def views(self) -> list[dict]:
        """Further drawings of the figure (plot specs with a `name`)."""
        return self.document.get("views", [])

    @property
    def deterministic_metrics(self) -> list[str]:
        """Metrics without measurement noise (schema.FIGURE): their claims are decided on the median."""
        return self.document.get("deterministic_metrics", [])

    @property
    def breakdown(self) -> dict | None:
        """The slowdown breakdown (schema.BREAKDOWN), or None."""
        return self.document.get("breakdown")

    def resolve(self, profile_name: str) -> "ResolvedFigure":
        if profile_name not in self.profiles:
            raise UsageError(f"unknown profile '{profile_name}'; profiles: {', '.join(sorted(self.profiles))}")
        profile = self.profiles[profile_name]
        override = self.document.get("profiles", {}).get(profile_name, {})
        base, axes = profile_parameters(self.document, profile_name, profile.base)
        repetitions = override.get("repetitions", self.document.get("repetitions", profile.repetitions))
        timeout_s = float(override.get("timeout_s", self.document.get("timeout_s", profile.timeout_s)))
        return ResolvedFigure(self, profile, base, axes, repetitions, timeout_s)


@dataclass
class ResolvedFigure:
    """A figure under one profile: concrete parameters, axis values and points."""
    config: FigureConfig
    profile: Profile
    base: dict
    axes: dict[str, list]
    repetitions: int
    timeout_s: float
    _points: list[Point] = field(default_factory=list, repr=False)

    @property
    def figure_id(self) -> str:
        return self.config.figure_id

    @property
    def placement(self) -> str:
        return self.config.placement

    def series_parameters(self, series: Series) -> dict:
        return {**self.base, **series.params}

    def reference_points(self) -> list[ReferencePoint]:
        """The points of the reference series, read from their data files (reference.py; checked when the
        figure loaded)."""
        points, problems = reference_points(self.config.document, configs_dir(self.config.path), self.axes,
                                            self.profile.name)
        if problems:
            raise ConfigError.many([(str(self.config.path), where, message) for where, message in problems])
        return points

    def simulates(self, series: Series) -> bool:
        """Whether the series' points run on virtual cores: its own variant, else the profile's."""
        return (series.variant or self.profile.variant) == schema.VARIANT_SIM

    def simulated_series(self) -> list[str]:
        """The series whose points are simulated and can run (a program with a simulation build)."""
        return list(dict.fromkeys(point.series for point in self.points() if point.simulated and not point.unrunnable))

    def virtual_cores(self, series: Collection[str] | None = None) -> list[int]:
        """The virtual core counts of the simulated points (of the given series), sorted."""
        return sorted({point.threads for point in self.points() if point.simulated and not point.unrunnable
                       and (series is None or point.series in series)})

    def modelled_machines(self) -> list[str]:
        """The machines the simulated points model (configs/machines/; calibrating: the calibrating machine's
        own costs), sorted."""
        return sorted({str(dict(point.flags).get(modelled.PARAMETER, modelled.CALIBRATING))
                       for point in self.points() if point.simulated and not point.unrunnable})

    def simulation_caption(self) -> str | None:
        """What a simulated figure's caption and title say (docs/sim.md): "simulated, N virtual cores", which
        series when only some are, and the paper's settings scaled for the simulation; None: not simulated."""
        simulated = self.simulated_series()
        if not simulated:
            return None
        text = f"simulated, {cores_text(self.virtual_cores())}"
        run = [series for series in self.config.series if not series.is_reference]
        if len(simulated) < len(run):
            labels = {series.name: series.label for series in run}
            text += f" (series {', '.join(labels[name] for name in simulated)}; the others native, on this machine)"
        sources = sorted({point.source for point in self.reference_points()})
        if sources:
            text += f"; beside measured data from {', '.join(sources)}"
        scaled = self.scaled_for_simulation()
        if scaled:
            text += "; scaled from the paper's setting for memory: " + ", ".join(
                f"{name} {paper} -> {here}" for name, (paper, here) in scaled.items())
        return text

    def scaled_for_simulation(self) -> dict[str, tuple[object, object]]:
        """The paper's settings (the figure's base) that a simulating profile's override changes (tables
        scaled where memory requires, said in the caption): {flag: (paper's value, value here)}."""
        if not self.profile.simulates:
            return {}
        override = self.config.document.get("profiles", {}).get(self.profile.name, {}).get("base", {})
        paper = self.config.document["base"]
        return {name: (paper[name], value) for name, value in override.items()
                if name in paper and paper[name] != value}

    def points(self) -> list[Point]:
        if self._points:
            return self._points
        program = self.config.program
        axis_names = list(self.axes)
        for series in self.config.series:
            if series.is_reference:   # read from its data file, never run
                continue
            for values in itertools.product(*(self.axes[name] for name in axis_names)):
                coords = tuple(zip(axis_names, values))
                parameters = {**self.series_parameters(series), **dict(coords)}
                for key, axis in self.config.document.get("follow", {}).items():
                    parameters[key] = parameters[axis]
                cc = parameters.pop(program.binary_parameter) if program.binary_parameter else None
                first_seed = parameters.get("seed", 1)
                build = SIM_VARIANT if self.simulates(series) else None
                # A simulated point models its machine (checked when the figure loaded); a native one runs on
                # this machine, so sim_machine means nothing to it.
                machine = parameters.pop(modelled.PARAMETER, self.profile.sim_machine)
                if build:
                    parameters.update(modelled.machine_flags(machine, machines(configs_dir(self.config.path))))
                cost_table = self.profile.sim_cost_table if build else None
                fit = bool(build) and self.profile.sim_work_scale == schema.WORK_SCALE_FIT and program.name == ENGINE
                for repetition in range(self.repetitions):
                    flags = {**parameters, "seed": first_seed + repetition}
                    self._points.append(Point(self.figure_id, series.name, coords, repetition, cc,
                                              tuple(sorted(flags.items())), self.timeout_s, program.name, build,
                                              cost_table, fit))
        return self._points

    def max_threads(self) -> int:
        return max(point.threads for point in self.points())

    @property
    def max_repetitions(self) -> int:
        """How many repetitions of a point --until-decided may run: the profile's cap, at least the figure's."""
        return max(self.profile.max_repetitions, self.repetitions)

    def metrics(self) -> list[str]:
        """Every metric the tidy table carries (document.figure_metrics)."""
        return figure_metrics(self.config.document, self.axes)


def cores_text(cores: Sequence[int]) -> str:
    """Virtual core counts for a caption: "1 virtual core", "32 virtual cores" or "1-32 virtual cores"."""
    low, high = min(cores), max(cores)
    return "1 virtual core" if low == high == 1 else f"{low if low == high else f'{low}-{high}'} virtual cores"


def hardware_threads() -> int:
    return os.cpu_count() or 1
