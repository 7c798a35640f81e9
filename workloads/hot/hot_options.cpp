#include "workloads/hot/hot_options.h"

#include <gflags/gflags.h>

#include <cmath>
#include <string>

#include "engine/config.h"
#include "engine/stats/json.h"

DEFINE_uint64(hot_table_size, 1000000, "HOT: records in the table (the Strife paper uses 50000000)");
DEFINE_uint32(hot_records, 100, "HOT: number of hot records; every transaction updates one of them (>= 1)");
DEFINE_uint32(hot_remote_max, 3,
              "HOT: at most this many of a transaction's 9 cold records lie outside its home partition (0..9)");
DEFINE_double(hot_shift_s, 0,
              "HOT: 0 = hot records stay evenly spread over the partitions; > 0 = every this many seconds they move "
              "to a random number n < partitions of random partitions (Strife Fig. 8d uses ~30)");
DECLARE_uint32(partitions);  // shared with YCSB: 0 or 1 = one partition, N = N hash partitions
DECLARE_uint64(seed);        // engine: seeds the time-varying placement

namespace ccb {

HotOptions HotOptions::from_flags() {
  HotOptions o;
  require(FLAGS_hot_table_size >= 1 && FLAGS_hot_table_size <= (uint64_t{1} << 40), "hot_table_size",
          "an integer in [1, 2^40]");
  o.table_size = FLAGS_hot_table_size;
  require(FLAGS_partitions <= 65536, "partitions", "0 (one partition) or an integer in [1, 65536]");
  o.partitions = FLAGS_partitions;
  require(FLAGS_hot_records >= 1, "hot_records", "an integer >= 1");
  o.hot_records = FLAGS_hot_records;
  // Each partition reserves hot_records keys (all hot records may move into
  // one partition) and needs kCold more for distinct cold records.
  require(o.rows_per_partition() >= uint64_t{o.hot_records} + kCold, "hot_records",
          "at most hot_table_size / partitions - 9 = " +
              std::to_string(static_cast<int64_t>(o.rows_per_partition()) - kCold));
  require(FLAGS_hot_remote_max <= kCold, "hot_remote_max", "an integer in [0, 9]");
  o.remote_max = FLAGS_hot_remote_max;
  require(std::isfinite(FLAGS_hot_shift_s) && FLAGS_hot_shift_s >= 0 && FLAGS_hot_shift_s <= 86400, "hot_shift_s",
          "seconds in [0, 86400] (0 = fixed hot records)");
  o.shift_s = FLAGS_hot_shift_s;
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
