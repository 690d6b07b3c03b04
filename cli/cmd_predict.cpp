// infercap predict: one model on one deployment at one batch and length, per operator.
#include <fmt/core.h>

#include <iterator>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/answer_bands.hpp"
#include "infercap/spec/profile_io.hpp"
#include "infercap/spec/reader.hpp"
#include "measured_hardware.hpp"
#include "output.hpp"
#include "predict_report.hpp"
#include "residuals.hpp"

namespace infercap::cli {

namespace {

// Far above any model's context window (the largest are a few million tokens); a bound so that
// no count derived from a flag overflows.
constexpr double kMaxTokensFlag = 1e9;

struct PredictArgs {
  std::string model = "llama-3.1-8b";
  std::string hardware;  // empty: the profile's hardware with --calibration, else h200
  std::string stack;
  std::string calibration;
  std::string data;
  std::string format = "table";
  int batch = 1;
  double prompt = 512;
  double output = 128;
  DeploymentFlags dep;
};

ResultTable error_band_table(const Prediction& p, const std::vector<Residual>& res,
                             const std::string& stack, HwClass cls, std::string_view vendor);

int run_predict(const PredictArgs& a) {
  spec::Diagnostics diags;
  const auto fmt_opt = parse_format(a.format);
  if (!fmt_opt) {
    diags.error("", 0, 0, "--format",
                fmt::format("expected {}, found '{}'", kFormatHelp, a.format));
  }
  if (a.batch < 1)
    diags.error("", 0, 0, "--batch", fmt::format("expected a positive integer, found {}", a.batch));
  // Written so that NaN fails too (every comparison with NaN is false), and infinity is refused.
  auto tokens = [&](const char* flag, double v) {
    if (!(v >= 1 && v <= kMaxTokensFlag))
      diags.error("", 0, 0, flag,
                  fmt::format("expected a token count in [1, {:g}], found {}", kMaxTokensFlag, v));
  };
  tokens("--prompt", a.prompt);
  tokens("--output", a.output);
  auto dep = make_deployment(a.dep, diags);
  if (diags.has_errors()) return print_diagnostics(diags);

  auto catalog = spec::Catalog::load(data_dir_or_default(a.data), diags);
  auto model = catalog.resolve_model(a.model, diags);
  std::optional<CalibrationProfile> profile;
  if (!a.calibration.empty()) {
    auto p = spec::load_profile(a.calibration, diags);
    if (p) profile = *p;
  }
  // Without --hardware, the profile's own hardware (a catalog entry or the entry calibrate wrote).
  std::optional<HardwareSpec> hw;
  if (!a.hardware.empty()) {
    hw = catalog.resolve_hardware(a.hardware, diags);
  } else if (profile) {
    hw = profile_hardware(catalog, *profile, a.calibration, diags);
  } else {
    hw = catalog.resolve_hardware("h200", diags);
  }
  if (!model || !hw) return print_diagnostics(diags);
  // A profile measures one device: applying it to another (--hardware) would predict with the
  // wrong physics.
  if (profile && !a.hardware.empty() && !profile->hardware.empty()) {
    spec::Diagnostics ignore;
    auto measured = catalog.resolve_hardware(profile->hardware, ignore);
    const std::string name = measured ? measured->name : profile->hardware;
    if (name != hw->name) {
      // Located at the profile's `hardware:` value (the profile struct keeps no positions).
      spec::Position at;
      spec::Document doc = spec::parse_file(a.calibration, ignore);
      if (doc.ok && doc.root.IsMap() && doc.root["hardware"]) {
        const auto m = doc.root["hardware"].Mark();
        if (m.line >= 0) at = {m.line + 1, m.column + 1};
      }
      diags.error(a.calibration, at.line, at.col, "hardware",
                  fmt::format("expected a profile of '{}' (--hardware), found one of '{}'",
                              hw->name, profile->hardware),
                  "calibrate this device, or leave out --hardware to use the profile's");
    }
  }
  auto stack =
      catalog.resolve_stack(a.stack.empty() ? default_stack_for(hw->hw_class) : a.stack, diags);
  if (!stack || diags.has_errors()) return print_diagnostics(diags);
  apply_default_precision(a.dep, *hw, *dep);

  auto perf = PerfModel::create(*model, *hw, *stack, *dep, profile ? &*profile : nullptr);
  if (!perf) {
    diags.error("", 0, 0, "", perf.error().message);
    return print_diagnostics(diags);
  }
  // After the deployment checks, so a stack that cannot run here is named first.
  if (model->max_context > 0 && a.prompt + a.output > static_cast<double>(model->max_context)) {
    diags.error("", 0, 0, "--prompt",
                fmt::format("expected --prompt + --output within {}'s context window of {} tokens, "
                            "found {:g} + {:g}",
                            model->name, model->max_context, a.prompt, a.output));
    return print_diagnostics(diags);
  }
  const Prediction p = predict(*perf, a.batch, a.prompt, a.output);
  fmt::print("{}", render_prediction(p, *perf, *fmt_opt));
  if (*fmt_opt != Format::json && *fmt_opt != Format::csv) {
    // The model's measured error for this stack and hardware class (docs/validation.md).
    spec::Diagnostics rd;
    auto res = read_residuals(default_residuals_path(catalog.data_dir()), rd);
    spec::tag_vendors(res, catalog);
    fmt::print("{}",
               render(error_band_table(p, res, stack->name, hw->hw_class, hw->vendor), *fmt_opt));
  }
  if (!p.memory.fits) {
    const auto& m = p.memory;
    auto b = [](double v) { return format_quantity(v, Dim::bytes); };
    fmt::print(
        stderr,
        "infercap predict: does not fit: {} needs {} per device (weights {}, KV cache {} for "
        "{} x {} tokens, activations {}, reserve {}); {} has {}. At this context at most {} "
        "sequences fit.\n",
        model->name, b(m.total_bytes), b(m.weights_bytes), b(m.kv_bytes), a.batch,
        a.prompt + a.output, b(m.activation_bytes), b(m.reserve_bytes), hw->name,
        b(m.capacity_bytes), m.max_batch);
    return kExitInfeasible;
  }
  return kExitOk;
}

// Each latency and throughput with the p10-p90 band of the validation residuals of the stack and
// class: prefill rows for TTFT, decode rows for TPOT, throughputs and end-to-end latency.
ResultTable error_band_table(const Prediction& p, const std::vector<Residual>& res,
                             const std::string& stack, HwClass cls, std::string_view vendor) {
  ResultTable t;
  t.title = "within the model's measured error (p10-p90 of validation residuals)";
  t.columns = {{"quantity", Dim::dimensionless}, {"predicted", Dim::dimensionless},
               {"p10", Dim::dimensionless},      {"p90", Dim::dimensionless},
               {"rows", Dim::dimensionless},     {"basis", Dim::dimensionless}};
  // prediction_bands' rows (answer_bands.hpp, the GUI's too), under this table's names.
  const char* names[] = {"ttft",
                         "tpot",
                         "e2e",
                         "prefill throughput",
                         "decode throughput (per sequence)",
                         "decode throughput (batch)"};
  const auto bands = prediction_bands(p, res, stack, cls, false, vendor);
  for (std::size_t i = 0; i < bands.size() && i < std::size(names); ++i) {
    const PredictionBand& b = bands[i];
    const auto q = [&](double x) {
      return b.rate ? fmt::format("{:.4g} tokens/s", x) : format_quantity(x, Dim::seconds);
    };
    const auto rows = static_cast<long long>(b.band.rows);
    if (!b.band.available) {
      t.add({std::string(names[i]), q(b.predicted), Cell{}, Cell{}, rows, b.band.note});
      continue;
    }
    t.add({std::string(names[i]), q(b.predicted), q(b.low()), q(b.high()), rows, b.band.note});
  }
  return t;
}

}  // namespace

Runner register_predict(CLI::App& app) {
  auto args = std::make_shared<PredictArgs>();
  auto* sub =
      app.add_subcommand("predict", "Predict prefill (TTFT) and decode (TPOT) per operator");
  sub->add_option("--model,-m", args->model, "catalog name or YAML file")->capture_default_str();
  sub->add_option("--hardware,-H", args->hardware,
                  "catalog name or YAML file (default: the --calibration profile's hardware, "
                  "else h200)");
  sub->add_option("--stack,-s", args->stack, "serving stack (default: per hardware class)");
  sub->add_option("--calibration", args->calibration,
                  "calibration profile YAML (infercap calibrate)");
  sub->add_option("--batch,-b", args->batch, "concurrent sequences")->capture_default_str();
  sub->add_option("--prompt,-p", args->prompt, "prompt tokens per sequence")->capture_default_str();
  sub->add_option("--output,-o", args->output, "generated tokens per sequence")
      ->capture_default_str();
  sub->add_option("--format,-f", args->format, kFormatHelp)->capture_default_str();
  sub->add_option("--data", args->data, "catalog folder (default: INFERCAP_DATA_DIR or built-in)");
  add_deployment_flags(*sub, args->dep);
  return [args] { return run_predict(*args); };
}

}  // namespace infercap::cli
