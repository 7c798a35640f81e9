"""The cause class of each failed claim (issue 60 item 8), the verdict store and docs/reproduction.md (issue
63 item 2), and one report per profile that shows the figures run there (issue 63 item 3): the configs'
`causes` validated, tallied per paper in REPORT.md and FIDELITY.md with a warning for a failed claim without
a class, the verdicts stored and rendered, and the committed page current."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from ccbench.cli import main
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.report import reproduction_page
from ccbench.report.pipeline import load_catalog
from ccbench.run.workspace import Workspace
from conftest import figure_document

PAGE = REPOSITORY_ROOT / "docs" / "reproduction.md"


def test_the_committed_reproduction_page_is_current():
    """Regenerate with `PYTHONPATH=scripts .venv/bin/python -m ccbench reproduction > docs/reproduction.md`
    after changing a figure config or the verdict store (paper_figures/verdicts/)."""
    workspace = Workspace.create()
    expected = reproduction_page.markdown(load_catalog(workspace), workspace.figures_dir)
    assert PAGE.read_text(encoding="utf-8") == expected, \
        f"docs/reproduction.md is stale: run {reproduction_page.COMMAND}"


def ratio_claim(claim_id: str, bound: float, **more) -> dict:
    return {"id": claim_id, "kind": "ratio", "numerator": "silo", "denominator": "occ", "op": ">=", "bound": bound,
            "check": "trend", "text": f"Silo beats OCC by {bound}x", **more}


# The fake engine gives Silo 1.625x OCC's throughput, three agreeing repetitions at profile `repeated`.
CLAIMS = [ratio_claim("beats", 1.2),
          ratio_claim("explained", 3.0, causes={"repeated": {"class": "finding", "cause": "OCC is fast here"}}),
          ratio_claim("unexplained", 3.0),
          ratio_claim("authors-hardware", 1.0, check="absolute")]


@pytest.mark.parametrize("causes, where, message", [
    ({"repeated": {"class": "findings", "cause": "x"}}, "claims[0].causes.repeated.class",
     "'findings' is not allowed; allowed values: finding, method, model"),
    ({"repeated": {"class": "model"}}, "claims[0].causes.repeated", "missing required field 'cause'"),
    ({"nosuch": {"class": "model", "cause": "x"}}, "claims[0].causes.nosuch", "unknown profile; profiles: quick"),
    ({"repeated": {"class": "model", "cause": "x", "date": "today"}}, "claims[0].causes.repeated.date",
     "unknown field; allowed fields here: cause, class"),
])
def test_a_bad_cause_is_a_config_error_naming_the_field(sandbox, capsys, causes, where, message):
    sandbox.add_figure("test-fig", figure_document(claims=[ratio_claim("c", 1.0, causes=causes)]))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--dry-run")) == 2
    error = capsys.readouterr().err
    assert f"{where}: {message}" in error, error


def test_an_absolute_claim_takes_no_cause(sandbox, capsys):
    claim = ratio_claim("c", 1.0, check="absolute", causes={"quick": {"class": "model", "cause": "x"}})
    sandbox.add_figure("test-fig", figure_document(claims=[claim]))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--dry-run")) == 2
    assert "claims[0].causes: only for an asserted claim" in capsys.readouterr().err


def test_the_report_tallies_verdicts_and_classes_per_paper_and_warns_of_a_failure_without_one(sandbox):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=CLAIMS))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "repeated", "--quiet")) == 0
    report = (sandbox.workspace.images_dir("repeated") / "REPORT.md").read_text()
    # paper | held | failed | inconclusive | no data | finding | method | model | no class
    assert "| testbed | 1 | 2 | 0 | 0 | 1 | 0 | 0 | 1 |" in report
    assert "**Warning:** 1 failed claim(s) at profile repeated have no cause class" in report
    assert "`test-fig: unexplained`" in report and "`test-fig: explained`" not in report
    assert "**failed**<br>cause, finding: OCC is fast here" in report
    assert "**failed**<br>cause, no class recorded" in report


def test_fidelity_tallies_the_classes_and_leads_a_failure_with_its_cause(sandbox):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=CLAIMS))
    assert main(sandbox.cli_arguments("fidelity", "test-fig", "--profile", "repeated", "--quiet")) == 0
    text = (sandbox.workspace.figures_dir / "FIDELITY.md").read_text()
    assert "| testbed | 1 | 2 | 0 | 0 | 1 | 0 | 0 | 1 |" in text
    assert "| `explained` | **failed** | 3 | cause, finding: OCC is fast here; no reason recorded" in text
    assert "`test-fig: unexplained`" in text
    assert "test-fig" in json.loads((sandbox.workspace.results_dir / "verdicts" / "repeated.json").read_text())[
        "figures"]


def reproduction(sandbox, capsys) -> str:
    capsys.readouterr()
    assert main(sandbox.cli_arguments("reproduction")) == 0
    return capsys.readouterr().out


def test_the_verdict_store_feeds_the_page_and_marks_a_changed_encoding(sandbox, capsys):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=CLAIMS))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "repeated", "--quiet")) == 0
    committed = sandbox.workspace.figures_dir / "verdicts" / "repeated.json"
    # Running figures writes this machine's store only: the committed page cannot go stale by it.
    assert not committed.exists()
    assert "**The verdict store is empty**" in reproduction_page.markdown(load_catalog(sandbox.workspace),
                                                                          sandbox.workspace.figures_dir)
    page = reproduction(sandbox, capsys)             # merges results/verdicts/ into the committed store
    entry = json.loads(committed.read_text())["figures"]["test-fig"]
    assert entry["claims"]["explained"]["outcome"] == "failed" and entry["claims"]["beats"]["asserted"]
    assert page == reproduction_page.markdown(load_catalog(sandbox.workspace), sandbox.workspace.figures_dir)
    assert f"`repeated` {entry['date']} at `{entry['revision']}`" in page
    assert "| `explained` | trend | **failed** | repeated: *finding*, OCC is fast here |" in page
    assert "| `unexplained` | trend | **failed** | repeated: no class recorded |" in page
    assert "| `authors-hardware` | absolute | held (not asserted) |  |" in page
    assert "| testbed | repeated | 1 | 1 | 2 | 0 | 0 | 1 | 0 | 0 | 1 | 1 | 0 |" in page
    # Another encoding of a claim: its stored verdict is shown as stale and not tallied.
    changed = [*CLAIMS[:2], ratio_claim("unexplained", 3.5), CLAIMS[3]]
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=changed))
    page = reproduction_page.markdown(load_catalog(sandbox.workspace), sandbox.workspace.figures_dir)
    assert "| `unexplained` | trend | **failed** (encoding changed) |" in page
    assert "| testbed | repeated | 1 | 1 | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 1 |" in page


def test_the_later_report_of_a_figure_wins_the_merge(sandbox, capsys):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=CLAIMS))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "repeated", "--quiet")) == 0
    reproduction(sandbox, capsys)
    committed = sandbox.workspace.figures_dir / "verdicts" / "repeated.json"
    local = sandbox.workspace.results_dir / "verdicts" / "repeated.json"
    store = json.loads(committed.read_text())
    store["figures"]["test-fig"]["reported"] = "2999-01-01T00:00:00Z"      # reported elsewhere, later
    store["figures"]["test-fig"]["claims"]["beats"]["outcome"] = "inconclusive"
    committed.write_text(json.dumps(store))
    reproduction(sandbox, capsys)
    assert json.loads(committed.read_text())["figures"]["test-fig"]["claims"]["beats"]["outcome"] == "inconclusive"
    assert json.loads(local.read_text())["figures"]["test-fig"]["claims"]["beats"]["outcome"] == "held"


def test_the_page_without_a_store_says_so(sandbox):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=CLAIMS))
    page = reproduction_page.markdown(load_catalog(sandbox.workspace), sandbox.workspace.figures_dir)
    assert "**The verdict store is empty**" in page
    assert "| `explained` | trend | — | repeated: *finding*, OCC is fast here |" in page


def test_a_report_per_profile_shows_only_the_figures_run_there_and_an_index(sandbox):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0, 0.9]}))
    # Its points are a subset of test-fig's (as ycsb-threads' are of ycsb-theta's): stored, never run itself.
    sandbox.add_figure("covered-fig", figure_document(title="Covered by test-fig's points", axes={"theta": [0.9]}))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet")) == 0
    assert main(sandbox.cli_arguments("report", "--profile", "quick")) == 0
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "`test-fig`" in report and "Covered by test-fig's points" not in report
    assert "Not listed: 1 figure(s) not run at profile quick: covered-fig." in report
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "repeated", "--quiet")) == 0
    index = (sandbox.workspace.figures_dir / "REPORT.md").read_text()
    assert "| quick | [quick/REPORT.md](quick/REPORT.md) | 1 |" in index
    assert "| repeated | [repeated/REPORT.md](repeated/REPORT.md) | 1 |" in index
    assert (sandbox.workspace.images_dir("quick") / "REPORT.md").exists()   # the other profile's report stays


def test_a_store_without_the_record_of_figures_run_shows_every_figure_with_a_stored_run(sandbox):
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0, 0.9]}))
    sandbox.add_figure("covered-fig", figure_document(title="Covered by test-fig's points", axes={"theta": [0.9]}))
    assert main(sandbox.cli_arguments("run", "test-fig", "--profile", "quick", "--quiet")) == 0
    (sandbox.workspace.results_dir / "figures-run" / "quick.json").unlink()     # runs stored before the record
    assert main(sandbox.cli_arguments("report", "--profile", "quick")) == 0
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    assert "Covered by test-fig's points" in report and "`test-fig`" in report


def test_the_top_line_says_what_the_verdicts_mean_here(sandbox):
    needs = ratio_claim("needs-cores", 1.0, check="conditional", condition="needs 16 cores",
                        requires_hw_threads=4096)
    sandbox.add_figure("test-fig", figure_document(axes={"theta": [0.0]}, claims=[CLAIMS[0], needs]))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "quick", "--quiet")) == 0
    report = (sandbox.workspace.images_dir("quick") / "REPORT.md").read_text()
    top = report.split("\n")[2]
    assert top.startswith("**What this means here.** This machine has ")
    assert "1 of test-fig's 2 claims need 4096 hardware threads" in top
    assert "docs/reproduction.md" in top and "ccbench list" in top


def test_the_intervals_go_to_the_claims_csv_not_the_report(sandbox):
    noisy = {"workload": "ycsb", "threads": 1, "table_size": 1000, "noise": 0.1}
    sandbox.add_figure("test-fig", figure_document(base=noisy, axes={"theta": [0.0, 0.5, 0.9]},
                                                   claims=[ratio_claim("beats", 1.2)]))
    assert main(sandbox.cli_arguments("figures", "test-fig", "--profile", "repeated", "--quiet")) == 0
    report = (sandbox.workspace.images_dir("repeated") / "REPORT.md").read_text()
    assert "95% intervals" not in report
    assert "3 interval(s) and the whole text: `test-fig.claims.csv` in results/tables/repeated/" in report
    rows = pd.read_csv(sandbox.workspace.tables_dir("repeated") / "test-fig.claims.csv")
    assert list(rows["label"]) == ["theta=0.0", "theta=0.5", "theta=0.9"]
    assert (rows["low"] <= rows["estimate"]).all() and (rows["estimate"] <= rows["high"]).all()
