#pragma once
// How sure an answer is, as the panels show it: the tornado chart of a plan's sensitivity (each
// input moved one at a time, the TCO change of the re-solved plan). The model's measured error
// on a prediction and a fleet is core's (answer_bands.hpp), shared with the CLI. No ImGui here;
// the [gui] tests check these structs.
#include <string>
#include <vector>

#include "infercap/report/document.hpp"
#include "infercap/sensitivity.hpp"

namespace infercap::gui {

/// One case of a tornado bar: an input moved down or up.
struct TornadoEnd {
  bool present = false;
  std::string words;  ///< the report's words for the change ("load +50%")
  double factor = 1;  ///< as SensitivityCase (years added for the horizon)
  bool feasible = false;
  bool same_choice = true;
  std::string choice;      ///< the re-solved recommendation (fleet_key)
  double tco_usd = 0;      ///< of the re-solved plan
  double tco_change = 0;   ///< tco_usd / base - 1
  std::string infeasible;  ///< why, when not feasible
};

/// One bar: a parameter, its lowered and raised cases.
struct TornadoBar {
  SensitivityParam param = SensitivityParam::load;
  std::string name;     ///< "load", "electricity price", ...
  TornadoEnd down;      ///< factor < 1 (horizon: a year less)
  TornadoEnd up;        ///< factor > 1 (the model-error case is an "up")
  double span() const;  ///< largest |tco_change| of its feasible ends; infeasible ends count 1
};

/// Bars of `s`, widest first (ties keep the parameter order). `table` is the report's
/// sensitivity section for `s` (report::sensitivity_section): its first table's first column
/// gives each case's words, one row per case in the order of s.cases; without it the words are
/// built here in English.
std::vector<TornadoBar> tornado(const Sensitivity& s, const report::Section* table = nullptr);

}  // namespace infercap::gui
