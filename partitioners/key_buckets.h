// A bundle's accesses grouped by key in parallel: every access goes to one
// of kKeyBuckets buckets by its key's hash, so that all accesses of a record
// share a bucket and the buckets can then be worked on apart (sorted,
// indexed) by a team. The analysis steps of TSKD that used to run serially on
// the coordinator use it to run on the bundle executor's workers (issue 45
// item 4): the residual extraction (residual.h) and TSgen's key index
// (tspar/tsgen.h).
//
// bucket_accesses(items, for_chunks, each, out, bucket_begin): each(i, emit)
// calls emit(entry) for every access of item i (an Entry has the access's
// `key`, which picks its bucket); afterwards bucket b's
// entries are out[bucket_begin[b], bucket_begin[b + 1]), in item order (and
// each item's own order). Fixed blocks of kBlock items count their accesses
// per bucket, a prefix sum over (bucket, block) gives each block its place in
// each bucket, and the blocks write them there: the layout does not depend on
// the chunking. O(A + blocks x kKeyBuckets), A = the accesses.
//
// Thread safety: `each` runs on the participants of for_chunks at once, on
// disjoint items; the outputs are written by this call only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/core/txn_desc.h"
#include "partitioners/partitioning.h"

namespace ccb {

inline constexpr size_t kKeyBuckets = 256;

inline size_t key_bucket(GlobalKey key) { return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> 56); }

template <class Entry, class EachAccess>
void bucket_accesses(size_t items, const ForChunks& for_chunks, EachAccess each, std::vector<Entry>& out,
                     std::vector<uint32_t>& bucket_begin) {
  constexpr size_t kBlock = 256;
  const size_t blocks = (items + kBlock - 1) / kBlock;
  std::vector<uint32_t> place(blocks * kKeyBuckets, 0);  // the counts, then each block's cursor per bucket
  auto for_blocks = [&](auto&& per_access) {
    for_chunks(blocks, [&](size_t b0, size_t b1) {
      for (size_t b = b0; b < b1; ++b) {
        uint32_t* row = &place[b * kKeyBuckets];
        for (size_t i = b * kBlock; i < std::min(items, (b + 1) * kBlock); ++i)
          each(i, [&](const Entry& e) { per_access(row, e); });
      }
    });
  };
  for_blocks([](uint32_t* row, const Entry& e) { ++row[key_bucket(e.key)]; });
  bucket_begin.resize(kKeyBuckets + 1);
  uint32_t total = 0;
  for (size_t bucket = 0; bucket < kKeyBuckets; ++bucket) {
    bucket_begin[bucket] = total;
    for (size_t b = 0; b < blocks; ++b) total += std::exchange(place[b * kKeyBuckets + bucket], total);
  }
  bucket_begin[kKeyBuckets] = total;
  out.resize(total);
  for_blocks([&](uint32_t* row, const Entry& e) { out[row[key_bucket(e.key)]++] = e; });
}

}  // namespace ccb
