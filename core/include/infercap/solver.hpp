#pragma once
// The capacity and TCO solver behind `infercap plan`. For each candidate deployment (hardware x
// precision x stack x tensor-parallel degree x max batch) it finds the largest load one replica
// carries within the SLA (bisection on the analytic serving model), sizes the fleet for the design
// load year by year (growth, N+k redundancy), computes the physical footprint (devices, servers,
// rack units, watts at the planned load, energy) and only then prices it with a PriceBook.
// Finalists are re-checked with the discrete-event simulator.
//
// Feasibility is a result: every candidate carries its constraint list; a rejected one names its
// binding constraint in words, by how much it misses, and what would make it feasible.
// docs/plan.md states every rule and formula.
#include <string>
#include <vector>

#include "infercap/eval_memo.hpp"
#include "infercap/hardware.hpp"
#include "infercap/model.hpp"
#include "infercap/precision.hpp"
#include "infercap/result.hpp"
#include "infercap/serving.hpp"
#include "infercap/stack.hpp"
#include "infercap/tco.hpp"
#include "infercap/workload.hpp"

namespace infercap {

/// A named precision choice of the search space ("bf16", "fp8", "int8" = W8A8, "int4" = W4A16,
/// llama.cpp's "q4_k_m", "q8_0", ...).
struct PrecisionChoice {
  std::string name;
  Precision precision;
  /// The KV-cache format chosen by the search ("fp8"), or empty: the preset's own.
  std::string kv_name;
};
/// The presets above; nullopt-like Error for an unknown name, listing the known ones.
Result<PrecisionChoice> precision_preset(std::string_view name);
std::vector<std::string> precision_preset_names();

/// KV-cache formats a search may try (vLLM kv_cache_dtype, llama.cpp --cache-type-k): "bf16",
/// "fp16", "fp8", "int8", "q8_0", "q4_0". An unknown name is an Error listing them.
Result<DType> kv_precision_preset(std::string_view name);
std::vector<std::string> kv_precision_preset_names();
/// `base` with its KV cache stored as `kv_name` (a kv_precision_preset name).
Result<PrecisionChoice> with_kv_precision(PrecisionChoice base, std::string_view kv_name);

/// One checked condition of a candidate. `margin` is the relative slack (limit - value) / limit:
/// >= 0 satisfied, < 0 violated by that fraction. `message` is written for a buyer.
struct Constraint {
  /// "runs", "memory", "sla", "capex_budget", "annual_budget", "power", "rack", "priced",
  /// "simulated_sla", "design_load" (max_qps_* objectives: the caps buy less than the design load)
  std::string name;
  bool ok = true;
  double margin = 0;
  std::string message;
  std::string fix;  ///< what would make it feasible ("relax TTFT P99 to 1.4 s"); empty if ok
  /// The checked quantity in words ("TPOT P99", "memory per device", "capex"), its value and its
  /// limit (SI units; money in USD); empty / 0 where a constraint has no single number.
  std::string quantity;
  double value = 0;
  double limit = 0;
};

struct Constraints {
  double capex_budget_usd = 0;      ///< 0 = no limit
  double annual_budget_usd = 0;     ///< TCO per year (capital share + opex); 0 = no limit
  double power_cap_w = 0;           ///< site IT power at the design load; 0 = no limit
  int rack_units = 0;               ///< 0 = no limit
  double load_growth_per_year = 0;  ///< 0.5 = the load grows 50% a year
  int redundancy = 0;               ///< spare replicas per pool (1 = N+1)
  int horizon_years = 3;
  double model_changes_per_year = 0;  ///< each one re-ports the model on families that need it
};

/// What the solve optimises. The max_qps_* objectives size each candidate by what *every* stated
/// cap buys at once (capex budget, annual budget, power cap, rack units), not by the design load;
/// the name says which cap the question is about and must be stated. A candidate whose caps buy
/// less than the design load is a partial answer ("the budget buys X of the Y req/s you need").
enum class Objective : unsigned char {
  min_tco,                ///< cheapest over the horizon that meets the SLA
  max_qps_within_budget,  ///< most load within the capex and/or annual budget (and other caps)
  max_qps_within_power,   ///< most load within the power cap (and other caps)
  max_qps_within_rack,    ///< most load within the rack units (and other caps)
  min_energy,  ///< sized for the design load; ranked by output tokens per joule (highest first)
};
/// "min_tco", "max_qps_within_budget", ... as written in a scenario.
std::string_view objective_name(Objective o);
/// The max_qps_* objectives: the fleet is what the caps buy.
bool sizes_by_caps(Objective o);

/// A group of request classes served by one model on one pool of replicas.
struct Pool {
  std::string name;
  std::string model;  ///< ModelSpec name
  std::vector<RequestClass> classes;
  /// Which hardware classes this pool may use (empty = all); burst/staged strategies set it.
  std::vector<HwClass> allowed_classes;
};

/// The search space of one solve.
struct SearchSpace {
  std::vector<HardwareSpec> hardware;
  std::vector<StackSpec> stacks;
  std::vector<PrecisionChoice> precisions;
  /// KV-cache formats to try with every precision (kv_precision_preset names); empty = each
  /// precision's own (bf16 for bf16/fp8/int8/int4, fp16 for the llama.cpp formats).
  std::vector<std::string> kv_precisions;
  std::vector<int> tp = {1, 2, 4, 8};
  std::vector<int> max_seqs = {256};
  bool allow_mixed = true;  ///< pools may use different hardware
  /// When set (indexed by HwClass), each hardware class only tries the stack of that name (the
  /// default stack per class when the user names none). Empty: every stack that supports it.
  std::vector<std::string> stack_per_class;
};

enum class FleetStrategy : unsigned char {
  single,  ///< every pool sized at its design load on its best candidate
  tiered,  ///< pools are routing tiers (share of requests each); compared with `baseline`
  burst,   ///< a base pool (GPU by default) sized for the mean load, a buffer (CPU) for the peak
  staged,  ///< year by year, add whichever hardware is cheapest for the shortfall
};

struct PlanInputs {
  std::string name;
  std::vector<Pool> pools;
  /// Tiered only: the comparison fleet (everything on the large model), solved the same way.
  std::vector<Pool> baseline_pools;
  std::vector<ModelSpec> models;
  SearchSpace space;
  ServingConfig serving;  ///< max_seqs is overridden by each candidate's cap
  Constraints constraints;
  Objective objective = Objective::min_tco;
  FleetStrategy strategy = FleetStrategy::single;
  std::vector<HwClass> burst_base_classes = {HwClass::gpu};
  std::vector<HwClass> burst_buffer_classes = {HwClass::cpu};
  /// Burst only: hours a year the load exceeds the base pool (events x hours each). When set, the
  /// burst pool's energy follows them, and cloud capacity rented for those hours and a buffer of
  /// spare base hardware are compared with the owned buffer. 0 = not stated.
  double burst_hours_per_year = 0;
  PriceBook prices;
  int verify_top = 10;             ///< finalists re-checked by the simulator
  int64_t verify_requests = 4000;  ///< measured requests per simulator check
  uint64_t seed = 1;
};

/// Validates the inputs (non-empty pools and search space, horizon >= 1, growth > -1,
/// redundancy >= 0, classes valid). Messages name the field.
std::vector<std::string> validate(const PlanInputs& in);

/// One evaluated candidate of one pool: the one result-row schema every printer reads.
struct CandidateRow {
  std::string pool;
  std::string model;
  std::string hardware;
  HwClass hw_class = HwClass::gpu;
  std::string vendor;
  std::string precision;
  std::string kv_precision;  ///< the KV cache's format ("bf16", "fp8", ...)
  std::string stack;
  int tp = 1;
  int max_seqs = 0;
  // Capacity.
  double max_qps_per_replica = 0;
  std::string limited_by;  ///< what stops one replica above max_qps ("ttft", "stability", ...)
  double design_qps = 0;   ///< the pool's design load in the final year
  /// Load the fleet carries within the SLA in the final year: working replicas (spares excluded)
  /// x max_qps_per_replica. At least design_qps when sized for the design load; what the caps
  /// buy under a max_qps_* objective (possibly less than design_qps: a partial answer).
  double carried_qps = 0;
  int replicas = 0;  ///< in the final year, redundancy included
  int devices = 0;
  int servers = 0;
  int rack_units = 0;
  // Predicted service at the design load per replica (analytic; simulator if verified).
  double ttft_p50_s = 0, ttft_p99_s = 0;
  double tpot_p50_s = 0, tpot_p99_s = 0;
  double e2e_p99_s = 0;
  /// Load over capacity: the design load on the working replicas / their capacity within the
  /// SLA (design_qps / carried_qps), and the average load over every replica's capacity (spares
  /// included). Device power follows the latter: idle + u x (TDP - idle).
  double utilisation = 0;
  double utilisation_average = 0;
  double engine_busy = 0;  ///< the analytic engine's busy fraction at the design load (info)
  double kv_occupancy = 0;
  /// Sequences in flight per working replica at the design load (Little's law: load per replica
  /// x mean end-to-end latency), each holding the pool's mean context; the memory constraint is
  /// checked for them, not for one sequence.
  double sequences_in_flight = 0;
  double context_tokens = 0;  ///< mean prompt + output tokens of one sequence, load-weighted
  double weights_bytes_per_device = 0;
  double memory_bytes_per_device = 0;
  // Physical results.
  double power_w = 0;             ///< IT power at the average (planned) load, final year
  double peak_power_w = 0;        ///< IT power at the design load, final year
  double provisioned_w = 0;       ///< nameplate (TDP + hosts), final year
  double tokens_per_joule = 0;    ///< output tokens per IT joule at the average load
  double requests_per_joule = 0;  ///< requests per IT joule at the average load
  /// An encoder (no decode phase): renderers speak of req/s, P99 latency and req/J, not TPOT,
  /// decode tokens/s or output-token costs.
  bool encoder = false;
  double output_tokens_per_s = 0;  ///< at the average load, whole pool
  std::vector<FleetYear> years;
  // Money.
  CostBreakdown cost;
  bool priced = false;
  // Feasibility.
  std::vector<Constraint> constraints;
  bool feasible = false;
  /// Index into constraints of the binding one: for a rejected row the most violated; for a
  /// feasible row the one that set its replica count (`sized_by`), else the least slack.
  int binding = -1;
  /// What set the replica count: "sla" (one replica's capacity within the SLA), "memory" (the
  /// sequences in flight at the design load must fit), "simulated_sla" (replicas the simulator
  /// re-check added), or the cap a max_qps_* objective filled ("power", "capex_budget", ...).
  std::string sized_by;
  // Simulator verification (finalists only).
  bool verified = false;
  double sim_ttft_p99_s = 0, sim_tpot_p99_s = 0, sim_e2e_p99_s = 0;
  bool sim_meets_sla = false;
  int rank = 0;  ///< 1 = best within its pool; 0 = rejected
  /// The ranking key: TCO (min_tco), carried_qps (max_qps_*), tokens_per_joule (min_energy;
  /// requests_per_joule for an encoder).
  double objective_value = 0;

  const Constraint* binding_constraint() const {
    return binding >= 0 ? &constraints[static_cast<size_t>(binding)] : nullptr;
  }
};

/// A chosen fleet: one row per pool, with the totals.
struct FleetChoice {
  std::string label;  ///< "recommended", "baseline: all on llama-3.1-70b", "all on gpu", ...
  std::vector<CandidateRow> parts;
  CostBreakdown cost;
  int devices = 0;
  int servers = 0;
  double power_w = 0;
  bool feasible = false;
  /// A max_qps_* answer short of the design load: the most the caps buy (feasible is false).
  bool partial = false;
  std::string note;
};

struct PoolResult {
  Pool pool;
  std::vector<CandidateRow> ranked;    ///< feasible, best first
  std::vector<CandidateRow> rejected;  ///< each with its binding constraint
  std::vector<CandidateRow> pareto;    ///< feasible rows not dominated on (TCO, P99 latency)
  /// max_qps_* objectives: rows that meet every constraint but the design load, most load first
  /// (also listed in `rejected`, bound by "design_load").
  std::vector<CandidateRow> partial;
};

struct Plan {
  std::string name;
  Objective objective = Objective::min_tco;
  FleetStrategy strategy = FleetStrategy::single;
  std::vector<PoolResult> pools;
  FleetChoice recommended;
  std::vector<FleetChoice> alternatives;  ///< baseline fleets the strategy is compared with
  bool feasible = false;
  /// When infeasible: the binding constraint, by how much, and what would make it feasible.
  std::string infeasible_reason;
  std::vector<std::string> suggestions;
  /// Hardware of the search space the price book has no price for: every such candidate is
  /// rejected as "priced"; the plan says so rather than letting them drop out in silence.
  std::vector<std::string> unpriced;
  /// One sentence naming them and how to add a price; empty when everything is priced.
  std::string unpriced_note;
  /// Hardware of the search space that none of its stacks runs on (another class or vendor:
  /// stack_mismatch), each as that mismatch's reason; such hardware is never a candidate, and
  /// the plan says so rather than letting it drop out in silence.
  std::vector<std::string> no_stack;
  /// One sentence naming them; empty when every device runs some stack of the search.
  std::string no_stack_note;
  int candidates_evaluated = 0;
  int candidates_verified = 0;
};

/// Evaluates one candidate for one pool (exposed for tests, the benchmark and sensitivity's
/// break-even search). Never fails: a candidate that cannot run is returned with its failed
/// constraint. `memo` (may be null) answers what an earlier evaluation of the same candidate
/// already asked, under eval_memo.hpp's contract; the row is the same either way.
CandidateRow evaluate_candidate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                                const HardwareSpec& hw, const StackSpec& stack,
                                const PrecisionChoice& prec, int tp, int max_seqs,
                                EvalMemo* memo = nullptr);

/// Seed 004's batch-size knee for a candidate row of `in`: throughput and P99 as the engine's
/// batch cap grows (closed loop, the pool's first request class), and where they cross. Fails
/// when the row's hardware, stack, precision or pool is not in `in`.
Result<KneeResult> candidate_knee(const PlanInputs& in, const CandidateRow& row,
                                  const KneeOptions& opt = {});

/// The whole solve. Fails only on invalid inputs (see validate) or a pool naming an unknown model;
/// an infeasible question is a Plan with feasible == false and its reasons. Uses a memo of its
/// own for the call, so the simulator re-checks do not re-run the analytic bisections.
Result<Plan> solve(const PlanInputs& in);
/// The same solve sharing `memo` with related solves (eval_memo.hpp: copies of one PlanInputs
/// that differ in pools, constraints, prices, objective, strategy or verification). The Plan is
/// bit-identical to solve(in)'s.
Result<Plan> solve(const PlanInputs& in, EvalMemo& memo);

/// Splits `classes` into routing tiers: each tier gets every class with its rates scaled by the
/// tier's share and its model replaced. Shares must be positive and sum to 1 (within 1e-6).
struct TierSpec {
  std::string name;
  std::string model;
  double share = 0;
};
Result<std::vector<Pool>> tiered_pools(const std::vector<RequestClass>& classes,
                                       const std::vector<TierSpec>& tiers);

/// Multiplies every rate of a class (mean, peak, hourly curve) by `factor`.
RequestClass scale_rate(RequestClass c, double factor);

}  // namespace infercap
