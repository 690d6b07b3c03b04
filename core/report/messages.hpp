#pragma once
// The report's fixed text: one message catalogue per language (messages_en.cpp,
// messages_zh.cpp), looked up by key. Texts are fmt format strings; their placeholders are the
// contract between the builder and every catalogue (tests check every key is in each).
#include <string_view>

#include "infercap/report/document.hpp"

namespace infercap::report {

// clang-format off
#define INFERCAP_REPORT_MESSAGES(X) \
  X(a_cny_per_usd) \
  X(a_depreciation) \
  X(a_device_price) \
  X(a_electricity) \
  X(a_engineer_week) \
  X(a_hosting_kw) \
  X(a_hosting_ru) \
  X(a_maintenance) \
  X(a_ops) \
  X(a_porting) \
  X(a_pue) \
  X(a_server_price) \
  X(arr_bursty) \
  X(arr_deterministic) \
  X(arr_gamma) \
  X(arr_poisson) \
  X(be_load_above) \
  X(be_load_below) \
  X(be_load_none) \
  X(be_power_above) \
  X(be_power_below) \
  X(be_power_none) \
  X(be_price_above) \
  X(be_price_below) \
  X(be_price_none) \
  X(bom_capex_check) \
  X(bom_caption) \
  X(bom_cloud) \
  X(bom_footprint_caption) \
  X(bom_no_cloud) \
  X(bom_none) \
  X(bom_per_year_caption) \
  X(c_annual_budget) \
  X(c_capex_budget) \
  X(c_memory) \
  X(c_other) \
  X(c_power) \
  X(c_priced) \
  X(c_rack) \
  X(c_runs) \
  X(c_serving) \
  X(c_simulated_sla) \
  X(c_sla) \
  X(cand_alternatives) \
  X(cand_alternatives_caption) \
  X(cand_capacity) \
  X(cand_capacity_caption) \
  X(cand_capacity_chart) \
  X(cand_intro) \
  X(cand_knee) \
  X(cand_knee_caption) \
  X(cand_knee_chart) \
  X(cand_knee_failed) \
  X(cand_knee_note) \
  X(cand_knee_y) \
  X(cand_memory) \
  X(cand_memory_caption) \
  X(cand_memory_note) \
  X(cand_none_feasible) \
  X(cand_pareto_title) \
  X(cand_pool) \
  X(cand_ranked_caption) \
  X(cand_rejected_caption) \
  X(cand_tco) \
  X(cand_tco_caption) \
  X(cand_tco_chart) \
  X(class_cpu) \
  X(class_fpga) \
  X(class_gpu) \
  X(class_npu) \
  X(cur_cny) \
  X(cur_usd) \
  X(doc_subtitle) \
  X(doc_title) \
  X(eco_cpu) \
  X(eco_fpga) \
  X(eco_gpu) \
  X(eco_npu) \
  X(estimate_tag) \
  X(fleet_part) \
  X(fleet_recommended) \
  X(fleet_alternative) \
  X(sum_infeasible_short) \
  X(sum_nearest) \
  X(sum_solver_words) \
  X(footer) \
  X(h_arrival) \
  X(h_assumption) \
  X(h_binding) \
  X(h_candidate) \
  X(h_capacity_after_loss) \
  X(h_capacity_qps) \
  X(h_capex) \
  X(h_capital) \
  X(h_change) \
  X(h_change_port) \
  X(h_choice) \
  X(h_class) \
  X(h_concurrency) \
  X(h_date) \
  X(h_design_qps) \
  X(h_device_cost) \
  X(h_devices) \
  X(h_e2e_p99) \
  X(h_ecosystem) \
  X(h_energy_cost) \
  X(h_energy_kwh) \
  X(h_family) \
  X(h_fields) \
  X(h_first_port) \
  X(h_fleet) \
  X(h_hardware) \
  X(h_headroom_qps) \
  X(h_hosting) \
  X(h_hw_class) \
  X(h_item) \
  X(h_kv_occupancy) \
  X(h_load_qps) \
  X(h_lock_in) \
  X(h_maintenance) \
  X(h_margin) \
  X(h_max_batch) \
  X(h_mean_qps) \
  X(h_mem_capacity) \
  X(h_mem_free) \
  X(h_mem_other) \
  X(h_mem_used) \
  X(h_mem_weights) \
  X(h_model) \
  X(h_new_devices) \
  X(h_new_servers) \
  X(h_note) \
  X(h_operations) \
  X(h_output_p50) \
  X(h_output_p90) \
  X(h_part) \
  X(h_peak_kw) \
  X(h_per_mtok) \
  X(h_pool) \
  X(h_porting) \
  X(h_porting_cost) \
  X(h_power_kw) \
  X(h_precision) \
  X(h_price_per_kwh) \
  X(h_prompt_p50) \
  X(h_prompt_p90) \
  X(h_provisioned_kw) \
  X(h_purchase_total) \
  X(h_qps_per_replica) \
  X(h_rack_units) \
  X(h_rank) \
  X(h_reason) \
  X(h_ref) \
  X(h_replicas) \
  X(h_same_choice) \
  X(h_server_cost) \
  X(h_server_price) \
  X(h_servers) \
  X(h_sla) \
  X(h_source) \
  X(h_spares) \
  X(h_stack) \
  X(h_supply) \
  X(h_survives) \
  X(h_tco) \
  X(h_tco_change) \
  X(h_tier) \
  X(h_tokens_per_s) \
  X(h_tpot_p99) \
  X(h_ttft_p99) \
  X(h_unit_price) \
  X(h_utilisation) \
  X(h_value) \
  X(h_verified) \
  X(h_year) \
  X(k_annual_budget) \
  X(k_capex_budget) \
  X(k_growth) \
  X(k_horizon) \
  X(k_model_changes) \
  X(k_objective) \
  X(k_power_cap) \
  X(k_rack_units) \
  X(k_redundancy) \
  X(k_strategy) \
  X(knee_crossing) \
  X(knee_mark) \
  X(list_or) \
  X(list_sep) \
  X(lock_cpu) \
  X(lock_fpga) \
  X(lock_gpu) \
  X(lock_npu) \
  X(m_ttft) \
  X(m_tpot) \
  X(m_e2e) \
  X(unit_kw) \
  X(n_years) \
  X(no) \
  X(no_limit) \
  X(no_source) \
  X(obj_max_qps) \
  X(obj_min_tco) \
  X(page_n) \
  X(poc_acceptance) \
  X(poc_cmd_llama_rates) \
  X(poc_cmd_cpu_power) \
  X(poc_cmd_fit) \
  X(poc_cmd_serve) \
  X(poc_cmd_latency) \
  X(poc_cmd_power) \
  X(poc_cmd_stability) \
  X(poc_cmd_plan) \
  X(sentence_sep) \
  X(poc_for) \
  X(poc_intro) \
  X(poc_step_baseline) \
  X(poc_step_cost) \
  X(poc_step_feedback) \
  X(poc_step_latency) \
  X(poc_step_power) \
  X(poc_step_stability) \
  X(poc_targets_caption) \
  X(poc_targets_plan) \
  X(porting_weeks) \
  X(prov_hardware) \
  X(prov_intro) \
  X(prov_method) \
  X(prov_method_accuracy) \
  X(prov_method_model) \
  X(prov_method_serving) \
  X(prov_method_tco) \
  X(prov_method_verify) \
  X(prov_model) \
  X(prov_prices) \
  X(prov_stack) \
  X(req_assumptions) \
  X(req_assumptions_caption) \
  X(req_constraints) \
  X(req_constraints_caption) \
  X(req_sources_note) \
  X(req_workload) \
  X(req_workload_caption) \
  X(risk_caption) \
  X(risk_fleet_pool) \
  X(risk_one_server) \
  X(risk_spof) \
  X(risk_spof_caption) \
  X(risk_spof_note) \
  X(ru_if_load_above) \
  X(ru_if_load_below) \
  X(ru_if_power_above) \
  X(ru_if_power_below) \
  X(ru_if_price_falls) \
  X(ru_if_price_rises) \
  X(ru_never) \
  X(ru_would_win) \
  X(sec_bom) \
  X(sec_candidates) \
  X(sec_poc) \
  X(sec_provenance) \
  X(sec_requirement) \
  X(sec_risks) \
  X(sec_sensitivity) \
  X(sec_summary) \
  X(sens_be_intro) \
  X(sens_break_even) \
  X(sens_caption) \
  X(sens_electricity) \
  X(sens_horizon) \
  X(sens_infeasible) \
  X(sens_intro) \
  X(sens_load) \
  X(sens_model_error) \
  X(sens_prices) \
  X(sens_same) \
  X(sens_sim_moved) \
  X(sens_skipped) \
  X(sens_sla_double) \
  X(sens_sla_half) \
  X(sens_summary) \
  X(series_capacity) \
  X(series_feasible) \
  X(series_latency) \
  X(series_load) \
  X(series_pareto) \
  X(series_throughput) \
  X(sim_miss) \
  X(sim_not) \
  X(sim_ok) \
  X(strat_burst) \
  X(strat_single) \
  X(strat_staged) \
  X(strat_tiered) \
  X(sum_alternative) \
  X(sum_cost) \
  X(sum_estimates) \
  X(sum_infeasible) \
  X(sum_no_runner_up) \
  X(sum_recommend) \
  X(sum_runner_up) \
  X(sum_tightest) \
  X(sum_why_qps) \
  X(sum_why_tco) \
  X(supply_cpu) \
  X(supply_gpu) \
  X(supply_npu) \
  X(tier_from) \
  X(toc) \
  X(total) \
  X(unit_ms) \
  X(unit_qps) \
  X(unit_s) \
  X(yes) \

enum class M : unsigned short {
#define INFERCAP_X(k) k,
  INFERCAP_REPORT_MESSAGES(INFERCAP_X)
#undef INFERCAP_X
  count_
};
// clang-format on

inline constexpr int kMessageCount = static_cast<int>(M::count_);

struct MessageEntry {
  M key;
  const char* text;
};
/// The catalogues, in any order; each must cover every key (checked by the tests).
extern const MessageEntry kMessagesEn[];
extern const int kMessagesEnCount;
extern const MessageEntry kMessagesZh[];
extern const int kMessagesZhCount;

/// The text of `m` in `lang`; a key missing from a catalogue falls back to English, and to its
/// key name when English lacks it too (the tests make either a failure).
std::string_view message(Lang lang, M m);
/// The key's name ("sec_summary"), for diagnostics and tests.
std::string_view message_key(M m);
/// The key for a solver constraint name ("memory" -> c_memory; unknown -> c_other).
M constraint_msg(std::string_view constraint_name);

}  // namespace infercap::report
