#include "partitioners/reorder/fvs.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>

namespace ccb::reorder {
namespace {

using Clock = std::chrono::steady_clock;

struct Deadline {
  bool enabled = false;
  Clock::time_point at;
  bool passed() const { return enabled && Clock::now() >= at; }
};

// Is the subgraph induced by the vertex mask `rest` acyclic? Peels vertices
// with no in- or no out-edge inside `rest` until none is left (acyclic) or
// no vertex can be peeled (a cycle remains).
bool acyclic(uint64_t rest, const uint64_t* in_mask, const uint64_t* out_mask) {
  bool peeled = true;
  while (rest != 0 && peeled) {
    peeled = false;
    for (uint64_t m = rest; m != 0; m &= m - 1) {
      const int v = std::countr_zero(m);
      if ((in_mask[v] & rest) == 0 || (out_mask[v] & rest) == 0) {
        rest &= ~(uint64_t{1} << v);
        peeled = true;
      }
    }
  }
  return rest == 0;
}

// Exact minimum FVS of one SCC by brute force (§5.1 "search"): try all
// vertex subsets in increasing size and keep the first whose removal leaves
// the component acyclic. The minimum FVS of a graph is the union of minimum
// FVSs of its SCCs, so searching per SCC is still exact. Returns false when
// the component is larger than max_size or the deadline passes.
bool exact_component_fvs(const DepGraph& g, std::span<const uint32_t> members,
                         const Sccs& sccs, uint32_t max_size, const Deadline& deadline,
                         std::vector<uint32_t>& local_id, std::vector<uint32_t>& found) {
  const uint32_t n = static_cast<uint32_t>(members.size());
  if (n > max_size || n > kMaxExactComponent) return false;
  const uint32_t c = sccs.component[members[0]];
  for (uint32_t i = 0; i < n; ++i) local_id[members[i]] = i;
  uint64_t in_mask[kMaxExactComponent] = {}, out_mask[kMaxExactComponent] = {};
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t w : g.out(members[i])) {
      if (sccs.component[w] != c) continue;
      out_mask[i] |= uint64_t{1} << local_id[w];
      in_mask[local_id[w]] |= uint64_t{1} << i;
    }
  }
  const uint64_t all = (uint64_t{1} << n) - 1;
  uint64_t tested = 0;
  for (uint32_t size = 1; size < n; ++size) {
    // Gosper's hack: the next larger integer with the same number of bits.
    for (uint64_t s = (uint64_t{1} << size) - 1; (s >> n) == 0;) {
      if (acyclic(all & ~s, in_mask, out_mask)) {
        for (uint64_t m = s; m != 0; m &= m - 1) found.push_back(members[std::countr_zero(m)]);
        return true;
      }
      if ((++tested & 1023) == 0 && deadline.passed()) return false;
      const uint64_t low = s & (~s + 1);
      const uint64_t ripple = s + low;
      s = ripple | (((ripple ^ s) / low) >> 2);
    }
  }
  return false;  // unreachable for a strongly connected component (n >= 2)
}

// Algorithm 1 (§4.1): trim, split into SCCs, remove the top-ranked vertex of
// every SCC with more than one vertex, repeat on what is left. Recursing on
// S' = S - v per component (GreedyComponent) is the same as one round over
// all components, since components never merge when vertices are removed.
// A vertex is ranked by its degrees inside its own SCC, as
// GreedyComponent(S, P) ranks vertices of the graph S.
// SCCs of size <= exact_up_to are solved exactly instead (§4.1 "Hybrid
// Algorithm"); with all_exact, a larger SCC counts as a capped search.
FvsResult scc_based(const DepGraph& g, Policy policy, uint64_t seed, uint32_t exact_up_to,
                    bool all_exact, const Deadline& deadline) {
  const uint32_t n = g.num_nodes;
  FvsResult result;
  ResidualGraph rg(g);
  std::vector<uint32_t> in_c(n), out_c(n), local_id(n), found;
  SccFinder finder;
  for (;;) {
    rg.trim();
    if (rg.size() == 0) break;
    const Sccs& sccs = finder.run(g, rg.alive_mask());
    std::fill(in_c.begin(), in_c.end(), 0);
    std::fill(out_c.begin(), out_c.end(), 0);
    for (uint32_t v = 0; v < n; ++v) {
      if (!rg.alive(v)) continue;
      for (uint32_t w : g.out(v)) {
        if (rg.alive(w) && sccs.component[w] == sccs.component[v]) {
          ++out_c[v];
          ++in_c[w];
        }
      }
    }
    for (uint32_t c = 0; c < sccs.count(); ++c) {
      const std::span<const uint32_t> members = sccs.members_of(c);
      if (members.size() < 2) continue;  // Algorithm 1 lines 10-12
      if (members.size() <= exact_up_to) {
        found.clear();
        if (exact_component_fvs(g, members, sccs, exact_up_to, deadline, local_id, found)) {
          for (uint32_t v : found) {
            rg.remove(v);
            result.fvs.push_back(v);
          }
          continue;
        }
        result.search_capped = true;  // fall back to one greedy step
      } else if (all_exact) {
        result.search_capped = true;
      }
      uint32_t best = members[0];
      Rank best_rank;
      for (size_t i = 0; i < members.size(); ++i) {  // Algorithm 1 line 13
        const uint32_t v = members[i];
        const Rank r = rank(policy, {in_c[v], out_c[v], g.restarts[v], g.priority[v],
                                     random_key(seed, v)});
        if (i == 0 || ranks_before(r, v, best_rank, best)) {
          best = v;
          best_rank = r;
        }
      }
      rg.remove(best);  // Algorithm 1 line 14
      result.fvs.push_back(best);
    }
  }
  return result;
}

// Algorithm 2 (§4.1): trim; while vertices remain, Quickselect the k
// top-ranked vertices by their degrees in the residual graph, put them into
// the FVS, remove them and trim again. With no more than k vertices left the
// multi factor drops to 1 (lines 5-8, "no more than k nodes" in the text).
FvsResult sort_based(const DepGraph& g, Policy policy, uint64_t seed, uint32_t k) {
  FvsResult result;
  ResidualGraph rg(g);
  std::vector<uint32_t> candidates;
  std::vector<Rank> ranks(g.num_nodes);
  auto before = [&](uint32_t a, uint32_t b) { return ranks_before(ranks[a], a, ranks[b], b); };
  rg.trim();
  while (rg.size() > 0) {
    const uint32_t take = rg.size() <= k ? 1 : k;
    candidates.clear();
    for (uint32_t v = 0; v < g.num_nodes; ++v) {
      if (!rg.alive(v)) continue;
      candidates.push_back(v);
      ranks[v] = rank(policy, {rg.in_degree(v), rg.out_degree(v), g.restarts[v], g.priority[v],
                               random_key(seed, v)});
    }
    // std::nth_element is Quickselect: the `take` best end up in front.
    std::nth_element(candidates.begin(), candidates.begin() + (take - 1), candidates.end(),
                     before);
    std::sort(candidates.begin(), candidates.begin() + take, before);
    for (uint32_t i = 0; i < take; ++i) {
      rg.remove(candidates[i]);
      result.fvs.push_back(candidates[i]);
    }
    rg.trim();
  }
  return result;
}

constexpr std::string_view kFixedNames[] = {"search",     "random",     "random_3",
                                            "greedy_max", "greedy_sum", "greedy_prod",
                                            "greedy_sort"};

}  // namespace

std::string algorithm_names() {
  std::string s;
  for (std::string_view n : kFixedNames) {
    s += n;
    s += ", ";
  }
  return s + "hybrid_<m> (1 <= m <= " + std::to_string(kMaxExactComponent) + ")";
}

FvsConfig fvs_config_from_name(std::string_view name) {
  FvsConfig c;  // prod-degree, k = 2
  if (name == "search") {
    c.algorithm = Algorithm::kSearch;
  } else if (name == "random" || name == "random_3") {
    c.algorithm = Algorithm::kGreedyScc;
    c.policy = Policy::kRandom;
    c.tries = name == "random" ? 1 : 3;
  } else if (name == "greedy_max" || name == "greedy_sum" || name == "greedy_prod") {
    c.algorithm = Algorithm::kGreedyScc;
    c.policy = name == "greedy_max"   ? Policy::kMaxDegree
               : name == "greedy_sum" ? Policy::kSumDegree
                                      : Policy::kProdDegree;
  } else if (name == "greedy_sort") {
    c.algorithm = Algorithm::kGreedySort;
  } else if (name.starts_with("hybrid_")) {
    const std::string_view digits = name.substr(7);
    uint32_t m = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), m);
    if (ec != std::errc() || end != digits.data() + digits.size() || m < 1 ||
        m > kMaxExactComponent) {
      throw std::invalid_argument("algorithm: '" + std::string(name) +
                                  "' has a bad threshold; allowed: " + algorithm_names());
    }
    c.algorithm = Algorithm::kHybrid;
    c.hybrid_threshold = m;
  } else {
    throw std::invalid_argument("algorithm: unknown value '" + std::string(name) +
                                "'; allowed: " + algorithm_names());
  }
  return c;
}

void validate(const FvsConfig& c) {
  auto fail = [](const std::string& msg) { throw std::invalid_argument(msg); };
  if (c.multi_factor < 1) fail("multi_factor (k): must be >= 1, got " + std::to_string(c.multi_factor));
  if (c.tries < 1) fail("tries: must be >= 1, got " + std::to_string(c.tries));
  if (c.tries > 1 && c.policy != Policy::kRandom) {
    fail("tries: " + std::to_string(c.tries) +
         " > 1 is only meaningful with policy random (a deterministic policy gives the same FVS "
         "every try)");
  }
  if (c.search.max_component_size < 1 || c.search.max_component_size > kMaxExactComponent) {
    fail("search.max_component_size: must be in [1, " + std::to_string(kMaxExactComponent) +
         "], got " + std::to_string(c.search.max_component_size));
  }
  if (!(c.search.time_limit_ms >= 0) || !std::isfinite(c.search.time_limit_ms)) {
    fail("search.time_limit_ms: must be a finite value >= 0 (0 = no limit)");
  }
  if (c.algorithm == Algorithm::kHybrid &&
      (c.hybrid_threshold < 1 || c.hybrid_threshold > c.search.max_component_size)) {
    fail("hybrid_threshold (m): must be in [1, search.max_component_size = " +
         std::to_string(c.search.max_component_size) + "], got " +
         std::to_string(c.hybrid_threshold));
  }
}

FvsResult find_fvs(const DepGraph& g, const FvsConfig& c) {
  validate(c);
  Deadline deadline;
  if (c.search.time_limit_ms > 0) {
    deadline.enabled = true;
    deadline.at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double, std::milli>(c.search.time_limit_ms));
  }
  auto run = [&](uint64_t seed) {
    switch (c.algorithm) {
      case Algorithm::kGreedyScc:
        return scc_based(g, c.policy, seed, 0, false, deadline);
      case Algorithm::kHybrid:
        return scc_based(g, c.policy, seed, c.hybrid_threshold, false, deadline);
      case Algorithm::kSearch:
        return scc_based(g, c.policy, seed, c.search.max_component_size, true, deadline);
      case Algorithm::kGreedySort:
        return sort_based(g, c.policy, seed, c.multi_factor);
    }
    throw std::logic_error("find_fvs: unhandled algorithm");
  };
  FvsResult best = run(c.seed);
  for (uint32_t t = 1; t < c.tries; ++t) {  // random_3 (§5.1): keep the smallest
    FvsResult r = run(c.seed + t);
    if (r.fvs.size() < best.fvs.size()) best = std::move(r);
  }
  return best;
}

std::vector<uint32_t> commit_order(const DepGraph& g, std::span<const uint32_t> fvs) {
  const uint32_t n = g.num_nodes;
  std::vector<uint8_t> aborted(n, 0);
  for (uint32_t v : fvs) {
    if (v >= n) throw std::invalid_argument("commit_order: fvs names node " + std::to_string(v) +
                                            " >= num_nodes = " + std::to_string(n));
    aborted[v] = 1;
  }
  std::vector<uint32_t> pending_in(n, 0);
  uint32_t remaining = 0;
  for (uint32_t v = 0; v < n; ++v) {
    if (aborted[v]) continue;
    ++remaining;
    for (uint32_t u : g.in(v)) pending_in[v] += aborted[u] ? 0 : 1;
  }
  // Kahn's algorithm: a transaction is ready once every t' with t' -> t
  // (t' read what t writes) has been placed before it.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t v = 0; v < n; ++v) {
    if (!aborted[v] && pending_in[v] == 0) ready.push(v);
  }
  std::vector<uint32_t> order;
  order.reserve(remaining);
  while (!ready.empty()) {
    const uint32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (uint32_t w : g.out(v)) {
      if (!aborted[w] && --pending_in[w] == 0) ready.push(w);
    }
  }
  if (order.size() != remaining) {
    throw std::logic_error("commit_order: the graph without the given FVS still has a cycle");
  }
  return order;
}

}  // namespace ccb::reorder
