#pragma once
// The explicit backend registry. A backend is one folder (calibration/cpu/, later cuda/, opencl/,
// import/) plus one line in `register_builtin_backends` (src/registry.cpp); nothing registers
// itself through static initialisers, which a static library would silently drop.
//
// A backend has a name, a capability check (available, or why not), its kernels (each with its
// own check: CPUID, OS permission for AMX, device present), and a plan: which kernels at which
// shapes a `--quick` or `--full` calibration sweeps. Importers that turn other tools' results
// into rows set `collect` instead of kernels and plan.
#include <functional>
#include <string>
#include <vector>

#include "infercap/calibration/harness.hpp"
#include "infercap/calibration/kernel.hpp"
#include "infercap/calibration/provenance.hpp"

namespace infercap::calibration {

enum class Effort : unsigned char {
  tiny,   ///< tests: a handful of points at tiny sizes, well under a second
  quick,  ///< `--quick`: the points the profile needs, < 60 s on 2 cores
  full,   ///< `--full`: the whole sweep (sizes L1..many x LLC, all threads, all ISAs), < 10 min
};

/// One point of a plan: a kernel (by name, within its backend) at a shape.
struct PlanItem {
  std::string kernel;
  Shape shape;
};

/// Progress of a run: `done` of `total` points finished, `what` names the current one.
using ProgressFn = std::function<void(int done, int total, const std::string& what)>;

struct Backend {
  std::string name;  ///< "cpu", "cuda", "opencl", "import-llama-bench", ...
  std::string description;
  std::function<Availability()> available;
  std::function<std::vector<KernelSpec>()> kernels;
  /// The sweep for an effort level on the probed machine; items whose kernel is unavailable
  /// are skipped by the runner (and reported), not removed here.
  std::function<std::vector<PlanItem>(Effort, const MachineInfo&)> plan;
  /// Harness settings for an effort level (budgets shrink for tiny/quick).
  std::function<HarnessOptions(Effort)> harness_options;
  /// Importers only: produce rows without running kernels.
  std::function<Result<std::vector<Measurement>>(const ProgressFn&)> collect;
};

class Registry {
 public:
  /// Adds a backend; a second backend of the same name replaces the first.
  void add(Backend b);
  const Backend* find(const std::string& name) const;
  const std::vector<Backend>& all() const { return backends_; }
  std::vector<std::string> names() const;

 private:
  std::vector<Backend> backends_;
};

/// The registry with every backend compiled into this build (cpu always; others when built).
const Registry& builtin_registry();
void register_builtin_backends(Registry& r);

/// The CPU backend (calibration/cpu/).
Backend make_cpu_backend();

}  // namespace infercap::calibration
