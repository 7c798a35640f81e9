#include "engine/core/topology.h"

#include <glog/logging.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

namespace ccb {

namespace {
int read_int(const std::string& path, int fallback) {
  std::ifstream f(path);
  int v;
  return (f >> v) ? v : fallback;
}
std::string read_cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}
}  // namespace

const Topology& Topology::get() {
  static const Topology topo = [] {
    Topology t;
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    const bool numa_ok = numa_available() != -1;
    std::set<int> cores;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &set)) continue;
      const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
      CpuInfo info;
      info.cpu = c;
      info.core_key = read_int(base + "physical_package_id", 0) * 4096 + read_int(base + "core_id", c);
      info.numa_node = numa_ok ? std::max(0, numa_node_of_cpu(c)) : 0;
      cores.insert(info.core_key);
      t.cpus.push_back(info);
    }
    t.physical_cores = static_cast<int>(cores.size());
    t.numa_nodes = numa_ok ? numa_num_configured_nodes() : 1;
    t.smt_per_core = t.physical_cores ? static_cast<int>(t.cpus.size()) / t.physical_cores : 1;
    t.cpu_model = read_cpu_model();
    return t;
  }();
  return topo;
}

std::vector<CpuInfo> Topology::pinning_order() const {
  // Rank each CPU by how many earlier CPUs share its core: rank 0 first.
  std::map<int, int> seen;
  std::vector<std::pair<int, CpuInfo>> ranked;
  for (const auto& c : cpus) ranked.push_back({seen[c.core_key]++, c});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<CpuInfo> order;
  for (const auto& r : ranked) order.push_back(r.second);
  return order;
}

bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  // A cgroup's cpuset can forbid the CPU: the worker then runs unpinned,
  // which changes what a scaling run measures, so say so.
  if (err != 0) LOG(WARNING) << "--pin: cannot pin a worker to CPU " << cpu << " (" << std::strerror(err) << "); it runs unpinned";
  return err == 0;
}

}  // namespace ccb
