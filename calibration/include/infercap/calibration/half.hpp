#pragma once
// 16-bit float conversions for test data and references, shared by every backend (CPU, CUDA,
// OpenCL). Round to nearest even; fp16 flushes subnormals to zero and saturates to infinity.
#include <cstdint>

namespace infercap::calibration {

uint16_t fp32_to_bf16(float f);
float bf16_to_fp32(uint16_t h);
uint16_t fp32_to_fp16(float f);
float fp16_to_fp32(uint16_t h);

}  // namespace infercap::calibration
