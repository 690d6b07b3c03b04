#pragma once
// Number formats for weights, activations and the KV cache, and the compute type a matrix product
// in those formats executes in. Bits per element include the per-block scale bits of quantised
// formats (llama.cpp Q4_0 stores 32 weights in 18 bytes = 4.5 bits each).
#include <array>
#include <optional>
#include <string_view>

namespace infercap {

/// nvfp4: NVIDIA's 4-bit float (E2M1 values, one FP8 E4M3 scale per 16, an FP32 scale per
/// tensor), which Blackwell tensor cores multiply natively (compute type fp4).
enum class DType : unsigned char {
  fp32,
  bf16,
  fp16,
  fp8,
  int8,
  int4,
  nf4,
  q8_0,
  q4_0,
  q4_k_m,
  nvfp4
};
inline constexpr int kDTypeCount = 11;

/// The arithmetic a compute roof is quoted for. Hardware lists a dense peak per ComputeType.
/// fp4: 4-bit float tensor-core products (NVFP4 / MXFP4 operands), Blackwell and later.
enum class ComputeType : unsigned char { fp32, tf32, bf16, fp16, fp8, int8, int4, fp4 };
inline constexpr int kComputeTypeCount = 8;

/// Storage bits per element, scale bits included.
double bits_per_element(DType t);
inline double bytes_per_element(DType t) {
  return bits_per_element(t) / 8.0;
}
std::string_view dtype_name(DType t);
/// Case-insensitive; accepts llama.cpp spellings ("F16", "Q4_K_M", "q8_0") and common aliases
/// ("half" -> fp16, "float" -> fp32, "e4m3" -> fp8, "fp4" and "e2m1" -> nvfp4).
std::optional<DType> parse_dtype(std::string_view s);
/// True for formats that store weights in blocks with scales and must be dequantised or fed to
/// an integer dot product (int4, nf4 and the llama.cpp formats).
bool is_block_quantised(DType t);

/// The compute type a storage format is natively computed in (fp32, bf16, fp16, fp8, int8,
/// fp4); nullopt for block-quantised formats, whose compute type depends on the kernel.
std::optional<ComputeType> native_compute_type(DType t);

std::string_view compute_type_name(ComputeType t);
std::optional<ComputeType> parse_compute_type(std::string_view s);

/// A per-ComputeType table of rates (FLOP/s); 0 means "not supported / not stated".
using ComputeTable = std::array<double, kComputeTypeCount>;
inline double& at(ComputeTable& t, ComputeType c) {
  return t[static_cast<int>(c)];
}
inline double at(const ComputeTable& t, ComputeType c) {
  return t[static_cast<int>(c)];
}

/// The formats of one deployment.
struct Precision {
  DType weights = DType::bf16;
  DType activations = DType::bf16;
  DType kv = DType::bf16;
};

/// True when a kernel converts every weight before its multiply-add: block-quantised weights
/// (dequantised or fed to an integer dot product), and weights stored narrower than the
/// activations they meet (weight-only int8 "w8a16": each int8 weight is scaled to bf16 in the
/// GEMV). Native formats (bf16 x bf16, fp8 x fp8, int8 x int8) are not converted. Decode's
/// per-weight issue cost (`quantised_issue_cycles_per_weight`) applies to these.
bool converts_weights(const Precision& p);

}  // namespace infercap
