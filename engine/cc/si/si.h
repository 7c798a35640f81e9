// Snapshot isolation (Berenson et al., "A Critique of ANSI SQL Isolation
// Levels", SIGMOD 1995), on the version storage of engine/core/versions.h;
// and the engine of ERMIA (engine/cc/ermia/ermia.h), which adds the Serial Safety
// Net to it.
//
// Timestamps: one global commit counter (ERMIA's log sequence numbers play
// this role). A transaction's snapshot is the counter's value s when it
// begins; it reads, of every row, the newest version whose commit stamp is at
// most s (read_visible at s + 1), so it sees exactly the transactions that
// committed before it began.
// Commit: lock the rows written (ERMIA: and the rows read) in address order,
// waiting for other committers (readers wait for a locked row too, so no
// reader sees half of a commit); first committer wins: every row written must
// still have, as its newest version, the one the transaction read (else a
// transaction that committed after the snapshot wrote it: abort). Inserted
// rows are published still locked; then the commit stamp c is drawn from the
// counter, and each write saves the old image into the chain and installs the
// new one with stamp c, releasing its lock. A reader whose snapshot includes
// c began after c was drawn, so after every row of the commit was locked (or
// published locked): it waits for them rather than miss one.
//
// SI is not serializable: write skew (two transactions each read what the
// other writes, both commit) and the read-only anomaly of Fekete et al.
// commit, and the serializability checker reports them as G2 cycles
// (registry: serializable = no). It is the baseline ERMIA's SSN repairs.
//
// Thread safety: as engine/cc_helpers/mv_common.h; the counter is one atomic.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/mv_common.h"

namespace ccb {

// kSsn: ERMIA's Serial Safety Net on top (engine/cc/ermia/ermia.h).
template <bool kSsn>
class SnapshotIsolation {
 public:
  using RowMeta = mv::RowVersions;
  struct AccessMeta {
    uint64_t wts = 0;  // the version read (its commit stamp)
    bool locked = false;
  };
  struct TxnMeta {
    uint64_t read_ts = 0;  // snapshot + 1: versions below it are visible
    bool registered = false;
  };

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    // Under sim: the global commit counter's line, written by every commit.
    m.read_ts = counter_.load(std::memory_order_acquire) + 1;
    const uint32_t t = txn.thread_id();
    if (!m.registered) [[unlikely]] {
      m.registered = true;
      // The GC minimum never exceeds counter + 1 (every bound came from it).
      state_.bounds().register_thread(t, m.read_ts);
    }
    state_.bounds().publish(t, m.read_ts);
  }

  RC read(auto& txn, auto& a) { return mv::read_at(txn, a, txn.meta().read_ts); }
  RC write(auto& txn, auto& a) { return mv::write_at(txn, a, txn.meta().read_ts); }
  RC insert(auto&, auto&) { return RC::kOk; }

  RC commit(auto& txn) {
    mv::MvState::Slot& s = state_.slot(txn.thread_id());
    const auto rows = sorted_accesses(txn, [](const auto& a) {
      return kSsn ? a.type != AccessType::kInsert : a.type == AccessType::kWrite;
    });
    if constexpr (!kSsn) {  // a read-only SI transaction commits as it is
      if (rows.size() == 0 && std::none_of(txn.accesses().begin(), txn.accesses().end(),
                                           [](const auto& a) { return a.type == AccessType::kInsert; }))
        return RC::kOk;
    }
    for (auto* a : rows) {
      lock_bit<mv::kLockBit>(a->row->meta.word);
      a->meta.locked = true;
    }
    for (auto* a : rows) {  // first committer wins
      if (a->is_write() && a->row->meta.wts.load(std::memory_order_relaxed) != a->meta.wts) {
        ++s.counters.write_conflicts;
        return fail(rows);
      }
    }
    uint64_t successor = mv::kInfinity;  // SSN's pi(T), before min with c
    if constexpr (kSsn) {
      if (!exclusion_window_ok(rows, successor)) {
        ++s.counters.ssn_aborts;
        return fail(rows);
      }
    }
    txn.publish_inserts([](RowMeta& m, auto row) { row[m.word].store(mv::kLockBit, std::memory_order_relaxed); });
    // Under sim: commits serialize on the counter's line.
    const uint64_t c = counter_.fetch_add(1, std::memory_order_acq_rel) + 1;
    const uint64_t sstamp = kSsn ? std::min(successor, c) : mv::kInfinity;
    for (auto* a : rows) {
      if (a->is_write()) {
        mv::install_version(txn, *a, s, c, c, sstamp);  // SSN: a new version's pstamp is c
      } else {  // SSN: the version read gets pstamp >= c
        mv::raise_rts(a->row->meta, a->meta.wts, c);
        unlock_bit<mv::kLockBit>(a->row->meta.word);
        a->meta.locked = false;
      }
    }
    for (auto& a : txn.accesses())
      if (a.type == AccessType::kInsert) mv::publish_inline(a.row->meta, c, c);
    state_.after_commit(s);
    return RC::kOk;
  }

  void abort(auto&) {}  // nothing is held during execution

  mv::MvState::Totals total_stats() const { return state_.totals(); }
  void reset_stats(uint32_t thread) { state_.reset_stats(thread); }
  uint64_t gc_minimum() const { return state_.bounds().minimum(); }

 protected:
  // ERMIA's exclusion-window test (the Serial Safety Net, engine/cc/ermia/ermia.h)
  // over the locked rows, read and written. eta(T), the latest commit stamp
  // of a transaction T must follow: the creators of the versions read or
  // overwritten, and the committed readers of the versions overwritten (their
  // pstamp, the inline rts). pi(T), the earliest successor stamp of a
  // transaction that must follow T: the sstamps of the versions T read that
  // were overwritten since. T may commit only if eta(T) < pi(T); `successor`
  // is set to pi(T) without T's own commit stamp, which cannot decide the test
  // (every predecessor committed before T draws its stamp).
  static bool exclusion_window_ok(const auto& rows, uint64_t& successor) {
    uint64_t predecessor = 0;
    for (auto* a : rows) {
      const mv::RowVersions& m = a->row->meta;
      predecessor = std::max(predecessor, a->meta.wts);
      if (a->is_write()) {
        predecessor = std::max(predecessor, m.rts.load(std::memory_order_relaxed));
      } else if (m.wts.load(std::memory_order_relaxed) != a->meta.wts) {
        const mv::Version* v = mv::find_version(m, a->meta.wts);
        assert(v != nullptr && "a version visible to a running transaction was recycled");
        successor = std::min(successor, v->sstamp.load(std::memory_order_relaxed));
      }
    }
    return predecessor < successor;
  }

  static RC fail(const auto& rows) {
    for (auto* a : rows) {
      unlock_bit<mv::kLockBit>(a->row->meta.word);
      a->meta.locked = false;
    }
    return RC::kValidation;
  }

  alignas(64) Shared<uint64_t> counter_{0};
  mv::MvState state_;
};

class Si : public SnapshotIsolation<false> {
 public:
  static constexpr const char* kName = "si";
  void stats_json(JsonWriter& w) const {
    state_.versions_json(w);
    w.key("write_conflicts").value(state_.totals().counters.write_conflicts);
  }
};

}  // namespace ccb
