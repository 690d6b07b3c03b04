#pragma once
// Launchers of the CUDA calibration kernels (kernels.cu), callable from plain C++. Every
// launcher enqueues on `stream` (a cudaStream_t; nullptr = the legacy default stream) and returns
// the cudaError_t of the launch as an int (0 = success). Buffers are device pointers.
#include <cstddef>
#include <cstdint>

namespace infercap::calibration::cudak {

/// Weight formats of the GEMV kernels. bf16/fp16: plain. fp8 (e4m3) and int8: one fp32 scale per
/// output row. int4: two weights per byte (low nibble first, stored + 8), one fp16 scale per
/// 128 consecutive weights of a row (GPTQ/AWQ-style groups).
enum class WeightFormat : int { bf16 = 0, fp16 = 1, fp8 = 2, int8 = 3, int4 = 4 };
inline constexpr int kInt4Group = 128;

/// Sums `n16` 16-byte vectors of floats; block b writes its partial sum to partial[b].
int launch_read_sum(const void* a, size_t n16, float* partial, int blocks, void* stream);
/// Copy kernels: 4 or 8 16-byte loads in flight per thread, with evict-first (streaming) or
/// default cache hints. streaming4 is the kernel of the first H200 measurement (2026-11-30).
enum class CopyKernel : int { streaming4 = 0, cached4 = 1, streaming8 = 2 };
inline constexpr CopyKernel kCopyKernels[] = {CopyKernel::streaming4, CopyKernel::cached4,
                                              CopyKernel::streaming8};
inline const char* copy_kernel_name(CopyKernel c) {
  return c == CopyKernel::streaming4 ? "streaming4"
         : c == CopyKernel::cached4  ? "cached4"
                                     : "streaming8";
}
/// b = a over `n16` 16-byte vectors, with `blocks` blocks of 256 threads.
int launch_copy(const void* a, void* b, size_t n16, int blocks, void* stream,
                CopyKernel kernel = CopyKernel::streaming4);
/// One empty kernel of one thread.
int launch_empty(void* stream);
/// The two GEMV kernels. `rows`: a block computes 4 output rows with its warps splitting k, so
/// each activation chunk loaded feeds 4 rows, and quantised weights are unpacked with bit tricks
/// (unpack.hpp). `warp_per_row`: one warp per output row, an I2F per quantised weight; the kernel
/// of the first H200 measurement (2026-11-30). The backend times both per shape and keeps the
/// faster one that passes the reference check.
enum class GemvKernel : int { rows = 0, warp_per_row = 1 };
inline const char* gemv_kernel_name(GemvKernel g) {
  return g == GemvKernel::rows ? "rows" : "warp_per_row";
}

/// y[m x n] (fp32) = x[m x k] (fp32) * W^T, W n x k in `fmt`; m in 1..8, n >= 1, k a multiple of
/// 128.
int launch_gemv(WeightFormat fmt, const void* w, const void* scales, const float* x, float* y,
                int m, int n, int k, void* stream, GemvKernel kernel = GemvKernel::rows);
/// The simple custom GEMM: C[m x n] (fp32) = A[m x k] (bf16) * B^T, B n x k (bf16), 64 x 64
/// tiles in shared memory, fp32 accumulation on the CUDA cores; m, n, k multiples of 64.
int launch_gemm_tiled_bf16(const void* a, const void* b, float* c, int m, int n, int k,
                           void* stream);

}  // namespace infercap::calibration::cudak
