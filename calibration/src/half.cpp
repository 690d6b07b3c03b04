#include "infercap/calibration/half.hpp"

#include <cstring>

namespace infercap::calibration {

uint16_t fp32_to_bf16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  u += 0x7fffU + ((u >> 16) & 1U);  // round to nearest even (inputs here are finite)
  return static_cast<uint16_t>(u >> 16);
}

float bf16_to_fp32(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

// Scales are positive normal numbers well inside fp16's range; subnormals flush to zero.
uint16_t fp32_to_fp16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000U;
  const int exp = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffU;
  if (exp <= 0) return static_cast<uint16_t>(sign);
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00U);
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffU;
  if (rest > 0x1000U || (rest == 0x1000U && (h & 1U))) ++h;  // carries into the exponent: fine
  return static_cast<uint16_t>(h);
}

float fp16_to_fp32(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000U) << 16;
  const uint32_t exp = (h >> 10) & 0x1fU;
  const uint32_t mant = h & 0x3ffU;
  uint32_t u = 0;
  if (exp == 0) {
    u = sign;  // zero (subnormals never produced by fp32_to_fp16)
  } else if (exp == 31) {
    u = sign | 0x7f800000U | (mant << 13);
  } else {
    u = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace infercap::calibration
