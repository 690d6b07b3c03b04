#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "infercap/perf.hpp"
#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

// ---------------------------------------------------------------------------------------------
// PerfModel adapter

PerfStepModel::PerfStepModel(const PerfModel& perf, double max_batched_tokens) : perf_(&perf) {
  const MemoryReport m = perf.memory(1, 0, max_batched_tokens);
  const double free_bytes =
      m.capacity_bytes - m.weights_bytes - m.activation_bytes - m.reserve_bytes;
  if (free_bytes <= 0) {
    kv_tokens_ = 0;
  } else if (m.kv_bytes_per_token <= 0) {
    kv_tokens_ = 1e15;  // encoders keep no cache: memory never limits the batch
  } else {
    kv_tokens_ = std::floor(free_bytes / m.kv_bytes_per_token);
  }
}

double PerfStepModel::prefill_s(int batch, double prompt, double past) const {
  return perf_->prefill_s(batch, prompt, past);
}

double PerfStepModel::decode_step_s(int batch, double context) const {
  return perf_->decode_step_s(batch, context);
}

double PerfStepModel::mixed_step_s(double prefill_tokens, double prefill_context, int decode_batch,
                                   double decode_context) const {
  return perf_->mixed_step_s(prefill_tokens, prefill_context, decode_batch, decode_context);
}

std::vector<std::string> validate(const ServingConfig& c) {
  std::vector<std::string> out;
  if (c.max_seqs < 1) out.push_back(fmt::format("max_seqs must be >= 1, got {}", c.max_seqs));
  if (c.max_batched_tokens < 1)
    out.push_back(fmt::format("max_batched_tokens must be >= 1, got {}", c.max_batched_tokens));
  if (c.max_seqs >= 1 && c.max_batched_tokens >= 1 && c.max_batched_tokens < c.max_seqs) {
    out.push_back(fmt::format(
        "max_batched_tokens ({}) must be >= max_seqs ({}): every running sequence decodes a token "
        "per step",
        c.max_batched_tokens, c.max_seqs));
  }
  if (c.kv_block_tokens < 1)
    out.push_back(fmt::format("kv_block_tokens must be >= 1, got {}", c.kv_block_tokens));
  if (c.request_poll_decode_steps < 1) {
    out.push_back(
        fmt::format("request_poll_decode_steps must be >= 1, got {}", c.request_poll_decode_steps));
  }
  if (c.prompt_wait_steps < 0)
    out.push_back(fmt::format("prompt_wait_steps must be >= 0, got {}", c.prompt_wait_steps));
  if (c.prompt_wait_tokens < 0)
    out.push_back(fmt::format("prompt_wait_tokens must be >= 0, got {}", c.prompt_wait_tokens));
  if (!std::isfinite(c.kv_capacity_tokens) || c.kv_capacity_tokens < 0)
    out.push_back(fmt::format("kv_capacity_tokens must be >= 0, got {}", c.kv_capacity_tokens));
  if (c.max_context_tokens < 0)
    out.push_back(fmt::format("max_context_tokens must be >= 0, got {}", c.max_context_tokens));
  return out;
}

namespace detail {

double percentile_of(std::vector<double>& v, double percentile) {
  if (v.empty()) return 0;
  const double n = static_cast<double>(v.size());
  auto k = static_cast<size_t>(std::max(1.0, std::ceil(percentile / 100 * n - 1e-9)) - 1);
  k = std::min(k, v.size() - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

LatencySummary summarise(std::vector<double>& v) {
  LatencySummary s;
  if (v.empty()) return s;
  s.mean_s = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.p50_s = percentile_of(v, 50);
  s.p90_s = percentile_of(v, 90);
  s.p99_s = percentile_of(v, 99);
  return s;
}

void judge_sla(ClassLatency& c, const Sla& sla, bool stable) {
  c.binding_metric.clear();
  c.binding_ratio = 0;
  const auto consider = [&](const SlaTarget& t, double value, const char* name) {
    if (!t.set()) return;
    const double ratio = stable ? value / t.limit_s : std::numeric_limits<double>::infinity();
    if (c.binding_metric.empty() || ratio > c.binding_ratio) {
      c.binding_metric = name;
      c.binding_ratio = ratio;
    }
  };
  consider(sla.ttft, c.ttft_at_sla_s, "ttft");
  consider(sla.tpot, c.tpot_at_sla_s, "tpot");
  consider(sla.e2e, c.e2e_at_sla_s, "e2e");
  if (!stable && c.binding_metric.empty()) {
    c.binding_metric = "stability";
    c.binding_ratio = std::numeric_limits<double>::infinity();
  }
  c.meets_sla = stable && c.binding_ratio <= 1;
}

void judge_all(ServingResult& r) {
  r.meets_sla = r.stable;
  r.all.meets_sla = r.stable;
  r.all.binding_metric = r.stable ? "" : "stability";
  r.all.binding_ratio = r.stable ? 0 : std::numeric_limits<double>::infinity();
  for (const auto& c : r.classes) {
    if (!c.meets_sla) r.meets_sla = false;
    if (!c.binding_metric.empty() &&
        (r.all.binding_metric.empty() || c.binding_ratio > r.all.binding_ratio)) {
      r.all.binding_metric = c.binding_metric;
      r.all.binding_ratio = c.binding_ratio;
      r.all.ttft_at_sla_s = c.ttft_at_sla_s;
      r.all.tpot_at_sla_s = c.tpot_at_sla_s;
      r.all.e2e_at_sla_s = c.e2e_at_sla_s;
    }
  }
  r.all.meets_sla = r.meets_sla;
}

Result<std::vector<double>> class_rates(const std::vector<RequestClass>& classes,
                                        double total_qps) {
  if (!std::isfinite(total_qps) || total_qps < 0)
    return Error{fmt::format("total QPS must be >= 0, got {}", total_qps)};
  std::vector<double> q;
  q.reserve(classes.size());
  double sum = 0;
  for (const auto& c : classes) {
    q.push_back(design_qps(c.rate));
    sum += q.back();
  }
  if (!(sum > 0)) return Error{"no request class has a positive arrival rate"};
  if (total_qps > 0)
    for (auto& x : q) x *= total_qps / sum;
  return q;
}

std::vector<std::string> check_inputs(const ServingConfig& cfg,
                                      const std::vector<RequestClass>& classes) {
  auto out = validate(cfg);
  if (classes.empty()) out.push_back("no request classes");
  for (const auto& c : classes)
    for (auto& e : validate(c)) out.push_back(std::move(e));
  return out;
}

}  // namespace detail
}  // namespace infercap
