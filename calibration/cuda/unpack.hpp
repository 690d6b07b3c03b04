#pragma once
// Weight unpacking of the CUDA GEMV (kernels.cu) written as plain bit arithmetic, so that the same
// functions compile for the device and are checked on the host (tests/test_cuda_unpack.cpp) on a
// machine without a GPU.
//
// Why bit tricks: an integer-to-float conversion (I2F) issues at a quarter of the FMA rate on
// sm_90, and a 4-bit GEMV needs ~10^13 conversions/s to keep up with HBM. 2^23 as a float has a
// mantissa step of exactly 1, so OR-ing an integer 0 <= u < 2^23 into its low bits gives the float
// 2^23 + u exactly; one logic op and one FADD (both full rate) then give u - bias.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define INFERCAP_HD __host__ __device__ __forceinline__
#else
#define INFERCAP_HD inline
#endif

namespace infercap::calibration::cudak {

inline constexpr uint32_t kMagicBits = 0x4B000000u;  // the float 8388608 = 2^23
inline constexpr float kMagic = 8388608.f;

INFERCAP_HD float bits_to_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

/// Two bf16 packed in a word (element 0 in the low half) -> two floats: a bf16 is the top half
/// of an fp32, so this is two logic ops and no conversion.
INFERCAP_HD void unpack_bf16x2(uint32_t word, float* out) {
  out[0] = bits_to_float(word << 16);
  out[1] = bits_to_float(word & 0xffff0000u);
}

/// Four two's-complement int8 (element 0 in the low byte) -> four floats in [-128, 127]. Flipping
/// each sign bit maps b to the unsigned b + 128, which the magic number then converts.
INFERCAP_HD void unpack_s8x4(uint32_t word, float* out) {
  const uint32_t t = word ^ 0x80808080u;
  for (int i = 0; i < 4; ++i)
    out[i] = bits_to_float(((t >> (8 * i)) & 0xffu) | kMagicBits) - (kMagic + 128.f);
}

/// Eight 4-bit weights stored as q + 8 (element 0 in the low nibble) -> eight floats q in
/// [-8, 7].
INFERCAP_HD void unpack_u4x8(uint32_t word, float* out) {
  for (int i = 0; i < 8; ++i)
    out[i] = bits_to_float(((word >> (4 * i)) & 0xfu) | kMagicBits) - (kMagic + 8.f);
}

}  // namespace infercap::calibration::cudak
