#!/usr/bin/env python3
"""The options tables' schema fragments (engine/core/options.h) are the
schema's $defs/<table>_flags, so a program's flags and its documented config
cannot drift apart (contract tier: tests/engine/cli_test.sh for
bin/rundb-<cc>, tests/pipeline/cli_test.sh for bin/pipeline).

usage: config_schema_check.py BINARY SCHEMA TABLE...
Runs BINARY --config_schema; each fragment it prints must equal SCHEMA's
$defs entry of that name, and each TABLE named must be among them. Exit 1
naming the first difference.
"""
import json
import subprocess
import sys

binary, schema, *tables = sys.argv[1:]
fragments = json.loads(subprocess.run([binary, "--config_schema"], capture_output=True, text=True, check=True).stdout)
defs = json.load(open(schema))["$defs"]
missing = set(tables) - set(fragments)
assert not missing, f"{binary} --config_schema lacks {sorted(missing)}: {sorted(fragments)}"
for name, fragment in fragments.items():
    assert defs.get(name) == fragment, f"$defs/{name} should be {json.dumps(fragment)}"
