#pragma once
// Helpers shared by the serving translation units (simulator, analytic path, knee). Not public.
#include <string>
#include <vector>

#include "infercap/serving.hpp"

namespace infercap::detail {

/// Nearest-rank percentile of `v` (reorders it): the ceil(p/100 * n)-th smallest value.
double percentile_of(std::vector<double>& v, double percentile);

/// Mean, P50, P90, P99 of `v` (reorders it); zeros when empty.
LatencySummary summarise(std::vector<double>& v);

/// Fills the SLA fields of `c` (values at the class SLA percentiles must already be set) and
/// decides meets_sla / binding metric. `stable` false forces a violation.
void judge_sla(ClassLatency& c, const Sla& sla, bool stable);

/// Aggregates the per-class SLA verdicts into `r.all` and `r.meets_sla`.
void judge_all(ServingResult& r);

/// Per-class offered rates: design_qps shares scaled so they sum to `total_qps` (> 0), or the
/// design rates themselves (total_qps == 0). Errors on invalid classes or negative totals.
Result<std::vector<double>> class_rates(const std::vector<RequestClass>& classes, double total_qps);

/// Validates the config and every class; the first problem as an Error.
std::vector<std::string> check_inputs(const ServingConfig& cfg,
                                      const std::vector<RequestClass>& classes);

}  // namespace infercap::detail
