// Accelerator backends (issue 5): OpenCL on whatever driver is installed (PoCL's CPU device in
// CI), CUDA when built and a GPU is present. Every kernel is checked against its host reference
// through the harness; tests that need a device skip with the reason when there is none.
#include <catch2/catch.hpp>
#include <set>

#include "infercap/calibration/fit.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/calibration/registry.hpp"
#include "infercap/calibration/run.hpp"

using namespace infercap;
using namespace infercap::calibration;

namespace {

HarnessOptions tiny_harness() {
  HarnessOptions o;
  o.warmup_s = 0.001;
  o.budget_s = 0.005;
  o.min_reps = 2;
  o.noisy_retries = 0;
  o.max_spread = 10;
  return o;
}

// Every plan item names a kernel the backend has (a typo would silently drop a point).
void check_plan_names(const Backend& b) {
  std::set<std::string> names;
  for (const auto& k : b.kernels()) names.insert(k.name);
  for (auto e : {Effort::tiny, Effort::quick, Effort::full})
    for (const auto& item : b.plan(e, MachineInfo{})) {
      INFO(item.kernel);
      CHECK(names.count(item.kernel) == 1);
    }
}

}  // namespace

TEST_CASE("OpenCL backend: every kernel passes its reference check and declares its bytes",
          "[calib]") {
  const Backend* b = builtin_registry().find("opencl");
  if (b == nullptr) {
    WARN("OpenCL backend not built (INFERCAP_WITH_OPENCL=OFF or no OpenCL headers); skipped");
    return;
  }
  check_plan_names(*b);
  const auto a = b->available();
  if (!a.available) {
    WARN("no OpenCL device: " + a.reason + "; skipped");
    return;
  }
  const auto kernels = b->kernels();
  int measured = 0;
  for (const auto& k : kernels) {
    Shape s;
    if (k.kind == KernelKind::stream_read || k.kind == KernelKind::stream_copy) s.bytes = 1 << 20;
    if (k.kind == KernelKind::gemv) {
      s.m = 3;  // several activation rows, odd on purpose
      s.n = 37;
      s.k = 260;
    }
    auto m = measure("opencl", k, s, tiny_harness());
    INFO(k.name);
    REQUIRE(m);
    CHECK(m->checked);
    CHECK(m->check_ok);
    ++measured;
    if (k.kind == KernelKind::stream_read) CHECK(m->bytes_per_call == 1 << 20);
    if (k.kind == KernelKind::stream_copy) CHECK(m->bytes_per_call == 1 << 20);  // read + write
    if (k.kind == KernelKind::gemv) {
      // Weights n x k at the format's width (+ fp32 row scales for int8/int4), fp32 x and y.
      const double w = k.weights == DType::fp32   ? 4
                       : k.weights == DType::int8 ? 1
                       : k.weights == DType::int4 ? 0.5
                                                  : 2;
      const double scales = (k.weights == DType::int8 || k.weights == DType::int4) ? 4.0 * 37 : 0;
      CHECK(m->bytes_per_call == Approx(37 * 260 * w + scales + 4.0 * (3 * 260 + 3 * 37)));
      CHECK(m->flops_per_call == 2.0 * 3 * 37 * 260);
    }
  }
  CHECK(measured == static_cast<int>(kernels.size()));
  // Batch 1 takes the vector path on CPU devices (k a multiple of 4), and the scalar one when not.
  for (const auto& k : kernels)
    if (k.kind == KernelKind::gemv)
      for (int64_t kk : {256, 258}) {
        auto m = measure("opencl", k, Shape{1, -1, 0, 1, 29, kk}, tiny_harness());
        INFO(k.name << " k " << kk);
        REQUIRE(m);
        CHECK(m->check_ok);
      }
  // Shapes the kernels cannot take are refused, not run wrongly.
  for (const auto& k : kernels)
    if (k.kind == KernelKind::gemv) {
      CHECK_FALSE(k.prepare(Shape{1, -1, 0, 9, 16, 16}));  // m > 8
      CHECK_FALSE(k.prepare(Shape{1, -1, 0, 1, 16, 15}));  // odd k (int4 packs pairs)
    }
}

TEST_CASE("OpenCL backend: the tiny plan measures cleanly and fits a profile", "[calib]") {
  const Backend* b = builtin_registry().find("opencl");
  if (b == nullptr || !b->available().available) {
    WARN("no OpenCL backend or device; skipped");
    return;
  }
  // The runner's loop by hand, so the fit can be told to keep noisy points: CI machines are
  // shared, and this test is about the plumbing (plan -> checked rows -> profile), not speed.
  const auto kernels = b->kernels();
  std::vector<Measurement> rows;
  for (const auto& item : b->plan(Effort::tiny, MachineInfo{})) {
    const KernelSpec* spec = nullptr;
    for (const auto& k : kernels)
      if (k.name == item.kernel) spec = &k;
    REQUIRE(spec != nullptr);
    auto m = measure("opencl", *spec, item.shape, b->harness_options(Effort::tiny));
    INFO(item.kernel);
    REQUIRE(m);
    CHECK(m->check_ok);
    rows.push_back(*m);
  }
  FitOptions fo;
  fo.max_spread = 100;
  auto fit = fit_profile(rows, 1 << 20, fo);  // tiny streams 8 MB: call that memory here
  REQUIRE(fit);
  CHECK(fit->profile.bandwidth.asymptote_bytes_per_s > 0);
  CHECK(fit->rejected.empty());
}

TEST_CASE("CUDA backend: plan names its kernels and without a GPU it says why", "[calib]") {
  const Backend* b = builtin_registry().find("cuda");
  if (b == nullptr) {
    WARN("CUDA backend not built (INFERCAP_WITH_CUDA=OFF or no nvcc); skipped");
    return;
  }
  check_plan_names(*b);
  // Decode GEMV in every weight format the issue asks for, cuBLAS and cuBLASLt GEMM, overheads.
  std::set<std::string> names;
  for (const auto& k : b->kernels()) names.insert(k.name);
  for (const char* n :
       {"read.cuda", "copy.cuda", "gemv.cuda.bf16", "gemv.cuda.fp16", "gemv.cuda.fp8",
        "gemv.cuda.int8", "gemv.cuda.int4", "gemm.cublas.bf16", "gemm.cublaslt.fp8",
        "gemm.tiled.bf16", "launch.cuda", "graph64.cuda", "h2d.cuda.pinned", "d2h.cuda.pinned"})
    CHECK(names.count(n) == 1);
  const auto a = b->available();
  if (!a.available) {
    CHECK_FALSE(a.reason.empty());
    for (const auto& k : b->kernels()) {
      CHECK_FALSE(k.available().available);
      CHECK_FALSE(k.prepare(Shape{1, -1, 1 << 20, 1, 256, 256}));
    }
    WARN("no CUDA GPU here (" + a.reason + "): CUDA kernels not run");
  }
}

TEST_CASE("CUDA backend: every kernel passes its reference check on the GPU", "[calib]") {
  const Backend* b = builtin_registry().find("cuda");
  if (b == nullptr || !b->available().available) {
    WARN("no CUDA backend or GPU; skipped");
    return;
  }
  for (const auto& k : b->kernels()) {
    if (!k.available().available) continue;
    Shape s;
    s.bytes = 64 << 20;
    if (k.kind == KernelKind::gemv) {
      s.m = 3;
      s.n = 300;
      s.k = 1024;
    } else if (k.kind == KernelKind::gemm) {
      s.m = 256;
      s.n = 192;
      s.k = 512;
    }
    auto m = measure("cuda", k, s, tiny_harness());
    INFO(k.name);
    REQUIRE(m);
    CHECK(m->check_ok);
    if (k.kind == KernelKind::gemm) CHECK(m->flops_per_call == 2.0 * 256 * 192 * 512);
  }
}
