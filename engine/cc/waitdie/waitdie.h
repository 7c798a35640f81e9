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
// ends (strict 2PL, engine/cc_helpers/two_phase_locking.h). A reader upgrading to a
// writer waits or dies like any exclusive request against the other shared
// holders. At most 62 worker threads (one holder bit each; bit 62 is the
// latch of --waitdie_latched_reads).
//
// The BCC paper's own 2PL (its flags, engine/cc/waitdie/options.h):
// --waitdie_read_then_upgrade makes a read-modify-write take the read lock
// and then upgrade it (§6.2), so that under contention several readers of a
// hot row each want its write lock and all but the oldest die; and
// --waitdie_latched_reads takes a read lock under the word's latch (§6.1).
// Both off (the default), a write takes the exclusive lock at once and a read
// lock is one compare-and-swap, as DBx1000's WAIT_DIE.
#pragma once

#include <atomic>
#include <bit>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/two_phase_locking.h"
#include "engine/cc/waitdie/options.h"

namespace ccb {

class WaitDie : public TwoPhaseLocking<WaitDie> {
 public:
  static constexpr const char* kName = "waitdie";
  static constexpr int kMaxThreads = RwLockWord::kMaxOwners - 1;  // bit 62: the read latch

  struct RowMeta {
    RwLockWord lock;  // holder bits: owner_bit(thread)
  };
  struct TxnMeta {
    uint64_t ts = 0;  // wait-die timestamp: smaller = older
  };

  using Options = WaitDieOptions;
  void configure(const WaitDieOptions& o) { options_ = o; }

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
  // soon as one is older. With --waitdie_read_then_upgrade a first write of a
  // row takes its read lock and then upgrades it; if the upgrade dies, the
  // read lock is released (Txn drops a refused first access from the access
  // set, so the abort would not find it).
  RC lock(auto& txn, auto& a, LockHeld want) {
    if (want != LockHeld::kExclusive || a.meta.held != LockHeld::kNone || !options_.read_then_upgrade)
      return wait_or_die(txn, a, want);
    RC rc = wait_or_die(txn, a, LockHeld::kShared);
    if (rc != RC::kOk) return rc;
    a.meta.held = LockHeld::kShared;
    rc = wait_or_die(txn, a, LockHeld::kExclusive);
    if (rc != RC::kOk) {
      unlock(txn, a);
      a.meta.held = LockHeld::kNone;
    }
    return rc;
  }

  RC wait_or_die(auto& txn, auto& a, LockHeld want) {
    RwLockWord& l = a.row->meta.lock;
    const uint64_t me = RwLockWord::owner_bit(txn.thread_id());
    const bool upgrade = a.meta.held == LockHeld::kShared;
    LatchAcquisition contention;
    for (SpinWait w; ; w.pause(), contention.note()) {
      const bool got = want == LockHeld::kShared ? lock_shared(l, me)
                       : upgrade                 ? l.try_upgrade(me)
                                                 : l.try_lock_exclusive(me);
      if (got) return RC::kOk;
      // The conflicting holders: the writer for a read request, everybody
      // else for a write request. A holder's published timestamp may be stale
      // (an older value of that thread): that only makes us die, never wait
      // for an older transaction.
      const uint64_t v = l.word.reread(std::memory_order_acquire);  // the failed try charged the line
      const bool conflicts = want == LockHeld::kExclusive || (v & RwLockWord::kExclusive);
      for (uint64_t bits = conflicts ? RwLockWord::holders(v) & ~me & ~kReadLatch : 0; bits != 0; bits &= bits - 1) {
        const Slot& holder = ts_[std::countr_zero(bits)];
        if (holder.value.load(std::memory_order_relaxed) < txn.meta().ts) return RC::kWaitDie;
      }
    }
  }

  void unlock(auto& txn, auto& a) {
    RwLockWord& l = a.row->meta.lock;
    const uint64_t me = RwLockWord::owner_bit(txn.thread_id());
    uint64_t v = 0;
    if (a.meta.held == LockHeld::kExclusive) l.unlock_exclusive();
    else if (!options_.latched_reads) l.unlock_shared(me);
    else if (take_read_latch(l, v)) l.word.store(v - me, std::memory_order_release);  // held shared: no writer
  }

  // A read lock: one compare-and-swap, or (--waitdie_latched_reads) under
  // the word's latch, taken then released by the store that adds the holder
  // bit. False while a writer holds the row.
  bool lock_shared(RwLockWord& l, uint64_t me) {
    if (!options_.latched_reads) return l.try_lock_shared(me);
    uint64_t v = 0;
    if (!take_read_latch(l, v)) return false;
    l.word.store(v + me, std::memory_order_release);
    return true;
  }
  // Sets the word's latch bit, waiting while another reader holds it; `v`
  // is the word before. False, setting nothing, while a writer holds the row.
  // While the latch is set, try_lock_exclusive and try_upgrade fail (the word
  // is not what they expect) and no writer holds the row, so the store that
  // releases the latch is the only change of the word.
  static bool take_read_latch(RwLockWord& l, uint64_t& v) {
    for (SpinWait w;; w.pause()) {
      v = l.word.load(std::memory_order_relaxed);
      if (v & RwLockWord::kExclusive) return false;
      if (!(v & kReadLatch) &&
          l.word.compare_exchange_strong(v, v | kReadLatch, std::memory_order_acquire, std::memory_order_relaxed))
        return true;
    }
  }
  static constexpr uint64_t kReadLatch = RwLockWord::owner_bit(RwLockWord::kMaxOwners - 1);

  struct alignas(64) Slot {
    Shared<uint64_t> value{0};
  };
  alignas(64) Shared<uint64_t> next_ts_{1};
  Slot ts_[kMaxThreads];
  WaitDieOptions options_;
};

}  // namespace ccb
