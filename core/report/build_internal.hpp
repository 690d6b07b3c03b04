#pragma once
// Shared by the section builders (build_*.cpp): the inputs, the language and the formatters.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "infercap/report/build.hpp"
#include "infercap/report/document.hpp"
#include "messages.hpp"

namespace infercap::report::detail {

struct Ctx {
  const PlanInputs& in;
  const Plan& plan;
  const ReportOptions& opt;
  Sensitivity sens;
  bool has_sens = false;
  /// Batch knee per recommended part (same order as plan.recommended.parts); ok() false if it
  /// could not be simulated.
  std::vector<Result<KneeResult>> knees;

  std::string t(M m) const { return std::string(message(opt.lang, m)); }
  template <class... A>
  std::string f(M m, const A&... a) const {
    return fmt::format(fmt::runtime(message(opt.lang, m)), a...);
  }
  Currency cur() const { return in.prices.display_currency; }
  std::string cur_code() const;  ///< "USD"/"CNY" (en), "美元"/"元" (zh) for headers
  double money(double usd) const { return to_currency(usd, cur(), in.prices); }
  std::string money_s(double usd) const;  ///< for sentences: "CNY 1.23 M", "123.4 万元"
  std::string secs(double s) const;
  std::string qps(double q) const;  ///< "12.3 req/s"
  std::string pct(double fraction) const;
  std::string yesno(bool b) const { return t(b ? M::yes : M::no); }
  std::string class_name(HwClass c) const;
  int horizon() const { return in.constraints.horizon_years; }
  /// Per pool: the leader, the runner-up and the next best rows, at most opt.finalists.
  std::vector<const CandidateRow*> finalists(const PoolResult& p) const;
  /// Every row the report details: the recommended parts, then each pool's finalists, once.
  std::vector<const CandidateRow*> detailed() const;
  std::string label(const CandidateRow& r) const;  ///< "h100-sxm fp8 vllm TP1 (chat)"
  /// The solver's fleet label in English; in Chinese, the fleet named by its parts.
  std::string fleet_label(const FleetChoice& f, bool recommended, size_t i) const;
};

Block paragraph(std::string s);
Block bullets(std::vector<std::string> items);
Block numbered(std::vector<std::string> items);
Block subheading(std::string s);
Block code(std::string s);
Block table_block(Table t);
Block chart_block(Chart c);
Column col(std::string id, std::string header, ColType type, int decimals = 2);
Column fcol(std::string id, std::string header, ColType type, std::string formula, bool sum);

const HardwareSpec* find_hw(const PlanInputs& in, const std::string& name);
const ModelSpec* find_model(const PlanInputs& in, const std::string& name);
const Pool* find_pool(const PlanInputs& in, const std::string& name);

Section summary_section(const Ctx& c);
Section requirement_section(const Ctx& c);
Section candidates_section(const Ctx& c);
Section bom_section(const Ctx& c);
Section sensitivity_section(const Ctx& c);
Section risks_section(const Ctx& c);
Section poc_section(const Ctx& c);
Section provenance_section(const Ctx& c);

/// The sentence saying what would make the runner-up win, from the break-even points.
std::string runner_up_conditions(const Ctx& c);

}  // namespace infercap::report::detail
