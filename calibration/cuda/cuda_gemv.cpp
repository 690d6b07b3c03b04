// Decode GEMV of the CUDA backend (cuda_instances.hpp): bf16, fp16, fp8 (e4m3, a scale per row),
// int8 (a scale per row) and int4 (an fp16 scale per 128 weights) weights, fp32 activations and
// sums (kernels.cu). A call streams G copies of the weight matrix back to back (G >= 8, >= 2 GiB
// in all), as a decode step over many layers does, which also keeps every call out of the
// 50-60 MB L2. The reference is the dequantised weights times x in double.
#include <cuda_runtime.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_instances.hpp"
#include "infercap/calibration/half.hpp"
#include "kernels.hpp"

namespace infercap::calibration::cuda_host {

namespace {

using cudak::WeightFormat;

double weight_bytes_per_element(WeightFormat f) {
  switch (f) {
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return 2;
    case WeightFormat::fp8:
    case WeightFormat::int8:
      return 1;
    case WeightFormat::int4:
      return 0.5;
  }
  return 2;
}

// INFERCAP_CUDA_GEMV=rows or =warp_per_row pins one of the two kernels (kernels.hpp); unset, each
// instance times both on its own shape and keeps the faster one that passes the reference check,
// as a BLAS picks a kernel per shape: the profile records what the project's kernels achieve.
std::optional<cudak::GemvKernel> gemv_kernel_from_env() {
  const char* e = std::getenv("INFERCAP_CUDA_GEMV");
  if (e == nullptr) return std::nullopt;
  if (std::strcmp(e, "warp_per_row") == 0) return cudak::GemvKernel::warp_per_row;
  if (std::strcmp(e, "rows") == 0) return cudak::GemvKernel::rows;
  return std::nullopt;
}

class GemvInstance : public KernelInstance {
 public:
  GemvInstance(WeightFormat f, int m, int n, int k) : f_(f), m_(m), n_(n), k_(k) {
    const size_t nk = static_cast<size_t>(n) * static_cast<size_t>(k);
    const auto wbytes = static_cast<size_t>(static_cast<double>(nk) * weight_bytes_per_element(f));
    std::vector<unsigned char> w(wbytes, 0);
    wq_.resize(nk);
    std::vector<float> row_scale(static_cast<size_t>(n), 1.f);
    std::vector<uint16_t> group_scale;
    const int groups = k / cudak::kInt4Group;
    if (f == WeightFormat::int4) group_scale.resize(static_cast<size_t>(n) * groups);
    for (int r = 0; r < n; ++r) {
      const size_t base = static_cast<size_t>(r) * k;
      if (f == WeightFormat::fp8 || f == WeightFormat::int8) {
        // One scale per row: max |w| maps to the format's largest value.
        float amax = 0;
        for (int j = 0; j < k; ++j) amax = std::max(amax, std::fabs(hash_unit(base + j, 3)));
        const float top = f == WeightFormat::fp8 ? 448.f : 127.f;
        row_scale[static_cast<size_t>(r)] = amax > 0 ? amax / top : 1.f;
      }
      for (int g = 0; f == WeightFormat::int4 && g < groups; ++g) {
        float amax = 0;
        const size_t g0 = base + static_cast<size_t>(g) * cudak::kInt4Group;
        for (int j = 0; j < cudak::kInt4Group; ++j)
          amax = std::max(amax, std::fabs(hash_unit(g0 + j, 3)));
        // The scale is stored in fp16; the reference uses the stored value.
        group_scale[static_cast<size_t>(r) * groups + g] =
            fp32_to_fp16(amax > 0 ? amax / 7.f : 1.f);
      }
      for (int j = 0; j < k; ++j) {
        const size_t i = base + j;
        const float v = hash_unit(i, 3);
        switch (f) {
          case WeightFormat::bf16: {
            const uint16_t h = fp32_to_bf16(v);
            std::memcpy(&w[2 * i], &h, 2);
            wq_[i] = bf16_to_fp32(h);
            break;
          }
          case WeightFormat::fp16: {
            const uint16_t h = fp32_to_fp16(v);
            std::memcpy(&w[2 * i], &h, 2);
            wq_[i] = fp16_to_fp32(h);
            break;
          }
          case WeightFormat::fp8: {
            const float s = row_scale[static_cast<size_t>(r)];
            w[i] = to_e4m3(v / s);
            wq_[i] = e4m3_value(w[i]) * s;
            break;
          }
          case WeightFormat::int8: {
            const float s = row_scale[static_cast<size_t>(r)];
            const int q = std::clamp(static_cast<int>(std::lround(v / s)), -127, 127);
            w[i] = static_cast<unsigned char>(static_cast<signed char>(q));
            wq_[i] = static_cast<float>(q) * s;
            break;
          }
          case WeightFormat::int4: {
            const float s =
                fp16_to_fp32(group_scale[static_cast<size_t>(r) * groups + j / cudak::kInt4Group]);
            const int q = std::clamp(static_cast<int>(std::lround(v / s)), -7, 7);
            w[i / 2] = static_cast<unsigned char>(w[i / 2] | ((q + 8) << ((i & 1) * 4)));
            wq_[i] = static_cast<float>(q) * s;
            break;
          }
        }
      }
    }
    x_.resize(static_cast<size_t>(m) * k);
    for (size_t i = 0; i < x_.size(); ++i) x_[i] = hash_unit(i, 9);
    // G copies of the weights (>= 8, >= 2 GiB in all, capped by free memory): one call streams
    // them all, as a decode step streams every layer, and none is L2-resident between uses.
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    const double target = 2.0 * 1024 * 1024 * 1024;
    int g = std::max(8, static_cast<int>(std::ceil(target / static_cast<double>(wbytes))));
    g = std::min({g, 256,
                  std::max(1, static_cast<int>(0.5 * static_cast<double>(free_b) /
                                               static_cast<double>(wbytes)))});
    for (int c = 0; c < g; ++c) {
      DevBuf b(wbytes);
      if (!b.p) break;
      cudaMemcpy(b.p, w.data(), wbytes, cudaMemcpyHostToDevice);
      copies_.push_back(std::move(b));
    }
    weight_bytes_ = static_cast<double>(wbytes);
    if (f == WeightFormat::int4) {
      scales_ = DevBuf(group_scale.size() * 2);
      if (scales_.p)
        cudaMemcpy(scales_.p, group_scale.data(), scales_.bytes, cudaMemcpyHostToDevice);
    } else if (f == WeightFormat::fp8 || f == WeightFormat::int8) {
      scales_ = DevBuf(row_scale.size() * 4);
      if (scales_.p) cudaMemcpy(scales_.p, row_scale.data(), scales_.bytes, cudaMemcpyHostToDevice);
    }
    scale_bytes_ = static_cast<double>(scales_.bytes);
    xd_ = DevBuf(x_.size() * 4);
    if (xd_.p) cudaMemcpy(xd_.p, x_.data(), x_.size() * 4, cudaMemcpyHostToDevice);
    yd_ = DevBuf(static_cast<size_t>(m) * n * 4);
    if (ok()) choose_kernel();
  }
  bool ok() const {
    const bool scaled = f_ != WeightFormat::bf16 && f_ != WeightFormat::fp16;
    return !copies_.empty() && xd_.p && yd_.p && (!scaled || scales_.p);
  }
  int copies() const { return static_cast<int>(copies_.size()); }
  void run() override {
    launch_all(kernel_);
    sync();
  }
  CheckResult check() override {
    if (auto failed = launch_failure()) return *failed;
    CheckResult r;
    r.tolerance = kTolerance;
    r.error = output_error();
    r.ok = r.error <= r.tolerance;
    if (!r.ok) {
      r.message = fmt::format("GEMV ({} kernel) error {:.3g} > {:.1g}",
                              cudak::gemv_kernel_name(kernel_), r.error, r.tolerance);
    }
    return r;
  }
  double bytes_per_call() const override {
    const double act = 4.0 * m_ * (static_cast<double>(k_) + n_);
    return static_cast<double>(copies_.size()) * (weight_bytes_ + scale_bytes_ + act);
  }
  double flops_per_call() const override {
    return static_cast<double>(copies_.size()) * 2.0 * m_ * static_cast<double>(n_) * k_;
  }

 private:
  static constexpr double kTolerance = 1e-4;  // fp32 sums in another order, relative to sum |w x|

  void launch_all(cudak::GemvKernel kernel) {
    for (const auto& c : copies_) {
      cudak::launch_gemv(f_, c.p, scales_.p, xd_.as<float>(), yd_.as<float>(), m_, n_, k_, nullptr,
                         kernel);
    }
  }
  // max |y - ref| / sum |w x| over every output, against the dequantised weights in double.
  double output_error() {
    if (ref_.empty()) {
      ref_.assign(static_cast<size_t>(m_) * n_, 0.0);
      mag_.assign(ref_.size(), 0.0);
      for (int b = 0; b < m_; ++b) {
        for (int o = 0; o < n_; ++o) {
          double ref = 0, mag = 0;
          for (int j = 0; j < k_; ++j) {
            const double p = static_cast<double>(wq_[static_cast<size_t>(o) * k_ + j]) *
                             x_[static_cast<size_t>(b) * k_ + j];
            ref += p;
            mag += std::fabs(p);
          }
          ref_[static_cast<size_t>(b) * n_ + o] = ref;
          mag_[static_cast<size_t>(b) * n_ + o] = std::max(mag, 1e-30);
        }
      }
    }
    std::vector<float> y(ref_.size());
    cudaMemcpy(y.data(), yd_.p, y.size() * 4, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i)
      worst = std::max(worst, std::fabs(y[i] - ref_[i]) / mag_[i]);
    return worst;
  }
  // Each candidate: one checked call, then the median of three calls timed with CUDA events.
  void choose_kernel() {
    if (const auto pinned = gemv_kernel_from_env()) {
      kernel_ = *pinned;
      return;
    }
    float best = 0;
    for (const auto kern : {cudak::GemvKernel::rows, cudak::GemvKernel::warp_per_row}) {
      cudaMemset(yd_.p, 0, yd_.bytes);
      launch_all(kern);
      sync();
      if (cudaGetLastError() != cudaSuccess || output_error() > kTolerance) continue;
      // The checked call above warmed this kernel up.
      const float ms = median_of_3_ms([&] { launch_all(kern); }, false);
      if (best == 0 || ms < best) {
        best = ms;
        kernel_ = kern;
      }
    }
  }

  WeightFormat f_;
  int m_, n_, k_;
  cudak::GemvKernel kernel_ = cudak::GemvKernel::rows;
  std::vector<double> ref_, mag_;
  std::vector<float> wq_, x_;
  std::vector<DevBuf> copies_;
  DevBuf scales_, xd_, yd_;
  double weight_bytes_ = 0, scale_bytes_ = 0;
};

}  // namespace

Prepared prepare_gemv(WeightFormat format, const Shape& sh) {
  if (!device().ok) return no_device();
  if (sh.m < 1 || sh.m > 8 || sh.n < 1 || sh.k % cudak::kInt4Group != 0)
    return Error{"CUDA GEMV: m in 1..8 and k a multiple of 128"};
  auto p = std::make_unique<GemvInstance>(format, static_cast<int>(sh.m), static_cast<int>(sh.n),
                                          static_cast<int>(sh.k));
  if (!p->ok()) return Error{"CUDA GEMV: cannot allocate the weights"};
  return std::unique_ptr<KernelInstance>(std::move(p));
}

}  // namespace infercap::calibration::cuda_host
