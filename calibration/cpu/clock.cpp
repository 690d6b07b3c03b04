#include "clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace infercap::calibration::cpu {
namespace {

// `adds` dependent additions (a multiple of 8) on one register; returns seconds.
// The addend is a register, not an immediate: Golden Cove and later Intel cores (Sapphire Rapids
// on) fold chains of add-immediate at rename, several a cycle. On a Sapphire Rapids-class guest a
// chain of `add $1` ran at 19.1 "GHz", while `add reg` and `imul reg` / 3 agreed at 3.7-3.8 GHz.
double add_chain_s(uint64_t adds) {
#if defined(__x86_64__)
  uint64_t x = 0, n = adds;
  const uint64_t one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  // Eight adds per loop trip keep the loop's own sub/jnz (which fuse and run on another port)
  // off the chain's critical path: the chain is 8 cycles a trip on every core.
  __asm__ volatile(
      "1:\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "add %2, %0\n\t"
      "sub $8, %1\n\t"
      "jnz 1b\n\t"
      : "+r"(x), "+r"(n)
      : "r"(one)
      : "cc");
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)adds;
  return 0;
#endif
}

// `muls` dependent 64-bit multiplies (a multiple of 8); returns seconds. IMUL r64, r64 has a
// latency of 3 cycles on every Intel core since Nehalem and every AMD core since Zen.
double mul_chain_s(uint64_t muls) {
#if defined(__x86_64__)
  uint64_t x = 1, n = muls;
  const uint64_t one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  __asm__ volatile(
      "1:\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "imul %2, %0\n\t"
      "sub $8, %1\n\t"
      "jnz 1b\n\t"
      : "+r"(x), "+r"(n)
      : "r"(one)
      : "cc");
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)muls;
  return 0;
#endif
}

}  // namespace

double measure_core_clock_hz() {
#if defined(__x86_64__)
  // Many short runs, the fastest kept: on a shared machine a 0.5 ms run often goes by without
  // the scheduler taking the core away, where a 20 ms one seldom does.
  constexpr uint64_t kAdds = 2'000'000;  // ~0.5 ms at 4 GHz
  constexpr uint64_t kMuls = kAdds / 4;  // 1.5 M cycles at 3 cycles each, a multiple of 8
  add_chain_s(40 * kAdds);               // warm-up: the core ramps out of its idle P-state
  double best_add = 0, best_mul = 0;
  for (int i = 0; i < 64; ++i) {
    const double s = add_chain_s(kAdds);
    if (s > 0) best_add = std::max(best_add, static_cast<double>(kAdds) / s);
    const double m = mul_chain_s(kMuls);
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
