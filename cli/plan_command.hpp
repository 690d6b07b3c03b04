#pragma once
// What `infercap plan` and `infercap report` share: loading a scenario against the catalog and
// solving it. `report` (cmd_report.cpp) then builds the procurement document (infercap::report)
// and renders it by the output file's extension.
#include <optional>
#include <string>

#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::cli {

struct Solved {
  spec::Scenario scenario;
  PlanInputs inputs;
  Plan plan;
  spec::Catalog catalog;  ///< the catalog it was solved with (vendors for the error bands)
};

/// Catalog, scenario, plan inputs and the solve. `currency` "USD"/"CNY" overrides the price
/// book's display currency ("" keeps it). On failure the diagnostics are printed and `rc` holds
/// the exit code (3 bad spec, 4 unreadable file).
std::optional<Solved> solve_scenario(const std::string& spec_path, const std::string& data_flag,
                                     const std::string& currency, int& rc);

}  // namespace infercap::cli
