// The recorded history of a run: what the serializability checker consumes.
//
// Versions: every committed write installs a new version whose id is the id
// of the writing transaction. The loader's initial version of every row is
// version 0 (a virtual transaction 0 that "wrote" everything first). An insert
// is a write whose previous version is 0 (the key's "absent" version).
//
// For each access of a committed transaction we record:
//   read_version  the version the transaction observed (kNotRead if blind)
//   prev_version  for writes: the version that was current when this write was
//                 installed (read under the protocol's install-time exclusion);
//                 it orders the versions of a key (ww edges).
// Aborted attempts never appear.
//
// Thread safety: a History is built single-threaded (per-thread logs merged
// after the run) and then read-only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb::verify {

using VersionId = uint64_t;
inline constexpr VersionId kInitialVersion = 0;
inline constexpr VersionId kNotRead = ~uint64_t{0};

struct AccessRecord {
  GlobalKey key = 0;
  VersionId read_version = kNotRead;
  VersionId prev_version = kNotRead;  // kNotRead when the access did not write
  bool wrote() const { return prev_version != kNotRead; }
};

struct TxnRecord {
  uint64_t txn_id = 0;        // never 0 (reserved for the loader)
  uint64_t first_access = 0;  // index into History::accesses
  uint32_t n_accesses = 0;
};

struct History {
  std::vector<TxnRecord> txns;
  std::vector<AccessRecord> accesses;
};

}  // namespace ccb::verify
