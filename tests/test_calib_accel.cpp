// Accelerator backends (issue 5): OpenCL on whatever driver is installed (PoCL's CPU device in
// CI), CUDA when built and a GPU is present. Both are modules (libinfercap-backend-*.so) opened
// through the loader, as `infercap calibrate --backend` opens them. Every kernel is checked against
// its host reference through the harness; tests that need a device skip with the reason when there
// is none.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>

#include "../calibration/cuda/unpack.hpp"
#include "infercap/calibration/half.hpp"

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

// The module backend `name` (registry.hpp), or nullptr when this build did not make it. A module
// that was built must load: a load failure fails the test with the loader's message.
const Backend* module_backend(const std::string& name) {
  for (const auto& m : module_backends())
    if (m.name == name && !m.built) return nullptr;
  auto b = load_backend(name);
  INFO((b ? std::string() : b.error().message));
  REQUIRE(b);
  return *b;
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
  const Backend* b = module_backend("opencl");
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
  // Batch 1 on CPU devices: 16-wide steps into two sums (k a multiple of 32), 4-wide (k a
  // multiple of 4), else scalar.
  for (const auto& k : kernels)
    if (k.kind == KernelKind::gemv)
      for (int64_t kk : {256, 260, 258}) {
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
  const Backend* b = module_backend("opencl");
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
  const Backend* b = module_backend("cuda");
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

TEST_CASE("CUDA GEMV weight unpacking: the magic-number conversions are exact", "[calib]") {
  // These run on the host: the GEMV kernel calls the same functions on the device. Formula:
  // float bits 0x4B000000 | u = 2^23 + u exactly for 0 <= u < 2^23.
  using namespace infercap::calibration::cudak;
  SECTION("int8: every byte value in every position equals its two's-complement value") {
    for (int pos = 0; pos < 4; ++pos)
      for (int b = 0; b < 256; ++b) {
        // Neighbours 0x7f / 0x80 catch a sign flip leaking across bytes.
        uint32_t word = 0x807f807fu;
        word = (word & ~(0xffu << (8 * pos))) | (static_cast<uint32_t>(b) << (8 * pos));
        float out[4];
        unpack_s8x4(word, out);
        for (int i = 0; i < 4; ++i) {
          const auto expect = static_cast<float>(static_cast<int8_t>((word >> (8 * i)) & 0xffu));
          INFO("pos " << pos << " byte " << b << " element " << i);
          REQUIRE(out[i] == expect);
        }
      }
  }
  SECTION("int4: stored q + 8 in every nibble gives q in [-8, 7]") {
    for (int pos = 0; pos < 8; ++pos)
      for (int q = -8; q <= 7; ++q) {
        uint32_t word = 0xf0f0f0f0u;
        word = (word & ~(0xfu << (4 * pos))) | (static_cast<uint32_t>(q + 8) << (4 * pos));
        float out[8];
        unpack_u4x8(word, out);
        for (int i = 0; i < 8; ++i) {
          const int stored = static_cast<int>((word >> (4 * i)) & 0xfu);
          REQUIRE(out[i] == static_cast<float>(stored - 8));
        }
        REQUIRE(out[pos] == static_cast<float>(q));
      }
  }
  SECTION("bf16: a packed pair gives the same floats as the reference conversion") {
    for (float a : {1.f, -2.f, 0.15625f, 3.0e38f, -1.0e-38f, 0.f})
      for (float b : {65504.f, -0.5f, 7.0e-3f}) {
        const uint16_t ha = fp32_to_bf16(a), hb = fp32_to_bf16(b);
        float out[2];
        unpack_bf16x2(static_cast<uint32_t>(ha) | (static_cast<uint32_t>(hb) << 16), out);
        CHECK(out[0] == bf16_to_fp32(ha));
        CHECK(out[1] == bf16_to_fp32(hb));
      }
  }
}

TEST_CASE("CUDA backend: every kernel passes its reference check on the GPU", "[calib]") {
  const Backend* b = module_backend("cuda");
  if (b == nullptr || !b->available().available) {
    WARN("no CUDA backend or GPU; skipped");
    return;
  }
  // The GEMV kernel chosen per shape (INFERCAP_CUDA_GEMV unset), then each of the two pinned, at
  // a shape with several sequences and a row count that is not a multiple of the rows kernel's
  // 4, and at a row of 128 weights (one warp, most lanes idle).
  for (const std::string gemv_kernel : {"", "rows", "warp_per_row"}) {
    if (gemv_kernel.empty())
      unsetenv("INFERCAP_CUDA_GEMV");
    else
      setenv("INFERCAP_CUDA_GEMV", gemv_kernel.c_str(), 1);
    for (const auto& k : b->kernels()) {
      if (!k.available().available) continue;
      if (k.kind != KernelKind::gemv && !gemv_kernel.empty()) continue;
      std::vector<Shape> shapes(1);
      shapes[0].bytes = 64 << 20;
      if (k.kind == KernelKind::gemv) {
        shapes[0].m = 3;
        shapes[0].n = 301;
        shapes[0].k = 1024;
        shapes.push_back(Shape{1, -1, 0, 1, 5, 128});
      } else if (k.kind == KernelKind::gemm) {
        shapes[0].m = 256;
        shapes[0].n = 192;
        shapes[0].k = 512;
      }
      for (const auto& s : shapes) {
        auto m = measure("cuda", k, s, tiny_harness());
        INFO(k.name << " (GEMV kernel '" << gemv_kernel << "') m " << s.m << " n " << s.n << " k "
                    << s.k);
        REQUIRE(m);
        CHECK(m->check_ok);
        if (k.kind == KernelKind::gemm) CHECK(m->flops_per_call == 2.0 * 256 * 192 * 512);
      }
    }
  }
  unsetenv("INFERCAP_CUDA_GEMV");
}
