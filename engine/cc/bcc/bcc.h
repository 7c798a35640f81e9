// BCC: Balanced Concurrency Control (Yuan, Wang, Lee, Ding, Xing, Blanas,
// Zhang, "BCC: Reducing False Aborts in Optimistic Concurrency Control with
// Low Cost for In-Memory Databases", PVLDB 9(6), 2016), built on Silo as in
// the paper (section 5.1).
//
// Reads, write-set locking and OCC's criterion are Silo's (engine/cc/silo/silo.h).
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
// check against a writer that locks the row and then searches (a store-load
// pattern on both sides). Two ways (--bcc_fence, bcc::Fence): per_read (the
// default) puts a full fence after every insert; asymmetric (Linux) inserts
// with plain release stores and a searching writer issues a process-wide
// barrier (membarrier, an "asymmetric fence"). The second saves a fence per
// read but costs a system call and an interrupt of every running worker per
// search, which is frequent under contention, BCC's purpose: hence the
// default (engine/cc/bcc/README.md has the measurements).
//
// Memory ordering: which store must be seen by which load, and the one fence
// each side pays. S is the single total order of the seq_cst fences (C++20
// [atomics.order] p4): if fence X ->sb a load that reads before a store that
// ->sb fence Y, then X precedes Y in S. Every store below is release (what it
// publishes, e.g. an entry's table before the head, a slot's TID before its
// key, is read with acquire); each store-load pair is closed by fences:
//   (1) begin: the clock entry store C_t, then the begin fence F_t, then the
//       loads of syncing_/floor_ and of every clock entry (Start). Against
//       another begin (C_u, F_u, loads): F_t and F_u are ordered in S, and the
//       later one's loads see the earlier one's store. The Release rule needs
//       this: if t's scan after its transaction T missed u's new TID (so t
//       may release T's table once u is the oldest running), then u's Start
//       saw t's later entry, u's search range for t starts above T, and u
//       never searches T's table. Against synchronize() (its seq_cst CAS on
//       syncing_, then loads of the clock): it sees the running TID and
//       waits, or begin sees syncing_ or the new floor and backs off.
//       Against a validator V (locks, its fence F_V, loads of the clock for
//       End): if V's End missed C_t, F_V precedes F_t, so every row T reads
//       (all after F_t) shows V's locks; T cannot read a version V
//       overwrites, and V need not search T (section 4.3's argument).
//   (2) read (Algorithm 2): the history head, the entry's table word (also
//       when grown), the slot's TID and key, then the per-read fence F_r,
//       then the re-check of the row. V: lock_writes, F_V, then the loads of
//       the head, the table word and the slots (rw_dependency). If V missed
//       any of T's stores, F_V precedes F_r, and T's re-check sees V's lock
//       (it re-reads and gets V's version or a later one); if T's re-check
//       missed V's lock, F_r precedes F_V and V finds the read. Either way
//       no T ->rw V goes undetected. Hence the head and the grown table word
//       need no seq_cst store of their own: the next insert's fence covers
//       them.
//   (3) asymmetric: as (2), with F_r the full barrier that membarrier() makes
//       each running worker execute somewhere in its instruction stream (a
//       descheduled one has executed one), and V's own fence before the
//       call. That is the kernel's guarantee, outside the C++ model:
//       ThreadSanitizer does not model it, and there the option falls back
//       to per_read (valgrind runs it, with its threads serialized).
//   (4) the end of a transaction: the idle store, release. A thread seen
//       running that is already idle only keeps tables alive longer, or
//       makes synchronize() wait a little; a thread seen idle that started a
//       new transaction is case (1).
// Per update transaction that is the begin fence, one fence per read (none
// with asymmetric) and V's fence after locking (lock_bit's CAS is acquire).
//
// A table is released once every
// thread that runs a transaction holds a TID above its Release, the largest
// clock entry seen once it finished (the conservative rule of section 4.2;
// idle threads cannot be searching it). Table memory comes from three
// chase-tail circular buffers of 16 KiB, 256 KiB and 4 MiB, tried in that
// order (section 5.1), and the history list has 16K entries (section 6.3):
// that memory is all a thread's tables may hold (section 6.3: "the total size
// of memory for storing history hash tables [is] 4MB"). A full history list,
// or buffers with no room for the new table, make begin() wait, idle, until
// entries are released (an idle thread blocks no release, so every thread's
// tables are released eventually). A running transaction cannot wait (its
// own table would keep the tables of the threads it waits for alive): when
// its table must grow and no buffer has room, it aborts (RC::kHistoryMemory)
// and its retry starts with a table of the grown size.
//
// Validation (Algorithms 1 and 3, section 4.3), after Silo locks the write set
// (Silo's commit phases are shared: engine/cc_helpers/silo_commit.h):
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
// ones Silo uses (engine/cc_helpers/snapshots.h).
//
// Phantoms (section 4.4) are not handled: no workload here scans (as Silo).
// Counters (stats_json, "cc_stats"): commits OCC's criterion would have
// aborted ("saved"), aborts after the BCC check by the dependency found, and
// per-thread bytes held by history tables (average and maximum, section 6.3).
// last_commit_saved() tells the executor whether a commit was "saved", for
// the per-attempt latency by outcome of Figures 11 and 12. With
// --bcc_breakdown (BccOptions, configure()), bcc::ComponentTimer times the history's
// memory management and the global-clock accesses for Table 1; off, each of
// its probes is one predictable branch.
//
// The parts, as separate headers under engine/cc/bcc/: the circular buffers
// (ring.h), the read-set hash tables and the asymmetric fence (read_set.h),
// the per-thread history list and its memory management (history.h), the
// counters (stats.h) and the --bcc_breakdown timer (component_timer.h). This
// file keeps the protocol: the global clock, Algorithms 2 and 3 and the
// snapshot transactions.
//
// Thread safety: one Bcc is shared by all workers; each thread's history is
// written by that thread only and searched by the others through atomics.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "engine/cc/bcc/component_timer.h"
#include "engine/cc/bcc/history.h"
#include "engine/cc/bcc/options.h"
#include "engine/cc/bcc/read_set.h"
#include "engine/cc/bcc/stats.h"
#include "engine/cc_helpers/common.h"
#include "engine/cc/silo/silo.h"
#include "engine/cc_helpers/silo_commit.h"
#include "engine/cc_helpers/snapshots.h"
#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/json.h"

namespace ccb {

class Bcc {
 public:
  static constexpr const char* kName = "bcc";
  static constexpr int kMaxThreads = 64;
  static constexpr uint64_t kFlagBit = silo::kLockBit;  // lock bit in a row's TID, idle bit in a clock entry
  static constexpr int kThreadShift = 1;
  static constexpr int kCounterShift = 7;
  // A snapshot is reused this long: Silo's snapshot epoch, k epochs (1 s).
  static constexpr uint32_t kSnapshotEpochMillis = Silo::kEpochMillis * Silo::kSnapshotEpochs;

  struct RowMeta {
    Shared<uint64_t> tid{0};  // Silo's TID word: writer's commit TID | lock bit
    snapshot::Chain old{nullptr};  // saved versions, newest first
  };
  struct AccessMeta {
    uint64_t observed_tid = 0;
    bool locked = false;
  };

  using Dependency = bcc::Dependency;
  // (Not `using enum`: GCC 12 crashes on it in these templates.)
  static constexpr Dependency kNoDependency = bcc::kNoDependency, kWr = bcc::kWr, kWw = bcc::kWw, kRw = bcc::kRw;
  using Stats = bcc::Stats;
  using ThreadHistory = bcc::ThreadHistory;

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
    bool table_full = false;       // its table could not grow (it aborts with kHistoryMemory)
  };

  // How a reader's read-set insert is ordered before its re-check (--bcc_fence;
  // the file comment). kAsymmetric falls back to kPerRead where membarrier is
  // unavailable (and under ThreadSanitizer, which does not model it).
  using Fence = bcc::Fence;

  explicit Bcc(uint32_t snapshot_epoch_ms = kSnapshotEpochMillis, Fence fence = Fence::kPerRead)
      : snapshot_epoch_ns_(uint64_t{snapshot_epoch_ms} * 1'000'000) {
    for (auto& c : clock_) c.store(kFlagBit, std::memory_order_relaxed);  // before the run: no virtual core yet
    use_fence(fence);
  }

  // --bcc_breakdown (bcc-tab1): time the history's memory management and the
  // global-clock accesses with the cycle counter (see ComponentTimer).
  // --bcc_fence: the ordering of read-set inserts. Before the workers start.
  using Options = BccOptions;
  void configure(const BccOptions& o) {
    if (o.breakdown) timer_.enable();
    use_fence(o.fence_kind());
    if (o.fence_kind() == Fence::kAsymmetric && !asymmetric_)
      std::fprintf(stderr, "warning: bcc: --bcc_fence=asymmetric: membarrier is unavailable here; running per_read "
                           "(cc_stats.fence)\n");
  }
  // For per-attempt latency by outcome (engine/stats/attempt_latency.h).
  bool last_commit_saved(auto& txn) const { return txn.meta().saved; }

  // ---- Protocol operations -------------------------------------------------

  void begin(auto& txn) {
    TxnMeta& m = txn.meta();
    if (m.history == nullptr) m.history = register_thread(txn.thread_id());
    ThreadHistory& h = *m.history;
    m.snapshot = txn.read_only();
    snapshots_.collect(txn.thread_id(), floor_.unmodelled().load(std::memory_order_seq_cst));  // as in Silo: uncharged
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
    if (!observe(txn, a)) [[unlikely]]
      return RC::kHistoryMemory;
    a.data = a.local;
    return RC::kOk;
  }
  RC write(auto& txn, auto& a) {
    if (txn.meta().snapshot) snapshot::Snapshots::declared_read_only_but_writes(kName, a.table->name());
    if (a.local == nullptr && !observe(txn, a)) [[unlikely]]
      return RC::kHistoryMemory;
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
    // Algorithm 3, validation: Silo's phase 1 (the critical section). The
    // validator's fence: the locks before the loads of the clock (End), the
    // history and the read-set tables (the file comment, (1) and (2)).
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
        const uint64_t current = a.row->meta.tid.reread() & ~kFlagBit;
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
    w.key("fence").value(fence_name());  // the ordering in effect (--bcc_fence, or its fallback)
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
    w.key("history_full_waits").value(s.history_full);
    w.key("table_memory_waits").value(s.table_memory_full);
    w.key("table_grow_aborts").value(s.table_grow_failures);
    w.key("table_wipes").value(s.table_wipes);
    // Section 6.3 / Figure 10: bytes of live history tables per thread,
    // sampled at every begin(); the average over threads of each thread's
    // mean, and the largest sample of any thread (at most the capacity).
    double avg = 0;
    int threads = 0;
    for (const auto& t : owned_) {
      if (!t || t->stats.memory_samples == 0) continue;
      avg += static_cast<double>(t->stats.memory_sum) / static_cast<double>(t->stats.memory_samples);
      ++threads;
    }
    w.key("history_bytes_per_thread_avg").value(threads ? avg / threads : 0.0);
    w.key("history_bytes_per_thread_max").value(s.memory_max);
    w.key("history_bytes_capacity").value(uint64_t{bcc::kTableMemoryBytes});
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
  // Selects the ordering of read-set inserts (the file comment, (2) and (3)).
  void use_fence(Fence fence) { asymmetric_ = fence == Fence::kAsymmetric && bcc::register_asymmetric_fence(); }

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
    // Twice the recent read sets (a retry reads as much), 16 slots minimum:
    // tables cost no zeroing, so a generous size is cheaper than a grow. At
    // most the largest buffer.
    const int log2 = std::min(bcc::kMaxTableLog2, static_cast<int>(std::bit_width(std::max<uint64_t>(h.read_hint, 8) * 2 - 1)));
    bool waited_for_history = false, waited_for_memory = false;
    for (SpinWait w;; w.pause()) {
      const uint64_t clock_start = timer_.now();
      // Line 2: a TID, published in the global clock, unless a snapshot
      // synchronization is in progress (section 3): then wait, idle.
      // Under sim the global clock vector, the floor and the sync flag are
      // shared lines: each read of a line another core wrote is a transfer.
      const uint64_t floor = floor_.load(std::memory_order_seq_cst);
      const uint64_t tid = next_tid(h, t, floor);
      const auto mine = write_line(clock_[t]);
      mine[clock_[t]].store(tid, std::memory_order_release);
      // The begin fence: the TID's store before the loads below (the file
      // comment, (1)).
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (syncing_.load(std::memory_order_seq_cst) || floor_.reread(std::memory_order_seq_cst) != floor) {
        mine[clock_[t]].store(tid | kFlagBit, std::memory_order_release);
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
      // or its buffers have no room for the table (or, once in 65535
      // transactions, until it is empty: see wipe_tables).
      const bool room = h.release(max, min_running);
      const bool memory = h.has_room_for(log2);
      const bool ready = room && memory && (h.stamp < bcc::kMaxStamp || h.wipe_tables());
      timer_.charge(h.stats.mm_cycles, mm_start);
      if (ready) break;
      clock_[t].store(tid | kFlagBit, std::memory_order_release);
      if (!room && !waited_for_history) ++h.stats.history_full;
      if (!memory && !waited_for_memory) ++h.stats.table_memory_full;
      waited_for_history |= !room;
      waited_for_memory |= !memory;
    }
    // Line 4: a new table, published in the history list.
    const uint64_t mm_start = timer_.now();
    m.table = h.publish_table(log2, m.start_tid);  // release: the file comment, (2)
    m.reads_set = bcc::ReadSet(m.table);
    m.room = static_cast<uint32_t>(m.reads_set.mask + 1) / 2;
    m.table_full = false;
    timer_.charge(h.stats.mm_cycles, mm_start);
  }

  // A Silo read that also records the row in the read-set table, with the
  // insert-then-verify synchronization of Algorithm 2. False if the table
  // had to grow and could not (the transaction must abort).
  bool observe(auto& txn, auto& a) {
    TxnMeta& m = txn.meta();
    const uint64_t row = reinterpret_cast<uint64_t>(a.row);
    for (;;) {
      const uint64_t tid = stable_copy<silo::kLockBit>(txn, a, a.row->meta.tid);
      if (bcc::put_read(m.reads_set, row, tid, !asymmetric_) && m.room-- == 0 && !grow_table(*m.history, m))
        return false;
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the insert first
      if (a.row->meta.tid.reread(std::memory_order_seq_cst) != tid) continue;  // changed: re-read
      a.meta.observed_tid = tid;
      return true;
    }
  }

  // Doubles the read-set table (ThreadHistory::grow_table); false if no
  // buffer has room (m.table_full: the retry starts with the grown size).
  // Out of line and cold, so that observe() keeps few registers to save.
  [[gnu::noinline, gnu::cold]] bool grow_table(ThreadHistory& h, TxnMeta& m) {
    const uint64_t mm_start = timer_.now();
    const int log2 = static_cast<int>(m.table & 63) + 1;
    if (log2 > bcc::kMaxTableLog2) table_too_large(m);
    const uint64_t bigger = h.grow_table(m.table);  // release: the file comment, (2)
    if (bigger == 0) {
      if (!m.table_full) ++h.stats.table_grow_failures;
      m.table_full = true;
      m.room = 0;  // a procedure that reads on after the failure fails again
      timer_.charge(h.stats.mm_cycles, mm_start);
      return false;
    }
    const bcc::ReadSet grown(bigger);
    m.table = bigger;
    const uint32_t reads = static_cast<uint32_t>(m.reads_set.mask + 1) / 2 + 1;
    m.reads_set = grown;
    m.room = static_cast<uint32_t>(grown.mask + 1) / 2 - reads;
    timer_.charge(h.stats.mm_cycles, mm_start);
    return true;
  }

  // No retry could hold this read set: it needs a table larger than the
  // largest buffer.
  [[noreturn]] static void table_too_large(const TxnMeta& m) {
    std::fprintf(stderr,
                 "fatal: bcc: a transaction read more than %llu rows; its read-set table would not fit the "
                 "%zu-byte history buffer (section 6.3's 4MB per thread)\n",
                 static_cast<unsigned long long>((m.reads_set.mask + 1) / 2), bcc::kLevelBytes[2]);
    std::abort();
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
      if (after_start(m, a->row->meta.tid.reread() & ~kFlagBit)) return kWw;
    if (writes.size() > 0 && rw_dependency(txn, writes)) return kRw;
    return kNoDependency;
  }

  // Section 4.3, "Detect rw dependency": does a transaction that started
  // between Start and End (the clock read now, with the write set locked) hold
  // in its read set a row this transaction writes, at the version it
  // overwrites?
  bool rw_dependency(auto& txn, const auto& writes) {
    const TxnMeta& m = txn.meta();
    if (asymmetric_) bcc::asymmetric_fence();  // readers' inserts before their checks: the file comment, (3)
    const uint32_t n = n_threads_.load(std::memory_order_acquire);
    for (uint32_t u = 0; u < n; ++u) {
      if (u == txn.thread_id()) continue;
      const ThreadHistory* other = threads_[u].load(std::memory_order_acquire);
      if (other == nullptr) continue;
      // Entries from the one running at Start (not if u was idle) to End.
      const uint64_t lo = u < m.n ? m.start[u] + ((m.idle_at_start >> u) & 1) : 0;
      const uint64_t hi = clock_[u].load(std::memory_order_seq_cst) & ~kFlagBit;
      const uint64_t head = other->head.load(std::memory_order_seq_cst);
      for (uint64_t i = head; i > 0 && head - i < bcc::kHistoryEntries;) {
        uint64_t s, table;
        if (!other->ring[--i % bcc::kHistoryEntries].read(s, table)) continue;  // being rewritten
        if (s < lo) break;
        if (s > hi) continue;
        for (auto* a : writes) {
          const uint64_t version = a->row->meta.tid.reread() & ~kFlagBit;
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
    // A table that could not grow held one read more than half its slots.
    const uint32_t half = static_cast<uint32_t>(m.reads_set.mask + 1) / 2;
    const uint32_t reads = m.table_full ? half + 1 : half - m.room;
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
      const uint64_t f = floor_.unmodelled().load(std::memory_order_seq_cst);  // as Snapshots' reads: uncharged
      const uint64_t last_sync = last_sync_ns_.load(std::memory_order_relaxed);
      if (f == 0 || now_ns() - last_sync > snapshot_epoch_ns_) return synchronize(h);
      return f;
    });
  }

  // The synchronization point: no transaction starts (begin_update waits)
  // until every running one has finished; then the floor is drawn above every
  // TID generated so far (section 5.1: "advances the global epoch"). If
  // another thread is synchronizing, its result is used.
  uint64_t synchronize(ThreadHistory& h) {
    bool expected = false;
    // Once a snapshot epoch, the synchronization's reads of the flag (its wait
    // charged by SpinWait's rounds) and of the floor: not lines of the model.
    if (!syncing_.compare_exchange_strong(expected, true, std::memory_order_seq_cst)) {
      for (SpinWait w; syncing_.unmodelled().load(std::memory_order_acquire);) w.pause();
      return floor_.unmodelled().load(std::memory_order_seq_cst);
    }
    uint64_t max = floor_.unmodelled().load(std::memory_order_relaxed);
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
  alignas(64) Shared<uint64_t> clock_[kMaxThreads];
  alignas(64) ThreadCount n_threads_{0};
  Shared<bool> syncing_{false};
  Shared<uint64_t> floor_{0};  // latest snapshot floor, 0 = none yet
  Shared<uint64_t, Modelled::kNo> last_sync_ns_{0};  // read and written by the synchronizer, once a snapshot epoch
  const uint64_t snapshot_epoch_ns_;
  bool asymmetric_ = false;  // searchers issue asymmetric fences; inserts need none (set before workers start)
  bcc::ComponentTimer timer_;  // --bcc_breakdown

 public:
  bool uses_asymmetric_fence() const { return asymmetric_; }
  // "per_read" or "asymmetric": the ordering in effect (--bcc_fence's names).
  const char* fence_name() const {
    return BccOptions::fences()[static_cast<size_t>(asymmetric_ ? Fence::kAsymmetric : Fence::kPerRead)].c_str();
  }

 private:
  // Published once per thread; a searcher charges the lines of the entries it reads.
  Shared<ThreadHistory*, Modelled::kNo> threads_[kMaxThreads] = {};

  std::unique_ptr<ThreadHistory> owned_[kMaxThreads];
  snapshot::Snapshots snapshots_;
};

}  // namespace ccb
