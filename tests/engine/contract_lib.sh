# Sourced by the rundb contract tests (cli_test.sh, profile_test.sh) with the
# binary as $1: sets bin, name, tmp (removed on exit), root, py (a Python with
# the harness's packages: CCB_PYTHON, default the repository's .venv made by
# `make deps`), fail, match_schema (the documents read as the harness reads
# them, scripts/ccbench/run/engine.py: against docs/result.schema.json, naming the
# field that does not match), and the protocol's properties from its registry
# line (engine/cc/protocols.txt, scripts/ccbench/specification/registry.py):
#   serializable      false: not serializable by design (NoCC, SI)
#   partitioned_only  true: refuses the workloads without partitions
#   bundle            false: refuses the bundle executor and --frontend=reorder
# and unpartitioned, the workloads without partitions (workloads/workloads.txt).
set -u
bin=$1
name=$(basename "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=${CCB_PYTHON:-$root/.venv/bin/python}
"$py" -c 'import jsonschema' 2>/dev/null || fail "no Python with jsonschema at $py (make deps creates .venv)"
match_schema() { PYTHONPATH="$root/scripts" "$py" -m ccbench.run.engine rundb "$@" || fail "result JSON off the schema"; }
props=$(PYTHONPATH="$root/scripts" "$py" -m ccbench.specification.registry protocol "${name#rundb-}") || fail "not a registered protocol: $name"
eval "$props"
unpartitioned=$(PYTHONPATH="$root/scripts" "$py" -m ccbench.specification.registry unpartitioned)
