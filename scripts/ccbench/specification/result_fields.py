"""Which fields a program's result document can have, read from its schema.

Also the documents' schema itself (`result_schema`) and the check of one
document against it (`schema_problem`), which the runner applies to every run.

A figure plots, tabulates and claims metrics by dotted field names
(`latency_us.p99`); each must be a field the program's document can carry
(docs/result.schema.json, the program's $defs entry) or a metric the harness
derives. crossfield.py checks that when a figure is loaded, so a misspelt metric
is refused (exit 2, naming the field of the figure) before any point runs;
after the runs, interface.check_metrics_reported checks that some run
actually reported it.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from ccbench.fileio import REPOSITORY_ROOT
from ccbench.specification.schema import validation_problems

RESULT_SCHEMA = REPOSITORY_ROOT / "docs" / "result.schema.json"
SCHEMA_PROBLEMS_SHOWN = 5     # a failure names this many schema mismatches, then counts the rest


@lru_cache(maxsize=None)
def result_schema(entry: str) -> dict:
    """The schema of one program's document: docs/result.schema.json's $defs[entry]."""
    schema = json.loads(RESULT_SCHEMA.read_text(encoding="utf-8"))
    if entry not in schema["$defs"]:
        raise KeyError(f"{RESULT_SCHEMA} has no $defs entry '{entry}'")
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{entry}"}


def schema_problem(document: dict, entry: str) -> str | None:
    """Why `document` does not match its schema, naming the fields; None when it does."""
    problems = validation_problems(document, result_schema(entry))
    if not problems:
        return None
    shown = "; ".join(f"{where or '(document)'}: {message}" for where, message in problems[:SCHEMA_PROBLEMS_SHOWN])
    more = len(problems) - SCHEMA_PROBLEMS_SHOWN
    return (f"the result JSON does not match {RESULT_SCHEMA.relative_to(REPOSITORY_ROOT)} ($defs/{entry}): {shown}"
            + (f" (+{more} more)" if more > 0 else ""))


def can_report(entry: str, metric: str) -> bool:
    """Whether a document of $defs[entry] can have the dotted field `metric`."""
    schema = result_schema(entry)
    return _has_path(schema, schema, metric.split("."))


def metric_origins(node: object, name: str, path: str = "") -> list[str]:
    """The fields of a figure document (outside the program's parameters) whose value names metric `name`."""
    if isinstance(node, dict):
        return [place for key, value in node.items() if key not in ("base", "axes", "params", "profiles")
                for place in metric_origins(value, name, f"{path}.{key}" if path else key)]
    if isinstance(node, list):
        return [place for index, value in enumerate(node) for place in metric_origins(value, name, f"{path}[{index}]")]
    return [path] if node == name else []


def _resolve(root: dict, node: object) -> object:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _branches(root: dict, node: object) -> list[dict]:
    """node and every schema it combines (allOf, anyOf, oneOf, if/then/else), resolved."""
    node = _resolve(root, node)
    if not isinstance(node, dict):
        return []
    found = [node]
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key, []):
            found += _branches(root, sub)
    for key in ("then", "else"):
        if key in node:
            found += _branches(root, node[key])
    return found


def _has_path(root: dict, node: object, parts: list[str]) -> bool:
    if not parts:
        return True
    head, rest = parts[0], parts[1:]
    branches = _branches(root, node)
    constrained = False  # some branch says which keys an object may have
    for branch in branches:
        properties = branch.get("properties", {})
        if head in properties and _has_path(root, properties[head], rest):
            return True
        for pattern, sub in branch.get("patternProperties", {}).items():
            if re.search(pattern, head) and _has_path(root, sub, rest):
                return True
        additional = branch.get("additionalProperties")
        if isinstance(additional, dict) and _has_path(root, additional, rest):
            return True
        if additional is True:
            return True
        constrained |= bool(properties) or "patternProperties" in branch or additional is False
    # An object schema that names no keys at all allows any: only what the
    # schema spells out is judged.
    return not constrained and any(branch.get("type") == "object" for branch in branches)
