#pragma once
// The model's measured error on the answers both shells show (`infercap predict` / `plan` and
// the GUI's Predict and Plan tabs), so it lives below both. Pure.
//  - A prediction's figures within the p10-p90 of the validation residuals of the stack and
//    class: prefill rows for TTFT and prefill throughput, decode rows for the rest.
//  - The recommended fleet's device count at those factors ("8 devices; 7-10 within the model's
//    measured error"), or that there are no validation rows.
#include <string>
#include <vector>

#include "infercap/error_band.hpp"
#include "infercap/predict.hpp"
#include "infercap/solver.hpp"

namespace infercap {

/// One figure of a prediction with its band.
struct PredictionBand {
  std::string quantity;  ///< "TTFT", "TPOT", "E2E", "prefill tok/s", ...
  bool rate = false;     ///< tokens/s (the band divides by the time factors) or seconds
  double predicted = 0;
  ErrorBand band;  ///< band.available false: no validation rows for this stack/class
  double low() const { return rate ? band.rate_low(predicted) : band.time_low(predicted); }
  double high() const { return rate ? band.rate_high(predicted) : band.time_high(predicted); }
};

/// TTFT (prefill rows), TPOT, E2E (decode rows), prefill tok/s (prefill), decode tok/s per
/// sequence and for the batch (decode), in that order. An encoder (no decode) gets TTFT, E2E
/// (its forward pass, prefill rows) and prefill tok/s only.
/// `vendor`: the hardware's, for error_band's own-vendor rows (empty: every vendor's).
std::vector<PredictionBand> prediction_bands(const Prediction& p, const std::vector<Residual>& res,
                                             const std::string& stack, HwClass cls,
                                             bool encoder = false, std::string_view vendor = {});

struct PartErrorBand {
  std::string pool;
  std::string hardware;
  int devices = 0;         ///< as planned
  bool available = false;  ///< a device band: validation rows and a sized part
  bool has_rows = false;   ///< enough validation rows for the stack and class (a band exists)
  int low = 0;             ///< devices at the p10 time factor
  int high = 0;            ///< devices at the p90 time factor
  std::string note;        ///< which rows gave the band, or why there is none
};

/// One entry per part of `fleet`. Serving rows of the stack and class give the band; without
/// them, its decode rows (a replica's capacity scales with its step time). Devices are the
/// replicas of replica_band() times the part's devices per replica.
std::vector<PartErrorBand> fleet_error_band(const FleetChoice& fleet,
                                            const std::vector<Residual>& res);

/// "chat: 8 devices on h100-sxm; 7-10 within the model's measured error (p10-p90 of ...)", or
/// "chat: 8 devices on h100-sxm; no band: ..." from the band's note.
std::string describe(const PartErrorBand& b);

/// describe() of every part, one line each (the text `infercap plan` prints); a part with rows
/// but no design load or capacity to scale is left out.
std::string fleet_error_band_lines(const FleetChoice& fleet, const std::vector<Residual>& res);

}  // namespace infercap
