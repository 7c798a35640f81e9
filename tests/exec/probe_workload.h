// ProbeWorkload<CC>: a workload for the bundle executor's tests. Request i of
// a batch (in generation order) increments the counters of the keys a layout
// function gives it; on_commit() stamps every commit with a global sequence
// number and the request's batch index, so a test can reconstruct which
// worker ran what, in which order, and which batch phase came first. With
// zero keys per request it is the empty-work plan of the overhead test.
// Optionally it reconnoiters (OLLP) and plants one wrong prediction, and
// calls a test's hooks inside each attempt.
//
// Thread safety: generate() runs on the executor's coordinator before the
// run; on_commit() from every worker (an atomic counter, per-worker state).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/random.h"
#include "engine/core/table.h"
#include "engine/core/txn_desc.h"
#include "engine/workload.h"

namespace ccb::test_support {

inline constexpr uint32_t kMaxProbeKeys = 4;

struct ProbeRequest {
  uint32_t type = 0;
  uint32_t index = 0;  // position in the batch
  uint32_t n = 0;
  uint32_t keys[kMaxProbeKeys] = {};
  uint32_t predicted = 0;  // reconnaissance (enable_reconnaissance): index + 1 when right
};

// Fills request `index`'s keys (n <= kMaxProbeKeys, each < the table size).
using ProbeLayout = std::function<void(uint32_t index, ProbeRequest&)>;

template <class CC>
class ProbeWorkload {
 public:
  static constexpr const char* kName = "probe";
  static constexpr uint32_t kTableId = 1;
  using Request = ProbeRequest;
  struct Commit {
    uint64_t stamp;  // global commit order
    uint32_t index;  // batch position
  };
  struct ThreadState {
    std::vector<Commit> commits;
    uint64_t increments = 0;
    std::thread::id thread;  // the thread of the last commit
  };

  ProbeWorkload(uint32_t keys, uint32_t batch_size, ProbeLayout layout)
      : keys_(keys), batch_size_(batch_size), layout_(std::move(layout)) {}

  std::vector<std::string> txn_types() const { return {"probe"}; }
  void load(int) {
    table_ = std::make_unique<Table<CC>>(kTableId, "probe", 8, keys_, keys_);
    for (uint32_t k = 0; k < keys_; ++k) table_->load(k, k);
  }
  void generate(Random&, uint32_t, Request& r) const {
    r = Request{};
    r.index = static_cast<uint32_t>(next_index_.fetch_add(1, std::memory_order_relaxed) % batch_size_);
    layout_(r.index, r);
  }
  // OLLP: reconnoiter() predicts index + 1, except once for request
  // `wrong_once`, which gets a wrong prediction (a planted stale read); run()
  // checks the prediction first.
  void enable_reconnaissance(int64_t wrong_once) {
    recon_ = true;
    wrong_once_ = wrong_once;
  }
  // Returns whether the prediction changed; counts the calls and the threads
  // that made them.
  bool reconnoiter(Request& r) const {
    if (!recon_) return false;
    note_reconnaissance();
    const bool plant = static_cast<int64_t>(r.index) == wrong_once_ && !planted_.exchange(true);
    const uint32_t p = plant ? r.index + 2 : r.index + 1;
    if (p == r.predicted) return false;
    r.predicted = p;
    return true;
  }
  // Distinct threads that called reconnoiter() so far. With
  // wait_for_second_reconnoiter, the first call waits (up to 10 s) until a
  // second thread reconnoiters, so that a serial reconnaissance shows as one
  // thread however the chunks fall.
  size_t reconnaissance_threads() const {
    std::lock_guard g(recon_mu_);
    return recon_threads_.size();
  }
  void wait_for_second_reconnoiter() { wait_for_second_ = true; }
  uint64_t describes() const { return describes_.load(std::memory_order_relaxed); }
  // Hooks inside every attempt: `before` ahead of its updates, `after`
  // behind them, while it holds their locks (a test's way to make another
  // attempt meet a held lock).
  using AttemptHook = std::function<void(const Request&)>;
  void set_attempt_hooks(AttemptHook before, AttemptHook after) {
    before_ = std::move(before);
    after_ = std::move(after);
  }
  RC run(Txn<CC>& txn, const Request& r) {
    if (recon_ && r.predicted != r.index + 1) return RC::kPredictionMismatch;
    if (before_) before_(r);
    for (uint32_t i = 0; i < r.n; ++i) {
      uint64_t* c = txn.template update_as<uint64_t>(*table_, r.keys[i]);
      if (c == nullptr) return txn.failure();
      ++*c;
    }
    if (after_) after_(r);
    return RC::kOk;
  }
  TxnDesc describe(const Request& r) const {
    describes_.fetch_add(1, std::memory_order_relaxed);
    TxnDesc d;
    for (uint32_t i = 0; i < r.n; ++i) d.write_set.push_back(make_global_key(kTableId, r.keys[i]));
    return d;
  }
  void on_commit(ThreadState& s, const Request& r) const {
    s.commits.push_back(Commit{stamp_.fetch_add(1, std::memory_order_relaxed), r.index});
    s.thread = std::this_thread::get_id();
    s.increments += r.n;
  }
  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    uint64_t expected = 0, actual = 0;
    for (const auto& s : states) expected += s.increments;
    for (uint32_t k = 0; k < keys_; ++k) {
      uint64_t c;
      std::memcpy(&c, table_->lookup(k)->data() + kVersionBytes, 8);
      actual += c;
    }
    return {{"probe_counter_sum", actual == expected,
             "counters " + std::to_string(actual) + ", committed increments " + std::to_string(expected)}};
  }
  void options_json(JsonWriter&) const {}
  size_t memory_bytes() const { return table_ ? table_->memory_bytes() : 0; }
  MemoryEstimate memory_estimate() const { return {Table<CC>::bytes_for(8, keys_, keys_), "keys"}; }
  Table<CC>* table_by_id(uint32_t id) const { return id == kTableId ? table_.get() : nullptr; }
  // The commit stamp the next commit will get: a front-end reads it in plan()
  // to mark where a batch's commits start.
  uint64_t next_stamp() const { return stamp_.load(std::memory_order_relaxed); }

 private:
  uint32_t keys_, batch_size_;
  ProbeLayout layout_;
  std::unique_ptr<Table<CC>> table_;
  mutable std::atomic<uint64_t> next_index_{0};
  mutable std::atomic<uint64_t> stamp_{0};
  bool recon_ = false;
  int64_t wrong_once_ = -1;
  mutable std::atomic<bool> planted_{false};
  mutable std::atomic<uint64_t> describes_{0};
  bool wait_for_second_ = false;
  AttemptHook before_, after_;
  mutable std::mutex recon_mu_;
  mutable std::set<std::thread::id> recon_threads_;

  void note_reconnaissance() const {
    std::unique_lock g(recon_mu_);
    const bool first = recon_threads_.empty();
    recon_threads_.insert(std::this_thread::get_id());
    if (!first || !wait_for_second_) return;
    g.unlock();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (reconnaissance_threads() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

}  // namespace ccb::test_support
