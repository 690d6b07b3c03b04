// Memory streams of the CUDA backend (cuda_instances.hpp): HBM read (a sum, so nothing is
// optimised away) and device-to-device copy over a working set, and pinned host <-> device
// transfers (PCIe or C2C). Every call of run() ends with a synchronisation; a GEMV or stream
// call is large enough that the ~10 us of launch and sync is noise.
#include <cuda_runtime.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_instances.hpp"

namespace infercap::calibration::cuda_host {

namespace {

constexpr size_t kChunk = 64ull << 20;  // host staging for fills and checks

class StreamInstance : public KernelInstance {
 public:
  StreamInstance(KernelKind kind, size_t bytes) : kind_(kind) {
    // `bytes` is the working set: one array for read, two for copy.
    per_array_ = (kind == KernelKind::stream_copy ? bytes / 2 : bytes) / 16 * 16;
    a_ = DevBuf(per_array_);
    if (kind == KernelKind::stream_copy) b_ = DevBuf(per_array_);
    blocks_ = std::max(1, device().sms * 8);
    partial_ = DevBuf(static_cast<size_t>(blocks_) * 4);
    std::vector<float> host(kChunk / 4);
    for (size_t off = 0; off < per_array_; off += kChunk) {
      const size_t n = std::min(kChunk, per_array_ - off) / 4;
      for (size_t i = 0; i < n; ++i) {
        host[i] = 0.5f * (hash_unit(off / 4 + i, 1) + 1.f);  // [0, 1): sums stay well-conditioned
        ref_sum_ += host[i];
      }
      if (a_.p) cudaMemcpy(a_.as<char>() + off, host.data(), n * 4, cudaMemcpyHostToDevice);
    }
  }
  bool ok() const { return a_.p && partial_.p && (kind_ != KernelKind::stream_copy || b_.p); }
  // The copy kernel variant and grid that stream fastest here (median of three calls each, CUDA
  // events): a calibration reports the bandwidth a copy can reach, and which load depth and cache
  // hint reach it differs between GPUs. The read kernel already beats the reference's.
  void tune_copy() {
    if (kind_ != KernelKind::stream_copy || !ok()) return;
    float best = 0;
    for (const auto ck : cudak::kCopyKernels) {
      for (int per_sm : {4, 8, 16}) {
        const int blocks = std::max(1, device().sms * per_sm);
        const float ms = median_of_3_ms(
            [&] { cudak::launch_copy(a_.p, b_.p, per_array_ / 16, blocks, nullptr, ck); }, true);
        if (cudaGetLastError() == cudaSuccess && (best == 0 || ms < best)) {
          best = ms;
          copy_kernel_ = ck;
          blocks_ = blocks;
        }
      }
    }
  }
  void run() override {
    if (kind_ == KernelKind::stream_copy) {
      cudak::launch_copy(a_.p, b_.p, per_array_ / 16, blocks_, nullptr, copy_kernel_);
    } else {
      cudak::launch_read_sum(a_.p, per_array_ / 16, partial_.as<float>(), blocks_, nullptr);
    }
    sync();
  }
  CheckResult check() override {
    CheckResult r;
    if (kind_ == KernelKind::stream_copy) {
      std::vector<char> ha(kChunk), hb(kChunk);
      bool same = true;
      for (size_t off = 0; off < per_array_ && same; off += kChunk) {
        const size_t n = std::min(kChunk, per_array_ - off);
        cudaMemcpy(ha.data(), a_.as<char>() + off, n, cudaMemcpyDeviceToHost);
        cudaMemcpy(hb.data(), b_.as<char>() + off, n, cudaMemcpyDeviceToHost);
        same = std::memcmp(ha.data(), hb.data(), n) == 0;
      }
      r.ok = same;
      r.error = same ? 0 : 1;
      if (!same) r.message = "the copy differs from its source";
      return r;
    }
    std::vector<float> part(static_cast<size_t>(blocks_));
    cudaMemcpy(part.data(), partial_.p, part.size() * 4, cudaMemcpyDeviceToHost);
    double got = 0;
    for (float p : part) got += p;
    r.error = std::fabs(got - ref_sum_) / ref_sum_;
    r.tolerance = 1e-4;  // fp32 partial sums of values in [0, 1)
    r.ok = r.error <= r.tolerance;
    if (!r.ok) r.message = fmt::format("sum {} vs reference {}", got, ref_sum_);
    return r;
  }
  double bytes_per_call() const override {
    return static_cast<double>(per_array_) * (kind_ == KernelKind::stream_copy ? 2 : 1);
  }
  double flops_per_call() const override {
    return kind_ == KernelKind::stream_read ? static_cast<double>(per_array_) / 4 : 0;
  }

 private:
  KernelKind kind_;
  size_t per_array_ = 0;
  DevBuf a_, b_, partial_;
  int blocks_ = 1;
  cudak::CopyKernel copy_kernel_ = cudak::CopyKernel::streaming4;
  double ref_sum_ = 0;
};

// Pinned host <-> device copies (PCIe or C2C).
class TransferInstance : public KernelInstance {
 public:
  TransferInstance(bool to_device, size_t bytes) : to_device_(to_device), bytes_(bytes) {
    if (cudaMallocHost(&host_, bytes) != cudaSuccess) host_ = nullptr;
    dev_ = DevBuf(bytes);
    if (host_ != nullptr) {
      auto* h = static_cast<float*>(host_);
      for (size_t i = 0; i < bytes / 4; ++i) h[i] = hash_unit(i, 5);
      if (!to_device && dev_.p) cudaMemcpy(dev_.p, host_, bytes, cudaMemcpyHostToDevice);
    }
  }
  ~TransferInstance() override {
    if (host_) cudaFreeHost(host_);
  }
  TransferInstance(const TransferInstance&) = delete;
  TransferInstance& operator=(const TransferInstance&) = delete;
  bool ok() const { return host_ && dev_.p; }
  void run() override {
    if (to_device_) {
      cudaMemcpy(dev_.p, host_, bytes_, cudaMemcpyHostToDevice);
    } else {
      cudaMemcpy(host_, dev_.p, bytes_, cudaMemcpyDeviceToHost);
    }
  }
  CheckResult check() override {
    std::vector<float> back(bytes_ / 4);
    cudaMemcpy(back.data(), dev_.p, bytes_ / 4 * 4, cudaMemcpyDeviceToHost);
    const auto* h = static_cast<const float*>(host_);
    CheckResult r;
    r.ok = std::memcmp(back.data(), h, back.size() * 4) == 0;
    r.error = r.ok ? 0 : 1;
    if (!r.ok) r.message = "host and device copies differ";
    return r;
  }
  double bytes_per_call() const override { return static_cast<double>(bytes_); }
  double flops_per_call() const override { return 0; }

 private:
  bool to_device_;
  size_t bytes_;
  void* host_ = nullptr;
  DevBuf dev_;
};

}  // namespace

Prepared prepare_stream(KernelKind kind, const Shape& sh) {
  if (!device().ok) return no_device();
  if (sh.bytes < 65536) return Error{"CUDA stream: working set under 64 KiB"};
  auto p = std::make_unique<StreamInstance>(kind, static_cast<size_t>(sh.bytes));
  if (!p->ok()) return Error{"CUDA stream: cannot allocate the arrays"};
  p->tune_copy();
  return std::unique_ptr<KernelInstance>(std::move(p));
}

Prepared prepare_transfer(bool to_device, const Shape& sh) {
  if (!device().ok) return no_device();
  auto p = std::make_unique<TransferInstance>(to_device, static_cast<size_t>(sh.bytes) / 4 * 4);
  if (!p->ok()) return Error{"CUDA transfer: cannot allocate pinned or device memory"};
  return std::unique_ptr<KernelInstance>(std::move(p));
}

}  // namespace infercap::calibration::cuda_host
