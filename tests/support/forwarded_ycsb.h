// YCSB behind a wrapper that forwards the workload contract's required
// members (engine/workload.h) to a loaded YcsbWorkload and nothing optional
// (no table_by_id, no partitions): a test derives from it and redefines the
// one member it changes (a scripted run()), or uses it as it is for a
// workload that lacks an optional capability.
#pragma once

#include <string>
#include <vector>

#include "workloads/ycsb/ycsb.h"

namespace ccb::test_support {

template <class CC>
struct ForwardedYcsb {
  static constexpr const char* kName = "ycsb";
  using Request = YcsbRequest;
  using ThreadState = typename YcsbWorkload<CC>::ThreadState;
  YcsbWorkload<CC>& inner;
  std::vector<std::string> txn_types() const { return inner.txn_types(); }
  void load(int threads) { inner.load(threads); }
  void generate(Random& rng, uint32_t thread, Request& r) const { inner.generate(rng, thread, r); }
  RC run(Txn<CC>& txn, const Request& r) { return inner.run(txn, r); }
  TxnDesc describe(const Request& r) const { return inner.describe(r); }
  void on_commit(ThreadState& s, const Request& r) const { inner.on_commit(s, r); }
  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& s) { return inner.check_invariants(s); }
  void options_json(JsonWriter& w) const { inner.options_json(w); }
  size_t memory_bytes() const { return inner.memory_bytes(); }
  MemoryEstimate memory_estimate() const { return inner.memory_estimate(); }
};

}  // namespace ccb::test_support
