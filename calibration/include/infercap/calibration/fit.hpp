#pragma once
// Turns measurement rows into the parameters the model uses (CalibrationProfile), with 95%
// confidence intervals, and refuses to fit from measurements that are too noisy. Pure: no I/O.
#include <string>
#include <vector>

#include "infercap/calibration/harness.hpp"
#include "infercap/calibration_profile.hpp"
#include "infercap/result.hpp"

namespace infercap::calibration {

/// bw(n) = asymptote * (1 - exp(-n / n0)) fitted by least squares to (threads, bytes/s) points.
/// Each sample is one repetition (bytes / time), so the interval reflects run-to-run noise.
/// The 95% interval of the asymptote comes from the linearised covariance of the fit
/// (s^2 (J^T J)^-1, normal quantile), or, with one distinct thread count, from the samples.
struct CurveFit {
  double asymptote = 0;
  double n0 = 1;
  double ci95_low = 0, ci95_high = 0;
  double rms_rel_residual = 0;  ///< sqrt(mean((fit - y)^2 / y^2))
  int points = 0;
  /// false when the points show no saturation: n0 ended at its cap (4 x the most threads
  /// measured), so the curve through them is near-linear and `asymptote` is an extrapolation of
  /// it, not a rate any run reached (a 2-vCPU guest whose second thread doubles the first).
  bool saturation_seen = true;
};
Result<CurveFit> fit_saturating(const std::vector<double>& threads,
                                const std::vector<double>& bytes_per_s);

/// time = intercept + slope * x by ordinary least squares, with 95% intervals.
struct LineFit {
  double intercept = 0, slope = 0;
  double intercept_ci95 = 0, slope_ci95 = 0;  ///< half-widths
  int points = 0;
};
Result<LineFit> fit_line(const std::vector<double>& x, const std::vector<double>& y);

struct FitOptions {
  /// A kept point whose spread is above this is rejected; when a required quantity has no
  /// clean point left, the fit fails with a message listing them.
  double max_spread = 0.25;
  /// Working sets at least this multiple of the LLC count as DRAM streaming.
  double dram_llc_multiple = 4.0;
};

/// What the fit found, beyond the profile: human-readable lines for the CLI's report.
struct FitReport {
  CalibrationProfile profile;
  std::vector<std::string> notes;     ///< e.g. "int4 GEMV: no AVX-512 VNNI; used AVX2"
  std::vector<std::string> rejected;  ///< points rejected as noisy or failed
};

/// Fits a profile from rows of one backend on one machine. `llc_bytes` places the cache/DRAM
/// boundary of the stream sweep. Fails (with the reasons) when the DRAM bandwidth, the only
/// quantity every prediction needs, cannot be fitted from clean rows.
Result<FitReport> fit_profile(const std::vector<Measurement>& rows, double llc_bytes,
                              const FitOptions& opt = {});

}  // namespace infercap::calibration
