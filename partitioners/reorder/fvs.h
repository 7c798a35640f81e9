// Feedback vertex set (FVS) algorithms and the commit order of a batch
// (Ding et al., PVLDB 2018, §3.2 and §4.1; evaluated in §5.1, Figs 5-6).
//
// The FVS is the set of transactions to abort; removing it leaves an acyclic
// dependency graph whose topological order is the commit (validation) order.
//
// Algorithms, by the names the paper's figures use (fvs_config_from_name):
//   search       exact minimum FVS by brute force (per SCC), with caps
//   random       SCC-based greedy with a random ranking
//   random_3     random run three times (different seeds), smallest FVS kept
//   greedy_max   SCC-based greedy (Algorithm 1), max-degree policy
//   greedy_sum   SCC-based greedy, sum-degree policy
//   greedy_prod  SCC-based greedy, prod-degree policy
//   greedy_sort  sort-based greedy (Algorithm 2), prod-degree, multi factor 2
//   hybrid_<m>   SCC-based greedy with exact search on SCCs of size <= m
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "partitioners/reorder/graph.h"
#include "partitioners/reorder/policy.h"

namespace ccb::reorder {

enum class Algorithm {
  kGreedyScc,   // Algorithm 1 (§4.1 "SCC-Based Greedy Algorithm")
  kGreedySort,  // Algorithm 2 (§4.1 "Sort-Based Greedy Algorithm")
  kHybrid,      // §4.1 "Hybrid Algorithm"
  kSearch,      // §5.1 "search is an accurate, brute force search algorithm"
};

// The exact search works on one SCC at a time with 64-bit vertex masks.
inline constexpr uint32_t kMaxExactComponent = 63;

struct SearchLimits {
  // SCCs larger than this are not searched exactly (<= kMaxExactComponent).
  uint32_t max_component_size = kMaxExactComponent;
  // Wall-clock budget of all exact searches in one find_fvs call; 0 = none.
  double time_limit_ms = 0;
};

struct FvsConfig {
  Algorithm algorithm = Algorithm::kGreedySort;  // the paper's default (§5)
  Policy policy = Policy::kProdDegree;
  uint32_t multi_factor = 2;       // k of greedy_sort, >= 1
  uint32_t hybrid_threshold = 20;  // m of hybrid_m, 1 .. max_component_size
  uint32_t tries = 1;              // > 1 only with Policy::kRandom (random_3 = 3);
                                   // try t uses seed + t, the smallest FVS wins
  uint64_t seed = 1;               // seeds Policy::kRandom
  SearchLimits search;             // used by kSearch and kHybrid
};

// Maps a figure name (above) to its configuration. Throws
// std::invalid_argument naming the field "algorithm" and the allowed names.
FvsConfig fvs_config_from_name(std::string_view name);
std::string algorithm_names();

// Throws std::invalid_argument naming the offending field and its range.
void validate(const FvsConfig& config);

struct FvsResult {
  std::vector<uint32_t> fvs;   // nodes to abort, in the order they were chosen
  bool search_capped = false;  // an exact search hit a cap and a greedy step
                               // replaced it: the FVS may not be minimum
};

// REQUIRES: validate(config) passes (checked; throws otherwise).
FvsResult find_fvs(const DepGraph& g, const FvsConfig& config);

// A topological order of g without the fvs nodes: for every edge t' -> t,
// t' comes before t (§3.2; the text's "no outgoing edge" wording is inverted
// for its own edge direction). Among ready nodes, the lowest id (arrival
// order) goes first. Throws std::logic_error if the rest still has a cycle.
std::vector<uint32_t> commit_order(const DepGraph& g, std::span<const uint32_t> fvs);

}  // namespace ccb::reorder
