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
#include "systems/pipeline/options.h"
#include "systems/pipeline/procedures.h"
#include "systems/pipeline/validator_cache.h"
#include "systems/pipeline/versioned_store.h"
#include "engine/stats/histogram.h"
#include "engine/verify/recorder.h"
#include "partitioners/reorder/reorder.h"
#include "engine/workload.h"

namespace ccb::pipeline {

inline uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Why a validator aborted a transaction.
enum class AbortReason { kValidation, kPrevalidation, kFvs, kFinalValidation, kCount };
inline const char* abort_reason_name(AbortReason r) {
  switch (r) {
    case AbortReason::kValidation: return "validation";
    case AbortReason::kPrevalidation: return "prevalidation";
    case AbortReason::kFvs: return "fvs";
    case AbortReason::kFinalValidation: return "final_validation";
    default: return "?";
  }
}

struct QueueSample {
  double sum = 0;
  int64_t max = 0;
  uint64_t samples = 0;
  void add(int64_t n) {
    n = std::max<int64_t>(n, 0);  // TBB counts waiting consumers as negative
    sum += static_cast<double>(n);
    max = std::max(max, n);
    ++samples;
  }
  double avg() const { return samples ? sum / static_cast<double>(samples) : 0.0; }
};

struct ReorderStats {
  uint64_t batches = 0, txns = 0, busy_ns = 0;
  uint64_t edge_limit_hits = 0, fvs_total = 0, fvs_max = 0, nodes_total = 0, edges_total = 0, nonviable_total = 0;
  void merge(const ReorderStats& o) {
    batches += o.batches, txns += o.txns, busy_ns += o.busy_ns, edge_limit_hits += o.edge_limit_hits;
    fvs_total += o.fvs_total, fvs_max = std::max(fvs_max, o.fvs_max), nodes_total += o.nodes_total;
    edges_total += o.edges_total, nonviable_total += o.nonviable_total;
  }
};

// Everything a run measured (pipeline_main.cc writes it as JSON).
struct PipelineResult {
  double measured_s = 0, run_s = 0;
  uint64_t commits = 0;            // in the measured interval (client-side)
  uint64_t restarts = 0;           // of the transactions committed in the interval
  uint64_t aborts_by_reason[static_cast<size_t>(AbortReason::kCount)] = {};  // in the interval
  LatencyHistogram latency;        // first submission -> commit reply, ns
  // Busy time (ns) per component thread over the whole run.
  uint64_t processor_busy_ns = 0, validator_busy_ns = 0, prep_busy_ns = 0, validation_busy_ns = 0;
  std::vector<uint64_t> storage_busy_ns, client_busy_ns, reorder_busy_ns;
  uint64_t storage_batches = 0, validator_batches = 0;
  ReorderStats reorder;
  // Queue lengths sampled every millisecond of the measured interval.
  QueueSample q_processor, q_storage, q_validator, q_reorder, q_validation;
  // Accounting over the whole run (the no-loss / no-duplicate invariant).
  uint64_t issued = 0, client_replies = 0, processor_commits = 0, validator_commits = 0, duplicate_commits = 0;
  uint64_t abandoned = 0;  // in flight at shutdown
  uint64_t all_aborts = 0;  // validator aborts over the whole run (warm-up and drain included)
  std::vector<InvariantResult> invariants;
  verify::HistoryLog history;  // with verify: the commit order, txn id = commit timestamp
  int threads = 0;
  uint64_t aborts() const {
    uint64_t a = 0;
    for (uint64_t n : aborts_by_reason) a += n;
    return a;
  }
};

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
  struct Txn {
    uint64_t id = 0;  // logical id, kept across restarts
    uint32_t client = 0;
    uint64_t first_submit_ns = 0;
    Request request;
    TxnDesc desc;                        // write_set: keys written; restarts
    std::vector<GlobalKey> read_keys;    // keys read and validated
    reorder::ObservedReads observed;     // per read key: the version read
    std::vector<int64_t> read_values;
    uint32_t pending_storage = 0;        // read replies still to come
    uint64_t commit_ts = 0;
  };
  enum class ProcKind : uint8_t { kNew, kReadsDone, kCommit, kAbort, kWake };
  struct ProcMsg {
    ProcKind kind = ProcKind::kWake;
    Txn* txn = nullptr;
  };
  struct StoreMsg {
    enum Kind : uint8_t { kRead, kWrite, kStop } kind = kStop;
    Txn* txn = nullptr;                                   // kRead
    uint64_t version = 0;                                 // kWrite
    std::vector<std::pair<GlobalKey, int64_t>> writes;    // kWrite
  };
  struct Batch {
    std::vector<Txn*> txns;
    std::vector<TxnDesc> descs;
    std::vector<reorder::ObservedReads> reads;
    std::vector<uint8_t> viable;
    reorder::ReorderResult result;
    bool reordered = false;
  };

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

// ---------------------------------------------------------------- validator

template <class P>
template <class Current>
void Engine<P>::record_commit(Txn* t, uint64_t ts, const Current& current) {
  t->commit_ts = ts;
  if (!opt_.verify) return;
  const auto& writes = t->desc.write_set;
  history_.begin_txn(ts);
  for (const reorder::ReadVersion& r : t->observed) {
    const bool written = std::find(writes.begin(), writes.end(), r.key) != writes.end();
    history_.add(r.key, r.version, written ? current(r.key) : verify::kNotRead);
  }
  for (GlobalKey k : writes) {
    const bool read = std::any_of(t->observed.begin(), t->observed.end(),
                                  [&](const reorder::ReadVersion& r) { return r.key == k; });
    if (!read) history_.add(k, verify::kNotRead, current(k));
  }
}

template <class P>
void Engine<P>::validator_loop() {
  uint64_t busy = 0;
  while (true) {
    Txn* t = nullptr;
    validator_q_.pop(t);
    if (t == nullptr) break;
    const uint64_t start = now_ns();
    if (read_conflicts(t->observed, cache_)) {
      count_abort(AbortReason::kValidation);
      proc_q_.push({ProcKind::kAbort, t});
    } else {
      record_commit(t, ++last_ts_, [this](GlobalKey k) { return cache_.latest(k); });
      for (GlobalKey k : t->desc.write_set) cache_.publish(k, t->commit_ts);
      proc_q_.push({ProcKind::kCommit, t});
    }
    busy += now_ns() - start;
  }
  validator_busy_ = busy;
}

template <class P>
void Engine<P>::prep_loop() {
  const bool reorder = validator_reordering(opt_.mode);
  uint64_t busy = 0;
  std::vector<Txn*> arrived;
  bool stop = false;
  while (!stop) {
    arrived.clear();
    arrived.push_back(nullptr);
    validator_q_.pop(arrived.back());
    fill_batch(validator_q_, arrived, opt_.batch_size, [](Txn* t) { return t == nullptr; });
    const uint64_t start = now_ns();
    if (arrived.back() == nullptr) {
      stop = true;
      arrived.pop_back();
    }
    if (!arrived.empty()) {
      auto* b = new Batch;
      b->reordered = reorder;
      for (Txn* t : arrived) {
        b->txns.push_back(t);
        b->descs.push_back(std::move(t->desc));
        b->reads.push_back(std::move(t->observed));
      }
      if (reorder) {
        // Pre-validation against the current, possibly stale, state S (§4.3).
        b->viable = reorder::prevalidate(std::span<const reorder::ObservedReads>(b->reads),
                                         [this](GlobalKey k) { return cache_.latest(k); });
        reorder_q_.push(b);
      } else {
        validation_q_.push(b);
      }
    }
    busy += now_ns() - start;
  }
  prep_busy_ = busy;
  const uint32_t consumers = reorder ? opt_.reorder_workers : 0;
  for (uint32_t i = 0; i < consumers; ++i) reorder_q_.push(nullptr);
  if (!reorder) validation_q_.push(nullptr);
}

template <class P>
void Engine<P>::reorder_loop(uint32_t r) {
  ReorderStats& s = reorder_stats_[r];
  while (true) {
    Batch* b = nullptr;
    reorder_q_.pop(b);
    if (b == nullptr) break;
    const uint64_t start = now_ns();
    b->result = reorder::reorder_batch(b->descs, b->reads, b->viable, opt_.reorder);
    s.busy_ns += now_ns() - start;
    ++s.batches;
    s.txns += b->txns.size();
    s.edge_limit_hits += b->result.edge_limit_hit;
    s.fvs_total += b->result.abort_set.size();
    s.fvs_max = std::max<uint64_t>(s.fvs_max, b->result.abort_set.size());
    s.nodes_total += b->result.graph_nodes;
    s.edges_total += b->result.graph_edges;
    s.nonviable_total += b->result.nonviable.size();
    if (opt_.on_reorder) opt_.on_reorder(b->result);
    validation_q_.push(b);  // batches reach validation in any order (§4.3)
  }
  validation_q_.push(nullptr);
}

template <class P>
void Engine<P>::validate_batch(Batch& b) {
  const size_t n = b.txns.size();
  std::vector<BatchMember> members(n);
  for (size_t i = 0; i < n; ++i) {  // the transactions get their desc and reads back
    Txn* t = b.txns[i];
    t->desc = std::move(b.descs[i]);
    t->observed = std::move(b.reads[i]);
    members[i] = {t->observed, t->desc.write_set};
  }
  std::vector<uint32_t> order;
  if (b.reordered) {
    for (size_t i = 0; i < b.result.nonviable.size(); ++i) count_abort(AbortReason::kPrevalidation);
    for (size_t i = 0; i < b.result.abort_set.size(); ++i) count_abort(AbortReason::kFvs);
    order = b.result.commit_order;
  } else {
    for (uint32_t i = 0; i < n; ++i) order.push_back(i);  // arrival order
  }
  const bool mutant = opt_.mutation == Mutation::kReverseCommitOrder;
  if (mutant) std::reverse(order.begin(), order.end());
  const std::vector<uint64_t> ts = validate_ordered_batch(
      cache_, members, order, last_ts_, !mutant,
      [&](uint32_t i, uint64_t commit_ts, const auto& current) { record_commit(b.txns[i], commit_ts, current); });
  // The decisions, after the cache update: commits in serialization order,
  // then the aborts (final validation, pre-validation, FVS).
  for (uint32_t i : order) {
    if (ts[i]) proc_q_.push({ProcKind::kCommit, b.txns[i]});
  }
  const size_t final_aborts = order.size() - static_cast<size_t>(std::count_if(ts.begin(), ts.end(), [](uint64_t x) { return x != 0; }));
  for (size_t i = 0; i < final_aborts; ++i) count_abort(AbortReason::kFinalValidation);
  for (size_t i = 0; i < n; ++i) {
    if (!ts[i]) proc_q_.push({ProcKind::kAbort, b.txns[i]});
  }
}

template <class P>
void Engine<P>::validation_loop() {
  uint32_t producers = validator_reordering(opt_.mode) ? opt_.reorder_workers : 1;
  uint64_t busy = 0, batches = 0;
  while (producers > 0) {
    Batch* b = nullptr;
    validation_q_.pop(b);
    if (b == nullptr) {
      --producers;
      continue;
    }
    const uint64_t start = now_ns();
    validate_batch(*b);
    delete b;
    ++batches;
    busy += now_ns() - start;
  }
  validation_busy_ = busy, validator_batches_ = batches;
}

// ---------------------------------------------------------------- run

template <class P>
PipelineResult Engine<P>::run() {
  const uint32_t C = opt_.clients, W = opt_.storage_workers;
  const bool vbatch = validator_batching(opt_.mode), vreorder = validator_reordering(opt_.mode);
  const uint32_t R = vreorder ? opt_.reorder_workers : 0;
  proc_q_.set_capacity(static_cast<std::ptrdiff_t>(opt_.concurrency) * (2 + W) + 16);
  for (uint32_t c = 0; c < C; ++c) {
    reply_q_.emplace_back(std::make_unique<tbb::concurrent_bounded_queue<Txn*>>());
    reply_q_.back()->set_capacity(opt_.concurrency + 1);
  }
  for (uint32_t w = 0; w < W; ++w) {
    store_q_.emplace_back(std::make_unique<tbb::concurrent_bounded_queue<StoreMsg>>());
    store_q_.back()->set_capacity(4 * static_cast<std::ptrdiff_t>(opt_.concurrency));
  }
  validator_q_.set_capacity(opt_.concurrency + 1);
  reorder_q_.set_capacity(2 * std::max<uint32_t>(R, 1) + 1);
  validation_q_.set_capacity(2 * std::max<uint32_t>(R, 1) + 2);
  for (uint32_t i = 0; i < opt_.concurrency; ++i) txns_.emplace_back(std::make_unique<Txn>());
  client_latency_.resize(C);
  client_commits_.assign(C, 0), client_restarts_.assign(C, 0), client_issued_.assign(C, 0);
  client_replies_.assign(C, 0), client_busy_.assign(C, 0);
  storage_busy_.assign(W, 0), storage_batches_.assign(W, 0);
  reorder_stats_.assign(R, {});

  std::vector<std::thread> threads;
  const uint64_t t0 = now_ns();
  for (uint32_t w = 0; w < W; ++w) threads.emplace_back([this, w] { storage_loop(w); });
  if (vbatch) {
    threads.emplace_back([this] { prep_loop(); });
    for (uint32_t r = 0; r < R; ++r) threads.emplace_back([this, r] { reorder_loop(r); });
    threads.emplace_back([this] { validation_loop(); });
  } else {
    threads.emplace_back([this] { validator_loop(); });
  }
  threads.emplace_back([this] { processor_loop(); });
  for (uint32_t c = 0; c < C; ++c) {
    const uint32_t quota = opt_.concurrency / C + (c < opt_.concurrency % C);
    threads.emplace_back([this, c, quota] { client_loop(c, quota); });
  }

  PipelineResult res;
  res.threads = static_cast<int>(threads.size());
  auto sleep_until = [](uint64_t t) {
    const uint64_t now = now_ns();
    if (t > now) std::this_thread::sleep_for(std::chrono::nanoseconds(t - now));
  };
  const uint64_t ws = t0 + static_cast<uint64_t>(opt_.warmup_s * 1e9);
  const uint64_t we = ws + static_cast<uint64_t>(opt_.duration_s * 1e9);
  window_end_.store(we, std::memory_order_release);
  window_start_.store(ws, std::memory_order_release);
  sleep_until(ws);
  while (now_ns() < we) {  // queue lengths, once a millisecond
    res.q_processor.add(proc_q_.size());
    for (auto& q : store_q_) res.q_storage.add(q->size());
    res.q_validator.add(validator_q_.size());
    if (vreorder) res.q_reorder.add(reorder_q_.size());
    if (vbatch) res.q_validation.add(validation_q_.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  sleep_until(we);
  stop_.store(true, std::memory_order_release);
  proc_q_.push({ProcKind::kWake, nullptr});
  for (auto& th : threads) th.join();
  res.run_s = static_cast<double>(now_ns() - t0) / 1e9;
  res.measured_s = opt_.duration_s;

  for (uint32_t c = 0; c < C; ++c) {
    res.latency.merge(client_latency_[c]);
    res.commits += client_commits_[c], res.restarts += client_restarts_[c];
    res.issued += client_issued_[c], res.client_replies += client_replies_[c];
  }
  for (size_t r = 0; r < static_cast<size_t>(AbortReason::kCount); ++r) res.aborts_by_reason[r] = aborts_[r];
  res.client_busy_ns = client_busy_;
  res.processor_busy_ns = processor_busy_;
  res.storage_busy_ns = storage_busy_;
  for (uint64_t b : storage_batches_) res.storage_batches += b;
  res.validator_busy_ns = validator_busy_, res.prep_busy_ns = prep_busy_, res.validation_busy_ns = validation_busy_;
  res.validator_batches = validator_batches_;
  for (const ReorderStats& s : reorder_stats_) {
    res.reorder.merge(s);
    res.reorder_busy_ns.push_back(s.busy_ns);
  }
  res.processor_commits = processor_commits_, res.duplicate_commits = duplicate_commits_;
  res.validator_commits = last_ts_;
  res.abandoned = res.issued - res.client_replies;
  res.all_aborts = all_aborts_;

  // Invariants: the workload's own on the final store, every object holding
  // its last committed write, and no transaction lost or committed twice.
  StoreImage image;
  uint64_t stale = 0, objects = 0;
  for (const auto& part : partitions_) {
    part->for_each([&](GlobalKey k, const StoredObject& o) {
      image[k] = o.value;
      ++objects;
      if (o.version != cache_.latest(k)) ++stale;
    });
  }
  res.invariants = proc_.check_invariants(image);
  res.invariants.push_back({"pipeline_store_versions", stale == 0,
                            std::to_string(stale) + " of " + std::to_string(objects) +
                                " objects do not hold the validator's latest committed version"});
  const bool accounted = res.duplicate_commits == 0 && res.processor_commits == res.validator_commits &&
                         res.client_replies == res.processor_commits && res.abandoned <= opt_.concurrency;
  res.invariants.push_back({"pipeline_txn_accounting", accounted,
                            "issued " + std::to_string(res.issued) + ", validator commits " +
                                std::to_string(res.validator_commits) + ", processor commits " +
                                std::to_string(res.processor_commits) + ", client commit replies " +
                                std::to_string(res.client_replies) + ", committed twice " +
                                std::to_string(res.duplicate_commits) + ", abandoned in flight " +
                                std::to_string(res.abandoned) + " (<= " + std::to_string(opt_.concurrency) + ")"});
  res.history = std::move(history_);
  return res;
}

}  // namespace ccb::pipeline
