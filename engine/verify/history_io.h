// Binary history files, for checking a run's history offline
// (check_history). Format version 1, all integers little-endian:
//
//   offset  size  field
//        0     8  magic "CCBHIST\0"
//        8     4  format version (1)
//       12     4  header size in bytes (48)
//       16     8  n_txns
//       24     8  n_accesses
//       32     8  payload size in bytes (= 20 * n_txns + 24 * n_accesses)
//       40     8  header checksum (of the five fields above, see below)
//       48        n_txns transaction records:  txn_id u64, first_access u64,
//                                              n_accesses u32
//                 n_accesses access records:   key u64, read_version u64,
//                                              prev_version u64
//      end-16  8  payload checksum (of every field of every record, in order)
//      end-8   8  end magic "CCBHEND\0"
//
// Checksums fold each field value v (as u64) into h, starting from
// 0x6363625F68697374: h = (h ^ v) * 0x9E3779B97F4A7C15; h ^= h >> 29. Every
// step is a bijection of h, so any single changed field always changes the
// checksum.
//
// read_history accepts a file only if every check passes: magic, version,
// header checksum, exact file size for the counts (so a corrupted count never
// triggers a huge allocation), payload checksum, end magic, and every
// transaction's access range inside the access records. Anything else throws
// HistoryIoError with the file name and the reason; it never returns a
// partial history. Semantic problems (id 0, duplicate ids, broken version
// chains) are left to check_serializable, which reports them as violations.
//
// Thread safety: the functions share no state.
#pragma once

#include <stdexcept>
#include <string>

#include "engine/verify/history.h"

namespace ccb::verify {

class HistoryIoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr uint32_t kHistoryFormatVersion = 1;

// Writes to `path` + ".tmp" and renames it over `path` when complete, so a
// crash never leaves a half-written file under the final name.
// Throws HistoryIoError on any I/O error.
void write_history(const std::string& path, const History& h);

// Throws HistoryIoError when the file cannot be read or is not a complete,
// intact history file.
History read_history(const std::string& path);

}  // namespace ccb::verify
