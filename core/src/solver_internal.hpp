#pragma once
// Helpers shared by the solver's translation units. Not public. Each .cpp answers one question:
//   solver_common.cpp     wording, pool aggregates, feasibility bookkeeping, inputs validation
//   solver_candidate.cpp  one candidate: does it run, fit, meet the SLA; its constraints
//   solver_sizing.cpp     one candidate's fleet year by year: replicas, power, energy, price
//   solver_objective.cpp  ranking keys and objective-driven sizing (budget, power, rack caps)
//   solver_pool.cpp       one pool: enumerate, size, rank, verify finalists, Pareto front
//   solver_fleet.cpp      fleets across pools: the choice, its totals, fleet-wide caps, reasons
//   solver_tiered.cpp     routing tiers and their all-on-one-model baseline
//   solver_burst.cpp      a base pool for the mean load plus a burst buffer for the peak
//   solver_staged.cpp     staged growth: year by year, buy what is cheapest for the shortfall
//   solver.cpp            solve(): dispatch by fleet strategy
//   eval_memo.cpp         the evaluation memo (infercap/eval_memo.hpp) and its keys
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infercap/eval_memo.hpp"
#include "infercap/perf.hpp"
#include "infercap/serving.hpp"
#include "infercap/solver.hpp"

namespace infercap::plan_detail {

constexpr double kHoursPerYear = 8760.0;
constexpr double kSecondsPerYear = kHoursPerYear * 3600.0;
// Idle power as a fraction of TDP when the datasheet is silent: a GPU with a model resident and
// clocks parked draws 20-30% of TDP (nvidia-smi on L4/A10/H100 idles at 16-90 W of 72-700 W); a
// server CPU socket idles near 30% of TDP. docs/plan.md.
constexpr double kIdleFractionDefault = 0.3;
constexpr int kDefaultRackUnits = 2;
// Max QPS to 1%: sizing rounds replicas up anyway, and the bisection is most of a candidate's
// evaluation time.
constexpr double kQpsRelTol = 1e-2;

// ---- wording (solver_common.cpp) --------------------------------------------------------------
std::string gib(double bytes);
/// Money in the book's display currency ("$1.20M", "8.64M CNY"); `usd` is US dollars.
std::string money(double usd, const PriceBook& book);
/// Two sums of money with as many decimals as it takes to tell them apart ("$100.4k" vs "$100k"
/// rather than "$100k" vs "$100k").
std::pair<std::string, std::string> money_apart(double a_usd, double b_usd, const PriceBook& book);
std::string seconds(double s);
/// `v` to `sig` significant digits in plain notation (18208, 45.5, 0.0123), never 1.8e+04.
std::string sig_fixed(double v, int sig = 3);
/// A request rate in req/s words: sig_fixed(v, 3), whole numbers from 100 up.
std::string rate(double qps);
/// `a` and `b` with as many significant digits (at least `sig` and the integer digits of the
/// larger, at most 12) as it takes to tell them apart, so a miss never reads "1 s exceeds 1 s".
std::pair<std::string, std::string> apart(double a, double b, int sig = 3);
/// Two durations in one unit (ms below 1 s), told apart ("1.0004 s" vs "1.0000 s").
std::pair<std::string, std::string> seconds_apart(double a_s, double b_s);
/// Two byte counts in GiB, told apart ("20.04 GiB" vs "20.00 GiB").
std::pair<std::string, std::string> gib_apart(double a_bytes, double b_bytes);
std::string metric_label(const std::string& metric);
const SlaTarget* sla_target(const Sla& sla, const std::string& metric);
/// The class's value of `metric` at its SLA percentile.
double at_sla(const ClassLatency& c, const std::string& metric);

// ---- pool aggregates (solver_common.cpp) ------------------------------------------------------
double pool_design_qps(const Pool& p);
double pool_average_qps(const Pool& p);
/// Output tokens per request, weighted by each class's share of the average load.
double pool_mean_output(const Pool& p);
/// The longest sequence the pool must hold: P99 prompt + P99 output of its longest class.
double pool_longest_tokens(const Pool& p);
/// Mean prompt + output tokens of one request, weighted by each class's share of the average load.
double pool_mean_context(const Pool& p);
bool class_allowed(const std::vector<HwClass>& allowed, HwClass c);
/// The search tries `st` on a device of class `c`: no stack is fixed for that class, or `st` is
/// the one (SearchSpace::stack_per_class). Whether it runs there is stack_mismatch's question.
bool class_tries_stack(const SearchSpace& space, HwClass c, const StackSpec& st);
const ModelSpec* find_model(const PlanInputs& in, const std::string& name);

// ---- feasibility bookkeeping (solver_common.cpp) ----------------------------------------------
void add(CandidateRow& r, std::string name, bool ok, double margin, std::string message,
         std::string fix = {});
/// Records the checked quantity, value and limit on the constraint added last.
void quantify(CandidateRow& r, std::string quantity, double value, double limit);
/// Sets feasible (every constraint ok) and binding (most violated, else least slack).
void finish_feasibility(CandidateRow& r);
/// Device power (W) at a busy fraction: idle + u * (TDP - idle).
double device_power_w(const HardwareSpec& hw, double utilisation);

// ---- one candidate (solver_candidate.cpp) -----------------------------------------------------
// Everything a candidate's capacity needs, kept together so the verifier can rebuild it.
// Heap-held so the step model's pointer to the PerfModel survives moves of the Engine.
struct Engine {
  std::unique_ptr<PerfModel> perf;
  std::unique_ptr<PerfStepModel> step;
  ServingConfig cfg;
};
Result<Engine> make_engine(const PlanInputs& in, const ModelSpec& model, const HardwareSpec& hw,
                           const StackSpec& stack, const PrecisionChoice& prec, int tp,
                           int max_seqs, double longest);

// ---- the evaluation memo (eval_memo.cpp) ------------------------------------------------------
/// A candidate as the memo names it (the scope rule of infercap/eval_memo.hpp: names stand for
/// the specs, which every solve sharing a memo holds alike).
struct CandidateId {
  std::string model, hardware, stack, precision, kv_name;
  Precision dtypes;
  int tp = 1;
  int max_seqs = 0;
};
CandidateId candidate_id(const ModelSpec& model, const HardwareSpec& hw, const StackSpec& stack,
                         const PrecisionChoice& prec, int tp, int max_seqs);
/// make_engine, built once per candidate, serving config and longest sequence; `memo` may be
/// null (then it is built afresh). The engine is immutable and may be shared across threads.
std::shared_ptr<const Result<Engine>> engine_for(EvalMemo* memo, const PlanInputs& in,
                                                 const ModelSpec& model, const HardwareSpec& hw,
                                                 const StackSpec& stack,
                                                 const PrecisionChoice& prec, int tp, int max_seqs,
                                                 double longest);
/// max_qps_within_sla and analyze of candidate `id`'s step model, through `memo` (may be null).
Result<MaxQps> max_qps_for(EvalMemo* memo, const CandidateId& id, const StepModel& step,
                           const ServingConfig& cfg, const std::vector<RequestClass>& classes,
                           double rel_tol);
Result<ServingResult> analyze_for(EvalMemo* memo, const CandidateId& id, const StepModel& step,
                                  const ServingConfig& cfg,
                                  const std::vector<RequestClass>& classes, double total_qps);
/// How a candidate's replica count is set.
struct SizeRequest {
  int extra_replicas = 0;  ///< added to the design-load sizing (after a failed simulator check)
  int fixed_replicas = 0;  ///< > 0: exactly this many every year (what an objective's caps buy)
};
/// Evaluates one candidate sized as `req` asks; when `sim_out` is given and the row is feasible,
/// runs the simulator at the load each working replica carries.
/// `memo` (may be null) answers what an earlier evaluation of the same candidate already asked.
CandidateRow evaluate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      const HardwareSpec& hw, const StackSpec& stack, const PrecisionChoice& prec,
                      int tp, int max_seqs, const SizeRequest& req, ServingResult* sim_out,
                      EvalMemo* memo);

// ---- sizing (solver_sizing.cpp) ---------------------------------------------------------------
/// Sizes, powers and prices a candidate whose per-replica capacity is known. With a fixed
/// replica count the fleet serves min(load, carried capacity): latency, energy and requests are
/// those of the load it can take.
void size_and_price(const PlanInputs& in, const Pool& pool, const HardwareSpec& hw,
                    const StepModel& step, const ServingConfig& cfg, CandidateRow& r,
                    const SizeRequest& req, const CandidateId& id, EvalMemo* memo);

// ---- objectives (solver_objective.cpp) --------------------------------------------------------
/// The ranking key of a row under `o` (see CandidateRow::objective_value).
double objective_of(Objective o, const CandidateRow& r);
/// True when `a` ranks before `b` under objective `o` (ties: lower TCO, then lower P99 e2e).
bool better(const CandidateRow& a, const CandidateRow& b, Objective o);
/// The caps ("capex_budget", "annual_budget", "power", "rack") a row is checked against.
bool is_cap(const std::string& constraint_name);

/// The most replicas of a design-sized row's candidate that fit every stated cap at once, and
/// the cap that stops one more server's worth ("" when none binds below the search limit).
struct CapFit {
  int replicas = 0;
  std::string binding;
};
CapFit cap_replicas(const PlanInputs& in, const HardwareSpec& hw, const CandidateRow& design_row);
/// A max_qps_* objective's row: the candidate re-sized to what the caps buy, with a
/// "design_load" constraint comparing what it carries with the design load.
CandidateRow size_by_caps(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                          const HardwareSpec& hw, const StackSpec& stack,
                          const PrecisionChoice& prec, int tp, int max_seqs,
                          const CandidateRow& design_row, SizeRequest* req_out, EvalMemo* memo);

// ---- one pool (solver_pool.cpp) ---------------------------------------------------------------
PoolResult solve_pool(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      int* evaluated, int* verified, EvalMemo* memo);

// ---- fleets (solver_fleet.cpp) ----------------------------------------------------------------
FleetChoice make_choice(std::string label, std::vector<CandidateRow> parts, const PlanInputs& in);
/// Fleet-level constraints on a multi-part choice (budgets, power, racks apply to the sum).
void fleet_constraints(const PlanInputs& in, FleetChoice& f);
/// The best choice over pools: each pool's best, or (no mixing) the best common hardware.
std::optional<FleetChoice> best_fleet(const PlanInputs& in, const std::vector<PoolResult>& pools,
                                      const std::string& label);
/// Suggestions for an infeasible pool: the closest rejected candidates' fixes by constraint.
void explain_infeasible(const PoolResult& pr, Plan& plan);

// ---- strategies -------------------------------------------------------------------------------
/// Tiered: solves the baseline pools and adds their best fleet as an alternative.
void solve_tiered_baseline(const PlanInputs& in, Plan& plan, int* evaluated, int* verified,
                           EvalMemo* memo);
void solve_burst(const PlanInputs& in, Plan& plan, int* evaluated, int* verified, EvalMemo* memo);
void solve_staged(const PlanInputs& in, Plan& plan, int* evaluated, int* verified, EvalMemo* memo);

}  // namespace infercap::plan_detail
