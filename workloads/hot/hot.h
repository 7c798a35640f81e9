// HOT, the high-contention micro-benchmark of the Strife paper (Prasaad et al.,
// SIGMOD 2020, Sec. 5.1): "a single table database with 50M records, each
// having an 8-byte key and twenty 8-byte integer fields. Each transaction
// updates 10 records from the table. [...] some records (default: 100) as hot
// and the remaining as cold. Every transaction updates one hot record and 9
// cold records. We control partitionability of the workload by limiting
// remote partition accesses to at most 3. By default, hot records are evenly
// distributed across all partitions."
//
// Partitioning: P = --partitions (0 or 1: one partition), hash partitioning
// as in Strife Sec. 5.4 with key mod P as the hash [INF]; partition q owns the
// keys q, q + P, q + 2P, ... Let R = table_size / P rows per partition and
// H = --hot_records. The first H keys of every partition (q + P*j, j < H)
// form its hot pool: in any placement a hot record is taken from a pool, so
// all H hot records fit even when they crowd into one partition. Cold records
// are the keys q + P*j with H <= j < R, so they are never hot. Keys at or
// above P*R (the remainder of table_size / P) are loaded but never accessed.
//
// A request: a hot slot h in [0, H), its position among the 10 updates, and 9
// cold keys. Its home partition is h mod P (where slot h lives in the even
// placement); each cold key lies in the home partition, except that a uniform
// number in [0, --hot_remote_max] of them lie in other random partitions [INF:
// the text says only "at most 3"].
//
// Placement of the hot records (time-varying mode, Strife Sec. 5.5, Fig. 8d:
// "Initially, all hot records are evenly distributed across the 30 partitions
// and vary hot records approximately every 30secs such that they are
// distributed across a random number n (< 30) of partitions"). Requests are
// pre-generated per worker and replayed, so they cannot carry the hot key of
// the moment: they carry the slot h, and the procedure maps h to a key with
// the placement of an epoch. The epoch clock starts with the measured
// interval (on_measure_start(), called by the executors), so the phases line
// up with the per-second timeline (--timeline): epoch = floor(seconds since
// the measured interval started / --hot_shift_s), 0 before it (warm-up) and
// always 0 when --hot_shift_s = 0.
//   epoch 0: even, slot h -> partition h mod P, pool index h / P (so the hot
//     keys are 0..H-1);
//   epoch e >= 1: n_e = 1 + u mod (P - 1) partitions (1 <= n_e < P), chosen
//     as offset_e + i * stride_e (mod P), i < n_e, with stride_e coprime with
//     P (so they are n_e distinct partitions); slot h -> the (h mod n_e)-th
//     of them, pool index h / n_e. (u, offset_e, stride_e) are drawn from
//     (--seed, e) alone, so every worker and every run with that seed sees
//     the same schedule; options_json() logs every epoch reached.
// Which epoch a request uses:
//   - pinned (bundle executor): the front-end must plan with the keys the
//     procedure will touch (its CC-free queues run without CC), so the
//     analysis's reconnaissance (reconnoiter(), Strife Sec. 5.6.4's hook)
//     pins each request of a batch to the epoch current at the analysis;
//     describe() and run() then use that epoch, even if the batch runs into
//     the next one (by at most one batch: milliseconds against seconds).
//   - unpinned (online executor): the epoch current at the call. Protocols
//     that lock the predicted set up front get their predictions described
//     again when description_epoch() changes (engine/exec/online_executor.h);
//     an attempt that straddles a change touches a hot key its prediction
//     missed, which those protocols lock at access (correct, rare).
//
// Every update increments field 0 of the record (a counter), so after a run
// the counters must add up to 10 x committed transactions.
//
// The requests, the placement of an epoch and the access set under it come
// from HotGenerator (hot_generator.h); this class holds the table and the
// epoch clock.
//
// Thread safety: run() from any number of worker threads after load();
// generate()/describe()/epoch() are thread-safe, and so is reconnoiter() on
// distinct requests; on_measure_start() from any thread (the clock's origin
// is atomic).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/random.h"
#include "engine/core/json.h"
#include "engine/core/clock.h"
#include "workloads/common/table_util.h"
#include "workloads/hot/hot_generator.h"
#include "engine/workload.h"

namespace ccb {

template <class CC>
class HotWorkload {
 public:
  static constexpr const char* kName = "hot";
  static constexpr uint32_t kTableId = HotGenerator::kTableId;
  static constexpr size_t kPayload = HotOptions::kFields * 8;
  static constexpr uint64_t kMaxLoggedEpochs = 1000;
  using Request = HotRequest;
  struct ThreadState {
    uint64_t updates = 0;
  };

  explicit HotWorkload(const HotOptions& o)
      : opt_(o), generator_(o), shift_ns_(static_cast<uint64_t>(o.shift_s * 1e9)) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  MemoryEstimate memory_estimate() const {
    return {Table<CC>::bytes_for(kPayload, opt_.table_size, opt_.table_size), "hot_table_size"};
  }

  void load(int threads) {
    table_ = std::make_unique<Table<CC>>(kTableId, "hot", kPayload, opt_.table_size, opt_.table_size);
    parallel_for(threads, opt_.table_size, [this](uint64_t k) { table_->load(k, k); });  // all fields 0
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    const uint64_t epoch = epoch_of(r);
    for (uint32_t i = 0; i < HotRequest::kUpdates; ++i) {
      uint8_t* p = txn.update(*table_, generator_.key(r, i, epoch));
      if (p == nullptr) return txn.failure();
      store_field<uint64_t>(p, 0, load_field<uint64_t>(p, 0) + 1);
    }
    return RC::kOk;
  }

  TxnDesc describe(const Request& r) const { return generator_.describe(r, epoch_of(r)); }

  void on_commit(ThreadState& s, const Request&) const { s.updates += HotRequest::kUpdates; }

  // The bundle executor's reconnaissance hook (engine/exec/bundle_batches.h,
  // HasReconnaissance): pins r to the epoch now (see header). Returns whether
  // the pin changed, i.e. r must be described again; never with the hot
  // records fixed.
  bool reconnoiter(Request& r) const {
    if (shift_ns_ == 0) return false;
    const uint64_t e = epoch();
    if (r.pinned_epoch == e) return false;
    r.pinned_epoch = e;
    return true;
  }
  // The executors' clock hooks (online_executor.h): the epoch clock starts
  // with the measured interval; descriptions change with the epoch.
  void on_measure_start(uint64_t now) { origin_ns_.store(std::max<uint64_t>(now, 1), std::memory_order_release); }
  uint64_t description_epoch() const { return epoch(); }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    return {equality_invariant("hot_counter_sum", "sum of record counters", sum_field<uint64_t>(*table_, 0),
                               "committed updates", sum_states(states, &ThreadState::updates))};
  }

  void options_json(JsonWriter& w) const {
    opt_.to_json(w);
    // The placements the run went through (strife §5.5 draws a random n per
    // phase [INF: seeded and logged, so that a run can be repeated]); start_s counts from the
    // start of the measured interval, as the timeline does.
    w.key("hot_schedule").begin_array();
    const uint64_t last = std::min(max_epoch_.load(std::memory_order_relaxed), kMaxLoggedEpochs - 1);
    for (uint64_t e = 0; e <= last; ++e) {
      const HotGenerator::Placement p = generator_.placement(e);
      w.begin_object().key("epoch").value(e).key("start_s").value(static_cast<double>(e) * opt_.shift_s);
      w.key("hot_partitions").value(p.n).key("offset").value(p.offset).key("stride").value(p.stride).end_object();
    }
    w.end_array();
  }
  size_t memory_bytes() const { return table_ ? table_->memory_bytes() : 0; }
  // For protocols that lock the predicted access set (engine/txn/protocol.h).
  Table<CC>* table_by_id(uint32_t id) const { return id == kTableId ? table_.get() : nullptr; }
  // Partitioning for partition-level locking (engine/cc/partcc/partcc.h): HOT's own
  // key mod P (see header), P = --partitions, or the thread count when that
  // is 0 or 1 (one partition would serialize every transaction).
  uint32_t partition_count(uint32_t threads) const { return opt_.partitions > 1 ? opt_.partitions : std::max(threads, 1u); }
  uint32_t partition_of(GlobalKey k, uint32_t n) const { return static_cast<uint32_t>(local_key_of(k) % n); }

  // The epoch now: 0 until on_measure_start() (see header).
  uint64_t epoch() const {
    if (shift_ns_ == 0) return 0;
    const uint64_t origin = origin_ns_.load(std::memory_order_acquire);
    if (origin == 0) return 0;
    const uint64_t now = now_ns();
    const uint64_t e = now > origin ? (now - origin) / shift_ns_ : 0;
    uint64_t seen = max_epoch_.load(std::memory_order_relaxed);
    while (e > seen && !max_epoch_.compare_exchange_weak(seen, e, std::memory_order_relaxed)) {
    }
    return e;
  }
  Table<CC>& table() { return *table_; }
  const HotGenerator& generator() const { return generator_; }

 private:
  uint64_t epoch_of(const Request& r) const {
    return r.pinned_epoch != HotRequest::kUnpinned ? r.pinned_epoch : epoch();
  }
  HotOptions opt_;
  HotGenerator generator_;
  uint64_t shift_ns_;
  std::unique_ptr<Table<CC>> table_;
  std::atomic<uint64_t> origin_ns_{0};  // start of the measured interval (now_ns), 0 = not yet
  mutable std::atomic<uint64_t> max_epoch_{0};
};

}  // namespace ccb
