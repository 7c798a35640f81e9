// Cicada-like multi-version optimistic concurrency control (Lim, Kaminsky,
// Andersen, "Cicada: Dependably Fast Multi-Core In-Memory Transactions",
// SIGMOD 2017), on the version storage of engine/core/versions.h.
//
// Timestamps (section 3.1): no global counter. Each thread keeps a software
// clock, loosely synchronized with the others: the CPU's time-stamp counter,
// never below the thread's last clock, and, every kSyncTicks, raised to a
// peer's published clock if that is ahead (one-sided synchronization, each
// time the next peer). A transaction's timestamp is (clock << kThreadBits) |
// thread id: unique, and growing per thread.
// Read phase (section 3.3): every access reads the newest version whose wts is
// below the timestamp (engine/cc_helpers/mv_common.h, read_visible), from the inline
// version or the chain, into a private copy; writes are read-modify-writes on
// that copy.
// Validation (section 3.5), in order:
//   1. early version consistency check: abort at once, before touching any
//      shared state, if a row read has a newer committed (or a pending older)
//      version visible at the timestamp, or a row to write has changed or been
//      read at a later timestamp;
//   2. the write set is sorted by contention, the most recently written rows
//      first (the newest wts read is the contention indicator), so a
//      conflict on a hot row ends the attempt before the cold rows are
//      touched;
//   3. pending-version installation: each row to write is locked with the
//      transaction's timestamp as its pending version (a CAS that also checks
//      that the newest version is still the one read; no waiting, a failure
//      aborts);
//   4. read timestamp update: each row read gets rts >= timestamp;
//   5. version consistency check: each version read is still the one visible
//      at the timestamp (a pending version below the timestamp aborts: its
//      outcome is unknown), and no row to write was read at a later timestamp
//      (rts <= timestamp).
// Then the pending versions commit: the old inline image goes into the chain
// and the new one is installed inline with wts = rts = timestamp. Sequentially
// consistent fences between 3, 4 and 5 make a conflicting writer and reader
// see each other (Dekker): one of them aborts.
// Contention regulation (section 3.7): a retry first waits a random time below
// a maximum backoff that a hill climber adjusts every kRegulatorPeriod ticks
// from the committed throughput (one step up or down, kept in the direction
// that raised throughput). It is the retry's only backoff (kOwnBackoff): the
// executor's randomized wait (--abort_policy=backoff, --backoff_max_us) is
// not added to it.
// Garbage collection (section 3.8): engine/core/versions.h.
//
// Kept and dropped (engine/cc/cicada/README.md): kept are the loosely
// synchronized clocks, multi-version reads at the timestamp, the early check,
// the contention-sorted write set, pending installation, the rts update and
// consistency check, the backoff regulation and rapid GC; the newest version
// is always inline (Cicada inlines best-effort) and old images are copied out
// at install. Dropped: Cicada's own index (the engine's hash index is used),
// its allocator (per-thread chunks instead), the clock boost after an abort
// (it puts a thread's clock ahead of real time), read-only snapshots at
// min_rts, logging.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/mv_common.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"

namespace ccb {

class Cicada {
 public:
  static constexpr const char* kName = "cicada";
  static constexpr bool kOwnBackoff = true;  // section 3.7's regulation (the file comment)
  static constexpr int kThreadBits = 10;  // 1024 threads, the engine's limit
  static constexpr uint64_t kSyncTicks = uint64_t{1} << 18;         // ~100 us at 2.5 GHz
  static constexpr uint64_t kRegulatorPeriod = uint64_t{1} << 24;   // ~5 ms
  static constexpr uint64_t kBackoffStep = uint64_t{1} << 11;       // ~0.8 us
  static constexpr uint64_t kMaxBackoff = uint64_t{1} << 18;        // ~100 us
  static constexpr uint64_t kBackoffSeed = 0x5eedc1cada;

  using RowMeta = mv::RowVersions;
  struct AccessMeta {
    uint64_t wts = 0;  // the version read
    bool locked = false;
  };
  struct TxnMeta {
    uint64_t ts = 0;
    uint64_t clock = 0;       // the thread's clock at its last timestamp
    uint64_t next_sync = 0;   // clock of the next one-sided synchronization
    uint32_t sync_peer = 0;
    bool registered = false;
    Random rng;  // backoff draws, seeded per thread at registration
  };

  Cicada() : base_ticks_(ticks()) {}

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    const uint32_t t = txn.thread_id();
    if (txn.restarts() > 0) back_off(m, state_.slot(t));
    uint64_t clock = std::max(ticks() - base_ticks_, m.clock + 1);
    regulate(clock);
    if (clock >= m.next_sync) [[unlikely]]
      clock = synchronize(m, t, clock);
    m.clock = clock;
    m.ts = clock << kThreadBits | t;
    if (!m.registered) [[unlikely]] {
      m.registered = true;
      m.rng = Random(seed_for(kBackoffSeed, t));  // threads back off independently
      const uint64_t bound = state_.bounds().register_thread(t, m.ts);
      if (bound != m.ts) {  // the GC already used a higher minimum: start above it
        m.clock = (bound >> kThreadBits) + 1;
        m.ts = m.clock << kThreadBits | t;
      }
    }
    state_.bounds().publish(t, m.ts);
  }

  RC read(auto& txn, auto& a) { return mv::read_at(txn, a, txn.meta().ts); }
  RC write(auto& txn, auto& a) { return mv::write_at(txn, a, txn.meta().ts); }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
    const uint64_t ts = txn.meta().ts;
    mv::MvState::Slot& s = state_.slot(txn.thread_id());
    for (auto& a : txn.accesses()) {  // 1. early version consistency check
      if (a.type != AccessType::kInsert && !passes_early_check(a, ts)) {
        ++s.counters.early_aborts;
        return RC::kValidation;
      }
    }
    const auto writes = sorted_by_contention(txn);  // 2.
    for (auto* a : writes) {                        // 3. pending versions
      uint64_t expected = a->meta.wts;
      if (!a->row->meta.word.compare_exchange_strong(expected, mv::kLockBit | ts, std::memory_order_acq_rel)) {
        ++s.counters.write_conflicts;
        return fail(writes);
      }
      a->meta.locked = true;
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (auto& a : txn.accesses())  // 4. read timestamp update
      if (a.type == AccessType::kRead) mv::raise_rts(a.row->meta, a.meta.wts, ts);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (auto& a : txn.accesses()) {  // 5. version consistency check
      if (a.type == AccessType::kInsert) continue;
      const bool ok =
          a.is_write() ? a.row->meta.rts.load(std::memory_order_acquire) <= ts : still_visible(a, ts);
      if (!ok) return fail(writes);
    }
    // Inserts become visible, still locked, before any write does; so a
    // reader that sees one of this transaction's writes finds its inserts.
    txn.publish_inserts([&](RowMeta& m, auto row) {
      m.wts.store(ts, std::memory_order_relaxed);
      m.rts.store(ts, std::memory_order_relaxed);
      row[m.word].store(mv::kLockBit | ts, std::memory_order_relaxed);
    });
    for (auto* a : writes) mv::install_version(txn, *a, s, ts, ts, mv::kInfinity);
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kInsert) a.row->meta.word.rewrite(ts, std::memory_order_release);
    state_.after_commit(s);
    return RC::kOk;
  }

  void abort(auto&) {}  // nothing is held during execution

  // Protocol counters (protocol.h, HasProtocolStats).
  mv::MvState::Totals total_stats() const { return state_.totals(); }
  void reset_stats(uint32_t thread) { state_.reset_stats(thread); }
  void stats_json(JsonWriter& w) const {
    state_.versions_json(w);
    const mv::Counters c = state_.totals().counters;
    w.key("early_aborts").value(c.early_aborts);
    w.key("pending_install_aborts").value(c.write_conflicts);
    w.key("backoffs").value(c.backoffs);
    w.key("max_backoff_ticks").value(max_backoff_.load(std::memory_order_relaxed));
  }
  uint64_t gc_minimum() const { return state_.bounds().minimum(); }

 private:
  // The CPU's time-stamp counter (engine/core/clock.h; the constants above
  // assume a 2.5 GHz one, which it is under sim).
  static uint64_t ticks() { return cpu_ticks(); }

  // One-sided synchronization with the next peer: adopt its clock if ahead.
  uint64_t synchronize(TxnMeta& m, uint32_t t, uint64_t clock) {
    const uint32_t n = state_.bounds().threads();
    if (n > 1) {
      const uint32_t peer = (t + 1 + m.sync_peer++ % (n - 1)) % n;
      const uint64_t theirs = state_.bounds().bound_of(peer);
      if (theirs != mv::kInfinity) clock = std::max(clock, (theirs >> kThreadBits) + 1);
    }
    m.next_sync = clock + kSyncTicks;
    return clock;
  }

  static bool passes_early_check(const auto& a, uint64_t ts) {
    const mv::RowVersions& m = a.row->meta;
    const uint64_t w = m.word.unmodelled().load(std::memory_order_acquire);
    if (a.is_write())  // the newest version is still the one read, unlocked, and not read later than ts
      return w == a.meta.wts && m.rts.load(std::memory_order_relaxed) <= ts;
    if (w & mv::kLockBit) return (w & mv::kStampMask) > ts;  // a pending version below ts: outcome unknown
    return w >= ts || w == a.meta.wts;  // no newer committed version below ts
  }

  // Step 5 for a read: the version visible at ts is still the one read.
  static bool still_visible(const auto& a, uint64_t ts) {
    const mv::RowVersions& m = a.row->meta;
    const uint64_t w = m.word.unmodelled().load(std::memory_order_acquire);
    uint64_t inline_wts = w;
    if (w & mv::kLockBit) {
      if ((w & mv::kStampMask) < ts) return false;  // pending below ts
      inline_wts = m.wts.load(std::memory_order_acquire);
    }
    return mv::visible_wts(m, inline_wts, ts) == a.meta.wts;
  }

  static auto sorted_by_contention(auto& txn) {
    auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    std::sort(writes.begin(), writes.end(), [](const auto* x, const auto* y) { return x->meta.wts > y->meta.wts; });
    return writes;
  }

  // Removes the pending versions installed so far.
  static RC fail(const auto& writes) {
    for (auto* a : writes) {
      if (!a->meta.locked) continue;
      a->row->meta.word.rewrite(a->meta.wts, std::memory_order_release);  // the pending CAS charged the line
      a->meta.locked = false;
    }
    return RC::kValidation;
  }

  // Contention regulation: a retry waits a random time below the maximum.
  void back_off(TxnMeta& m, mv::MvState::Slot& s) {
    const uint64_t cap = max_backoff_.load(std::memory_order_relaxed);
    if (cap == 0) return;
    ++s.counters.backoffs;
    const uint64_t until = ticks() + m.rng.below(cap);
    while (ticks() < until) cpu_relax();
  }
  // Every kRegulatorPeriod, one thread (the first to see the period due,
  // under the regulating_ flag) moves the maximum backoff one step, in the
  // direction that last raised the committed throughput.
  void regulate(uint64_t clock) {
    if (clock < next_regulation_.load(std::memory_order_relaxed)) [[likely]]
      return;
    if (regulating_.exchange(true, std::memory_order_acquire)) return;  // another thread is at it
    if (clock >= next_regulation_.load(std::memory_order_relaxed)) {
      next_regulation_.store(clock + kRegulatorPeriod, std::memory_order_relaxed);
      step_backoff();
    }
    regulating_.store(false, std::memory_order_release);
  }
  void step_backoff() {
    const uint64_t commits = state_.commits();
    const uint64_t done = commits - regulator_commits_;
    regulator_commits_ = commits;
    if (done < regulator_last_) regulator_up_ = !regulator_up_;
    regulator_last_ = done;
    const uint64_t cap = max_backoff_.load(std::memory_order_relaxed);
    max_backoff_.store(
        regulator_up_ ? std::min(cap + kBackoffStep, kMaxBackoff) : cap - std::min(cap, kBackoffStep),
        std::memory_order_relaxed);
  }

  const uint64_t base_ticks_;
  mv::MvState state_;
  // The regulator's schedule and its output, written once a period: not
  // lines of the model.
  alignas(64) Shared<uint64_t, Modelled::kNo> next_regulation_{0};
  Shared<bool, Modelled::kNo> regulating_{false};
  Shared<uint64_t, Modelled::kNo> max_backoff_{0};
  // The regulator's state, touched only under regulating_.
  uint64_t regulator_commits_ = 0, regulator_last_ = 0;
  bool regulator_up_ = true;
};

}  // namespace ccb
