#include "infercap/stack.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace infercap {

StackSpec ideal_stack() {
  StackSpec s;
  s.name = "ideal";
  s.aliases = {"roofline", "datasheet"};
  s.description =
      "Pure datasheet roofline: peak bandwidth and peak dense compute, no overheads, no reserve.";
  s.datasheet_peaks = true;
  for (auto& e : s.per_class) e = StackEfficiency{};
  s.sources.push_back({{"*"}, "infercap built-in: the definition of a roofline", "", ""});
  return s;
}

std::optional<std::string> stack_mismatch(const StackSpec& stack, const HardwareSpec& hw) {
  if (!stack.for_class(hw.hw_class).supported) {
    return fmt::format("stack '{}' does not run on {} hardware ('{}')", stack.name,
                       hw_class_name(hw.hw_class), hw.name);
  }
  // Hardware whose entry names no vendor (a user's own YAML) is not turned away on a guess.
  if (stack.vendors.empty() || hw.vendor.empty() ||
      std::find(stack.vendors.begin(), stack.vendors.end(), hw.vendor) != stack.vendors.end()) {
    return std::nullopt;
  }
  return fmt::format("stack '{}' runs on {} hardware; '{}' is {}", stack.name,
                     fmt::join(stack.vendors, " or "), hw.name, hw.vendor);
}

}  // namespace infercap
