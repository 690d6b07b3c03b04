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
/// cache from the machine probe; the clock the probe measured (MachineInfo::core_clock_hz), else
/// /proc/cpuinfo's (`cpu_mhz`, 0 = unknown); the ISA
/// from CPUID; memory bandwidth from the profile's fitted curve (asymptote, and per core the
/// asymptote / n0). The dense compute table holds peaks derived like a datasheet's (cores x base
/// clock x measured_cpu_peak_rule), so the stacks' fractions of peak mean the same here as on a
/// catalog entry; only without a clock does it fall back to the profile's achieved GEMM rates.
HardwareSpec measured_cpu_hardware(const calibration::RunResult& run, const CalibrationProfile& p,
                                   const std::string& name, double cpu_mhz);

/// FLOP (or OP) per cycle per core of the widest unit each compute type has, from the CPUID
/// vendor and flags (calibration::cpu::isa_flags spelling), with the reasoning in words; 0 for a
/// type the flags give no unit for.
struct PeakRule {
  double fp32_flops_per_cycle = 0;
  double bf16_flops_per_cycle = 0;
  double int8_ops_per_cycle = 0;
  std::string why;
};
PeakRule measured_cpu_peak_rule(const std::string& vendor, const std::string& flags);

/// What the machine probe's FMA issue rate (MachineInfo::fma_flops_per_s over core_clock_hz)
/// says against the rule's fp32 FLOP/cycle: "" without both figures, else the measured FLOP per
/// cycle, and where it is over 10% below the rule, that AVX-512 code runs below the scalar clock
/// or the core has fewer FMA units than the rule assumes; with MachineInfo::f16_fma_flops_per_s,
/// the rate of the same FMAs fed by llama.cpp's F16 tile's fp16 conversions and its share of the
/// plain rate (on Zen 5 the conversions cost nothing). The entry keeps the rule's peak (the
/// stacks' fractions are of datasheet-style peaks); the note and calibrate's log carry this.
std::string measured_fma_note(const calibration::MachineInfo& m, const PeakRule& rule);

/// The entry as catalog YAML (data/hardware schema). Every figure is covered by one source whose
/// ref names the measurement (machine, host, date, commit, command); `peak_note` says how the
/// dense compute table was derived, `clock_note` where cpu.base_clock_hz came from (empty: from
/// /proc/cpuinfo), `bandwidth_note` anything the bandwidth figures' source must add (calibrate:
/// that no saturation was seen, so the asymptote is an extrapolation).
std::string hardware_to_yaml(const HardwareSpec& h, const Provenance& prov,
                             const std::string& peak_note, const std::string& clock_note = "",
                             const std::string& bandwidth_note = "");

/// What the entry's bandwidth source must add for this profile: when the fit's n0 sits at its cap
/// (4 x the most threads measured, calibration::fit_saturating) the points showed no saturation,
/// so the asymptote, the entry's memory_bandwidth_bytes_per_s, is an extrapolation, and the
/// note says so; otherwise "".
std::string measured_bandwidth_note(const CalibrationProfile& p);

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
