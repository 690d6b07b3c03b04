// CUDA calibration kernels. Bandwidth kernels and the GEMV move 128-bit vectors per thread and
// keep several loads in flight, so what they measure is the memory system, not the issue rate.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels.hpp"
#include "unpack.hpp"

namespace infercap::calibration::cudak {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float sum4(uint4 v) {
  return __uint_as_float(v.x) + __uint_as_float(v.y) + __uint_as_float(v.z) + __uint_as_float(v.w);
}

__global__ void read_sum_kernel(const uint4* __restrict__ a, size_t n,
                                float* __restrict__ partial) {
  __shared__ float red[kThreads];
  float s = 0.f;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 v0 = __ldcs(a + i), v1 = __ldcs(a + i + stride), v2 = __ldcs(a + i + 2 * stride),
                v3 = __ldcs(a + i + 3 * stride);
    s += (sum4(v0) + sum4(v1)) + (sum4(v2) + sum4(v3));
  }
  for (; i < n; i += stride) s += sum4(__ldcs(a + i));
  red[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = red[0];
}

// Depth 16-byte loads in flight per thread, then the stores; Streaming: evict-first hints
// (ld.global.cs / st.global.cs), else default caching. Which is fastest depends on the GPU, so the
// backend times the variants and keeps the best.
template <bool Streaming, int Depth>
__global__ void copy_kernel(const uint4* __restrict__ a, uint4* __restrict__ b, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (Depth - 1) * stride < n; i += Depth * stride) {
    uint4 v[Depth];
#pragma unroll
    for (int d = 0; d < Depth; ++d)
      v[d] = Streaming ? __ldcs(a + i + d * stride) : a[i + d * stride];
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      if constexpr (Streaming)
        __stcs(b + i + d * stride, v[d]);
      else
        b[i + d * stride] = v[d];
    }
  }
  for (; i < n; i += stride) b[i] = a[i];
}

__global__ void empty_kernel() {}

// ---- GEMV weight formats: 16 bytes of weights per lane per step -------------------------------

template <WeightFormat F>
struct Fmt;
template <>
struct Fmt<WeightFormat::bf16> {
  static constexpr int per_vec = 8;
  __device__ static void unpack(uint4 v, float* w) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = __bfloat1622float2(h[i]);
      w[2 * i] = f.x;
      w[2 * i + 1] = f.y;
    }
  }
};
template <>
struct Fmt<WeightFormat::fp16> {
  static constexpr int per_vec = 8;
  __device__ static void unpack(uint4 v, float* w) {
    const __half2* h = reinterpret_cast<const __half2*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = __half22float2(h[i]);
      w[2 * i] = f.x;
      w[2 * i + 1] = f.y;
    }
  }
};
template <>
struct Fmt<WeightFormat::fp8> {
  static constexpr int per_vec = 16;
  __device__ static void unpack(uint4 v, float* w) {
    const __nv_fp8x2_e4m3* h = reinterpret_cast<const __nv_fp8x2_e4m3*>(&v);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const float2 f = static_cast<float2>(h[i]);
      w[2 * i] = f.x;
      w[2 * i + 1] = f.y;
    }
  }
};
template <>
struct Fmt<WeightFormat::int8> {
  static constexpr int per_vec = 16;
  __device__ static void unpack(uint4 v, float* w) {
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 16; ++i)
      w[i] = static_cast<float>(static_cast<signed char>((words[i / 4] >> (8 * (i % 4))) & 0xff));
  }
};
template <>
struct Fmt<WeightFormat::int4> {
  static constexpr int per_vec = 32;
  __device__ static void unpack(uint4 v, float* w) {
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 32; ++i)
      w[i] = static_cast<float>(static_cast<int>((words[i / 8] >> (4 * (i % 8))) & 0xf) - 8);
  }
};

// ---- GEMV, rows kernel: a block computes kRows output rows; its warps split k ------------------
//
// Why: in the warp-per-row kernel every weight byte costs 2-8 bytes of fp32 activation loads
// (from L1) plus an I2F conversion per quantised weight, so the 8- and 4-bit formats ran at a
// third (a tenth) of HBM bandwidth on the H200 (docs/calibration-accelerators.md). Here each
// activation chunk loaded feeds kRows rows, quantised weights are unpacked with the magic-number
// trick (unpack.hpp), and splitting k over the block's warps keeps n / kRows blocks enough to
// fill the GPU even for a 4096-row down projection.

constexpr int kRows = 4;
constexpr int kMaxWarps = 8;

__device__ __forceinline__ uint32_t word_of(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

/// Weights [8 s, 8 s + 8) of a 16-byte vector as floats (s < per_vec / 8).
template <WeightFormat F>
__device__ __forceinline__ void unpack8(const uint4& v, int s, float* w) {
  if constexpr (F == WeightFormat::bf16) {
#pragma unroll
    for (int i = 0; i < 4; ++i) unpack_bf16x2(word_of(v, i), w + 2 * i);
  } else if constexpr (F == WeightFormat::fp16) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t u = word_of(v, i);
      const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&u));
      w[2 * i] = f.x;
      w[2 * i + 1] = f.y;
    }
  } else if constexpr (F == WeightFormat::fp8) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const uint32_t u = word_of(v, 2 * s + i);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const __half2_raw raw = __nv_cvt_fp8x2_to_halfraw2(
            static_cast<__nv_fp8x2_storage_t>((u >> (16 * h)) & 0xffffu), __NV_E4M3);
        const float2 f = __half22float2(__half2(raw));
        w[4 * i + 2 * h] = f.x;
        w[4 * i + 2 * h + 1] = f.y;
      }
    }
  } else if constexpr (F == WeightFormat::int8) {
    unpack_s8x4(word_of(v, 2 * s), w);
    unpack_s8x4(word_of(v, 2 * s + 1), w + 4);
  } else {
    unpack_u4x8(word_of(v, s), w);
  }
}

template <WeightFormat F, int M>
__global__ void __launch_bounds__(32 * kMaxWarps)
    gemv_rows_kernel(const uint4* __restrict__ w, const void* __restrict__ scales,
                     const float* __restrict__ x, float* __restrict__ y, int m, int n, int k) {
  constexpr int P = Fmt<F>::per_vec;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int row0 = blockIdx.x * kRows;
  const int vecs = k / P;
  // Rows past n (the last block) read row n - 1 and are not written: no branch in the loop.
  int rows[kRows];
  const uint4* wr[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    rows[j] = min(row0 + j, n - 1);
    wr[j] = w + static_cast<size_t>(rows[j]) * vecs;
  }
  float acc[M][kRows];
#pragma unroll
  for (int r = 0; r < M; ++r)
#pragma unroll
    for (int j = 0; j < kRows; ++j) acc[r][j] = 0.f;

  for (int v = warp * 32 + lane; v < vecs; v += warps * 32) {
    uint4 raw[kRows];
#pragma unroll
    for (int j = 0; j < kRows; ++j) raw[j] = __ldcs(wr[j] + v);
    float gs[kRows];
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      gs[j] = 1.f;
      if constexpr (F == WeightFormat::int4)
        gs[j] = __half2float(__ldg(static_cast<const __half*>(scales) +
                                   static_cast<size_t>(rows[j]) * (k / kInt4Group) +
                                   v * P / kInt4Group));
    }
#pragma unroll
    for (int s = 0; s < P / 8; ++s) {
      float wf[kRows][8];
#pragma unroll
      for (int j = 0; j < kRows; ++j) unpack8<F>(raw[j], s, wf[j]);
#pragma unroll
      for (int r = 0; r < M; ++r) {
        if (r >= m) break;
        const float4* xp =
            reinterpret_cast<const float4*>(x + static_cast<size_t>(r) * k + v * P + 8 * s);
        const float4 a = __ldg(xp), b = __ldg(xp + 1);
#pragma unroll
        for (int j = 0; j < kRows; ++j) {
          const float* q = wf[j];
          const float d = q[0] * a.x + q[1] * a.y + q[2] * a.z + q[3] * a.w + q[4] * b.x +
                          q[5] * b.y + q[6] * b.z + q[7] * b.w;
          acc[r][j] = fmaf(d, gs[j], acc[r][j]);
        }
      }
    }
  }

  __shared__ float red[kMaxWarps][M * kRows];
#pragma unroll
  for (int r = 0; r < M; ++r)
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      float s = acc[r][j];
#pragma unroll
      for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
      if (lane == 0) red[warp][r * kRows + j] = s;
    }
  __syncthreads();
  const int t = threadIdx.x;
  if (t < M * kRows) {
    const int r = t / kRows, j = t % kRows;
    if (r < m && row0 + j < n) {
      float s = 0.f;
      for (int i = 0; i < warps; ++i) s += red[i][t];
      if constexpr (F == WeightFormat::fp8 || F == WeightFormat::int8)
        s *= static_cast<const float*>(scales)[row0 + j];
      y[static_cast<size_t>(r) * n + row0 + j] = s;
    }
  }
}

template <WeightFormat F, int M>
int gemv_rows_launch(const void* w, const void* scales, const float* x, float* y, int m, int n,
                     int k, cudaStream_t s) {
  // Each lane should stream at least two vectors of a row: fewer warps for short rows.
  const int vecs = k / Fmt<F>::per_vec;
  const int warps = max(1, min(kMaxWarps, vecs / 64));
  const dim3 grid((n + kRows - 1) / kRows), block(32 * warps);
  gemv_rows_kernel<F, M>
      <<<grid, block, 0, s>>>(static_cast<const uint4*>(w), scales, x, y, m, n, k);
  return static_cast<int>(cudaGetLastError());
}

template <WeightFormat F>
int gemv_rows_for(const void* w, const void* scales, const float* x, float* y, int m, int n, int k,
                  cudaStream_t s) {
  if (m == 1) return gemv_rows_launch<F, 1>(w, scales, x, y, m, n, k, s);
  if (m == 2) return gemv_rows_launch<F, 2>(w, scales, x, y, m, n, k, s);
  if (m <= 4) return gemv_rows_launch<F, 4>(w, scales, x, y, m, n, k, s);
  return gemv_rows_launch<F, 8>(w, scales, x, y, m, n, k, s);
}

// ---- GEMV, warp-per-row kernel (the one measured on the H200 on 2026-11-30) --------------------

template <WeightFormat F, int M>
__global__ void gemv_kernel(const uint4* __restrict__ w, const void* __restrict__ scales,
                            const float* __restrict__ x, float* __restrict__ y, int m, int n,
                            int k) {
  constexpr int P = Fmt<F>::per_vec;
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  if (row >= n) return;
  const int vecs = k / P;
  const uint4* wr = w + static_cast<size_t>(row) * vecs;
  float acc[M];
#pragma unroll
  for (int r = 0; r < M; ++r) acc[r] = 0.f;
  // Two independent 16-byte loads per lane per iteration keep enough bytes in flight.
  int v = lane;
  for (; v + 32 < vecs; v += 64) {
    const uint4 a = __ldcs(wr + v), b = __ldcs(wr + v + 32);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int vv = half == 0 ? v : v + 32;
      float wf[P];
      Fmt<F>::unpack(half == 0 ? a : b, wf);
      float gs = 1.f;
      if constexpr (F == WeightFormat::int4)
        gs = __half2float(static_cast<const __half*>(
            scales)[static_cast<size_t>(row) * (k / kInt4Group) + vv * P / kInt4Group]);
#pragma unroll
      for (int r = 0; r < M; ++r) {
        if (r >= m) break;
        const float4* xr = reinterpret_cast<const float4*>(x + static_cast<size_t>(r) * k + vv * P);
        float s = 0.f;
#pragma unroll
        for (int q = 0; q < P / 4; ++q) {
          const float4 xv = __ldg(xr + q);
          s +=
              wf[4 * q] * xv.x + wf[4 * q + 1] * xv.y + wf[4 * q + 2] * xv.z + wf[4 * q + 3] * xv.w;
        }
        acc[r] += s * gs;
      }
    }
  }
  for (; v < vecs; v += 32) {
    float wf[P];
    Fmt<F>::unpack(__ldcs(wr + v), wf);
    float gs = 1.f;
    if constexpr (F == WeightFormat::int4)
      gs = __half2float(static_cast<const __half*>(
          scales)[static_cast<size_t>(row) * (k / kInt4Group) + v * P / kInt4Group]);
#pragma unroll
    for (int r = 0; r < M; ++r) {
      if (r >= m) break;
      const float4* xr = reinterpret_cast<const float4*>(x + static_cast<size_t>(r) * k + v * P);
      float s = 0.f;
#pragma unroll
      for (int q = 0; q < P / 4; ++q) {
        const float4 xv = __ldg(xr + q);
        s += wf[4 * q] * xv.x + wf[4 * q + 1] * xv.y + wf[4 * q + 2] * xv.z + wf[4 * q + 3] * xv.w;
      }
      acc[r] += s * gs;
    }
  }
  float rs = 1.f;
  if constexpr (F == WeightFormat::fp8 || F == WeightFormat::int8)
    rs = static_cast<const float*>(scales)[row];
#pragma unroll
  for (int r = 0; r < M; ++r) {
    float s = acc[r];
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0 && r < m) y[static_cast<size_t>(r) * n + row] = s * rs;
  }
}

template <WeightFormat F>
int gemv_for(const void* w, const void* scales, const float* x, float* y, int m, int n, int k,
             cudaStream_t s) {
  constexpr int kWarps = 4;
  const dim3 grid((n + kWarps - 1) / kWarps), block(32 * kWarps);
  if (m == 1)
    gemv_kernel<F, 1><<<grid, block, 0, s>>>(static_cast<const uint4*>(w), scales, x, y, m, n, k);
  else
    gemv_kernel<F, 8><<<grid, block, 0, s>>>(static_cast<const uint4*>(w), scales, x, y, m, n, k);
  return static_cast<int>(cudaGetLastError());
}

// ---- the simple tiled GEMM -------------------------------------------------------------------

constexpr int kTile = 64, kTileK = 16;

__global__ void gemm_tiled_kernel(const __nv_bfloat16* __restrict__ a,
                                  const __nv_bfloat16* __restrict__ b, float* __restrict__ c, int m,
                                  int n, int k) {
  __shared__ float as[kTileK][kTile + 1];
  __shared__ float bs[kTileK][kTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // 16 x 16 threads, 4 x 4 outputs each
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kTileK) {
    for (int i = threadIdx.x; i < kTile * kTileK; i += 256) {
      const int r = i / kTileK, kk = i % kTileK;
      as[kk][r] = __bfloat162float(a[static_cast<size_t>(row0 + r) * k + k0 + kk]);
      bs[kk][r] = __bfloat162float(b[static_cast<size_t>(col0 + r) * k + k0 + kk]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      float av[4], bv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        av[i] = as[kk][ty * 4 + i];
        bv[i] = bs[kk][tx * 4 + i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      c[static_cast<size_t>(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

}  // namespace

int launch_read_sum(const void* a, size_t n16, float* partial, int blocks, void* stream) {
  read_sum_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const uint4*>(a), n16, partial);
  return static_cast<int>(cudaGetLastError());
}

int launch_copy(const void* a, void* b, size_t n16, int blocks, void* stream, CopyKernel kernel) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* src = static_cast<const uint4*>(a);
  auto* dst = static_cast<uint4*>(b);
  switch (kernel) {
    case CopyKernel::streaming4:
      copy_kernel<true, 4><<<blocks, kThreads, 0, s>>>(src, dst, n16);
      break;
    case CopyKernel::cached4:
      copy_kernel<false, 4><<<blocks, kThreads, 0, s>>>(src, dst, n16);
      break;
    case CopyKernel::streaming8:
      copy_kernel<true, 8><<<blocks, kThreads, 0, s>>>(src, dst, n16);
      break;
  }
  return static_cast<int>(cudaGetLastError());
}

int launch_empty(void* stream) {
  empty_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>();
  return static_cast<int>(cudaGetLastError());
}

int launch_gemv(WeightFormat fmt, const void* w, const void* scales, const float* x, float* y,
                int m, int n, int k, void* stream, GemvKernel kernel) {
  if (m < 1 || m > 8 || n < 1 || k % kInt4Group != 0)
    return static_cast<int>(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  const auto launch = [&](auto format) {
    constexpr WeightFormat F = decltype(format)::value;
    return kernel == GemvKernel::rows ? gemv_rows_for<F>(w, scales, x, y, m, n, k, s)
                                      : gemv_for<F>(w, scales, x, y, m, n, k, s);
  };
  switch (fmt) {
    case WeightFormat::bf16:
      return launch(std::integral_constant<WeightFormat, WeightFormat::bf16>{});
    case WeightFormat::fp16:
      return launch(std::integral_constant<WeightFormat, WeightFormat::fp16>{});
    case WeightFormat::fp8:
      return launch(std::integral_constant<WeightFormat, WeightFormat::fp8>{});
    case WeightFormat::int8:
      return launch(std::integral_constant<WeightFormat, WeightFormat::int8>{});
    case WeightFormat::int4:
      return launch(std::integral_constant<WeightFormat, WeightFormat::int4>{});
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int launch_gemm_tiled_bf16(const void* a, const void* b, float* c, int m, int n, int k,
                           void* stream) {
  if (m % kTile != 0 || n % kTile != 0 || k % kTileK != 0)
    return static_cast<int>(cudaErrorInvalidValue);
  const dim3 grid(n / kTile, m / kTile);
  gemm_tiled_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), c, m, n, k);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace infercap::calibration::cudak
