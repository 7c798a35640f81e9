#include "systems/middletier/options.h"

#include <string>
#include <vector>

#include "systems/fvs_flag.h"

namespace ccb::middletier {

OptionsTable<Options> Options::flags{"middletier_flags"};

namespace {

const std::vector<std::string>& modes() {
  static const std::vector<std::string> names{"nobatch", "batch", "reorder"};
  return names;
}
const std::vector<std::string>& mutations() {
  static const std::vector<std::string> names{"none", "double_count_deposits"};
  return names;
}

}  // namespace

Options Options::from_flags() {
  Options o = flags.read();
  o.mode = o.mode_name == "nobatch" ? Mode::kNoBatch : o.mode_name == "batch" ? Mode::kBatch : Mode::kReorder;
  o.reorder.fvs = fvs_config_from_flag(o.fvs_algorithm, "fvs_algorithm");
  require(!o.server.user.empty(), "pg_user", "a PostgreSQL user name");
  require(!o.server.database.empty(), "pg_database", "a PostgreSQL database name");
  o.double_count_deposits = o.mutation == "double_count_deposits";
  return o;
}

}  // namespace ccb::middletier

using ccb::middletier::Options;
CCB_OPTION(Options::flags, mode_name, string, mode, "reorder",
           ccb::one_of(&ccb::middletier::modes).not_echoed(),
           "middletier: nobatch, batch or reorder (Ding et al. §5.6 series)");
CCB_OPTION(Options::flags, connections, uint32, connections, 4, ccb::range(1, 256, "an integer").not_echoed(),
           "middletier: database connections, one client thread each");
CCB_OPTION(Options::flags, batch_size, uint32, batch_size, 50, ccb::range(1, 10000, "an integer").not_echoed(),
           "middletier: requests per batch in modes batch and reorder");
CCB_OPTION(Options::flags, fvs_algorithm, string, fvs_algorithm, "greedy_sort", ccb::any_value().not_echoed(),
           "middletier: FVS algorithm of mode reorder (partitioners/reorder)");
CCB_OPTION(Options::flags, server.host, string, pg_host, "", ccb::any_value().not_echoed(),
           "middletier: PostgreSQL host or Unix-socket directory (the harness passes its private server's)");
CCB_OPTION(Options::flags, server.port, uint32, pg_port, 0,
           ccb::range(1, 65535, "a TCP port", " (the harness passes its private server's)").not_echoed(),
           "middletier: PostgreSQL port (required)");
CCB_OPTION(Options::flags, server.user, string, pg_user, "ccbench", ccb::any_value().not_echoed(),
           "middletier: PostgreSQL user");
CCB_OPTION(Options::flags, server.database, string, pg_database, "postgres", ccb::any_value().not_echoed(),
           "middletier: PostgreSQL database (its tables accounts, savings, checking are replaced)");
CCB_OPTION(Options::flags, mutation, string, mutation, "none", ccb::one_of(&ccb::middletier::mutations).not_echoed(),
           "middletier, tests only: none or double_count_deposits (miscounts committed deposits, so the "
           "conservation check must fail)");
