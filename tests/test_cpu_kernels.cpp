// [model] tests of the CPU instruction-family physics (cpu_kernels.hpp) and the rates PerfModel
// derives from it for a stack that names its kernels. Hardware and stacks are built by hand;
// every expected number is the formula in the comment beside it.
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/cpu_kernels.hpp"
#include "infercap/perf.hpp"
#include "infercap/stack_fit.hpp"

using namespace infercap;

namespace {

// 16 cores at 4 GHz with two 256-bit FMA pipes: fp32 = 16 x 4e9 x 32 = 2.048 TFLOP/s.
HardwareSpec avx2_cpu() {
  HardwareSpec h;
  h.name = "avx2-cpu";
  h.hw_class = HwClass::cpu;
  at(h.dense_flops_per_s, ComputeType::fp32) = 2.048e12;
  h.memory_bytes = 64e9;
  h.memory_bandwidth_bytes_per_s = 100e9;
  h.cpu = CpuTopology{};
  h.cpu->cores = 16;
  h.cpu->base_clock_hz = 4e9;
  h.cpu->avx2 = true;
  return h;
}

HardwareSpec vnni_cpu() {
  HardwareSpec h = avx2_cpu();
  h.name = "vnni-cpu";
  h.cpu->avx512 = h.cpu->avx512_vnni = h.cpu->avx512_bf16 = true;
  at(h.dense_flops_per_s, ComputeType::bf16) = 4.096e12;
  return h;
}

// AMX: int8 2048 and bf16 1024 ops per cycle per core, as the catalog's AMX tables state them.
HardwareSpec amx_cpu() {
  HardwareSpec h = vnni_cpu();
  h.name = "amx-cpu";
  h.cpu->amx = true;
  at(h.dense_flops_per_s, ComputeType::int8) = 16 * 4e9 * 2048;
  at(h.dense_flops_per_s, ComputeType::bf16) = 16 * 4e9 * 1024;
  return h;
}

ModelSpec model_1b() {
  ModelSpec m;
  m.name = "m";
  m.layers = 4;
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 4;
  m.head_dim = 128;
  m.ffn_hidden = 8192;
  m.vocab = 32000;
  m.max_context = 4096;
  return m;
}

StackSpec isa_stack() {
  StackSpec s;
  s.name = "isa";
  StackEfficiency& e = s.for_class(HwClass::cpu);
  e.cpu_isa_kernels = true;
  e.gemm_compute_fraction = 0.5;
  e.quantised_gemm_compute_fraction = 0.25;
  e.amx_gemm_fraction = 0.1;
  e.fp16_gemm_compute_fraction = 0.6;
  e.dot_fraction = 0.8;
  e.quantised_dot_fraction = 0.4;
  e.amx_dot_fraction = 0.6;
  e.attention_compute_fraction = 0.5;
  return s;
}

Deployment dep(DType w) {
  Deployment d;
  d.precision = {w, DType::fp16, DType::fp16};
  return d;
}

// The rates PerfModel derives for one model, device, stack and deployment (the model must build).
PerfModel::Rates rates_of(const ModelSpec& m, const HardwareSpec& h, const StackSpec& s,
                          const Deployment& d) {
  auto p = PerfModel::create(m, h, s, d);
  INFO((p.ok() ? std::string() : p.error().message));
  REQUIRE(p.ok());
  return p->rates();
}

// The decode tests' question: model_1b in Q8_0 on one thread of avx2_cpu(), with no fixed cost
// per kernel, so a projection's time is its memory stream and its dot loop alone.
struct OneThreadDecode {
  ModelSpec m = model_1b();
  StackSpec s = isa_stack();
  Deployment d = dep(DType::q8_0);
  HardwareSpec h = avx2_cpu();
  OneThreadDecode() {
    s.for_class(HwClass::cpu).kernel_overhead_s = 0;
    d.cpu.threads_per_socket = 1;
  }
  // The ffn_up projection of one decode step at batch 1, context 0.
  OpTime ffn_up() const {
    auto p = PerfModel::create(m, h, s, d);
    REQUIRE(p.ok());
    for (const auto& o : p->decode_breakdown(1, 0).ops)
      if (o.cost.name == "ffn_up") return o;
    FAIL("no ffn_up in the decode step");
    return {};
  }
};

}  // namespace

TEST_CASE("kernel peaks follow the vector datapath: ratios to the fp32 FMA rate", "[model]") {
  const HardwareSpec a = avx2_cpu();
  // f = 2.048e12 / (16 x 4e9) = 32 FLOP/cycle.
  CHECK(cpu_fp32_flops_per_cycle(a) == Approx(32));
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::fp32_fma) == Approx(32));
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::int8_maddubs) == Approx(64));  // 2 f
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::int8_vnni) == 0);              // no VNNI
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::bf16_dot) == 0);               // no AVX512-BF16
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::amx_int8) == 0);
  const HardwareSpec v = vnni_cpu();
  CHECK(cpu_kernel_ops_per_cycle(v, CpuKernel::int8_vnni) == Approx(128));  // 4 f
  CHECK(cpu_kernel_ops_per_cycle(v, CpuKernel::bf16_dot) == Approx(64));    // 2 f
  const HardwareSpec x = amx_cpu();
  CHECK(cpu_kernel_ops_per_cycle(x, CpuKernel::amx_int8) == Approx(2048));
  CHECK(cpu_kernel_ops_per_cycle(x, CpuKernel::amx_bf16) == Approx(1024));
  // Two AVX-512 FMA units on an Intel core (f = 64): fp32 uses both zmm ports; VDPBF16PS and the
  // integer multiplies issue on port 0 alone (w = min(f, 32) = 32), and ggml's integer dot code
  // is ymm anyway: BF16 2 w = 64, VNNI 4 w = 128, VPMADDUBSW 2 x 32 = 64, the repacked Q4 zmm
  // kernels 4 w = 128 - not 128 / 256 / 128 / 256.
  HardwareSpec wide = x;
  wide.vendor = "intel";
  at(wide.dense_flops_per_s, ComputeType::fp32) = 16 * 4e9 * 64;
  CHECK(cpu_kernel_ops_per_cycle(wide, CpuKernel::fp32_fma) == Approx(64));
  CHECK(cpu_kernel_ops_per_cycle(wide, CpuKernel::bf16_dot) == Approx(64));
  CHECK(cpu_kernel_ops_per_cycle(wide, CpuKernel::int8_vnni) == Approx(128));
  CHECK(cpu_kernel_ops_per_cycle(wide, CpuKernel::int8_maddubs) == Approx(64));
  CHECK(cpu_kernel_ops_per_cycle(wide, CpuKernel::int8_repack) == Approx(128));
  // Zen 5 (AMD, f = 64): two full 512-bit pipes for every multiply, w = f = 64. The repacked
  // kernels are zmm code: 4 x 64 = 256; BF16 2 x 64 = 128; the ymm dot code stays 4 x 32 = 128.
  HardwareSpec zen5 = wide;
  zen5.vendor = "amd";
  zen5.cpu->amx = false;
  CHECK(cpu_kernel_ops_per_cycle(zen5, CpuKernel::int8_repack) == Approx(256));
  CHECK(cpu_kernel_ops_per_cycle(zen5, CpuKernel::bf16_dot) == Approx(128));
  CHECK(cpu_kernel_ops_per_cycle(zen5, CpuKernel::int8_vnni) == Approx(128));
  // Zen 4 (AMD, f = 32: zmm in two 256-bit halves): w = 32, the repacked kernels 4 x 32.
  HardwareSpec zen4 = zen5;
  at(zen4.dense_flops_per_s, ComputeType::fp32) = 16 * 4e9 * 32;
  CHECK(cpu_kernel_ops_per_cycle(zen4, CpuKernel::int8_repack) == Approx(128));
  CHECK(cpu_kernel_ops_per_cycle(zen4, CpuKernel::bf16_dot) == Approx(64));
  // AVX2 only: the repacked kernels are VPMADDUBSW ymm, 2 x 32.
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::int8_repack) == Approx(64));
  HardwareSpec no_clock = a;
  no_clock.cpu->base_clock_hz = 0;
  CHECK(cpu_fp32_flops_per_cycle(no_clock) == 0);
}

TEST_CASE("batch-1 dot loops: AVX2 runs at the VNNI loop's rate, tiled GEMMs at half", "[model]") {
  // A decode dot loop is bound by its ~12 instructions per 32-weight block and the accumulator's
  // FMA latency, not by the one multiply VNNI saves: both integer loops take 4 min(f, 32).
  const HardwareSpec a = avx2_cpu();  // f = 32
  const HardwareSpec v = vnni_cpu();  // f = 32
  CHECK(cpu_dot_loop_ops_per_cycle(a, CpuKernel::int8_maddubs) == Approx(128));
  CHECK(cpu_dot_loop_ops_per_cycle(v, CpuKernel::int8_vnni) == Approx(128));
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::int8_maddubs) == Approx(64));  // GEMM: 2 f
  // The repacked GEMV: 4 w with or without VNNI (w = 32 here).
  CHECK(cpu_dot_loop_ops_per_cycle(a, CpuKernel::int8_repack) == Approx(128));
  CHECK(cpu_kernel_ops_per_cycle(a, CpuKernel::int8_repack) == Approx(64));
  // Zen 5 (AMD, f = 64, full zmm pipes): w = 64, the repacked GEMV 4 x 64; the ymm dot loop
  // still 4 x min(64, 32).
  HardwareSpec zen5 = v;
  zen5.vendor = "amd";
  at(zen5.dense_flops_per_s, ComputeType::fp32) = 16 * 4e9 * 64;
  CHECK(cpu_dot_loop_ops_per_cycle(zen5, CpuKernel::int8_repack) == Approx(256));
  CHECK(cpu_dot_loop_ops_per_cycle(zen5, CpuKernel::int8_vnni) == Approx(128));
  // Floating-point loops keep their family's peak: f16 widened to fp32 FMA, f.
  CHECK(cpu_dot_loop_ops_per_cycle(zen5, CpuKernel::fp16_fma) == Approx(64));
  CHECK(cpu_dot_loop_ops_per_cycle(a, CpuKernel::bf16_dot) == 0);  // no AVX512-BF16
  // Without AVX2 (SSE only) nothing changes: the family peaks, 0 for the integer ones.
  HardwareSpec sse = a;
  sse.cpu->avx2 = false;
  CHECK(cpu_dot_loop_ops_per_cycle(sse, CpuKernel::int8_maddubs) == 0);
}

TEST_CASE("llama.cpp kernel choices per format and ISA", "[model]") {
  const CpuTopology avx2 = *avx2_cpu().cpu, vnni = *vnni_cpu().cpu, amx = *amx_cpu().cpu;
  // Block formats: activations quantised to Q8, integer dot products; Q4_0 / Q4_K repacked on
  // every AVX2 part (CPU_REPACK), Q8_0 on the ymm dot code. Where AMX runs, its buffer takes
  // Q4_0, Q4_K and Q8_0: tiles in prefill, its packed VNNI GEMV (a repacked kernel) in decode.
  CHECK(llamacpp_cpu_kernels(DType::q4_0, avx2).prefill == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::q4_0, avx2).decode == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::q4_k_m, vnni).decode == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::int4, vnni).prefill == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::q8_0, vnni).prefill == CpuKernel::int8_vnni);
  CHECK(llamacpp_cpu_kernels(DType::q8_0, avx2).decode == CpuKernel::int8_maddubs);
  CHECK(llamacpp_cpu_kernels(DType::q4_0, amx).prefill == CpuKernel::amx_int8);
  CHECK(llamacpp_cpu_kernels(DType::q4_k_m, amx).prefill == CpuKernel::amx_int8);
  CHECK(llamacpp_cpu_kernels(DType::q4_k_m, amx).decode == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::q8_0, amx).prefill == CpuKernel::amx_int8);
  CHECK(llamacpp_cpu_kernels(DType::q8_0, amx).decode == CpuKernel::int8_repack);
  CHECK(llamacpp_cpu_kernels(DType::q8_0, vnni).decode == CpuKernel::int8_vnni);
  // F16 widens to fp32; BF16 uses VDPBF16PS only where AVX512-BF16 exists.
  CHECK(llamacpp_cpu_kernels(DType::fp16, amx).prefill == CpuKernel::fp16_fma);
  CHECK(llamacpp_cpu_kernels(DType::bf16, vnni).prefill == CpuKernel::bf16_dot);
  CHECK(llamacpp_cpu_kernels(DType::bf16, avx2).prefill == CpuKernel::fp32_fma);
  CHECK(llamacpp_cpu_kernels(DType::fp32, amx).decode == CpuKernel::fp32_fma);
  // The fractions that scale each choice: AMX tiles and the AMX buffer's GEMV have their own;
  // int8 runs as Q8_0, so it takes the quantised ones; native formats the plain ones.
  using E = StackEfficiency;
  const auto q8_amx = llamacpp_cpu_fractions(DType::q8_0, llamacpp_cpu_kernels(DType::q8_0, amx));
  CHECK(q8_amx.prefill == &E::amx_gemm_fraction);
  CHECK(q8_amx.decode == &E::amx_dot_fraction);
  const auto i8 = llamacpp_cpu_fractions(DType::int8, llamacpp_cpu_kernels(DType::int8, vnni));
  CHECK(i8.prefill == &E::quantised_gemm_compute_fraction);
  CHECK(i8.decode == &E::quantised_dot_fraction);
  const auto f16 = llamacpp_cpu_fractions(DType::fp16, llamacpp_cpu_kernels(DType::fp16, amx));
  CHECK(f16.prefill == &E::fp16_gemm_compute_fraction);
  CHECK(f16.decode == &E::dot_fraction);
  const auto bf16 = llamacpp_cpu_fractions(DType::bf16, llamacpp_cpu_kernels(DType::bf16, avx2));
  CHECK(bf16.prefill == &E::gemm_compute_fraction);
}

TEST_CASE("a Q4_0 file's output tensor: Q6_K, or Q8_0 where hidden is not a multiple of 256",
          "[model]") {
  const CpuTopology avx2 = *avx2_cpu().cpu, vnni = *vnni_cpu().cpu;
  // Q6_K: (128 + 64 + 16 + 2) B per 256 weights = 0.8203 B; AVX2 dot code with no VNNI path.
  const CpuOutputTensor q6 = llamacpp_output_tensor(DType::q4_0, 4096, vnni);
  CHECK(q6.bytes_per_weight == Approx(210.0 / 256));
  CHECK(q6.decode == CpuKernel::int8_maddubs);
  // Qwen2.5-0.5B: 896 = 3.5 x 256, demoted to Q8_0 (34 B per 32), VNNI where present.
  const CpuOutputTensor q8 = llamacpp_output_tensor(DType::q4_0, 896, vnni);
  CHECK(q8.bytes_per_weight == Approx(34.0 / 32));
  CHECK(q8.decode == CpuKernel::int8_vnni);
  CHECK(llamacpp_output_tensor(DType::int4, 896, avx2).decode == CpuKernel::int8_maddubs);
  CHECK(q8.fraction == &StackEfficiency::quantised_dot_fraction);
  // Where AMX runs, the AMX buffer holds the output tensor too: a Q8_0 output in its 38-byte
  // blocks (32 quants, fp16 scale, int32 compensation) on its GEMV at amx_dot_fraction; a Q6_K
  // one keeps its 210 B per 256 and the per-row dot rate.
  const CpuTopology amx = *amx_cpu().cpu;
  const CpuOutputTensor q8_amx = llamacpp_output_tensor(DType::q4_0, 896, amx);
  CHECK(q8_amx.bytes_per_weight == Approx(38.0 / 32));
  CHECK(q8_amx.decode == CpuKernel::int8_repack);
  CHECK(q8_amx.fraction == &StackEfficiency::amx_dot_fraction);
  const CpuOutputTensor q6_amx = llamacpp_output_tensor(DType::q4_0, 2048, amx);
  CHECK(q6_amx.bytes_per_weight == Approx(210.0 / 256));
  CHECK(q6_amx.fraction == &StackEfficiency::quantised_dot_fraction);
  // Every other format keeps one format throughout (Q4_K_M's 4.85 bits already average it in).
  CHECK(llamacpp_output_tensor(DType::q8_0, 4096, vnni).bytes_per_weight == 0);
  CHECK(llamacpp_output_tensor(DType::q4_k_m, 4096, vnni).bytes_per_weight == 0);
  CHECK(llamacpp_output_tensor(DType::fp16, 4096, vnni).bytes_per_weight == 0);
}

TEST_CASE("the bytes llama.cpp streams per weight: the AMX buffer widens Q8_0 to 38 per 32",
          "[model]") {
  const CpuTopology amx = *amx_cpu().cpu, vnni = *vnni_cpu().cpu;
  auto streamed = [](DType w, const CpuTopology& c) {
    return llamacpp_streamed_bytes_per_weight(w, llamacpp_cpu_kernels(w, c));
  };
  // amx/mmq.cpp get_row_size: a Q8_0 block (32 B quants + 2 B scale) gains a 4 B int32
  // compensation term: 38 / 32 = 1.1875 B, against the file's 34 / 32 = 1.0625.
  CHECK(streamed(DType::q8_0, amx) == Approx(38.0 / 32));
  CHECK(streamed(DType::int8, amx) == Approx(38.0 / 32));
  CHECK(streamed(DType::q8_0, vnni) == Approx(34.0 / 32));
  // Q4_0 packs to its own size (18 B per 32); formats the buffer does not hold keep theirs.
  CHECK(streamed(DType::q4_0, amx) == Approx(18.0 / 32));
  CHECK(streamed(DType::fp16, amx) == Approx(2.0));
  CHECK(streamed(DType::bf16, amx) == Approx(2.0));
}

TEST_CASE("a Q8_0 decode step on an AMX engine streams the AMX buffer's 38-byte blocks",
          "[model]") {
  // model_1b in Q8_0 on one thread of amx_cpu(), no fixed cost per kernel: each projection's
  // bytes are its weights x 38/32, and its dot-loop time counts weights, not bytes (the packed
  // GEMV at 4e9 x 128 x 0.6 / 2 = 153.6e9 weights/s). Without AMX the same file streams 34/32.
  ModelSpec m = model_1b();
  StackSpec s = isa_stack();
  s.for_class(HwClass::cpu).kernel_overhead_s = 0;
  Deployment d = dep(DType::q8_0);
  d.cpu.threads_per_socket = 1;
  const double ffn_up_weights = 2.0 * 2048 * 8192 * m.layers;
  auto ffn_up = [&](const Deployment& dd) {
    auto p = PerfModel::create(m, amx_cpu(), s, dd);
    REQUIRE(p.ok());
    for (const auto& o : p->decode_breakdown(1, 0).ops)
      if (o.cost.name == "ffn_up") return o;
    FAIL("no ffn_up in the decode step");
    return OpTime{};
  };
  const OpTime amx = ffn_up(d);
  CHECK(amx.cost.weight_bytes == Approx(ffn_up_weights * 38 / 32));
  CHECK(amx.issue_s == Approx(ffn_up_weights / (4e9 * 128 * 0.6 / 2)));
  Deployment no_amx = d;
  no_amx.cpu.amx = false;
  CHECK(ffn_up(no_amx).cost.weight_bytes == Approx(ffn_up_weights * 34 / 32));
  // The memory report holds the packed copy: total_params x 38/32.
  auto p = PerfModel::create(m, amx_cpu(), s, d);
  REQUIRE(p.ok());
  CHECK(p->memory(1, 0).weights_bytes == Approx(total_params(m) * 38 / 32));
}

TEST_CASE("a Q4_0 decode step streams its Q6_K lm_head on the VPMADDUBSW dot loop", "[model]") {
  // model_1b (hidden 2048, vocab 32000) in Q4_0 on one thread of vnni_cpu(), bandwidth that never
  // binds: the lm_head is Q6_K, 2048 x 32000 x 210/256 B, and its dot loop (int8_maddubs, a
  // batch-1 loop: 4 min(f, 32) = 128, the VNNI loop's rate) runs at 4e9 x 128 x 0.4 / 2 =
  // 102.4e9 weights/s, as the repacked kernel's (4 w = 4 x 32 on f = 32) does.
  ModelSpec m = model_1b();
  StackSpec s = isa_stack();
  s.for_class(HwClass::cpu).kernel_overhead_s = 0;
  HardwareSpec h = vnni_cpu();
  h.cpu->per_core_bandwidth_bytes_per_s = 1e12;
  h.memory_bandwidth_bytes_per_s = 1e13;
  Deployment d = dep(DType::q4_0);
  d.cpu.threads_per_socket = 1;
  auto p = PerfModel::create(m, h, s, d);
  REQUIRE(p.ok());
  const double lm_weights = 2048.0 * 32000;
  for (const auto& o : p->decode_breakdown(1, 0).ops) {
    if (o.cost.name == "lm_head") {
      CHECK(o.cost.weight_bytes == Approx(lm_weights * 210 / 256));
      CHECK(o.issue_s == Approx(lm_weights / 102.4e9));
    }
    if (o.cost.name == "ffn_up") {
      CHECK(o.cost.weight_bytes == Approx(2.0 * 2048 * 8192 * m.layers * 18 / 32));
      CHECK(o.issue_s == Approx(2.0 * 2048 * 8192 * m.layers / 102.4e9));
    }
  }
  // The memory report counts the lm_head in Q6_K too: total_params x 18/32 + its extra bytes.
  const double q4 = total_params(m) * 18 / 32;
  CHECK(p->memory(1, 0).weights_bytes == Approx(q4 + lm_weights * (210.0 / 256 - 18.0 / 32)));
}

TEST_CASE("an ISA stack's rates are fractions of the kernel family's peak", "[model]") {
  const ModelSpec m = model_1b();
  const StackSpec s = isa_stack();
  SECTION("Q4_0 on AVX2, 8 of 16 threads") {
    Deployment d = dep(DType::q4_0);
    d.cpu.threads_per_socket = 8;
    const auto r = rates_of(m, avx2_cpu(), s, d);
    // prefill (tiled, multiplier-bound): 8 x 4e9 x 64 (2 w) x 0.25 = 512 GOP/s; decode dot loop
    // (the repacked GEMV, cpu_dot_loop_ops_per_cycle): 8 x 4e9 x 128 (4 w) x 0.4
    // (quantised_dot_fraction) / 2 weights/s.
    CHECK(r.gemm_flops == Approx(8 * 4e9 * 64 * 0.25));
    CHECK(r.weights_per_s == Approx(8 * 4e9 * 128 * 0.4 / 2));
    // attention on fp16 KV: 8 x 4e9 x 32 x 0.5.
    CHECK(r.attn_flops == Approx(8 * 4e9 * 32 * 0.5));
  }
  // Q8_0 decode: the AMX buffer's packed VNNI GEMV (4 w = 128 at amx_dot_fraction 0.6)
  // where the engine has AMX, else the plain VNNI dot loop (4 min(f, 32) = 128 at
  // quantised_dot_fraction 0.4).
  const double vnni_q8_weights_per_s = 16 * 4e9 * 128 * 0.4 / 2;
  SECTION("Q8_0 on AMX: prefill on tiles at amx_gemm_fraction, decode on the packed GEMV") {
    const auto r = rates_of(m, amx_cpu(), s, dep(DType::q8_0));
    CHECK(r.gemm_flops == Approx(16 * 4e9 * 2048 * 0.1));
    CHECK(r.weights_per_s == Approx(16 * 4e9 * 128 * 0.6 / 2));
  }
  SECTION("an engine built without AMX (--no-amx): Q8_0 prefill on the VNNI dot loop") {
    Deployment d = dep(DType::q8_0);
    d.cpu.amx = false;
    const auto r = rates_of(m, amx_cpu(), s, d);
    // 16 x 4e9 x 128 (4 f) x 0.25 (quantised_gemm_compute_fraction), not the tiles' 2048 x 0.1.
    CHECK(r.gemm_flops == Approx(16 * 4e9 * 128 * 0.25));
    CHECK(r.weights_per_s == Approx(vnni_q8_weights_per_s));
  }
  SECTION("Q4_0 decode: the AMX buffer's GEMV at amx_dot_fraction, CPU_REPACK's without AMX") {
    // Both are int8_repack, 4 w = 128 on this part: 16 x 4e9 x 128 x 0.6 / 2 in the AMX buffer,
    // x 0.4 (quantised_dot_fraction) in CPU_REPACK.
    CHECK(rates_of(m, amx_cpu(), s, dep(DType::q4_0)).weights_per_s ==
          Approx(16 * 4e9 * 128 * 0.6 / 2));
    Deployment d = dep(DType::q4_0);
    d.cpu.amx = false;
    CHECK(rates_of(m, amx_cpu(), s, d).weights_per_s == Approx(16 * 4e9 * 128 * 0.4 / 2));
  }
  SECTION("F16: its tile at fp16_gemm_compute_fraction, decode at dot_fraction") {
    const auto r = rates_of(m, vnni_cpu(), s, dep(DType::fp16));
    CHECK(r.gemm_flops == Approx(16 * 4e9 * 32 * 0.6));
    CHECK(r.weights_per_s == Approx(16 * 4e9 * 32 * 0.8 / 2));
    // BF16 on the same part: VDPBF16PS, 2 f = 64 at gemm_compute_fraction.
    CHECK(rates_of(m, vnni_cpu(), s, dep(DType::bf16)).gemm_flops == Approx(16 * 4e9 * 64 * 0.5));
  }
  SECTION("F16 on Intel zmm code: the conversions take FMA slots (ports 0 and 5 only)") {
    // 64 FLOP/cycle (two 512-bit FMA units) on 16 cores at 4 GHz.
    HardwareSpec h = amx_cpu();
    h.vendor = "intel";
    at(h.dense_flops_per_s, ComputeType::fp32) = 16 * 4e9 * 64;
    // An AMX build: the AMX buffer's 4 x 6 tile converts its 6 weight vectors a k step beside
    // 24 FMAs: 24 / 30 of the slots multiply.
    CHECK(llamacpp_prefill_fma_share(h, DType::fp16, true) == Approx(24.0 / 30));
    CHECK(rates_of(m, h, s, dep(DType::fp16)).gemm_flops == Approx(16 * 4e9 * 64 * 0.6 * 24 / 30));
    // Without AMX, tinyBLAS's 4 x 6 tile converts both operands, 4 + 6 vectors: 24 / 34.
    Deployment d = dep(DType::fp16);
    d.cpu.amx = false;
    CHECK(rates_of(m, h, s, d).gemm_flops == Approx(16 * 4e9 * 64 * 0.6 * 24 / 34));
    // Only F16 converts in its tile; BF16 (VDPBF16PS) and fp32 do not.
    CHECK(llamacpp_prefill_fma_share(h, DType::bf16, false) == 1);
    CHECK(llamacpp_prefill_fma_share(h, DType::fp32, false) == 1);
    // AMD (the Zen guests' F16 tiles reach 56-62% of the FMA peak) and AVX2-only parts: 1.
    h.vendor = "amd";
    CHECK(llamacpp_prefill_fma_share(h, DType::fp16, false) == 1);
    HardwareSpec a = avx2_cpu();
    a.vendor = "intel";
    CHECK(llamacpp_prefill_fma_share(a, DType::fp16, false) == 1);
  }
  SECTION("two sockets whose engine spans them: 1 + c of one socket's compute, not 2") {
    // tp = 2 on a CPU is one server's two sockets. With cross_socket_compute_fraction c = 0.2
    // each socket's half of the work runs at (1 + c) / 2 = 0.6 of its rate: the pair is 1.2 x
    // one socket. F16 on vnni_cpu: 16 x 4e9 x 32 x 0.6 per socket, attention 16 x 4e9 x 32 x 0.5.
    HardwareSpec h = vnni_cpu();
    h.link_bandwidth_bytes_per_s = 100e9;
    Deployment d = dep(DType::fp16);
    d.tp = 2;
    StackSpec c = s;
    c.for_class(HwClass::cpu).cross_socket_compute_fraction = 0.2;
    const auto r = rates_of(m, h, c, d);
    CHECK(r.gemm_flops == Approx(16 * 4e9 * 32 * 0.6 * 0.6));
    CHECK(r.attn_flops == Approx(16 * 4e9 * 32 * 0.5 * 0.6));
    // The default (1): pinned tensor-parallel shards, each socket at its full rate.
    const auto ideal = rates_of(m, h, s, d);
    CHECK(ideal.gemm_flops == Approx(16 * 4e9 * 32 * 0.6));
    // One socket is untouched by the fraction.
    d.tp = 1;
    CHECK(rates_of(m, h, c, d).gemm_flops == Approx(16 * 4e9 * 32 * 0.6));
  }
  SECTION("a CPU entry without a base clock cannot run the kernel model: an error value") {
    HardwareSpec h = avx2_cpu();
    h.cpu->base_clock_hz = 0;
    auto p = PerfModel::create(m, h, s, dep(DType::q4_0));
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::Contains("int8_repack"));
  }
  SECTION("without cpu_isa_kernels the table roof is used (old behaviour)") {
    StackSpec t = s;
    t.for_class(HwClass::cpu).cpu_isa_kernels = false;
    t.for_class(HwClass::cpu).quantised_gemm_compute_fraction = 0.5;
    const auto r = rates_of(m, avx2_cpu(), t, dep(DType::q4_0));
    // No int8 roof on this CPU: Q4_0 widens to fp32; 2.048e12 x 0.70 (class default) x 0.5.
    CHECK(r.gemm_flops == Approx(2.048e12 * 0.70 * 0.5));
    CHECK(r.weights_per_s == 0);
  }
}

TEST_CASE("decode is the slower of the bandwidth and the dot loop", "[model]") {
  OneThreadDecode q;
  q.h.cpu->per_core_bandwidth_bytes_per_s = 1e12;  // bandwidth never binds
  q.h.memory_bandwidth_bytes_per_s = 1e13;
  // One thread of the AVX2 Q8_0 dot loop: 4e9 x 128 (4 min(f, 32)) x 0.4 / 2 = 102.4e9
  // weights/s bounds every projection.
  const OpTime o = q.ffn_up();
  CHECK(o.bound == Bound::issue);
  CHECK(o.issue_s == Approx(2.0 * 2048 * 8192 * q.m.layers / 102.4e9));
}

TEST_CASE("decode dot loop: a thread's loads its loop does not hide add to the loop", "[model]") {
  // t = max(memory, dot + (1 - overlap) x memory x u), u = bw(T) / (T x bw per thread).
  OneThreadDecode q;
  q.h.memory_bandwidth_bytes_per_s = 1e12;
  q.h.cpu->per_core_bandwidth_bytes_per_s = 10e9;  // one thread: 1e12 (1 - e^-0.01) = 9.95 GB/s
  auto time_of = [&](double overlap) {
    q.s.for_class(HwClass::cpu).dot_memory_overlap = overlap;
    const OpTime o = q.ffn_up();
    return std::pair{o.time_s, std::pair{o.memory_s, o.issue_s}};
  };
  const auto [full, parts] = time_of(1.0);
  const auto [mem, dot] = parts;
  REQUIRE(mem > 0);
  REQUIRE(dot > 0);
  CHECK(full == Approx(std::max(mem, dot)));
  // One thread on a bus it cannot saturate: x = 10e9 / 1e12, u = (1 - e^-x) / x = 0.995.
  const double u = (1 - std::exp(-0.01)) / 0.01;
  CHECK(time_of(0.25).first == Approx(std::max(mem, dot + 0.75 * mem * u)));
  // 16 threads on a 20 GB/s bus (saturated: x = 16 x 10 / 20 = 8, u = 0.125): the stream binds.
  q.h.memory_bandwidth_bytes_per_s = 20e9;
  q.d.cpu.threads_per_socket = 16;
  const auto [sat, sat_parts] = time_of(0.25);
  const double u16 = (1 - std::exp(-8.0)) / 8.0;
  CHECK(sat == Approx(std::max(sat_parts.first, sat_parts.second + 0.75 * sat_parts.first * u16)));
  CHECK(sat == Approx(sat_parts.first));
  // ffn_up is gate and up (SwiGLU), Q8_0 34 bytes per 32: 2 x 2048 x 8192 x 4 x 34/32 / bw1.
  const double bw1 = 1e12 * (1 - std::exp(-10e9 / 1e12));
  // (plus the step's 2048 + 2 x 8192 fp32 activations, 0.2% of it)
  CHECK(mem == Approx(2.0 * 2048 * 8192 * q.m.layers * 34 / 32 / bw1).epsilon(5e-3));
}

TEST_CASE("a calibrated GEMV's share of the read stream also applies to the cache stream",
          "[model]") {
  // model_1b in bf16 on two threads of avx2_cpu() with a profile: DRAM bw(2) = 20 GB/s x
  // (1 - e^-4); the bf16 GEMV streamed at 0.75 of it; a cache plateau of 60 GB/s that holds the
  // weights. A stack with fractions 1 and no overheads.
  const ModelSpec m = model_1b();
  const HardwareSpec h = avx2_cpu();
  const StackSpec s;
  Deployment d = dep(DType::bf16);
  d.cpu.threads_per_socket = 2;
  CalibrationProfile p;
  p.threads = 2;
  p.bandwidth = {20e9, 0.5, 0, 0};
  const double stream = 20e9 * (1 - std::exp(-4.0));
  at(p.gemv_bandwidth_bytes_per_s, ComputeType::bf16) = 0.75 * stream;
  auto dram = PerfModel::create(m, h, s, d, &p);
  REQUIRE(dram.ok());
  CHECK(dram->rates().weight_bw == Approx(0.75 * stream));
  // The weights fit the cache: the kernel reaches 0.75 of the cache stream, 45 GB/s, not 60.
  p.cache_bytes = 1e12;
  p.cache_bandwidth_bytes_per_s = 60e9;
  auto cached = PerfModel::create(m, h, s, d, &p);
  REQUIRE(cached.ok());
  CHECK(cached->rates().weight_bw == Approx(0.75 * 60e9));
  // F16 weights with no fp16 GEMV in the profile (the CPU backend measures bf16) take bf16's.
  d.precision.weights = DType::fp16;
  auto f16 = PerfModel::create(m, h, s, d, &p);
  REQUIRE(f16.ok());
  CHECK(f16->rates().weight_bw == Approx(0.75 * 60e9));
  // An fp16 GEMV of its own wins: 0.5 of the stream.
  at(p.gemv_bandwidth_bytes_per_s, ComputeType::fp16) = 0.5 * stream;
  auto own = PerfModel::create(m, h, s, d, &p);
  REQUIRE(own.ok());
  CHECK(own->rates().weight_bw == Approx(0.5 * 60e9));
}

TEST_CASE("an ISA stack's decode streams at the read stream, not at our GEMV kernel's rate",
          "[model]") {
  // Our calibration GEMV is our kernel's issue rate as much as the memory's: int4 at 0.4 of the
  // read stream on an AVX2 part without VNNI. The stack's dot loop has its own issue term, so
  // on the per-ISA path the weights stream at bw(T) and the GEMV ratio is not applied.
  const ModelSpec m = model_1b();
  const HardwareSpec h = avx2_cpu();
  Deployment d = dep(DType::q4_0);
  d.cpu.threads_per_socket = 2;
  CalibrationProfile p;
  p.threads = 2;
  p.bandwidth = {20e9, 0.5, 0, 0};
  const double stream = 20e9 * (1 - std::exp(-4.0));
  at(p.gemv_bandwidth_bytes_per_s, ComputeType::int4) = 0.4 * stream;
  StackSpec isa = isa_stack();
  isa.for_class(HwClass::cpu).weight_bandwidth_fraction = 1;
  auto with_isa = PerfModel::create(m, h, isa, d, &p);
  REQUIRE(with_isa.ok());
  CHECK(with_isa->rates().weight_bw == Approx(stream));
  // The same profile on a stack without named kernels: the ratio is its only issue limit.
  StackSpec plain;
  auto without = PerfModel::create(m, h, plain, d, &p);
  REQUIRE(without.ok());
  CHECK(without->rates().weight_bw == Approx(0.4 * stream));
}

TEST_CASE("a benchmark case carries its hardware's profile into every prediction of it",
          "[model]") {
  // The fit and its leave-one-out call predict_case without a profile; a case that names one
  // (validate --calibration) is predicted with it there too, as in the per-row table. Decode of
  // model_1b in bf16 on one thread of avx2_cpu(): with a profile whose stream is 5 GB/s the
  // weights but the embedding take 2 B each / 5e9 s a token (a stack with fractions 1, no
  // overheads).
  BenchCase c;
  c.id = "t";
  c.model = model_1b();
  c.hardware = avx2_cpu();
  c.deployment = dep(DType::bf16);
  c.deployment.cpu.threads_per_socket = 1;
  c.metric = BenchMetric::generation_tokens_per_s;
  c.output_tokens = 16;
  c.measured = 1;
  const StackSpec s;
  CalibrationProfile p;
  p.threads = 1;
  p.bandwidth = {5e9 / (1 - std::exp(-1.0)), 1.0, 0, 0};  // bw(1) = 5 GB/s
  auto bare = predict_case(c, s);
  auto given = predict_case(c, s, &p);
  REQUIRE(bare.ok());
  REQUIRE(given.ok());
  // Without it: the entry's curve, 100 GB/s x 0.80 x (1 - e^(-20/80)) = 17.7 GB/s at one thread.
  CHECK(*given < 0.5 * *bare);
  // A token streams every weight but the embedding table (one row of it is read).
  const double streamed = total_params(c.model) - 32000.0 * 2048;
  CHECK(*given == Approx(5e9 / (2.0 * streamed)).epsilon(0.02));
  c.profile = &p;
  auto carried = predict_case(c, s);
  REQUIRE(carried.ok());
  CHECK(*carried == Approx(*given));
  // A profile passed explicitly still wins over the case's own.
  CalibrationProfile q = p;
  q.bandwidth = {10e9 / (1 - std::exp(-1.0)), 1.0, 0, 0};
  auto other = predict_case(c, s, &q);
  REQUIRE(other.ok());
  CHECK(*other == Approx(2 * *given).epsilon(0.02));
}
