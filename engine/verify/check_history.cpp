// check_history: check a recorded history file for serializability offline.
//
//   check_history [--json] <file>
//
// Prints a summary (or, with --json, the check result as one JSON document)
// on stdout. Exit status: 0 serializable, 3 a violation was found (not
// serializable or an inconsistent history), 2 bad usage or a file that is not
// a complete, intact history file.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitViolation = 3;

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: check_history [--json] <history-file>\n"
               "  Checks a history written by rundb --verify (or write_history) for\n"
               "  conflict serializability (Adya's direct serialization graph).\n"
               "  --json   print the result as JSON instead of a summary\n"
               "exit status: 0 serializable, 3 violation found, 2 bad usage or bad file\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--json") == 0) {
      json = true;
    } else if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      usage(stdout);
      return kExitOk;
    } else if (a[0] == '-' && a[1] != '\0') {
      std::fprintf(stderr, "check_history: unknown option '%s'\n", a);
      usage(stderr);
      return kExitBadInput;
    } else if (!path.empty()) {
      std::fprintf(stderr, "check_history: more than one history file given ('%s' and '%s')\n", path.c_str(), a);
      return kExitBadInput;
    } else {
      path = a;
    }
  }
  if (path.empty()) {
    usage(stderr);
    return kExitBadInput;
  }

  ccb::verify::History h;
  try {
    h = ccb::verify::read_history(path);
  } catch (const ccb::verify::HistoryIoError& e) {
    std::fprintf(stderr, "check_history: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "check_history: out of memory reading %s\n", path.c_str());
    return kExitBadInput;
  }

  const ccb::verify::CheckResult r = ccb::verify::check_serializable(h);
  if (json) {
    std::printf("%s\n", ccb::verify::check_result_to_json(r).c_str());
  } else {
    const auto& c = r.counts;
    std::printf("%s: %llu transactions, %llu accesses, edges ww=%llu wr=%llu rw=%llu, checked in %.3f s\n",
                path.c_str(), static_cast<unsigned long long>(c.txns), static_cast<unsigned long long>(c.accesses),
                static_cast<unsigned long long>(c.edges_ww), static_cast<unsigned long long>(c.edges_wr),
                static_cast<unsigned long long>(c.edges_rw), r.check_seconds);
    if (r.serializable) {
      std::printf("serializable\n");
    } else {
      std::printf("NOT serializable: %s: %s\n", ccb::verify::violation_kind_name(r.violation.kind),
                  r.violation.message.c_str());
    }
  }
  return r.serializable ? kExitOk : kExitViolation;
}
