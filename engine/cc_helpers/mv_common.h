// What the multi-version protocols (Cicada, engine/cc/cicada/cicada.h; SI and ERMIA,
// engine/cc/si/si.h and ermia.h) share on top of the version storage of
// engine/core/versions.h: the per-thread state (version store, counters), the
// read of the version visible at a timestamp, the install of a new version,
// and the statistics written as cc_stats.
//
// REQUIRES of the protocol: RowMeta is mv::RowVersions; AccessMeta has
// `uint64_t wts` (the wts of the version the access read) and `bool locked`
// (the transaction holds the row's lock bit).
//
// Thread safety: a thread uses its own Slot (slot(t) creates it on first use,
// by t itself); the statistics are read after the workers stopped, except the
// commit counts, which Cicada's regulator sums during the run (relaxed). Rows
// change only under their lock bit, and read_visible() waits while it is set.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/cc_helpers/common.h"
#include "engine/core/json.h"
#include "engine/core/versions.h"

namespace ccb::mv {

// Abort and regulation counters of one thread, beside its VersionStats.
struct Counters {
  uint64_t early_aborts = 0;     // Cicada: failed the early consistency check
  uint64_t ssn_aborts = 0;       // ERMIA: the exclusion-window test failed
  uint64_t write_conflicts = 0;  // SI, ERMIA: first committer wins; Cicada: a pending install failed
  uint64_t backoffs = 0;         // Cicada: retries delayed by contention regulation
  void add(const Counters& o) {
    early_aborts += o.early_aborts;
    ssn_aborts += o.ssn_aborts;
    write_conflicts += o.write_conflicts;
    backoffs += o.backoffs;
  }
};

// The versions of every worker thread, and their garbage collection.
class MvState {
 public:
  static constexpr uint32_t kMaxThreads = GcBounds::kMaxThreads;
  // Each thread refreshes the GC minimum and recycles its chunks every this
  // many commits (a scan of the published bounds).
  static constexpr uint32_t kCollectEvery = 64;

  struct alignas(64) Slot {
    VersionStore store;
    VersionStats versions;
    Counters counters;
    Shared<uint64_t> commits{0};  // read by Cicada's regulator
    uint32_t until_collect = kCollectEvery;
  };

  // Thread t's slot, made on its first use (by t itself).
  Slot& slot(uint32_t t) {
    assert(t < kMaxThreads);
    if (Slot* s = owned_[t].get()) [[likely]]
      return *s;
    owned_[t] = std::make_unique<Slot>();
    slots_[t].store(owned_[t].get(), std::memory_order_release);  // commits() reads it during the run
    register_in_count(n_slots_, t);
    return *owned_[t];
  }
  GcBounds& bounds() { return bounds_; }
  const GcBounds& bounds() const { return bounds_; }

  // After a commit of thread t that saved versions: now and then, recycle
  // the chunks no reader can reach any more.
  void after_commit(Slot& s) {
    s.commits.store(s.commits.reread() + 1, std::memory_order_relaxed);  // the owner's word: a charged store
    if (--s.until_collect > 0) [[likely]]
      return;
    s.until_collect = kCollectEvery;
    s.store.collect(bounds_.refresh(), s.versions);
  }

  // Commits of every thread so far (Cicada's regulator; relaxed).
  uint64_t commits() const {
    uint64_t n = 0;
    for_each_slot([&](const Slot& s) { n += s.commits.reread(); });  // for_each_slot charged the line
    return n;
  }

  // After the workers stopped.
  struct Totals {
    VersionStats versions;
    Counters counters;
    uint64_t bytes_held = 0, bytes_peak = 0;
  };
  Totals totals() const {
    Totals t;
    for_each_slot([&](const Slot& s) {
      t.versions.add(s.versions);
      t.counters.add(s.counters);
      t.bytes_held += s.store.bytes_held();
      t.bytes_peak += s.store.peak_bytes();
    });
    return t;
  }
  void reset_stats(uint32_t t) {
    Slot& s = slot(t);
    s.versions = VersionStats{};
    s.counters = Counters{};
  }
  // The version statistics every multi-version protocol reports.
  void versions_json(JsonWriter& w) const {
    const Totals t = totals();
    w.key("versions_created").value(t.versions.created);
    w.key("versions_gced").value(t.versions.reclaimed);
    w.key("chain_length_p99").value(t.versions.chain_quantile(0.99));
    w.key("version_bytes").value(static_cast<uint64_t>(t.bytes_held));
    w.key("version_bytes_peak").value(static_cast<uint64_t>(t.bytes_peak));
  }

 private:
  template <class Fn>
  void for_each_slot(Fn&& fn) const {
    const uint32_t n = n_slots_.load(std::memory_order_acquire);
    for (uint32_t t = 0; t < n; ++t)
      if (const Slot* s = slots_[t].load(std::memory_order_acquire)) {
        charge_line_read(s);  // under sim: another thread's slot (its commit count) moves here
        fn(*s);
      }
  }

  GcBounds bounds_;
  ThreadCount n_slots_{0};
  // Published once per thread; the scan charges each slot's line.
  std::unique_ptr<Shared<Slot*, Modelled::kNo>[]> slots_{new Shared<Slot*, Modelled::kNo>[kMaxThreads]()};
  std::unique_ptr<std::unique_ptr<Slot>[]> owned_{new std::unique_ptr<Slot>[kMaxThreads]};  // slot(t): t only
};

// Copies into a.local the newest version of a.row with wts < read_ts, waiting
// while a writer holds the row's lock; returns that version's wts, or
// kNoVersion when none is visible (the row was inserted later). The inline
// version is copied seqlock-style; chain versions are immutable.
// REQUIRES: the caller's published bound is at most read_ts (GcBounds), so
// no version it reaches is recycled.
template <class TxnT, class AccessT>
inline uint64_t read_visible(TxnT& txn, AccessT& a, uint64_t read_ts) {
  uint8_t* dst = a.local ? a.local : txn.make_local(a);
  const size_t n = a.table->data_size();
  RowVersions& m = a.row->meta;
  for (SpinWait wait;; wait.pause()) {
    // Under sim: the row's version word, written by its last installer.
    const uint64_t word = m.word.load(std::memory_order_acquire);
    if (word & kLockBit) continue;
    if (word < read_ts) {
      racy_copy(dst, a.row->data(), n);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (m.word.reread() != word) continue;
      return word;
    }
    for (const Version* v = m.older.load(std::memory_order_acquire); v != nullptr; v = v->older) {
      charge_line_read(v);  // under sim: the version's line, written by its installer
      if (v->wts < read_ts) {
        std::memcpy(dst, v->data(), n);
        return v->wts;
      }
    }
    return kNoVersion;
  }
}

// A multi-version protocol's read of a.row at snapshot read_ts (Cicada's
// timestamp, SI's and ERMIA's begin stamp): the visible version into a.local,
// its wts in a.meta.wts; kNotFound when the row was inserted after the
// snapshot. A write first reads the same way; a write after a read (an
// upgrade) keeps the version read. Installing is the protocol's, at commit.
template <class TxnT, class AccessT>
inline RC read_at(TxnT& txn, AccessT& a, uint64_t read_ts) {
  const uint64_t wts = read_visible(txn, a, read_ts);
  if (wts == kNoVersion) return RC::kNotFound;
  a.meta.wts = wts;
  a.data = a.local;
  return RC::kOk;
}
template <class TxnT, class AccessT>
inline RC write_at(TxnT& txn, AccessT& a, uint64_t read_ts) {
  return a.local == nullptr ? read_at(txn, a, read_ts) : RC::kOk;
}

// The wts of the version of `m` visible at read_ts now, given the inline
// version's wts `inline_wts`; kNoVersion if none.
// REQUIRES: as read_visible.
inline uint64_t visible_wts(const RowVersions& m, uint64_t inline_wts, uint64_t read_ts) {
  if (inline_wts < read_ts) return inline_wts;
  for (const Version* v = m.older.load(std::memory_order_acquire); v != nullptr; v = v->older)
    if (v->wts < read_ts) return v->wts;
  return kNoVersion;
}

// The chain version of `m` with write stamp `wts`, or nullptr.
// REQUIRES: as read_visible.
inline const Version* find_version(const RowVersions& m, uint64_t wts) {
  for (const Version* v = m.older.load(std::memory_order_acquire); v != nullptr; v = v->older)
    if (v->wts <= wts) return v->wts == wts ? v : nullptr;
  return nullptr;
}

// Sets the stamps of the inline version and releases the row's lock.
inline void publish_inline(RowVersions& m, uint64_t stamp, uint64_t rts) {
  const auto row = write_line(m);  // under sim: the row's line, once for the three stamps
  m.rts.store(rts, std::memory_order_relaxed);
  m.wts.store(stamp, std::memory_order_release);
  row[m.word].store(stamp, std::memory_order_release);
}

// Saves the inline version of a.row into its chain (with successor stamp
// `sstamp`, ERMIA's; kInfinity otherwise), then installs a's private image
// inline (Txn::install) with write stamp `stamp` and read stamp `rts`, and
// releases the row's lock. REQUIRES: the caller holds the row's lock, and its
// stamps do not decrease (VersionStore::allocate).
template <class TxnT, class AccessT>
inline void install_version(TxnT& txn, AccessT& a, MvState::Slot& s, uint64_t stamp, uint64_t rts,
                            uint64_t sstamp) {
  RowVersions& m = a.row->meta;
  const size_t n = a.table->data_size();
  Version* v = s.store.allocate(n, stamp, s.versions);
  charge_line_write(v);  // under sim: the new version's line and the row's
  charge_line_write(&m);
  v->wts = m.wts.load(std::memory_order_relaxed);
  v->sstamp.store(sstamp, std::memory_order_relaxed);
  v->older = m.older.load(std::memory_order_relaxed);
  v->row = &m;
  std::memcpy(v->data(), a.row->data(), n);  // readers only copy the row while it is unlocked
  m.older.store(v, std::memory_order_release);
  s.versions.note_chain(m.chain.fetch_add(1, std::memory_order_relaxed) + 1);
  txn.install(a);
  publish_inline(m, stamp, rts);
  a.meta.locked = false;
}

// Raises the inline version's read stamp to at least `stamp`, if the inline
// version is still the one of write stamp `wts` (an older version's read stamp
// matters to nobody: writers install only above the newest version).
inline void raise_rts(RowVersions& m, uint64_t wts, uint64_t stamp) {
  if (m.wts.load(std::memory_order_acquire) != wts) return;
  uint64_t r = m.rts.load(std::memory_order_relaxed);
  if (r < stamp) charge_line_rmw(&m.rts);  // under sim: the CAS loop, one read-modify-write of the line
  while (r < stamp && !m.rts.compare_exchange_weak(r, stamp, std::memory_order_acq_rel, std::memory_order_relaxed)) {
  }
}

}  // namespace ccb::mv
