// Silo's commit protocol (Tu et al., "Speedy Transactions in Multicore
// In-Memory Databases", SOSP 2013, section 4.4) as phases over a row's TID
// word, shared by the protocols built on it: Silo (engine/cc/silo/silo.h; MOCC
// through Silo) and BCC (engine/cc/bcc/bcc.h). Each of them chooses the commit
// TID and what happens between the phases (Silo: the epoch; BCC: its
// left-conflict check when phase 2 fails):
//   phase 1  lock_writes     lock the write set in one global (address) order
//            (or lock_writes_bounded: DBx1000's no-wait locking, unsorted);
//   phase 2  validate_reads  every row read still carries the TID observed at
//                            read time and is not locked by another transaction;
//   phase 3  install_writes  install the writes, publish the inserts and
//                            release each lock by storing the commit TID;
//   or, when the commit fails after phase 1, unlock_writes.
//
// REQUIRES of the protocol: RowMeta has `Shared<uint64_t> tid`, whose
// bit 0 is the lock bit (kLockBit) and whose other bits are the TID of the
// row's last writer; AccessMeta has `uint64_t observed_tid` (the TID of the
// image the access copied, from stable_copy<kLockBit>) and `bool locked`
// (this transaction holds the row's lock bit).
//
// Thread safety: each function acts for one committing transaction, on its
// own access set; other transactions see only the TID words, which change
// with atomic operations. Invariant: between lock_writes and install_writes /
// unlock_writes, every access of the write set has meta.locked set and its
// row's lock bit held.
//
// The functions are declared `inline`, as the class members they replaced
// were implicitly: GCC's inliner then gives them the same budget, so Silo's
// and BCC's commit compile as before (docs/protocols.md, "Code layout").
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/cc_helpers/common.h"

namespace ccb::silo {

// The TID word's lock bit; a reader's stable_copy<kLockBit> waits while it is set.
inline constexpr uint64_t kLockBit = 1;

// Phase 1: locks the write set in address order, so that two committers
// cannot wait for each other (section 4.4). Returns the write set; it lives in
// the transaction's scratch memory until the next begin().
inline auto lock_writes(auto& txn) {
  const auto writes = sorted_accesses(txn, [](const auto& a) { return a.type == AccessType::kWrite; });
  for (auto* a : writes) {
    lock_bit<kLockBit>(a->row->meta.tid);
    a->meta.locked = true;
  }
  return writes;
}

// Whether the row of access `a` still carries the TID the access observed
// (its lock bit aside). Not charged, as in validate_reads.
inline bool unchanged_since_access(const auto& a) {
  return (a.row->meta.tid.unmodelled().load(std::memory_order_acquire) & ~kLockBit) == a.meta.observed_tid;
}
// DBx1000's PRE_ABORT: every row read or written still carries the TID its
// access observed.
inline bool pre_abort_check(auto& txn) {
  for (auto& a : txn.accesses())
    if (a.type != AccessType::kInsert && !unchanged_since_access(a)) return false;
  return true;
}

// Phase 1 as DBx1000's validate_silo with VALIDATION_LOCK "no-wait", PRE_ABORT
// "true" and BOUNDED_SPINNING (--silo_validation=bounded): the pre-abort
// check; then the write set `writes`, in access order, is locked with one try
// per row, each locked row checked unchanged; a held lock releases the locks
// taken, repeats the pre-abort check and, after a back-off of 1, 3, 7, 15
// pause rounds (`bound` 15), retries the whole set. Returns whether every
// write is locked (each with meta.locked set); false: the transaction aborts,
// nothing is locked.
inline bool lock_writes_bounded(auto& txn, const auto& writes, uint32_t bound) {
  return lock_writes_no_wait_bounded<kLockBit>(
      writes, bound, [](auto& a) -> Shared<uint64_t>& { return a.row->meta.tid; },
      [](auto& a) { return !unchanged_since_access(a); }, [&] { return pre_abort_check(txn); });
}

// Phase 2: every row read (read-modify-writes included) still carries the
// TID observed at read time and is not locked by another transaction.
// `on_stale(access)` is called for each row that fails and returns whether to
// go on checking the rest (MOCC heats every one); returns whether all passed.
template <class OnStale>
inline bool validate_reads(auto& txn, OnStale on_stale) {
  bool ok = true;
  for (auto& a : txn.accesses()) {
    if (a.type == AccessType::kInsert) continue;
    // Not charged: under sim the row's line was charged at the read
    // (stable_copy) and is again at the install (docs/sim.md, "The cost model").
    const uint64_t now = a.row->meta.tid.unmodelled().load(std::memory_order_acquire);
    const bool locked_by_other = (now & kLockBit) && !a.meta.locked;
    if ((now & ~kLockBit) != a.meta.observed_tid || locked_by_other) {
      ok = false;
      if (!on_stale(a)) return false;
    }
  }
  return ok;
}
// Phase 2, stopping at the first stale row.
inline bool validate_reads(auto& txn) {
  return validate_reads(txn, [](const auto&) { return false; });
}

// The commit failed after phase 1: releases the write set's locks, leaving
// the TIDs as they were.
inline void unlock_writes(const auto& writes) {
  for (auto* a : writes) {
    unlock_bit<kLockBit>(a->row->meta.tid);
    a->meta.locked = false;
  }
}

// Phase 3 with commit TID `tid`: installs each write (after
// `before_install(access)`, which may still read the row's current image and
// TID: the snapshot protocols save the version being overwritten there),
// publishes the inserts stamped with `tid`, then unlocks every written row by
// storing `tid` in it.
// REQUIRES: `tid` is above every TID the transaction read or overwrote, and
// `tid` has the lock bit clear.
template <class BeforeInstall>
[[gnu::always_inline]] inline void install_writes(auto& txn, const auto& writes, uint64_t tid,
                                                  BeforeInstall before_install) {
  for (auto* a : writes) {
    before_install(*a);
    txn.install(*a);
  }
  // New rows, unseen by other cores until published: not lines of the model.
  txn.publish_inserts([&](auto& m, auto row) { row[m.tid].store(tid, std::memory_order_relaxed); });
  for (auto* a : writes) {
    a->row->meta.tid.rewrite(tid, std::memory_order_release);  // Txn::install charged the row's line
    a->meta.locked = false;
  }
}

}  // namespace ccb::silo
