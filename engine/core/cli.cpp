#include "engine/core/cli.h"

#include <gflags/gflags.h>

#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/options.h"

namespace ccb {

void require(bool ok, const std::string& flag, const std::string& allowed) {
  if (!ok) {
    std::string value;
    gflags::GetCommandLineOption(flag.c_str(), &value);
    throw ConfigError(flag, "invalid value '" + value + "'; allowed: " + allowed);
  }
}

bool flag_given(const char* name) {
  gflags::CommandLineFlagInfo info;
  return gflags::GetCommandLineFlagInfo(name, &info) && !info.is_default;
}

static std::string bound(uint64_t v) {
  if (v >= (uint64_t{1} << 20) && (v & (v - 1)) == 0) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

std::string describe_range(uint64_t lo, uint64_t hi) { return "[" + bound(lo) + ", " + bound(hi) + "]"; }

std::string describe_range(int64_t lo, int64_t hi) {
  auto text = [](int64_t v) { return v < 0 ? std::to_string(v) : bound(static_cast<uint64_t>(v)); };
  return "[" + text(lo) + ", " + text(hi) + "]";
}

std::string describe_range(double lo, double hi) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%g, %g]", lo, hi);
  return buf;
}

namespace {
constexpr size_t kTemporarySuffixBytes = 16;  // ".tmp." and a pid
}  // namespace

void require_writable_path(const std::string& path, const char* flag) {
  if (path.empty()) return;
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st;
  if (path.back() == '/' || (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    throw ConfigError(flag, "'" + path + "' is a directory; allowed: a file path");
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw ConfigError(flag, "directory '" + dir + "' does not exist; allowed: a file path in an existing directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(flag, "directory '" + dir + "' is not writable; allowed: a file path in a writable directory");
  // Atomic writes go through "<name>.tmp.<pid>" (write_result_document): that name too must
  // fit the file system's limit, or the run would fail only when it writes.
  const long name_max = pathconf(dir.c_str(), _PC_NAME_MAX);
  const size_t limit = (name_max > 0 ? static_cast<size_t>(name_max) : 255) - kTemporarySuffixBytes;
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() > limit)
    throw ConfigError(flag, "file name of " + std::to_string(name.size()) + " bytes; allowed: a file name of at most " +
                                std::to_string(limit) + " bytes");
}

std::vector<std::string> list_items(const std::string& value, const char* flag, const std::string& allowed) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = value.find(',', start);
    items.push_back(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    require(!items.back().empty(), flag, allowed);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

bool parse_number(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && std::isfinite(out);
}

bool parse_number(const std::string& text, uint64_t& out) {
  // strtoull accepts a sign (and wraps "-1" around); a count never has one.
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return *end == '\0' && errno == 0;
}

// The program's flags (not gflags' and glog's own): those of its options
// tables (engine/core/options.h) and those defined in a file whose path
// contains one of the program's sources.
static std::vector<gflags::CommandLineFlagInfo> program_flags(const ProgramHelp& help) {
  std::vector<gflags::CommandLineFlagInfo> flags, ours;
  gflags::GetAllFlags(&flags);
  for (const auto& f : flags) {
    if (is_options_table_flag(f.name)) {
      ours.push_back(f);
      continue;
    }
    for (const std::string& source : help.flag_sources)
      if (f.filename.find(source) != std::string::npos) {
        ours.push_back(f);
        break;
      }
  }
  return ours;
}

static void print_help(const ProgramHelp& help) {
  std::printf("%s\n\n", help.about.c_str());
  for (const auto& f : program_flags(help)) {
    std::printf("  --%s (%s, default %s)\n      %s\n", f.name.c_str(), f.type.c_str(),
                f.default_value.empty() ? "\"\"" : f.default_value.c_str(), f.description.c_str());
  }
  std::printf("\n%s\n", help.exit_codes.c_str());
}

bool parse_command_line(int argc, char** argv, const ProgramHelp& help) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-", 0) != 0 || arg == "-" || arg == "--")
      throw ConfigError("?", "unexpected argument '" + arg + "'; flags have the form --name=value");
    arg.erase(0, arg[1] == '-' ? 2 : 1);
    std::string name = arg, value;
    const size_t eq = arg.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (name == "help" || name == "helpfull" || name == "h") {
      print_help(help);
      return false;
    }
    if (name == "list_flags") {  // machine-readable, for the harness: one flag name per line
      for (const auto& f : program_flags(help)) std::printf("%s\n", f.name.c_str());
      return false;
    }
    if (name == "config_schema") {  // the options tables' fragments of docs/result.schema.json (engine/core/options.h)
      std::printf("%s\n", options_schema_json().c_str());
      return false;
    }
    gflags::CommandLineFlagInfo info;
    if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info)) {
      // --noflag for booleans.
      if (!has_value && name.rfind("no", 0) == 0 && gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &info) &&
          info.type == "bool") {
        name = name.substr(2);
        value = "false";
      } else {
        throw ConfigError(name, "unknown flag; run with --help for the list of flags");
      }
    } else if (!has_value) {
      if (info.type == "bool") {
        value = "true";
      } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        value = argv[++i];
      } else {
        throw ConfigError(name, "missing value (expected " + info.type + ")");
      }
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty())
      throw ConfigError(name, "invalid value '" + value + "' (expected " + info.type + ")");
  }
  return true;
}

}  // namespace ccb
