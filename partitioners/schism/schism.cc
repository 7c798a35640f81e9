#include "partitioners/schism/schism.h"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/clock.h"
#include "partitioners/residual.h"

namespace ccb::schism {

void SchismPartitioner::partition(std::span<const TxnDesc> bundle, unsigned k, Partitioning& out) {
  const uint64_t t0 = now_ns();
  const uint32_t n = static_cast<uint32_t>(bundle.size());
  graph_ = {};

  // 1. Vertices: records of the bundle that some transaction writes and at
  // least two access (schism.h). Accesses sorted by key, one group per record.
  const std::vector<KeyAccess> acc = accesses_by_key(bundle);
  std::vector<idx_t> vwgt;
  std::vector<std::pair<uint32_t, uint32_t>> member;  // (txn, vertex)
  for (size_t lo = 0; lo < acc.size();) {
    size_t hi = lo;
    bool written = false;
    for (; hi < acc.size() && acc[hi].key == acc[lo].key; ++hi) written |= acc[hi].write;
    if (written && hi - lo >= 2) {
      const uint32_t v = static_cast<uint32_t>(vwgt.size());
      vwgt.push_back(static_cast<idx_t>(hi - lo));  // §4.1: weight = transactions accessing the record
      for (size_t i = lo; i < hi; ++i) member.emplace_back(acc[i].txn, v);
    }
    lo = hi;
  }
  const uint32_t nv = static_cast<uint32_t>(vwgt.size());
  // Each transaction's vertices, contiguous (counting sort by transaction).
  std::vector<uint32_t> first(n + 1, 0), verts(member.size());
  for (const auto& [t, v] : member) ++first[t + 1];
  for (uint32_t t = 0; t < n; ++t) first[t + 1] += first[t];
  {
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (const auto& [t, v] : member) verts[fill[t]++] = v;
  }

  // Edges: every pair of records of a transaction; the weight of an edge is
  // the number of transactions that access both (§4.1).
  std::vector<uint64_t> pairs;
  for (uint32_t t = 0; t < n; ++t) {
    for (uint32_t i = first[t]; i < first[t + 1]; ++i)
      for (uint32_t j = i + 1; j < first[t + 1]; ++j) {
        const uint32_t a = std::min(verts[i], verts[j]), b = std::max(verts[i], verts[j]);
        pairs.push_back(uint64_t{a} << 32 | b);
      }
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<uint64_t> edge;   // distinct pairs
  std::vector<idx_t> weight;    // their multiplicities
  for (uint64_t p : pairs) {
    if (!edge.empty() && edge.back() == p) ++weight.back();
    else edge.push_back(p), weight.push_back(1);
  }
  pairs = {};
  graph_.vertices = nv;
  graph_.edges = edge.size();

  // 2. METIS k-way on the symmetric CSR form of the graph.
  std::vector<idx_t> vpart(nv, 0);
  if (k > 1 && nv > 0 && nv <= k) {
    for (uint32_t v = 0; v < nv; ++v) vpart[v] = static_cast<idx_t>(v);  // one record per part
  } else if (k > 1 && nv > 0) {
    std::vector<idx_t> xadj(nv + 1, 0), adjncy(2 * edge.size()), adjwgt(2 * edge.size());
    for (uint64_t e : edge) ++xadj[(e >> 32) + 1], ++xadj[(e & 0xFFFFFFFFu) + 1];
    for (uint32_t v = 0; v < nv; ++v) xadj[v + 1] += xadj[v];
    std::vector<idx_t> fill(xadj.begin(), xadj.end() - 1);
    for (size_t i = 0; i < edge.size(); ++i) {
      const idx_t a = static_cast<idx_t>(edge[i] >> 32), b = static_cast<idx_t>(edge[i] & 0xFFFFFFFFu);
      adjncy[fill[a]] = b, adjwgt[fill[a]++] = weight[i];
      adjncy[fill[b]] = a, adjwgt[fill[b]++] = weight[i];
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(options_.seed & 0x7FFFFFFF);
    options[METIS_OPTION_UFACTOR] = static_cast<idx_t>(std::lround((options_.imbalance - 1.0) * 1000));
    idx_t nvtxs = static_cast<idx_t>(nv), ncon = 1, nparts = static_cast<idx_t>(k), objval = 0;
    const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                       adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, vpart.data());
    if (rc != METIS_OK) throw std::runtime_error("schism: METIS_PartGraphKway failed with code " + std::to_string(rc));
    graph_.cut = static_cast<uint64_t>(objval);
  }

  // 3. Each transaction to the part holding most of its records (§4.3).
  MajorityRouter router(k);
  std::vector<uint32_t> part_of(n);
  for (uint32_t t = 0; t < n; ++t) {
    for (uint32_t i = first[t]; i < first[t + 1]; ++i) router.vote(static_cast<uint32_t>(vpart[verts[i]]));
    part_of[t] = router.decide();
  }
  // The partitions, without a residual (Schism has none: TSKD §6.1).
  parts_of_assignment(part_of, k, out);
  if (hand_over_) record_graph(acc, n, out);  // step 1's records, for TSgen
  out.partition_us = static_cast<double>(now_ns() - t0) / 1e3;
}

}  // namespace ccb::schism
