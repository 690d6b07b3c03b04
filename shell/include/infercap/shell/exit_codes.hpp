#pragma once
// Process exit codes of `infercap` and `infercap-gui`, documented in README.md, docs/cli.md and
// docs/gui.md. Scripts may rely on them; never renumber. Both shells use one table, so it lives
// below both (cli/exit_codes.hpp re-exports it into infercap::cli).
namespace infercap::shell {

enum ExitCode : int {
  kExitOk = 0,           ///< success (an infeasible plan is still a successful answer: see 5)
  kExitInternal = 1,     ///< a bug: an unexpected exception
  kExitUsage = 2,        ///< bad command line (unknown flag, missing argument)
  kExitSpec = 3,         ///< bad input file or value: diagnostics were printed to stderr
  kExitIo = 4,           ///< a file could not be read or written, or an output path was refused
  kExitInfeasible = 5,   ///< the question has no feasible answer (model fits nowhere, no candidate)
  kExitCalibration = 6,  ///< calibration rejected its own measurements (too noisy) or no backend
};

}  // namespace infercap::shell
