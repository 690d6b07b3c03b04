// Sensitivity, risks per hardware family, the proof-of-concept plan and provenance.
#include <algorithm>
#include <cmath>

#include "build_internal.hpp"

namespace infercap::report::detail {

namespace {

std::string change_words(const Ctx& c, const SensitivityCase& k) {
  const std::string sign = k.factor >= 1 ? "+" : "−";
  const std::string pct = fmt::format("{}{:.0f}%", sign, std::fabs(k.factor - 1) * 100);
  switch (k.param) {
    case SensitivityParam::load:
      return c.f(M::sens_load, pct);
    case SensitivityParam::electricity:
      return c.f(M::sens_electricity, pct);
    case SensitivityParam::device_prices:
      return c.f(M::sens_prices, pct);
    case SensitivityParam::sla:
      return c.t(k.factor < 1 ? M::sens_sla_half : M::sens_sla_double);
    case SensitivityParam::horizon:
      return c.f(M::sens_horizon, fmt::format("{:+.0f}", k.factor),
                 c.horizon() + static_cast<int>(k.factor));
    case SensitivityParam::model_error:
      return c.f(M::sens_model_error, pct);
  }
  return "?";
}

}  // namespace

Section sensitivity_section(const Ctx& c) {
  Section s{"sensitivity", c.t(M::sec_sensitivity), {}};
  if (!c.has_sens) {
    s.blocks.push_back(paragraph(c.t(M::sens_skipped)));
    return s;
  }
  s.blocks.push_back(paragraph(c.t(M::sens_intro)));
  Table t;
  t.id = "sensitivity";
  t.caption = c.f(M::sens_caption, c.sens.base_choice.empty() ? "-" : c.sens.base_choice,
                  c.money_s(c.sens.base_tco_usd));
  t.columns = {col("change", c.t(M::h_change), ColType::text),
               col("choice", c.t(M::h_choice), ColType::text),
               col("same", c.t(M::h_same_choice), ColType::text),
               col("tco", c.f(M::h_tco, c.cur_code()), ColType::money, 0),
               col("tco_change", c.t(M::h_tco_change), ColType::percent, 1)};
  for (const auto& k : c.sens.cases) {
    if (!k.feasible) {
      t.add({Cell::str(change_words(c, k)), Cell::str(c.t(M::sens_infeasible)),
             Cell::str(c.t(M::no)), Cell::none(), Cell::none()});
      continue;
    }
    t.add({Cell::str(change_words(c, k)), Cell::str(k.same_choice ? c.t(M::sens_same) : k.choice),
           Cell::str(c.yesno(k.same_choice)), Cell::num(c.money(k.tco_usd)),
           Cell::num(k.tco_change)});
  }
  s.blocks.push_back(table_block(std::move(t)));
  if (c.sens.base_feasible && c.sens.base_choice != c.sens.plan_choice)
    s.blocks.push_back(paragraph(c.f(M::sens_sim_moved, c.sens.base_choice, c.sens.plan_choice)));
  int changed = 0;
  for (const auto& k : c.sens.cases) changed += k.same_choice ? 0 : 1;
  s.blocks.push_back(
      paragraph(c.f(M::sens_summary, c.sens.cases.size() - changed, c.sens.cases.size())));

  if (!c.sens.break_evens.empty()) {
    const BreakEven& b0 = c.sens.break_evens.front();
    s.blocks.push_back(subheading(c.t(M::sens_break_even)));
    s.blocks.push_back(paragraph(c.f(M::sens_be_intro, b0.leader, c.money_s(b0.leader_tco_usd),
                                     b0.runner_up, c.money_s(b0.runner_up_tco_usd), b0.pool)));
    std::vector<std::string> items;
    for (const auto& b : c.sens.break_evens) {
      switch (b.param) {
        case SensitivityParam::load:
          items.push_back(!b.found
                              ? c.t(M::be_load_none)
                              : c.f(b.runner_up_wins_beyond ? M::be_load_above : M::be_load_below,
                                    c.qps(b.value), b.runner_up, fmt::format("{:.2f}", b.at)));
          break;
        case SensitivityParam::electricity:
          items.push_back(
              !b.found ? c.t(M::be_power_none)
                       : c.f(b.runner_up_wins_beyond ? M::be_power_above : M::be_power_below,
                             fmt::format("{:.3g}", c.money(b.value)), c.cur_code(), b.runner_up));
          break;
        case SensitivityParam::device_prices:
          items.push_back(!b.found ? c.t(M::be_price_none)
                                   : c.f(b.at < 1 ? M::be_price_below : M::be_price_above,
                                         b.runner_up, c.pct(std::fabs(1 - b.at))));
          break;
        default:
          break;
      }
    }
    s.blocks.push_back(bullets(std::move(items)));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------

Section risks_section(const Ctx& c) {
  Section s{"risks", c.t(M::sec_risks), {}};
  const auto rows = c.detailed();
  if (rows.empty()) {
    s.blocks.push_back(paragraph(c.t(M::bom_none)));
    return s;
  }
  const PriceBook& b = c.in.prices;
  const double changes = c.in.constraints.model_changes_per_year * c.horizon();
  Table t;
  t.id = "risks";
  t.caption = c.f(M::risk_caption, fmt::format("{:g}", changes));
  t.columns = {col("family", c.t(M::h_family), ColType::text),
               col("ecosystem", c.t(M::h_ecosystem), ColType::text),
               col("first_port_weeks", c.t(M::h_first_port), ColType::number, 1),
               col("change_weeks", c.t(M::h_change_port), ColType::number, 1),
               col("porting_cost", c.f(M::h_porting_cost, c.cur_code()), ColType::money, 0),
               col("lock_in", c.t(M::h_lock_in), ColType::text),
               col("supply", c.t(M::h_supply), ColType::text)};
  std::vector<std::string> seen;
  for (const CandidateRow* r : rows) {
    const DevicePricing* dp = b.find(r->hardware);
    const std::string family = dp && !dp->porting_family.empty() ? dp->porting_family : r->vendor;
    const std::string key = std::string(hw_class_name(r->hw_class)) + "/" + family;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const PortingCost* pc = dp ? b.porting_for(dp->porting_family) : nullptr;
    const double first = pc ? pc->first_port_engineer_weeks : 0;
    const double per = pc ? pc->per_model_change_engineer_weeks : 0;
    M eco = M::eco_gpu, lock = M::lock_gpu, sup = M::supply_gpu;
    switch (r->hw_class) {
      case HwClass::cpu:
        eco = M::eco_cpu, lock = M::lock_cpu, sup = M::supply_cpu;
        break;
      case HwClass::gpu:
        break;
      case HwClass::npu:
        eco = M::eco_npu, lock = M::lock_npu, sup = M::supply_npu;
        break;
      case HwClass::fpga:
        eco = M::eco_fpga, lock = M::lock_fpga, sup = M::supply_npu;
        break;
    }
    t.add({Cell::str(fmt::format("{} · {} · {}", r->vendor, c.class_name(r->hw_class), family)),
           Cell::str(c.t(eco)), pc ? Cell::num(first) : Cell::none(),
           pc ? Cell::num(per) : Cell::none(),
           Cell::num(c.money((first + per * changes) * b.engineer_week_usd)), Cell::str(c.t(lock)),
           Cell::str(c.t(sup))});
  }
  s.blocks.push_back(table_block(std::move(t)));

  // Losing one device takes out the replica it belongs to.
  s.blocks.push_back(subheading(c.t(M::risk_spof)));
  Table f;
  f.id = "failure";
  f.caption = c.t(M::risk_spof_caption);
  f.columns = {col("candidate", c.t(M::h_candidate), ColType::text),
               col("replicas", c.t(M::h_replicas), ColType::integer),
               col("spares", c.t(M::h_spares), ColType::integer),
               col("servers", c.t(M::h_servers), ColType::integer),
               col("design_qps", c.t(M::h_design_qps), ColType::number, 2),
               col("capacity_after_loss", c.t(M::h_capacity_after_loss), ColType::number, 2),
               col("survives", c.t(M::h_survives), ColType::text)};
  std::vector<std::string> notes;
  // The recommended fleet pool by pool: its parts together, losing a device of the replica that
  // carries the most.
  std::vector<std::string> pools;
  for (const auto& part : c.plan.recommended.parts)
    if (std::find(pools.begin(), pools.end(), part.pool) == pools.end()) pools.push_back(part.pool);
  for (const auto& pool : pools) {
    int replicas = 0, servers = 0;
    double cap = 0, biggest = 0, design = 0;
    int parts = 0;
    for (const auto& part : c.plan.recommended.parts) {
      if (part.pool != pool) continue;
      ++parts;
      replicas += part.replicas;
      servers += part.servers;
      cap += part.replicas * part.max_qps_per_replica;
      if (part.replicas > 0) biggest = std::max(biggest, part.max_qps_per_replica);
      design = std::max(design, part.design_qps);
    }
    if (parts < 2) continue;  // one part: its own row below says the same
    const double after = cap - biggest;
    f.add({Cell::str(c.f(M::risk_fleet_pool, pool)), Cell::num(replicas),
           Cell::num(c.in.constraints.redundancy), Cell::num(servers), Cell::num(design),
           Cell::num(after), Cell::str(c.yesno(after >= design * (1 - 1e-9)))});
  }
  for (const CandidateRow* r : rows) {
    const double after = std::max(0, r->replicas - 1) * r->max_qps_per_replica;
    const bool ok = after >= r->design_qps * (1 - 1e-9);
    f.add({Cell::str(c.label(*r)), Cell::num(r->replicas), Cell::num(c.in.constraints.redundancy),
           Cell::num(r->servers), Cell::num(r->design_qps), Cell::num(after),
           Cell::str(c.yesno(ok))});
    if (r->servers == 1) notes.push_back(c.f(M::risk_one_server, c.label(*r)));
  }
  s.blocks.push_back(table_block(std::move(f)));
  s.blocks.push_back(paragraph(c.t(M::risk_spof_note)));
  if (!notes.empty()) s.blocks.push_back(bullets(std::move(notes)));
  return s;
}

// ---------------------------------------------------------------------------------------------

namespace {

std::string hf_id(const ModelSpec* m, const std::string& fallback) {
  if (m != nullptr) {
    for (const auto& a : m->aliases)
      if (a.find('/') != std::string::npos) return a;
  }
  return fallback;
}

double q50(const LengthDist& d) {
  auto v = quantile(d, 50);
  return v ? std::round(*v) : 0;
}

const KneePoint* point_at(const KneeResult& k, int b) {
  for (const auto& p : k.points)
    if (p.max_seqs == b) return &p;
  return nullptr;
}

}  // namespace

Section poc_section(const Ctx& c) {
  Section s{"poc", c.t(M::sec_poc), {}};
  s.blocks.push_back(paragraph(c.t(M::poc_intro)));
  if (!c.plan.feasible) {
    s.blocks.push_back(paragraph(c.t(M::bom_none)));
    return s;
  }
  // The recommended parts (with their simulated knee) and each first pool's runner-up.
  std::vector<std::pair<const CandidateRow*, const KneeResult*>> rows;
  for (size_t i = 0; i < c.plan.recommended.parts.size(); ++i) {
    const KneeResult* k = i < c.knees.size() && c.knees[i] ? &*c.knees[i] : nullptr;
    rows.push_back({&c.plan.recommended.parts[i], k});
  }
  if (!c.plan.pools.empty()) {
    if (const CandidateRow* ru = runner_up(c.plan, c.plan.pools.front()); ru != nullptr) {
      const bool seen = std::any_of(rows.begin(), rows.end(), [&](const auto& x) {
        return x.first->pool == ru->pool && candidate_key(*x.first) == candidate_key(*ru);
      });
      if (!seen) rows.push_back({ru, nullptr});
    }
  }
  for (const auto& [r, knee] : rows) {
    const ModelSpec* m = find_model(c.in, r->model);
    const Pool* pool = find_pool(c.in, r->pool);
    const double p_in =
        pool && !pool->classes.empty() ? q50(pool->classes.front().prompt_tokens) : 512;
    const double p_out =
        pool && !pool->classes.empty() ? q50(pool->classes.front().output_tokens) : 128;
    const std::string model = hf_id(m, r->model);
    const std::string tag = r->hardware + "-" + r->precision;
    s.blocks.push_back(subheading(c.f(M::poc_for, c.label(*r))));
    std::vector<std::string> steps;
    steps.push_back(c.f(M::poc_step_baseline, r->model, r->hardware, r->stack, r->precision, r->tp,
                        r->max_seqs));
    steps.push_back(c.t(M::poc_step_latency));
    steps.push_back(c.f(M::poc_step_power,
                        fmt::format("{:.0f}", r->servers > 0 ? r->peak_power_w / r->servers : 0)));
    const double per_replica = r->replicas > 0 ? r->design_qps / r->replicas : 0;
    steps.push_back(c.f(M::poc_step_stability, fmt::format("{:.3g}", per_replica)));
    steps.push_back(c.f(M::poc_step_cost, c.money_s(r->cost.per_request_usd),
                        c.money_s(r->cost.per_million_tokens_usd)));
    steps.push_back(c.t(M::poc_step_feedback));
    s.blocks.push_back(numbered(std::move(steps)));

    std::string cmd;
    const bool llamacpp = r->stack.find("llama") != std::string::npos;
    if (llamacpp) {
      cmd += "# " + c.t(M::poc_cmd_llama_rates) + "\n";
      cmd += fmt::format("llama-bench -m {0}.gguf -p {1:.0f} -n 0 -o json > poc-{2}-pp.json\n",
                         r->model, p_in, tag);
      cmd += fmt::format("llama-bench -m {0}.gguf -p 0 -n {1:.0f} -o json > poc-{2}-tg.json\n",
                         r->model, p_out, tag);
      cmd += fmt::format(
          "llama-batched-bench -m {0}.gguf -c {1:.0f} -npp {2:.0f} -ntg {3:.0f} -npl 1,8,16,32\n",
          r->model, 32 * (p_in + p_out), p_in, p_out);
      cmd += "# " + c.t(M::poc_cmd_cpu_power) + "\n";
      cmd += "sudo turbostat --quiet --show PkgWatt,PkgTmp --interval 5 > poc-power.txt\n";
      cmd += "# " + c.t(M::poc_cmd_fit) + "\n";
      cmd += fmt::format(
          "infercap calibrate --from-benchmarks poc-{0}-tg.json --hardware {1} -o "
          "{1}-llamacpp.stack.yaml\n",
          tag, r->hardware);
      cmd += fmt::format(
          "infercap calibrate --from-benchmarks poc-{0}-pp.json --hardware {1} -o "
          "{1}-llamacpp-pp.stack.yaml\n",
          tag, r->hardware);
    } else {
      cmd += "# " + c.t(M::poc_cmd_serve) + "\n";
      cmd += fmt::format("vllm serve {} --tensor-parallel-size {} --max-num-seqs {}{}\n", model,
                         r->tp, r->max_seqs, r->precision == "fp8" ? " --quantization fp8" : "");
      cmd += "# " + c.t(M::poc_cmd_latency) + "\n";
      cmd += "for B in 1 8 16 32; do\n";
      cmd += fmt::format(
          "  vllm bench serve --backend vllm --model {} --dataset-name random \\\n"
          "    --random-input-len {:.0f} --random-output-len {:.0f} --num-prompts $((B*20)) \\\n"
          "    --max-concurrency $B --percentile-metrics ttft,tpot,e2el --metric-percentiles 50,99 "
          "\\\n"
          "    --save-result --result-filename poc-{}-b$B.json\n",
          model, p_in, p_out, tag);
      cmd += "done\n";
      cmd += "# " + c.t(M::poc_cmd_power) + "\n";
      cmd +=
          "nvidia-smi --query-gpu=timestamp,power.draw,temperature.gpu,utilization.gpu,memory.used "
          "--format=csv -l 5 > poc-power.csv\n";
      cmd += "# " + c.t(M::poc_cmd_stability) + "\n";
      cmd += fmt::format(
          "vllm bench serve --backend vllm --model {} --dataset-name random --random-input-len "
          "{:.0f} \\\n"
          "  --random-output-len {:.0f} --request-rate {:.3g} --num-prompts {:.0f} --save-result "
          "--result-filename poc-{}-48h.json\n",
          model, p_in, p_out, per_replica, std::ceil(per_replica * 48 * 3600), tag);
      cmd += "# " + c.t(M::poc_cmd_fit) + "\n";
      cmd += fmt::format(
          "infercap calibrate --from-benchmarks poc-{0}-b1.json --hardware {1} --devices {2} -o "
          "{1}-{3}.stack.yaml\n",
          tag, r->hardware, r->tp, r->stack);
    }
    cmd +=
        fmt::format("infercap plan {} --explain   # {}\n",
                    c.opt.spec_file.empty() ? "SPEC.yaml" : c.opt.spec_file, c.t(M::poc_cmd_plan));
    s.blocks.push_back(code(std::move(cmd)));

    if (knee != nullptr) {
      Table t;
      t.id = "poc-targets-" + r->pool;
      t.caption = c.t(M::poc_targets_caption);
      t.columns = {col("concurrency", c.t(M::h_concurrency), ColType::integer),
                   col("tokens_per_s", c.t(M::h_tokens_per_s), ColType::number, 0),
                   col("ttft_p99_s", c.t(M::h_ttft_p99), ColType::number, 3),
                   col("tpot_p99_s", c.t(M::h_tpot_p99), ColType::number, 4),
                   col("e2e_p99_s", c.t(M::h_e2e_p99), ColType::number, 2)};
      for (int b : {1, 8, 16, 32}) {
        if (const KneePoint* p = point_at(*knee, b); p != nullptr) {
          t.add({Cell::num(b), Cell::num(p->output_tokens_per_s), Cell::num(p->p99_ttft_s),
                 Cell::num(p->p99_tpot_s), Cell::num(p->p99_e2e_s)});
        }
      }
      s.blocks.push_back(table_block(std::move(t)));
    } else {
      s.blocks.push_back(
          paragraph(c.f(M::poc_targets_plan, c.secs(r->ttft_p99_s), c.secs(r->tpot_p99_s),
                        fmt::format("{:.3g}", r->max_qps_per_replica))));
    }
  }
  s.blocks.push_back(paragraph(c.t(M::poc_acceptance)));
  return s;
}

// ---------------------------------------------------------------------------------------------

Section provenance_section(const Ctx& c) {
  Section s{"provenance", c.t(M::sec_provenance), {}};
  s.blocks.push_back(paragraph(
      c.f(M::prov_intro, c.opt.spec_file.empty() ? "-" : c.opt.spec_file, c.in.prices.name)));
  auto table = [&](const std::string& id, const std::string& title,
                   const std::vector<SourceRef>& src) {
    Table t;
    t.id = id;
    t.caption = title;
    t.columns = {col("fields", c.t(M::h_fields), ColType::text),
                 col("source", c.t(M::h_source), ColType::text),
                 col("date", c.t(M::h_date), ColType::text),
                 col("note", c.t(M::h_note), ColType::text)};
    for (const auto& x : src) {
      std::string fields;
      for (const auto& f : x.fields) fields += (fields.empty() ? "" : " ") + f;
      t.add({Cell::str(fields), Cell::str(x.ref), Cell::str(x.date),
             x.note.empty() ? Cell::none() : Cell::str(x.note)});
    }
    if (t.rows.empty())
      t.add({Cell::str("-"), Cell::str(c.t(M::no_source)), Cell::none(), Cell::none()});
    s.blocks.push_back(table_block(std::move(t)));
  };
  std::vector<std::string> seen;
  auto once = [&](const std::string& k) {
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) return false;
    seen.push_back(k);
    return true;
  };
  for (const CandidateRow* r : c.detailed()) {
    if (const HardwareSpec* h = find_hw(c.in, r->hardware); h && once("hw:" + h->name))
      table("src-hw-" + h->name, c.f(M::prov_hardware, h->name), h->sources);
    if (const ModelSpec* m = find_model(c.in, r->model); m && once("model:" + m->name))
      table("src-model-" + m->name, c.f(M::prov_model, m->name), m->sources);
    for (const auto& st : c.in.space.stacks) {
      if (st.name == r->stack && once("stack:" + st.name))
        table("src-stack-" + st.name, c.f(M::prov_stack, st.name), st.sources);
    }
  }
  table("src-prices", c.f(M::prov_prices, c.in.prices.name), c.in.prices.sources);
  s.blocks.push_back(subheading(c.t(M::prov_method)));
  const ModelAccuracy& a = c.opt.accuracy;
  std::vector<std::string> items = {c.t(M::prov_method_model), c.t(M::prov_method_serving),
                                    c.t(M::prov_method_tco)};
  if (a.decode_median_error > 0 || a.prefill_median_error > 0) {
    items.push_back(c.f(M::prov_method_accuracy,
                        fmt::format("{:.1f}%", a.decode_median_error * 100),
                        fmt::format("{:.1f}%", a.prefill_median_error * 100), a.source));
  }
  items.push_back(c.f(M::prov_method_verify, c.plan.candidates_verified));
  s.blocks.push_back(bullets(std::move(items)));
  return s;
}

}  // namespace infercap::report::detail
