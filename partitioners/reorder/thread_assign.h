// Thread-aware policy (Ding et al. §4.2 "Reduce inter-thread conflicts";
// used in §5.5 on a decentralized, thread-per-transaction engine).
//
// A batch is assigned thread by thread, the same number of transactions per
// thread (§5.5: batch = 4 x threads, 4 per thread). For the thread being
// filled, with S = the transactions already assigned to it, a candidate t is
// weighted lexicographically by
//   1. conflicts(t, S): how many transactions in S conflict with t;
//   2. shared(t, S): how many object accesses t shares with S, summed over
//      the members of S (|keys(t) ∩ keys(s)| for each s in S);
//   3. conflicts(t, U): how many still-unassigned transactions conflict
//      with t.
// The highest weight is picked, ties to the lower batch position. While S is
// empty, weights 1 and 2 are 0, so the first pick of a thread is "the
// transaction with the most conflicts against the remaining transactions".
//
// Two transactions conflict when they access a common key and at least one
// of them writes it (the TxnDesc definition). Keys are read_set ∪ write_set.
//
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb::reorder {

// Returns per_thread[i] = batch positions for thread i, in execution order.
// Thread i gets floor(n / threads) transactions, plus one for i < n % threads.
// Throws std::invalid_argument when threads == 0.
std::vector<std::vector<uint32_t>> assign_to_threads(std::span<const TxnDesc> batch,
                                                     uint32_t threads);

}  // namespace ccb::reorder
