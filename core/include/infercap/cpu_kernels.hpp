#pragma once
// CPU physics per instruction family. A CPU's datasheet peak mixes units that a given kernel
// cannot use together (AMX tiles, AVX-512 FMA pipes, VNNI dot products), so one fraction of "the"
// peak cannot describe both a Q4_0 prompt on a Zen 3 and a BF16 prompt on a Sapphire Rapids.
// Instead each kernel family has a peak rate derived from the core's vector datapath, and a stack
// names which family runs each weight format in prefill (many tokens: tiled GEMM) and in decode
// (one token: a dot-product loop streaming the weights).
//
// Peak rates are operations per cycle per core, two per multiply-add (the FLOP convention), at
// the all-core base clock (sustained vector clocks sit at or below base). docs/model.md derives
// each ratio from instruction throughput.
#include <string_view>

#include "infercap/hardware.hpp"
#include "infercap/precision.hpp"
#include "infercap/stack.hpp"

namespace infercap {

enum class CpuKernel : unsigned char {
  fp32_fma,      ///< fp32 FMA (VFMADD231PS), AVX2 or AVX-512
  fp16_fma,      ///< fp16 weights widened with F16C (VCVTPH2PS), then fp32 FMA
  bf16_dot,      ///< AVX512-BF16 VDPBF16PS: two bf16 products per fp32 lane
  int8_maddubs,  ///< AVX2 VPMADDUBSW + VPMADDWD: u8 x s8 pairs widened in two instructions
  int8_vnni,     ///< AVX-512 VNNI / AVX-VNNI VPDPBUSD: four u8 x s8 products per lane, one op
  amx_int8,      ///< AMX TMUL TDPBUSD on 16x64 int8 tiles
  amx_bf16,      ///< AMX TMUL TDPBF16PS on 16x32 bf16 tiles
  /// ggml's repacked 4-bit kernels (repack.cpp: Q4_0 and Q4_K interleaved 8 rows x 8 bytes,
  /// ggml_gemm / ggml_gemv_q4_0_8x8_q8_0): VPDPBUSD (else VPMADDUBSW) on zmm where AVX-512
  /// exists, which is twice the 256-bit dot code's rate only where the core has two 512-bit
  /// integer pipes (Zen 5). The decode GEMV (gemv_q4_b32_8x8_q8_0_lut_avx) is __m256i code in
  /// the build measured here; the same rate stands in for it, its efficiency not being modelled
  /// apart from the per-row dot loops' (docs/model.md)
  int8_repack,
};
inline constexpr int kCpuKernelCount = 8;
std::string_view cpu_kernel_name(CpuKernel k);
bool is_amx(CpuKernel k);

/// fp32 FLOP per cycle per core of the vector datapath: the catalog's dense fp32 peak divided by
/// cores x base clock (2 x lanes x FMA pipes: 32 for AVX2 or Zen 4's 256-bit pipes, 64 for two
/// AVX-512 FMA units). 0 when the entry lacks what the division needs.
double cpu_fp32_flops_per_cycle(const HardwareSpec& hw);

/// Peak operations per cycle per core of a kernel family on this CPU; 0 when the ISA is absent.
/// Ratios to the fp32 FMA rate f: fp32 and fp16 (F16C) 1 f, BF16 dot 2 w, AVX2 int8 2 f (one
/// VPMADDUBSW does 4x an FMA's multiply-adds but needs a VPMADDWD to widen), VNNI 4 f, the two
/// integer families on 256-bit vectors (f capped at 32: ggml's integer dot code is ymm); the
/// repacked 4-bit kernels 4 w with VNNI, else 2 w. w is f on Zen 5 (AMD, f = 64: two full-width
/// pipes for every zmm multiply) and min(f, 32) elsewhere: Zen 4 splits zmm in two halves, and
/// on Intel the kernels' shuffles share port 5 with the second zmm multiplier. AMX rates
/// come from the catalog's int8 / bf16 tables (their only source on AMX parts).
double cpu_kernel_ops_per_cycle(const HardwareSpec& hw, CpuKernel k);

/// Peak operations per cycle per core of a family's batch-1 dot loop (decode). The integer loops
/// are bound by their instruction stream per 32-weight block, not by the multiplier: in ggml's
/// vec_dot_q8_0_q8_0 a block is two loads, two VPSIGNB, the fp16 scales' lookups and product,
/// the multiply-add (VPDPBUSD, or VPMADDUBSW + VPMADDWD on AVX2), VCVTDQ2PS and an FMA into one
/// accumulator, about 12 instructions with VNNI and 13 without, and the accumulator's FMA latency
/// (4 cycles a block) bounds them both. So the AVX2 loop runs near the VNNI one's rate, not at
/// half of it as in the tiled GEMM, where the multiplies dominate: both take VNNI's 4 min(f, 32)
/// (the repacked GEMV 4 w). Other families: cpu_kernel_ops_per_cycle. 0 when the ISA is absent.
double cpu_dot_loop_ops_per_cycle(const HardwareSpec& hw, CpuKernel k);

/// The kernels a stack runs for one weight format.
struct CpuKernelChoice {
  CpuKernel prefill = CpuKernel::fp32_fma;  ///< tiled GEMM over many tokens
  CpuKernel decode = CpuKernel::fp32_fma;   ///< batch-1 dot-product loop over the weights
};

/// llama.cpp's ggml-cpu choices on x86 (ggml/src/ggml-cpu: type_traits_cpu vec_dot_type,
/// llamafile/sgemm.cpp, repack.cpp, amx/common.h qtype_has_amx_kernels):
///  * Q4_0, Q4_K_M, Q8_0 (and int8 / int4, which llama.cpp runs as Q8_0 / Q4_0): activations are
///    quantised to Q8_0 / Q8_K blocks and the weights meet them in integer dot products (VNNI
///    where present, else AVX2 VPMADDUBSW). Q4_0, Q4_K (and int4) are repacked at load on any
///    AVX2 part (the CPU_REPACK buffer type, llama.cpp since late 2024) and run int8_repack in
///    both phases; Q8_0 has no x86 repack and runs the 256-bit dot code. With AMX the AMX buffer
///    type takes these formats first: prefill on AMX int8 tiles, decode on the buffer's own
///    512-bit VNNI GEMV over its packed layout (amx/mmq.cpp, M == 1), an int8_repack kernel.
///  * F16: converted to fp32 and multiplied with FMA (vec_dot_f16, tinyBLAS F16; in an AMX build
///    the AMX buffer's tinygemm_kernel_avx, the same VCVTPH2PS + FMA family).
///  * BF16: VDPBF16PS where AVX512-BF16 exists, else widened to fp32.
///  * F32 (and anything else): fp32 FMA.
CpuKernelChoice llamacpp_cpu_kernels(DType weights, const CpuTopology& cpu);

/// The StackEfficiency fractions that scale a llama.cpp kernel choice on the per-ISA path
/// (cpu_isa_kernels): prefill at amx_gemm_fraction on AMX tiles, else
/// quantised_gemm_compute_fraction for quantised weights (block formats and int8, which llama.cpp
/// runs as Q8_0), fp16_gemm_compute_fraction for F16 (converted to fp32 in the tile), else
/// gemm_compute_fraction; decode at amx_dot_fraction where the AMX buffer
/// holds quantised weights (its tiles run their prefill), else quantised_dot_fraction or
/// dot_fraction. The model reads them here and the fit selects its parameters by them, so both
/// agree on which rows speak for which fraction.
struct CpuKernelFractions {
  double StackEfficiency::*prefill = &StackEfficiency::gemm_compute_fraction;
  double StackEfficiency::*decode = &StackEfficiency::dot_fraction;
};
CpuKernelFractions llamacpp_cpu_fractions(DType weights, const CpuKernelChoice& k);

/// The share of the FMA issue slots that llama.cpp's F16 prefill tile leaves to its multiplies.
/// On Intel cores running zmm code only ports 0 and 5 execute 512-bit uops (port 1's vector
/// units are fused into port 0; Intel 64 and IA-32 Architectures Optimization Reference
/// Manual, Skylake Server microarchitecture), and both FMA units sit there, so every VCVTPH2PS
/// of an F16 tile takes an FMA slot: tinyBLAS's 4 x 6 tile (llamafile/sgemm.cpp, both operands
/// F16) issues 24 FMAs and 10 conversions a k step, 24 / 34 of its slots multiplying; the AMX
/// buffer's tinygemm_kernel_avx<4, 6> (amx/mmq.cpp, which takes F16 weights in an AMX build)
/// converts only the 6 weight vectors, 24 / 30. At least one uop per conversion is counted, so
/// this is the least the conversions cost. 1 on AMD: the F16 tile reaches 62% of the FMA peak
/// on the Zen 5 guest and 56% on the Zen 3 one, above the BF16 tiles' 42-45%, which a tile
/// whose conversions took FMA slots could not (AMD's pipe assignment was not read). 1 on AVX2-only
/// Intel parts (no zmm code; no F16 rows to check), and for other formats.
double llamacpp_prefill_fma_share(const HardwareSpec& hw, DType weights, bool amx_build);

/// Bytes per weight that llama.cpp streams in decode for a weight format and kernel choice: the
/// format's own size, except where the AMX buffer type holds the weights in its packed layout
/// (amx/mmq.cpp get_row_size): a Q8_0 block there carries its 32 quants, its fp16 scale and an
/// int32 s8s8 compensation term (the VNNI kernel feeds u8 activations), 38 bytes per 32 weights
/// against the file's 34. Measured: the AMX buffer of Qwen2.5-0.5B Q8_0 holds 559.4 MiB for its
/// 494.0 M matrix weights, 1.1875 bytes each (llama-bench -v, load_tensors). Q4_0 packs to its
/// file size (346.1 MiB with the Q8_0 output, to the byte). Q4_K and Q5_K add 4 bytes per
/// 256-weight super-block (under 3%), not counted: a Q4_K_M file mixes them with Q6_K tensors
/// whose share the model does not know.
double llamacpp_streamed_bytes_per_weight(DType weights, const CpuKernelChoice& k);

/// The output projection (lm_head) of a GGUF file where llama-quantize stores it in another
/// format than the other weights (src/llama-quant.cpp llama_tensor_get_type: the output tensor of
/// a Q4_0 file is Q6_K; tensor_type_fallback demotes Q6_K to Q8_0 where the row, the hidden size,
/// is not a multiple of Q6_K's 256-weight super-block, e.g. Qwen2.5-0.5B's 896). Without AMX
/// neither is repacked on x86 (repack.cpp repacks Q6_K on NEON only, Q8_0 on NEON and RISC-V), so
/// decode runs the per-row dot code: vec_dot_q6_K_q8_K (AVX2 VPMADDUBSW + VPMADDWD, no VNNI
/// path) or vec_dot_q8_0_q8_0 (VNNI where present), at quantised_dot_fraction. Where AMX runs,
/// the AMX buffer takes the output tensor too (its list of buffer types is the layers'): a Q8_0
/// output then streams the buffer's 38-byte blocks through its VNNI GEMV at amx_dot_fraction,
/// like the layers of a Q8_0 file; a Q6_K output (no extra bytes in that layout) runs the
/// buffer's Q6_K GEMV (tinygemm_kernel_vnni<block_q8_K, block_q6_K>), which unpacks the 6-bit
/// quants and multiplies each 16-weight group's scale in zmm integer code: the per-row dot rate
/// at quantised_dot_fraction still stands for it. Measured on the Xeon guest, one thread,
/// Llama-3.2-1B Q4_0 with its output re-quantised (llama-quantize --output-tensor-type): the Q6_K
/// output costs 26 ms a token against 9.5 ms for a Q4_0 one and 19 ms for Q8_0 (its 312 MB at
/// the 16 GB/s stream), which the dot rate gives (docs/model.md). Q4_K_M needs no entry: its 4.85
/// bits per weight are the file's average, output tensor included; other formats keep one format
/// throughout.
struct CpuOutputTensor {
  double bytes_per_weight = 0;  ///< 0: the output tensor is in the weights' own format
  CpuKernel decode = CpuKernel::int8_maddubs;
  double StackEfficiency::*fraction = &StackEfficiency::quantised_dot_fraction;
};
CpuOutputTensor llamacpp_output_tensor(DType weights, int hidden, const CpuTopology& cpu);

}  // namespace infercap
