#include "engine/stats/provenance.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <map>
#include <set>

#include "engine/core/topology.h"
#include "engine/core/json.h"

namespace ccb {

long peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss * 1024L;
}

void write_build_info(JsonWriter& w, std::string_view cc) {
  const BuildInfo& b = build_info();
  w.key("compile").begin_object();
  if (!cc.empty()) w.key("cc").value(cc);
  w.key("build_type").value(b.build_type);
  w.key("sanitize").value(b.sanitize);
  w.key("native").value(b.native);
  w.end_object();
}

void write_provenance(JsonWriter& w, int threads, const std::vector<int>& worker_cpus) {
  const BuildInfo& b = build_info();
  const Topology& t = Topology::get();
  w.key("git_revision").value(b.git_revision);
  w.key("git_dirty").value(b.git_dirty);
  w.key("compiler").value(b.compiler);
  w.key("cxx_flags").value(b.cxx_flags);
  w.key("build_type").value(b.build_type);
  w.key("sanitize").value(b.sanitize);
  w.key("native").value(b.native);
  w.key("cpu_model").value(t.cpu_model);
  w.key("logical_cpus").value(static_cast<int>(t.cpus.size()));
  w.key("physical_cores").value(t.physical_cores);
  w.key("smt_siblings").value(t.smt_per_core);
  w.key("numa_nodes").value(t.numa_nodes);
  utsname u{};
  uname(&u);
  w.key("hostname").value(u.nodename);
  w.key("kernel").value(std::string(u.sysname) + " " + u.release);
  char when[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  w.key("started_utc").value(when);

  w.key("pinned").value(!worker_cpus.empty());
  w.key("workers_shared_physical_core");
  if (!worker_cpus.empty()) {
    std::map<int, int> core_of;
    for (const auto& c : t.cpus) core_of[c.cpu] = c.core_key;
    std::set<int> cores;
    for (int cpu : worker_cpus) cores.insert(core_of[cpu]);
    w.value(cores.size() < worker_cpus.size());
    w.key("worker_cpus").begin_array();
    for (int cpu : worker_cpus) w.value(cpu);
    w.end_array();
  } else if (threads > t.physical_cores) {
    w.value(true);  // more workers than physical cores: some must share
  } else {
    w.value(nullptr);  // unpinned: the scheduler decides
  }
}

}  // namespace ccb
