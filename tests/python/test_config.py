"""Figure configs: schema errors name file and field; resolution into points.
The cross-field rules (crossfield.py) are tested in test_crossfield.py."""
from __future__ import annotations

import dataclasses

import pytest

from ccbench.cli import main
from ccbench.errors import ConfigError
from ccbench.report.pipeline import load_catalog
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, load_profiles
from conftest import figure_document


def load(sandbox, document):
    path = sandbox.add_figure("test-fig", document)
    return FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir)), path


def problems_of(sandbox, document) -> list[tuple[str, str, str]]:
    with pytest.raises(ConfigError) as raised:
        load(sandbox, document)
    return raised.value.problems


def mutated(change):
    document = figure_document()
    change(document)
    return document


def sweep_threads(values):
    def change(document):
        del document["base"]["threads"]
        document["axes"]["threads"] = values
    return change


def assert_reported(sandbox, change, field_path, message):
    """The test figure changed by `change` is refused with a problem at field_path containing message, every
    problem naming the figure's file."""
    problems = problems_of(sandbox, mutated(change))
    matching = [p for p in problems if p[1] == field_path and message in p[2]]
    assert matching, f"no problem at {field_path!r} containing {message!r}; got {problems}"
    assert all(p[0].endswith("testbed/test-fig.yaml") for p in problems)


# Refused by the schema (schema.py).
BAD_CONFIGS = [
    ("unknown top-level field",
     lambda d: d.update(colour="red"), "colour", "unknown field; allowed fields here: axes, base"),
    ("list as a parameter value",
     lambda d: d["series"][1]["params"].update(theta=[1, 2]), "series[1].params.theta",
     "expected string or number or boolean, got a list"),
    ("plot kind not allowed",
     lambda d: d["plot"].update(kind="pie"), "plot.kind",
     "'pie' is not allowed; allowed values: line, bar, grouped_bar, stacked_bar, scatter"),
    ("claim comparison not allowed",
     lambda d: d["claims"][0].update(op="=>"), "claims[0].op", "allowed values: >=, >, <=, <"),
    ("claim field of another kind",
     lambda d: d["claims"][1].update(bound=3), "claims[1].bound", "unknown field"),
    ("claim kind unknown",
     lambda d: d["claims"][2].update(kind="faster"), "claims[2].kind", "allowed values: ratio, order"),
    ("a profile may not change the series",
     lambda d: d.update(profiles={"quick": {"series": []}}), "profiles.quick.series", "unknown field"),
    ("bad parameter name",
     lambda d: d["base"].update({"Table-Size": 3}), "base", "bad name 'Table-Size': must be an engine flag name"),
    ("missing required field",
     lambda d: d.pop("plot"), "", "missing required field 'plot'"),
    ("placement neither exclusive nor shared",
     lambda d: d.update(placement="packed"), "placement", "'packed' is not allowed; allowed values: exclusive, shared"),
]


@pytest.mark.parametrize("change, field_path, message", [case[1:] for case in BAD_CONFIGS],
                         ids=[case[0] for case in BAD_CONFIGS])
def test_each_bad_field_is_reported_with_file_and_field_path(sandbox, change, field_path, message):
    assert_reported(sandbox, change, field_path, message)


def test_yaml_duplicate_keys_and_syntax_errors_name_the_line(sandbox):
    path = sandbox.workspace.figure_configs_dir / "testbed" / "dup.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("title: a\nbase: {}\ntitle: b\n")
    with pytest.raises(ConfigError, match=r"dup.yaml: line 3, column 1: invalid YAML: duplicate key 'title'"):
        FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))
    path.write_text("title: [unclosed\n")
    with pytest.raises(ConfigError, match=r"dup.yaml: line \d+, column \d+: invalid YAML"):
        FigureConfig.load(path, load_profiles(sandbox.workspace.profiles_dir))


def test_cli_rejects_a_bad_config_with_exit_2_and_writes_nothing(sandbox, capsys):
    sandbox.add_figure("test-fig", mutated(lambda d: d["plot"].update(kind="pie")))
    status = main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick"))
    error = capsys.readouterr().err
    assert status == 2
    assert "test-fig.yaml: plot.kind: 'pie' is not allowed" in error
    assert not sandbox.workspace.results_dir.exists()


def test_cli_rejects_unknown_figure_and_profile(sandbox, capsys):
    sandbox.add_figure()
    assert main(sandbox.cli_arguments("run", "no-such-fig", "--profile", "quick")) == 2
    assert "unknown figure 'no-such-fig'; figures with a config: test-fig" in capsys.readouterr().err
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "enormous")) == 2
    assert "unknown profile 'enormous'; profiles: quick, repeated" in capsys.readouterr().err


def test_points_merge_layers_in_documented_order(sandbox):
    document = figure_document(profiles={"repeated": {"base": {"table_size": 50}, "axes": {"theta": [0.2, 0.9]}}})
    document["series"][1]["params"]["table_size"] = 7   # a series overrides base
    config, _ = load(sandbox, document)
    figure = config.resolve("repeated")
    points = figure.points()
    assert len(points) == 2 * 2 * 3                      # series x theta values x repetitions
    silo = [p for p in points if p.series == "silo"]
    assert {dict(p.flags)["table_size"] for p in silo} == {50}
    assert {dict(p.flags)["table_size"] for p in points if p.series == "occ"} == {7}
    assert sorted(dict(p.flags)["seed"] for p in silo if dict(p.coords)["theta"] == 0.2) == [1, 2, 3]
    assert all(dict(p.flags)["duration"] == 0.02 for p in points)   # from the profile file
    assert all("cc" not in dict(p.flags) for p in points)            # cc picks the binary instead
    assert {p.cc for p in points} == {"silo", "occ"}
    # The quick profile keeps the figure's own axis values and one repetition.
    assert len(config.resolve("quick").points()) == 2 * 3


def test_follow_sets_a_parameter_to_its_axis_value_at_every_point(sandbox):
    document = mutated(sweep_threads([1, 2]))
    document["follow"] = {"warehouses": "threads"}     # "cores = warehouses"
    config, _ = load(sandbox, document)
    points = config.resolve("quick").points()
    assert points and all(dict(p.flags)["warehouses"] == dict(p.coords)["threads"] for p in points)
    assert {dict(p.flags)["warehouses"] for p in points} == {1, 2}


def test_keys_are_stable_and_tell_configurations_apart(sandbox):
    config, _ = load(sandbox, figure_document())
    point = config.resolve("quick").points()[0]

    def with_flag(name, value):
        return dataclasses.replace(point, flags=tuple((k, value if k == name else v) for k, v in point.flags))

    assert with_flag("threads", 1.0).key("engine") == point.key("engine")   # 1 and 1.0: the same run
    assert with_flag("seed", 99).key("engine") != point.key("engine")
    assert point.key("another engine") != point.key("engine")
    assert "--threads=1" in point.flag_arguments() and "--theta=0" in point.flag_arguments()


def test_repository_configs_are_valid_for_every_profile():
    catalog = load_catalog(Workspace.create())
    assert not catalog.broken, "\n".join(str(error) for error in catalog.broken.values())
    assert {"ycsb-theta", "ycsb-threads"} <= set(catalog.figures)
    for config in catalog.figures.values():
        for profile in config.profiles:
            assert config.resolve(profile).points()
