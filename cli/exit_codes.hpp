#pragma once
// Process exit codes of `infercap`, documented in README.md and docs/cli.md. Scripts may rely on
// them; never renumber.
namespace infercap::cli {

enum ExitCode : int {
  kExitOk = 0,           ///< success (an infeasible plan is still a successful answer: see 5)
  kExitInternal = 1,     ///< a bug: an unexpected exception
  kExitUsage = 2,        ///< bad command line (unknown flag, missing argument)
  kExitSpec = 3,         ///< bad input file or value: diagnostics were printed to stderr
  kExitIo = 4,           ///< a file could not be read or written
  kExitInfeasible = 5,   ///< the question has no feasible answer (model fits nowhere, no candidate)
  kExitCalibration = 6,  ///< calibration rejected its own measurements (too noisy) or no backend
};

}  // namespace infercap::cli
