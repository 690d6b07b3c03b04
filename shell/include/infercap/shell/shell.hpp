#pragma once
// What both shells (`infercap`, `infercap-gui`) do the same way at their edges: the deployment
// flags on a CLI11 command line, diagnostics to stderr with the documented exit code, the data
// folder, and a guard that turns an escaped exception into an exit code. The flags' meaning and
// parsing are in infercap/spec/deployment.hpp; this library only binds them to CLI11.
#include <CLI/CLI.hpp>
#include <string>

#include "infercap/shell/exit_codes.hpp"
#include "infercap/spec/deployment.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::shell {

/// Adds --weights/--activations/--kv/--compute/--tp/--pp/--threads/--smt/--numa/--vm to `app`.
void add_deployment_flags(CLI::App& app, spec::DeploymentFlags& f);

/// The data folder: --data if given, else INFERCAP_DATA_DIR, else the built-in default.
std::string data_dir_or_default(const std::string& flag);

/// Prints every diagnostic to stderr; returns kExitSpec when there were errors, else kExitOk.
int print_diagnostics(const spec::Diagnostics& diags);

/// Runs a program's `body` and turns anything it throws into "PROGRAM: internal error: ..." on
/// stderr and kExitInternal, so no program of the project ends in std::terminate.
int run_guarded(const char* program, int (*body)(int, char**), int argc, char** argv);

}  // namespace infercap::shell
