// Strife clustering: partitions a batch of transaction descriptions into
// conflict-free (CF) clusters and a residual set.
// Paper: Prasaad, Cheung, Suciu, "Handling Highly Contended OLTP Workloads
// Using Fast Dynamic Partitioning", SIGMOD 2020; §3 (Algorithm 1) and §4
// (concurrent union-find, Figure 4). README.md in this folder describes the
// algorithm, the statistics and where this implementation fills gaps.
//
// Guarantee (§2): two transactions in different CF clusters never conflict
// (neither's write set meets the other's read or write set); every
// transaction of the batch is in exactly one CF cluster or the residuals.
//
// Thread safety: a Clusterer is used by one caller at a time. Prepare, fuse
// and allocate run on a team (§4: equal chunks of the batch): the bundle
// executor's workers (use_team(); the caller is their leader, worker 0), or,
// without them and with Options::threads > 1, a team with threads of its own
// (OwnTeam, engine/core/phase_team.h); spot and the merge decisions run on
// the calling thread.
//
// REQUIRES: no key equals kReservedKey; fewer than 2^31 accesses per batch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/core/phase_team.h"
#include "engine/core/txn_desc.h"
#include "partitioners/strife/union_find.h"

namespace ccb::strife {

// The one key value the clusterer cannot take (it marks empty hash slots):
// table 255, local key 2^56 - 1.
inline constexpr GlobalKey kReservedKey = ~GlobalKey{0};

// Upper bound on Options::k: merge keeps a k x k pair-count matrix (§3.3).
inline constexpr uint32_t kMaxK = 1024;
inline constexpr unsigned kMaxThreads = 1024;

// Which transactions spot tries (§3.1.2).
enum class SpotMode : uint8_t {
  kSample,  // k uniformly random trials: Strife's own spot (§3.1.2, Alg. 1 line 5 "Pick a random transaction")
  // Every transaction of the batch, in batch order: the spot of the public
  // STRIFE implementation that the TSKD paper ran as its STRIFE baseline
  // (TSKD §6.1, ref. [4] github.com/zhr1201/STRIFE-public, txn/clusterer.cc
  // Spot(): the k-sample is commented out for a loop over the whole batch).
  // Up to |B| special clusters; k is not used.
  kAll,
};

struct Options {
  uint32_t k = 100;      // spot trials, §3.1.2 ("k = 100 for 30 cores"); in [1, kMaxK]
  SpotMode spot = SpotMode::kSample;
  double alpha = 0.2;    // residual parameter, §3.1.4 (paper default 0.2); in [0, 1] (0: one cluster)
  unsigned threads = 1;  // threads for prepare, fuse, allocate (§4) without use_team(); in [1, kMaxThreads]
  uint64_t seed = 1;     // spot sampling; call i of a Clusterer uses a stream derived from (seed, i)
  // Allocate (§3.1.5): append each conflict-free unit that has no special
  // cluster (a non-special data cluster, or a transaction that touches no
  // written item) to the currently smallest special cluster's queue, so the
  // number of CF clusters is the number of special clusters, as in the
  // paper's Fig. 5 and Fig. 10b. false: Algorithm 1 literally, one queue per
  // data cluster (and one per such transaction).
  bool pack_nonspecial = true;
  // Merge (§3.1.4): after joining special clusters, fuse again the
  // transactions that fuse skipped, so that "transactions connected to ci and
  // cj can now be classified into a conflict-free cluster". In Algorithm 1 as
  // printed their other items stay in their own clusters, which keeps them
  // residual whenever they touch an item no fused transaction touched (e.g.
  // YCSB's cold keys; Fig. 5 reports 0 residuals at theta 0.99 after 48 spot
  // clusters were merged into 30). false: Algorithm 1 literally.
  bool fuse_after_merge = true;
  // Fallback clustering (§2): a CF cluster (queue) holding more than this
  // fraction of the batch goes to the residuals, which run on every core
  // under CC, instead of running serially on one core. In [0, 1]; 1: never
  // (the default here; the front-end's rule is strife_frontend.h,
  // default_max_cluster_fraction). Queues are compared after packing.
  double max_cluster_fraction = 1.0;
};

// Throws std::invalid_argument naming the field and its allowed values.
void validate(const Options& options);

struct StepTimes {  // microseconds, wall clock
  double prepare = 0, spot = 0, fuse = 0, merge = 0, allocate = 0;
  double total() const { return prepare + spot + fuse + merge + allocate; }
};

struct Stats {
  uint32_t batch_size = 0;
  uint64_t active_items = 0;        // items written by some transaction (§3.1.1)
  uint32_t spot_clusters = 0;       // special clusters created by spot (Fig. 5 row a)
  uint32_t special_clusters = 0;    // distinct special clusters after merge
  uint32_t merges = 0;              // special-cluster pairs joined by merge
  uint32_t multi_special_txns = 0;  // fuse: transactions connected to >= 2 special clusters (skipped)
  uint32_t fused_after_merge = 0;   // skipped transactions fused after merge (fuse_after_merge)
  uint32_t data_clusters = 0;       // distinct data clusters holding an allocated transaction
  uint32_t free_txns = 0;           // transactions touching no written item
  uint32_t cf_clusters = 0;         // queues in the worklist (Fig. 5 row b), after fallback
  uint32_t fallback_clusters = 0;   // queues over max_cluster_fraction, sent to the residuals
  uint32_t fallback_txns = 0;       // their transactions (counted in residuals too)
  uint32_t largest_cluster = 0;     // transactions in the largest / smallest queue of the worklist (0: none)
  uint32_t smallest_cluster = 0;
  uint32_t residuals = 0;           // Fig. 5 row d (with the fallback transactions)
  StepTimes time_us;
};

// The output of one batch: queues (CF clusters) and residuals, as indices
// into the batch. Each queue lists its transactions in batch order.
struct Plan {
  std::vector<uint32_t> queue_offsets{0};  // queue i is queue_txns[offsets[i], offsets[i+1])
  std::vector<uint32_t> queue_txns;
  std::vector<uint32_t> residuals;  // batch order
  Stats stats;

  size_t num_queues() const { return queue_offsets.size() - 1; }
  std::span<const uint32_t> queue(size_t i) const {
    return {queue_txns.data() + queue_offsets[i], queue_txns.data() + queue_offsets[i + 1]};
  }
};

class Clusterer {
 public:
  using Node = ConcurrentUnionFind::Node;

  explicit Clusterer(const Options& options);  // validates (throws std::invalid_argument)
  ~Clusterer();
  Clusterer(const Clusterer&) = delete;
  Clusterer& operator=(const Clusterer&) = delete;

  // Algorithm 1 end to end: prepare, spot (k random trials), fuse, merge,
  // allocate. `batch` is only read during the call.
  Plan cluster(std::span<const TxnDesc> batch);
  // The same into `out`, whose vectors keep their capacity from batch to
  // batch (the bundle executor's front-end: no per-batch allocation).
  void cluster(std::span<const TxnDesc> batch, Plan& out);

  // The five steps, for tests and worked examples; call them in this order.
  // REQUIRES: `batch` outlives the allocate() call.
  void prepare(std::span<const TxnDesc> batch);
  void spot();                                 // Options::spot: k random trials, or every transaction
  // One trial per listed batch index; at most k (kSample) or |B| (kAll) trials.
  void spot(std::span<const uint32_t> trials);
  void fuse();
  void merge();
  Plan allocate();
  void allocate(Plan& out);  // into `out`, reusing its capacity

  // The parallel steps run on `team` from now on (the bundle executor's
  // workers: BundleFrontend::use_team); the caller must be its leader.
  // REQUIRES: `team` outlives the clusterer's calls.
  void use_team(PhaseTeam& team);

  // Between steps: the data cluster (root node) of an item, or nullopt if
  // the item is not active (no transaction of the batch writes it).
  std::optional<Node> cluster_of(GlobalKey key);
  bool is_special(Node cluster) const { return uf_.is_special(cluster); }

 private:
  class KeyTable;  // written key -> node (clusterer.cc)

  // Runs fn(worker, begin, end) over equal chunks of [0, n); worker <
  // members() identifies the thread (for per-thread scratch).
  void for_chunks(size_t n, const PhaseTeam::RangeBody& fn);
  // The team's size (1 without a team).
  size_t members() const { return team_ != nullptr ? team_->size() : 1; }
  // The distinct clusters (roots) of transaction t, sorted; special ones last.
  void collect_roots(uint32_t t, std::vector<Node>& roots);
  bool fuse_one(uint32_t t, std::vector<Node>& roots);
  // Special nodes prepare makes room for: k, or the batch size with SpotMode::kAll.
  size_t max_specials() const { return options_.spot == SpotMode::kAll ? batch_.size() : options_.k; }

  Options options_;
  PhaseTeam* team_ = nullptr;    // use_team()'s, else own_'s (null: one thread, no team)
  std::unique_ptr<OwnTeam> own_;  // without use_team() and with threads > 1
  std::unique_ptr<KeyTable> keys_;
  ConcurrentUnionFind uf_;
  uint64_t calls_ = 0;

  // Per batch (reused between batches).
  std::span<const TxnDesc> batch_;
  std::vector<uint32_t> nbr_begin_;  // transaction t's active items: nbrs_[nbr_begin_[t], +nbr_count_[t])
  std::vector<uint32_t> nbr_count_;
  std::vector<Node> nbrs_;
  std::vector<uint32_t> special_count_;  // Alg. 1 "c.count", per special id
  // Alg. 1 "count[i][j]" for the pairs i < j that some skipped transaction
  // shares (the others are 0), sorted by (i, j): pair_keys_ holds i << 32 | j.
  // Sparse, since with SpotMode::kAll there are up to |B| special clusters.
  std::vector<uint64_t> pair_keys_;
  std::vector<uint32_t> pair_count_;
  std::vector<uint32_t> fuse_counts_;              // fuse: per-thread special_count_, summed after the join
  std::vector<std::vector<uint64_t>> fuse_pairs_;  // fuse: per-thread pair keys, one per skipped transaction's pair
  std::vector<std::vector<uint32_t>> fuse_skipped_;  // fuse: per-thread skipped transactions
  std::vector<uint64_t> pair_scratch_;               // fuse: every thread's pair keys, sorted
  std::vector<uint32_t> skipped_;        // fuse: transactions connected to several special clusters
  std::vector<Node> txn_cluster_;        // allocate: a root, kNoCluster or kMultiCluster
  std::vector<uint32_t> unit_of_node_;   // allocate scratch, all kNone between batches
  // Allocate's other scratch, kept between batches for its capacity: the
  // units (a cluster or a free transaction: root, size), each transaction's
  // unit, each unit's queue, the queues' sizes, the kept queues' index and
  // size after fallback, and the placement's positions (per chunk and slot).
  struct Unit {
    Node root;
    uint32_t size;
  };
  std::vector<Unit> units_;
  std::vector<uint32_t> unit_of_txn_, queue_of_unit_, queue_size_, kept_index_, kept_size_, position_;
  Stats stats_;
};

}  // namespace ccb::strife
