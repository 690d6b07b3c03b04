#include "clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace infercap::calibration::cpu {
namespace {

// `adds` dependent additions (a multiple of 8) on one register; returns seconds.
double add_chain_s(uint64_t adds) {
#if defined(__x86_64__)
  uint64_t x = 0, n = adds;
  const auto t0 = std::chrono::steady_clock::now();
  // Eight adds per loop trip keep the loop's own sub/jnz (which fuse and run on another port)
  // off the chain's critical path: the chain is 8 cycles a trip on every core.
  __asm__ volatile(
      "1:\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "add $1, %0\n\t"
      "sub $8, %1\n\t"
      "jnz 1b\n\t"
      : "+r"(x), "+r"(n)
      :
      : "cc");
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
#else
  (void)adds;
  return 0;
#endif
}

}  // namespace

double measure_core_clock_hz() {
#if defined(__x86_64__)
  // Many short runs, the fastest kept: on a shared machine a 0.5 ms run often goes by without
  // the scheduler taking the core away, where a 20 ms one seldom does.
  constexpr uint64_t kAdds = 2'000'000;  // ~0.5 ms at 4 GHz
  add_chain_s(40 * kAdds);               // warm-up: the core ramps out of its idle P-state
  double best = 0;
  for (int i = 0; i < 64; ++i) {
    const double s = add_chain_s(kAdds);
    if (s > 0) best = std::max(best, static_cast<double>(kAdds) / s);
  }
  return best >= 2e8 && best <= 1e10 ? best : 0;
#else
  return 0;
#endif
}

}  // namespace infercap::calibration::cpu
