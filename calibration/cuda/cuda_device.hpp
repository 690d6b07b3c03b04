#pragma once
// What every CUDA kernel instance of the backend shares: the device it runs on (probed once),
// the availability checks its kernel specs carry, a device buffer, reproducible fill values,
// the fp8 (OCP e4m3) encoding the host references use, and how an instance times its own kernel
// variants before the harness times the chosen one. Host code only (the module's translation
// units; kernels.cu is the device side). Sizes in bytes, times in milliseconds where the name
// says _ms (CUDA events' unit).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "infercap/calibration/backend_module.hpp"

namespace infercap::calibration::cuda_host {

/// Device 0 as the runtime reports it; `ok` false (and `why`) when there is none.
struct DeviceInfo {
  bool ok = false;
  std::string why;
  std::string name;
  int sms = 0;
  double l2_bytes = 0;
  double memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
};

/// Probed on first use, then the same for the life of the process.
const DeviceInfo& device();
/// Available when there is a device; the text names it (SMs, L2, memory).
Availability cuda_available();
/// As cuda_available(), and compute capability 8.9 or newer (fp8 tensor cores).
Availability need_sm90_fp8();

/// cudaMalloc'd memory owned by one object; `p` is nullptr when the allocation failed.
struct DevBuf {
  void* p = nullptr;
  size_t bytes = 0;
  DevBuf() = default;
  explicit DevBuf(size_t n) : bytes(n) {
    if (cudaMalloc(&p, n) != cudaSuccess) p = nullptr;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p(o.p), bytes(o.bytes) { o.p = nullptr; }
  DevBuf& operator=(DevBuf&& o) noexcept {
    std::swap(p, o.p);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

/// Reproducible values in [-1, 1) from an index (a hash, so multi-GB fills stay fast).
inline float hash_unit(uint64_t i, uint64_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1ull << 23) - 1.0f;
}

/// OCP e4m3: bias 7, largest finite 448 (code 0x7e), subnormals below 2^-6 in steps of 2^-9.
/// The reference multiplies with the decoded value of the stored code, so the rounding of the
/// encoder only has to be close, not bit-exact with the hardware's conversion.
float e4m3_value(uint8_t c);
uint8_t to_e4m3(float f);

/// cudaDeviceSynchronize: how run() waits, so the host clock times whole calls.
void sync();

/// Median of three calls of `call` timed with CUDA events on the default stream, after one
/// untimed call when `warm_up`: how an instance compares kernel variants before the harness
/// times one.
template <class F>
float median_of_3_ms(F&& call, bool warm_up) {
  if (warm_up) call();
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::array<float, 3> ms{};
  for (float& t : ms) {
    cudaEventRecord(e0);
    call();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&t, e0, e1);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

/// The error a kernel launch left behind, as a failed check; nullopt when there is none.
std::optional<CheckResult> launch_failure();

}  // namespace infercap::calibration::cuda_host
