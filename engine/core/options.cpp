#include "engine/core/options.h"

#include <gflags/gflags.h>

#include <algorithm>

namespace ccb {

Accepts Accepts::explained(std::string text) const {
  Accepts a = *this;
  a.allowed = std::move(text);
  return a;
}

Accepts Accepts::not_echoed() const {
  Accepts a = *this;
  a.echoed = false;
  return a;
}

std::string Accepts::allowed_text(bool integral) const {
  if (!allowed.empty()) return allowed;
  std::string bounds = integral ? (lo < 0 ? describe_range(static_cast<int64_t>(lo), static_cast<int64_t>(hi))
                                          : describe_range(static_cast<uint64_t>(lo), static_cast<uint64_t>(hi)))
                                : describe_range(lo, hi);
  if (open_low) bounds.front() = '(';
  if (open_high) bounds.back() = ')';
  return what + " in " + bounds + note;
}

Accepts any_value() { return {}; }

Accepts range(double lo, double hi, std::string what, std::string note) {
  Accepts a;
  a.kind = Accepts::Kind::kRange;
  a.lo = lo;
  a.hi = hi;
  a.what = std::move(what);
  a.note = std::move(note);
  return a;
}

Accepts above(double lo, double hi, std::string what) {
  Accepts a = range(lo, hi, std::move(what));
  a.open_low = true;
  return a;
}

Accepts below(double lo, double hi, std::string what) {
  Accepts a = range(lo, hi, std::move(what));
  a.open_high = true;
  return a;
}

Accepts writable_path() {
  Accepts a;
  a.kind = Accepts::Kind::kWritablePath;
  return a;
}

Accepts one_of(const std::vector<std::string>& (*names)()) {
  Accepts a;
  a.kind = Accepts::Kind::kOneOf;
  a.names = names;
  return a;
}

void define_flag(const char* name, const char* help, const char* file, bool* value, bool* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}
void define_flag(const char* name, const char* help, const char* file, int32_t* value, int32_t* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}
void define_flag(const char* name, const char* help, const char* file, uint32_t* value, uint32_t* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}
void define_flag(const char* name, const char* help, const char* file, uint64_t* value, uint64_t* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}
void define_flag(const char* name, const char* help, const char* file, double* value, double* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}
void define_flag(const char* name, const char* help, const char* file, std::string* value,
                 std::string* default_value) {
  gflags::FlagRegisterer(name, help, file, value, default_value);
}

namespace {

// {"type": <type>}, with the bounds of a range; an unsigned value without
// one is at least 0.
std::string number_schema(const Accepts& a, const char* type, bool integral, bool is_unsigned) {
  JsonWriter w;
  w.begin_object().key("type").value(type);
  auto bound = [&](const char* key, double v) {
    w.key(key);
    if (integral)
      w.value(static_cast<int64_t>(v));
    else
      w.value(v);
  };
  if (a.kind == Accepts::Kind::kRange) {
    bound(a.open_low ? "exclusiveMinimum" : "minimum", a.lo);
    bound(a.open_high ? "exclusiveMaximum" : "maximum", a.hi);
  } else if (is_unsigned) {
    bound("minimum", 0);
  }
  w.end_object();
  return w.str();
}

std::vector<OptionsTableBase*>& all_tables() {
  static std::vector<OptionsTableBase*> tables;
  return tables;
}

}  // namespace

std::string value_schema(const Accepts&, const bool*) { return R"({"type": "boolean"})"; }
std::string value_schema(const Accepts& a, const int32_t*) { return number_schema(a, "integer", true, false); }
std::string value_schema(const Accepts& a, const uint32_t*) { return number_schema(a, "integer", true, true); }
std::string value_schema(const Accepts& a, const uint64_t*) { return number_schema(a, "integer", true, true); }
std::string value_schema(const Accepts& a, const double*) { return number_schema(a, "number", false, false); }
std::string value_schema(const Accepts& a, const std::string*) {
  if (a.kind != Accepts::Kind::kOneOf) return R"({"type": "string"})";
  JsonWriter w;
  w.begin_object().key("enum").begin_array();
  for (const std::string& n : a.names()) w.value(n);
  w.end_array().end_object();
  return w.str();
}

OptionsTableBase::OptionsTableBase(const char* name, Definition when)
    : name_(name), defined_(when == Definition::kAtStart) {
  all_tables().push_back(this);
}

OptionsTableBase::Flag& OptionsTableBase::add_flag(Flag flag) {
  flags_.push_back(std::move(flag));
  return flags_.back();
}

void OptionsTableBase::define_flags() {
  if (defined_) return;
  defined_ = true;
  for (const Flag& f : flags_)
    if (f.define) f.define();
}

std::string OptionsTableBase::schema() const {
  JsonWriter w;
  w.begin_object().key("properties").begin_object();
  std::vector<std::string> required;
  for (const Flag& f : flags_) {
    if (f.schema.empty()) continue;
    w.key(f.name).raw_value(f.schema);
    required.push_back(f.name);
  }
  w.end_object().key("required").begin_array();
  for (const std::string& name : required) w.value(name);
  w.end_array().end_object();
  return required.empty() ? "" : w.str();
}

bool OptionsTableBase::defines(const std::string& flag) const {
  if (!defined_) return false;
  for (const Flag& f : flags_)
    if (f.define && f.name == flag) return true;
  return false;
}

bool is_options_table_flag(const std::string& name) {
  for (const OptionsTableBase* t : all_tables())
    if (t->defines(name)) return true;
  return false;
}

std::string options_schema_json() {
  std::vector<const OptionsTableBase*> tables(all_tables().begin(), all_tables().end());
  std::sort(tables.begin(), tables.end(),
            [](const OptionsTableBase* a, const OptionsTableBase* b) { return std::string(a->name()) < b->name(); });
  JsonWriter w;
  w.begin_object();
  for (const OptionsTableBase* t : tables) {
    const std::string schema = t->schema();
    if (t->defined() && !schema.empty()) w.key(t->name()).raw_value(schema);
  }
  w.end_object();
  return w.str();
}

}  // namespace ccb
