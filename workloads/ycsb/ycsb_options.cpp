#include "workloads/ycsb/ycsb_options.h"

#include <string>

namespace ccb {
OptionsTable<YcsbOptions> YcsbOptions::flags{"ycsb_flags"};

const std::vector<std::string>& YcsbOptions::home_partitions() {
  static const std::vector<std::string> names{"uniform", "worker"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::YcsbOptions::flags, table_size, uint64, table_size, 1 << 20,
           ccb::range(1, 0x1p40, "an integer"), "YCSB: rows in the table");
CCB_OPTION(ccb::YcsbOptions::flags, payload_size, uint32, payload_size, 100, ccb::range(8, 65536, "bytes"),
           "YCSB: payload bytes per row (the first 8 bytes are a counter)");
CCB_OPTION(ccb::YcsbOptions::flags, req_per_txn, uint32, req_per_txn, 16,
           ccb::range(1, ccb::YcsbOptions::kMaxRequests, "an integer"),
           "YCSB: requests (distinct keys) per transaction");
CCB_OPTION(ccb::YcsbOptions::flags, read_ratio, double, read_ratio, 0.5, ccb::range(0, 1, "a fraction"),
           "YCSB: fraction of requests that are reads; the rest are read-modify-writes");
CCB_OPTION_GROUP(ccb::YcsbOptions::flags, key_skew, ccb::KeySkewOptions::flags);  // --theta
CCB_OPTION(ccb::YcsbOptions::flags, partitions, uint32, partitions, 0, ccb::any_value(),
           "YCSB, HOT: 0 = unpartitioned; N >= 1 = N partitions (YCSB: equal key ranges, each transaction inside "
           "one, N <= --table_size)");
CCB_OPTION(ccb::YcsbOptions::flags, home_partition, string, home_partition, "uniform",
           ccb::one_of(&ccb::YcsbOptions::home_partitions),
           "YCSB with --partitions: the key range a transaction stays inside: uniform (drawn per transaction, "
           "the Strife paper's YCSB) or worker (worker i's transactions all inside range i mod partitions, as "
           "DBx1000 issues H-Store's transactions at their partition's thread, FIRST_PART_LOCAL)");

namespace ccb {

YcsbOptions YcsbOptions::from_flags() {
  YcsbOptions o;
  flags.read(o);
  require(o.partitions <= o.table_size, "partitions", "0 (off) or an integer in [1, table_size]");
  require(!o.worker_home() || o.partitions >= 1, "home_partition",
          "uniform when --partitions=0 (worker binds each worker to one of the --partitions key ranges)");
  require(o.keys_per_partition() >= o.req_per_txn, "req_per_txn",
          "at most the keys per partition (--table_size / --partitions: " + std::to_string(o.keys_per_partition()) +
              "): keys in a transaction are distinct");
  return o;
}

void YcsbOptions::to_json(JsonWriter& w) const { flags.write(*this, w); }

}  // namespace ccb
