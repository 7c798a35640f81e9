#include "workloads/ycsb/ycsb_options.h"

#include <gflags/gflags.h>

#include <cmath>
#include <string>

#include "engine/config.h"
#include "workloads/key_skew.h"
#include "engine/core/json.h"

DEFINE_uint64(table_size, 1 << 20, "YCSB: rows in the table (>= 1)");
DEFINE_uint32(payload_size, 100, "YCSB: payload bytes per row (8..65536; the first 8 bytes are a counter)");
DEFINE_uint32(req_per_txn, 16, "YCSB: requests (distinct keys) per transaction (1..64)");
DEFINE_double(read_ratio, 0.5, "YCSB: fraction of requests that are reads; the rest are read-modify-writes ([0, 1])");
DEFINE_uint32(partitions, 0, "YCSB, HOT: 0 = unpartitioned; N >= 1 = N partitions (YCSB: equal key ranges, each transaction inside one)");

namespace ccb {

YcsbOptions YcsbOptions::from_flags() {
  YcsbOptions o;
  o.table_size = in_range(FLAGS_table_size, 1, uint64_t{1} << 40, "table_size", "an integer");
  o.payload_size = in_range(FLAGS_payload_size, 8, 65536, "payload_size", "bytes");
  o.req_per_txn = in_range(FLAGS_req_per_txn, 1, kMaxRequests, "req_per_txn", "an integer");
  o.read_ratio = in_range(FLAGS_read_ratio, 0.0, 1.0, "read_ratio", "a fraction");
  o.theta = theta_flag();
  require(FLAGS_partitions <= FLAGS_table_size, "partitions", "0 (off) or an integer in [1, table_size]");
  o.partitions = FLAGS_partitions;
  require(o.keys_per_partition() >= o.req_per_txn, "req_per_txn",
          "at most the keys per partition (--table_size / --partitions: " + std::to_string(o.keys_per_partition()) +
              "): keys in a transaction are distinct");
  return o;
}

void YcsbOptions::to_json(JsonWriter& w) const {
  w.key("table_size").value(table_size);
  w.key("payload_size").value(payload_size);
  w.key("req_per_txn").value(req_per_txn);
  w.key("read_ratio").value(read_ratio);
  w.key("theta").value(theta);
  w.key("partitions").value(partitions);
}

}  // namespace ccb
