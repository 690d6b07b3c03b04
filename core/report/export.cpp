// The report export both shells call (export.hpp).
#include "infercap/report/export.hpp"

namespace infercap::report {

std::string export_currency_code(const ExportRequest& r) {
  if (!r.currency.empty()) return r.currency;
  return r.lang == Lang::zh ? "CNY" : "";
}

ReportOptions export_options(const ExportRequest& r) {
  ReportOptions o;
  o.lang = r.lang;
  o.description = r.description;
  o.spec_file = r.spec_file;
  o.top = r.top;
  o.run_sensitivity = r.sensitivity;
  o.accuracy = {0.060, 0.136, "docs/validation.md, leave-one-hardware-out"};
  return o;
}

Result<Format> export_report(const PlanInputs& in, const Plan& plan, const ExportRequest& r) {
  auto f = format_for_path(r.path);
  if (!f) return f;
  const std::string code = export_currency_code(r);
  const Currency want = code.empty()    ? in.prices.display_currency
                        : code == "CNY" ? Currency::cny
                                        : Currency::usd;
  const ReportOptions opt = export_options(r);
  if (want == in.prices.display_currency) {
    return render_to_path(build_document(in, plan, opt), r.path, r.force);
  }
  PlanInputs again = in;
  again.prices.display_currency = want;
  auto solved = solve(again);
  if (!solved) return Error{"cannot write '" + r.path + "': " + solved.error().message};
  return render_to_path(build_document(again, *solved, opt), r.path, r.force);
}

}  // namespace infercap::report
