// engine/core/cli.h, the flag parsing the engine and the tools share: list
// flags, whole-text numbers, the parser's refusals and --help's flag list.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/cli.h"

DEFINE_string(cli_test_list, "1,2", "a list flag of this test");
DEFINE_uint32(cli_test_count, 3, "a count flag of this test");

namespace ccb {
namespace {

// The message of the ConfigError `f` throws ("" if none) and its flag.
template <class F>
std::pair<std::string, std::string> refusal(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return {e.flag, e.what()};
  }
  return {"", ""};
}

TEST(CliLists, ItemsAreSplitAtCommas) {
  EXPECT_EQ(list_items("a", "f", "x"), std::vector<std::string>{"a"});
  EXPECT_EQ(list_items("a,b,c", "f", "x"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(CliLists, EmptyItemsAreRefusedNamingTheFlag) {
  for (const char* bad : {"", ",", "a,", ",a", "a,,b"}) {
    const auto [flag, what] = refusal([&] { list_items(bad, "cli_test_list", "letters"); });
    EXPECT_EQ(flag, "cli_test_list") << bad;
    EXPECT_NE(what.find("allowed: letters"), std::string::npos) << what;
  }
}

TEST(CliLists, NumbersAreWholeAndInRange) {
  EXPECT_EQ(number_list<uint64_t>("1,2,1024", 1, 1024, "f", "integers"), (std::vector<uint64_t>{1, 2, 1024}));
  EXPECT_EQ(number_list("0,0.5,1", 0.0, 1.0, "f", "numbers"), (std::vector<double>{0, 0.5, 1}));
  for (const char* bad : {"0", "1025", "-1", "+1", "1x", "1.5", " 1", "1,,2"}) {
    EXPECT_EQ(refusal([&] { number_list<uint64_t>(bad, 1, 1024, "cli_test_list", "integers"); }).first,
              "cli_test_list")
        << bad;
  }
  for (const char* bad : {"1.01", "-0.1", "nan", "inf", "0.5x", ""}) {
    EXPECT_EQ(refusal([&] { number_list(bad, 0.0, 1.0, "cli_test_list", "numbers"); }).first, "cli_test_list") << bad;
  }
  const auto [flag, what] = refusal([] { number_list<uint64_t>("1,0", 1, 1u << 20, "cli_test_list", "integers"); });
  EXPECT_NE(what.find("allowed: comma-separated integers, each in [1, 2^20]"), std::string::npos) << what;
}

TEST(CliNumbers, ParseNumberTakesTheWholeText) {
  uint64_t u = 0;
  EXPECT_TRUE(parse_number("18446744073709551615", u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_FALSE(parse_number("18446744073709551616", u));  // overflows
  double d = 0;
  EXPECT_TRUE(parse_number("1e-3", d));
  EXPECT_EQ(d, 1e-3);
  EXPECT_FALSE(parse_number("1e999", d));  // not finite
}

// Parses `args` (after argv[0]) with this file's flags as the program's.
bool parse(std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("cli_test")};
  for (auto& a : args) argv.push_back(a.data());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(),
                            ProgramHelp{"cli_test: about", {__FILE__}, "exit codes: none"});
}

TEST(CliParse, SetsFlagsAndRemembersWhichWereGiven) {
  gflags::FlagSaver restore;
  EXPECT_FALSE(flag_given("cli_test_count"));
  EXPECT_TRUE(parse({"--cli_test_count=7", "--cli_test_list", "4,5"}));
  EXPECT_EQ(FLAGS_cli_test_count, 7u);
  EXPECT_EQ(FLAGS_cli_test_list, "4,5");
  EXPECT_TRUE(flag_given("cli_test_count"));
  EXPECT_FALSE(flag_given("no_such_flag"));
}

TEST(CliParse, RefusesNamingTheFlag) {
  gflags::FlagSaver restore;
  EXPECT_EQ(refusal([] { parse({"--cli_test_bogus=1"}); }).first, "cli_test_bogus");
  EXPECT_EQ(refusal([] { parse({"--cli_test_count=x"}); }).first, "cli_test_count");
  EXPECT_EQ(refusal([] { parse({"--cli_test_count"}); }).first, "cli_test_count");  // missing value
  EXPECT_EQ(refusal([] { parse({"stray"}); }).first, "?");
  EXPECT_EQ(refusal([] { in_range(FLAGS_cli_test_count + 100, 1, 10, "cli_test_count", "an integer"); }).first,
            "cli_test_count");
}

TEST(CliParse, HelpListsOnlyTheProgramsFlags) {
  testing::internal::CaptureStdout();
  EXPECT_FALSE(parse({"--help"}));
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_EQ(help.rfind("cli_test: about\n\n", 0), 0u) << help;
  EXPECT_NE(help.find("  --cli_test_count (uint32, default 3)\n      a count flag of this test\n"), std::string::npos);
  EXPECT_NE(help.find("  --cli_test_list (string, default 1,2)\n"), std::string::npos);
  EXPECT_EQ(help.find("--flagfile"), std::string::npos) << "gflags' own flags are not the program's";
  EXPECT_NE(help.find("\nexit codes: none\n"), std::string::npos);

  testing::internal::CaptureStdout();
  EXPECT_FALSE(parse({"--list_flags"}));
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "cli_test_count\ncli_test_list\n");
}

// An output name the file system cannot hold (with the writer's ".tmp.<pid>"
// suffix) is refused up front, not as a failed write after the run.
TEST(CliPaths, NamesTooLongForTheFileSystemAreRefused) {
  EXPECT_NO_THROW(require_writable_path("/tmp/" + std::string(200, 'x'), "out"));
  try {
    require_writable_path("/tmp/" + std::string(250, 'x'), "out");
    FAIL() << "a 250-byte name accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "out");
    EXPECT_NE(std::string(e.what()).find("at most"), std::string::npos) << e.what();
  }
  EXPECT_THROW(require_writable_path("/no/such/dir/x.json", "out"), ConfigError);
}

}  // namespace
}  // namespace ccb
