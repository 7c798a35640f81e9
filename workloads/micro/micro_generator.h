// The micro benchmark's request generator, without tables or protocol (the
// table and procedure are MicroWorkload<CC>, micro.h): 9 distinct keys drawn
// from Zipf(theta) over the objects [INF]: keys[0] is read and written,
// keys[1..4] only read, keys[5..8] only written (Ding et al., PVLDB 2018,
// §5: "reads 5 objects and writes to 5 objects [...] with one of the reads
// and one of the writes on the same object").
//
// Set-up in two steps, so a run is refused before any O(objects) work: the
// constructor only checks (ConfigError naming --theta when 9 distinct keys
// would take too many draws, workloads/distinct_keys.h), prepare() builds the Zipf
// distribution.
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
#include "workloads/micro/micro_options.h"

namespace ccb {

struct MicroRequest {
  uint32_t type = 0;
  uint64_t keys[MicroOptions::kKeys];  // [0]: read+write, [1..4]: read, [5..8]: write
};

class MicroGenerator {
 public:
  using Request = MicroRequest;
  static constexpr uint32_t kTableId = 50;

  explicit MicroGenerator(const MicroOptions& o);
  void prepare();  // idempotent

  std::vector<std::string> txn_types() const { return {"micro"}; }
  // REQUIRES: prepare() (std::logic_error otherwise).
  void generate(Random& rng, uint32_t thread, Request& r) const;
  TxnDesc describe(const Request& r) const;
  const MicroOptions& options() const { return opt_; }

 private:
  MicroOptions opt_;
  std::optional<ZipfDistribution> zipf_;
};

}  // namespace ccb
