// Building blocks shared by several protocols: reader-writer lock words for
// the 2PL family, and the write-set ordering used by commit-time locking.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "engine/cc/txn.h"

namespace ccb {

// A reader-writer lock in one 64-bit word: bit 63 = exclusive, bits 0..62 =
// number of shared holders. Never blocks; callers decide whether to retry,
// wait or abort.
struct RwLockWord {
  static constexpr uint64_t kExclusive = uint64_t{1} << 63;
  std::atomic<uint64_t> word{0};

  bool try_lock_shared() {
    uint64_t v = word.load(std::memory_order_relaxed);
    do {
      if (v & kExclusive) return false;
    } while (!word.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed));
    return true;
  }
  bool try_lock_exclusive() {
    uint64_t expected = 0;
    return word.compare_exchange_strong(expected, kExclusive, std::memory_order_acquire, std::memory_order_relaxed);
  }
  // Upgrade by the only shared holder.
  bool try_upgrade() {
    uint64_t expected = 1;
    return word.compare_exchange_strong(expected, kExclusive, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock_shared() { word.fetch_sub(1, std::memory_order_release); }
  void unlock_exclusive() { word.store(0, std::memory_order_release); }
};

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

template <class CC, class Pred>
AccessList<CC> sorted_accesses(Txn<CC>& txn, Pred pred) {
  auto& all = txn.accesses();
  auto** out = reinterpret_cast<Access<CC>**>(txn.scratch(sizeof(Access<CC>*) * (all.size() + 1)));
  size_t n = 0;
  for (auto& a : all)
    if (pred(a)) out[n++] = &a;
  std::sort(out, out + n, [](const Access<CC>* x, const Access<CC>* y) { return x->row < y->row; });
  return {out, n};
}

// Copies a row image into a.local while the row's metadata word `meta` stays
// unchanged and unlocked (`locked(v)` tells); returns the observed word. The
// seqlock read of the optimistic protocols.
template <class CC, class IsLocked>
uint64_t stable_copy(Txn<CC>& txn, Access<CC>& a, const std::atomic<uint64_t>& meta, IsLocked locked) {
  uint8_t* dst = a.local ? a.local : txn.make_local(a);
  const size_t n = a.table->data_size();
  for (;;) {
    const uint64_t before = meta.load(std::memory_order_acquire);
    if (locked(before)) {
      cpu_relax();
      continue;
    }
    racy_copy(dst, a.row->data(), n);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (meta.load(std::memory_order_relaxed) == before) return before;
  }
}

}  // namespace ccb
