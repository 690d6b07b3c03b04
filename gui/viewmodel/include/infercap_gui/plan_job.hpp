#pragma once
// `infercap plan` for the GUI: a scenario solved on a worker thread so the frame loop never
// waits (a plan takes from a few hundred milliseconds to seconds). The panel polls `snapshot()`
// every frame; the worker publishes its result once, under a mutex.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "infercap/report/document.hpp"
#include "infercap/sensitivity.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::gui {

/// A scenario file under a folder: `kind: scenario` YAML documents, by file name. Other kinds
/// (stack presets next to the examples) are left out. Sorted by path.
struct ScenarioFile {
  std::string path;
  std::string name;  ///< file name without .yaml
};
std::vector<ScenarioFile> list_scenarios(const std::string& folder);

enum class JobState { idle, running, done, failed };

struct PlanOutcome {
  JobState state = JobState::idle;
  std::string scenario_path;
  std::string scenario_name;
  std::string description;
  std::vector<std::string> diagnostics;  ///< formatted lines (warnings too)
  std::string error;                     ///< when failed: what stopped the solve
  std::optional<Plan> plan;              ///< when done
  PriceBook prices;                      ///< the scenario's resolved price book
  // What the charts need besides the plan: the question's workload and limits.
  std::vector<RequestClass> classes;  ///< the scenario's request classes (before pooling)
  Constraints constraints;
  FleetStrategy strategy = FleetStrategy::single;
  /// The serving-level batch knee of each recommended part (candidate_knee with 1000 requests
  /// a point, as `infercap plan --explain`); nullopt where it could not be computed.
  std::vector<std::optional<KneeResult>> knees;
  double elapsed_s = 0;  ///< wall time of the solve so far / in total
  /// The resolved inputs the plan answers (done): what the report export and the sensitivity
  /// re-solve. Shared, so copying an outcome per frame stays cheap.
  std::shared_ptr<const PlanInputs> inputs;
  /// Which start() of the job produced this outcome; the second publish of one solve (its
  /// sensitivity) carries the same id.
  unsigned solve_id = 0;
  /// The sensitivity of the plan (core sensitivity() with the report's options), computed on
  /// the worker right after the plan is published: running while it is computed, done after.
  JobState sensitivity_state = JobState::idle;
  std::optional<Sensitivity> sensitivity;
  /// The report's sensitivity section for it (report::sensitivity_section, English): the table
  /// the GUI shows is the table the report prints.
  std::optional<report::Section> sensitivity_table;
  double sensitivity_s = 0;  ///< wall time of the sensitivity re-solves
};

class PlanJob {
 public:
  PlanJob() = default;
  PlanJob(const PlanJob&) = delete;
  PlanJob& operator=(const PlanJob&) = delete;
  /// Waits for a running solve: the solver has no cancellation point.
  ~PlanJob();

  /// Starts solving `scenario_path` against `catalog` (shared, read-only) with prices from
  /// `data_dir`. Returns false, starting nothing, while a solve is running.
  bool start(std::shared_ptr<const spec::Catalog> catalog, std::string scenario_path,
             std::string data_dir);
  /// Starts solving a scenario already in memory (the what-if desk's edited inputs): the same
  /// to_plan_inputs -> solve as `infercap plan` on the YAML those inputs save as.
  bool start(std::shared_ptr<const spec::Catalog> catalog, spec::Scenario scenario);
  /// Called on the worker thread right after a result is published, so a frame loop sleeping
  /// in glfwWaitEvents can be woken (glfwPostEmptyEvent is thread-safe). Set before start().
  void set_on_done(std::function<void()> f) { on_done_ = std::move(f); }
  /// True while the plan itself is solved (the answer on screen is the previous one).
  bool running() const;
  /// True while the worker works: solving, or computing the sensitivity of the answer just
  /// published. start() refuses while busy.
  bool busy() const;
  /// A copy of the current state; cheap enough per frame only when the panel caches it, so
  /// `version()` says when it changed.
  PlanOutcome snapshot() const;
  unsigned version() const;
  /// Blocks until the current solve (if any) finishes; for tests and --screenshot.
  void wait();

 private:
  // Runs on the worker thread; std::thread owns the copies the references bind to.
  void run(const std::shared_ptr<const spec::Catalog>& catalog, const std::string& path,
           const std::string& data_dir);
  void run_loaded(const std::shared_ptr<const spec::Catalog>& catalog, const spec::Scenario& sc);
  bool begin(const std::string& path);  // under mu_: false while busy
  // Publishes `o` (the plan first, then again with its sensitivity); `last` ends the work.
  void publish(PlanOutcome o, bool last);
  // The plan of a finished solve is published, then its sensitivity computed and published.
  void finish(PlanOutcome o);
  std::function<void()> on_done_;

  mutable std::mutex mu_;
  PlanOutcome out_;
  unsigned version_ = 0;
  unsigned solve_id_ = 0;
  bool busy_ = false;
  std::chrono::steady_clock::time_point started_;
  std::thread worker_;
};

/// Runs the whole pipeline synchronously (load, resolve, solve): what the worker does.
PlanOutcome solve_scenario(const spec::Catalog& catalog, const std::string& scenario_path,
                           const std::string& data_dir);
/// The part after loading: resolve the scenario's names against the catalog and solve.
PlanOutcome solve_loaded(const spec::Catalog& catalog, const spec::Scenario& sc);
/// The sensitivity of a done outcome and the report's table of it (what the worker adds after
/// publishing the plan): sensitivity(*o.inputs, *o.plan, report::sensitivity_options(...)) with
/// the options `infercap report` uses. Sets sensitivity_state to done (failed without a plan).
void add_sensitivity(PlanOutcome& o);

}  // namespace infercap::gui
