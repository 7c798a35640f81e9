// HOT's request generator, without the table, protocol or clock (those are
// HotWorkload<CC>, hot.h, whose header describes the benchmark): a request
// is a hot slot, its position among the 10 updates, and 9 distinct cold keys
// in the slot's home partition, a uniform number in [0, --hot_remote_max] of
// them in other random partitions. The placement of the hot records in an
// epoch (slot -> key) is a pure function of the options and the epoch, so it
// lives here too; which epoch is current is the workload's clock.
//
// Cold keys are drawn again on a repeat: every partition holds at least 9
// cold keys (--hot_records <= rows per partition - 9, hot_options.cpp), so
// the worst case is a coupon collector's 9 x H(9) ~ 25 draws. Set-up is
// O(partitions) (the strides coprime with P, at most 65536).
//
// Thread safety: generate(), describe() and placement() are const and may
// run concurrently, each caller with its own Random.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "workloads/hot/hot_options.h"

namespace ccb {

struct HotRequest {
  static constexpr uint32_t kUpdates = HotOptions::kCold + 1;
  static constexpr uint64_t kUnpinned = ~uint64_t{0};
  uint32_t type = 0;
  uint32_t hot_slot = 0;  // mapped to a key at execution (hot.h)
  uint32_t hot_pos = 0;   // index of the hot update among the kUpdates
  uint64_t pinned_epoch = kUnpinned;  // the epoch HotWorkload::reconnoiter() fixed, or kUnpinned
  uint64_t cold[HotOptions::kCold];
};

class HotGenerator {
 public:
  using Request = HotRequest;
  static constexpr uint32_t kTableId = 40;
  // Where the hot records are in one epoch: the (h mod n)-th used partition
  // is (offset + (h mod n) * stride) mod P (hot.h).
  struct Placement {
    uint32_t n, offset, stride;
  };

  explicit HotGenerator(const HotOptions& o);
  void prepare() {}  // nothing to build

  std::vector<std::string> txn_types() const { return {"hot"}; }
  void generate(Random& rng, uint32_t thread, Request& r) const;
  // The access set with the hot records placed as in `epoch`.
  TxnDesc describe(const Request& r, uint64_t epoch) const;
  // Without a clock: the pinned epoch, else epoch 0 (the even placement, the
  // only one when --hot_shift_s = 0).
  TxnDesc describe(const Request& r) const {
    return describe(r, r.pinned_epoch != HotRequest::kUnpinned ? r.pinned_epoch : 0);
  }
  const HotOptions& options() const { return opt_; }

  // Placement of epoch e (hot.h). Pure function of (options, e).
  Placement placement(uint64_t e) const;
  uint64_t hot_key(uint32_t slot, const Placement& p) const {
    const uint64_t q = (p.offset + uint64_t{slot % p.n} * p.stride) % parts_;
    return q + uint64_t{parts_} * (slot / p.n);
  }
  // The key of the update at position i of r, with the hot records of `epoch`.
  uint64_t key(const Request& r, uint32_t i, uint64_t epoch) const {
    return i == r.hot_pos ? hot_key(r.hot_slot, placement(epoch)) : r.cold[i - (i > r.hot_pos)];
  }
  uint32_t partition_of(uint64_t key) const { return static_cast<uint32_t>(key % parts_); }

 private:
  HotOptions opt_;
  uint32_t parts_;
  uint64_t rows_per_part_;
  std::vector<uint32_t> strides_;  // values in [1, P) coprime with P
};

}  // namespace ccb
