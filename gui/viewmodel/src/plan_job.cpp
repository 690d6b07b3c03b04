#include "infercap_gui/plan_job.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "infercap/report/export.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::gui {

namespace fs = std::filesystem;

namespace {

// A cheap test for the document kind: a top-level `kind: scenario` line. Full parsing happens
// when the user runs the file, with diagnostics.
bool is_scenario_file(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("kind:", 0) != 0) continue;
    std::string v = line.substr(5);
    v.erase(0, v.find_first_not_of(" \t\"'"));
    return v.rfind("scenario", 0) == 0;
  }
  return false;
}

}  // namespace

std::vector<ScenarioFile> list_scenarios(const std::string& folder) {
  std::vector<ScenarioFile> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (!e.is_regular_file()) continue;
    const auto ext = e.path().extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    if (!is_scenario_file(e.path())) continue;
    out.push_back({e.path().string(), e.path().stem().string()});
  }
  std::sort(out.begin(), out.end(),
            [](const ScenarioFile& a, const ScenarioFile& b) { return a.path < b.path; });
  return out;
}

PlanOutcome solve_scenario(const spec::Catalog& catalog, const std::string& scenario_path,
                           const std::string& data_dir) {
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(scenario_path, data_dir, diags);
  if (!sc) {
    PlanOutcome o;
    o.scenario_path = scenario_path;
    o.scenario_name = fs::path(scenario_path).stem().string();
    o.error = sc.error().message;
    o.diagnostics = diags.lines();
    o.state = JobState::failed;
    return o;
  }
  PlanOutcome o = solve_loaded(catalog, *sc);
  // Warnings of the reader first, then those of resolving.
  auto lines = diags.lines();
  lines.insert(lines.end(), o.diagnostics.begin(), o.diagnostics.end());
  o.diagnostics = std::move(lines);
  o.scenario_path = scenario_path;
  return o;
}

PlanOutcome solve_loaded(const spec::Catalog& catalog, const spec::Scenario& sc) {
  PlanOutcome o;
  o.scenario_path = sc.file;
  o.scenario_name = sc.name.empty() ? fs::path(sc.file).stem().string() : sc.name;
  o.description = sc.description;
  o.prices = sc.prices;
  o.classes = sc.classes;
  o.constraints = sc.constraints;
  o.strategy = sc.fleet.strategy;
  spec::Diagnostics diags;
  auto finish = [&](JobState s) {
    o.diagnostics = diags.lines();
    o.state = s;
    return o;
  };
  auto in = spec::to_plan_inputs(sc, catalog, diags);
  if (!in) {
    o.error = "the scenario names entries the catalog cannot resolve (see diagnostics)";
    return finish(JobState::failed);
  }
  auto plan = solve(*in);
  if (!plan) {
    o.error = plan.error().message;
    return finish(JobState::failed);
  }
  o.plan = std::move(plan).value();
  o.inputs = std::make_shared<const PlanInputs>(std::move(*in));
  for (const auto& part : o.plan->recommended.parts) {
    KneeOptions ko;
    ko.requests = 1000;  // as cmd_plan.cpp's --explain
    auto k = candidate_knee(*o.inputs, part, ko);
    o.knees.push_back(k ? std::optional<KneeResult>(std::move(k).value()) : std::nullopt);
  }
  return finish(JobState::done);
}

void add_sensitivity(PlanOutcome& o) {
  if (o.state != JobState::done || !o.plan || !o.inputs) {
    o.sensitivity_state = JobState::failed;
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  // The options of `infercap report` (no --no-sensitivity): the same cases as the report.
  const report::ReportOptions opt = report::export_options(report::ExportRequest{});
  o.sensitivity = sensitivity(*o.inputs, *o.plan, report::sensitivity_options(opt));
  o.sensitivity_table = report::sensitivity_section(*o.inputs, *o.plan, *o.sensitivity, opt);
  o.sensitivity_state = JobState::done;
  o.sensitivity_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

PlanJob::~PlanJob() {
  if (worker_.joinable()) worker_.join();
}

bool PlanJob::begin(const std::string& path) {
  if (busy_) return false;
  if (worker_.joinable()) worker_.join();  // finished: its result is already published
  busy_ = true;
  out_ = PlanOutcome{};
  out_.state = JobState::running;
  out_.solve_id = ++solve_id_;
  out_.scenario_path = path;
  out_.scenario_name = std::filesystem::path(path).stem().string();
  ++version_;
  started_ = std::chrono::steady_clock::now();
  return true;
}

bool PlanJob::start(std::shared_ptr<const spec::Catalog> catalog, std::string scenario_path,
                    std::string data_dir) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!begin(scenario_path)) return false;
  worker_ = std::thread(&PlanJob::run, this, std::move(catalog), std::move(scenario_path),
                        std::move(data_dir));
  return true;
}

bool PlanJob::start(std::shared_ptr<const spec::Catalog> catalog, spec::Scenario scenario) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!begin(scenario.file)) return false;
  worker_ = std::thread(&PlanJob::run_loaded, this, std::move(catalog), std::move(scenario));
  return true;
}

void PlanJob::run(const std::shared_ptr<const spec::Catalog>& catalog, const std::string& path,
                  const std::string& data_dir) {
  PlanOutcome o;
  try {
    o = solve_scenario(*catalog, path, data_dir);
  } catch (const std::exception& e) {
    // The solver reports infeasibility as a value; an exception here is a bug or I/O failure,
    // which the panel should show rather than take the app down.
    o.scenario_path = path;
    o.state = JobState::failed;
    o.error = std::string("internal error: ") + e.what();
  }
  finish(std::move(o));
}

void PlanJob::run_loaded(const std::shared_ptr<const spec::Catalog>& catalog,
                         const spec::Scenario& sc) {
  PlanOutcome o;
  try {
    o = solve_loaded(*catalog, sc);
  } catch (const std::exception& e) {
    o.scenario_path = sc.file;
    o.state = JobState::failed;
    o.error = std::string("internal error: ") + e.what();
  }
  finish(std::move(o));
}

void PlanJob::finish(PlanOutcome o) {
  if (o.state != JobState::done) {
    publish(std::move(o), true);
    return;
  }
  o.sensitivity_state = JobState::running;
  publish(o, false);  // the plan on screen now; its sensitivity follows
  try {
    add_sensitivity(o);
  } catch (const std::exception& e) {
    o.sensitivity_state = JobState::failed;
    o.error = std::string("sensitivity: internal error: ") + e.what();
  }
  publish(std::move(o), true);
}

void PlanJob::publish(PlanOutcome o, bool last) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double keep = out_.state == JobState::done ? out_.elapsed_s : -1;
    o.elapsed_s =
        keep >= 0 && o.sensitivity_state != JobState::running
            ? keep  // the solve's time, not the sensitivity's
            : std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    o.solve_id = solve_id_;
    out_ = std::move(o);
    ++version_;
    if (last) busy_ = false;
  }
  if (on_done_) on_done_();
}

bool PlanJob::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return out_.state == JobState::running;
}

bool PlanJob::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_;
}

PlanOutcome PlanJob::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  PlanOutcome o = out_;
  if (o.state == JobState::running) {
    o.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  return o;
}

unsigned PlanJob::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

void PlanJob::wait() {
  // Only the GUI thread starts and joins, so reading worker_ without the lock is safe here.
  if (worker_.joinable()) worker_.join();
}

}  // namespace infercap::gui
