// The pipeline engine: the loosely coupled OCC system of Ding, Kot, Gehrke,
// "Improving Optimistic Concurrency Control Through Transaction Batching and
// Operation Reordering", PVLDB 12(2) 2018 (§2 Fig 1, §3, §4.3 Fig 19, §5
// setup). The testbed's third executor, after the online and bundle executors.
//
// Components (threads) and the bounded TBB queues between them:
//
//   clients (2) --new--> processor (1) --read--> storage workers (2)
//        ^                 |   ^  ^                    |
//        +----commit-------+   |  +-----reads done-----+
//                          |   +--commit/abort--+
//                          +--validate--> validator
//
//  * Clients generate transactions (workloads/micro, workloads/smallbank)
//    until `concurrency` are in flight (closed loop: a client issues a new
//    transaction for each commit reply it receives).
//  * The processor is non-blocking: it multiplexes every in-flight
//    transaction over one inbound queue; for a (re)started transaction it
//    sends read requests to the storage workers owning its keys, on the last
//    reply a validation request (keys + versions read, keys written), on a
//    commit it computes the written values, sends the writes with version =
//    commit timestamp to storage and a commit message to the client, on an
//    abort it restarts the transaction (same keys, restarts + 1).
//  * Storage workers each own a partition of the versioned hash store
//    (versioned_store.h), optionally batching (and reordering) requests.
//  * The validator does backward validation against the cache of committed
//    write keys (validator_cache.h) and hands out integer commit timestamps.
//    Unbatched (modes base, sr): one thread, one transaction at a time.
//    Batched (batch, vc, srvc): the parallel validator of §4.3 / Fig 19, a
//    pipeline in which each stage works on a different batch:
//      batch preparation (1 thread): forms batches of `batch_size` (or what
//        arrived within the flush timeout) and pre-validates them against the
//        cache (a possibly stale state S);
//      reorder workers (1-4; with reordering only): dependency graph, FVS
//        (partitioners/reorder), topological commit order; batches leave in
//        any order;
//      validation (1 thread): batches one at a time; final validation of
//        each transaction in the commit order against the current state S'
//        and the writes committed earlier in the batch; then the cache update
//        in serialization order, then the decisions.
//    [INF] Validation inside one batch runs on the validation thread alone
//    (the paper allows it to be parallel); with 2-core machines the extra
//    threads would only add oversubscription.
//
// Deadlock freedom of the bounded queues: storage workers and validator
// stages only push to the processor's queue, whose capacity exceeds the most
// messages that can be addressed to it at once (each in-flight transaction
// has at most one message per storage worker, or one decision, or one new
// request pending); so they never block, and every other push waits only on
// a consumer that makes progress.
//
// Shutdown: clients stop issuing, the processor stops (re)starting
// transactions, waits for the decisions of every transaction it sent to the
// validator, applies their writes, then stops the storage workers, the
// validator and the clients with a message through their queues (FIFO, so
// every write is applied first). Transactions still in flight are abandoned.
//
// Files: this header holds the class, the clients, the processor and the
// storage workers; messages.h the transaction record and the messages;
// validator_stages.h the validators (unbatched, and the batched stages);
// run.h start / stop / collect (run()); result.h what a run measured.
//
// Thread safety: an Engine runs once (run()); not reentrant.
#pragma once

#include <tbb/concurrent_queue.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/stats/histogram.h"
#include "engine/verify/recorder.h"
#include "engine/workload.h"
#include "partitioners/reorder/reorder.h"
#include "systems/pipeline/messages.h"
#include "systems/pipeline/options.h"
#include "systems/pipeline/procedures.h"
#include "systems/pipeline/result.h"
#include "systems/pipeline/validator_cache.h"
#include "systems/pipeline/versioned_store.h"

namespace ccb::pipeline {

template <class P>
class Engine {
 public:
  using Request = typename P::Request;

  Engine(const PipelineOptions& o, P& procedure) : opt_(o), proc_(procedure) {
    for (uint32_t w = 0; w < opt_.storage_workers; ++w)
      partitions_.emplace_back(std::make_unique<StorePartition>([this](GlobalKey k) { return proc_.initial_value(k); }));
  }

  PipelineResult run();

 private:
  // The messages (messages.h), for this procedure's requests.
  using Txn = PipelineTxn<Request>;
  using ProcMsg = ProcessorMsg<Request>;
  using StoreMsg = StorageMsg<Request>;
  using Batch = ValidationBatch<Request>;

  uint32_t owner(GlobalKey k) const { return static_cast<uint32_t>(splitmix_hash(k) % opt_.storage_workers); }
  static uint64_t splitmix_hash(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  bool in_window(uint64_t t) const {
    return t >= window_start_.load(std::memory_order_acquire) && t < window_end_.load(std::memory_order_acquire);
  }
  void count_abort(AbortReason r) {
    ++all_aborts_;
    if (in_window(now_ns())) ++aborts_[static_cast<size_t>(r)];
  }

  // Pops up to n - batch.size() more items that arrive within the flush
  // timeout (batches are formed by count, §5); stops early at a stop item.
  template <class T, class IsStop>
  void fill_batch(tbb::concurrent_bounded_queue<T>& q, std::vector<T>& batch, size_t n, IsStop&& is_stop) {
    const uint64_t deadline = now_ns() + uint64_t{opt_.flush_timeout_us} * 1000;
    while (batch.size() < n && !is_stop(batch.back())) {
      T item{};
      if (q.try_pop(item)) {
        batch.push_back(std::move(item));
      } else {
        // Sleep rather than spin: the pipeline has more threads than most
        // machines have cores, and a spinning consumer would starve the very
        // producers it waits for.
        const uint64_t now = now_ns();
        if (now >= deadline) break;
        std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(deadline - now, 10000)));
      }
    }
  }

  void client_loop(uint32_t c, uint32_t quota);
  void make_txn(Txn& t, uint32_t c, Random& rng);
  void processor_loop();
  void issue_reads(Txn* t);
  void storage_loop(uint32_t w);
  void serve(uint32_t w, StoreMsg& m);
  void validator_loop();
  void prep_loop();
  void reorder_loop(uint32_t r);
  void validation_loop();
  void validate_batch(Batch& b);
  // t commits with timestamp ts: records it (with --verify) in the history;
  // current(key) is the latest version of key in serialization order.
  template <class Current>
  void record_commit(Txn* t, uint64_t ts, const Current& current);

  PipelineOptions opt_;
  P& proc_;
  std::vector<std::unique_ptr<StorePartition>> partitions_;
  ValidatorCache cache_;
  uint64_t last_ts_ = 0;  // validator (or validation stage) only

  tbb::concurrent_bounded_queue<ProcMsg> proc_q_;
  std::vector<std::unique_ptr<tbb::concurrent_bounded_queue<Txn*>>> reply_q_;
  std::vector<std::unique_ptr<tbb::concurrent_bounded_queue<StoreMsg>>> store_q_;
  tbb::concurrent_bounded_queue<Txn*> validator_q_;
  tbb::concurrent_bounded_queue<Batch*> reorder_q_, validation_q_;

  std::vector<std::unique_ptr<Txn>> txns_;  // one object per in-flight slot
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> window_start_{~uint64_t{0}}, window_end_{~uint64_t{0}};
  std::atomic<uint64_t> next_id_{0};

  // Per-thread results, read after join.
  std::vector<LatencyHistogram> client_latency_;
  std::vector<uint64_t> client_commits_, client_restarts_, client_issued_, client_replies_, client_busy_;
  std::vector<uint64_t> storage_busy_, storage_batches_;
  std::vector<ReorderStats> reorder_stats_;
  uint64_t processor_busy_ = 0, validator_busy_ = 0, prep_busy_ = 0, validation_busy_ = 0, validator_batches_ = 0;
  uint64_t aborts_[static_cast<size_t>(AbortReason::kCount)] = {};  // validator threads, one at a time per mode
  uint64_t all_aborts_ = 0;                                          // the same, over the whole run
  uint64_t processor_commits_ = 0, duplicate_commits_ = 0;
  std::vector<uint8_t> committed_;  // processor: per logical id
  verify::HistoryLog history_;
};

// ---------------------------------------------------------------- clients

template <class P>
void Engine<P>::make_txn(Txn& t, uint32_t c, Random& rng) {
  t.id = next_id_.fetch_add(1, std::memory_order_relaxed);
  t.client = c;
  proc_.generate(rng, c, t.request);
  proc_.access_sets(t.request, t.desc, t.read_keys);
  t.desc.id = t.id;
  t.desc.restarts = 0;
  t.observed.assign(t.read_keys.size(), {});
  t.read_values.assign(t.read_keys.size(), 0);
  t.first_submit_ns = now_ns();
}

template <class P>
void Engine<P>::client_loop(uint32_t c, uint32_t quota) {
  Random rng(splitmix_hash(opt_.seed * 1000003 + c));
  uint64_t busy = 0, issued = 0, replies = 0, commits = 0, restarts = 0;
  LatencyHistogram& hist = client_latency_[c];
  // The client's slots: transactions [first, first + quota) of txns_.
  const size_t first = [&] {
    size_t f = 0;
    for (uint32_t i = 0; i < c; ++i) f += opt_.concurrency / opt_.clients + (i < opt_.concurrency % opt_.clients);
    return f;
  }();
  for (uint32_t i = 0; i < quota; ++i) {
    Txn* t = txns_[first + i].get();
    make_txn(*t, c, rng);
    ++issued;
    proc_q_.push({ProcKind::kNew, t});
  }
  while (true) {
    Txn* t = nullptr;
    reply_q_[c]->pop(t);
    if (t == nullptr) break;
    const uint64_t start = now_ns();
    ++replies;
    if (in_window(start)) {
      hist.record(start - t->first_submit_ns);
      ++commits;
      restarts += t->desc.restarts;
    }
    if (!stop_.load(std::memory_order_acquire)) {
      make_txn(*t, c, rng);
      ++issued;
      proc_q_.push({ProcKind::kNew, t});
    }
    busy += now_ns() - start;
  }
  client_busy_[c] = busy, client_issued_[c] = issued, client_replies_[c] = replies;
  client_commits_[c] = commits, client_restarts_[c] = restarts;
}

// ---------------------------------------------------------------- processor

template <class P>
void Engine<P>::issue_reads(Txn* t) {
  // Which workers hold this transaction's keys: one read request each.
  uint32_t mask = 0;
  for (GlobalKey k : t->read_keys) mask |= 1u << owner(k);
  t->pending_storage = static_cast<uint32_t>(__builtin_popcount(mask));
  for (uint32_t w = 0; w < opt_.storage_workers; ++w) {
    if (mask & (1u << w)) store_q_[w]->push(StoreMsg{StoreMsg::kRead, t, 0, {}});
  }
}

template <class P>
void Engine<P>::processor_loop() {
  uint64_t busy = 0, at_validator = 0;
  std::vector<int64_t> write_values;
  std::vector<std::vector<std::pair<GlobalKey, int64_t>>> per_worker(opt_.storage_workers);
  while (true) {
    ProcMsg m;
    proc_q_.pop(m);
    const uint64_t start = now_ns();
    const bool stopping = stop_.load(std::memory_order_acquire);
    Txn* t = m.txn;
    switch (m.kind) {
      case ProcKind::kNew:
        if (!stopping) issue_reads(t);
        break;
      case ProcKind::kReadsDone:
        if (--t->pending_storage == 0 && !stopping) {
          ++at_validator;
          validator_q_.push(t);
        }
        break;
      case ProcKind::kCommit: {
        --at_validator;
        if (t->id >= committed_.size()) committed_.resize(std::max<size_t>(t->id + 1, committed_.size() * 2), 0);
        if (committed_[t->id]++) ++duplicate_commits_;
        ++processor_commits_;
        write_values.assign(t->desc.write_set.size(), 0);
        proc_.execute(t->request, t->id, t->read_keys, t->read_values, t->desc.write_set, write_values);
        for (auto& v : per_worker) v.clear();
        for (size_t i = 0; i < write_values.size(); ++i)
          per_worker[owner(t->desc.write_set[i])].emplace_back(t->desc.write_set[i], write_values[i]);
        for (uint32_t w = 0; w < opt_.storage_workers; ++w) {
          if (!per_worker[w].empty()) store_q_[w]->push(StoreMsg{StoreMsg::kWrite, nullptr, t->commit_ts, per_worker[w]});
        }
        reply_q_[t->client]->push(t);  // "sends only commit messages back to the client" (§5)
        break;
      }
      case ProcKind::kAbort:
        --at_validator;
        if (!stopping) {  // restart: same keys, one more restart (§5)
          ++t->desc.restarts;
          issue_reads(t);
        }
        break;
      case ProcKind::kWake:
        break;
    }
    busy += now_ns() - start;
    if (stopping && at_validator == 0) break;
  }
  processor_busy_ = busy;
  for (auto& q : store_q_) q->push(StoreMsg{});  // kStop, after every write
  validator_q_.push(nullptr);
  for (auto& q : reply_q_) q->push(nullptr);
}

// ---------------------------------------------------------------- storage

template <class P>
void Engine<P>::serve(uint32_t w, StoreMsg& m) {
  StorePartition& part = *partitions_[w];
  if (m.kind == StoreMsg::kWrite) {
    for (const auto& [k, v] : m.writes) part.write(k, v, m.version);
  } else if (m.kind == StoreMsg::kRead) {
    Txn* t = m.txn;
    for (size_t i = 0; i < t->read_keys.size(); ++i) {
      if (owner(t->read_keys[i]) != w) continue;
      const StoredObject o = part.read(t->read_keys[i]);
      t->observed[i] = {t->read_keys[i], o.version};  // reads are tagged with the version read
      t->read_values[i] = o.value;
    }
    proc_q_.push({ProcKind::kReadsDone, t});
  }
}

template <class P>
void Engine<P>::storage_loop(uint32_t w) {
  const bool batching = storage_batching(opt_.mode), reorder = storage_reordering(opt_.mode);
  uint64_t busy = 0, batches = 0;
  std::vector<StoreMsg> batch;
  bool stop = false;
  while (!stop) {
    batch.clear();
    batch.emplace_back();
    store_q_[w]->pop(batch.back());
    if (batching) {
      fill_batch(*store_q_[w], batch, opt_.batch_size, [](const StoreMsg& m) { return m.kind == StoreMsg::kStop; });
      ++batches;
    }
    const uint64_t start = now_ns();
    stop = batch.back().kind == StoreMsg::kStop;
    serve_storage_batch(std::span<StoreMsg>(batch), reorder, [](const StoreMsg& m) { return m.kind == StoreMsg::kWrite; },
                        [&](StoreMsg& m) { serve(w, m); });
    busy += now_ns() - start;
  }
  storage_busy_[w] = busy, storage_batches_[w] = batches;
}

}  // namespace ccb::pipeline

// The member definitions of the validators and of run(), after the class.
#include "systems/pipeline/validator_stages.h"  // IWYU pragma: export
#include "systems/pipeline/run.h"               // IWYU pragma: export
