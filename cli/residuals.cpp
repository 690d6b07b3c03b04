#include "residuals.hpp"

#include <fmt/core.h>

#include <cmath>

namespace infercap::cli {

Residual residual_of(const BenchCase& c, const std::string& stack, double predicted) {
  Residual r;
  r.stack = stack;
  r.hw_class = c.hardware.hw_class;
  r.hardware = c.hardware.name;
  r.id = c.id;
  switch (c.metric) {
    case BenchMetric::prefill_tokens_per_s:
    case BenchMetric::ttft_s:
      r.quantity = ErrorQuantity::prefill;
      break;
    default:
      r.quantity = !is_serving_metric(c.metric)  ? ErrorQuantity::decode
                   : is_latency_metric(c.metric) ? ErrorQuantity::serving_latency
                                                 : ErrorQuantity::serving_throughput;
  }
  const double l = std::log(predicted / c.measured);
  r.log_time_ratio = is_latency_metric(c.metric) ? l : -l;
  return r;
}

std::string residuals_csv_header(const std::string& provenance) {
  return "# " + provenance + "\nid,stack,class,quantity,hardware,log_time_ratio,basis\n";
}

std::string residuals_csv_row(const Residual& r) {
  return fmt::format("{},{},{},{},{},{:.6g},{}\n", r.id, r.stack, hw_class_name(r.hw_class),
                     error_quantity_name(r.quantity), r.hardware, r.log_time_ratio,
                     r.held_out ? "held_out" : "in_sample");
}

}  // namespace infercap::cli
