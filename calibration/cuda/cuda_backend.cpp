// CUDA calibration backend: HBM read and device-to-device copy, decode GEMV with bf16, fp16,
// fp8, int8 and int4 weights (kernels.cu), GEMM through cuBLAS (bf16) and cuBLASLt (fp8) and a
// simple tiled kernel, launch / synchronous launch / CUDA-graph replay overheads, and pinned
// host-device transfers. Every instance is checked against a host reference once.
//
// Timing: the harness times run() with the host clock, so run() ends with a stream
// synchronisation and does enough work that the ~10 us of launch + sync is noise: a GEMV call
// streams G copies of the weight matrix back to back (G >= 8, >= 2 GiB in all), which also keeps
// every call out of the 50-60 MB L2, as a decode step over many layers is. The exception is
// launch.cuda, which enqueues one empty kernel and does not wait: the harness batches such short
// calls, so its figure is the steady-state cost per kernel in a stream (launch throughput).
//
// This file names the kernels (their specs and availability), the shapes each effort measures,
// and the harness options; the instances are in cuda_memory.cpp, cuda_launch.cpp,
// cuda_gemv.cpp and cuda_gemm.cpp (cuda_instances.hpp), what they share in cuda_device.hpp.
#include <fmt/core.h>

#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_instances.hpp"
#include "infercap/calibration/backend_module.hpp"
#include "kernels.hpp"

namespace infercap::calibration {

namespace cuda_host {

Prepared no_device() {
  return Error{"CUDA: " + device().why};
}

}  // namespace cuda_host

namespace {

using cuda_host::cuda_available;
using cuda_host::GemmImpl;
using cuda_host::LaunchMode;
using cuda_host::need_sm90_fp8;
using cuda_host::Prepared;
using cudak::WeightFormat;

std::vector<KernelSpec> cuda_kernels() {
  std::vector<KernelSpec> ks;
  auto add = [&](std::string name, KernelKind kind, std::string isa, DType w, ComputeType c,
                 std::function<Availability()> avail, std::function<Prepared(const Shape&)> prep) {
    KernelSpec s;
    s.name = std::move(name);
    s.kind = kind;
    s.isa = std::move(isa);
    s.weights = w;
    s.compute = c;
    s.available = std::move(avail);
    s.prepare = std::move(prep);
    ks.push_back(std::move(s));
  };
  for (auto kind : {KernelKind::stream_read, KernelKind::stream_copy}) {
    add(kind == KernelKind::stream_read ? "read.cuda" : "copy.cuda", kind, "cuda", DType::fp32,
        ComputeType::fp32, cuda_available,
        [kind](const Shape& sh) { return cuda_host::prepare_stream(kind, sh); });
  }
  for (bool h2d : {true, false}) {
    add(h2d ? "h2d.cuda.pinned" : "d2h.cuda.pinned", KernelKind::stream_copy, "pcie", DType::fp32,
        ComputeType::fp32, cuda_available,
        [h2d](const Shape& sh) { return cuda_host::prepare_transfer(h2d, sh); });
  }
  const std::pair<WeightFormat, DType> formats[] = {{WeightFormat::bf16, DType::bf16},
                                                    {WeightFormat::fp16, DType::fp16},
                                                    {WeightFormat::fp8, DType::fp8},
                                                    {WeightFormat::int8, DType::int8},
                                                    {WeightFormat::int4, DType::int4}};
  for (const auto& [f, d] : formats) {
    const WeightFormat fmt_ = f;
    add(fmt::format("gemv.cuda.{}", dtype_name(d)), KernelKind::gemv, "cuda", d, ComputeType::fp32,
        f == WeightFormat::fp8 ? need_sm90_fp8 : cuda_available,
        [fmt_](const Shape& sh) { return cuda_host::prepare_gemv(fmt_, sh); });
  }
  const std::tuple<const char*, GemmImpl, DType, ComputeType, std::string> gemms[] = {
      {"gemm.cublas.bf16", GemmImpl::cublas_bf16, DType::bf16, ComputeType::bf16, "cublas"},
      {"gemm.cublaslt.fp8", GemmImpl::cublaslt_fp8, DType::fp8, ComputeType::fp8, "cublaslt"},
      {"gemm.tiled.bf16", GemmImpl::tiled_bf16, DType::bf16, ComputeType::fp32, "cuda"}};
  for (const auto& [name, impl, d, c, isa] : gemms) {
    const GemmImpl im = impl;
    add(name, KernelKind::gemm, isa, d, c,
        impl == GemmImpl::cublaslt_fp8 ? need_sm90_fp8 : cuda_available,
        [im](const Shape& sh) { return cuda_host::prepare_gemm(im, sh); });
  }
  const std::pair<const char*, LaunchMode> launches[] = {{"graph64.cuda", LaunchMode::graph},
                                                         {"launch_sync.cuda", LaunchMode::sync},
                                                         {"launch.cuda", LaunchMode::stream}};
  for (const auto& [name, mode] : launches) {
    const LaunchMode md = mode;
    add(name, KernelKind::call_overhead, "cuda", DType::fp32, ComputeType::fp32, cuda_available,
        [md](const Shape&) { return cuda_host::prepare_launch(md); });
  }
  return ks;
}

// The fit takes the last call-overhead row as the per-kernel overhead, so launch.cuda (steady-
// state cost per kernel in a stream) comes after the graph replay and the synchronous launch.
std::vector<PlanItem> cuda_plan(Effort effort, const MachineInfo&) {
  std::vector<PlanItem> p;
  const double gib = 1024.0 * 1024 * 1024, mib = 1024.0 * 1024;
  auto stream = [&](double bytes) {
    p.push_back({"read.cuda", Shape{1, -1, bytes, 0, 0, 0}});
    p.push_back({"copy.cuda", Shape{1, -1, 2 * bytes, 0, 0, 0}});
  };
  auto gemv = [&](int64_t m, int64_t n, int64_t k) {
    for (const char* w : {"bf16", "fp16", "fp8", "int8", "int4"})
      p.push_back({fmt::format("gemv.cuda.{}", w), Shape{1, -1, 0, m, n, k}});
  };
  auto gemm = [&](int64_t s) {
    for (const char* g : {"gemm.cublas.bf16", "gemm.cublaslt.fp8"})
      p.push_back({g, Shape{1, -1, 0, s, s, s}});
  };
  if (effort == Effort::tiny) {
    stream(64 * mib);
    gemv(1, 256, 1024);
    p.push_back({"gemm.cublas.bf16", Shape{1, -1, 0, 256, 256, 256}});
    p.push_back({"gemm.tiled.bf16", Shape{1, -1, 0, 256, 256, 256}});
  } else {
    if (effort == Effort::full)
      for (double b : {8 * mib, 32 * mib, 128 * mib, 512 * mib, 1 * gib}) stream(b);
    stream(4 * gib);
    gemv(1, 14336, 4096);  // Llama-3-8B FFN up projection: the reference's skinny GEMM shape
    if (effort == Effort::full) {
      for (int64_t m : {2, 4, 8}) gemv(m, 14336, 4096);
      gemv(1, 4096, 14336);  // down projection
      gemv(1, 57344, 8192);  // Llama-3-70B gate+up, fused
      gemm(4096);
    }
    gemm(8192);
    p.push_back({"gemm.tiled.bf16", Shape{1, -1, 0, 4096, 4096, 4096}});
    for (const char* d : {"h2d.cuda.pinned", "d2h.cuda.pinned"})
      p.push_back({d, Shape{1, -1, 256 * mib, 0, 0, 0}});
  }
  for (const char* l : {"graph64.cuda", "launch_sync.cuda", "launch.cuda"})
    p.push_back({l, Shape{1, -1, 0, 0, 0, 0}});
  return p;
}

HarnessOptions cuda_harness(Effort e) {
  HarnessOptions o;
  o.warmup_s = e == Effort::tiny ? 0.005 : 0.05;
  o.budget_s = e == Effort::tiny ? 0.02 : e == Effort::quick ? 0.3 : 0.6;
  o.min_reps = e == Effort::tiny ? 3 : 10;
  return o;
}

}  // namespace

// The backend this module offers; the entry point below hands it to the host.
Backend make_cuda_backend() {
  Backend b;
  b.name = "cuda";
  b.description =
      "CUDA kernels: HBM read/copy, GEMV bf16/fp16/fp8/int8/int4, cuBLAS(Lt) GEMM "
      "bf16/fp8 and a tiled kernel, launch and graph overheads, host transfers";
  b.available = cuda_available;
  b.kernels = cuda_kernels;
  b.plan = cuda_plan;
  b.harness_options = cuda_harness;
  return b;
}

}  // namespace infercap::calibration

// The module's entry point (backend_module.hpp): libinfercap-backend-cuda.so.
INFERCAP_DEFINE_BACKEND_MODULE(infercap::calibration::make_cuda_backend)
