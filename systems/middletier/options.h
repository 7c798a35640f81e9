// bin/middletier's options (middletier_main.cc reads them from its flags and
// checks them; docs/middletier.md): the mode (Ding et al. §5.6's series), the
// connections, the batch size, the reordering's FVS algorithm, and where the
// PostgreSQL server is.
#pragma once

#include <cstdint>
#include <string>

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
  std::string mode_name;
  uint32_t connections = 1;
  uint32_t batch_size = 50;
  reorder::ReorderOptions reorder;
  bool double_count_deposits = false;
  PgServer server;
};

}  // namespace ccb::middletier
