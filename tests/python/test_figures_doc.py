"""docs/figures.md is generated from the figure configs (`ccbench list --markdown`): the committed file is
what the configs give, and the rendering carries every part of a figure's specification."""
from __future__ import annotations

from ccbench.cli import main
from ccbench.fileio import REPOSITORY_ROOT
from conftest import figure_document

REGENERATE = ".venv/bin/ccbench list --markdown > docs/figures.md"


def test_the_committed_docs_figures_md_is_what_the_configs_give(capsys):
    assert main(["list", "--markdown"]) == 0
    generated = capsys.readouterr().out
    committed = (REPOSITORY_ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    assert generated == committed, f"docs/figures.md is out of date with configs/figures/: run `{REGENERATE}`"


def test_every_part_of_a_figure_is_rendered(sandbox, capsys):
    document = figure_document(source="Testbed §1, Fig. 7")
    document["claims"][1]["inferred"] = True
    document["claims"][2].update(check="conditional", condition="32 hardware threads")
    sandbox.add_figure("test-fig", document, paper="somepaper")
    assert main(sandbox.cli_arguments("list", "--markdown")) == 0
    text = capsys.readouterr().out
    assert "## somepaper" in text
    assert "### `test-fig`: Test figure: throughput vs theta" in text
    assert "- Paper: somepaper; source: Testbed §1, Fig. 7" in text
    assert "- Plot: line, throughput against theta; swept: theta ∈ {0.0, 0.5, 0.9}" in text
    assert "- `silo` (Silo): cc=silo" in text and "- `occ` (OCC): cc=occ" in text
    assert "- **[INF]** `table_size`: chosen for the test" in text
    assert "| `silo-beats-occ` | ratio | trend | Silo beats OCC by 20% |" in text
    assert "| `falls` | monotone | trend | **[INF]** throughput falls with skew |" in text
    assert "| `absolute` | value | conditional (32 hardware threads) | 1G txn/s on the authors' machine |" in text


def test_an_invalid_config_fails_the_generation_with_its_error(sandbox, capsys):
    sandbox.add_figure("broken", figure_document(plot={"kind": "pie", "x": "theta", "y": "throughput"}))
    assert main(sandbox.cli_arguments("list", "--markdown")) == 2
    captured = capsys.readouterr()
    assert "plot.kind: 'pie' is not allowed" in captured.err and captured.out == ""
