// A deterministic, single-threaded simulation of the closed loop of Ding et
// al.'s research prototype (PVLDB 2018, §4.3 and §5 setup): the batches its
// validator sees. bench_fvs --source=validator
// records the pre-validated dependency graphs of these batches [INF: the
// graph source of Figs 5-6 is not stated; these are the graphs the
// reordering algorithms see in the prototype].
//
// The loop (paper facts, and the rules marked [INF] that fill what the text
// leaves open):
//  * `concurrency` transactions are in flight ("at most 300 active
//    transactions", §5). [INF] They reach the validator in the order they were
//    (re)issued: a FIFO of `concurrency`, so a transaction is validated after
//    every transaction issued before it (one processor, one queue).
//  * A transaction reads when it is (re)issued: each read sees the version
//    committed at that moment (the commit timestamp of its last writer, 0 =
//    initial load). [INF] The processor's and storage's queueing delay is not
//    modeled; the in-flight FIFO is the only gap between read and validation.
//  * The validator takes the first `batch` transactions of the FIFO ("batch
//    size is 40 for both storage and validator", §5; batches formed by count),
//    pre-validates them against the validator cache (§4.3: a transaction
//    whose read was overwritten by a commit after it read is non-viable),
//    builds the graph of the rest, removes an FVS with the reference
//    algorithm (`reorder.fvs`; the prototype's default greedy_sort,
//    prod-degree, k = 2, §5) and validates the rest in the topological order
//    (final backward validation, §4.3; each commit gets the next integer
//    timestamp, which becomes the version of its writes, §5).
//    With `prevalidate` off, the graph holds the whole batch and non-viable
//    transactions fail the final validation instead.
//    [INF] Stages are not pipelined: pre-validation sees the state after the
//    previous batch, so with no edge limit the final validation never fails
//    (the paper's pipelined validator pre-validates against a slightly stale
//    state, §4.3 Fig 19). With an edge limit that is hit, the batch is
//    validated in arrival order and the final validation aborts conflicts.
//  * Aborted transactions (non-viable, FVS, final-validation failures)
//    restart with the same keys (the processor "restarts aborted
//    transactions", §5), restarts + 1, same TxnDesc::id; every committed
//    transaction's client issues a new one from the source (closed loop:
//    "produces new transactions until the system reaches the maximum permitted
//    concurrency level"). [INF] After the batch's commits are applied, the
//    replacements enter the FIFO's tail in batch-position order, so the
//    replacement of the transaction at arrival-stream position p arrives at
//    position p + concurrency.
//
// Thread safety: a ValidatorSim is owned by one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "engine/core/txn_desc.h"
#include "partitioners/reorder/graph.h"
#include "partitioners/reorder/reorder.h"

namespace ccb::reorder {

// One transaction as a workload hands it to the simulation: its description
// and the keys it reads (RS, read-modify-write keys included; see graph.h).
struct SimTxn {
  TxnDesc desc;
  std::vector<GlobalKey> reads;
};

struct ValidatorSimOptions {
  uint32_t concurrency = 300;  // transactions in flight (§5), >= batch
  uint32_t batch = 40;         // validator batch (§5), >= 1
  ReorderOptions reorder;      // reference FVS algorithm; default greedy_sort, prod-degree, k = 2
  // Pre-validation on (the prototype's setting, §4.3). Off: the
  // graph holds the whole batch and the final validation aborts non-viable
  // transactions (§4 without the §4.3 refinement).
  bool prevalidate = true;
};

// One validator batch as the simulation processed it.
struct SimBatch {
  uint64_t index = 0;           // batches processed before this one
  uint64_t first_position = 0;  // arrival-stream position of txns[0]
  // Arrival order. TxnDesc::id identifies the logical transaction across
  // restarts; restarts counts its earlier aborts.
  std::vector<TxnDesc> txns;
  std::vector<ObservedReads> reads;  // versions read at (re)issue
  // Pre-validation, FVS and commit order; result.graph is the pre-validated
  // graph, or the whole batch's with prevalidate off (empty if the edge limit
  // was hit).
  ReorderResult result;
  // Batch positions that passed the final validation, in commit order; the
  // i-th committed with timestamp first_commit_ts + i.
  std::vector<uint32_t> committed;
  uint64_t first_commit_ts = 0;
  uint32_t final_aborts = 0;  // in commit_order but failed the final validation
};

class ValidatorSim {
 public:
  // Draws the next new transaction (its desc.id and restarts are overwritten).
  using Source = std::function<SimTxn()>;

  // Issues `concurrency` transactions from the source, all reading version 0.
  // Throws std::invalid_argument on bad options (field name and range).
  ValidatorSim(const ValidatorSimOptions& options, Source source);

  // Validates the next batch, applies its commits, re-issues its aborted
  // transactions and replaces its committed ones. The returned batch lives
  // until the next step().
  const SimBatch& step();

  // The validator cache: latest committed version of a key, 0 if never written.
  uint64_t latest_version(GlobalKey key) const;
  uint64_t commits() const { return commit_ts_; }

 private:
  struct InFlight {
    TxnDesc desc;
    std::vector<GlobalKey> read_keys;
    ObservedReads reads;
  };
  void issue(InFlight t);  // reads the current versions, joins the FIFO's tail
  void issue_new();

  ValidatorSimOptions options_;
  Source source_;
  std::deque<InFlight> fifo_;
  std::unordered_map<GlobalKey, uint64_t> versions_;
  uint64_t next_id_ = 0;
  uint64_t commit_ts_ = 0;  // last commit timestamp handed out
  uint64_t batches_ = 0;
  uint64_t position_ = 0;  // arrival-stream position of the FIFO's head
  SimBatch batch_;
};

}  // namespace ccb::reorder
