"""Every command README.md and docs/*.md show runs, so that a later change cannot make the docs lie.

A command a reader may type is shown in a fenced block tagged `sh`; this test runs each such block, its
commands in order in a scratch directory, each in the form that takes seconds:
- `.venv/bin/ccbench ...`: in process, with the result store and figures in
  the scratch directory; `run` and `figures` as a dry run (`--dry-run`: every config and point checked,
  the commands printed, nothing run); `versus` for real, one short run of each side; `simulate` as
  written (its durations are virtual), its --out in the scratch directory; `flags-doc` on the built programs; a `> file` redirection is captured instead (a generated doc is compared by its own test);
- `make ...`: `make -n ...` (the target and its variables exist; nothing is built or run), and for
  `make figures` also the harness's dry run of the same figures;
- `bin/<program> ...`: the built program (built first when missing, as the harness builds it), with a
  native engine's or the pipeline's measured run cut to 0.1 s after no warm-up (the simulation's
  durations are virtual and already short); it must exit 0;
- `.venv/bin/python -c ...`: as written (it reads what the commands before it wrote);
- `bash scripts/<script>.sh` (the README's two commands, which install and build everything): `bash -n`
  (the script parses), and for the main job `make -n run`.
A fenced block that shows commands without the `sh` tag fails the test, except the cluster recipe of
docs/cluster.md, which needs a cloud account (its first step is the budget command, tested above it).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ccbench.cli import main
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.run.engine import build_binaries

# The README's commands build binaries in the repository's build directories (make): one xdist
# worker runs every test that does (a build directory takes one build at a time).
pytestmark = pytest.mark.xdist_group("repository-build")

DOCS = [REPOSITORY_ROOT / "README.md", *sorted((REPOSITORY_ROOT / "docs").glob("*.md"))]
COMMAND_START = re.compile(r"^(make |bin/|PYTHONPATH=|bash |\.venv/|ray |python)")
CCBENCH = [".venv/bin/ccbench"]
NEEDS_A_CLOUD = "ray up -y configs/cluster/aws-m5.8xlarge.yaml"   # docs/cluster.md's recipe
SHORT_RUN = ["--duration=0.1", "--warmup=0"]      # gflags: the last value of a flag wins
TIMEOUT_S = 300


def fenced_blocks(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line of the opening fence, its tag, the lines inside) of each fenced block."""
    blocks, current = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("```"):
            if current is None:
                current = (number, line[3:].strip(), [])
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current[2].append(line)
    return blocks


def commands(lines: list[str]) -> list[list[str]]:
    """The block's commands as words: continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    return [words for line in text.splitlines() if (words := shlex.split(line, comments=True))]


SH_BLOCKS = [pytest.param(path, number, lines, id=f"{path.name}:{number}")
             for path in DOCS for number, tag, lines in fenced_blocks(path) if tag == "sh"]


def test_every_block_of_commands_is_tagged_sh_and_so_run_here():
    untagged = [f"{path.relative_to(REPOSITORY_ROOT)}:{number}" for path in DOCS
                for number, tag, lines in fenced_blocks(path)
                if tag != "sh" and any(COMMAND_START.match(line) for line in lines)
                and not any(line.startswith(NEEDS_A_CLOUD) for line in lines)]
    assert not untagged, f"blocks of commands not tagged sh (so not run by this test): {', '.join(untagged)}"
    assert len(SH_BLOCKS) >= 10


def test_the_main_jobs_closing_lines_are_commands_the_readme_shows():
    """`make run` ends with three commands to try next: each is one the README's tour shows (and so runs)."""
    shown = {" ".join(words) for _, tag, lines in fenced_blocks(REPOSITORY_ROOT / "README.md") if tag == "sh"
             for words in commands(lines)}
    printed = subprocess.run(["make", "-n", "--no-print-directory", "run"], cwd=REPOSITORY_ROOT,
                             capture_output=True, text=True, check=True).stdout
    tried = [line.split("#")[0].strip() for line in re.findall(r'echo "  (.*)"', printed)]
    assert len(tried) == 3 and all(" ".join(shlex.split(line)) in shown for line in tried), tried


def test_the_readmes_count_of_figures_is_the_configs():
    """README.md says how many figures the testbed specifies (and the smoke profile runs in CI): the number of
    figure configs, which `ccbench list` prints."""
    text = (REPOSITORY_ROOT / "README.md").read_text(encoding="utf-8")
    stated = re.findall(r"\((\d+) figures, specified in `docs/figures.md`\)", text) + re.findall(r"; all (\d+): ", text)
    configs = len(list((REPOSITORY_ROOT / "configs" / "figures").glob("*/*.yaml")))
    assert len(stated) == 2 and {int(number) for number in stated} == {configs}, (stated, configs)


class Runner:
    """Runs one block's commands in the form described at the top, in a scratch directory."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.places = ["--results", str(scratch / "results"), "--out-dir", str(scratch / "paper_figures")]
        (scratch / "results").mkdir()   # as the first command leaves it: the tour writes its results there

    def run(self, words: list[str]) -> None:
        if words[:1] == CCBENCH:
            self.ccbench(words[1:])
        elif words[0] == "make":
            self.make(words[1:])
        elif words[0].startswith("bin/"):
            self.program(words)
        elif words[:2] == [".venv/bin/python", "-c"]:
            self.process([sys.executable, *words[1:]], cwd=self.scratch)
        elif words[0] == "bash" and words[1].startswith("scripts/"):
            self.process(["bash", "-n", words[1]])
            if words[1] == "scripts/run-main-job.sh":
                self.make(["run"])
        else:
            pytest.fail(f"no way to run `{' '.join(words)}` here: add one to this test")

    def ccbench(self, arguments: list[str]) -> None:
        if ">" in arguments:                   # the output is captured; the file is not written
            arguments = arguments[:arguments.index(">")]
        command = arguments[0]
        if command in ("run", "figures"):
            arguments = arguments if "--dry-run" in arguments else [*arguments, "--dry-run"]
        elif command == "versus":
            arguments = [*arguments, "--repeats", "1", *SHORT_RUN]
        elif command == "flags-doc":
            arguments = [*arguments, "--bin", str(REPOSITORY_ROOT / "bin")]
        elif command == "simulate":            # as written (virtual seconds), its result in the scratch directory
            arguments = [f"--out={self.scratch / word[6:]}" if word.startswith("--out=") else word
                         for word in arguments]
        elif command not in ("list", "report"):
            pytest.fail(f"ccbench {command}: no short form known: add one to this test")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main([*arguments, *self.places])
        assert status == 0, f"`ccbench {' '.join(arguments)}` exited {status}:\n{out.getvalue()[-2000:]}"

    def make(self, arguments: list[str]) -> None:
        self.process(["make", "-n", "--no-print-directory", *arguments])
        settings = dict(argument.split("=", 1) for argument in arguments if "=" in argument)
        if arguments[0] == "figures":
            figures = settings["FIGS"].split(",") if "FIGS" in settings else ["--all"]
            self.ccbench(["figures", *figures, "--profile", settings.get("PROFILE", "smoke")])

    def program(self, words: list[str]) -> None:
        path = Path(words[0])
        simulated = path.parent.name == "sim"
        name = path.name
        if name.startswith("rundb-"):
            make = [f"CC={name.removeprefix('rundb-')}", *(["VARIANT=sim"] if simulated else [])]
        else:
            make = [name if name in ("pipeline", "middletier") else "tools"]
        problem = build_binaries(REPOSITORY_ROOT, make, [words[0]])
        if problem:
            pytest.fail(f"{words[0]} cannot be built: {problem}")
        short = [] if simulated or any(word.startswith("--sim_calibrate") for word in words) else SHORT_RUN
        self.process([str(REPOSITORY_ROOT / words[0]), *words[1:], *short], cwd=self.scratch)

    def process(self, command: list[str], cwd: Path = REPOSITORY_ROOT) -> None:
        environment = {**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT / "scripts")}
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, env=environment)
        assert done.returncode == 0, (f"`{' '.join(command)}` exited {done.returncode}:\n"
                                      f"{(done.stdout + done.stderr)[-2000:]}")


@pytest.mark.parametrize("path, number, lines", SH_BLOCKS)
def test_the_commands_of_a_block_run(path, number, lines, tmp_path):
    runner = Runner(tmp_path)
    for words in commands(lines):
        runner.run(words)
