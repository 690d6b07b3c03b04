// The simulator's step-time table (StepTable, serving.hpp): the StepModel tabulated on geometric
// axes of prefill tokens, decode batch and context, read back by trilinear interpolation, so the
// engine loop in serving_sim.cpp costs a lookup per step, not a roofline evaluation.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "infercap/serving.hpp"
#include "serving_internal.hpp"

namespace infercap {

// ---------------------------------------------------------------------------------------------
// Step table

namespace {

constexpr int kTokensPerOctave = 4;   // prefill-token axis resolution
constexpr int kBatchPerOctave = 4;    // decode-batch axis beyond the exact range
constexpr int kExactBatch = 16;       // decode batches 0..16 are tabulated exactly
constexpr int kContextPerOctave = 2;  // step time is close to affine in context

// 0, then 2^(i/k) from 1 up to `hi` (which is always a grid point).
std::vector<double> geometric_axis(double hi, int per_octave, bool with_zero) {
  std::vector<double> g;
  if (with_zero) g.push_back(0);
  const double r = std::pow(2.0, 1.0 / per_octave);
  for (double x = 1; x < hi * (1 - 1e-9); x *= r) {
    const double v = std::round(x * 1e6) / 1e6;
    if (g.empty() || v > g.back()) g.push_back(v);
  }
  if (g.empty() || hi > g.back()) g.push_back(hi);
  return g;
}

// Index i with g[i] <= x <= g[i+1] (clamped) and the linear weight of g[i+1].
inline int locate(const std::vector<double>& g, double x, double& w) {
  const int n = static_cast<int>(g.size());
  if (n == 1 || x <= g[0]) {
    w = 0;
    return 0;
  }
  if (x >= g[n - 1]) {
    w = 1;
    return n - 2;
  }
  const auto it = std::upper_bound(g.begin(), g.end(), x);
  const int i = static_cast<int>(it - g.begin()) - 1;
  w = (x - g[i]) / (g[i + 1] - g[i]);
  return i;
}

}  // namespace

Result<StepTable> StepTable::build(const StepModel& m, const ServingConfig& cfg,
                                   double max_context) {
  auto errs = validate(cfg);
  if (!errs.empty()) return Error{errs.front()};
  if (!std::isfinite(max_context) || max_context < 1)
    return Error{fmt::format("step table: max context must be >= 1 token, got {}", max_context)};
  StepTable t;
  t.kv_tokens_ = m.kv_capacity_tokens();
  t.p_grid_ = geometric_axis(cfg.max_batched_tokens, kTokensPerOctave, true);
  t.c_grid_ = geometric_axis(std::ceil(max_context), kContextPerOctave, false);
  for (int d = 0; d <= std::min(kExactBatch, cfg.max_seqs); ++d) t.d_grid_.push_back(d);
  if (cfg.max_seqs > kExactBatch) {
    for (double v : geometric_axis(cfg.max_seqs, kBatchPerOctave, false)) {
      const int d = static_cast<int>(std::round(v));
      if (d > t.d_grid_.back()) t.d_grid_.push_back(d);
    }
    if (t.d_grid_.back() < cfg.max_seqs) t.d_grid_.push_back(cfg.max_seqs);
  }
  t.d_index_.assign(static_cast<size_t>(cfg.max_seqs) + 1, 0);
  for (size_t i = 0, d = 0; d <= static_cast<size_t>(cfg.max_seqs); ++d) {
    while (i + 2 < t.d_grid_.size() && static_cast<size_t>(t.d_grid_[i + 1]) <= d) ++i;
    t.d_index_[d] = static_cast<int>(i);
  }
  const size_t np = t.p_grid_.size(), nd = t.d_grid_.size(), nc = t.c_grid_.size();
  t.model_ = &m;
  t.t_.assign(np * nd * nc, -1.0);
  // Check a coarse subgrid (every 4th point of each axis and the last) for step times that are not
  // finite non-negative numbers; the rest is filled on first use.
  const auto coarse = [](size_t n) {
    std::vector<size_t> v;
    for (size_t i = 0; i < n; i += 4) v.push_back(i);
    if (v.back() != n - 1) v.push_back(n - 1);
    return v;
  };
  for (size_t ip : coarse(np)) {
    for (size_t id : coarse(nd)) {
      for (size_t ic : coarse(nc)) {
        const double p = t.p_grid_[ip], c = t.c_grid_[ic];
        const int d = t.d_grid_[id];
        if (p <= 0 && d <= 0) continue;
        const double v = m.mixed_step_s(p, c, d, c);
        if (!std::isfinite(v) || v < 0) {
          return Error{fmt::format(
              "step model returned {} s for {} prefill tokens, {} decodes at context {}", v, p, d,
              c)};
        }
        t.t_[(ip * nd + id) * nc + ic] = v;
      }
    }
  }
  return t;
}

double StepTable::cell(size_t ip, size_t id, size_t ic) const {
  double& v = t_[(ip * d_grid_.size() + id) * c_grid_.size() + ic];
  if (v < 0) {
    const double p = p_grid_[ip], c = c_grid_[ic];
    const int d = d_grid_[id];
    const double x = (p > 0 || d > 0) ? model_->mixed_step_s(p, c, d, c) : 0.0;
    v = std::isfinite(x) && x >= 0 ? x : 0.0;  // the coarse check at build time vouches for it
  }
  return v;
}

double StepTable::step_s(double prefill_tokens, int decode_batch, double context) const {
  const size_t nd = d_grid_.size(), nc = c_grid_.size();
  double wp = 0, wc = 0;
  const int ip = locate(p_grid_, prefill_tokens, wp);
  const int ic = locate(c_grid_, context, wc);
  const int db = std::clamp(decode_batch, 0, static_cast<int>(d_index_.size()) - 1);
  int id = d_index_[static_cast<size_t>(db)];
  double wd = 0;
  if (nd > 1) {
    id = std::min(id, static_cast<int>(nd) - 2);
    wd = static_cast<double>(db - d_grid_[id]) / (d_grid_[id + 1] - d_grid_[id]);
  }
  const auto at = [&](int a, int b, int c) {
    return cell(static_cast<size_t>(a), static_cast<size_t>(b), static_cast<size_t>(c));
  };
  const int ip1 = p_grid_.size() > 1 ? ip + 1 : ip;
  const int id1 = nd > 1 ? id + 1 : id;
  const int ic1 = nc > 1 ? ic + 1 : ic;
  const double c00 = at(ip, id, ic) * (1 - wc) + at(ip, id, ic1) * wc;
  const double c01 = at(ip, id1, ic) * (1 - wc) + at(ip, id1, ic1) * wc;
  const double c10 = at(ip1, id, ic) * (1 - wc) + at(ip1, id, ic1) * wc;
  const double c11 = at(ip1, id1, ic) * (1 - wc) + at(ip1, id1, ic1) * wc;
  const double c0 = c00 * (1 - wd) + c01 * wd;
  const double c1 = c10 * (1 - wd) + c11 * wd;
  return c0 * (1 - wp) + c1 * wp;
}

}  // namespace infercap
