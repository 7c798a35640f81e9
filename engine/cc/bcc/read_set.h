// BCC's read-set hash tables (Yuan et al., PVLDB 9(6) 2016, section 4.2): a
// transaction's reads as other threads search them. Each is an
// open-addressing table of <row, TID> slots with linear probing, at most half
// full; its owner inserts (put_read), any thread looks a row up (find_read),
// and nothing is removed while the table lives. The tables live in the
// owner's history list (engine/cc/bcc/history.h), which decides when their
// memory is reused.
//
// Tables are never zeroed: each table of a thread carries a 16-bit stamp,
// unique among the tables that thread allocated since its buffers were last
// wiped, and a slot's key is `row address | stamp << 48`. A slot holding
// another stamp (left by an older table in the same memory, or 0 in fresh
// memory) is empty. This takes the memset of a table at every begin() (and
// at every grow) off the transaction path; a thread wipes its buffers only
// when its stamps run out, once every 65535 transactions (Bcc::begin_update).
// A table is named by one word: stamp << 48 | slot array address | log2(capacity).
//
// Ordering of an insert against a searching writer (Algorithm 2): the reader
// inserts, then re-checks the row; a writer locks the row, then searches. With
// `fenced` inserts a sequentially consistent fence follows the insert's
// release stores; without, the searcher issues asymmetric_fence() before
// searching, which makes every running thread execute a full barrier
// (--bcc_fence, bcc::Fence, chooses; Bcc's file comment has the argument).
//
// Thread safety: put_read and rehash_reads by the table's owner only;
// find_read by any thread, concurrently with the owner's inserts (the TID is
// stored before the key, so a searcher that finds a key finds its TID).
// REQUIRES: row addresses fit in 48 bits (user-space addresses of x86-64 and
// AArch64 Linux do unless a mapping is requested above, with 5-level paging);
// a table's slot array is 64-byte aligned and has 2^k slots, k < 64.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>

#include "engine/core/shared.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ccb::bcc {

// "No TID": find_read's answer for a row not in the table.
inline constexpr uint64_t kNone = ~uint64_t{0};

inline constexpr int kStampShift = 48;
inline constexpr uint64_t kMaxStamp = (uint64_t{1} << (64 - kStampShift)) - 1;
inline constexpr uint64_t kAddressBits = (uint64_t{1} << kStampShift) - 1;
// Written by the table's owner only; a slot's line is charged as a whole
// (charge_line_read by a searcher, charge_line_write by the owner), so its
// words are not charged one by one.
struct ReadSlot {
  Shared<uint64_t, Modelled::kNo> key{0};  // row address | stamp << kStampShift
  Shared<uint64_t, Modelled::kNo> tid{0};
};
// A table decoded from its word.
struct ReadSet {
  ReadSlot* slots;
  uint64_t mask;   // capacity - 1
  uint64_t stamp;  // stamp << kStampShift
  int shift;       // 64 - log2(capacity)
  explicit ReadSet(uint64_t table)
      : slots(reinterpret_cast<ReadSlot*>(table & kAddressBits & ~uint64_t{63})),
        mask((uint64_t{1} << (table & 63)) - 1),
        stamp(table & ~kAddressBits),
        shift(64 - static_cast<int>(table & 63)) {}
  uint64_t key(uint64_t row) const {
    assert(row <= kAddressBits);
    return row | stamp;
  }
  uint64_t home(uint64_t row) const { return (row * 0x9E3779B97F4A7C15ull) >> shift; }
  static bool empty(uint64_t slot_key, uint64_t key) { return ((slot_key ^ key) >> kStampShift) != 0; }
};

// The TID at which the table's owner read `row`, or kNone. Any thread.
inline uint64_t find_read(uint64_t table, uint64_t row) {
  const ReadSet t(table);
  const uint64_t key = t.key(row);
  for (uint64_t i = t.home(row), probes = 0; probes <= t.mask; i = (i + 1) & t.mask, ++probes) {
    charge_line_read(&t.slots[i]);  // the owner's table: its lines move here under sim
    const uint64_t k = t.slots[i].key.load(std::memory_order_seq_cst);
    if (k == key) return t.slots[i].tid.load(std::memory_order_seq_cst);
    if (ReadSet::empty(k, key)) break;
  }
  return kNone;
}

// Records that the owner read `row` at `tid`; true if the row is new. With
// `fenced`, a sequentially consistent fence follows the stores, so the
// verification read of Algorithm 2 that follows cannot be ordered before
// them, nor before the table's publication (a fence, not an exchange of the
// slot: it orders every earlier store of the owner, Bcc's file comment (2));
// without, the searcher's asymmetric fence orders them. The TID is stored
// before the key, so a searcher that finds the key finds the TID. Owner only.
// REQUIRES: the table has an empty slot.
inline bool put_read(const ReadSet& t, uint64_t row, uint64_t tid, bool fenced) {
  ReadSlot* s = t.slots;
  const uint64_t mask = t.mask;
  const uint64_t key = t.key(row);
  for (uint64_t i = t.home(row);; i = (i + 1) & mask) {
    const uint64_t k = s[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      charge_line_write(&s[i]);  // under sim: the slot's line is this core's, a searcher's read moves it
      s[i].tid.store(tid, std::memory_order_release);
      if (fenced) std::atomic_thread_fence(std::memory_order_seq_cst);
      return false;
    }
    if (ReadSet::empty(k, key)) {
      charge_line_write(&s[i]);
      s[i].tid.store(tid, std::memory_order_relaxed);
      s[i].key.store(key, std::memory_order_release);
      if (fenced) std::atomic_thread_fence(std::memory_order_seq_cst);
      return true;
    }
  }
}

// Copies every read of `from` into `to` (a larger, new table of the same
// owner), with plain stores: the caller publishes `to` afterwards. Owner only.
// REQUIRES: `to` has room for every read of `from`.
inline void rehash_reads(const ReadSet& from, const ReadSet& to) {
  for (uint64_t i = 0; i <= from.mask; ++i) {
    const ReadSlot& old = from.slots[i];
    const uint64_t k = old.key.load(std::memory_order_relaxed);
    if (!ReadSet::empty(k, from.stamp))
      put_read(to, k & kAddressBits, old.tid.load(std::memory_order_relaxed), false);
  }
}

// The asymmetric fence: every running thread of the process executes a full
// memory barrier before membarrier() returns (Linux >= 4.14, private
// expedited, after registration); a descheduled thread already has.
inline bool register_asymmetric_fence() {
#if defined(__linux__) && !defined(CCB_TSAN)
  return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;  // ThreadSanitizer does not model it: keep the fenced inserts
#endif
}
inline void asymmetric_fence() {
#if defined(__linux__)
  syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
#endif
}

}  // namespace ccb::bcc
