#pragma once
// Validation residuals on disk: `infercap validate --residuals-out FILE` writes one row per
// predicted measurement; predict and plan read data/validation/residuals.csv to show each
// answer with the band the model's measured error implies (core/include/infercap/error_band.hpp).
// Lines starting with '#' carry the provenance (command, commit, date).
#include <string>
#include <vector>

#include "infercap/error_band.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap::cli {

/// The residual of one predicted case, in time form (error_band.hpp).
Residual residual_of(const BenchCase& c, const std::string& stack, double predicted);

/// The residuals file, written one row at a time (validate streams its rows): the provenance
/// comment and the header line, then one line per row.
std::string residuals_csv_header(const std::string& provenance);
std::string residuals_csv_row(const Residual& r);

/// Reads a residuals file; malformed lines are diagnostics. A missing file is no error: an empty
/// list (the caller says there are no validation rows).
std::vector<Residual> read_residuals(const std::string& path, spec::Diagnostics& diags);

/// `<data dir>/validation/residuals.csv`.
std::string default_residuals_path(const std::string& data_dir);

}  // namespace infercap::cli
