// The workload concept: what the executors need from a workload. The engine
// defines it, as engine/cc/protocol.h defines the protocol concept; the
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
// Optional, for partition-level locking (engine/cc/partcc/partcc.h; TPC-C, YCSB, HOT):
//   uint32_t partition_count(uint32_t threads)   P, the number of partitions
//   uint32_t partition_of(GlobalKey, uint32_t n) a key's partition in [0, n),
//                                       or ~0u for a table that needs no lock
#pragma once

#include <concepts>
#include <string>
#include <vector>

#include "engine/cc/txn.h"
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
