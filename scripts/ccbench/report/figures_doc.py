"""docs/figures.md, the figure specification, generated from the figure configs (`ccbench list --markdown`).

The configs are the specification: each figure's id, paper, title, the paper
section it reproduces (`source`), what it measures, its series, the claims
checked on it (kind, check and text) and the values the papers do not state
(`inferences`, marked [INF], with why each was chosen). This module only
renders them; tests/python/test_figures_doc.py fails when the committed
docs/figures.md differs from what the configs give.
"""
from __future__ import annotations

from ccbench.report.pipeline import Catalog

HEADER = """# Figures: the specification

Generated from `configs/figures/<paper>/<id>.yaml` by `.venv/bin/ccbench list --markdown > docs/figures.md`;
do not edit by hand: change the config and regenerate (a test fails when the two differ).
Per figure: the paper section it reproduces, what it runs, its series, the values the paper does not state
(**[INF]**, each with why it was chosen) and the claims the harness checks. A claim's check is `trend`
(asserted: a relation the paper's text states), `absolute` (a number tied to the authors' machine: reported,
not asserted) or `conditional` (asserted only where its condition holds, e.g. enough hardware threads);
**[INF]** on a claim marks one the paper implies rather than states. How claims are evaluated:
`docs/harness.md`.
"""


def cell(text: object) -> str:
    """Text in one table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _series(document: dict) -> list[str]:
    lines = []
    data = document.get("reference_data", {})
    for series in document["series"]:
        params = ", ".join(f"{name}={_value(value)}" for name, value in series.get("params", {}).items())
        if "reference" in series:   # a reference series: its data file and rows (reference.py)
            spec = data[series["reference"]["data"]]
            params = f"rows of {spec['file']} with " + ", ".join(
                f"{column}={_value(value)}" for column, value in {**spec.get("rows", {}),
                                                                   **series["reference"]["rows"]}.items())
        label = series.get("label", series["name"])
        lines.append(f"- `{series['name']}`" + (f" ({label})" if label != series["name"] else "")
                     + (f": {params}" if params else "")
                     + (f"; variant {series['variant']}" if "variant" in series else ""))   # native or sim
    return lines


def _figure(figure_id: str, config) -> list[str]:
    document = config.document
    lines = [f"### `{figure_id}`: {document['title']}", ""]
    lines.append(f"- Paper: {config.paper}; source: {document.get('source', '(none given)')}")
    if config.program.name != "rundb":
        lines.append(f"- Program: `{config.program.name}`")
    plot = document["plot"]
    y = plot["y"] if isinstance(plot["y"], str) else ", ".join(plot["y"])
    axes = "; ".join(f"{name} ∈ {{{', '.join(_value(v) for v in values)}}}"
                     for name, values in document.get("axes", {}).items())
    lines.append(f"- Plot: {plot['kind']}, {y} against {plot['x']}" + (f"; swept: {axes}" if axes else ""))
    if document.get("description"):
        lines += ["", " ".join(document["description"].split())]
    lines += ["", "Series:", "", *_series(document)]
    inferences = document.get("inferences", [])
    if inferences:
        lines += ["", "Inferences:", ""]
        lines += [f"- **[INF]** `{item['parameter']}`: {' '.join(item['note'].split())}" for item in inferences]
    claims = document.get("claims", [])
    if claims:
        lines += ["", "Claims:", "", "| claim | kind | check | text |", "|---|---|---|---|"]
        for claim in claims:
            check = claim.get("check", "")
            if claim.get("condition"):
                check += f" ({claim['condition']})"
            text = ("**[INF]** " if claim.get("inferred") else "") + claim["text"]
            lines.append(f"| `{claim['id']}` | {claim['kind']} | {cell(check)} | {cell(text)} |")
    return lines + [""]


def markdown(catalog: Catalog) -> str:
    """The whole specification: the papers in name order, each paper's figures in id order."""
    lines = [HEADER]
    papers = sorted({config.paper for config in catalog.figures.values()})
    lines += ["Papers: " + ", ".join(f"[{paper}](#{paper})" for paper in papers) + ".", ""]
    for paper in papers:
        figures = sorted((figure_id, config) for figure_id, config in catalog.figures.items() if config.paper == paper)
        lines += [f"## {paper}", "", f"{len(figures)} figure(s): " + ", ".join(f"`{fid}`" for fid, _ in figures)
                  + ".", ""]
        for figure_id, config in figures:
            lines += _figure(figure_id, config)
    return "\n".join(lines).rstrip("\n") + "\n"
