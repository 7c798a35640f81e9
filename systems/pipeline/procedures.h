// The workloads of the pipeline engine: how a request becomes the keys a
// transaction reads and writes, and how the values it writes follow from the
// values it read (Ding et al., PVLDB 2018, §5: the key-value micro benchmark
// and SmallBank). Requests come from the testbed's own workloads
// (workloads/micro, workloads/smallbank: generate() and describe()).
//
// A procedure type P provides:
//   using Request; static constexpr const char* kName;
//   void generate(Random&, uint32_t client, Request&) const;
//   void access_sets(const Request&, TxnDesc& desc, std::vector<GlobalKey>& reads) const;
//       desc.write_set: keys written; reads: the keys read from storage and
//       validated (the read set of the validation request, RMW keys included)
//   int64_t initial_value(GlobalKey) const;        the loaded value (version 0)
//   void execute(const Request&, std::span<const GlobalKey> reads,
//                std::span<const int64_t> read_values, std::span<const GlobalKey> writes,
//                std::span<int64_t> write_values);  on the processor, once per commit
//   std::vector<InvariantResult> check_invariants(final store values);
//
// Why execute() runs once per commit rather than once per attempt: the values
// a transaction writes are a deterministic function of the values it read,
// and a validation request carries only keys and versions (§5), so the
// processor computes them when the commit decision arrives, from the very
// reads the validator accepted. That also meets the attempt_scratch contract
// (workloads/common/attempt_scratch.h): on_commit() follows the committed
// attempt's run() on the same (processor) thread.
//
// Thread safety: generate() and access_sets() are const and may run on the
// client threads concurrently; execute() runs on the processor thread only.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cc/occ/occ.h"
#include "engine/config.h"
#include "engine/core/memory.h"
#include "engine/core/random.h"
#include "engine/core/rc.h"
#include "engine/core/table.h"
#include "engine/core/txn_desc.h"
#include "workloads/common/attempt_scratch.h"
#include "workloads/common/table_util.h"
#include "workloads/micro/micro_generator.h"
#include "workloads/smallbank/smallbank.h"
#include "engine/workload.h"

namespace ccb::pipeline {

// Final store contents handed to check_invariants: key -> value.
using StoreImage = std::unordered_map<GlobalKey, int64_t>;

// Micro benchmark (§5): reads keys[0..4], writes keys[0] (the read-modify-write
// object) and keys[5..8] blindly. The paper's values are null ("not relevant
// to our evaluation"): a write stores the writer's logical transaction id, so
// nothing depends on the values and the validator sees exactly the paper's 5
// reads and 5 writes. Its correctness is the serializability check and the
// engine's version invariant (every object holds its last committed write).
class MicroProcedure {
 public:
  static constexpr const char* kName = "micro";
  using Request = MicroRequest;
  explicit MicroProcedure(const MicroOptions& o) : generator_(o) { generator_.prepare(); }

  void generate(Random& rng, uint32_t client, Request& r) const { generator_.generate(rng, client, r); }
  void access_sets(const Request& r, TxnDesc& desc, std::vector<GlobalKey>& reads) const {
    desc = generator_.describe(r);
    reads.clear();
    for (uint32_t i = 0; i < MicroOptions::kReads; ++i)
      reads.push_back(make_global_key(MicroGenerator::kTableId, r.keys[i]));
  }
  int64_t initial_value(GlobalKey) const { return 0; }
  void execute(const Request&, uint64_t txn_id, std::span<const GlobalKey>, std::span<const int64_t>,
               std::span<const GlobalKey>, std::span<int64_t> write_values) {
    for (int64_t& v : write_values) v = static_cast<int64_t>(txn_id);
  }
  std::vector<InvariantResult> check_invariants(const StoreImage&) { return {}; }
  void options_json(JsonWriter& w) const { generator_.options().to_json(w); }

 private:
  MicroGenerator generator_;
};

// SmallBank (§5.5): the workload's own stored procedures run on the values
// the transaction read, through BufferedTxn; its money-conservation invariant
// is checked on the final store contents. All SmallBank writes are
// read-modify-writes, so the read set is read_set ∪ write_set.
class SmallBankProcedure {
 public:
  static constexpr const char* kName = "smallbank";
  using Workload = SmallBankWorkload<Occ>;
  using Request = SmallBankRequest;

  // The TxnT a stored procedure runs on: every row it touches is one of the
  // transaction's predicted keys, served from the values read from storage.
  class BufferedTxn {
   public:
    static constexpr size_t kSlotBytes = 32;  // >= every SmallBank payload (accounts: 24)
    BufferedTxn(std::span<const GlobalKey> keys, std::span<const int64_t> values) : keys_(keys) {
      slots_.assign(keys.size() * kSlotBytes, 0);
      for (size_t i = 0; i < keys.size(); ++i) store_field<int64_t>(&slots_[i * kSlotBytes], 0, values[i]);
    }
    template <class TableT>
    const uint8_t* read(TableT& table, uint64_t key) {
      return slot(make_global_key(table.id(), key));
    }
    template <class TableT>
    uint8_t* update(TableT& table, uint64_t key) {
      return slot(make_global_key(table.id(), key));
    }
    RC failure() const { return RC::kUser; }
    // Its rows are already read into slots_: nothing to prefetch (Txn::prefetch).
    struct PrefetchKey {
      const void* table;
      uint64_t key;
    };
    void prefetch(const PrefetchKey*, size_t) {}
    int64_t value(size_t i) const { return load_field<int64_t>(&slots_[i * kSlotBytes], 0); }

   private:
    uint8_t* slot(GlobalKey k) {
      for (size_t i = 0; i < keys_.size(); ++i)
        if (keys_[i] == k) return &slots_[i * kSlotBytes];
      throw std::logic_error("smallbank: the procedure touched a key outside its predicted access set");
    }
    std::span<const GlobalKey> keys_;
    std::vector<uint8_t> slots_;
  };

  // Loads the workload's tables (the initial values and the invariant's
  // image), after refusing (ConfigError naming --smallbank_customers) tables
  // larger than the memory available, unless `ignore_memory_limit`.
  explicit SmallBankProcedure(const SmallBankOptions& o, bool ignore_memory_limit = false) : workload_(o) {
    check_memory(workload_, ignore_memory_limit);
    workload_.load(1);
  }
  // The checks of the constructor, without the load (--validate_only).
  static void check(const SmallBankOptions& o, bool ignore_memory_limit) { check_memory(Workload(o), ignore_memory_limit); }

  void generate(Random& rng, uint32_t client, Request& r) const { workload_.generate(rng, client, r); }
  void access_sets(const Request& r, TxnDesc& desc, std::vector<GlobalKey>& reads) const {
    desc = workload_.describe(r);
    reads = desc.read_set;
    reads.insert(reads.end(), desc.write_set.begin(), desc.write_set.end());
  }
  int64_t initial_value(GlobalKey k) const {
    const auto* row = workload_.table_by_id(table_of(k))->lookup(local_key_of(k));
    if (row == nullptr) throw std::logic_error("smallbank: key " + std::to_string(k) + " was not loaded");
    return load_field<int64_t>(row->data() + kVersionBytes, 0);
  }
  // A rolled-back procedure (insufficient funds) writes its keys back unchanged:
  // the validator already published its version, so storage must hold it.
  void execute(const Request& r, uint64_t, std::span<const GlobalKey> reads, std::span<const int64_t> read_values,
               std::span<const GlobalKey> writes, std::span<int64_t> write_values) {
    BufferedTxn txn(reads, read_values);
    const bool done = workload_.run(txn, r) == RC::kOk;
    for (size_t w = 0; w < writes.size(); ++w) {
      for (size_t i = 0; i < reads.size(); ++i) {
        if (reads[i] == writes[w]) write_values[w] = done ? txn.value(i) : read_values[i];
      }
    }
    if (done) workload_.on_commit(state_, r);
  }
  // Copies the final store contents into the loaded tables, then runs the
  // workload's own invariant (money conservation).
  std::vector<InvariantResult> check_invariants(const StoreImage& image) {
    for (const auto& [k, v] : image) {
      auto* row = workload_.table_by_id(table_of(k))->lookup(local_key_of(k));
      if (table_of(k) != Workload::kAccountsId) store_field<int64_t>(row->data() + kVersionBytes, 0, v);
    }
    return workload_.check_invariants({state_});
  }
  void options_json(JsonWriter& w) const { workload_.options_json(w); }

 private:
  static void check_memory(const Workload& w, bool ignore_memory_limit) {
    const MemoryEstimate need = w.memory_estimate();
    require_memory_fits(need.bytes, need.size_flag, available_memory_bytes(), ignore_memory_limit);
  }

  Workload workload_;
  Workload::ThreadState state_;  // the processor's: net money of committed transactions
};

}  // namespace ccb::pipeline
