// Flag parsing and validation: every bad flag raises one ConfigError naming it.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/config.h"
#include "workloads/ycsb/ycsb_options.h"

namespace ccb {
namespace {

// Parses `args` (without argv[0]) and builds both configs; returns the name
// of the flag the first error names, or "" if everything is valid.
std::string first_bad_flag(std::vector<std::string> args) {
  gflags::FlagSaver restore;  // flags are process-global: undo after the test
  std::vector<char*> argv = {const_cast<char*>("rundb-test")};
  for (auto& a : args) argv.push_back(a.data());
  try {
    parse_command_line(static_cast<int>(argv.size()), argv.data(), "test", {"rundb/"});
    EngineConfig::from_flags("test", {"ycsb", "tpcc"});
    YcsbOptions::from_flags();
  } catch (const ConfigError& e) {
    return e.flag;
  }
  return "";
}

TEST(CommandLine, ValidFlagsPass) {
  EXPECT_EQ(first_bad_flag({"--workload=ycsb", "--threads=4", "--theta", "0.99", "--noverify", "--timeline"}), "");
  EXPECT_EQ(first_bad_flag({"--partitions=4", "--home_partition=worker"}), "");
}

TEST(CommandLine, EachBadValueNamesItsFlag) {
  EXPECT_EQ(first_bad_flag({"--threads=0"}), "threads");
  EXPECT_EQ(first_bad_flag({"--threads=abc"}), "threads");
  EXPECT_EQ(first_bad_flag({"--duration=0"}), "duration");
  EXPECT_EQ(first_bad_flag({"--warmup=-1"}), "warmup");
  EXPECT_EQ(first_bad_flag({"--workload=tpcx"}), "workload");
  EXPECT_EQ(first_bad_flag({"--frontend=magic"}), "frontend");
  EXPECT_EQ(first_bad_flag({"--theta=-0.5"}), "theta");
  EXPECT_EQ(first_bad_flag({"--theta=nan"}), "theta");
  EXPECT_EQ(first_bad_flag({"--read_ratio=1.5"}), "read_ratio");
  EXPECT_EQ(first_bad_flag({"--payload_size=4"}), "payload_size");
  EXPECT_EQ(first_bad_flag({"--req_per_txn=65"}), "req_per_txn");
  EXPECT_EQ(first_bad_flag({"--table_size=0"}), "table_size");
  EXPECT_EQ(first_bad_flag({"--table_size=10", "--req_per_txn=16"}), "req_per_txn");
  EXPECT_EQ(first_bad_flag({"--table_size=100", "--partitions=101"}), "partitions");
  EXPECT_EQ(first_bad_flag({"--table_size=100", "--partitions=10", "--req_per_txn=11"}), "req_per_txn");
  EXPECT_EQ(first_bad_flag({"--home_partition=worker"}), "home_partition");  // needs --partitions
  EXPECT_EQ(first_bad_flag({"--home_partition=any", "--partitions=4"}), "home_partition");
  EXPECT_EQ(first_bad_flag({"--txn_buffer=0"}), "txn_buffer");
  EXPECT_EQ(first_bad_flag({"--history_out=h.bin"}), "history_out");  // needs --verify
}

TEST(CommandLine, UnknownFlagsAndStrayArgumentsAreRejected) {
  EXPECT_EQ(first_bad_flag({"--thread=4"}), "thread");
  EXPECT_EQ(first_bad_flag({"--threads"}), "threads");  // missing value
  EXPECT_EQ(first_bad_flag({"ycsb"}), "?");
}

}  // namespace
}  // namespace ccb
