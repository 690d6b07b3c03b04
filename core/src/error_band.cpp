#include "infercap/error_band.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace infercap {

std::string_view error_quantity_name(ErrorQuantity q) {
  static constexpr std::array<std::string_view, kErrorQuantityCount> kNames{
      "prefill", "decode", "serving_throughput", "serving_latency"};
  return kNames[static_cast<int>(q)];
}

namespace {

// Linear interpolation between order statistics (the same rule as validate's summaries).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (static_cast<double>(v.size()) - 1);
  const auto i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, v.size() - 1);
  return v[i] + (pos - static_cast<double>(i)) * (v[j] - v[i]);
}

}  // namespace

ErrorBand error_band(const std::vector<Residual>& residuals, std::string_view stack, HwClass cls,
                     ErrorQuantity q, int min_rows, std::string_view vendor) {
  // The vendor's own rows when there are enough of them.
  bool own_vendor = false;
  if (!vendor.empty()) {
    const auto n = std::count_if(residuals.begin(), residuals.end(), [&](const Residual& r) {
      return r.stack == stack && r.hw_class == cls && r.quantity == q && r.vendor == vendor;
    });
    own_vendor = n >= std::max(1, min_rows);
  }
  ErrorBand b;
  std::vector<double> factors;
  std::vector<std::string> devices;
  int held_out = 0;
  // The stack's rows of the other kinds, named when this kind has too few for a band.
  std::array<int, kErrorQuantityCount> other{};
  for (const auto& r : residuals) {
    if (r.stack != stack || r.hw_class != cls) continue;
    if (r.quantity != q) {
      ++other[static_cast<size_t>(r.quantity)];
      continue;
    }
    if (own_vendor && r.vendor != vendor) continue;
    held_out += r.held_out ? 1 : 0;
    // measured / predicted time = exp(-r)
    factors.push_back(std::exp(-r.log_time_ratio));
    if (std::find(devices.begin(), devices.end(), r.hardware) == devices.end())
      devices.push_back(r.hardware);
  }
  b.rows = static_cast<int>(factors.size());
  if (b.rows < std::max(1, min_rows)) {
    b.note = fmt::format("no band: {} validation row(s) for stack {} on {} ({})", b.rows, stack,
                         hw_class_name(cls), error_quantity_name(q));
    // A stack validated on other kinds of row is not unvalidated: say which rows it has, so the
    // reader does not take "no band" for "never checked" (a serving stack's rows are serving
    // runs, whose band is the plan's replica band, not a static TTFT or TPOT band).
    for (size_t k = 0; k < other.size(); ++k) {
      if (other[k] == 0) continue;
      b.note += fmt::format("; {} {} row(s) validate it", other[k],
                            error_quantity_name(static_cast<ErrorQuantity>(k)));
    }
    return b;
  }
  b.available = true;
  b.time_factor_p10 = quantile(factors, 0.10);
  b.time_factor_p90 = quantile(factors, 0.90);
  // Held-out rows were predicted by the stack refitted without their device: the error a device
  // the fit has not seen should expect. Saying how many are tells the reader which band this is.
  const std::string basis =
      held_out == b.rows ? " (each held out: its device left out of the fit)"
      : held_out > 0     ? fmt::format(" ({} held out: their device left out of the fit)", held_out)
                         : std::string();
  b.note = fmt::format("p10-p90 of {} validation rows{} on {} device(s), stack {}, {} ({})", b.rows,
                       basis, devices.size(), stack, hw_class_name(cls), error_quantity_name(q));
  if (own_vendor) {
    b.note += fmt::format("; {} hardware only", vendor);
  } else if (!vendor.empty()) {
    b.note += fmt::format("; every vendor's rows (fewer than {} on {} hardware)",
                          std::max(1, min_rows), vendor);
  }
  return b;
}

ReplicaBand replica_band(double design_qps, double max_qps_per_replica, int replicas,
                         const ErrorBand& band) {
  ReplicaBand r;
  if (!band.available || !(design_qps > 0) || !(max_qps_per_replica > 0)) return r;
  const double need = design_qps / max_qps_per_replica;
  const int redundancy = std::max(0, replicas - static_cast<int>(std::ceil(need - 1e-9)));
  auto at = [&](double factor) {
    return std::max(1, static_cast<int>(std::ceil(need * factor - 1e-9))) + redundancy;
  };
  r.available = true;
  r.low = at(band.time_factor_p10);
  r.high = at(band.time_factor_p90);
  return r;
}

}  // namespace infercap
