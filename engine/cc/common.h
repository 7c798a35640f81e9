// Building blocks shared by several protocols: reader-writer lock words and
// spin waiting for the 2PL family, the lock bit of the optimistic protocols'
// row words, the write-set ordering used by commit-time locking, the seqlock
// row copy of the optimistic protocols, and the predicted-access-set
// acquisition of LockSorted and PreNoWait.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/cc/latch_contention.h"
#include "engine/cc/txn.h"
#include "engine/core/spin.h"

namespace ccb {

// A reader-writer lock in one 64-bit word: bit 63 = exclusive, bits 0..62 =
// the holders. Each holder adds its `unit`: 1 keeps a count of the holders
// (NoWait), owner_bit(thread) keeps the set of holding threads, for protocols
// that must know who holds a lock (wait-die compares the holders' timestamps,
// deadlock detection draws waits-for edges to them; at most kMaxOwners
// threads). An exclusive holder keeps its unit in the word as well. Never
// blocks; callers decide whether to retry, wait or abort. Under sim each call
// is one read-modify-write of the word's line (sim::rmw), the release by the
// exclusive holder a write of it.
// REQUIRES: a holder passes the same unit to every call on one lock.
struct RwLockWord {
  static constexpr uint64_t kExclusive = uint64_t{1} << 63;
  static constexpr int kMaxOwners = 63;
  static constexpr uint64_t owner_bit(uint32_t thread) { return uint64_t{1} << thread; }
  static constexpr uint64_t holders(uint64_t w) { return w & ~kExclusive; }
  std::atomic<uint64_t> word{0};

  bool try_lock_shared(uint64_t unit = 1) {
    sim::rmw(&word);
    uint64_t v = word.load(std::memory_order_relaxed);
    do {
      if (v & kExclusive) return false;
    } while (!word.compare_exchange_weak(v, v + unit, std::memory_order_acquire, std::memory_order_relaxed));
    return true;
  }
  bool try_lock_exclusive(uint64_t unit = 1) {
    sim::rmw(&word);
    uint64_t expected = 0;
    return word.compare_exchange_strong(expected, kExclusive | unit, std::memory_order_acquire,
                                        std::memory_order_relaxed);
  }
  // Upgrade by the only shared holder.
  bool try_upgrade(uint64_t unit = 1) {
    sim::rmw(&word);
    uint64_t expected = unit;
    return word.compare_exchange_strong(expected, kExclusive | unit, std::memory_order_acquire,
                                        std::memory_order_relaxed);
  }
  void unlock_shared(uint64_t unit = 1) {
    sim::rmw(&word);
    word.fetch_sub(unit, std::memory_order_release);
  }
  void unlock_exclusive() {
    sim::touch(&word, true);
    word.store(0, std::memory_order_release);
  }
};

// Registers worker `thread` in a count of registered threads that others
// scan (slots 0 .. count-1): raises `count` to at least thread + 1.
inline void register_in_count(std::atomic<uint32_t>& count, uint32_t thread) {
  uint32_t n = count.load(std::memory_order_relaxed);
  while (n < thread + 1 && !count.compare_exchange_weak(n, thread + 1, std::memory_order_acq_rel)) {
  }
}

enum class LockHeld : uint8_t { kNone, kShared, kExclusive };

// The commit-time latch of the optimistic protocols: bit `kBit` of a row's
// metadata word (OCC's latch, Silo's and BCC's TID lock bit, TicToc's lock
// bit). Sets it, spinning while another transaction holds it, and returns the
// word as it was just before (TicToc reads its rts from it). The other bits
// are left as they are. A contended acquisition is counted once
// (latch_contention.h). The bit is a template argument, so each protocol's
// loop compiles as its own copy did (a run-time bit changed GCC's inlining of
// OCC's commit).
template <uint64_t kBit>
inline uint64_t lock_bit(std::atomic<uint64_t>& word) {
  uint64_t v = word.load(std::memory_order_relaxed);
  for (LatchAcquisition contention;; contention.note()) {
    sim::rmw(&word);
    if (!(v & kBit) && word.compare_exchange_weak(v, v | kBit, std::memory_order_acquire, std::memory_order_relaxed))
      return v;
    cpu_relax();
    v = word.load(std::memory_order_relaxed);
  }
}
// Clears `kBit`, keeping the rest of the word (the holder wrote nothing).
// REQUIRES: the caller holds the bit (lock_bit).
template <uint64_t kBit>
inline void unlock_bit(std::atomic<uint64_t>& word) {
  sim::rmw(&word);
  word.fetch_and(~kBit, std::memory_order_release);
}

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

// Copies a row image into a.local while the row's metadata word `meta` stays
// unchanged and without `kLockBit` (the protocol's lock or latch bit, as in
// lock_bit); returns the observed word. The seqlock read of the optimistic
// protocols. The bit is a template argument, not a predicate: a predicate
// passed as a function pointer was called, not inlined, once per access
// (callgrind, issue 19).
template <uint64_t kLockBit, class CC, bool kProfiled>
[[gnu::always_inline]] inline uint64_t stable_copy(Txn<CC, kProfiled>& txn, Access<CC>& a,
                                                   const std::atomic<uint64_t>& meta) {
  uint8_t* dst = a.local ? a.local : txn.make_local(a);
  const size_t n = a.table->data_size();
  for (;;) {
    sim::touch(&meta, false);
    const uint64_t before = meta.load(std::memory_order_acquire);
    if (before & kLockBit) {
      cpu_relax();
      continue;
    }
    racy_copy(dst, a.row->data(), n);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (meta.load(std::memory_order_relaxed) == before) return before;
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

}  // namespace ccb
