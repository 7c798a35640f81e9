"""From stored runs to a figure's outputs: tidy tables, images, claim checks."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ccbench.analysis.claims import ClaimResult, evaluate_figure_claims
from ccbench.analysis.tables import FigureTables, build_tables
from ccbench.errors import ConfigError
from ccbench.fileio import write_atomically, write_json_atomically
from ccbench.report.plots import RunDocuments, plot_figure
from ccbench.run.store import ResultStore
from ccbench.run.workspace import Workspace
from ccbench.specification.config import (FigureConfig, ResolvedFigure, figure_config_paths, hardware_threads,
                                          load_profiles)


@dataclass
class FigureOutcome:
    figure: ResolvedFigure
    tables: FigureTables
    claims: list[ClaimResult]
    images: list[Path] = field(default_factory=list)

    @property
    def figure_id(self) -> str:
        return self.figure.figure_id

    def run_counts(self) -> tuple[int, int, int, int]:
        """(total, ok, failed, not yet run) over the figure's runs at this profile (reference points are not runs)."""
        status = self.tables.run_rows["status"]
        return len(status), int((status == "ok").sum()), int((status == "failed").sum()), \
            int((status == "missing").sum())


def process_figure(figure: ResolvedFigure, workspace: Workspace) -> FigureOutcome:
    """Aggregate what the store holds for the figure, plot it and check its claims."""
    profile = figure.profile.name
    tables_dir = workspace.tables_dir(profile)
    store = ResultStore(workspace.runs_dir)
    tables = build_tables(figure, store, workspace.command_template(figure.config.program.name), tables_dir)
    claims = evaluate_figure_claims(figure, tables.runs, hardware_threads())
    write_json_atomically(tables_dir / f"{figure.figure_id}.claims.json",
                          [{"id": r.claim["id"], "text": r.claim["text"], "check": r.claim["check"],
                            "outcome": r.outcome, "asserted": r.asserted, "detail": r.detail, "note": r.note,
                            "repetitions": list(r.repetitions) if r.repetitions else None,
                            "expected_here": r.claim.get("expected_here"), "reason": r.claim.get("reason"),
                            "checks": [check.as_dict() for check in r.checks]}
                           for r in claims])
    write_claims_csv(tables_dir / f"{figure.figure_id}.claims.csv", claims)
    images = []
    if tables.has_data:
        documents = RunDocuments(tables.runs, lambda key: (store.get(key) or {}).get("result"))  # timeseries
        images = plot_figure(figure, tables.table, workspace.images_dir(profile) / figure.figure_id,
                             documents=documents)
        for view in figure.config.views:  # <id>.<view>.png/.pdf after the main image
            images += plot_figure(figure, tables.table,
                                  workspace.images_dir(profile) / f"{figure.figure_id}.{view['name']}", view,
                                  documents)
    return FigureOutcome(figure, tables, claims, images)


def write_claims_csv(path: Path, claims: list[ClaimResult]) -> None:
    """One row per check of each claim (its estimate and interval), and a row for a claim without checks
    (no data): what the report leaves out of its numbers column."""
    rows = []
    for result in claims:
        base = {"claim": result.claim["id"], "outcome": result.outcome, "asserted": result.asserted,
                "numbers": result.numbers or result.detail}
        rows += [{**base, **check.as_dict()} for check in result.checks] or [base]
    columns = ["claim", "outcome", "asserted", "label", "estimate", "low", "high", "verdict", "numbers"]
    write_atomically(path, lambda temporary: pd.DataFrame(rows, columns=columns).to_csv(temporary, index=False))


@dataclass
class Catalog:
    """Every figure config in the workspace, loaded; broken ones keep their error."""
    figures: dict[str, FigureConfig]
    broken: dict[str, ConfigError]


def load_catalog(workspace: Workspace) -> Catalog:
    profiles = load_profiles(workspace.profiles_dir)
    figures, broken = {}, {}
    for figure_id, path in figure_config_paths(workspace.figure_configs_dir).items():
        try:
            figures[figure_id] = FigureConfig.load(path, profiles)
        except ConfigError as error:
            broken[figure_id] = error
    return Catalog(figures, broken)
