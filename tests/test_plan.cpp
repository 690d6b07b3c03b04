// Scenario and price-book reading (diagnostics for bad specs) and the `infercap plan` command.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "infercap/spec/catalog.hpp"
#include "infercap/spec/prices.hpp"
#include "infercap/spec/scenario.hpp"

// Last: <signal.h> defines macros (si_value) that clash with names in the headers above.
#include <sys/wait.h>

#include "small_scenario.hpp"

using namespace infercap;

namespace {

const std::string kData = std::string(INFERCAP_SOURCE_DIR) + "/data";

const char* const kGood = testing::kSmallScenario;

struct Parsed {
  Result<spec::Scenario> sc = Error{"not run"};
  spec::Diagnostics diags;
};

Parsed parse(const std::string& text) {
  Parsed p;
  spec::Document doc = spec::parse_text(text, "spec.yaml", p.diags);
  p.sc = spec::parse_scenario(doc, kData, p.diags);
  return p;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

struct Run {
  int rc = -1;
  std::string out;
};

Run cli(const std::string& args) {
  Run r;
  const std::string cmd = std::string(INFERCAP_CLI_PATH) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f != nullptr);
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(f);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("infercap_test_plan_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("a scenario reads into SI units and the default price book", "[unit][solver]") {
  Parsed p = parse(kGood);
  INFO(p.diags.format());
  REQUIRE(p.sc.ok());
  const auto& c = p.sc->classes.at(0);
  CHECK(c.rate.mean_qps == 2);
  CHECK(c.rate.peak_qps == 5);
  CHECK(c.sla.ttft.limit_s == Approx(0.5));
  CHECK(c.sla.ttft.percentile == 99);
  CHECK(c.sla.tpot.percentile == 90);
  CHECK(c.output_tokens.kind == LengthKind::fixed);
  CHECK(c.prompt_tokens.kind == LengthKind::lognormal);
  CHECK(p.sc->prices.name == "default");
  CHECK(p.sc->constraints.horizon_years == 3);
}

TEST_CASE("a percentile outside (0, 100) is an error at its line", "[unit][solver]") {
  for (const char* key : {"ttft_p100_s", "ttft_p0_s"}) {
    Parsed p = parse(replace(kGood, "ttft_p99_s", key));
    CHECK_FALSE(p.sc.ok());
    const std::string d = p.diags.format();
    INFO(d);
    CHECK(d.find("spec.yaml:12:") != std::string::npos);
    CHECK(d.find(std::string("workload.classes[0].sla.") + key) != std::string::npos);
    CHECK(d.find("outside (0, 100)") != std::string::npos);
  }
}

TEST_CASE("negative rates, unknown keys and unknown precisions are diagnosed", "[unit][solver]") {
  Parsed neg = parse(replace(kGood, "mean_qps: 2", "mean_qps: -2"));
  CHECK_FALSE(neg.sc.ok());
  CHECK(neg.diags.format().find("workload.classes[0].rate.mean_qps") != std::string::npos);

  Parsed typo = parse(replace(kGood, "max_batch:", "max_bacth:"));
  CHECK_FALSE(typo.sc.ok());
  CHECK(typo.diags.format().find("did you mean 'max_batch'") != std::string::npos);

  Parsed prec = parse(replace(kGood, "[int8]", "[int9]"));
  CHECK_FALSE(prec.sc.ok());
  CHECK(prec.diags.format().find("unknown precision 'int9'") != std::string::npos);

  Parsed nosla = parse(replace(kGood, "ttft_p99_s: \"500 ms\"", "ttft_p99_s: -1"));
  CHECK_FALSE(nosla.sc.ok());

  Parsed unit = parse(replace(kGood, "\"500 ms\"", "\"500 GB\""));
  CHECK_FALSE(unit.sc.ok());  // a size where a time is expected
}

TEST_CASE("tier shares must sum to one", "[unit][solver]") {
  std::string t = std::string(kGood) +
                  "fleet:\n  strategy: tiered\n  tiers:\n    - {model: qwen2.5-7b, share: 0.7}\n"
                  "    - {model: llama-3.1-70b, share: 0.2}\n";
  Parsed p = parse(t);
  CHECK_FALSE(p.sc.ok());
  CHECK(p.diags.format().find("sum to 0.9") != std::string::npos);
}

TEST_CASE("CNY money is converted at the stated rate, prices can be overridden", "[unit][solver]") {
  std::string t = std::string(kGood) +
                  "constraints:\n  capex_budget_cny: 72000\nprices:\n  cny_per_usd: 7.2\n"
                  "  electricity_cny_per_kwh: 0.72\n  devices:\n    - hardware: l4\n"
                  "      tiers: [{min_units: 1, unit_price_cny: 14400}]\n";
  Parsed p = parse(t);
  INFO(p.diags.format());
  REQUIRE(p.sc.ok());
  CHECK(p.sc->constraints.capex_budget_usd == Approx(10000));
  CHECK(p.sc->prices.electricity_usd_per_kwh == Approx(0.1));
  CHECK(p.sc->prices.find("l4")->unit_price_usd(1) == Approx(2000));
  // Untouched fields keep the base book's values.
  CHECK(p.sc->prices.find("l4")->porting_family == "cuda");
}

TEST_CASE("every price book and example in data/ loads and resolves", "[unit][solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  for (const auto& e : std::filesystem::directory_iterator(kData + "/prices")) {
    spec::Diagnostics d;
    auto b = spec::load_prices(e.path().string(), d);
    INFO(e.path().string() << "\n" << d.format());
    CHECK(b.ok());
  }
  int examples = 0;
  for (const auto& e : std::filesystem::directory_iterator(kData + "/examples")) {
    const std::string path = e.path().string();
    if (path.find(".stack.yaml") != std::string::npos) continue;
    spec::Diagnostics d;
    auto sc = spec::load_scenario(path, kData, d);
    INFO(path << "\n" << d.format());
    REQUIRE(sc.ok());
    auto in = spec::to_plan_inputs(*sc, cat, d);
    CHECK(in.has_value());
    ++examples;
  }
  CHECK(examples >= 8);
}

TEST_CASE("an unknown model or hardware name is a diagnostic with a suggestion", "[unit][solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  Parsed p = parse(replace(replace(kGood, "qwen2.5-7b", "qwen2.5-7c"), "[l4]", "[l44]"));
  REQUIRE(p.sc.ok());
  spec::Diagnostics d;
  auto in = spec::to_plan_inputs(*p.sc, cat, d);
  CHECK_FALSE(in.has_value());
  const std::string text = d.format();
  INFO(text);
  CHECK(text.find("workload.classes[0].model") != std::string::npos);
  CHECK(text.find("candidates.hardware[0]") != std::string::npos);
  CHECK(text.find("qwen2.5-7b") != std::string::npos);  // did you mean
}

TEST_CASE("infercap plan prints JSON with the ranked list, Pareto front and rejections",
          "[solver]") {
  Run r = cli("plan " + kData + "/examples/long-context.yaml --format json --top 3");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["feasible"] == true);
  CHECK(j["recommended"]["parts"][0]["hardware"] == "l40s");
  const auto& pool = j["pools"][0];
  CHECK(pool["ranked"].size() >= 1);
  CHECK(pool["pareto"].size() >= 1);
  bool t4 = false;
  for (const auto& x : pool["rejected"])
    if (x["hardware"] == "t4" && x["binding"] == "memory") t4 = true;
  CHECK(t4);
  for (const char* key : {"max_qps_per_replica", "ttft_p50_s", "ttft_p99_s", "tpot_p99_s",
                          "utilisation", "power_w", "capex_usd", "opex_per_year_usd", "tco_usd",
                          "usd_per_mtok", "servers", "tp", "precision", "stack"})
    CHECK(pool["ranked"][0].contains(key));
}

TEST_CASE("infercap plan: CSV, Markdown and CNY output", "[solver]") {
  const std::string spec = kData + "/examples/long-context.yaml";
  Run csv = cli("plan " + spec + " --format csv");
  REQUIRE(csv.rc == 0);
  CHECK(csv.out.rfind("pool,hardware,class", 0) == 0);
  Run md = cli("plan " + spec + " --format md --currency CNY");
  REQUIRE(md.rc == 0);
  CHECK(md.out.find("# infercap plan: long-context") != std::string::npos);
  CHECK(md.out.find("tco_cny") != std::string::npos);
  CHECK(md.out.find("CNY at 7.2 per USD") != std::string::npos);
}

TEST_CASE("infercap plan: an infeasible budget is an answer with exit code 5", "[solver]") {
  std::string text;
  {
    std::ifstream in(kData + "/examples/long-context.yaml");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text = replace(text, "  horizon_years: 3", "  horizon_years: 3\n  capex_budget_usd: 1000");
  const std::string path = temp_file("budget.yaml", text);
  Run r = cli("plan " + path + " --data " + kData);
  CHECK(r.rc == 5);
  CHECK(r.out.find("INFEASIBLE") != std::string::npos);
  CHECK(r.out.find("capex_budget") != std::string::npos);
  CHECK(r.out.find("add $") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("infercap plan: malformed specs exit 3 with file:line:col", "[solver]") {
  const std::string path = temp_file("bad.yaml", replace(kGood, "ttft_p99_s", "ttft_p100_s"));
  Run r = cli("plan " + path + " --data " + kData);
  CHECK(r.rc == 3);
  CHECK(r.out.find(path + ":12:") != std::string::npos);
  std::filesystem::remove(path);
  Run missing = cli("plan /nonexistent/spec.yaml --data " + kData);
  CHECK(missing.rc != 0);
  Run badfmt = cli("plan " + kData + "/examples/long-context.yaml --format xml");
  CHECK(badfmt.rc == 3);
}

TEST_CASE("vendor filters keep, drop and check names against the catalog", "[unit][solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  REQUIRE_FALSE(diags.has_errors());
  auto resolve = [&](const std::string& candidates, spec::Diagnostics& d) {
    Parsed p = parse(replace(kGood, "  hardware: [l4]\n", candidates));
    INFO(p.diags.format());
    REQUIRE(p.sc.ok());
    return spec::to_plan_inputs(*p.sc, cat, d);
  };
  auto count = [&](const std::string& vendor) {
    int n = 0;
    for (const auto& h : cat.hardware()) n += h.vendor == vendor ? 1 : 0;
    return n;
  };
  // Domestic-only: everything but the American vendors; what is left is exactly the Chinese
  // vendors' devices (counted from the catalog itself).
  spec::Diagnostics d1;
  auto domestic =
      resolve("  hardware: all\n  exclude_vendors: [nvidia, amd, intel, apple, ampere, aws]\n", d1);
  INFO(d1.format());
  REQUIRE(domestic.has_value());
  CHECK(static_cast<int>(domestic->space.hardware.size()) ==
        count("huawei") + count("cambricon") + count("kunlunxin"));
  for (const auto& h : domestic->space.hardware) CHECK(h.vendor != "nvidia");
  // Include and class filters together: huawei's NPUs only.
  spec::Diagnostics d2;
  auto huawei = resolve("  hardware: all\n  include_vendors: [huawei]\n  classes: [npu]\n", d2);
  REQUIRE(huawei.has_value());
  CHECK(static_cast<int>(huawei->space.hardware.size()) == count("huawei"));
  // A typo in an exclude list is an error with a suggestion and the catalog's vendor list, at
  // the list's line: kGood's `candidates:` is line 14, so `hardware: all` is 15 and the list 16.
  spec::Diagnostics d3;
  auto typo = resolve("  hardware: all\n  exclude_vendors: [nvidia, nvdia]\n", d3);
  CHECK_FALSE(typo.has_value());
  const std::string text = d3.format();
  INFO(text);
  CHECK(text.find("candidates.exclude_vendors[1]") != std::string::npos);
  CHECK(text.find("no catalog device is made by 'nvdia'") != std::string::npos);
  CHECK(text.find("did you mean 'nvidia'") != std::string::npos);
  CHECK(text.find("cambricon") != std::string::npos);
  CHECK(text.find("spec.yaml:16:") != std::string::npos);
  // Everything filtered away says what removed it.
  spec::Diagnostics d4;
  auto none = resolve("  hardware: [l4]\n  include_vendors: [huawei]\n", d4);
  CHECK_FALSE(none.has_value());
  CHECK(d4.format().find("vendor filters 1 of 1") != std::string::npos);
  // A vendor in both lists is a spec error.
  Parsed both = parse(replace(kGood, "  hardware: [l4]\n",
                              "  include_vendors: [nvidia]\n  exclude_vendors: [nvidia]\n"));
  CHECK_FALSE(both.sc.ok());
  CHECK(both.diags.format().find("both included and excluded") != std::string::npos);
}

TEST_CASE("a hardware file named in a scenario is found beside the scenario", "[unit][solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  const auto dir = std::filesystem::temp_directory_path() / "infercap_test_plan_beside";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h94.yaml") << "schema_version: 1\nkind: hardware\npreset: h100-sxm\n"
                                     "name: h94\nmemory_bytes: \"94 GB\"\n";
  const std::string text = replace(kGood, "[l4]", "[h94.yaml]");
  std::ofstream(dir / "scenario.yaml") << text;
  // Read from another working directory: the path must not depend on it.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  spec::Diagnostics d;
  auto sc = spec::load_scenario((dir / "scenario.yaml").string(), kData, d);
  REQUIRE(sc.ok());
  auto in = spec::to_plan_inputs(*sc, cat, d);
  std::filesystem::current_path(cwd);
  INFO(d.format());
  REQUIRE(in.has_value());
  REQUIRE(in->space.hardware.size() == 1);
  CHECK(in->space.hardware[0].name == "h94");
  CHECK(in->space.hardware[0].memory_bytes == Approx(94e9));
}

TEST_CASE("an unknown KV-cache precision lists the valid ones", "[unit][solver]") {
  Parsed p = parse(replace(kGood, "  precisions: [int8]\n",
                           "  precisions: [int8]\n  kv_precisions: [fp8, fp9]\n"));
  CHECK_FALSE(p.sc.ok());
  const std::string text = p.diags.format();
  INFO(text);
  CHECK(text.find("candidates.kv_precisions") != std::string::npos);
  CHECK(text.find("unknown KV-cache precision 'fp9'; expected one of bf16, fp16, fp8, int8, q8_0, "
                  "q4_0") != std::string::npos);
  CHECK(text.find("did you mean 'fp8'") != std::string::npos);
  Parsed ok = parse(replace(kGood, "  precisions: [int8]\n",
                            "  precisions: [int8]\n  kv_precisions: [bf16, fp8]\n"));
  REQUIRE(ok.sc.ok());
  CHECK(ok.sc->candidates.kv_precisions == std::vector<std::string>{"bf16", "fp8"});
}

TEST_CASE("a scenario states a closed loop or a batch job instead of a rate", "[unit][solver]") {
  Parsed users =
      parse(replace(kGood, "rate: {mean_qps: 2, peak_qps: 5}",
                    "rate: {concurrent_users: 50, think_time_s: \"10 s\", mean_qps: 2}"));
  INFO(users.diags.format());
  REQUIRE(users.sc.ok());
  CHECK(users.sc->classes[0].rate.peak_qps == Approx(5));  // 50 / 10 s
  CHECK(users.sc->classes[0].rate.mean_qps == Approx(2));
  Parsed mixed = parse(replace(kGood, "rate: {mean_qps: 2, peak_qps: 5}",
                               "rate: {concurrent_users: 50, think_time_s: 10, peak_qps: 5}"));
  CHECK_FALSE(mixed.sc.ok());
  CHECK(mixed.diags.format().find("closed loop's rate follows") != std::string::npos);
  // A nightly job: 20000 documents within 4 h, no SLA.
  std::string job = replace(kGood, "rate: {mean_qps: 2, peak_qps: 5}",
                            "batch: {documents: 20000, within_hours: 4}");
  job = replace(job, "      sla:\n        ttft_p99_s: \"500 ms\"\n        tpot_p90_s: 0.05\n", "");
  Parsed b = parse(job);
  INFO(b.diags.format());
  REQUIRE(b.sc.ok());
  CHECK(b.sc->classes[0].rate.peak_qps == Approx(20000.0 / (4 * 3600)));
  CHECK(b.sc->classes[0].rate.mean_qps == Approx(20000.0 / 86400));
  CHECK_FALSE(b.sc->classes[0].sla.ttft.set());
  Parsed overlap = parse(replace(job, "within_hours: 4}", "within_hours: 4, runs_per_day: 7}"));
  CHECK_FALSE(overlap.sc.ok());
  CHECK(overlap.diags.format().find("overlap") != std::string::npos);
}

TEST_CASE("an encoder's plan has no decode phase: no output tokens, no TPOT", "[solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  const std::string bert = R"(schema_version: 1
kind: scenario
name: enc
workload:
  classes:
    - name: intent
      model: bert-base
      rate: {mean_qps: 300, peak_qps: 800}
      prompt_tokens: 64
      sla:
        e2e_p99_s: 0.03
candidates:
  hardware: [t4]
  precisions: [int8]
  tp: [1]
  max_batch: [32]
)";
  Parsed p = parse(bert);
  INFO(p.diags.format());
  REQUIRE(p.sc.ok());
  spec::Diagnostics d;
  auto in = spec::to_plan_inputs(*p.sc, cat, d);
  INFO(d.format());
  REQUIRE(in.has_value());
  CHECK(in->pools[0].classes[0].output_tokens.value_tokens == 1);  // one forward pass
  auto plan = solve(*in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const CandidateRow& r = plan->recommended.parts.front();
  CHECK(r.encoder);
  // Requests per joule: 300 req/s on average over the IT watts.
  CHECK(r.requests_per_joule == Approx(300 / r.power_w));
  // A TPOT bound on an encoder, and a decoder without output lengths, are spec errors.
  Parsed tpot = parse(replace(bert, "e2e_p99_s: 0.03", "tpot_p99_s: 0.01"));
  REQUIRE(tpot.sc.ok());
  spec::Diagnostics d2;
  CHECK_FALSE(spec::to_plan_inputs(*tpot.sc, cat, d2).has_value());
  CHECK(d2.format().find("bert-base is an encoder: TPOT does not apply") != std::string::npos);
  Parsed dec = parse(replace(bert, "bert-base", "qwen2.5-7b"));
  REQUIRE(dec.sc.ok());
  spec::Diagnostics d3;
  CHECK_FALSE(spec::to_plan_inputs(*dec.sc, cat, d3).has_value());
  CHECK(d3.format().find("missing 'output_tokens': qwen2.5-7b generates text") !=
        std::string::npos);
  // The command's tables leave the decode columns out for an encoder pool.
  Run out = cli("plan " + std::string(INFERCAP_SOURCE_DIR) + "/data/examples/bert-classifier.yaml");
  INFO(out.out);
  CHECK(out.rc == 0);
  CHECK(out.out.find("requests_per_j") != std::string::npos);
  CHECK(out.out.find("tokens_per_j") == std::string::npos);
  CHECK(out.out.find("per thousand requests") != std::string::npos);
  CHECK(out.out.find("most requests per joule") != std::string::npos);
}

TEST_CASE("the new examples answer their questions", "[solver]") {
  const std::string ex = std::string(INFERCAP_SOURCE_DIR) + "/data/examples/";
  // Domestic-only: no American vendor anywhere in the answer; the unpriced domestic parts named.
  Run dom = cli("plan " + ex + "domestic-only.yaml --format json");
  REQUIRE(dom.rc == 0);
  auto j = nlohmann::json::parse(dom.out);
  CHECK(j["currency"] == "CNY");
  for (const auto& p : j["recommended"]["parts"])
    CHECK(p["hardware"].get<std::string>().rfind("ascend", 0) == 0);
  CHECK(j["unpriced_note"].get<std::string>().find("cambricon-mlu370-x8") != std::string::npos);
  // The power-capped room is answered by what 12 kW buys, within 12 kW.
  Run room = cli("plan " + ex + "power-capped-room.yaml --format json");
  REQUIRE(room.rc == 0);
  auto r = nlohmann::json::parse(room.out);
  CHECK(r["objective"] == "max_qps_within_power");
  CHECK(r["recommended"]["parts"][0]["provisioned_w"].get<double>() <= 12000);
  CHECK(r["recommended"]["parts"][0]["carried_qps"].get<double>() >= 60);
  // The promotion calendar compares an owned buffer, spare GPUs and the cloud.
  Run promo = cli("plan " + ex + "promo-burst-cloud.yaml");
  REQUIRE(promo.rc == 0);
  CHECK(promo.out.find("cloud on demand for the burst hours") != std::string::npos);
  CHECK(promo.out.find("against sizing the base hardware for the peak") != std::string::npos);
}

TEST_CASE("a class's prefix reuse is read, checked and applied to its pool", "[unit][solver]") {
  spec::Diagnostics diags;
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  const std::string text =
      replace(replace(kGood, "prompt_tokens: {kind: lognormal, p50: 400, p90: 1000}",
                      "prompt_tokens: 1000\n      prefix: {shared_tokens: 600, hit_rate: 0.5}"),
              "[l4]", "[l4]");
  Parsed p = parse(text);
  INFO(p.diags.format());
  REQUIRE(p.sc.ok());
  spec::Diagnostics d;
  auto in = spec::to_plan_inputs(*p.sc, cat, d);
  REQUIRE(in.has_value());
  // 1000 - 0.5 x 600 = 700 tokens left to prefill.
  CHECK(mean(in->pools[0].classes[0].prompt_tokens) == Approx(700));
  CHECK(mean(p.sc->classes[0].prompt_tokens) == Approx(1000));  // the scenario as stated
  Parsed bad = parse(replace(text, "hit_rate: 0.5", "hit_rate: 1.5"));
  CHECK_FALSE(bad.sc.ok());
  CHECK(bad.diags.format().find("prefix.hit_rate") != std::string::npos);
}
