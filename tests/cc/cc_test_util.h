// Shared pieces of the protocol tests of tests/cc/: a second thread for a call
// that may wait, the counter table of tests/support/counters.h, a bank
// workload with declared read-only audits (for BCC's snapshot transactions),
// and an in-process run with history checking.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/cc_helpers/message_locks.h"
#include "engine/txn/txn.h"
#include "engine/exec/online_executor.h"
#include "engine/core/json.h"
#include "engine/verify/checker.h"
#include "engine/workload.h"
#include "workloads/ycsb/ycsb.h"
#include "tests/support/counters.h"
#include "tests/support/verified_run.h"

namespace ccb::cc_test {

// Runs `fn` on another thread; `done()` tells whether it has returned.
class Async {
 public:
  explicit Async(std::function<void()> fn) : thread_([this, fn] {
    fn();
    done_ = true;
  }) {}
  ~Async() { join(); }
  bool done() const { return done_.load(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

using test_support::Counters;
using test_support::increment;
using test_support::read;

// A snapshot transaction `s` taken while counter `a_key` was `a` and
// `b_key` was 0 sees them so, and not the row `inserted` that was created
// after its snapshot.
template <class TxnT, class TableT>
void expect_snapshot_of_old_state(TxnT& s, TableT& table, uint64_t a_key, uint64_t a, uint64_t b_key,
                                  uint64_t inserted) {
  uint64_t v = 0;
  ASSERT_TRUE(read(s, table, a_key, &v));
  EXPECT_EQ(v, a);
  ASSERT_TRUE(read(s, table, b_key, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(read(s, table, inserted));
  EXPECT_EQ(s.failure(), RC::kNotFound);
}

// Transfers between accounts (read-modify-write of two rows) and audits that
// read every account and compare the total with the constant it must be. An
// audit is declared read-only, so BCC runs it on a snapshot: every attempt of
// it must see a consistent total (bad_audits stays 0), not only the committed
// ones.
struct BankRequest {
  uint32_t type = 0;  // 0 transfer, 1 audit
  uint32_t from = 0, to = 0;
  uint64_t amount = 0;
};

template <class CC>
class BankWorkload {
 public:
  static constexpr const char* kName = "bank";
  static constexpr uint64_t kInitial = 1000;
  using Request = BankRequest;
  struct ThreadState {
    uint64_t audits = 0;
  };

  BankWorkload(uint32_t accounts, double audit_ratio) : accounts_(accounts), audit_ratio_(audit_ratio) {}

  std::vector<std::string> txn_types() const { return {"transfer", "audit"}; }
  void load(int) {
    table_ = std::make_unique<Table<CC>>(0, "accounts", 8, accounts_, accounts_);
    for (uint64_t k = 0; k < accounts_; ++k) std::memcpy(table_->load(k, k), &kInitial, 8);
  }
  void generate(Random& rng, uint32_t, Request& r) const {
    r.type = rng.chance(audit_ratio_) ? 1 : 0;
    r.from = static_cast<uint32_t>(rng.below(accounts_));
    do r.to = static_cast<uint32_t>(rng.below(accounts_));
    while (r.to == r.from);
    r.amount = rng.between(1, 10);
  }
  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    if (r.type == 1) {
      uint64_t total = 0;
      for (uint64_t k = 0; k < accounts_; ++k) {
        const uint8_t* p = txn.read(*table_, k);
        if (p == nullptr) return txn.failure();
        uint64_t b;
        std::memcpy(&b, p, 8);
        total += b;
      }
      if (total != kInitial * accounts_) bad_audits.fetch_add(1, std::memory_order_relaxed);
      return RC::kOk;
    }
    uint8_t* from = txn.update(*table_, r.from);
    if (from == nullptr) return txn.failure();
    uint8_t* to = txn.update(*table_, r.to);
    if (to == nullptr) return txn.failure();
    uint64_t a, b;
    std::memcpy(&a, from, 8);
    std::memcpy(&b, to, 8);
    a -= r.amount;  // balances may go negative (wrap): the total is what is checked
    b += r.amount;
    std::memcpy(from, &a, 8);
    std::memcpy(to, &b, 8);
    return RC::kOk;
  }
  TxnDesc describe(const Request& r) const {
    TxnDesc d;
    d.type = r.type;
    if (r.type == 1) {
      for (uint64_t k = 0; k < accounts_; ++k) d.read_set.push_back(make_global_key(0, k));
    } else {
      d.write_set = {make_global_key(0, r.from), make_global_key(0, r.to)};
    }
    return d;
  }
  bool read_only(const Request& r) const { return r.type == 1; }
  Table<CC>* table_by_id(uint32_t id) { return id == 0 ? table_.get() : nullptr; }
  // One partition per account, for partition-level locking (PartCC).
  uint32_t partition_count(uint32_t) const { return accounts_; }
  uint32_t partition_of(GlobalKey k, uint32_t n) const { return static_cast<uint32_t>(local_key_of(k) % n); }
  void on_commit(ThreadState& s, const Request& r) const { s.audits += r.type; }
  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>&) {
    uint64_t total = 0;
    for (uint64_t k = 0; k < accounts_; ++k) {
      uint64_t b;
      std::memcpy(&b, table_->lookup(k)->data() + kVersionBytes, 8);
      total += b;
    }
    return {{"bank_total", total == kInitial * accounts_, "total " + std::to_string(total)}};
  }
  void options_json(JsonWriter&) const {}
  size_t memory_bytes() const { return table_ ? table_->memory_bytes() : 0; }
  MemoryEstimate memory_estimate() const { return {Table<CC>::bytes_for(8, accounts_, accounts_), "accounts"}; }

  std::atomic<uint64_t> bad_audits{0};

 private:
  uint32_t accounts_;
  double audit_ratio_;
  std::unique_ptr<Table<CC>> table_;
};

using RunResult = test_support::VerifiedRun;

// Runs `workload` (loaded) under CC with 4 workers and history recording.
template <class CC, class W>
RunResult run(CC& cc, W& workload, double seconds, uint64_t seed) {
  return test_support::run_verified(cc, workload, {.threads = 4, .seconds = seconds, .seed = seed});
}

using test_support::contended_ycsb;

// The first local key >= `from` of table 0 whose lock lives in partition `p`
// of `partitions` (message_locks.h's lock_partition: how an unbound
// lock-service protocol routes a key).
inline uint64_t key_in_partition(uint32_t p, uint32_t partitions, uint64_t from = 0) {
  for (uint64_t k = from;; ++k)
    if (lock_partition(make_global_key(0, k), partitions) == p) return k;
}

}  // namespace ccb::cc_test
