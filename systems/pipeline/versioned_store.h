// One storage worker's partition of the versioned in-memory hash store
// (Ding et al., PVLDB 2018, §3.1 and §5 setup).
//
// Objects are versioned: a write carries version = the writer's commit
// timestamp, and "if the datastore receives a write request with version
// (timestamp) i and a higher-numbered version j > i already exists for the
// object, the write request is ignored". Every read returns the version it
// read (0 = the initial load).
//
// Storage batching (§3.1): a batch of requests is either served in arrival
// order (mode `batch`) or reordered (modes `sr`, `srvc`): "for each object,
// apply the highest-version write and discard the others, then serve all
// reads", so every read of the batch sees the newest version the batch holds.
//
// Thread safety: a partition is owned by one storage worker thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <utility>

#include "engine/core/txn_desc.h"

namespace ccb::pipeline {

struct StoredObject {
  int64_t value = 0;
  uint64_t version = 0;  // commit timestamp of the writer; 0 = initial load
};

class StorePartition {
 public:
  // initial(key): the loaded value of an object not yet touched (objects are
  // materialized lazily, at version 0).
  explicit StorePartition(std::function<int64_t(GlobalKey)> initial) : initial_(std::move(initial)) {}

  StoredObject read(GlobalKey key) { return object(key); }

  // Applies the write unless a higher version exists; returns whether it did.
  bool write(GlobalKey key, int64_t value, uint64_t version) {
    StoredObject& o = object(key);
    if (version < o.version) return false;  // §5: a higher version j > i exists
    o.value = value;
    o.version = version;
    return true;
  }

  // Calls fn(key, object) for every object materialized so far.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [key, o] : objects_) fn(key, o);
  }

 private:
  StoredObject& object(GlobalKey key) {
    auto it = objects_.find(key);
    if (it == objects_.end()) it = objects_.emplace(key, StoredObject{initial_(key), 0}).first;
    return it->second;
  }
  std::function<int64_t(GlobalKey)> initial_;
  std::unordered_map<GlobalKey, StoredObject> objects_;
};

}  // namespace ccb::pipeline

namespace ccb::pipeline {

// Serves one storage batch (§3.1). Without reordering, requests are served in
// arrival order. With reordering, every write of the batch is applied first
// (the version rule keeps the highest version per object and drops the
// others), then every read is served, so no read of the batch returns a
// version the batch itself makes stale.
// is_write(request) -> bool; serve(request) applies a write or serves a read.
template <class Request, class IsWrite, class Serve>
void serve_storage_batch(std::span<Request> batch, bool reorder, IsWrite&& is_write, Serve&& serve) {
  if (!reorder) {
    for (Request& r : batch) serve(r);
    return;
  }
  for (Request& r : batch)
    if (is_write(r)) serve(r);
  for (Request& r : batch)
    if (!is_write(r)) serve(r);
}

}  // namespace ccb::pipeline
