// infercap plan SPEC.yaml: a workload in, a ranked and explained hardware recommendation out.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/answer_bands.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"
#include "output.hpp"
#include "plan_command.hpp"
#include "residuals.hpp"

namespace infercap::cli {

namespace {

struct PlanArgs {
  std::string spec;
  std::string format = "table";
  std::string data;
  std::string currency;
  int top = 5;
  bool explain = false;
};

}  // namespace

namespace {

struct PlanPrintOptions {
  Format format = Format::table;
  int top = 5;
  bool explain = false;
  std::string description;
  std::vector<Residual> residuals;  ///< validation residuals for the error band (may be empty)
};

std::string cur_suffix(const PriceBook& b) {
  return b.display_currency == Currency::cny ? "cny" : "usd";
}

std::vector<Column> candidate_columns(const PriceBook& b) {
  const std::string c = cur_suffix(b);
  return {{"pool"},
          {"hardware"},
          {"class"},
          {"precision"},
          {"kv_cache"},
          {"stack"},
          {"tp"},
          {"max_batch"},
          {"replicas"},
          {"devices"},
          {"servers"},
          {"max_qps_per_replica", Dim::per_s},
          {"design_qps", Dim::per_s},
          {"ttft_p50_s", Dim::seconds},
          {"ttft_p99_s", Dim::seconds},
          {"tpot_p50_s", Dim::seconds},
          {"tpot_p99_s", Dim::seconds},
          {"e2e_p99_s", Dim::seconds},
          {"utilisation"},
          {"power_w", Dim::watts},
          {"tokens_per_j"},
          {"requests_per_j"},
          {"capex_" + c, Dim::money},
          {"opex_per_year_" + c, Dim::money},
          {"tco_" + c, Dim::money},
          {c + "_per_mtok", Dim::money},
          {"cloud_" + c, Dim::money},
          {"verified"},
          {"rank"},
          {"binding"},
          {"reason"}};
}

// Where the simulator re-checked a row, its P99s are the ones shown (the analytic ones stay in
// JSON under "analytic"); elsewhere the analytic model's.
double shown_ttft_p99(const CandidateRow& r) {
  return r.verified ? r.sim_ttft_p99_s : r.ttft_p99_s;
}
double shown_tpot_p99(const CandidateRow& r) {
  return r.verified ? r.sim_tpot_p99_s : r.tpot_p99_s;
}
double shown_e2e_p99(const CandidateRow& r) {
  return r.verified ? r.sim_e2e_p99_s : r.e2e_p99_s;
}

// A line per verified part whose simulated and analytic P99 differ by more than 15%.
std::string simulator_notes(const FleetChoice& f) {
  std::string out;
  for (const auto& p : f.parts) {
    if (!p.verified) continue;
    const std::pair<const char*, std::pair<double, double>> metrics[] = {
        {"TTFT", {p.sim_ttft_p99_s, p.ttft_p99_s}},
        {"TPOT", {p.sim_tpot_p99_s, p.tpot_p99_s}},
        {"end-to-end", {p.sim_e2e_p99_s, p.e2e_p99_s}}};
    for (const auto& [name, v] : metrics) {
      const double sim = v.first;
      const double ana = v.second;
      if (!(ana > 0) || !(sim > 0) || std::fabs(sim - ana) / ana <= 0.15) continue;
      out += fmt::format(
          "note: {} ({}): simulated P99 {} {:.3g} s vs analytic {:.3g} s ({:+.0f}%); the table "
          "shows the simulator's\n",
          p.hardware, p.pool, name, sim, ana, (sim - ana) / ana * 100);
    }
  }
  return out;
}

std::vector<Cell> candidate_cells(const CandidateRow& r, const PriceBook& b) {
  auto m = [&](double usd) -> Cell { return to_currency(usd, b.display_currency, b); };
  const Constraint* bc = r.binding_constraint();
  std::string reason;
  if (bc != nullptr) reason = bc->message + (bc->fix.empty() ? "" : "; " + bc->fix);
  const bool sized = r.replicas > 0;
  auto num = [&](double v) -> Cell { return sized ? Cell{v} : Cell{}; };
  return {r.pool, r.hardware, std::string(hw_class_name(r.hw_class)), r.precision, r.kv_precision,
          r.stack, static_cast<long long>(r.tp), static_cast<long long>(r.max_seqs),
          static_cast<long long>(r.replicas), static_cast<long long>(r.devices),
          static_cast<long long>(r.servers),
          r.max_qps_per_replica > 0 ? Cell{r.max_qps_per_replica} : Cell{}, num(r.design_qps),
          num(r.ttft_p50_s), num(shown_ttft_p99(r)),
          // An encoder has no decode phase: no TPOT, no output-token figures.
          r.encoder ? Cell{} : num(r.tpot_p50_s), r.encoder ? Cell{} : num(shown_tpot_p99(r)),
          num(shown_e2e_p99(r)), num(r.utilisation), num(r.power_w),
          r.encoder ? Cell{} : num(r.tokens_per_joule), num(r.requests_per_joule),
          r.priced && sized ? m(r.cost.capex_usd) : Cell{},
          r.priced && sized ? m(r.cost.opex_per_year_usd) : Cell{},
          r.priced && sized ? m(r.cost.tco_usd) : Cell{},
          r.priced && sized && !r.encoder ? m(r.cost.per_million_tokens_usd) : Cell{},
          r.priced && sized && r.cost.cloud_available ? m(r.cost.cloud_usd) : Cell{}, r.verified,
          static_cast<long long>(r.rank), bc != nullptr ? Cell{bc->name} : Cell{}, reason};
}

ResultTable candidate_table(std::string title, const std::vector<CandidateRow>& rows, size_t n,
                            const PriceBook& b) {
  ResultTable t;
  t.title = std::move(title);
  t.columns = candidate_columns(b);
  for (size_t i = 0; i < rows.size() && i < n; ++i) t.add(candidate_cells(rows[i], b));
  return t;
}

// The table and Markdown printers show a readable subset; JSON and CSV keep every column.
// An encoder pool's tables leave out what it does not have: TPOT, output tokens, the KV cache.
bool encoder_pool(const PoolResult& p) {
  return !p.pool.classes.empty() && ((!p.ranked.empty() && p.ranked.front().encoder) ||
                                     (!p.rejected.empty() && p.rejected.front().encoder));
}

ResultTable compact(const ResultTable& t, Format f, bool encoder = false) {
  if (f != Format::table && f != Format::md) return t;
  static const std::vector<std::string> keep = {
      "hardware",       "precision",  "kv_cache",
      "stack",          "tp",         "max_batch",
      "replicas",       "devices",    "max_qps_per_replica",
      "ttft_p99_s",     "tpot_p99_s", "e2e_p99_s",
      "utilisation",    "power_w",    "tokens_per_j",
      "requests_per_j", "verified"};
  ResultTable out;
  out.title = t.title;
  std::vector<size_t> idx;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const std::string& n = t.columns[i].name;
    const bool money = n.rfind("tco_", 0) == 0 || n.find("_per_mtok") != std::string::npos ||
                       n.rfind("capex_", 0) == 0;
    const bool decode_only = n == "tpot_p99_s" || n == "tokens_per_j" || n == "kv_cache" ||
                             n.find("_per_mtok") != std::string::npos;
    if (encoder && decode_only) continue;
    if (money || std::find(keep.begin(), keep.end(), n) != keep.end()) {
      idx.push_back(i);
      out.columns.push_back(t.columns[i]);
    }
  }
  for (const auto& row : t.rows) {
    std::vector<Cell> r;
    r.reserve(idx.size());
    for (size_t i : idx) r.push_back(row[i]);
    out.add(std::move(r));
  }
  return out;
}

ResultTable fleet_table(const FleetChoice& f, const PriceBook& b) {
  const std::string c = cur_suffix(b);
  auto m = [&](double usd) -> Cell { return to_currency(usd, b.display_currency, b); };
  ResultTable t;
  t.columns = {{"role"},
               {"hardware"},
               {"precision"},
               {"stack"},
               {"tp"},
               {"replicas"},
               {"devices"},
               {"servers"},
               {"ttft_p99_s", Dim::seconds},
               {"tpot_p99_s", Dim::seconds},
               {"power_w", Dim::watts},
               {"capex_" + c, Dim::money},
               {"opex_per_year_" + c, Dim::money},
               {"tco_" + c, Dim::money}};
  for (const auto& p : f.parts) {
    t.add({p.pool, p.hardware, p.precision, p.stack, static_cast<long long>(p.tp),
           static_cast<long long>(p.replicas), static_cast<long long>(p.devices),
           static_cast<long long>(p.servers), shown_ttft_p99(p),
           p.encoder ? Cell{} : Cell{shown_tpot_p99(p)}, p.power_w, m(p.cost.capex_usd),
           m(p.cost.opex_per_year_usd), m(p.cost.tco_usd)});
  }
  t.add({std::string("total"), std::string(), std::string(), std::string(), Cell{}, Cell{},
         static_cast<long long>(f.devices), static_cast<long long>(f.servers), Cell{}, Cell{},
         f.power_w, m(f.cost.capex_usd), m(f.cost.opex_per_year_usd), m(f.cost.tco_usd)});
  return t;
}

nlohmann::json cost_json(const CostBreakdown& c, const PriceBook& b) {
  auto m = [&](double usd) { return to_currency(usd, b.display_currency, b); };
  nlohmann::json j;
  j["currency"] = std::string(currency_name(b.display_currency));
  j["capex"] = m(c.capex_usd);
  j["capital_within_horizon"] = m(c.capital_usd);
  j["energy"] = m(c.energy_usd);
  j["hosting"] = m(c.hosting_usd);
  j["maintenance"] = m(c.maintenance_usd);
  j["operations"] = m(c.ops_usd);
  j["porting"] = m(c.porting_usd);
  j["tco"] = m(c.tco_usd);
  j["opex_per_year"] = m(c.opex_per_year_usd);
  j["per_request"] = m(c.per_request_usd);
  j["per_million_tokens"] = m(c.per_million_tokens_usd);
  j["energy_kwh"] = c.energy_kwh;
  j["cloud_alternative"] = c.cloud_available ? nlohmann::json(m(c.cloud_usd)) : nlohmann::json();
  j["estimate"] = c.estimate;
  nlohmann::json p = nlohmann::json::array();
  for (const auto& x : c.purchases)
    p.push_back({{"year", x.year + 1}, {"hardware", x.hardware}, {"devices", x.devices}});
  j["purchases"] = p;
  return j;
}

nlohmann::json row_json(const CandidateRow& r, const PriceBook& b) {
  ResultTable t = candidate_table("", {r}, 1, b);
  nlohmann::json j = t.to_json()[0];
  j["limited_by"] = r.limited_by;
  j["peak_power_w"] = r.peak_power_w;
  j["provisioned_w"] = r.provisioned_w;
  j["kv_occupancy"] = r.kv_occupancy;
  j["utilisation_average"] = r.utilisation_average;
  j["weights_bytes_per_device"] = r.weights_bytes_per_device;
  j["feasible"] = r.feasible;
  j["objective_value"] = r.objective_value;  // TCO, req/s within the caps, or tokens per joule
  j["carried_qps"] = r.carried_qps;
  j["engine_busy"] = r.engine_busy;
  j["sized_by"] = r.sized_by;
  if (r.verified) {
    j["analytic"] = {
        {"ttft_p99_s", r.ttft_p99_s}, {"tpot_p99_s", r.tpot_p99_s}, {"e2e_p99_s", r.e2e_p99_s}};
    j["simulated"] = {{"ttft_p99_s", r.sim_ttft_p99_s},
                      {"tpot_p99_s", r.sim_tpot_p99_s},
                      {"e2e_p99_s", r.sim_e2e_p99_s},
                      {"meets_sla", r.sim_meets_sla}};
  }
  if (r.priced && r.replicas > 0) j["cost"] = cost_json(r.cost, b);
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : r.constraints) {
    cs.push_back({{"name", c.name},
                  {"ok", c.ok},
                  {"margin", c.margin},
                  {"message", c.message},
                  {"fix", c.fix}});
  }
  j["constraints"] = cs;
  return j;
}

nlohmann::json fleet_json(const FleetChoice& f, const PriceBook& b) {
  nlohmann::json j;
  j["label"] = f.label;
  j["feasible"] = f.feasible;
  j["partial"] = f.partial;
  j["devices"] = f.devices;
  j["servers"] = f.servers;
  j["power_w"] = f.power_w;
  j["note"] = f.note;
  j["cost"] = cost_json(f.cost, b);
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : f.parts) parts.push_back(row_json(p, b));
  j["parts"] = parts;
  return j;
}

// Rejected rows, nearest to feasible first (binding margin closest to 0).
std::vector<CandidateRow> nearest_rejected(const PoolResult& p) {
  std::vector<CandidateRow> r = p.rejected;
  std::stable_sort(r.begin(), r.end(), [](const CandidateRow& a, const CandidateRow& b) {
    const double ma = a.binding_constraint() ? a.binding_constraint()->margin : -1e9;
    const double mb = b.binding_constraint() ? b.binding_constraint()->margin : -1e9;
    return ma > mb;
  });
  return r;
}

std::string render_plan(const Plan& plan, const PlanInputs& in, const PlanPrintOptions& o) {
  const PriceBook& b = in.prices;
  const size_t top = static_cast<size_t>(o.top);
  if (o.format == Format::json) {
    nlohmann::json j;
    j["scenario"] = plan.name;
    j["feasible"] = plan.feasible;
    j["objective"] = std::string(objective_name(plan.objective));
    j["currency"] = std::string(currency_name(b.display_currency));
    j["price_book"] = b.name;
    if (b.display_currency == Currency::cny) j["cny_per_usd"] = b.cny_per_usd;
    j["recommended"] =
        plan.recommended.parts.empty() ? nlohmann::json() : fleet_json(plan.recommended, b);
    nlohmann::json alts = nlohmann::json::array();
    for (const auto& a : plan.alternatives) alts.push_back(fleet_json(a, b));
    j["alternatives"] = alts;
    nlohmann::json pools = nlohmann::json::array();
    for (const auto& p : plan.pools) {
      nlohmann::json pj;
      pj["pool"] = p.pool.name;
      pj["model"] = p.pool.model;
      nlohmann::json ranked = nlohmann::json::array();
      for (size_t i = 0; i < p.ranked.size() && i < top; ++i)
        ranked.push_back(row_json(p.ranked[i], b));
      pj["ranked"] = ranked;
      pj["feasible_count"] = p.ranked.size();
      nlohmann::json pareto = nlohmann::json::array();
      for (const auto& r : p.pareto) pareto.push_back(row_json(r, b));
      pj["pareto"] = pareto;
      nlohmann::json rej = nlohmann::json::array();
      for (const auto& r : nearest_rejected(p)) {
        const Constraint* c = r.binding_constraint();
        rej.push_back({{"hardware", r.hardware},
                       {"precision", r.precision},
                       {"stack", r.stack},
                       {"tp", r.tp},
                       {"max_batch", r.max_seqs},
                       {"binding", c ? c->name : ""},
                       {"margin", c ? c->margin : 0.0},
                       {"reason", c ? c->message : ""},
                       {"fix", c ? c->fix : ""}});
      }
      pj["rejected"] = rej;
      pools.push_back(pj);
    }
    j["pools"] = pools;
    j["infeasible_reason"] = plan.infeasible_reason;
    j["suggestions"] = plan.suggestions;
    j["unpriced"] = plan.unpriced;
    j["unpriced_note"] = plan.unpriced_note;
    j["no_stack"] = plan.no_stack;
    j["no_stack_note"] = plan.no_stack_note;
    j["candidates_evaluated"] = plan.candidates_evaluated;
    j["candidates_verified"] = plan.candidates_verified;
    return j.dump(2) + "\n";
  }
  if (o.format == Format::csv) {
    // One flat table: every candidate of every pool, ranked ones first.
    ResultTable t;
    t.columns = candidate_columns(b);
    for (const auto& p : plan.pools) {
      for (const auto& r : p.ranked) t.add(candidate_cells(r, b));
      for (const auto& r : nearest_rejected(p)) t.add(candidate_cells(r, b));
    }
    return render(t, Format::csv);
  }
  const bool md = o.format == Format::md;
  std::string out;
  auto heading = [&](const std::string& s) {
    out += md ? fmt::format("\n## {}\n\n", s) : fmt::format("\n== {} ==\n", s);
  };
  out += md ? fmt::format("# infercap plan: {}\n", plan.name)
            : fmt::format("infercap plan: {}\n", plan.name);
  if (!o.description.empty()) out += o.description + "\n";
  // The headline says which candidates never competed for want of a price.
  if (!plan.unpriced.empty()) out += fmt::format("Note: {}.\n", plan.unpriced_note);
  if (!plan.no_stack.empty()) out += fmt::format("Note: {}.\n", plan.no_stack_note);
  if (plan.feasible) {
    heading(fmt::format("Recommended: {}", plan.recommended.label));
    out += render(fleet_table(plan.recommended, b), o.format);
    out += simulator_notes(plan.recommended);
    if (!plan.recommended.note.empty()) out += plan.recommended.note + "\n";
    out += fleet_error_band_lines(plan.recommended, o.residuals);
    if (sizes_by_caps(plan.objective)) {
      for (const auto& p : plan.recommended.parts) {
        for (const auto& c : p.constraints)
          if (c.name == "design_load") out += fmt::format("{}: {}\n", p.pool, c.message);
      }
    }
    const auto& c = plan.recommended.cost;
    auto m = [&](double usd) {
      return fmt::format("{:.0f} {}", to_currency(usd, b.display_currency, b),
                         currency_name(b.display_currency));
    };
    bool all_encoders = !plan.recommended.parts.empty();
    for (const auto& p : plan.recommended.parts) all_encoders = all_encoders && p.encoder;
    out += fmt::format(
        "TCO over {} years: {} = capital {} + energy {} ({:.0f} kWh) + hosting {} + maintenance {} "
        "+ operations {} + porting {}; {}{}{}\n",
        plan.recommended.parts.empty() ? 0
                                       : static_cast<int>(plan.recommended.parts[0].years.size()),
        m(c.tco_usd), m(c.capital_usd), m(c.energy_usd), c.energy_kwh, m(c.hosting_usd),
        m(c.maintenance_usd), m(c.ops_usd), m(c.porting_usd),
        // An encoder's output is a label or an embedding per request, not tokens.
        all_encoders ? fmt::format("{:.4g} {} per thousand requests",
                                   to_currency(c.per_request_usd * 1000, b.display_currency, b),
                                   currency_name(b.display_currency))
                     : fmt::format("{:.4g} {} per million output tokens",
                                   to_currency(c.per_million_tokens_usd, b.display_currency, b),
                                   currency_name(b.display_currency)),
        c.cloud_available ? fmt::format("; the same device-hours in the cloud: {}", m(c.cloud_usd))
                          : "",
        c.estimate ? " (prices include estimates)" : "");
    if (b.display_currency == Currency::cny)
      out += fmt::format("(CNY at {} per USD, price book '{}')\n", b.cny_per_usd, b.name);
  } else {
    heading("INFEASIBLE");
    out += plan.infeasible_reason + "\n";
    for (const auto& s : plan.suggestions) out += (md ? "- " : "  - ") + s + "\n";
    if (plan.recommended.partial) {
      // The best partial answer: what the caps buy, short of the design load.
      heading(fmt::format("Best partial answer: {}", plan.recommended.label));
      out += render(fleet_table(plan.recommended, b), o.format);
    }
  }
  if (o.explain && plan.feasible) {
    // Seed 004: raise the batch until throughput stops paying for the latency it adds.
    for (const auto& part : plan.recommended.parts) {
      KneeOptions ko;
      ko.requests = 1000;
      auto knee = candidate_knee(in, part, ko);
      if (!knee) continue;
      heading(fmt::format("Batch knee: {} {} {} TP{} ({})", part.hardware, part.precision,
                          part.stack, part.tp, part.pool));
      ResultTable t;
      t.columns = {{"max_batch"},
                   {"output_tokens_per_s", Dim::tokens_per_s},
                   {"p99_ttft_s", Dim::seconds},
                   {"p99_tpot_s", Dim::seconds},
                   {"p99_e2e_s", Dim::seconds},
                   {"note"}};
      for (size_t i = 0; i < knee->points.size(); ++i) {
        const auto& p = knee->points[i];
        std::string note;
        if (static_cast<int>(i) == knee->knee_index) note = "knee";
        if (static_cast<int>(i) == knee->crossing_index)
          note += std::string(note.empty() ? "" : ", ") + "latency overtakes throughput";
        t.add({static_cast<long long>(p.max_seqs), p.output_tokens_per_s, p.p99_ttft_s,
               p.p99_tpot_s, p.p99_e2e_s, note});
      }
      out += render(t, o.format);
    }
  }
  for (const auto& a : plan.alternatives) {
    heading(fmt::format("Alternative: {}", a.label));
    out += render(fleet_table(a, b), o.format);
    if (!a.note.empty()) out += a.note + "\n";
  }
  for (const auto& p : plan.pools) {
    if (!p.ranked.empty()) {
      heading(fmt::format("Pool '{}' ({}): top {} of {} feasible", p.pool.name, p.pool.model,
                          std::min(top, p.ranked.size()), p.ranked.size()));
      out += render(compact(candidate_table("", p.ranked, top, b), o.format, encoder_pool(p)),
                    o.format);
    }
    if (p.pareto.size() > 1) {
      heading(fmt::format("Pool '{}': Pareto front (TCO vs P99 end-to-end)", p.pool.name));
      out += render(
          compact(candidate_table("", p.pareto, p.pareto.size(), b), o.format, encoder_pool(p)),
          o.format);
    }
    if (!p.rejected.empty()) {
      heading(
          fmt::format("Pool '{}': {} rejected (nearest first)", p.pool.name, p.rejected.size()));
      ResultTable t;
      t.columns = {{"hardware"},  {"precision"}, {"stack"},  {"tp"},
                   {"max_batch"}, {"binding"},   {"reason"}, {"fix"}};
      const auto rej = nearest_rejected(p);
      for (size_t i = 0; i < rej.size() && i < top; ++i) {
        const auto& r = rej[i];
        const Constraint* c = r.binding_constraint();
        t.add({r.hardware, r.precision, r.stack, static_cast<long long>(r.tp),
               static_cast<long long>(r.max_seqs), c ? Cell{c->name} : Cell{},
               c ? Cell{c->message} : Cell{}, c ? Cell{c->fix} : Cell{}});
      }
      out += render(t, o.format);
    }
    if (o.explain) {
      heading(fmt::format("Pool '{}': constraints of the shown candidates", p.pool.name));
      for (size_t i = 0; i < p.ranked.size() && i < top; ++i) {
        const auto& r = p.ranked[i];
        out += fmt::format("{} {} {} TP{} batch {}:\n", r.hardware, r.precision, r.stack, r.tp,
                           r.max_seqs);
        for (const auto& c : r.constraints) {
          out += fmt::format("  [{}] {} (slack {:.0f}%): {}\n", c.ok ? "ok" : "FAIL", c.name,
                             c.margin * 100, c.message);
        }
        if (r.verified) {
          out += fmt::format("  simulator: P99 TTFT {:.3g} s, TPOT {:.3g} s, e2e {:.3g} s -> {}\n",
                             r.sim_ttft_p99_s, r.sim_tpot_p99_s, r.sim_e2e_p99_s,
                             r.sim_meets_sla ? "meets the SLA" : "misses the SLA");
        }
      }
    }
  }
  out += fmt::format("\n{} candidates evaluated, {} verified by simulation; price book '{}'\n",
                     plan.candidates_evaluated, plan.candidates_verified, b.name);
  return out;
}

}  // namespace

// Catalog, scenario, plan inputs and the solve, shared by `plan` and `report`.
std::optional<Solved> solve_scenario(const std::string& spec_path, const std::string& data_flag,
                                     const std::string& currency, int& rc) {
  spec::Diagnostics diags;
  const std::string data = data_dir_or_default(data_flag);
  auto catalog = spec::Catalog::load(data, diags);
  if (diags.has_errors()) {
    rc = print_diagnostics(diags);
    return std::nullopt;
  }
  auto sc = spec::load_scenario(spec_path, data, diags);
  if (!sc) {
    print_diagnostics(diags);
    rc = diags.items().size() == 1 && diags.items()[0].line == 0 &&
                 diags.items()[0].message.find("read") != std::string::npos
             ? kExitIo
             : kExitSpec;
    return std::nullopt;
  }
  auto in = spec::to_plan_inputs(*sc, catalog, diags);
  if (!in) {
    rc = print_diagnostics(diags);
    return std::nullopt;
  }
  if (!currency.empty())
    in->prices.display_currency = currency == "CNY" ? Currency::cny : Currency::usd;
  auto plan = solve(*in);
  if (!plan) {
    diags.error(spec_path, 0, 0, "", plan.error().message);
    rc = print_diagnostics(diags);
    return std::nullopt;
  }
  return Solved{std::move(*sc), std::move(*in), std::move(*plan), std::move(catalog)};
}

namespace {

int run_plan(const PlanArgs& a) {
  spec::Diagnostics diags;
  const auto fmt_opt = parse_format(a.format);
  if (!fmt_opt) {
    diags.error("", 0, 0, "--format",
                fmt::format("expected {}, found '{}'", kFormatHelp, a.format));
  }
  if (a.top < 1) diags.error("", 0, 0, "--top", fmt::format("expected >= 1, found {}", a.top));
  if (!a.currency.empty() && a.currency != "USD" && a.currency != "CNY")
    diags.error("", 0, 0, "--currency", fmt::format("expected USD or CNY, found '{}'", a.currency));
  if (diags.has_errors()) return print_diagnostics(diags);
  int rc = kExitOk;
  auto solved = solve_scenario(a.spec, a.data, a.currency, rc);
  if (!solved) return rc;
  const Plan& plan = solved->plan;
  const PlanInputs& in = solved->inputs;
  PlanPrintOptions po;
  po.format = *fmt_opt;
  po.top = a.top;
  po.explain = a.explain;
  po.description = solved->scenario.description;
  spec::Diagnostics rd;
  po.residuals = read_residuals(default_residuals_path(data_dir_or_default(a.data)), rd);
  spec::tag_vendors(po.residuals, solved->catalog);
  fmt::print("{}", render_plan(plan, in, po));
  return plan.feasible ? kExitOk : kExitInfeasible;
}

}  // namespace

Runner register_plan(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* sub = app.add_subcommand(
      "plan", "Which hardware to buy and how many for a workload spec (capacity + TCO solver)");
  sub->add_option("spec", args->spec, "scenario YAML (kind: scenario; see data/examples/)")
      ->required();
  sub->add_option("--format,-f", args->format, kFormatHelp)->capture_default_str();
  sub->add_option("--top,-n", args->top, "candidates shown per pool")->capture_default_str();
  sub->add_flag("--explain", args->explain, "every constraint of the shown candidates");
  sub->add_option("--currency", args->currency, "USD or CNY (default: the price book's)");
  sub->add_option("--data", args->data, "catalog folder (default: INFERCAP_DATA_DIR or built-in)");
  return [args] { return run_plan(*args); };
}

}  // namespace infercap::cli
