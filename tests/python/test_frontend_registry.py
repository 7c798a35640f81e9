"""The front-end registry (partitioners/frontends.txt) and the result schema
agree: the schema's --frontend enum ($defs/engine_flags, which the contract
test compares with `bin/rundb-<cc> --config_schema`) lists the registered
names in registry order, $defs/online_frontend_name the online executor's,
and $defs/bundle_frontend_name (derived from the two) every other. The
registry's reader refuses a malformed line, naming it."""
from __future__ import annotations

import json
import re

import jsonschema
import pytest

from ccbench.specification import registry
from ccbench.specification.result_fields import RESULT_SCHEMA


def _defs() -> dict:
    return json.loads(RESULT_SCHEMA.read_text())


def _valid(schema: dict, entry: str, value: str) -> bool:
    root = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{entry}"}
    return jsonschema.Draft202012Validator(root).is_valid(value)


def test_the_schema_enum_is_the_registry_in_its_order():
    # Fails when a front-end is registered (or dropped) without the schema's enum.
    names = list(registry.frontends())
    assert names[0] == "none"  # --frontend's default
    assert _defs()["$defs"]["engine_flags"]["properties"]["frontend"] == {"enum": names}


def test_online_and_bundle_names_split_the_registry_by_executor():
    schema = _defs()
    frontends = registry.frontends().values()
    online = [f.name for f in frontends if not f.bundle]
    assert schema["$defs"]["online_frontend_name"]["enum"] == online
    for f in frontends:
        assert _valid(schema, "bundle_frontend_name", f.name) == f.bundle, f.name
        assert _valid(schema, "online_frontend_name", f.name) == (not f.bundle), f.name
    assert not _valid(schema, "bundle_frontend_name", "fifo-not-registered")


def test_every_bundle_front_end_refuses_owner_threads_and_every_line_has_help():
    for f in registry.frontends().values():
        assert f.help, f.name
        assert not (f.bundle and f.owner_threads), f.name


def test_a_malformed_line_is_refused_naming_it(tmp_path):
    (tmp_path / "partitioners").mkdir()
    (tmp_path / "partitioners" / "frontends.txt").write_text(
        "# comment\nnone | online | yes | - | - | - | - | plain\nfifo | sideways | no | - | h | f | l | help\n")
    with pytest.raises(ValueError, match=re.escape("fifo: the executor field is 'sideways'; allowed: online|bundle")):
        registry.frontends(tmp_path)
    (tmp_path / "partitioners" / "frontends.txt").write_text("fifo | bundle | no | - | h | f\n")
    with pytest.raises(ValueError, match=re.escape("'fifo | bundle | no | - | h | f' needs 8 fields")):
        registry.frontends(tmp_path)
