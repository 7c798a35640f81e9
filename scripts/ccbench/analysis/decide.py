"""--until-decided: more repetitions where a claim is still undecided.

After the sweep, every asserted claim that came out inconclusive (and is not
expected to fail here) names the points it used; each of those points gets
one more repetition (repetition r runs with seed (seed or 1) + r, as the
figure's own), and the claims are judged again. This repeats until no such
claim is left or all their points have the profile's `max_repetitions`
(configs/profiles/*.yaml). The further repetitions are ordinary runs in the
store: the tables, the plot and the report pick them up (tables.runs_table),
and each verdict says how many repetitions it took.
"""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ccbench.analysis.claims import INCONCLUSIVE, ClaimResult, evaluate_figure_claims, group_key
from ccbench.analysis.tables import runs_table
from ccbench.run.runner import SweepSummary
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.specification.config import ResolvedFigure, hardware_threads
from ccbench.specification.points import Point


@dataclass
class DecideSummary:
    rounds: int = 0                      # rounds that added repetitions
    runs: int = 0                        # further repetitions run
    problems: bool = False               # some further run failed or could not run
    undecided: list[str] = field(default_factory=list)   # figure-id/claim-id still inconclusive at the cap

    def describe(self) -> str:
        text = f"--until-decided: {self.runs} further repetitions in {self.rounds} round(s)"
        if self.undecided:
            text += f"; still inconclusive at the cap: {', '.join(self.undecided)}"
        return text


def _undecided(results: list[ClaimResult]) -> list[ClaimResult]:
    """The claims that more repetitions could decide: asserted, inconclusive, not expected to fail here."""
    return [result for result in results
            if result.asserted and result.outcome == INCONCLUSIVE and not result.expected_to_fail]


def next_repetitions(figure: ResolvedFigure, workspace: Workspace) -> tuple[list[Point], list[str]]:
    """(the next repetition of each point an undecided claim of the figure uses, below the cap;
    the ids of the undecided claims)."""
    runs = runs_table(figure, ResultStore(workspace.runs_dir), workspace.command_template(figure.config.program.name))
    undecided = _undecided(evaluate_figure_claims(figure, runs, hardware_threads()))
    wanted = {key for result in undecided for key in result.points}
    repetitions = Counter(group_key(row[0], zip(figure.axes, row[1:]))     # runs of each point, failed ones too
                          for row in runs[["series", *figure.axes]].itertuples(index=False))
    points = []
    for point in figure.points():
        key = group_key(point.series, point.coords)
        if point.repetition == 0 and key in wanted and repetitions[key] < figure.max_repetitions:
            points.append(point.with_repetition(repetitions[key]))
    return points, [result.claim["id"] for result in undecided]


def run_until_decided(figures: Sequence[ResolvedFigure], workspace: Workspace,
                      run_points: Callable[[list[Point]], SweepSummary],
                      log: Callable[[str], None] = lambda message: print(message, file=sys.stderr)) -> DecideSummary:
    """Add repetitions (run_points runs them and stores the records) until every asserted claim of the
    figures is decided or its points are at the cap."""
    summary = DecideSummary()
    while True:
        pending, undecided = [], []
        for figure in figures:
            points, claim_ids = next_repetitions(figure, workspace)
            pending += points
            undecided += [f"{figure.figure_id}/{claim_id}" for claim_id in claim_ids]
        if not pending:
            summary.undecided = undecided
            return summary
        summary.rounds += 1
        log(f"ccbench: --until-decided round {summary.rounds}: {len(undecided)} claim(s) undecided "
            f"({', '.join(undecided)}); one more repetition of {len(pending)} point(s)")
        sweep = run_points(pending)
        summary.runs += sweep.ran
        summary.problems |= sweep.problems
        if not sweep.ran:      # nothing could run (e.g. a failed build): more rounds would not change anything
            summary.undecided = undecided
            return summary
