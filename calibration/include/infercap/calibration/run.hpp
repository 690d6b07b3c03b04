#pragma once
// One calibration run: probe the machine, walk a backend's plan through the harness, fit the
// profile. The CLI (`infercap calibrate`) is a thin shell over this; tests drive it at
// Effort::tiny.
#include <string>
#include <vector>

#include "infercap/calibration/fit.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/calibration/registry.hpp"

namespace infercap::calibration {

struct RunOptions {
  Effort effort = Effort::quick;
  std::string command;  ///< argv joined, for provenance
  int max_threads = 0;  ///< 0 = all physical cores
  /// LLC size the fit uses to tell cache from DRAM working sets; 0 = the machine's. Effort::tiny
  /// streams only a few MB, so tests set a small value here (such a profile is not for use).
  double fit_llc_bytes = 0;
  /// Points whose spread (p90 - p10) / median exceeds this are rejected by the fit
  /// (FitOptions::max_spread); recorded in the profile's provenance notes.
  double max_spread = 0.25;
};

struct RunResult {
  MachineInfo machine;
  std::vector<Measurement> rows;
  std::vector<std::string> skipped;  ///< "gemv.amx.bf16: no AMX (CPUID leaf 7 EDX bit 24)"
  std::vector<std::string> failed;   ///< kernels whose reference check failed or could not run
  FitReport fit;
  double elapsed_s = 0;
};

/// Runs `backend`'s plan. Fails when the backend is unavailable or the fit rejects the rows
/// (the message says why: too noisy, nothing measured); the rows measured so far are lost with
/// it, which is the point: no bad profile is ever written.
Result<RunResult> run_calibration(const Backend& backend, const RunOptions& opt,
                                  const ProgressFn& progress = {});

}  // namespace infercap::calibration
