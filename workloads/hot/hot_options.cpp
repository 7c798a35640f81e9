#include "workloads/hot/hot_options.h"

#include <gflags/gflags_declare.h>

#include <string>

DECLARE_uint64(seed);  // the engine's: seeds the time-varying placement

namespace ccb {
OptionsTable<HotOptions> HotOptions::flags{"hot_flags"};
}  // namespace ccb

CCB_OPTION(ccb::HotOptions::flags, table_size, uint64, hot_table_size, 1000000, ccb::range(1, 0x1p40, "an integer"),
           "HOT: records in the table (the Strife paper uses 50000000)");
CCB_OPTION(ccb::HotOptions::flags, hot_records, uint32, hot_records, 100, ccb::range(1, UINT32_MAX, "an integer"),
           "HOT: number of hot records; every transaction updates one of them");
// YCSB's flag (ycsb_options.cpp): 0 or 1 = one partition, N = N hash partitions.
CCB_SHARED_OPTION(ccb::HotOptions::flags, partitions, uint32, partitions,
                  ccb::range(0, 65536, "an integer", " (0 = one partition)"));
CCB_OPTION(ccb::HotOptions::flags, remote_max, uint32, hot_remote_max, 3,
           ccb::range(0, ccb::HotOptions::kCold, "an integer"),
           "HOT: at most this many of a transaction's 9 cold records lie outside its home partition");
CCB_OPTION(ccb::HotOptions::flags, shift_s, double, hot_shift_s, 0,
           ccb::range(0, 86400, "seconds", " (0 = fixed hot records)"),
           "HOT: 0 = hot records stay evenly spread over the partitions; > 0 (at least 0.001, needs --partitions >= "
           "2) = every this many seconds of the measured interval they move to a random number 1 <= n < "
           "partitions of partitions, drawn from --seed (Strife Fig. 8d uses ~30)");

namespace ccb {

HotOptions HotOptions::from_flags() {
  HotOptions o;
  flags.read(o);
  // Each partition reserves hot_records keys (all hot records may move into
  // one partition) and needs kCold more for distinct cold records.
  require(o.rows_per_partition() >= uint64_t{o.hot_records} + kCold, "hot_records",
          "at most hot_table_size / partitions - 9 = " +
              std::to_string(static_cast<int64_t>(o.rows_per_partition()) - kCold));
  require(o.shift_s == 0 || o.shift_s >= kMinShiftS, "hot_shift_s",
          "0 (fixed hot records) or a period of at least 0.001 seconds");
  require(o.shift_s == 0 || o.parts() >= 2, "hot_shift_s",
          "0 unless --partitions >= 2: the hot records move among the partitions");
  o.shift_seed = FLAGS_seed;
  return o;
}

void HotOptions::to_json(JsonWriter& w) const { flags.write(*this, w); }

}  // namespace ccb
