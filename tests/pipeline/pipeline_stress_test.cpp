// Stress tests of the pipeline engine: whole runs (every component thread,
// more threads than cores) under contention, self-checked by the engine's
// invariants (no transaction lost or committed twice, every object holding
// its last committed write, SmallBank's money conservation) and by the
// serializability checker on the recorded commit order (--verify). The
// planted bug of Mutation::kReverseCommitOrder must be caught.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "systems/pipeline/engine.h"
#include "engine/verify/checker.h"

namespace ccb::pipeline {
namespace {

PipelineOptions options(Mode mode, uint32_t reorder_workers = 4) {
  PipelineOptions o;
  o.mode = mode;
  o.reorder_workers = reorder_workers;
  o.concurrency = 100;
  o.warmup_s = 0.05;
  o.duration_s = 0.25;
  o.verify = true;
  return o;
}

MicroOptions hot_micro() {
  MicroOptions m;
  m.objects = 20;  // every pair of transactions (9 distinct keys each) shares keys: conflicts, restarts, FVSs
  m.key_skew.theta = 0.9;
  return m;
}

template <class P>
verify::CheckResult run_checked(const PipelineOptions& o, P& procedure, PipelineResult* out = nullptr) {
  Engine<P> engine(o, procedure);
  PipelineResult r = engine.run();
  for (const InvariantResult& inv : r.invariants) EXPECT_TRUE(inv.ok) << inv.name << ": " << inv.detail;
  EXPECT_GT(r.validator_commits, 0u);
  EXPECT_EQ(r.history.txn_count(), r.validator_commits);
  std::vector<verify::HistoryLog> logs{r.history};
  const verify::History h = verify::HistoryLog::merge(logs);
  auto check = verify::check_serializable(h);
  if (out) *out = std::move(r);
  return check;
}

class EveryMode : public ::testing::TestWithParam<Mode> {};

TEST_P(EveryMode, MicroCommitOrderIsSerializable) {
  MicroProcedure micro(hot_micro());
  PipelineResult r;
  const auto check = run_checked(options(GetParam()), micro, &r);
  EXPECT_TRUE(check.serializable) << check.violation.message;
  EXPECT_GT(r.all_aborts, 0u) << "the workload is meant to be contended";
}

TEST_P(EveryMode, SmallBankConservesMoneyAndIsSerializable) {
  SmallBankOptions sb;
  sb.customers = 20;
  sb.key_skew.theta = 0.9;
  SmallBankProcedure smallbank(sb);
  const auto check = run_checked(options(GetParam()), smallbank);
  EXPECT_TRUE(check.serializable) << check.violation.message;
}

INSTANTIATE_TEST_SUITE_P(Modes, EveryMode,
                         ::testing::Values(Mode::kBase, Mode::kBatch, Mode::kSr, Mode::kVc, Mode::kSrvc),
                         [](const auto& info) { return std::string(mode_name(info.param)); });

class ReorderWorkers : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ReorderWorkers, ParallelValidatorIsSerializable) {
  MicroProcedure micro(hot_micro());
  PipelineResult r;
  const auto check = run_checked(options(Mode::kSrvc, GetParam()), micro, &r);
  EXPECT_TRUE(check.serializable) << check.violation.message;
  EXPECT_EQ(r.reorder_busy_ns.size(), GetParam());
  EXPECT_GT(r.reorder.batches, 0u);
}

INSTANTIATE_TEST_SUITE_P(Workers, ReorderWorkers, ::testing::Values(1u, 2u, 3u, 4u));

TEST(Mutation, ReversedCommitOrderIsCaught) {
  // Committing each reordered batch against its topological order, without
  // the in-batch overwrite check, commits transactions whose read was
  // overwritten inside the batch: the history must not be serializable.
  MicroProcedure micro(hot_micro());
  PipelineOptions o = options(Mode::kVc);
  o.mutation = Mutation::kReverseCommitOrder;
  Engine<MicroProcedure> engine(o, micro);
  PipelineResult r = engine.run();
  std::vector<verify::HistoryLog> logs{r.history};
  const auto check = verify::check_serializable(verify::HistoryLog::merge(logs));
  EXPECT_FALSE(check.serializable);
}

}  // namespace
}  // namespace ccb::pipeline
