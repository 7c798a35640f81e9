"""Config fuzzer (issue 30): mutated figure configs are refused, naming the field, before anything runs.

Real figure configs (configs/figures, every one) are mutated by a seeded
generator: a wrong type at a random field, an unknown key at every level, an
out-of-range value, an empty series list, a metric no result has. Loading and
resolving a mutant either raises ConfigError whose problems each name a file
and a field path, or succeeds; never another exception (a traceback). The
test figure of conftest.py, which the fake engine can run, is mutated the
same way and given to `ccbench run`: exit 2 with the field path on stderr and
nothing stored or drawn, or a normal run (exit 0) that stores every point.
"""
from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
import yaml

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.fileio import load_yaml
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import figure_document

REPOSITORY = Path(__file__).resolve().parents[2]
REAL_CONFIGS = sorted((REPOSITORY / "configs" / "figures").glob("*/*.yaml"))
SEED = 30
MUTANTS_PER_CONFIG = 6


def paths(node: object, prefix: tuple = ()) -> list[tuple]:
    """Every field path of a document: keys of mappings, indices of lists."""
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*prefix, index))
    return found


def get(node: object, path: tuple) -> object:
    for part in path:
        node = node[part]
    return node


def put(node: object, path: tuple, value: object) -> None:
    get(node, path[:-1])[path[-1]] = value


def wrong_type(value: object) -> object:
    if isinstance(value, bool):
        return "yes-ish"
    if isinstance(value, (int, float)):
        return "not-a-number"
    if isinstance(value, str):
        return 12345
    if isinstance(value, list):
        return {"unexpected": "mapping"}
    if isinstance(value, dict):
        return ["unexpected", "list"]
    return []


def out_of_range(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return -1
    return random.Random(value).choice([-1, 0, -1e9, 1e18])


def mutants(document: dict, rng: random.Random) -> list[tuple[str, dict]]:
    """(what was changed, mutated document) pairs."""
    found = []
    fields = paths(document)
    for _ in range(MUTANTS_PER_CONFIG):
        kind = rng.choice(["type", "unknown", "range", "empty_series", "metric"])
        mutant = copy.deepcopy(document)
        if kind == "type" and fields:
            path = rng.choice(fields)
            put(mutant, path, wrong_type(get(mutant, path)))
        elif kind == "range":
            numeric = [p for p in fields if isinstance(get(document, p), (int, float))
                       and not isinstance(get(document, p), bool)]
            if not numeric:
                continue
            path = rng.choice(numeric)
            put(mutant, path, out_of_range(get(mutant, path)))
        elif kind == "unknown":
            mappings = [()] + [p for p in fields if isinstance(get(document, p), dict)]
            path = rng.choice(mappings)
            get(mutant, path)["zz_unknown_key"] = 1
        elif kind == "empty_series":
            path = ("series",)
            mutant["series"] = []
        else:
            path = ("plot", "y")
            mutant.setdefault("plot", {})["y"] = "no_such_metric_zz"
        found.append((f"{kind} at {'.'.join(map(str, path)) or '(top)'}", mutant))
    return found


def check_refusal(error: ConfigError, config_path: Path) -> None:
    assert error.problems, "a ConfigError with no problem"
    for file, field_path, message in error.problems:
        assert file and message, f"a problem without a file or a message: {error.problems}"
        assert field_path or "include" in message or Path(file) != config_path, \
            f"a problem of the figure that names no field: {file}: {message}"


@pytest.mark.parametrize("config_path", REAL_CONFIGS, ids=lambda p: p.stem)
def test_mutated_real_configs_are_refused_naming_a_field_or_load(config_path, tmp_path):
    rng = random.Random(f"{SEED}:{config_path.stem}")
    profiles = load_profiles(REPOSITORY / "configs" / "profiles")
    document = load_yaml(config_path)
    for what, mutant in mutants(document, rng):
        # Beside the original, so its fragments (include) resolve as they do for it.
        path = config_path.parent / f".fuzz-{config_path.stem}-{tmp_path.name}.yaml"
        path.write_text(yaml.safe_dump(mutant, sort_keys=False, allow_unicode=True))
        try:
            try:
                config = FigureConfig.load(path, profiles)
                for profile in profiles:
                    config.resolve(profile).points()
            except ConfigError as error:
                check_refusal(error, path)
        except Exception as error:  # noqa: BLE001 - any other exception is the failure
            pytest.fail(f"{config_path.name}, {what}: {type(error).__name__}: {error}")
        finally:
            path.unlink()


def runnable_mutants() -> list[tuple[str, dict]]:
    rng = random.Random(SEED)
    document = figure_document()
    found = [(what, mutant) for _ in range(3) for what, mutant in mutants(document, rng)]
    return found[:15]


@pytest.mark.parametrize("what,mutant", runnable_mutants(), ids=lambda x: x if isinstance(x, str) else "")
def test_ccbench_run_refuses_a_mutant_before_any_run_or_runs_it(sandbox, capsys, what, mutant):
    sandbox.add_figure(document=mutant)
    try:
        status = main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet"))
    except SystemExit as exit_:  # argparse-level exits are the CLI's own
        status = exit_.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert status in (0, 1, 2), f"{what}: exit {status}\n{err}"
    if status == 2:
        assert "test-fig.yaml: " in err, f"{what}: the refusal names no field of the figure:\n{err}"
        assert not sandbox.records(), f"{what}: refused, yet runs were stored"
        assert not list(sandbox.workspace.runs_dir.glob(".tmp-*")), "a half-written store entry"
    else:
        assert sandbox.records(), f"{what}: accepted, yet nothing stored"
        assert not list(sandbox.workspace.runs_dir.glob(".tmp-*")), "a half-written store entry"


def test_a_sweep_over_a_value_the_binary_refuses_is_refused_before_any_run(sandbox, capsys):
    document = figure_document()
    document["axes"]["theta"] = [0.0, 0.5, 11.0]   # the engine takes --theta in [0, 10]
    sandbox.add_figure(document=document)
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 2
    err = capsys.readouterr().err
    assert "axes.theta: the engine refuses the point of series silo at theta=11.0: --theta: invalid value" in err, err
    assert not sandbox.records()                         # nothing was run or stored
    assert not list(sandbox.workspace.runs_dir.glob(".tmp-*"))
