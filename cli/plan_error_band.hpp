#pragma once
// How the recommended fleet moves across the model's measured error: for each part, the replica
// (and device) count at the p10 and p90 of the validation residuals of its stack and class
// ("8 devices; 7-10 within the model's measured error"), or that there are no validation rows.
#include <string>
#include <vector>

#include "infercap/error_band.hpp"
#include "infercap/solver.hpp"

namespace infercap::cli {

/// One line per part of `fleet`. Serving rows of the stack and class give the band; without
/// them, its decode rows (a replica's capacity scales with its step time).
std::string fleet_error_band_lines(const FleetChoice& fleet, const std::vector<Residual>& res);

}  // namespace infercap::cli
