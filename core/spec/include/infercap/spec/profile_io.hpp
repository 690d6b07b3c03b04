#pragma once
// Calibration profiles as YAML (`kind: calibration-profile`, docs/spec-reference.md and
// docs/calibration.md). Written by `infercap calibrate`, read by `--calibration FILE` and by
// catalog entries that reference a profile. Quantities are written as plain SI numbers (exact
// round trip); on reading, human strings ("48 GB/s", "3 us") are accepted like everywhere else.
#include <string>
#include <string_view>

#include "infercap/calibration_profile.hpp"
#include "infercap/result.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::spec {

/// The profile as a YAML document (schema_version, kind, fields, provenance, sources). Numbers
/// are printed with 17 significant digits so reading them back gives the same doubles.
std::string profile_to_yaml(const CalibrationProfile& p);

/// Parses a profile document. `file` names the origin in diagnostics. Unknown keys, wrong kinds,
/// negative rates and a missing `sources:` entry are errors; every error is collected in `diags`.
/// Returns an Error (summary) when `diags` has errors.
Result<CalibrationProfile> parse_profile(std::string_view yaml_text, const std::string& file,
                                         Diagnostics& diags);

/// Reads and parses a file; a missing or unreadable file is one diagnostic.
Result<CalibrationProfile> load_profile(const std::string& path, Diagnostics& diags);

/// Writes `profile_to_yaml(p)` to `path` atomically (temporary file, then rename), so a failed
/// run never leaves half a profile. The Error says what failed. `force`: replace a symbolic link
/// or a read-only file (write_file_atomically).
Result<std::string> save_profile(const CalibrationProfile& p, const std::string& path,
                                 bool force = false);

}  // namespace infercap::spec
