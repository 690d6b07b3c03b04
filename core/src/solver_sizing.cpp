// Pool sizing for one candidate: replicas year by year (growth, N+k, whole CPU servers), the
// latency at the design load, power at the average and design load, energy and its price.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

// The most replicas one pool may need before a candidate is refused as absurd. With the
// scenario's ceiling on the tensor-parallel degree (1024) every device count stays inside an int;
// a load that needs more is answered "infeasible: fleet size", never with a wrapped count.
constexpr double kMaxReplicasPerPool = 100'000;

// Sizes, powers and prices a candidate whose per-replica capacity is known.
void size_and_price(const PlanInputs& in, const Pool& pool, const HardwareSpec& hw,
                    const StepModel& step, const ServingConfig& cfg, CandidateRow& r,
                    const SizeRequest& req, const CandidateId& id, EvalMemo* memo) {
  const Constraints& k = in.constraints;
  const int horizon = std::max(1, k.horizon_years);
  const double design0 = pool_design_qps(pool);
  const double average0 = pool_average_qps(pool);
  const double out_tokens = pool_mean_output(pool);
  const DevicePricing* dp = in.prices.find(hw.name);
  const double host_w = dp != nullptr ? dp->server_host_w : 0.0;
  const int ru_per_server = dp != nullptr ? dp->rack_units_per_server : kDefaultRackUnits;
  const int per_server = std::max(1, hw.devices_per_server / r.tp);

  r.years.clear();
  int replicas = 0;
  double util_design = 0;
  r.context_tokens = pool_mean_context(pool);
  for (int y = 0; y < horizon; ++y) {
    const double growth = std::pow(1.0 + k.load_growth_per_year, y);
    const double design_asked = design0 * growth;
    // Counted in double first: a huge load or growth must not wrap an int.
    const double needed_d = std::ceil(design_asked / r.max_qps_per_replica - 1e-9);
    if (!(std::max(needed_d, static_cast<double>(req.fixed_replicas)) + k.redundancy +
              req.extra_replicas <=
          kMaxReplicasPerPool)) {
      add(r, "fleet_size", false, -1,
          fmt::format("year {} needs {} replicas of {} x {} for {} req/s; infercap sizes at most "
                      "{:.0f} replicas per pool",
                      y + 1, std::isfinite(needed_d) ? fmt::format("{:.3g}", needed_d) : "too many",
                      r.tp, hw.name, fmt::format("{:.3g}", design_asked), kMaxReplicasPerPool),
          "check the request rate and load_growth_per_year, or choose faster hardware");
      r.years.clear();
      r.replicas = r.devices = r.servers = r.rack_units = 0;
      r.priced = false;
      return;
    }
    const int needed = static_cast<int>(needed_d);
    if (req.fixed_replicas > 0) {
      replicas = req.fixed_replicas;
    } else {
      replicas = std::max(replicas, std::max(needed, 1) + k.redundancy + req.extra_replicas);
    }
    // A CPU server is bought whole: its sockets all run replicas (a GPU server may be part-filled).
    if (hw.hw_class == HwClass::cpu)
      replicas = (replicas + per_server - 1) / per_server * per_server;
    // A fleet of fixed size serves what it can: beyond its capacity the load is not taken.
    const double carried = std::max(0, replicas - k.redundancy) * r.max_qps_per_replica;
    const double design = std::min(design_asked, carried);
    const double average = std::min(average0 * growth, carried);
    FleetYear fy;
    fy.devices = static_cast<double>(replicas) * r.tp;
    fy.servers = std::ceil(static_cast<double>(replicas) / per_server);
    fy.rack_units = fy.servers * ru_per_server;
    // Average load spreads over every replica, spares included (active-active). A device's draw
    // follows the work it does: the load over what the replicas could carry within the SLA (the
    // engine's busy fraction is ~1 whenever a sequence is in flight, so it would bill nameplate
    // power around the clock). Power is linear in u, so the daily curve's mean load gives the
    // curve's mean power.
    const double util_avg =
        replicas > 0 ? std::min(1.0, average / (replicas * r.max_qps_per_replica)) : 0.0;
    fy.it_power_w = fy.devices * device_power_w(hw, util_avg) + fy.servers * host_w;
    fy.provisioned_w = fy.devices * hw.tdp_w + fy.servers * host_w;
    fy.device_busy_hours = fy.devices * kHoursPerYear;
    fy.requests = average * kSecondsPerYear;
    fy.output_tokens = fy.requests * out_tokens;
    r.years.push_back(fy);
    if (y == horizon - 1) {
      r.utilisation_average = util_avg;
      r.design_qps = design_asked;
      r.carried_qps = carried;
      // Design load with the spares failed: the SLA must hold on the working replicas alone.
      const int working = std::max(1, replicas - k.redundancy);
      util_design = std::min(1.0, design / (working * r.max_qps_per_replica));
      r.utilisation = util_design;
      auto d = analyze_for(memo, id, step, cfg, pool.classes, design / working);
      if (d) {
        r.ttft_p50_s = d->all.ttft.p50_s;
        r.ttft_p99_s = d->all.ttft.p99_s;
        r.tpot_p50_s = d->all.tpot.p50_s;
        r.tpot_p99_s = d->all.tpot.p99_s;
        r.e2e_p99_s = d->all.e2e.p99_s;
        r.engine_busy = d->utilisation;
        r.kv_occupancy = d->kv_occupancy_mean;
        r.sequences_in_flight = design / working * d->all.e2e.mean_s;
      }
      r.power_w = fy.it_power_w;
      r.provisioned_w = fy.provisioned_w;
      r.peak_power_w = fy.devices * device_power_w(hw, util_design) + fy.servers * host_w;
      r.output_tokens_per_s = average * out_tokens;
      r.tokens_per_joule = fy.it_power_w > 0 ? r.output_tokens_per_s / fy.it_power_w : 0;
      r.requests_per_joule = fy.it_power_w > 0 ? average / fy.it_power_w : 0;
    }
  }
  r.replicas = replicas;
  r.devices = replicas * r.tp;
  // What set the count (a cap-sized row is labelled by size_by_caps, a simulator re-check by the
  // pool's verifier).
  if (req.fixed_replicas == 0 && req.extra_replicas == 0) r.sized_by = "sla";
  r.servers = static_cast<int>(r.years.back().servers);
  r.rack_units = static_cast<int>(r.years.back().rack_units);

  Footprint f;
  f.hardware = hw.name;
  f.role = pool.name;
  f.years = r.years;
  f.model_changes = k.model_changes_per_year * horizon;
  auto cost = price_footprint(f, in.prices);
  r.priced = cost.ok();
  if (cost) r.cost = *cost;
  // A total that is not a number can never be recommended: it compares false with everything.
  if (r.priced && !(std::isfinite(r.cost.tco_usd) && std::isfinite(r.cost.capex_usd))) {
    add(r, "tco", false, -1,
        fmt::format("the total cost of ownership of {} x {} is not a finite amount", r.devices,
                    hw.name),
        "check the price book and constraints.model_changes_per_year");
  }
}

}  // namespace infercap::plan_detail
