#include "infercap/solver.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "infercap/perf.hpp"
#include "infercap/units.hpp"

namespace infercap {

namespace {

constexpr double kHoursPerYear = 8760.0;
constexpr double kSecondsPerYear = kHoursPerYear * 3600.0;
// Idle power as a fraction of TDP when the datasheet is silent: a GPU with a model resident and
// clocks parked draws 20-30% of TDP (nvidia-smi on L4/A10/H100 idles at 16-90 W of 72-700 W); a
// server CPU socket idles near 30% of TDP. docs/plan.md.
constexpr double kIdleFractionDefault = 0.3;
constexpr int kDefaultRackUnits = 2;
// Max QPS to 1%: sizing rounds replicas up anyway, and the bisection is most of a candidate's
// evaluation time.
constexpr double kQpsRelTol = 1e-2;

std::string gib(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / kGiB);
}

std::string money(double usd) {
  const double a = std::fabs(usd);
  if (a >= 1e6) return fmt::format("${:.2f}M", usd / 1e6);
  if (a >= 1e3) return fmt::format("${:.0f}k", usd / 1e3);
  return fmt::format("${:.0f}", usd);
}

std::string seconds(double s) {
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  return fmt::format("{:.3g} ms", s * 1e3);
}

std::string metric_label(const std::string& metric) {
  if (metric == "ttft") return "TTFT";
  if (metric == "tpot") return "TPOT";
  if (metric == "e2e") return "end-to-end latency";
  return metric;
}

const SlaTarget* sla_target(const Sla& sla, const std::string& metric) {
  if (metric == "ttft") return &sla.ttft;
  if (metric == "tpot") return &sla.tpot;
  if (metric == "e2e") return &sla.e2e;
  return nullptr;
}

double at_sla(const ClassLatency& c, const std::string& metric) {
  if (metric == "ttft") return c.ttft_at_sla_s;
  if (metric == "tpot") return c.tpot_at_sla_s;
  if (metric == "e2e") return c.e2e_at_sla_s;
  return 0;
}

double pool_design_qps(const Pool& p) {
  double q = 0;
  for (const auto& c : p.classes) q += design_qps(c.rate);
  return q;
}

double pool_average_qps(const Pool& p) {
  double q = 0;
  for (const auto& c : p.classes) q += average_qps(c.rate);
  return q;
}

// Output tokens per request, weighted by each class's share of the average load.
double pool_mean_output(const Pool& p) {
  double q = 0;
  double t = 0;
  for (const auto& c : p.classes) {
    const double w = average_qps(c.rate);
    q += w;
    t += w * mean(c.output_tokens);
  }
  return q > 0 ? t / q : 0;
}

// The longest sequence the pool must hold: P99 prompt + P99 output of its longest class.
double pool_longest_tokens(const Pool& p) {
  double longest = 0;
  for (const auto& c : p.classes) {
    auto qp = quantile(c.prompt_tokens, 99);
    auto qo = quantile(c.output_tokens, 99);
    longest =
        std::max(longest, (qp ? *qp : mean(c.prompt_tokens)) + (qo ? *qo : mean(c.output_tokens)));
  }
  return std::ceil(longest);
}

bool class_allowed(const std::vector<HwClass>& allowed, HwClass c) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), c) != allowed.end();
}

void add(CandidateRow& r, std::string name, bool ok, double margin, std::string message,
         std::string fix = {}) {
  r.constraints.push_back({std::move(name), ok, margin, std::move(message), std::move(fix)});
}

void finish_feasibility(CandidateRow& r) {
  r.feasible = true;
  int worst = -1;
  for (size_t i = 0; i < r.constraints.size(); ++i) {
    const auto& c = r.constraints[i];
    if (!c.ok) r.feasible = false;
  }
  // Binding: the most violated failed constraint, else the one with least slack.
  for (size_t i = 0; i < r.constraints.size(); ++i) {
    const auto& c = r.constraints[i];
    if (!r.feasible && c.ok) continue;
    if (worst < 0 || c.margin < r.constraints[static_cast<size_t>(worst)].margin)
      worst = static_cast<int>(i);
  }
  r.binding = worst;
}

double device_power_w(const HardwareSpec& hw, double utilisation) {
  const double idle = hw.idle_w > 0 ? hw.idle_w : kIdleFractionDefault * hw.tdp_w;
  const double u = std::clamp(utilisation, 0.0, 1.0);
  return idle + u * std::max(0.0, hw.tdp_w - idle);
}

struct Sizing {
  int extra_replicas = 0;  ///< added after a failed simulator check
};

// Everything a candidate's capacity needs, kept together so the verifier can rebuild it.
// Heap-held so the step model's pointer to the PerfModel survives moves of the Engine.
struct Engine {
  std::unique_ptr<PerfModel> perf;
  std::unique_ptr<PerfStepModel> step;
  ServingConfig cfg;
};

Result<Engine> make_engine(const PlanInputs& in, const ModelSpec& model, const HardwareSpec& hw,
                           const StackSpec& stack, const PrecisionChoice& prec, int tp,
                           int max_seqs, double longest) {
  Deployment dep;
  dep.precision = prec.precision;
  dep.tp = tp;
  auto perf = PerfModel::create(model, hw, stack, dep);
  if (!perf) return perf.error();
  Engine e;
  e.perf = std::make_unique<PerfModel>(std::move(*perf));
  e.cfg = in.serving;
  e.cfg.max_seqs = max_seqs;
  if (e.cfg.max_context_tokens == 0) e.cfg.max_context_tokens = static_cast<int64_t>(longest);
  e.step = std::make_unique<PerfStepModel>(*e.perf, static_cast<double>(e.cfg.max_batched_tokens));
  return e;
}

// Sizes, powers and prices a candidate whose per-replica capacity is known.
void size_and_price(const PlanInputs& in, const Pool& pool, const HardwareSpec& hw,
                    const StepModel& step, const ServingConfig& cfg, CandidateRow& r,
                    int extra_replicas) {
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
  for (int y = 0; y < horizon; ++y) {
    const double growth = std::pow(1.0 + k.load_growth_per_year, y);
    const double design = design0 * growth;
    const double average = average0 * growth;
    const int needed = static_cast<int>(std::ceil(design / r.max_qps_per_replica - 1e-9));
    replicas = std::max(replicas, std::max(needed, 1) + k.redundancy + extra_replicas);
    // A CPU server is bought whole: its sockets all run replicas (a GPU server may be part-filled).
    if (hw.hw_class == HwClass::cpu)
      replicas = (replicas + per_server - 1) / per_server * per_server;
    FleetYear fy;
    fy.devices = static_cast<double>(replicas) * r.tp;
    fy.servers = std::ceil(static_cast<double>(replicas) / per_server);
    fy.rack_units = fy.servers * ru_per_server;
    // Average load spreads over every replica, spares included (active-active).
    double util_avg = 0;
    if (average > 0) {
      auto a = analyze(step, cfg, pool.classes, average / replicas);
      if (a) util_avg = a->utilisation;
    }
    fy.it_power_w = fy.devices * device_power_w(hw, util_avg) + fy.servers * host_w;
    fy.provisioned_w = fy.devices * hw.tdp_w + fy.servers * host_w;
    fy.device_busy_hours = fy.devices * kHoursPerYear;
    fy.requests = average * kSecondsPerYear;
    fy.output_tokens = fy.requests * out_tokens;
    r.years.push_back(fy);
    if (y == horizon - 1) {
      r.utilisation_average = util_avg;
      r.design_qps = design;
      // Design load with the spares failed: the SLA must hold on the working replicas alone.
      const int working = std::max(1, replicas - k.redundancy);
      auto d = analyze(step, cfg, pool.classes, design / working);
      if (d) {
        r.ttft_p50_s = d->all.ttft.p50_s;
        r.ttft_p99_s = d->all.ttft.p99_s;
        r.tpot_p50_s = d->all.tpot.p50_s;
        r.tpot_p99_s = d->all.tpot.p99_s;
        r.e2e_p99_s = d->all.e2e.p99_s;
        r.utilisation = d->utilisation;
        r.kv_occupancy = d->kv_occupancy_mean;
        util_design = d->utilisation;
      }
      r.power_w = fy.it_power_w;
      r.provisioned_w = fy.provisioned_w;
      r.peak_power_w = fy.devices * device_power_w(hw, util_design) + fy.servers * host_w;
      r.output_tokens_per_s = average * out_tokens;
      r.tokens_per_joule = fy.it_power_w > 0 ? r.output_tokens_per_s / fy.it_power_w : 0;
    }
  }
  r.replicas = replicas;
  r.devices = replicas * r.tp;
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
}

void budget_constraints(const PlanInputs& in, const HardwareSpec& hw, CandidateRow& r) {
  const Constraints& k = in.constraints;
  const int horizon = std::max(1, k.horizon_years);
  if (!r.priced) {
    add(r, "priced", false, -1,
        fmt::format("price book '{}' has no price for '{}'", in.prices.name, hw.name),
        fmt::format("add '{}' under prices.devices", hw.name));
    return;
  }
  if (k.capex_budget_usd > 0) {
    const double over = r.cost.capex_usd - k.capex_budget_usd;
    add(r, "capex_budget", over <= 0, -over / k.capex_budget_usd,
        over <= 0 ? fmt::format("capex {} within the {} budget", money(r.cost.capex_usd),
                                money(k.capex_budget_usd))
                  : fmt::format("capex {} exceeds the {} budget by {}", money(r.cost.capex_usd),
                                money(k.capex_budget_usd), money(over)),
        over <= 0 ? "" : fmt::format("add {} to the capex budget", money(over)));
  }
  if (k.annual_budget_usd > 0) {
    const double annual = r.cost.tco_usd / horizon;
    const double over = annual - k.annual_budget_usd;
    add(r, "annual_budget", over <= 0, -over / k.annual_budget_usd,
        over <= 0 ? fmt::format("{} a year within the {} annual budget", money(annual),
                                money(k.annual_budget_usd))
                  : fmt::format("{} a year exceeds the {} annual budget by {}", money(annual),
                                money(k.annual_budget_usd), money(over)),
        over <= 0 ? "" : fmt::format("add {} a year to the budget", money(over)));
  }
}

void site_constraints(const PlanInputs& in, CandidateRow& r) {
  const Constraints& k = in.constraints;
  if (k.power_cap_w > 0) {
    const double over = r.provisioned_w - k.power_cap_w;
    add(r, "power", over <= 0, -over / k.power_cap_w,
        fmt::format("nameplate IT power {:.1f} kW {} the {:.1f} kW site cap", r.provisioned_w / 1e3,
                    over <= 0 ? "is within" : "exceeds", k.power_cap_w / 1e3),
        over <= 0 ? "" : fmt::format("raise the power cap to {:.1f} kW", r.provisioned_w / 1e3));
  }
  if (k.rack_units > 0) {
    const int over = r.rack_units - k.rack_units;
    add(r, "rack", over <= 0, -static_cast<double>(over) / k.rack_units,
        fmt::format("{} rack units {} the {} available", r.rack_units,
                    over <= 0 ? "fit in" : "exceed", k.rack_units),
        over <= 0 ? "" : fmt::format("free {} more rack units", over));
  }
}

CandidateRow evaluate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      const HardwareSpec& hw, const StackSpec& stack, const PrecisionChoice& prec,
                      int tp, int max_seqs, int extra_replicas, ServingResult* sim_out) {
  CandidateRow r;
  r.pool = pool.name;
  r.model = model.name;
  r.hardware = hw.name;
  r.hw_class = hw.hw_class;
  r.vendor = hw.vendor;
  r.precision = prec.name;
  r.stack = stack.name;
  r.tp = tp;
  r.max_seqs = max_seqs;

  if (tp > hw.devices_per_server) {
    add(r, "runs", false, -1,
        fmt::format("TP {} needs {} devices in one server; a '{}' server holds {}", tp, tp, hw.name,
                    hw.devices_per_server),
        fmt::format("use TP <= {}", hw.devices_per_server));
    finish_feasibility(r);
    return r;
  }
  const double longest = pool_longest_tokens(pool);
  auto eng = make_engine(in, model, hw, stack, prec, tp, max_seqs, longest);
  if (!eng) {
    add(r, "runs", false, -1, eng.error().message, "choose another precision, stack or TP");
    finish_feasibility(r);
    return r;
  }
  Engine& e = *eng;
  // Memory: weights plus the KV cache of one longest sequence must fit on every device.
  const MemoryReport one = e.perf->memory(1, longest, e.cfg.max_batched_tokens);
  r.weights_bytes_per_device = one.weights_bytes;
  r.memory_bytes_per_device = one.total_bytes;
  {
    const double margin =
        one.capacity_bytes > 0 ? (one.capacity_bytes - one.total_bytes) / one.capacity_bytes : -1;
    if (!one.fits) {
      add(r, "memory", false, std::min(margin, -1e-9),
          fmt::format("weights {} + KV cache {} for one {:.0f}-token sequence (+ {} activations "
                      "and reserve) need {} per device; '{}' has {}",
                      gib(one.weights_bytes), gib(one.kv_bytes), longest,
                      gib(one.activation_bytes + one.reserve_bytes), gib(one.total_bytes), hw.name,
                      gib(one.capacity_bytes)),
          fmt::format("a device with at least {}, a smaller precision, or more TP",
                      gib(one.total_bytes)));
      finish_feasibility(r);
      return r;
    }
    add(r, "memory", true, margin,
        fmt::format(
            "weights {} + KV for one {:.0f}-token sequence fit in {} ({} sequences at most)",
            gib(one.weights_bytes), longest, gib(one.capacity_bytes),
            e.perf->max_batch(longest, e.cfg.max_batched_tokens)));
  }
  auto mq = max_qps_within_sla(*e.step, e.cfg, pool.classes, kQpsRelTol);
  if (!mq) {
    add(r, "serving", false, -1, mq.error().message);
    finish_feasibility(r);
    return r;
  }
  if (mq->qps <= 0) {
    // The SLA is below this candidate's physical floor: report the floor itself.
    auto floor =
        analyze(*e.step, e.cfg, pool.classes, std::max(1e-9, pool_design_qps(pool) * 1e-6));
    std::string msg = fmt::format("cannot meet the SLA at any load ({})", mq->binding_metric);
    std::string fix;
    double margin = -1;
    if (floor) {
      for (size_t i = 0; i < floor->classes.size() && i < pool.classes.size(); ++i) {
        const auto& cl = floor->classes[i];
        const SlaTarget* t = sla_target(pool.classes[i].sla, cl.binding_metric);
        if (t == nullptr || !t->set() || cl.binding_ratio <= 1) continue;
        const double v = at_sla(cl, cl.binding_metric);
        msg = fmt::format("{} P{:g} {} exceeds the {} SLA even at vanishing load ({})",
                          metric_label(cl.binding_metric), t->percentile, seconds(v),
                          seconds(t->limit_s), pool.classes[i].name);
        fix = fmt::format("relax {} P{:g} to {}", metric_label(cl.binding_metric), t->percentile,
                          seconds(v * 1.05));
        margin = 1 - cl.binding_ratio;
        break;
      }
    }
    add(r, "sla", false, margin, msg, fix);
    r.limited_by = mq->binding_metric;
    finish_feasibility(r);
    return r;
  }
  r.max_qps_per_replica = mq->qps;
  r.limited_by = mq->binding_metric;
  size_and_price(in, pool, hw, *e.step, e.cfg, r, extra_replicas);
  {
    // SLA slack at the design load on the working replicas.
    const int working = std::max(1, r.replicas - in.constraints.redundancy);
    const double per = r.design_qps / working;
    add(r, "sla", true, 1 - per / r.max_qps_per_replica,
        fmt::format("one replica carries {:.3g} req/s within the SLA ({} binds above it); {} "
                    "replicas carry {:.3g} req/s at {:.3g} each",
                    r.max_qps_per_replica, metric_label(r.limited_by), working, r.design_qps, per));
  }
  budget_constraints(in, hw, r);
  site_constraints(in, r);
  finish_feasibility(r);
  if (sim_out != nullptr && r.feasible) {
    SimOptions so;
    so.seed = in.seed;
    so.requests = in.verify_requests;
    so.warmup_requests = std::max<int64_t>(100, in.verify_requests / 10);
    const int working = std::max(1, r.replicas - in.constraints.redundancy);
    so.total_qps = r.design_qps / working;
    auto sim = simulate(*e.step, e.cfg, pool.classes, so);
    if (sim) *sim_out = *sim;
  }
  return r;
}

bool better(const CandidateRow& a, const CandidateRow& b, Objective o) {
  if (o == Objective::max_qps_within_budget) {
    if (a.objective_value != b.objective_value) return a.objective_value > b.objective_value;
  } else if (a.objective_value != b.objective_value) {
    return a.objective_value < b.objective_value;
  }
  return a.e2e_p99_s < b.e2e_p99_s;
}

// Max QPS within the capex budget: the most replicas the budget buys, times one replica's load.
int budget_capacity(const PlanInputs& in, const HardwareSpec& hw, CandidateRow& r) {
  const double budget = in.constraints.capex_budget_usd;
  if (r.max_qps_per_replica <= 0 || budget <= 0) return 0;
  const DevicePricing* dp = in.prices.find(hw.name);
  if (dp == nullptr) return 0;
  const int per_server = std::max(1, hw.devices_per_server / r.tp);
  auto capex = [&](int n) {
    Footprint f;
    f.hardware = hw.name;
    FleetYear y;
    y.devices = static_cast<double>(n) * r.tp;
    y.servers = std::ceil(static_cast<double>(n) / per_server);
    f.years = {y};
    auto c = price_footprint(f, in.prices);
    return c ? c->capex_usd : std::numeric_limits<double>::infinity();
  };
  int lo = 0;
  int hi = 1;
  while (capex(hi) <= budget && hi < (1 << 24)) hi *= 2;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (capex(mid) <= budget ? lo : hi) = mid;
  }
  const int working = lo - in.constraints.redundancy;
  r.objective_value = working > 0 ? working * r.max_qps_per_replica : 0;
  if (working <= 0) {
    r.feasible = false;
    add(r, "capex_budget", false, -1,
        fmt::format("the {} budget buys {} replicas; {} are needed with redundancy", money(budget),
                    lo, in.constraints.redundancy + 1),
        fmt::format("add {} to the capex budget",
                    money(capex(in.constraints.redundancy + 1) - budget)));
    finish_feasibility(r);
  }
  return lo;
}

struct Enumerated {
  const HardwareSpec* hw;
  const StackSpec* stack;
  const PrecisionChoice* prec;
  int tp;
  int max_seqs;
};

const ModelSpec* find_model(const PlanInputs& in, const std::string& name) {
  for (const auto& m : in.models)
    if (m.name == name) return &m;
  return nullptr;
}

struct PoolSolveOptions {
  bool verify = true;
};

PoolResult solve_pool(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      int* evaluated, int* verified) {
  PoolResult pr;
  pr.pool = pool;
  std::vector<CandidateRow> rows;
  std::vector<Enumerated> keys;
  for (const auto& hw : in.space.hardware) {
    if (!class_allowed(pool.allowed_classes, hw.hw_class)) continue;
    for (const auto& st : in.space.stacks) {
      // A stack that does not run on this class is not a candidate (as TP beyond a server).
      if (!st.for_class(hw.hw_class).supported) continue;
      const auto cls = static_cast<size_t>(hw.hw_class);
      if (cls < in.space.stack_per_class.size() && st.name != in.space.stack_per_class[cls])
        continue;
      for (const auto& pc : in.space.precisions) {
        for (int tp : in.space.tp) {
          // A replica lives in one server: larger TP is not a candidate, not a rejection.
          if (tp > hw.devices_per_server) continue;
          for (int ms : in.space.max_seqs) {
            keys.push_back({&hw, &st, &pc, tp, ms});
            rows.push_back(evaluate(in, pool, model, hw, st, pc, tp, ms, 0, nullptr));
            ++*evaluated;
          }
        }
      }
    }
  }
  std::vector<int> base_extra(rows.size(), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    if (in.objective == Objective::max_qps_within_budget) {
      if (r.feasible || r.max_qps_per_replica > 0) {
        // Sized by the budget rather than the design load: budget constraints do not reject.
        std::erase_if(r.constraints, [](const Constraint& c) { return c.name == "capex_budget"; });
        finish_feasibility(r);
        const int n = budget_capacity(in, *keys[i].hw, r);
        if (r.feasible && n > r.replicas) {
          // Size the row as the budget buys it, not as the design load needs it.
          const double carried = r.objective_value;
          base_extra[i] = n - r.replicas;
          const Enumerated& k = keys[i];
          r = evaluate(in, pool, model, *k.hw, *k.stack, *k.prec, k.tp, k.max_seqs, base_extra[i],
                       nullptr);
          std::erase_if(r.constraints,
                        [](const Constraint& c) { return c.name == "capex_budget"; });
          finish_feasibility(r);
          r.objective_value = carried;
        }
      }
    } else {
      r.objective_value = r.cost.tco_usd;
    }
  }
  // Rank, then verify the finalists with the simulator; a finalist the simulator fails gets one
  // more replica at a time (at most 3) and is re-ranked.
  auto rank = [&] {
    std::vector<size_t> order;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].feasible) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return better(rows[a], rows[b], in.objective); });
    return order;
  };
  std::vector<size_t> order = rank();
  const size_t n_verify = std::min(order.size(), static_cast<size_t>(std::max(0, in.verify_top)));
  for (size_t j = 0; j < n_verify; ++j) {
    const size_t i = order[j];
    const Enumerated& k = keys[i];
    // The analytic path may be optimistic: add a quarter of the fleet (at least one replica)
    // per failed simulator check, up to six times (about 3.8x the fleet).
    int extra = base_extra[i];
    for (int attempt = 0; attempt <= 6; ++attempt) {
      ServingResult sim;
      CandidateRow r =
          evaluate(in, pool, model, *k.hw, *k.stack, *k.prec, k.tp, k.max_seqs, extra, &sim);
      if (!r.feasible) {
        rows[i] = r;
        break;
      }
      r.objective_value = in.objective == Objective::max_qps_within_budget ? rows[i].objective_value
                                                                           : r.cost.tco_usd;
      r.verified = sim.requests_measured > 0;
      r.sim_meets_sla = sim.meets_sla;
      r.sim_ttft_p99_s = sim.all.ttft.p99_s;
      r.sim_tpot_p99_s = sim.all.tpot.p99_s;
      r.sim_e2e_p99_s = sim.all.e2e.p99_s;
      rows[i] = r;
      if (!r.verified || sim.meets_sla || in.objective == Objective::max_qps_within_budget) break;
      if (attempt == 6) {
        add(rows[i], "simulated_sla", false, -1,
            fmt::format("the simulator misses the SLA even with {} extra replicas (P99 TTFT {}, "
                        "TPOT {}{})",
                        extra, seconds(sim.all.ttft.p99_s), seconds(sim.all.tpot.p99_s),
                        sim.note.empty() ? "" : "; " + sim.note));
        finish_feasibility(rows[i]);
        break;
      }
      extra += std::max(1, r.replicas / 4);
    }
    ++*verified;
  }
  order = rank();
  for (size_t j = 0; j < order.size(); ++j) {
    rows[order[j]].rank = static_cast<int>(j) + 1;
    pr.ranked.push_back(rows[order[j]]);
  }
  for (auto& r : rows)
    if (!r.feasible) pr.rejected.push_back(r);
  // Pareto front on (TCO, P99 end-to-end latency at the design load).
  for (const auto& a : pr.ranked) {
    bool dominated = false;
    for (const auto& b : pr.ranked) {
      if (b.cost.tco_usd <= a.cost.tco_usd && b.e2e_p99_s <= a.e2e_p99_s &&
          (b.cost.tco_usd < a.cost.tco_usd || b.e2e_p99_s < a.e2e_p99_s)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) pr.pareto.push_back(a);
  }
  std::sort(pr.pareto.begin(), pr.pareto.end(), [](const CandidateRow& a, const CandidateRow& b) {
    return a.cost.tco_usd < b.cost.tco_usd;
  });
  return pr;
}

FleetChoice make_choice(std::string label, std::vector<CandidateRow> parts, const PlanInputs& in) {
  FleetChoice f;
  f.label = std::move(label);
  f.parts = std::move(parts);
  f.feasible = !f.parts.empty();
  std::vector<Footprint> fps;
  for (const auto& p : f.parts) {
    f.feasible = f.feasible && p.feasible;
    f.devices += p.devices;
    f.servers += p.servers;
    f.power_w += p.power_w;
    Footprint fp;
    fp.hardware = p.hardware;
    fp.role = p.pool;
    fp.years = p.years;
    fp.model_changes =
        in.constraints.model_changes_per_year * std::max(1, in.constraints.horizon_years);
    fps.push_back(fp);
  }
  // Priced together: porting is shared by family and volume tiers see the whole fleet.
  auto c = price_fleet(fps, in.prices);
  if (c) f.cost = *c;
  return f;
}

// Fleet-level constraints on a multi-part choice (budgets, power, racks apply to the sum).
void fleet_constraints(const PlanInputs& in, FleetChoice& f) {
  const Constraints& k = in.constraints;
  std::vector<std::string> bad;
  if (k.capex_budget_usd > 0 && f.cost.capex_usd > k.capex_budget_usd &&
      in.objective == Objective::min_tco) {
    bad.push_back(fmt::format("capex {} exceeds the {} budget by {}", money(f.cost.capex_usd),
                              money(k.capex_budget_usd),
                              money(f.cost.capex_usd - k.capex_budget_usd)));
  }
  double prov = 0;
  int ru = 0;
  for (const auto& p : f.parts) {
    prov += p.provisioned_w;
    ru += p.rack_units;
  }
  if (k.power_cap_w > 0 && prov > k.power_cap_w) {
    bad.push_back(fmt::format("nameplate power {:.1f} kW exceeds the {:.1f} kW cap", prov / 1e3,
                              k.power_cap_w / 1e3));
  }
  if (k.rack_units > 0 && ru > k.rack_units)
    bad.push_back(fmt::format("{} rack units exceed the {} available", ru, k.rack_units));
  if (!bad.empty()) {
    f.feasible = false;
    for (const auto& b : bad) f.note += (f.note.empty() ? "" : "; ") + b;
  }
}

// The best choice over pools: each pool's best, or (no mixing) the best common hardware.
std::optional<FleetChoice> best_fleet(const PlanInputs& in, const std::vector<PoolResult>& pools,
                                      const std::string& label) {
  if (pools.empty()) return std::nullopt;
  for (const auto& p : pools)
    if (p.ranked.empty()) return std::nullopt;
  if (in.space.allow_mixed || pools.size() == 1) {
    std::vector<CandidateRow> parts;
    parts.reserve(pools.size());
    for (const auto& p : pools) parts.push_back(p.ranked.front());
    return make_choice(label, parts, in);
  }
  std::optional<FleetChoice> best;
  for (const auto& hw : in.space.hardware) {
    std::vector<CandidateRow> parts;
    for (const auto& p : pools) {
      for (const auto& r : p.ranked) {
        if (r.hardware == hw.name) {
          parts.push_back(r);
          break;
        }
      }
    }
    if (parts.size() != pools.size()) continue;
    FleetChoice f = make_choice(label, parts, in);
    if (!best || f.cost.tco_usd < best->cost.tco_usd) best = f;
  }
  return best;
}

// Suggestions for an infeasible pool: the closest rejected candidates' fixes by constraint.
void explain_infeasible(const PoolResult& pr, Plan& plan) {
  // Among rejected rows, the one that misses by the least, per constraint kind.
  std::map<std::string, const CandidateRow*> nearest;
  for (const auto& r : pr.rejected) {
    const Constraint* b = r.binding_constraint();
    if (b == nullptr) continue;
    // A candidate failing only on money or site limits is nearer to feasible than one that
    // does not run or fit; keep the least-missing per kind.
    auto it = nearest.find(b->name);
    if (it == nearest.end() || b->margin > it->second->binding_constraint()->margin)
      nearest[b->name] = &r;
  }
  static const std::vector<std::string> order = {
      "capex_budget",  "annual_budget", "power",  "rack",    "sla",
      "simulated_sla", "memory",        "priced", "serving", "runs"};
  // The nearest candidate overall (least miss), and one fix per constraint kind.
  const CandidateRow* first = nullptr;
  std::vector<std::string> fixes;
  for (const auto& kind : order) {
    auto it = nearest.find(kind);
    if (it == nearest.end()) continue;
    const CandidateRow& r = *it->second;
    const Constraint& c = *r.binding_constraint();
    if (first == nullptr || c.margin > first->binding_constraint()->margin) first = &r;
    if (!c.fix.empty() && kind != "runs")
      fixes.push_back(fmt::format("{} ({} {} TP{})", c.fix, r.hardware, r.precision, r.tp));
    plan.suggestions.push_back(fmt::format("{} ({} {} TP{}, {}): {}{}", pr.pool.name, r.hardware,
                                           r.precision, r.tp, r.stack, c.message,
                                           c.fix.empty() ? "" : "; " + c.fix));
  }
  if (first != nullptr && plan.infeasible_reason.empty()) {
    const Constraint& c = *first->binding_constraint();
    std::string all;
    for (size_t i = 0; i < fixes.size() && i < 3; ++i) all += (i == 0 ? "" : ", or ") + fixes[i];
    plan.infeasible_reason = fmt::format(
        "pool '{}': no candidate meets every constraint; the nearest, {} ({} TP{}), "
        "fails '{}': {} (misses by {:.0f}%){}",
        pr.pool.name, first->hardware, first->precision, first->tp, c.name, c.message,
        -c.margin * 100, all.empty() ? "" : ". To make it feasible: " + all);
  }
  if (plan.infeasible_reason.empty()) {
    plan.infeasible_reason =
        fmt::format("pool '{}': no candidate in the search space", pr.pool.name);
  }
}

Pool with_rate(const Pool& p, double total_design_qps, double total_average_qps, std::string name,
               std::vector<HwClass> allowed) {
  Pool q = p;
  q.name = std::move(name);
  q.allowed_classes = std::move(allowed);
  const double d = pool_design_qps(p);
  const double a = pool_average_qps(p);
  for (auto& c : q.classes) {
    const double dc = design_qps(c.rate);
    const double ac = average_qps(c.rate);
    c.rate = ArrivalRate{};
    c.rate.peak_qps = d > 0 ? total_design_qps * dc / d : 0;
    c.rate.mean_qps = a > 0 ? total_average_qps * ac / a : 0;
  }
  return q;
}

void solve_burst(const PlanInputs& in, Plan& plan, int* evaluated, int* verified) {
  // Base: the mean load on the base classes. Buffer: what the base cannot carry at the peak.
  const Pool& all = in.pools.front();
  const ModelSpec* model = find_model(in, all.model);
  const double design = pool_design_qps(all);
  const double average = pool_average_qps(all);
  Pool base = with_rate(all, average, average, all.name + " base", in.burst_base_classes);
  PoolResult base_r = solve_pool(in, base, *model, evaluated, verified);
  Pool peak_all = with_rate(all, design, average, all.name + " all at peak", in.burst_base_classes);
  PoolResult alt_r = solve_pool(in, peak_all, *model, evaluated, verified);
  std::optional<FleetChoice> alt = best_fleet(in, {alt_r}, "all on the base hardware at peak");
  plan.pools.push_back(base_r);
  if (base_r.ranked.empty()) {
    explain_infeasible(base_r, plan);
    if (alt) plan.alternatives.push_back(*alt);
    return;
  }
  const CandidateRow& b = base_r.ranked.front();
  const double base_capacity =
      std::max(0, b.replicas - in.constraints.redundancy) * b.max_qps_per_replica;
  // The buffer carries the excess only at the peak: its average load is ~0 (idle power).
  const double growth_end = std::pow(1.0 + in.constraints.load_growth_per_year,
                                     std::max(1, in.constraints.horizon_years) - 1);
  const double excess = std::max(0.0, design - base_capacity / growth_end);
  std::vector<CandidateRow> parts = {b};
  if (excess > 0) {
    Pool buffer = with_rate(all, excess, 1e-9, all.name + " burst buffer", in.burst_buffer_classes);
    PoolResult buf_r = solve_pool(in, buffer, *model, evaluated, verified);
    plan.pools.push_back(buf_r);
    if (buf_r.ranked.empty()) {
      explain_infeasible(buf_r, plan);
      if (alt) plan.alternatives.push_back(*alt);
      return;
    }
    parts.push_back(buf_r.ranked.front());
  }
  FleetChoice burst = make_choice("base + burst buffer", parts, in);
  burst.note = fmt::format(
      "base carries {:.3g} req/s (mean load {:.3g}); buffer covers {:.3g} req/s "
      "more at the {:.3g} req/s peak",
      base_capacity, average, excess, design);
  if (alt && alt->cost.tco_usd < burst.cost.tco_usd) {
    alt->note = fmt::format("cheaper than base + buffer by {}",
                            money(burst.cost.tco_usd - alt->cost.tco_usd));
    plan.recommended = *alt;
    plan.alternatives.push_back(burst);
  } else {
    if (alt) {
      burst.note += fmt::format("; {} cheaper than all on the base hardware",
                                money(alt->cost.tco_usd - burst.cost.tco_usd));
    }
    plan.recommended = burst;
    if (alt) plan.alternatives.push_back(*alt);
  }
  plan.pools.push_back(alt_r);
}

// Staged growth: year by year, cover the shortfall with whichever pool best is cheaper over the
// horizon (greedy), keeping what was bought.
void solve_staged(const PlanInputs& in, Plan& plan, int* evaluated, int* verified) {
  const Pool& all = in.pools.front();
  const ModelSpec* model = find_model(in, all.model);
  PoolResult pr = solve_pool(in, all, *model, evaluated, verified);
  plan.pools.push_back(pr);
  if (pr.ranked.empty()) {
    explain_infeasible(pr, plan);
    return;
  }
  // One option per hardware class: its best-ranked candidate.
  std::vector<CandidateRow> options;
  for (const auto& r : pr.ranked) {
    bool have = false;
    for (const auto& o : options) have = have || o.hw_class == r.hw_class;
    if (!have) options.push_back(r);
  }
  const int horizon = std::max(1, in.constraints.horizon_years);
  const double design0 = pool_design_qps(all);
  const double average0 = pool_average_qps(all);
  const double out_tokens = pool_mean_output(all);
  std::vector<int> replicas(options.size(), 0);
  std::vector<std::vector<int>> history(options.size(), std::vector<int>(horizon, 0));
  auto build = [&](const std::vector<std::vector<int>>& hist) {
    std::vector<CandidateRow> parts;
    for (size_t o = 0; o < options.size(); ++o) {
      int last = hist[o][horizon - 1];
      if (last == 0) continue;
      CandidateRow r = options[o];
      const HardwareSpec* hw = nullptr;
      for (const auto& h : in.space.hardware)
        if (h.name == r.hardware) hw = &h;
      const DevicePricing* dp = in.prices.find(r.hardware);
      const double host_w = dp != nullptr ? dp->server_host_w : 0.0;
      const int ru = dp != nullptr ? dp->rack_units_per_server : kDefaultRackUnits;
      const int per_server = std::max(1, hw->devices_per_server / r.tp);
      r.years.clear();
      double total_cap = 0;
      for (size_t p = 0; p < options.size(); ++p)
        total_cap += hist[p][horizon - 1] * options[p].max_qps_per_replica;
      for (int y = 0; y < horizon; ++y) {
        const double growth = std::pow(1.0 + in.constraints.load_growth_per_year, y);
        double cap_y = 0;
        for (size_t p = 0; p < options.size(); ++p)
          cap_y += hist[p][y] * options[p].max_qps_per_replica;
        const double share = cap_y > 0 ? hist[o][y] * r.max_qps_per_replica / cap_y : 0;
        FleetYear fy;
        fy.devices = static_cast<double>(hist[o][y]) * r.tp;
        fy.servers = std::ceil(static_cast<double>(hist[o][y]) / per_server);
        fy.rack_units = fy.servers * ru;
        // Load is shared in proportion to capacity; utilisation ~ load / capacity.
        const double avg = average0 * growth * share;
        const double util =
            hist[o][y] > 0 ? std::min(1.0, avg / (hist[o][y] * r.max_qps_per_replica)) : 0;
        fy.it_power_w = fy.devices * device_power_w(*hw, util) + fy.servers * host_w;
        fy.provisioned_w = fy.devices * hw->tdp_w + fy.servers * host_w;
        fy.device_busy_hours = fy.devices * kHoursPerYear;
        fy.requests = avg * kSecondsPerYear;
        fy.output_tokens = fy.requests * out_tokens;
        r.years.push_back(fy);
      }
      (void)total_cap;
      r.replicas = last;
      r.devices = last * r.tp;
      r.servers = static_cast<int>(r.years.back().servers);
      r.rack_units = static_cast<int>(r.years.back().rack_units);
      r.power_w = r.years.back().it_power_w;
      r.provisioned_w = r.years.back().provisioned_w;
      Footprint f;
      f.hardware = r.hardware;
      f.years = r.years;
      f.model_changes = in.constraints.model_changes_per_year * horizon;
      auto c = price_footprint(f, in.prices);
      if (c) r.cost = *c;
      parts.push_back(r);
    }
    return make_choice("staged growth", parts, in);
  };
  for (int y = 0; y < horizon; ++y) {
    const double need = design0 * std::pow(1.0 + in.constraints.load_growth_per_year, y);
    double cap = 0;
    for (size_t o = 0; o < options.size(); ++o) {
      history[o][y] = y > 0 ? history[o][y - 1] : 0;
      cap += history[o][y] * options[o].max_qps_per_replica;
    }
    if (cap >= need - 1e-9) continue;
    std::optional<std::vector<std::vector<int>>> best_h;
    double best_cost = std::numeric_limits<double>::infinity();
    for (size_t o = 0; o < options.size(); ++o) {
      auto h = history;
      const int add_n =
          static_cast<int>(std::ceil((need - cap) / options[o].max_qps_per_replica - 1e-9));
      for (int z = y; z < horizon; ++z) h[o][z] = history[o][y] + add_n;
      // Later years keep the current years' counts for the comparison.
      const double cost = build(h).cost.tco_usd;
      if (cost < best_cost) {
        best_cost = cost;
        best_h = h;
      }
    }
    history = *best_h;
    for (size_t o = 0; o < options.size(); ++o)
      for (int z = y + 1; z < horizon; ++z) history[o][z] = history[o][y];
  }
  // Redundancy on the last-bought option.
  if (in.constraints.redundancy > 0) {
    for (size_t o = options.size(); o-- > 0;) {
      if (history[o][horizon - 1] > 0) {
        for (int z = 0; z < horizon; ++z)
          if (history[o][z] > 0) history[o][z] += in.constraints.redundancy;
        break;
      }
    }
  }
  plan.recommended = build(history);
  std::string story;
  for (const auto& p : plan.recommended.cost.purchases) {
    story += fmt::format("{}year {}: buy {:.0f} x {}", story.empty() ? "" : "; ", p.year + 1,
                         p.devices, p.hardware);
  }
  plan.recommended.note = story;
  if (auto single = best_fleet(in, {pr}, "one hardware kind from the start")) {
    plan.alternatives.push_back(*single);
    if (single->cost.tco_usd < plan.recommended.cost.tco_usd) {
      plan.alternatives.back().note = "cheaper than staged growth";
      std::swap(plan.recommended, plan.alternatives.back());
    }
  }
}

}  // namespace

Result<PrecisionChoice> precision_preset(std::string_view name) {
  auto p = [](DType w, DType a, DType kv) { return Precision{w, a, kv}; };
  static const std::vector<PrecisionChoice> presets = {
      {"fp32", p(DType::fp32, DType::fp32, DType::fp32)},
      {"bf16", p(DType::bf16, DType::bf16, DType::bf16)},
      {"fp16", p(DType::fp16, DType::fp16, DType::fp16)},
      {"fp8", p(DType::fp8, DType::fp8, DType::bf16)},
      {"int8", p(DType::int8, DType::int8, DType::bf16)},
      {"w8a16", p(DType::int8, DType::bf16, DType::bf16)},
      {"int4", p(DType::int4, DType::bf16, DType::bf16)},
      {"q8_0", p(DType::q8_0, DType::bf16, DType::fp16)},
      {"q4_0", p(DType::q4_0, DType::bf16, DType::fp16)},
      {"q4_k_m", p(DType::q4_k_m, DType::bf16, DType::fp16)},
  };
  for (const auto& pc : presets)
    if (pc.name == name) return pc;
  std::string known;
  for (const auto& pc : presets) known += (known.empty() ? "" : ", ") + pc.name;
  return Error{fmt::format("unknown precision '{}'; expected one of {}", name, known)};
}

std::vector<std::string> precision_preset_names() {
  return {"fp32", "bf16", "fp16", "fp8", "int8", "w8a16", "int4", "q8_0", "q4_0", "q4_k_m"};
}

RequestClass scale_rate(RequestClass c, double factor) {
  c.rate.mean_qps *= factor;
  c.rate.peak_qps *= factor;
  for (auto& h : c.rate.hourly_qps) h *= factor;
  return c;
}

Result<std::vector<Pool>> tiered_pools(const std::vector<RequestClass>& classes,
                                       const std::vector<TierSpec>& tiers) {
  double sum = 0;
  for (const auto& t : tiers) {
    if (!(t.share > 0))
      return Error{fmt::format("tiers[{}].share: must be > 0, got {}", t.name, t.share)};
    sum += t.share;
  }
  if (tiers.empty() || std::fabs(sum - 1) > 1e-6)
    return Error{fmt::format("tiers: shares must sum to 1, got {}", sum)};
  std::vector<Pool> pools;
  for (const auto& t : tiers) {
    Pool p;
    p.name = t.name;
    p.model = t.model;
    for (const auto& c : classes) {
      RequestClass s = scale_rate(c, t.share);
      s.model = t.model;
      p.classes.push_back(std::move(s));
    }
    pools.push_back(std::move(p));
  }
  return pools;
}

std::vector<std::string> validate(const PlanInputs& in) {
  std::vector<std::string> e;
  if (in.pools.empty()) e.push_back("workload: no request classes");
  for (const auto& p : in.pools) {
    if (p.classes.empty()) e.push_back(fmt::format("pool '{}': no request classes", p.name));
    for (const auto& c : p.classes)
      for (auto& m : validate(c)) e.push_back(std::move(m));
    if (find_model(in, p.model) == nullptr)
      e.push_back(fmt::format("pool '{}': model '{}' is not loaded", p.name, p.model));
  }
  for (const auto& p : in.baseline_pools) {
    if (find_model(in, p.model) == nullptr)
      e.push_back(fmt::format("baseline: model '{}' is not loaded", p.model));
  }
  if (in.space.hardware.empty()) e.push_back("candidates.hardware: no hardware to choose from");
  if (in.space.stacks.empty()) e.push_back("candidates.stacks: no stack");
  if (in.space.precisions.empty()) e.push_back("candidates.precisions: no precision");
  if (in.space.tp.empty()) e.push_back("candidates.tp: no tensor-parallel degree");
  for (int t : in.space.tp)
    if (t < 1) e.push_back(fmt::format("candidates.tp: must be >= 1, got {}", t));
  if (in.space.max_seqs.empty()) e.push_back("candidates.max_batch: no batch cap");
  for (int b : in.space.max_seqs)
    if (b < 1) e.push_back(fmt::format("candidates.max_batch: must be >= 1, got {}", b));
  const Constraints& k = in.constraints;
  if (k.horizon_years < 1)
    e.push_back(fmt::format("constraints.horizon_years: must be >= 1, got {}", k.horizon_years));
  if (!(k.load_growth_per_year > -1)) {
    e.push_back(fmt::format("constraints.load_growth_per_year: must be > -1, got {}",
                            k.load_growth_per_year));
  }
  if (k.redundancy < 0)
    e.push_back(fmt::format("constraints.redundancy: must be >= 0, got {}", k.redundancy));
  if (k.capex_budget_usd < 0 || k.annual_budget_usd < 0 || k.power_cap_w < 0 || k.rack_units < 0 ||
      k.model_changes_per_year < 0)
    e.push_back("constraints: budgets, caps and model changes must be >= 0");
  if (in.objective == Objective::max_qps_within_budget && k.capex_budget_usd <= 0)
    e.push_back("objective max_qps_within_budget needs constraints.capex_budget_usd");
  for (auto& m : validate(in.serving)) e.push_back("serving: " + m);
  for (auto& m : validate(in.prices)) e.push_back("prices: " + m);
  if ((in.strategy == FleetStrategy::burst || in.strategy == FleetStrategy::staged) &&
      in.pools.size() != 1)
    e.push_back("fleet: burst and staged strategies take one model (one pool)");
  return e;
}

CandidateRow evaluate_candidate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                                const HardwareSpec& hw, const StackSpec& stack,
                                const PrecisionChoice& prec, int tp, int max_seqs) {
  CandidateRow r = evaluate(in, pool, model, hw, stack, prec, tp, max_seqs, 0, nullptr);
  r.objective_value = r.cost.tco_usd;
  return r;
}

Result<KneeResult> candidate_knee(const PlanInputs& in, const CandidateRow& row,
                                  const KneeOptions& opt) {
  const HardwareSpec* hw = nullptr;
  for (const auto& h : in.space.hardware)
    if (h.name == row.hardware) hw = &h;
  const StackSpec* st = nullptr;
  for (const auto& x : in.space.stacks)
    if (x.name == row.stack) st = &x;
  const Pool* pool = nullptr;
  for (const auto& p : in.pools)
    if (p.name == row.pool) pool = &p;
  for (const auto& p : in.baseline_pools)
    if (p.name == row.pool) pool = &p;
  auto prec = precision_preset(row.precision);
  const ModelSpec* model = find_model(in, row.model);
  if (hw == nullptr || st == nullptr || pool == nullptr || !prec || model == nullptr ||
      pool->classes.empty()) {
    return Error{fmt::format("candidate {} {} {} is not part of these inputs", row.hardware,
                             row.stack, row.precision)};
  }
  auto eng =
      make_engine(in, *model, *hw, *st, *prec, row.tp, row.max_seqs, pool_longest_tokens(*pool));
  if (!eng) return eng.error();
  return batch_knee(*eng->step, eng->cfg, pool->classes.front(), opt);
}

Result<Plan> solve(const PlanInputs& in) {
  const auto errs = validate(in);
  if (!errs.empty()) {
    std::string m;
    for (const auto& e : errs) m += (m.empty() ? "" : "; ") + e;
    return Error{m};
  }
  Plan plan;
  plan.name = in.name;
  plan.objective = in.objective;
  plan.strategy = in.strategy;
  int evaluated = 0;
  int verified = 0;
  if (in.strategy == FleetStrategy::burst) {
    solve_burst(in, plan, &evaluated, &verified);
  } else if (in.strategy == FleetStrategy::staged) {
    solve_staged(in, plan, &evaluated, &verified);
  } else {
    for (const auto& p : in.pools)
      plan.pools.push_back(solve_pool(in, p, *find_model(in, p.model), &evaluated, &verified));
    for (const auto& pr : plan.pools)
      if (pr.ranked.empty()) explain_infeasible(pr, plan);
    const char* label = in.objective == Objective::min_tco ? "lowest TCO meeting every constraint"
                                                           : "most load within the budget";
    if (auto best = best_fleet(in, plan.pools, label)) plan.recommended = *best;
    if (in.strategy == FleetStrategy::tiered && !in.baseline_pools.empty()) {
      std::vector<PoolResult> base;
      for (const auto& p : in.baseline_pools)
        base.push_back(solve_pool(in, p, *find_model(in, p.model), &evaluated, &verified));
      if (auto b =
              best_fleet(in, base, "baseline: every request on " + in.baseline_pools[0].model)) {
        if (plan.recommended.feasible) {
          b->note = fmt::format("{} devices vs {} with routing tiers; TCO {} vs {}", b->devices,
                                plan.recommended.devices, money(b->cost.tco_usd),
                                money(plan.recommended.cost.tco_usd));
        }
        plan.alternatives.push_back(*b);
      }
      for (auto& b : base) plan.pools.push_back(std::move(b));
    }
  }
  if (!plan.recommended.parts.empty()) fleet_constraints(in, plan.recommended);
  plan.feasible = plan.recommended.feasible;
  if (!plan.feasible && plan.infeasible_reason.empty()) {
    if (!plan.recommended.note.empty()) {
      plan.infeasible_reason = "the fleet as a whole: " + plan.recommended.note;
    } else {
      for (const auto& pr : plan.pools)
        if (pr.ranked.empty()) explain_infeasible(pr, plan);
    }
  }
  plan.candidates_evaluated = evaluated;
  plan.candidates_verified = verified;
  return plan;
}

}  // namespace infercap
