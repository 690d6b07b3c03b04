#pragma once
// Writes a StackSpec as YAML in the schema the loader reads (docs/spec-reference.md), so a
// fitted stack round-trips through `infercap validate --fit ... --write`.
#include <string>

#include "infercap/stack.hpp"

namespace infercap::cli {

std::string stack_to_yaml(const StackSpec& s);

/// Sets `fitted.sources` to `base_sources` without their earlier fit provenance (entries whose
/// ref starts "fitted by"), plus `fit`: hand-written sources of unfitted fields stay.
void record_fit_provenance(StackSpec& fitted, const std::vector<SourceRef>& base_sources,
                           SourceRef fit);

}  // namespace infercap::cli
