#pragma once
// The explicit backend registry. A backend is one folder (calibration/cpu/, cuda/, opencl/,
// import/) plus one line in src/registry.cpp; nothing registers itself through static
// initialisers, which a static library would silently drop.
//
// Two kinds. Built-in backends (cpu) are compiled into the program. Accelerator backends (cuda,
// opencl) are loadable modules, libinfercap-backend-NAME.so, opened with dlopen() only when a
// command asks for one (`calibrate --backend cuda`, `calibrate --list`): the program itself never
// maps libcudart, libcublas or libOpenCL, so it starts small and runs where they are absent. A
// module exports one C entry point (backend_module.hpp) that returns its Backend.
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

/// The registry of the backends compiled into the program (cpu). Accelerator backends are
/// modules: list them with `backend_listing`, open one with `load_backend`.
const Registry& builtin_registry();
void register_builtin_backends(Registry& r);

/// An accelerator backend shipped as a loadable module.
struct ModuleBackend {
  std::string name;       ///< "cuda", "opencl": what `calibrate --backend` takes
  std::string title;      ///< "CUDA", "OpenCL": for messages
  std::string file;       ///< "libinfercap-backend-cuda.so"
  std::string libraries;  ///< what it needs at run time, for the "could not be loaded" message
  std::string option;     ///< the CMake option that builds it ("INFERCAP_WITH_CUDA")
  bool built = false;  ///< this build configured the module (it may still be missing at run time)
};

/// Every module backend infercap knows, whether or not this build made it.
const std::vector<ModuleBackend>& module_backends();

/// Where modules are looked for, in order: $INFERCAP_BACKEND_DIR (when set), the directory of
/// the running executable, ../lib/infercap beside it (an installed tree), the configured install
/// libdir, and the build tree's module directory.
std::vector<std::string> module_search_dirs();

/// Every backend name, built-in first then modules, without loading any module.
std::vector<std::string> backend_names();

/// The backend called `name`. Built-ins are returned at once. A module is found in
/// module_search_dirs() and opened (RTLD_NOW | RTLD_LOCAL) on the first call, then kept for the
/// life of the process (its Backend's functions live in it); later calls return the same pointer.
/// Errors, in words for the user: an unknown name (listing the known ones), a module that was not
/// found (naming the directories searched, and the CMake option when this build did not make it),
/// and a module that could not be loaded ("the CUDA backend module could not be loaded: <dlerror>",
/// e.g. libcudart or libcublas missing, or a module from another build).
Result<const Backend*> load_backend(const std::string& name);

/// The first `dirs` entry holding `m.file`, or the "was not found in ..." error load_backend gives.
Result<std::string> find_backend_module(const ModuleBackend& m,
                                        const std::vector<std::string>& dirs);

/// Opens the module at `path` and returns its Backend (not cached; for tests and `load_backend`).
/// `title` names the backend in the error message.
Result<const Backend*> load_backend_module(const std::string& path, const std::string& title);

/// The CPU backend (calibration/cpu/).
Backend make_cpu_backend();

}  // namespace infercap::calibration
