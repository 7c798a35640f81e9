// TPC-C flags: defaults, accepted values, and one clear error per bad value
// naming the flag.
#include "workloads/tpcc/tpcc_options.h"

#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "engine/config.h"

DECLARE_uint32(warehouses);
DECLARE_int32(threads);
DECLARE_string(mix);
DECLARE_int32(cross_pct);
DECLARE_uint32(by_last_name_pct);
DECLARE_uint64(expected_new_orders);

namespace ccb {
namespace {

// The flag named by the ConfigError from_flags() throws, or "" if none.
std::string rejected_flag() {
  try {
    TpccOptions::from_flags();
  } catch (const ConfigError& e) {
    return e.flag;
  }
  return "";
}

TEST(TpccOptionsTest, DefaultsAreTheSpecMixAndRemoteRates) {
  gflags::FlagSaver saver;
  const TpccOptions o = TpccOptions::from_flags();
  EXPECT_EQ(o.warehouses, 1u);
  EXPECT_EQ(o.mix, "standard");
  EXPECT_EQ(o.mix_pct, (std::array<uint32_t, 5>{45, 43, 4, 4, 4}));
  EXPECT_EQ(o.cross_pct, -1);
  EXPECT_TRUE(o.standard_remote());
  EXPECT_EQ(o.by_last_name_pct, 60u);
}

TEST(TpccOptionsTest, AcceptsNamedAndCustomMixes) {
  gflags::FlagSaver saver;
  FLAGS_mix = "neworder_payment";
  EXPECT_EQ(TpccOptions::from_flags().mix_pct, (std::array<uint32_t, 5>{50, 50, 0, 0, 0}));
  FLAGS_mix = "10,20,30,25,15";
  EXPECT_EQ(TpccOptions::from_flags().mix_pct, (std::array<uint32_t, 5>{10, 20, 30, 25, 15}));
}

TEST(TpccOptionsTest, CrossPctOverridesTheSpecRates) {
  gflags::FlagSaver saver;
  FLAGS_warehouses = 4;
  FLAGS_cross_pct = 25;
  const TpccOptions o = TpccOptions::from_flags();
  EXPECT_EQ(o.cross_pct, 25);
  EXPECT_FALSE(o.standard_remote());
  FLAGS_warehouses = 1;
  FLAGS_cross_pct = 0;  // nothing remote: fine with one warehouse
  EXPECT_EQ(rejected_flag(), "");
}

// --warehouses=0: one home warehouse per worker (the BCC paper's low
// contention setting, Fig 4), so a thread sweep keeps warehouses = threads.
TEST(TpccOptionsTest, ZeroWarehousesMeansOnePerThread) {
  gflags::FlagSaver saver;
  FLAGS_warehouses = 0;
  FLAGS_threads = 6;
  EXPECT_EQ(TpccOptions::from_flags().warehouses, 6u);
  FLAGS_threads = 1;
  FLAGS_cross_pct = 10;  // a remote transaction needs a second warehouse
  EXPECT_EQ(rejected_flag(), "cross_pct");
}

TEST(TpccOptionsTest, RejectsBadValuesNamingTheFlag) {
  struct Case {
    const char* flag;
    const char* value;
  };
  const Case cases[] = {
      {"warehouses", "65536"},     {"mix", "tpcc"},
      {"mix", "50,50,0,0"},        {"mix", "50,50,0,0,1"},       {"mix", "50,50,0,0,0,0"},
      {"mix", "50,50,x,0,0"},      {"cross_pct", "-2"},          {"cross_pct", "101"},
      {"by_last_name_pct", "101"}, {"expected_new_orders", "0"},
  };
  for (const Case& c : cases) {
    gflags::FlagSaver saver;
    ASSERT_FALSE(gflags::SetCommandLineOption(c.flag, c.value).empty()) << c.flag << "=" << c.value;
    EXPECT_EQ(rejected_flag(), c.flag) << c.flag << "=" << c.value;
  }
}

TEST(TpccOptionsTest, CrossWarehouseTransactionsNeedTwoWarehouses) {
  gflags::FlagSaver saver;
  FLAGS_warehouses = 1;
  FLAGS_cross_pct = 10;
  try {
    TpccOptions::from_flags();
    FAIL() << "accepted --cross_pct=10 with one warehouse";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "cross_pct");
    EXPECT_NE(std::string(e.what()).find("warehouses"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ccb
