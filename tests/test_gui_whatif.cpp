// [gui] The Plan tab's what-if desk: each input the panel shows is changed through the view
// model, re-solved as the panel does (solve_loaded on the edited scenario), and compared with
// the plan `infercap plan` computes from the YAML the desk saves.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "catalog_fixture.hpp"
#include "gui_desk_fixture.hpp"
#include "infercap/spec/scenario.hpp"
#include "infercap_gui/file_browser.hpp"
#include "infercap_gui/plan_export.hpp"
#include "infercap_gui/plan_job.hpp"
#include "infercap_gui/whatif.hpp"

using namespace infercap;
using namespace infercap::gui;
namespace fs = std::filesystem;

namespace {

const std::string& kData = infercap::test::kDataDir;
using infercap::test::catalog;

// The CLI's pipeline on a YAML file (cli/cmd_plan.cpp solve_scenario: load_scenario ->
// to_plan_inputs -> solve).
Plan plan_of_file(const std::string& path) {
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(path, kData, diags);
  INFO(diags.format());
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, catalog(), diags);
  REQUIRE(in);
  auto plan = solve(*in);
  REQUIRE(plan);
  return *plan;
}

void same_answer(const Plan& a, const Plan& b) {
  CHECK(a.feasible == b.feasible);
  CHECK(a.candidates_evaluated == b.candidates_evaluated);
  REQUIRE(a.recommended.parts.size() == b.recommended.parts.size());
  for (size_t i = 0; i < a.recommended.parts.size(); ++i) {
    const auto &x = a.recommended.parts[i], &y = b.recommended.parts[i];
    CHECK(x.hardware == y.hardware);
    CHECK(x.precision == y.precision);
    CHECK(x.tp == y.tp);
    CHECK(x.replicas == y.replicas);
    CHECK(x.design_qps == Approx(y.design_qps).epsilon(1e-12));
  }
  CHECK(a.recommended.devices == b.recommended.devices);
  CHECK(a.recommended.cost.tco_usd == Approx(b.recommended.cost.tco_usd).epsilon(1e-12));
}

// The GUI's answer for the desk's current inputs, and the CLI pipeline's answer for the YAML it
// saves; they must agree. Returns the GUI's plan.
Plan resolve_and_check(const WhatIf& w, const std::string& tag) {
  const PlanOutcome gui = solve_loaded(catalog(), w.inputs().sc);
  INFO(tag << ": " << gui.error);
  REQUIRE(gui.state == JobState::done);
  const fs::path out = fs::temp_directory_path() / ("infercap-whatif-" + tag + ".yaml");
  std::string err;
  REQUIRE(w.save(out.string(), err));
  const Plan cli = plan_of_file(out.string());
  same_answer(*gui.plan, cli);
  fs::remove(out);
  return *gui.plan;
}

const CandidateRow& first_part(const Plan& p) {
  REQUIRE_FALSE(p.recommended.parts.empty());
  return p.recommended.parts[0];
}

}  // namespace

TEST_CASE("what-if: each input re-solves to the CLI's plan of the saved YAML", "[gui]") {
  WhatIf w = infercap::test::small_chat_desk();
  for (const auto& h : {"h100-sxm", "l40s"}) REQUIRE(catalog().find_hardware(h) != nullptr);
  const Plan base = resolve_and_check(w, "base");
  const CandidateRow& b0 = first_part(base);

  SECTION("curve scale: twice the load, twice the design QPS") {
    w.edit("rate", [&](WhatIfInputs& in) { set_curve_scale(in, w.original(), 0, 2.0); });
    CHECK(w.inputs().sc.classes[0].rate.hourly_qps[20] == 40);  // the 20 req/s peak hour x2
    const Plan p = resolve_and_check(w, "scale");
    CHECK(first_part(p).design_qps == Approx(2 * b0.design_qps).epsilon(1e-9));
    CHECK(p.recommended.devices >= base.recommended.devices);
  }
  SECTION("peak rate above the curve's busiest hour sets the design load") {
    w.edit("peak", [](WhatIfInputs& in) { set_peak_qps(in, 0, 50); });
    const Plan p = resolve_and_check(w, "peak");
    // design_qps in the final year = peak x (1 + growth)^(horizon - 1) = 50 x 1.3^2.
    CHECK(first_part(p).design_qps == Approx(50 * 1.3 * 1.3).epsilon(1e-9));
  }
  SECTION("prompt and output lengths") {
    w.edit("prompt",
           [](WhatIfInputs& in) { set_mean_tokens(in.sc.classes[0].prompt_tokens, 4000); });
    CHECK(mean(w.inputs().sc.classes[0].prompt_tokens) == Approx(4000).epsilon(1e-12));
    w.edit("output", [](WhatIfInputs& in) { set_mean_tokens(in.sc.classes[0].output_tokens, 50); });
    CHECK(mean(w.inputs().sc.classes[0].output_tokens) == Approx(50).epsilon(1e-12));
    resolve_and_check(w, "lengths");
  }
  SECTION("SLA: a tighter TPOT, a new E2E bound") {
    w.edit("tpot", [](WhatIfInputs& in) { set_sla(in, 0, SlaMetric::tpot, 0.03); });
    w.edit("e2e", [](WhatIfInputs& in) { set_sla(in, 0, SlaMetric::e2e, 40); });
    CHECK(w.inputs().sc.classes[0].sla.e2e.percentile == 99);
    const Plan p = resolve_and_check(w, "sla");
    if (p.feasible) CHECK(first_part(p).tpot_p99_s <= 0.03 * (1 + 1e-9));
  }
  SECTION("constraints: capex, annual budget, power, rack units") {
    w.edit("capex",
           [&](WhatIfInputs& in) { in.sc.constraints.capex_budget_usd = 0.5 * b0.cost.capex_usd; });
    const Plan p = resolve_and_check(w, "capex");
    CHECK_FALSE(p.feasible);  // half the cheapest fleet's capex cannot be met
    w.undo();
    w.edit("annual", [&](WhatIfInputs& in) { in.sc.constraints.annual_budget_usd = 1e9; });
    w.edit("power", [&](WhatIfInputs& in) { in.sc.constraints.power_cap_w = 1e7; });
    w.edit("rack", [&](WhatIfInputs& in) { in.sc.constraints.rack_units = 1000; });
    const Plan q = resolve_and_check(w, "limits");
    same_answer(q, base);  // generous limits change nothing
  }
  SECTION("horizon, growth, redundancy") {
    w.edit("horizon", [](WhatIfInputs& in) { in.sc.constraints.horizon_years = 5; });
    w.edit("growth", [](WhatIfInputs& in) { in.sc.constraints.load_growth_per_year = 0; });
    w.edit("redundancy", [](WhatIfInputs& in) { in.sc.constraints.redundancy = 2; });
    const Plan p = resolve_and_check(w, "horizon");
    // No growth: the design load is the 20 req/s peak hour in every year.
    CHECK(first_part(p).design_qps == Approx(20).epsilon(1e-9));
  }
  SECTION("prices: electricity, PUE, a device's price, the display currency") {
    w.edit("kwh", [](WhatIfInputs& in) { in.sc.prices.electricity_usd_per_kwh *= 3; });
    w.edit("pue", [](WhatIfInputs& in) { in.sc.prices.pue = 1.8; });
    const Plan p = resolve_and_check(w, "energy");
    CHECK(p.recommended.cost.energy_usd > base.recommended.cost.energy_usd);
    const std::string hw = first_part(p).hardware;
    const DevicePricing* dp = w.inputs().sc.prices.find(hw);
    REQUIRE(dp != nullptr);
    const double was = dp->tiers.front().unit_price_usd;
    WhatIfInputs next = w.inputs();
    REQUIRE(set_device_price(next, hw, 3 * was));
    w.commit("price", next);
    CHECK(w.inputs().sc.prices.find(hw)->tiers.front().unit_price_usd == 3 * was);
    resolve_and_check(w, "price");
    w.edit("currency", [](WhatIfInputs& in) { in.sc.prices.display_currency = Currency::cny; });
    CHECK(to_display(100, w.inputs().sc.prices) == Approx(100 * w.inputs().sc.prices.cny_per_usd));
    CHECK(from_display(to_display(100, w.inputs().sc.prices), w.inputs().sc.prices) == Approx(100));
    resolve_and_check(w, "cny");
  }
  SECTION("filters: fp8 only, NVIDIA excluded (Huawei only), a class filter, a stack") {
    w.edit("fp8", [](WhatIfInputs& in) { in.sc.candidates.precisions = {"fp8"}; });
    const Plan p = resolve_and_check(w, "fp8");
    CHECK(first_part(p).precision == "fp8");
    REQUIRE(catalog().find_hardware("ascend-910b") != nullptr);
    REQUIRE(catalog().find_hardware("xeon-8480p") != nullptr);
    w.edit("devices", [](WhatIfInputs& in) {
      in.sc.candidates.hardware = {"h100-sxm", "l40s", "ascend-910b", "xeon-8480p"};
      in.sc.candidates.precisions = {"bf16", "fp16"};  // the 910B has no dense bf16 roof
      set_sla(in, 0, SlaMetric::ttft, 2.0);  // its TTFT P99 at vanishing load is about 1.1 s
    });
    // Only Huawei: NVIDIA and Intel are filtered out, so the Ascend 910B carries the load.
    w.edit("vendor", [](WhatIfInputs& in) { toggle(in.sc.candidates.vendors, "huawei"); });
    const Plan q = resolve_and_check(w, "vendor");
    CHECK(first_part(q).hardware == "ascend-910b");
    w.edit("vendor", [](WhatIfInputs& in) { toggle(in.sc.candidates.vendors, "huawei"); });
    CHECK(w.inputs().sc.candidates.vendors.empty());
    // Only CPUs: the Xeon, or no fleet at all; never a GPU.
    w.edit("class", [](WhatIfInputs& in) { toggle(in.sc.candidates.classes, HwClass::cpu); });
    const Plan r = resolve_and_check(w, "class");
    for (const auto& pool : r.pools) {
      for (const auto& row : pool.ranked) CHECK(row.hw_class == HwClass::cpu);
      for (const auto& row : pool.rejected) CHECK(row.hw_class == HwClass::cpu);
    }
    w.edit("class", [](WhatIfInputs& in) { toggle(in.sc.candidates.classes, HwClass::cpu); });
    w.edit("stack", [](WhatIfInputs& in) { toggle(in.sc.candidates.stacks, "tensorrt-llm"); });
    const Plan s = resolve_and_check(w, "stack");
    CHECK(first_part(s).stack == "tensorrt-llm");
  }
  SECTION("device list toggles from `all` and back") {
    WhatIfInputs in = w.inputs();
    in.sc.candidates.all_hardware = true;
    in.sc.candidates.hardware.clear();
    toggle_hardware(in, catalog(), "h100-sxm");
    CHECK_FALSE(in.sc.candidates.all_hardware);
    CHECK(in.sc.candidates.hardware.size() == catalog().hardware().size() - 1);
    toggle_hardware(in, catalog(), "h100-sxm");
    CHECK(in.sc.candidates.all_hardware);
  }
  SECTION("objective: most load within a capex budget") {
    w.edit("objective", [&](WhatIfInputs& in) {
      in.sc.constraints.capex_budget_usd = 2 * b0.cost.capex_usd;
      in.sc.objective = Objective::max_qps_within_budget;
    });
    const Plan p = resolve_and_check(w, "objective");
    CHECK(p.objective == Objective::max_qps_within_budget);
  }
}

TEST_CASE("what-if: the CLI binary answers the saved YAML with the GUI's plan", "[gui]") {
  WhatIf w = infercap::test::small_chat_desk();
  w.edit("rate", [&](WhatIfInputs& in) { set_curve_scale(in, w.original(), 0, 1.5); });
  w.edit("fp8", [](WhatIfInputs& in) { in.sc.candidates.precisions = {"fp8"}; });
  const PlanOutcome gui = solve_loaded(catalog(), w.inputs().sc);
  REQUIRE(gui.plan.has_value());
  const fs::path out = fs::temp_directory_path() / "infercap-whatif-cli.yaml";
  std::string err;
  REQUIRE(w.save(out.string(), err));
  const std::string cmd = std::string("'") + INFERCAP_CLI_PATH + "' plan '" + out.string() +
                          "' --format json --data '" + kData + "' 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f != nullptr);
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  const int rc = pclose(f);
  INFO(text.substr(0, 2000));
  CHECK(WEXITSTATUS(rc) == (gui.plan->feasible ? 0 : 5));
  const auto j = nlohmann::json::parse(text);
  const auto& rec = j["recommended"];
  REQUIRE(rec.is_object());
  CHECK(rec["devices"].get<int>() == gui.plan->recommended.devices);
  // The CLI prints money in the display currency (USD here).
  CHECK(rec["cost"]["tco"].get<double>() ==
        Approx(gui.plan->recommended.cost.tco_usd).epsilon(1e-9));
  REQUIRE(rec["parts"].size() == gui.plan->recommended.parts.size());
  CHECK(rec["parts"][0]["hardware"].get<std::string>() == gui.plan->recommended.parts[0].hardware);
  fs::remove(out);
}

TEST_CASE("what-if: a bad YAML selects nothing and shows file:line diagnostics", "[gui]") {
  WhatIf w;
  REQUIRE(w.open(kData + "/examples/chat-service.yaml", kData));
  REQUIRE(w.loaded());
  const fs::path bad = fs::temp_directory_path() / "infercap-whatif-bad.yaml";
  {
    std::ofstream(bad) << "schema_version: 1\nkind: scenario\nname: broken\nworkload:\n"
                          "  classes:\n    - name: chat\n      model: llama-3.1-8b\n"
                          "      rate: {mean_qps: 5}\n      prompt_tokens: 100\n"
                          "      output_tokens: 10\n      sla: {ttft_p99_s: 1}\n"
                          "constrains:\n  horizon_years: 3\n";  // typo on line 12
  }
  CHECK_FALSE(w.open(bad.string(), kData));
  CHECK_FALSE(w.loaded());  // the previous scenario is no longer selected
  CHECK_FALSE(w.solve_due(WhatIf::Clock::now() + std::chrono::hours(1)));
  CHECK(w.yaml().empty());
  std::string err;
  CHECK_FALSE(w.save((fs::temp_directory_path() / "x.yaml").string(), err));
  bool located = false;
  for (const auto& l : w.diagnostics())
    located = located || (l.find(bad.string() + ":12") != std::string::npos &&
                          l.find("constraints") != std::string::npos);  // did-you-mean
  INFO(w.diagnostics().size());
  CHECK(located);
  // Edits on nothing do nothing.
  w.edit("x", [](WhatIfInputs& in) { in.sc.constraints.redundancy = 3; });
  CHECK_FALSE(w.can_undo());
  fs::remove(bad);
}

TEST_CASE("what-if: undo, redo and the debounce", "[gui]") {
  using namespace std::chrono_literals;
  WhatIf w;
  REQUIRE(w.open(kData + "/examples/chat-service.yaml", kData));
  const auto t0 = WhatIf::Clock::now();
  CHECK(w.solve_due(t0));  // a fresh scenario is solved once
  w.mark_solving();
  CHECK_FALSE(w.pending());
  const std::string y0 = w.yaml();
  w.edit(
      "redundancy", [](WhatIfInputs& in) { in.sc.constraints.redundancy = 3; }, t0);
  CHECK(w.pending());
  CHECK_FALSE(w.solve_due(t0 + 100ms));
  CHECK(w.until_due(t0 + 100ms) == WhatIf::kDebounce - 100ms);
  CHECK(w.solve_due(t0 + WhatIf::kDebounce));
  w.edit(
      "horizon", [](WhatIfInputs& in) { in.sc.constraints.horizon_years = 7; }, t0 + 300ms);
  CHECK_FALSE(w.solve_due(t0 + 400ms));  // the clock restarts with each edit
  CHECK(w.solve_due(t0 + 300ms + WhatIf::kDebounce));
  // An edit that changes nothing adds no step.
  w.edit("same", [](WhatIfInputs& in) { in.sc.constraints.horizon_years = 7; });
  CHECK(w.undo_label() == "horizon");
  const std::string y2 = w.yaml();
  w.undo();
  CHECK(w.inputs().sc.constraints.horizon_years == 3);
  CHECK(w.inputs().sc.constraints.redundancy == 3);
  CHECK(w.redo_label() == "horizon");
  w.undo();
  CHECK(w.yaml() == y0);
  CHECK_FALSE(w.can_undo());
  w.redo();
  w.redo();
  CHECK(w.yaml() == y2);
  w.undo();
  w.edit("growth", [](WhatIfInputs& in) { in.sc.constraints.load_growth_per_year = 0; });
  CHECK_FALSE(w.can_redo());  // a new edit drops the redo branch
  // One drag: three edits of one control 50 ms apart are one undo step; a pause starts another.
  const auto t1 = WhatIf::Clock::now();
  REQUIRE(w.inputs().sc.prices.pue == 1.5);  // data/prices/default.yaml
  w.edit(
      "pue", [](WhatIfInputs& in) { in.sc.prices.pue = 1.6; }, t1);
  w.edit(
      "pue", [](WhatIfInputs& in) { in.sc.prices.pue = 1.7; }, t1 + 50ms);
  w.edit(
      "pue", [](WhatIfInputs& in) { in.sc.prices.pue = 1.8; }, t1 + 100ms);
  w.edit(
      "pue", [](WhatIfInputs& in) { in.sc.prices.pue = 1.9; }, t1 + 2s);
  w.undo();
  CHECK(w.inputs().sc.prices.pue == 1.8);
  w.undo();
  CHECK(w.inputs().sc.prices.pue == 1.5);  // before the drag
  CHECK(w.undo_label() == "growth");
}

TEST_CASE("what-if: length means move with the distribution's shape", "[gui]") {
  // Lognormal: mean = exp(mu + s^2/2), so doubling the mean adds ln 2 to mu, sigma unchanged.
  auto ln = lognormal_length_mean_sigma(600, 0.8);
  REQUIRE(ln);
  LengthDist d = *ln;
  set_mean_tokens(d, 1200);
  CHECK(d.mu == Approx(ln->mu + std::log(2.0)));
  CHECK(d.sigma == ln->sigma);
  CHECK(mean(d) == Approx(1200));
  auto u = uniform_length(100, 300);  // mean 200
  REQUIRE(u);
  d = *u;
  set_mean_tokens(d, 100);  // x0.5: [50, 150]
  CHECK(d.min_tokens == 50);
  CHECK(d.max_tokens == 150);
  auto h = histogram_length({100, 300}, {1, 1});  // mean 200
  REQUIRE(h);
  d = *h;
  set_mean_tokens(d, 400);
  CHECK(d.bin_tokens == std::vector<double>{200, 600});
  d = *fixed_length(128);
  set_mean_tokens(d, 0.5);  // below one token: refused
  CHECK(d.value_tokens == 128);
}

TEST_CASE("what-if: the changed-since-last-solve line", "[gui]") {
  Plan a, b;
  a.feasible = b.feasible = true;
  CandidateRow r;
  r.pool = "chat";
  r.hardware = "h100-sxm";
  r.replicas = 4;
  r.precision = "fp8";
  r.tp = 1;
  a.recommended.parts = {r};
  a.recommended.devices = 4;
  a.recommended.cost.tco_usd = 1.0e6;
  b = a;
  PriceBook usd;
  CHECK(plan_change(a, b, usd) == "no change in the recommendation");
  b.recommended.parts[0].hardware = "l40s";
  b.recommended.parts[0].replicas = 10;
  b.recommended.devices = 10;
  b.recommended.cost.tco_usd = 0.8e6;
  CHECK(plan_change(a, b, usd) ==
        "chat: h100-sxm x4 (fp8, TP 1) -> l40s x10 (fp8, TP 1); devices 4 -> 10; "
        "TCO 1 M -> 800 k USD (-20.0%)");
  PriceBook cny;
  cny.display_currency = Currency::cny;
  cny.cny_per_usd = 7;
  b = a;
  b.recommended.cost.tco_usd = 2e6;
  CHECK(plan_change(a, b, cny) == "TCO 7 M -> 14 M CNY (+100.0%)");
  b.feasible = false;
  CHECK(plan_change(a, b, cny).rfind("no longer feasible", 0) == 0);
}

TEST_CASE("plan CSV: one row per candidate, money in the display currency", "[gui]") {
  WhatIf w;
  REQUIRE(w.open(kData + "/examples/bert-npu-fixed.yaml", kData));
  PlanOutcome o = solve_loaded(catalog(), w.inputs().sc);
  REQUIRE(o.plan.has_value());
  CHECK(plan_csv(PlanOutcome{}).empty());
  std::string csv = plan_csv(o);
  std::size_t rows = 0;
  for (const auto& p : o.plan->pools) rows += p.ranked.size() + p.rejected.size();
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == rows + 1);
  CHECK(csv.rfind("pool,status,rank,hardware,", 0) == 0);
  CHECK(csv.find(",tco_usd,") != std::string::npos);
  REQUIRE_FALSE(o.plan->pools[0].ranked.empty());
  const CandidateRow& best = o.plan->pools[0].ranked[0];
  // The first data row is the best candidate with its TCO in full precision.
  const std::string second = csv.substr(csv.find('\n') + 1);
  CHECK(second.find(",feasible,1," + best.hardware + ",") != std::string::npos);
  CHECK(second.find(fmt::format(",{},", best.cost.tco_usd)) != std::string::npos);
  // In CNY the same money is multiplied by the book's rate and the columns say so.
  o.prices.display_currency = Currency::cny;
  csv = plan_csv(o);
  CHECK(csv.find(",tco_cny,") != std::string::npos);
  CHECK(csv.find(fmt::format(",{},", best.cost.tco_usd * o.prices.cny_per_usd)) !=
        std::string::npos);
}

TEST_CASE("search by name or alias, CJK aliases included", "[gui]") {
  // Normalised as catalog names are: case, spaces, '-', '_' and '.' do not matter.
  CHECK(matches_search("", "anything"));
  CHECK(matches_search("H100", "h100-sxm"));
  CHECK(matches_search("h100 sxm", "h100-sxm"));
  CHECK_FALSE(matches_search("a100", "h100-sxm"));
  const HardwareSpec* mlu = catalog().find_hardware("cambricon-mlu370-x8");
  REQUIRE(mlu != nullptr);
  CHECK(matches_search("寒武纪", mlu->name, mlu->aliases));  // alias "寒武纪 MLU370-X8"
  CHECK(matches_search("思元", mlu->name, mlu->aliases));
  CHECK_FALSE(matches_search("昆仑", mlu->name, mlu->aliases));
}

TEST_CASE("file dialog: folders first, then files of the asked kinds, hidden ones left out",
          "[gui]") {
  const fs::path d = fs::temp_directory_path() / "infercap-file-browser";
  fs::remove_all(d);
  fs::create_directories(d / "sub");
  fs::create_directories(d / ".hidden-dir");
  for (const char* f : {"b.yaml", "a.yml", "notes.txt", ".secret.yaml", "plan.csv"})
    std::ofstream(d / f) << "x";
  const auto e = list_dir(d.string(), {".yaml", ".yml"});
  REQUIRE(e.size() == 3);
  CHECK((e[0].name == "sub" && e[0].folder));
  CHECK((e[1].name == "a.yml" && !e[1].folder));
  CHECK(e[2].name == "b.yaml");
  CHECK(list_dir((d / "missing").string(), {".yaml"}).empty());
  FileBrowser fb;
  fb.show(FileBrowser::Mode::save, d.string(), "out.csv", "plan as CSV", {".csv"});
  CHECK(fb.visible);
  REQUIRE(fb.entries.size() == 2);  // sub/ and plan.csv
  CHECK(fb.chosen() == (d / "out.csv").string());
  fb.enter("sub");
  CHECK(fb.folder == (d / "sub").string());
  fb.enter("..");
  CHECK(fb.folder == d.string());
  fb.name = "/abs/path.csv";
  CHECK(fb.chosen() == "/abs/path.csv");
  fb.name.clear();
  CHECK(fb.chosen().empty());
  fs::remove_all(d);
}
