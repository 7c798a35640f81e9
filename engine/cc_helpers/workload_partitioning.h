// A workload's static partitioning as the protocols that exploit it see it:
// PartCC's partition locks (engine/cc/partcc/partcc.h) and the lock owners of Dora
// and Orthrus (engine/cc_helpers/message_locks.h). The workload's optional members
// partition_count() and partition_of() (engine/workload.h) are captured once,
// before loading, behind a plain function pointer, so a protocol class need
// not be a template over the workload.
//
// Thread safety: immutable once bound; of() is called by every worker.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>

#include "engine/core/txn_desc.h"
#include "engine/workload.h"  // PartitionedWorkload

namespace ccb {

struct WorkloadPartitioning {
  // partition_of() of a table that needs no lock (TPC-C's read-only ITEM, its
  // insert-only HISTORY).
  static constexpr uint32_t kNone = ~uint32_t{0};
  // `fn(ctx, key, n)`: the partition of a global key in [0, n), or kNone.
  using Fn = uint32_t (*)(const void* ctx, GlobalKey key, uint32_t n);

  uint32_t count = 1;
  const void* ctx = nullptr;
  Fn fn = [](const void*, GlobalKey, uint32_t) { return uint32_t{0}; };

  uint32_t of(GlobalKey k) const { return fn(ctx, k, count); }

  // `w`'s partitioning for `threads` threads, or nothing when `w` has none.
  // REQUIRES: w outlives the result.
  template <class W>
  static std::optional<WorkloadPartitioning> of_workload(const W& w, uint32_t threads) {
    if constexpr (PartitionedWorkload<W>) {
      return WorkloadPartitioning{std::max<uint32_t>(w.partition_count(threads), 1), &w,
                                  [](const void* ctx, GlobalKey k, uint32_t n) {
                                    return static_cast<uint32_t>(static_cast<const W*>(ctx)->partition_of(k, n));
                                  }};
    } else {
      return std::nullopt;
    }
  }
};

}  // namespace ccb
