#include "infercap/calibration/kernel.hpp"

#include <array>

namespace infercap::calibration {

namespace {
constexpr std::array<std::string_view, kKernelKindCount> kNames{
    "stream_read", "stream_copy", "stream_triad", "gemv", "gemm", "call_overhead", "fork_join"};
}

std::string_view kernel_kind_name(KernelKind k) {
  return kNames[static_cast<size_t>(k)];
}

std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<KernelKind>(i);
  return std::nullopt;
}

}  // namespace infercap::calibration
