// Calibration kernels side by side with their references, as issue 4 asks:
//   - stream triad (ThreadTeam, pinned) vs a canonical OpenMP STREAM triad built with the same
//     flags, same array sizes and threads: ours must reach >= 95%;
//   - fp32 GEMV (batch 1) vs OpenBLAS sgemv on the same shapes and threads: ours >= 100%.
// Run: build-dev/bench/infercap_bench --benchmark_filter='Calib' --benchmark_counters_tabular=true
// Results are reported in docs/calibration.md.
#include <benchmark/benchmark.h>

#include <thread>
#include <vector>

#include "cpuid.hpp"
#include "infercap/calibration/registry.hpp"
#include "matmul.hpp"
#include "reference.hpp"
#include "thread_team.hpp"

namespace {

using namespace infercap::calibration;

int bench_threads() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

const KernelSpec* kernel(const char* name) {
  static const std::vector<KernelSpec> ks = make_cpu_backend().kernels();
  for (const auto& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

// Three arrays of n floats each (STREAM sizing: far beyond the LLC).
constexpr long kStreamFloats = 32L * 1024 * 1024;  // 128 MiB per array

void BM_Calib_TriadOurs(benchmark::State& st) {
  const KernelSpec* k =
      kernel(cpu::avx512_available().available ? "stream_triad.avx512" : "stream_triad.avx2");
  Shape s;
  s.threads = static_cast<int>(st.range(0));
  s.bytes = 3.0 * 4 * kStreamFloats;
  auto inst = k->prepare(s);
  for (auto _ : st) (*inst)->run();
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) *
                       static_cast<int64_t>((*inst)->bytes_per_call()));
}

// The same triad through an unpinned team: separates the kernel from the placement.
void BM_Calib_TriadOursUnpinned(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  cpu::ThreadTeam team(threads, -1, false);
  cpu::Buffer a(4 * kStreamFloats, -1), b(4 * kStreamFloats, -1), c(4 * kStreamFloats, -1);
  const bool z = cpu::avx512_available().available;
  auto body = [&](int tid, int nt) {
    const auto [lo, hi] = cpu::split_range(kStreamFloats, nt, tid, 16);
    if (z)
      cpu::avx512::stream_triad(a.as<float>() + lo, b.as<float>() + lo, c.as<float>() + lo, 3.0f,
                                hi - lo);
    else
      cpu::avx2::stream_triad(a.as<float>() + lo, b.as<float>() + lo, c.as<float>() + lo, 3.0f,
                              hi - lo);
  };
  team.run([&](int tid, int nt) {
    const auto [lo, hi] = cpu::split_range(kStreamFloats, nt, tid, 16);
    for (long i = lo; i < hi; ++i) a.as<float>()[i] = 0, b.as<float>()[i] = 1, c.as<float>()[i] = 2;
  });
  for (auto _ : st) team.run(body);
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * 3 * 4 * kStreamFloats);
}

void BM_Calib_TriadStreamOmp(benchmark::State& st) {
  const int threads = static_cast<int>(st.range(0));
  cpu::Buffer a(4 * kStreamFloats, -1), b(4 * kStreamFloats, -1), c(4 * kStreamFloats, -1);
  reference::stream_init_omp(a.as<float>(), b.as<float>(), c.as<float>(), kStreamFloats, threads);
  for (auto _ : st) {
    reference::stream_triad_omp(a.as<float>(), b.as<float>(), c.as<float>(), 3.0f, kStreamFloats,
                                threads);
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * 3 * 4 * kStreamFloats);
}

void BM_Calib_SgemvOurs(benchmark::State& st) {
  const KernelSpec* k =
      kernel(cpu::avx512_available().available ? "gemv.avx512.fp32" : "gemv.avx2.fp32");
  Shape s;
  s.threads = static_cast<int>(st.range(1));
  s.m = 1;
  s.n = s.k = st.range(0);
  auto inst = k->prepare(s);
  for (auto _ : st) (*inst)->run();
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * s.n * s.k * 4);
}

void BM_Calib_SgemvOpenBlas(benchmark::State& st) {
  const long n = st.range(0);
  const int threads = static_cast<int>(st.range(1));
  std::vector<float> w(static_cast<size_t>(n * n), 0.5f), x(static_cast<size_t>(n), 1.0f),
      y(static_cast<size_t>(n));
  reference::openblas_sgemv(w.data(), x.data(), y.data(), n, n, threads);  // first touch / init
  for (auto _ : st) {
    reference::openblas_sgemv(w.data(), x.data(), y.data(), n, n, threads);
    benchmark::DoNotOptimize(y.data());
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * n * n * 4);
}

void triad_args(benchmark::internal::Benchmark* b) {
  for (int t = 1; t <= bench_threads(); t *= 2) b->Arg(t);
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}
void gemv_args(benchmark::internal::Benchmark* b) {
  for (long n : {1024L, 4096L, 8192L, 16384L}) b->Args({n, bench_threads()});
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_Calib_TriadOurs)->Apply(triad_args);
BENCHMARK(BM_Calib_TriadOursUnpinned)->Apply(triad_args);
BENCHMARK(BM_Calib_TriadStreamOmp)->Apply(triad_args);
BENCHMARK(BM_Calib_SgemvOurs)->Apply(gemv_args);
BENCHMARK(BM_Calib_SgemvOpenBlas)->Apply(gemv_args);
