// [gui] The GUI's view model: what the panels show, checked without a display.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "catalog_fixture.hpp"
#include "infercap/spec/prices.hpp"
#include "infercap_gui/plan_job.hpp"
#include "infercap_gui/view_model.hpp"

using namespace infercap;
using namespace infercap::gui;

namespace {

const spec::Catalog& catalog() {
  return infercap::test::project_catalog().catalog;
}

std::vector<SweepPoint> curve(int n, double (*f)(double)) {
  std::vector<SweepPoint> v;
  for (int b = 1; b <= n; ++b) {
    SweepPoint p;
    p.batch = b;
    p.tokens_per_s = f(b);
    p.step_s = b / p.tokens_per_s;
    v.push_back(p);
  }
  return v;
}

}  // namespace

TEST_CASE("knee of a throughput curve that saturates at batch 32", "[gui]") {
  // tokens/s = min(b, 32) over b = 1..256. Normalised, y = (b - 1) / 31 and x = log2(b) / 8
  // below 32: y - x grows for b > 31 / (8 ln 2) = 5.6 and reaches 1 - 5/8 at b = 32; above 32,
  // y stays 1 while x grows. So the knee is batch 32.
  auto pts = curve(256, [](double b) { return std::min(b, 32.0); });
  CHECK(pts[knee_index(pts)].batch == 32);
  // Saturation at 100 instead: same argument, knee at 100.
  pts = curve(256, [](double b) { return std::min(b, 100.0); });
  CHECK(pts[knee_index(pts)].batch == 100);
}

TEST_CASE("knee edge cases: short, flat and still-linear curves", "[gui]") {
  CHECK(knee_index({}) == 0);
  CHECK(knee_index(curve(2, [](double b) { return b; })) == 0);
  CHECK(knee_index(curve(64, [](double) { return 5.0; })) == 0);  // flat: no knee
  // Proportional to the batch all the way: y - x is 0 at both ends and negative between (a line
  // is convex on a log axis); ties go to the larger batch, i.e. the knee lies beyond the sweep.
  const auto lin = curve(256, [](double b) { return 3.0 * b; });
  CHECK(lin[knee_index(lin)].batch == 256);
}

TEST_CASE("batch sweep points are the PerfModel's decode steps", "[gui]") {
  Selection sel;
  sel.model = "llama-3.1-8b";
  sel.hardware = "h100-sxm";
  auto perf = make_perf(catalog(), sel);
  REQUIRE(perf.ok());
  const BatchSweep s = batch_sweep(*perf, 576, 640, 256);
  REQUIRE(s.points.size() == 256);
  CHECK(s.max_batch == perf->max_batch(640));
  for (int b : {1, 7, 64, 256}) {
    const auto& p = s.points[static_cast<std::size_t>(b - 1)];
    CHECK(p.batch == b);
    CHECK(p.step_s == Approx(perf->decode_step_s(b, 576)));
    CHECK(p.tokens_per_s == Approx(b / p.step_s));
    CHECK(p.fits == (b <= s.max_batch));
  }
  // Throughput never falls as the batch grows (each step serves more sequences for at most
  // proportionally more time), and the knee lies inside the sweep.
  for (std::size_t i = 1; i < s.points.size(); ++i) {
    CHECK(s.points[i].tokens_per_s >= s.points[i - 1].tokens_per_s * (1 - 1e-12));
  }
  CHECK(s.knee_batch >= 1);
  CHECK(s.knee_batch <= 256);
  CHECK(batch_sweep(*perf, 576, 640, 0).points.empty());
}

TEST_CASE("roofline points of a datasheet roofline sit on the roofs", "[gui]") {
  // The ideal stack uses datasheet peaks with no overheads, so a memory-bound op achieves
  // exactly bandwidth x intensity. H100 SXM: 3.35 TB/s and 989.5 TFLOP/s bf16 dense.
  Selection sel;
  sel.model = "llama-3.1-8b";
  sel.hardware = "h100-sxm";
  sel.stack = "ideal";
  const PredictView v = evaluate_predict(catalog(), sel, Workload{1, 512, 128});
  REQUIRE(v.ok);
  const RooflineChart& c = v.roofline;
  REQUIRE(!c.roofs.empty());
  CHECK(c.roofs[0].bandwidth_bytes_per_s == Approx(3.35e12));
  CHECK(c.roofs[0].compute_flops_per_s == Approx(989.5e12));
  CHECK(c.roofs[0].ridge_flops_per_byte() == Approx(989.5e12 / 3.35e12));

  // Decode ffn_up at batch 1: gate and up, 2 x 4096 x 14336 weights per layer, 2 FLOP per
  // weight, 2 bytes per bf16 weight: intensity just under 1 FLOP/byte (activations add bytes),
  // achieved = 3.35 TB/s x intensity.
  const RooflinePoint* ffn = nullptr;
  for (const auto& p : c.points) {
    if (!p.prefill && p.name == "ffn_up") ffn = &p;
    const double roof = std::min(c.roofs[0].bandwidth_bytes_per_s * p.intensity_flops_per_byte,
                                 c.roofs[0].compute_flops_per_s);
    CHECK(p.achieved_flops_per_s <= roof * (1 + 1e-9));
    CHECK(p.intensity_flops_per_byte >= c.x_min);
    CHECK(p.intensity_flops_per_byte <= c.x_max);
    CHECK(p.achieved_flops_per_s >= c.y_min);
    CHECK(p.achieved_flops_per_s <= c.y_max);
  }
  REQUIRE(ffn != nullptr);
  CHECK(ffn->intensity_flops_per_byte == Approx(1.0).epsilon(0.01));
  CHECK(ffn->intensity_flops_per_byte < 1.0);
  CHECK(ffn->achieved_flops_per_s == Approx(3.35e12 * ffn->intensity_flops_per_byte));
  CHECK(ffn->bound == Bound::memory);
  // Prefill of 512 tokens lifts the same op's intensity ~512-fold, past the ridge (295): compute.
  for (const auto& p : c.points) {
    if (p.prefill && p.name == "ffn_up") {
      CHECK(p.intensity_flops_per_byte > c.roofs[0].ridge_flops_per_byte());
      CHECK(p.bound == Bound::compute);
      CHECK(p.achieved_flops_per_s == Approx(989.5e12));
    }
  }
  // The sweep is taken at TPOT's mean decode context.
  CHECK(v.sweep.context_tokens == Approx(512 + 128 / 2.0));
  CHECK(v.power_w == Approx(catalog().find_hardware("h100-sxm")->tdp_w));
}

TEST_CASE("memory segments add up to the report's total", "[gui]") {
  Selection sel;
  auto perf = make_perf(catalog(), sel);
  REQUIRE(perf.ok());
  const MemoryReport m = perf->memory(8, 640);
  double sum = 0;
  for (const auto& s : memory_segments(m)) sum += s.bytes;
  CHECK(sum == Approx(m.total_bytes));
  CHECK(memory_segments(m).size() == 4);
}

TEST_CASE("make_perf and evaluate_predict report bad selections as values", "[gui]") {
  Selection sel;
  std::string stack;
  sel.model = "llama-9";
  CHECK_THAT(make_perf(catalog(), sel).error().message, Catch::Contains("unknown model 'llama-9'"));
  sel = Selection{};
  sel.hardware = "h300";
  CHECK_THAT(make_perf(catalog(), sel).error().message, Catch::Contains("unknown hardware"));
  sel = Selection{};
  sel.dep.weights = "fp7";
  CHECK_THAT(make_perf(catalog(), sel).error().message, Catch::Contains("fp7"));
  sel = Selection{};
  sel.hardware = "epyc-9654";
  sel.stack = "tensorrt-llm";
  CHECK_THAT(make_perf(catalog(), sel, &stack).error().message,
             Catch::Contains("does not run on cpu"));
  CHECK(stack == "tensorrt-llm");
  sel = Selection{};
  sel.dep.tp = 3;  // 32 heads
  CHECK_THAT(make_perf(catalog(), sel).error().message, Catch::Contains("tp"));

  // The empty stack is the CLI's default for the class.
  sel = Selection{};
  REQUIRE(make_perf(catalog(), sel, &stack).ok());
  CHECK(stack == spec::default_stack_for(HwClass::gpu));

  const PredictView bad = evaluate_predict(catalog(), Selection{}, Workload{0, 512, 128});
  CHECK_FALSE(bad.ok);
  CHECK_FALSE(bad.error.empty());
  const PredictView bad2 = evaluate_predict(catalog(), Selection{}, Workload{1, 0, 128});
  CHECK_FALSE(bad2.ok);
}

TEST_CASE("compare picks the smallest tensor-parallel degree that fits", "[gui]") {
  // Llama 3.1 70B in bf16 is ~141 GB of weights: more than one 80 GB H100.
  Selection base;
  base.model = "llama-3.1-70b";
  const Workload w{4, 1024, 256};
  const auto rows = evaluate_compare(catalog(), base, {"h100-sxm", "h200", "nonexistent"}, w, true);
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& r = rows[i];
    REQUIRE(r.ok);
    CHECK(r.fits);
    // Half the chosen TP does not fit (or the choice is already 1).
    if (r.tp > 1) {
      Selection s = base;
      s.hardware = r.hardware;
      s.dep.tp = r.tp / 2;
      auto perf = make_perf(catalog(), s);
      REQUIRE(perf.ok());
      CHECK_FALSE(predict(*perf, w.batch, w.prompt_tokens, w.output_tokens).memory.fits);
    }
    const double tdp = catalog().find_hardware(r.hardware)->tdp_w;
    CHECK(r.power_w == Approx(tdp * r.tp));
    CHECK(r.tokens_per_s_per_w == Approx(r.tokens_per_s / r.power_w));
    CHECK(r.memory_bytes <= r.capacity_bytes);
  }
  CHECK(rows[0].tp >= 2);  // 141 GB of weights cannot fit 80 GB at TP 1
  CHECK_FALSE(rows[2].ok);
  CHECK_THAT(rows[2].error, Catch::Contains("unknown hardware"));

  // Without auto TP the base degree is used, fitting or not.
  const auto fixed = evaluate_compare(catalog(), base, {"h100-sxm"}, w, false);
  REQUIRE(fixed.size() == 1);
  CHECK(fixed[0].tp == 1);
  CHECK_FALSE(fixed[0].fits);
}

TEST_CASE("compare rows sort by a key with failures last", "[gui]") {
  std::vector<CompareRow> rows(4);
  rows[0].hardware = "a";
  rows[0].ok = true;
  rows[0].tokens_per_s = 10;
  rows[1].hardware = "b";
  rows[1].ok = false;
  rows[1].tokens_per_s = 99;  // a failed row's numbers do not count
  rows[2].hardware = "c";
  rows[2].ok = true;
  rows[2].tokens_per_s = 30;
  rows[3].hardware = "d";
  rows[3].ok = true;
  rows[3].tokens_per_s = 20;
  sort_compare(rows, CompareKey::tokens_per_s, true);
  CHECK(rows[0].hardware == "c");
  CHECK(rows[1].hardware == "d");
  CHECK(rows[2].hardware == "a");
  CHECK(rows[3].hardware == "b");
  sort_compare(rows, CompareKey::tokens_per_s, false);
  CHECK(rows[0].hardware == "a");
  CHECK(rows[3].hardware == "b");
  // b failed, so its 2 does not count; c has no price (0).
  for (auto& r : rows) {
    r.tokens_per_s_per_kusd = r.hardware == "a"   ? 1
                              : r.hardware == "d" ? 3
                              : r.hardware == "b" ? 2
                                                  : 0;
  }
  sort_compare(rows, CompareKey::tokens_per_s_per_kusd, true);
  CHECK(rows[0].hardware == "d");
  CHECK(rows[1].hardware == "a");
  CHECK(rows[2].hardware == "c");
  CHECK(rows[3].hardware == "b");
  sort_compare(rows, CompareKey::hardware, true);
  CHECK(rows[0].hardware == "d");
  CHECK(rows[3].hardware == "b");
}

TEST_CASE("number formatting for the panels", "[gui]") {
  CHECK(fmt_si(1.5e12, "FLOP/s") == "1.5 TFLOP/s");
  CHECK(fmt_si(999, "B") == "999 B");
  CHECK(fmt_si(999.7, "B") == "1 kB");  // rounds to 1000 at 3 digits: next prefix
  CHECK(fmt_si(-2500, "W") == "-2.5 kW");
  CHECK(fmt_si(0, "x") == "0 x");
  CHECK(fmt_si(92, "") == "92");  // no dangling space before the caller's own unit
  CHECK(fmt_si(15800, "") == "15.8 k");
  CHECK(fmt_si(1e5, "", 2) == "100 k");  // not "1e+02 k"
  CHECK(fmt_si(2e5, "USD", 1) == "200 kUSD");
  CHECK(fmt_si(25, "", 1) == "25");
  CHECK(fmt_si(std::nan(""), "x") == "n/a");
  // Memory in binary units: 80 GiB = 80 x 2^30 bytes; 7.1 GiB; 512 MiB; small counts in bytes.
  CHECK(fmt_mem(80.0 * (1ull << 30)) == "80 GiB");
  CHECK(fmt_mem(7.1 * (1ull << 30)) == "7.1 GiB");
  CHECK(fmt_mem(512.0 * (1 << 20)) == "512 MiB");
  CHECK(fmt_mem(1000) == "1000 B");
  CHECK(fmt_mem(1023.9) == "1 KiB");  // rounds up to the next unit at three digits
  CHECK(fmt_ratio(0) == "n/a");
  CHECK(fmt_ratio(12.5, "tok/s") == "12.5 tok/s");
  CHECK(fmt_q(std::numeric_limits<double>::infinity(), Dim::seconds) == "n/a");
  CHECK(fmt_q(0.0109, Dim::seconds) == format_quantity(0.0109, Dim::seconds));
}

TEST_CASE("scenario list keeps only kind: scenario files", "[gui]") {
  const auto list = list_scenarios(INFERCAP_SOURCE_DIR "/data/examples");
  REQUIRE(!list.empty());
  bool chat = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    CHECK(list[i].name.find(".stack") == std::string::npos);  // a stack preset, not a scenario
    if (list[i].name == "chat-service") chat = true;
    if (i > 0) CHECK(list[i - 1].path < list[i].path);
  }
  CHECK(chat);
  CHECK(list_scenarios(INFERCAP_SOURCE_DIR "/no-such-folder").empty());
}

TEST_CASE("plan job solves on a worker thread and matches a direct solve", "[gui]") {
  auto cat = std::make_shared<const spec::Catalog>(catalog());
  const std::string path = INFERCAP_SOURCE_DIR "/data/examples/bert-npu-fixed.yaml";
  const std::string data = INFERCAP_SOURCE_DIR "/data";
  PlanJob job;
  CHECK(job.snapshot().state == JobState::idle);
  const unsigned v0 = job.version();
  REQUIRE(job.start(cat, path, data));
  // Either still running (a second start is refused) or already done.
  if (job.running()) CHECK_FALSE(job.start(cat, path, data));
  job.wait();
  const PlanOutcome o = job.snapshot();
  CHECK(job.version() > v0);
  REQUIRE(o.state == JobState::done);
  REQUIRE(o.plan.has_value());
  CHECK(o.elapsed_s > 0);

  const PlanOutcome direct = solve_scenario(*cat, path, data);
  REQUIRE(direct.plan.has_value());
  CHECK(o.plan->feasible == direct.plan->feasible);
  CHECK(o.plan->candidates_evaluated == direct.plan->candidates_evaluated);
  REQUIRE(o.plan->pools.size() == direct.plan->pools.size());
  if (!direct.plan->pools.empty() && !direct.plan->pools[0].ranked.empty()) {
    CHECK(o.plan->pools[0].ranked[0].hardware == direct.plan->pools[0].ranked[0].hardware);
  }
  // Finished jobs may be restarted.
  REQUIRE(job.start(cat, INFERCAP_SOURCE_DIR "/data/examples/no-such.yaml", data));
  job.wait();
  const PlanOutcome bad = job.snapshot();
  CHECK(bad.state == JobState::failed);
  CHECK_FALSE(bad.error.empty());
}

TEST_CASE("best batch within a TPOT target", "[gui]") {
  BatchSweep s;
  // step_s = 10 ms + 1 ms per sequence; tokens/s = b / step grows with b. Batch 5 does not fit.
  for (int b = 1; b <= 8; ++b) {
    SweepPoint p;
    p.batch = b;
    p.step_s = 0.010 + 0.001 * b;
    p.tokens_per_s = b / p.step_s;
    p.fits = b != 5 && b <= 6;
    s.points.push_back(p);
  }
  // 15 ms allows b <= 5; 5 does not fit, so 4.
  const SweepPoint* best = best_within_tpot(s, 0.015);
  REQUIRE(best != nullptr);
  CHECK(best->batch == 4);
  // 100 ms allows all; 6 is the largest that fits.
  best = best_within_tpot(s, 0.100);
  REQUIRE(best != nullptr);
  CHECK(best->batch == 6);
  CHECK(best_within_tpot(s, 0.010) == nullptr);  // even batch 1 takes 11 ms
  CHECK(best_within_tpot(BatchSweep{}, 1.0) == nullptr);
}

TEST_CASE("time by binding roof adds up to the step", "[gui]") {
  Selection sel;
  auto perf = make_perf(catalog(), sel);
  REQUIRE(perf.ok());
  const StepBreakdown b = perf->decode_breakdown(16, 576);
  const auto t = time_by_bound(b);
  double sum = 0, ops_overhead = 0;
  for (double x : t) sum += x;
  for (const auto& op : b.ops) {
    if (op.bound == Bound::overhead) ops_overhead += op.time_s;
  }
  CHECK(sum == Approx(b.time_s));
  // The fixed step cost is added to the overhead-bound ops' time.
  CHECK(t[static_cast<std::size_t>(Bound::overhead)] == Approx(ops_overhead + b.step_overhead_s));
  CHECK(time_by_bound(StepBreakdown{})[0] == 0);
}

TEST_CASE("the CLI command reproduces the GUI's prediction", "[gui]") {
  Selection sel;
  sel.model = "llama-3.1-8b";
  sel.hardware = "h100-sxm";
  sel.stack = "vllm";
  sel.dep.weights = "fp8";
  sel.dep.tp = 2;
  const Workload w{8, 1000, 200};
  const std::string cmd = cli_command(sel, w);
  CHECK(cmd ==
        "infercap predict -m llama-3.1-8b -H h100-sxm -s vllm --weights fp8 --tp 2 -b 8 -p 1000 "
        "-o 200");
  const PredictView v = evaluate_predict(catalog(), sel, w);
  REQUIRE(v.ok);
  // Run it: the table the CLI prints carries the same TTFT and TPOT strings the panel shows.
  const std::string shell = std::string("'") + INFERCAP_CLI_PATH + "'" + cmd.substr(8) + " 2>&1";
  FILE* p = popen(shell.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  CHECK(pclose(p) == 0);
  CHECK_THAT(out, Catch::Contains(fmt_q(v.prediction.ttft_s, Dim::seconds)));
  CHECK_THAT(out, Catch::Contains(fmt_q(v.prediction.tpot_s, Dim::seconds)));

  Selection cpu;
  cpu.hardware = "epyc-9654";
  cpu.dep.threads = 32;
  cpu.dep.smt = true;
  cpu.dep.numa = "interleave";
  CHECK_THAT(cli_command(cpu, Workload{}),
             Catch::EndsWith("--threads 32 --smt --numa interleave -b 1 -p 512 -o 128"));
}

TEST_CASE("compare prices the devices from a price book", "[gui]") {
  spec::Diagnostics d;
  auto book = spec::load_prices(INFERCAP_SOURCE_DIR "/data/prices/default.yaml", d);
  REQUIRE(book.ok());
  Selection base;
  base.model = "llama-3.1-70b";
  const Workload w{8, 512, 128};
  std::vector<std::string> names;
  for (const auto& h : catalog().hardware()) names.push_back(h.name);
  const auto rows = evaluate_compare(catalog(), base, names, w, true, &*book);
  int priced = 0;
  for (const auto& r : rows) {
    if (!r.ok) {
      CHECK(r.devices_price_usd == 0);
      continue;
    }
    const DevicePricing* dp = book->find(r.hardware);
    if (dp == nullptr) {
      CHECK(r.devices_price_usd == 0);
      CHECK(r.tokens_per_s_per_kusd == 0);
      continue;
    }
    // TP devices bought together: the volume tier for that many, times the count.
    CHECK(r.devices_price_usd == Approx(dp->unit_price_usd(r.tp) * r.tp));
    CHECK(r.price_estimate == dp->estimate);
    if (r.devices_price_usd > 0) {
      CHECK(r.tokens_per_s_per_kusd == Approx(r.tokens_per_s * 1000.0 / r.devices_price_usd));
      ++priced;
    }
  }
  CHECK(priced > 0);
  // Without a book there are no prices at all.
  for (const auto& r : evaluate_compare(catalog(), base, {"h100-sxm"}, w, true)) {
    CHECK(r.devices_price_usd == 0);
  }
}

TEST_CASE("context sweep: TPOT and max batch against the context window", "[gui]") {
  Selection sel;
  auto perf = make_perf(catalog(), sel);
  REQUIRE(perf.ok());
  const ContextSweep s = context_sweep(*perf, 8, 131072, 64);
  REQUIRE(s.points.size() == 64);
  CHECK(s.points.front().context_tokens == 128);
  CHECK(s.points.back().context_tokens == 131072);
  // 64 points over 128..131072 (2^7..2^17): each step multiplies by 2^(10/63).
  CHECK(s.points[63 - 0].context_tokens / s.points[62].context_tokens ==
        Approx(std::pow(2.0, 10.0 / 63)).epsilon(0.01));
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    CHECK(p.step_s == Approx(perf->decode_step_s(8, p.context_tokens)));
    CHECK(p.max_batch == perf->max_batch(p.context_tokens));
    if (i > 0) {
      CHECK(p.context_tokens > s.points[i - 1].context_tokens);
      // More context: more KV to read, fewer sequences fit.
      CHECK(p.step_s >= s.points[i - 1].step_s);
      CHECK(p.max_batch <= s.points[i - 1].max_batch);
    }
  }
  // A window below 128 tokens is one point; bad inputs give none.
  CHECK(context_sweep(*perf, 8, 100).points.size() == 1);
  CHECK(context_sweep(*perf, 0, 4096).points.empty());
  CHECK(context_sweep(*perf, 8, 0).points.empty());
}

TEST_CASE("compare table as CSV", "[gui]") {
  std::vector<CompareRow> rows(2);
  rows[0].hardware = "h100-sxm";
  rows[0].stack = "vllm";
  rows[0].ok = true;
  rows[0].tp = 2;
  rows[0].fits = true;
  rows[0].max_batch = 136;
  rows[0].ttft_s = 0.5;
  rows[0].tpot_s = 0.025;
  rows[0].tokens_per_s = 320;
  rows[0].power_w = 1400;
  rows[0].tokens_per_s_per_w = 320.0 / 1400;
  rows[0].memory_bytes = 7e10;
  rows[0].capacity_bytes = 8.59e10;
  rows[1].hardware = "x";
  rows[1].hw_class = HwClass::cpu;
  rows[1].stack = "llama.cpp";
  rows[1].error = "tp: 3 does not divide 32, \"heads\"";
  const std::string csv = compare_csv(rows);
  // Header + 2 rows; every line has the header's 16 fields (15 commas outside quotes).
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = csv.find('\n'); i != std::string::npos; i = csv.find('\n', start)) {
    lines.push_back(csv.substr(start, i - start));
    start = i + 1;
  }
  REQUIRE(lines.size() == 3);
  for (const auto& l : lines) {
    int commas = 0;
    bool in_quotes = false;
    for (char c : l) {
      if (c == '"') in_quotes = !in_quotes;
      if (c == ',' && !in_quotes) ++commas;
    }
    CHECK(commas == 15);
  }
  CHECK(lines[1] == "h100-sxm,gpu,vllm,2,true,136,0.5,0.025,320,1400," +
                        fmt::format("{}", 320.0 / 1400) +
                        ",70000000000,85900000000,,,");  // no price, no error
  CHECK_THAT(lines[2], Catch::StartsWith("x,cpu,llama.cpp,"));
  CHECK_THAT(lines[2], Catch::EndsWith("\"tp: 3 does not divide 32, \"\"heads\"\"\""));
}

TEST_CASE("gui/ includes nothing from cli/: two shells over one core", "[gui]") {
  // Every quoted include under gui/ is checked against the headers cli/ holds; the build also
  // refuses them (gui/ neither links infercap_cli_lib nor sees its include folder), this test
  // names the file when someone adds the folder back.
  namespace fs = std::filesystem;
  std::set<std::string> cli_headers;
  for (const auto& e : fs::directory_iterator(INFERCAP_SOURCE_DIR "/cli"))
    if (e.path().extension() == ".hpp") cli_headers.insert(e.path().filename().string());
  REQUIRE(cli_headers.count("common.hpp") == 1);
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(INFERCAP_SOURCE_DIR "/gui")) {
    const auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    ++files;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#include \"", 0) != 0) continue;
      const std::string inc = line.substr(10, line.find('"', 10) - 10);
      INFO(e.path().string() << ": " << line);
      CHECK(inc.find("cli/") == std::string::npos);
      CHECK(cli_headers.count(inc) == 0);
    }
  }
  CHECK(files > 10);
}
