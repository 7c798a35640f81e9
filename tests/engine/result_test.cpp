// The result document's assembly (engine/stats/result.h): the commit summary's
// arithmetic at its edges, the exit code of every failed check, and the
// sections a RunReport adds only when it has them. Field names and types are
// checked against docs/result.schema.json by the contract tests.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/core/json.h"
#include "rundb/result.h"
#include "engine/stats/thread_stats.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/checker.h"
#include "engine/workload.h"

namespace ccb {
namespace {

std::string summary(uint64_t commits, uint64_t aborts, double measured_s) {
  JsonWriter w;
  w.begin_object();
  write_commit_summary(w, commits, aborts, measured_s);
  w.end_object();
  return w.str();
}

TEST(CommitSummary, ThroughputAndAbortRate) {
  const std::string doc = summary(3, 1, 2.0);
  EXPECT_NE(doc.find("\"throughput\": 1.5"), std::string::npos) << doc;
  EXPECT_NE(doc.find("\"abort_rate\": 0.25"), std::string::npos) << doc;
}

TEST(CommitSummary, NoAttemptsAndNoIntervalAreZeroNotNull) {
  const std::string doc = summary(0, 0, 0.0);
  EXPECT_NE(doc.find("\"throughput\": 0,"), std::string::npos) << doc;
  EXPECT_NE(doc.find("\"abort_rate\": 0\n"), std::string::npos) << doc;
  EXPECT_EQ(doc.find("null"), std::string::npos) << doc;
}

TEST(CorrectnessExitCode, EveryFailedCheckIsThree) {
  const std::vector<InvariantResult> held{{"sum", true, "1 = 1"}}, broken{{"sum", false, "1 != 2"}};
  verify::CheckResult serializable, not_serializable;
  not_serializable.serializable = false;
  verify::CfCheckResult cc_free, conflict;
  conflict.ok = false;
  EXPECT_EQ(correctness_exit_code(held, nullptr), 0);
  EXPECT_EQ(correctness_exit_code(held, &serializable, &cc_free), 0);
  EXPECT_EQ(correctness_exit_code(broken, nullptr), 3);
  EXPECT_EQ(correctness_exit_code(held, &not_serializable), 3);
  EXPECT_EQ(correctness_exit_code(held, &serializable, &conflict), 3);
}

class RundbDocument : public ::testing::Test {
 protected:
  std::string document(const verify::CheckResult* check, const verify::CfCheckResult* cc_free, JsonMembers cc_stats) {
    return rundb_result_json(RunReport{.cfg = cfg_,
                                       .cc = "test",
                                       .workload_options = [](JsonWriter& w) { w.key("knob").value(1); },
                                       .cc_stats = std::move(cc_stats),
                                       .txn_types = {"only"},
                                       .stats = stats_,
                                       .measured_s = 1.0,
                                       .worker_cpus = cpus_,
                                       .frontend_json = {},  // the online executor's frontend object
                                       .invariants = invariants_,
                                       .check = check,
                                       .cc_free_check = cc_free});
  }
  static bool has(const std::string& doc, const std::string& key) {  // at any depth
    return doc.find("\"" + key + "\":") != std::string::npos;
  }
  static bool has_section(const std::string& doc, const std::string& key) {  // a member of the document itself
    return doc.find("\n  \"" + key + "\":") != std::string::npos;
  }

  EngineConfig cfg_;
  ThreadStats stats_{1};
  std::vector<int> cpus_;
  std::vector<InvariantResult> invariants_{{"sum", true, "0 = 0"}};
};

TEST_F(RundbDocument, OptionalSectionsOnlyWhenTheReportHasThem) {
  const std::string plain = document(nullptr, nullptr, nullptr);
  for (const char* key : {"compile", "knob", "only"}) EXPECT_TRUE(has(plain, key)) << key << " in " << plain;
  for (const char* key : {"config", "per_txn_type", "frontend", "invariants_ok"})
    EXPECT_TRUE(has_section(plain, key)) << key << " in " << plain;
  for (const char* key : {"cc_stats", "verify", "serializable", "violation", "cc_free_check", "memory_bound"})
    EXPECT_FALSE(has_section(plain, key)) << key << " in " << plain;
  EXPECT_FALSE(has(plain, "verify_s")) << plain;

  verify::CheckResult check;
  verify::CfCheckResult cc_free;
  const std::string full = document(&check, &cc_free, [](JsonWriter& w) { w.key("counter").value(7); });
  for (const char* key : {"cc_stats", "verify", "serializable", "violation", "cc_free_check"})
    EXPECT_TRUE(has_section(full, key)) << key << " in " << full;
  EXPECT_TRUE(has(full, "counter") && has(full, "verify_s")) << full;
}

}  // namespace
}  // namespace ccb
