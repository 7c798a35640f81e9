"""docs/result.schema.json, the one definition of the result documents: it is
a valid draft 2020-12 schema, the fake engine's documents match it, and the
harness's reader refuses a document that does not, naming the field.

The binaries' own documents are validated by the contract tests
(tests/engine/cli_test.sh, tests/pipeline/cli_test.sh)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import jsonschema
import pytest

from ccbench.run.engine import STATUS_FAILED, STATUS_OK, Task, _read_result, execute_task
from ccbench.specification.programs import PROGRAMS
from ccbench.specification.result_fields import RESULT_SCHEMA, result_schema
from conftest import FAKE_ENGINE

PROGRAMS_WITH_SCHEMA = [name for name, program in PROGRAMS.items() if program.result_schema]


def fake_document(*flags: str) -> dict:
    # --duration in (0, 86400], as the engine accepts it (the schema says so): a millisecond
    done = subprocess.run([sys.executable, str(FAKE_ENGINE), "--duration=0.001", *flags], capture_output=True, text=True,
                          check=True, timeout=60)
    return json.loads(done.stdout)


def problem_of(document: dict) -> str | None:
    _, problem = _read_result(PROGRAMS["rundb"], json.dumps(document), None)
    return problem


def test_the_schema_is_a_valid_draft_2020_12_schema_with_an_entry_per_program():
    schema = json.loads(RESULT_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$ref"] == "#/$defs/rundb"
    assert set(PROGRAMS_WITH_SCHEMA) == {"rundb", "pipeline", "middletier"}
    for name in PROGRAMS_WITH_SCHEMA:
        assert PROGRAMS[name].result_schema in schema["$defs"]
        jsonschema.Draft202012Validator(result_schema(PROGRAMS[name].result_schema))   # its $refs resolve


@pytest.mark.parametrize("flags", [("--cc=silo",), ("--cc=occ", "--verify=true"), ("--cc=tictoc", "--threads=4"),
                                   ("--cc=nowait", "--theta=0.99", "--partitions=4", "--seed=7")])
def test_the_fake_engine_writes_documents_that_match_the_schema(flags):
    document = fake_document(*flags)
    jsonschema.Draft202012Validator(result_schema("rundb")).validate(document)
    assert problem_of(document) is None


# A writer drifting from the schema: (what changed, the change, the field the reader must name).
def _rename_p99(d):
    d["latency_us"]["p99_us"] = d["latency_us"].pop("p99")


def _commits_as_text(d):
    d["commits"] = str(d["commits"])


def _stray_top_level_field(d):
    d["abort_percent"] = 1.0


def _another_workloads_knob(d):
    d["config"]["warehouses"] = 4


def _section_without_its_flag(d):
    d["timeline"] = [1, 2, 3]


def _verify_without_its_sections(d):
    d["config"]["verify"] = True


def _renamed_abort_reason(d):
    d["aborts_by_reason"]["conflict"] = d["aborts_by_reason"].pop("lock_conflict")


def _unknown_transaction_type(d):
    d["per_txn_type"]["NewOrder"] = d["per_txn_type"]["ycsb"]


def _protocol_stats_missing(d):
    del d["cc_stats"]


def _wrong_sanitizer(d):
    d["config"]["compile"]["sanitize"] = "memory"


DRIFTS = [
    (_rename_p99, "latency_us.p99"),
    (_commits_as_text, "commits"),
    (_stray_top_level_field, "abort_percent"),
    (_another_workloads_knob, "warehouses"),
    (_section_without_its_flag, "timeline: not allowed here"),
    (_verify_without_its_sections, "missing required field 'serializable'"),
    (_renamed_abort_reason, "aborts_by_reason.conflict"),
    (_unknown_transaction_type, "NewOrder"),
    (_protocol_stats_missing, "missing required field 'cc_stats'"),
    (_wrong_sanitizer, "config.compile.sanitize"),
]


@pytest.mark.parametrize("drift, named", DRIFTS, ids=[drift.__name__.strip("_") for drift, _ in DRIFTS])
def test_the_reader_refuses_a_document_off_the_schema_naming_the_field(drift, named):
    document = fake_document("--cc=silo")
    assert problem_of(document) is None
    changed = copy.deepcopy(document)
    drift(changed)
    problem = problem_of(changed)
    assert problem is not None and problem.startswith("the result JSON does not match docs/result.schema.json")
    assert named in problem, problem


def test_a_run_whose_document_is_off_the_schema_fails_with_the_field_named(tmp_path):
    command = (sys.executable, str(FAKE_ENGINE), "--cc=occ", "--duration=0.001")
    records = {behaviour: execute_task(Task(key=behaviour, program="rundb", cc="occ", timeout_s=60, threads=1,
                                            template="fake", command=(*command, f"--misbehave={behaviour}")))
               for behaviour in ("none", "offschema")}
    assert records["none"]["status"] == STATUS_OK, records["none"]["failure"]
    failed = records["offschema"]
    assert failed["status"] == STATUS_FAILED
    assert "latency_us.p99_us: unknown field" in failed["failure"] and "missing required field 'p99'" in failed["failure"]
    assert failed["result"]["latency_us"]["p99_us"] > 0   # the document is kept with the record, for inspection
