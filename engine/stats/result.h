// The result document of a run: one JSON object per run, the only thing the
// harness reads (README.md, design property 4). Its fields, their types and which
// are required are defined once, in docs/result.schema.json (docs/results.md
// says what each metric means); the contract tests validate every binary's
// document against that schema.
//
// Here: the parts every program's document shares (the commit summary,
// latency_us, the correctness fields, the atomic write). Each program
// assembles its own document from them: bin/rundb-<cc> in rundb/result.h,
// bin/pipeline and bin/middletier in their mains (systems/).
//
// Thread safety: none needed; a document is assembled once, after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ccb {

class JsonWriter;
class LatencyHistogram;
struct InvariantResult;
namespace verify {
struct CfCheckResult;
struct CheckResult;
}  // namespace verify

// Writes members into the object that is open in the writer.
using JsonMembers = std::function<void(JsonWriter&)>;

// The parts the three documents share.

// throughput (commits per measured second), commits, aborts and abort_rate
// (aborts / (aborts + commits)), as docs/results.md defines them.
void write_commit_summary(JsonWriter& w, uint64_t commits, uint64_t aborts, double measured_s);

// latency_us: avg, p50, p90, p95, p99, p999, max in microseconds.
void write_latency_us(JsonWriter& w, const LatencyHistogram& h);

// invariants_ok and invariants; with --verify (check != nullptr) serializable,
// violation and verify.
void write_correctness(JsonWriter& w, const std::vector<InvariantResult>& invariants,
                       const verify::CheckResult* check);

// The exit code of a run whose measured interval committed nothing (rundb/run.h:
// no result is written).
inline constexpr int kExitNoCommits = 4;

// Exit code 3, with one line on stderr per failed check, if an invariant is
// broken, the history (with --verify) is not serializable, or the bundle
// executor's CC-free queues conflicted; else 0.
int correctness_exit_code(const std::vector<InvariantResult>& invariants, const verify::CheckResult* check,
                          const verify::CfCheckResult* cc_free_check = nullptr);

// Writes `doc` to `path` atomically (temporary file + rename, so a reader
// never sees half a document), or to stdout when `path` is empty.
void write_result_document(const std::string& path, const std::string& doc);

}  // namespace ccb
