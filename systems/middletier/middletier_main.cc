// bin/middletier: middle-tier batching and reordering in front of a real
// PostgreSQL server (Ding et al., PVLDB 2018, §5.6 "Integration with DBMS-X",
// Figs 26-28; docs/middletier.md). DBMS-X is a commercial OCC engine; the
// substitute database is PostgreSQL at SERIALIZABLE (SSI), whose
// serialization failures are this program's aborts.
//
// The middle tier takes SmallBank requests (workloads/smallbank's
// SmallBankGenerator: generate() and describe(), no engine tables) and sends each as one call of a PL/pgSQL
// procedure over one of --connections libpq connections:
//   nobatch  every connection runs its own closed loop, one request at a time;
//   batch    requests are grouped into batches of --batch_size (50, §5.6: "We
//            choose 50 as a proper batch size"); a batch is spread over the
//            connections in arrival order and the next batch starts when it has
//            committed (the JDBC batch call "returns after all the
//            transactions are processed");
//   reorder  as batch, but the batch is first reordered as the validator does
//            (partitioners/reorder: dependency graph, FVS by --fvs_algorithm,
//            default greedy_sort with prod-degree, commit order). §5.6: "we
//            conservatively assume that all the transactions in a batch read
//            from the same snapshot", so RS(t) = predicted reads and writes and
//            an edge t' -> t means t' reads what t writes (graph.h). "The
//            transactions excluded from the batch [the FVS], together with
//            future incoming transactions, are included in the next batch."
// A serialization failure (SQLSTATE 40001) or deadlock (40P01) is an abort;
// the client retries the request on the same connection until it commits.
//
// After the run, money conservation is checked in PostgreSQL: the sum of all
// balances must equal the loaded total plus the net money the committed
// procedures reported (exit 3 when it does not).
//
// Files: postgres.h (the connection, the tables and their loading, the
// procedure), batcher.h (the batches of modes batch and reorder), options.h
// and options.cpp (the options and the rows of their flags); this file the
// client threads, the run and the result document.
//
// The program is one of the harness's programs (scripts/ccbench/specification/programs.py):
// --name=value flags, --list_flags, exit 2 with one line naming the flag on
// bad input (nothing written), one JSON document to --out. The harness starts
// the private server and passes --pg_host and --pg_port.
#include <glog/logging.h>
#include <libpq-fe.h>
#include <sys/resource.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/config.h"
#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/stats/histogram.h"
#include "engine/core/json.h"
#include "engine/stats/provenance.h"
#include "engine/stats/result.h"
#include "partitioners/reorder/policy.h"
#include "partitioners/reorder/reorder.h"
#include "systems/middletier/batcher.h"
#include "systems/middletier/options.h"
#include "systems/middletier/postgres.h"
#include "workloads/common/table_util.h"
#include "workloads/smallbank/smallbank_generator.h"

namespace {

using namespace ccb;
using namespace ccb::middletier;

// The flags (options.cpp), with the engine's seed.
Options options_from_flags(const EngineConfig& cfg) {
  Options o = Options::from_flags();
  o.reorder.fvs.seed = cfg.seed;
  return o;
}

// --- the client threads --------------------------------------------------------

enum Phase : int { kWarmup, kMeasuring, kStopping };

struct ThreadStats {
  uint64_t commits = 0, aborts = 0, deadlocks = 0, rollbacks = 0;  // in the measured interval
  LatencyHistogram latency;                                        // commits in the measured interval
  int64_t net_money = 0;                                           // every commit of the run
  uint64_t all_commits = 0;
};

// One request on one connection, retried after every serialization failure
// or deadlock until it commits (or the run stops). Latency runs from
// `arrival` (the request entering the middle tier) to the commit.
class Client {
 public:
  Client(const Options& opt, const std::atomic<int>& phase) : opt_(opt), phase_(phase), conn_(opt.server) {
    conn_.prepare("sb", "SELECT sb_txn($1::integer, $2::integer, $3::integer, $4::integer)");
    Result iso = conn_.exec("SHOW transaction_isolation");
    if (std::string(PQgetvalue(iso.get(), 0, 0)) != "serializable")
      throw std::runtime_error("the connection's isolation is not serializable");
  }

  void run(const SmallBankRequest& r, Clock::time_point arrival) {
    const std::string t = std::to_string(r.type), c1 = std::to_string(r.c1), c2 = std::to_string(r.c2),
                      v = std::to_string(r.amount);
    const char* params[] = {t.c_str(), c1.c_str(), c2.c_str(), v.c_str()};
    for (;;) {
      Result res = conn_.exec_prepared("sb", 4, params);
      const bool measuring = phase_.load(std::memory_order_relaxed) == kMeasuring;
      if (PQresultStatus(res.get()) == PGRES_TUPLES_OK) {
        const bool rolled_back = PQgetisnull(res.get(), 0, 0);
        int64_t net = rolled_back ? 0 : std::strtoll(PQgetvalue(res.get(), 0, 0), nullptr, 10);
        if (opt_.double_count_deposits && r.txn() == SmallBankTxn::kDepositChecking) net *= 2;
        stats.net_money += net;
        ++stats.all_commits;
        if (measuring) {
          ++stats.commits;
          stats.rollbacks += rolled_back;
          stats.latency.record(static_cast<uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - arrival).count()));
        }
        return;
      }
      const char* state = PQresultErrorField(res.get(), PG_DIAG_SQLSTATE);
      const std::string sqlstate = state ? state : "";
      if (sqlstate != "40001" && sqlstate != "40P01")
        throw std::runtime_error("PostgreSQL: sb_txn: " + std::string(PQresultErrorMessage(res.get())));
      if (measuring) {
        ++stats.aborts;
        stats.deadlocks += sqlstate == "40P01";
      }
      if (phase_.load(std::memory_order_relaxed) == kStopping) return;  // dropped: never committed
    }
  }

  ThreadStats stats;

 private:
  const Options& opt_;
  const std::atomic<int>& phase_;
  Connection conn_;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct RunResult {
  ThreadStats total;
  BatchStats batches;
  double measured_s = 0, cpu_s = 0;
  int64_t loaded_total = 0, stored_total = 0;
  double load_s = 0;
  uint64_t carried_at_end = 0;
};

RunResult run(const EngineConfig& cfg, const Options& opt, const SmallBankOptions& sb) {
  RunResult out;
  SmallBankGenerator workload(sb);
  workload.prepare();
  Connection admin(opt.server);
  const auto load_start = Clock::now();
  out.loaded_total = load_database(admin, sb.customers);
  out.load_s = std::chrono::duration<double>(Clock::now() - load_start).count();

  std::atomic<int> phase{kWarmup};
  std::vector<std::unique_ptr<Client>> clients;
  for (uint32_t i = 0; i < opt.connections; ++i) clients.push_back(std::make_unique<Client>(opt, phase));

  Batcher batcher(opt, workload, cfg.seed * 0x9e3779b97f4a7c15ULL + 1);
  std::exception_ptr batch_error;
  bool finished = false;
  auto completion = [&]() noexcept {
    if (phase.load() == kStopping || batch_error) {
      finished = true;
      batcher.finish();
      return;
    }
    try {
      batcher.next();
    } catch (...) {
      batch_error = std::current_exception();
      finished = true;
      batcher.finish();
    }
  };
  std::barrier barrier(static_cast<std::ptrdiff_t>(opt.connections), completion);
  if (opt.mode != Mode::kNoBatch) batcher.next();

  std::vector<std::exception_ptr> errors(opt.connections);
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < opt.connections; ++i) {
    threads.emplace_back([&, i] {
      Client& client = *clients[i];
      try {
        if (opt.mode == Mode::kNoBatch) {
          Random rng(cfg.seed * 1000003 + i + 2);
          SmallBankRequest r;
          while (phase.load(std::memory_order_relaxed) != kStopping) {
            workload.generate(rng, i, r);
            client.run(r, Clock::now());
          }
          return;
        }
        while (!finished) {
          while (const Request* q = batcher.take()) client.run(q->r, q->arrival);
          barrier.arrive_and_wait();
        }
      } catch (...) {
        errors[i] = std::current_exception();
        phase.store(kStopping);
        if (opt.mode != Mode::kNoBatch) barrier.arrive_and_drop();  // the others finish the batch and stop
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(cfg.warmup_s));
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  int expected = kWarmup;
  phase.compare_exchange_strong(expected, kMeasuring);
  std::this_thread::sleep_for(std::chrono::duration<double>(cfg.duration_s));
  phase.store(kStopping);
  out.measured_s = std::chrono::duration<double>(Clock::now() - t0).count();
  out.cpu_s = cpu_seconds() - cpu0;
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (batch_error) std::rethrow_exception(batch_error);

  for (const auto& c : clients) {
    const ThreadStats& s = c->stats;
    out.total.commits += s.commits;
    out.total.aborts += s.aborts;
    out.total.deadlocks += s.deadlocks;
    out.total.rollbacks += s.rollbacks;
    out.total.latency.merge(s.latency);
    out.total.net_money += s.net_money;
    out.total.all_commits += s.all_commits;
  }
  out.batches = batcher.stats;
  out.carried_at_end = batcher.carried();
  out.stored_total = stored_total(admin);
  return out;
}

int write_result(const EngineConfig& cfg, const Options& opt, const SmallBankOptions& sb, const RunResult& r) {
  const std::vector<InvariantResult> invariants{
      equality_invariant("smallbank_money", "sum of balances in PostgreSQL", r.stored_total,
                         "loaded total + committed net deposits", r.loaded_total + r.total.net_money)};
  JsonWriter w;
  w.begin_object();
  w.key("config").begin_object();
  w.key("program").value("middletier");
  cfg.to_json(w);
  w.key("mode").value(opt.mode_name);
  w.key("connections").value(opt.connections);
  w.key("batch_size").value(opt.batch_size);
  w.key("fvs_algorithm").value(opt.fvs_algorithm);
  w.key("fvs_policy").value(reorder::policy_name(opt.reorder.fvs.policy));
  w.key("isolation").value("serializable");
  w.key("mutation").value(opt.mutation);
  sb.to_json(w);
  w.key("database").begin_object();
  w.key("libpq_version").value(PQlibVersion());
  w.key("pg_host").value(opt.server.host);
  w.key("pg_port").value(opt.server.port);
  w.end_object();
  write_build_info(w);
  w.end_object();
  w.key("provenance").begin_object();
  write_provenance(w, static_cast<int>(opt.connections), {});
  w.end_object();

  const double commits = static_cast<double>(r.total.commits);
  write_commit_summary(w, r.total.commits, r.total.aborts, r.measured_s);
  w.key("deadlocks").value(r.total.deadlocks);
  w.key("procedure_rollbacks").value(r.total.rollbacks);
  write_latency_us(w, r.total.latency);
  // Is the middle tier the bottleneck? Its own CPU time in the measured
  // interval (all threads: libpq, batching, reordering) per commit and as
  // cores busy; the server runs in other processes.
  w.key("middletier").begin_object();
  w.key("cpu_s").value(r.cpu_s);
  w.key("cores_busy").value(r.measured_s > 0 ? r.cpu_s / r.measured_s : 0.0);
  w.key("cpu_us_per_commit").value(commits > 0 ? r.cpu_s * 1e6 / commits : 0.0);
  w.end_object();
  const BatchStats& b = r.batches;
  const double batches = static_cast<double>(b.batches);
  w.key("reorder").begin_object();
  w.key("batches").value(b.batches);
  w.key("txns").value(b.txns);
  w.key("us_per_batch").value(b.batches ? static_cast<double>(b.reorder_ns) / batches / 1e3 : 0.0);
  w.key("avg_fvs_size").value(b.batches ? static_cast<double>(b.fvs_total) / batches : 0.0);
  w.key("max_fvs_size").value(b.fvs_max);
  w.key("avg_graph_edges").value(b.batches ? static_cast<double>(b.edges_total) / batches : 0.0);
  w.key("max_times_carried").value(b.carried_max);
  w.key("carried_at_end").value(r.carried_at_end);
  w.end_object();
  w.key("phases").begin_object();
  w.key("load_s").value(r.load_s);
  w.key("warmup_s").value(cfg.warmup_s);
  w.key("measured_s").value(r.measured_s);
  w.end_object();
  w.key("memory").begin_object().key("peak_rss_bytes").value(peak_rss_bytes()).end_object();
  write_correctness(w, invariants, nullptr);
  w.end_object();
  write_result_document(cfg.out, w.str());
  return correctness_exit_code(invariants, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  return program_main(argc, argv, "middletier", {"smallbank"}, [](const EngineConfig& cfg) {
    // Engine flags that do not apply to the middle tier.
    reject_flags({"threads", "measure_txns", "frontend", "pin", "timeline", "txn_buffer", "backoff_max_us",
                  "load_threads", "verify", "history_out"},
                 "not used by the middle tier; its concurrency is --connections, and PostgreSQL "
                 "(SERIALIZABLE) is what keeps the history serializable");
    const Options opt = options_from_flags(cfg);
    const SmallBankOptions sb = SmallBankOptions::from_flags();
    if (cfg.validate_only) return (SmallBankGenerator(sb), 0);  // the generator's checks; no connection
    return write_result(cfg, opt, sb, run(cfg, opt, sb));
  });
}
