#pragma once
// Builds the procurement report's document model from a plan's inputs and its result. Pure:
// it re-solves for the sensitivity table and simulates the batch knee of the finalists, but
// reads and writes nothing. The CLI (`infercap report`) and the GUI's export both call it and
// then `render_to_path` (render.hpp).
#include <string>

#include "infercap/report/document.hpp"
#include "infercap/sensitivity.hpp"
#include "infercap/solver.hpp"

namespace infercap::report {

/// The serving model's measured error, quoted in the method appendix and used for the
/// sensitivity case "the model overestimates capacity" (docs/validation.md, held-out device).
struct ModelAccuracy {
  double decode_median_error = 0;  ///< |predicted / measured - 1|, median
  double prefill_median_error = 0;
  std::string source;  ///< where the figures are stated ("docs/validation.md, leave-one-out")
};

struct ReportOptions {
  Lang lang = Lang::en;
  std::string description;  ///< the scenario's own description (user text)
  std::string spec_file;    ///< shown in the provenance section (user text)
  std::string generated;    ///< "infercap 0.1.0, 2026-12-01" or empty (goldens keep it empty)
  int top = 5;              ///< candidates shown per pool
  int finalists = 3;        ///< per pool: TCO, memory and risk detail, proof-of-concept plan
  bool knee = true;         ///< simulate the batch knee of the recommended parts (~0.1 s each)
  int64_t knee_requests = 600;
  SensitivityOptions sensitivity;
  bool run_sensitivity = true;
  ModelAccuracy accuracy;
};

/// The whole document. Money is shown in `in.prices.display_currency` at the book's rate.
Document build_document(const PlanInputs& in, const Plan& plan, const ReportOptions& opt);

/// The options build_document re-solves the sensitivity cases with: `opt.sensitivity`, its
/// model-error case taken from `opt.accuracy` (the larger median error) when not set.
SensitivityOptions sensitivity_options(const ReportOptions& opt);

/// The report's sensitivity section (table of cases, break-even points) for a sensitivity
/// already computed with sensitivity_options(opt): what the GUI shows next to its tornado chart,
/// the same table the report prints.
Section sensitivity_section(const PlanInputs& in, const Plan& plan, const Sensitivity& sens,
                            const ReportOptions& opt);

}  // namespace infercap::report
