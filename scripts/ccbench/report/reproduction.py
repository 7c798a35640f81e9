"""The reproduction report: paper_figures/REPORT.md and REPORT.html.

It lists every figure that has a run stored at the profile (or points that
cannot run under it, saying why, or a config that could not be processed), with its picture, its parameters at the profile
(inferences marked [INF]), the runs behind it, and each claim of the paper
with whether it held at this profile and whether it is asserted. The figures
without a run there are named in one paragraph, with the commands that list
and run them, so that a first report shows what was made, not 84 empty ones.
"""
from __future__ import annotations

import html
import platform
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ccbench.analysis.claims import CONFIDENCE, FAILED, HELD, INCONCLUSIVE, NO_DATA
from ccbench.fileio import write_text_atomically
from ccbench.report.pipeline import FigureOutcome
from ccbench.report.plots import table_markdown
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, Profile, hardware_threads
from ccbench.specification.points import format_flag_value

CHECK_NAMES = {"trend": "trend ✔", "absolute": "absolute ✘", "conditional": "conditional ◐"}


@dataclass
class ReportEntry:
    """One figure in the report: processed (outcome) or not processable (problem)."""
    figure_id: str
    paper: str
    title: str
    outcome: FigureOutcome | None = None
    problem: str | None = None

    @classmethod
    def of(cls, outcome: FigureOutcome) -> "ReportEntry":
        config = outcome.figure.config
        return cls(config.figure_id, config.paper, config.title, outcome=outcome)

    @classmethod
    def broken(cls, figure_id: str, paper: str, title: str, problem: str) -> "ReportEntry":
        return cls(figure_id, paper, title, problem=problem)

    @property
    def ran(self) -> bool:
        """Whether the report shows it: some run of it is stored at the profile, some of its points cannot run
        under the profile (the report says why), or its config is broken."""
        if self.outcome is None:
            return True
        _, ok, failed, _ = self.outcome.run_counts()
        return ok + failed > 0 or any(point.unrunnable for point in self.outcome.figure.points())

    @property
    def caption(self) -> str | None:
        """"simulated, N virtual cores ..." for a figure with simulated series (docs/sim.md), else None."""
        return self.outcome.figure.simulation_caption() if self.outcome else None


def split_simulated(entries: list, caption=lambda entry: entry.caption) -> tuple[list, list]:
    """(native, simulated): a figure with any simulated series is reported apart from the native ones, so
    that no verdict measured on virtual cores is read as one measured on this machine, or the other way."""
    simulated = [entry for entry in entries if caption(entry)]
    return [entry for entry in entries if not caption(entry)], simulated


SIMULATED_SECTION = "Simulated figures"
SIMULATED_INTRO = ("Verdicts below were measured on virtual cores in virtual time by the simulation build "
                   "(docs/sim.md): the protocols' own code, the costs of a calibrated cost table and a modelled "
                   "machine, not this machine's cores. They are never mixed with the native verdicts above.")


def git_revision(root: Path) -> str:
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True, text=True)
        return done.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _claim_counts(outcome: FigureOutcome) -> str:
    asserted = [r for r in outcome.claims if r.asserted]
    counts = {verdict: sum(r.outcome == verdict for r in asserted) for verdict in (HELD, FAILED, INCONCLUSIVE, NO_DATA)}
    reported = len(outcome.claims) - len(asserted)
    return ", ".join(f"{count} {verdict}" for verdict, count in counts.items()) + f", {reported} not asserted"


def _noisy_text(outcome: FigureOutcome) -> str:
    """How many runs were measured while other processes used the machine (load.py)."""
    runs, points = outcome.tables.noisy_counts()
    if not runs:
        return "no noisy runs"
    return (f"{runs} noisy run(s) at {points} point(s): other processes used the machine while they ran "
            f"(column `noisy` of the runs table; load records in results/runs/)")


def _claim_text(claim: dict) -> str:
    text = ("[INF] " if claim.get("inferred") else "") + claim["text"].strip()
    return text + (f" (source: {claim['source']})" if "source" in claim else "")


def _parameter_lines(outcome: FigureOutcome) -> list[str]:
    figure = outcome.figure
    inferred = {item["parameter"] for item in figure.config.document.get("inferences", [])}

    def show(name: str, value: object) -> str:
        spelled = value if isinstance(value, list) else format_flag_value(value)   # as on the command line
        return f"`{name}={spelled}`" + (" [INF]" if name in inferred else "")

    program = figure.config.program
    lines = [f"Program: `{program.name}`, {program.description}.",
             "Fixed: " + ", ".join(show(name, value) for name, value in sorted(figure.base.items()))]
    if figure.axes:
        lines.append("Swept: " + ", ".join(f"{show(axis, values)}" for axis, values in figure.axes.items()))
    data = figure.config.document.get("reference_data", {})
    lines.append("Series: " + "; ".join(
        f"**{series.label}** (measured data: `{data[series.reference['data']]['file']}`, rows "
        + ", ".join(f"`{column}={value}`" for column, value in series.reference["rows"].items()) + ")"
        if series.is_reference else
        f"**{series.label}** (" + ", ".join(show(k, v) for k, v in sorted(series.params.items())) + ")"
        for series in figure.config.series))
    caption = figure.simulation_caption()
    if caption:
        wall_s, runs = outcome.tables.simulation_wall_s()
        machines = ", ".join(f"`{name}`" for name in figure.modelled_machines())
        lines.append(f"Simulation: {caption}; modelled machine {machines} (configs/machines/: the cores and the "
                     f"costs between them); cost table `{figure.profile.sim_cost_table}` (the local work); "
                     f"{wall_s:.0f} s of wall time over {runs} simulated run(s) stored here.")
    unrunnable = sorted({point.unrunnable for point in figure.points() if point.unrunnable})
    lines += [f"Not run under profile {figure.profile.name}: {reason}." for reason in unrunnable]
    native = [point.threads for point in figure.points() if not point.simulated]
    if native and max(native) > hardware_threads():
        oversubscribed = sorted({threads for threads in native if threads > hardware_threads()})
        lines.append(f"Oversubscribed here: {program.threads_parameter or 'threads'} = "
                     f"{', '.join(str(t) for t in oversubscribed)} exceed this machine's {hardware_threads()} "
                     f"hardware threads, so workers share cores (time-slicing, not parallelism).")
    lines.append(f"Repetitions: {figure.repetitions} (median plotted, range as error bars; --until-decided may add "
                 f"up to {figure.max_repetitions} per point); time limit {figure.timeout_s:g} s per run.")
    if figure.config.deterministic_metrics:
        lines.append("Deterministic (no measurement noise; claims decided on the median): "
                     + ", ".join(f"`{metric}`" for metric in figure.config.deterministic_metrics) + ".")
    return lines


def _markdown_entry(entry: ReportEntry, profile: Profile) -> list[str]:
    lines = [f"### `{entry.figure_id}`: {entry.title}" + (f" ({entry.caption})" if entry.caption else ""), ""]
    if entry.problem:
        return lines + [f"**Not processed:** {entry.problem}", ""]
    outcome = entry.outcome
    config: FigureConfig = outcome.figure.config
    total, ok, failed, missing = outcome.run_counts()
    if outcome.images:
        for png, pdf in zip(outcome.images[::2], outcome.images[1::2]):  # the plot, then its views
            lines += [f"![{entry.figure_id}]({profile.name}/{png.name}) ([PDF]({profile.name}/{pdf.name}))", ""]
    else:
        lines += ["*No successful run at this profile yet, so no picture.*", ""]
    if "description" in config.document:
        lines += [config.document["description"].strip(), ""]
    if "source" in config.document:
        lines += [f"Source: {config.document['source']}", ""]
    lines += [f"Profile **{profile.name}**. Runs: {ok} ok, {failed} failed, {missing} not run, of {total}; "
              f"{_noisy_text(outcome)}. "
              f"Table: `{outcome.tables.table_path.name}` (in results/tables/{profile.name}/).", ""]
    lines += [f"- {line}" for line in _parameter_lines(outcome)]
    if config.plot["kind"] == "table" and outcome.tables.has_data:
        lines += table_markdown(outcome.figure, outcome.tables.table)
    inferences = config.document.get("inferences", [])
    if inferences:
        lines += ["", "Inferences (not paper facts):"]
        lines += [f"- [INF] `{item['parameter']}`: {item['note']}" for item in inferences]
    if outcome.claims:
        lines += ["", "| claim | check | at this profile | repetitions | numbers |", "|---|---|---|---|---|"]
        for result in outcome.claims:
            claim = result.claim
            text = _claim_text(claim)
            status = f"**{result.label}**" + (f"<br>{result.note}" if result.note else "")
            lines.append(f"| {_cell(text)} | {CHECK_NAMES[claim['check']]} | {_cell(status)} | "
                         f"{result.repetitions_text()} | {_cell(result.detail)} |")
    failures = outcome.tables.failures()
    if failures:
        lines += ["", "Failed runs (stderr in the run records under results/runs/):"]
        lines += [f"- {failure}" for failure in failures[:10]]
    return lines + [""]


def not_run_note(not_run: list[ReportEntry], profile: Profile) -> str | None:
    """The one paragraph that names the figures without a run at the profile, and how to make them."""
    if not not_run:
        return None
    return (f"Not listed: {len(not_run)} figure(s) with no run at profile {profile.name} yet: "
            + ", ".join(entry.figure_id for entry in not_run)
            + f". `PYTHONPATH=scripts .venv/bin/python -m ccbench list` lists every figure (docs/figures.md "
            f"specifies each); `make figures PROFILE={profile.name} FIGS=<id>` runs one and adds it here.")


def render_markdown(entries: list[ReportEntry], profile: Profile, workspace: Workspace,
                    not_run: list[ReportEntry] = ()) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Reproduction report", "",
             f"Profile **{profile.name}**: {profile.description}", "",
             f"Generated {now} on {platform.node()} ({hardware_threads()} hardware threads), "
             f"revision `{git_revision(workspace.root)}`. "
             f"Claims are checked on every repetition: a claim *held* (or *failed*) when it (or its opposite) holds "
             f"over the whole {CONFIDENCE:.0%} bootstrap interval of each compared quantity, and is *inconclusive* "
             "otherwise; claims on deterministic metrics are decided on the median. The repetitions column says "
             "how many runs of each point the verdict took; a *noisy* run had other processes using the machine. "
             "*Trend* claims are asserted; "
             "*absolute* claims (numbers of the authors' hardware) are reported, never asserted; "
             "*conditional* claims are asserted only where their condition holds here. "
             "[INF] marks an inference made for the catalog, not a fact from the paper.", "",
             ]
    note = not_run_note(list(not_run), profile)
    if note:
        lines += [note, ""]
    native, simulated = split_simulated(entries)
    lines += _summary_table(native)
    if simulated:
        lines += [f"{SIMULATED_SECTION} (their own section below):", ""] + _summary_table(simulated)
    for paper in sorted({entry.paper for entry in native}):
        lines += [f"## {paper}", ""]
        for entry in (e for e in native if e.paper == paper):
            lines += _markdown_entry(entry, profile)
    if simulated:
        lines += [f"# {SIMULATED_SECTION}", "", SIMULATED_INTRO, ""]
        for paper in sorted({entry.paper for entry in simulated}):
            lines += [f"## {paper} (simulated)", ""]
            for entry in (e for e in simulated if e.paper == paper):
                lines += _markdown_entry(entry, profile)
    return "\n".join(lines)


def _summary_table(entries: list[ReportEntry]) -> list[str]:
    lines = ["| figure | paper | runs ok / total | noisy runs | claims |", "|---|---|---|---|---|"]
    for entry in entries:
        if entry.problem:
            lines.append(f"| `{entry.figure_id}` | {entry.paper} | — | — | not processed |")
        else:
            total, ok, _, _ = entry.outcome.run_counts()
            lines.append(f"| `{entry.figure_id}` | {entry.paper} | {ok} / {total} | "
                         f"{entry.outcome.tables.noisy_counts()[0]} | {_claim_counts(entry.outcome)} |")
    return lines + [""]


def render_html(entries: list[ReportEntry], profile: Profile, not_run: list[ReportEntry] = ()) -> str:
    """A self-contained page: the summary, then each figure with its image and claims."""
    def escape(text: object) -> str:
        return html.escape(str(text))

    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             f"<title>Reproduction report ({escape(profile.name)})</title>",
             "<style>body{font-family:serif;max-width:1100px;margin:auto;padding:1em}"
             "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top}"
             ".held{color:#060}.failed{color:#a00}.inconclusive{color:#a60}.nodata{color:#777}img{max-width:100%}"
             "</style></head><body>",
             f"<h1>Reproduction report</h1><p>Profile <b>{escape(profile.name)}</b>: {escape(profile.description)}</p>"]
    note = not_run_note(list(not_run), profile)
    if note:
        parts.append(f"<p>{escape(note)}</p>")
    native, simulated = split_simulated(entries)
    headings = {id(simulated[0]): f"<h1>{SIMULATED_SECTION}</h1><p>{escape(SIMULATED_INTRO)}</p>"} if simulated else {}
    for entry in [*native, *simulated]:
        parts.append(headings.get(id(entry), ""))
        caption = f" ({entry.caption})" if entry.caption else ""
        parts.append(f"<h2 id='{escape(entry.figure_id)}'>{escape(entry.paper)}: <code>{escape(entry.figure_id)}</code> "
                     f"— {escape(entry.title)}{escape(caption)}</h2>")
        if entry.problem:
            parts.append(f"<p><b>Not processed:</b> {escape(entry.problem)}</p>")
            continue
        outcome = entry.outcome
        total, ok, failed, missing = outcome.run_counts()
        for png in outcome.images[::2]:  # the plot, then its views
            parts.append(f"<img src='{escape(profile.name)}/{escape(png.name)}' "
                         f"alt='{escape(entry.figure_id)}'>")
        parts.append(f"<p>Runs: {ok} ok, {failed} failed, {missing} not run, of {total}; "
                     f"{escape(_noisy_text(outcome))}.</p><ul>")
        parts += [f"<li>{escape(line)}</li>" for line in _parameter_lines(outcome)]
        parts += [f"<li>[INF] <code>{escape(i['parameter'])}</code>: {escape(i['note'])}</li>"
                  for i in outcome.figure.config.document.get("inferences", [])]
        parts.append("</ul>")
        if outcome.claims:
            parts.append("<table><tr><th>claim</th><th>check</th><th>at this profile</th><th>repetitions</th>"
                         "<th>numbers</th></tr>")
            for result in outcome.claims:
                css = {HELD: "held", FAILED: "failed", INCONCLUSIVE: "inconclusive", NO_DATA: "nodata"}[result.outcome]
                text = _claim_text(result.claim)
                parts.append(f"<tr><td>{escape(text)}</td><td>{escape(CHECK_NAMES[result.claim['check']])}</td>"
                             f"<td class='{css}'><b>{escape(result.label)}</b><br>{escape(result.note)}</td>"
                             f"<td>{escape(result.repetitions_text())}</td><td>{escape(result.detail)}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(entries: list[ReportEntry], profile: Profile, workspace: Workspace) -> Path:
    entries = sorted(entries, key=lambda entry: (entry.paper, entry.figure_id))
    shown = [entry for entry in entries if entry.ran]
    not_run = [entry for entry in entries if not entry.ran]
    markdown_text = render_markdown(shown, profile, workspace, not_run)
    report_path = workspace.figures_dir / "REPORT.md"
    write_text_atomically(report_path, markdown_text + "\n")
    write_text_atomically(workspace.figures_dir / "REPORT.html", render_html(shown, profile, not_run))
    return report_path
