"""The harness is a console command (pyproject.toml's [project.scripts]): `.venv/bin/ccbench`, installed
editable by scripts/install-deps.sh, runs this checkout's scripts/ccbench from any directory; `python -m
ccbench` runs the same; the docs show the command, not the module."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from ccbench.cli import COMMANDS, _parser, main
from ccbench.fileio import REPOSITORY_ROOT

CONSOLE = REPOSITORY_ROOT / ".venv" / "bin" / "ccbench"
INSTALL = "bash scripts/install-deps.sh (SKIP_APT=1 for the Python part only)"
OLD_FORM = "PYTHONPATH=scripts .venv/bin/python -m ccbench"


def _run(command: list[str], cwd: Path, **environment: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, env={**env, **environment})


def _requirements() -> list[str]:
    lines = (REPOSITORY_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _normalised(requirement: str) -> str:
    return str(Requirement(requirement)).lower()


def test_pyproject_takes_its_dependencies_from_requirements_txt_and_names_the_command():
    project = tomllib.loads((REPOSITORY_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"] == {"ccbench": "ccbench.cli:main"}
    assert "dependencies" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}


def test_the_installed_package_is_this_checkouts_with_todays_pins(tmp_path):
    """What install-deps.sh installed: the editable package of this checkout, whose metadata lists
    requirements.txt's pins as they are now (a pin changed since then: run install-deps.sh again)."""
    assert CONSOLE.is_file(), f"{CONSOLE} is missing: run {INSTALL}"
    probe = ("import ccbench, importlib.metadata as m, json; "
             "print(json.dumps([ccbench.__file__, m.requires('ccbench') or []]))")
    done = _run([str(CONSOLE.with_name("python")), "-c", probe], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    module, required = json.loads(done.stdout)
    assert Path(module).resolve() == REPOSITORY_ROOT / "scripts" / "ccbench" / "__init__.py", \
        f".venv's ccbench is {module}, not this checkout's: run {INSTALL}"
    assert sorted(map(_normalised, required)) == sorted(map(_normalised, _requirements())), \
        f"the installed ccbench's dependencies are not requirements.txt's: run {INSTALL}"


def test_the_console_command_lists_the_figures_from_another_directory(tmp_path):
    done = _run([str(CONSOLE), "list"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = [line.split()[1] for line in done.stdout.splitlines()]
    configs = sorted(path.stem for path in (REPOSITORY_ROOT / "configs" / "figures").glob("*/*.yaml"))
    assert sorted(ids) == configs


def test_help_names_every_subcommand_under_the_commands_name(tmp_path, capsys):
    done = _run([str(CONSOLE), "--help"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ccbench ")
    listed = {line.split()[0] for line in done.stdout.splitlines() if re.match(r"^    [a-z-]+  ", line)}
    assert listed == set(COMMANDS), f"--help lists {sorted(listed)}, the commands are {sorted(COMMANDS)}"
    for command in COMMANDS:
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0 and capsys.readouterr().out.startswith(f"usage: ccbench {command}"), command


def test_python_dash_m_ccbench_keeps_working(tmp_path):
    done = _run([sys.executable, "-m", "ccbench", "list"], cwd=tmp_path,
                PYTHONPATH=str(REPOSITORY_ROOT / "scripts"))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(list((REPOSITORY_ROOT / "configs" / "figures").glob("*/*.yaml")))


def test_the_profile_help_names_every_profile():
    profiles = sorted(path.stem for path in (REPOSITORY_ROOT / "configs" / "profiles").glob("*.yaml"))
    help_text = _parser()._subparsers._group_actions[0].choices["run"].format_help()
    profile_help = re.search(r"--profile PROFILE\s+(.*?)(?:\n  -|\Z)", help_text, re.S).group(1)
    assert all(name in profile_help for name in profiles), (profiles, profile_help)


def test_make_figures_and_ccbench_figures_default_to_the_same_profile():
    printed = _run(["make", "-n", "--no-print-directory", "figures", "FIGS=ycsb-theta"], cwd=REPOSITORY_ROOT).stdout
    made = re.search(r"figures --profile (\S+)", printed).group(1)
    assert made == _parser().parse_args(["figures", "ycsb-theta"]).profile == "small"


def test_the_docs_and_make_run_the_harness_as_its_command():
    texts = [REPOSITORY_ROOT / name for name in ("README.md", "CONTRIBUTING.md", "Makefile")]
    texts += sorted((REPOSITORY_ROOT / "docs").glob("*.md"))
    stale = [str(path.relative_to(REPOSITORY_ROOT)) for path in texts if OLD_FORM in path.read_text(encoding="utf-8")]
    assert not stale, f"`{OLD_FORM}` (say `.venv/bin/ccbench`) in: {', '.join(stale)}"
    assert "CCBENCH := .venv/bin/ccbench" in (REPOSITORY_ROOT / "Makefile").read_text(encoding="utf-8")
