// Provenance recorded with every result: which code, built how, ran where.
#pragma once

#include <string_view>
#include <vector>

namespace ccb {

class JsonWriter;

// Compile-time facts (generated at build time into build_info.cpp).
struct BuildInfo {
  const char* git_revision;  // "unknown" outside a git checkout
  bool git_dirty;
  const char* compiler;
  const char* cxx_flags;
  const char* build_type;
  const char* sanitize;
  bool native;
};
const BuildInfo& build_info();

// Writes the "compile" member (an object) of a result's config: the protocol
// compiled into the binary (`cc`, rundb only: omitted when empty), build_type,
// sanitize and native. Every program's document has it (docs/result.schema.json).
void write_build_info(JsonWriter& w, std::string_view cc = {});

// Writes the "provenance" object's members: build facts, machine (CPU model,
// logical CPUs, physical cores, SMT siblings per core, NUMA nodes, host,
// kernel), time of the run, and whether two workers shared a physical core
// (exact when pinned; true when there are more workers than physical cores;
// null when unpinned and it cannot be known).
void write_provenance(JsonWriter& w, int threads, const std::vector<int>& worker_cpus);

// Peak resident set size of this process in bytes.
long peak_rss_bytes();

}  // namespace ccb
