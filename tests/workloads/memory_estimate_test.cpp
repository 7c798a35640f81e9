// Every workload's memory_estimate() (what load() will allocate, computed
// from the options alone) against what its tables really hold once loaded,
// and the refusal of a load that cannot fit (engine/config.h).
#include <gtest/gtest.h>

#include <string>

#include "engine/cc/silo/silo.h"
#include "engine/config.h"
#include "workloads/hot/hot.h"
#include "workloads/micro/micro.h"
#include "workloads/smallbank/smallbank.h"
#include "workloads/tpcc/tpcc.h"
#include "workloads/tpcw/tpcw.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb {
namespace {

using CC = Silo;  // any protocol: the row header's size enters the estimate

template <class W>
void expect_estimate_matches_load(W w, const std::string& size_flag) {
  const MemoryEstimate e = w.memory_estimate();
  EXPECT_EQ(e.size_flag, size_flag);
  w.load(2);
  const double loaded = static_cast<double>(w.memory_bytes());
  ASSERT_GT(loaded, 0);
  // Exact for the fixed-size tables; TPC-C draws its order lines and fills
  // its name index in arena chunks, so allow a few percent there.
  EXPECT_NEAR(static_cast<double>(e.bytes), loaded, 0.03 * loaded) << W::kName;
}

TEST(MemoryEstimate, YcsbMatchesTheLoadedTable) {
  YcsbOptions o;
  o.table_size = 100000;
  o.payload_size = 100;
  o.req_per_txn = 16;
  expect_estimate_matches_load(YcsbWorkload<CC>(o), "table_size");
  o.payload_size = 1000;
  EXPECT_GT(YcsbWorkload<CC>(o).memory_estimate().bytes, size_t{1000} * 100000) << "payload counts";
}

TEST(MemoryEstimate, TpccMatchesTheLoadedDatabase) {
  TpccOptions o = TpccOptions::from_flags();
  for (uint32_t w : {1u, 2u}) {  // two sizes: the estimate must follow the warehouses
    o.warehouses = w;
    expect_estimate_matches_load(TpccWorkload<CC>(o), "warehouses");
  }
}

TEST(MemoryEstimate, OtherWorkloadsMatchTheirLoadedTables) {
  SmallBankOptions sb = SmallBankOptions::from_flags();
  sb.customers = 50000;
  expect_estimate_matches_load(SmallBankWorkload<CC>(sb), "smallbank_customers");
  TpcwOptions tw = TpcwOptions::from_flags();
  tw.items = 20000;
  expect_estimate_matches_load(TpcwWorkload<CC>(tw), "tpcw_items");
  HotOptions hot = HotOptions::from_flags();
  hot.table_size = 50000;
  expect_estimate_matches_load(HotWorkload<CC>(hot), "hot_table_size");
  MicroOptions micro = MicroOptions::from_flags();
  micro.objects = 50000;
  expect_estimate_matches_load(MicroWorkload<CC>(micro), "micro_objects");
}

TEST(MemoryEstimate, ALoadThatCannotFitIsRefusedNamingItsFlag) {
  const size_t gib = size_t{1} << 30;
  try {
    require_memory_fits(40 * gib, "table_size", 20 * gib, false);
    FAIL() << "not refused";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "table_size");
    const std::string what = e.what();
    EXPECT_NE(what.find("40.0 GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("20.0 GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("--ignore_memory_limit"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(require_memory_fits(40 * gib, "table_size", 20 * gib, true)) << "overridden";
  EXPECT_NO_THROW(require_memory_fits(20 * gib, "table_size", 20 * gib, false)) << "fits exactly";
  EXPECT_NO_THROW(require_memory_fits(40 * gib, "table_size", 0, false)) << "available memory unknown";
}

TEST(MemoryEstimate, AvailableMemoryIsReadFromTheSystem) {
  const size_t available = available_memory_bytes();
  EXPECT_GT(available, size_t{1} << 20);
  EXPECT_LT(available, size_t{1} << 50);
}

}  // namespace
}  // namespace ccb
