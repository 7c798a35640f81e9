// Command-line flags under the exit-code contract (README "Exit codes"), for
// the engine (engine/config.h) and the stand-alone tools (check_history,
// bench_checker, bench_fvs, bench_strife): flags are defined with gflags,
// parsed here without letting gflags exit, and every bad flag or value is a
// ConfigError naming the flag and what is allowed, which with_exit_codes
// turns into one line on stderr and exit code 2 before anything is written.
//
// A small library of its own (ccb_cli) so that tools which do not link the
// engine's configuration (and its flag definitions) can use it.
//
// Thread safety: parse before starting threads; the helpers read gflags'
// process-global registry.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ccb {

struct ConfigError : std::runtime_error {
  ConfigError(std::string flag, const std::string& what)
      : std::runtime_error("--" + flag + ": " + what), flag(std::move(flag)) {}
  std::string flag;
};

// Runs a program's body under the exit-code contract: a ConfigError is one
// line "error: --flag: ..." on stderr and exit code 2; any other exception
// one line and exit code 1; otherwise the body's own code.
template <class Body>
int with_exit_codes(Body&& body) {
  try {
    return body();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

// What --help prints for a program: `about` (what it does, how to call it),
// then each flag defined in a source file whose path contains one of
// `flag_sources` (a tool passes {__FILE__}; gflags' and glog's own flags are
// never listed), then `exit_codes`. --list_flags prints the same flags' names,
// one per line (the harness reads it); --config_schema the JSON-schema
// fragments of the program's options tables (engine/core/options.h).
struct ProgramHelp {
  std::string about;
  std::vector<std::string> flag_sources;
  std::string exit_codes;
};

// Parses argv into gflags without letting gflags exit: an unknown flag, a
// stray argument or a value of the wrong type throws ConfigError. Flags take
// the forms --name=value, --name value, --bool and --nobool. Returns false if
// --help, --list_flags or --config_schema was printed (the program then exits 0).
bool parse_command_line(int argc, char** argv, const ProgramHelp& help);

// A tool's main(): parses argv with `help`, then returns `body()` (its exit
// code) under with_exit_codes; 0 after --help or --list_flags.
template <class Body>
int cli_main(int argc, char** argv, const ProgramHelp& help, Body&& body) {
  return with_exit_codes([&] { return parse_command_line(argc, argv, help) ? body() : 0; });
}

// True if the flag was set on the command line (even to its default value);
// false for a flag that is not defined.
bool flag_given(const char* name);

// Throws ConfigError "--flag: invalid value '<value>'; allowed: <allowed>"
// unless `ok`.
void require(bool ok, const std::string& flag, const std::string& allowed);

// The bounds of a range as the error messages write them: "[lo, hi]", with
// 2^k for powers of two from 2^20 on.
std::string describe_range(int64_t lo, int64_t hi);
std::string describe_range(uint64_t lo, uint64_t hi);
std::string describe_range(double lo, double hi);

// The value of a numeric flag, after checking that it lies in [lo, hi] (and
// is finite, for a floating-point flag). Otherwise a ConfigError naming the
// flag, allowed "<what> in [lo, hi]<note>" (e.g. "seconds in [0, 86400]").
template <class T, class Lo, class Hi>
T in_range(T value, Lo lo, Hi hi, const char* flag, const char* what, const std::string& note = {}) {
  using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                  std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
  const Wide v = static_cast<Wide>(value), l = static_cast<Wide>(lo), h = static_cast<Wide>(hi);
  bool ok = l <= v && v <= h;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(v);
  if (!ok) require(false, flag, std::string(what) + " in " + describe_range(l, h) + note);
  return value;
}

// An output path must name a file in an existing, writable directory, so a
// run that could not store its result fails now, not after it has measured.
// "" (no file) passes.
void require_writable_path(const std::string& path, const char* flag);

// The items of a comma-separated list flag: "a,b" -> {"a", "b"}. An empty
// item (an empty value, ",," or a trailing comma) is refused, naming the flag
// with `allowed`.
std::vector<std::string> list_items(const std::string& value, const char* flag, const std::string& allowed);

// Whole-text number parsing for list items: false unless all of `text` is one
// finite number (double) or one unsigned decimal integer (uint64_t).
bool parse_number(const std::string& text, double& out);
bool parse_number(const std::string& text, uint64_t& out);

// A comma-separated list flag of numbers, each in [lo, hi]; otherwise a
// ConfigError naming the flag, allowed "comma-separated <what>, each in [lo, hi]".
template <class T>
std::vector<T> number_list(const std::string& value, T lo, T hi, const char* flag, const char* what) {
  const std::string allowed = std::string("comma-separated ") + what + ", each in " + describe_range(lo, hi);
  std::vector<T> numbers;
  for (const std::string& item : list_items(value, flag, allowed)) {
    T x{};
    require(parse_number(item, x) && lo <= x && x <= hi, flag, allowed);
    numbers.push_back(x);
  }
  return numbers;
}

}  // namespace ccb
