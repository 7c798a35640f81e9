// Building blocks shared by several protocols: the write-set ordering used by
// commit-time locking, the seqlock row copy of the optimistic protocols, and
// the predicted-access-set acquisition of LockSorted and PreNoWait, the
// bounded no-wait locking of Silo's and TicToc's write sets. The
// latches (reader-writer lock words, the optimistic protocols' lock bit) are
// engine/core/latch.h.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/core/latch_contention.h"
#include "engine/txn/txn.h"
#include "engine/core/latch.h"
#include "engine/core/shared.h"
#include "engine/core/spin.h"

namespace ccb {

enum class LockHeld : uint8_t { kNone, kShared, kExclusive };

// The accesses selected by `pred`, ordered by row address: taking commit-time
// locks in one global order rules out deadlock (Silo section 4.4). The array
// lives in the transaction's scratch memory, valid until the next begin().
template <class CC>
struct AccessList {
  Access<CC>** items;
  size_t n;
  Access<CC>** begin() const { return items; }
  Access<CC>** end() const { return items + n; }
  size_t size() const { return n; }
};

template <class CC, bool kProfiled, class Pred>
AccessList<CC> sorted_accesses(Txn<CC, kProfiled>& txn, Pred pred) {
  auto& all = txn.accesses();
  auto** out = reinterpret_cast<Access<CC>**>(txn.scratch(sizeof(Access<CC>*) * (all.size() + 1)));
  size_t n = 0;
  for (auto& a : all)
    if (pred(a)) out[n++] = &a;
  std::sort(out, out + n, [](const Access<CC>* x, const Access<CC>* y) { return x->row < y->row; });
  return {out, n};
}

// The accesses selected by `pred`, in access order (unsorted): the commit-time
// latching of DBx1000's BOUNDED_SPINNING variants (OCC's and Silo's
// --*_validation=bounded), which abort instead of waiting and so need no
// global order. Same lifetime as sorted_accesses.
template <class CC, bool kProfiled, class Pred>
AccessList<CC> accesses_in_order(Txn<CC, kProfiled>& txn, Pred pred) {
  auto& all = txn.accesses();
  auto** out = reinterpret_cast<Access<CC>**>(txn.scratch(sizeof(Access<CC>*) * (all.size() + 1)));
  size_t n = 0;
  for (auto& a : all)
    if (pred(a)) out[n++] = &a;
  return {out, n};
}

// Copies a row image into a.local while the row's metadata word `meta` stays
// unchanged and without `kLockBit` (the protocol's lock or latch bit, as in
// lock_bit); returns the observed word. The seqlock read of the optimistic
// protocols. The bit is a template argument, not a predicate: a predicate
// passed as a function pointer was called, not inlined, once per access
// (callgrind, issue 19).
template <uint64_t kLockBit, class CC, bool kProfiled>
[[gnu::always_inline]] inline uint64_t stable_copy(Txn<CC, kProfiled>& txn, Access<CC>& a,
                                                   const Shared<uint64_t>& meta) {
  uint8_t* dst = a.local ? a.local : txn.make_local(a);
  const size_t n = a.table->data_size();
  for (;;) {
    const uint64_t before = meta.load(std::memory_order_acquire);
    if (before & kLockBit) {
      cpu_relax();
      continue;
    }
    racy_copy(dst, a.row->data(), n);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (meta.reread() == before) return before;
  }
}

// Accesses the predicted access set `d` through txn.read()/txn.update(), in
// ascending global-key order: the acquisition phase of the protocols that lock
// everything before executing (LockSorted, PreNoWait; Strife section 5.3). The
// key sets must be sorted (the executor sorts them once per buffered request),
// so a merge gives one global order and waiting in it cannot deadlock. A
// predicted key without a row is skipped: the procedure meets the missing row
// itself. Returns the first failure of the protocol, else RC::kOk.
// REQUIRES: every table the description names is registered with the
// transaction (Txn::register_table).
template <class TxnT>
RC access_predicted(TxnT& txn, const TxnDesc& d) {
  auto access = [&txn](GlobalKey k, bool write) {
    auto* table = txn.table(table_of(k));
    if (table == nullptr) {
      std::fprintf(stderr, "fatal: predicted key of table %u, which the workload did not register\n", table_of(k));
      std::abort();
    }
    const uint8_t* p = write ? txn.update(*table, local_key_of(k)) : txn.read(*table, local_key_of(k));
    return p != nullptr || txn.failure() == RC::kNotFound ? RC::kOk : txn.failure();
  };
  // Every predicted row's bucket and row, fetched together before the
  // acquisition takes them one by one (Txn::prefetch; the procedure's own
  // prefetch comes after this phase, too late for it).
  using PrefetchKey = typename TxnT::PrefetchKey;
  auto* declared = reinterpret_cast<PrefetchKey*>(
      txn.scratch(sizeof(PrefetchKey) * (d.read_set.size() + d.write_set.size())));
  size_t n = 0;
  for (const auto* keys : {&d.read_set, &d.write_set})
    for (GlobalKey k : *keys)
      if (const auto* table = txn.table(table_of(k))) declared[n++] = {table, local_key_of(k)};
  txn.prefetch(declared, n);
  size_t r = 0, w = 0;
  while (r < d.read_set.size() || w < d.write_set.size()) {
    const bool take_write = r == d.read_set.size() || (w < d.write_set.size() && d.write_set[w] < d.read_set[r]);
    const RC rc = take_write ? access(d.write_set[w++], true) : access(d.read_set[r++], false);
    if (rc != RC::kOk) return rc;
  }
  return RC::kOk;
}

// The write set's no-wait locking of DBx1000's validate_silo and
// validate_tictoc under VALIDATION_LOCK "no-wait", PRE_ABORT "true" and
// BOUNDED_SPINNING (Silo's and TicToc's --*_validation=bounded): the
// pre-abort check `pre_abort()`; then `writes`, in access order, locked with
// one try per row (the bit kBit of `word(a)`), each locked row checked with
// `changed(a)`; a held lock releases the locks taken, repeats the pre-abort
// check and, after a back-off of 1, 3, 7, ... pause rounds up to `bound`
// (2^k - 1), retries the whole set. Returns whether every write is locked
// (each with meta.locked set); false: the transaction aborts, nothing locked.
template <uint64_t kBit>
bool lock_writes_no_wait_bounded(const auto& writes, uint32_t bound, auto&& word, auto&& changed, auto&& pre_abort) {
  if (!pre_abort()) return false;
  for (uint32_t backoff = 0;;) {
    size_t locked = 0;
    bool stale = false;
    for (auto* a : writes) {
      if (!try_lock_bit_bounded<kBit>(word(*a), 0)) break;  // one try
      a->meta.locked = true;
      ++locked;
      if (changed(*a)) {
        stale = true;
        break;
      }
    }
    if (!stale && locked == writes.size()) return true;
    for (auto* a : writes) {
      if (locked-- == 0) break;
      unlock_bit<kBit>(word(*a));
      a->meta.locked = false;
    }
    if (stale || !pre_abort() || backoff >= bound) return false;
    backoff = ((backoff << 1) | 1) & bound;
    for (uint32_t i = backoff; i > 0; --i) cpu_relax();
  }
}

}  // namespace ccb
