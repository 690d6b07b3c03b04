#pragma once
// A hardware entry for a machine the catalog does not know, built from what `infercap calibrate`
// measured on it, and the lookup that lets a profile name such an entry by file.
#include <optional>
#include <string>

#include "infercap/calibration/run.hpp"
#include "infercap/calibration_profile.hpp"
#include "infercap/hardware.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::cli {

/// The measured machine as one CPU socket: cores, threads, NUMA nodes, memory and last-level
/// cache from the machine probe; the clock from /proc/cpuinfo (`cpu_mhz`, 0 = unknown); the ISA
/// from CPUID; memory bandwidth and the dense compute table from the profile's measured
/// asymptote and best GEMM rates. Measured rates stand where a datasheet entry has peaks (the
/// sources say so), so the model's achievable fractions apply to what was measured.
HardwareSpec measured_cpu_hardware(const calibration::RunResult& run, const CalibrationProfile& p,
                                   const std::string& name, double cpu_mhz);

/// The entry as catalog YAML (data/hardware schema). Every figure is covered by one source whose
/// ref names the measurement (machine, host, date, commit, command).
std::string hardware_to_yaml(const HardwareSpec& h, const Provenance& prov);

/// A lowercase catalog name from a CPU model string: "Intel(R) Xeon(R) Processor" ->
/// "measured-intel-xeon-processor".
std::string measured_hardware_name(const std::string& cpu_model);

/// The hardware a profile applies to: its `hardware` as a catalog name or alias, else as a YAML
/// path, as written or relative to the profile's folder. nullopt (with a diagnostic naming the
/// profile) when it names none or nothing resolves.
std::optional<HardwareSpec> profile_hardware(const spec::Catalog& catalog,
                                             const CalibrationProfile& p,
                                             const std::string& profile_path,
                                             spec::Diagnostics& diags);

}  // namespace infercap::cli
