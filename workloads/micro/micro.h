// The key-value micro benchmark of the batching-and-reordering paper (Ding,
// Kot, Gehrke, PVLDB 12(2) 2018, Sec. 5): "100K objects, 8-byte keys", each
// transaction "reads 5 objects and writes to 5 objects, drawn from a Zipfian
// distribution [...], with one of the reads and one of the writes on the same
// object". The 9 keys of a transaction are distinct [INF]: keys[0] is read and
// written, keys[1..4] only read, keys[5..8] only written.
//
// The procedure performs its 5 reads, then its 5 writes (the read phase and
// the buffered writes of the paper's OCC prototype). The paper's values are
// null; here each object holds an 8-byte counter and a write increments it,
// so the write-only objects are read-modify-written (the engine has no blind
// write) while describe() still reports them as written, not read. After a
// run the counters add up to 5 x committed transactions.
//
// Schema: one table (id 50), key = object id in [0, objects), payload 8 bytes.
// The requests come from MicroGenerator (micro_generator.h).
//
// Thread safety: run() from any number of worker threads after load();
// generate()/describe() are const and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/keep_alive.h"
#include "engine/core/random.h"
#include "engine/core/json.h"
#include "workloads/common/table_util.h"
#include "workloads/micro/micro_generator.h"
#include "engine/workload.h"

namespace ccb {

template <class CC>
class MicroWorkload {
 public:
  static constexpr const char* kName = "micro";
  static constexpr uint32_t kTableId = MicroGenerator::kTableId;
  static constexpr uint32_t kReads = MicroOptions::kReads, kWrites = MicroOptions::kWrites;
  using Request = MicroRequest;
  struct ThreadState {
    uint64_t writes = 0;
  };

  // Cheap (no O(objects) work): the generator's checks only.
  explicit MicroWorkload(const MicroOptions& o) : opt_(o), generator_(o) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  MemoryEstimate memory_estimate() const {
    return {Table<CC>::bytes_for(8, opt_.objects, opt_.objects), "micro_objects"};
  }

  void load(int threads) {
    generator_.prepare();
    table_ = std::make_unique<Table<CC>>(kTableId, "objects", 8, opt_.objects, opt_.objects);
    parallel_for(threads, opt_.objects, [this](uint64_t k) { table_->load(k, k); });  // counters 0
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    uint64_t checksum = 0;
    for (uint32_t i = 0; i < kReads; ++i) {  // keys[0..4]
      const uint8_t* p = txn.read(*table_, r.keys[i]);
      if (p == nullptr) return txn.failure();
      checksum += load_field<uint64_t>(p, 0);
    }
    keep_alive(checksum);
    for (uint32_t i = 0; i < kWrites; ++i) {  // keys[0], keys[5..8]
      uint8_t* p = txn.update(*table_, r.keys[i == 0 ? 0 : kReads - 1 + i]);
      if (p == nullptr) return txn.failure();
      store_field<uint64_t>(p, 0, load_field<uint64_t>(p, 0) + 1);
    }
    return RC::kOk;
  }

  TxnDesc describe(const Request& r) const { return generator_.describe(r); }

  void on_commit(ThreadState& s, const Request&) const { s.writes += kWrites; }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    return {equality_invariant("micro_counter_sum", "sum of object counters", sum_field<uint64_t>(*table_, 0),
                               "committed writes", sum_states(states, &ThreadState::writes))};
  }

  void options_json(JsonWriter& w) const { opt_.to_json(w); }
  size_t memory_bytes() const { return table_ ? table_->memory_bytes() : 0; }
  // For protocols that lock the predicted access set (engine/txn/protocol.h).
  Table<CC>* table_by_id(uint32_t id) const { return id == kTableId ? table_.get() : nullptr; }
  Table<CC>& table() { return *table_; }
  const MicroGenerator& generator() const { return generator_; }

 private:
  MicroOptions opt_;
  MicroGenerator generator_;
  std::unique_ptr<Table<CC>> table_;
};

}  // namespace ccb
