#pragma once
// A Scenario written back as the YAML `load_scenario` reads: what the GUI's what-if desk saves
// after the user edited the inputs, so `infercap plan edited.yaml` answers the same question.
//
// Contract (tested in [unit] round trips over data/examples): parsing the text returns a
// Scenario equal to `sc` in every field load_scenario sets, with two deliberate spellings:
// money is always written in USD keys (exact; a CNY budget read back is the same dollars), and a
// lognormal length is written as mean + sigma (mu read back within a few ulps). The price book is
// written as `prices: file: <sc.price_file>` plus every scalar of the resolved book and the
// device / porting entries that differ from `base` (all of them when `base` is null), so the
// resolved book reads back the same without copying the whole base file.
//
// Paths inside the scenario (a stack given as a YAML file, a price book given as a .yaml path)
// are relative to the scenario's own file; with `target_path` set they are rewritten relative to
// the file the text will be saved as, so the saved copy resolves to the same files wherever it
// is written.
#include <string>

#include "infercap/spec/scenario.hpp"
#include "infercap/tco.hpp"

namespace infercap::spec {

std::string scenario_to_yaml(const Scenario& sc, const PriceBook* base = nullptr,
                             const std::string& target_path = "");

}  // namespace infercap::spec
