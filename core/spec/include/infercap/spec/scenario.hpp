#pragma once
// Scenarios (`kind: scenario`, docs/plan.md): the workload (request classes), the candidate
// search space, constraints, objective, fleet strategy and price overrides that `infercap plan`
// answers. Reading resolves the price book (data/prices/<file>.yaml plus the scenario's
// `prices:` overrides) but not catalog names: those are resolved against the catalog by the
// caller, so one reader serves the CLI, the GUI and tests.
#include <string>
#include <vector>

#include "infercap/hardware.hpp"
#include "infercap/result.hpp"
#include "infercap/serving.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/tco.hpp"
#include "infercap/workload.hpp"

namespace infercap::spec {

struct CandidateSelection {
  bool all_hardware = false;          ///< `hardware: all` (the whole catalog)
  std::vector<std::string> hardware;  ///< names (aliases allowed), when not all
  std::vector<HwClass> classes;       ///< filter; empty = any
  /// `include_vendors` (older spelling `vendors`): keep only these; empty = any. Each must be a
  /// vendor of some catalog device (checked with did-you-mean when resolving).
  std::vector<std::string> vendors;
  /// `exclude_vendors`: drop these (a domestic-only procurement: [nvidia, amd, intel, ...]).
  std::vector<std::string> exclude_vendors;
  Position include_vendors_at;  ///< where the lists are, for diagnostics against the catalog
  Position exclude_vendors_at;
  std::string include_vendors_key = "include_vendors";  ///< as spelled in the file
  std::vector<std::string> precisions = {"bf16"};
  std::vector<std::string> kv_precisions;  ///< KV-cache formats to search; empty = each preset's
  std::vector<std::string> stacks;         ///< empty = the default stack per hardware class
  std::vector<int> tp = {1, 2, 4, 8};
  std::vector<int> max_batch = {256};
  bool mixed_fleet = true;
};

struct FleetSpec {
  FleetStrategy strategy = FleetStrategy::single;
  std::vector<TierSpec> tiers;  ///< tiered
  std::string baseline_model;   ///< tiered: everything on this model, for comparison
  std::vector<HwClass> base_classes = {HwClass::gpu};    ///< burst
  std::vector<HwClass> buffer_classes = {HwClass::cpu};  ///< burst
  /// burst: `burst_events: {per_year: N, hours: H}` -> N x H hours a year above the base pool.
  double burst_hours_per_year = 0;
  double burst_events_per_year = 0;  ///< N as stated (0 when absent), kept for writing back
  double burst_event_hours = 0;      ///< H as stated
};

/// How a class's load was stated, kept so a writer can say it the same way: an open-loop rate
/// (the class's ArrivalRate as read), a closed loop of users with think time, or a batch job
/// with a deadline. The class's ArrivalRate is what these imply (workload.hpp).
struct StatedLoad {
  enum class Form : unsigned char { rate, closed_loop, batch };
  Form form = Form::rate;
  double concurrent_users = 0, think_time_s = 0, mean_qps = 0;  ///< closed_loop
  double documents = 0, within_hours = 0, runs_per_day = 1;     ///< batch
  bool sla_omitted = false;  ///< a batch job stated no latency SLA
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::vector<RequestClass> classes;
  /// Per class: output_tokens was not given (allowed for encoders only, checked when resolving).
  std::vector<bool> output_tokens_omitted;
  /// Per class: `prefix: {shared_tokens, hit_rate}` (0, 0 when absent), applied when resolving.
  std::vector<std::pair<double, double>> prefix_reuse;
  /// Per class: how its load was stated (filled by the reader; empty means open-loop rates).
  std::vector<StatedLoad> stated_loads;
  CandidateSelection candidates;
  ServingConfig serving;
  Constraints constraints;
  Objective objective = Objective::min_tco;
  FleetSpec fleet;
  PriceBook prices;        ///< resolved: base file + overrides
  std::string price_file;  ///< the base file as named
  int verify_top = 10;
  int64_t verify_requests = 4000;
  uint64_t seed = 1;
  KeyPositions positions;  ///< where each key was, for checks made after reading
};

/// Parses a scenario document. `data_dir` locates `prices/<name>.yaml` for `prices.file`
/// (a name, or a path relative to the scenario). Every problem goes to `diags` with
/// file:line:col and key path; the Error is a summary.
Result<Scenario> parse_scenario(const Document& doc, const std::string& data_dir,
                                Diagnostics& diags);
Result<Scenario> load_scenario(const std::string& path, const std::string& data_dir,
                               Diagnostics& diags);

/// The stack `plan` tries on a hardware class when the scenario names none: vLLM on GPUs,
/// llama.cpp on CPUs, the vendor SDK on NPUs and FPGAs.
std::string plan_stack_for(HwClass c);

/// Resolves the scenario's names against the catalog (models, hardware by name/alias or the
/// whole catalog with class/vendor filters, stacks, precision presets), builds the pools (one
/// per model, or routing tiers and their baseline) and validates the result. Unknown names and
/// requests longer than a model's context window are diagnostics; nullopt if any.
std::optional<PlanInputs> to_plan_inputs(const Scenario& sc, const Catalog& cat,
                                         Diagnostics& diags);

/// Reads one request class mapping (name, model, rate or batch, arrival, prompt/output lengths,
/// sla, priority). Exposed for other readers of workloads. With `output_omitted` given, a class
/// without output_tokens reads as 1 output token (an encoder's single pass) and sets the flag;
/// without it, output_tokens is required.
std::optional<RequestClass> read_request_class(Reader& r, bool* output_omitted = nullptr);

}  // namespace infercap::spec
