"""The harness's own command line fuzzed as the engine's flags are (tests/tools/flag_fuzz.py): every option of
every subcommand that takes a number or a choice, given values it must refuse, and the arguments checked past
the parser (figure ids, protocols, profiles, directories, option combinations). Each refusal is exit 2 with
one line on stderr that names the option or argument, no traceback, nothing run and nothing written."""
from __future__ import annotations

import argparse

import pytest

from ccbench import cli
from ccbench.cli import COMMANDS, _parser, main
from conftest import figure_document

BAD_NUMBERS = ["two", "-1", "nan", "inf", "", "1e999"]
BAD_CHOICE = "bogus"
PLACES = ("--results", "--out-dir", "--configs")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _cases() -> list:
    cases = []
    for command, parser in _subcommands().items():
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            option = max(action.option_strings, key=len)
            if action.choices is not None:
                cases.append(pytest.param(command, option, BAD_CHOICE, id=f"{command} {option} {BAD_CHOICE}"))
            elif action.type in (int, float) or getattr(action.type, "__qualname__", "").startswith("_number"):
                cases += [pytest.param(command, option, value, id=f"{command} {option} {value!r}")
                          for value in BAD_NUMBERS]
    return cases


CASES = _cases()


def test_every_subcommand_has_its_numeric_and_choice_options_fuzzed():
    """The list above is read from the parser: a typed option added later is fuzzed without editing this."""
    fuzzed = {(values[0], values[1]) for values in (case.values for case in CASES)}
    assert {command for command, _ in fuzzed} >= {"run", "figures", "fidelity", "calibrate", "compare", "versus",
                                                  "cost", "soak"}
    assert ("run", "--machines") in fuzzed and ("soak", "--timeout-s") in fuzzed and ("run", "--backend") in fuzzed
    untyped = [f"{command} {max(action.option_strings, key=len)}" for command, parser in _subcommands().items()
               for action in parser._actions if action.option_strings and action.nargs != 0
               and action.type in (int, float)]
    assert not untyped, f"bare int/float options (no range, nan and inf accepted): {untyped}"


@pytest.mark.parametrize("command, option, value", CASES)
def test_a_bad_option_value_is_one_line_naming_the_option_and_nothing_runs(command, option, value, monkeypatch,
                                                                          capsys, tmp_path):
    monkeypatch.setitem(COMMANDS, command, lambda *_: pytest.fail(f"{command} ran with {option}={value!r}"))
    places = ["--results", str(tmp_path / "results"), "--out-dir", str(tmp_path / "figures")]
    with pytest.raises(SystemExit) as exited:
        main([command, f"{option}={value}", *places])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert len(err.strip().splitlines()) == 1 and option in err and "Traceback" not in err, err
    assert not list(tmp_path.iterdir()) or [path.name for path in tmp_path.iterdir()] == ["proc"]


@pytest.fixture
def fig_sandbox(sandbox):
    sandbox.add_figure("test-fig", figure_document(claims=None))
    return sandbox


@pytest.mark.parametrize("arguments, message", [
    (["run", "test-fgi", "--dry-run"], "unknown figure 'test-fgi'; did you mean test-fig?; `ccbench list` lists"),
    (["run", "zzz", "--dry-run"], "unknown figure 'zzz'; figures with a config: test-fig"),
    (["run", "test-fig", "--profile", "quik"], "--profile: unknown profile 'quik'; did you mean quick?; profiles:"),
    (["figures"], "name the figures to make, or give --all (not both)"),
    (["figures", "test-fig", "--budget"], "--budget needs --dry-run"),
    (["figures", "test-fig", "--dry-run", "--machines", "2"], "--machines needs --budget"),
    (["run", "test-fig", "--until-decided", "--dry-run"], "--until-decided cannot be combined with --dry-run"),
    (["run", "test-fig", "--require-quiet", "--backend", "ray"], "--require-quiet needs --backend local"),
    (["run", "test-fig", "--results", "/dev/null/results"], "--results /dev/null/results: cannot be created: "
                                                            "/dev/null is not a directory"),
    (["run", "test-fig", "--out-dir", "/dev/null"], "--out-dir /dev/null: is not a directory"),
    (["run", "test-fig", "--configs", "/dev/null"], "--configs /dev/null: not a directory"),
    (["run", "test-fig", "--engine="], "--engine: empty; allowed: a command"),
    (["run", "test-fig", "--program", "pipeline"], "--program pipeline: expected NAME=COMMAND"),
    (["run", "test-fig", "--program", "nosuch=x"], "--program nosuch=...: unknown program"),
    (["simulate", "slio"], "CC: 'slio' is not a protocol; did you mean silo or si?; allowed: "),
    (["calibrate", "--cc", "nowiat"], "--cc: 'nowiat' is not a protocol; did you mean nowait or prenowait?"),
    (["versus", "silo", "tictok"], "versus: 'tictok' is not a protocol; did you mean tictoc?"),
    (["versus", "silo", "tictoc", "threads=2"], "versus: 'threads=2' is not an engine flag"),
    (["bench", "nosuch"], "unknown grid 'nosuch'"),
    (["soak", "--protocols=slio"], "--protocols: no serializable binary for slio; did you mean silo?"),
    (["soak", "--workloads=ycbs"], "--workloads: unknown ycbs; did you mean ycsb?"),
    (["list", "--workload=ycsb"], "unrecognized arguments: --workload=ycsb"),
])
def test_an_argument_checked_past_the_parser_is_one_line_and_nothing_runs(fig_sandbox, capsys, arguments, message):
    if arguments[0] in ("run", "figures") and "--profile" not in arguments:
        arguments = [*arguments, "--profile", "quick"]      # the sandbox's profiles: quick, repeated
    # the sandbox's own places and engine come after the arguments: the ones under test go last, and win
    late = [index for index, word in enumerate(arguments) if word in PLACES or word.startswith("--engine=")]
    late += [index + 1 for index in late if arguments[index] in PLACES]
    early = [word for index, word in enumerate(arguments) if index not in late]
    try:
        status = main([*fig_sandbox.cli_arguments(*early), *(arguments[index] for index in sorted(late))])
    except SystemExit as exited:
        status = exited.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not fig_sandbox.records()


def test_the_fuzzed_parser_is_the_one_main_uses():
    assert cli._parser().prog == "ccbench" and set(_subcommands()) == set(COMMANDS)
