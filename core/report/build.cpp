// The document's frame, the shared formatters, the executive summary and the requirement.
#include <algorithm>
#include <cmath>

#include "build_internal.hpp"

namespace infercap::report {
namespace detail {

std::string Ctx::cur_code() const {
  return t(cur() == Currency::cny ? M::cur_cny : M::cur_usd);
}

namespace {
std::string grouped(double v) {
  const long long n = std::llround(std::fabs(v));
  std::string d = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return (v < 0 ? "-" : "") + out;
}
}  // namespace

std::string Ctx::money_s(double usd) const {
  const double v = money(usd);
  const double a = std::fabs(v);
  if (opt.lang == Lang::zh) {
    // Chinese amounts read in 万 (1e4) and 亿 (1e8).
    const std::string unit = cur() == Currency::cny ? "元" : "美元";
    if (a >= 1e8) return fmt::format("{:.2f} 亿{}", v / 1e8, unit);
    if (a >= 1e4) return fmt::format("{:.1f} 万{}", v / 1e4, unit);
    if (a < 1) return fmt::format("{:.3g} {}", v, unit);  // per-request amounts
    if (a < 100) return fmt::format("{:.2f} {}", v, unit);
    return grouped(v) + " " + unit;
  }
  const std::string code = cur() == Currency::cny ? "CNY" : "USD";
  if (a >= 1e6) return fmt::format("{} {:.2f} M", code, v / 1e6);
  if (a >= 100) return code + " " + grouped(v);
  if (a < 1) return fmt::format("{} {:.3g}", code, v);  // per-request amounts
  return fmt::format("{} {:.2f}", code, v);
}

std::string Ctx::secs(double s) const {
  if (s >= 1.0 || s == 0) return f(M::unit_s, fmt::format("{:.3g}", s));
  return f(M::unit_ms, fmt::format("{:.3g}", s * 1e3));
}

std::string Ctx::qps(double q) const {
  return f(M::unit_qps, fmt::format("{:.3g}", q));
}

std::string Ctx::pct(double fraction) const {
  return fmt::format("{:.0f}%", fraction * 100);
}

std::string Ctx::class_name(HwClass c) const {
  switch (c) {
    case HwClass::cpu:
      return t(M::class_cpu);
    case HwClass::gpu:
      return t(M::class_gpu);
    case HwClass::npu:
      return t(M::class_npu);
    case HwClass::fpga:
      return t(M::class_fpga);
  }
  return "?";
}

std::vector<const CandidateRow*> Ctx::finalists(const PoolResult& p) const {
  std::vector<const CandidateRow*> out;
  if (p.ranked.empty()) return out;
  out.push_back(&p.ranked.front());
  if (const CandidateRow* ru = runner_up(plan, p); ru != nullptr) out.push_back(ru);
  for (const auto& r : p.ranked) {
    if (static_cast<int>(out.size()) >= std::max(1, opt.finalists)) break;
    if (std::find(out.begin(), out.end(), &r) == out.end()) out.push_back(&r);
  }
  if (static_cast<int>(out.size()) > std::max(1, opt.finalists))
    out.resize(static_cast<size_t>(std::max(1, opt.finalists)));
  return out;
}

std::vector<const CandidateRow*> Ctx::detailed() const {
  std::vector<const CandidateRow*> out;
  std::vector<std::string> seen;
  auto add = [&](const CandidateRow* r) {
    const std::string k = r->pool + "|" + candidate_key(*r) + "|" + std::to_string(r->replicas);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) return;
    seen.push_back(k);
    out.push_back(r);
  };
  for (const auto& p : plan.recommended.parts) add(&p);
  for (const auto& p : plan.pools)
    for (const CandidateRow* r : finalists(p)) add(r);
  return out;
}

std::string Ctx::fleet_label(const FleetChoice& fleet, bool recommended, size_t i) const {
  if (opt.lang == Lang::en) return fleet.label;
  // The solver's labels are English; name the fleet by its parts instead.
  std::string parts;
  for (const auto& p : fleet.parts)
    parts += (parts.empty() ? "" : t(M::list_sep)) + fmt::format("{} × {}", p.devices, p.hardware);
  return recommended ? f(M::fleet_recommended, parts) : f(M::fleet_alternative, i + 1, parts);
}

std::string Ctx::label(const CandidateRow& r) const {
  return candidate_key(r) + " (" + r.pool + ")";
}

Block paragraph(std::string s) {
  Block b;
  b.kind = BlockKind::paragraph;
  b.text = std::move(s);
  return b;
}
Block bullets(std::vector<std::string> items) {
  Block b;
  b.kind = BlockKind::bullets;
  b.items = std::move(items);
  return b;
}
Block numbered(std::vector<std::string> items) {
  Block b;
  b.kind = BlockKind::numbered;
  b.items = std::move(items);
  return b;
}
Block subheading(std::string s) {
  Block b;
  b.kind = BlockKind::subheading;
  b.text = std::move(s);
  return b;
}
Block code(std::string s) {
  Block b;
  b.kind = BlockKind::code;
  b.text = std::move(s);
  return b;
}
Block table_block(Table t) {
  evaluate_formulas(t);
  Block b;
  b.kind = BlockKind::table;
  b.table = std::move(t);
  return b;
}
Block chart_block(Chart c) {
  Block b;
  b.kind = BlockKind::chart;
  b.chart = std::move(c);
  return b;
}
Column col(std::string id, std::string header, ColType type, int decimals) {
  Column c;
  c.id = std::move(id);
  c.header = std::move(header);
  c.type = type;
  c.decimals = decimals;
  return c;
}
Column fcol(std::string id, std::string header, ColType type, std::string formula, bool sum) {
  Column c = col(std::move(id), std::move(header), type, 0);
  c.formula = std::move(formula);
  c.sum = sum;
  return c;
}

const HardwareSpec* find_hw(const PlanInputs& in, const std::string& name) {
  for (const auto& h : in.space.hardware)
    if (h.name == name) return &h;
  return nullptr;
}
const ModelSpec* find_model(const PlanInputs& in, const std::string& name) {
  for (const auto& m : in.models)
    if (m.name == name) return &m;
  return nullptr;
}
const Pool* find_pool(const PlanInputs& in, const std::string& name) {
  for (const auto& p : in.pools)
    if (p.name == name) return &p;
  for (const auto& p : in.baseline_pools)
    if (p.name == name) return &p;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------

std::string runner_up_conditions(const Ctx& c) {
  std::vector<std::string> ifs;
  for (const auto& b : c.sens.break_evens) {
    if (!b.found) continue;
    switch (b.param) {
      case SensitivityParam::load:
        ifs.push_back(c.f(b.runner_up_wins_beyond ? M::ru_if_load_above : M::ru_if_load_below,
                          c.qps(b.value)));
        break;
      case SensitivityParam::electricity:
        ifs.push_back(c.f(b.runner_up_wins_beyond ? M::ru_if_power_above : M::ru_if_power_below,
                          fmt::format("{:.3g}", c.money(b.value)), c.cur_code()));
        break;
      case SensitivityParam::device_prices:
        ifs.push_back(b.at < 1 ? c.f(M::ru_if_price_falls, c.pct(1 - b.at))
                               : c.f(M::ru_if_price_rises, c.pct(b.at - 1)));
        break;
      default:
        break;
    }
  }
  if (ifs.empty()) return c.t(M::ru_never);
  std::string s;
  for (size_t i = 0; i < ifs.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == ifs.size() ? c.t(M::list_or) : c.t(M::list_sep))) + ifs[i];
  return c.f(M::ru_would_win, s);
}

namespace {

std::string fleet_words(const Ctx& c, const FleetChoice& f) {
  std::string s;
  for (size_t i = 0; i < f.parts.size(); ++i) {
    const auto& p = f.parts[i];
    s += (i == 0 ? "" : c.t(M::list_sep)) +
         c.f(M::fleet_part, p.devices, p.hardware, p.precision, p.stack, p.tp, p.pool);
  }
  return s;
}

}  // namespace

Section summary_section(const Ctx& c) {
  Section s{"summary", c.t(M::sec_summary), {}};
  const Plan& plan = c.plan;
  if (!plan.feasible) {
    if (c.opt.lang == Lang::en) {
      s.blocks.push_back(paragraph(c.f(M::sum_infeasible, plan.infeasible_reason)));
      if (!plan.suggestions.empty()) s.blocks.push_back(bullets(plan.suggestions));
      return s;
    }
    // The solver writes its reasons in English: say the same in the report's language from the
    // nearest rejected candidate, then quote the solver.
    const CandidateRow* near = nullptr;
    for (const auto& p : plan.pools) {
      for (const auto& r : p.rejected) {
        const Constraint* b = r.binding_constraint();
        if (b != nullptr && (near == nullptr || b->margin > near->binding_constraint()->margin))
          near = &r;
      }
    }
    std::string text = c.t(M::sum_infeasible_short);
    if (near != nullptr) {
      const Constraint* b = near->binding_constraint();
      text += c.f(M::sum_nearest, near->hardware, near->precision, near->tp,
                  c.t(constraint_msg(b->name)), c.pct(std::fabs(b->margin)));
    }
    s.blocks.push_back(paragraph(text));
    s.blocks.push_back(paragraph(c.t(M::sum_solver_words)));
    std::vector<std::string> quoted = {plan.infeasible_reason};
    quoted.insert(quoted.end(), plan.suggestions.begin(), plan.suggestions.end());
    s.blocks.push_back(bullets(std::move(quoted)));
    return s;
  }
  const FleetChoice& r = plan.recommended;
  int feasible = 0;
  for (const auto& p : plan.pools) feasible += static_cast<int>(p.ranked.size());
  std::string why;
  // The tightest constraint of the first part: what the choice is closest to violating.
  if (!r.parts.empty()) {
    const CandidateRow& p0 = r.parts.front();
    if (const Constraint* bc = p0.binding_constraint(); bc != nullptr)
      why = c.f(M::sum_tightest, c.t(constraint_msg(bc->name)), c.pct(bc->margin));
  }
  const std::string s1 = c.f(M::sum_recommend, fleet_words(c, r), r.devices, r.servers);
  const std::string s2 = c.f(M::sum_cost, c.money_s(r.cost.capex_usd), c.money_s(r.cost.tco_usd),
                             c.horizon(), c.money_s(r.cost.per_million_tokens_usd));
  const std::string s3 = c.f(plan.objective == Objective::min_tco ? M::sum_why_tco : M::sum_why_qps,
                             feasible, plan.candidates_evaluated) +
                         why;
  s.blocks.push_back(paragraph(s1 + c.t(M::sentence_sep) + s2 + c.t(M::sentence_sep) + s3));
  // The solver's note is English (the BOM and the alternatives below carry the same facts).
  if (!r.note.empty() && c.opt.lang == Lang::en) s.blocks.push_back(paragraph(r.note));
  if (!plan.pools.empty()) {
    const PoolResult& p0 = plan.pools.front();
    if (const CandidateRow* ru = runner_up(plan, p0); ru != nullptr && !p0.ranked.empty()) {
      const double lead = p0.ranked.front().cost.tco_usd;
      s.blocks.push_back(paragraph(
          c.f(M::sum_runner_up, candidate_key(*ru), c.money_s(ru->cost.tco_usd),
              c.pct(lead > 0 ? ru->cost.tco_usd / lead - 1 : 0), candidate_key(p0.ranked.front())) +
          c.t(M::sentence_sep) + (c.has_sens ? runner_up_conditions(c) : "")));
    } else {
      s.blocks.push_back(paragraph(c.t(M::sum_no_runner_up)));
    }
  }
  for (size_t i = 0; i < plan.alternatives.size(); ++i) {
    const FleetChoice& a = plan.alternatives[i];
    s.blocks.push_back(paragraph(c.f(M::sum_alternative, c.fleet_label(a, false, i), a.devices,
                                     c.money_s(a.cost.tco_usd), c.money_s(r.cost.tco_usd))));
  }
  if (r.cost.estimate) s.blocks.push_back(paragraph(c.t(M::sum_estimates)));
  return s;
}

// ---------------------------------------------------------------------------------------------

namespace {

bool field_matches(const std::string& pattern, const std::string& key) {
  if (pattern == "*") return true;
  if (pattern.size() >= 2 && pattern.compare(pattern.size() - 2, 2, ".*") == 0) {
    const std::string pre = pattern.substr(0, pattern.size() - 2);
    return key == pre || key.rfind(pre + ".", 0) == 0;
  }
  return key == pattern || key.rfind(pattern + ".", 0) == 0;
}

const SourceRef* source_for(const std::vector<SourceRef>& srcs, const std::string& key) {
  for (const auto& s : srcs) {
    for (const auto& f : s.fields)
      if (field_matches(f, key)) return &s;
  }
  return nullptr;
}

std::string arrival_words(const Ctx& c, const ArrivalProcess& a) {
  switch (a.kind) {
    case ArrivalKind::poisson:
      return c.t(M::arr_poisson);
    case ArrivalKind::deterministic:
      return c.t(M::arr_deterministic);
    case ArrivalKind::gamma:
      return c.f(M::arr_gamma, a.scv);
    case ArrivalKind::hyperexponential:
      return c.f(M::arr_bursty, a.scv);
  }
  return "?";
}

double q(const LengthDist& d, double p) {
  auto v = quantile(d, p);
  return v ? *v : 0;
}

std::string sla_words(const Ctx& c, const Sla& s) {
  std::vector<std::string> parts;
  auto one = [&](const std::string& name, const SlaTarget& t) {
    if (t.set())
      parts.push_back(fmt::format("{} P{:g} ≤ {}", name, t.percentile, c.secs(t.limit_s)));
  };
  one(c.t(M::m_ttft), s.ttft);
  one(c.t(M::m_tpot), s.tpot);
  one(c.t(M::m_e2e), s.e2e);
  std::string o;
  for (size_t i = 0; i < parts.size(); ++i) o += (i ? ", " : "") + parts[i];
  return o.empty() ? "-" : o;
}

std::string strategy_words(const Ctx& c, FleetStrategy s) {
  switch (s) {
    case FleetStrategy::single:
      return c.t(M::strat_single);
    case FleetStrategy::tiered:
      return c.t(M::strat_tiered);
    case FleetStrategy::burst:
      return c.t(M::strat_burst);
    case FleetStrategy::staged:
      return c.t(M::strat_staged);
  }
  return "?";
}

}  // namespace

Section requirement_section(const Ctx& c) {
  Section s{"requirement", c.t(M::sec_requirement), {}};
  if (!c.opt.description.empty()) s.blocks.push_back(paragraph(c.opt.description));
  s.blocks.push_back(subheading(c.t(M::req_workload)));
  Table w;
  w.id = "workload";
  w.caption = c.t(M::req_workload_caption);
  w.columns = {col("class", c.t(M::h_class), ColType::text),
               col("model", c.t(M::h_model), ColType::text),
               col("mean_qps", c.t(M::h_mean_qps), ColType::number, 2),
               col("design_qps", c.t(M::h_design_qps), ColType::number, 2),
               col("arrival", c.t(M::h_arrival), ColType::text),
               col("prompt_p50", c.t(M::h_prompt_p50), ColType::integer),
               col("prompt_p90", c.t(M::h_prompt_p90), ColType::integer),
               col("output_p50", c.t(M::h_output_p50), ColType::integer),
               col("output_p90", c.t(M::h_output_p90), ColType::integer),
               col("sla", c.t(M::h_sla), ColType::text)};
  std::vector<std::string> seen;
  for (const auto& p : c.in.pools) {
    for (const auto& k : p.classes) {
      w.add({Cell::str(p.name == k.name ? k.name : p.name + " / " + k.name), Cell::str(p.model),
             Cell::num(average_qps(k.rate)), Cell::num(design_qps(k.rate)),
             Cell::str(arrival_words(c, k.arrival)), Cell::num(q(k.prompt_tokens, 50)),
             Cell::num(q(k.prompt_tokens, 90)), Cell::num(q(k.output_tokens, 50)),
             Cell::num(q(k.output_tokens, 90)), Cell::str(sla_words(c, k.sla))});
    }
  }
  s.blocks.push_back(table_block(std::move(w)));

  s.blocks.push_back(subheading(c.t(M::req_constraints)));
  const Constraints& k = c.in.constraints;
  Table t;
  t.id = "constraints";
  t.caption = c.t(M::req_constraints_caption);
  t.columns = {col("item", c.t(M::h_item), ColType::text),
               col("value", c.t(M::h_value), ColType::text)};
  auto kv = [&](M name, std::string v) { t.add({Cell::str(c.t(name)), Cell::str(std::move(v))}); };
  auto limit = [&](double usd) { return usd > 0 ? c.money_s(usd) : c.t(M::no_limit); };
  kv(M::k_objective, c.t(c.in.objective == Objective::min_tco ? M::obj_min_tco : M::obj_max_qps));
  kv(M::k_strategy, strategy_words(c, c.in.strategy));
  kv(M::k_horizon, c.f(M::n_years, k.horizon_years));
  kv(M::k_growth, c.pct(k.load_growth_per_year));
  kv(M::k_redundancy, fmt::format("N+{}", k.redundancy));
  kv(M::k_capex_budget, limit(k.capex_budget_usd));
  kv(M::k_annual_budget, limit(k.annual_budget_usd));
  kv(M::k_power_cap, k.power_cap_w > 0 ? c.f(M::unit_kw, fmt::format("{:.1f}", k.power_cap_w / 1e3))
                                       : c.t(M::no_limit));
  kv(M::k_rack_units, k.rack_units > 0 ? std::to_string(k.rack_units) : c.t(M::no_limit));
  kv(M::k_model_changes, fmt::format("{:g}", k.model_changes_per_year));
  s.blocks.push_back(table_block(std::move(t)));

  s.blocks.push_back(subheading(c.t(M::req_assumptions)));
  const PriceBook& b = c.in.prices;
  Table a;
  a.id = "assumptions";
  a.caption = c.f(M::req_assumptions_caption, b.name);
  a.columns = {col("assumption", c.t(M::h_assumption), ColType::text),
               col("value", c.t(M::h_value), ColType::text),
               col("source", c.t(M::h_source), ColType::text)};
  // Several assumptions share one source: each is cited by number and listed once below.
  std::vector<const SourceRef*> cited;
  auto row = [&](std::string name, std::string value, const std::string& key) {
    const SourceRef* src = source_for(b.sources, key);
    std::string ref = c.t(M::no_source);
    if (src != nullptr) {
      auto it = std::find(cited.begin(), cited.end(), src);
      if (it == cited.end()) it = cited.insert(cited.end(), src);
      ref = fmt::format("[{}]", it - cited.begin() + 1);
    }
    a.add({Cell::str(std::move(name)), Cell::str(std::move(value)), Cell::str(ref)});
  };
  const std::string per_kwh = c.cur_code() + "/kWh";
  row(c.t(M::a_cny_per_usd), fmt::format("{:g}", b.cny_per_usd), "cny_per_usd");
  row(c.t(M::a_electricity), fmt::format("{:.3g} {}", c.money(b.electricity_usd_per_kwh), per_kwh),
      "electricity_usd_per_kwh");
  row(c.t(M::a_pue), fmt::format("{:g}", b.pue), "pue");
  row(c.t(M::a_depreciation), c.f(M::n_years, fmt::format("{:g}", b.depreciation_years)),
      "depreciation_years");
  row(c.t(M::a_maintenance), c.pct(b.maintenance_fraction_per_year),
      "maintenance_fraction_per_year");
  row(c.t(M::a_ops), c.money_s(b.ops_usd_per_server_year), "ops_usd_per_server_year");
  row(c.t(M::a_hosting_kw), c.money_s(b.hosting_usd_per_kw_year), "hosting_usd_per_kw_year");
  row(c.t(M::a_hosting_ru), c.money_s(b.hosting_usd_per_rack_unit_year),
      "hosting_usd_per_rack_unit_year");
  row(c.t(M::a_engineer_week), c.money_s(b.engineer_week_usd), "engineer_week_usd");
  std::vector<std::string> families;
  for (const CandidateRow* r : c.detailed()) {
    const DevicePricing* dp = b.find(r->hardware);
    if (dp == nullptr) continue;
    if (std::find(families.begin(), families.end(), "hw:" + r->hardware) != families.end())
      continue;
    families.push_back("hw:" + r->hardware);
    row(c.f(M::a_device_price, r->hardware),
        dp->tiers.empty() ? "-"
                          : c.money_s(dp->tiers.front().unit_price_usd) +
                                (dp->estimate ? c.t(M::estimate_tag) : ""),
        "devices." + r->hardware + ".tiers");
    row(c.f(M::a_server_price, r->hardware), c.money_s(dp->server_price_usd),
        "devices." + r->hardware + ".server_price_usd");
    if (!dp->porting_family.empty() &&
        std::find(families.begin(), families.end(), dp->porting_family) == families.end()) {
      families.push_back(dp->porting_family);
      if (const PortingCost* pc = b.porting_for(dp->porting_family); pc != nullptr) {
        row(c.f(M::a_porting, pc->family),
            c.f(M::porting_weeks, fmt::format("{:g}", pc->first_port_engineer_weeks),
                fmt::format("{:g}", pc->per_model_change_engineer_weeks)),
            "porting." + pc->family);
      }
    }
  }
  s.blocks.push_back(table_block(std::move(a)));
  Table src;
  src.id = "assumption-sources";
  src.caption = c.t(M::req_sources_note);
  src.columns = {
      col("ref", c.t(M::h_ref), ColType::text), col("source", c.t(M::h_source), ColType::text),
      col("date", c.t(M::h_date), ColType::text), col("note", c.t(M::h_note), ColType::text)};
  for (size_t i = 0; i < cited.size(); ++i) {
    src.add({Cell::str(fmt::format("[{}]", i + 1)), Cell::str(cited[i]->ref),
             Cell::str(cited[i]->date),
             cited[i]->note.empty() ? Cell::none() : Cell::str(cited[i]->note)});
  }
  s.blocks.push_back(table_block(std::move(src)));
  return s;
}

}  // namespace detail

SensitivityOptions sensitivity_options(const ReportOptions& opt) {
  SensitivityOptions so = opt.sensitivity;
  if (so.model_error_fraction == 0) {
    so.model_error_fraction =
        std::max(opt.accuracy.decode_median_error, opt.accuracy.prefill_median_error);
  }
  return so;
}

Section sensitivity_section(const PlanInputs& in, const Plan& plan, const Sensitivity& sens,
                            const ReportOptions& opt) {
  detail::Ctx c{in, plan, opt, sens, true, {}};
  return detail::sensitivity_section(c);
}

Document build_document(const PlanInputs& in, const Plan& plan, const ReportOptions& opt) {
  using namespace detail;
  Ctx c{in, plan, opt, {}, false, {}};
  if (opt.run_sensitivity) {
    c.sens = sensitivity(in, plan, sensitivity_options(opt));
    c.has_sens = true;
  }
  if (opt.knee && plan.feasible) {
    for (const auto& p : plan.recommended.parts) {
      KneeOptions ko;
      ko.requests = opt.knee_requests;
      ko.batch_caps.clear();
      for (int b = 1; b <= std::max(32, p.max_seqs); b *= 2) ko.batch_caps.push_back(b);
      c.knees.push_back(candidate_knee(in, p, ko));
    }
  }
  Document d;
  d.lang = opt.lang;
  d.title = c.f(M::doc_title, plan.name);
  d.subtitle = c.t(M::doc_subtitle);
  d.currency = c.cur() == Currency::cny ? "CNY" : "USD";
  d.toc_title = c.t(M::toc);
  d.page_label = c.t(M::page_n);
  d.footer = c.f(M::footer, plan.name) + (opt.generated.empty() ? "" : " · " + opt.generated);
  d.sections.push_back(summary_section(c));
  d.sections.push_back(requirement_section(c));
  d.sections.push_back(candidates_section(c));
  d.sections.push_back(bom_section(c));
  d.sections.push_back(sensitivity_section(c));
  d.sections.push_back(risks_section(c));
  d.sections.push_back(poc_section(c));
  d.sections.push_back(provenance_section(c));
  return d;
}

}  // namespace infercap::report
