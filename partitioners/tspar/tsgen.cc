#include "partitioners/tspar/tsgen.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <utility>

#include "engine/core/local_work.h"  // charge_analysis_probes
#include "engine/core/sim_hooks.h"
#include "partitioners/key_buckets.h"

namespace ccb::tspar {

namespace {
inline uint64_t mix(GlobalKey key) { return (key ^ (key >> 29)) * 0x9e3779b97f4a7c15ULL; }

// One primitive operation of TSgen under sim (tsgen.h): an index_probe of
// the analysis work type, which the caller's ScopedWorkType sets.
inline void charge_step() { charge_analysis_probes(1); }
}  // namespace

uint32_t Tsgen::find_key(GlobalKey key) const {
  charge_step();
  const size_t b = key_bucket(key);
  const uint64_t first = region_begin_[b], mask = region_begin_[b + 1] - first - 1;
  for (uint64_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slot_ids_[first + i] == kEmpty || slot_keys_[first + i] == key) return slot_ids_[first + i];
  }
}

uint32_t Tsgen::add_key(GlobalKey key, size_t b, uint32_t& next_id) {
  charge_step();
  const uint64_t first = region_begin_[b], mask = region_begin_[b + 1] - first - 1;
  for (uint64_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slot_ids_[first + i] == kEmpty) {
      slot_keys_[first + i] = key;
      return slot_ids_[first + i] = next_id++;
    }
    if (slot_keys_[first + i] == key) return slot_ids_[first + i];
  }
}

void Tsgen::index_keys(std::span<const TxnDesc> bundle, const ForChunks& for_chunks) {
  // Only the keys of R matter: a P-transaction is pulled, and a placed
  // transaction can fail ckRCF, only through a key it shares with some T* ∈ R.
  // So the index holds R's keys; every access of the bundle keeps its slot in
  // accesses_ (kEmpty where the key is not R's), so that the chunks below
  // write disjoint ranges.
  access_offsets_.resize(bundle.size() + 1);
  access_offsets_[0] = 0;
  for (uint32_t t = 0; t < bundle.size(); ++t)
    access_offsets_[t + 1] =
        access_offsets_[t] + static_cast<uint32_t>(bundle[t].read_set.size() + bundle[t].write_set.size());
  accesses_.resize(access_offsets_.back());
  // R's accesses by key bucket (key_buckets.h), each with its slot in
  // accesses_ and its transaction's step in R⃗.
  bucket_accesses<RAccess>(
      order_buf_.size(), for_chunks,
      [&](size_t step, auto emit) {
        const uint32_t t = order_buf_[step];
        uint32_t a = access_offsets_[t];
        for (GlobalKey key : bundle[t].read_set) emit(RAccess{key, a++, uint32_t(step), false});
        for (GlobalKey key : bundle[t].write_set) emit(RAccess{key, a++, uint32_t(step), true});
      },
      r_accesses_, bucket_begin_);
  // One region of the table per bucket, load factor <= 1/2.
  region_begin_.resize(kKeyBuckets + 1);
  region_begin_[0] = 0;
  for (size_t b = 0; b < kKeyBuckets; ++b)
    region_begin_[b + 1] =
        region_begin_[b] + std::bit_ceil(uint64_t{2} * (bucket_begin_[b + 1] - bucket_begin_[b]) + 2);
  slot_keys_.resize(region_begin_.back());
  slot_ids_.assign(region_begin_.back(), kEmpty);
  // Each bucket's keys inserted in R⃗'s order, bucket b's ids counting from
  // its first access's place (so ids are unique, at most one per access of
  // R, and do not depend on the chunking); the insertion's probe is the only
  // one an R-transaction's access needs. A key's last step is the last T*
  // of R⃗ that touches it (entries come in step order).
  last_step_.resize(bucket_begin_.back());
  const uint32_t analysis = sim::analysis_work_type();
  for_chunks(kKeyBuckets, [&](size_t begin, size_t end) {
    const sim::ScopedWorkType scope(analysis);
    for (size_t b = begin; b < end; ++b) {
      uint32_t next_id = bucket_begin_[b];
      for (uint32_t e = bucket_begin_[b]; e < bucket_begin_[b + 1]; ++e) {
        const RAccess& r = r_accesses_[e];
        const uint32_t id = add_key(r.key, b, next_id);
        accesses_[r.slot] = {id, r.write};
        last_step_[id] = r.step;
      }
    }
  });
  // The P-transactions' accesses: read-only lookups, in chunks on the team.
  for_chunks(bundle.size(), [&](size_t begin, size_t end) {
    const sim::ScopedWorkType scope(analysis);
    for (size_t t = begin; t < end; ++t) {
      if (slots_[t].where == Where::kPending) continue;
      uint32_t a = access_offsets_[t];
      for (GlobalKey key : bundle[t].read_set) accesses_[a++] = {find_key(key), false};
      for (GlobalKey key : bundle[t].write_set) accesses_[a++] = {find_key(key), true};
    }
  });
  index_postings(bucket_begin_.back(), bundle.size());  // the id space (ids of keys not in R are unused)
}

void Tsgen::index_records(const Partitioning& p) {
  // The partitioner's records (Partitioning::record_*; TSKD §4 "TSgen
  // re-uses their conflict graphs when looking up conflicts"): each access
  // of a record that can conflict already has its id, so no key is hashed
  // and the accesses of the other records, which conflict with nothing,
  // are not there at all.
  access_offsets_.assign(p.record_offsets.begin(), p.record_offsets.end());
  accesses_.resize(p.record_accesses.size());
  for (size_t a = 0; a < accesses_.size(); ++a) accesses_[a] = {p.record_accesses[a].record, p.record_accesses[a].write};
  // A record's last step in R⃗; 0 for one no T* touches (its runtimes are
  // then recorded by the pulls of step 0 alone, and never searched).
  last_step_.assign(p.records, 0);
  for (uint32_t step = 0; step < order_buf_.size(); ++step) {
    const uint32_t t = order_buf_[step];
    for (uint32_t a = access_offsets_[t]; a < access_offsets_[t + 1]; ++a) last_step_[accesses_[a].id] = step;
  }
  index_postings(p.records, slots_.size());
}

void Tsgen::index_postings(size_t keys, size_t bundle_size) {
  // The postings of each key, in bundle order (a counting sort): the
  // P-transactions' accesses only, since only they can be pulled (lines 6-8
  // visit a key's postings, and R's own accesses there were wasted visits).
  auto for_p_accesses = [&](auto&& body) {
    for (uint32_t t = 0; t < bundle_size; ++t)
      if (slots_[t].where == Where::kPart)
        for (uint32_t a = access_offsets_[t]; a < access_offsets_[t + 1]; ++a)
          if (accesses_[a].id != kEmpty) body(t, accesses_[a]);
  };
  posting_offsets_.assign(keys + 1, 0);
  for_p_accesses([&](uint32_t, const Posting& a) { ++posting_offsets_[a.id + 1]; });
  for (size_t i = 1; i <= keys; ++i) posting_offsets_[i] += posting_offsets_[i - 1];
  postings_.resize(posting_offsets_.back());
  cursor_.assign(posting_offsets_.begin(), posting_offsets_.end() - 1);
  for_p_accesses([&](uint32_t t, const Posting& a) { postings_[cursor_[a.id]++] = {t, a.write}; });
  pulled_.assign(keys, 0);
  // The runtime lists of the previous bundle: only those it used.
  for (uint32_t i = 0; i < runtimes_used_; ++i) runtimes_[i].clear();
  runtimes_used_ = 0;
  key_runtimes_.assign(keys, QueueRuntimes{});
  more_runtimes_.clear();
}

uint32_t Tsgen::new_runtime_list() {
  if (runtimes_used_ == runtimes_.size()) runtimes_.emplace_back();
  return runtimes_used_++;
}

Tsgen::QueueRuntimes& Tsgen::runtimes_of(uint32_t key, uint32_t queue) {
  QueueRuntimes* r = &key_runtimes_[key];
  if (r->queue == kEmpty) {
    r->queue = queue;
    r->touching = new_runtime_list();
    return *r;
  }
  while (r->queue != queue) {
    if (r->next == kEmpty) {
      r->next = static_cast<uint32_t>(more_runtimes_.size());  // before the push moves *r
      more_runtimes_.push_back(QueueRuntimes{queue, new_runtime_list(), kEmpty, kEmpty});
      return more_runtimes_.back();
    }
    r = &more_runtimes_[r->next];
  }
  return *r;
}

void Tsgen::place(uint32_t t, uint32_t q, std::span<const double> time, Schedule& out) {
  Slot& s = slots_[t];
  s.where = Where::kQueue;
  s.queue = q;
  s.ts = out.load[q];
  s.tc = s.ts + time[t];
  out.load[q] = s.tc;
  out.queues[q].push_back(t);
  if (!by_keys_) return;
  for (uint32_t a = access_offsets_[t]; a < access_offsets_[t + 1]; ++a) {
    // A key that no T* from keep_from_ on touches: its runtimes are never
    // searched, so none is recorded.
    if (accesses_[a].id == kEmpty || last_step_[accesses_[a].id] < keep_from_) continue;
    charge_step();
    QueueRuntimes& r = runtimes_of(accesses_[a].id, q);
    runtimes_[r.touching].push_back({s.ts, s.tc});
    if (!accesses_[a].write) continue;
    if (r.writing == kEmpty) r.writing = new_runtime_list();
    runtimes_[r.writing].push_back({s.ts, s.tc});
  }
}

// Lines 6-7: u, still in its P_i, joins S_i (marked, so that a second key
// or neighbour does not list it again), keyed by its place in P_i.
void Tsgen::pull(uint32_t u) {
  Slot& s = slots_[u];
  s.where = Where::kPulled;
  pulled_buf_.push_back(uint64_t{s.queue} << 32 | s.pos);
}

// Line 8 ("append transactions in S_i to Q_i"): S_i in P_i's order, by a
// sort of the plain (P_i, place) keys (a hot key pulls thousands at once).
void Tsgen::place_pulled(const Partitioning& p, std::span<const double> time, Schedule& out) {
  std::sort(pulled_buf_.begin(), pulled_buf_.end());
  for (uint64_t key : pulled_buf_) {
    const uint32_t q = static_cast<uint32_t>(key >> 32);
    place(p.parts[q][static_cast<uint32_t>(key)], q, time, out);
  }
  pulled_buf_.clear();
}

void Tsgen::pull_graph(const Partitioning& p, uint32_t t_star, std::span<const double> time, Schedule& out) {
  for (uint32_t u : p.conflicts[t_star]) {
    charge_step();
    if (slots_[u].where == Where::kPart) pull(u);
  }
  place_pulled(p, time, out);
}

bool Tsgen::rc_free_graph(const Partitioning& p, uint32_t t_star, uint32_t l, double ts, double tc) const {
  for (uint32_t u : p.conflicts[t_star]) {
    charge_step();
    const Slot& s = slots_[u];
    if (s.where == Where::kQueue && s.queue != l && s.ts < tc && ts < s.tc) return false;
  }
  return true;
}

void Tsgen::pull_keys(const Partitioning& p, uint32_t t_star, std::span<const double> time, Schedule& out) {
  for (uint32_t a = access_offsets_[t_star]; a < access_offsets_[t_star + 1]; ++a) {
    const uint32_t key = accesses_[a].id;
    const uint8_t need = accesses_[a].write ? 2 : 1;  // T* writes: every accessor conflicts; reads: writers
    if (pulled_[key] >= need) continue;
    for (uint32_t i = posting_offsets_[key]; i < posting_offsets_[key + 1]; ++i) {
      charge_step();
      const Posting& e = postings_[i];
      if ((need == 2 || e.write) && slots_[e.id].where == Where::kPart) pull(e.id);  // not pulled yet
    }
    pulled_[key] = need;
  }
  place_pulled(p, time, out);
}

bool Tsgen::rc_free_keys(uint32_t t_star, uint32_t l, double ts, double tc) const {
  for (uint32_t a = access_offsets_[t_star]; a < access_offsets_[t_star + 1]; ++a) {
    const QueueRuntimes* q = &key_runtimes_[accesses_[a].id];
    for (; q->queue != kEmpty; q = &more_runtimes_[q->next]) {
      // T* writes the key: any accessor conflicts; T* reads it: writers only.
      const uint32_t list = accesses_[a].write ? q->touching : q->writing;
      if (q->queue != l && list != kEmpty) {
        charge_step();
        const std::vector<Runtime>& r = runtimes_[list];
        // The first runtime that ends after ts; the earlier ones end by ts.
        auto it = std::upper_bound(r.begin(), r.end(), ts, [](double x, const Runtime& y) { return x < y.tc; });
        if (it != r.end() && it->ts < tc) return false;
      }
      if (q->next == kEmpty) break;
    }
  }
  return true;
}

void Tsgen::schedule(std::span<const TxnDesc> bundle, const Partitioning& p, std::span<const double> time,
                     Schedule& out, const ForChunks& for_chunks) {
  const auto start = std::chrono::steady_clock::now();
  const sim::ScopedWorkType scope(sim::analysis_work_type());
  k_ = static_cast<uint32_t>(p.parts.size());
  out.queues.assign(k_, {});
  out.load.assign(k_, 0.0);  // the scheduled time of Q_i so far (where the next append starts)
  out.rs.clear();
  slots_.assign(bundle.size(), Slot{});
  // Line 2: len_i = time(P_i); Q_i = ∅.
  std::vector<double> len(k_, 0.0);
  for (uint32_t i = 0; i < k_; ++i) {
    for (uint32_t j = 0; j < p.parts[i].size(); ++j) {
      const uint32_t t = p.parts[i][j];
      slots_[t] = Slot{Where::kPart, i, j, 0, 0};
      len[i] += time[t];
    }
  }
  // R⃗: a random order of R by default (§4), else the partitioner's.
  order_buf_.assign(p.residual.begin(), p.residual.end());
  if (order_ == ResidualOrder::kRandom)
    for (size_t i = order_buf_.size(); i > 1; --i) std::swap(order_buf_[i - 1], order_buf_[rng_.below(i)]);
  by_keys_ = p.conflicts.empty() && !p.residual.empty();
  if (by_keys_ && !p.record_offsets.empty()) index_records(p);  // the partitioner's records
  else if (by_keys_) index_keys(bundle, for_chunks);

  for (uint32_t step = 0; step < order_buf_.size(); ++step) {  // lines 3-4
    const uint32_t t_star = order_buf_[step];
    // The runtimes the pulls below record are read by this T*'s ckRCF or a
    // later one; T*'s own, by a later one only.
    keep_from_ = step;
    // Line 5: the least-loaded queue (ties: the lowest index).
    const uint32_t l = static_cast<uint32_t>(std::min_element(len.begin(), len.end()) - len.begin());
    // Lines 6-8: T*'s neighbours still in some P_i move to the end of Q_i.
    if (by_keys_) pull_keys(p, t_star, time, out);
    else pull_graph(p, t_star, time, out);
    // Lines 9-11: ckRCF for T* at the end of Q_l.
    const double ts = out.load[l], tc = ts + time[t_star];
    if (by_keys_ ? rc_free_keys(t_star, l, ts, tc) : rc_free_graph(p, t_star, l, ts, tc)) {
      keep_from_ = step + 1;
      place(t_star, l, time, out);
      len[l] += time[t_star];
    } else {
      slots_[t_star].where = Where::kResidual;
      out.rs.push_back(t_star);
    }
  }
  // Lines 12-13: the rest of each P_i, in its order, at the end of Q_i
  // (nothing is checked against them any more: no key lists to keep).
  by_keys_ = false;
  for (uint32_t i = 0; i < k_; ++i)
    for (uint32_t t : p.parts[i])
      if (slots_[t].where == Where::kPart) place(t, i, time, out);
  out.tsgen_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ccb::tspar
