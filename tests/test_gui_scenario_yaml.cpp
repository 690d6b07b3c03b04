// [unit][gui] spec::scenario_to_yaml: a scenario written back as YAML reads back as the same
// scenario (what the GUI's what-if desk saves is what `infercap plan` answers).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "infercap/spec/prices.hpp"
#include "infercap/spec/scenario.hpp"
#include "infercap/spec/scenario_yaml.hpp"

#include <yaml-cpp/yaml.h>

using namespace infercap;
namespace fs = std::filesystem;

namespace {

const std::string kData = INFERCAP_SOURCE_DIR "/data";

std::vector<std::string> example_scenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kData + "/examples")) {
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.find("\nkind: scenario") != std::string::npos) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void same_length(const LengthDist& a, const LengthDist& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.value_tokens == b.value_tokens);
  CHECK(a.min_tokens == b.min_tokens);
  CHECK(a.max_tokens == b.max_tokens);
  // Lognormals are written as mean + sigma: mu = ln(exp(mu + s^2/2)) - s^2/2 rounds by ulps.
  CHECK(a.mu == Approx(b.mu).margin(1e-12));
  CHECK(a.sigma == b.sigma);
  CHECK(a.bin_tokens == b.bin_tokens);
  CHECK(a.bin_weights == b.bin_weights);
}

void same_scenario(const spec::Scenario& a, const spec::Scenario& b) {
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
  REQUIRE(a.classes.size() == b.classes.size());
  for (size_t i = 0; i < a.classes.size(); ++i) {
    const RequestClass &x = a.classes[i], &y = b.classes[i];
    INFO("class " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.model == y.model);
    CHECK(x.priority == y.priority);
    CHECK(x.rate.mean_qps == y.rate.mean_qps);
    CHECK(x.rate.peak_qps == y.rate.peak_qps);
    CHECK(x.rate.hourly_qps == y.rate.hourly_qps);
    CHECK(x.arrival.kind == y.arrival.kind);
    CHECK(x.arrival.scv == y.arrival.scv);
    same_length(x.prompt_tokens, y.prompt_tokens);
    same_length(x.output_tokens, y.output_tokens);
    for (auto [s, t] :
         {std::pair{x.sla.ttft, y.sla.ttft}, {x.sla.tpot, y.sla.tpot}, {x.sla.e2e, y.sla.e2e}}) {
      CHECK(s.limit_s == t.limit_s);
      if (s.set()) CHECK(s.percentile == t.percentile);
    }
  }
  const auto &c = a.candidates, &d = b.candidates;
  CHECK(c.all_hardware == d.all_hardware);
  CHECK(c.hardware == d.hardware);
  CHECK(c.classes == d.classes);
  CHECK(c.vendors == d.vendors);
  CHECK(c.exclude_vendors == d.exclude_vendors);
  CHECK(c.precisions == d.precisions);
  CHECK(c.kv_precisions == d.kv_precisions);
  CHECK(a.output_tokens_omitted == b.output_tokens_omitted);
  CHECK(a.prefix_reuse == b.prefix_reuse);
  REQUIRE(a.stated_loads.size() == b.stated_loads.size());
  for (size_t i = 0; i < a.stated_loads.size(); ++i) {
    const auto &s = a.stated_loads[i], &t = b.stated_loads[i];
    CHECK(s.form == t.form);
    CHECK(s.concurrent_users == t.concurrent_users);
    CHECK(s.think_time_s == t.think_time_s);
    CHECK(s.documents == t.documents);
    CHECK(s.within_hours == t.within_hours);
    CHECK(s.runs_per_day == t.runs_per_day);
    CHECK(s.sla_omitted == t.sla_omitted);
  }
  CHECK(c.tp == d.tp);
  CHECK(c.max_batch == d.max_batch);
  CHECK(c.mixed_fleet == d.mixed_fleet);
  CHECK(a.serving.max_batched_tokens == b.serving.max_batched_tokens);
  CHECK(a.serving.prompt_schedule == b.serving.prompt_schedule);
  CHECK(a.serving.kv_block_tokens == b.serving.kv_block_tokens);
  CHECK(a.serving.max_context_tokens == b.serving.max_context_tokens);
  const auto &k = a.constraints, &l = b.constraints;
  CHECK(k.capex_budget_usd == l.capex_budget_usd);
  CHECK(k.annual_budget_usd == l.annual_budget_usd);
  CHECK(k.power_cap_w == l.power_cap_w);
  CHECK(k.rack_units == l.rack_units);
  CHECK(k.load_growth_per_year == l.load_growth_per_year);
  CHECK(k.redundancy == l.redundancy);
  CHECK(k.horizon_years == l.horizon_years);
  CHECK(k.model_changes_per_year == l.model_changes_per_year);
  CHECK(a.objective == b.objective);
  CHECK(a.fleet.strategy == b.fleet.strategy);
  REQUIRE(a.fleet.tiers.size() == b.fleet.tiers.size());
  for (size_t i = 0; i < a.fleet.tiers.size(); ++i) {
    CHECK(a.fleet.tiers[i].name == b.fleet.tiers[i].name);
    CHECK(a.fleet.tiers[i].model == b.fleet.tiers[i].model);
    CHECK(a.fleet.tiers[i].share == b.fleet.tiers[i].share);
  }
  CHECK(a.fleet.baseline_model == b.fleet.baseline_model);
  CHECK(a.fleet.base_classes == b.fleet.base_classes);
  CHECK(a.fleet.buffer_classes == b.fleet.buffer_classes);
  CHECK(a.fleet.burst_hours_per_year == b.fleet.burst_hours_per_year);
  CHECK(a.fleet.burst_events_per_year == b.fleet.burst_events_per_year);
  CHECK(a.fleet.burst_event_hours == b.fleet.burst_event_hours);
  CHECK(a.verify_top == b.verify_top);
  CHECK(a.verify_requests == b.verify_requests);
  CHECK(a.seed == b.seed);
  const PriceBook &p = a.prices, &q = b.prices;
  CHECK(p.display_currency == q.display_currency);
  CHECK(p.cny_per_usd == q.cny_per_usd);
  CHECK(p.depreciation_years == q.depreciation_years);
  CHECK(p.electricity_usd_per_kwh == q.electricity_usd_per_kwh);
  CHECK(p.pue == q.pue);
  CHECK(p.hosting_usd_per_kw_year == q.hosting_usd_per_kw_year);
  CHECK(p.hosting_usd_per_rack_unit_year == q.hosting_usd_per_rack_unit_year);
  CHECK(p.maintenance_fraction_per_year == q.maintenance_fraction_per_year);
  CHECK(p.ops_usd_per_server_year == q.ops_usd_per_server_year);
  CHECK(p.engineer_week_usd == q.engineer_week_usd);
  REQUIRE(p.devices.size() == q.devices.size());
  for (const auto& dp : p.devices) {
    const DevicePricing* dq = q.find(dp.hardware);
    REQUIRE(dq != nullptr);
    REQUIRE(dp.tiers.size() == dq->tiers.size());
    for (size_t i = 0; i < dp.tiers.size(); ++i) {
      CHECK(dp.tiers[i].min_units == dq->tiers[i].min_units);
      CHECK(dp.tiers[i].unit_price_usd == dq->tiers[i].unit_price_usd);
    }
    CHECK(dp.server_price_usd == dq->server_price_usd);
    CHECK(dp.server_host_w == dq->server_host_w);
    CHECK(dp.rack_units_per_server == dq->rack_units_per_server);
    CHECK(dp.cloud_usd_per_device_hour == dq->cloud_usd_per_device_hour);
    CHECK(dp.porting_family == dq->porting_family);
    CHECK(dp.estimate == dq->estimate);
  }
  REQUIRE(p.porting.size() == q.porting.size());
}

// Every key path of a YAML tree ("workload.classes[0].rate.hourly_qps"), mappings and sequence
// elements included.
void key_paths(const YAML::Node& n, const std::string& at, std::set<std::string>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string p = at.empty() ? kv.first.Scalar() : at + "." + kv.first.Scalar();
      out.insert(p);
      key_paths(kv.second, p, out);
    }
  } else if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i)
      key_paths(n[i], at + "[" + std::to_string(i) + "]", out);
  }
}

// A key of the source the writer spells differently on purpose (money in USD, lognormals as
// mean + sigma, a daily count as a rate, a fixed length as a number), or one the reader ignores.
bool rewritten(const std::string& p) {
  auto ends = [&](const char* suf) {
    const std::string s(suf);
    return p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0;
  };
  if (p.rfind("sources", 0) == 0) return true;
  if (p.rfind("prices.devices", 0) == 0 || p.rfind("prices.porting", 0) == 0) return true;
  if (p.find("_cny") != std::string::npos) return true;             // written as the _usd key
  if (ends(".p50") || ends(".p90")) return true;                    // lognormal: mean + sigma
  if (ends(".requests_per_day")) return true;                       // mean_qps
  if (ends("_tokens.kind") || ends("_tokens.tokens")) return true;  // {kind: fixed} -> number
  return false;
}

spec::Scenario reread(const std::string& text, const std::string& as_file) {
  spec::Diagnostics diags;
  spec::Document doc = spec::parse_text(text, as_file, diags);
  REQUIRE(doc.ok);
  auto sc = spec::parse_scenario(doc, kData, diags);
  INFO(diags.format() << "\n" << text);
  REQUIRE(sc);
  CHECK_FALSE(diags.has_errors());
  return *sc;
}

}  // namespace

TEST_CASE("every example scenario round-trips through scenario_to_yaml", "[unit][gui]") {
  const auto files = example_scenarios();
  REQUIRE(files.size() >= 8);  // the examples folder holds ten scenarios today
  for (const auto& f : files) {
    INFO(f);
    spec::Diagnostics diags;
    auto sc = spec::load_scenario(f, kData, diags);
    REQUIRE(sc);
    // Without a base book every device price is written out; read back in place of the file.
    const std::string full = spec::scenario_to_yaml(*sc);
    // Nothing of the file is dropped: every key it has is written (under its canonical
    // spelling). A field added to the reader but not to the writer fails here, by name.
    std::set<std::string> src_keys, out_keys;
    key_paths(YAML::LoadFile(f), "", src_keys);
    key_paths(YAML::Load(full), "", out_keys);
    for (const auto& k : src_keys) {
      if (rewritten(k)) continue;
      INFO("key " << k << " of " << f << " is not written");
      CHECK(out_keys.count(k) == 1);
    }
    const spec::Scenario back = reread(full, f);
    same_scenario(*sc, back);
    CHECK(sc->candidates.stacks == back.candidates.stacks);  // same file: paths unchanged
    // With the base book only the differences are written, and the result is the same.
    spec::Diagnostics bd;
    auto base = spec::load_prices(kData + "/prices/" + sc->price_file + ".yaml", bd);
    if (base) {
      const std::string diff = spec::scenario_to_yaml(*sc, &*base);
      CHECK(diff.size() <= full.size());
      same_scenario(*sc, reread(diff, f));
      // Writing what was read back gives the same text: nothing drifts on a second save.
      CHECK(spec::scenario_to_yaml(reread(diff, f), &*base) == diff);
    }
  }
}

TEST_CASE("scenario_to_yaml writes edited values, money in USD, and rebases file paths",
          "[unit][gui]") {
  const std::string src = kData + "/examples/bert-npu-fixed.yaml";
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(src, kData, diags);
  REQUIRE(sc);
  sc->constraints.capex_budget_usd = 1234567.5;
  sc->constraints.power_cap_w = 42e3;
  sc->prices.display_currency = Currency::cny;
  sc->prices.electricity_usd_per_kwh = 0.0731;
  sc->classes[0].sla.ttft = {0.025, 99.9};
  sc->classes[0].rate.hourly_qps.assign(24, 100.0);
  sc->classes[0].rate.hourly_qps[19] = 2500;
  // Saved into another folder: the scenario's stack file must still be found.
  const fs::path out = fs::temp_directory_path() / "infercap-yaml-test" / "sub" / "edited.yaml";
  fs::create_directories(out.parent_path());
  const std::string text = spec::scenario_to_yaml(*sc, nullptr, out.string());
  CHECK(text.find("capex_budget_usd: 1234567.5") != std::string::npos);
  CHECK(text.find("ttft_p99.9_s: 0.025") != std::string::npos);
  CHECK(text.find("display_currency: CNY") != std::string::npos);
  CHECK(text.find("ascend-bert-tuned.stack.yaml") != std::string::npos);
  CHECK(text.find(src) == std::string::npos);  // relative, not the absolute source path
  { std::ofstream(out) << text; }
  spec::Diagnostics d2;
  auto back = spec::load_scenario(out.string(), kData, d2);
  INFO(d2.format() << text);
  REQUIRE(back);
  same_scenario(*sc, *back);
  // The stack path resolves from the new folder to the same file.
  REQUIRE(back->candidates.stacks.size() == 2);
  const fs::path resolved = out.parent_path() / back->candidates.stacks[1];
  CHECK(fs::equivalent(resolved, fs::path(kData) / "examples" / "ascend-bert-tuned.stack.yaml"));
  fs::remove_all(out.parent_path().parent_path());
}

TEST_CASE("a batch job and a closed loop keep their form when their rate is edited",
          "[unit][gui]") {
  const std::string f = kData + "/examples/nightly-batch.yaml";
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(f, kData, diags);
  REQUIRE(sc);
  REQUIRE(sc->stated_loads.size() == 1);
  REQUIRE(sc->stated_loads[0].form == spec::StatedLoad::Form::batch);
  // 40000 documents within 5 h: 40000 / (5 x 3600) = 2.222 req/s while the job runs.
  CHECK(sc->classes[0].rate.peak_qps == Approx(40000.0 / (5 * 3600)));
  const std::string as_read = spec::scenario_to_yaml(*sc);
  CHECK(as_read.find("documents: 40000") != std::string::npos);
  CHECK(as_read.find("peak_qps") == std::string::npos);
  // Doubling the rate (the GUI's load factor) is twice the documents in the same 5 hours, once
  // a day: 80000 documents, read back at 4.444 req/s.
  sc->classes[0].rate.peak_qps *= 2;
  sc->classes[0].rate.mean_qps *= 2;
  const spec::Scenario back = reread(spec::scenario_to_yaml(*sc), f);
  REQUIRE(back.stated_loads[0].form == spec::StatedLoad::Form::batch);
  CHECK(back.stated_loads[0].documents == Approx(80000));
  CHECK(back.stated_loads[0].runs_per_day == Approx(1));
  CHECK(back.classes[0].rate.peak_qps == Approx(2 * 40000.0 / (5 * 3600)));

  // A closed loop: 50 users thinking 10 s offer at most 50 / 10 = 5 req/s; at 1.5x, 75 users.
  std::ifstream in(kData + "/examples/support-bot.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open_loop = "rate: {mean_qps: 2, peak_qps: 5}";
  REQUIRE(text.find(open_loop) != std::string::npos);
  text.replace(text.find(open_loop), open_loop.size(),
               "rate: {concurrent_users: 50, think_time_s: 10 s, mean_qps: 2}");
  spec::Scenario users = reread(text, kData + "/examples/support-bot.yaml");
  REQUIRE(users.stated_loads.at(0).form == spec::StatedLoad::Form::closed_loop);
  CHECK(users.stated_loads[0].think_time_s == Approx(10));
  CHECK(users.classes[0].rate.peak_qps == Approx(50.0 / 10));
  const std::string same = spec::scenario_to_yaml(users);
  CHECK(same.find("concurrent_users: 50") != std::string::npos);
  users.classes[0].rate.peak_qps *= 1.5;
  const spec::Scenario again = reread(spec::scenario_to_yaml(users), f);
  CHECK(again.stated_loads[0].concurrent_users == Approx(75));
  CHECK(again.classes[0].rate.peak_qps == Approx(7.5));
  CHECK(again.classes[0].rate.mean_qps == Approx(2));
}
