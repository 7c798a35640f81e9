// YCSB's request generator, without tables or protocol (the tables and the
// stored procedure are YcsbWorkload<CC>, ycsb.h): each transaction makes
// `req_per_txn` requests on distinct keys drawn from Zipf(theta); a request
// is a read with probability `read_ratio`, otherwise a read-modify-write.
// Partitioned mode (--partitions=N, as in the Strife paper): the key space is
// cut into N equal ranges; each transaction picks one range uniformly and
// draws its keys inside it by Zipf(theta). With --home_partition=worker the
// range is the worker's own (thread mod N): the partitioned systems' way of
// issuing a known-partitionable workload (Strife §6.3: "the workload is known
// a priori and can be leveraged by partitioned systems"; DBx1000 issues an
// H-Store transaction at its first partition's thread, FIRST_PART_LOCAL).
//
// Set-up in two steps, so a run is refused before any O(table_size) work:
// the constructor only checks (cheap: ConfigError naming --theta when
// distinct keys would take too many draws, workloads/distinct_keys.h), prepare()
// builds the Zipf distribution (its zeta sum: O(min(keys, 2^26))).
//
// Thread safety: after prepare(), generate() and describe() are const and
// may run concurrently, each caller with its own Random.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/core/zipf.h"
#include "workloads/ycsb/ycsb_options.h"

namespace ccb {

struct YcsbRequest {
  static constexpr uint64_t kWriteBit = uint64_t{1} << 63;
  uint32_t type = 0;
  uint32_t n = 0;
  uint64_t ops[YcsbOptions::kMaxRequests];  // key | kWriteBit for read-modify-writes

  uint64_t key(uint32_t i) const { return ops[i] & ~kWriteBit; }
  bool is_write(uint32_t i) const { return (ops[i] & kWriteBit) != 0; }
  uint32_t writes() const {
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; ++i) w += is_write(i);
    return w;
  }
};

class YcsbGenerator {
 public:
  using Request = YcsbRequest;
  static constexpr uint32_t kTableId = 0;

  explicit YcsbGenerator(const YcsbOptions& o);
  void prepare();  // idempotent

  std::vector<std::string> txn_types() const { return {"ycsb"}; }
  // REQUIRES: prepare() (std::logic_error otherwise).
  void generate(Random& rng, uint32_t thread, Request& r) const;
  TxnDesc describe(const Request& r) const;
  const YcsbOptions& options() const { return opt_; }

 private:
  YcsbOptions opt_;
  bool worker_home_;                       // --home_partition=worker (read once: generate() is on every request's path)
  std::optional<ZipfDistribution> zipf_;  // over the keys of one partition
};

}  // namespace ccb
