// Helpers shared by the workload tests: run one request as a transaction from
// the test thread, compare a request's predicted access set with the rows the
// procedure really touched, and run a workload multi-threaded with history
// recording (the self-checking stress pattern of tests/engine/stress_test.cpp).
#pragma once

#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/config.h"
#include "engine/exec/online_executor.h"
#include "engine/verify/checker.h"
#include "engine/workload.h"
#include "tests/support/invariants.h"
#include "tests/support/verified_run.h"

namespace ccb::testing {

// begin / run / commit (or abort) / on_commit, as the executor does for one
// attempt. Returns the attempt's outcome.
template <class CC, class W>
RC run_once(W& w, Txn<CC>& txn, const typename W::Request& r, typename W::ThreadState& ts) {
  txn.begin();
  RC rc = w.run(txn, r);
  if (rc == RC::kOk) rc = txn.commit();
  else txn.abort();
  if (rc == RC::kOk) w.on_commit(ts, r);
  return rc;
}

// The rows the last attempt of `txn` touched, as (sorted) global keys.
template <class CC>
void actual_access_set(Txn<CC>& txn, std::vector<GlobalKey>& reads, std::vector<GlobalKey>& writes) {
  reads.clear();
  writes.clear();
  for (const auto& a : txn.accesses())
    (a.is_write() ? writes : reads).push_back(make_global_key(a.table->id(), a.key));
  std::sort(reads.begin(), reads.end());
  std::sort(writes.begin(), writes.end());
}

// Runs `r` and checks that a committed attempt touched exactly the predicted
// read and write sets, and a rolled-back one no row outside them.
template <class CC, class W>
void expect_describe_matches(W& w, Txn<CC>& txn, const typename W::Request& r, typename W::ThreadState& ts) {
  TxnDesc d = w.describe(r);
  std::sort(d.read_set.begin(), d.read_set.end());
  std::sort(d.write_set.begin(), d.write_set.end());
  EXPECT_EQ(d.type, r.type);
  const RC rc = run_once<CC>(w, txn, r, ts);
  std::vector<GlobalKey> reads, writes;
  actual_access_set(txn, reads, writes);
  if (rc == RC::kOk) {
    EXPECT_EQ(reads, d.read_set) << "type " << r.type;
    EXPECT_EQ(writes, d.write_set) << "type " << r.type;
  } else {
    ASSERT_EQ(rc, RC::kUser);
    for (GlobalKey k : reads) EXPECT_TRUE(std::binary_search(d.read_set.begin(), d.read_set.end(), k));
    for (GlobalKey k : writes) EXPECT_TRUE(std::binary_search(d.write_set.begin(), d.write_set.end(), k));
  }
}

// `fn()` must throw ConfigError naming `flag`.
template <class Fn>
void expect_config_error(Fn fn, const std::string& flag) {
  try {
    fn();
    ADD_FAILURE() << "no ConfigError for --" << flag;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, flag) << e.what();
  }
}

// Runs `w` (loaded) on `threads` workers for `seconds` under CC with the
// history recorded; checks that something committed, every invariant holds and
// the history is serializable.
template <class CC, class W>
void stress_and_verify(W& w, int threads, double seconds, uint64_t seed = 7) {
  CC cc;
  const auto r = test_support::run_verified(cc, w, {.threads = threads, .seconds = seconds, .seed = seed});
  EXPECT_GT(r.commits, 50u);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_GE(r.recorded_txns, r.commits);
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
}

}  // namespace ccb::testing
