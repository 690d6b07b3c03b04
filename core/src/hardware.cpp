#include "infercap/hardware.hpp"

#include <fmt/core.h>

#include <array>

namespace infercap {

std::string_view hw_class_name(HwClass c) {
  static constexpr std::array<std::string_view, kHwClassCount> kNames{"cpu", "gpu", "npu", "fpga"};
  return kNames[static_cast<int>(c)];
}

std::vector<std::string> validate(const HardwareSpec& h) {
  std::vector<std::string> e;
  if (h.memory_bytes <= 0) {
    e.push_back(fmt::format("memory_bytes: expected a positive size, found {}", h.memory_bytes));
  }
  if (h.memory_bandwidth_bytes_per_s <= 0) {
    e.push_back(fmt::format("memory_bandwidth_bytes_per_s: expected a positive rate, found {}",
                            h.memory_bandwidth_bytes_per_s));
  }
  bool any_roof = false;
  for (int i = 0; i < kComputeTypeCount; ++i) {
    const auto name = compute_type_name(static_cast<ComputeType>(i));
    if (h.dense_flops_per_s[i] < 0) {
      e.push_back(fmt::format("dense_flops_per_s.{}: expected >= 0, found {}", name,
                              h.dense_flops_per_s[i]));
    }
    any_roof = any_roof || h.dense_flops_per_s[i] > 0;
    // A sparse peak below the dense one means the two were swapped: the guide forbids mixing.
    if (h.sparse_flops_per_s[i] > 0 && h.dense_flops_per_s[i] > 0 &&
        h.sparse_flops_per_s[i] < h.dense_flops_per_s[i]) {
      e.push_back(fmt::format(
          "sparse_flops_per_s.{}: expected at least the dense peak ({:.4g}), found {:.4g}", name,
          h.dense_flops_per_s[i], h.sparse_flops_per_s[i]));
    }
  }
  if (!any_roof) e.push_back("dense_flops_per_s: expected at least one positive dense peak");
  if (h.devices_per_server <= 0) {
    e.push_back(fmt::format("devices_per_server: expected a positive integer, found {}",
                            h.devices_per_server));
  }
  if (h.tdp_w < 0) e.push_back(fmt::format("tdp_w: expected >= 0, found {}", h.tdp_w));
  if (h.idle_w < 0 || (h.tdp_w > 0 && h.idle_w > h.tdp_w)) {
    e.push_back(fmt::format("idle_w: expected 0..tdp_w ({}), found {}", h.tdp_w, h.idle_w));
  }
  if (h.hw_class == HwClass::cpu) {
    if (!h.cpu) {
      e.push_back("cpu: expected a cpu block (cores, memory_channels, ...) for class cpu");
    } else if (h.cpu->cores <= 0) {
      e.push_back(fmt::format("cpu.cores: expected a positive integer, found {}", h.cpu->cores));
    }
  }
  return e;
}

}  // namespace infercap
