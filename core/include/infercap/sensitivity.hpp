#pragma once
// How a plan's choice moves when its inputs move: the load, the electricity price, the device
// prices, the SLA, the horizon and the model's own measured error are each changed one at a time
// and the plan is solved again; break-even points between the recommended candidate and its
// runner-up are found where the two candidates' TCOs cross. A pure function of the plan inputs
// (no I/O), so the CLI's reports and the GUI show the same table. docs/report.md states each rule.
#include <string>
#include <vector>

#include "infercap/solver.hpp"

namespace infercap {

struct SensitivityOptions {
  double load_swing = 0.5;          ///< load x (1 - s) and x (1 + s): every class's rates
  double electricity_swing = 0.5;   ///< electricity price x (1 -/+ s)
  double device_price_swing = 0.3;  ///< every device tier price x (1 -/+ s) (servers unchanged)
  bool sla_half_double = true;      ///< every SLA limit x 0.5 and x 2
  int horizon_delta_years = 1;      ///< horizon -/+ this many years (a horizon below 1 is skipped)
  /// The serving model's measured error as a fraction (docs/validation.md); the case "the model
  /// overestimates capacity by e" is solved as the load x (1 + e). 0 = no such case.
  double model_error_fraction = 0;
  /// Re-solves check finalists with the simulator only when > 0: the analytic path ranks the
  /// same candidates and keeps a report within its time budget (docs/report.md).
  int verify_top = 0;
};

/// What changed: the parameter and the multiplier (horizon: years added, -1 or +1).
enum class SensitivityParam : unsigned char {
  load,
  electricity,
  device_prices,
  sla,
  horizon,
  model_error,
};
std::string_view sensitivity_param_name(SensitivityParam p);

struct SensitivityCase {
  SensitivityParam param = SensitivityParam::load;
  double factor = 1;  ///< multiplier (load, prices, SLA); years added for the horizon
  bool feasible = false;
  std::string choice;  ///< fleet_key of the recommendation under this change ("" if infeasible)
  double tco_usd = 0;
  double tco_change = 0;     ///< tco_usd / base TCO - 1
  bool same_choice = false;  ///< the same hardware, precision, stack and TP in every pool
  std::string infeasible_reason;
};

/// Where the runner-up's TCO meets the leader's (the best row of the pool) as one input moves.
struct BreakEven {
  SensitivityParam param = SensitivityParam::load;
  std::string pool;
  std::string leader;     ///< candidate_key of the pool's best row
  std::string runner_up;  ///< candidate_key of the best feasible row on other hardware
  bool found = false;
  /// load: multiplier of the pool's load; electricity: price in USD/kWh; device_prices:
  /// multiplier of the runner-up's device price alone.
  double at = 0;
  double value = 0;  ///< load: the design req/s at the crossing; electricity: USD/kWh; price: x
  /// True when the runner-up is the cheaper one above `at` (load and electricity) or below it
  /// (device price).
  bool runner_up_wins_beyond = true;
  double leader_tco_usd = 0, runner_up_tco_usd = 0;  ///< at the base inputs
};

struct Sensitivity {
  /// The unchanged inputs solved the way the cases are (analytic ranking): what each case is
  /// compared with.
  std::string base_choice;
  double base_tco_usd = 0;
  bool base_feasible = false;
  /// The plan as given (simulator re-check included); differs from base_choice when the
  /// simulator moved the recommendation.
  std::string plan_choice;
  std::vector<SensitivityCase> cases;
  std::vector<BreakEven> break_evens;
};

/// "h100-sxm fp8 vllm TP1": the identity of a candidate for comparisons.
std::string candidate_key(const CandidateRow& r);
/// Pool by pool, "pool: key; pool: key", the identity of a fleet choice.
std::string fleet_key(const FleetChoice& f);

/// The runner-up of a pool of `base`: the best feasible row on hardware other than the pool's
/// best row (else the second row). Nullptr when the pool has fewer than two feasible rows.
const CandidateRow* runner_up(const Plan& base, const PoolResult& pool);

/// Solves `in` again under each change of `opt` (and once unchanged, as the base they are compared
/// with) and searches the break-even points of the first pool's leader and runner-up of `base`,
/// the plan of `in` as given. Never fails: a change that
/// makes the plan infeasible is a case with feasible == false.
Sensitivity sensitivity(const PlanInputs& in, const Plan& base, const SensitivityOptions& opt = {});

}  // namespace infercap
