#include "clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace infercap::calibration::cpu {
namespace {

// Eight copies of one instruction: a loop trip of a dependent chain.
#define INFERCAP_CHAIN8(insn) insn insn insn insn insn insn insn insn

// `n` dependent operations (a multiple of 8) on one register; returns seconds. Eight per loop
// trip keep the loop's own sub/jnz (which fuse and run on another port) off the chain's critical
// path. The operand is a register, not an immediate: Golden Cove and later Intel cores (Sapphire
// Rapids on) fold chains of add-immediate at rename, several a cycle. On a Sapphire Rapids-class
// guest a chain of `add $1` ran at 19.1 "GHz", while `add reg` and `imul reg` / 3 agreed at
// 3.7-3.8 GHz. `mul` false: ADD r64, r64, 1 cycle on every x86-64 core since the P6. true: IMUL
// r64, r64, 3 cycles on every Intel core since Nehalem and every AMD core since Zen.
double chain_s(uint64_t n, bool mul) {
#if defined(__x86_64__)
  uint64_t x = 1, count = n;
  const uint64_t one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  if (mul) {
    __asm__ volatile("1:\n\t" INFERCAP_CHAIN8("imul %2, %0\n\t") "sub $8, %1\n\tjnz 1b\n\t"
                     : "+r"(x), "+r"(count)
                     : "r"(one)
                     : "cc");
  } else {
    __asm__ volatile("1:\n\t" INFERCAP_CHAIN8("add %2, %0\n\t") "sub $8, %1\n\tjnz 1b\n\t"
                     : "+r"(x), "+r"(count)
                     : "r"(one)
                     : "cc");
  }
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)n;
  (void)mul;
  return 0;
#endif
}

#undef INFERCAP_CHAIN8

// Both FMA probes below: one VFMADD231PS of register file r (zmm, ymm), sources a and b into
// accumulator n; they overwrite vector registers 0-15 (xmm names the whole zmm / ymm register).
#define INFERCAP_FMA(r, a, b, n) "vfmadd231ps %%" r #a ", %%" r #b ", %%" r #n "\n\t"
#define INFERCAP_FMA_CLOBBERS                                                                     \
  "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

// `trips` loop trips of twelve independent FMAs on zmm0-11 (bits 512) or ymm0-11 (256), sources
// zmm/ymm12-13 set to 0 (no denormals, no exceptions); returns seconds.
double fma_s(uint64_t trips, int bits) {
#if defined(__x86_64__)
  uint64_t count = trips;
  const auto t0 = std::chrono::steady_clock::now();
  // clang-format off
#define INFERCAP_FMA12(r)                                                         \
  INFERCAP_FMA(r, 12, 13, 0) INFERCAP_FMA(r, 12, 13, 1) INFERCAP_FMA(r, 12, 13, 2)  \
  INFERCAP_FMA(r, 12, 13, 3) INFERCAP_FMA(r, 12, 13, 4) INFERCAP_FMA(r, 12, 13, 5)  \
  INFERCAP_FMA(r, 12, 13, 6) INFERCAP_FMA(r, 12, 13, 7) INFERCAP_FMA(r, 12, 13, 8)  \
  INFERCAP_FMA(r, 12, 13, 9) INFERCAP_FMA(r, 12, 13, 10) INFERCAP_FMA(r, 12, 13, 11)
  if (bits == 512) {
    __asm__ volatile(
        "vpxord %%zmm12, %%zmm12, %%zmm12\n\tvpxord %%zmm13, %%zmm13, %%zmm13\n\t"
        "1:\n\t" INFERCAP_FMA12("zmm") "sub $1, %0\n\tjnz 1b\n\t"
        : "+r"(count) : : INFERCAP_FMA_CLOBBERS);
  } else {
    __asm__ volatile(
        "vxorps %%ymm12, %%ymm12, %%ymm12\n\tvxorps %%ymm13, %%ymm13, %%ymm13\n\t"
        "1:\n\t" INFERCAP_FMA12("ymm") "sub $1, %0\n\tjnz 1b\n\tvzeroupper\n\t"
        : "+r"(count) : : INFERCAP_FMA_CLOBBERS);
  }
#undef INFERCAP_FMA12
  // clang-format on
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)trips;
  (void)bits;
  return 0;
#endif
}

// `trips` loop trips of llama.cpp's F16 GEMM inner step in miniature: twelve independent FMAs
// on zmm/ymm0-11 whose sources are converted from fp16 in memory by VCVTPH2PS, at the ratio of
// tinyBLAS's tile (ggml-cpu/llamafile/sgemm.cpp: with 32 vector registers a 4 x 6 tile loads and
// converts 4 + 6 vectors for 24 FMAs, 5 per 12; with 16 registers 4 x 3, 7 per 12). `src` holds
// 8 x 32 bytes of fp16 zeros (L1-resident: the loads never miss). Returns seconds.
double f16_fma_s(uint64_t trips, int bits, const void* src) {
#if defined(__x86_64__)
  uint64_t count = trips;
  const auto t0 = std::chrono::steady_clock::now();
  // clang-format off
  if (bits == 512) {
    // 5 conversions (ymm memory -> zmm), 12 FMAs.
    __asm__ volatile(
        "1:\n\t"
        "vcvtph2ps 0(%1), %%zmm12\n\tvcvtph2ps 32(%1), %%zmm13\n\t"
        INFERCAP_FMA("zmm", 12, 13, 0) INFERCAP_FMA("zmm", 12, 13, 1)
        INFERCAP_FMA("zmm", 12, 13, 2) INFERCAP_FMA("zmm", 12, 13, 3)
        "vcvtph2ps 64(%1), %%zmm14\n\t"
        INFERCAP_FMA("zmm", 12, 14, 4) INFERCAP_FMA("zmm", 13, 14, 5)
        INFERCAP_FMA("zmm", 12, 14, 6) INFERCAP_FMA("zmm", 13, 14, 7)
        "vcvtph2ps 96(%1), %%zmm15\n\tvcvtph2ps 128(%1), %%zmm13\n\t"
        INFERCAP_FMA("zmm", 14, 15, 8) INFERCAP_FMA("zmm", 13, 15, 9)
        INFERCAP_FMA("zmm", 14, 15, 10) INFERCAP_FMA("zmm", 13, 15, 11)
        "sub $1, %0\n\tjnz 1b\n\t"
        : "+r"(count) : "r"(src) : INFERCAP_FMA_CLOBBERS);
  } else {
    // 7 conversions (xmm memory -> ymm), 12 FMAs.
    __asm__ volatile(
        "1:\n\t"
        "vcvtph2ps 0(%1), %%ymm12\n\tvcvtph2ps 16(%1), %%ymm13\n\t"
        INFERCAP_FMA("ymm", 12, 13, 0) INFERCAP_FMA("ymm", 12, 13, 1)
        "vcvtph2ps 32(%1), %%ymm14\n\tvcvtph2ps 48(%1), %%ymm15\n\t"
        INFERCAP_FMA("ymm", 14, 15, 2) INFERCAP_FMA("ymm", 14, 15, 3)
        INFERCAP_FMA("ymm", 12, 15, 4) INFERCAP_FMA("ymm", 13, 14, 5)
        "vcvtph2ps 64(%1), %%ymm12\n\tvcvtph2ps 80(%1), %%ymm13\n\t"
        INFERCAP_FMA("ymm", 12, 13, 6) INFERCAP_FMA("ymm", 12, 14, 7)
        INFERCAP_FMA("ymm", 13, 15, 8)
        "vcvtph2ps 96(%1), %%ymm14\n\t"
        INFERCAP_FMA("ymm", 12, 14, 9) INFERCAP_FMA("ymm", 13, 14, 10)
        INFERCAP_FMA("ymm", 14, 15, 11)
        "sub $1, %0\n\tjnz 1b\n\tvzeroupper\n\t"
        : "+r"(count) : "r"(src) : INFERCAP_FMA_CLOBBERS);
  }
  // clang-format on
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)trips;
  (void)bits;
  (void)src;
  return 0;
#endif
}

#undef INFERCAP_FMA_CLOBBERS
#undef INFERCAP_FMA

// fp32 FLOP/s of a probe of twelve FMAs a trip at `bits` (512 or 256; else 0): the best of 64
// runs of ~0.5 ms (330,000 trips at two FMAs a cycle and 4 GHz) after a 20 ms warm-up;
// `run(trips)` returns seconds (0 where the probe does not exist). 0 if implausible.
template <class Run>
double best_fma_rate(int bits, Run run) {
  if (bits != 512 && bits != 256) return 0;
  constexpr uint64_t kTrips = 330'000;
  const double flop_per_trip = 12.0 * 2 * static_cast<double>(bits) / 32;
  run(40 * kTrips);  // warm-up: the core ramps up (and, on Intel, into its AVX licence)
  double best = 0;
  for (int i = 0; i < 64; ++i) {
    const double s = run(kTrips);
    if (s > 0) best = std::max(best, flop_per_trip * static_cast<double>(kTrips) / s);
  }
  return best >= 1e9 && best <= 1e13 ? best : 0;
}

}  // namespace

double measure_f16_fma_flops_per_s(int bits) {
  alignas(64) static const uint16_t kZeros[128] = {};  // fp16 +0.0
  return best_fma_rate(bits, [bits](uint64_t n) { return f16_fma_s(n, bits, kZeros); });
}

double measure_fma_flops_per_s(int bits) {
  return best_fma_rate(bits, [bits](uint64_t n) { return fma_s(n, bits); });
}

double measure_core_clock_hz() {
#if defined(__x86_64__)
  // Many short runs, the fastest kept: on a shared machine a 0.5 ms run often goes by without
  // the scheduler taking the core away, where a 20 ms one seldom does.
  constexpr uint64_t kAdds = 2'000'000;  // ~0.5 ms at 4 GHz
  constexpr uint64_t kMuls = kAdds / 4;  // 1.5 M cycles at 3 cycles each, a multiple of 8
  chain_s(40 * kAdds, false);            // warm-up: the core ramps out of its idle P-state
  double best_add = 0, best_mul = 0;
  for (int i = 0; i < 64; ++i) {
    const double s = chain_s(kAdds, false);
    if (s > 0) best_add = std::max(best_add, static_cast<double>(kAdds) / s);
    const double m = chain_s(kMuls, true);
    if (m > 0) best_mul = std::max(best_mul, 3.0 * static_cast<double>(kMuls) / m);
  }
  // Two chains on different units must agree: a core that shortcuts one of them (as Golden Cove
  // does add-immediate) gives no clock rather than a wrong one.
  const bool agree = best_mul > 0 && best_add / best_mul > 0.8 && best_add / best_mul < 1.25;
  return agree && best_add >= 2e8 && best_add <= 1e10 ? best_add : 0;
#else
  return 0;
#endif
}

}  // namespace infercap::calibration::cpu
