#pragma once
// What `infercap report` (cli/cmd_report.cpp) and the GUI's "Export report" share: the report's
// options and currency rule, and the one call that builds the document of a plan and writes it.
// Both shells call this, so the GUI's file and the CLI's file of the same scenario are the same
// document (byte for byte in Markdown and HTML).
#include <string>

#include "infercap/report/build.hpp"
#include "infercap/report/render.hpp"
#include "infercap/result.hpp"
#include "infercap/solver.hpp"

namespace infercap::report {

struct ExportRequest {
  std::string path;  ///< the format follows the extension (format_for_path)
  Lang lang = Lang::en;
  /// "" = the price book's (CNY for a Chinese report: its readers buy in CNY), "USD" or "CNY".
  std::string currency;
  int top = 5;  ///< candidates shown per pool
  bool sensitivity = true;
  std::string description;  ///< the scenario's description (user text)
  std::string spec_file;    ///< the scenario file named in the provenance section (user text)
  bool force = false;       ///< write over a symbolic link or a read-only file (--force)
};

/// The currency the report shows money in as a code: `r.currency`, else "CNY" for zh, else ""
/// (keep the book's). This is what `infercap report` passes to the solve as --currency.
std::string export_currency_code(const ExportRequest& r);

/// The document options of a request: language, texts, top, sensitivity, and the serving
/// model's measured error (docs/validation.md, "Fitted stacks": the stack fit's median error on
/// a device left out of the fit, llama.cpp on CUDA GPUs: decode 6.0%, prefill 13.6% as of
/// 2026-12-07, 6.9% and 14.5% before the unfused attention was priced as its code runs) for the
/// sensitivity case and the method appendix. tests/test_report.cpp recomputes both from the
/// held-out rows of data/validation/residuals.csv, so a refit that moves them fails until they
/// follow.
ReportOptions export_options(const ExportRequest& r);

/// Applies export_currency_code(r) to a copy of `in`; when that changes the display currency
/// the plan is solved again (the solver's messages name money in the display currency, so the
/// CLI solves after setting it), else `plan` is used as given. Then builds the document and
/// writes it to r.path (whole or not at all). Error: the path's extension, a failed re-solve or
/// the write, with the path and the reason.
Result<Format> export_report(const PlanInputs& in, const Plan& plan, const ExportRequest& r);

}  // namespace infercap::report
