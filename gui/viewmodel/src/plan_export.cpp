#include "infercap_gui/plan_export.hpp"

#include <fmt/core.h>

namespace infercap::gui {

namespace {

// RFC 4180: quote fields holding a comma, a quote or a line break; double the quotes.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

std::string num(double v) {
  return fmt::format("{}", v);
}

}  // namespace

std::string plan_csv(const PlanOutcome& o) {
  if (!o.plan) return "";
  const PriceBook& b = o.prices;
  const std::string c = b.display_currency == Currency::cny ? "cny" : "usd";
  auto m = [&](double usd) { return num(to_currency(usd, b.display_currency, b)); };
  std::string out = fmt::format(
      "pool,status,rank,hardware,class,vendor,precision,stack,tp,max_batch,replicas,devices,"
      "servers,rack_units,max_qps_per_replica,limited_by,design_qps,ttft_p99_s,tpot_p99_s,"
      "e2e_p99_s,power_w,capex_{0},capital_{0},energy_{0},hosting_{0},maintenance_{0},"
      "operations_{0},porting_{0},tco_{0},{0}_per_million_tokens,binding,reason\n",
      c);
  for (const auto& pool : o.plan->pools) {
    auto row = [&](const CandidateRow& r, bool ranked) {
      const Constraint* bc = r.binding_constraint();
      const bool sized = r.replicas > 0;
      const bool priced = r.priced && sized;
      out += fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{"
          "},"
          "{},{}\n",
          field(pool.pool.name), ranked ? "feasible" : "rejected",
          ranked ? std::to_string(r.rank) : "", field(r.hardware), hw_class_name(r.hw_class),
          field(r.vendor), field(r.precision), field(r.stack), r.tp, r.max_seqs,
          sized ? std::to_string(r.replicas) : "", sized ? std::to_string(r.devices) : "",
          sized ? std::to_string(r.servers) : "", sized ? std::to_string(r.rack_units) : "",
          r.max_qps_per_replica > 0 ? num(r.max_qps_per_replica) : "", field(r.limited_by),
          sized ? num(r.design_qps) : "", sized ? num(r.ttft_p99_s) : "",
          sized ? num(r.tpot_p99_s) : "", sized ? num(r.e2e_p99_s) : "",
          sized ? num(r.power_w) : "", priced ? m(r.cost.capex_usd) : "",
          priced ? m(r.cost.capital_usd) : "", priced ? m(r.cost.energy_usd) : "",
          priced ? m(r.cost.hosting_usd) : "", priced ? m(r.cost.maintenance_usd) : "",
          priced ? m(r.cost.ops_usd) : "", priced ? m(r.cost.porting_usd) : "",
          priced ? m(r.cost.tco_usd) : "", priced ? m(r.cost.per_million_tokens_usd) : "",
          !ranked && bc != nullptr ? field(bc->name) : "",
          !ranked && bc != nullptr ? field(bc->message) : "");
    };
    for (const auto& r : pool.ranked) row(r, true);
    for (const auto& r : pool.rejected) row(r, false);
  }
  return out;
}

}  // namespace infercap::gui
