// Strife clustering, Algorithm 1 of the paper (§3), with prepare, fuse and
// allocate parallel over equal chunks of the batch (§4). See clusterer.h.
#include "partitioners/strife/clusterer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace ccb::strife {
namespace {

using Node = ConcurrentUnionFind::Node;
// txn_cluster_ values besides a root: no active item / several clusters.
constexpr Node kNoCluster = std::numeric_limits<Node>::max();
constexpr Node kMultiCluster = kNoCluster - 1;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

using Clock = std::chrono::steady_clock;
double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// MurmurHash3's 64-bit finalizer (a bijection): keys are structured (table id
// in the top byte, often small dense local keys), so they are mixed before
// masking; also derives the spot sampling seed.
uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

void check_key(GlobalKey key) {
  if (key == kReservedKey)
    throw std::invalid_argument("strife: a transaction accesses key 0xffffffffffffffff, which is reserved");
}

}  // namespace

void validate(const Options& o) {
  // §3.1 "a fraction between 0 and 1". alpha = 0 is the paper's Fig. 10a end
  // point: every pair passes the merge test (count >= 0), one cluster.
  if (!(o.alpha >= 0.0 && o.alpha <= 1.0))
    throw std::invalid_argument("strife: alpha must be in [0, 1], got " + std::to_string(o.alpha));
  if (o.k < 1 || o.k > kMaxK)
    throw std::invalid_argument("strife: k must be in [1, " + std::to_string(kMaxK) + "], got " + std::to_string(o.k));
  if (!(o.max_cluster_fraction >= 0.0 && o.max_cluster_fraction <= 1.0))
    throw std::invalid_argument("strife: max_cluster_fraction must be in [0, 1] (1: no fallback), got " +
                                std::to_string(o.max_cluster_fraction));
  if (o.threads < 1 || o.threads > kMaxThreads)
    throw std::invalid_argument("strife: threads must be in [1, " + std::to_string(kMaxThreads) + "], got " +
                                std::to_string(o.threads));
}

// Prepare's map from written keys to union-find nodes (§3.1.1 "labeling
// records that are updated as active"): open addressing with linear probing,
// filled concurrently. An item's node is the position in nbrs_ of the write
// that inserted it, so the items of one transaction get neighbouring nodes
// (locality in the union-find arrays) without a renumbering pass.
class Clusterer::KeyTable {
 public:
  static constexpr Node kAbsent = kNoCluster;

  // Power-of-two capacity for `n` keys at load factor <= 1/2.
  void reserve_for(size_t n) {
    size_t cap = 64;
    while (cap < 2 * n) cap <<= 1;
    if (cap != capacity_) {
      slots_ = std::make_unique<Slot[]>(cap);
      capacity_ = cap;
    }
  }
  size_t capacity() const { return capacity_; }
  void clear(size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      slots_[i].key.store(kReservedKey, std::memory_order_relaxed);
      slots_[i].node.store(kAbsent, std::memory_order_relaxed);
    }
  }
  // Returns the key's node, inserting it with node `proposed` if absent, and
  // whether this call inserted it.
  std::pair<Node, bool> insert(GlobalKey key, Node proposed) {
    for (size_t i = mix(key) & (capacity_ - 1);; i = (i + 1) & (capacity_ - 1)) {
      GlobalKey cur = slots_[i].key.load(std::memory_order_acquire);
      if (cur == kReservedKey && slots_[i].key.compare_exchange_strong(cur, key, std::memory_order_acq_rel)) {
        slots_[i].node.store(proposed, std::memory_order_release);
        return {proposed, true};
      }
      if (cur == key) return {node_at(i), false};
    }
  }
  // Probes are cache misses; prepare prefetches the next transaction's slots.
  void prefetch(GlobalKey key) const { __builtin_prefetch(&slots_[mix(key) & (capacity_ - 1)]); }
  Node find(GlobalKey key) const {
    if (capacity_ == 0) return kAbsent;
    for (size_t i = mix(key) & (capacity_ - 1);; i = (i + 1) & (capacity_ - 1)) {
      const GlobalKey cur = slots_[i].key.load(std::memory_order_acquire);
      if (cur == key) return node_at(i);
      if (cur == kReservedKey) return kAbsent;
    }
  }

 private:
  struct Slot {  // key and node share a cache line: one miss per probe
    std::atomic<GlobalKey> key{kReservedKey};
    std::atomic<Node> node{kAbsent};
  };
  // The inserting thread publishes the node right after its CAS on the key;
  // a concurrent reader of the same key waits for that one store.
  Node node_at(size_t i) const {
    Node n;
    while ((n = slots_[i].node.load(std::memory_order_acquire)) == kAbsent) sim::yield_thread();
    return n;
  }

  std::unique_ptr<Slot[]> slots_;
  size_t capacity_ = 0;
};

Clusterer::Clusterer(const Options& options) : options_(options), keys_(std::make_unique<KeyTable>()) {
  validate(options_);
}

Clusterer::~Clusterer() = default;

// §4: "the batch of transactions is divided into equal-sized chunks and
// each chunk is processed by one thread": the team's chunks
// (PhaseTeam::for_chunks, a few per member, claimed dynamically).
void Clusterer::for_chunks(size_t n, const PhaseTeam::RangeBody& fn) {
  if (team_ == nullptr) return fn(0, 0, n);
  team_->for_chunks(n, fn);
}

void Clusterer::use_team(PhaseTeam& team) {
  team_ = &team;
  own_.reset();  // its threads end
}

void Clusterer::collect_roots(uint32_t t, std::vector<Node>& roots) {
  roots.clear();
  const Node* nbr = nbrs_.data() + nbr_begin_[t];
  for (uint32_t i = 0; i < nbr_count_[t]; ++i) roots.push_back(uf_.find(nbr[i]));
  std::sort(roots.begin(), roots.end());  // special nodes are the largest
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
}

Plan Clusterer::cluster(std::span<const TxnDesc> batch) {
  Plan plan;
  cluster(batch, plan);
  return plan;
}

void Clusterer::cluster(std::span<const TxnDesc> batch, Plan& out) {
  prepare(batch);
  spot();
  fuse();
  merge();
  allocate(out);
}

// §3.1.1 Prepare: only items written by some transaction of the batch are
// data nodes of the access graph; a transaction's neighbours are its written
// items and those of its read items that someone else writes (reads of items
// nobody writes, e.g. TPC-C's ITEM table, conflict with nothing).
void Clusterer::prepare(std::span<const TxnDesc> batch) {
  const auto start = Clock::now();
  // Without the executor's workers (use_team), a team of its own, started
  // at the first batch so that a clusterer in the executor never starts
  // threads. Under sim the own team has none (OwnTeam).
  if (team_ == nullptr && options_.threads > 1) {
    own_ = std::make_unique<OwnTeam>(options_.threads);
    team_ = &own_->team();
  }
  if (batch.size() >= kMultiCluster) throw std::invalid_argument("strife: batch too large (at most 2^32 - 2)");
  batch_ = batch;
  stats_ = Stats{};
  stats_.batch_size = static_cast<uint32_t>(batch.size());
  const size_t n = batch.size();

  nbr_begin_.resize(n);
  nbr_count_.resize(n);
  size_t accesses = 0, writes = 0;
  for (size_t t = 0; t < n; ++t) {
    nbr_begin_[t] = static_cast<uint32_t>(accesses);
    accesses += batch[t].read_set.size() + batch[t].write_set.size();
    writes += batch[t].write_set.size();
    if (accesses >= (size_t{1} << 31)) throw std::invalid_argument("strife: batch has too many accesses (at most 2^31)");
  }
  nbrs_.resize(accesses);
  keys_->reserve_for(writes);
  if (accesses + max_specials() >= kMultiCluster)
    throw std::invalid_argument("strife: batch too large (its accesses plus special clusters must stay below 2^32 - 2)");
  uf_.resize(accesses + max_specials(), static_cast<Node>(accesses));  // special nodes: [accesses, +max_specials())
  for_chunks(keys_->capacity(), [&](size_t, size_t b, size_t e) { keys_->clear(b, e); });

  std::atomic<uint64_t> active{0};
  for_chunks(n, [&](size_t, size_t b, size_t e) {
    uint64_t inserted_here = 0;
    for (size_t t = b; t < e; ++t) {
      if (t + 1 < e)
        for (GlobalKey key : batch[t + 1].write_set) keys_->prefetch(key);
      Node position = nbr_begin_[t];
      for (GlobalKey key : batch[t].write_set) {
        check_key(key);
        const auto [node, inserted] = keys_->insert(key, position);
        if (inserted) {
          uf_.make_singleton(node);
          ++inserted_here;
        }
        nbrs_[position++] = node;
      }
    }
    active.fetch_add(inserted_here, std::memory_order_relaxed);
  });
  for_chunks(n, [&](size_t, size_t b, size_t e) {
    for (size_t t = b; t < e; ++t) {
      if (t + 1 < e)
        for (GlobalKey key : batch[t + 1].read_set) keys_->prefetch(key);
      Node* nbr = nbrs_.data() + nbr_begin_[t];
      uint32_t count = static_cast<uint32_t>(batch[t].write_set.size());
      for (GlobalKey key : batch[t].read_set) {
        check_key(key);
        const Node node = keys_->find(key);
        if (node != KeyTable::kAbsent) nbr[count++] = node;
      }
      nbr_count_[t] = count;
    }
  });
  stats_.active_items = active.load();
  special_count_.clear();
  pair_keys_.clear();
  pair_count_.clear();
  stats_.time_us.prepare = micros_since(start);
}

void Clusterer::spot() {
  const auto start = Clock::now();
  std::vector<uint32_t> trials;
  if (options_.spot == SpotMode::kAll) {
    trials.resize(batch_.size());
    std::iota(trials.begin(), trials.end(), 0u);
  } else if (!batch_.empty()) {
    std::mt19937_64 rng(mix(options_.seed ^ mix(calls_ + 1)));
    std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(batch_.size() - 1));
    for (uint32_t i = 0; i < options_.k; ++i) trials.push_back(pick(rng));
  }
  ++calls_;
  spot(trials);
  stats_.time_us.spot = micros_since(start);  // sampling included
}

// §3.1.2 Spot (Alg. 1 lines 3-17): a sampled transaction connected to no
// special cluster turns all its clusters into one new special cluster (a new
// special node, larger than every item, becomes their root: "c.is_special =
// true"); one connected to a special cluster is rejected.
void Clusterer::spot(std::span<const uint32_t> trials) {
  const auto start = Clock::now();
  if (trials.size() > max_specials())
    throw std::invalid_argument("strife: spot got " + std::to_string(trials.size()) + " trials, more than " +
                                (options_.spot == SpotMode::kAll ? "the batch size " : "k = ") +
                                std::to_string(max_specials()));
  std::vector<Node> roots;
  for (uint32_t t : trials) {
    if (t >= batch_.size())
      throw std::invalid_argument("strife: spot trial " + std::to_string(t) + " is not a batch index (batch size " +
                                  std::to_string(batch_.size()) + ")");
    collect_roots(t, roots);
    if (roots.empty() || uf_.is_special(roots.back())) continue;  // nothing to cluster, or rejected
    const Node special = uf_.special_threshold() + static_cast<Node>(special_count_.size());
    uf_.make_singleton(special);
    for (Node r : roots) uf_.unite(special, r);
    special_count_.push_back(1);  // line 13: c.count++
  }
  stats_.spot_clusters = static_cast<uint32_t>(special_count_.size());
  stats_.time_us.spot = micros_since(start);
}

// Alg. 1 lines 19-25 for one transaction: unless it is connected to two or
// more special clusters, merge all its clusters, into the special one if
// there is one. Leaves the transaction's distinct clusters in `roots` and
// returns whether it was fused.
bool Clusterer::fuse_one(uint32_t t, std::vector<Node>& roots) {
  collect_roots(t, roots);
  const auto specials = std::lower_bound(roots.begin(), roots.end(), uf_.special_threshold());
  if (roots.end() - specials > 1) return false;
  if (roots.empty()) return true;
  const Node c = roots.end() - specials == 1 ? roots.back() : roots.front();
  for (Node other : roots)
    if (other != c) uf_.unite(c, other);
  return true;
}

// §3.1.3 Fuse (Alg. 1 lines 18-28), parallel over chunks (§4). Union never
// joins two special clusters, so a concurrent fuse keeps that invariant; a
// transaction whose clusters changed between its finds and its unions may
// end up touching two special clusters, and allocate makes it a residual.
// A transaction connected to several special clusters is skipped and
// counted for every pair of them. Counts are per thread and summed after the
// join, so the hot counters are not shared cache lines; a pair's count is
// one key per skipped transaction, sorted and counted after the join (the
// matrix would be s x s, and s reaches |B| with SpotMode::kAll).
void Clusterer::fuse() {
  const auto start = Clock::now();
  const size_t s = special_count_.size();
  const Node first_special = uf_.special_threshold();
  const size_t members = this->members();
  fuse_counts_.assign(members * s, 0);
  fuse_pairs_.resize(members);
  for (auto& pairs : fuse_pairs_) pairs.clear();
  std::vector<std::vector<uint32_t>>& skipped = fuse_skipped_;
  skipped.resize(members);
  for (auto& list : skipped) list.clear();

  for_chunks(batch_.size(), [&](size_t worker, size_t b, size_t e) {
    uint32_t* count = fuse_counts_.data() + worker * s;
    std::vector<uint64_t>& pairs = fuse_pairs_[worker];
    std::vector<Node> roots;
    for (size_t t = b; t < e; ++t) {
      if (fuse_one(static_cast<uint32_t>(t), roots)) {
        if (!roots.empty() && uf_.is_special(roots.back())) ++count[roots.back() - first_special];  // c.count++
        continue;
      }
      skipped[worker].push_back(static_cast<uint32_t>(t));
      const auto specials = std::lower_bound(roots.begin(), roots.end(), first_special);
      for (auto i = specials; i != roots.end(); ++i)
        for (auto j = i + 1; j != roots.end(); ++j)
          pairs.push_back(uint64_t{*i - first_special} << 32 | (*j - first_special));  // count[i][j]++, i < j
    }
  });

  skipped_.clear();
  std::vector<uint64_t>& keys = pair_scratch_;
  keys.clear();
  for (size_t worker = 0; worker < members; ++worker) {
    const uint32_t* count = fuse_counts_.data() + worker * s;
    for (size_t i = 0; i < s; ++i) special_count_[i] += count[i];
    keys.insert(keys.end(), fuse_pairs_[worker].begin(), fuse_pairs_[worker].end());
    skipped_.insert(skipped_.end(), skipped[worker].begin(), skipped[worker].end());
  }
  std::sort(keys.begin(), keys.end());
  pair_keys_.clear();
  pair_count_.clear();
  for (size_t i = 0; i < keys.size();) {
    size_t j = i;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    pair_keys_.push_back(keys[i]);
    pair_count_.push_back(static_cast<uint32_t>(j - i));
    i = j;
  }
  std::sort(skipped_.begin(), skipped_.end());  // batch order, whatever thread took which chunk
  stats_.multi_special_txns = static_cast<uint32_t>(skipped_.size());
  stats_.time_us.fuse = micros_since(start);
}

// §3.1.4 Merge (Alg. 1 lines 29-33): special clusters i and j are joined
// when count[i][j] >= alpha * (|ci| + |cj| + count[i][j]), with |c| the
// transactions fused into c. The decisions use the counts of the original
// spot clusters, as in the pseudo-code, so they do not depend on each other.
// Line 29 tests every pair (special x special), also pairs no transaction
// shares: for those count = 0 and |ci| + |cj| >= 2 (spot counts each special
// cluster's own transaction), so they pass exactly when alpha = 0, and then
// all special clusters become one ("When α is zero, Strife clusters all
// transactions into a single cluster", §5.6.2). With alpha > 0 only the
// pairs with a count can pass, and those are the ones fuse recorded.
// With fuse_after_merge, the transactions fuse skipped are then fused again
// (in parallel), so that those now connected to a single special cluster
// pull their remaining items into it (see Options::fuse_after_merge).
void Clusterer::merge() {
  const auto start = Clock::now();
  const size_t s = special_count_.size();
  const Node first_special = uf_.special_threshold();
  auto special = [&](uint64_t id) { return first_special + static_cast<Node>(id); };
  if (options_.alpha == 0.0) {
    for (size_t j = 1; j < s; ++j) stats_.merges += uf_.unite_specials(special(0), special(j));
  } else {
    for (size_t p = 0; p < pair_keys_.size(); ++p) {
      const uint64_t i = pair_keys_[p] >> 32, j = pair_keys_[p] & 0xffffffffu;
      const double n1 = pair_count_[p];
      const double n2 = static_cast<double>(special_count_[i]) + special_count_[j] + n1;
      if (n1 >= options_.alpha * n2) stats_.merges += uf_.unite_specials(special(i), special(j));
    }
  }
  stats_.special_clusters = static_cast<uint32_t>(s - stats_.merges);

  if (options_.fuse_after_merge && stats_.merges > 0) {
    std::atomic<uint32_t> fused{0};
    for_chunks(skipped_.size(), [&](size_t, size_t b, size_t e) {
      std::vector<Node> roots;
      uint32_t fused_here = 0;
      for (size_t i = b; i < e; ++i) fused_here += fuse_one(skipped_[i], roots);
      fused.fetch_add(fused_here, std::memory_order_relaxed);
    });
    stats_.fused_after_merge = fused.load();
  }
  stats_.time_us.merge = micros_since(start);
}

// §3.1.5 Allocate (Alg. 1 lines 34-43). In parallel, each transaction finds
// its clusters: exactly one -> that cluster, several -> residual, none (it
// touches no written item, so it conflicts with nothing) -> a unit of its
// own. Then one sequential O(|B|) pass numbers the units in batch order:
// a queue per special cluster and, with pack_nonspecial, every other unit
// appended to the currently smallest queue (see Options); fallback
// clustering (§2, Options::max_cluster_fraction): a queue over the bound
// joins the residuals. Last, the transactions are placed in their queues
// in parallel (below). Its transactions conflict with no other queue's, so
// running them after the conflict-free phase, under CC, stays serializable.
Plan Clusterer::allocate() {
  Plan plan;
  allocate(plan);
  return plan;
}

void Clusterer::allocate(Plan& plan) {
  const auto start = Clock::now();
  const size_t n = batch_.size();
  txn_cluster_.resize(n);
  for_chunks(n, [&](size_t, size_t b, size_t e) {
    std::vector<Node> roots;
    for (size_t t = b; t < e; ++t) {
      collect_roots(static_cast<uint32_t>(t), roots);
      txn_cluster_[t] = roots.empty() ? kNoCluster : roots.size() == 1 ? roots[0] : kMultiCluster;
    }
  });

  // Units: distinct clusters in order of first appearance, plus free
  // transactions. unit_of_txn stays kNone for a residual.
  std::vector<Unit>& units = units_;
  std::vector<uint32_t>& unit_of_txn = unit_of_txn_;
  units.clear();
  unit_of_txn.assign(n, kNone);
  unit_of_node_.resize(uf_.size(), kNone);
  for (size_t t = 0; t < n; ++t) {
    const Node c = txn_cluster_[t];
    if (c == kMultiCluster) continue;
    uint32_t u = c == kNoCluster ? kNone : unit_of_node_[c];
    if (u == kNone) {
      u = static_cast<uint32_t>(units.size());
      units.push_back({c, 0});
      if (c != kNoCluster) unit_of_node_[c] = u;
    }
    ++units[u].size;
    unit_of_txn[t] = u;
  }
  auto has_special = [&](const Unit& u) { return u.root != kNoCluster && uf_.is_special(u.root); };
  const bool pack = options_.pack_nonspecial && std::any_of(units.begin(), units.end(), has_special);

  std::vector<uint32_t>& queue_of_unit = queue_of_unit_;
  std::vector<uint32_t>& queue_size = queue_size_;
  queue_of_unit.resize(units.size());
  queue_size.clear();
  for (size_t u = 0; u < units.size(); ++u) {
    if (pack && !has_special(units[u])) continue;
    queue_of_unit[u] = static_cast<uint32_t>(queue_size.size());
    queue_size.push_back(units[u].size);
  }
  if (pack) {
    using Load = std::pair<uint64_t, uint32_t>;  // (transactions, queue), smallest first
    std::priority_queue<Load, std::vector<Load>, std::greater<>> smallest;
    for (uint32_t q = 0; q < queue_size.size(); ++q) smallest.push({queue_size[q], q});
    for (size_t u = 0; u < units.size(); ++u) {
      if (has_special(units[u])) continue;
      auto [load, q] = smallest.top();
      smallest.pop();
      queue_of_unit[u] = q;
      queue_size[q] += units[u].size;
      smallest.push({load + units[u].size, q});
    }
  }

  // Fallback: renumber the queues that stay; the others' transactions become residuals.
  const double bound = options_.max_cluster_fraction * static_cast<double>(n);
  std::vector<uint32_t>& kept_index = kept_index_;
  std::vector<uint32_t>& kept_size = kept_size_;
  kept_index.assign(queue_size.size(), kNone);
  kept_size.clear();
  for (size_t q = 0; q < queue_size.size(); ++q) {
    if (static_cast<double>(queue_size[q]) > bound) {
      ++stats_.fallback_clusters;
      stats_.fallback_txns += queue_size[q];
      continue;
    }
    kept_index[q] = static_cast<uint32_t>(kept_size.size());
    kept_size.push_back(queue_size[q]);
  }

  const size_t num_queues = kept_size.size();
  plan.queue_offsets.assign(num_queues + 1, 0);
  for (size_t q = 0; q < num_queues; ++q) plan.queue_offsets[q + 1] = plan.queue_offsets[q] + kept_size[q];
  plan.queue_txns.resize(plan.queue_offsets.back());
  plan.residuals.resize(n - plan.queue_offsets.back());

  // Placement, in parallel (§4): the batch in one contiguous chunk per team
  // member, each counting its transactions per slot (the queues, then the
  // residuals as slot num_queues); a prefix sum over the chunks in batch
  // order gives each chunk its first position in every slot, and the chunks
  // place their transactions at once. Every queue and the residuals keep
  // batch order. The prefix sum is O(chunks x slots): with more slots than
  // transactions per chunk (SpotMode::kAll's many queues) one chunk does it.
  const size_t slots = num_queues + 1;
  const size_t chunks = members() * slots <= n ? members() : 1;
  auto slot_of = [&](size_t t) -> uint32_t {
    const uint32_t q = unit_of_txn[t] == kNone ? kNone : kept_index[queue_of_unit[unit_of_txn[t]]];
    return q == kNone ? static_cast<uint32_t>(num_queues) : q;
  };
  std::vector<uint32_t>& position = position_;  // chunk c's next position in slot s: [c * slots + s]
  position.assign(chunks * slots, 0);
  auto over_chunks = [&](auto&& body) {
    if (chunks == 1) return body(size_t{0}, size_t{0}, n);
    team_->run(chunks, [&](size_t, size_t c) { body(c, n * c / chunks, n * (c + 1) / chunks); });
  };
  over_chunks([&](size_t c, size_t b, size_t e) {
    uint32_t* count = position.data() + c * slots;
    for (size_t t = b; t < e; ++t) ++count[slot_of(t)];
  });
  for (size_t slot = 0; slot < slots; ++slot) {
    uint32_t next = slot < num_queues ? plan.queue_offsets[slot] : 0;
    for (size_t c = 0; c < chunks; ++c) next += std::exchange(position[c * slots + slot], next);
  }
  over_chunks([&](size_t c, size_t b, size_t e) {
    uint32_t* next = position.data() + c * slots;
    for (size_t t = b; t < e; ++t) {
      const uint32_t slot = slot_of(t);
      (slot == num_queues ? plan.residuals : plan.queue_txns)[next[slot]++] = static_cast<uint32_t>(t);
    }
  });

  for (const Unit& u : units) {
    if (u.root != kNoCluster) {
      unit_of_node_[u.root] = kNone;
      ++stats_.data_clusters;
    } else {
      ++stats_.free_txns;
    }
  }
  if (!kept_size.empty()) {
    stats_.largest_cluster = *std::max_element(kept_size.begin(), kept_size.end());
    stats_.smallest_cluster = *std::min_element(kept_size.begin(), kept_size.end());
  }
  stats_.cf_clusters = static_cast<uint32_t>(num_queues);
  stats_.residuals = static_cast<uint32_t>(plan.residuals.size());
  stats_.time_us.allocate = micros_since(start);
  plan.stats = stats_;
}

std::optional<Clusterer::Node> Clusterer::cluster_of(GlobalKey key) {
  if (key == kReservedKey) return std::nullopt;
  const Node node = keys_->find(key);
  if (node == KeyTable::kAbsent) return std::nullopt;
  return uf_.find(node);
}

}  // namespace ccb::strife
