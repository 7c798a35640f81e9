// MOCC: mostly-optimistic concurrency control (Wang and Kimura, "Mostly-
// Optimistic Concurrency Control for Highly Contended Dynamic Workloads on a
// Thousand Cores", PVLDB 10(2), 2016), on Silo (engine/cc/silo.h), the OCC the
// paper builds on (FOEDUS's Silo-style OCC, section 2).
//
// Temperature (section 3.1): every row carries a temperature, raised when a
// transaction fails validation because of that row (section 3.1: "we
// increment the temperature of the record whose verification failed") and
// decaying over time so a row that stops being contended turns cold again
// (section 3.1 resets temperatures periodically; here the count halves every
// decay period, --mocc_decay_ms, lazily: the word keeps the period it was last
// written in). A row whose temperature is at least the threshold
// (--mocc_temperature_threshold) is hot.
//
// Locking (section 3.2): a read of a hot row first takes the row's reader lock
// (RwLockWord, shared), and a first access that writes a hot row takes it
// exclusively; cold rows are read optimistically and validated at commit as in
// Silo. Commit takes every write lock (exclusive) in address order before
// Silo's phases 2 and 3; the TID word's lock bit, which optimistic readers
// spin on, is set only after all of them are held, so a row is never
// TID-locked by a transaction that still waits for something.
//
// Deadlock freedom by the canonical mode of section 4.1: a transaction waits
// for a lock only if the row's address is above every lock it already holds;
// a lock out of that order is tried once and, if unavailable, the attempt
// aborts (RC::kLockConflict). Every wait goes to a strictly larger address
// than anything the waiter holds, so no waits-for cycle can form. The paper
// instead keeps a retrospective lock list (section 4.2) that takes, on the
// retry, the locks the aborted attempt needed in canonical order before
// executing: not implemented here (the abort-and-retry alternative is the
// non-canonical "try" mode of section 4.1). Upgrading a shared lock at commit
// is such a try. The paper's MCS reader-writer locks (section 5) are
// replaced by one-word spin locks (RwLockWord, SpinWait), and its
// probabilistic temperature counter by an exact one.
//
// Read-only requests run as Silo's snapshot transactions (they never lock).
// Counters (cc_stats): Silo's snapshot counters plus hot reads/writes locked
// and aborts from a failed out-of-order lock.
//
// Thread safety: one Mocc is shared by the workers; per-thread counters are
// written by their thread only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#include "engine/cc/common.h"
#include "engine/cc/silo.h"
#include "engine/config.h"
#include "engine/stats/json.h"

namespace ccb {

class Mocc : public Silo {
 public:
  static constexpr const char* kName = "mocc";
  static constexpr uint32_t kDefaultThreshold = 10;
  static constexpr uint32_t kDefaultDecayMillis = 1000;
  static constexpr int kMaxThreads = snapshot::Snapshots::kMaxThreads;

  struct RowMeta : Silo::RowMeta {
    RwLockWord lock;                          // MOCC's record lock (shared: hot reads)
    std::atomic<uint64_t> temperature{0};     // (decay period << kPeriodShift) | count
  };
  struct AccessMeta : Silo::AccessMeta {
    LockHeld held = LockHeld::kNone;  // the record lock this attempt holds
  };
  struct TxnMeta : Silo::TxnMeta {
    uintptr_t max_held = 0;  // largest row address locked in this attempt (canonical mode)
  };

  explicit Mocc(uint32_t threshold = kDefaultThreshold, uint32_t decay_ms = kDefaultDecayMillis)
      : threshold_(threshold), decay_ms_(decay_ms) {}

  void configure(const EngineConfig& cfg) {
    threshold_ = cfg.mocc_temperature_threshold;
    decay_ms_ = cfg.mocc_decay_ms;
  }

  void begin(auto& txn) {
    txn.meta().max_held = 0;
    Silo::begin(txn);
  }

  RC read(auto& txn, auto& a) {
    if (!txn.meta().snapshot && hot(a.row->meta)) {
      const RC rc = lock_row(txn, a, LockHeld::kShared);
      if (rc != RC::kOk) return rc;
      ++counters_[txn.thread_id()].hot_reads;
    }
    return Silo::read(txn, a);  // the shared lock keeps writers out: the copy is stable
  }

  RC write(auto& txn, auto& a) {
    if (a.local == nullptr && !txn.meta().snapshot && hot(a.row->meta)) {
      const RC rc = lock_row(txn, a, LockHeld::kExclusive);
      if (rc != RC::kOk) return rc;
      ++counters_[txn.thread_id()].hot_writes;
    }
    // A read that becomes a write keeps its lock (if any) until commit, which
    // upgrades it.
    return Silo::write(txn, a);
  }

  RC commit(auto& txn) {
    if (txn.meta().snapshot) return Silo::commit(txn);
    // Silo's phase 1 with MOCC's record locks: all write locks in address
    // order first (waiting only in canonical mode), then the TID lock bits.
    const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    for (auto* a : writes) {
      if (a->meta.held == LockHeld::kExclusive) continue;
      if (a->meta.held == LockHeld::kShared) {
        if (!a->row->meta.lock.try_upgrade()) {  // another reader holds it too: a try, as out of order
          ++counters_[txn.thread_id()].lock_order_aborts;
          return fail_lock(txn);
        }
        a->meta.held = LockHeld::kExclusive;
        continue;
      }
      if (lock_row(txn, *a, LockHeld::kExclusive) != RC::kOk) return fail_lock(txn);
    }
    for (auto* a : writes) {
      a->row->meta.tid.fetch_or(kLockBit, std::memory_order_acquire);  // uncontended: we hold the record lock
      a->meta.locked = true;
    }
    const RC rc = validate_and_install(txn, writes, [this](auto& a) {
      heat(a.row->meta);
      return true;  // heat every row that failed, not just the first
    });
    release(txn);
    return rc;
  }

  void abort(auto& txn) {
    release(txn);
    Silo::abort(txn);
  }

  // The row's temperature now (decayed to the current period).
  uint32_t temperature(const RowMeta& m) const { return decayed(m.temperature.load(std::memory_order_relaxed)); }
  bool hot(const RowMeta& m) const { return temperature(m) >= threshold_; }
  uint32_t threshold() const { return threshold_; }

  struct Stats {
    uint64_t hot_reads = 0, hot_writes = 0, lock_order_aborts = 0;
  };
  Stats total_stats() const {
    Stats s;
    for (int t = 0; t < kMaxThreads; ++t) {
      s.hot_reads += counters_[t].hot_reads;
      s.hot_writes += counters_[t].hot_writes;
      s.lock_order_aborts += counters_[t].lock_order_aborts;
    }
    return s;
  }
  void reset_stats(uint32_t thread) {
    Silo::reset_stats(thread);
    counters_[thread] = Counters{};
  }
  void stats_json(JsonWriter& w) const {
    Silo::stats_json(w);
    const Stats s = total_stats();
    w.key("hot_reads_locked").value(s.hot_reads);
    w.key("hot_writes_locked").value(s.hot_writes);
    w.key("lock_order_aborts").value(s.lock_order_aborts);
    w.key("temperature_threshold").value(threshold_);
    w.key("decay_ms").value(decay_ms_);
  }

 private:
  static constexpr int kPeriodShift = 16;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kPeriodShift) - 1;

  // Decay periods elapsed, from Silo's epoch clock (ticked every
  // kEpochMillis by the executor).
  uint64_t period() const {
    return epoch_.load(std::memory_order_relaxed) * static_cast<uint64_t>(kEpochMillis) / decay_ms_;
  }
  uint32_t decayed(uint64_t word) const {
    const uint64_t age = period() - std::min(period(), word >> kPeriodShift);
    return age >= kPeriodShift ? 0 : static_cast<uint32_t>((word & kCountMask) >> age);
  }
  void heat(RowMeta& m) {
    uint64_t w = m.temperature.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t count = std::min<uint64_t>(decayed(w) + 1, kCountMask);
      if (m.temperature.compare_exchange_weak(w, period() << kPeriodShift | count, std::memory_order_relaxed)) return;
    }
  }

  // Canonical mode (section 4.1): wait only for a row above every lock held,
  // else one try. Nothing is held when this fails.
  RC lock_row(auto& txn, auto& a, LockHeld mode) {
    RwLockWord& l = a.row->meta.lock;
    auto try_once = [&] { return mode == LockHeld::kShared ? l.try_lock_shared() : l.try_lock_exclusive(); };
    const uintptr_t addr = reinterpret_cast<uintptr_t>(a.row);
    uintptr_t& max_held = txn.meta().max_held;
    if (addr > max_held) {
      for (SpinWait w; !try_once();) w.pause();
    } else if (!try_once()) {
      note_contended_latch();
      ++counters_[txn.thread_id()].lock_order_aborts;
      return RC::kLockConflict;
    }
    a.meta.held = mode;
    max_held = std::max(max_held, addr);
    return RC::kOk;
  }
  static RC fail_lock(auto& txn) {
    release(txn);
    return RC::kLockConflict;
  }
  static void release(auto& txn) {
    for (auto& a : txn.accesses()) {
      if (a.meta.held == LockHeld::kExclusive) a.row->meta.lock.unlock_exclusive();
      else if (a.meta.held == LockHeld::kShared) a.row->meta.lock.unlock_shared();
      a.meta.held = LockHeld::kNone;
    }
  }

  struct alignas(64) Counters {
    uint64_t hot_reads = 0, hot_writes = 0, lock_order_aborts = 0;
  };
  uint32_t threshold_;
  uint32_t decay_ms_;
  std::unique_ptr<Counters[]> counters_{new Counters[kMaxThreads]};
};

}  // namespace ccb
