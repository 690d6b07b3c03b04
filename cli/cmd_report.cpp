// infercap report SPEC.yaml -o report.{md,html,pdf,xlsx} [--lang en|zh] [--currency USD|CNY]:
// the procurement document of a scenario's plan (core/report builds it, one renderer per format;
// report::export_report is the call the GUI's export makes too).
#include <fmt/core.h>

#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/report/export.hpp"
#include "infercap/report/render.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "plan_command.hpp"

namespace infercap::cli {

namespace {

struct ReportArgs {
  std::string spec;
  std::string output;  ///< the format follows the extension; written whole or not at all
  std::string lang = "en";
  std::string currency;  ///< "" = the price book's; zh defaults to CNY
  std::string data;
  int top = 5;
  bool no_sensitivity = false;
  bool force = false;  ///< replace a symbolic link or a read-only file at --output
};

int run_report(const ReportArgs& a) {
  spec::Diagnostics diags;
  if (a.output.empty()) diags.error("", 0, 0, "--output", "expected a file to write the report to");
  auto fmt_ok = report::format_for_path(a.output);
  if (!a.output.empty() && !fmt_ok) diags.error("", 0, 0, "--output", fmt_ok.error().message);
  if (a.lang != "en" && a.lang != "zh")
    diags.error("", 0, 0, "--lang", fmt::format("expected en or zh, found '{}'", a.lang));
  if (!a.currency.empty() && a.currency != "USD" && a.currency != "CNY")
    diags.error("", 0, 0, "--currency", fmt::format("expected USD or CNY, found '{}'", a.currency));
  if (a.top < 1) diags.error("", 0, 0, "--top", fmt::format("expected >= 1, found {}", a.top));
  if (diags.has_errors()) return print_diagnostics(diags);
  // The output path is checked before the plan is solved: a refusal costs nothing.
  if (auto ok = spec::check_output_path(a.output, a.force); !ok) {
    fmt::print(stderr, "infercap report: {}\n", ok.error().message);
    return kExitIo;
  }
  report::ExportRequest r;
  r.path = a.output;
  r.lang = a.lang == "zh" ? report::Lang::zh : report::Lang::en;
  r.currency = a.currency;
  r.top = a.top;
  r.sensitivity = !a.no_sensitivity;
  r.force = a.force;
  // The currency is set before the solve (its messages name money in it); a Chinese report is
  // for a team buying in CNY unless told otherwise (export_currency_code).
  int rc = kExitOk;
  auto solved = solve_scenario(a.spec, a.data, report::export_currency_code(r), rc);
  if (!solved) return rc;
  r.description = solved->scenario.description;
  r.spec_file = a.spec;
  if (auto w = report::export_report(solved->inputs, solved->plan, r); !w) {
    fmt::print(stderr, "infercap report: {}\n", w.error().message);
    return kExitIo;
  }
  fmt::print(stderr, "wrote {}\n", a.output);
  return solved->plan.feasible ? kExitOk : kExitInfeasible;
}

}  // namespace

Runner register_report(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "Write a scenario's plan as a procurement report (.md, .html, .pdf or .xlsx)");
  sub->add_option("spec", a->spec, "scenario YAML (kind: scenario; see data/examples/)")
      ->required();
  sub->add_option("--output,-o", a->output, "report file; the extension picks the format")
      ->required();
  sub->add_option("--lang", a->lang, "en or zh")->capture_default_str();
  sub->add_option("--currency", a->currency, "USD or CNY (default: the price book's; CNY for zh)");
  sub->add_option("--top,-n", a->top, "candidates shown per pool")->capture_default_str();
  sub->add_flag("--no-sensitivity", a->no_sensitivity, "skip the sensitivity re-solves");
  sub->add_option("--data", a->data, "catalog folder (default: INFERCAP_DATA_DIR or built-in)");
  add_force_flag(sub, a->force);
  return [a] { return run_report(*a); };
}

}  // namespace infercap::cli
