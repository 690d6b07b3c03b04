// Candidates compared (ranked table, Pareto chart, TCO and memory per finalist, batch knee,
// load against capacity) and the bill of materials.
#include <algorithm>
#include <cmath>

#include "build_internal.hpp"
#include "infercap/units.hpp"

namespace infercap::report::detail {

namespace {

Table ranked_table(const Ctx& c, const PoolResult& p) {
  Table t;
  t.id = "ranked-" + p.pool.name;
  t.key_columns = 2;  // rank and hardware
  t.caption =
      c.f(M::cand_ranked_caption, p.pool.name, p.pool.model,
          std::min<size_t>(static_cast<size_t>(c.opt.top), p.ranked.size()), p.ranked.size());
  const std::string cu = c.cur_code();
  t.columns = {col("rank", c.t(M::h_rank), ColType::integer),
               col("hardware", c.t(M::h_hardware), ColType::text),
               col("class", c.t(M::h_hw_class), ColType::text),
               col("precision", c.t(M::h_precision), ColType::text),
               col("stack", c.t(M::h_stack), ColType::text),
               col("tp", "TP", ColType::integer),
               col("max_batch", c.t(M::h_max_batch), ColType::integer),
               col("replicas", c.t(M::h_replicas), ColType::integer),
               col("devices", c.t(M::h_devices), ColType::integer),
               col("qps_per_replica", c.t(M::h_qps_per_replica), ColType::number, 2),
               col("ttft_p99_s", c.t(M::h_ttft_p99), ColType::number, 3),
               col("tpot_p99_s", c.t(M::h_tpot_p99), ColType::number, 4),
               col("e2e_p99_s", c.t(M::h_e2e_p99), ColType::number, 2),
               col("utilisation", c.t(M::h_utilisation), ColType::percent, 0),
               col("power_kw", c.t(M::h_power_kw), ColType::number, 2),
               col("capex", c.f(M::h_capex, cu), ColType::money, 0),
               col("tco", c.f(M::h_tco, cu), ColType::money, 0),
               col("per_mtok", c.f(M::h_per_mtok, cu), ColType::money, 3),
               col("verified", c.t(M::h_verified), ColType::text)};
  for (size_t i = 0; i < p.ranked.size() && i < static_cast<size_t>(c.opt.top); ++i) {
    const CandidateRow& r = p.ranked[i];
    t.add({Cell::num(r.rank), Cell::str(r.hardware), Cell::str(c.class_name(r.hw_class)),
           Cell::str(r.precision), Cell::str(r.stack), Cell::num(r.tp), Cell::num(r.max_seqs),
           Cell::num(r.replicas), Cell::num(r.devices), Cell::num(r.max_qps_per_replica),
           Cell::num(r.ttft_p99_s), Cell::num(r.tpot_p99_s), Cell::num(r.e2e_p99_s),
           Cell::num(r.utilisation), Cell::num(r.power_w / 1e3),
           Cell::num(c.money(r.cost.capex_usd)), Cell::num(c.money(r.cost.tco_usd)),
           Cell::num(c.money(r.cost.per_million_tokens_usd)),
           Cell::str(r.verified ? (r.sim_meets_sla ? c.t(M::sim_ok) : c.t(M::sim_miss))
                                : c.t(M::sim_not))});
  }
  return t;
}

Chart pareto_chart(const Ctx& c, const PoolResult& p) {
  Chart ch;
  ch.id = "pareto-" + p.pool.name;
  ch.title = c.f(M::cand_pareto_title, p.pool.name);
  ch.kind = ChartKind::scatter;
  ch.x_label = c.t(M::h_e2e_p99);
  ch.y_label = c.f(M::h_tco, c.cur_code());
  Series all;
  all.name = c.t(M::series_feasible);
  for (const auto& r : p.ranked) {
    all.x.push_back(r.e2e_p99_s);
    all.y.push_back(c.money(r.cost.tco_usd));
  }
  Series front;
  front.name = c.t(M::series_pareto);
  front.highlight = true;
  std::vector<const CandidateRow*> pf;
  for (const auto& r : p.pareto) pf.push_back(&r);
  std::sort(pf.begin(), pf.end(), [](const CandidateRow* a, const CandidateRow* b) {
    return a->e2e_p99_s < b->e2e_p99_s;
  });
  for (const CandidateRow* r : pf) {
    front.x.push_back(r->e2e_p99_s);
    front.y.push_back(c.money(r->cost.tco_usd));
    front.labels.push_back(r->hardware + " " + r->precision);
  }
  ch.series = {std::move(all), std::move(front)};
  return ch;
}

std::vector<const CandidateRow*> tco_rows(const Ctx& c) {
  return c.detailed();
}

}  // namespace

static double n_years(const std::vector<const CandidateRow*>& parts) {
  size_t n = 0;
  for (const CandidateRow* r : parts) n = std::max(n, r->years.size());
  return static_cast<double>(n);
}

Section candidates_section(const Ctx& c) {
  Section s{"candidates", c.t(M::sec_candidates), {}};
  const Plan& plan = c.plan;
  s.blocks.push_back(
      paragraph(c.f(M::cand_intro, plan.candidates_evaluated, plan.candidates_verified)));
  for (const auto& p : plan.pools) {
    if (p.ranked.empty()) {
      s.blocks.push_back(paragraph(c.f(M::cand_none_feasible, p.pool.name, p.rejected.size())));
    } else {
      s.blocks.push_back(subheading(c.f(M::cand_pool, p.pool.name, p.pool.model)));
      s.blocks.push_back(table_block(ranked_table(c, p)));
      if (p.ranked.size() > 1) s.blocks.push_back(chart_block(pareto_chart(c, p)));
    }
    if (!p.rejected.empty()) {
      std::vector<CandidateRow> rej = p.rejected;
      std::stable_sort(rej.begin(), rej.end(), [](const CandidateRow& a, const CandidateRow& b) {
        const double ma = a.binding_constraint() ? a.binding_constraint()->margin : -1e9;
        const double mb = b.binding_constraint() ? b.binding_constraint()->margin : -1e9;
        return ma > mb;
      });
      Table t;
      t.id = "rejected-" + p.pool.name;
      t.caption = c.f(M::cand_rejected_caption, p.pool.name, p.rejected.size());
      t.columns = {col("hardware", c.t(M::h_hardware), ColType::text),
                   col("precision", c.t(M::h_precision), ColType::text),
                   col("tp", "TP", ColType::integer),
                   col("binding", c.t(M::h_binding), ColType::text),
                   col("margin", c.t(M::h_margin), ColType::percent, 0),
                   col("reason", c.t(M::h_reason), ColType::text)};
      for (size_t i = 0; i < rej.size() && i < static_cast<size_t>(c.opt.top); ++i) {
        const Constraint* bc = rej[i].binding_constraint();
        // The solver writes its reasons in English; the Chinese report names the constraint.
        std::string reason;
        if (bc != nullptr && c.opt.lang == Lang::en)
          reason = bc->message + (bc->fix.empty() ? "" : "; " + bc->fix);
        t.add({Cell::str(rej[i].hardware), Cell::str(rej[i].precision), Cell::num(rej[i].tp),
               bc ? Cell::str(c.t(constraint_msg(bc->name))) : Cell::none(),
               bc ? Cell::num(bc->margin) : Cell::none(),
               reason.empty() ? Cell::none() : Cell::str(reason)});
      }
      s.blocks.push_back(table_block(std::move(t)));
    }
  }
  if (!plan.alternatives.empty()) {
    s.blocks.push_back(subheading(c.t(M::cand_alternatives)));
    Table t;
    t.id = "alternatives";
    t.caption = c.t(M::cand_alternatives_caption);
    t.columns = {col("fleet", c.t(M::h_fleet), ColType::text),
                 col("devices", c.t(M::h_devices), ColType::integer),
                 col("servers", c.t(M::h_servers), ColType::integer),
                 col("capex", c.f(M::h_capex, c.cur_code()), ColType::money, 0),
                 col("tco", c.f(M::h_tco, c.cur_code()), ColType::money, 0)};
    auto add = [&](const FleetChoice& f, bool recommended, size_t i) {
      t.add({Cell::str(c.fleet_label(f, recommended, i)), Cell::num(f.devices),
             Cell::num(f.servers), Cell::num(c.money(f.cost.capex_usd)),
             Cell::num(c.money(f.cost.tco_usd))});
    };
    if (plan.feasible) add(plan.recommended, true, 0);
    for (size_t i = 0; i < plan.alternatives.size(); ++i) add(plan.alternatives[i], false, i);
    s.blocks.push_back(table_block(std::move(t)));
  }
  const auto rows = tco_rows(c);
  if (rows.empty()) return s;

  // TCO per finalist: energy as kWh x price and the total as a sum, live in the spreadsheet.
  s.blocks.push_back(subheading(c.t(M::cand_tco)));
  const std::string cu = c.cur_code();
  Table t;
  t.id = "tco";
  t.caption = c.f(M::cand_tco_caption, c.horizon());
  t.columns = {col("candidate", c.t(M::h_candidate), ColType::text),
               col("capital", c.f(M::h_capital, cu), ColType::money, 0),
               col("energy_kwh", c.t(M::h_energy_kwh), ColType::number, 0),
               col("price_per_kwh", c.f(M::h_price_per_kwh, cu), ColType::money, 4),
               fcol("energy", c.f(M::h_energy_cost, cu), ColType::money,
                    "{energy_kwh}*{price_per_kwh}", false),
               col("hosting", c.f(M::h_hosting, cu), ColType::money, 0),
               col("maintenance", c.f(M::h_maintenance, cu), ColType::money, 0),
               col("operations", c.f(M::h_operations, cu), ColType::money, 0),
               col("porting", c.f(M::h_porting, cu), ColType::money, 0),
               fcol("tco", c.f(M::h_tco, cu), ColType::money,
                    "{capital}+{energy}+{hosting}+{maintenance}+{operations}+{porting}", false)};
  Chart bars;
  bars.id = "tco-bars";
  bars.title = c.t(M::cand_tco_chart);
  bars.kind = ChartKind::stacked_bar;
  bars.x_label = c.t(M::h_candidate);
  bars.y_label = c.f(M::h_tco, cu);
  const M layers[] = {M::h_capital,     M::h_energy_cost, M::h_hosting,
                      M::h_maintenance, M::h_operations,  M::h_porting};
  for (M m : layers) bars.series.push_back(Series{c.f(m, cu), {}, {}, {}, false});
  for (const CandidateRow* r : rows) {
    const CostBreakdown& k = r->cost;
    t.add({Cell::str(c.label(*r)), Cell::num(c.money(k.capital_usd)), Cell::num(k.energy_kwh),
           Cell::num(c.money(c.in.prices.electricity_usd_per_kwh)), Cell::none(),
           Cell::num(c.money(k.hosting_usd)), Cell::num(c.money(k.maintenance_usd)),
           Cell::num(c.money(k.ops_usd)), Cell::num(c.money(k.porting_usd)), Cell::none()});
    bars.categories.push_back(candidate_key(*r));
    const double v[] = {k.capital_usd,     k.energy_usd, k.hosting_usd,
                        k.maintenance_usd, k.ops_usd,    k.porting_usd};
    for (size_t i = 0; i < 6; ++i) bars.series[i].y.push_back(c.money(v[i]));
  }
  s.blocks.push_back(table_block(std::move(t)));
  s.blocks.push_back(chart_block(std::move(bars)));

  // Memory per device.
  s.blocks.push_back(subheading(c.t(M::cand_memory)));
  Table m;
  m.id = "memory";
  m.caption = c.t(M::cand_memory_caption);
  m.columns = {
      col("candidate", c.t(M::h_candidate), ColType::text),
      col("capacity_gib", c.t(M::h_mem_capacity), ColType::number, 1),
      col("weights_gib", c.t(M::h_mem_weights), ColType::number, 1),
      fcol("other_gib", c.t(M::h_mem_other), ColType::number, "{used_gib}-{weights_gib}", false),
      col("used_gib", c.t(M::h_mem_used), ColType::number, 1),
      fcol("free_gib", c.t(M::h_mem_free), ColType::number, "{capacity_gib}-{used_gib}", false),
      col("kv_occupancy", c.t(M::h_kv_occupancy), ColType::percent, 0)};
  for (auto& cl : m.columns)
    if (!cl.formula.empty()) cl.decimals = 1;
  for (const CandidateRow* r : rows) {
    const HardwareSpec* hw = find_hw(c.in, r->hardware);
    m.add({Cell::str(c.label(*r)), hw ? Cell::num(hw->memory_bytes / kGiB) : Cell::none(),
           Cell::num(r->weights_bytes_per_device / kGiB), Cell::none(),
           Cell::num(r->memory_bytes_per_device / kGiB), Cell::none(), Cell::num(r->kv_occupancy)});
  }
  s.blocks.push_back(table_block(std::move(m)));
  s.blocks.push_back(paragraph(c.t(M::cand_memory_note)));

  // Batch knee of each recommended part (seed 004).
  for (size_t i = 0; i < c.knees.size() && i < plan.recommended.parts.size(); ++i) {
    const CandidateRow& part = plan.recommended.parts[i];
    s.blocks.push_back(subheading(c.f(M::cand_knee, c.label(part))));
    if (!c.knees[i]) {
      s.blocks.push_back(paragraph(c.f(M::cand_knee_failed, c.knees[i].error().message)));
      continue;
    }
    const KneeResult& k = *c.knees[i];
    Table t2;
    t2.id = "knee-" + part.pool;
    t2.caption = c.t(M::cand_knee_caption);
    t2.columns = {col("max_batch", c.t(M::h_max_batch), ColType::integer),
                  col("tokens_per_s", c.t(M::h_tokens_per_s), ColType::number, 0),
                  col("ttft_p99_s", c.t(M::h_ttft_p99), ColType::number, 3),
                  col("tpot_p99_s", c.t(M::h_tpot_p99), ColType::number, 4),
                  col("e2e_p99_s", c.t(M::h_e2e_p99), ColType::number, 2),
                  col("note", c.t(M::h_note), ColType::text)};
    Chart ch;
    ch.id = "knee-" + part.pool;
    ch.title = c.f(M::cand_knee_chart, part.hardware);
    ch.kind = ChartKind::line;
    ch.x_label = c.t(M::h_max_batch);
    ch.y_label = c.t(M::cand_knee_y);
    Series xs{c.t(M::series_throughput), {}, {}, {}, false};
    Series ls{c.t(M::series_latency), {}, {}, {}, true};
    const KneePoint& p0 = k.points.front();
    for (size_t j = 0; j < k.points.size(); ++j) {
      const KneePoint& p = k.points[j];
      std::string note;
      if (static_cast<int>(j) == k.knee_index) note = c.t(M::knee_mark);
      if (static_cast<int>(j) == k.crossing_index)
        note += (note.empty() ? "" : c.t(M::list_sep)) + c.t(M::knee_crossing);
      t2.add({Cell::num(p.max_seqs), Cell::num(p.output_tokens_per_s), Cell::num(p.p99_ttft_s),
              Cell::num(p.p99_tpot_s), Cell::num(p.p99_e2e_s),
              note.empty() ? Cell::none() : Cell::str(note)});
      xs.x.push_back(p.max_seqs);
      ls.x.push_back(p.max_seqs);
      xs.y.push_back(p0.output_tokens_per_s > 0 ? p.output_tokens_per_s / p0.output_tokens_per_s
                                                : 0);
      ls.y.push_back(p0.p99_e2e_s > 0 ? p.p99_e2e_s / p0.p99_e2e_s : 0);
    }
    ch.series = {std::move(xs), std::move(ls)};
    s.blocks.push_back(table_block(std::move(t2)));
    s.blocks.push_back(chart_block(std::move(ch)));
    s.blocks.push_back(paragraph(c.f(M::cand_knee_note, k.knee_batch, part.max_seqs)));
  }

  // Load against capacity, year by year, for each part of the recommended fleet.
  if (plan.feasible && !plan.recommended.parts.empty()) {
    s.blocks.push_back(subheading(c.t(M::cand_capacity)));
    Table t3;
    t3.id = "capacity";
    t3.caption = c.f(M::cand_capacity_caption, c.pct(c.in.constraints.load_growth_per_year));
    t3.columns = {col("year", c.t(M::h_year), ColType::integer),
                  col("pool", c.t(M::h_pool), ColType::text),
                  col("parts", c.t(M::h_part), ColType::text),
                  col("devices", c.t(M::h_devices), ColType::integer),
                  col("load_qps", c.t(M::h_load_qps), ColType::number, 2),
                  col("capacity_qps", c.t(M::h_capacity_qps), ColType::number, 2),
                  fcol("headroom_qps", c.t(M::h_headroom_qps), ColType::number,
                       "{capacity_qps}-{load_qps}", false)};
    t3.columns.back().decimals = 2;
    Chart ch;
    ch.id = "capacity";
    ch.title = c.t(M::cand_capacity_chart);
    ch.kind = ChartKind::line;
    ch.x_label = c.t(M::h_year);
    ch.y_label = c.t(M::h_load_qps);
    const double g = c.in.constraints.load_growth_per_year;
    // Parts of one pool (staged purchases, base + burst buffer) share its load: capacity is
    // their sum, and the load is the pool's design load of that year.
    std::vector<std::string> pools;
    for (const auto& part : plan.recommended.parts) {
      if (std::find(pools.begin(), pools.end(), part.pool) == pools.end())
        pools.push_back(part.pool);
    }
    for (const auto& pool : pools) {
      std::vector<const CandidateRow*> parts;
      for (const auto& part : plan.recommended.parts)
        if (part.pool == pool) parts.push_back(&part);
      double design = 0;
      if (const Pool* p = find_pool(c.in, pool); p != nullptr)
        for (const auto& k : p->classes) design += design_qps(k.rate);
      if (design == 0 && n_years(parts) > 0) {
        for (const CandidateRow* r : parts)
          design = std::max(design, r->design_qps / std::pow(1 + g, n_years(parts) - 1.0));
      }
      Series load{c.f(M::series_load, pool), {}, {}, {}, false};
      Series cap{c.f(M::series_capacity, pool), {}, {}, {}, true};
      std::vector<Series> per_part;
      per_part.reserve(parts.size());
      for (const CandidateRow* r : parts)
        per_part.push_back(Series{c.f(M::series_capacity, candidate_key(*r)), {}, {}, {}, false});
      size_t n = 0;
      for (const CandidateRow* r : parts) n = std::max(n, r->years.size());
      for (size_t y = 0; y < n; ++y) {
        double devices = 0, capq = 0;
        std::string names;
        for (size_t i = 0; i < parts.size(); ++i) {
          const CandidateRow& r = *parts[i];
          const FleetYear fy = y < r.years.size() ? r.years[y] : FleetYear{};
          const double replicas = std::floor(fy.devices / std::max(1, r.tp) + 1e-9);
          const double q = replicas * r.max_qps_per_replica;
          devices += fy.devices;
          capq += q;
          if (fy.devices > 0) {
            names += (names.empty() ? "" : c.t(M::list_sep)) +
                     fmt::format("{:g} × {}", fy.devices, r.hardware);
          }
          per_part[i].x.push_back(static_cast<double>(y + 1));
          per_part[i].y.push_back(q);
        }
        // The scenario's rates are the first year's; the load grows by g a year from there.
        const double demand = design * std::pow(1 + g, static_cast<double>(y));
        t3.add({Cell::num(static_cast<double>(y + 1)), Cell::str(pool),
                Cell::str(names.empty() ? "-" : names), Cell::num(devices), Cell::num(demand),
                Cell::num(capq), Cell::none()});
        load.x.push_back(static_cast<double>(y + 1));
        load.y.push_back(demand);
        cap.x.push_back(static_cast<double>(y + 1));
        cap.y.push_back(capq);
      }
      ch.series.push_back(std::move(load));
      ch.series.push_back(std::move(cap));
      if (parts.size() > 1)
        for (auto& ps : per_part) ch.series.push_back(std::move(ps));
    }
    s.blocks.push_back(table_block(std::move(t3)));
    s.blocks.push_back(chart_block(std::move(ch)));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------

Section bom_section(const Ctx& c) {
  Section s{"bom", c.t(M::sec_bom), {}};
  const Plan& plan = c.plan;
  if (!plan.feasible || plan.recommended.parts.empty()) {
    s.blocks.push_back(paragraph(c.t(M::bom_none)));
    return s;
  }
  const PriceBook& b = c.in.prices;
  const std::string cu = c.cur_code();
  Table t;
  t.id = "bom";
  t.caption = c.t(M::bom_caption);
  t.total_row = true;
  t.total_label = c.t(M::total);
  t.columns = {col("part", c.t(M::h_part), ColType::text),
               col("hardware", c.t(M::h_hardware), ColType::text),
               col("year", c.t(M::h_year), ColType::integer),
               col("devices", c.t(M::h_new_devices), ColType::integer),
               col("unit_price", c.f(M::h_unit_price, cu), ColType::money, 0),
               col("tier", c.t(M::h_tier), ColType::text),
               fcol("device_cost", c.f(M::h_device_cost, cu), ColType::money,
                    "{devices}*{unit_price}", true),
               col("servers", c.t(M::h_new_servers), ColType::integer),
               col("server_price", c.f(M::h_server_price, cu), ColType::money, 0),
               fcol("server_cost", c.f(M::h_server_cost, cu), ColType::money,
                    "{servers}*{server_price}", true),
               fcol("total", c.f(M::h_purchase_total, cu), ColType::money,
                    "{device_cost}+{server_cost}", true)};
  std::vector<double> spend_per_year;
  for (const auto& part : plan.recommended.parts) {
    const DevicePricing* dp = b.find(part.hardware);
    if (dp == nullptr) continue;
    // The same purchase rule as price_footprint (tco.cpp): the tier of the final fleet size,
    // owned units first, then whatever each year adds.
    double final_devices = 0;
    for (const auto& y : part.years) final_devices = std::max(final_devices, y.devices);
    const double unit = dp->unit_price_usd(final_devices);
    int tier_min = 1;
    for (const auto& tr : dp->tiers)
      if (final_devices >= tr.min_units) tier_min = tr.min_units;
    double have_d = dp->owned_devices, have_s = dp->owned_servers;
    for (size_t y = 0; y < part.years.size(); ++y) {
      const FleetYear& fy = part.years[y];
      const double nd = std::max(0.0, fy.devices - have_d);
      const double ns = std::max(0.0, fy.servers - have_s);
      if (nd <= 0 && ns <= 0) continue;
      t.add({Cell::str(part.pool), Cell::str(part.hardware), Cell::num(static_cast<double>(y + 1)),
             Cell::num(nd), Cell::num(c.money(unit)), Cell::str(c.f(M::tier_from, tier_min)),
             Cell::none(), Cell::num(ns), Cell::num(c.money(dp->server_price_usd)), Cell::none(),
             Cell::none()});
      if (spend_per_year.size() <= y) spend_per_year.resize(y + 1, 0);
      spend_per_year[y] += nd * unit + ns * dp->server_price_usd;
      have_d += nd;
      have_s += ns;
    }
  }
  s.blocks.push_back(table_block(std::move(t)));
  s.blocks.push_back(
      paragraph(c.f(M::bom_capex_check, c.money_s(plan.recommended.cost.capex_usd))));

  Table f;
  f.id = "footprint";
  f.caption = c.t(M::bom_footprint_caption);
  f.total_row = true;
  f.total_label = c.t(M::total);
  f.columns = {col("part", c.t(M::h_part), ColType::text),
               col("devices", c.t(M::h_devices), ColType::integer),
               col("servers", c.t(M::h_servers), ColType::integer),
               col("rack_units", c.t(M::h_rack_units), ColType::integer),
               col("provisioned_kw", c.t(M::h_provisioned_kw), ColType::number, 2),
               col("average_kw", c.t(M::h_power_kw), ColType::number, 2),
               col("peak_kw", c.t(M::h_peak_kw), ColType::number, 2)};
  for (auto& cl : f.columns) cl.sum = cl.type != ColType::text;
  for (const auto& part : plan.recommended.parts) {
    f.add({Cell::str(c.label(part)), Cell::num(part.devices), Cell::num(part.servers),
           Cell::num(part.rack_units), Cell::num(part.provisioned_w / 1e3),
           Cell::num(part.power_w / 1e3), Cell::num(part.peak_power_w / 1e3)});
  }
  s.blocks.push_back(table_block(std::move(f)));

  if (spend_per_year.size() > 1) {
    Table y;
    y.id = "spend-per-year";
    y.caption = c.t(M::bom_per_year_caption);
    y.total_row = true;
    y.total_label = c.t(M::total);
    y.columns = {col("year", c.t(M::h_year), ColType::integer),
                 col("spend", c.f(M::h_capex, cu), ColType::money, 0)};
    y.columns[1].sum = true;
    for (size_t i = 0; i < spend_per_year.size(); ++i)
      y.add({Cell::num(static_cast<double>(i + 1)), Cell::num(c.money(spend_per_year[i]))});
    s.blocks.push_back(table_block(std::move(y)));
  }
  const CostBreakdown& k = plan.recommended.cost;
  if (k.cloud_available) {
    s.blocks.push_back(
        paragraph(c.f(M::bom_cloud, c.money_s(k.cloud_usd), c.horizon(), c.money_s(k.tco_usd),
                      c.pct(k.tco_usd > 0 ? k.cloud_usd / k.tco_usd : 0))));
  } else {
    s.blocks.push_back(paragraph(c.t(M::bom_no_cloud)));
  }
  return s;
}

}  // namespace infercap::report::detail
