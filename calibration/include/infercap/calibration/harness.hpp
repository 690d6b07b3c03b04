#pragma once
// The timing harness: warm up, repeat within a time budget, report median and spread, and reject
// noisy runs. Every measurement becomes one row with the kernel, the shape and the rates; a run's
// rows share one Provenance (provenance.hpp).
#include <functional>
#include <string>
#include <vector>

#include "infercap/calibration/kernel.hpp"

namespace infercap::calibration {

struct HarnessOptions {
  double warmup_s = 0.01;  ///< untimed calls first (page faults, caches, clocks)
  int min_warmup_calls = 1;
  double budget_s = 0.1;  ///< time budget for the timed repetitions of one point
  int min_reps = 5;       ///< at least this many timed calls, even past the budget
  int max_reps = 100000;
  /// A point is noisy when (p90 - p10) / median exceeds this; it is re-measured up to
  /// `noisy_retries` times, and kept flagged `noisy` if it never settles.
  double max_spread = 0.10;
  int noisy_retries = 2;
  bool check = true;  ///< run the reference check once per point
};

/// One timed point: the kernel, where it ran, and what it achieved.
struct Measurement {
  std::string backend;
  std::string kernel;  ///< KernelSpec::name
  KernelKind kind = KernelKind::stream_read;
  std::string isa;
  DType weights = DType::fp32;
  ComputeType compute = ComputeType::fp32;
  Shape shape;
  double bytes_per_call = 0;
  double flops_per_call = 0;
  int reps = 0;
  double median_s = 0;  ///< median time of one call
  double min_s = 0;
  double p10_s = 0, p90_s = 0;
  double spread = 0;  ///< (p90 - p10) / median
  bool noisy = false;
  bool checked = false;  ///< a reference check ran
  bool check_ok = false;
  double check_error = 0;
  std::string note;  ///< check message, retry count, ...
  /// Per-call times of the kept samples (the fit uses them for confidence intervals). Calls
  /// under 20 us are timed in batches; a sample is then a batch's mean, and `reps` counts calls.
  std::vector<double> samples_s;

  double bytes_per_s() const { return median_s > 0 ? bytes_per_call / median_s : 0; }
  double flops_per_s() const { return median_s > 0 ? flops_per_call / median_s : 0; }
};

/// Median, p10, p90 of a sample (copies and sorts). Empty input gives zeros.
struct Quantiles {
  double median = 0, p10 = 0, p90 = 0, min = 0;
};
Quantiles quantiles(std::vector<double> xs);

/// Prepares, checks and times `spec` at `shape`. Fails when the kernel is unavailable, the shape
/// is unsupported, or the reference check fails (a wrong kernel must never produce a rate).
Result<Measurement> measure(const std::string& backend, const KernelSpec& spec, const Shape& shape,
                            const HarnessOptions& opt);

/// Times an already prepared instance (used by measure, and by benches that compare kernels).
/// `clock` returns seconds; injectable so the noise logic can be tested with a fake clock.
Measurement time_instance(KernelInstance& inst, const HarnessOptions& opt,
                          const std::function<double()>& clock = {});

/// Seconds from a monotonic clock.
double now_s();

}  // namespace infercap::calibration
