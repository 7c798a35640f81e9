// TSKD on the bundle executor (TSKD §3 Fig. 2, §4, §6.2): a partitioner's
// partition of each bundle, refined by TSgen (tsgen.h) into k RC-free queues
// and R_s, executed with TsDEFER (engine/exec/tsdefer.h).
//
// Per bundle (engine/exec/bundle_plan.h):
//   partition  the partitioner's (P_1..P_k, R) (partition_input: its time is
//              BundlePlan::input_partition_ns, outside the measured interval
//              with --partition_time=outside); TSKD[O]: none, P_i = ∅, R = W
//              (§4 "Scheduling without input partition");
//   extract    for a partitioner without an explicit residual (Schism,
//              Horticulture), TSKD's residual extraction (§6.1 "TSKD first
//              extracts a residual set", extract_residual in
//              partitioners/residual.h): TSKD's step, inside the interval;
//   TSgen      time(T) from the cost model (cost_model.h, warm-up history),
//              then Algorithm 1 -> Q_1..Q_k, R_s;
//   phase 1    thread i runs Q_i with CC (the paper's experiments run the
//              RC-free queues with CC, §3: "TSKD uses CC and TsDEFER ... to
//              guard the execution of RC-free transactions against
//              potentially overlooked conflicts") and TsDEFER;
//   phase 2    R_s assigned to the threads round-robin (§3 "By default, TsPAR
//              assigns transactions to the thread by round-robin"), run with
//              CC and TsDEFER ("with TsDEFER enabled").
// Variants (the series of TSKD §6.2 and Fig. 4j):
//   kTskd        TSKD[x], TSKD[O]: TSgen + TsDEFER in both phases;
//   kTsparOnly   TsPAR[x]: TSgen, TsDEFER off;
//   kTsdeferOnly TsDEFER[x]: no TSgen; thread i runs P_i with CC and
//                TsDEFER, then R round-robin with CC and TsDEFER (TSKD §6.2:
//                "TSKD with only TsDEFER enabled to execute partitions of
//                STRIFE"; §6.1: "For all TSKD instances, transactions are
//                executed with CC").
//
// Reported per bundle (plan.counters / step_us, averaged by the executor;
// docs/results.md): residual_in |R|, rs |R_s|, scheduled_pct s% (100 ×
// (|R| − |R_s|) / |R|; 100 for a bundle with R = ∅), load_ratio (max / min
// estimated queue time) and input_load_ratio (the same over P_1..P_k),
// overhead_r (TSgen time / partitioner time), cost_samples; steps partition,
// extract (Schism, Horticulture), estimate, tsgen (µs).
//
// Thread safety: plan() and observe_costs() on the executor's coordinator only.
#pragma once

#include <memory>
#include <string>

#include "engine/exec/bundle_plan.h"
#include "engine/tsdefer_options.h"
#include "partitioners/frontend_factory.h"
#include "partitioners/partitioning.h"
#include "partitioners/tspar/cost_model.h"
#include "partitioners/tspar/tsgen.h"

namespace ccb::tspar {

enum class Variant : uint8_t { kTskd, kTsparOnly, kTsdeferOnly };

struct TskdOptions {
  Variant variant = Variant::kTskd;
  unsigned threads = 1;  // k
  uint64_t seed = 1;     // R⃗
  ResidualOrder order = ResidualOrder::kRandom;
  TsDeferOptions tsdefer;
};

class TskdFrontend final : public BundleFrontend {
 public:
  // partitioner == nullptr: TSKD[O] (REQUIRES variant kTskd or kTsparOnly).
  TskdFrontend(const TskdOptions& options, std::unique_ptr<Partitioner> partitioner);
  void plan(std::span<const TxnDesc> batch, BundlePlan& plan) override;
  void params_json(JsonWriter& w) const override;
  const TsDeferOptions* tsdefer() const override {
    return options_.variant == Variant::kTsparOnly ? nullptr : &options_.tsdefer;
  }
  bool wants_costs() const override { return options_.variant != Variant::kTsdeferOnly; }
  void observe_costs(std::span<const TxnDesc> batch, std::span<const uint64_t> ns) override;
  // The executor's workers, for the input partitioner's parallel steps too.
  void use_team(PhaseTeam& team) override {
    BundleFrontend::use_team(team);
    if (partitioner_) partitioner_->use_team(team);
  }

  const CostModel& costs() const { return costs_; }

 private:
  // time_[i] = time(T_i) for the bundle (cost_model.h), on the team.
  void estimate_times(std::span<const TxnDesc> batch);

  TskdOptions options_;
  std::unique_ptr<Partitioner> partitioner_;
  Tsgen tsgen_;
  CostModel costs_;
  Partitioning part_;
  Schedule schedule_;
  std::vector<double> time_;
  std::vector<uint8_t> missing_;  // estimate_times: 1 where the memo lacked the parameters
};

// The TSKD instances of partitioners/frontends.txt, over the line's input
// partition (TSKD §6.1: S = Strife, C = Schism, H = Horticulture; none:
// TSKD[O], §4 "Scheduling without input partition"), k = --threads queues,
// TsDEFER's knobs from --tsdefer_*: make_tskd TSKD[x] (TsPAR + TsDEFER),
// make_tspar TsPAR[x] (TsDEFER off), make_tsdefer TsDEFER[x] (the partition's
// queues with TsDEFER only; REQUIRES a partition, std::invalid_argument
// otherwise).
std::unique_ptr<BundleFrontend> make_tskd(FrontendContext& ctx);
std::unique_ptr<BundleFrontend> make_tspar(FrontendContext& ctx);
std::unique_ptr<BundleFrontend> make_tsdefer(FrontendContext& ctx);

}  // namespace ccb::tspar
