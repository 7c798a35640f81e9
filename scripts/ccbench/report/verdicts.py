"""Verdicts per paper, the cause class of each failed claim, and the committed verdict store.

A figure config records, for an asserted claim that fails or stays inconclusive at a profile, why:
`causes: {<profile>: {class: finding | method | model, cause: "<the measured cause>"}}` (schema.py,
CAUSE_CLASSES). REPORT.md and FIDELITY.md tally, per paper, the asserted claims held / failed /
inconclusive and the classes of the failed and inconclusive ones; a failed claim without a class at the
profile is a warning.

Verdict stores keep the last verdict of every claim of every figure reported at a profile, per figure
with the time and revision of the report: `results/verdicts/<profile>.json`, this machine's, which the
report step (`report`, `figures`) and `fidelity` update from the runs in results/ for the figures they
process; and the committed one, `paper_figures/verdicts/<profile>.json` (results/ is not committed).
`ccbench reproduction` merges this machine's store into the committed one (the later report of a figure
wins), then renders docs/reproduction.md from the committed store and the configs alone, so that the page
is the same on every machine for the same commit and running figures never makes the committed page stale
(reproduction_page.py).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ccbench.analysis.claims import FAILED, HELD, INCONCLUSIVE, NO_DATA, ClaimResult
from ccbench.fileio import write_text_atomically
from ccbench.specification.schema import CAUSE_CLASSES

VERDICTS = (HELD, FAILED, INCONCLUSIVE, NO_DATA)
UNCLASSIFIED = "no class"
CLASS_COLUMNS = (*CAUSE_CLASSES, UNCLASSIFIED)
CLASS_MEANINGS = {
    "finding": "our method matches the paper's section and the measured cause contradicts the claim",
    "method": "our experiment still differs from the paper's",
    "model": "the simulation plausibly cannot show it",
    UNCLASSIFIED: "no cause recorded in the figure config for this profile",
}


def cause_of(claim: dict, profile: str) -> dict | None:
    """The claim's recorded {class, cause} at the profile, if any."""
    return claim.get("causes", {}).get(profile)


def needs_cause(outcome: str, asserted: bool) -> bool:
    """An asserted claim that failed or stayed inconclusive is explained by a cause class."""
    return asserted and outcome in (FAILED, INCONCLUSIVE)


def cause_text(claim: dict, profile: str) -> str:
    """"class: cause" for the report's tables, or ""."""
    cause = cause_of(claim, profile)
    return f"{cause['class']}: {cause['cause'].strip()}" if cause else ""


@dataclass
class Tally:
    """Asserted verdicts and the classes of the failed and inconclusive ones."""
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    classes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASS_COLUMNS, 0))
    not_asserted: int = 0

    def add(self, claim: dict, outcome: str, asserted: bool, profile: str) -> None:
        if not asserted:
            self.not_asserted += 1
            return
        self.verdicts[outcome] += 1
        if needs_cause(outcome, asserted):
            cause = cause_of(claim, profile)
            self.classes[cause["class"] if cause else UNCLASSIFIED] += 1

    def cells(self) -> list[str]:
        return [str(self.verdicts[v]) for v in VERDICTS] + [str(self.classes[c]) for c in CLASS_COLUMNS]


TALLY_HEADER = ("| paper | held | failed | inconclusive | no data | finding | method | model | no class |",
                "|---|---|---|---|---|---|---|---|---|")


def tally_by_paper(results: list[tuple[str, ClaimResult]], profile: str) -> dict[str, Tally]:
    """(paper, result) pairs -> a tally per paper, papers sorted."""
    tallies: dict[str, Tally] = {}
    for paper, result in sorted(results, key=lambda pair: pair[0]):
        tallies.setdefault(paper, Tally()).add(result.claim, result.outcome, result.asserted, profile)
    return tallies


def tally_lines(results: list[tuple[str, ClaimResult]], profile: str) -> list[str]:
    """The per-paper table of asserted verdicts and cause classes (failed and inconclusive claims only)."""
    tallies = tally_by_paper(results, profile)
    if not tallies:
        return []
    total = Tally()
    for paper, result in results:
        total.add(result.claim, result.outcome, result.asserted, profile)
    return [*TALLY_HEADER, *(f"| {paper} | " + " | ".join(t.cells()) + " |" for paper, t in tallies.items()),
            "| **all** | " + " | ".join(f"**{cell}**" for cell in total.cells()) + " |", ""]


CLASSES_NOTE = ("Asserted claims only; the classes count the failed and inconclusive ones by the cause their figure "
                "config records for this profile (`causes`, docs/harness.md): " + "; ".join(
                    f"*{name}*: {meaning}" for name, meaning in CLASS_MEANINGS.items()) + ".")


def unclassified_failures(results: list[tuple[str, ClaimResult]], profile: str) -> list[str]:
    """'figure: claim' for each asserted claim that failed at the profile without a recorded class."""
    return [f"{figure}: {result.claim['id']}" for figure, result in results
            if result.asserted and result.outcome == FAILED and cause_of(result.claim, profile) is None]


def warning_line(unclassified: list[str], profile: str) -> list[str]:
    if not unclassified:
        return []
    return [f"**Warning:** {len(unclassified)} failed claim(s) at profile {profile} have no cause class in their "
            f"figure config (`causes.{profile}`: finding, method or model, with the measured cause): "
            + ", ".join(f"`{item}`" for item in unclassified) + ".", ""]


def claim_digest(claim: dict) -> str:
    """What a stored verdict was computed for: the claim as encoded, less its recorded causes (which do not
    change the verdict). A stored verdict whose digest differs predates the claim's current encoding."""
    encoded = {key: value for key, value in claim.items() if key != "causes"}
    return hashlib.sha256(json.dumps(encoded, sort_keys=True, default=str).encode()).hexdigest()[:12]


def local_verdicts(results_dir: Path) -> Path:
    """This machine's verdict store: the report step's, from results/."""
    return results_dir / "verdicts"


def committed_verdicts(figures_dir: Path) -> Path:
    """The committed verdict store, from which docs/reproduction.md is made."""
    return figures_dir / "verdicts"


class VerdictStore:
    """<directory>/<profile>.json: {"profile", "figures": {figure id: {"reported" (UTC, ISO), "date",
    "revision", "simulated", "claims": {claim id: {"outcome", "asserted", "note", "digest"}}}}}."""

    def __init__(self, path: Path, profile: str, figures: dict | None = None):
        self.path, self.profile, self.figures = path, profile, figures or {}

    @classmethod
    def load(cls, directory: Path, profile: str) -> "VerdictStore":
        path = directory / f"{profile}.json"
        figures = json.loads(path.read_text(encoding="utf-8"))["figures"] if path.exists() else {}
        return cls(path, profile, figures)

    @classmethod
    def load_all(cls, directory: Path) -> dict[str, "VerdictStore"]:
        return {path.stem: cls.load(directory, path.stem) for path in sorted(directory.glob("*.json"))}

    def update(self, figure_id: str, results: list[ClaimResult], simulated: bool, revision: str,
               now: datetime | None = None) -> None:
        """Replace the figure's entry with these verdicts."""
        now = now or datetime.now(timezone.utc)
        self.figures[figure_id] = {
            "reported": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "date": now.strftime("%Y-%m-%d"),
            "revision": revision, "simulated": simulated,
            "claims": {result.claim["id"]: {"outcome": result.outcome, "asserted": result.asserted,
                                            "note": result.note, "digest": claim_digest(result.claim)}
                       for result in results}}

    def merge(self, other: "VerdictStore") -> int:
        """Take the other store's entry of each figure it reported later than this one; how many it took."""
        taken = 0
        for figure_id, entry in other.figures.items():
            mine = self.figures.get(figure_id)
            if mine is None or entry["reported"] > mine["reported"]:
                self.figures[figure_id] = entry
                taken += 1
        return taken

    def save(self) -> None:
        document = {"profile": self.profile, "figures": dict(sorted(self.figures.items()))}
        write_text_atomically(self.path, json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
