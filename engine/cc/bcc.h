// BCC: Balanced Concurrency Control (Yuan, Wang, Lee, Ding, Xing, Blanas,
// Zhang, "BCC: Reducing False Aborts in Optimistic Concurrency Control with
// Low Cost for In-Memory Databases", PVLDB 9(6), 2016), built on Silo as in
// the paper (section 5.1).
//
// Reads, write-set locking and OCC's criterion are Silo's (engine/cc/silo.h).
// OCC aborts a transaction T whose read set changed, i.e. that is
// anti-dependent on a committed transaction (T ->rw T3). BCC aborts it only if
// T also depends on a concurrent transaction T1, one that commits after T
// started (T1 ->wr/ww/rw T): the essential patterns of Figure 2(a)-(c), which
// every non-serializable schedule contains (Theorem 1, section 2.2).
//
// Global clock (section 4.1, Figure 3): a vector with each thread's latest
// TID. Every transaction takes a TID at start and a writer another one at
// commit (section 5.1). A TID is [counter : 57 | thread : 6 | flag : 1]; it is
// ordered against a clock snapshot through the entry of the thread that made
// it, so a TID is "after Start" iff it exceeds Start[its thread]. The counter
// is a Lamport clock (one more than the largest TID the thread has seen), so
// the TIDs of all threads advance together. The flag bit is the lock bit in a
// row's TID word (Silo) and the idle bit in a clock entry: the thread runs no
// transaction.
//
// Read-set hash tables (section 4.2): each transaction's reads go into a hash
// table of <row, TID> in its thread's history list, which other threads
// search. After inserting a row the reader checks that the row is unchanged,
// else re-reads it (Algorithm 2), so a writer either sees the read in the table
// or the reader sees the new version. That needs the insert ordered before the
// check against a writer that locks the row and then searches. Two ways
// (Bcc::Fence): by default every insert is a sequentially consistent
// exchange; with Fence::kAsymmetric (Linux) readers insert with plain stores
// and a searching writer issues a process-wide barrier (membarrier, an
// "asymmetric fence"). The second saves a full barrier per read but costs a
// system call and an interrupt of every running worker per search: measured
// on 2 cores it was ~3% faster on TPC-C and half as fast under contention
// (YCSB theta 0.99, TPC-W hot item), where searches are frequent. A table is
// released once every thread that runs a transaction holds a TID above its
// Release, the largest clock entry seen once it finished (the conservative
// rule of section 4.2; idle threads cannot be searching it). Table memory
// comes from three chase-tail circular buffers of 16 KiB, 256 KiB and 4 MiB,
// tried in that order (section 5.1), and the history list has 16K entries
// (section 6.3); a table no buffer has room for is allocated from the heap,
// and a full history list makes begin() wait, idle, until entries are
// released.
//
// Validation (Algorithms 1 and 3, section 4.3), after Silo locks the write set
// (Silo's commit phases are shared: engine/cc/silo_commit.h):
//   right_conflict = OCC's criterion (a read row changed or is locked);
//   if set, left_conflict = T read a row committed after Start (wr), or a row
//   it writes carries such a TID (ww), or the read-set table of a transaction
//   that started between Start and End (the clock, read after locking) holds
//   a row T writes at the version T overwrites (rw);
//   abort iff both, else install with a commit TID as Silo does.
//
// Read-only snapshot transactions (section 3): a request the workload declared
// read-only (txn.read_only()) runs on a snapshot and is never validated, keeps
// no read set and is in no essential pattern. A snapshot is a synchronization
// point: new transactions wait, the running ones finish, and the snapshot line
// ("floor") is drawn above every TID generated so far. A snapshot is reused
// for kSnapshotEpochMillis, Silo's snapshot epoch (the epoch-based snapshots
// of section 5.1). Writers that overwrite a version older than the floor their
// transaction began under save it; the versions and snapshot reads are the
// ones Silo uses (engine/cc/snapshots.h).
//
// Phantoms (section 4.4) are not handled: no workload here scans (as Silo).
// Counters (stats_json, "cc_stats"): commits OCC's criterion would have
// aborted ("saved"), aborts after the BCC check by the dependency found, and
// per-thread bytes held by history tables (average and maximum, section 6.3).
// last_commit_saved() tells the executor whether a commit was "saved", for
// the per-attempt latency by outcome of Figures 11 and 12. With
// --bcc_breakdown (configure()), bcc::ComponentTimer times the history's
// memory management and the global-clock accesses for Table 1; off, each of
// its probes is one predictable branch.
//
// Thread safety: one Bcc is shared by all workers; each thread's history is
// written by that thread only and searched by the others through atomics.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "engine/cc/common.h"
#include "engine/cc/silo.h"
#include "engine/cc/silo_commit.h"
#include "engine/cc/snapshots.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/memory.h"
#include "engine/stats/json.h"

namespace ccb {
namespace bcc {

inline constexpr uint64_t kNone = ~uint64_t{0};

// A chase-tail circular buffer (section 5.1): blocks are released in the order
// they were allocated, so a release moves the tail to a mark taken when the
// released blocks were the newest. Owner thread only.
class Ring {
 public:
  // REQUIRES: `bytes` is a power of two (offsets are masked, not divided).
  explicit Ring(size_t bytes) : mem_(bytes), size_(bytes) { assert(std::has_single_bit(bytes)); }
  // `n` contiguous bytes (n a multiple of 64, 64-byte aligned), or nullptr.
  uint8_t* allocate(size_t n) {
    uint64_t at = head_;
    const uint64_t offset = at & (size_ - 1);
    if (offset + n > size_) at += size_ - offset;  // a block never wraps
    if (at + n - tail_ > size_) return nullptr;
    head_ = at + n;
    return mem_.data() + (at & (size_ - 1));
  }
  uint64_t mark() const { return head_; }
  void release_to(uint64_t mark) { tail_ = mark; }
  size_t used() const { return head_ - tail_; }
  // Zeroes every byte ever handed out and starts over. REQUIRES: nothing is
  // allocated (every block was released).
  void wipe() {
    assert(tail_ == head_);
    std::memset(mem_.data(), 0, std::min<uint64_t>(head_, size_));
    head_ = tail_ = 0;
  }

 private:
  Region mem_;
  size_t size_;
  uint64_t head_ = 0, tail_ = 0;
};

// A transaction's read set as other threads search it (section 4.2): an
// open-addressing table of <row, TID> slots, linear probing, at most half
// full. Only the owner inserts; nothing is removed while the table lives.
//
// Tables are never zeroed: each table of a thread carries a 16-bit stamp,
// unique among the tables that thread allocated since its buffers were last
// wiped, and a slot's key is `row address | stamp << 48`. A slot holding
// another stamp (left by an older table in the same memory, or 0 in fresh
// memory) is empty. This takes the memset of a table at every begin() (and
// at every grow) off the transaction path; a thread wipes its buffers only
// when its stamps run out, once every 65535 transactions (Bcc::begin_update).
// Row addresses must fit in 48 bits: user-space addresses of x86-64 and
// AArch64 Linux do unless a mapping is requested above (5-level paging).
// A table is named by one word: stamp << 48 | slot array address | log2(capacity).
inline constexpr int kStampShift = 48;
inline constexpr uint64_t kMaxStamp = (uint64_t{1} << (64 - kStampShift)) - 1;
inline constexpr uint64_t kAddressBits = (uint64_t{1} << kStampShift) - 1;
struct ReadSlot {
  std::atomic<uint64_t> key{0};  // row address | stamp << kStampShift
  std::atomic<uint64_t> tid{0};
};
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
    const uint64_t k = t.slots[i].key.load(std::memory_order_seq_cst);
    if (k == key) return t.slots[i].tid.load(std::memory_order_seq_cst);
    if (ReadSet::empty(k, key)) break;
  }
  return kNone;
}

// Records that the owner read `row` at `tid`; true if the row is new. With
// `fenced`, the store is a sequentially consistent exchange, so the
// verification read of Algorithm 2 that follows cannot be ordered before it;
// without, the searcher's asymmetric fence orders them. The TID is stored
// before the key, so a searcher that finds the key finds the TID. Owner only.
inline bool put_read(const ReadSet& t, uint64_t row, uint64_t tid, bool fenced) {
  ReadSlot* s = t.slots;
  const uint64_t mask = t.mask;
  const uint64_t key = t.key(row);
  for (uint64_t i = t.home(row);; i = (i + 1) & mask) {
    const uint64_t k = s[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      if (fenced) s[i].tid.exchange(tid, std::memory_order_seq_cst);
      else s[i].tid.store(tid, std::memory_order_release);
      return false;
    }
    if (ReadSet::empty(k, key)) {
      s[i].tid.store(tid, std::memory_order_relaxed);
      if (fenced) s[i].key.exchange(key, std::memory_order_seq_cst);
      else s[i].key.store(key, std::memory_order_release);
      return true;
    }
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

// Table 1's attribution of BCC's cost (--bcc_breakdown): the cycle counter
// read around each stretch of memory management (Release bookkeeping,
// allocating and publishing a read-set table, growing it) and of global-clock
// access (the TID's store in the clock, the Start snapshot, the idle store at
// the end). Off by default: then each probe is one predictable branch. The
// cost of a probe pair itself (its minimum, calibrated once) is subtracted
// from every stretch, so what is charged is the work in between; the
// probes' own time goes to what the table calls "the rest". Cycles are
// converted to seconds by a rate calibrated against the steady clock.
class ComponentTimer {
 public:
  void enable() {
    enabled_ = true;
    uint64_t best = ~uint64_t{0};
    for (int i = 0; i < 1000; ++i) {
      const uint64_t a = read(), b = read();
      best = std::min(best, b - a);
    }
    overhead_ = best;
    const uint64_t ns0 = now_ns(), c0 = read();
    while (now_ns() - ns0 < 20'000'000) {
    }
    cycles_per_ns_ = static_cast<double>(read() - c0) / static_cast<double>(now_ns() - ns0);
  }
  bool enabled() const { return enabled_; }
  // The counter now, or 0 when off.
  uint64_t now() const { return enabled_ ? read() : 0; }
  // Adds the cycles since `since` (a now()) to `total`; returns now().
  uint64_t charge(uint64_t& total, uint64_t since) const {
    if (!enabled_) return 0;
    const uint64_t t = read();
    total += t - since > overhead_ ? t - since - overhead_ : 0;
    return t;
  }
  double seconds(uint64_t cycles) const { return static_cast<double>(cycles) / cycles_per_ns_ * 1e-9; }
  uint64_t overhead() const { return overhead_; }
  double cycles_per_ns() const { return cycles_per_ns_; }

 private:
  static uint64_t read() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return now_ns();
#endif
  }
  bool enabled_ = false;
  uint64_t overhead_ = 0;
  double cycles_per_ns_ = 1.0;
};

}  // namespace bcc

class Bcc {
 public:
  static constexpr const char* kName = "bcc";
  static constexpr int kMaxThreads = 64;
  static constexpr uint64_t kFlagBit = silo::kLockBit;  // lock bit in a row's TID, idle bit in a clock entry
  static constexpr int kThreadShift = 1;
  static constexpr int kCounterShift = 7;
  static constexpr size_t kHistoryEntries = size_t{16} << 10;  // section 6.3
  static constexpr size_t kLevelBytes[3] = {size_t{16} << 10, size_t{256} << 10, size_t{4} << 20};
  // A snapshot is reused this long: Silo's snapshot epoch, k epochs (1 s).
  static constexpr uint32_t kSnapshotEpochMillis = Silo::kEpochMillis * Silo::kSnapshotEpochs;

  struct RowMeta {
    std::atomic<uint64_t> tid{0};  // Silo's TID word: writer's commit TID | lock bit
    std::atomic<snapshot::Version*> old{nullptr};  // saved versions, newest first
  };
  struct AccessMeta {
    uint64_t observed_tid = 0;
    bool locked = false;
  };

  // Which dependency on a concurrent transaction made BCC abort.
  enum Dependency : uint8_t { kNoDependency, kWr, kWw, kRw, kDependencyKinds };

  struct Stats {
    uint64_t validations = 0;          // commit() of non-snapshot transactions
    uint64_t occ_would_abort = 0;      // right_conflict: OCC's criterion fails
    uint64_t saved = 0;                // ...yet committed: "saved by BCC" (section 6.3)
    uint64_t aborted_after_check = 0;  // right_conflict and left_conflict
    uint64_t by_dependency[kDependencyKinds] = {};  // the left conflict found first (wr, ww, rw)
    uint64_t snapshot_txns = 0;       // from snapshot::Snapshots, as versions_saved
    uint64_t syncs = 0;               // synchronization points (section 3)
    uint64_t versions_saved = 0;
    uint64_t heap_tables = 0;         // read-set tables no circular buffer had room for
    uint64_t history_full = 0;        // begin() waited for a full history list
    uint64_t table_wipes = 0;         // the thread's stamps ran out: its table buffers were wiped
    uint64_t memory_samples = 0, memory_sum = 0, memory_max = 0;  // history bytes at each begin()
    uint64_t mm_cycles = 0, clock_cycles = 0;  // with --bcc_breakdown (Table 1): time in each component

    void add(const Stats& o) {
      validations += o.validations;
      occ_would_abort += o.occ_would_abort;
      saved += o.saved;
      aborted_after_check += o.aborted_after_check;
      for (int d = 0; d < kDependencyKinds; ++d) by_dependency[d] += o.by_dependency[d];
      syncs += o.syncs;
      heap_tables += o.heap_tables;
      history_full += o.history_full;
      table_wipes += o.table_wipes;
      memory_samples += o.memory_samples;
      memory_sum += o.memory_sum;
      memory_max = std::max(memory_max, o.memory_max);
      mm_cycles += o.mm_cycles;
      clock_cycles += o.clock_cycles;
    }
  };

  // One worker's history list (section 4.2) and bookkeeping.
  struct alignas(64) ThreadHistory {
    // Searched by other threads: entry i (of a transaction) is ring[i %
    // kHistoryEntries]; `head` entries were published so far. An entry is
    // written as a seqlock on start_tid (0 while it changes).
    struct Entry {
      std::atomic<uint64_t> start_tid{0};
      std::atomic<uint64_t> table{0};
    };
    std::atomic<uint64_t> head{0};
    std::unique_ptr<Entry[]> ring{new Entry[kHistoryEntries]};

    // Owner only.
    struct Book {
      uint64_t release = bcc::kNone;  // Release (section 4.2); kNone until set
      uint64_t marks[3] = {};         // buffer heads when the transaction ended
    };
    std::unique_ptr<Book[]> book{new Book[kHistoryEntries]};
    uint64_t tail = 0;  // oldest entry not released
    bcc::Ring levels[3] = {bcc::Ring(kLevelBytes[0]), bcc::Ring(kLevelBytes[1]), bcc::Ring(kLevelBytes[2])};
    struct HeapTable {
      uint64_t entry;
      size_t bytes;
      std::unique_ptr<uint8_t[]> mem;
    };
    std::deque<HeapTable> heap_tables;  // tables no circular buffer had room for
    size_t heap_bytes = 0;
    uint64_t last_tid = 0;  // the last TID this thread generated
    uint64_t seen_max = 0;  // the largest clock entry it has seen (Lamport)
    uint64_t stamp = 0;      // stamp of its latest read-set table (bcc::ReadSet)
    uint32_t read_hint = 0;  // recent read-set sizes, a slowly decaying maximum: sizes the next table
    Stats stats;

    size_t table_bytes() const { return levels[0].used() + levels[1].used() + levels[2].used() + heap_bytes; }
  };

  struct TxnMeta {
    ThreadHistory* history = nullptr;
    uint64_t start_tid = 0;
    uint64_t floor = 0;            // snapshot floor when the transaction began
    uint32_t n = 0;                // threads registered at Start
    uint64_t idle_at_start = 0;    // bitmap of the threads idle at Start
    uint64_t start[kMaxThreads];   // Start: the clock at begin (flag bits cleared)
    uint64_t table = 0;            // its read-set table...
    bcc::ReadSet reads_set{0};     // ...decoded
    uint32_t room = 0;             // rows the table takes before it is more than half full
    bool snapshot = false;         // a read-only snapshot transaction
    bool saved = false;            // the last commit failed OCC's criterion, yet committed
  };

  // How a reader's read-set insert is ordered before its re-check (see the
  // file comment). kAsymmetric falls back to kPerRead where membarrier is
  // unavailable (and under ThreadSanitizer, which does not model it).
  enum class Fence { kPerRead, kAsymmetric };

  explicit Bcc(uint32_t snapshot_epoch_ms = kSnapshotEpochMillis, Fence fence = Fence::kPerRead)
      : snapshot_epoch_ns_(uint64_t{snapshot_epoch_ms} * 1'000'000),
        asymmetric_(fence == Fence::kAsymmetric && bcc::register_asymmetric_fence()) {
    for (auto& c : clock_) c.store(kFlagBit, std::memory_order_relaxed);
  }

  // --bcc_breakdown (bcc-tab1): time the history's memory management and the
  // global-clock accesses with the cycle counter (see ComponentTimer).
  void configure(const EngineConfig& cfg) {
    if (cfg.bcc_breakdown) timer_.enable();
  }
  // For per-attempt latency by outcome (engine/stats/attempt_latency.h).
  bool last_commit_saved(auto& txn) const { return txn.meta().saved; }

  // ---- Protocol operations -------------------------------------------------

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    if (m.history == nullptr) m.history = register_thread(txn.thread_id());
    ThreadHistory& h = *m.history;
    m.snapshot = txn.read_only();
    snapshots_.collect(txn.thread_id(), floor_.load(std::memory_order_seq_cst));
    if (m.snapshot) begin_snapshot(h, m, txn.thread_id());
    else begin_update(h, m, txn.thread_id());
    const uint64_t bytes = h.table_bytes();
    ++h.stats.memory_samples;
    h.stats.memory_sum += bytes;
    h.stats.memory_max = std::max(h.stats.memory_max, bytes);
  }

  RC read(auto& txn, auto& a) {
    if (txn.meta().snapshot) [[unlikely]]
      return snapshot::Snapshots::read(txn, a, txn.meta().floor);
    observe(txn, a);
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (txn.meta().snapshot) snapshot::Snapshots::declared_read_only_but_writes(kName, a.table->name());
    if (a.local == nullptr) observe(txn, a);
    return RC::kOk;
  }
  RC insert(auto& txn, auto& a) {
    if (txn.meta().snapshot) snapshot::Snapshots::declared_read_only_but_writes(kName, a.table->name());
    return RC::kOk;
  }

  RC commit(auto& txn) {
    TxnMeta& m = txn.meta();
    ThreadHistory& h = *m.history;
    if (m.snapshot) {
      snapshots_.end_read(txn.thread_id());
      return RC::kOk;
    }
    // Algorithm 3, validation: Silo's phase 1 (the critical section).
    const auto writes = silo::lock_writes(txn);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    ++h.stats.validations;
    m.saved = false;
    if (!silo::validate_reads(txn)) {  // right_conflict
      ++h.stats.occ_would_abort;
      const Dependency d = left_conflict(txn, writes);
      if (d != kNoDependency) {
        ++h.stats.aborted_after_check;
        ++h.stats.by_dependency[d];
        silo::unlock_writes(writes);
        end_update(txn, m.start_tid);
        return RC::kValidation;
      }
      ++h.stats.saved;
      m.saved = true;
    }
    // Install the writes (Silo's phase 3) with a commit TID.
    uint64_t last = m.start_tid;
    if (writes.size() > 0 || has_inserts(txn)) {
      last = next_tid(h, txn.thread_id(), m.floor);
      silo::install_writes(txn, writes, last, [&](auto& a) {
        // Section 3: a version older than the floor is kept for snapshots
        // (the row is locked, and validated if read: it is still the one
        // observed, or the one found while locking for blind writes).
        const uint64_t current = a.row->meta.tid.load(std::memory_order_relaxed) & ~kFlagBit;
        if (current < m.floor) snapshots_.save(txn.thread_id(), a, current, m.floor);
      });
    }
    end_update(txn, last);
    return RC::kOk;
  }

  void abort(auto& txn) {
    TxnMeta& m = txn.meta();
    if (m.snapshot) snapshots_.end_read(txn.thread_id());
    else end_update(txn, m.start_tid);
  }

  // ---- Statistics (protocol.h, HasProtocolStats) ---------------------------

  Stats total_stats() const {
    Stats s;
    for (const auto& t : owned_)
      if (t) s.add(t->stats);
    const snapshot::Snapshots::Stats snap = snapshots_.total_stats();
    s.snapshot_txns = snap.snapshot_txns;
    s.versions_saved = snap.versions_saved;
    return s;
  }
  void reset_stats(uint32_t thread) {
    if (owned_[thread]) owned_[thread]->stats = Stats{};
    snapshots_.reset_stats(thread);
  }
  void stats_json(JsonWriter& w) const {
    const Stats s = total_stats();
    w.key("validations").value(s.validations);
    w.key("occ_would_abort").value(s.occ_would_abort);
    w.key("saved_by_bcc").value(s.saved);
    w.key("aborted_after_bcc_check").value(s.aborted_after_check);
    w.key("aborts_by_dependency").begin_object();
    w.key("wr").value(s.by_dependency[kWr]);
    w.key("ww").value(s.by_dependency[kWw]);
    w.key("rw").value(s.by_dependency[kRw]);
    w.end_object();
    w.key("snapshot_txns").value(s.snapshot_txns);
    w.key("snapshot_syncs").value(s.syncs);
    w.key("versions_saved").value(s.versions_saved);
    w.key("heap_tables").value(s.heap_tables);
    w.key("history_full_waits").value(s.history_full);
    w.key("table_wipes").value(s.table_wipes);
    // Section 6.3 / Figure 10: bytes of live history tables per thread,
    // sampled at every begin(); the average over threads of each thread's
    // mean, and the largest sample of any thread.
    double avg = 0;
    int threads = 0;
    for (const auto& t : owned_) {
      if (!t || t->stats.memory_samples == 0) continue;
      avg += static_cast<double>(t->stats.memory_sum) / static_cast<double>(t->stats.memory_samples);
      ++threads;
    }
    w.key("history_bytes_per_thread_avg").value(threads ? avg / threads : 0.0);
    w.key("history_bytes_per_thread_max").value(s.memory_max);
    if (timer_.enabled()) {
      // Table 1: worker seconds (summed over threads) in each component.
      w.key("breakdown").begin_object();
      w.key("mm_s").value(timer_.seconds(s.mm_cycles));
      w.key("clock_s").value(timer_.seconds(s.clock_cycles));
      w.key("timer_overhead_cycles").value(timer_.overhead());
      w.key("cycles_per_ns").value(timer_.cycles_per_ns());
      w.end_object();
    }
  }

 private:
  using Entry = ThreadHistory::Entry;

  // How the history list and the read-set tables are published: see put_read.
  std::memory_order insert_order() const { return asymmetric_ ? std::memory_order_release : std::memory_order_seq_cst; }

  static uint64_t counter_of(uint64_t tid) { return tid >> kCounterShift; }
  static uint32_t thread_of(uint64_t tid) { return static_cast<uint32_t>(tid >> kThreadShift) & (kMaxThreads - 1); }

  // Figure 3: a TID was generated after Start iff it exceeds Start's entry of
  // the thread that generated it (or that thread registered after Start).
  static bool after_start(const TxnMeta& m, uint64_t tid) {
    const uint32_t u = thread_of(tid);
    return u >= m.n || tid > m.start[u];
  }

  // A new TID of thread t: a Lamport counter above this thread's last TID,
  // every clock entry it has seen and the snapshot floor.
  static uint64_t next_tid(ThreadHistory& h, uint32_t t, uint64_t floor) {
    const uint64_t c = counter_of(std::max({h.last_tid, h.seen_max, floor})) + 1;
    return h.last_tid = c << kCounterShift | uint64_t{t} << kThreadShift;
  }

  ThreadHistory* register_thread(uint32_t t) {
    if (t >= static_cast<uint32_t>(kMaxThreads)) {
      std::fprintf(stderr, "fatal: bcc supports at most %d threads\n", kMaxThreads);
      std::abort();
    }
    if (!owned_[t]) owned_[t] = std::make_unique<ThreadHistory>();
    threads_[t].store(owned_[t].get(), std::memory_order_release);
    register_in_count(n_threads_, t);
    return owned_[t].get();
  }

  // Algorithm 3, transaction start.
  void begin_update(ThreadHistory& h, TxnMeta& m, uint32_t t) {
    bool waited_for_history = false;
    for (SpinWait w;; w.pause()) {
      const uint64_t clock_start = timer_.now();
      // Line 2: a TID, published in the global clock, unless a snapshot
      // synchronization is in progress (section 3): then wait, idle.
      const uint64_t floor = floor_.load(std::memory_order_seq_cst);
      const uint64_t tid = next_tid(h, t, floor);
      clock_[t].store(tid, std::memory_order_seq_cst);
      if (syncing_.load(std::memory_order_seq_cst) || floor_.load(std::memory_order_seq_cst) != floor) {
        clock_[t].store(tid | kFlagBit, std::memory_order_release);
        continue;
      }
      m.start_tid = tid;
      m.floor = floor;
      // Line 3: Start.
      const uint32_t n = n_threads_.load(std::memory_order_acquire);
      uint64_t max = 0, min_running = bcc::kNone, idle = 0;
      for (uint32_t u = 0; u < n; ++u) {
        const uint64_t v = clock_[u].load(std::memory_order_seq_cst);
        m.start[u] = v & ~kFlagBit;
        if (v & kFlagBit) idle |= uint64_t{1} << u;
        if (u == t) continue;
        max = std::max(max, v & ~kFlagBit);
        if (!(v & kFlagBit)) min_running = std::min(min_running, v);
      }
      m.n = n;
      m.idle_at_start = idle;
      h.seen_max = std::max(h.seen_max, max);
      const uint64_t mm_start = timer_.charge(h.stats.clock_cycles, clock_start);
      // Line 4: release history tables; wait, idle, while the list is full
      // (or, once in 65535 transactions, until it is empty: see wipe_tables).
      const bool room = release_history(h, max, min_running);
      const bool ready = room && (h.stamp < bcc::kMaxStamp || wipe_tables(h));
      timer_.charge(h.stats.mm_cycles, mm_start);
      if (ready) break;
      clock_[t].store(tid | kFlagBit, std::memory_order_release);
      if (!room && !waited_for_history) ++h.stats.history_full;
      waited_for_history |= !room;
    }
    // Line 4: a new table, published in the history list.
    const uint64_t mm_start = timer_.now();
    const uint64_t head = h.head.load(std::memory_order_relaxed);
    // Twice the recent read sets (a retry reads as much), 16 slots minimum:
    // tables cost no zeroing, so a generous size is cheaper than a grow.
    const int log2 = std::bit_width(std::max<uint64_t>(h.read_hint, 8) * 2 - 1);
    m.table = allocate_table(h, log2, head, ++h.stamp);
    m.reads_set = bcc::ReadSet(m.table);
    m.room = static_cast<uint32_t>(m.reads_set.mask + 1) / 2;
    Entry& e = h.ring[head % kHistoryEntries];
    e.start_tid.store(0, std::memory_order_relaxed);
    e.table.store(m.table, std::memory_order_release);
    e.start_tid.store(m.start_tid, std::memory_order_release);
    h.head.store(head + 1, insert_order());
    timer_.charge(h.stats.mm_cycles, mm_start);
  }

  // Section 4.2, "Allocation and release": the previous transaction's Release
  // is the largest clock entry seen now that it has finished; tables are
  // released in order while every running thread's TID exceeds their Release.
  // Returns whether the history list has room for one more entry.
  bool release_history(ThreadHistory& h, uint64_t max, uint64_t min_running) {
    const uint64_t head = h.head.load(std::memory_order_relaxed);
    if (head > h.tail) {
      ThreadHistory::Book& prev = h.book[(head - 1) % kHistoryEntries];
      if (prev.release == bcc::kNone) {
        prev.release = max;
        for (int l = 0; l < 3; ++l) prev.marks[l] = h.levels[l].mark();
      }
    }
    while (h.tail < head && h.book[h.tail % kHistoryEntries].release < min_running) {
      ThreadHistory::Book& b = h.book[h.tail % kHistoryEntries];
      for (int l = 0; l < 3; ++l) h.levels[l].release_to(b.marks[l]);
      while (!h.heap_tables.empty() && h.heap_tables.front().entry <= h.tail) {
        h.heap_bytes -= h.heap_tables.front().bytes;
        h.heap_tables.pop_front();
      }
      b.release = bcc::kNone;
      ++h.tail;
    }
    return head - h.tail < kHistoryEntries;
  }

  // The thread's stamps ran out: once its history list is empty (no other
  // thread can search its tables), zero its table buffers so that no slot
  // carries a stamp handed out again. Returns false while tables are live.
  static bool wipe_tables(ThreadHistory& h) {
    if (h.tail != h.head.load(std::memory_order_relaxed)) return false;
    for (auto& level : h.levels) level.wipe();
    h.stamp = 0;
    ++h.stats.table_wipes;
    return true;
  }

  // A read-set table of 2^log2 slots with `stamp` (empty without zeroing:
  // bcc::ReadSet) for history entry `entry`.
  uint64_t allocate_table(ThreadHistory& h, int log2, uint64_t entry, uint64_t stamp) {
    const size_t bytes = sizeof(bcc::ReadSlot) << log2;
    uint8_t* p = nullptr;
    for (auto& level : h.levels)
      if ((p = level.allocate(bytes)) != nullptr) break;
    if (p == nullptr) {
      auto mem = std::make_unique<uint8_t[]>(bytes + 64);  // zeroed: stamp 0 is no table's
      p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(mem.get()) + 63) & ~uintptr_t{63});
      h.heap_tables.push_back({entry, bytes, std::move(mem)});
      h.heap_bytes += bytes;
      ++h.stats.heap_tables;
    }
    assert(reinterpret_cast<uint64_t>(p) <= bcc::kAddressBits);
    return stamp << bcc::kStampShift | reinterpret_cast<uint64_t>(p) | static_cast<uint64_t>(log2);
  }

  // A Silo read that also records the row in the read-set table, with the
  // insert-then-verify synchronization of Algorithm 2.
  void observe(auto& txn, auto& a) {
    TxnMeta& m = txn.meta();
    const uint64_t row = reinterpret_cast<uint64_t>(a.row);
    for (;;) {
      const uint64_t tid = stable_copy(txn, a, a.row->meta.tid, silo::is_locked);
      if (bcc::put_read(m.reads_set, row, tid, !asymmetric_) && m.room-- == 0)
        grow_table(*m.history, m);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the insert first
      if (a.row->meta.tid.load(std::memory_order_seq_cst) != tid) continue;  // changed: re-read
      a.meta.observed_tid = tid;
      return;
    }
  }

  // Doubles the read-set table; the new one replaces the old in the history
  // entry before any further insert, and the old stays allocated (both are
  // released with the entry).
  // Out of line and cold, so that observe() keeps few registers to save.
  [[gnu::noinline, gnu::cold]] void grow_table(ThreadHistory& h, TxnMeta& m) {
    const uint64_t mm_start = timer_.now();
    const uint64_t head = h.head.load(std::memory_order_relaxed);
    const uint64_t bigger = allocate_table(h, static_cast<int>(m.table & 63) + 1, head - 1, h.stamp);
    const bcc::ReadSet grown(bigger);
    for (uint64_t i = 0; i <= m.reads_set.mask; ++i) {
      const bcc::ReadSlot& old = m.reads_set.slots[i];
      const uint64_t k = old.key.load(std::memory_order_relaxed);
      if (!bcc::ReadSet::empty(k, m.reads_set.stamp))
        bcc::put_read(grown, k & bcc::kAddressBits, old.tid.load(std::memory_order_relaxed), false);
    }
    h.ring[(head - 1) % kHistoryEntries].table.store(bigger, insert_order());
    m.table = bigger;
    const uint32_t reads = static_cast<uint32_t>(m.reads_set.mask + 1) / 2 + 1;
    m.reads_set = grown;
    m.room = static_cast<uint32_t>(grown.mask + 1) / 2 - reads;
    timer_.charge(h.stats.mm_cycles, mm_start);
  }

  // Algorithm 3 lines 12-15: the first dependency on a concurrent
  // transaction, checked in the order wr, ww, rw. The wr test (a version read
  // was committed after Start) looks at the TIDs observed at read time; it is
  // made here rather than at each read because only a transaction whose
  // right_conflict holds needs it.
  Dependency left_conflict(auto& txn, const auto& writes) {
    const TxnMeta& m = txn.meta();
    for (const auto& a : txn.accesses())
      if (a.type != AccessType::kInsert && after_start(m, a.meta.observed_tid)) return kWr;
    for (auto* a : writes)
      if (after_start(m, a->row->meta.tid.load(std::memory_order_relaxed) & ~kFlagBit)) return kWw;
    if (writes.size() > 0 && rw_dependency(txn, writes)) return kRw;
    return kNoDependency;
  }

  // Section 4.3, "Detect rw dependency": does a transaction that started
  // between Start and End (the clock read now, with the write set locked) hold
  // in its read set a row this transaction writes, at the version it
  // overwrites?
  bool rw_dependency(auto& txn, const auto& writes) {
    const TxnMeta& m = txn.meta();
    if (asymmetric_) bcc::asymmetric_fence();  // readers' inserts before their checks: see put_read
    const uint32_t n = n_threads_.load(std::memory_order_acquire);
    for (uint32_t u = 0; u < n; ++u) {
      if (u == txn.thread_id()) continue;
      const ThreadHistory* other = threads_[u].load(std::memory_order_acquire);
      if (other == nullptr) continue;
      // Entries from the one running at Start (not if u was idle) to End.
      const uint64_t lo = u < m.n ? m.start[u] + ((m.idle_at_start >> u) & 1) : 0;
      const uint64_t hi = clock_[u].load(std::memory_order_seq_cst) & ~kFlagBit;
      const uint64_t head = other->head.load(std::memory_order_seq_cst);
      for (uint64_t i = head; i > 0 && head - i < kHistoryEntries;) {
        const Entry& e = other->ring[--i % kHistoryEntries];
        const uint64_t s = e.start_tid.load(std::memory_order_acquire);
        const uint64_t table = e.table.load(std::memory_order_seq_cst);
        if (s == 0 || e.start_tid.load(std::memory_order_relaxed) != s) continue;  // being rewritten
        if (s < lo) break;
        if (s > hi) continue;
        for (auto* a : writes) {
          const uint64_t version = a->row->meta.tid.load(std::memory_order_relaxed) & ~kFlagBit;
          if (bcc::find_read(table, reinterpret_cast<uint64_t>(a->row)) == version) return true;
        }
      }
    }
    return false;
  }

  static bool has_inserts(auto& txn) {
    for (const auto& a : txn.accesses())
      if (a.type == AccessType::kInsert) return true;
    return false;
  }

  // The transaction has finished (committed with TID `last`, or aborted):
  // its thread is idle in the clock.
  void end_update(auto& txn, uint64_t last) {
    ThreadHistory& h = *txn.meta().history;
    const TxnMeta& m = txn.meta();
    const uint32_t reads = static_cast<uint32_t>(m.reads_set.mask + 1) / 2 - m.room;
    h.read_hint = std::max(reads, h.read_hint - h.read_hint / 32);
    const uint64_t clock_start = timer_.now();
    clock_[txn.thread_id()].store(last | kFlagBit, std::memory_order_release);
    timer_.charge(h.stats.clock_cycles, clock_start);
  }

  // ---- Snapshot transactions (section 3) ------------------------------------

  // A snapshot transaction reads at the latest floor, or at a new one if the
  // latest is older than the snapshot epoch.
  void begin_snapshot(ThreadHistory& h, TxnMeta& m, uint32_t t) {
    m.floor = snapshots_.begin_read(t, floor_, [&] {
      const uint64_t f = floor_.load(std::memory_order_seq_cst);
      if (f == 0 || now_ns() - last_sync_ns_.load(std::memory_order_relaxed) > snapshot_epoch_ns_) return synchronize(h);
      return f;
    });
  }

  // The synchronization point: no transaction starts (begin_update waits)
  // until every running one has finished; then the floor is drawn above every
  // TID generated so far (section 5.1: "advances the global epoch"). If
  // another thread is synchronizing, its result is used.
  uint64_t synchronize(ThreadHistory& h) {
    bool expected = false;
    if (!syncing_.compare_exchange_strong(expected, true, std::memory_order_seq_cst)) {
      for (SpinWait w; syncing_.load(std::memory_order_acquire);) w.pause();
      return floor_.load(std::memory_order_seq_cst);
    }
    uint64_t max = floor_.load(std::memory_order_relaxed);
    const uint32_t n = n_threads_.load(std::memory_order_acquire);
    for (uint32_t u = 0; u < n; ++u) {
      uint64_t v;
      for (SpinWait w; !((v = clock_[u].load(std::memory_order_seq_cst)) & kFlagBit);) w.pause();
      max = std::max(max, v);
    }
    const uint64_t floor = (counter_of(max) + 1) << kCounterShift;
    last_sync_ns_.store(now_ns(), std::memory_order_relaxed);
    floor_.store(floor, std::memory_order_seq_cst);
    syncing_.store(false, std::memory_order_seq_cst);
    ++h.stats.syncs;
    return floor;
  }

  // Section 4.1/5.1: one contiguous vector (one socket; the paper keeps one
  // cache-line-aligned sub-vector per socket).
  alignas(64) std::atomic<uint64_t> clock_[kMaxThreads];
  alignas(64) std::atomic<uint32_t> n_threads_{0};
  std::atomic<bool> syncing_{false};
  std::atomic<uint64_t> floor_{0};  // latest snapshot floor, 0 = none yet
  std::atomic<uint64_t> last_sync_ns_{0};
  const uint64_t snapshot_epoch_ns_;
  const bool asymmetric_;  // searchers issue asymmetric fences; inserts need none
  bcc::ComponentTimer timer_;  // --bcc_breakdown

 public:
  bool uses_asymmetric_fence() const { return asymmetric_; }

 private:
  std::atomic<ThreadHistory*> threads_[kMaxThreads] = {};
  std::unique_ptr<ThreadHistory> owned_[kMaxThreads];
  snapshot::Snapshots snapshots_;
};

}  // namespace ccb
