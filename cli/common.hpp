#pragma once
// Pieces every command shares. What the GUI shares too (deployment flags, diagnostics to stderr,
// the exception guard, exit codes) lives below both shells; the names are brought in here.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "infercap/perf.hpp"
#include "infercap/shell/shell.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/deployment.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::cli {

/// The deployment flags and their parsing are shared with the GUI, so they live below both
/// shells (infercap/spec/deployment.hpp; the CLI11 binding in infercap/shell/shell.hpp).
using shell::add_deployment_flags;
using shell::data_dir_or_default;
using shell::print_diagnostics;
using shell::run_guarded;
using spec::apply_default_precision;
using spec::default_stack_for;
using spec::DeploymentFlags;
using spec::make_deployment;

/// --force, on every command that writes a file: replace an output that is a symbolic link or a
/// read-only file (refused without it, exit 4; spec/atomic_write.hpp).
inline void add_force_flag(CLI::App* sub, bool& force) {
  sub->add_flag("--force", force,
                "replace an output file that is a symbolic link or read-only (else refused, "
                "exit 4)");
}

}  // namespace infercap::cli
