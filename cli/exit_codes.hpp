#pragma once
// The exit codes are shared with infercap-gui and defined below both shells
// (shell/include/infercap/shell/exit_codes.hpp); the CLI's code names them as cli::kExit*.
#include "infercap/shell/exit_codes.hpp"

namespace infercap::cli {

using shell::ExitCode;
using shell::kExitCalibration;
using shell::kExitInfeasible;
using shell::kExitInternal;
using shell::kExitIo;
using shell::kExitOk;
using shell::kExitSpec;
using shell::kExitUsage;

}  // namespace infercap::cli
