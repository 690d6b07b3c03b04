// A self-contained check of the CUDA calibration kernels (kernels.cu) for a GPU host that has
// only the driver: built with nvcc and the static CUDA runtime (no cuBLAS, no other libraries),
// small enough to carry. It checks read, copy and decode GEMV in every weight format against a
// host reference and times them with CUDA events (median of repeats), printing one JSON line a
// point. With `--csv FILE [--hardware NAME]` it also writes the passing points (the faster
// kernel of each) as a measurement-import CSV, which `infercap calibrate --import FILE` fits into
// a profile anywhere. The full calibration (cuBLAS GEMM, overheads, the profile) is `infercap
// calibrate --backend cuda`; this is the first look, and the fallback when cuBLAS is missing.
//   nvcc -O2 -std=c++17 -arch=sm_90 calibration/cuda/kernels.cu calibration/cuda/cuda_smoke.cpp \
//        -cudart static [-DINFERCAP_SMOKE_COMMIT='"abc1234"'] -o cuda_smoke && ./cuda_smoke
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "kernels.hpp"

using infercap::calibration::cudak::WeightFormat;
namespace k = infercap::calibration::cudak;

namespace {

float hash_unit(uint64_t i, uint64_t seed) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1ull << 23) - 1.0f;
}
uint16_t f2h(float f, bool bf) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (bf) return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  const uint32_t sign = (u >> 16) & 0x8000;
  const int e = static_cast<int>((u >> 23) & 0xff) - 112;
  if (e <= 0) return static_cast<uint16_t>(sign);
  uint32_t h = sign | (static_cast<uint32_t>(e) << 10) | ((u & 0x7fffff) >> 13);
  if ((u & 0x1fff) > 0x1000 || ((u & 0x1fff) == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(h);
}
float h2f(uint16_t h, bool bf) {
  uint32_t u;
  if (bf) {
    u = static_cast<uint32_t>(h) << 16;
  } else {
    const uint32_t e = (h >> 10) & 0x1f;
    u = (static_cast<uint32_t>(h & 0x8000) << 16) |
        (e ? ((e + 112) << 23) | ((h & 0x3ffu) << 13) : 0);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float e4m3(uint8_t c) {
  const int e = (c >> 3) & 0xf, m = c & 7;
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.f + m / 8.f, e - 7);
  return (c & 0x80) ? -v : v;
}
uint8_t to_e4m3(float f) {
  const uint8_t s = f < 0 ? 0x80 : 0;
  const float a = std::fabs(f);
  if (!(a < 448.f)) return s | 0x7e;
  int ex = 0;
  std::frexp(a, &ex);
  int e = ex - 1;
  if (a == 0.f || e < -6) return static_cast<uint8_t>(s | std::lround(std::ldexp(a, 9)));
  long m = std::lround((std::ldexp(a, -e) - 1.f) * 8.f);
  if (m == 8) m = 0, ++e;
  if (e > 8 || (e == 8 && m > 6)) return s | 0x7e;
  return static_cast<uint8_t>(s | ((e + 7) << 3) | m);
}

template <class F>
double median_ms(F&& call, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  call();
  cudaDeviceSynchronize();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a);
    call();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int failures = 0;

#ifndef INFERCAP_SMOKE_COMMIT
#define INFERCAP_SMOKE_COMMIT "unknown"
#endif

// One passing point for the import CSV: seconds per call of `bytes`; the faster kernel wins.
struct ImportRow {
  std::string kind, dtype;
  int m = 0, n = 0, k = 0;
  double bytes = 0, seconds = 0;
  std::string kernel;
};
std::map<std::tuple<std::string, std::string, int, int, int>, ImportRow> import_rows;

void keep(const ImportRow& r) {
  auto& slot = import_rows[{r.kind, r.dtype, r.m, r.n, r.k}];
  if (slot.seconds == 0 || r.seconds < slot.seconds) slot = r;
}

void streams(int sms) {
  const size_t bytes = 4ull << 30, n16 = bytes / 16;
  void *a = nullptr, *b = nullptr;
  float* part = nullptr;
  const int blocks = sms * 8;
  if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) ||
      cudaMalloc(&part, static_cast<size_t>(blocks) * 4)) {
    std::printf("{\"error\": \"cudaMalloc 2 x 4 GiB failed\"}\n");
    ++failures;
    return;
  }
  std::vector<float> h(bytes / 4);
  double ref = 0;
  for (size_t i = 0; i < h.size(); ++i) ref += (h[i] = 0.5f * (hash_unit(i, 1) + 1.f));
  cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice);
  const double rms = median_ms([&] { k::launch_read_sum(a, n16, part, blocks, nullptr); }, 30);
  std::vector<float> p(blocks);
  cudaMemcpy(p.data(), part, p.size() * 4, cudaMemcpyDeviceToHost);
  double got = 0;
  for (float x : p) got += x;
  const bool rok = std::fabs(got - ref) / ref < 1e-4;
  failures += !rok;
  std::printf(
      "{\"kernel\": \"read.cuda\", \"bytes\": %zu, \"median_s\": %.6e, \"GBps\": %.1f, "
      "\"check_ok\": %s}\n",
      bytes, rms * 1e-3, bytes / (rms * 1e-3) / 1e9, rok ? "true" : "false");
  if (rok) keep({"read", "", 0, 0, 0, static_cast<double>(bytes), rms * 1e-3, "read_sum"});
  const double cms = median_ms([&] { k::launch_copy(a, b, n16, blocks, nullptr); }, 30);
  // Compared as bits: a copy must reproduce every byte.
  std::vector<uint32_t> back(h.size()), src(h.size());
  cudaMemcpy(back.data(), b, bytes, cudaMemcpyDeviceToHost);
  std::memcpy(src.data(), h.data(), bytes);
  const bool cok = back == src;
  failures += !cok;
  std::printf(
      "{\"kernel\": \"copy.cuda\", \"bytes_moved\": %zu, \"median_s\": %.6e, \"GBps\": %.1f, "
      "\"check_ok\": %s}\n",
      2 * bytes, cms * 1e-3, 2 * bytes / (cms * 1e-3) / 1e9, cok ? "true" : "false");
  if (cok) keep({"copy", "", 0, 0, 0, 2.0 * bytes, cms * 1e-3, "streaming4, 8 blocks/SM"});
  // The copy rate by kernel variant and grid size: the harness keeps the fastest of these (the
  // line above is the first H200 run's choice, streaming4 at 8 blocks of 256 threads per SM).
  for (const auto ck : k::kCopyKernels) {
    for (int per_sm : {4, 8, 16}) {
      const double ms =
          median_ms([&] { k::launch_copy(a, b, n16, sms * per_sm, nullptr, ck); }, 20);
      std::printf(
          "{\"kernel\": \"copy.cuda\", \"copy_kernel\": \"%s\", \"blocks_per_sm\": %d, "
          "\"GBps\": %.1f}\n",
          k::copy_kernel_name(ck), per_sm, 2 * bytes / (ms * 1e-3) / 1e9);
      // The variants copy the same checked arrays; a launch error would show in the check.
      if (cok && cudaGetLastError() == cudaSuccess) {
        keep({"copy", "", 0, 0, 0, 2.0 * bytes, ms * 1e-3,
              std::string(k::copy_kernel_name(ck)) + ", " + std::to_string(per_sm) + " blocks/SM"});
      }
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(part);
}

void gemv(WeightFormat f, const char* name, int m, int n, int kk, k::GemvKernel kern) {
  const size_t nk = static_cast<size_t>(n) * kk;
  const double bpe = f == WeightFormat::int4                               ? 0.5
                     : (f == WeightFormat::fp8 || f == WeightFormat::int8) ? 1
                                                                           : 2;
  const size_t wbytes = static_cast<size_t>(nk * bpe);
  std::vector<unsigned char> w(wbytes, 0);
  std::vector<float> wq(nk), rs(n, 1.f);
  std::vector<uint16_t> gs;
  const int groups = kk / k::kInt4Group;
  if (f == WeightFormat::int4) gs.resize(static_cast<size_t>(n) * groups);
  for (int r = 0; r < n; ++r) {
    const size_t base = static_cast<size_t>(r) * kk;
    if (f == WeightFormat::fp8 || f == WeightFormat::int8) {
      float amax = 0;
      for (int j = 0; j < kk; ++j) amax = std::max(amax, std::fabs(hash_unit(base + j, 3)));
      rs[r] = amax / (f == WeightFormat::fp8 ? 448.f : 127.f);
    }
    for (int g = 0; g < groups && f == WeightFormat::int4; ++g) {
      float amax = 0;
      for (int j = 0; j < k::kInt4Group; ++j)
        amax = std::max(amax, std::fabs(hash_unit(base + static_cast<size_t>(g) * 128 + j, 3)));
      gs[static_cast<size_t>(r) * groups + g] = f2h(amax / 7.f, false);
    }
    for (int j = 0; j < kk; ++j) {
      const size_t i = base + j;
      const float v = hash_unit(i, 3);
      if (f == WeightFormat::bf16 || f == WeightFormat::fp16) {
        const uint16_t h = f2h(v, f == WeightFormat::bf16);
        std::memcpy(&w[2 * i], &h, 2);
        wq[i] = h2f(h, f == WeightFormat::bf16);
      } else if (f == WeightFormat::fp8) {
        w[i] = to_e4m3(v / rs[r]);
        wq[i] = e4m3(w[i]) * rs[r];
      } else if (f == WeightFormat::int8) {
        const int q = std::clamp(static_cast<int>(std::lround(v / rs[r])), -127, 127);
        w[i] = static_cast<unsigned char>(static_cast<signed char>(q));
        wq[i] = q * rs[r];
      } else {
        const float s = h2f(gs[static_cast<size_t>(r) * groups + j / 128], false);
        const int q = std::clamp(static_cast<int>(std::lround(v / s)), -7, 7);
        w[i / 2] |= static_cast<unsigned char>((q + 8) << ((i & 1) * 4));
        wq[i] = q * s;
      }
    }
  }
  std::vector<float> x(static_cast<size_t>(m) * kk);
  for (size_t i = 0; i < x.size(); ++i) x[i] = hash_unit(i, 9);
  // Copies of the weights (>= 2 GiB together): one timed call streams them all, none from L2.
  const int copies = std::max(8, static_cast<int>((2ull << 30) / wbytes));
  std::vector<void*> wd(copies);
  for (auto& p : wd) {
    cudaMalloc(&p, wbytes);
    cudaMemcpy(p, w.data(), wbytes, cudaMemcpyHostToDevice);
  }
  void* sd = nullptr;
  const size_t sbytes = f == WeightFormat::int4 ? gs.size() * 2 : rs.size() * 4;
  cudaMalloc(&sd, sbytes);
  cudaMemcpy(sd, f == WeightFormat::int4 ? static_cast<const void*>(gs.data()) : rs.data(), sbytes,
             cudaMemcpyHostToDevice);
  float *xd, *yd;
  cudaMalloc(&xd, x.size() * 4);
  cudaMalloc(&yd, static_cast<size_t>(m) * n * 4);
  cudaMemcpy(xd, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
  const double ms = median_ms(
      [&] {
        for (auto p : wd) k::launch_gemv(f, p, sd, xd, yd, m, n, kk, nullptr, kern);
      },
      20);
  const cudaError_t err = cudaGetLastError();
  std::vector<float> y(static_cast<size_t>(m) * n);
  cudaMemcpy(y.data(), yd, y.size() * 4, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int b = 0; b < m; ++b) {
    for (int o = 0; o < n; ++o) {
      double ref = 0, mag = 0;
      for (int j = 0; j < kk; ++j) {
        const double p = static_cast<double>(wq[static_cast<size_t>(o) * kk + j]) *
                         x[static_cast<size_t>(b) * kk + j];
        ref += p;
        mag += std::fabs(p);
      }
      worst = std::max(worst, std::fabs(y[static_cast<size_t>(b) * n + o] - ref) / mag);
    }
  }
  const bool ok = err == cudaSuccess && worst < 1e-4;
  failures += !ok;
  const double per_call_s = ms * 1e-3 / copies;
  const double bytes = wbytes + sbytes + 4.0 * m * (kk + n);
  std::printf(
      "{\"kernel\": \"gemv.cuda.%s\", \"gemv_kernel\": \"%s\", \"m\": %d, \"n\": %d, "
      "\"k\": %d, \"copies\": %d, \"median_s_per_gemv\": %.6e, "
      "\"GBps\": %.1f, \"check_error\": %.3g, \"check_ok\": %s}\n",
      name, k::gemv_kernel_name(kern), m, n, kk, copies, per_call_s, bytes / per_call_s / 1e9,
      worst, ok ? "true" : "false");
  // The import row is the whole timed call over every copy: its working set (>= 2 GiB) is what
  // tells the import fit that a call streams from memory, where one 4-bit matrix (30 MB) would
  // count as L2-resident.
  if (ok) {
    keep({"gemv", name, m, n, kk, bytes * copies, per_call_s * copies, k::gemv_kernel_name(kern)});
  }
  for (auto p : wd) cudaFree(p);
  cudaFree(sd);
  cudaFree(xd);
  cudaFree(yd);
}

void write_import_csv(const char* path, const char* hardware, const cudaDeviceProp& p) {
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) {
    std::printf("{\"error\": \"cannot write %s\"}\n", path);
    ++failures;
    return;
  }
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  if (hardware != nullptr) std::fprintf(f, "# hardware: %s\n", hardware);
  std::fprintf(f, "# cache_bytes: %d\n", p.l2CacheSize);
  std::fprintf(f, "# machine: %s (sm_%d%d, %d SMs, %d MiB L2, %zu MiB), CUDA driver API %d\n",
               p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize >> 20,
               p.totalGlobalMem >> 20, driver);
  std::fprintf(f, "# date: %s\n", date);
  std::fprintf(f, "# commit: %s\n", INFERCAP_SMOKE_COMMIT);
  std::fprintf(f, "# command: cuda_smoke --csv %s%s%s\n", path, hardware ? " --hardware " : "",
               hardware ? hardware : "");
  std::fprintf(f,
               "# notes: calibration/cuda/cuda_smoke: read, copy and decode GEMV only (no cuBLAS "
               "GEMM, overheads or transfers); each point the faster passing kernel; a GEMV row is "
               "one call over >= 2 GiB of weight copies (none L2-resident); fp32 activations\n");
  std::fprintf(f, "kind,dtype,m,n,k,bytes,value,unit,source\n");
  for (const auto& [key, r] : import_rows) {
    const bool mm = r.kind == "gemv";
    std::fprintf(f, "%s,%s,", r.kind.c_str(), r.dtype.c_str());
    if (mm) {
      std::fprintf(f, "%d,%d,%d,", r.m, r.n, r.k);
    } else {
      std::fprintf(f, ",,,");
    }
    std::fprintf(f,
                 "%.0f,%.6e,s,\"measured: cuda_smoke (kernels.cu @ %s, %s kernel), CUDA-event "
                 "median, reference check passed\"\n",
                 r.bytes, r.seconds, INFERCAP_SMOKE_COMMIT, r.kernel.c_str());
  }
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  const char* csv = nullptr;
  const char* hardware = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = argv[i + 1];
    } else if (std::strcmp(argv[i], "--hardware") == 0) {
      hardware = argv[i + 1];
    }
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 2;
  }
  std::printf("{\"device\": \"%s\", \"sm\": \"%d%d\", \"sms\": %d, \"l2_bytes\": %d}\n", p.name,
              p.major, p.minor, p.multiProcessorCount, p.l2CacheSize);
  streams(p.multiProcessorCount);
  const std::pair<WeightFormat, const char*> fs[] = {{WeightFormat::bf16, "bf16"},
                                                     {WeightFormat::fp16, "fp16"},
                                                     {WeightFormat::fp8, "fp8"},
                                                     {WeightFormat::int8, "int8"},
                                                     {WeightFormat::int4, "int4"}};
  // Both GEMV kernels at the reference's shape (Llama-3-8B up projection), then the rows
  // kernel's other decode shapes: a few sequences at once, the 4096-row down projection, and an
  // odd row count (the last block's clamped rows).
  for (const auto kern : {k::GemvKernel::rows, k::GemvKernel::warp_per_row}) {
    for (const auto& [f, name] : fs) gemv(f, name, 1, 14336, 4096, kern);
    for (int m : {4, 8}) gemv(WeightFormat::bf16, "bf16", m, 14336, 4096, kern);
  }
  for (int m : {2, 3, 8}) gemv(WeightFormat::int8, "int8", m, 14336, 4096, k::GemvKernel::rows);
  for (const auto& [f, name] : fs) gemv(f, name, 1, 4096, 14336, k::GemvKernel::rows);
  gemv(WeightFormat::int4, "int4", 5, 4093, 1024, k::GemvKernel::rows);
  if (csv != nullptr) write_import_csv(csv, hardware, p);
  std::printf("{\"failures\": %d}\n", failures);
  return failures == 0 ? 0 : 1;
}
