// BCC's protocol counters (cc_stats of rundb-bcc; engine/cc/bcc/README.md):
// one Stats per worker thread, kept in its history (engine/cc/bcc/history.h)
// and summed by Bcc::total_stats().
//
// Thread safety: a worker's Stats are written by that worker only; sums are
// read after the workers stopped (or racily, for progress).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ccb::bcc {

// Which dependency on a concurrent transaction made BCC abort (Algorithm 3,
// the left conflict found first, in this order).
enum Dependency : uint8_t { kNoDependency, kWr, kWw, kRw, kDependencyKinds };

struct Stats {
  uint64_t validations = 0;          // commit() of non-snapshot transactions
  uint64_t occ_would_abort = 0;      // right_conflict: OCC's criterion fails
  uint64_t saved = 0;                // ...yet committed: "saved by BCC" (section 6.3)
  uint64_t aborted_after_check = 0;  // right_conflict and left_conflict
  uint64_t by_dependency[kDependencyKinds] = {};  // the left conflict found first (wr, ww, rw)
  uint64_t snapshot_txns = 0;       // from snapshot::Snapshots, as versions_saved
  uint64_t syncs = 0;               // synchronization points (section 3)
  uint64_t versions_saved = 0;
  uint64_t history_full = 0;        // begin() waited for a full history list
  uint64_t table_memory_full = 0;   // begin() waited for room for its read-set table
  uint64_t table_grow_failures = 0; // a read-set table found no room to grow: its transaction aborted
  uint64_t table_wipes = 0;         // the thread's stamps ran out: its table buffers were wiped
  uint64_t memory_samples = 0, memory_sum = 0, memory_max = 0;  // history bytes at each begin()
  uint64_t mm_cycles = 0, clock_cycles = 0;  // with --bcc_breakdown (Table 1): time in each component

  void add(const Stats& o) {
    validations += o.validations;
    occ_would_abort += o.occ_would_abort;
    saved += o.saved;
    aborted_after_check += o.aborted_after_check;
    for (int d = 0; d < kDependencyKinds; ++d) by_dependency[d] += o.by_dependency[d];
    syncs += o.syncs;
    history_full += o.history_full;
    table_memory_full += o.table_memory_full;
    table_grow_failures += o.table_grow_failures;
    table_wipes += o.table_wipes;
    memory_samples += o.memory_samples;
    memory_sum += o.memory_sum;
    memory_max = std::max(memory_max, o.memory_max);
    mm_cycles += o.mm_cycles;
    clock_cycles += o.clock_cycles;
  }
};

}  // namespace ccb::bcc
