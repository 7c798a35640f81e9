// MOCC: mostly-optimistic concurrency control (Wang and Kimura, "Mostly-
// Optimistic Concurrency Control for Highly Contended Dynamic Workloads on a
// Thousand Cores", PVLDB 10(2), 2016), on Silo (engine/cc/silo/silo.h), the OCC the
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
// TID-locked by a transaction that still waits for something. The locks are
// hints: correctness comes from Silo's validation, so a lock may be released
// before commit (to restore canonical mode, below) at the price of a possible
// validation failure.
//
// Canonical mode (section 4.1): a transaction is in canonical mode when every
// lock it holds lies below (by row address) the lock it asks for; then it may
// wait, because every wait goes to a strictly larger address than anything
// the waiter holds, so no waits-for cycle can form. Each attempt keeps its
// current lock list (CLL): the locks it wants, sorted by address, with the
// mode it wants and the mode it holds.
//
// Retrospective lock list (section 4.2): when an attempt fails (validation,
// or a lock it gave up on), it leaves the RLL for its retry: every row it
// wrote (exclusive), every row it read that is hot or failed validation
// (shared), and every lock it took or tried to take (the CLL, with its mode).
// The retry, and only the retry of the same request (txn.restarts() > 0; a
// new request, restarts() == 0, drops the list), takes all of the RLL's locks
// in address order in begin(), before the procedure runs: it starts, and stays,
// in canonical mode, so it no longer aborts on the rows that made the previous
// attempt fail. (The paper's procedure takes, at each lock, the RLL's locks
// below it; taking the whole list up front holds them longer but is the same
// canonical order.) A read or first write of a row in the CLL locks it in the
// wanted mode even when the row is cold.
//
// A lock outside canonical mode (section 4.2's locking procedure): it is first
// tried once (a try never waits, so it cannot deadlock; the paper's
// non-canonical alternative). If busy, the attempt restores canonical mode by
// releasing every lock it holds at or above the row (they stay wanted in the
// CLL) and then waits, unless that would release "too many" locks
// (kMaxReleasedLocks; the paper leaves the bound open), in which case the
// attempt aborts with RC::kLockConflict and its retry runs under the RLL.
// Before waiting for a lock, the attempt takes every wanted lock below it that
// it does not hold (the RLL's, or ones released for canonical mode), in
// address order: those all lie above every lock held (released ones were at
// or above the lock that released them, and each wait takes all wanted ones
// below it first), so these waits are canonical as well. Upgrading a shared
// lock (a hot read that the transaction then writes) happens at commit, as
// the row's exclusive lock, and counts as held at the row: tried, then
// released and awaited like any other.
//
// The paper's MCS reader-writer locks (section 5) are replaced by one-word
// spin locks (RwLockWord, SpinWait), and its probabilistic temperature counter
// by an exact one. Read-only requests run as Silo's snapshot transactions
// (they never lock). Counters (cc_stats): Silo's snapshot counters plus hot
// reads/writes locked, aborts from a failed out-of-order lock, locks a retry
// took from its RLL, and locks released to restore canonical mode.
//
// Thread safety: one Mocc is shared by the workers; per-thread counters are
// written by their thread only; a transaction's CLL and RLL (TxnMeta) by its
// thread only.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cc_helpers/common.h"
#include "engine/cc/mocc/options.h"
#include "engine/cc/silo/silo.h"
#include "engine/core/json.h"

namespace ccb {

class Mocc : public Silo {
 public:
  static constexpr const char* kName = "mocc";
  using Options = MoccOptions;
  static constexpr int kMaxThreads = snapshot::Snapshots::kMaxThreads;
  // "Too many violations" (section 4.2), which the paper does not quantify: an
  // out-of-order lock that is busy releases at most this many locks to
  // restore canonical mode. Each released lock re-exposes a row the attempt
  // may already have read to the writers the lock kept out, so beyond a few
  // the attempt is better aborted and retried under its RLL, canonical from
  // the start.
  static constexpr size_t kMaxReleasedLocks = 4;

  struct RowMeta : Silo::RowMeta {
    RwLockWord lock;                          // MOCC's record lock (shared: hot reads)
    Shared<uint64_t> temperature{0};     // (decay period << kPeriodShift) | count
  };
  struct AccessMeta : Silo::AccessMeta {
    bool stale = false;  // failed validation at commit: the RLL takes the row
  };
  // A record lock in a lock list, ordered by address (row addresses and the
  // addresses of their lock words are in the same order).
  struct LockEntry {
    RwLockWord* lock = nullptr;
    LockHeld want = LockHeld::kNone;  // strongest mode asked for (or recorded, in the RLL)
    LockHeld held = LockHeld::kNone;  // mode held now (always kNone in the RLL)
  };
  // Per worker, kept across attempts (the vectors keep their capacity).
  struct TxnMeta : Silo::TxnMeta {
    std::vector<LockEntry> cll;  // current lock list of this attempt, sorted by address
    std::vector<LockEntry> rll;  // left by the last failed attempt for its retry, sorted
    size_t unheld = 0;           // entries of the CLL wanted but not held (released, or the RLL's)
  };

  explicit Mocc(uint32_t threshold = MoccOptions{}.temperature_threshold, uint32_t decay_ms = MoccOptions{}.decay_ms)
      : threshold_(threshold), decay_ms_(decay_ms) {}

  void configure(const MoccOptions& o) {
    threshold_ = o.temperature_threshold;
    decay_ms_ = o.decay_ms;
  }

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    if (txn.restarts() == 0) m.rll.clear();  // a new request: the list was about another one
    Silo::begin(txn);
    if (m.snapshot || m.rll.empty()) return;
    // Section 4.2: the retry takes the RLL's locks in canonical order before
    // it runs. Nothing is held yet, so every wait is canonical.
    m.cll = m.rll;
    m.unheld = m.cll.size();
    take_unheld_below(txn, m.cll.size());
    counters_[txn.thread_id()].rll_locks += m.cll.size();
  }

  RC read(auto& txn, auto& a) {
    if (!txn.meta().snapshot) {
      const bool is_hot = hot(a.row->meta);
      if (is_hot || wanted(txn, a.row->meta.lock)) {
        const RC rc = acquire(txn, a.row->meta.lock, LockHeld::kShared);
        if (rc != RC::kOk) return rc;
        if (is_hot) ++counters_[txn.thread_id()].hot_reads;
      }
    }
    return Silo::read(txn, a);  // a shared (or stronger) lock keeps writers out: the copy is stable
  }

  RC write(auto& txn, auto& a) {
    if (a.local == nullptr && !txn.meta().snapshot) {
      const bool is_hot = hot(a.row->meta);
      if (is_hot || wanted(txn, a.row->meta.lock)) {
        const RC rc = acquire(txn, a.row->meta.lock, LockHeld::kExclusive);
        if (rc != RC::kOk) return rc;
        if (is_hot) ++counters_[txn.thread_id()].hot_writes;
      }
    }
    // A read that becomes a write keeps its lock (if any) until commit, which
    // upgrades it.
    return Silo::write(txn, a);
  }

  RC commit(auto& txn) {
    if (txn.meta().snapshot) return Silo::commit(txn);
    // Silo's phase 1 with MOCC's record locks: all write locks in address
    // order first, then the TID lock bits.
    const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
    for (auto* a : writes) {
      const RC rc = acquire(txn, a->row->meta.lock, LockHeld::kExclusive);
      if (rc != RC::kOk) {
        fail(txn);
        return rc;
      }
    }
    for (auto* a : writes) {
      // Uncontended (we hold the record lock): not a line of the model.
      a->row->meta.tid.unmodelled().fetch_or(kLockBit, std::memory_order_acquire);
      a->meta.locked = true;
    }
    const RC rc = validate_and_install(txn, writes, [this](auto& a) {
      heat(a.row->meta);
      a.meta.stale = true;
      return true;  // heat (and remember) every row that failed, not just the first
    });
    if (rc == RC::kOk) release(txn);
    else fail(txn);
    return rc;
  }

  void abort(auto& txn) {
    if (!txn.meta().snapshot) fail(txn);
    Silo::abort(txn);
  }

  // The row's temperature now (decayed to the current period).
  uint32_t temperature(const RowMeta& m) const {
    return decayed(m.temperature.load(std::memory_order_relaxed));
  }
  bool hot(const RowMeta& m) const { return temperature(m) >= threshold_; }
  uint32_t threshold() const { return threshold_; }

  struct Stats {
    uint64_t hot_reads = 0, hot_writes = 0, lock_order_aborts = 0, rll_locks = 0, canonical_releases = 0;
  };
  Stats total_stats() const {
    Stats s;
    for (int t = 0; t < kMaxThreads; ++t) {
      s.hot_reads += counters_[t].hot_reads;
      s.hot_writes += counters_[t].hot_writes;
      s.lock_order_aborts += counters_[t].lock_order_aborts;
      s.rll_locks += counters_[t].rll_locks;
      s.canonical_releases += counters_[t].canonical_releases;
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
    w.key("rll_locks").value(s.rll_locks);
    w.key("canonical_releases").value(s.canonical_releases);
    w.key("temperature_threshold").value(threshold_);
    w.key("decay_ms").value(decay_ms_);
  }

 private:
  static constexpr int kPeriodShift = 16;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kPeriodShift) - 1;

  // Decay periods elapsed, from Silo's epoch clock (ticked every
  // kEpochMillis by the executor).
  uint64_t period() const {
    return epoch_.unmodelled().load(std::memory_order_relaxed) * static_cast<uint64_t>(kEpochMillis) / decay_ms_;
  }
  uint32_t decayed(uint64_t word) const {
    const uint64_t age = period() - std::min(period(), word >> kPeriodShift);
    return age >= kPeriodShift ? 0 : static_cast<uint32_t>((word & kCountMask) >> age);
  }
  void heat(RowMeta& m) {
    // Under sim the CAS loop is one read-modify-write of the row's line (a hot row's serializes).
    const auto row = rmw_line(m.temperature);
    uint64_t w = row[m.temperature].load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t count = std::min<uint64_t>(decayed(w) + 1, kCountMask);
      if (row[m.temperature].compare_exchange_weak(w, period() << kPeriodShift | count, std::memory_order_relaxed))
        return;
    }
  }

  // The first entry of `list` (sorted) at or above `l`.
  static auto position(std::vector<LockEntry>& list, const RwLockWord* l) {
    return std::lower_bound(list.begin(), list.end(), l,
                            [](const LockEntry& e, const RwLockWord* x) { return e.lock < x; });
  }
  static bool wanted(auto& txn, const RwLockWord& l) {
    auto& cll = txn.meta().cll;
    if (cll.empty()) return false;
    const auto it = position(cll, &l);
    return it != cll.end() && it->lock == &l;
  }

  // One try of `mode` on e (an upgrade when e is held shared).
  static bool try_take(LockEntry& e, LockHeld mode) {
    RwLockWord& l = *e.lock;
    const bool ok = mode == LockHeld::kShared ? l.try_lock_shared()
                    : e.held == LockHeld::kShared ? l.try_upgrade()
                                                  : l.try_lock_exclusive();
    if (ok) e.held = mode;
    return ok;
  }
  // REQUIRES: canonical mode (every lock held lies below e's), e not held.
  static void wait_take(LockEntry& e, LockHeld mode, LatchAcquisition& contention) {
    for (SpinWait w; !try_take(e, mode); w.pause()) contention.note();
  }
  // Takes, in address order, every wanted lock of cll[0, end) not held.
  // REQUIRES: each of them lies above every lock held (see the header).
  static void take_unheld_below(auto& txn, size_t end) {
    TxnMeta& m = txn.meta();
    for (size_t j = 0; j < end && m.unheld > 0; ++j) {
      if (m.cll[j].held != LockHeld::kNone) continue;
      LatchAcquisition contention;
      wait_take(m.cll[j], m.cll[j].want, contention);
      --m.unheld;
    }
  }
  static void unlock(LockEntry& e) {
    if (e.held == LockHeld::kExclusive) e.lock->unlock_exclusive();
    else if (e.held == LockHeld::kShared) e.lock->unlock_shared();
    e.held = LockHeld::kNone;
  }

  // Takes `l` in `mode` (or stronger) for this attempt, by section 4.2's
  // locking procedure (header): waits in canonical mode; out of it, tries,
  // then releases the locks at or above `l` and waits, or, with more than
  // kMaxReleasedLocks of them, fails with RC::kLockConflict.
  RC acquire(auto& txn, RwLockWord& l, LockHeld mode) {
    auto& cll = txn.meta().cll;
    if (!cll.empty() && !(cll.back().lock < &l)) [[unlikely]]
      return acquire_at_or_below(txn, l, mode);
    // Above every lock wanted (commit's writes come in address order).
    cll.push_back(LockEntry{&l, mode, LockHeld::kNone});
    LatchAcquisition contention;
    take_canonically(txn, cll.size() - 1, contention);
    return RC::kOk;
  }
  // acquire() of a lock at or below the last one wanted.
  RC acquire_at_or_below(auto& txn, RwLockWord& l, LockHeld mode) {
    TxnMeta& m = txn.meta();
    auto& cll = m.cll;
    auto it = position(cll, &l);
    if (it->lock != &l) it = cll.insert(it, LockEntry{&l, mode, LockHeld::kNone});
    else it->want = std::max(it->want, mode);
    if (it->held >= mode) return RC::kOk;
    const size_t pos = static_cast<size_t>(it - cll.begin());
    const size_t violations = static_cast<size_t>(
        std::count_if(cll.begin() + pos, cll.end(), [](const LockEntry& e) { return e.held != LockHeld::kNone; }));
    LatchAcquisition contention;
    if (violations > 0) {
      if (try_take(cll[pos], cll[pos].want)) return RC::kOk;
      contention.note();
      Stats& c = counters_[txn.thread_id()];
      if (violations > kMaxReleasedLocks) {
        ++c.lock_order_aborts;
        return RC::kLockConflict;
      }
      unlock(cll[pos]);  // held shared when this is its upgrade
      for (size_t j = pos + 1; j < cll.size(); ++j) {
        if (cll[j].held == LockHeld::kNone) continue;
        unlock(cll[j]);  // it stays wanted
        ++m.unheld;
      }
      c.canonical_releases += violations;
    }
    take_canonically(txn, pos, contention);
    return RC::kOk;
  }
  // In canonical mode (nothing held at or above cll[pos]): the wanted locks
  // below it not held, then cll[pos] in the mode it wants.
  static void take_canonically(auto& txn, size_t pos, LatchAcquisition& contention) {
    auto& cll = txn.meta().cll;
    take_unheld_below(txn, pos);
    wait_take(cll[pos], cll[pos].want, contention);
  }

  // The attempt failed: leaves the RLL for its retry (section 4.2), then
  // releases every lock.
  void fail(auto& txn) {
    TxnMeta& m = txn.meta();
    m.rll = m.cll;
    for (auto& a : txn.accesses()) {
      if (a.type == AccessType::kInsert) continue;
      const LockHeld mode = a.type == AccessType::kWrite             ? LockHeld::kExclusive
                            : a.meta.stale || hot(a.row->meta) ? LockHeld::kShared
                                                               : LockHeld::kNone;
      if (mode != LockHeld::kNone) m.rll.push_back(LockEntry{&a.row->meta.lock, mode, LockHeld::kNone});
    }
    std::sort(m.rll.begin(), m.rll.end(), [](const LockEntry& x, const LockEntry& y) { return x.lock < y.lock; });
    size_t n = 0;  // merge entries of one lock into the strongest mode
    for (const LockEntry& e : m.rll) {
      if (n > 0 && m.rll[n - 1].lock == e.lock) {
        m.rll[n - 1].want = std::max(m.rll[n - 1].want, e.want);
      } else {
        m.rll[n++] = LockEntry{e.lock, e.want, LockHeld::kNone};
      }
    }
    m.rll.resize(n);
    release(txn);
  }
  static void release(auto& txn) {
    TxnMeta& m = txn.meta();
    for (LockEntry& e : m.cll) unlock(e);
    m.cll.clear();
    m.unheld = 0;
  }

  struct alignas(64) Counters : Stats {};  // one cache line per thread
  uint32_t threshold_;
  uint32_t decay_ms_;
  std::unique_ptr<Counters[]> counters_{new Counters[kMaxThreads]};
};

}  // namespace ccb
