// The pipeline engine's messages (engine.h): the record of an in-flight
// transaction, and what the components send one another through their bounded
// TBB queues (engine.h draws the queues and says why they never deadlock).
//
// A message carries a pointer to one of the engine's in-flight slots
// (PipelineTxn); the slot's fields are written only by the component the
// last message about it went to (a storage worker fills the reads it owns,
// the processor the rest), so a slot needs no lock: each queue's push/pop
// orders the hand-over. A validation batch (the batched validator's stages,
// validator_stages.h) moves the transactions' descriptions and reads out of
// their slots while it travels, and gives them back at final validation.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/core/txn_desc.h"
#include "partitioners/reorder/reorder.h"

namespace ccb::pipeline {

inline uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// An in-flight transaction: one slot per unit of --concurrency,
// reused by its client for the next transaction after each commit reply.
template <class Request>
struct PipelineTxn {
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

// To the processor: a new transaction (client), the reads of one storage
// worker done, the validator's decision, or a wake-up at shutdown.
enum class ProcKind : uint8_t { kNew, kReadsDone, kCommit, kAbort, kWake };
template <class Request>
struct ProcessorMsg {
  ProcKind kind = ProcKind::kWake;
  PipelineTxn<Request>* txn = nullptr;
};

// To a storage worker: read the keys of txn it owns, apply writes at a
// version (the commit timestamp), or stop (after every write: FIFO).
template <class Request>
struct StorageMsg {
  enum Kind : uint8_t { kRead, kWrite, kStop } kind = kStop;
  PipelineTxn<Request>* txn = nullptr;                  // kRead
  uint64_t version = 0;                                 // kWrite
  std::vector<std::pair<GlobalKey, int64_t>> writes;    // kWrite
};

// Between the batched validator's stages (batch preparation -> reorder
// workers -> validation, Ding et al. §4.3 Fig 19).
template <class Request>
struct ValidationBatch {
  std::vector<PipelineTxn<Request>*> txns;
  std::vector<TxnDesc> descs;
  std::vector<reorder::ObservedReads> reads;
  std::vector<uint8_t> viable;
  reorder::ReorderResult result;
  bool reordered = false;
};

}  // namespace ccb::pipeline
