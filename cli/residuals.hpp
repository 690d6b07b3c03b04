#pragma once
// Validation residuals on disk: `infercap validate --residuals-out FILE` writes one row per
// predicted measurement (the reader: infercap/spec/residuals.hpp).
#include <string>
#include <vector>

#include "infercap/error_band.hpp"
#include "infercap/spec/residuals.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap::cli {

/// The residual of one predicted case, in time form (error_band.hpp).
Residual residual_of(const BenchCase& c, const std::string& stack, double predicted);

std::string residuals_csv(const std::vector<Residual>& rows, const std::string& provenance);

/// The reader lives in spec (the GUI reads the file too).
using spec::default_residuals_path;
using spec::read_residuals;

}  // namespace infercap::cli
