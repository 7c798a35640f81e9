#include "partitioners/reorder/thread_assign.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "engine/core/local_work.h"  // charge_analysis_probes
#include "engine/core/sim_hooks.h"

namespace ccb::reorder {

namespace {
// Under sim the planning costs virtual time by its work (issue 45 item 8;
// docs/sim.md, "The analysis's cost"): one index_probe per access sorted,
// per co-access pair counted, and per kCellsPerProbe cells of the greedy's
// scans (a candidate's weight test, or one row update: a few loads and adds
// on contiguous arrays, about 2-4 ns natively against the cost table's
// 60 ns index_probe). Natively nothing.
constexpr uint64_t kCellsPerProbe = 16;
}  // namespace

std::vector<std::vector<uint32_t>> assign_to_threads(std::span<const TxnDesc> batch,
                                                     uint32_t threads) {
  if (threads == 0) throw std::invalid_argument("threads: must be >= 1, got 0");
  const uint32_t n = static_cast<uint32_t>(batch.size());

  // Accesses (key, txn, writes?) grouped by key; one entry per (key, txn).
  struct Access {
    GlobalKey key;
    uint32_t txn;
    bool write;
  };
  std::vector<Access> accesses;
  for (uint32_t t = 0; t < n; ++t) {
    for (GlobalKey k : batch[t].read_set) accesses.push_back({k, t, false});
    for (GlobalKey k : batch[t].write_set) accesses.push_back({k, t, true});
  }
  std::sort(accesses.begin(), accesses.end(), [](const Access& a, const Access& b) {
    return std::tie(a.key, a.txn) < std::tie(b.key, b.txn);
  });
  size_t m = 0;  // merge a key listed twice by one transaction
  for (const Access& a : accesses) {
    if (m > 0 && accesses[m - 1].key == a.key && accesses[m - 1].txn == a.txn) {
      accesses[m - 1].write = accesses[m - 1].write || a.write;
    } else {
      accesses[m++] = a;
    }
  }
  accesses.resize(m);
  charge_analysis_probes(accesses.size());

  // Pairwise conflict flags and shared-access counts, n x n, flat.
  std::vector<uint8_t> conflict(size_t{n} * n, 0);
  std::vector<uint32_t> shared(size_t{n} * n, 0);
  for (size_t lo = 0; lo < accesses.size();) {
    size_t hi = lo;
    while (hi < accesses.size() && accesses[hi].key == accesses[lo].key) ++hi;
    charge_analysis_probes((hi - lo) * (hi - lo - 1) / 2);
    for (size_t i = lo; i < hi; ++i) {
      for (size_t j = i + 1; j < hi; ++j) {
        const uint32_t a = accesses[i].txn, b = accesses[j].txn;
        ++shared[size_t{a} * n + b];
        ++shared[size_t{b} * n + a];
        if (accesses[i].write || accesses[j].write) {
          conflict[size_t{a} * n + b] = conflict[size_t{b} * n + a] = 1;
        }
      }
    }
    lo = hi;
  }

  std::vector<uint32_t> c_unassigned(n, 0), c_thread(n), shared_thread(n);
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = 0; b < n; ++b) c_unassigned[a] += conflict[size_t{a} * n + b];
  }
  uint64_t cells = uint64_t{n} * n;  // the c_unassigned sums; then per pick, a scan and an update of n
  std::vector<uint8_t> assigned(n, 0);
  std::vector<std::vector<uint32_t>> plan(threads);
  for (uint32_t th = 0; th < threads; ++th) {
    const uint32_t quota = n / threads + (th < n % threads ? 1 : 0);
    std::fill(c_thread.begin(), c_thread.end(), 0);
    std::fill(shared_thread.begin(), shared_thread.end(), 0);
    for (uint32_t j = 0; j < quota; ++j) {
      uint32_t best = n;
      for (uint32_t t = 0; t < n; ++t) {
        if (assigned[t]) continue;
        if (best == n || std::tie(c_thread[t], shared_thread[t], c_unassigned[t]) >
                             std::tie(c_thread[best], shared_thread[best], c_unassigned[best])) {
          best = t;
        }
      }
      assigned[best] = 1;
      plan[th].push_back(best);
      for (uint32_t t = 0; t < n; ++t) {  // best leaves U and joins S
        const size_t bt = size_t{t} * n + best;
        c_unassigned[t] -= conflict[bt];
        c_thread[t] += conflict[bt];
        shared_thread[t] += shared[bt];
      }
      cells += 2 * uint64_t{n};
    }
  }
  charge_analysis_probes(cells / kCellsPerProbe);
  return plan;
}

}  // namespace ccb::reorder
