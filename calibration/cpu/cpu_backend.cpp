// The CPU backend: stream, matmul (decode GEMV and prefill GEMM shapes), call-overhead and
// fork/join kernels, dispatched per ISA at run time, and the sweeps of --quick and --full.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpuid.hpp"
#include "infercap/calibration/registry.hpp"
#include "matmul.hpp"
#include "thread_team.hpp"

namespace infercap::calibration {

namespace cpu {
namespace {

// Reproducible inputs: splitmix64 per row, uniform in [-1, 1).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL) {}
  float next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ULL << 24)) *
               2.0f -
           1.0f;
  }
};

struct StreamFns {
  double (*read)(const float*, long);
  void (*copy)(float*, const float*, long);
  void (*triad)(float*, const float*, const float*, float, long);
};

class StreamInstance final : public KernelInstance {
 public:
  StreamInstance(KernelKind kind, StreamFns fns, const Shape& s)
      : kind_(kind), fns_(fns), team_(s.threads, s.numa_node) {
    const int arrays = kind == KernelKind::stream_read   ? 1
                       : kind == KernelKind::stream_copy ? 2
                                                         : 3;
    n_ = std::max<long>(16L * s.threads, static_cast<long>(s.bytes / (4.0 * arrays)) / 16 * 16);
    for (int i = 0; i < arrays; ++i)
      bufs_.emplace_back(static_cast<std::size_t>(n_) * 4, s.numa_node);
    sums_.assign(static_cast<size_t>(team_.size()) * 8, 0.0);
    // First touch by the thread that will stream each chunk (NUMA placement).
    team_.run([&](int tid, int nt) {
      const auto [b, e] = split_range(n_, nt, tid, 16);
      for (size_t a = 0; a < bufs_.size(); ++a) {
        float* p = bufs_[a].as<float>();
        for (long i = b; i < e; ++i) {
          p[i] = a == 0   ? 0.5f
                 : a == 1 ? 1.0f + static_cast<float>(i % 3)
                          : 0.25f * static_cast<float>(i % 5);
        }
      }
    });
  }
  void run() override {
    team_.run([&](int tid, int nt) {
      const auto [b, e] = split_range(n_, nt, tid, 16);
      float* a = bufs_[0].as<float>();
      switch (kind_) {
        case KernelKind::stream_read:
          sums_[static_cast<size_t>(tid) * 8] = fns_.read(a + b, e - b);
          break;
        case KernelKind::stream_copy:
          fns_.copy(bufs_[1].as<float>() + b, a + b, e - b);
          break;
        default:
          fns_.triad(a + b, bufs_[1].as<float>() + b, bufs_[2].as<float>() + b, 3.0f, e - b);
      }
    });
  }
  CheckResult check() override {
    CheckResult c;
    c.tolerance = 1e-6;
    const float* a = bufs_[0].as<float>();
    if (kind_ == KernelKind::stream_read) {
      double s = 0;
      for (int t = 0; t < team_.size(); ++t) s += sums_[static_cast<size_t>(t) * 8];
      const double want = 0.5 * static_cast<double>(n_);
      c.error = std::fabs(s - want) / want;
    } else {
      const long step = std::max(1L, n_ / 100000);
      for (long i = 0; i < n_; i += step) {
        const double want =
            kind_ == KernelKind::stream_copy
                ? a[i]
                : (1.0 + static_cast<double>(i % 3)) + 3.0 * 0.25 * static_cast<double>(i % 5);
        const double got = kind_ == KernelKind::stream_copy ? bufs_[1].as<float>()[i] : a[i];
        c.error = std::max(c.error, std::fabs(got - want) / std::max(1.0, std::fabs(want)));
      }
    }
    c.ok = c.error <= c.tolerance;
    if (!c.ok) c.message = "stream result differs from the reference";
    return c;
  }
  double bytes_per_call() const override {
    const double n = static_cast<double>(n_) * 4;
    return kind_ == KernelKind::stream_read ? n : kind_ == KernelKind::stream_copy ? 2 * n : 3 * n;
  }
  double flops_per_call() const override {
    const double n = static_cast<double>(n_);
    return kind_ == KernelKind::stream_read ? n : kind_ == KernelKind::stream_triad ? 2 * n : 0;
  }

 private:
  KernelKind kind_;
  StreamFns fns_;
  ThreadTeam team_;
  long n_ = 0;
  std::vector<Buffer> bufs_;
  std::vector<double> sums_;  // padded: one cache line per thread
};

struct MatmulKind {
  MatmulFn fn;
  DType weights;
  ActFormat act;
  bool amx;
};

class MatmulInstance final : public KernelInstance {
 public:
  // `s.bytes` > one matrix: that many bytes of identical copies, called in turn, so each call
  // streams its weights cold from DRAM as the layers of a forward pass do (the per-call
  // ramp-up of small matrices is then part of what is measured).
  MatmulInstance(MatmulKind mk, const Shape& s)
      : mk_(mk), team_(s.threads, s.numa_node), m_(s.m), n_(s.n), k_(s.k) {
    ws_.emplace_back();
    allocate_weights(ws_[0], mk.weights, n_, k_, s.numa_node);
    const double one = ws_[0].weight_bytes();
    const long copies =
        s.bytes > one ? std::min(4096L, static_cast<long>(std::ceil(s.bytes / one))) : 1;
    for (long c = 1; c < copies; ++c) {
      ws_.emplace_back();
      allocate_weights(ws_.back(), mk.weights, n_, k_, s.numa_node);
    }
    team_.run([&](int tid, int nt) {
      const auto [b, e] = split_range(n_, nt, tid, kRowGrain);
      std::vector<float> row(static_cast<size_t>(k_));
      for (long r = b; r < e; ++r) {
        Rng g(static_cast<uint64_t>(r) + 1);
        for (auto& v : row) v = g.next();
        for (auto& w : ws_) pack_row(w, row.data(), r);
      }
    });
    x_ = Buffer(static_cast<size_t>(m_ * k_) * 4, -1);
    Rng g(0xabcdef);
    for (long i = 0; i < m_ * k_; ++i) x_.as<float>()[i] = g.next();
    y_ = Buffer(static_cast<size_t>(m_ * n_) * 4, -1);
    act_ = Activations(mk.act, m_, k_, mk.amx);
  }
  void run() override {
    cur_ = next_;
    next_ = (next_ + 1) % ws_.size();
    MatmulArgs args{&ws_[cur_], x_.as<float>(), &act_, m_, y_.as<float>()};
    team_.run([&](int tid, int nt) {
      if (mk_.act != ActFormat::f32) {
        const auto [mb, me] = split_range(m_, nt, tid);
        prepare_activations(act_, x_.as<float>(), mb, me);
        team_.barrier();
      }
      const auto [b, e] = split_range(n_, nt, tid, kRowGrain);
      if (e > b) mk_.fn(args, b, e);
    });
  }
  CheckResult check() override {
    const MatmulCheck mc = check_matmul(ws_[cur_], act_, x_.as<float>(), y_.as<float>(), m_);
    CheckResult c;
    c.error = mc.error;
    c.tolerance = 1e-4;  // fp32 accumulation over k <= 16k, relative to sum |w x|
    c.ok = mc.error <= c.tolerance;
    if (!c.ok) {
      c.message = "output (" + std::to_string(mc.worst_m) + ", " + std::to_string(mc.worst_n) +
                  ") differs from the scalar reference by " + std::to_string(mc.error) +
                  " of sum |w x|";
    }
    return c;
  }
  double bytes_per_call() const override {
    // weights once, activations in, outputs out (fp32)
    return ws_[0].weight_bytes() + static_cast<double>(m_ * k_) * 4 +
           static_cast<double>(m_ * n_) * 4;
  }
  double flops_per_call() const override { return 2.0 * static_cast<double>(m_ * n_ * k_); }

 private:
  MatmulKind mk_;
  ThreadTeam team_;
  long m_, n_, k_;
  std::vector<PackedWeights> ws_;
  size_t cur_ = 0, next_ = 0;
  Buffer x_, y_;
  Activations act_;
};

class ForkJoinInstance final : public KernelInstance {
 public:
  explicit ForkJoinInstance(const Shape& s)
      : team_(s.threads, s.numa_node), hits_(static_cast<size_t>(team_.size()) * 16) {}
  void run() override {
    team_.run([&](int tid, int) { ++hits_[static_cast<size_t>(tid) * 16]; });
    ++calls_;
  }
  CheckResult check() override {
    CheckResult c;
    for (int t = 0; t < team_.size(); ++t)
      if (hits_[static_cast<size_t>(t) * 16] != calls_) c.error = 1;
    c.ok = c.error == 0;
    if (!c.ok) c.message = "a team member missed a parallel region";
    return c;
  }
  double bytes_per_call() const override { return 0; }
  double flops_per_call() const override { return 0; }

 private:
  ThreadTeam team_;
  std::vector<long> hits_;
  long calls_ = 0;
};

Result<std::unique_ptr<KernelInstance>> make_matmul(MatmulKind mk, const Shape& s) {
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.threads < 1)
    return Error{"matmul shape needs m, n, k and threads >= 1"};
  if (s.k % kKGrain != 0)
    return Error{"k = " + std::to_string(s.k) + " is not a multiple of " + std::to_string(kKGrain)};
  if (s.n % kRowGrain != 0) {
    return Error{"n = " + std::to_string(s.n) + " is not a multiple of " +
                 std::to_string(kRowGrain)};
  }
  return std::unique_ptr<KernelInstance>(std::make_unique<MatmulInstance>(mk, s));
}

std::string dname(DType d) {
  return std::string(dtype_name(d));
}

}  // namespace
}  // namespace cpu

namespace {

using cpu::ActFormat;
using cpu::MatmulKind;

struct IsaVariant {
  std::string isa;
  Availability (*avail)();
  cpu::StreamFns stream;
};

Availability amx_bf16() {
  return cpu::amx_available(false);
}
Availability amx_int8() {
  return cpu::amx_available(true);
}

void add_matmul(std::vector<KernelSpec>& out, const std::string& isa, Availability (*avail)(),
                DType w, ComputeType c, MatmulKind mk) {
  for (KernelKind kind : {KernelKind::gemv, KernelKind::gemm}) {
    KernelSpec s;
    s.kind = kind;
    s.name = std::string(kernel_kind_name(kind)) + "." + isa + "." + cpu::dname(w);
    s.isa = isa;
    s.weights = w;
    s.compute = c;
    s.available = avail;
    s.prepare = [mk](const Shape& sh) { return cpu::make_matmul(mk, sh); };
    out.push_back(std::move(s));
  }
}

std::vector<KernelSpec> cpu_kernels() {
  std::vector<KernelSpec> out;
  const IsaVariant variants[] = {
      {"avx512",
       cpu::avx512_available,
       {cpu::avx512::stream_read, cpu::avx512::stream_copy, cpu::avx512::stream_triad}},
      {"avx2",
       cpu::avx2_available,
       {cpu::avx2::stream_read, cpu::avx2::stream_copy, cpu::avx2::stream_triad}},
  };
  for (const auto& v : variants) {
    for (KernelKind kind :
         {KernelKind::stream_read, KernelKind::stream_copy, KernelKind::stream_triad}) {
      KernelSpec s;
      s.kind = kind;
      s.name = std::string(kernel_kind_name(kind)) + "." + v.isa;
      s.isa = v.isa;
      s.available = v.avail;
      const cpu::StreamFns fns = v.stream;
      s.prepare = [kind, fns](const Shape& sh) -> Result<std::unique_ptr<KernelInstance>> {
        if (sh.bytes <= 0 || sh.threads < 1)
          return Error{"stream shape needs bytes > 0, threads >= 1"};
        return std::unique_ptr<KernelInstance>(
            std::make_unique<cpu::StreamInstance>(kind, fns, sh));
      };
      out.push_back(std::move(s));
    }
  }
  // Matmuls, preferred ISA first for each weight format.
  add_matmul(out, "amx", amx_bf16, DType::bf16, ComputeType::bf16,
             {cpu::amx::matmul_bf16, DType::bf16, ActFormat::bf16, true});
  add_matmul(out, "amx", amx_int8, DType::int8, ComputeType::int8,
             {cpu::amx::matmul_int8, DType::int8, ActFormat::q8, true});
  add_matmul(out, "avx512", cpu::avx512_available, DType::fp32, ComputeType::fp32,
             {cpu::avx512::matmul_f32, DType::fp32, ActFormat::f32, false});
  add_matmul(out, "avx512_bf16", cpu::avx512_bf16_available, DType::bf16, ComputeType::bf16,
             {cpu::avx512::matmul_bf16, DType::bf16, ActFormat::bf16, false});
  add_matmul(out, "avx512_vnni", cpu::avx512_vnni_available, DType::int8, ComputeType::int8,
             {cpu::avx512::matmul_int8, DType::int8, ActFormat::q8, false});
  add_matmul(out, "avx512_vnni", cpu::avx512_vnni_available, DType::int4, ComputeType::int8,
             {cpu::avx512::matmul_int4, DType::int4, ActFormat::q8, false});
  add_matmul(out, "avx2", cpu::avx2_available, DType::fp32, ComputeType::fp32,
             {cpu::avx2::matmul_f32, DType::fp32, ActFormat::f32, false});
  add_matmul(out, "avx2", cpu::avx2_available, DType::bf16, ComputeType::fp32,
             {cpu::avx2::matmul_bf16, DType::bf16, ActFormat::f32, false});
  add_matmul(out, "avx2", cpu::avx2_available, DType::int8, ComputeType::fp32,
             {cpu::avx2::matmul_int8, DType::int8, ActFormat::f32, false});
  add_matmul(out, "avx2", cpu::avx2_available, DType::int4, ComputeType::fp32,
             {cpu::avx2::matmul_int4, DType::int4, ActFormat::f32, false});
  {
    KernelSpec s;
    s.kind = KernelKind::fork_join;
    s.name = "fork_join";
    s.isa = "scalar";
    s.available = [] { return Availability::yes("thread team"); };
    s.prepare = [](const Shape& sh) -> Result<std::unique_ptr<KernelInstance>> {
      return std::unique_ptr<KernelInstance>(std::make_unique<cpu::ForkJoinInstance>(sh));
    };
    out.push_back(std::move(s));
  }
  {
    // A tiny matmul through the team: what every operator of a forward pass pays at least.
    KernelSpec s;
    s.kind = KernelKind::call_overhead;
    s.name = "call_overhead";
    s.isa = "best";
    s.available = [] { return Availability::yes("thread team + smallest matmul"); };
    s.prepare = [](const Shape& sh) -> Result<std::unique_ptr<KernelInstance>> {
      const bool z = cpu::avx512_available().available;
      if (!z && !cpu::avx2_available().available) return Error{"needs AVX2 or AVX-512"};
      Shape t = sh;
      t.m = 1;
      t.k = cpu::kKGrain;
      t.n = cpu::kRowGrain * sh.threads;
      return cpu::make_matmul(
          {z ? cpu::avx512::matmul_f32 : cpu::avx2::matmul_f32, DType::fp32, ActFormat::f32, false},
          t);
    };
    out.push_back(std::move(s));
  }
  return out;
}

// The first available kernel of `kind` for weights `w` (preference order of cpu_kernels()).
std::string best_matmul(const std::vector<KernelSpec>& ks, KernelKind kind, DType w) {
  for (const auto& k : ks)
    if (k.kind == kind && k.weights == w && k.available().available) return k.name;
  return {};
}

std::vector<PlanItem> cpu_plan(Effort effort, const MachineInfo& m) {
  const std::vector<KernelSpec> ks = cpu_kernels();
  std::vector<PlanItem> plan;
  const int cores = std::max(1, m.cores);
  const double llc = m.llc_bytes > 0 ? m.llc_bytes : 32.0 * 1024 * 1024;
  const double l2 = m.l2_bytes > 0 ? m.l2_bytes : 1024.0 * 1024;
  const double l1 = m.l1d_bytes > 0 ? m.l1d_bytes : 32.0 * 1024;
  const std::string stream_isa = cpu::avx512_available().available ? "avx512" : "avx2";
  auto add = [&](const std::string& k, Shape s) {
    if (!k.empty()) plan.push_back({k, s});
  };
  std::vector<int> thread_counts;
  for (int t = 1; t <= cores; t = t < 4 ? t + 1 : t * 2) thread_counts.push_back(t);
  if (thread_counts.back() != cores) thread_counts.push_back(cores);

  if (effort == Effort::tiny) {
    add("fork_join", {cores, -1, 0, 0, 0, 0});
    add("call_overhead", {cores, -1, 0, 0, 0, 0});
    for (int t : thread_counts) add("stream_read." + stream_isa, {t, -1, 8e6, 0, 0, 0});
    add("stream_read." + stream_isa, {cores, -1, 64e3, 0, 0, 0});
    for (DType w : {DType::fp32, DType::bf16, DType::int8, DType::int4})
      add(best_matmul(ks, KernelKind::gemv, w), {cores, -1, 0, 1, 256, 256});
    add(best_matmul(ks, KernelKind::gemm, DType::bf16), {cores, -1, 0, 32, 128, 256});
    return plan;
  }
  const bool full = effort == Effort::full;
  const double dram = (full ? 8.0 : 4.0) * llc;
  add("fork_join", {cores, -1, 0, 0, 0, 0});
  if (full) add("fork_join", {1, -1, 0, 0, 0, 0});
  add("call_overhead", {cores, -1, 0, 0, 0, 0});

  // Streams: DRAM over thread counts (the saturation curve), the cache ladder at all cores.
  for (int t : thread_counts) add("stream_read." + stream_isa, {t, -1, dram, 0, 0, 0});
  std::vector<double> cache_sizes = {l1 / 2 * cores, l2 / 2 * cores, llc / 2};
  if (full) {
    cache_sizes = {l1 / 4 * cores, l1 / 2 * cores, l2 / 4 * cores, l2 / 2 * cores,
                   l2 * cores,     llc / 4,        llc / 2,        llc,
                   2 * llc,        4 * llc};
  }
  for (double b : cache_sizes) add("stream_read." + stream_isa, {cores, -1, b, 0, 0, 0});
  add("stream_triad." + stream_isa, {cores, -1, dram, 0, 0, 0});
  add("stream_copy." + stream_isa, {cores, -1, dram, 0, 0, 0});
  if (full) {
    for (int t : thread_counts) add("stream_triad." + stream_isa, {t, -1, dram, 0, 0, 0});
    add("stream_read.avx2", {cores, -1, dram, 0, 0, 0});
    for (int node = 0; node < m.numa_nodes && m.numa_nodes > 1; ++node)
      add("stream_read." + stream_isa, {std::max(1, cores / m.numa_nodes), node, dram, 0, 0, 0});
  }

  // Decode GEMV: weights of at least 4 x LLC, so they stream from DRAM.
  // k = 4096 (a real hidden size); n grows in decode shapes up to 16k, then beyond (an lm_head
  // shape) until the weights reach 4 x LLC, so they stream from DRAM on any cache size.
  auto dram_rows = [&](DType w) {  // rows of k = 4096
    const double bpe = w == DType::fp32 ? 4 : w == DType::bf16 ? 2 : w == DType::int8 ? 1 : 0.5625;
    const double need = 4.2 * llc / (4096.0 * bpe);
    return std::max(4096L,
                    (static_cast<long>(need) + cpu::kRowGrain) / cpu::kRowGrain * cpu::kRowGrain);
  };
  for (DType w : {DType::fp32, DType::bf16, DType::int8, DType::int4}) {
    const long n = dram_rows(w);
    if (full) {
      for (const auto& k : ks) {
        if (k.kind == KernelKind::gemv && k.weights == w)
          for (long b : {1L, 4L, 16L, 64L}) add(k.name, {cores, -1, 0, b, n, 4096});
      }
      for (int t : thread_counts) add(best_matmul(ks, KernelKind::gemv, w), {t, -1, 0, 1, n, 4096});
      for (long sq : {1024L, 2048L, 8192L, 16384L})
        add(best_matmul(ks, KernelKind::gemv, w), {cores, -1, 0, 1, sq, sq});
    } else {
      add(best_matmul(ks, KernelKind::gemv, w), {cores, -1, 0, 1, n, 4096});
    }
    // Short rows (small models' hidden sizes) stream slower: the same bytes at k = 1024.
    add(best_matmul(ks, KernelKind::gemv, w), {cores, -1, 0, 1, n * 4, 1024});
  }
  // Small GEMVs, cold (copies over 4 x LLC called in turn), for the per-call line:
  // time = overhead + bytes / rate, the overhead including each call's ramp-up from DRAM.
  for (long n : {512L, 1024L, 2048L, 4096L})
    add(best_matmul(ks, KernelKind::gemv, DType::bf16), {cores, -1, 4.2 * llc, 1, n, n});

  // Prefill GEMM: compute bound (M tokens x 2k x 2k), per compute type, AMX listed first so a
  // machine without it reports why it was skipped.
  const long gm = full ? 512 : 256, gk = 2048;
  for (const auto& k : ks) {
    if (k.kind != KernelKind::gemm) continue;
    const bool best = k.name == best_matmul(ks, KernelKind::gemm, k.weights);
    if (full || best || k.isa == "amx") add(k.name, {cores, -1, 0, gm, gk, gk});
  }
  return plan;
}

HarnessOptions cpu_harness(Effort e) {
  HarnessOptions o;
  switch (e) {
    case Effort::tiny:
      o.warmup_s = 0.002;
      o.budget_s = 0.01;
      o.min_reps = 3;
      o.noisy_retries = 0;
      break;
    case Effort::quick:
      o.warmup_s = 0.02;
      o.budget_s = 0.25;
      o.min_reps = 5;
      break;
    case Effort::full:
      o.warmup_s = 0.05;
      o.budget_s = 1.0;
      o.min_reps = 7;
      o.noisy_retries = 3;
      break;
  }
  return o;
}

}  // namespace

Backend make_cpu_backend() {
  Backend b;
  b.name = "cpu";
  b.description = "CPU kernels: streams, GEMV/GEMM (AVX2, AVX-512 BF16/VNNI, AMX), overheads";
  b.available = [] {
    if (cpu::avx2_available().available || cpu::avx512_available().available)
      return Availability::yes(cpu::isa_flags());
    return Availability::no("the CPU backend needs x86-64 with AVX2 or AVX-512");
  };
  b.kernels = cpu_kernels;
  b.plan = cpu_plan;
  b.harness_options = cpu_harness;
  return b;
}

}  // namespace infercap::calibration
