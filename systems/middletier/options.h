// bin/middletier's options (docs/middletier.md): the mode (Ding et al.
// §5.6's series), the connections, the batch size, the reordering's FVS
// algorithm, and where the PostgreSQL server is. Its flags are the rows of
// its options table (options.cpp, compiled into bin/middletier only;
// engine/core/options.h); the result's "config" is written by
// middletier_main.cc (the server's place nested in "database"), so no row
// is echoed by the table.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/options.h"
#include "partitioners/reorder/reorder.h"

namespace ccb::middletier {

enum class Mode { kNoBatch, kBatch, kReorder };

// Where the server is (--pg_host, --pg_port, --pg_user, --pg_database).
struct PgServer {
  std::string host;
  uint32_t port = 0;
  std::string user;
  std::string database;
};

struct Options {
  Mode mode = Mode::kReorder;
  std::string mode_name;       // --mode
  uint32_t connections = 1;
  uint32_t batch_size = 50;
  std::string fvs_algorithm;   // the name reorder.fvs was made from
  reorder::ReorderOptions reorder;
  std::string mutation;        // --mutation: none | double_count_deposits
  bool double_count_deposits = false;
  PgServer server;

  // Its rows (options.cpp); from_flags reads them, resolves the mode and the
  // FVS algorithm, and refuses an empty user or database name.
  static OptionsTable<Options> flags;
  static Options from_flags();
};

}  // namespace ccb::middletier
