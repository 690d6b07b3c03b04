// The device probe, availability checks and shared helpers of cuda_device.hpp.
#include "cuda_device.hpp"

#include <fmt/core.h>

#include <cmath>

namespace infercap::calibration::cuda_host {

const DeviceInfo& device() {
  static const DeviceInfo d = [] {
    DeviceInfo i;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      i.why = e != cudaSuccess
                  ? fmt::format("no CUDA device (cudaGetDeviceCount: {})", cudaGetErrorString(e))
                  : "no CUDA device";
      return i;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
      i.why = "cudaGetDeviceProperties failed";
      return i;
    }
    i.ok = true;
    i.name = p.name;
    i.sms = p.multiProcessorCount;
    i.l2_bytes = p.l2CacheSize;
    i.memory_bytes = static_cast<double>(p.totalGlobalMem);
    i.cc_major = p.major;
    i.cc_minor = p.minor;
    return i;
  }();
  return d;
}

Availability cuda_available() {
  const auto& d = device();
  if (!d.ok) return Availability::no(d.why);
  return Availability::yes(fmt::format("{} (sm_{}{}, {} SMs, {:.0f} MiB L2, {:.0f} GiB)", d.name,
                                       d.cc_major, d.cc_minor, d.sms, d.l2_bytes / 1048576,
                                       d.memory_bytes / 1073741824.0));
}

Availability need_sm90_fp8() {
  auto a = cuda_available();
  if (!a.available) return a;
  if (device().cc_major < 9 && !(device().cc_major == 8 && device().cc_minor >= 9))
    return Availability::no("fp8 needs compute capability 8.9 or newer");
  return a;
}

float e4m3_value(uint8_t c) {
  const int e = (c >> 3) & 0xf, m = c & 7;
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), -9)
                         : std::ldexp(1.f + static_cast<float>(m) / 8.f, e - 7);
  return (c & 0x80) ? -v : v;
}
uint8_t to_e4m3(float f) {
  const uint8_t sign = f < 0 ? 0x80 : 0;
  const float a = std::fabs(f);
  if (!(a < 448.f)) return static_cast<uint8_t>(sign | 0x7e);
  int exp = 0;
  std::frexp(a, &exp);  // a = mant * 2^exp, mant in [0.5, 1)
  int e = exp - 1;
  if (a == 0.f || e < -6) {
    const long q = std::lround(std::ldexp(a, 9));  // subnormal steps of 2^-9 (8 -> 2^-6, normal)
    return static_cast<uint8_t>(sign | static_cast<uint8_t>(q));
  }
  long m = std::lround((std::ldexp(a, -e) - 1.f) * 8.f);
  if (m == 8) {
    m = 0;
    ++e;
  }
  if (e > 8 || (e == 8 && m > 6)) return static_cast<uint8_t>(sign | 0x7e);
  return static_cast<uint8_t>(sign | ((e + 7) << 3) | m);
}

void sync() {
  cudaDeviceSynchronize();
}

std::optional<CheckResult> launch_failure() {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return std::nullopt;
  CheckResult r;
  r.message = cudaGetErrorString(e);
  return r;
}

}  // namespace infercap::calibration::cuda_host
