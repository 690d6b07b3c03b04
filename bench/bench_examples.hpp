#pragma once
// What the plan and report benches share: the data folder, the examples in it, and one example
// loaded as planner inputs (catalog and scenario read from disk, as `infercap plan` does).
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::bench {

inline const std::string kData = std::string(INFERCAP_SOURCE_DIR) + "/data";

/// data/examples/*.yaml by name, sorted, without the stack files some examples carry.
inline std::vector<std::string> example_names() {
  std::vector<std::string> names;
  const std::string suffix = ".yaml";
  for (const auto& e : std::filesystem::directory_iterator(kData + "/examples")) {
    const std::string f = e.path().filename().string();
    if (f.size() > suffix.size() && f.ends_with(suffix) && f.find(".stack.") == std::string::npos)
      names.push_back(f.substr(0, f.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct LoadedExample {
  PlanInputs inputs;
  std::string description;  ///< the scenario's, for the report
};

/// Example `name` (no extension) as planner inputs; nullopt with `diags` saying why.
inline std::optional<LoadedExample> load_example(const std::string& name,
                                                 spec::Diagnostics& diags) {
  const spec::Catalog cat = spec::Catalog::load(kData, diags);
  auto sc = spec::load_scenario(kData + "/examples/" + name + ".yaml", kData, diags);
  if (!sc) return std::nullopt;
  auto in = spec::to_plan_inputs(*sc, cat, diags);
  if (!in) return std::nullopt;
  return LoadedExample{std::move(*in), sc->description};
}

}  // namespace infercap::bench
