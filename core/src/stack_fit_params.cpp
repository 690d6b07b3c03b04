#include "infercap/stack_fit_params.hpp"

#include <fmt/core.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <optional>

namespace infercap {

std::vector<StackParam> serving_stack_candidates() {
  return {StackParam::weight_bandwidth_fraction, StackParam::kv_bandwidth_fraction,
          StackParam::gemm_compute_fraction, StackParam::quantised_gemm_compute_fraction,
          StackParam::attention_compute_fraction, StackParam::kernel_overhead_s,
          StackParam::step_overhead_s,
          // Zero (no column) in stacks without a weight-converting decode kernel.
          StackParam::quantised_issue_cycles_per_weight};
}

bool is_static_batch_metric(BenchMetric m) {
  return m == BenchMetric::ttft_s || m == BenchMetric::tpot_s || m == BenchMetric::e2e_latency_s ||
         m == BenchMetric::static_output_tokens_per_s;
}

namespace {

// Log predictions of every case under `s`.
Result<Eigen::VectorXd> log_predictions(const StackSpec& s, const std::vector<BenchCase>& cases) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(cases.size()));
  for (size_t i = 0; i < cases.size(); ++i) {
    auto p = predict_case(cases[i], s);
    if (!p) return Error{fmt::format("case {}: {}", cases[i].id, p.error().message)};
    if (!(*p > 0)) return Error{fmt::format("case {}: non-positive prediction", cases[i].id)};
    v[static_cast<Eigen::Index>(i)] = std::log(*p);
  }
  return v;
}

// d ln(predicted) / d ln(parameter) of every case, one column per parameter, at `s`. Fractions
// step down (a fraction at its bound of 1 cannot step up); overheads step up. A parameter at zero
// (a mechanism the stack does not have) gets a zero column.
Result<std::vector<Eigen::VectorXd>> sensitivity_columns(const StackSpec& s, HwClass cls,
                                                         const std::vector<BenchCase>& cases,
                                                         const std::vector<StackParam>& params) {
  auto base = log_predictions(s, cases);
  if (!base) return base.error();
  constexpr double kStep = 0.05;
  std::vector<Eigen::VectorXd> cols;
  for (StackParam p : params) {
    StackSpec moved_stack = s;
    double* f = stack_param_field(moved_stack.for_class(cls), p);
    if (f == nullptr || !(*f > 0)) {
      cols.emplace_back(Eigen::VectorXd::Zero(base->size()));
      continue;
    }
    const double h = stack_param_is_fraction(p) ? -kStep : kStep;
    *f *= std::exp(h);
    auto moved = log_predictions(moved_stack, cases);
    if (!moved) return moved.error();
    cols.emplace_back((*moved - *base) / h);
  }
  return cols;
}

}  // namespace

Result<ParamChoice> choose_fit_params(const StackSpec& start, HwClass cls,
                                      const std::vector<BenchCase>& cases,
                                      std::vector<StackParam> candidates, double min_sensitivity,
                                      double min_independence) {
  if (cases.empty()) return Error{"choose_fit_params: no cases"};
  if (candidates.empty()) candidates = serving_stack_candidates();
  std::vector<ParamSensitivity> review;
  auto cols = sensitivity_columns(start, cls, cases, candidates);
  if (!cols) return cols.error();
  for (size_t i = 0; i < candidates.size(); ++i) {
    ParamSensitivity ps{candidates[i]};
    const Eigen::VectorXd& col = (*cols)[i];
    ps.rms_sensitivity = std::sqrt(col.squaredNorm() / static_cast<double>(col.size()));
    review.push_back(ps);
  }
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return review[a].rms_sensitivity > review[b].rms_sensitivity;
  });
  ParamChoice out;
  const size_t max_params = cases.size() > 1 ? cases.size() - 1 : 0;
  Eigen::MatrixXd basis(static_cast<Eigen::Index>(cases.size()), 0);
  for (size_t i : order) {
    ParamSensitivity& ps = review[i];
    const Eigen::VectorXd& col = (*cols)[i];
    const double norm = col.norm();
    if (norm <= 0) continue;
    // What of this column the chosen ones do not explain (least-squares residual).
    Eigen::VectorXd rest = col;
    if (basis.cols() > 0) {
      const Eigen::VectorXd coef = basis.colPivHouseholderQr().solve(col);
      rest = col - basis * coef;
    }
    ps.independence = rest.norm() / norm;
    if (ps.rms_sensitivity < min_sensitivity || ps.independence < min_independence) continue;
    if (out.params.size() >= max_params) continue;
    ps.chosen = true;
    out.params.push_back(ps.param);
    basis.conservativeResize(Eigen::NoChange, basis.cols() + 1);
    basis.col(basis.cols() - 1) = col;
  }
  for (size_t i : order) out.review.push_back(review[i]);
  return out;
}

Result<ParamChoice> select_fit_params(const StackSpec& start, HwClass cls,
                                      const std::vector<BenchCase>& cases, double min_sensitivity,
                                      double min_independence) {
  auto choice = choose_fit_params(start, cls, cases, {}, min_sensitivity, min_independence);
  if (!choice || choice->params.empty()) return choice;
  const double n = static_cast<double>(cases.size());
  auto bic = [&](const StackFitResult& f) {
    const double rss = f.rms_log_error_after * f.rms_log_error_after * n;
    return n * std::log(std::max(rss, 1e-300) / n) +
           static_cast<double>(f.params.size()) * std::log(n);
  };
  auto fit = fit_stack(start, cls, cases, choice->params);
  if (!fit) return fit.error();
  double best = bic(*fit);
  StackSpec probe = start;  // start values of the candidates, for the "switched off" test
  while (choice->params.size() + 1 < cases.size()) {
    // Sensitivity columns at the fitted point: the chosen ones span what is explained already.
    std::vector<StackParam> all = choice->params;
    for (const auto& ps : choice->review) {
      if (std::find(all.begin(), all.end(), ps.param) == all.end()) all.push_back(ps.param);
    }
    auto cols = sensitivity_columns(fit->stack, cls, cases, all);
    if (!cols) return cols.error();
    const auto k = static_cast<Eigen::Index>(choice->params.size());
    Eigen::MatrixXd basis((*cols)[0].size(), k);
    for (Eigen::Index j = 0; j < k; ++j) basis.col(j) = (*cols)[static_cast<size_t>(j)];
    const auto qr = basis.colPivHouseholderQr();
    std::optional<StackFitResult> winner;
    StackParam won{};
    double won_bic = best - 2.0;
    for (size_t i = choice->params.size(); i < all.size(); ++i) {
      const StackParam p = all[i];
      const double* v = stack_param_field(probe.for_class(cls), p);
      if (v == nullptr || !(*v > 0)) continue;  // a mechanism the stack does not have
      const Eigen::VectorXd& col = (*cols)[i];
      if (!(col.norm() > 0)) continue;
      const Eigen::VectorXd rest = col - basis * qr.solve(col);
      if (rest.norm() / col.norm() < min_independence) continue;
      std::vector<StackParam> trial = choice->params;
      trial.push_back(p);
      auto f = fit_stack(start, cls, cases, trial);
      if (!f) continue;
      const double b = bic(*f);
      if (b < won_bic) {
        won_bic = b;
        won = p;
        winner = std::move(*f);
      }
    }
    if (!winner) break;
    choice->params.push_back(won);
    for (auto& ps : choice->review) ps.chosen = ps.chosen || ps.param == won;
    fit = std::move(*winner);
    best = won_bic;
  }
  return choice;
}

}  // namespace infercap
