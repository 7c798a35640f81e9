// CPU topology as Linux reports it in /sys, for pinning and provenance.
#pragma once

#include <string>
#include <vector>

namespace ccb {

struct CpuInfo {
  int cpu = 0;       // logical CPU id
  int core_key = 0;  // unique per physical core (package * 4096 + core_id)
  int numa_node = 0;
};

struct Topology {
  std::vector<CpuInfo> cpus;  // online CPUs usable by this process
  int physical_cores = 0;
  int numa_nodes = 1;
  int smt_per_core = 1;
  std::string cpu_model;

  static const Topology& get();
  // CPUs in pinning order: one per physical core first, then SMT siblings.
  std::vector<CpuInfo> pinning_order() const;
};

// Pins the calling thread to `cpu`. Returns false if the OS refused.
bool pin_current_thread(int cpu);

}  // namespace ccb
