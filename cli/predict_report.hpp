#pragma once
// Printers for a Prediction: the summary row, the per-operator rows and the memory rows share the
// ResultTable schema; JSON composes them into one document with the resolved inputs.
#include <nlohmann/json.hpp>
#include <string>

#include "infercap/predict.hpp"
#include "output.hpp"

namespace infercap::cli {

ResultTable prediction_summary_table(const Prediction& p);
ResultTable operator_table(const StepBreakdown& b, const std::string& title);
ResultTable memory_table(const MemoryReport& m);
/// The resolved spec: model, hardware, stack, precision, deployment, achieved rates.
nlohmann::json inputs_json(const PerfModel& perf);
nlohmann::json prediction_json(const Prediction& p, const PerfModel& perf);
std::string render_prediction(const Prediction& p, const PerfModel& perf, Format f);

}  // namespace infercap::cli
