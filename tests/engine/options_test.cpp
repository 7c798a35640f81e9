// Options tables (engine/core/options.h): one row per flag yields its gflags
// definition, its check and message, its echo and its schema fragment.
#include "engine/core/options.h"

#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Knobs {
  uint32_t count = 0;
  double share = 0;
  int32_t signed_knob = 0;
  std::string name;
  std::string parsed;  // set by the parsed row
  struct {
    bool on = false;
  } nested;
  static ccb::OptionsTable<Knobs> flags;
};
ccb::OptionsTable<Knobs> Knobs::flags{"knobs_test_flags"};

struct Late {
  uint32_t level = 0;
  static ccb::OptionsTable<Late> flags;
};
ccb::OptionsTable<Late> Late::flags{"late_test_flags", ccb::OptionsTableBase::Definition::kByProgram};

// A range open at its top ([lo, hi)).
struct Below {
  double p = 0;
  static ccb::OptionsTable<Below> flags;
};
ccb::OptionsTable<Below> Below::flags{"below_test_flags"};

const std::vector<std::string>& colors() {
  static const std::vector<std::string> names = {"red", "green"};
  return names;
}
void read_upper(Knobs& k, const std::string& v) {
  ccb::require(!v.empty(), "options_test_upper", "a non-empty word");
  k.parsed = v + "!";
}
void write_upper(const Knobs& k, ccb::JsonWriter& w) { w.key("options_test_upper").value(k.parsed); }

}  // namespace

CCB_OPTION(Knobs::flags, count, uint32, options_test_count, 7, ccb::range(1, 0x1p20, "an integer", " (1 = one)"),
           "a count");
CCB_OPTION(Knobs::flags, share, double, options_test_share, 0.5, ccb::above(0, 1, "a fraction"), "a share");
CCB_OPTION(Knobs::flags, signed_knob, int32, options_test_signed, -1,
           ccb::range(-1, 100, "a percentage").explained("-1 (off) or a percentage in [0, 100]"), "signed");
CCB_OPTION(Knobs::flags, name, string, options_test_color, "red", ccb::one_of(&colors), "a color");
CCB_OPTION(Knobs::flags, nested.on, bool, options_test_on, false, ccb::any_value().not_echoed(), "not echoed");
CCB_PARSED_OPTION(Knobs::flags, string, options_test_upper, "x", read_upper, write_upper, R"({"type": "string"})",
                  "parsed");
CCB_OPTION(Below::flags, p, double, options_test_below, 0, ccb::below(0, 1, "a probability"), "below 1");
CCB_OPTION(Late::flags, level, uint32, options_test_late, 3, ccb::range(0, 9, "an integer"), "late");

namespace ccb {
namespace {

// JSON without its layout (no string here holds a blank).
std::string compact(std::string json) {
  std::erase_if(json, [](char c) { return c == ' ' || c == '\n'; });
  return json;
}

// The message of the ConfigError Knobs::flags.read throws ("" if none).
std::string refusal() {
  Knobs k;
  try {
    Knobs::flags.read(k);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(OptionsTable, ReadsDefaultsIntoTheFields) {
  gflags::FlagSaver saver;
  Knobs k;
  Knobs::flags.read(k);
  EXPECT_EQ(k.count, 7u);
  EXPECT_EQ(k.share, 0.5);
  EXPECT_EQ(k.signed_knob, -1);
  EXPECT_EQ(k.name, "red");
  EXPECT_FALSE(k.nested.on);
  EXPECT_EQ(k.parsed, "x!");
  FLAGS_options_test_on = true;  // the storage is gflags' FLAGS_<name>
  Knobs::flags.read(k);
  EXPECT_TRUE(k.nested.on);
}

TEST(OptionsTable, EachBadValueIsOneMessageNamingTheFlag) {
  struct Case {
    const char* flag;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"options_test_count", "0", "--options_test_count: invalid value '0'; allowed: an integer in [1, 2^20] (1 = one)"},
      {"options_test_count", "1048577", "--options_test_count: invalid value '1048577'; allowed: an integer in [1, 2^20] (1 = one)"},
      {"options_test_share", "0", "--options_test_share: invalid value '0'; allowed: a fraction in (0, 1]"},
      {"options_test_share", "nan", "--options_test_share: invalid value 'nan'; allowed: a fraction in (0, 1]"},
      {"options_test_signed", "-2", "--options_test_signed: invalid value '-2'; allowed: -1 (off) or a percentage in [0, 100]"},
      {"options_test_color", "blue", "--options_test_color: invalid value 'blue'; allowed: red|green"},
      {"options_test_upper", "", "--options_test_upper: invalid value ''; allowed: a non-empty word"},
  };
  for (const Case& c : cases) {
    gflags::FlagSaver saver;
    ASSERT_FALSE(gflags::SetCommandLineOption(c.flag, c.value).empty()) << c.flag;
    EXPECT_EQ(refusal(), c.message);
  }
  gflags::FlagSaver saver;
  gflags::SetCommandLineOption("options_test_share", "1");  // the closed end
  gflags::SetCommandLineOption("options_test_count", "1048576");
  EXPECT_EQ(refusal(), "");
}

TEST(OptionsTable, EchoesTheEchoedRowsInOrder) {
  gflags::FlagSaver saver;
  Knobs k;
  Knobs::flags.read(k);
  JsonWriter w;
  w.begin_object();
  Knobs::flags.write(k, w);
  w.end_object();
  EXPECT_EQ(compact(w.str()), compact(R"({"options_test_count": 7, "options_test_share": 0.5, "options_test_signed": -1, )"
                     R"("options_test_color": "red", "options_test_upper": "x!"})"));
}

TEST(OptionsTable, SchemaFragmentFollowsTheChecks) {
  EXPECT_EQ(compact(Knobs::flags.schema()),
            compact(R"({"properties": {"options_test_count": {"type": "integer", "minimum": 1, "maximum": 1048576}, )"
            R"("options_test_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}, )"
            R"("options_test_signed": {"type": "integer", "minimum": -1, "maximum": 100}, )"
            R"("options_test_color": {"enum": ["red", "green"]}, "options_test_upper": {"type": "string"}}, )"
            R"("required": ["options_test_count", "options_test_share", "options_test_signed", "options_test_color", )"
            R"("options_test_upper"]})"));
}

TEST(OptionsTable, HelpEndsInWhatTheFlagAccepts) {
  gflags::CommandLineFlagInfo info;
  ASSERT_TRUE(gflags::GetCommandLineFlagInfo("options_test_count", &info));
  EXPECT_EQ(info.description, "a count; allowed: an integer in [1, 2^20] (1 = one)");
  EXPECT_EQ(info.default_value, "7");
  EXPECT_TRUE(is_options_table_flag("options_test_count"));
}

TEST(OptionsTable, RangeOpenAtTheTopRefusesItsBound) {
  gflags::FlagSaver saver;
  Below b;
  ASSERT_FALSE(gflags::SetCommandLineOption("options_test_below", "0.999").empty());
  Below::flags.read(b);
  EXPECT_EQ(b.p, 0.999);
  ASSERT_FALSE(gflags::SetCommandLineOption("options_test_below", "1").empty());
  try {
    Below::flags.read(b);
    ADD_FAILURE() << "1 accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--options_test_below: invalid value '1'; allowed: a probability in [0, 1)");
  }
  EXPECT_EQ(compact(Below::flags.schema()),
            compact(R"({"properties": {"options_test_below": )"
                    R"({"type": "number", "minimum": 0, "exclusiveMaximum": 1}}, "required": ["options_test_below"]})"));
}

// A kByProgram table (a protocol's flags) is defined only when the program
// asks, and only then printed by --config_schema.
TEST(OptionsTable, ByProgramTablesAreDefinedOnRequest) {
  gflags::CommandLineFlagInfo info;
  EXPECT_FALSE(gflags::GetCommandLineFlagInfo("options_test_late", &info));
  EXPECT_FALSE(is_options_table_flag("options_test_late"));
  EXPECT_EQ(options_schema_json().find("late_test_flags"), std::string::npos);
  Late::flags.define_flags();
  Late::flags.define_flags();  // once only: gflags refuses a second definition
  ASSERT_TRUE(gflags::GetCommandLineFlagInfo("options_test_late", &info));
  EXPECT_EQ(info.default_value, "3");
  EXPECT_NE(options_schema_json().find("late_test_flags"), std::string::npos);
  gflags::FlagSaver saver;
  ASSERT_FALSE(gflags::SetCommandLineOption("options_test_late", "10").empty());
  Late l;
  EXPECT_THROW(Late::flags.read(l), ConfigError);
}

}  // namespace
}  // namespace ccb
