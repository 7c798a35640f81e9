"""The fidelity report, paper_figures/FIDELITY.md: how many of the papers' claims hold here.

`ccbench fidelity` runs a named set of figures (by default FIDELITY_FIGURES)
at the small profile with --require-quiet and --until-decided, then lists per
paper and figure every claim as held, failed, inconclusive or not checkable
here, with the reason for each: a failure names the reason its config
records (`expected_here: fail`, `reason`) or says that none was expected,
and the cause class and measured cause its config records for the profile
(`causes`, verdicts.py); "not checkable here" says why (an absolute number of
the authors' hardware, a condition this machine does not meet, missing
data). A table tallies held / failed / inconclusive and the cause classes per
paper; a failed claim without a class is a warning. The verdicts go to the
verdict store (verdicts.py), as the report's do.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ccbench.analysis.claims import FAILED, HELD, INCONCLUSIVE, NO_DATA, ClaimResult
from ccbench.fileio import write_text_atomically
from ccbench.report.pipeline import FigureOutcome
from ccbench.report.reproduction import (SIMULATED_INTRO, SIMULATED_SECTION, git_revision, split_simulated,
                                         store_verdicts, write_index)
from ccbench.report.verdicts import CLASSES_NOTE, cause_text, tally_lines, unclassified_failures, warning_line
from ccbench.run.workspace import Workspace
from ccbench.specification.config import hardware_threads

FIDELITY_FIGURES = ("ding-fig05", "ding-fig06", "strife-fig05", "strife-fig09b", "strife-fig10a", "strife-fig10b",
                    "tskd-tab2", "tskd-fig4i", "tskd-fig5g", "bcc-fig10", "ycsb-theta")
NOT_CHECKABLE = "not checkable here"
CATEGORIES = (HELD, FAILED, INCONCLUSIVE, NOT_CHECKABLE)


@dataclass(frozen=True)
class Settings:
    """How the runs were made, for the report's header."""
    profile: str
    threshold_cores: float
    noisy_retries: int
    max_wait_s: float


def category(result: ClaimResult) -> str:
    """held, failed or inconclusive for an asserted claim with data; else not checkable here."""
    return result.outcome if result.asserted and result.outcome != NO_DATA else NOT_CHECKABLE


def reason(result: ClaimResult, profile: str = "") -> str:
    """Why a claim failed, why it is not checkable here, what keeps it inconclusive; for a held one its
    numbers. A failed or inconclusive claim leads with its recorded cause class and cause at the profile."""
    kind = category(result)
    cause = cause_text(result.claim, profile) if kind in (FAILED, INCONCLUSIVE) else ""
    cause = f"cause, {cause}; " if cause else ""
    if kind == FAILED:
        recorded = (f"expected here: {result.claim['reason']}" if result.expected_to_fail
                    else "no reason recorded (not expected to fail here)")
        return f"{cause}{recorded}; numbers: {result.detail}"
    if kind == NOT_CHECKABLE:
        why = result.note or "not asserted"
        return f"no data: {result.detail}" if result.outcome == NO_DATA and result.asserted else \
            f"{why} (here: {result.outcome})"
    if kind == INCONCLUSIVE:
        expected = f"expected here to fail: {result.claim['reason']}; " if result.expected_to_fail else ""
        return f"{cause}{expected}{result.detail}"
    return "; ".join(filter(None, [result.note, result.detail]))


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _counts(results: list[ClaimResult]) -> list[int]:
    return [sum(category(result) == kind for result in results) for kind in CATEGORIES]


def render(outcomes: list[FigureOutcome], settings: Settings, workspace: Workspace) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    max_repetitions = max((outcome.figure.max_repetitions for outcome in outcomes), default=0)
    lines = ["# Fidelity: the papers' claims on this machine", "",
             f"Profile **{settings.profile}**, generated {now} on {platform.node()} ({hardware_threads()} hardware "
             f"threads), revision `{git_revision(workspace.root)}`. Every native run waited for a quiet machine (other "
             f"processes below {settings.threshold_cores:g} cores, at most {settings.max_wait_s:g} s) and a run "
             f"measured noisy was run again (up to {settings.noisy_retries} times); claims still inconclusive got "
             f"more repetitions, up to {max_repetitions} per point. Simulated runs (virtual time, docs/sim.md) need no "
             f"quiet machine and run in parallel. A claim *held* (*failed*) when it (its opposite) "
             "holds over the whole 95% bootstrap interval of every compared quantity; *inconclusive* otherwise; "
             "*not checkable here*: absolute numbers of the authors' hardware, conditions this machine does not "
             "meet, missing data. Details: docs/harness.md, \"Verdicts\".", "",
             ]
    native, simulated = split_simulated(outcomes, caption=lambda outcome: outcome.figure.simulation_caption())
    lines += _tally(native, settings.profile) + _summary(native) + _sections(native, "", settings.profile)
    if simulated:   # never mixed with the native verdicts (docs/sim.md)
        lines += [f"# {SIMULATED_SECTION}", "", SIMULATED_INTRO, ""] + _tally(simulated, settings.profile) \
            + _summary(simulated) + _sections(simulated, " (simulated)", settings.profile)
    return "\n".join(lines)


def _tally(outcomes: list[FigureOutcome], profile: str) -> list[str]:
    """Held / failed / inconclusive and the cause classes per paper; the failed claims without a class."""
    by_paper = [(outcome.figure.config.paper, result) for outcome in outcomes for result in outcome.claims]
    lines = tally_lines(by_paper, profile)
    if not lines:
        return []
    by_figure = [(outcome.figure_id, result) for outcome in outcomes for result in outcome.claims]
    return [f"Per paper. {CLASSES_NOTE}", "", *lines, *warning_line(unclassified_failures(by_figure, profile), profile)]


def _summary(outcomes: list[FigureOutcome]) -> list[str]:
    lines = ["| paper | figure | held | failed | inconclusive | not checkable here | noisy runs |",
             "|---|---|---|---|---|---|---|"]
    for outcome in outcomes:
        counts = _counts(outcome.claims)
        lines.append(f"| {outcome.figure.config.paper} | `{outcome.figure_id}` | "
                     + " | ".join(str(count) for count in counts) + f" | {outcome.tables.noisy_counts()[0]} |")
    totals = _counts([result for outcome in outcomes for result in outcome.claims])
    return lines + [f"| **all** | | " + " | ".join(f"**{count}**" for count in totals) + " | |", ""]


def _sections(outcomes: list[FigureOutcome], suffix: str, profile: str) -> list[str]:
    lines = []
    for paper in sorted({outcome.figure.config.paper for outcome in outcomes}):
        lines += [f"## {paper}{suffix}", ""]
        for outcome in (o for o in outcomes if o.figure.config.paper == paper):
            total, ok, failed, missing = outcome.run_counts()
            noisy, points = outcome.tables.noisy_counts()
            caption = outcome.figure.simulation_caption()
            lines += [f"### `{outcome.figure_id}`: {outcome.figure.config.title}"
                      + (f" ({caption})" if caption else ""), "",
                      f"Runs: {ok} ok, {failed} failed, {missing} not run, of {total}; {noisy} noisy run(s) at "
                      f"{points} point(s).", ""]
            if not outcome.claims:
                lines += ["No claims.", ""]
                continue
            lines += ["| claim | verdict | repetitions | reason / numbers |", "|---|---|---|---|"]
            for result in outcome.claims:
                lines.append(f"| `{result.claim['id']}` | **{category(result)}** | {result.repetitions_text()} | "
                             f"{_cell(reason(result, profile))} |")
            lines.append("")
    return lines


def write_fidelity(outcomes: list[FigureOutcome], settings: Settings, workspace: Workspace) -> Path:
    path = workspace.figures_dir / "FIDELITY.md"
    write_text_atomically(path, render(outcomes, settings, workspace) + "\n")
    store_verdicts(outcomes, settings.profile, workspace)
    write_index(workspace)
    return path
