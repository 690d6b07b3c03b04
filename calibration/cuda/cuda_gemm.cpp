// GEMM of the CUDA backend (cuda_instances.hpp): bf16 through cuBLAS (cublasGemmEx, fp32
// accumulation, a 32 MiB workspace), fp8 e4m3 through cuBLASLt (its heuristic's first
// algorithm), and a simple tiled bf16 kernel (kernels.cu) as the floor a hand kernel reaches.
// The reference is 256 outputs spread over the matrix, computed on the host in double.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_instances.hpp"
#include "infercap/calibration/half.hpp"
#include "kernels.hpp"

namespace infercap::calibration::cuda_host {

namespace {

class GemmInstance : public KernelInstance {
 public:
  GemmInstance(GemmImpl impl, int m, int n, int k) : impl_(impl), m_(m), n_(n), k_(k) {
    const size_t mk = static_cast<size_t>(m) * k, nk = static_cast<size_t>(n) * k;
    const size_t el = impl == GemmImpl::cublaslt_fp8 ? 1 : 2;
    std::vector<unsigned char> ha(mk * el), hb(nk * el);
    aq_.resize(mk);
    bq_.resize(nk);
    auto fill = [&](std::vector<unsigned char>& h, std::vector<float>& q, size_t count,
                    uint64_t seed) {
      for (size_t i = 0; i < count; ++i) {
        const float v = hash_unit(i, seed);
        if (el == 1) {
          h[i] = to_e4m3(v);
          q[i] = e4m3_value(h[i]);
        } else {
          const uint16_t b = fp32_to_bf16(v);
          std::memcpy(&h[2 * i], &b, 2);
          q[i] = bf16_to_fp32(b);
        }
      }
    };
    fill(ha, aq_, mk, 21);
    fill(hb, bq_, nk, 22);
    a_ = DevBuf(ha.size());
    b_ = DevBuf(hb.size());
    c_ = DevBuf(static_cast<size_t>(m) * n * (impl == GemmImpl::tiled_bf16 ? 4 : 2));
    if (a_.p) cudaMemcpy(a_.p, ha.data(), ha.size(), cudaMemcpyHostToDevice);
    if (b_.p) cudaMemcpy(b_.p, hb.data(), hb.size(), cudaMemcpyHostToDevice);
    if (impl == GemmImpl::cublas_bf16) {
      if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) blas_ = nullptr;
      // The same 32 MiB workspace the cuBLASLt path gets (and frameworks give cuBLAS on Hopper),
      // so the heuristic may pick kernels that need one, as in the reference's PyTorch run.
      work_ = DevBuf(32u << 20);
      if (blas_ && work_.p) cublasSetWorkspace(blas_, work_.p, work_.bytes);
    } else if (impl == GemmImpl::cublaslt_fp8) {
      setup_lt();
    }
  }
  ~GemmInstance() override {
    if (blas_) cublasDestroy(blas_);
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (layout_a_) cublasLtMatrixLayoutDestroy(layout_a_);
    if (layout_b_) cublasLtMatrixLayoutDestroy(layout_b_);
    if (layout_c_) cublasLtMatrixLayoutDestroy(layout_c_);
    if (desc_) cublasLtMatmulDescDestroy(desc_);
    if (lt_) cublasLtDestroy(lt_);
  }
  GemmInstance(const GemmInstance&) = delete;
  GemmInstance& operator=(const GemmInstance&) = delete;
  std::string why_not() const {
    if (!a_.p || !b_.p || !c_.p) return "cannot allocate the matrices";
    if (impl_ == GemmImpl::cublas_bf16 && !blas_) return "cublasCreate failed";
    if (impl_ == GemmImpl::cublaslt_fp8 && !have_algo_) return lt_error_;
    return {};
  }
  // Column-major view: Y^T (n x m) = W (n x k, stored as W^T k x n) ^T * X^T (k x m): "TN".
  void run() override {
    const float alpha = 1.f, beta = 0.f;
    switch (impl_) {
      case GemmImpl::cublas_bf16:
        cublasGemmEx(blas_, CUBLAS_OP_T, CUBLAS_OP_N, n_, m_, k_, &alpha, b_.p, CUDA_R_16BF, k_,
                     a_.p, CUDA_R_16BF, k_, &beta, c_.p, CUDA_R_16BF, n_, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
        break;
      case GemmImpl::cublaslt_fp8:
        cublasLtMatmul(lt_, desc_, &alpha, b_.p, layout_a_, a_.p, layout_b_, &beta, c_.p, layout_c_,
                       c_.p, layout_c_, &algo_, work_.p, work_.bytes, nullptr);
        break;
      case GemmImpl::tiled_bf16:
        cudak::launch_gemm_tiled_bf16(a_.p, b_.p, c_.as<float>(), m_, n_, k_, nullptr);
        break;
    }
    sync();
  }
  CheckResult check() override {
    if (auto failed = launch_failure()) return *failed;
    CheckResult r;
    const size_t mn = static_cast<size_t>(m_) * n_;
    std::vector<float> y(mn);
    if (impl_ == GemmImpl::tiled_bf16) {
      cudaMemcpy(y.data(), c_.p, mn * 4, cudaMemcpyDeviceToHost);
      r.tolerance = 1e-4;
    } else {
      std::vector<uint16_t> h(mn);
      cudaMemcpy(h.data(), c_.p, mn * 2, cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < mn; ++i) y[i] = bf16_to_fp32(h[i]);
      r.tolerance = 1e-2;  // bf16 output: 8 significant bits
    }
    // 256 outputs spread over the matrix (a full host GEMM at 8192^3 would take minutes).
    for (int s = 0; s < 256; ++s) {
      const auto i = static_cast<size_t>((static_cast<uint64_t>(s) * 2654435761ull) % mn);
      const size_t row = i / static_cast<size_t>(n_), col = i % static_cast<size_t>(n_);
      double ref = 0, mag = 0;
      for (int j = 0; j < k_; ++j) {
        const double p = static_cast<double>(aq_[row * k_ + j]) * bq_[col * k_ + j];
        ref += p;
        mag += std::fabs(p);
      }
      r.error = std::max(r.error, std::fabs(y[i] - ref) / std::max(mag, 1e-30));
    }
    r.ok = r.error <= r.tolerance;
    if (!r.ok) r.message = fmt::format("GEMM error {:.3g} > {:.1g}", r.error, r.tolerance);
    return r;
  }
  double bytes_per_call() const override {
    const double el = impl_ == GemmImpl::cublaslt_fp8 ? 1 : 2;
    const double out = impl_ == GemmImpl::tiled_bf16 ? 4 : 2;
    return el * (static_cast<double>(m_) * k_ + static_cast<double>(n_) * k_) +
           out * static_cast<double>(m_) * n_;
  }
  double flops_per_call() const override { return 2.0 * m_ * static_cast<double>(n_) * k_; }

 private:
  void setup_lt() {
    auto fail = [&](const char* what, cublasStatus_t s) {
      lt_error_ = fmt::format("cuBLASLt {}: status {}", what, static_cast<int>(s));
    };
    cublasStatus_t s = cublasLtCreate(&lt_);
    if (s != CUBLAS_STATUS_SUCCESS) return fail("create", s);
    s = cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s != CUBLAS_STATUS_SUCCESS) return fail("matmul desc", s);
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn);
    cublasLtMatrixLayoutCreate(&layout_a_, CUDA_R_8F_E4M3, static_cast<uint64_t>(k_),
                               static_cast<uint64_t>(n_), k_);
    cublasLtMatrixLayoutCreate(&layout_b_, CUDA_R_8F_E4M3, static_cast<uint64_t>(k_),
                               static_cast<uint64_t>(m_), k_);
    cublasLtMatrixLayoutCreate(&layout_c_, CUDA_R_16BF, static_cast<uint64_t>(n_),
                               static_cast<uint64_t>(m_), n_);
    work_ = DevBuf(32u << 20);
    cublasLtMatmulPreferenceCreate(&pref_);
    const uint64_t ws = work_.bytes;
    cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                         sizeof ws);
    cublasLtMatmulHeuristicResult_t h{};
    int found = 0;
    s = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, layout_a_, layout_b_, layout_c_, layout_c_,
                                       pref_, 1, &h, &found);
    if (s != CUBLAS_STATUS_SUCCESS || found == 0) return fail("heuristic (no fp8 algorithm)", s);
    algo_ = h.algo;
    have_algo_ = true;
  }

  GemmImpl impl_;
  int m_, n_, k_;
  std::vector<float> aq_, bq_;
  DevBuf a_, b_, c_, work_;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  bool have_algo_ = false;
  std::string lt_error_ = "cuBLASLt not set up";
};

}  // namespace

Prepared prepare_gemm(GemmImpl impl, const Shape& sh) {
  if (!device().ok) return no_device();
  if (sh.m % 64 != 0 || sh.n % 64 != 0 || sh.k % 64 != 0 || sh.m < 64)
    return Error{"CUDA GEMM: m, n, k multiples of 64"};
  auto p = std::make_unique<GemmInstance>(impl, static_cast<int>(sh.m), static_cast<int>(sh.n),
                                          static_cast<int>(sh.k));
  if (const auto why = p->why_not(); !why.empty()) return Error{"CUDA GEMM: " + why};
  return std::unique_ptr<KernelInstance>(std::move(p));
}

}  // namespace infercap::calibration::cuda_host
