// Calibration: kernels against references, the harness's statistics, the fit on synthetic
// measurements with known parameters, and the profile's YAML round trip.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../calibration/cpu/clock.hpp"
#include "../calibration/cpu/cpuid.hpp"
#include "../calibration/cpu/matmul.hpp"
#include "infercap/calibration/fit.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/calibration/provenance.hpp"
#include "infercap/calibration/registry.hpp"
#include "infercap/calibration/run.hpp"
#include "infercap/perf.hpp"
#include "infercap/spec/loaders.hpp"
#include "infercap/spec/profile_io.hpp"

using namespace infercap;
using namespace infercap::calibration;

namespace {

const KernelSpec* find(const std::vector<KernelSpec>& ks, const std::string& name) {
  for (const auto& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("fp16 and bf16 conversions round to nearest even", "[calib][unit]") {
  using namespace infercap::calibration::cpu;
  CHECK(fp32_to_bf16(1.0f) == 0x3F80);
  CHECK(fp32_to_bf16(-2.0f) == 0xC000);
  // 1 + 2^-8 lies halfway between bf16 1.0 and 1 + 2^-7: ties go to the even mantissa (1.0).
  CHECK(fp32_to_bf16(1.0f + 1.0f / 256) == 0x3F80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up.
  CHECK(fp32_to_bf16(1.0f + 3.0f / 256) == 0x3F82);
  CHECK(bf16_to_fp32(0x3F82) == 1.015625f);
  CHECK(fp32_to_fp16(1.0f) == 0x3C00);
  CHECK(fp32_to_fp16(0.5f) == 0x3800);
  CHECK(fp16_to_fp32(0x3C00) == 1.0f);
  CHECK(fp16_to_fp32(fp32_to_fp16(2.0f / 7.0f)) == Approx(2.0 / 7.0).epsilon(1e-3));
}

TEST_CASE("quantised weights dequantise to the hand-computed values", "[calib][unit]") {
  using namespace infercap::calibration::cpu;
  // One row of 64 weights: w[i] = (i % 8 - 4) / 2, so amax = 2 (at i % 8 == 0).
  std::vector<float> w(64);
  for (int i = 0; i < 64; ++i) w[static_cast<size_t>(i)] = static_cast<float>(i % 8 - 4) / 2;
  SECTION("int8: d = 2 / 127, q = round(w / d)") {
    PackedWeights p;
    allocate_weights(p, DType::int8, 1, 64, -1);
    pack_rows(p, w.data(), 0, 1);
    const double d = 2.0 / 127;
    CHECK(dequant(p, 0, 0) == Approx(-127 * d));  // -2 -> q = -127
    CHECK(dequant(p, 0, 1) == Approx(-95 * d));   // -1.5 / d = -95.25 -> -95
    CHECK(dequant(p, 0, 4) == 0.0);
    CHECK(dequant(p, 0, 7) == Approx(95 * d));  // 1.5
    CHECK(p.weight_bytes() == 64 + 4);
  }
  SECTION("int4: blocks of 32, d = fp16(2 / 7), q = round(w / d) in [-8, 7]") {
    PackedWeights p;
    allocate_weights(p, DType::int4, 1, 64, -1);
    pack_rows(p, w.data(), 0, 1);
    const double d = fp16_to_fp32(fp32_to_fp16(2.0f / 7.0f));
    CHECK(dequant(p, 0, 0) == Approx(-7 * d));  // -2 / d = -7
    CHECK(dequant(p, 0, 5) == Approx(2 * d));   // 0.5 / d = 1.75 -> 2
    CHECK(dequant(p, 0, 23) == Approx(5 * d));  // 1.5 / d = 5.25 -> 5 (high nibble half)
    CHECK(dequant(p, 0, 63) == Approx(5 * d));  // second block, same pattern
    CHECK(p.weight_bytes() == 32 + 2 * 2);      // 64 nibbles in 32 bytes + two fp16 scales
  }
}

TEST_CASE("every available matmul kernel matches the scalar reference", "[calib]") {
  const auto ks = make_cpu_backend().kernels();
  int ran = 0;
  for (const auto& k : ks) {
    if (k.kind != KernelKind::gemv && k.kind != KernelKind::gemm) continue;
    if (!k.available().available) continue;
    // Odd shapes: row tails (n not a multiple of the 4-row block per thread), activation tiles
    // of 1..4 rows, several k chunks for m > 4.
    for (long m : {1L, 3L, 6L, 17L}) {
      for (int threads : {1, 2}) {
        Shape s{threads, -1, 0, m, 96, 192};
        if (k.isa == "amx") s.n = 64;
        auto inst = k.prepare(s);
        REQUIRE(inst.ok());
        (*inst)->run();
        const CheckResult c = (*inst)->check();
        INFO(k.name << " m=" << m << " threads=" << threads << ": " << c.message);
        CHECK(c.ok);
        CHECK(c.error < 1e-5);
        CHECK((*inst)->flops_per_call() ==
              2.0 * static_cast<double>(m) * static_cast<double>(s.n) * 192);
        ++ran;
      }
    }
  }
  // Every x86-64 CI machine has at least AVX2: four formats x two kinds x four m x two threads.
  CHECK(ran >= 64);
}

TEST_CASE("the reference check catches a wrong output", "[calib]") {
  using namespace infercap::calibration::cpu;
  if (!avx2_available().available) return;
  const long m = 2, n = 32, k = 64;
  PackedWeights w;
  allocate_weights(w, DType::fp32, n, k, -1);
  std::vector<float> wf(static_cast<size_t>(n * k)), x(static_cast<size_t>(m * k)),
      y(static_cast<size_t>(m * n));
  for (size_t i = 0; i < wf.size(); ++i) wf[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 3) % 5) - 2.0f;
  pack_rows(w, wf.data(), 0, n);
  Activations act(ActFormat::f32, m, k, false);
  MatmulArgs args{&w, x.data(), &act, m, y.data()};
  avx2::matmul_f32(args, 0, n);
  // Small integers: the kernel's fp32 sums are exact, so the error is exactly zero.
  CHECK(check_matmul(w, act, x.data(), y.data(), m).error == 0.0);
  y[5] += 1.0f;
  const MatmulCheck bad = check_matmul(w, act, x.data(), y.data(), m);
  CHECK(bad.error > 1e-3);
  CHECK(bad.worst_m == 0);
  CHECK(bad.worst_n == 5);
}

TEST_CASE("stream kernels check their results and count STREAM bytes", "[calib]") {
  const auto ks = make_cpu_backend().kernels();
  for (const char* name : {"stream_read.avx2", "stream_copy.avx2", "stream_triad.avx2"}) {
    const KernelSpec* k = find(ks, name);
    REQUIRE(k != nullptr);
    if (!k->available().available) continue;
    auto inst = k->prepare({2, -1, 3 * 4096.0 * 4, 0, 0, 0});
    REQUIRE(inst.ok());
    (*inst)->run();
    CHECK((*inst)->check().ok);
    // 3 x 4096 floats of working set: read counts it once, copy and triad count every array.
    CHECK((*inst)->bytes_per_call() == Approx(3 * 4096.0 * 4));
  }
}

TEST_CASE("AMX is reported unavailable with a reason when the CPU lacks it", "[calib]") {
  const auto& s = cpu::isa();
  const Availability a = cpu::amx_available(false);
  if (!s.amx_tile) {
    CHECK_FALSE(a.available);
    CHECK(a.reason.find("AMX-TILE") != std::string::npos);
  }
  const auto ks = make_cpu_backend().kernels();
  REQUIRE(find(ks, "gemm.amx.bf16") != nullptr);
  REQUIRE(find(ks, "gemv.amx.int8") != nullptr);
  CHECK(find(ks, "gemm.amx.bf16")->available().available == a.available);
}

TEST_CASE("the registry lists the cpu backend", "[calib][unit]") {
  const Registry& r = builtin_registry();
  REQUIRE(r.find("cpu") != nullptr);
  CHECK(r.find("nope") == nullptr);
  Registry mine;
  Backend b;
  b.name = "x";
  mine.add(b);
  b.description = "second";
  mine.add(b);  // same name replaces
  REQUIRE(mine.all().size() == 1);
  CHECK(mine.all()[0].description == "second");
}

TEST_CASE("quantiles interpolate between ranks", "[calib][unit]") {
  const Quantiles q = quantiles({5, 1, 4, 2, 3});
  CHECK(q.median == 3);
  CHECK(q.p10 == Approx(1.4));  // position 0.4 between 1 and 2
  CHECK(q.p90 == Approx(4.6));
  CHECK(q.min == 1);
  CHECK(quantiles({}).median == 0);
}

namespace {
// A kernel whose calls take scripted times on a fake clock.
class Scripted final : public KernelInstance {
 public:
  Scripted(double& clock, std::vector<double> times) : clock_(clock), times_(std::move(times)) {}
  void run() override { clock_ += times_[i_++ % times_.size()]; }
  CheckResult check() override { return {true, 0, 0, ""}; }
  double bytes_per_call() const override { return 1000; }
  double flops_per_call() const override { return 10; }

 private:
  double& clock_;
  std::vector<double> times_;
  size_t i_ = 0;
};
}  // namespace

TEST_CASE("the harness reports the median and flags noisy points", "[calib][unit]") {
  double t = 0;
  HarnessOptions o;
  o.warmup_s = 0;
  o.min_warmup_calls = 1;
  o.budget_s = 0;  // exactly min_reps timed calls
  o.min_reps = 5;
  o.noisy_retries = 1;
  o.max_spread = 0.10;
  SECTION("steady") {
    Scripted k(t, {2e-3});
    const Measurement m = time_instance(k, o, [&] { return t; });
    CHECK(m.reps == 5);
    CHECK(m.median_s == Approx(2e-3));
    CHECK(m.spread == Approx(0).margin(1e-12));
    CHECK_FALSE(m.noisy);
    CHECK(m.bytes_per_s() == Approx(1000 / 2e-3));
  }
  SECTION("noisy: alternating 1 ms and 3 ms never settles") {
    Scripted k(t, {1e-3, 3e-3});
    const Measurement m = time_instance(k, o, [&] { return t; });
    CHECK(m.noisy);
    CHECK(m.spread > 0.10);
    CHECK(m.note.find("re-measured") != std::string::npos);
  }
}

TEST_CASE("the saturating fit recovers known parameters", "[calib][unit]") {
  // bw(n) = 100 GB/s x (1 - exp(-n / 3)), each point perturbed by a fixed +-1% pattern.
  std::vector<double> th, bw;
  const double A = 100e9, n0 = 3;
  for (int n = 1; n <= 16; ++n) {
    for (int r = 0; r < 4; ++r) {
      th.push_back(n);
      bw.push_back(A * (1 - std::exp(-n / n0)) * (1 + 0.01 * ((r % 2) ? 1 : -1)));
    }
  }
  auto f = fit_saturating(th, bw);
  REQUIRE(f.ok());
  CHECK(f->asymptote == Approx(A).epsilon(0.01));
  CHECK(f->n0 == Approx(n0).epsilon(0.03));
  CHECK(f->ci95_low < A);
  CHECK(f->ci95_high > A);
  CHECK(f->rms_rel_residual < 0.012);
  SECTION("bad input") {
    CHECK_FALSE(fit_saturating({}, {}).ok());
    CHECK_FALSE(fit_saturating({1, 2}, {1e9, -1}).ok());
  }
  CHECK(f->saturation_seen);
  SECTION("two thread counts on a straight line: no saturation seen, n0 at its cap") {
    // 48 GB/s on one thread and 110 on two (a 2-vCPU Zen 5 guest, 2026-12-07): the second
    // thread more than doubles the first, so the least-squares curve is the flattest the cap
    // allows, n0 = 4 x 2 threads, and its asymptote is an extrapolation far above both points.
    auto lin = fit_saturating({1, 1, 2, 2}, {48e9, 48.6e9, 110e9, 111e9});
    REQUIRE(lin.ok());
    CHECK_FALSE(lin->saturation_seen);
    CHECK(lin->n0 == Approx(8).epsilon(0.01));
    CHECK(lin->asymptote > 3 * 111e9);
  }
  SECTION("one thread count: treated as saturated there, interval from the samples") {
    auto one = fit_saturating({2, 2, 2}, {10e9, 11e9, 12e9});
    REQUIRE(one.ok());
    CHECK(one->asymptote * (1 - std::exp(-2 / one->n0)) == Approx(11e9));
    CHECK(one->ci95_low < one->asymptote);
  }
}

TEST_CASE("the line fit gives intercept and slope", "[calib][unit]") {
  // t = 2 us + bytes / 50 GB/s
  std::vector<double> x = {1e5, 1e6, 4e6, 1.6e7}, y;
  for (double b : x) y.push_back(2e-6 + b / 50e9);
  auto f = fit_line(x, y);
  REQUIRE(f.ok());
  CHECK(f->intercept == Approx(2e-6).epsilon(1e-9));
  CHECK(1 / f->slope == Approx(50e9).epsilon(1e-9));
  CHECK(f->intercept_ci95 == Approx(0).margin(1e-12));
  CHECK_FALSE(fit_line({1, 1}, {2, 3}).ok());
  CHECK_FALSE(fit_line({1}, {2}).ok());
}

namespace {
Measurement row(KernelKind kind, int threads, double bytes, double seconds, double flops = 0) {
  Measurement m;
  m.kernel = std::string(kernel_kind_name(kind));
  m.kind = kind;
  m.shape.threads = threads;
  m.shape.bytes = bytes;
  m.bytes_per_call = bytes;
  m.flops_per_call = flops;
  m.median_s = seconds;
  m.samples_s = {seconds * 0.99, seconds, seconds * 1.01};
  m.spread = 0.02;
  m.reps = 3;
  return m;
}
}  // namespace

TEST_CASE("fit_profile turns synthetic rows into the profile", "[calib][unit]") {
  const double llc = 32e6, dram = 256e6;
  // DRAM read: bw(n) = 40 GB/s x (1 - exp(-n / 1.5)) at 1, 2, 4 threads.
  std::vector<Measurement> rows;
  for (int n : {1, 2, 4})
    rows.push_back(row(KernelKind::stream_read, n, dram, dram / (40e9 * (1 - std::exp(-n / 1.5)))));
  rows.push_back(row(KernelKind::stream_read, 4, 8e6, 8e6 / 200e9));  // LLC-resident: 200 GB/s
  Measurement g = row(KernelKind::gemm, 4, 1e7, 0.01, 1e9);           // 100 GFLOP/s bf16
  g.compute = ComputeType::bf16;
  rows.push_back(g);
  Measurement v = row(KernelKind::gemv, 4, dram, dram / 30e9, 0);  // int8 GEMV: 30 GB/s
  v.shape.m = 1;
  v.weights = DType::int8;
  rows.push_back(v);
  for (double b : {1e5, 1e6, 4e6}) {  // small fp32 GEMVs: 3 us + bytes / 100 GB/s
    Measurement s = row(KernelKind::gemv, 4, b, 3e-6 + b / 100e9);
    s.shape.m = 1;
    s.samples_s = {s.median_s};
    rows.push_back(s);
  }
  rows.push_back(row(KernelKind::fork_join, 4, 0, 1.5e-6));
  auto rep = fit_profile(rows, llc);
  REQUIRE(rep.ok());
  const CalibrationProfile& p = rep->profile;
  CHECK(p.bandwidth.asymptote_bytes_per_s == Approx(40e9).epsilon(0.01));
  CHECK(p.bandwidth.n0_threads == Approx(1.5).epsilon(0.03));
  CHECK(p.threads == 4);
  CHECK(p.cache_bandwidth_bytes_per_s == Approx(200e9));
  CHECK(at(p.achieved_flops_per_s, ComputeType::bf16) == Approx(100e9));
  CHECK(at(p.gemv_bandwidth_bytes_per_s, ComputeType::int8) == Approx(30e9));
  CHECK(p.kernel_overhead_s == Approx(3e-6).epsilon(1e-6));
  CHECK(p.fork_join_s == Approx(1.5e-6));

  SECTION("noisy DRAM rows are rejected and the fit refuses") {
    for (auto& r : rows)
      if (r.kind == KernelKind::stream_read) r.spread = 0.5;
    auto bad = fit_profile(rows, llc);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("too noisy") != std::string::npos);
  }
  SECTION("a failed reference check is never fitted") {
    for (auto& r : rows) {
      if (r.kind == KernelKind::gemm) {
        r.checked = true;
        r.check_ok = false;
      }
    }
    auto rep2 = fit_profile(rows, llc);
    REQUIRE(rep2.ok());
    CHECK(at(rep2->profile.achieved_flops_per_s, ComputeType::bf16) == 0);
    CHECK(rep2->rejected.size() == 1);
  }
}

TEST_CASE("a profile round-trips through YAML", "[calib][unit]") {
  CalibrationProfile p;
  p.hardware = "epyc-vm";
  p.backend = "cpu";
  p.threads = 2;
  p.bandwidth = {23.456789012345e9, 0.7312345, 22.1e9, 24.9e9};
  p.cache_bandwidth_bytes_per_s = 1.9e11;
  p.cache_bytes = 1.1e7 / 3;
  at(p.achieved_flops_per_s, ComputeType::bf16) = 8.9e10 / 7;
  at(p.gemv_bandwidth_bytes_per_s, ComputeType::int4) = 1.3e10;
  p.kernel_overhead_s = 2.5e-7;
  p.fork_join_s = 3e-7;
  p.gemv_by_k = {{ComputeType::bf16, 1024, 1.1e10}, {ComputeType::bf16, 4096, 1.7e10}};
  p.provenance = {"AMD EPYC",           "vm",     "Linux 6", "2026-11-29T23:30:47Z", "abc",
                  "infercap calibrate", "cores=2"};
  const std::string text = spec::profile_to_yaml(p);
  spec::Diagnostics d;
  auto back = spec::parse_profile(text, "p.yaml", d);
  INFO(d.format());
  REQUIRE(back.ok());
  CHECK(back->hardware == p.hardware);
  CHECK(back->threads == 2);
  CHECK(back->bandwidth.asymptote_bytes_per_s == p.bandwidth.asymptote_bytes_per_s);  // exact
  CHECK(back->bandwidth.n0_threads == p.bandwidth.n0_threads);
  CHECK(back->cache_bytes == p.cache_bytes);
  CHECK(back->achieved_flops_per_s == p.achieved_flops_per_s);
  CHECK(back->gemv_bandwidth_bytes_per_s == p.gemv_bandwidth_bytes_per_s);
  CHECK(back->kernel_overhead_s == p.kernel_overhead_s);
  CHECK(back->provenance.date == p.provenance.date);
  REQUIRE(back->gemv_by_k.size() == 2);
  CHECK(back->gemv_by_k[1].k == 4096);
  CHECK(back->gemv_by_k[1].bytes_per_s == 1.7e10);
  CHECK(back->gemv_by_k[0].type == ComputeType::bf16);
  CHECK(back->provenance.notes == p.provenance.notes);

  SECTION("file round trip through save_profile") {
    const std::string path = "test_calib_profile.yaml";
    REQUIRE(spec::save_profile(p, path).ok());
    spec::Diagnostics d2;
    auto loaded = spec::load_profile(path, d2);
    REQUIRE(loaded.ok());
    CHECK(loaded->fork_join_s == p.fork_join_s);
    std::remove(path.c_str());
  }
}

TEST_CASE("bad profiles are rejected with diagnostics", "[calib][unit]") {
  const std::string head = "schema_version: 1\nkind: calibration-profile\nbackend: cpu\n";
  const std::string src =
      "sources:\n  - fields: [\"*\"]\n    ref: measured\n    date: 2026-11-29\n";
  spec::Diagnostics d;
  SECTION("human units are accepted") {
    auto p = spec::parse_profile(head +
                                     "bandwidth:\n  asymptote_bytes_per_s: \"20 GB/s\"\n"
                                     "kernel_overhead_s: \"3 us\"\n" +
                                     src,
                                 "ok.yaml", d);
    REQUIRE(p.ok());
    CHECK(p->bandwidth.asymptote_bytes_per_s == Approx(20e9));
    CHECK(p->kernel_overhead_s == Approx(3e-6));
  }
  SECTION("unknown key") {
    auto p = spec::parse_profile(
        head + "bandwidth:\n  asymptote_bytes_per_s: 1e9\n  n0_thread: 2\n" + src, "u.yaml", d);
    CHECK_FALSE(p.ok());
    CHECK(d.format().find("n0_thread") != std::string::npos);
  }
  SECTION("negative rate") {
    auto p = spec::parse_profile(head + "bandwidth:\n  asymptote_bytes_per_s: -1e9\n" + src,
                                 "n.yaml", d);
    CHECK_FALSE(p.ok());
  }
  SECTION("wrong dimension") {
    auto p = spec::parse_profile(head + "bandwidth:\n  asymptote_bytes_per_s: \"3 us\"\n" + src,
                                 "w.yaml", d);
    CHECK_FALSE(p.ok());
  }
  SECTION("unknown compute type") {
    auto p = spec::parse_profile(
        head + "bandwidth:\n  asymptote_bytes_per_s: 1e9\nachieved_flops_per_s:\n  bf61: 1e9\n" +
            src,
        "c.yaml", d);
    CHECK_FALSE(p.ok());
    CHECK(d.format().find("bf16") != std::string::npos);  // did you mean
  }
  SECTION("no sources") {
    auto p = spec::parse_profile(head + "bandwidth:\n  asymptote_bytes_per_s: 1e9\n", "s.yaml", d);
    CHECK_FALSE(p.ok());
  }
  SECTION("wrong kind") {
    auto p = spec::parse_profile("schema_version: 1\nkind: hardware\n", "k.yaml", d);
    CHECK_FALSE(p.ok());
  }
}

TEST_CASE("a tiny calibration run measures, checks and fits", "[calib]") {
  const Backend b = make_cpu_backend();
  RunOptions o;
  o.effort = Effort::tiny;
  o.command = "test";
  o.fit_llc_bytes = 1 << 20;  // tiny streams 8 MB: call that DRAM here
  int last_done = -1, total_seen = 0;
  auto r = run_calibration(b, o, [&](int done, int total, const std::string&) {
    CHECK(done >= last_done);
    last_done = done;
    total_seen = total;
  });
  CHECK(last_done == total_seen);
  if (!r.ok()) {
    // A busy shared machine may make every point noisy: then the refusal must say so.
    CHECK(r.error().message.find("noisy") != std::string::npos);
    return;
  }
  CHECK(r->failed.empty());
  CHECK(r->rows.size() >= 8);
  for (const auto& m : r->rows) {
    CHECK(m.check_ok);
    CHECK(m.median_s > 0);
  }
  const CalibrationProfile& p = r->fit.profile;
  CHECK(p.backend == "cpu");
  CHECK(p.bandwidth.asymptote_bytes_per_s > 1e8);
  CHECK(p.provenance.command == "test");
  CHECK(p.provenance.date.size() == 20);
  CHECK(!p.provenance.machine.empty());
}

TEST_CASE("a profile's GEMV rate sets the model's weight-streaming rate", "[calib][model]") {
  spec::Diagnostics d;
  auto hw = spec::load_hardware_file(
      std::string(INFERCAP_SOURCE_DIR) + "/data/calibration/epyc-vm-2c.hardware.yaml", d);
  auto model =
      spec::load_model_file(std::string(INFERCAP_SOURCE_DIR) + "/data/models/qwen2.5-0.5b.yaml", d);
  INFO(d.format());
  REQUIRE(hw);
  REQUIRE(model);
  StackSpec stack;  // fractions 1, no overheads
  Deployment dep;
  dep.precision = {DType::bf16, DType::bf16, DType::fp32};
  dep.cpu.threads_per_socket = 2;
  CalibrationProfile p;
  p.threads = 2;
  p.bandwidth = {20e9, 0.5, 0, 0};  // bw(2) = 20 GB/s x (1 - e^-4)
  auto plain = PerfModel::create(*model, *hw, stack, dep, &p);
  REQUIRE(plain.ok());
  CHECK(plain->rates().weight_bw == Approx(20e9 * (1 - std::exp(-4.0))));
  // The bf16 GEMV streamed weights at half the read stream's rate: so does the model.
  at(p.gemv_bandwidth_bytes_per_s, ComputeType::bf16) = 0.5 * p.bandwidth.at(2);
  auto gemv = PerfModel::create(*model, *hw, stack, dep, &p);
  REQUIRE(gemv.ok());
  CHECK(gemv->rates().weight_bw == Approx(0.5 * plain->rates().weight_bw));
  // Rates at two row lengths: interpolated in log k at the hidden size (896 for this model):
  // t = ln(896 / 512) / ln(2048 / 512) = 0.4037, rate = 10 + t x (20 - 10) GB/s.
  CalibrationProfile pk = p;
  pk.gemv_by_k = {{ComputeType::bf16, 512, 10e9}, {ComputeType::bf16, 2048, 20e9}};
  auto byk = PerfModel::create(*model, *hw, stack, dep, &pk);
  REQUIRE(byk.ok());
  const double t = std::log(896.0 / 512) / std::log(4.0);
  CHECK(byk->rates().weight_bw ==
        Approx(plain->rates().weight_bw * (10e9 + t * 10e9) / p.bandwidth.at(2)));
  // Another format's rate does not apply to bf16 weights.
  CalibrationProfile q = p;
  at(q.gemv_bandwidth_bytes_per_s, ComputeType::bf16) = 0;
  at(q.gemv_bandwidth_bytes_per_s, ComputeType::int8) = 1e9;
  auto other = PerfModel::create(*model, *hw, stack, dep, &q);
  REQUIRE(other.ok());
  CHECK(other->rates().weight_bw == Approx(plain->rates().weight_bw));

  SECTION("weights in the measured cache: its rate per thread, never below the DRAM stream") {
    CalibrationProfile c = p;
    at(c.gemv_bandwidth_bytes_per_s, ComputeType::bf16) = 0;  // the plain read stream
    c.cache_bytes = 4e9;                   // the 0.5B model's bf16 weights (~1 GB) fit
    c.cache_bandwidth_bytes_per_s = 60e9;  // read on the profile's 2 threads
    auto two = PerfModel::create(*model, *hw, stack, dep, &c);
    REQUIRE(two.ok());
    CHECK(two->rates().weight_bw == Approx(60e9));
    Deployment one = dep;
    one.cpu.threads_per_socket = 1;  // one core reads its slice: 60 x 1/2 = 30 GB/s
    auto single = PerfModel::create(*model, *hw, stack, one, &c);
    REQUIRE(single.ok());
    CHECK(single->rates().weight_bw == Approx(30e9));
    // A "cache" plateau no faster than DRAM (a VM reporting its host's LLC) changes nothing.
    c.cache_bandwidth_bytes_per_s = 10e9;
    auto slow = PerfModel::create(*model, *hw, stack, dep, &c);
    REQUIRE(slow.ok());
    CHECK(slow->rates().weight_bw == Approx(plain->rates().weight_bw));
    // Nor does one under 1.5x the DRAM stream at the profile's threads, bw(2) = 20 x (1 - e^-4)
    // = 19.6 GB/s: 1.4 x 19.6 = 27.5 GB/s is DRAM read with noise, not a cache; 1.6 x is one.
    const double bw2 = 20e9 * (1 - std::exp(-4.0));
    c.cache_bandwidth_bytes_per_s = 1.4 * bw2;
    auto near = PerfModel::create(*model, *hw, stack, dep, &c);
    REQUIRE(near.ok());
    CHECK(near->rates().weight_bw == Approx(plain->rates().weight_bw));
    c.cache_bandwidth_bytes_per_s = 1.6 * bw2;
    auto fast = PerfModel::create(*model, *hw, stack, dep, &c);
    REQUIRE(fast.ok());
    CHECK(fast->rates().weight_bw == Approx(1.6 * bw2));
  }
}

TEST_CASE("the core clock probe reads a plausible clock that the machine probe records",
          "[calib]") {
#if defined(__x86_64__)
  // One dependent ADD retires per cycle, so adds / s is the clock: every x86-64 part of the last
  // 25 years runs between 0.2 and 10 GHz (the probe's own plausibility window, which returns 0
  // outside it), and no shipping part sustains more than 6.2 GHz.
  const double hz = calibration::cpu::measure_core_clock_hz();
  CHECK(hz > 0.2e9);
  CHECK(hz < 6.5e9);
  const calibration::MachineInfo m = calibration::probe_machine();
  CHECK(m.core_clock_hz > 0.2e9);
  // Two probes of one machine, on a shared core, agree within a factor of two (the best of
  // 64 short runs discard the slices a neighbour took).
  CHECK(m.core_clock_hz / hz == Approx(1.0).margin(0.5));
#else
  CHECK(calibration::cpu::measure_core_clock_hz() == 0);
#endif
}

TEST_CASE("the FMA probe reads a plausible FLOP per cycle that the machine probe records",
          "[calib]") {
  using calibration::cpu::measure_fma_flops_per_s;
  CHECK(measure_fma_flops_per_s(128) == 0);  // neither 256 nor 512 bits: no probe
#if defined(__x86_64__)
  // An FMA unit of w bits retires w / 32 lanes x 2 FLOP a cycle; x86 cores have one or two, so
  // 256-bit code reads 16 or 32 FLOP a cycle of the core's clock and 512-bit code 16 (Zen 4's
  // double-pumped unit) to 64 (two units). A shared core and Intel's AVX licence clocks bend
  // that, never by 2x: the window is half the smallest to 1.1 x the largest.
  const auto& isa = calibration::cpu::isa();
  const double hz = calibration::cpu::measure_core_clock_hz();
  REQUIRE(hz > 0);
  if (isa.avx2 && isa.fma && isa.os_avx) {
    const double per_cycle = measure_fma_flops_per_s(256) / hz;
    CHECK(per_cycle > 8);
    CHECK(per_cycle < 1.1 * 32);
  }
  if (isa.avx512f && isa.os_avx512) {
    const double per_cycle = measure_fma_flops_per_s(512) / hz;
    CHECK(per_cycle > 8);
    CHECK(per_cycle < 1.1 * 64);
  }
  const calibration::MachineInfo m = calibration::probe_machine();
  CHECK(m.fma_bits == (isa.avx512f && isa.os_avx512 ? 512 : isa.avx2 && isa.fma ? 256 : 0));
  if (m.fma_bits > 0) CHECK(m.fma_flops_per_s > 0);
#else
  CHECK(measure_fma_flops_per_s(256) == 0);
#endif
}

TEST_CASE("the F16-tile probe's conversions never speed the FMAs up", "[calib]") {
  using calibration::cpu::measure_f16_fma_flops_per_s;
  using calibration::cpu::measure_fma_flops_per_s;
  CHECK(measure_f16_fma_flops_per_s(128) == 0);
#if defined(__x86_64__)
  // The probe issues the plain probe's FMAs plus conversions; the FMAs cannot go faster for it,
  // and at worst each conversion takes two FMA-port slots (10 per 24 FMAs: 24 / 44 of the plain
  // rate at 512 bits; 7 per 12: 12 / 26 at 256). 0.8 and 1.1 allow for a shared core between
  // the two probes' best-of-64 runs.
  const auto& isa = calibration::cpu::isa();
  for (const int bits : {256, 512}) {
    if (bits == 512 ? !(isa.avx512f && isa.os_avx512) : !(isa.avx2 && isa.fma && isa.f16c))
      continue;
    const double plain = measure_fma_flops_per_s(bits);
    const double f16 = measure_f16_fma_flops_per_s(bits);
    REQUIRE(plain > 0);
    CHECK(f16 > 0.8 * (bits == 512 ? 24.0 / 44 : 12.0 / 26) * plain);
    CHECK(f16 < 1.1 * plain);
  }
  const calibration::MachineInfo m = calibration::probe_machine();
  if (m.fma_bits > 0) CHECK(m.f16_fma_flops_per_s > 0);
#else
  CHECK(measure_f16_fma_flops_per_s(256) == 0);
#endif
}
