#include "infercap/cpu_kernels.hpp"

#include <algorithm>
#include <array>

namespace infercap {

std::string_view cpu_kernel_name(CpuKernel k) {
  static constexpr std::array<std::string_view, kCpuKernelCount> kNames{
      "fp32_fma",  "fp16_fma", "bf16_dot", "int8_maddubs",
      "int8_vnni", "amx_int8", "amx_bf16", "int8_repack"};
  return kNames[static_cast<int>(k)];
}

bool is_amx(CpuKernel k) {
  return k == CpuKernel::amx_int8 || k == CpuKernel::amx_bf16;
}

namespace {

double core_hz(const HardwareSpec& hw) {
  if (!hw.cpu || hw.cpu->cores <= 0) return 0;
  const double clock = hw.cpu->base_clock_hz > 0 ? hw.cpu->base_clock_hz : hw.clock_hz;
  return hw.cpu->cores * clock;
}

}  // namespace

double cpu_fp32_flops_per_cycle(const HardwareSpec& hw) {
  const double hz = core_hz(hw);
  const double fp32 = at(hw.dense_flops_per_s, ComputeType::fp32);
  return hz > 0 && fp32 > 0 ? fp32 / hz : 0;
}

namespace {

/// The vector widths a core's kernels get, in fp32-FMA-equivalent FLOP per cycle.
struct VectorWidths {
  double f = 0;     ///< fp32 FMA datapath
  double f256 = 0;  ///< 256-bit integer code
  double fw = 0;    ///< zmm multiplies other than fp32 FMA
};

VectorWidths vector_widths(const HardwareSpec& hw) {
  const CpuTopology& c = *hw.cpu;
  const double f = cpu_fp32_flops_per_cycle(hw);
  // ggml's integer dot products are 256-bit code on every x86 part (quants.c vec_dot_q8_0_q8_0,
  // sgemm.cpp tinyBLAS_Q0_AVX: __m256i with VPDPBUSD ymm or VPMADDUBSW): two 256-bit pipes
  // at most, 32 fp32-FMA-equivalent FLOP/cycle, even where AVX-512 doubles f.
  const double f256 = std::min(f, 32.0);
  // zmm multiplies other than fp32 FMA (VPDPBUSD, VPMADDWD, VDPBF16PS) double the 256-bit rate
  // in llama.cpp's kernels only on Zen 5 (the AMD part whose f is 64). Zen 4 splits zmm into two
  // 256-bit halves (f = 32). On the AMX Xeon guest a loop of independent zmm VPDPBUSD, VPMADDWD
  // or VPMADDUBSW alone issues two a cycle (ports 0 and 5), but the kernels' nibble unpacks,
  // shuffles and broadcasts take port 5 too, and fw = f there made the leave-one-device-out
  // errors worse (docs/model.md), so Intel keeps the two-ymm-pipe rate.
  const bool zmm_full = c.avx512 && f > 48 && hw.vendor == "amd";  // f = 64, to rounding
  return {f, f256, zmm_full ? f : f256};
}

}  // namespace

double cpu_kernel_ops_per_cycle(const HardwareSpec& hw, CpuKernel k) {
  if (!hw.cpu) return 0;
  const CpuTopology& c = *hw.cpu;
  const auto [f, f256, fw] = vector_widths(hw);
  const double hz = core_hz(hw);
  switch (k) {
    case CpuKernel::fp32_fma:
    case CpuKernel::fp16_fma:
      return f;
    case CpuKernel::bf16_dot:
      return c.avx512_bf16 ? 2 * fw : 0;
    case CpuKernel::int8_maddubs:
      return c.avx2 || c.avx512 ? 2 * f256 : 0;
    case CpuKernel::int8_vnni:
      return c.avx512_vnni ? 4 * f256 : 0;
    case CpuKernel::amx_int8:
      return c.amx && hz > 0 ? at(hw.dense_flops_per_s, ComputeType::int8) / hz : 0;
    case CpuKernel::amx_bf16:
      return c.amx && hz > 0 ? at(hw.dense_flops_per_s, ComputeType::bf16) / hz : 0;
    case CpuKernel::int8_repack:
      // arch/x86/repack.cpp: __m512i with VPDPBUSD (else VPMADDUBSW + VPMADDWD) under AVX-512,
      // __m256i on AVX2 parts.
      return c.avx512_vnni ? 4 * fw : c.avx2 || c.avx512 ? 2 * fw : 0;
  }
  return 0;
}

double cpu_dot_loop_ops_per_cycle(const HardwareSpec& hw, CpuKernel k) {
  if (!hw.cpu || !(hw.cpu->avx2 || hw.cpu->avx512)) return cpu_kernel_ops_per_cycle(hw, k);
  switch (k) {
    case CpuKernel::int8_maddubs:
    case CpuKernel::int8_vnni:
      return 4 * vector_widths(hw).f256;
    case CpuKernel::int8_repack:
      return 4 * vector_widths(hw).fw;
    default:
      return cpu_kernel_ops_per_cycle(hw, k);
  }
}

CpuKernelChoice llamacpp_cpu_kernels(DType weights, const CpuTopology& cpu) {
  const CpuKernel int_dot = cpu.avx512_vnni ? CpuKernel::int8_vnni : CpuKernel::int8_maddubs;
  switch (weights) {
    case DType::q4_0:
    case DType::q4_k_m:
    case DType::int4:
      // Repacked (CPU_REPACK) on AVX2 parts; the AMX buffer type takes them first where AMX runs.
      // The AMX buffer's batch-1 path (amx/mmq.cpp, M == 1) is a VNNI GEMV over its own
      // packed layout: a repacked kernel too.
      if (cpu.amx) return {CpuKernel::amx_int8, CpuKernel::int8_repack};
      if (cpu.avx2 || cpu.avx512) return {CpuKernel::int8_repack, CpuKernel::int8_repack};
      return {int_dot, int_dot};
    case DType::q8_0:
    case DType::int8:  // llama.cpp has no plain int8 / int4: they run as Q8_0 / Q4_0
      // Q8_0 is repacked only into the AMX buffer (CPU_REPACK has no Q8_0 layout on x86 here).
      return cpu.amx ? CpuKernelChoice{CpuKernel::amx_int8, CpuKernel::int8_repack}
                     : CpuKernelChoice{int_dot, int_dot};
    case DType::fp16:
      return {CpuKernel::fp16_fma, CpuKernel::fp16_fma};
    case DType::bf16:
      return cpu.avx512_bf16 ? CpuKernelChoice{CpuKernel::bf16_dot, CpuKernel::bf16_dot}
                             : CpuKernelChoice{CpuKernel::fp32_fma, CpuKernel::fp32_fma};
    default:
      return {CpuKernel::fp32_fma, CpuKernel::fp32_fma};
  }
}

CpuKernelFractions llamacpp_cpu_fractions(DType weights, const CpuKernelChoice& k) {
  const bool quant = is_block_quantised(weights) || weights == DType::int8;
  CpuKernelFractions f;
  if (is_amx(k.prefill)) {
    f.prefill = &StackEfficiency::amx_gemm_fraction;
  } else if (quant) {
    f.prefill = &StackEfficiency::quantised_gemm_compute_fraction;
  } else if (k.prefill == CpuKernel::fp16_fma) {
    f.prefill = &StackEfficiency::fp16_gemm_compute_fraction;
  }
  if (quant) {
    f.decode = is_amx(k.prefill) ? &StackEfficiency::amx_dot_fraction
                                 : &StackEfficiency::quantised_dot_fraction;
  }
  return f;
}

double llamacpp_prefill_fma_share(const HardwareSpec& hw, DType weights, bool amx_build) {
  if (weights != DType::fp16 || !hw.cpu || !hw.cpu->avx512 || hw.vendor != "intel") return 1;
  // Both F16 tiles are 4 x 6 zmm accumulators: 24 FMAs a k step of 16. tinyBLAS converts its 4
  // A and 6 B loads (both operands are F16 there); the AMX buffer's tinygemm_kernel_avx reads
  // fp32 activations and converts only its 6 weight loads.
  constexpr double kFmas = 4.0 * 6.0;
  const double conversions = amx_build ? 6.0 : 4.0 + 6.0;
  return kFmas / (kFmas + conversions);
}

double llamacpp_streamed_bytes_per_weight(DType weights, const CpuKernelChoice& k) {
  const double file = bytes_per_element(weights);
  // int8 runs as Q8_0 (llamacpp_cpu_kernels), whose block the AMX buffer widens to 38 bytes.
  if (is_amx(k.prefill) && (weights == DType::q8_0 || weights == DType::int8)) return 38.0 / 32.0;
  return file;
}

CpuOutputTensor llamacpp_output_tensor(DType weights, int hidden, const CpuTopology& cpu) {
  if (weights != DType::q4_0 && weights != DType::int4) return {};
  // Q6_K: 256 weights in 128 B of low nibbles + 64 B of high bits + 16 B of scales + 2 B of d;
  // Q8_0: 32 weights in 32 B + a 2-byte scale (+ a 4-byte compensation in the AMX buffer).
  constexpr int kQ6KBlock = 256;
  if (hidden > 0 && hidden % kQ6KBlock == 0) return {210.0 / 256.0, CpuKernel::int8_maddubs};
  if (cpu.amx) return {38.0 / 32.0, CpuKernel::int8_repack, &StackEfficiency::amx_dot_fraction};
  return {34.0 / 32.0, cpu.avx512_vnni ? CpuKernel::int8_vnni : CpuKernel::int8_maddubs};
}

}  // namespace infercap
