// infercap report: a procurement-ready Markdown document from a scenario (see plan_command.hpp).
#include <memory>

#include "commands.hpp"
#include "plan_command.hpp"

namespace infercap::cli {

Runner register_report(CLI::App& app) {
  auto a = std::make_shared<PlanReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "Write a scenario's plan as a Markdown report with the sources behind it");
  sub->add_option("spec", a->spec, "scenario YAML (kind: scenario; see data/examples/)")
      ->required();
  sub->add_option("--output,-o", a->output, "Markdown file to write")->required();
  sub->add_option("--top,-n", a->top, "candidates shown per pool")->capture_default_str();
  sub->add_option("--data", a->data, "catalog folder (default: INFERCAP_DATA_DIR or built-in)");
  return [a] { return run_plan_report(*a); };
}

}  // namespace infercap::cli
