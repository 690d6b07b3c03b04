#pragma once
// Pieces every command shares: loading the catalog, resolving the names a user typed, turning
// precision flags into a Deployment, printing diagnostics with the documented exit code.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "infercap/perf.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::cli {

/// Flags that choose a deployment, shared by predict / validate / the GUI.
struct DeploymentFlags {
  std::string weights;      ///< empty = the model's native bf16
  std::string activations;  ///< empty = bf16
  std::string kv;           ///< empty = the activation type
  std::string compute;      ///< empty = derived
  int tp = 1;
  int pp = 1;
  int threads = 0;
  bool smt = false;
  std::string numa = "pinned";
  bool virtualized = false;
};

/// Adds --weights/--activations/--kv/--compute/--tp/--pp/--threads/--smt/--numa/--vm to `app`.
void add_deployment_flags(CLI::App& app, DeploymentFlags& f);

/// Builds a Deployment; bad spellings become diagnostics naming the flag.
std::optional<Deployment> make_deployment(const DeploymentFlags& f, spec::Diagnostics& diags);

/// Fills the formats the user left unset with the device's native 16-bit type: bf16 where it
/// has a bf16 roof, else fp16 (T4, V100-class parts), else fp32.
void apply_default_precision(const DeploymentFlags& f, const HardwareSpec& hw, Deployment& d);

/// The data folder: --data if given, else INFERCAP_DATA_DIR, else the built-in default.
std::string data_dir_or_default(const std::string& flag);

/// Prints every diagnostic to stderr; returns kExitSpec when there were errors, else kExitOk.
int print_diagnostics(const spec::Diagnostics& diags);

/// Runs a program's `body` and turns anything it throws into "PROGRAM: internal error: ..." on
/// stderr and kExitInternal, so no program of the project ends in std::terminate.
int run_guarded(const char* program, int (*body)(int, char**), int argc, char** argv);

/// The default stack for a hardware class when the user names none: the stack with public
/// evidence for that class (docs/validation.md).
std::string default_stack_for(HwClass c);

}  // namespace infercap::cli
