#pragma once
// How a user names one deployment (formats, parallelism, CPU knobs) and how those names become a
// core Deployment. Both shells take the same flags (`infercap predict`, `infercap validate`,
// `infercap-gui`), so the strings and their parsing live here, below both; each shell only
// binds them to its own widgets or command-line parser.
#include <optional>
#include <string>

#include "infercap/hardware.hpp"
#include "infercap/perf.hpp"
#include "infercap/spec/diagnostics.hpp"

namespace infercap::spec {

/// A deployment as typed: format names as the user spells them, empty meaning "the default".
struct DeploymentFlags {
  std::string weights;      ///< empty = the device's native 16-bit type
  std::string activations;  ///< empty = the device's native 16-bit type
  std::string kv;           ///< empty = the activation type
  std::string compute;      ///< empty = derived from the formats
  int tp = 1;
  int pp = 1;
  int threads = 0;  ///< CPU threads per socket; 0 = physical cores
  bool smt = false;
  std::string numa = "pinned";  ///< pinned | interleave | single_node
  bool virtualized = false;
  bool no_amx = false;  ///< the engine build does not use AMX tiles (--no-amx)
};

/// Builds a Deployment. Each bad value becomes an error diagnostic whose key is the flag's
/// command-line spelling ("--weights", "--tp", ...), expected vs found; nullopt if any.
std::optional<Deployment> make_deployment(const DeploymentFlags& f, Diagnostics& diags);

/// Fills the formats the user left unset with the device's native 16-bit type: bf16 where it
/// has a bf16 roof, else fp16 (T4, V100-class parts), else fp32 (CPUs store bf16 and widen).
void apply_default_precision(const DeploymentFlags& f, const HardwareSpec& hw, Deployment& d);

/// The default stack for a hardware class when the user names none in predict/validate and the
/// GUI's Predict tab: the stack with public evidence for that class (docs/validation.md).
/// `plan` has its own per-class default (plan_stack_for in scenario.hpp).
std::string default_stack_for(HwClass c);

}  // namespace infercap::spec
