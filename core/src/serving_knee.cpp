// Seed 004's batch-size knee: throughput and P99 latency as the batch cap doubles, measured the
// way the seed measures it (a benchmark client holding `cap` requests in flight).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

Result<KneeResult> batch_knee(const StepModel& m, const ServingConfig& cfg, const RequestClass& cls,
                              const KneeOptions& opt) {
  if (opt.batch_caps.empty()) return Error{"batch knee: no batch caps given"};
  for (size_t i = 0; i < opt.batch_caps.size(); ++i) {
    if (opt.batch_caps[i] < 1)
      return Error{fmt::format("batch knee: batch cap {} must be >= 1", opt.batch_caps[i])};
    if (i > 0 && opt.batch_caps[i] <= opt.batch_caps[i - 1])
      return Error{"batch knee: batch caps must increase"};
  }
  if (!std::isfinite(opt.threshold) || opt.threshold <= 0)
    return Error{fmt::format("batch knee: threshold must be > 0, got {}", opt.threshold)};
  if (opt.requests < 1) return Error{"batch knee: requests must be >= 1"};
  const std::vector<RequestClass> classes{cls};
  ServingConfig big = cfg;
  big.max_seqs = opt.batch_caps.back();
  big.max_batched_tokens = std::max(cfg.max_batched_tokens, big.max_seqs);
  auto errs = detail::check_inputs(big, classes);
  if (!errs.empty()) return Error{errs.front()};
  auto p = quantile(cls.prompt_tokens, 99.99);
  auto o = quantile(cls.output_tokens, 99.99);
  if (!p) return p.error();
  if (!o) return o.error();
  double max_ctx = *p + *o + 1;
  if (cfg.max_context_tokens > 0)
    max_ctx = std::min(max_ctx, static_cast<double>(cfg.max_context_tokens));
  auto table = StepTable::build(m, big, max_ctx);
  if (!table) return table.error();

  KneeResult out;
  for (int cap : opt.batch_caps) {
    ServingConfig c = cfg;
    c.max_seqs = cap;
    c.max_batched_tokens = std::max(cfg.max_batched_tokens, cap);
    SimOptions so;
    so.seed = opt.seed;
    so.requests = opt.requests;
    so.warmup_requests = std::max<int64_t>(2 * static_cast<int64_t>(cap), opt.requests / 10);
    so.closed_loop_clients = cap;
    auto r = simulate(*table, c, classes, so);
    if (!r) return r.error();
    KneePoint k;
    k.max_seqs = cap;
    k.throughput_rps = r->throughput_rps;
    k.output_tokens_per_s = r->output_tokens_per_s;
    k.p99_e2e_s = r->all.e2e.p99_s;
    k.p99_tpot_s = r->all.tpot.p99_s;
    k.p99_ttft_s = r->all.ttft.p99_s;
    out.points.push_back(k);
  }
  const auto lat = [&](const KneePoint& k) {
    switch (opt.latency) {
      case KneeLatency::tpot:
        return k.p99_tpot_s;
      case KneeLatency::ttft:
        return k.p99_ttft_s;
      case KneeLatency::e2e:
        break;
    }
    return k.p99_e2e_s;
  };
  // The knee: the last cap reached while every doubling so far bought at least `threshold` times
  // as much relative throughput as relative latency.
  out.knee_index = 0;
  for (size_t i = 0; i + 1 < out.points.size(); ++i) {
    const auto& a = out.points[i];
    const auto& b = out.points[i + 1];
    if (!(a.output_tokens_per_s > 0 && lat(a) > 0 && lat(b) > 0)) break;
    const double gain = std::log(b.output_tokens_per_s / a.output_tokens_per_s);
    const double cost = std::log(lat(b) / lat(a));
    if (gain < opt.threshold * cost) break;
    out.knee_index = static_cast<int>(i + 1);
  }
  out.knee_batch = out.points[static_cast<size_t>(out.knee_index)].max_seqs;
  const KneePoint& first = out.points.front();
  for (size_t i = 1; i < out.points.size(); ++i) {
    const double x = out.points[i].output_tokens_per_s / first.output_tokens_per_s;
    const double l = lat(out.points[i]) / lat(first);
    if (l > x) {
      out.crossing_index = static_cast<int>(i);
      break;
    }
  }
  return out;
}

}  // namespace infercap
