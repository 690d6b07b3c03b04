#include "infercap/ops.hpp"

#include <array>

namespace infercap {

std::string_view op_kind_name(OpKind k) {
  static constexpr std::array<std::string_view, 9> kNames{"gemm",      "expert_gemm", "attention",
                                                          "norm",      "elementwise", "routing",
                                                          "embedding", "allreduce",   "p2p"};
  return kNames[static_cast<int>(k)];
}

std::string_view bound_name(Bound b) {
  static constexpr std::array<std::string_view, 5> kNames{"compute", "memory", "overhead",
                                                          "communication", "issue"};
  return kNames[static_cast<int>(b)];
}

}  // namespace infercap
