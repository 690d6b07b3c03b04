// Static-batch metrics as `validate` predicts them (TTFT, TPOT / ITL, end-to-end latency, output
// throughput of a batch), the rows that carry them, and the choice and fit of a serving stack's
// physical parameters. [model]: the metrics against the formulas of predict.hpp, written out
// here from PerfModel's step times; [unit]: CSV rows to cases; [calib]: parameter choice and
// recovery of known parameters from rows generated with them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "catalog_fixture.hpp"
#include "infercap/stack_fit_params.hpp"
#include "measurements.hpp"
#include "tmp_path.hpp"

using namespace infercap;

namespace {

const spec::Catalog& cat() {
  return test::project_catalog().catalog;
}

BenchCase static_case(const char* model, const char* hw, int tp, int batch, double prompt,
                      double output, BenchMetric metric) {
  BenchCase c;
  c.id = std::string(model) + "/" + hw;
  c.model = *cat().find_model(model);
  c.hardware = *cat().find_hardware(hw);
  c.deployment.precision = {DType::bf16, DType::bf16, DType::bf16};
  c.deployment.tp = tp;
  c.batch = batch;
  c.prompt_tokens = prompt;
  c.output_tokens = output;
  c.metric = metric;
  c.measured = 1;
  return c;
}

}  // namespace

TEST_CASE("static-batch metrics follow TTFT + (output - 1) x TPOT", "[model]") {
  const StackSpec* vllm = cat().find_stack("vllm");
  REQUIRE(vllm != nullptr);
  // vLLM's latency test: 8 prompts of 32 tokens, 128 output tokens each.
  const int B = 8;
  const double P = 32, O = 128;
  BenchCase c = static_case("llama-3.1-8b", "h100-sxm", 1, B, P, O, BenchMetric::ttft_s);
  auto perf = PerfModel::create(c.model, c.hardware, *vllm, c.deployment);
  REQUIRE(perf);
  // TTFT: one prefill pass over all B prompts.
  const double ttft = perf->prefill_s(B, P);
  // TPOT: the mean decode step over contexts P+1 .. P+O-1 (one step per token after the first).
  double sum = 0;
  for (int i = 1; i <= static_cast<int>(O) - 1; ++i) sum += perf->decode_step_s(B, P + i);
  const double tpot = sum / (O - 1);
  auto at = [&](BenchMetric m) {
    c.metric = m;
    auto v = predict_case(c, *vllm);
    REQUIRE(v);
    return *v;
  };
  CHECK(at(BenchMetric::ttft_s) == Approx(ttft).epsilon(1e-9));
  CHECK(at(BenchMetric::tpot_s) == Approx(tpot).epsilon(1e-9));
  CHECK(at(BenchMetric::e2e_latency_s) == Approx(ttft + (O - 1) * tpot).epsilon(1e-9));
  // Output throughput of the batch: B x O tokens over its end-to-end latency.
  CHECK(at(BenchMetric::static_output_tokens_per_s) ==
        Approx(B * O / (ttft + (O - 1) * tpot)).epsilon(1e-9));
  // One output token: the batch ends with its prefill.
  c.output_tokens = 1;
  CHECK(at(BenchMetric::e2e_latency_s) == Approx(ttft).epsilon(1e-9));
  c.output_tokens = 0;
  c.metric = BenchMetric::e2e_latency_s;
  CHECK_FALSE(predict_case(c, *vllm).ok());  // a static batch generates at least one token
}

TEST_CASE("on the datasheet roofline a batch-1 step streams the weights at peak bandwidth",
          "[model]") {
  // Llama 3.1 8B in bf16 on an H100 SXM: each step reads every weight but the embedding table
  // (2 bytes each) at 3.35 TB/s; the KV cache of <= 160 tokens (131 kB a token) and the
  // activations add under 1%.
  BenchCase c = static_case("llama-3.1-8b", "h100-sxm", 1, 1, 32, 128, BenchMetric::tpot_s);
  const double bytes =
      (total_params(c.model) - static_cast<double>(c.model.vocab) * c.model.hidden) * 2;
  const double floor_s = bytes / c.hardware.memory_bandwidth_bytes_per_s;
  auto tpot = predict_case(c, ideal_stack());
  REQUIRE(tpot);
  CHECK(*tpot >= floor_s * 0.999);
  CHECK(*tpot <= floor_s * 1.01);
}

TEST_CASE("static-batch rows: itl is TPOT, throughput kept in tokens/s, a stated KV format",
          "[unit]") {
  const std::string path = infercap::testing::tmp_path("infercap-test-static-rows.csv");
  {
    std::ofstream f(path);
    f << "id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,"
         "batch,metric,value,unit,stack,notes,tp,serving_mode,request_rate,kv_precision\n"
      << "T-1,x,h100-sxm,1,,llama-3.1-8b,,BF16,32,128,8,itl,7.5,ms,vLLM,,1,,,\n"
      << "T-2,x,h100-sxm,2,,llama-2-7b,,FP8,128,128,896,static_output_tokens_per_s,39708,"
         "tokens/s,tensorrt-llm,,2,,,FP8\n"
      << "T-3,x,h100-sxm,1,,llama-2-7b,,FP8,128,1,1,ttft,6.3,ms,tensorrt-llm,,1,,,\n"
      << "T-4,x,h100-sxm,1,,llama-2-7b,,FP8,128,1,1,ttft,6.3,ms,tensorrt-llm,,1,,,fp7\n";
  }
  spec::Diagnostics d;
  const auto rows = cli::read_measurements(path, d);
  std::remove(path.c_str());
  // The bad KV format is refused where it stands: line 5, column 20.
  REQUIRE(d.error_count() == 1);
  CHECK(d.items()[0].line == 5);
  CHECK(d.items()[0].col == 20);
  CHECK_THAT(d.items()[0].message, Catch::Contains("fp7"));
  REQUIRE(rows.size() == 3);
  const auto m = cli::map_measurements(rows, cat());
  REQUIRE(m[0].bench);
  CHECK(m[0].bench->metric == BenchMetric::tpot_s);
  CHECK(m[0].bench->measured == Approx(0.0075));  // ms -> s
  REQUIRE(m[1].bench);
  CHECK(m[1].bench->metric == BenchMetric::static_output_tokens_per_s);
  CHECK(m[1].bench->measured == Approx(39708));  // a throughput keeps its unit
  CHECK(m[1].bench->batch == 896);
  CHECK(m[1].bench->deployment.tp == 2);
  CHECK(m[1].bench->deployment.precision.weights == DType::fp8);
  CHECK(m[1].bench->deployment.precision.kv == DType::fp8);  // as the row states
  REQUIRE(m[2].bench);
  CHECK(m[2].bench->metric == BenchMetric::ttft_s);
  // Not stated on a TensorRT-LLM FP8 row: ModelOpt's FP8 checkpoints carry an FP8 KV cache
  // (cli/measurements.cpp); test_serving_validation.cpp covers the other stacks and formats.
  CHECK(m[2].bench->deployment.precision.kv == DType::fp8);
}

TEST_CASE("serving-stack fit: the parameters the rows respond to, recovered from known values",
          "[calib]") {
  const StackSpec* catalog_vllm = cat().find_stack("vllm");
  REQUIRE(catalog_vllm != nullptr);
  // A stated start (the catalog's fitted values move with each refit).
  StackSpec start = *catalog_vllm;
  start.for_class(HwClass::gpu).weight_bandwidth_fraction = 0.85;
  start.for_class(HwClass::gpu).step_overhead_s = 1.5e-3;
  start.for_class(HwClass::gpu).kernel_overhead_s = 1.5e-6;
  // The roofline's max for the GEMMs: these shapes then stay clear of the ridge (the catalog's
  // p-norm brings compute in; checked at the end).
  start.for_class(HwClass::gpu).gemm_overlap_norm_p = 0;
  const StackSpec* vllm = &start;
  StackSpec truth = start;
  auto& t = truth.for_class(HwClass::gpu);
  t.weight_bandwidth_fraction = 0.81;
  t.step_overhead_s = 2.5e-3;
  t.kernel_overhead_s = 3e-6;
  // Latency-test shapes on three devices, two models with different depths (32 and 80 layers,
  // TP 1 and 4): per-kernel costs scale with layers and kernels, the per-step cost does not.
  std::vector<BenchCase> cases;
  for (const char* hw : {"a100-sxm-80gb", "h100-sxm", "h200"}) {
    for (int b : {1, 8, 32}) {
      cases.push_back(static_case("llama-3.1-8b", hw, 1, b, 32, 128, BenchMetric::e2e_latency_s));
      cases.push_back(static_case("llama-3-70b", hw, 4, b, 32, 128, BenchMetric::e2e_latency_s));
    }
  }
  for (auto& c : cases) {
    auto p = predict_case(c, truth);
    REQUIRE(p);
    c.measured = *p;
  }
  auto choice = choose_fit_params(*vllm, HwClass::gpu, cases);
  REQUIRE(choice);
  const auto& ps = choice->params;
  auto has = [&](StackParam p) { return std::find(ps.begin(), ps.end(), p) != ps.end(); };
  CHECK(has(StackParam::weight_bandwidth_fraction));
  CHECK(has(StackParam::step_overhead_s));
  CHECK(has(StackParam::kernel_overhead_s));
  // Prefill of at most 32 x 32 tokens and a KV cache of <= 160 tokens move e2e by a few percent
  // at most: below the 5% sensitivity floor.
  CHECK_FALSE(has(StackParam::gemm_compute_fraction));
  CHECK_FALSE(has(StackParam::kv_bandwidth_fraction));
  REQUIRE(choice->review.size() == serving_stack_candidates().size());
  for (size_t i = 1; i < choice->review.size(); ++i) {
    CHECK(choice->review[i - 1].rms_sensitivity >= choice->review[i].rms_sensitivity);
  }
  // Forward selection starts from the screened set and only adds to it.
  auto sel = select_fit_params(*vllm, HwClass::gpu, cases);
  REQUIRE(sel);
  for (StackParam p : ps) {
    CHECK(std::find(sel->params.begin(), sel->params.end(), p) != sel->params.end());
  }
  auto fit = fit_stack(*vllm, HwClass::gpu, cases, ps);
  REQUIRE(fit);
  const auto& g = fit->stack.for_class(HwClass::gpu);
  CHECK(g.weight_bandwidth_fraction == Approx(0.81).epsilon(0.01));
  CHECK(g.step_overhead_s == Approx(2.5e-3).epsilon(0.03));
  CHECK(g.kernel_overhead_s == Approx(3e-6).epsilon(0.05));
  CHECK(fit->rms_log_error_after < 1e-3);
  // With the GEMM times combined as a p-norm (p = 1.9, the catalog's), a 32 x 32-token prefill
  // pays part of its compute even where memory dominates: the same rows now respond to the GEMM
  // fraction as well.
  StackSpec normed = truth;
  normed.for_class(HwClass::gpu).gemm_overlap_norm_p = 1.9;
  for (auto& c : cases) c.measured = *predict_case(c, normed);
  auto with_p = choose_fit_params(normed, HwClass::gpu, cases);
  REQUIRE(with_p);
  CHECK(std::find(with_p->params.begin(), with_p->params.end(),
                  StackParam::gemm_compute_fraction) != with_p->params.end());
}

TEST_CASE("serving-stack fit: collinear overheads, switched-off mechanisms, too few rows",
          "[calib]") {
  const StackSpec* catalog_vllm = cat().find_stack("vllm");
  REQUIRE(catalog_vllm != nullptr);
  StackSpec start = *catalog_vllm;
  start.for_class(HwClass::gpu).step_overhead_s = 1.5e-3;
  start.for_class(HwClass::gpu).kernel_overhead_s = 1.5e-6;
  const StackSpec* vllm = &start;
  // One model at batch 1: per-kernel and per-step costs both add a constant to every step, so
  // their sensitivity columns are proportional and only one of them can be fitted.
  std::vector<BenchCase> cases;
  for (const char* hw : {"a100-sxm-80gb", "h100-sxm", "h200", "l40s"}) {
    cases.push_back(static_case("llama-3.1-8b", hw, 1, 1, 32, 128, BenchMetric::tpot_s));
  }
  auto choice = choose_fit_params(*vllm, HwClass::gpu, cases);
  REQUIRE(choice);
  const auto& ps = choice->params;
  auto count = [&](StackParam p) { return std::count(ps.begin(), ps.end(), p); };
  CHECK(count(StackParam::kernel_overhead_s) + count(StackParam::step_overhead_s) == 1);
  CHECK(count(StackParam::weight_bandwidth_fraction) == 1);
  // A mechanism at zero in the start stack is not the stack's and is never fitted.
  StackSpec no_kernels = *vllm;
  no_kernels.for_class(HwClass::gpu).kernel_overhead_s = 0;
  auto c2 = choose_fit_params(no_kernels, HwClass::gpu, cases);
  REQUIRE(c2);
  CHECK(std::count(c2->params.begin(), c2->params.end(), StackParam::kernel_overhead_s) == 0);
  // Two rows determine at most one parameter.
  cases.resize(2);
  auto c3 = choose_fit_params(*vllm, HwClass::gpu, cases);
  REQUIRE(c3);
  CHECK(c3->params.size() == 1);
  CHECK_FALSE(choose_fit_params(*vllm, HwClass::gpu, {}).ok());
}
