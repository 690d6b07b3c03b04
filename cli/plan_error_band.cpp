#include "plan_error_band.hpp"

#include <fmt/core.h>

namespace infercap::cli {

std::string fleet_error_band_lines(const FleetChoice& fleet, const std::vector<Residual>& res) {
  std::string out;
  for (const auto& p : fleet.parts) {
    ErrorBand b = error_band(res, p.stack, p.hw_class, ErrorQuantity::serving);
    if (!b.available) b = error_band(res, p.stack, p.hw_class, ErrorQuantity::decode);
    const int per_replica = p.replicas > 0 ? p.devices / p.replicas : 1;
    if (!b.available) {
      out += fmt::format("{}: {} devices on {}; {}\n", p.pool, p.devices, p.hardware, b.note);
      continue;
    }
    const ReplicaBand r = replica_band(p.design_qps, p.max_qps_per_replica, p.replicas, b);
    if (!r.available) continue;
    const int lo = r.low * per_replica, hi = r.high * per_replica;
    out += fmt::format("{}: {} devices on {}; {} within the model's measured error ({})\n", p.pool,
                       p.devices, p.hardware,
                       lo == hi ? fmt::format("{}", lo) : fmt::format("{}-{}", lo, hi), b.note);
  }
  return out;
}

}  // namespace infercap::cli
