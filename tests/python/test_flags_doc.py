"""docs/flags.md is generated from the programs' own option tables (`ccbench flags-doc`): the committed page
is what the built programs print, and a help text changed without regenerating makes it stale."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccbench.cli import main
from ccbench.fileio import REPOSITORY_ROOT
from ccbench.report import flags_doc
from ccbench.specification import registry

HELP = """{name}: a stand-in.

  --threads (int32, default 1)
      number of worker threads; allowed: an integer in [1, 1024]
  --theta (double, default 0.59999999999999998)
      Zipf skew
      of key choice; allowed: a number in [0, 10]
  --frontend (string, default none)
      front-end
  --out (string, default "")
      path of the JSON result
{own}
exit codes: 0 ok
"""
SCHEMA = {"engine_flags": {"properties": {"threads": {"type": "integer"},
                                          "frontend": {"enum": ["none", "strife"]}}},
          "ycsb_flags": {"properties": {"theta": {"type": "number"}}},
          "micro_flags": {"properties": {"theta": {"type": "number"}}}}


def fake_program(path: Path, help_text: str, schema: dict) -> None:
    """A program that prints its --help and --config_schema as the built ones do."""
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / f"{path.name}.help").write_text(help_text)
    (path.parent / f"{path.name}.schema").write_text(json.dumps(schema))
    path.write_text(f'#!/bin/sh\ncase "$1" in --help) cat "{path}.help";; --config_schema) cat "{path}.schema";; '
                    f'*) exit 2;; esac\n')
    path.chmod(0o755)


def fake_bin(root: Path, threads_help: str = "number of worker threads") -> Path:
    protocols = list(registry.protocols())
    for cc in protocols:
        own = "  --mocc_decay_ms (uint32, default 1000)\n      halving period; allowed: milliseconds in [40, 3600000]\n" \
            if cc == "mocc" else ""
        schema = {**SCHEMA, "mocc_flags": {"properties": {"mocc_decay_ms": {}}}} if cc == "mocc" else SCHEMA
        fake_program(root / f"rundb-{cc}", HELP.format(name=cc, own=own).replace("number of worker threads",
                                                                                 threads_help), schema)
    fake_program(root / "sim" / f"rundb-{flags_doc.SIM_PROTOCOL}",
                 HELP.format(name="sim", own="  --sim_physical_cores (int32, default 16)\n      cores\n"), SCHEMA)
    for name in flags_doc.OTHER_PROGRAMS:
        fake_program(root / name, HELP.format(name=name, own=""), {})
    return root


def test_the_committed_docs_flags_md_is_what_the_built_programs_print():
    committed = (REPOSITORY_ROOT / "docs" / "flags.md").read_text(encoding="utf-8")
    stale, skipped = flags_doc.stale_sections(REPOSITORY_ROOT / "bin", committed)
    if len(skipped) == len(flags_doc.SECTIONS):
        pytest.skip(f"no program of docs/flags.md is built here (make build tools pipeline middletier): {skipped[0]}")
    assert not stale, f"docs/flags.md is out of date in {', '.join(stale)}: run `{flags_doc.REGENERATE}`"


def test_a_help_text_changed_without_regenerating_makes_the_page_stale(tmp_path):
    page = flags_doc.markdown(fake_bin(tmp_path / "before"))
    assert flags_doc.stale_sections(tmp_path / "before", page) == ([], [])
    changed = fake_bin(tmp_path / "after", threads_help="worker threads")
    stale, _ = flags_doc.stale_sections(changed, page)
    assert stale == ["## `bin/rundb-<cc>`: the engine"]      # the other programs' help is unchanged
    assert flags_doc.stale_sections(tmp_path / "before", page.replace("# Flags", "# Flags!"))[0] == ["(the header)"]


def test_the_page_groups_each_programs_flags_by_table_with_type_default_range_and_help(tmp_path, capsys):
    assert main(["flags-doc", "--bin", str(fake_bin(tmp_path))]) == 0
    page = capsys.readouterr().out
    engine = page.split("## `bin/sim/")[0]
    assert "| `--threads` | int32 | 1 | an integer in [1, 1024] | number of worker threads |" in page
    # a shared flag under each table that echoes it; help over two lines joined; the shortest default
    assert engine.count("| `--theta` | double | 0.6 | a number in [0, 10] | Zipf skew of key choice |") == 2
    assert "| `--frontend` | string | none | one of none, strife | front-end |" in page
    assert "### `mocc_flags` (`bin/rundb-mocc` only)" in page
    assert "| `--sim_physical_cores` | int32 | 16 | any | cores |" in page
    assert "### flags no table echoes in `config`" in page and '| `--out` | string | "" | any |' in page


def test_a_program_not_built_is_named(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["flags-doc", "--bin", str(tmp_path / "empty")]) == 2
    assert f"flags-doc: {tmp_path / 'empty'}/rundb-" in capsys.readouterr().err
