// YCSB as in DBx1000: one table of `table_size` rows and the stored
// procedure; the requests (distinct Zipf keys, reads and read-modify-writes,
// the partitioned mode) come from YcsbGenerator (ycsb_generator.h). Every
// write increments the row's counter (the first 8 payload bytes), so after a
// run the sum of all counters must equal the number of committed writes: a
// lost update shows up as a broken invariant.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/keep_alive.h"
#include "engine/core/json.h"
#include "engine/workload.h"
#include "workloads/ycsb/ycsb_generator.h"

namespace ccb {

template <class CC>
class YcsbWorkload {
 public:
  static constexpr const char* kName = "ycsb";
  static constexpr uint32_t kTableId = YcsbGenerator::kTableId;
  using Request = YcsbRequest;
  struct ThreadState {
    uint64_t committed_increments = 0;
  };

  // Cheap (no O(table_size) work): the generator's checks only.
  explicit YcsbWorkload(const YcsbOptions& o) : opt_(o), generator_(o) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  MemoryEstimate memory_estimate() const {
    return {Table<CC>::bytes_for(opt_.payload_size, opt_.table_size, opt_.table_size), "table_size"};
  }

  void load(int threads) {
    generator_.prepare();
    table_ = std::make_unique<Table<CC>>(kTableId, "usertable", opt_.payload_size, opt_.table_size, opt_.table_size);
    std::vector<std::thread> loaders;
    const uint64_t n = opt_.table_size;
    for (int t = 0; t < threads; ++t) {
      loaders.emplace_back([this, t, threads, n] {
        // Rows arrive zeroed: counter 0, version 0 (the loader's).
        for (uint64_t k = n * t / threads; k < n * (t + 1) / threads; ++k) table_->load(k, k);
      });
    }
    for (auto& l : loaders) l.join();
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    typename TxnT::PrefetchKey declared[YcsbOptions::kMaxRequests];
    for (uint32_t i = 0; i < r.n; ++i) declared[i] = {table_.get(), r.key(i)};
    txn.prefetch(declared, r.n);
    uint64_t checksum = 0;
    for (uint32_t i = 0; i < r.n; ++i) {
      if (r.is_write(i)) {
        uint8_t* p = txn.update(*table_, r.key(i));
        if (p == nullptr) return txn.failure();
        uint64_t counter;
        std::memcpy(&counter, p, 8);
        ++counter;
        std::memcpy(p, &counter, 8);
      } else {
        const uint8_t* p = txn.read(*table_, r.key(i));
        if (p == nullptr) return txn.failure();
        uint64_t counter;
        std::memcpy(&counter, p, 8);
        checksum += counter;
      }
    }
    keep_alive(checksum);  // the reads must not be optimized away
    return RC::kOk;
  }

  TxnDesc describe(const Request& r) const { return generator_.describe(r); }

  void on_commit(ThreadState& s, const Request& r) const { s.committed_increments += r.writes(); }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    uint64_t expected = 0, actual = 0;
    for (const auto& s : states) expected += s.committed_increments;
    for (uint64_t k = 0; k < opt_.table_size; ++k) {
      uint64_t c;
      std::memcpy(&c, table_->lookup(k)->data() + kVersionBytes, 8);
      actual += c;
    }
    return {{"ycsb_counter_sum", actual == expected,
             "sum of row counters " + std::to_string(actual) + ", committed increments " + std::to_string(expected)}};
  }

  void options_json(JsonWriter& w) const { opt_.to_json(w); }
  size_t memory_bytes() const { return table_ ? table_->memory_bytes() : 0; }
  Table<CC>& table() { return *table_; }
  const YcsbGenerator& generator() const { return generator_; }
  // For protocols that lock the predicted access set (protocol.h, acquire_all).
  Table<CC>* table_by_id(uint32_t id) const { return id == kTableId ? table_.get() : nullptr; }
  // Partitioning for partition-level locking (engine/cc/partcc/partcc.h): n equal
  // key ranges, n = --partitions (the ranges requests stay inside) or, when
  // that is 0, the thread count.
  uint32_t partition_count(uint32_t threads) const { return opt_.partitions ? opt_.partitions : std::max(threads, 1u); }
  uint32_t partition_of(GlobalKey k, uint32_t n) const {
    const uint64_t per = std::max<uint64_t>(opt_.table_size / n, 1);
    return static_cast<uint32_t>(std::min<uint64_t>(local_key_of(k) / per, n - 1));
  }

 private:
  YcsbOptions opt_;
  YcsbGenerator generator_;
  std::unique_ptr<Table<CC>> table_;
};

}  // namespace ccb
