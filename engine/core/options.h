// One declaration per flag: each options struct (EngineConfig, YcsbOptions,
// BccOptions, ...) has a table whose rows are its flags, each declared once
// with its name, the struct's field it sets, its default, what it accepts and
// its help. The table yields everything else about the flag:
//
//   - the gflags definition (--help, --list_flags; engine/core/cli.h), the
//     help ending in what the flag accepts ("; allowed: an integer in [1, 1024]");
//   - read(): each value checked in row order, the first bad one a
//     ConfigError "--flag: invalid value 'v'; allowed: <what in [lo, hi]>"
//     (exit 2, engine/core/cli.h), the fields set;
//   - write(): the echo in the result's "config" object, "flag": field;
//   - schema(): the JSON-schema fragment of that echo, which
//     docs/result.schema.json holds as $defs/<table name> (the contract test
//     compares them: `<program> --config_schema` prints every table's).
//
// A row is one macro line at global scope in the struct's .cpp, e.g.
//   CCB_OPTION(ccb::YcsbOptions::flags, req_per_txn, uint32, req_per_txn, 16,
//              ccb::range(1, 64, "an integer"), "YCSB: requests (distinct keys) per transaction");
// which also defines FLAGS_req_per_txn as gflags' DEFINE_uint32 does (so a
// test may DECLARE_uint32 it and set it). Cross-flag checks (a value that
// depends on another flag) stay in the struct's from_flags(), after read().
//
// A table defined kAtStart defines its flags before main() in every program
// that links it; one defined kByProgram (a protocol's options) only when the
// program calls define_flags(): the generated main() of bin/rundb-<cc> does
// for its own protocol's table (rundb/main.h), so every other program refuses
// those flags as unknown.
//
// Thread safety: tables are filled during static initialization and read
// after parse_command_line (before threads start).
#pragma once

#include <gflags/gflags_declare.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/json.h"

namespace ccb {

// What a flag accepts, as its error message and its schema say it.
struct Accepts {
  enum class Kind { kAny, kRange, kWritablePath, kOneOf };
  Kind kind = Kind::kAny;
  // kRange: [lo, hi], or (lo, hi] with open_low, [lo, hi) with open_high
  // (exact for integers up to 2^53).
  double lo = 0, hi = 0;
  bool open_low = false, open_high = false;
  std::string what;                                       // kRange: "an integer", "seconds", ...
  std::string note;                                       // kRange: appended, " (0 = off)"
  std::string allowed;                                    // kRange: the whole allowed text instead
  const std::vector<std::string>& (*names)() = nullptr;  // kOneOf
  bool echoed = true;                                     // written to the result's "config"

  // The same, with the message's allowed text replaced (for a range with a
  // special value, e.g. "-1 (the spec's remote accesses) or a percentage in [0, 100]").
  Accepts explained(std::string text) const;
  // The same, not written to the result (e.g. --out, the path of the result itself).
  Accepts not_echoed() const;
  // "an integer in [1, 1024] (0 = off)" for a range of an integral (`integral`) or floating-point flag.
  std::string allowed_text(bool integral) const;
};

Accepts any_value();  // every value of the flag's type
// [lo, hi]; "<what> in [lo, hi]<note>".
Accepts range(double lo, double hi, std::string what, std::string note = {});
// (lo, hi]; "<what> in (lo, hi]".
Accepts above(double lo, double hi, std::string what);
// [lo, hi); "<what> in [lo, hi)".
Accepts below(double lo, double hi, std::string what);
Accepts writable_path();  // "" or a file path in an existing, writable directory (require_writable_path)
Accepts one_of(const std::vector<std::string>& (*names)());  // one of names(), "a|b|c"

// The flag registrations of the gflags types (options.cpp, through
// gflags::FlagRegisterer). The strings must outlive the program.
void define_flag(const char* name, const char* help, const char* file, bool* value, bool* default_value);
void define_flag(const char* name, const char* help, const char* file, int32_t* value, int32_t* default_value);
void define_flag(const char* name, const char* help, const char* file, uint32_t* value, uint32_t* default_value);
void define_flag(const char* name, const char* help, const char* file, uint64_t* value, uint64_t* default_value);
void define_flag(const char* name, const char* help, const char* file, double* value, double* default_value);
void define_flag(const char* name, const char* help, const char* file, std::string* value, std::string* default_value);

// Checks a flag's value against `a` (ConfigError naming the flag otherwise).
template <class T>
void check_value(const T& v, const Accepts& a, const char* flag) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (a.kind != Accepts::Kind::kRange) return;
    using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                    std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    const Wide x = static_cast<Wide>(v), lo = static_cast<Wide>(a.lo), hi = static_cast<Wide>(a.hi);
    bool ok = (a.open_low ? lo < x : lo <= x) && (a.open_high ? x < hi : x <= hi);
    if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(x);
    require(ok, flag, a.allowed_text(std::is_integral_v<T>));
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (a.kind == Accepts::Kind::kWritablePath) require_writable_path(v, flag);
    if (a.kind == Accepts::Kind::kOneOf) {
      const std::vector<std::string>& names = a.names();
      bool ok = false;
      std::string list;
      for (const std::string& n : names) {
        ok = ok || n == v;
        list += (list.empty() ? "" : "|") + n;
      }
      require(ok, flag, list);
    }
  }
}

// The JSON schema of a flag's echoed value: its type (the pointer only picks
// the overload) and, for a range, its bounds.
std::string value_schema(const Accepts& a, const bool*);
std::string value_schema(const Accepts& a, const int32_t*);
std::string value_schema(const Accepts& a, const uint32_t*);
std::string value_schema(const Accepts& a, const uint64_t*);
std::string value_schema(const Accepts& a, const double*);
std::string value_schema(const Accepts& a, const std::string*);

// A table of any struct: what --config_schema prints.
class OptionsTableBase {
 public:
  enum class Definition { kAtStart, kByProgram };
  OptionsTableBase(const char* name, Definition when);
  OptionsTableBase(const OptionsTableBase&) = delete;
  OptionsTableBase& operator=(const OptionsTableBase&) = delete;
  const char* name() const { return name_; }
  // {"properties": {...}, "required": [...]} of the echoed rows; "" if none is echoed.
  std::string schema() const;
  // Defines the table's flags with gflags (a kByProgram table; kAtStart ones
  // are defined as their rows are declared). Once per program.
  void define_flags();
  bool defined() const { return defined_; }
  bool defines(const std::string& flag) const;  // a row of this table defines --flag (and it is defined)

 protected:
  struct Flag {
    std::string name, help;  // help: the row's help and what it accepts (gflags keeps a pointer to it)
    std::string schema;      // "" if not echoed
    std::function<void()> define;
  };
  Flag& add_flag(Flag flag);  // stable address (deque)

 private:
  const char* name_;
  bool defined_;
  std::deque<Flag> flags_;
};

// Whether an options table of this program defines flag `name` (--help and
// --list_flags list those flags).
bool is_options_table_flag(const std::string& name);

// Every table whose flags this program defines, as --config_schema prints
// them: {"<table name>": <schema>, ...}, in name order, tables echoing nothing left out.
std::string options_schema_json();

template <class S>
class OptionsTable : public OptionsTableBase {
 public:
  explicit OptionsTable(const char* name, Definition when = Definition::kAtStart) : OptionsTableBase(name, when) {}

  // A row (CCB_OPTION): flag `name` stored in *value (its default there
  // already), checked and read into field(s).
  template <class T, class Field>
  bool add(const char* name, T* value, const Accepts& accepts, const char* help, const char* file, Field field) {
    return add_field(name, value, accepts, help, file, field, true);
  }
  // A row of a flag another table defines (CCB_SHARED_OPTION): checked, read
  // and echoed here as well, not defined again.
  template <class T, class Field>
  bool add_shared(const char* name, T* value, const Accepts& accepts, Field field) {
    return add_field(name, value, accepts, "", "", field, false);
  }
  // A row whose text the struct parses itself (CCB_PARSED_OPTION): read(s,
  // value) checks and sets, write(s, w) echoes the members it stands for.
  template <class T>
  bool add_parsed(const char* name, T* value, const char* help, const char* file, void (*read)(S&, const T&),
                  void (*write)(const S&, JsonWriter&), const char* schema) {
    return add_row<T>(
        name, value, any_value(), help, file, [=](S& s) { read(s, *value); }, write, schema, true);
  }
  // A group of rows of another struct, a member of this one (CCB_OPTION_GROUP):
  // read, echoed and checked here, in this place; its schema is its own table's.
  template <class Sub, class Field>
  bool add_group(const OptionsTable<Sub>& sub, Field field) {
    rows_.push_back({[&sub, field](S& s) { sub.read(field(s)); },
                     [&sub, field](const S& s, JsonWriter& w) { sub.write(field(s), w); }});
    return true;
  }

  // Checks every flag in row order and sets the fields of `s` (ConfigError
  // naming the first bad flag).
  void read(S& s) const {
    for (const Row& r : rows_) r.read(s);
  }
  // A struct with every field the table reads (the others at their defaults).
  S read() const {
    S s;
    read(s);
    return s;
  }
  // The echoed rows, "flag": value, in row order.
  void write(const S& s, JsonWriter& w) const {
    for (const Row& r : rows_)
      if (r.write) r.write(s, w);
  }

 private:
  struct Row {
    std::function<void(S&)> read;
    std::function<void(const S&, JsonWriter&)> write;  // empty: not echoed
  };

  template <class T, class Field>
  bool add_field(const char* name, T* value, const Accepts& accepts, const char* help, const char* file, Field field,
                 bool defines) {
    return add_row<T>(
        name, value, accepts, help, file,
        [=](S& s) {
          check_value(*value, accepts, name);
          field(s) = *value;
        },
        [=](const S& s, JsonWriter& w) { w.key(name).value(field(s)); }, value_schema(accepts, value), defines);
  }

  template <class T, class Read, class Write>
  bool add_row(const char* name, T* value, const Accepts& accepts, const char* help, const char* file, Read read,
               Write write, std::string schema, bool defines) {
    rows_.push_back({read, accepts.echoed ? std::function<void(const S&, JsonWriter&)>(write) : nullptr});
    Flag flag{name, help, accepts.echoed ? std::move(schema) : std::string(), nullptr};
    const std::string allowed = accepts.kind == Accepts::Kind::kRange ? accepts.allowed_text(std::is_integral_v<T>) : "";
    if (!allowed.empty()) flag.help += "; allowed: " + allowed;
    Flag& kept = add_flag(std::move(flag));
    if (defines) {
      // gflags keeps the default's copy for the program's lifetime; it is
      // made only when the flag is defined (a kByProgram table a program
      // never defines allocates nothing, which LeakSanitizer would report).
      kept.define = [name, value, default_copy = *value, file, help = kept.help.c_str()] {
        define_flag(name, help, file, value, new T(default_copy));
      };
      if (defined()) kept.define();
    }
    return true;
  }

  std::vector<Row> rows_;
};

}  // namespace ccb

// The storage of a flag, as gflags' DEFINE_<type> lays it out (so that
// DECLARE_<type>(name) finds it): FLAGS_<name> in gflags' namespace of its
// type, the value itself, or for a string a reference to it (gflags'
// clstring&). CCB_FLAG_LAYOUT_<type> is that namespace and the stored type;
// StoredFlag / stored_flag make the one definition fit both (an arithmetic
// flag is constant-initialized; a string, as gflags' own, at start-up, and
// never freed, as gflags keeps its flags for the program's lifetime).
namespace ccb {
template <class T>
using StoredFlag = std::conditional_t<std::is_arithmetic_v<T>, T, T&>;
template <class T>
constexpr StoredFlag<T> stored_flag(const T& value) {
  if constexpr (std::is_arithmetic_v<T>) {
    return value;
  } else {
    return *new T(value);
  }
}
}  // namespace ccb
#define CCB_FLAG_LAYOUT_bool fLB, bool
#define CCB_FLAG_LAYOUT_int32 fLI, ::GFLAGS_NAMESPACE::int32
#define CCB_FLAG_LAYOUT_uint32 fLU, ::GFLAGS_NAMESPACE::uint32
#define CCB_FLAG_LAYOUT_uint64 fLU64, ::GFLAGS_NAMESPACE::uint64
#define CCB_FLAG_LAYOUT_double fLD, double
#define CCB_FLAG_LAYOUT_string fLS, ::fLS::clstring
#define CCB_FLAG_CALL(macro, args) macro args  // args expanded first: the layout's two fields become two arguments
#define CCB_FLAG_STORAGE_IN(ns, T, name, value)                                 \
  namespace ns {                                                                \
  ::ccb::StoredFlag<T> FLAGS_##name = ::ccb::stored_flag<T>(value);             \
  }                                                                             \
  using ns::FLAGS_##name
// FLAGS_<name> of gflags type `type` (bool, int32, uint32, uint64, double,
// string) with its default, at global scope.
#define CCB_FLAG_STORAGE(type, name, value) CCB_FLAG_CALL(CCB_FLAG_STORAGE_IN, (CCB_FLAG_LAYOUT_##type, name, value))

// A row of `table` (an OptionsTable<S>): --name, of gflags type `type` (bool,
// int32, uint32, uint64, double, string), default `default_value`, checked
// against `accepts`, read into s.field (a member path: runtime.min_t works).
// At global scope, like DEFINE_<type>.
#define CCB_OPTION(table, field, type, name, default_value, accepts, help)                               \
  CCB_FLAG_STORAGE(type, name, default_value);                                                           \
  [[maybe_unused]] static const bool ccb_option_##name =                                                 \
      (table).add(#name, &FLAGS_##name, accepts, help, __FILE__, [](auto& s) -> auto& { return s.field; })

// A row of `table` for a flag another table defines (declared here as
// DECLARE_<type> does): read into s.field with this table's own check.
#define CCB_SHARED_OPTION(table, field, type, name, accepts)                                              \
  DECLARE_##type(name);                                                                                   \
  [[maybe_unused]] static const bool ccb_shared_option_##name =                                          \
      (table).add_shared(#name, &FLAGS_##name, accepts, [](auto& s) -> auto& { return s.field; })

// A row whose value the struct parses itself: read(S&, const T&) checks it
// and sets the fields, write(const S&, JsonWriter&) echoes them; `schema` is
// the JSON schema of the echoed value (the row's name).
#define CCB_PARSED_OPTION(table, type, name, default_value, read, write, schema, help) \
  CCB_FLAG_STORAGE(type, name, default_value);                                          \
  [[maybe_unused]] static const bool ccb_option_##name =                                \
      (table).add_parsed(#name, &FLAGS_##name, help, __FILE__, read, write, schema)

// The rows of another options struct, member s.field of this one, read and
// echoed at this place of the table.
#define CCB_OPTION_GROUP(table, field, group_table) \
  [[maybe_unused]] static const bool ccb_option_group_##field = \
      (table).add_group(group_table, [](auto& s) -> auto& { return s.field; })
