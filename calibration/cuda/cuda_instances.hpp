#pragma once
// The CUDA backend's kernel instances, one factory per family, each in its own file:
//   cuda_memory.cpp  HBM read and device-to-device copy (read.cuda, copy.cuda), and pinned
//                    host <-> device transfers (h2d/d2h.cuda.pinned);
//   cuda_launch.cpp  call overheads: a launch in a stream, a synchronous launch, a 64-kernel
//                    CUDA-graph replay;
//   cuda_gemv.cpp    decode GEMV with bf16, fp16, fp8, int8 and int4 weights (kernels.cu);
//   cuda_gemm.cpp    GEMM through cuBLAS (bf16), cuBLASLt (fp8) and a simple tiled kernel.
// A factory checks the shape it is given and the device, allocates and fills the instance, and
// returns an Error (the text calibrate prints) when it cannot; a returned instance has passed
// nothing yet: the harness calls check() against the host reference once, then times run().
// cuda_backend.cpp names the kernels, their shapes per effort, and the module's entry point.
#include <memory>

#include "infercap/calibration/backend_module.hpp"
#include "kernels.hpp"

namespace infercap::calibration::cuda_host {

using Prepared = Result<std::unique_ptr<KernelInstance>>;

/// The error every factory returns without a device ("CUDA: " + why).
Prepared no_device();

/// stream_read over sh.bytes (>= 64 KiB), or stream_copy over sh.bytes split into two arrays.
/// A copy instance first picks the copy kernel and grid that stream fastest here.
Prepared prepare_stream(KernelKind kind, const Shape& sh);
/// A pinned host buffer of sh.bytes (rounded down to 4) copied to the device or back.
Prepared prepare_transfer(bool to_device, const Shape& sh);

enum class LaunchMode { stream, sync, graph };
/// One empty kernel per call: enqueued only (stream), waited for (sync), or a graph of 64.
Prepared prepare_launch(LaunchMode mode);

/// y (m x n) = x (m x k) W^T with W n x k in `format`: m in 1..8, k a multiple of 128.
Prepared prepare_gemv(cudak::WeightFormat format, const Shape& sh);

enum class GemmImpl { cublas_bf16, cublaslt_fp8, tiled_bf16 };
/// C (m x n) = A (m x k) B^T: m, n, k multiples of 64.
Prepared prepare_gemm(GemmImpl impl, const Shape& sh);

}  // namespace infercap::calibration::cuda_host
