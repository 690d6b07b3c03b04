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

/// The residuals file, written one row at a time (validate streams its rows): the provenance
/// comment and the header line, then one line per row.
std::string residuals_csv_header(const std::string& provenance);
std::string residuals_csv_row(const Residual& r);

/// The reader lives in spec (the GUI reads the file too).
using spec::default_residuals_path;
using spec::read_residuals;

}  // namespace infercap::cli
