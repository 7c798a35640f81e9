// The latches protocols build on, each on a Shared word (engine/core/shared.h)
// of the protocol's row or table metadata: the reader-writer lock word of the
// 2PL family (RwLockWord), the lock bit of the optimistic protocols' row words
// (lock_bit / unlock_bit), and the registration count that per-thread slot
// tables are scanned up to (register_in_count). The spin latch of short
// critical sections is engine/core/spin.h's SpinLatch.
//
// Under sim each latch operation is charged as the cost model's line
// operation it stands for (sim::rmw, sim::touch) here, once, so a protocol
// that uses these latches is modelled without naming the simulator.
//
// Thread safety: every function here may race with any other on the same word.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/core/latch_contention.h"
#include "engine/core/shared.h"
#include "engine/core/spin.h"

namespace ccb {

// A reader-writer lock in one 64-bit word: bit 63 = exclusive, bits 0..62 =
// the holders. Each holder adds its `unit`: 1 keeps a count of the holders
// (NoWait), owner_bit(thread) keeps the set of holding threads, for protocols
// that must know who holds a lock (wait-die compares the holders' timestamps,
// deadlock detection draws waits-for edges to them; at most kMaxOwners
// threads). An exclusive holder keeps its unit in the word as well. Never
// blocks; callers decide whether to retry, wait or abort. Under sim each call
// is one read-modify-write of the word's line, the release by the exclusive
// holder a write of it.
// REQUIRES: a holder passes the same unit to every call on one lock.
struct RwLockWord {
  static constexpr uint64_t kExclusive = uint64_t{1} << 63;
  static constexpr int kMaxOwners = 63;
  static constexpr uint64_t owner_bit(uint32_t thread) { return uint64_t{1} << thread; }
  static constexpr uint64_t holders(uint64_t w) { return w & ~kExclusive; }
  Shared<uint64_t> word{0};

  bool try_lock_shared(uint64_t unit = 1) {
    word.charge_rmw();  // the CAS loop below is one read-modify-write of the line
    std::atomic<uint64_t>& w = word.unmodelled();
    uint64_t v = w.load(std::memory_order_relaxed);
    do {
      if (v & kExclusive) return false;
    } while (!w.compare_exchange_weak(v, v + unit, std::memory_order_acquire, std::memory_order_relaxed));
    return true;
  }
  bool try_lock_exclusive(uint64_t unit = 1) {
    uint64_t expected = 0;
    return word.compare_exchange_strong(expected, kExclusive | unit, std::memory_order_acquire,
                                        std::memory_order_relaxed);
  }
  // Upgrade by the only shared holder.
  bool try_upgrade(uint64_t unit = 1) {
    uint64_t expected = unit;
    return word.compare_exchange_strong(expected, kExclusive | unit, std::memory_order_acquire,
                                        std::memory_order_relaxed);
  }
  void unlock_shared(uint64_t unit = 1) { word.fetch_sub(unit, std::memory_order_release); }
  void unlock_exclusive() { word.store(0, std::memory_order_release); }
};

// A count of registered threads that others scan (slots 0 .. count-1).
// Raised once per thread and run, before its first transaction, and read by
// scans whose slots' lines are charged themselves: not a line of the model.
using ThreadCount = Shared<uint32_t, Modelled::kNo>;

// Registers worker `thread` in `count`: raises it to at least thread + 1.
inline void register_in_count(ThreadCount& count, uint32_t thread) {
  uint32_t n = count.load(std::memory_order_relaxed);
  while (n < thread + 1 && !count.compare_exchange_weak(n, thread + 1, std::memory_order_acq_rel)) {
  }
}


// The commit-time latch of the optimistic protocols: bit `kBit` of a row's
// metadata word (OCC's latch, Silo's and BCC's TID lock bit, TicToc's lock
// bit). Sets it, spinning while another transaction holds it, and returns the
// word as it was just before (TicToc reads its rts from it). The other bits
// are left as they are. A contended acquisition is counted once
// (latch_contention.h). A test and test-and-set: a waiter re-reads the word
// until the bit is clear and only then tries the CAS again. Under sim the
// first try is one read-modify-write of the line (its load and CAS), each
// waiting round a spin round and a read of the line (a copy in the waiter's
// cache costs no transfer until the holder writes), and each further CAS an
// RMW. Issue 46: every waiting round used to be charged as an RMW, as if the
// test that finds the bit set were a CAS: the waiters' RMWs serialized on the
// line and the holder's release (an RMW too) queued behind all of them, a
// convoy that grew with the cores (Silo on YCSB at theta 0.9, 32 virtual
// cores: 76 % of the cores' time queued behind RMWs, 8x less throughput than
// at 4; docs/sim.md, "Where the time goes"). The bit is a template argument,
// so each protocol's loop compiles as its own copy did (a run-time bit
// changed GCC's inlining of OCC's commit).
template <uint64_t kBit>
inline uint64_t lock_bit(Shared<uint64_t>& word) {
  std::atomic<uint64_t>& w = word.unmodelled();
  word.charge_rmw();  // the first try: its load and CAS
  uint64_t v = w.load(std::memory_order_relaxed);
  for (LatchAcquisition contention;; contention.note()) {
    if (!(v & kBit) && w.compare_exchange_weak(v, v | kBit, std::memory_order_acquire, std::memory_order_relaxed))
      return v;
    do {  // held, or the CAS lost a race: wait on the cached copy until the bit looks clear
      cpu_relax();
      word.charge_read();
      v = w.load(std::memory_order_relaxed);
    } while (v & kBit);
    word.charge_rmw();  // the next CAS
  }
}
// Tries to set `kBit` with a bounded exponential back-off between tries, as
// DBx1000's try_latch under BOUNDED_SPINNING (system/helper.h,
// bounded_backoff_function): after a failed try it pauses 1, 3, 7, ... rounds
// (cpu_relax; each count doubled plus one, masked by `bound`) and gives up
// once the count has reached `bound` (15: five tries, 26 rounds). Returns
// whether it set the bit. Modelled as lock_bit: the first try is one
// read-modify-write, each later one a read of the line and, if the bit looked
// clear, the CAS's read-modify-write. A failed acquisition counts as
// contended (latch_contention.h).
// REQUIRES: `bound` is 2^k - 1.
template <uint64_t kBit>
inline bool try_lock_bit_bounded(Shared<uint64_t>& word, uint32_t bound) {
  std::atomic<uint64_t>& w = word.unmodelled();
  word.charge_rmw();  // the first try: its load and CAS
  uint64_t v = w.load(std::memory_order_relaxed);
  LatchAcquisition contention;
  for (uint32_t backoff = 0;;) {
    if (!(v & kBit) && w.compare_exchange_strong(v, v | kBit, std::memory_order_acquire, std::memory_order_relaxed))
      return true;
    contention.note();
    if (backoff >= bound) return false;
    backoff = ((backoff << 1) | 1) & bound;
    for (uint32_t i = backoff; i > 0; --i) cpu_relax();
    word.charge_read();
    v = w.load(std::memory_order_relaxed);
    if (!(v & kBit)) word.charge_rmw();  // the next CAS
  }
}

// Clears `kBit`, keeping the rest of the word (the holder wrote nothing).
// REQUIRES: the caller holds the bit (lock_bit).
template <uint64_t kBit>
inline void unlock_bit(Shared<uint64_t>& word) {
  word.fetch_and(~kBit, std::memory_order_release);
}

}  // namespace ccb
