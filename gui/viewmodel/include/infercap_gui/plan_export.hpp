#pragma once
// The current plan as CSV: one row per evaluated candidate (ranked, then rejected), SI units and
// the currency in the column names, "" for figures a row does not have. For spreadsheets and
// reports; the same numbers the Plan tab shows.
#include <string>

#include "infercap_gui/plan_job.hpp"

namespace infercap::gui {

/// Header plus one line per candidate of every pool. Money in the price book's display currency
/// (columns named `capex_usd` or `capex_cny`, ...). Empty when there is no plan.
std::string plan_csv(const PlanOutcome& o);

}  // namespace infercap::gui
