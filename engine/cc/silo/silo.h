// Silo (Tu et al., "Speedy Transactions in Multicore In-Memory Databases",
// SOSP 2013, section 4).
//
// Each row carries a TID word: bit 0 is the lock bit, the rest is the TID of
// the last writer, (epoch << 32) | (sequence << 1). Reads copy the row between
// two equal, unlocked loads of the TID word. Commit (section 4.4; the phases
// are in engine/cc_helpers/silo_commit.h, shared with BCC):
//   Phase 1: lock the write set in a global (address) order.
//            Read the global epoch E: the serialization point.
//   Phase 2: validate the read set: each row's TID must be unchanged and not
//            locked by another transaction.
//   Phase 3: choose the commit TID (larger than every TID read or written,
//            larger than this worker's last TID, in epoch E), install the
//            writes and release each lock by storing the new TID.
// A background thread advances the epoch every kEpochMillis (section 4.2).
// Inserts publish a row already stamped with the commit TID before the write
// locks are released; range-scan node-set validation (phantoms) is not
// implemented because no workload here scans (docs/verify.md).
//
// Read-only snapshot transactions (section 4.9): a request the workload
// declared read-only (txn.read_only()) reads a consistent snapshot, the state
// after every transaction of the epochs below a snapshot epoch boundary, and
// commits without validation; it never aborts. Boundaries are multiples of k
// epochs (k = 25, 1 s, as in the paper). Serial order agrees with epochs (a
// transaction depends only on transactions of its own or earlier epochs), so
// such a state is a prefix of the serial order. A boundary B becomes the
// snapshot floor (engine/cc_helpers/snapshots.h) once no commit of an epoch below B
// can still be running: a committer publishes the epoch it has reached before
// its serialization point, and the epoch thread takes the smallest published
// one. A writer that overwrites a version of an earlier snapshot epoch than
// its own saves it in the row's version chain (Silo keeps such versions for
// the same reason); so a row is saved at most once per snapshot epoch.
// Unlike the paper's Silo, writers start saving only when the first read-only
// request arrives, which runs as an ordinary transaction (as do the ones
// after it) until the floor reaches the first snapshot epoch boundary after
// its arrival, at most 1 s later.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <memory>

#include "engine/cc_helpers/common.h"
#include "engine/cc/silo/options.h"
#include "engine/cc_helpers/silo_commit.h"
#include "engine/cc_helpers/snapshots.h"

namespace ccb {

class Silo {
 public:
  static constexpr const char* kName = "silo";
  static constexpr int kEpochMillis = 40;
  static constexpr uint32_t kSnapshotEpochs = 25;  // k of section 4.9: a snapshot epoch is 1 s
  static constexpr uint64_t kLockBit = silo::kLockBit;
  static constexpr int kEpochShift = 32;

  struct RowMeta {
    Shared<uint64_t> tid{0};
    snapshot::Chain old{nullptr};  // saved versions, newest first
  };
  struct AccessMeta {
    uint64_t observed_tid = 0;
    bool locked = false;
  };
  struct TxnMeta {
    uint64_t last_tid = 0;
    uint64_t floor = 0;     // the floor a snapshot transaction reads at
    bool snapshot = false;  // a read-only snapshot transaction
    bool registered = false;
  };

  // `snapshot_epochs`: k, the epochs per snapshot epoch (the tests use 1).
  explicit Silo(uint32_t snapshot_epochs = kSnapshotEpochs) : k_(snapshot_epochs) { assert(snapshot_epochs >= 1); }
  // DBx1000's BOUNDED_SPINNING_CYCLES (the optimised configurations' 15).
  static constexpr uint32_t kBoundedSpinCycles = 15;
  using Options = SiloOptions;
  void configure(const SiloOptions& o) { bounded_ = o.bounded(); }

  void tick() {
    const uint64_t e = epoch_.fetch_add(1, std::memory_order_seq_cst) + 1;
    advance_floor(e);
  }

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    m.snapshot = txn.read_only() && snapshots_complete();
    if (m.snapshot) [[unlikely]]
      m.floor = snapshots_.begin_read(txn.thread_id(), floor_, [this] { return floor_.load(std::memory_order_seq_cst); });
    else
      snapshots_.collect(txn.thread_id(), floor_.load(std::memory_order_acquire));
  }

  RC read(auto& txn, auto& a) {
    if (txn.meta().snapshot) [[unlikely]]
      return snapshot::Snapshots::read(txn, a, txn.meta().floor);
    a.meta.observed_tid = stable_copy<silo::kLockBit>(txn, a, a.row->meta.tid);
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (txn.meta().snapshot) [[unlikely]]
      snapshot::Snapshots::declared_read_only_but_writes(kName, a.table->name());
    if (a.local == nullptr) a.meta.observed_tid = stable_copy<silo::kLockBit>(txn, a, a.row->meta.tid);
    return RC::kOk;
  }
  RC insert(auto& txn, auto& a) {
    if (txn.meta().snapshot) snapshot::Snapshots::declared_read_only_but_writes(kName, a.table->name());
    return RC::kOk;
  }

  RC commit(auto& txn) {
    if (txn.meta().snapshot) {
      snapshots_.end_read(txn.thread_id());
      return RC::kOk;
    }
    if (bounded_) [[unlikely]] {  // --silo_validation=bounded
      const auto writes = accesses_in_order(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
      if (!silo::lock_writes_bounded(txn, writes, kBoundedSpinCycles)) return RC::kValidation;
      return validate_and_install(txn, writes, [](const auto&) { return false; });
    }
    const auto writes = silo::lock_writes(txn);  // phase 1
    return validate_and_install(txn, writes, [](const auto&) { return false; });
  }

  void abort(auto& txn) {  // nothing is held during execution
    if (txn.meta().snapshot) snapshots_.end_read(txn.thread_id());
  }

  // Protocol counters (protocol.h, HasProtocolStats).
  snapshot::Snapshots::Stats total_stats() const { return snapshots_.total_stats(); }
  void reset_stats(uint32_t thread) { snapshots_.reset_stats(thread); }
  void stats_json(JsonWriter& w) const { snapshots_.stats_json(w); }
  uint64_t snapshot_floor() const { return floor_.load(std::memory_order_acquire); }

 protected:
  // Phases 2 and 3, after phase 1 locked `writes` (the write set, each with
  // meta.locked set): read the epoch, validate, install and unlock, or unlock
  // and fail. `on_stale(access)` is called for each row that fails validation
  // and returns whether to go on checking the rest (MOCC heats every one).
  template <class OnStale>
  RC validate_and_install(auto& txn, const auto& writes, OnStale on_stale) {
    // The epoch this commit will read is at least the one published here
    // (advance_floor relies on it; the fence orders the two).
    // Under sim: the global epoch's line, read by every commit (section 4.2),
    // and this worker's slot, charged once for the accesses to each below.
    Shared<uint64_t>& committing = committing_epoch(txn);
    const auto global = read_line(epoch_);
    const auto slot = write_line(committing);
    slot[committing].store(global[epoch_].load(std::memory_order_relaxed), std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const uint64_t epoch = global[epoch_].load(std::memory_order_seq_cst);  // seq_cst: see start_saving
    // Phase 2.
    if (!silo::validate_reads(txn, on_stale)) {
      silo::unlock_writes(writes);
      slot[committing].store(kIdle, std::memory_order_release);
      return RC::kValidation;
    }
    // Phase 3.
    install(txn, writes, epoch);
    slot[committing].store(kIdle, std::memory_order_release);
    return RC::kOk;
  }

  // Phase 3: the commit TID is larger than every TID read or written and than
  // this worker's last one, and lies in `epoch`; writes are installed and
  // unlocked by storing it.
  void install(auto& txn, const auto& writes, uint64_t epoch) {
    uint64_t max_tid = txn.meta().last_tid;
    for (auto& a : txn.accesses())
      if (a.type != AccessType::kInsert) max_tid = std::max(max_tid, a.meta.observed_tid);
    const uint64_t tid = std::max(max_tid + 2, epoch << kEpochShift);
    txn.meta().last_tid = tid;
    // Section 4.9: keep each overwritten version of an earlier snapshot epoch
    // (below `boundary`); snapshots of floors up to `boundary` may read it.
    const bool saving = writes.size() > 0 && saving_.load(std::memory_order_seq_cst);
    const uint64_t boundary = saving ? ((tid >> kEpochShift) / k_ * k_) << kEpochShift : 0;
    silo::install_writes(txn, writes, tid, [&](auto& a) {
      if (a.meta.observed_tid < boundary) snapshots_.save(txn.thread_id(), a, a.meta.observed_tid, boundary);
    });
  }

  // Whether read-only requests can run on snapshots: writers save versions
  // once the first read-only request has arrived (a workload without any
  // pays nothing), and the snapshots are complete from the first floor whose
  // overwritten versions were all saved. Until then, read-only requests run
  // as ordinary (validated) transactions.
  bool snapshots_complete() {
    uint64_t from = complete_from_.load(std::memory_order_acquire);
    if (from == snapshot::kNoFloor) [[unlikely]]
      from = start_saving();
    return floor_.load(std::memory_order_acquire) >= from;
  }
  // A commit that found saving_ false read an epoch of at most `now` (all
  // three accesses are sequentially consistent), so its new versions are
  // below the first boundary above `now`: no snapshot from there on needs
  // what it overwrote.
  uint64_t start_saving() {
    saving_.store(true, std::memory_order_seq_cst);
    const uint64_t now = epoch_.unmodelled().load(std::memory_order_seq_cst);  // once per run: not a line of the model
    const uint64_t from = (now / k_ + 1) * k_ << kEpochShift;
    uint64_t expected = snapshot::kNoFloor;
    return complete_from_.compare_exchange_strong(expected, from, std::memory_order_acq_rel) ? from : expected;
  }

  // The snapshot floor (section 4.9), after epoch `e` began: the largest
  // multiple of k epochs not above e or any epoch a running commit published.
  // Every commit of an epoch below it has finished (its committer published
  // a smaller epoch until it had installed), and every later commit reads an
  // epoch at least as large (it publishes, fences, then reads the epoch).
  void advance_floor(uint64_t e) {
    uint64_t m = e;
    // The epoch ticker's scan, once per epoch: not lines of the model.
    const uint32_t n = n_threads_.load(std::memory_order_seq_cst);  // a thread registers before its fence
    for (uint32_t u = 0; u < n; ++u) m = std::min(m, committing_[u].epoch.unmodelled().load(std::memory_order_seq_cst));
    const uint64_t floor = (m / k_ * k_) << kEpochShift;
    if (floor > floor_.load(std::memory_order_relaxed)) floor_.store(floor, std::memory_order_seq_cst);

  }

  Shared<uint64_t>& committing_epoch(auto& txn) {
    const uint32_t t = txn.thread_id();
    if (!txn.meta().registered) [[unlikely]] {
      txn.meta().registered = true;
      register_in_count(n_threads_, t);
    }
    return committing_[t].epoch;
  }

  static constexpr uint64_t kIdle = ~uint64_t{0};
  struct alignas(64) Committing {
    Shared<uint64_t> epoch{kIdle};  // at most the epoch its running commit reads; kIdle if none
  };
  const uint64_t k_;
  alignas(64) Shared<uint64_t> epoch_{1};
  // Not lines of the model: the floor moves once per epoch (the ticker), the
  // other two once per run.
  alignas(64) snapshot::Floor floor_{0};                          // the latest snapshot floor
  Shared<bool, Modelled::kNo> saving_{false};                     // writers save versions (start_saving)
  Shared<uint64_t, Modelled::kNo> complete_from_{snapshot::kNoFloor};  // snapshots from this floor on are complete
  ThreadCount n_threads_{0};

  std::unique_ptr<Committing[]> committing_{new Committing[snapshot::Snapshots::kMaxThreads]};
  snapshot::Snapshots snapshots_;
  bool bounded_ = false;  // --silo_validation=bounded
};

}  // namespace ccb
