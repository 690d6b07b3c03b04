#include "infercap/spec/scenario_yaml.hpp"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>

namespace infercap::spec {

namespace {

// fmt's shortest representation that reads back to the same double ("0.1", "1e-05", "3600").
std::string num(double v) {
  return fmt::format("{}", v);
}

// A path relative to the scenario's file, rewritten relative to the target's folder (names that
// are not YAML paths are catalog names and stay).
std::string rebase(const std::string& p, const std::string& from_file, const std::string& to_file) {
  namespace fs = std::filesystem;
  const fs::path path = p;
  if (to_file.empty() || path.extension() != ".yaml" || path.is_absolute()) return p;
  std::error_code ec;
  const fs::path abs =
      fs::absolute(fs::path(from_file).parent_path() / path, ec).lexically_normal();
  if (ec) return p;
  const fs::path to_dir = fs::absolute(fs::path(to_file), ec).parent_path();
  if (ec) return abs.string();
  const fs::path rel = abs.lexically_relative(to_dir);
  return rel.empty() ? abs.string() : rel.string();
}

const char* class_name(HwClass c) {
  switch (c) {
    case HwClass::cpu:
      return "cpu";
    case HwClass::gpu:
      return "gpu";
    case HwClass::npu:
      return "npu";
    case HwClass::fpga:
      return "fpga";
  }
  return "gpu";
}

void classes(YAML::Emitter& o, const std::vector<HwClass>& v) {
  o << YAML::Flow << YAML::BeginSeq;
  for (HwClass c : v) o << class_name(c);
  o << YAML::EndSeq;
}

void strings(YAML::Emitter& o, const std::vector<std::string>& v) {
  o << YAML::Flow << YAML::BeginSeq;
  for (const auto& s : v) o << s;
  o << YAML::EndSeq;
}

template <class T>
void numbers(YAML::Emitter& o, const std::vector<T>& v) {
  o << YAML::Flow << YAML::BeginSeq;
  for (T x : v) o << num(static_cast<double>(x));
  o << YAML::EndSeq;
}

void length(YAML::Emitter& o, const char* key, const LengthDist& d) {
  o << YAML::Key << key << YAML::Value;
  switch (d.kind) {
    case LengthKind::fixed:
      o << num(d.value_tokens);
      return;
    case LengthKind::uniform:
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "uniform"
        << YAML::Key << "min" << YAML::Value << num(d.min_tokens) << YAML::Key << "max"
        << YAML::Value << num(d.max_tokens) << YAML::EndMap;
      return;
    case LengthKind::exponential:
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "exponential"
        << YAML::Key << "mean" << YAML::Value << num(d.value_tokens) << YAML::EndMap;
      return;
    case LengthKind::lognormal:
      // The reader builds mu = ln(mean) - sigma^2 / 2 from these (workload.hpp).
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "lognormal"
        << YAML::Key << "mean" << YAML::Value << num(std::exp(d.mu + d.sigma * d.sigma / 2))
        << YAML::Key << "sigma" << YAML::Value << num(d.sigma) << YAML::EndMap;
      return;
    case LengthKind::histogram:
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "histogram"
        << YAML::Key << "tokens" << YAML::Value;
      numbers(o, d.bin_tokens);
      o << YAML::Key << "weights" << YAML::Value;
      numbers(o, d.bin_weights);
      o << YAML::EndMap;
      return;
  }
}

void sla_target(YAML::Emitter& o, const char* metric, const SlaTarget& t) {
  if (!t.set()) return;
  o << YAML::Key << fmt::format("{}_p{}_s", metric, t.percentile) << YAML::Value << num(t.limit_s);
}

bool same_rate(const ArrivalRate& a, const Result<ArrivalRate>& b) {
  return b.ok() && a.mean_qps == b->mean_qps && a.peak_qps == b->peak_qps &&
         a.hourly_qps == b->hourly_qps;
}

// The load as it is written: in the form it was stated. While the class's rate is still what
// the statement implies, the statement is written unchanged; after an edit (the GUI's load
// factor) the same form is kept with what now gives that rate: a batch job's documents and runs
// a day from its peak and mean rates (peak = documents / (hours x 3600), mean = documents x
// runs / 86400), a closed loop's users from its peak (peak = users / think time). A daily curve
// has no such form, so it is written as the open-loop rate it is.
StatedLoad load_to_write(const RequestClass& c, const StatedLoad& s) {
  StatedLoad w = s;
  if (s.form == StatedLoad::Form::rate || !c.rate.hourly_qps.empty() || c.rate.peak_qps <= 0) {
    w.form = StatedLoad::Form::rate;
    return w;
  }
  if (s.form == StatedLoad::Form::batch) {
    if (same_rate(c.rate, batch_job_rate(s.documents, s.within_hours, s.runs_per_day))) return w;
    w.documents = c.rate.peak_qps * s.within_hours * 3600;
    const double mean = c.rate.mean_qps > 0 ? c.rate.mean_qps : c.rate.peak_qps;
    w.runs_per_day = mean * 86400 / w.documents;
    return w;
  }
  if (same_rate(c.rate, closed_loop_rate(s.concurrent_users, s.think_time_s, s.mean_qps))) return w;
  w.concurrent_users = c.rate.peak_qps * s.think_time_s;
  w.mean_qps = c.rate.mean_qps != c.rate.peak_qps ? c.rate.mean_qps : 0;
  return w;
}

void request_class(YAML::Emitter& o, const RequestClass& c, const StatedLoad& stated,
                   bool output_omitted, std::pair<double, double> prefix) {
  o << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << c.name;
  o << YAML::Key << "model" << YAML::Value << c.model;
  if (c.priority != 0) o << YAML::Key << "priority" << YAML::Value << c.priority;
  const StatedLoad load = load_to_write(c, stated);
  const StatedLoad::Form form = load.form;
  if (form == StatedLoad::Form::batch) {
    o << YAML::Key << "batch" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "documents" << YAML::Value << num(load.documents) << YAML::Key << "within_hours"
      << YAML::Value << num(load.within_hours) << YAML::Key << "runs_per_day" << YAML::Value
      << num(load.runs_per_day) << YAML::EndMap;
  } else {
    o << YAML::Key << "rate" << YAML::Value << YAML::BeginMap;
    if (form == StatedLoad::Form::closed_loop) {
      o << YAML::Key << "concurrent_users" << YAML::Value << num(load.concurrent_users);
      o << YAML::Key << "think_time_s" << YAML::Value << num(load.think_time_s);
      if (load.mean_qps > 0) o << YAML::Key << "mean_qps" << YAML::Value << num(load.mean_qps);
    } else {
      if (c.rate.mean_qps > 0) o << YAML::Key << "mean_qps" << YAML::Value << num(c.rate.mean_qps);
      if (c.rate.peak_qps > 0) o << YAML::Key << "peak_qps" << YAML::Value << num(c.rate.peak_qps);
      if (!c.rate.hourly_qps.empty()) {
        o << YAML::Key << "hourly_qps" << YAML::Value;
        numbers(o, c.rate.hourly_qps);
      }
    }
    o << YAML::EndMap;
  }
  if (prefix.first > 0 || prefix.second > 0) {
    o << YAML::Key << "prefix" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "shared_tokens" << YAML::Value << num(prefix.first) << YAML::Key << "hit_rate"
      << YAML::Value << num(prefix.second) << YAML::EndMap;
  }
  o << YAML::Key << "arrival" << YAML::Value;
  switch (c.arrival.kind) {
    case ArrivalKind::poisson:
      o << "poisson";
      break;
    case ArrivalKind::deterministic:
      o << "deterministic";
      break;
    case ArrivalKind::gamma:
    case ArrivalKind::hyperexponential:
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value
        << (c.arrival.kind == ArrivalKind::gamma ? "gamma" : "bursty") << YAML::Key << "scv"
        << YAML::Value << num(c.arrival.scv) << YAML::EndMap;
      break;
  }
  length(o, "prompt_tokens", c.prompt_tokens);
  // An encoder's class states no output (one pass); the reader gives it 1 token again.
  if (!output_omitted) length(o, "output_tokens", c.output_tokens);
  const bool no_sla = !c.sla.ttft.set() && !c.sla.tpot.set() && !c.sla.e2e.set();
  if (!(form == StatedLoad::Form::batch && stated.sla_omitted && no_sla)) {
    o << YAML::Key << "sla" << YAML::Value << YAML::BeginMap;
    sla_target(o, "ttft", c.sla.ttft);
    sla_target(o, "tpot", c.sla.tpot);
    sla_target(o, "e2e", c.sla.e2e);
    o << YAML::EndMap;
  }
  o << YAML::EndMap;
}

bool same_tiers(const std::vector<VolumeTier>& a, const std::vector<VolumeTier>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].min_units != b[i].min_units || a[i].unit_price_usd != b[i].unit_price_usd)
      return false;
  }
  return true;
}

bool same_device(const DevicePricing& a, const DevicePricing& b) {
  return same_tiers(a.tiers, b.tiers) && a.server_price_usd == b.server_price_usd &&
         a.server_host_w == b.server_host_w && a.rack_units_per_server == b.rack_units_per_server &&
         a.cloud_usd_per_device_hour == b.cloud_usd_per_device_hour &&
         a.porting_family == b.porting_family && a.estimate == b.estimate &&
         a.owned_devices == b.owned_devices && a.owned_servers == b.owned_servers;
}

bool same_porting(const PortingCost& a, const PortingCost& b) {
  return a.first_port_engineer_weeks == b.first_port_engineer_weeks &&
         a.per_model_change_engineer_weeks == b.per_model_change_engineer_weeks &&
         a.estimate == b.estimate;
}

void device(YAML::Emitter& o, const DevicePricing& d) {
  o << YAML::BeginMap;
  o << YAML::Key << "hardware" << YAML::Value << d.hardware;
  o << YAML::Key << "tiers" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : d.tiers) {
    o << YAML::Flow << YAML::BeginMap << YAML::Key << "min_units" << YAML::Value << t.min_units
      << YAML::Key << "unit_price_usd" << YAML::Value << num(t.unit_price_usd) << YAML::EndMap;
  }
  o << YAML::EndSeq;
  o << YAML::Key << "server_price_usd" << YAML::Value << num(d.server_price_usd);
  o << YAML::Key << "server_host_w" << YAML::Value << num(d.server_host_w);
  o << YAML::Key << "rack_units_per_server" << YAML::Value << d.rack_units_per_server;
  o << YAML::Key << "cloud_usd_per_device_hour" << YAML::Value << num(d.cloud_usd_per_device_hour);
  if (!d.porting_family.empty())
    o << YAML::Key << "porting_family" << YAML::Value << d.porting_family;
  o << YAML::Key << "estimate" << YAML::Value << d.estimate;
  o << YAML::Key << "owned_devices" << YAML::Value << num(d.owned_devices);
  o << YAML::Key << "owned_servers" << YAML::Value << num(d.owned_servers);
  o << YAML::EndMap;
}

void prices(YAML::Emitter& o, const Scenario& sc, const PriceBook* base, const std::string& to) {
  const PriceBook& b = sc.prices;
  o << YAML::Key << "prices" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "file" << YAML::Value << rebase(sc.price_file, sc.file, to);
  o << YAML::Key << "display_currency" << YAML::Value
    << (b.display_currency == Currency::cny ? "CNY" : "USD");
  o << YAML::Key << "cny_per_usd" << YAML::Value << num(b.cny_per_usd);
  o << YAML::Key << "depreciation_years" << YAML::Value << num(b.depreciation_years);
  o << YAML::Key << "electricity_usd_per_kwh" << YAML::Value << num(b.electricity_usd_per_kwh);
  o << YAML::Key << "pue" << YAML::Value << num(b.pue);
  o << YAML::Key << "hosting_usd_per_kw_year" << YAML::Value << num(b.hosting_usd_per_kw_year);
  o << YAML::Key << "hosting_usd_per_rack_unit_year" << YAML::Value
    << num(b.hosting_usd_per_rack_unit_year);
  o << YAML::Key << "maintenance_fraction_per_year" << YAML::Value
    << num(b.maintenance_fraction_per_year);
  o << YAML::Key << "ops_usd_per_server_year" << YAML::Value << num(b.ops_usd_per_server_year);
  o << YAML::Key << "engineer_week_usd" << YAML::Value << num(b.engineer_week_usd);
  std::vector<const DevicePricing*> devs;
  for (const auto& d : b.devices) {
    const DevicePricing* was = base != nullptr ? base->find(d.hardware) : nullptr;
    if (was == nullptr || !same_device(*was, d)) devs.push_back(&d);
  }
  if (!devs.empty()) {
    o << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const auto* d : devs) device(o, *d);
    o << YAML::EndSeq;
  }
  std::vector<const PortingCost*> ports;
  for (const auto& p : b.porting) {
    const PortingCost* was = base != nullptr ? base->porting_for(p.family) : nullptr;
    if (was == nullptr || !same_porting(*was, p)) ports.push_back(&p);
  }
  if (!ports.empty()) {
    o << YAML::Key << "porting" << YAML::Value << YAML::BeginSeq;
    for (const auto* p : ports) {
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "family" << YAML::Value << p->family
        << YAML::Key << "first_port_engineer_weeks" << YAML::Value
        << num(p->first_port_engineer_weeks) << YAML::Key << "per_model_change_engineer_weeks"
        << YAML::Value << num(p->per_model_change_engineer_weeks) << YAML::Key << "estimate"
        << YAML::Value << p->estimate << YAML::EndMap;
    }
    o << YAML::EndSeq;
  }
  o << YAML::EndMap;
}

const char* strategy_name(FleetStrategy s) {
  switch (s) {
    case FleetStrategy::single:
      return "single";
    case FleetStrategy::tiered:
      return "tiered";
    case FleetStrategy::burst:
      return "burst";
    case FleetStrategy::staged:
      return "staged";
  }
  return "single";
}

}  // namespace

std::string scenario_to_yaml(const Scenario& sc, const PriceBook* base,
                             const std::string& target_path) {
  YAML::Emitter o;
  o.SetIndent(2);
  o << YAML::BeginMap;
  o << YAML::Key << "schema_version" << YAML::Value << 1;
  o << YAML::Key << "kind" << YAML::Value << "scenario";
  o << YAML::Key << "name" << YAML::Value << sc.name;
  if (!sc.description.empty()) o << YAML::Key << "description" << YAML::Value << sc.description;
  prices(o, sc, base, target_path);

  o << YAML::Key << "workload" << YAML::Value << YAML::BeginMap << YAML::Key << "classes"
    << YAML::Value << YAML::BeginSeq;
  for (size_t i = 0; i < sc.classes.size(); ++i) {
    const StatedLoad stated = i < sc.stated_loads.size() ? sc.stated_loads[i] : StatedLoad{};
    const bool omitted = i < sc.output_tokens_omitted.size() && sc.output_tokens_omitted[i];
    const auto prefix =
        i < sc.prefix_reuse.size() ? sc.prefix_reuse[i] : std::pair<double, double>{0, 0};
    request_class(o, sc.classes[i], stated, omitted, prefix);
  }
  o << YAML::EndSeq << YAML::EndMap;

  const CandidateSelection& c = sc.candidates;
  o << YAML::Key << "candidates" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "hardware" << YAML::Value;
  if (c.all_hardware) {
    o << "all";
  } else {
    strings(o, c.hardware);
  }
  if (!c.classes.empty()) {
    o << YAML::Key << "classes" << YAML::Value;
    classes(o, c.classes);
  }
  if (!c.vendors.empty()) {
    o << YAML::Key << c.include_vendors_key << YAML::Value;  // as the file spelled it
    strings(o, c.vendors);
  }
  if (!c.exclude_vendors.empty()) {
    o << YAML::Key << "exclude_vendors" << YAML::Value;
    strings(o, c.exclude_vendors);
  }
  o << YAML::Key << "precisions" << YAML::Value;
  strings(o, c.precisions);
  if (!c.kv_precisions.empty()) {
    o << YAML::Key << "kv_precisions" << YAML::Value;
    strings(o, c.kv_precisions);
  }
  if (!c.stacks.empty()) {
    std::vector<std::string> stacks;
    for (const auto& st : c.stacks) stacks.push_back(rebase(st, sc.file, target_path));
    o << YAML::Key << "stacks" << YAML::Value;
    strings(o, stacks);
  }
  o << YAML::Key << "tp" << YAML::Value;
  numbers(o, c.tp);
  o << YAML::Key << "max_batch" << YAML::Value;
  numbers(o, c.max_batch);
  o << YAML::Key << "mixed_fleet" << YAML::Value << c.mixed_fleet;
  o << YAML::EndMap;

  o << YAML::Key << "serving" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "max_batched_tokens" << YAML::Value << sc.serving.max_batched_tokens;
  o << YAML::Key << "chunked_prefill" << YAML::Value << sc.serving.chunked();
  o << YAML::Key << "kv_block_tokens" << YAML::Value << sc.serving.kv_block_tokens;
  o << YAML::Key << "max_context_tokens" << YAML::Value << sc.serving.max_context_tokens;
  o << YAML::EndMap;

  const Constraints& k = sc.constraints;
  o << YAML::Key << "constraints" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "capex_budget_usd" << YAML::Value << num(k.capex_budget_usd);
  o << YAML::Key << "annual_budget_usd" << YAML::Value << num(k.annual_budget_usd);
  o << YAML::Key << "power_cap_w" << YAML::Value << num(k.power_cap_w);
  o << YAML::Key << "rack_units" << YAML::Value << k.rack_units;
  o << YAML::Key << "load_growth_per_year" << YAML::Value << num(k.load_growth_per_year);
  o << YAML::Key << "redundancy" << YAML::Value << k.redundancy;
  o << YAML::Key << "horizon_years" << YAML::Value << k.horizon_years;
  o << YAML::Key << "model_changes_per_year" << YAML::Value << num(k.model_changes_per_year);
  o << YAML::EndMap;

  o << YAML::Key << "objective" << YAML::Value << std::string(objective_name(sc.objective));

  const FleetSpec& f = sc.fleet;
  o << YAML::Key << "fleet" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "strategy" << YAML::Value << strategy_name(f.strategy);
  if (!f.tiers.empty()) {
    o << YAML::Key << "tiers" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : f.tiers) {
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name << YAML::Key
        << "model" << YAML::Value << t.model << YAML::Key << "share" << YAML::Value << num(t.share)
        << YAML::EndMap;
    }
    o << YAML::EndSeq;
  }
  if (!f.baseline_model.empty())
    o << YAML::Key << "baseline_model" << YAML::Value << f.baseline_model;
  o << YAML::Key << "base_classes" << YAML::Value;
  classes(o, f.base_classes);
  o << YAML::Key << "buffer_classes" << YAML::Value;
  classes(o, f.buffer_classes);
  if (f.burst_events_per_year > 0) {
    o << YAML::Key << "burst_events" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "per_year" << YAML::Value << num(f.burst_events_per_year) << YAML::Key << "hours"
      << YAML::Value << num(f.burst_event_hours) << YAML::EndMap;
  }
  o << YAML::EndMap;

  o << YAML::Key << "verify" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "top" << YAML::Value << sc.verify_top;
  o << YAML::Key << "requests" << YAML::Value << sc.verify_requests;
  o << YAML::Key << "seed" << YAML::Value << sc.seed;
  o << YAML::EndMap;
  o << YAML::EndMap;
  return std::string("# written by infercap (spec::scenario_to_yaml); money in USD\n") + o.c_str() +
         "\n";
}

}  // namespace infercap::spec
