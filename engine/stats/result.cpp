#include "engine/stats/result.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "engine/stats/histogram.h"
#include "engine/core/json.h"
#include "engine/verify/cf_check.h"
#include "engine/verify/checker.h"
#include "engine/verify/invariant.h"

namespace ccb {
namespace {

double per(double count, double total) { return total > 0 ? count / total : 0.0; }

}  // namespace

void write_commit_summary(JsonWriter& w, uint64_t commits, uint64_t aborts, double measured_s) {
  const double c = static_cast<double>(commits), a = static_cast<double>(aborts);
  w.key("throughput").value(per(c, measured_s));
  w.key("commits").value(commits);
  w.key("aborts").value(aborts);
  w.key("abort_rate").value(per(a, c + a));
}

void write_latency_us(JsonWriter& w, const LatencyHistogram& h) {
  w.key("latency_us").begin_object();
  w.key("avg").value(h.mean() / 1e3);
  w.key("p50").value(h.quantile(0.50) / 1e3);
  w.key("p90").value(h.quantile(0.90) / 1e3);
  w.key("p95").value(h.quantile(0.95) / 1e3);
  w.key("p99").value(h.quantile(0.99) / 1e3);
  w.key("p999").value(h.quantile(0.999) / 1e3);
  w.key("max").value(static_cast<double>(h.max()) / 1e3);
  w.end_object();
}

void write_correctness(JsonWriter& w, const std::vector<InvariantResult>& invariants,
                       const verify::CheckResult* check) {
  bool all_hold = true;
  for (const auto& inv : invariants) all_hold &= inv.ok;
  w.key("invariants_ok").value(all_hold);
  w.key("invariants").begin_array();
  for (const auto& inv : invariants)
    w.begin_object().key("name").value(inv.name).key("ok").value(inv.ok).key("detail").value(inv.detail).end_object();
  w.end_array();
  if (check != nullptr) {
    w.key("serializable").value(check->serializable);
    w.key("violation").raw_value(verify::violation_to_json(check->violation));
    w.key("verify").raw_value(verify::check_result_to_json(*check));
  }
}

int correctness_exit_code(const std::vector<InvariantResult>& invariants, const verify::CheckResult* check,
                          const verify::CfCheckResult* cc_free_check) {
  int rc = 0;
  for (const auto& inv : invariants) {
    if (!inv.ok) {
      std::fprintf(stderr, "error: invariant %s broken: %s\n", inv.name.c_str(), inv.detail.c_str());
      rc = 3;
    }
  }
  if (check != nullptr && !check->serializable) {
    std::fprintf(stderr, "error: history not serializable: %s\n", check->violation.message.c_str());
    rc = 3;
  }
  if (cc_free_check != nullptr && !cc_free_check->ok) {
    std::fprintf(stderr, "error: conflict-free phase had a conflict: %s\n", cc_free_check->message.c_str());
    rc = 3;
  }
  // A verified run that passed says so (the result's "verify" object has the
  // counts): one line on stderr, beside the run's log.
  if (check != nullptr && rc == 0)
    std::fprintf(stderr, "verify: serializable: %llu committed transactions, %zu invariants held\n",
                 static_cast<unsigned long long>(check->counts.txns), invariants.size());
  return rc;

}

void write_result_document(const std::string& path, const std::string& doc) {
  if (path.empty()) {
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << doc << '\n';
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

}  // namespace ccb
