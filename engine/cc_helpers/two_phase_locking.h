// The strict two-phase-locking protocols' common body: NoWait, WaitDie and
// DlDetect (and through NoWait: LockSorted, PreNoWait, Dora, Orthrus) differ
// only in their conflict rule, what a transaction does when the lock it asks
// for is held. Everything else is written once here:
//   read    lock the row shared, read it in place (the lock keeps it stable);
//   write   lock it exclusively, upgrading the transaction's own shared lock,
//           and modify a private copy (Txn::copy_locked_row);
//   insert  nothing: the new row is private until commit publishes it;
//   commit  install every row held exclusively, publish the inserts (their
//           lock words start unlocked), then release every lock;
//   abort   release every lock.
// No lock is released before the attempt ends (strict 2PL), so the history is
// serializable in the order of the conflicting locks.
//
// Adding a 2PL protocol: derive `class P : public TwoPhaseLocking<P>` (a
// template over the protocol itself, so no row access goes through a virtual
// call), give it RowMeta, TxnMeta, kName and begin() (protocol.h), and its
// rule as two members the base calls (make the base a friend if private):
//   RC lock(Txn&, Access& a, LockHeld want)
//       take a.row's lock in mode `want` (kShared or kExclusive); an
//       exclusive request while a.meta.held == kShared is an upgrade.
//       RC::kOk once held, else the abort reason, holding nothing new:
//       NoWait gives up at once (kLockConflict), WaitDie waits while older
//       than every conflicting holder and dies otherwise (kWaitDie), DlDetect
//       queues and waits, detecting deadlocks (kDeadlock).
//   void unlock(Txn&, Access& a)
//       release a.row's lock, held in mode a.meta.held (never kNone).
// The base keeps a.meta.held (AccessMeta) up to date; the rule only reads it.
//
// Thread safety: as the protocol's rule; the base touches only the
// transaction's own access set and the rows it holds locks on.
#pragma once

#include "engine/cc_helpers/common.h"

namespace ccb {

template <class Rule>
class TwoPhaseLocking {
 public:
  struct AccessMeta {
    LockHeld held = LockHeld::kNone;  // the lock this attempt holds on the row
  };

  RC read(auto& txn, auto& a) {
    const RC rc = rule().lock(txn, a, LockHeld::kShared);
    if (rc != RC::kOk) return rc;
    a.meta.held = LockHeld::kShared;
    a.data = a.row->data();
    return RC::kOk;
  }

  RC write(auto& txn, auto& a) {
    const RC rc = rule().lock(txn, a, LockHeld::kExclusive);
    if (rc != RC::kOk) return rc;
    a.meta.held = LockHeld::kExclusive;
    txn.copy_locked_row(a);
    return RC::kOk;
  }

  RC insert(auto&, auto&) { return RC::kOk; }  // private until published

  RC commit(auto& txn) {
    for (auto& a : txn.accesses())
      if (a.meta.held == LockHeld::kExclusive) txn.install(a);
    txn.publish_inserts([](auto&, auto) {});
    release(txn);
    return RC::kOk;
  }

  void abort(auto& txn) { release(txn); }

 protected:
  void release(auto& txn) {
    for (auto& a : txn.accesses()) {
      if (a.meta.held == LockHeld::kNone) continue;
      rule().unlock(txn, a);
      a.meta.held = LockHeld::kNone;
    }
  }

 private:
  Rule& rule() { return static_cast<Rule&>(*this); }
};

}  // namespace ccb
