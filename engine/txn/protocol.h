// The protocol concept: what a concurrency-control protocol implements.
//
// A protocol is a class CC, chosen at compile time as the template argument of
// the engine (Txn<CC>, OnlineExecutor<CC, W>, ...), so no row access goes
// through a virtual call. It supplies three nested types and six operations:
//
//   CC::RowMeta     per-row metadata embedded in the row header (locks, TIDs,
//                   timestamps). Default-constructed = unlocked, loader version.
//                   Size a multiple of 8.
//   CC::AccessMeta  per-access state kept in the transaction's access set
//                   (e.g. the TID observed when the row was read).
//   CC::TxnMeta     per-transaction (and per-thread, persistent) state.
//   CC::kName       the protocol's lower-case name ("silo"), used for the
//                   binary name bin/rundb-<name> and in results.
//
//   void begin(Txn<CC>&)                 a new attempt starts
//   RC read(Txn<CC>&, Access<CC>&)       first read of a row: make a.data
//                                        point to a stable image of the row
//                                        (a private copy, or the row itself
//                                        while a lock protects it)
//   RC write(Txn<CC>&, Access<CC>&)      the row will be written (first access
//                                        or upgrade of a read): make a.local a
//                                        private copy of the current image
//                                        (read-modify-write semantics)
//   RC insert(Txn<CC>&, Access<CC>&)     a new row (a.row, unindexed) was
//                                        created; a.local holds its image
//   RC commit(Txn<CC>&)                  validate; on success install every
//                                        write with txn.install(a), publish
//                                        inserts with txn.publish_inserts(..),
//                                        release everything; on failure release
//                                        everything and return the abort reason
//   void abort(Txn<CC>&)                 the attempt failed during execution
//                                        (an operation returned non-kOk, or the
//                                        procedure rolled back): release all
//
// Write the operations as templates over the transaction (`RC read(auto& txn,
// auto& a)`): the engine calls them with Txn<CC> and Access<CC>, and a test
// can derive a deliberately broken variant (tests/engine/mutants.h) that
// reuses every operation but one.
//
// Any operation returning something other than RC::kOk dooms the attempt; the
// executor then calls abort() (but never after a failed commit(), which cleans
// up itself) and retries the request.
//
// Optional members, each detected with a concept below and used by the
// executor (engine/exec/online_executor.h) only where present:
//   static constexpr int kEpochMillis = N   the executor calls `void tick()`
//                                        every N ms from a background thread
//                                        (Silo's epoch advancer). HasEpochTick.
//   static constexpr int kMaxThreads = N    the protocol supports at most N
//                                        worker threads (owner bitmaps, TID
//                                        thread fields); more is a
//                                        configuration error (exit 2).
//                                        HasMaxThreads.
//   RC acquire_all(Txn<CC>&, const TxnDesc&)  called right after txn.begin(),
//                                        before the procedure, with the
//                                        request's predicted access set
//                                        (workload describe(), computed once
//                                        per buffered request, key sets
//                                        sorted): protocols that lock
//                                        everything up front (LockSorted,
//                                        PreNoWait). Global keys resolve to
//                                        tables through txn.table(id); the
//                                        executor registers the workload's
//                                        tables, so the workload must then
//                                        expose `Table<CC>* table_by_id(
//                                        uint32_t)`. Non-kOk dooms the attempt
//                                        (abort() follows). HasAcquireAll.
//   static int lock_server_threads(int threads), void open(int lock_servers,
//   int workers), void lend_threads(LentThreads&), void worker_done(uint32_t
//   thread), void close()
//                                        protocols whose locks are managed
//                                        by owner threads reached through
//                                        message passing (Dora, Orthrus;
//                                        engine/cc_helpers/message_locks.h). Of
//                                        --threads, lock_server_threads()
//                                        serve locks only and the executor
//                                        runs the rest as workers; open()
//                                        before the workers start;
//                                        lend_threads() then hands the
//                                        executor the protocol's service
//                                        threads (engine/core/thread_group.h:
//                                        run beside the workers, natively and
//                                        under sim, stopped after the last
//                                        worker returned); each worker calls
//                                        worker_done() after its last
//                                        transaction, close() after they all
//                                        joined. Online executor only (other
//                                        front-ends: exit 2). HasLockService.
//   void stats_json(JsonWriter&) const   protocol counters, written by the
//   void reset_stats(uint32_t thread)    engine as the result's "cc_stats"
//                                        object; each worker resets its own
//                                        counters when the measured interval
//                                        starts. HasProtocolStats.
//   using Options = <struct>;            the protocol's own flags: a struct
//   void configure(const Options&)       with an options table (kByProgram,
//                                        engine/core/options.h), from_flags()
//                                        and to_json(); only the protocol's
//                                        binary defines them (rundb/main.h),
//                                        run_online() reads them and calls
//                                        configure() once, before loading, and
//                                        echoes them in "config" (BCC's
//                                        --bcc_breakdown, MOCC's knobs).
//                                        HasProtocolOptions.
//   void bind_workload(const EngineConfig&, const W&)
//                                        before loading, the workload the
//                                        run will run: PartCC, Dora and
//                                        Orthrus take its partitioning
//                                        (engine/cc_helpers/workload_partitioning.h).
//                                        BindsWorkload.
//   static constexpr bool kOwnBackoff = true;
//                                        the protocol waits after an abort
//                                        itself (Cicada's contention
//                                        regulation): the executor's
//                                        --abort_policy=backoff then retries
//                                        at once instead of stacking its own
//                                        randomized wait on the protocol's.
//                                        HasOwnBackoff.
//   bool last_commit_saved(Txn<CC>&) const  the last commit() on this
//                                        transaction succeeded although OCC's
//                                        criterion failed (BCC); used by
//                                        --attempt_latency_type
//                                        (engine/txn/attempt_outcome.h,
//                                        ReportsSavedCommits).
// And facts of the attempt a protocol may read from the transaction:
//   txn.restarts()   0 on a request's first attempt, n on its n-th retry
//                    (wait-die keeps its timestamp across retries);
//   txn.read_only()  the workload declared the request read-only before it
//                    ran (workload member `bool read_only(const Request&)
//                    const`; Silo and BCC run such requests as snapshot
//                    transactions, with engine/cc_helpers/snapshots.h).
#pragma once

#include <concepts>
#include <cstdint>
#include <cstring>

#include "engine/core/rc.h"
#include "engine/core/shared.h"
#include "engine/core/spin.h"
#include "engine/core/table.h"
#include "engine/core/thread_group.h"
#include "engine/core/txn_desc.h"

namespace ccb {
struct EngineConfig;  // engine/config.h
}  // namespace ccb

namespace ccb {

// kProfiled: compiled with --profile's timing (engine/txn/txn.h).
template <class CC, bool kProfiled = false>
class Txn;
class JsonWriter;

enum class AccessType : uint8_t { kRead, kWrite, kInsert };

template <class CC>
struct Access {
  Row<CC>* row = nullptr;
  Table<CC>* table = nullptr;
  uint64_t key = 0;
  // The image the procedure sees (version word first): a private copy or the
  // row's own data. For writes and inserts it equals `local`.
  uint8_t* data = nullptr;
  uint8_t* local = nullptr;  // private copy installed at commit (writes, inserts)
  AccessType type = AccessType::kRead;
  uint64_t read_version = 0;  // version word observed (history recording)
  uint64_t prev_version = 0;  // version overwritten at install (history recording)
  typename CC::AccessMeta meta{};

  bool is_write() const { return type != AccessType::kRead; }
};

template <class CC>
concept Protocol = requires(CC cc, Txn<CC>& txn, Access<CC>& a) {
  typename CC::RowMeta;
  typename CC::AccessMeta;
  typename CC::TxnMeta;
  { CC::kName } -> std::convertible_to<const char*>;
  { cc.begin(txn) } -> std::same_as<void>;
  { cc.read(txn, a) } -> std::same_as<RC>;
  { cc.write(txn, a) } -> std::same_as<RC>;
  { cc.insert(txn, a) } -> std::same_as<RC>;
  { cc.commit(txn) } -> std::same_as<RC>;
  { cc.abort(txn) } -> std::same_as<void>;
} && (sizeof(typename CC::RowMeta) % 8 == 0) && std::default_initializable<typename CC::RowMeta>;

template <class CC>
concept HasEpochTick = requires(CC cc) {
  { CC::kEpochMillis } -> std::convertible_to<int>;
  cc.tick();
};

template <class CC>
concept HasMaxThreads = requires {
  { CC::kMaxThreads } -> std::convertible_to<int>;
};

template <class CC>
concept HasAcquireAll = requires(CC cc, Txn<CC>& txn, const TxnDesc& d) {
  { cc.acquire_all(txn, d) } -> std::same_as<RC>;
};

template <class CC>
concept HasLockService = requires(CC cc, int n, uint32_t t, LentThreads& lent) {
  { CC::lock_server_threads(n) } -> std::convertible_to<int>;
  cc.open(n, n);
  cc.lend_threads(lent);
  cc.worker_done(t);
  cc.close();
};

template <class CC>
concept HasProtocolOptions = requires(CC cc, const typename CC::Options& o, JsonWriter& w) {
  CC::Options::flags.define_flags();
  { CC::Options::from_flags() } -> std::same_as<typename CC::Options>;
  o.to_json(w);
  cc.configure(o);
};

template <class CC>
concept HasProtocolStats = requires(CC cc, const CC ccc, JsonWriter& w) {
  ccc.stats_json(w);
  cc.reset_stats(uint32_t{0});
};

template <class CC>
concept HasOwnBackoff = CC::kOwnBackoff;

template <class CC>
concept ReportsSavedCommits = requires(const CC cc, Txn<CC>& txn) {
  { cc.last_commit_saved(txn) } -> std::same_as<bool>;
};

// bind_workload(cfg, w): run_online (rundb/run.h) calls it before loading,
// with the workload it will run (PartCC, Dora and Orthrus take the
// workload's partitioning, engine/cc_helpers/workload_partitioning.h).
template <class CC, class W>
concept BindsWorkload = requires(CC cc, const EngineConfig& cfg, const W& w) { cc.bind_workload(cfg, w); };

// Copies of row data that may race with a concurrent writer. Optimistic
// protocols (Silo, TicToc, OCC) copy a row and then check that its version did
// not change (seqlock pattern): a torn copy is detected and discarded, so the
// race is benign. Under ThreadSanitizer we copy word by word with relaxed
// atomics so the tool sees no data race; elsewhere plain memcpy is fastest.
// REQUIRES: n is a multiple of 8 and both pointers are 8-byte aligned.
inline void racy_copy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(CCB_TSAN)
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = __atomic_load_n(reinterpret_cast<const uint64_t*>(src + i), __ATOMIC_RELAXED);
    __atomic_store_n(reinterpret_cast<uint64_t*>(dst + i), w, __ATOMIC_RELAXED);
  }
#else
  std::memcpy(dst, src, n);
#endif
}

}  // namespace ccb
