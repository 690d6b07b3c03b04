#include "predict_report.hpp"

#include <fmt/core.h>

namespace infercap::cli {

ResultTable prediction_summary_table(const Prediction& p) {
  ResultTable t;
  t.title = "prediction";
  t.columns = {{"batch", Dim::dimensionless},
               {"prompt_tokens", Dim::dimensionless},
               {"output_tokens", Dim::dimensionless},
               {"ttft_s", Dim::seconds},
               {"tpot_s", Dim::seconds},
               {"e2e_s", Dim::seconds},
               {"prefill_tokens_per_s", Dim::tokens_per_s},
               {"decode_tokens_per_s", Dim::tokens_per_s},
               {"total_decode_tokens_per_s", Dim::tokens_per_s},
               {"fits", Dim::dimensionless},
               {"max_batch", Dim::dimensionless}};
  t.add({static_cast<long long>(p.batch), p.prompt_tokens, p.output_tokens, p.ttft_s, p.tpot_s,
         p.e2e_s, p.prefill_tokens_per_s, p.decode_tokens_per_s, p.total_decode_tokens_per_s,
         p.memory.fits, static_cast<long long>(p.memory.max_batch)});
  return t;
}

ResultTable operator_table(const StepBreakdown& b, const std::string& title) {
  ResultTable t;
  t.title = title;
  t.columns = {{"op", Dim::dimensionless},       {"kind", Dim::dimensionless},
               {"time_s", Dim::seconds},         {"share", Dim::dimensionless},
               {"bound", Dim::dimensionless},    {"flops", Dim::flops},
               {"weight_bytes", Dim::bytes},     {"kv_bytes", Dim::bytes},
               {"activation_bytes", Dim::bytes}, {"comm_bytes", Dim::bytes},
               {"compute_s", Dim::seconds},      {"memory_s", Dim::seconds},
               {"issue_s", Dim::seconds},        {"overhead_s", Dim::seconds}};
  for (const auto& o : b.ops) {
    t.add({std::string(o.cost.name), std::string(op_kind_name(o.cost.kind)), o.time_s,
           b.time_s > 0 ? o.time_s / b.time_s : 0.0, std::string(bound_name(o.bound)), o.cost.flops,
           o.cost.weight_bytes, o.cost.kv_bytes, o.cost.activation_bytes, o.cost.comm_bytes,
           o.compute_s, o.memory_s, o.issue_s, o.overhead_s});
  }
  // An eager prompt step whose host launches outlast its operators: the wait they add.
  if (const double wait = host_wait_s(b); wait > 0) {
    t.add({std::string("host_launches"), std::string("overhead"), wait,
           b.time_s > 0 ? wait / b.time_s : 0.0, std::string("overhead"), 0.0, 0.0, 0.0, 0.0, 0.0,
           0.0, 0.0, 0.0, wait});
  }
  if (b.step_overhead_s > 0) {
    t.add({std::string("step_overhead"), std::string("overhead"), b.step_overhead_s,
           b.time_s > 0 ? b.step_overhead_s / b.time_s : 0.0, std::string("overhead"), 0.0, 0.0,
           0.0, 0.0, 0.0, 0.0, 0.0, 0.0, b.step_overhead_s});
  }
  return t;
}

ResultTable memory_table(const MemoryReport& m) {
  ResultTable t;
  t.title = "memory per device";
  t.columns = {{"weights_bytes", Dim::bytes},     {"kv_cache_bytes", Dim::bytes},
               {"activation_bytes", Dim::bytes},  {"reserve_bytes", Dim::bytes},
               {"total_bytes", Dim::bytes},       {"capacity_bytes", Dim::bytes},
               {"kv_bytes_per_token", Dim::bytes}};
  t.add({m.weights_bytes, m.kv_bytes, m.activation_bytes, m.reserve_bytes, m.total_bytes,
         m.capacity_bytes, m.kv_bytes_per_token});
  return t;
}

nlohmann::json inputs_json(const PerfModel& perf) {
  const auto& md = perf.model();
  const auto& hw = perf.hardware();
  const auto& d = perf.deployment();
  const auto& r = perf.rates();
  nlohmann::json j;
  j["model"] = {{"name", md.name},
                {"layers", md.layers},
                {"hidden", md.hidden},
                {"heads", md.heads},
                {"kv_heads", md.kv_heads},
                {"head_dim", md.head_dim},
                {"ffn_hidden", md.ffn_hidden},
                {"vocab", md.vocab},
                {"total_params", total_params(md)},
                {"active_params", active_params(md)}};
  j["hardware"] = {{"name", hw.name},
                   {"class", std::string(hw_class_name(hw.hw_class))},
                   {"memory_bytes", hw.memory_bytes},
                   {"memory_bandwidth_bytes_per_s", hw.memory_bandwidth_bytes_per_s},
                   {"dense_flops_per_s", at(hw.dense_flops_per_s, perf.compute_type())}};
  j["stack"] = perf.stack().name;
  j["precision"] = {{"weights", std::string(dtype_name(d.precision.weights))},
                    {"activations", std::string(dtype_name(d.precision.activations))},
                    {"kv", std::string(dtype_name(d.precision.kv))},
                    {"compute", std::string(compute_type_name(perf.compute_type()))}};
  j["tp"] = d.tp;
  j["pp"] = d.pp;
  j["achieved"] = {{"weight_bandwidth_bytes_per_s", r.weight_bw},
                   {"kv_bandwidth_bytes_per_s", r.kv_bw},
                   {"gemm_flops_per_s", r.gemm_flops},
                   {"attention_flops_per_s", r.attn_flops},
                   {"link_bandwidth_bytes_per_s", r.link_bw},
                   {"kernel_overhead_s", r.kernel_overhead},
                   {"step_overhead_s", r.step_overhead}};
  return j;
}

nlohmann::json prediction_json(const Prediction& p, const PerfModel& perf) {
  nlohmann::json j = prediction_summary_table(p).to_json()[0];
  const auto& m = p.memory;
  j["memory"] = {{"weights_bytes", m.weights_bytes},
                 {"kv_cache_bytes", m.kv_bytes},
                 {"activation_bytes", m.activation_bytes},
                 {"reserve_bytes", m.reserve_bytes},
                 {"total_bytes", m.total_bytes},
                 {"capacity_bytes", m.capacity_bytes},
                 {"kv_bytes_per_token", m.kv_bytes_per_token}};
  j["ops"] = {{"prefill", operator_table(p.prefill, "").to_json()},
              {"decode", operator_table(p.decode, "").to_json()}};
  j["inputs"] = inputs_json(perf);
  return j;
}

std::string render_prediction(const Prediction& p, const PerfModel& perf, Format f) {
  if (f == Format::json) return json_text(prediction_json(p, perf)) + "\n";
  const auto& md = perf.model();
  const auto& d = perf.deployment();
  std::string out;
  if (f == Format::table || f == Format::md) {
    out += fmt::format("{} on {} x{} ({} weights, {} KV, {} compute, stack {})\n\n", md.name,
                       perf.hardware().name, perf.devices(), dtype_name(d.precision.weights),
                       dtype_name(d.precision.kv), compute_type_name(perf.compute_type()),
                       perf.stack().name);
  }
  const std::string sep = "\n";
  out += render(prediction_summary_table(p), f) + sep;
  out += render(memory_table(p.memory), f) + sep;
  out += render(operator_table(p.prefill, "prefill operators (one step, all prompts)"), f) + sep;
  out += render(operator_table(p.decode, "decode operators (one step at the mean context)"), f);
  return out;
}

}  // namespace infercap::cli
