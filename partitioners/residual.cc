#include "partitioners/residual.h"

#include <algorithm>
#include <atomic>

#include "partitioners/key_buckets.h"

namespace ccb {

std::vector<KeyAccess> accesses_by_key(std::span<const TxnDesc> bundle) {
  std::vector<KeyAccess> acc;
  size_t total = 0;
  for (const auto& d : bundle) total += d.read_set.size() + d.write_set.size();
  acc.reserve(total);
  for (uint32_t t = 0; t < bundle.size(); ++t) {
    for (GlobalKey key : bundle[t].read_set) acc.push_back({key, t, false});
    for (GlobalKey key : bundle[t].write_set) acc.push_back({key, t, true});
  }
  std::sort(acc.begin(), acc.end(), [](const KeyAccess& a, const KeyAccess& b) { return a.key < b.key; });
  return acc;
}

void record_graph(std::span<const KeyAccess> acc, uint32_t bundle_size, Partitioning& out) {
  out.records = 0;
  out.record_offsets.assign(bundle_size + 1, 0);
  auto for_conflict_records = [&](auto&& body) {  // body(access, record) per access of such a record
    uint32_t record = 0;
    for (size_t lo = 0; lo < acc.size();) {
      size_t hi = lo;
      bool written = false;
      for (; hi < acc.size() && acc[hi].key == acc[lo].key; ++hi) written |= acc[hi].write;
      if (written && hi - lo >= 2) {
        for (size_t i = lo; i < hi; ++i) body(acc[i], record);
        ++record;
      }
      lo = hi;
    }
    return record;
  };
  out.records = for_conflict_records([&](const KeyAccess& a, uint32_t) { ++out.record_offsets[a.txn + 1]; });
  for (uint32_t t = 0; t < bundle_size; ++t) out.record_offsets[t + 1] += out.record_offsets[t];
  out.record_accesses.resize(out.record_offsets.back());
  std::vector<uint32_t> fill(out.record_offsets.begin(), out.record_offsets.end() - 1);
  for_conflict_records([&](const KeyAccess& a, uint32_t r) { out.record_accesses[fill[a.txn]++] = {r, a.write}; });
}

namespace {

// Up to two distinct partitions of a set of accesses: enough to answer "is
// there one other than p?".
struct TwoParts {
  uint32_t a = UINT32_MAX, b = UINT32_MAX;
  void add(uint32_t p) {
    if (a == UINT32_MAX) a = p;
    else if (p != a && b == UINT32_MAX) b = p;
  }
  bool has_other_than(uint32_t p) const { return (a != UINT32_MAX && a != p) || (b != UINT32_MAX && b != p); }
};

// The residual rule (the header) over `acc`, whose accesses of one record are
// adjacent: one pass per record finds its writers' and its accessors'
// partitions, then mark(t) for every accessor t that goes to R.
template <class Mark>
void mark_residual(std::span<const KeyAccess> acc, std::span<const uint32_t> part_of, Mark mark) {
  for (size_t lo = 0; lo < acc.size();) {
    size_t hi = lo;
    TwoParts writers, all;
    for (; hi < acc.size() && acc[hi].key == acc[lo].key; ++hi) {
      const uint32_t p = part_of[acc[hi].txn];
      all.add(p);
      if (acc[hi].write) writers.add(p);
    }
    if (writers.a != UINT32_MAX && all.b != UINT32_MAX) {  // written, and accessed from two partitions
      for (size_t i = lo; i < hi; ++i) {
        const uint32_t p = part_of[acc[i].txn];
        // A writer conflicts with any accessor elsewhere; a reader with a writer elsewhere.
        if (acc[i].write ? all.has_other_than(p) : writers.has_other_than(p)) mark(acc[i].txn);
      }
    }
    lo = hi;
  }
}

// out.parts and out.residual, in bundle order, from the marks.
template <class Flags>
void split_by_marks(std::span<const uint32_t> part_of, const Flags& in_residual, unsigned k, Partitioning& out) {
  out.parts.assign(k, {});
  out.residual.clear();
  for (uint32_t t = 0; t < part_of.size(); ++t) {
    if (in_residual[t]) out.residual.push_back(t);
    else out.parts[part_of[t]].push_back(t);
  }
}

}  // namespace

void split_with_residual(std::span<const KeyAccess> acc, std::span<const uint32_t> part_of, unsigned k,
                         Partitioning& out) {
  std::vector<uint8_t> in_residual(part_of.size(), 0);
  mark_residual(acc, part_of, [&](uint32_t t) { in_residual[t] = 1; });
  split_by_marks(part_of, in_residual, k, out);
}

void parts_of_assignment(std::span<const uint32_t> part_of, unsigned k, Partitioning& out) {
  out.parts.assign(k, {});
  out.residual.clear();
  for (uint32_t t = 0; t < part_of.size(); ++t) out.parts[part_of[t]].push_back(t);
}

void extract_residual(std::span<const TxnDesc> bundle, Partitioning& io, const ForChunks& for_chunks) {
  const uint32_t n = static_cast<uint32_t>(bundle.size());
  std::vector<uint32_t> part_of(n);
  for (uint32_t p = 0; p < io.parts.size(); ++p)
    for (uint32_t t : io.parts[p]) part_of[t] = p;
  // The accesses by key bucket (key_buckets.h), on the team.
  std::vector<KeyAccess> acc;
  std::vector<uint32_t> bucket_begin;
  bucket_accesses<KeyAccess>(
      n, for_chunks,
      [&](size_t i, auto emit) {
        const uint32_t t = static_cast<uint32_t>(i);
        for (GlobalKey key : bundle[t].read_set) emit(KeyAccess{key, t, false});
        for (GlobalKey key : bundle[t].write_set) emit(KeyAccess{key, t, true});
      },
      acc, bucket_begin);
  // Each bucket sorted by key and marked; a transaction can be marked from
  // several buckets at once, hence the atomic flags.
  std::vector<std::atomic<uint8_t>> in_residual(n);
  for_chunks(kKeyBuckets, [&](size_t begin, size_t end) {
    for (size_t bucket = begin; bucket < end; ++bucket) {
      const auto first = acc.begin() + bucket_begin[bucket], last = acc.begin() + bucket_begin[bucket + 1];
      std::sort(first, last, [](const KeyAccess& a, const KeyAccess& b) { return a.key < b.key; });
      mark_residual(std::span<const KeyAccess>(first, last), part_of,
                    [&](uint32_t t) { in_residual[t].store(1, std::memory_order_relaxed); });
    }
  });
  split_by_marks(part_of, in_residual, static_cast<unsigned>(io.parts.size()), io);
}

uint32_t MajorityRouter::decide() {
  uint32_t best = 0;
  for (uint32_t p = 1; p < votes_.size(); ++p) {
    if (votes_[p] > votes_[best] || (votes_[p] == votes_[best] && load_[p] < load_[best])) best = p;
  }
  std::fill(votes_.begin(), votes_.end(), 0);
  ++load_[best];
  return best;
}

}  // namespace ccb
