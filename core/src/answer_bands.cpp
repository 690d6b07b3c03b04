#include "infercap/answer_bands.hpp"

#include <fmt/core.h>
#include <algorithm>

namespace infercap {

std::vector<PredictionBand> prediction_bands(const Prediction& p, const std::vector<Residual>& res,
                                             const std::string& stack, HwClass cls, bool encoder,
                                             std::string_view vendor) {
  const ErrorBand pre = error_band(res, stack, cls, ErrorQuantity::prefill, kMinBandRows, vendor);
  const ErrorBand dec = error_band(res, stack, cls, ErrorQuantity::decode, kMinBandRows, vendor);
  std::vector<PredictionBand> out;
  auto add = [&](const char* q, bool rate, double v, const ErrorBand& b) {
    out.push_back({q, rate, v, b});
  };
  add("TTFT", false, p.ttft_s, pre);
  if (encoder) {
    add("E2E", false, p.ttft_s, pre);
    add("prefill tok/s", true, p.prefill_tokens_per_s, pre);
    return out;
  }
  add("TPOT", false, p.tpot_s, dec);
  add("E2E", false, p.e2e_s, dec);
  add("prefill tok/s", true, p.prefill_tokens_per_s, pre);
  add("per sequence", true, p.decode_tokens_per_s, dec);
  add("decode tok/s", true, p.total_decode_tokens_per_s, dec);
  return out;
}

std::vector<PartErrorBand> fleet_error_band(const FleetChoice& fleet,
                                            const std::vector<Residual>& res) {
  std::vector<PartErrorBand> out;
  for (const auto& p : fleet.parts) {
    PartErrorBand e;
    e.pool = p.pool;
    e.hardware = p.hardware;
    e.devices = p.devices;
    // A fleet is sized on capacity: the serving runs' throughputs are its error, not their
    // latencies (read near saturation, those move by the capacity error times their conditioning).
    ErrorBand b = error_band(res, p.stack, p.hw_class, ErrorQuantity::serving_throughput,
                             kMinBandRows, p.vendor);
    if (!b.available)
      b = error_band(res, p.stack, p.hw_class, ErrorQuantity::decode, kMinBandRows, p.vendor);
    e.note = b.note;
    e.has_rows = b.available;
    const int per_replica = p.replicas > 0 ? p.devices / p.replicas : 1;
    // A part carries at most what its replicas can: in a staged or mixed fleet the pool's design
    // load is shared, and the band must move the part's own count, not size the whole pool on it.
    const double carried = p.replicas > 0 && p.max_qps_per_replica > 0
                               ? std::min(p.design_qps, p.replicas * p.max_qps_per_replica)
                               : p.design_qps;
    const ReplicaBand r = replica_band(carried, p.max_qps_per_replica, p.replicas, b);
    if (b.available && r.available) {
      e.available = true;
      e.low = r.low * per_replica;
      e.high = r.high * per_replica;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string describe(const PartErrorBand& b) {
  if (!b.available)
    return fmt::format("{}: {} devices on {}; {}", b.pool, b.devices, b.hardware, b.note);
  return fmt::format(
      "{}: {} devices on {}; {} within the model's measured error ({})", b.pool, b.devices,
      b.hardware, b.low == b.high ? fmt::format("{}", b.low) : fmt::format("{}-{}", b.low, b.high),
      b.note);
}

std::string fleet_error_band_lines(const FleetChoice& fleet, const std::vector<Residual>& res) {
  std::string out;
  for (const auto& b : fleet_error_band(fleet, res)) {
    if (b.has_rows && !b.available) continue;
    out += describe(b) + "\n";
  }
  return out;
}

}  // namespace infercap
