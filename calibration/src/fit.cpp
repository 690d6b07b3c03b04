#include "infercap/calibration/fit.hpp"

#include <fmt/core.h>
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace infercap::calibration {

namespace {

// Two-sided 95% Student t quantiles for 1..30 degrees of freedom; normal beyond.
double t95(int dof) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return INFINITY;
  return dof <= 30 ? t[dof - 1] : 1.96;
}

double sse_for(const std::vector<double>& n, const std::vector<double>& y, double n0,
               double* a_out) {
  double fy = 0, ff = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double f = 1 - std::exp(-n[i] / n0);
    fy += f * y[i];
    ff += f * f;
  }
  const double a = ff > 0 ? fy / ff : 0;
  double sse = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double r = a * (1 - std::exp(-n[i] / n0)) - y[i];
    sse += r * r;
  }
  if (a_out != nullptr) *a_out = a;
  return sse;
}

}  // namespace

Result<CurveFit> fit_saturating(const std::vector<double>& threads, const std::vector<double>& bw) {
  if (threads.size() != bw.size() || threads.empty())
    return Error{"bandwidth fit: need matching, non-empty thread and bandwidth samples"};
  for (size_t i = 0; i < bw.size(); ++i) {
    if (!(threads[i] > 0) || !(bw[i] > 0) || !std::isfinite(bw[i]))
      return Error{"bandwidth fit: threads and bandwidths must be positive and finite"};
  }
  CurveFit f;
  f.points = static_cast<int>(bw.size());
  const double tmax = *std::max_element(threads.begin(), threads.end());
  const double tmin = *std::min_element(threads.begin(), threads.end());
  const auto N = static_cast<double>(bw.size());
  if (tmax == tmin) {
    // One thread count: the shape is not identifiable. Treat the machine as saturated there
    // (bw(t) = 98% of the asymptote: n0 = t / 4) and take the interval from the samples.
    double mean = 0, var = 0;
    for (double v : bw) mean += v;
    mean /= N;
    for (double v : bw) var += (v - mean) * (v - mean);
    var = bw.size() > 1 ? var / (N - 1) : 0;
    const double scale = 1 / (1 - std::exp(-4.0));
    const double half = t95(static_cast<int>(bw.size()) - 1) * std::sqrt(var / N);
    f.n0 = tmin / 4;
    f.asymptote = mean * scale;
    f.ci95_low = (mean - (std::isfinite(half) ? half : mean)) * scale;
    f.ci95_high = (mean + (std::isfinite(half) ? half : mean)) * scale;
  } else {
    // Profile out the asymptote (linear given n0), search n0 on a log grid, then refine by
    // golden section. n0 is capped at 4x the largest thread count measured: beyond that the
    // data show no saturation and the asymptote would be an extrapolation.
    const double lo_n0 = tmin / 50, hi_n0 = 4 * tmax;
    double best = lo_n0, best_sse = INFINITY;
    for (int i = 0; i <= 400; ++i) {
      const double n0 = lo_n0 * std::pow(hi_n0 / lo_n0, i / 400.0);
      const double s = sse_for(threads, bw, n0, nullptr);
      if (s < best_sse) {
        best_sse = s;
        best = n0;
      }
    }
    double a = std::log(std::max(lo_n0, best / 1.03)), b = std::log(std::min(hi_n0, best * 1.03));
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 60; ++it) {
      const double c = b - g * (b - a), d = a + g * (b - a);
      if (sse_for(threads, bw, std::exp(c), nullptr) < sse_for(threads, bw, std::exp(d), nullptr)) {
        b = d;
      } else {
        a = c;
      }
    }
    f.n0 = std::exp((a + b) / 2);
    f.saturation_seen = f.n0 < 0.99 * hi_n0;
    const double sse = sse_for(threads, bw, f.n0, &f.asymptote);
    // Linearised covariance: J = [d/dA, d/dn0].
    Eigen::MatrixXd J(bw.size(), 2);
    for (size_t i = 0; i < bw.size(); ++i) {
      const double e = std::exp(-threads[i] / f.n0);
      J(static_cast<Eigen::Index>(i), 0) = 1 - e;
      J(static_cast<Eigen::Index>(i), 1) = -f.asymptote * threads[i] / (f.n0 * f.n0) * e;
    }
    const int dof = static_cast<int>(bw.size()) - 2;
    const Eigen::Matrix2d jtj = J.transpose() * J;
    double half = INFINITY;
    if (dof > 0 && std::abs(jtj.determinant()) > 0) {
      const Eigen::Matrix2d cov = (sse / dof) * jtj.inverse();
      half = t95(dof) * std::sqrt(std::max(0.0, cov(0, 0)));
    }
    if (!std::isfinite(half)) half = f.asymptote;
    f.ci95_low = std::max(0.0, f.asymptote - half);
    f.ci95_high = f.asymptote + half;
  }
  double rr = 0;
  for (size_t i = 0; i < bw.size(); ++i) {
    const double fit = f.asymptote * (1 - std::exp(-threads[i] / f.n0));
    rr += (fit - bw[i]) * (fit - bw[i]) / (bw[i] * bw[i]);
  }
  f.rms_rel_residual = std::sqrt(rr / N);
  return f;
}

Result<LineFit> fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return Error{"line fit: need at least two points"};
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd X(n, 2);
  Eigen::VectorXd Y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X(i, 0) = 1;
    X(i, 1) = x[static_cast<size_t>(i)];
    Y(i) = y[static_cast<size_t>(i)];
  }
  const Eigen::Matrix2d xtx = X.transpose() * X;
  if (std::abs(xtx.determinant()) <= 1e-300 * xtx.norm())
    return Error{"line fit: all x values are equal"};
  const Eigen::Vector2d beta = xtx.ldlt().solve(X.transpose() * Y);
  LineFit f;
  f.intercept = beta(0);
  f.slope = beta(1);
  f.points = static_cast<int>(n);
  const int dof = static_cast<int>(n) - 2;
  if (dof > 0) {
    const double sse = (Y - X * beta).squaredNorm();
    const Eigen::Matrix2d cov = (sse / dof) * xtx.inverse();
    f.intercept_ci95 = t95(dof) * std::sqrt(std::max(0.0, cov(0, 0)));
    f.slope_ci95 = t95(dof) * std::sqrt(std::max(0.0, cov(1, 1)));
  } else {
    f.intercept_ci95 = f.slope_ci95 = INFINITY;
  }
  return f;
}

namespace {

// The middle 80% of a row's repetitions: a preempted call (shared machine) is not a property of
// the hardware, and least squares would follow it.
std::vector<double> trimmed(const std::vector<double>& xs) {
  std::vector<double> v = xs;
  std::sort(v.begin(), v.end());
  const size_t cut = v.size() / 10;
  return {v.begin() + static_cast<std::ptrdiff_t>(cut), v.end() - static_cast<std::ptrdiff_t>(cut)};
}

std::string gbs(double v) {
  return fmt::format("{:.1f} GB/s", v / 1e9);
}

std::string describe(const Measurement& m) {
  return fmt::format("{} (threads {}, bytes {:.3g}, m {} n {} k {})", m.kernel, m.shape.threads,
                     m.shape.bytes, m.shape.m, m.shape.n, m.shape.k);
}

}  // namespace

Result<FitReport> fit_profile(const std::vector<Measurement>& rows, double llc_bytes,
                              const FitOptions& opt) {
  FitReport rep;
  CalibrationProfile& p = rep.profile;
  std::vector<const Measurement*> clean;
  for (const auto& r : rows) {
    if (r.checked && !r.check_ok) {
      rep.rejected.push_back(describe(r) + ": failed its reference check");
    } else if (r.spread > opt.max_spread || r.median_s <= 0) {
      rep.rejected.push_back(describe(r) + fmt::format(": too noisy (spread {:.0f}% > {:.0f}%)",
                                                       100 * r.spread, 100 * opt.max_spread));
    } else {
      clean.push_back(&r);
    }
  }
  const double llc = llc_bytes > 0 ? llc_bytes : 32.0 * 1024 * 1024;

  // DRAM read bandwidth vs threads, from every repetition of every clean DRAM-sized read.
  std::vector<double> th, bw;
  // The team size of the sweep (largest thread count measured, clean or not): the overhead,
  // cache and GEMV figures are taken there even when the DRAM point at that size was rejected.
  int max_threads = 0;
  for (const auto& r : rows) max_threads = std::max(max_threads, r.shape.threads);
  int dram_threads = 0;
  double dram_bw_at_max = 0;
  for (const auto* r : clean) {
    if (r->kind != KernelKind::stream_read || r->shape.numa_node >= 0 ||
        r->bytes_per_call < opt.dram_llc_multiple * llc)
      continue;
    for (double s : trimmed(r->samples_s)) {
      th.push_back(r->shape.threads);
      bw.push_back(r->bytes_per_call / s);
    }
    if (r->shape.threads >= dram_threads) {
      dram_threads = r->shape.threads;
      dram_bw_at_max = r->bytes_per_s();
    }
  }
  if (bw.empty()) {
    std::string why = "no clean DRAM read-bandwidth measurement (working set >= " +
                      fmt::format("{:.0f}", opt.dram_llc_multiple) +
                      " x LLC); the profile needs one";
    for (const auto& s : rep.rejected) why += "\n  rejected: " + s;
    return Error{why};
  }
  auto curve = fit_saturating(th, bw);
  if (!curve) return Error{curve.error().message};
  p.bandwidth = {curve->asymptote, curve->n0, curve->ci95_low, curve->ci95_high};
  p.threads = max_threads;
  rep.notes.push_back(fmt::format(
      "DRAM read: {} at {} threads; fit bw(n) = {} x (1 - exp(-n / {:.2f})), 95% CI {} .. {}, "
      "rms residual {:.1f}%",
      gbs(dram_bw_at_max), dram_threads, gbs(curve->asymptote), curve->n0, gbs(curve->ci95_low),
      gbs(curve->ci95_high), 100 * curve->rms_rel_residual));
  if (!curve->saturation_seen) {
    rep.notes.push_back(fmt::format(
        "DRAM read: no saturation up to {} threads (n0 at its cap): the asymptote {} is an "
        "extrapolation, not a measured rate",
        max_threads, gbs(curve->asymptote)));
  }

  // Cache regime: reads at max threads below the LLC; the boundary is where the measured
  // bandwidth falls through the geometric mean of the cache and DRAM plateaus.
  std::map<double, double> ladder;  // bytes -> bytes/s
  for (const auto* r : clean) {
    if (r->kind == KernelKind::stream_read && r->shape.threads == max_threads &&
        r->shape.numa_node < 0)
      ladder[r->bytes_per_call] = std::max(ladder[r->bytes_per_call], r->bytes_per_s());
  }
  double cache_bw = 0, cache_at = 0;
  for (const auto& [b, v] : ladder) {
    if (b <= llc / 2 && b >= cache_at) {
      cache_bw = v;  // the largest LLC-resident working set: what LLC-sized weights see
      cache_at = b;
    }
  }
  const double dram_at_team = curve->asymptote * (1 - std::exp(-max_threads / curve->n0));
  if (cache_bw > dram_at_team * 1.1) {
    const double level = std::sqrt(cache_bw * dram_at_team);
    double boundary = cache_at;
    double prev_b = 0, prev_v = 0;
    for (const auto& [b, v] : ladder) {
      if (b < cache_at) continue;
      if (prev_b > 0 && prev_v >= level && v < level) {
        const double t = (std::log(prev_v) - std::log(level)) / (std::log(prev_v) - std::log(v));
        boundary = std::exp(std::log(prev_b) + t * (std::log(b) - std::log(prev_b)));
        break;
      }
      prev_b = b;
      prev_v = v;
    }
    p.cache_bandwidth_bytes_per_s = cache_bw;
    p.cache_bytes = boundary;
    rep.notes.push_back(
        fmt::format("cache regime: {} up to {:.1f} MiB working set (LLC {:.1f} MiB)", gbs(cache_bw),
                    boundary / (1024 * 1024), llc / (1024 * 1024)));
  } else {
    rep.notes.push_back("cache regime: not measured (no LLC-resident read faster than DRAM)");
  }

  // Compute: the best GEMM per compute type (over ISAs).
  for (const auto* r : clean) {
    if (r->kind != KernelKind::gemm) continue;
    double& slot = p.achieved_flops_per_s[static_cast<size_t>(r->compute)];
    if (r->flops_per_s() > slot) slot = r->flops_per_s();
  }
  for (int c = 0; c < kComputeTypeCount; ++c) {
    if (p.achieved_flops_per_s[static_cast<size_t>(c)] > 0) {
      std::string isa;
      for (const auto* r : clean) {
        if (r->kind == KernelKind::gemm && static_cast<int>(r->compute) == c &&
            r->flops_per_s() == p.achieved_flops_per_s[static_cast<size_t>(c)])
          isa = r->isa;
      }
      rep.notes.push_back(fmt::format("GEMM {}: {:.1f} GFLOP/s ({})",
                                      compute_type_name(static_cast<ComputeType>(c)),
                                      p.achieved_flops_per_s[static_cast<size_t>(c)] / 1e9, isa));
    }
  }

  // Decode GEMV weight streaming (batch 1, DRAM-sized weights, all threads), per weight format;
  // at k = 4096 when that row length was measured for the format (the table's meaning).
  auto streaming = [&](const Measurement* r) {
    return r->kind == KernelKind::gemv && r->shape.m == 1 && r->shape.threads == max_threads &&
           r->bytes_per_call >= opt.dram_llc_multiple * llc * 0.9;
  };
  std::array<bool, kComputeTypeCount> has_4096{};
  for (const auto* r : clean) {
    if (streaming(r) && r->shape.k == 4096) {
      has_4096[static_cast<size_t>(native_compute_type(r->weights).value_or(ComputeType::int4))] =
          true;
    }
  }
  for (const auto* r : clean) {
    const auto slot_i =
        static_cast<size_t>(native_compute_type(r->weights).value_or(ComputeType::int4));
    if (!streaming(r) || (has_4096[slot_i] && r->shape.k != 4096)) continue;
    double& slot = p.gemv_bandwidth_bytes_per_s[slot_i];
    slot = std::max(slot, r->bytes_per_s());
  }
  // The same rows by row length: the model interpolates at its hidden size.
  {
    std::map<std::pair<int, double>, double> byk;
    for (const auto* r : clean) {
      if (r->kind != KernelKind::gemv || r->shape.m != 1 || r->shape.threads != max_threads ||
          r->bytes_per_call < opt.dram_llc_multiple * llc * 0.9 || r->shape.k <= 0)
        continue;
      double& v =
          byk[{static_cast<int>(native_compute_type(r->weights).value_or(ComputeType::int4)),
               static_cast<double>(r->shape.k)}];
      v = std::max(v, r->bytes_per_s());
    }
    for (const auto& [key, v] : byk) {
      p.gemv_by_k.push_back({static_cast<ComputeType>(key.first), key.second, v});
      rep.notes.push_back(fmt::format("GEMV {} weights at k = {:.0f}: {}",
                                      compute_type_name(static_cast<ComputeType>(key.first)),
                                      key.second, gbs(v)));
    }
  }
  for (int c = 0; c < kComputeTypeCount; ++c) {
    if (p.gemv_bandwidth_bytes_per_s[static_cast<size_t>(c)] > 0) {
      rep.notes.push_back(
          fmt::format("GEMV {} weights: {} ({:.0f}% of the DRAM read)",
                      compute_type_name(static_cast<ComputeType>(c)),
                      gbs(p.gemv_bandwidth_bytes_per_s[static_cast<size_t>(c)]),
                      100 * p.gemv_bandwidth_bytes_per_s[static_cast<size_t>(c)] / dram_at_team));
    }
  }

  // Per-call overhead: intercept of time = t0 + bytes / rate over small GEMVs streamed cold
  // (shape.bytes > 0: copies over several x LLC called in turn, as a forward pass's layers are),
  // all threads; the tiny-kernel median when the line is unusable.
  std::vector<double> xs, ys;
  for (const auto* r : clean) {
    if (r->kind == KernelKind::gemv && r->shape.m == 1 && r->shape.bytes > 0 &&
        r->shape.threads == max_threads && r->bytes_per_call < llc) {
      for (double s : trimmed(r->samples_s)) {
        xs.push_back(r->bytes_per_call);
        ys.push_back(s);
      }
    }
  }
  double tiny = 0;
  for (const auto* r : clean)
    if (r->kind == KernelKind::call_overhead && r->shape.threads == max_threads) tiny = r->median_s;
  auto line = fit_line(xs, ys);
  if (line && line->intercept > 0) {
    p.kernel_overhead_s = line->intercept;
    rep.notes.push_back(
        fmt::format("per-call overhead: {:.2f} us +- {:.2f} (intercept of {} small GEMVs; tiny "
                    "kernel {:.2f} us)",
                    line->intercept * 1e6, line->intercept_ci95 * 1e6, line->points, tiny * 1e6));
  } else if (tiny > 0) {
    p.kernel_overhead_s = tiny;
    rep.notes.push_back(fmt::format("per-call overhead: {:.2f} us (tiny kernel)", tiny * 1e6));
  }
  for (const auto* r : clean) {
    if (r->kind == KernelKind::fork_join && r->shape.threads == max_threads)
      p.fork_join_s = r->median_s;
  }
  if (p.fork_join_s > 0) {
    rep.notes.push_back(
        fmt::format("fork/join ({} threads): {:.2f} us", max_threads, p.fork_join_s * 1e6));
  }
  return rep;
}

}  // namespace infercap::calibration
