// The workload concept: what the executors need from a workload. The engine
// defines it, as engine/txn/protocol.h defines the protocol concept; the
// workloads under workloads/ implement it and are listed in
// workloads/workloads.txt.
//
// A workload W<CC> (a class template over the protocol, so its tables hold the
// protocol's row metadata) supplies:
//   W::kName                            "ycsb", "tpcc", ...
//   W::Request                          one transaction's parameters (trivially
//                                       copyable, pre-generated per worker)
//   W::ThreadState                      per-worker counters the invariants need
//   std::vector<std::string> txn_types() names; Request::type indexes them
//   void load(int threads)              creates and fills the tables
//   void generate(Random&, uint32_t thread, Request&)   deterministic per stream
//   RC run(Txn<CC>&, const Request&)    the stored procedure (any protocol)
//   TxnDesc describe(const Request&)    predicted access set (README.md, design property 3)
//   void on_commit(ThreadState&, const Request&)   after each commit, all phases
//   std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>&)
//   void options_json(JsonWriter&)      the workload's knobs, for "config"
//   size_t memory_bytes()               bytes held by its tables
//   MemoryEstimate memory_estimate()    before load(): the bytes load() will
//                                       allocate, and the flag that sizes them
// Each workload of workloads/ keeps its requests apart from its tables: a
// protocol-free generator G (concept RequestGenerator below; compiled once,
// in the workload's library) makes and describes the requests, and W<CC>
// holds one and delegates generate(), describe() and txn_types() to it.
// Programs that need requests but no tables (the pipeline, the middle tier,
// the front-end benchmarks) use the generator alone.
//
// Set-up order (rundb/run.h): constructing W or G is cheap, and is where the
// generator refuses what it cannot draw in bounded time; then the memory
// estimate and every other check; only then load(), which calls the
// generator's prepare() (building its distributions, O(keys)) and fills the
// tables.
//
// Optional members: each capability below is a named concept, with one line
// of what it is for; the code that uses one tests it with if constexpr.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/verify/invariant.h"

namespace ccb {

class JsonWriter;

// What load() will allocate (rows and indexes, from the options alone), and
// the flag that sizes it, so a run that cannot fit is refused before loading.
struct MemoryEstimate {
  size_t bytes = 0;
  const char* size_flag = "";  // e.g. "table_size", "warehouses"
};

template <class W, class CC>
concept Workload = requires(W w, const W cw, Random& rng, typename W::Request& req, const typename W::Request& creq,
                            Txn<CC>& txn, typename W::ThreadState& ts,
                            const std::vector<typename W::ThreadState>& all, JsonWriter& json) {
  { W::kName } -> std::convertible_to<const char*>;
  { cw.txn_types() } -> std::same_as<std::vector<std::string>>;
  w.load(1);
  cw.generate(rng, uint32_t{0}, req);
  { w.run(txn, creq) } -> std::same_as<RC>;
  { cw.describe(creq) } -> std::same_as<TxnDesc>;
  cw.on_commit(ts, creq);
  { w.check_invariants(all) } -> std::same_as<std::vector<InvariantResult>>;
  cw.options_json(json);
  { cw.memory_bytes() } -> std::convertible_to<size_t>;
  { cw.memory_estimate() } -> std::same_as<MemoryEstimate>;
  { creq.type } -> std::convertible_to<uint32_t>;
};

// ---- Optional workload capabilities -----------------------------------------

// Partition-level locking (PartCC, Dora's and Orthrus's lock owners;
// engine/cc_helpers/workload_partitioning.h): partition_count(threads) partitions, and
// partition_of(key, n) a key's partition in [0, n), or ~0u for a table that
// needs no lock (TPC-C, YCSB, HOT).
template <class W>
concept PartitionedWorkload = requires(const W& w, GlobalKey k, uint32_t n) {
  { w.partition_count(n) } -> std::convertible_to<uint32_t>;
  { w.partition_of(k, n) } -> std::convertible_to<uint32_t>;
};

// Its tables by global-key table id, so protocols that lock the predicted
// access set (acquire_all) find a key's table (engine/exec/runtime.h,
// register_tables).
template <class W, class CC>
concept HasTableById = requires(W w, uint32_t id) {
  { w.table_by_id(id) } -> std::convertible_to<Table<CC>*>;
};

// Which requests are read-only before they run (txn.read_only(): Silo and BCC
// run them as snapshot transactions).
template <class W>
concept HasReadOnlyRequests = requires(const W w, const typename W::Request& r) {
  { w.read_only(r) } -> std::same_as<bool>;
};

// Requests that change with time: on_measure_start(now) when the measured
// interval starts, and description_epoch(), which moves when the predicted
// access sets of buffered requests must be described again (HOT's shifting
// hot record).
template <class W>
concept HasMeasureClock = requires(W w, uint64_t t) { w.on_measure_start(t); };
template <class W>
concept HasDescriptionEpoch = requires(const W w) {
  { w.description_epoch() } -> std::convertible_to<uint64_t>;
};

// A check that the measured interval was what the flags asked for
// (check_measurement(commits) throws a ConfigError otherwise: TSKD's runtime
// skew still calibrating, workloads/extensions/extended.h).
template <class W>
concept ChecksMeasurement = requires(const W w, uint64_t commits) { w.check_measurement(commits); };

// OLLP reconnaissance for the bundle executor (engine/exec/bundle_batches.h):
// reconnoiter(request) predicts from the database the rows a request reaches
// that its inputs cannot name (TPC-C's customer by last name) and returns
// whether the prediction changed; with begin_reconnaissance(batch), once per
// batch before it, for predictions that depend on the rest of the batch.
template <class W>
concept HasReconnaissance = requires(const W w, typename W::Request& r) {
  { w.reconnoiter(r) } -> std::same_as<bool>;
};
template <class W>
concept HasBatchReconnaissance = HasReconnaissance<W> && requires(W& w, std::span<typename W::Request> b) {
  w.begin_reconnaissance(b);
};

// Binding a request to its place in a CC-free queue after the plan
// (engine/exec/queue_binding.h: TPC-C's Deliveries).
template <class W>
concept HasQueueBinding = requires(W& w, typename W::Request& r, const typename W::Request& cr) {
  w.begin_queue_binding();
  { w.bind_in_queue(r) } -> std::same_as<bool>;
  w.accept_binding(cr);
};

// A workload's request generator:
//   G::Request, txn_types(), generate() and describe() as W's above;
//   void prepare()   builds what generate() draws from (idempotent; may be
//                    O(keys)); generate() requires it.
template <class G>
concept RequestGenerator = requires(G g, const G cg, Random& rng, typename G::Request& req,
                                    const typename G::Request& creq) {
  g.prepare();
  { cg.txn_types() } -> std::same_as<std::vector<std::string>>;
  cg.generate(rng, uint32_t{0}, req);
  { cg.describe(creq) } -> std::same_as<TxnDesc>;
  { creq.type } -> std::convertible_to<uint32_t>;
};

}  // namespace ccb
