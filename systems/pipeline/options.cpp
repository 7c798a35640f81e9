#include "systems/pipeline/options.h"

#include <stdexcept>
#include <string>

#include "partitioners/reorder/policy.h"
#include "systems/fvs_flag.h"

namespace ccb::pipeline {

OptionsTable<PipelineOptions> PipelineOptions::flags{"pipeline_flags"};

namespace {

void read_mode(PipelineOptions& o, const std::string& text) { require(parse_mode(text, o.mode), "mode", kModeNames); }
void write_mode(const PipelineOptions& o, JsonWriter& w) { w.key("mode").value(mode_name(o.mode)); }

void read_algorithm(PipelineOptions& o, const std::string& text) {
  o.reorder.fvs = fvs_config_from_flag(text, "fvs_algorithm");
  o.fvs_algorithm = text;
}
void write_algorithm(const PipelineOptions& o, JsonWriter& w) { w.key("fvs_algorithm").value(o.fvs_algorithm); }

// After --fvs_algorithm (its row comes first): "" keeps the algorithm's policy.
void read_policy(PipelineOptions& o, const std::string& text) {
  if (text.empty()) return;
  try {
    o.reorder.fvs.policy = reorder::parse_policy(text);
  } catch (const std::invalid_argument&) {
    require(false, "fvs_policy", reorder::policy_names());
  }
}
void write_policy(const PipelineOptions& o, JsonWriter& w) {
  w.key("fvs_policy").value(reorder::policy_name(o.reorder.fvs.policy));
}

void read_edges(PipelineOptions& o, const uint64_t& edges) {
  o.reorder.max_graph_edges = edges == 0 ? reorder::kUnlimitedEdges : edges;
}
void write_edges(const PipelineOptions& o, JsonWriter& w) {
  const uint64_t edges = o.reorder.max_graph_edges;
  w.key("max_graph_edges").value(edges == reorder::kUnlimitedEdges ? 0 : edges);
}

void read_mutation(PipelineOptions& o, const std::string& text) {
  if (text == "none") {
    o.mutation = Mutation::kNone;
  } else {
    require(text == "reverse_commit_order", "mutation", "none, reverse_commit_order");
    o.mutation = Mutation::kReverseCommitOrder;
  }
}
void write_mutation(const PipelineOptions& o, JsonWriter& w) {
  w.key("mutation").value(o.mutation == Mutation::kNone ? "none" : "reverse_commit_order");
}

}  // namespace

// The dependency-graph edge cap: --max_graph_edges, or --max_graph_edge_share
// of the complete graph of a full batch (the longer version's "loose limit"
// has no value [INF: half of the complete graph, a limit that is "loose"], which must
// grow with the batch or a sweep of the batch size turns reordering off on
// large batches).
PipelineOptions PipelineOptions::from_flags() {
  PipelineOptions o = flags.read();
  require(o.concurrency >= o.clients, "concurrency",
          "an integer in " + describe_range(uint64_t{o.clients}, uint64_t{kMaxConcurrency}) + " (>= --clients)");
  try {
    reorder::validate(o.reorder.fvs);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("fvs_policy", e.what());
  }
  if (flag_given("max_graph_edge_share")) {
    require(!flag_given("max_graph_edges"), "max_graph_edge_share",
            "a share of the complete graph, not together with --max_graph_edges (give one of them)");
    require(o.max_graph_edge_share > 0, "max_graph_edge_share", "a number in (0, 1]");
    const double complete = static_cast<double>(o.batch_size) * (static_cast<double>(o.batch_size) - 1);
    o.reorder.max_graph_edges = static_cast<uint64_t>(o.max_graph_edge_share * complete);
  }
  return o;
}

}  // namespace ccb::pipeline

using ccb::pipeline::PipelineOptions;
CCB_PARSED_OPTION(PipelineOptions::flags, string, mode, "srvc", ccb::pipeline::read_mode, ccb::pipeline::write_mode,
                  R"({"enum": ["base", "batch", "sr", "vc", "srvc"]})",
                  "pipeline: base, batch, sr, vc or srvc (Ding et al. §5.2 series)");
CCB_OPTION(PipelineOptions::flags, clients, uint32, clients, 2, ccb::range(1, 64, "an integer"),
           "pipeline: transaction clients (generators)");
CCB_OPTION(PipelineOptions::flags, storage_workers, uint32, storage_workers, 2, ccb::range(1, 32, "an integer"),
           "pipeline: storage worker threads, each owning a hash partition");
CCB_OPTION(PipelineOptions::flags, concurrency, uint32, concurrency, 300,
           ccb::range(1, PipelineOptions::kMaxConcurrency, "an integer", " (>= --clients)"),
           "pipeline: transactions in flight at most");
CCB_OPTION(PipelineOptions::flags, batch_size, uint32, batch_size, 40, ccb::range(1, 10000, "an integer"),
           "pipeline: storage and validator batch size, by count");
CCB_OPTION(PipelineOptions::flags, flush_timeout_us, uint32, flush_timeout_us, 100,
           ccb::range(1, 1000000, "microseconds"), "pipeline: a partial batch is flushed after this many microseconds");
CCB_OPTION(PipelineOptions::flags, reorder_workers, uint32, reorder_workers, 4, ccb::range(1, 64, "an integer"),
           "pipeline: validator reorder workers in modes vc and srvc");
CCB_PARSED_OPTION(PipelineOptions::flags, string, fvs_algorithm, "greedy_sort", ccb::pipeline::read_algorithm,
                  ccb::pipeline::write_algorithm, R"({"type": "string", "minLength": 1})",
                  "pipeline: FVS algorithm of the validator reordering (partitioners/reorder)");
CCB_PARSED_OPTION(PipelineOptions::flags, string, fvs_policy, "", ccb::pipeline::read_policy,
                  ccb::pipeline::write_policy, R"({"type": "string", "minLength": 1})",
                  "pipeline: FVS policy overriding the algorithm's (prod_degree = mc, rct, rdeg, ...)");
CCB_OPTION(PipelineOptions::flags, reorder.fvs.multi_factor, uint32, fvs_multi_factor, 2,
           ccb::range(1, 1000, "an integer"), "pipeline: multi factor k of greedy_sort");
CCB_PARSED_OPTION(PipelineOptions::flags, uint64, max_graph_edges, 780, ccb::pipeline::read_edges,
                  ccb::pipeline::write_edges, R"({"type": "integer", "minimum": 0})",
                  "pipeline: dependency graphs with more edges are discarded and validated in arrival order (0 = "
                  "unlimited)");
CCB_OPTION(PipelineOptions::flags, max_graph_edge_share, double, max_graph_edge_share, 0,
           ccb::range(0, 1, "a number").explained("a number in (0, 1]"),
           "pipeline: instead of --max_graph_edges, the cap as a share of the complete graph's batch_size * "
           "(batch_size - 1) edges (0.5 gives 780 at batch 40), so it scales with the batch");
CCB_PARSED_OPTION(PipelineOptions::flags, string, mutation, "none", ccb::pipeline::read_mutation,
                  ccb::pipeline::write_mutation, R"({"enum": ["none", "reverse_commit_order"]})",
                  "pipeline, tests only: none or reverse_commit_order (a broken validator)");
