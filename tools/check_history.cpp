// check_history: check a recorded history file for serializability offline.
//
//   check_history --history=FILE [--json]
//
// Prints a summary (or, with --json, the check result as one JSON document,
// docs/verify.md) on stdout. Flags are parsed as the engine parses its own
// (engine/core/cli.h). Exit status: 0 serializable, 3 a violation was found
// (not serializable or an inconsistent history), 2 a bad flag or a file that
// is not a complete, intact history file (one line on stderr naming the flag).
#include <cstdio>
#include <new>
#include <string>

#include "engine/core/cli.h"
#include "engine/core/options.h"
#include "engine/verify/checker.h"
#include "engine/verify/history_io.h"

namespace {

// Its flags, one row each below; it writes no config, so none is echoed.
struct CheckHistoryOptions {
  std::string history;
  bool json = false;

  static ccb::OptionsTable<CheckHistoryOptions> flags;
};
ccb::OptionsTable<CheckHistoryOptions> CheckHistoryOptions::flags{"check_history_flags"};

}  // namespace

CCB_OPTION(CheckHistoryOptions::flags, history, string, history, "", ccb::any_value().not_echoed(),
           "the history file to check, as written by rundb --verify --history_out (required)");
CCB_OPTION(CheckHistoryOptions::flags, json, bool, json, false, ccb::any_value().not_echoed(),
           "print the check result as one JSON document (docs/verify.md) instead of a summary");

namespace {

constexpr int kExitOk = 0;
constexpr int kExitViolation = 3;

const ccb::ProgramHelp kHelp{
    "check_history: checks a history written by rundb --verify --history_out (or write_history) for\n"
    "conflict serializability (Adya's direct serialization graph; docs/verify.md).\n\n"
    "usage: check_history --history=FILE [--json]",
    {__FILE__},
    "exit codes: 0 serializable, 3 violation found, 2 bad flags or a bad history file"};

ccb::verify::History read(const std::string& path) {
  try {
    return ccb::verify::read_history(path);
  } catch (const ccb::verify::HistoryIoError& e) {
    throw ccb::ConfigError("history", e.what());
  } catch (const std::bad_alloc&) {
    throw ccb::ConfigError("history", "out of memory reading " + path);
  }
}

int run() {
  const CheckHistoryOptions o = CheckHistoryOptions::flags.read();
  ccb::require(!o.history.empty(), "history", "the path of a history file");
  const ccb::verify::History h = read(o.history);
  const ccb::verify::CheckResult r = ccb::verify::check_serializable(h);
  if (o.json) {
    std::printf("%s\n", ccb::verify::check_result_to_json(r).c_str());
  } else {
    const auto& c = r.counts;
    std::printf("%s: %llu transactions, %llu accesses, edges ww=%llu wr=%llu rw=%llu, checked in %.3f s\n",
                o.history.c_str(), static_cast<unsigned long long>(c.txns),
                static_cast<unsigned long long>(c.accesses), static_cast<unsigned long long>(c.edges_ww),
                static_cast<unsigned long long>(c.edges_wr), static_cast<unsigned long long>(c.edges_rw),
                r.check_seconds);
    if (r.serializable) {
      std::printf("serializable\n");
    } else {
      std::printf("NOT serializable: %s: %s\n", ccb::verify::violation_kind_name(r.violation.kind),
                  r.violation.message.c_str());
    }
  }
  return r.serializable ? kExitOk : kExitViolation;
}

}  // namespace

int main(int argc, char** argv) { return ccb::cli_main(argc, argv, kHelp, run); }
