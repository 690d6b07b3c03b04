// [model] tests of four serving-stack mechanisms, each derived by hand from the formula it states:
// TensorRT-LLM v0.9's MoE experts without an FP8 path (StackEfficiency::fp8_expert_gemm) and on
// mma.sync kernels (expert_gemm_mma_sync with HardwareSpec::mma_sync_peak_fraction), the
// per-op cost of eager PyTorch and the issue cost of weight-only GEMVs. Specs are built here, so
// a catalog change cannot move the numbers; [unit] checks read the committed stacks for the keys
// the mechanisms rest on.
#include <catch2/catch.hpp>
#include <cmath>
#include <tuple>

#include "catalog_fixture.hpp"
#include "infercap/perf.hpp"
#include "infercap/stack_fit.hpp"
#include "measurements.hpp"
#include "stack_yaml.hpp"

using namespace infercap;

namespace {

// 2 layers, hidden 1024, 8 heads of 128 (2 KV heads), 8 experts of 4096, top-2.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.name = "tiny-moe";
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 2;
  m.head_dim = 128;
  m.ffn_hidden = 4096;
  m.vocab = 32000;
  m.tied_embeddings = false;
  m.max_context = 4096;
  m.moe.experts = 8;
  m.moe.active_experts = 2;
  m.moe.expert_ffn_hidden = 4096;
  return m;
}

// FP8 at twice the fp16 rate, as on Hopper and Ada (H100: 1979 vs 989.5 TFLOP/s dense).
HardwareSpec fp8_gpu() {
  HardwareSpec h;
  h.name = "fp8-gpu";
  h.hw_class = HwClass::gpu;
  at(h.dense_flops_per_s, ComputeType::bf16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::fp16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::fp8) = 200e12;
  h.memory_bytes = 80e9;
  h.memory_bandwidth_bytes_per_s = 1e12;
  return h;
}

// The datasheet roofline (fractions 1, no overheads, gemm_m_half 0), with or without FP8 experts.
StackSpec roofline(bool fp8_experts) {
  StackSpec s = ideal_stack();
  s.per_class[static_cast<size_t>(HwClass::gpu)].fp8_expert_gemm = fp8_experts;
  return s;
}

PerfModel make(const StackSpec& s, DType all) {
  Deployment d;
  d.precision = {all, all, all};
  auto r = PerfModel::create(tiny_moe(), fp8_gpu(), s, d);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// `s` under `other`'s name, aliases, description, sources and vendors: what is left to compare
// is its figures and engine settings.
StackSpec with_identity_of(StackSpec s, const StackSpec& other) {
  s.name = other.name;
  s.aliases = other.aliases;
  s.description = other.description;
  s.sources = other.sources;
  s.vendors = other.vendors;
  return s;
}

const OpTime& op(const StepBreakdown& b, std::string_view name) {
  for (const auto& o : b.ops)
    if (o.cost.name == name) return o;
  FAIL("no op " << name);
  return b.ops.front();
}

}  // namespace

TEST_CASE("experts without an FP8 path stream 16-bit weights and run at the fp16 rate", "[model]") {
  const PerfModel fp8 = make(roofline(true), DType::fp8);
  const PerfModel v09 = make(roofline(false), DType::fp8);
  // Decode, batch 1: the token's 2 experts, 3 matrices of 1024 x 4096 each, 2 layers.
  const double expert_weights = 2 * 3.0 * 1024 * 4096 * 2;
  CHECK(op(fp8.decode_breakdown(1, 0), "experts").cost.weight_bytes ==
        Approx(expert_weights * 1.0));  // 1 byte an FP8 weight
  CHECK(op(v09.decode_breakdown(1, 0), "experts").cost.weight_bytes ==
        Approx(expert_weights * 2.0));  // 2 bytes: kept 16-bit
  // Prefill of 512 tokens: 512 x 2 expert rows of 2 x 3 x 1024 x 4096 FLOPs per layer, 2 layers;
  // compute-bound at 200 TFLOP/s with FP8 experts, at 100 TFLOP/s without.
  const double flops = 2.0 * 512 * 2 * 3 * 1024 * 4096 * 2;
  const StepBreakdown p8 = fp8.prefill_breakdown(1, 512);
  const StepBreakdown p16 = v09.prefill_breakdown(1, 512);
  const auto& e8 = op(p8, "experts");
  const auto& e16 = op(p16, "experts");
  CHECK(e8.cost.flops == Approx(flops));
  CHECK(e16.cost.flops == Approx(flops));  // the same work, not inflated FLOPs
  CHECK(e8.compute_s == Approx(flops / 200e12));
  CHECK(e16.compute_s == Approx(flops / 100e12));
  // Attention projections stay FP8 either way.
  const auto& q8 = op(p8, "qkv_proj");
  const auto& q16 = op(p16, "qkv_proj");
  CHECK(q16.compute_s == Approx(q8.compute_s));
  CHECK(q16.cost.weight_bytes == Approx(q8.cost.weight_bytes));
}

TEST_CASE("the missing FP8 expert path changes nothing for a 16-bit deployment", "[model]") {
  const StepBreakdown a = make(roofline(true), DType::bf16).prefill_breakdown(1, 512);
  const StepBreakdown b = make(roofline(false), DType::bf16).prefill_breakdown(1, 512);
  CHECK(op(a, "experts").time_s == Approx(op(b, "experts").time_s));
  CHECK(op(a, "experts").cost.weight_bytes == Approx(op(b, "experts").cost.weight_bytes));
}

TEST_CASE("mma.sync expert GEMMs reach the device's mma.sync share of the tensor rate", "[model]") {
  // Formula: expert compute time = FLOPs / (peak x fp16/fp8 factor x mma_sync_peak_fraction).
  // Prefill of 512 tokens, 16-bit deployment, peak 100 TFLOP/s, fraction 2/3:
  // 2 x 512 x 2 x 3 x 1024 x 4096 x 2 FLOPs at 66.7 TFLOP/s.
  const double flops = 2.0 * 512 * 2 * 3 * 1024 * 4096 * 2;
  StackSpec mma = roofline(true);
  mma.per_class[static_cast<size_t>(HwClass::gpu)].expert_gemm_mma_sync = true;
  HardwareSpec hopper = fp8_gpu();
  hopper.mma_sync_peak_fraction = 2.0 / 3.0;
  auto run = [](const StackSpec& s, const HardwareSpec& h, DType t) {
    Deployment d;
    d.precision = {t, t, t};
    auto r = PerfModel::create(tiny_moe(), h, s, d);
    REQUIRE(r.ok());
    return std::move(r).value().prefill_breakdown(1, 512);
  };
  const StepBreakdown slow = run(mma, hopper, DType::bf16);
  CHECK(op(slow, "experts").compute_s == Approx(flops / (100e12 * 2.0 / 3.0)));
  // The dense projections keep the full rate: only the expert GEMMs run the mma.sync kernels.
  const StepBreakdown base = run(roofline(true), hopper, DType::bf16);
  CHECK(op(base, "experts").compute_s == Approx(flops / 100e12));
  CHECK(op(slow, "qkv_proj").compute_s == Approx(op(base, "qkv_proj").compute_s));
  // A device that states no fraction (before Hopper mma.sync is the native path) is unchanged.
  const StepBreakdown ampere = run(mma, fp8_gpu(), DType::bf16);
  CHECK(op(ampere, "experts").compute_s == Approx(flops / 100e12));
  // With v0.9's missing FP8 path as well, an FP8 deployment's experts run at
  // fp16 x 2/3 = 66.7 TFLOP/s of the 200 TFLOP/s FP8 peak.
  StackSpec v09 = roofline(false);
  v09.per_class[static_cast<size_t>(HwClass::gpu)].expert_gemm_mma_sync = true;
  const StepBreakdown both = run(v09, hopper, DType::fp8);
  CHECK(op(both, "experts").compute_s == Approx(flops / (100e12 * 2.0 / 3.0)));
}

TEST_CASE(
    "tensorrt-llm-0.9 is the one committed stack without FP8 experts or with mma.sync "
    "experts; only Hopper entries state an mma.sync share",
    "[unit]") {
  const auto& cat = test::project_catalog().catalog;
  const StackSpec* v09 = cat.find_stack("tensorrt-llm-0.9");
  const StackSpec* now = cat.find_stack("tensorrt-llm");
  const StackSpec* vllm = cat.find_stack("vllm");
  REQUIRE(v09 != nullptr);
  REQUIRE(now != nullptr);
  REQUIRE(vllm != nullptr);
  const auto gpu = static_cast<size_t>(HwClass::gpu);
  CHECK_FALSE(v09->per_class[gpu].fp8_expert_gemm);
  CHECK(now->per_class[gpu].fp8_expert_gemm);
  CHECK(vllm->per_class[gpu].fp8_expert_gemm);
  // Only v0.9 runs its experts on Sm80 (mma.sync) kernels on Hopper; only Hopper states a share.
  CHECK(v09->per_class[gpu].expert_gemm_mma_sync);
  CHECK_FALSE(now->per_class[gpu].expert_gemm_mma_sync);
  CHECK_FALSE(vllm->per_class[gpu].expert_gemm_mma_sync);
  for (const char* h : {"h100-sxm", "h200", "h100-pcie", "h100-nvl", "gh200"}) {
    const HardwareSpec* hw = cat.find_hardware(h);
    REQUIRE(hw != nullptr);
    CHECK(hw->mma_sync_peak_fraction == Approx(0.667));
  }
  for (const char* h : {"a100-sxm-80gb", "l40s"}) {
    const HardwareSpec* hw = cat.find_hardware(h);
    REQUIRE(hw != nullptr);
    CHECK(hw->mma_sync_peak_fraction == 0);
  }
}

TEST_CASE("sglang runs vllm's GPU figures and SGLang's own scheduler and memory share", "[unit]") {
  // data/stacks/sglang.yaml copies the GPU class of vllm.yaml (no SGLang row is fitted): a refit
  // of vllm that leaves sglang behind fails here. Its own keys are SGLang's defaults, and its step
  // overhead is 0: the host work vLLM's fitted figure stands for overlaps the step before.
  const auto& cat = test::project_catalog().catalog;
  const StackSpec* sglang = cat.find_stack("SGLang");
  const StackSpec* vllm = cat.find_stack("vllm");
  REQUIRE(sglang != nullptr);
  REQUIRE(vllm != nullptr);
  auto gpu_class = [](const StackSpec& s) {
    const std::string y = cli::stack_to_yaml(s);
    const auto a = y.find("  gpu:\n");
    const auto b = y.find("\n  npu:");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    std::string g = y.substr(a, b - a);
    for (const char* own : {"    step_overhead_s:", "    prefill_launch_overhead_s:"}) {
      const auto o = g.find(own);
      if (o != std::string::npos) g.erase(o, g.find('\n', o) - o + 1);
    }
    return g;
  };
  CHECK(gpu_class(*sglang) == gpu_class(*vllm));
  // Its eager prompt steps: sglang PR #12160's 82.64 ms one-token DeepSeek-V3 forward over the
  // 2170 launches the model counts in it (tests/test_perf_model.cpp); vllm's is not modelled.
  CHECK(sglang->for_class(HwClass::gpu).prefill_launch_overhead_s ==
        Approx(82.64e-3 / 2170).epsilon(1e-3));
  CHECK(vllm->for_class(HwClass::gpu).prefill_launch_overhead_s == 0);
  CHECK(sglang->for_class(HwClass::gpu).step_overhead_s == 0);
  CHECK(vllm->for_class(HwClass::gpu).step_overhead_s > 0);
  CHECK(sglang->prompt_schedule == PromptSchedule::whole_prompt_steps);
  CHECK(sglang->overlap_scheduling);  // v0.4's zero-overhead batch scheduler, on by default
  CHECK_FALSE(vllm->overlap_scheduling);
  CHECK(sglang->memory_reserve_fraction == Approx(1 - 0.85));  // mem_fraction_static at TP4
  for (HwClass c : {HwClass::cpu, HwClass::npu, HwClass::fpga})
    CHECK_FALSE(sglang->for_class(c).supported);
}

namespace {

// gpt-fast's eager decode (pytorch.org/blog/accelerating-generative-ai-2/): 25.5 tok/s eager,
// 107.0 tok/s compiled with a static KV cache, Llama-2-7B on one A100. The difference is the CPU
// dispatch of the ops one eager token issues in gpt-fast's model.py: 80 per block x 32 blocks
// + 31 outside them.
constexpr double kOpsPerBlock = 80;
constexpr double kOpsPerStep = 31;
constexpr double kBlocks = 32;
const double kDispatchPerOp = (1 / 25.5 - 1 / 107.0) / (kBlocks * kOpsPerBlock + kOpsPerStep);

}  // namespace

TEST_CASE("eager PyTorch's dispatch cost is gpt-fast's eager minus compiled time per op",
          "[model]") {
  // By hand: (39.216 - 9.346) ms / 2591 ops = 11.53 us an op.
  CHECK(kDispatchPerOp == Approx(11.528e-6).epsilon(1e-3));
  const StackSpec* pt = test::project_catalog().catalog.find_stack("pytorch");
  REQUIRE(pt != nullptr);
  const StackEfficiency& e = pt->per_class[static_cast<size_t>(HwClass::gpu)];
  // The roofline prices 9 kernels a block and 3 a step for an unfused eager stack.
  CHECK(e.kernel_overhead_s == Approx(kDispatchPerOp * kOpsPerBlock / 9).epsilon(1e-3));
  CHECK(e.step_overhead_s ==
        Approx(kDispatchPerOp * (kOpsPerStep - 3 * kOpsPerBlock / 9)).epsilon(1e-3));
  CHECK_FALSE(e.fused_elementwise);
  // Eager mode streams the weights with the kernels a CUDA graph replays.
  const StackSpec* graph = test::project_catalog().catalog.find_stack("pytorch-cuda-graph");
  REQUIRE(graph != nullptr);
  const StackEfficiency& g = graph->per_class[static_cast<size_t>(HwClass::gpu)];
  CHECK(e.weight_bandwidth_fraction == g.weight_bandwidth_fraction);
  CHECK(e.quantised_issue_cycles_per_weight == g.quantised_issue_cycles_per_weight);

  // A 32-block Llama shape on the pytorch stack: the overheads a decode step adds up to are
  // 2591 ops x c = 29.87 ms, what the blog's two rates differ by.
  ModelSpec m = tiny_moe();
  m.moe = {};
  m.layers = 32;
  m.position = PositionKind::rotary;
  HardwareSpec h = fp8_gpu();
  Deployment d;
  d.precision = {DType::bf16, DType::bf16, DType::bf16};
  auto p = PerfModel::create(m, h, *pt, d);
  REQUIRE(p.ok());
  const StepBreakdown step = p.value().decode_breakdown(1, 100);
  double overhead = step.step_overhead_s;
  for (const auto& o : step.ops) overhead += o.overhead_s;
  CHECK(overhead == Approx(1 / 25.5 - 1 / 107.0).epsilon(1e-3));
  CHECK(overhead == Approx(29.87e-3).epsilon(1e-3));
}

// A weight-only GEMV converts each weight to the activations' format before its multiply-add,
// so it is bounded by W c / (U f) as well as by its bytes (docs/model.md, issue cycles): W
// weights, c = quantised_issue_cycles_per_weight, U compute units at clock f. Native formats
// (bf16 x bf16, int8 x int8) convert nothing and take the other figure, here 0.
TEST_CASE("weight-only int8 pays the per-weight issue cost, W8A8 and bf16 do not", "[model]") {
  StackSpec s = ideal_stack();
  s.datasheet_peaks = false;  // issue limits apply to fitted stacks only
  StackEfficiency& e = s.per_class[static_cast<size_t>(HwClass::gpu)];
  e.issue_cycles_per_weight = 0;
  e.quantised_issue_cycles_per_weight = 0.25;
  HardwareSpec h = fp8_gpu();
  h.compute_units = 100;
  h.clock_hz = 1e9;                                     // U f = 1e11 unit-cycles a second
  at(h.dense_flops_per_s, ComputeType::int8) = 200e12;  // a roof for the W8A8 deployment
  ModelSpec m = tiny_moe();
  m.moe = {};
  auto decode = [&](Precision p) {
    Deployment d;
    d.precision = p;
    auto r = PerfModel::create(m, h, s, d);
    REQUIRE(r.ok());
    return r.value().decode_breakdown(1, 16);
  };
  const StepBreakdown w8a16 = decode({DType::int8, DType::bf16, DType::bf16});
  const auto& down = op(w8a16, "ffn_down");
  // 2 layers of 4096 x 1024 int8 weights, one byte each: 8.39e6 x 0.25 / 1e11 = 21.0 us.
  REQUIRE(down.cost.weight_bytes == Approx(2 * 4096.0 * 1024));
  CHECK(down.issue_s == Approx(2 * 4096.0 * 1024 * 0.25 / 1e11));
  CHECK(converts_weights({DType::int8, DType::bf16, DType::bf16}));
  CHECK(converts_weights({DType::q4_0, DType::fp16, DType::fp16}));
  CHECK_FALSE(converts_weights({DType::int8, DType::int8, DType::bf16}));
  CHECK_FALSE(converts_weights({DType::fp8, DType::fp8, DType::bf16}));
  CHECK_FALSE(converts_weights({DType::bf16, DType::bf16, DType::bf16}));
  for (const Precision& p : {Precision{DType::int8, DType::int8, DType::bf16},
                             Precision{DType::bf16, DType::bf16, DType::bf16}}) {
    CHECK(op(decode(p), "ffn_down").issue_s == 0);
  }
}

TEST_CASE(
    "tensorrt-llm-pytorch's eager prompt step: TensorRT-LLM #5929's batch-1 TTFT over its "
    "launches",
    "[unit]") {
  // TensorRT-LLM #5929 (v0.21, trtllm-serve, batch 1, 1600-token prompts, TP 8): TTFT p50
  // 0.16463 s for DeepSeek-R1 FP8 on 8 x H200, 0.16104 s FP4 on 8 x B200. The stack fuses
  // elementwise work, so its eager DeepSeek-V3 step launches, per MoE layer, the MLA projections
  // 4 + 5, attention and its KV write 2, o_proj 1, two all-reduces, router 3, experts 5 and the
  // shared experts 3 = 25; per dense layer 16; per step 3: 58 x 25 + 3 x 16 + 3 = 1501. The
  // stack's figure is the mean TTFT, less its 0.5 ms step overhead, over them; both devices'
  // prompt work takes less than that, so the predicted batch-1 TTFT is the same on both and
  // within 2% of each measurement.
  // The PyTorch backend runs DeepSeek-R1 (the issue's trtllm-serve); the TensorRT-engine stack,
  // which MLPerf and NIM run, launches its steps from C++ and states no floor, its GPU figures
  // otherwise the same.
  const auto& cat = test::project_catalog().catalog;
  const StackSpec* trt = cat.find_stack("tensorrt-llm-pytorch");
  const StackSpec* engines = cat.find_stack("tensorrt-llm");
  const ModelSpec* ds = cat.find_model("deepseek-v3");
  REQUIRE(trt != nullptr);
  REQUIRE(engines != nullptr);
  REQUIRE(ds != nullptr);
  CHECK(engines->for_class(HwClass::gpu).prefill_launch_overhead_s == 0);
  CHECK(trt->vendors == engines->vendors);
  StackSpec same = with_identity_of(*trt, *engines);
  same.for_class(HwClass::gpu).prefill_launch_overhead_s = 0;
  CHECK(cli::stack_to_yaml(same) == cli::stack_to_yaml(*engines));
  const double c = trt->for_class(HwClass::gpu).prefill_launch_overhead_s;
  CHECK(c == Approx(((0.16463 + 0.16104) / 2 - 0.0005) / 1501).epsilon(1e-3));
  for (const auto& [hw, format, ttft_s] :
       {std::tuple{"h200", DType::fp8, 0.16463}, std::tuple{"b200", DType::nvfp4, 0.16104}}) {
    CAPTURE(hw);
    const HardwareSpec* h = cat.find_hardware(hw);
    REQUIRE(h != nullptr);
    Deployment d;
    d.tp = 8;
    d.precision.weights = d.precision.activations = format;
    d.precision.kv = DType::fp8;
    auto p = PerfModel::create(*ds, *h, *trt, d);
    REQUIRE(p.ok());
    const StepBreakdown b = p.value().prefill_breakdown(1, 1600);
    CHECK(b.host_launch_s == Approx(1501 * c));
    CHECK(b.time_s == Approx(1501 * c + 0.0005));
    CHECK(b.time_s == Approx(ttft_s).epsilon(0.02));
  }
}

TEST_CASE("sglang-rocm is sglang with InferenceX's MI325X decode over its 970 kernels a step",
          "[model]") {
  // data/stacks/sglang-rocm.yaml: SGLang's ROCm build (aiter kernels, RCCL, HIP graphs) keeps
  // every figure of sglang but the cost of a kernel, derived from one published reading: mean
  // TPOT 24.08 ms of DeepSeek-R1 FP8 on 8 x MI325X with four clients at 1k/1k (row IX-079). The
  // model's decode step of that deployment launches, per layer, attention norm 1, the MLA
  // projections 4, attention 1, o_proj 1, two all-reduces 2 and the FFN norm 1 = 10; per MoE
  // layer router 1, experts 3, shared experts 2 = 6; per dense FFN layer 3; per step embedding,
  // final norm and lm_head 3: 61 x 10 + 58 x 6 + 3 x 3 + 3 = 970. The figure is (measured - the
  // same row's prediction at 1 ns a kernel) / 970, so the stack reproduces the reading.
  const auto& cat = test::project_catalog().catalog;
  const StackSpec* rocm = cat.find_stack("SGLang ROCm");
  const StackSpec* nv = cat.find_stack("sglang");
  const ModelSpec* ds = cat.find_model("deepseek-v3");
  const HardwareSpec* mi325x = cat.find_hardware("mi325x");
  REQUIRE(rocm != nullptr);
  REQUIRE(nv != nullptr);
  REQUIRE(ds != nullptr);
  REQUIRE(mi325x != nullptr);
  // Everything else is sglang's: a change to sglang that leaves sglang-rocm behind fails here.
  StackSpec same = with_identity_of(*rocm, *nv);
  same.for_class(HwClass::gpu).kernel_overhead_s = nv->for_class(HwClass::gpu).kernel_overhead_s;
  CHECK(cli::stack_to_yaml(same) == cli::stack_to_yaml(*nv));
  CHECK(rocm->vendors == std::vector<std::string>{"amd"});
  CHECK(nv->vendors == std::vector<std::string>{"nvidia"});

  const double c = rocm->for_class(HwClass::gpu).kernel_overhead_s;
  const double c0 = nv->for_class(HwClass::gpu).kernel_overhead_s;
  StackSpec at_c0 = *rocm;  // the ROCm stack at sglang's kernel cost: what the reading corrects
  at_c0.for_class(HwClass::gpu).kernel_overhead_s = c0;
  Deployment d;
  d.tp = 8;
  d.precision.weights = d.precision.activations = d.precision.kv = DType::fp8;
  auto with = PerfModel::create(*ds, *mi325x, *rocm, d);
  auto without = PerfModel::create(*ds, *mi325x, at_c0, d);
  REQUIRE(with.ok());
  REQUIRE(without.ok());
  const double kernels = 61 * 10 + 58 * 6 + 3 * 3 + 3;
  CHECK(kernels == 970);
  const double step_with = with.value().decode_breakdown(4, 1383).time_s;
  const double step_without = without.value().decode_breakdown(4, 1383).time_s;
  CHECK(step_with - step_without == Approx(kernels * (c - c0)).epsilon(1e-6));

  spec::Diagnostics diags;
  const auto rows = cli::read_measurements(
      std::string(INFERCAP_SOURCE_DIR) + "/data/measurements/serving-inferencex.csv", diags);
  REQUIRE_FALSE(diags.has_errors());
  const auto mapped = cli::map_measurements(rows, cat);
  const cli::MappedRow* reading = nullptr;
  for (const auto& m : mapped)
    if (m.row.id == "IX-079") reading = &m;
  REQUIRE(reading != nullptr);
  REQUIRE(reading->bench);
  CHECK(reading->stack_name == rocm->name);
  CHECK(reading->row.value == Approx(24.08e-3).epsilon(1e-3));
  const auto at_floor = predict_case(*reading->bench, at_c0);
  const auto predicted = predict_case(*reading->bench, *rocm);
  REQUIRE(at_floor);
  REQUIRE(predicted);
  CHECK(c == Approx((reading->row.value - *at_floor) / kernels).epsilon(0.01));
  CHECK(*predicted == Approx(reading->row.value).epsilon(0.02));
}

TEST_CASE("a stack runs on the vendors it names; a mismatch is refused in words", "[unit]") {
  // TensorRT-LLM builds for CUDA only and SGLang's ROCm build is its own stack: the committed
  // stacks say so, and a prediction of one on another vendor's device is an error naming both,
  // not a number. Hardware that names no vendor (a user's own entry) is not turned away.
  const auto& cat = test::project_catalog().catalog;
  const ModelSpec* llama = cat.find_model("llama-3.1-8b");
  const HardwareSpec* mi300x = cat.find_hardware("mi300x");
  const HardwareSpec* h200 = cat.find_hardware("h200");
  REQUIRE(llama != nullptr);
  REQUIRE(mi300x != nullptr);
  REQUIRE(h200 != nullptr);
  for (const char* name : {"tensorrt-llm", "tensorrt-llm-0.9", "tensorrt-llm-pytorch", "sglang"}) {
    CAPTURE(name);
    const StackSpec* s = cat.find_stack(name);
    REQUIRE(s != nullptr);
    CHECK(s->vendors == std::vector<std::string>{"nvidia"});
    CHECK(stack_runs_on(*s, *h200));
    auto p = PerfModel::create(*llama, *mi300x, *s, Deployment{});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message == "stack '" + s->name + "' runs on nvidia hardware; 'mi300x' is amd");
  }
  const StackSpec* rocm = cat.find_stack("sglang-rocm");
  REQUIRE(rocm != nullptr);
  CHECK(stack_runs_on(*rocm, *mi300x));
  CHECK(stack_mismatch(*rocm, *h200) ==
        "stack 'sglang-rocm' runs on amd hardware; 'h200' is nvidia");
  HardwareSpec unnamed = *h200;
  unnamed.vendor.clear();
  CHECK(stack_runs_on(*rocm, unnamed));
  // Stacks that name no vendor run on every vendor their classes support; a class they do not
  // support is refused as before, vendor or not.
  const StackSpec* vllm = cat.find_stack("vllm");
  REQUIRE(vllm != nullptr);
  CHECK(vllm->vendors.empty());
  CHECK(stack_runs_on(*vllm, *mi300x));
  const HardwareSpec* cpu = cat.find_hardware("epyc-9654");
  REQUIRE(cpu != nullptr);
  CHECK(stack_mismatch(*rocm, *cpu) ==
        "stack 'sglang-rocm' does not run on cpu hardware ('epyc-9654')");
}
