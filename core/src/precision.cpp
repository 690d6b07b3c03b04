#include "infercap/precision.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace infercap {

namespace {

struct DTypeInfo {
  DType t;
  std::string_view name;
  double bits;
};

// Scale bits are counted because they are bytes that must stream from memory:
//  int4: one fp16 scale per group of 128 (GPTQ/AWQ default)  -> 4 + 16/128
//  nf4 : QLoRA double quantisation, 8-bit absmax per 64 + fp32 per 256 blocks -> 4 + 8/64 +
//  32/16384 q8_0: 32 int8 + one fp16 scale = 34 bytes / 32 = 8.5 bits q4_0: 32 nibbles + one fp16
//  scale = 18 bytes / 32 = 4.5 bits q4_k_m: llama.cpp mix of Q4_K (4.5 bpw) and Q6_K (6.56 bpw)
//  tensors; ~4.85 bpw over a model
//  nvfp4: 16 E2M1 values + one FP8 E4M3 scale = 72 bits / 16 = 4.5 bits (the FP32 scale per
//  tensor is negligible): NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision
//  Inference" (developer.nvidia.com/blog, June 2025); ModelOpt exports it as packed nibbles
//  [N, K/2] beside F8_E4M3 scales [N, K/16] ("quant_algo": "NVFP4", "group_size": 16)
constexpr std::array<DTypeInfo, kDTypeCount> kDTypes{{
    {DType::fp32, "fp32", 32.0},
    {DType::bf16, "bf16", 16.0},
    {DType::fp16, "fp16", 16.0},
    {DType::fp8, "fp8", 8.0},
    {DType::int8, "int8", 8.0},
    {DType::int4, "int4", 4.0 + 16.0 / 128.0},
    {DType::nf4, "nf4", 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)},
    {DType::q8_0, "q8_0", 8.5},
    {DType::q4_0, "q4_0", 4.5},
    {DType::q4_k_m, "q4_k_m", 4.85},
    {DType::nvfp4, "nvfp4", 4.5},
}};

constexpr std::array<std::string_view, kComputeTypeCount> kComputeNames{
    "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

double bits_per_element(DType t) {
  return kDTypes[static_cast<int>(t)].bits;
}
std::string_view dtype_name(DType t) {
  return kDTypes[static_cast<int>(t)].name;
}

bool is_block_quantised(DType t) {
  return t == DType::int4 || t == DType::nf4 || t == DType::q8_0 || t == DType::q4_0 ||
         t == DType::q4_k_m;
}

bool converts_weights(const Precision& p) {
  return is_block_quantised(p.weights) ||
         bits_per_element(p.weights) < bits_per_element(p.activations);
}

std::optional<DType> parse_dtype(std::string_view s) {
  const std::string k = lower(s);
  for (const auto& d : kDTypes) {
    if (k == d.name) return d.t;
  }
  static const std::array<std::pair<std::string_view, DType>, 19> kAliases{{
      {"f32", DType::fp32},      {"float32", DType::fp32}, {"float", DType::fp32},
      {"bfloat16", DType::bf16}, {"f16", DType::fp16},     {"float16", DType::fp16},
      {"half", DType::fp16},     {"e4m3", DType::fp8},     {"fp8_e4m3", DType::fp8},
      {"float8", DType::fp8},    {"i8", DType::int8},      {"i4", DType::int4},
      {"awq", DType::int4},      {"gptq", DType::int4},    {"q4_k", DType::q4_k_m},
      {"q4km", DType::q4_k_m},   {"w8a8", DType::int8},    {"fp4", DType::nvfp4},
      {"e2m1", DType::nvfp4},
  }};
  for (const auto& [alias, t] : kAliases) {
    if (k == alias) return t;
  }
  return std::nullopt;
}

std::optional<ComputeType> native_compute_type(DType t) {
  switch (t) {
    case DType::fp32:
      return ComputeType::fp32;
    case DType::bf16:
      return ComputeType::bf16;
    case DType::fp16:
      return ComputeType::fp16;
    case DType::fp8:
      return ComputeType::fp8;
    case DType::int8:
      return ComputeType::int8;
    case DType::nvfp4:
      return ComputeType::fp4;
    default:
      return std::nullopt;
  }
}

std::string_view compute_type_name(ComputeType t) {
  return kComputeNames[static_cast<int>(t)];
}

std::optional<ComputeType> parse_compute_type(std::string_view s) {
  const std::string k = lower(s);
  for (int i = 0; i < kComputeTypeCount; ++i) {
    if (k == kComputeNames[i]) return static_cast<ComputeType>(i);
  }
  if (k == "f16" || k == "half") return ComputeType::fp16;
  if (k == "f32") return ComputeType::fp32;
  return std::nullopt;
}

}  // namespace infercap
