#pragma once
// Writes a StackSpec as YAML in the schema the loader reads (docs/spec-reference.md), so a
// fitted stack round-trips through `infercap validate --fit ... --write`.
#include <string>

#include "infercap/stack.hpp"

namespace infercap::cli {

std::string stack_to_yaml(const StackSpec& s);

}  // namespace infercap::cli
