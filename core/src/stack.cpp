#include "infercap/stack.hpp"

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

}  // namespace infercap
