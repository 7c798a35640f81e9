// WaitDie: two-phase locking with the wait-die rule (Rosenkrantz, Stearns,
// Lewis, "System Level Concurrency Control for Distributed Database Systems",
// TODS 1978), the 2PL baseline of the BCC paper (Yuan et al., PVLDB 2016,
// section 5.2: "per-tuple lock ... a shared read lock and an exclusive write
// lock. No lock lists are used. ... wait-die ... A global timestamp
// allocator, which is implemented as an atomic variable") and DBx1000's
// WAIT_DIE.
//
// Row metadata: one RwLockWord whose holder bits name the holding threads
// (RwLockWord::owner_bit), no lock list and no central lock table. Each
// thread publishes the timestamp of its current transaction in ts_[thread],
// so a requester learns the holders' ages from the lock word alone. A
// conflicting request waits while it is older than every conflicting holder
// and dies (RC::kWaitDie) as soon as one of them is older: waits-for edges
// only point from older to younger transactions, so no deadlock can form. The
// rule is evaluated again on every round of the wait, because the holders
// change while it waits. Timestamps come from one atomic counter and are kept
// across the retries of the same request (txn.restarts() > 0), so a retried
// transaction ages until it is the oldest and cannot starve.
//
// Readers read the row in place under their shared lock; writers modify a
// private copy installed at commit; all locks are released when the attempt
// ends (strict 2PL, engine/cc/two_phase_locking.h). A reader upgrading to a
// writer waits or dies like any exclusive request against the other shared
// holders. At most 63 worker threads (one holder bit each).
#pragma once

#include <atomic>
#include <bit>

#include "engine/cc/common.h"
#include "engine/cc/two_phase_locking.h"

namespace ccb {

class WaitDie : public TwoPhaseLocking<WaitDie> {
 public:
  static constexpr const char* kName = "waitdie";
  static constexpr int kMaxThreads = RwLockWord::kMaxOwners;

  struct RowMeta {
    RwLockWord lock;  // holder bits: owner_bit(thread)
  };
  struct TxnMeta {
    uint64_t ts = 0;  // wait-die timestamp: smaller = older
  };

  void begin(auto& txn) {
    if (txn.restarts() == 0 || txn.meta().ts == 0) {
      // The global timestamp allocator (BCC paper section 5.2).
      txn.meta().ts = next_ts_.fetch_add(1, std::memory_order_relaxed);
    }
    ts_[txn.thread_id()].value.store(txn.meta().ts, std::memory_order_relaxed);
  }

 private:
  friend TwoPhaseLocking<WaitDie>;

  // The conflict rule: wait while older than every conflicting holder, die as
  // soon as one is older.
  RC lock(auto& txn, auto& a, LockHeld want) {
    RwLockWord& l = a.row->meta.lock;
    const uint64_t me = RwLockWord::owner_bit(txn.thread_id());
    const bool upgrade = a.meta.held == LockHeld::kShared;
    LatchAcquisition contention;
    for (SpinWait w; ; w.pause(), contention.note()) {
      const bool got = want == LockHeld::kShared ? l.try_lock_shared(me)
                       : upgrade                 ? l.try_upgrade(me)
                                                 : l.try_lock_exclusive(me);
      if (got) return RC::kOk;
      // The conflicting holders: the writer for a read request, everybody
      // else for a write request. A holder's published timestamp may be stale
      // (an older value of that thread): that only makes us die, never wait
      // for an older transaction.
      const uint64_t v = l.word.reread(std::memory_order_acquire);  // the failed try charged the line
      const bool conflicts = want == LockHeld::kExclusive || (v & RwLockWord::kExclusive);
      for (uint64_t bits = conflicts ? RwLockWord::holders(v) & ~me : 0; bits != 0; bits &= bits - 1) {
        const Slot& holder = ts_[std::countr_zero(bits)];
        if (holder.value.load(std::memory_order_relaxed) < txn.meta().ts) return RC::kWaitDie;
      }
    }
  }

  static void unlock(auto& txn, auto& a) {
    if (a.meta.held == LockHeld::kExclusive) a.row->meta.lock.unlock_exclusive();
    else a.row->meta.lock.unlock_shared(RwLockWord::owner_bit(txn.thread_id()));
  }

  struct alignas(64) Slot {
    Shared<uint64_t> value{0};
  };
  alignas(64) Shared<uint64_t> next_ts_{1};
  Slot ts_[kMaxThreads];
};

}  // namespace ccb
