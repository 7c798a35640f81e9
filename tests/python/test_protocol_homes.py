"""A protocol's home is its folder engine/cc/<name>/ (docs/protocols.md,
"Index"): the registry (engine/cc/protocols.txt) is the index, and every
registered protocol has its header and its README there; no other folder
sits under engine/cc/, and docs/protocols.md keeps no protocol's own section.
The result schema describes the flags each home declares, and names only
registered protocols.
"""
from __future__ import annotations

import json
import re
import shutil

from ccbench.fileio import REPOSITORY_ROOT
from ccbench.specification import registry
from ccbench.specification.result_fields import RESULT_SCHEMA


def test_every_registered_protocol_has_its_home():
    assert registry.home_problems() == []


def test_docs_protocols_md_has_no_protocol_section_of_its_own():
    # A protocol's section lives in its README; a heading here naming one
    # protocol's header means a section was written in the old place.
    text = (REPOSITORY_ROOT / "docs" / "protocols.md").read_text(encoding="utf-8")
    headers = {f"engine/cc/{name}/{name}.h" for name in registry.protocols()}
    cited = [line for line in text.splitlines()
             if line.startswith("#") and any(h in line for h in headers)]
    assert cited == []


def _registry_copy(tmp_path, names):
    """A tree with engine/cc/protocols.txt registering `names`, each with a complete home."""
    cc = tmp_path / "engine" / "cc"
    cc.mkdir(parents=True)
    shutil.copy(REPOSITORY_ROOT / "engine" / "cc" / "protocols.txt", cc / "protocols.txt")
    lines = (cc / "protocols.txt").read_text().splitlines()
    kept = [line for line in lines if not re.match(r"[a-z]", line) or line.split()[0] in names]
    (cc / "protocols.txt").write_text("\n".join(kept) + "\n")
    for name in names:
        (cc / name).mkdir()
        (cc / name / f"{name}.h").write_text("#pragma once\n")
        (cc / name / "README.md").write_text(f"# {name} (`engine/cc/{name}/{name}.h`)\n")
    return cc


def test_a_complete_tree_passes(tmp_path):
    _registry_copy(tmp_path, ["nowait", "silo"])
    assert registry.home_problems(tmp_path) == []


def test_a_missing_readme_a_stray_header_and_an_unregistered_folder_are_named(tmp_path):
    cc = _registry_copy(tmp_path, ["nowait", "silo"])
    (cc / "silo" / "README.md").unlink()
    (cc / "nowait.h").write_text("#pragma once\n")
    (cc / "orphan").mkdir()
    (cc / "nowait" / "README.md").write_text("# NoWait\n")
    assert registry.home_problems(tmp_path) == [
        "nowait: engine/cc/nowait.h is outside its home engine/cc/nowait/",
        "nowait: engine/cc/nowait/README.md does not open with a '# ' title naming `engine/cc/nowait/nowait.h`",
        "silo: no engine/cc/silo/README.md",
        "engine/cc/orphan/ is no registered protocol's home (engine/cc/protocols.txt)",
    ]


def _schema_defs() -> dict:
    return json.loads(RESULT_SCHEMA.read_text(encoding="utf-8"))["$defs"]


def _by_cc(entries: list, where) -> dict[str, str]:
    """cc -> the $defs entry an allOf of if/then lines refers to, `where(if)` giving the cc condition."""
    found = {}
    for entry in entries:
        cc = where(entry["if"])
        if cc is None:
            continue
        names = [cc["const"]] if "const" in cc else cc["enum"]
        ref = json.dumps(entry.get("then", {}))
        target = re.search(r"#/\$defs/(\w+)", ref)
        for name in names:
            found[name] = target.group(1) if target else None
    return found


def test_each_protocols_own_flags_are_the_schemas():
    # A protocol's flags are declared in its home (an options table of
    # engine/cc/<name>/*.cpp, named "<table>"); the result schema must
    # describe exactly those: $defs/<table> and the protocol's line in
    # $defs/protocol_options, and no line for a protocol without a table.
    declared = {}
    for name in registry.protocols():
        for source in sorted((REPOSITORY_ROOT / "engine" / "cc" / name).glob("*.cpp")):
            for table in re.findall(r'::flags\{"(\w+)"', source.read_text(encoding="utf-8")):
                declared[name] = table
    defs = _schema_defs()
    lines = _by_cc(defs["protocol_options"]["allOf"], lambda cond: cond["properties"].get("cc"))
    assert lines == declared
    assert all(table in defs for table in declared.values())


def test_the_schemas_cc_stats_name_registered_protocols_only():
    defs = _schema_defs()
    lines = _by_cc(defs["cc_stats"]["allOf"], lambda cond: cond["properties"]["config"]["properties"].get("cc"))
    assert set(lines) <= set(registry.protocols())
