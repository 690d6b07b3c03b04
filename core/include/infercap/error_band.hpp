#pragma once
// The model's measured error as part of an answer: validation residuals turned into a p10-p90
// band around a prediction, and the replica count of a fleet across that band. Residuals are
// kept in time form, r = ln(predicted time / measured time) (a throughput row contributes
// -ln(predicted / measured)), so one set serves latencies and throughputs alike.
#include <string>
#include <string_view>
#include <vector>

#include "infercap/hardware.hpp"

namespace infercap {

/// What a residual is about: the prompt phase (TTFT, prefill throughput), the decode phase
/// (TPOT, generation throughput, static-batch latency), a serving run's throughput (its
/// capacity: output or request rate, offline, at a fixed rate or at the highest rate within P99
/// limits), or a serving run's latency (TTFT, TPOT, ITL, end to end). The two serving kinds are
/// apart because a fleet is sized on capacity, and a latency read near saturation moves by the
/// capacity error times d ln(latency) / d ln(rate) (10-80 on MLPerf Server runs): pooled, those
/// latencies would widen the replica band with an error the replica count does not carry.
enum class ErrorQuantity : unsigned char { prefill, decode, serving_throughput, serving_latency };
inline constexpr int kErrorQuantityCount = 4;
std::string_view error_quantity_name(ErrorQuantity q);

struct Residual {
  std::string stack;
  HwClass hw_class = HwClass::gpu;
  ErrorQuantity quantity = ErrorQuantity::decode;
  std::string hardware;
  /// The hardware's vendor as the catalog names it (spec::tag_vendors); empty = not known.
  std::string vendor;
  std::string id;
  double log_time_ratio = 0;  ///< ln(predicted time / measured time)
  /// Out of sample: the row's stack refitted without the row's device predicted it (validate
  /// --fit --cross-validate). false = the committed stack's residual (in sample for a row the
  /// stack was fitted on).
  bool held_out = false;
};

/// measured time = predicted time x factor, with the factor's p10 and p90 over the residuals of
/// one stack, hardware class and quantity. Too few rows (< min_rows) = no band, said in `note`.
/// With `vendor` given, only that vendor's rows when it has min_rows of them: one vendor's
/// software (ROCm against CUDA builds of the same engine) can miss by another factor than
/// another's, and a band pooled over both would carry it to hardware it says nothing about.
/// Fewer: every vendor's rows, and the note says so.
struct ErrorBand {
  bool available = false;
  int rows = 0;
  double time_factor_p10 = 1;  ///< measured / predicted time, 10th percentile
  double time_factor_p90 = 1;  ///< 90th percentile
  std::string note;            ///< which rows, or why there is no band
  /// The band of a predicted time [s] or rate [1/s]: a rate divides by the time factors.
  double time_low(double t) const { return t * time_factor_p10; }
  double time_high(double t) const { return t * time_factor_p90; }
  double rate_low(double r) const { return r / time_factor_p90; }
  double rate_high(double r) const { return r / time_factor_p10; }
};

/// Rows a band needs (fewer: no band), and a vendor to keep to its own.
inline constexpr int kMinBandRows = 3;
ErrorBand error_band(const std::vector<Residual>& residuals, std::string_view stack, HwClass cls,
                     ErrorQuantity q, int min_rows = kMinBandRows, std::string_view vendor = {});

/// Replicas of a pool across a band: the design load needs ceil(design x factor / capacity)
/// replicas when every step takes `factor` times the predicted time; the redundancy the plan
/// added (replicas - ceil(design / capacity)) is kept. low/high at the p10/p90 factors.
struct ReplicaBand {
  bool available = false;
  int low = 0;
  int high = 0;
};
ReplicaBand replica_band(double design_qps, double max_qps_per_replica, int replicas,
                         const ErrorBand& band);

}  // namespace infercap
