#pragma once
// `infercap report`: the plan of a scenario as a Markdown document for a buying decision, with the
// batch knee of each recommended part and the sources of every device, model, stack and price it
// rests on. Shares the solve and the printers with `infercap plan`.
#include <string>

namespace infercap::cli {

struct PlanReportArgs {
  std::string spec;
  std::string output;  ///< Markdown file; written whole or not at all
  std::string data;
  int top = 5;
};

/// Exit codes as `plan`: 0 feasible, 5 infeasible (still written), 3 bad spec, 4 unwritable file.
int run_plan_report(const PlanReportArgs& a);

}  // namespace infercap::cli
