"""The reproduction report, one per profile: paper_figures/<profile>/REPORT.md and REPORT.html, and the
index of them, paper_figures/REPORT.md.

It lists every figure that was run at the profile (`run`, `figures` or `fidelity` swept it: store.py's
record of the figures run; a store without that record shows every figure with a run stored at the
profile), or whose config could not be processed, with its picture, its parameters at the profile
(inferences marked [INF]), the runs behind it, and each claim of the paper with whether it held at this
profile, whether it is asserted and, for a failed or inconclusive one, the cause class its config records.
A first line says what the verdicts mean on this machine; a table tallies them per paper; the figures not
run there are named in one paragraph, with the commands that list and run them, so that a first report
shows what was made, not 84 empty ones. Each claim's numbers are cut short in the report; its intervals
are in results/tables/<profile>/<figure>.claims.csv. The verdicts of the figures shown go to the verdict
store (verdicts.py), from which docs/reproduction.md is made.
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
from ccbench.report.verdicts import (CLASSES_NOTE, VerdictStore, cause_text, local_verdicts, needs_cause,
                                     tally_lines, unclassified_failures, warning_line)
from ccbench.run.workspace import Workspace
from ccbench.specification.config import FigureConfig, Profile, hardware_threads
from ccbench.specification.points import format_flag_value

CHECK_NAMES = {"trend": "trend ✔", "absolute": "absolute ✘", "conditional": "conditional ◐"}
NUMBERS_SHOWN = 400          # characters of a claim's numbers in the report; all of them in the claims CSV


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

    def ran(self, figures_run: set[str] | None = None) -> bool:
        """Whether the report shows it: its config is broken, or it was run at the profile (in figures_run,
        store.py's record of the figures swept there). Without that record (a store from before it), when some
        run of it is stored at the profile or some of its points cannot run under the profile (the report
        says why)."""
        if self.outcome is None:
            return True
        if figures_run is not None:
            return self.figure_id in figures_run
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
            lines += [f"![{entry.figure_id}]({png.name}) ([PDF]({pdf.name}))", ""]
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
            status = f"**{result.label}**" + (f"<br>{result.note}" if result.note else "") \
                + (f"<br>cause, {cause}" if (cause := _cause(result, profile)) else "")
            lines.append(f"| {_cell(text)} | {CHECK_NAMES[claim['check']]} | {_cell(status)} | "
                         f"{result.repetitions_text()} | {_cell(_numbers(result, entry.figure_id, profile.name))} |")
    failures = outcome.tables.failures()
    if failures:
        lines += ["", "Failed runs (stderr in the run records under results/runs/):"]
        lines += [f"- {failure}" for failure in failures[:10]]
    return lines + [""]


def _cause(result, profile: Profile) -> str:
    """The recorded class and cause of a failed or inconclusive asserted claim (verdicts.py); a failed one
    without it says so."""
    if not needs_cause(result.outcome, result.asserted):
        return ""
    return cause_text(result.claim, profile.name) or ("no class recorded" if result.outcome == FAILED else "")


def _numbers(result, figure_id: str, profile: str) -> str:
    """The numbers behind a verdict, without the interval list and cut to NUMBERS_SHOWN characters: the
    intervals and the whole text are in the figure's claims CSV (pipeline.py)."""
    numbers = result.numbers or result.detail
    if len(numbers) > NUMBERS_SHOWN:
        numbers = numbers[:NUMBERS_SHOWN].rsplit(" ", 1)[0] + " …"
    shown = [check for check in result.checks if not check.collapsed]
    if shown or numbers != (result.numbers or result.detail):
        where = f"`{figure_id}.claims.csv` in results/tables/{profile}/"
        numbers += f" ({len(shown)} interval(s) and the whole text: {where})" if shown else f" (whole text: {where})"
    return numbers


def machine_line(entries: list[ReportEntry], profile: Profile) -> str:
    """In plain words, what the verdicts below mean on this machine, and where the rest is."""
    outcomes = [entry.outcome for entry in entries if entry.outcome]
    results = [result for outcome in outcomes for result in outcome.claims]
    asserted = sum(result.asserted for result in results)
    waiting = [(outcome.figure_id, outcome.claims, [r for r in outcome.claims if r.claim["check"] == "conditional"
                                                    and not r.asserted]) for outcome in outcomes]
    examples = [f"{len(unmet)} of {figure_id}'s {len(claims)} claims need "
                + " or ".join(sorted({f"{r.claim['requires_hw_threads']} hardware threads" if "requires_hw_threads"
                                      in r.claim else "a condition checked by hand" for r in unmet}))
                for figure_id, claims, unmet in waiting if unmet]
    absolute = sum(result.claim["check"] == "absolute" for result in results)
    text = (f"**What this means here.** This machine has {hardware_threads()} hardware threads. Of the "
            f"{len(results)} claims of the {len(outcomes)} figure(s) below, {asserted} are asserted at profile "
            f"{profile.name}: held or failed is a verdict on this machine (or, in the simulated section, on the "
            f"modelled one). {sum(len(unmet) for _, _, unmet in waiting)} conditional claim(s) need what this "
            f"machine does not have, so they are reported, not asserted")
    text += f" ({'; '.join(examples[:3])}{'; ...' if len(examples) > 3 else ''})" if examples else ""
    text += (f"; {absolute} claim(s) are numbers of the authors' hardware, never asserted. Every figure: "
             f"`.venv/bin/ccbench list` (specified in docs/figures.md); which "
             f"claims reproduced at each profile and why the others did not: docs/reproduction.md; the other "
             f"profiles' reports: paper_figures/REPORT.md.")
    return text


def not_run_note(not_run: list[ReportEntry], profile: Profile) -> str | None:
    """The one paragraph that names the figures without a run at the profile, and how to make them."""
    if not not_run:
        return None
    return (f"Not listed: {len(not_run)} figure(s) not run at profile {profile.name}: "
            + ", ".join(entry.figure_id for entry in not_run)
            + f". `.venv/bin/ccbench list` lists every figure (docs/figures.md "
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
    lines[2:2] = [machine_line(entries, profile), ""]
    note = not_run_note(list(not_run), profile)
    if note:
        lines += [note, ""]
    native, simulated = split_simulated(entries)
    lines += _tally(native, profile, "") + _summary_table(native)
    if simulated:
        lines += [f"{SIMULATED_SECTION} (their own section below):", ""] + _tally(simulated, profile, " (simulated)") \
            + _summary_table(simulated)
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


def _tally(entries: list[ReportEntry], profile: Profile, suffix: str) -> list[str]:
    """Asserted verdicts and cause classes per paper, and the failed claims without a class."""
    results = [(entry.paper, result) for entry in entries if entry.outcome for result in entry.outcome.claims]
    lines = tally_lines(results, profile.name)
    if not lines:
        return []
    by_figure = [(entry.figure_id, result) for entry in entries if entry.outcome for result in entry.outcome.claims]
    return [f"Verdicts per paper{suffix}. {CLASSES_NOTE}", "", *lines,
            *warning_line(unclassified_failures(by_figure, profile.name), profile.name)]


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
            parts.append(f"<img src='{escape(png.name)}' alt='{escape(entry.figure_id)}'>")
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
                cause = _cause(result, profile)
                parts.append(f"<tr><td>{escape(text)}</td><td>{escape(CHECK_NAMES[result.claim['check']])}</td>"
                             f"<td class='{css}'><b>{escape(result.label)}</b><br>{escape(result.note)}"
                             + (f"<br>cause, {escape(cause)}" if cause else "") + "</td>"
                             f"<td>{escape(result.repetitions_text())}</td>"
                             f"<td>{escape(_numbers(result, entry.figure_id, profile.name))}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(entries: list[ReportEntry], profile: Profile, workspace: Workspace,
                 figures_run: set[str] | None = None) -> Path:
    """paper_figures/<profile>/REPORT.md and REPORT.html, the verdicts of the figures shown into the verdict
    store, and the index of every profile's report."""
    entries = sorted(entries, key=lambda entry: (entry.paper, entry.figure_id))
    shown = [entry for entry in entries if entry.ran(figures_run)]
    not_run = [entry for entry in entries if not entry.ran(figures_run)]
    markdown_text = render_markdown(shown, profile, workspace, not_run)
    report_path = report_path_of(workspace, profile.name)
    write_text_atomically(report_path, markdown_text + "\n")
    write_text_atomically(report_path.with_suffix(".html"), render_html(shown, profile, not_run))
    store_verdicts([entry.outcome for entry in shown if entry.outcome], profile.name, workspace)
    write_index(workspace)
    return report_path


def report_path_of(workspace: Workspace, profile: str) -> Path:
    return workspace.images_dir(profile) / "REPORT.md"


def store_verdicts(outcomes: list[FigureOutcome], profile: str, workspace: Workspace) -> None:
    """The verdicts of these figures into this machine's verdict store, results/verdicts/ (verdicts.py); the
    others kept. `ccbench reproduction` merges it into the committed one."""
    if not outcomes:
        return
    store = VerdictStore.load(local_verdicts(workspace.results_dir), profile)
    revision = git_revision(workspace.root)
    for outcome in outcomes:
        store.update(outcome.figure_id, outcome.claims, bool(outcome.figure.simulation_caption()), revision)
    store.save()


def write_index(workspace: Workspace) -> Path:
    """paper_figures/REPORT.md: a line per profile with a report, with its stored verdicts' tally."""
    lines = ["# Reproduction reports", "",
             "One report per profile (`ccbench report --profile P`, `make figures PROFILE=P`), each listing the "
             "figures run at that profile. Which claims of each paper reproduced at every profile, and why the "
             "others did not: docs/reproduction.md.", "",
             "| profile | report | figures with verdicts here | asserted held / failed / inconclusive | last reported |",
             "|---|---|---|---|---|"]
    stores = VerdictStore.load_all(local_verdicts(workspace.results_dir))
    for profile_dir in sorted(path.parent for path in workspace.figures_dir.glob("*/REPORT.md")):
        store = stores.get(profile_dir.name)
        figures = store.figures if store else {}
        verdicts = [claim["outcome"] for figure in figures.values() for claim in figure["claims"].values()
                    if claim["asserted"]]
        counts = " / ".join(str(verdicts.count(verdict)) for verdict in (HELD, FAILED, INCONCLUSIVE))
        last = max((figure["date"] for figure in figures.values()), default="-")
        lines.append(f"| {profile_dir.name} | [{profile_dir.name}/REPORT.md]({profile_dir.name}/REPORT.md) | "
                     f"{len(figures)} | {counts} | {last} |")
    if (workspace.figures_dir / "FIDELITY.md").exists():
        lines += ["", "The fidelity report (`ccbench fidelity`): [FIDELITY.md](FIDELITY.md)."]
    path = workspace.figures_dir / "REPORT.md"
    write_text_atomically(path, "\n".join(lines) + "\n")
    return path
