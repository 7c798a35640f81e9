#include "workloads/hot/hot_options.h"

#include <gflags/gflags.h>

#include <cmath>
#include <string>

#include "engine/config.h"
#include "engine/core/json.h"

DEFINE_uint64(hot_table_size, 1000000, "HOT: records in the table (the Strife paper uses 50000000)");
DEFINE_uint32(hot_records, 100, "HOT: number of hot records; every transaction updates one of them (>= 1)");
DEFINE_uint32(hot_remote_max, 3,
              "HOT: at most this many of a transaction's 9 cold records lie outside its home partition (0..9)");
DEFINE_double(hot_shift_s, 0,
              "HOT: 0 = hot records stay evenly spread over the partitions; > 0 (at least 0.001, needs --partitions >= "
              "2) = every this many seconds of the measured interval they move to a random number 1 <= n < "
              "partitions of partitions, drawn from --seed (Strife Fig. 8d uses ~30)");
DECLARE_uint32(partitions);  // shared with YCSB: 0 or 1 = one partition, N = N hash partitions
DECLARE_uint64(seed);        // engine: seeds the time-varying placement

namespace ccb {

HotOptions HotOptions::from_flags() {
  HotOptions o;
  o.table_size = in_range(FLAGS_hot_table_size, 1, uint64_t{1} << 40, "hot_table_size", "an integer");
  o.partitions = in_range(FLAGS_partitions, 0, 65536, "partitions", "an integer", " (0 = one partition)");
  o.hot_records = in_range(FLAGS_hot_records, 1, UINT32_MAX, "hot_records", "an integer");
  // Each partition reserves hot_records keys (all hot records may move into
  // one partition) and needs kCold more for distinct cold records.
  require(o.rows_per_partition() >= uint64_t{o.hot_records} + kCold, "hot_records",
          "at most hot_table_size / partitions - 9 = " +
              std::to_string(static_cast<int64_t>(o.rows_per_partition()) - kCold));
  o.remote_max = in_range(FLAGS_hot_remote_max, 0, kCold, "hot_remote_max", "an integer");
  o.shift_s = in_range(FLAGS_hot_shift_s, 0.0, 86400.0, "hot_shift_s", "seconds", " (0 = fixed hot records)");
  require(o.shift_s == 0 || o.shift_s >= kMinShiftS, "hot_shift_s",
          "0 (fixed hot records) or a period of at least 0.001 seconds");
  require(o.shift_s == 0 || o.parts() >= 2, "hot_shift_s",
          "0 unless --partitions >= 2: the hot records move among the partitions");
  o.shift_seed = FLAGS_seed;
  return o;
}

void HotOptions::to_json(JsonWriter& w) const {
  w.key("hot_table_size").value(table_size);
  w.key("hot_records").value(hot_records);
  w.key("partitions").value(partitions);
  w.key("hot_remote_max").value(remote_max);
  w.key("hot_shift_s").value(shift_s);
}

}  // namespace ccb
