#pragma once
// Validation residuals on disk: `infercap validate --residuals-out FILE` writes one row per
// predicted measurement; `infercap predict`, `infercap plan` and the GUI read
// data/validation/residuals.csv to show each answer with the band the model's measured error
// implies (core/include/infercap/error_band.hpp). Lines starting with '#' carry the provenance
// (command, commit, date). Both shells read the file, so the reader lives here, below both.
#include <string>
#include <vector>

#include "infercap/error_band.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::spec {

/// Reads a residuals file; malformed lines are diagnostics. A missing file is no error: an empty
/// list (the caller says there are no validation rows).
std::vector<Residual> read_residuals(const std::string& path, Diagnostics& diags);

/// Fills each residual's vendor from the catalog's entry for its hardware (left empty for a
/// device the catalog does not know), so bands can keep to one vendor's rows.
void tag_vendors(std::vector<Residual>& residuals, const Catalog& catalog);

/// `<data dir>/validation/residuals.csv`.
std::string default_residuals_path(const std::string& data_dir);

}  // namespace infercap::spec
