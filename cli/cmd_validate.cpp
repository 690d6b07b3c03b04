// infercap validate: predict every measured row we can map, print predicted vs measured, and
// summarise |error| per metric and per source. With --fit, fit a stack's physical parameters to
// the rows first (and write the stack YAML with its provenance).
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/calibration/provenance.hpp"
#include "infercap/cpu_kernels.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/profile_io.hpp"
#include "infercap/stack_fit_params.hpp"
#include "measured_hardware.hpp"
#include "measurements.hpp"
#include "output.hpp"
#include "residuals.hpp"
#include "stack_yaml.hpp"

namespace infercap::cli {

namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  std::string stack;  // override every row's stack
  std::string format = "table";
  std::string data;
  std::string fit;  // stack to fit
  std::string write;
  bool cross_validate = false;
  bool summary_only = false;
  bool by_device = false;                 // also summarise per source, metric and device
  std::string residuals_out;              // write every predicted row's residual here
  std::vector<std::string> calibrations;  // profiles; each applies to rows of its hardware
  bool force = false;                     // replace a symbolic link or read-only output file
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * (static_cast<double>(v.size()) - 1);
  const auto i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, v.size() - 1);
  return v[i] + (pos - static_cast<double>(i)) * (v[j] - v[i]);
}

std::string metric_group(BenchMetric m) {
  switch (m) {
    case BenchMetric::generation_tokens_per_s:
      return "decode";
    case BenchMetric::prefill_tokens_per_s:
    case BenchMetric::ttft_s:
      return "prefill";
    case BenchMetric::tpot_s:
      return "static tpot";
    case BenchMetric::e2e_latency_s:
      return "static e2e latency";
    case BenchMetric::static_output_tokens_per_s:
      return "static output throughput";
    case BenchMetric::serving_ttft_mean_s:
      return "serving ttft mean";
    case BenchMetric::serving_ttft_p99_s:
      return "serving ttft p99";
    case BenchMetric::serving_tpot_mean_s:
      return "serving tpot mean";
    case BenchMetric::serving_tpot_p99_s:
      return "serving tpot p99";
    case BenchMetric::serving_e2e_mean_s:
      return "serving e2e mean";
    case BenchMetric::serving_itl_mean_s:
      return "serving itl mean";
    case BenchMetric::serving_itl_p50_s:
      return "serving itl median";
    case BenchMetric::serving_itl_p99_s:
      return "serving itl p99";
    case BenchMetric::serving_ttft_p50_s:
      return "serving ttft median";
    case BenchMetric::serving_tpot_p50_s:
      return "serving tpot median";
    case BenchMetric::serving_e2e_p50_s:
      return "serving e2e median";
    case BenchMetric::serving_e2e_p99_s:
      return "serving e2e p99";
    case BenchMetric::serving_output_tokens_per_s:
      return "serving output throughput";
    case BenchMetric::serving_requests_per_s:
      return "serving request throughput";
    case BenchMetric::serving_max_rate_output_tokens_per_s:
      return "serving output throughput at the max rate within P99 limits";
  }
  return "?";
}

// The command line a --residuals-out file names in its provenance: the -i files, then `flags`.
std::string residuals_command(const ValidateArgs& a, const std::string& flags) {
  std::string cmd = "infercap validate";
  for (const auto& file : a.files) cmd += " -i " + file;
  return cmd + flags + " --residuals-out " + a.residuals_out;
}

// Writes the --residuals-out file whole (provenance line, header, `rows`) or not at all: kExitOk,
// or kExitIo with the reason printed.
int write_residuals(const ValidateArgs& a, const std::string& provenance, std::string rows,
                    std::size_t count) {
  rows.insert(0, residuals_csv_header(provenance));
  if (auto w = spec::write_file_atomically(a.residuals_out, rows, a.force); !w) {
    fmt::print(stderr, "infercap validate: {}\n", w.error().message);
    return kExitIo;
  }
  fmt::print(stderr, "wrote {} ({} rows)\n", a.residuals_out, count);
  return kExitOk;
}

std::string source_tag(const MeasurementRow& r) {
  const auto dash = r.id.find('-');
  return dash == std::string::npos ? r.id : r.id.substr(0, dash);
}

// Which stack parameters the rows of one class can determine.
std::vector<StackParam> params_for(HwClass cls, const StackEfficiency& start,
                                   const std::vector<BenchCase>& cases) {
  bool has_quant = false, has_native = false, has_long = false, has_prefill = false;
  for (const auto& c : cases) {
    const bool q = is_block_quantised(c.deployment.precision.weights);
    if (c.metric != BenchMetric::generation_tokens_per_s) {
      has_prefill = true;
      (q ? has_quant : has_native) = true;
      if (c.prompt_tokens >= 4096) has_long = true;
    } else if (c.output_tokens >= 4096) {
      has_long = true;
    }
  }
  bool has_units = false, has_quant_decode = false, has_native_decode = false;
  for (const auto& c : cases) {
    has_units = has_units || (c.hardware.compute_units > 0 && c.hardware.clock_hz > 0);
    // Decode rows respond to the issue figure the model gives their format (converts_weights:
    // weight-only int8 takes the quantised one, as block formats do).
    if (c.metric == BenchMetric::generation_tokens_per_s) {
      (converts_weights(c.deployment.precision) ? has_quant_decode : has_native_decode) = true;
    }
  }
  std::vector<StackParam> p{StackParam::weight_bandwidth_fraction};
  if (cls == HwClass::cpu && start.cpu_isa_kernels) {
    // Kernels per instruction family: the fractions of each family's peak that the rows reach,
    // and how fast one thread pulls memory (what few-thread decode runs are limited by).
    // Each kernel family's fraction is fitted only from rows that run it: AMX tiles or vector
    // units for quantised prefill, the AMX buffer's GEMV or the vector dot code for quantised
    // decode, as the model reads them (llamacpp_cpu_fractions).
    bool amx_prefill = false, vector_quant_prefill = false, few_threads = false;
    bool native_prefill = false, fp16_prefill = false;
    bool amx_decode = false, vector_quant_decode = false;
    for (const auto& c : cases) {
      if (!c.hardware.cpu) continue;
      CpuTopology engine = *c.hardware.cpu;  // a build without AMX runs prefill on VNNI
      engine.amx = engine.amx && c.deployment.cpu.amx;
      const auto k = llamacpp_cpu_kernels(c.deployment.precision.weights, engine);
      const CpuKernelFractions f = llamacpp_cpu_fractions(c.deployment.precision.weights, k);
      const auto used = c.metric != BenchMetric::generation_tokens_per_s ? f.prefill : f.decode;
      amx_prefill |= used == &StackEfficiency::amx_gemm_fraction;
      native_prefill |= used == &StackEfficiency::gemm_compute_fraction;
      fp16_prefill |= used == &StackEfficiency::fp16_gemm_compute_fraction;
      vector_quant_prefill |= used == &StackEfficiency::quantised_gemm_compute_fraction;
      amx_decode |= used == &StackEfficiency::amx_dot_fraction;
      vector_quant_decode |= used == &StackEfficiency::quantised_dot_fraction;
      few_threads = few_threads || (c.deployment.cpu.threads_per_socket > 0 &&
                                    c.deployment.cpu.threads_per_socket < c.hardware.cpu->cores);
    }
    // One thread's read rate matters only where an entry states no per-core figure; fitted
    // together with the dot loop's overlap it runs off to infinity (either can explain a slow
    // few-thread decode), so it is fitted only when no row has a measured per-core rate.
    bool measured_per_core = false;
    for (const auto& c : cases) {
      measured_per_core = measured_per_core ||
                          (c.hardware.cpu && c.hardware.cpu->per_core_bandwidth_bytes_per_s > 0);
    }
    if (few_threads && !measured_per_core) p.push_back(StackParam::core_bandwidth_bytes_per_s);
    if (native_prefill) p.push_back(StackParam::gemm_compute_fraction);
    if (fp16_prefill) p.push_back(StackParam::fp16_gemm_compute_fraction);
    if (vector_quant_prefill) p.push_back(StackParam::quantised_gemm_compute_fraction);
    if (amx_prefill) p.push_back(StackParam::amx_gemm_fraction);
    if (has_native_decode) p.push_back(StackParam::dot_fraction);
    if (vector_quant_decode) p.push_back(StackParam::quantised_dot_fraction);
    if (amx_decode) p.push_back(StackParam::amx_dot_fraction);
    // Few-thread decode is where the dot loop and the weight stream are both visible.
    if (few_threads && (has_quant_decode || has_native_decode))
      p.push_back(StackParam::dot_memory_overlap);
    return p;
  }
  if (cls == HwClass::cpu || cases.size() < 16) {
    if (has_prefill && has_native) p.push_back(StackParam::gemm_compute_fraction);
    if (has_prefill && has_quant) p.push_back(StackParam::quantised_gemm_compute_fraction);
    p.push_back(StackParam::step_overhead_s);
    return p;
  }
  p.push_back(StackParam::step_overhead_s);
  // Optional mechanisms are switched on in the stack file (a non-zero start value); the fit only
  // sets their size.
  if (has_units && has_native_decode && start.issue_cycles_per_weight > 0) {
    p.push_back(StackParam::issue_cycles_per_weight);
  }
  if (has_units && has_quant_decode && start.quantised_issue_cycles_per_weight > 0) {
    p.push_back(StackParam::quantised_issue_cycles_per_weight);
  }
  if (has_long) p.push_back(StackParam::kv_bandwidth_fraction);
  if (has_native) p.push_back(StackParam::gemm_compute_fraction);
  if (has_quant) p.push_back(StackParam::quantised_gemm_compute_fraction);
  if (has_long && has_prefill) p.push_back(StackParam::attention_compute_fraction);
  if (has_prefill && start.flops_per_watt > 0) p.push_back(StackParam::flops_per_watt);
  return p;
}

// The parameters `cases` fit from `start`: static-batch rows (serving stacks' latency and
// throughput benchmarks) fit the parameters they respond to (stack_fit_params.hpp), with each
// candidate's sensitivity in `review`; llama-bench rows keep their recipe (no review).
Result<ParamChoice> fit_params_for(const StackSpec& start, HwClass cls,
                                   const std::vector<BenchCase>& cases) {
  if (std::any_of(cases.begin(), cases.end(),
                  [](const BenchCase& c) { return is_static_batch_metric(c.metric); })) {
    return select_fit_params(start, cls, cases);
  }
  return ParamChoice{params_for(cls, start.for_class(cls), cases), {}};
}

// What a fit needs of the rows, collected while they stream past: the cases that ran on the
// stack being fitted, by hardware class, and their ids (for the provenance line).
struct FitRows {
  std::map<HwClass, std::vector<BenchCase>> by_class;
  std::set<std::string> ids;

  void add(const MappedRow& m, const StackSpec& base) {
    // Seed claims are what the tool is asked to check, never what it is fitted on; serving rows
    // judge the serving model and are not fitted either (fit physics, not rows).
    if (m.bench && m.stack_name == base.name && source_tag(m.row) != "SEED" &&
        !is_serving_metric(m.bench->metric)) {
      by_class[m.bench->hardware.hw_class].push_back(*m.bench);
      ids.insert(m.row.id);
    }
  }
};

int run_fit(const ValidateArgs& a, const StackSpec* base, const FitRows& rows,
            spec::Diagnostics& diags, Format f) {
  if (!base) {
    diags.error("", 0, 0, "--fit", fmt::format("unknown stack '{}'", a.fit));
    return print_diagnostics(diags);
  }
  StackSpec fitted = *base;
  const auto& by_class = rows.by_class;
  const auto& ids = rows.ids;
  if (by_class.empty()) {
    diags.error("", 0, 0, "--fit", fmt::format("no measured rows ran on stack '{}'", base->name));
    return print_diagnostics(diags);
  }
  ResultTable t;
  t.title = fmt::format("fit of stack '{}'", base->name);
  t.columns = {{"class", Dim::dimensionless},
               {"parameter", Dim::dimensionless},
               {"value", Dim::dimensionless},
               {"ci95_low", Dim::dimensionless},
               {"ci95_high", Dim::dimensionless},
               {"rows", Dim::dimensionless},
               {"rms_log_error_before", Dim::dimensionless},
               {"rms_log_error_after", Dim::dimensionless}};
  std::vector<std::string> notes;
  // --residuals-out with --cross-validate: each row's residual under the stack refitted without
  // its device, what a device the fit has not seen should expect (the error bands of predict).
  std::string held_out_text;
  std::size_t held_out_rows = 0;
  for (const auto& entry : by_class) {
    const HwClass cls = entry.first;
    const std::vector<BenchCase>& cases = entry.second;
    auto choice = fit_params_for(fitted, cls, cases);
    if (!choice || choice->params.empty()) {
      diags.error(
          "", 0, 0, "--fit",
          fmt::format("{} rows: {}", hw_class_name(cls),
                      choice ? "no parameter responds to these rows" : choice.error().message));
      return print_diagnostics(diags);
    }
    const std::vector<StackParam> params = choice->params;
    if (!choice->review.empty()) {
      std::vector<std::string> seen;
      for (const auto& ps : choice->review) {
        seen.push_back(fmt::format("{} {:.3f}{}", stack_param_name(ps.param), ps.rms_sensitivity,
                                   ps.chosen ? " (fitted)" : ""));
      }
      notes.push_back(fmt::format("{}: rms sensitivity of ln(predicted) to ln(parameter): {}",
                                  hw_class_name(cls), fmt::join(seen, ", ")));
    }
    auto r = fit_stack(fitted, cls, cases, params);
    if (!r) {
      diags.error("", 0, 0, "--fit",
                  fmt::format("{} rows: {}", hw_class_name(cls), r.error().message));
      return print_diagnostics(diags);
    }
    fitted = r->stack;
    for (size_t i = 0; i < r->params.size(); ++i) {
      t.add({std::string(hw_class_name(cls)), std::string(stack_param_name(r->params[i])),
             r->values[i],
             r->identified[i] ? Cell{r->ci95_low[i]}
             : r->values[i] >= 1.0 && stack_param_name(r->params[i]).ends_with("_fraction")
                 ? Cell{std::string("at its bound of 1")}
                 : Cell{std::string("not determined")},
             r->identified[i] ? Cell{r->ci95_high[i]} : Cell{}, static_cast<long long>(r->cases),
             r->rms_log_error_before, r->rms_log_error_after});
    }
    notes.push_back(fmt::format(
        "{}: fitted {} parameters on {} rows; rms log error {:.3f} -> {:.3f}", hw_class_name(cls),
        r->params.size(), r->cases, r->rms_log_error_before, r->rms_log_error_after));
    std::set<std::string> devices;
    for (const auto& c : cases) devices.insert(c.hardware.name);
    if (a.cross_validate && devices.size() < 2) {
      notes.push_back(fmt::format("{}: one device only, no leave-one-hardware-out estimate",
                                  hw_class_name(cls)));
    } else if (a.cross_validate) {
      // Leave one hardware out: fit on every other device, predict the held-out one.
      std::vector<double> errs_decode, errs_prefill;
      std::map<std::string, std::vector<double>> errs_static;  // static-batch rows by metric
      std::vector<std::string> held_out;                       // each device's median
      for (const auto& d : devices) {
        std::vector<BenchCase> train;
        for (const auto& c : cases) {
          if (c.hardware.name != d) train.push_back(c);
        }
        // The parameters are chosen again on the training rows alone: a choice made on every
        // row would let the held-out device pick what the fold fits.
        auto fold = fit_params_for(*base, cls, train);
        if (!fold || fold->params.empty()) continue;
        const std::vector<StackParam>& fold_params = fold->params;
        if (train.size() <= fold_params.size()) continue;
        auto cv = fit_stack(*base, cls, train, fold_params);
        if (!cv) continue;
        std::vector<double> errs_device;
        for (const auto& c : cases) {
          if (c.hardware.name != d) continue;
          auto p = predict_case(c, cv->stack);
          if (!p) continue;
          if (!a.residuals_out.empty()) {
            Residual res = residual_of(c, base->name, *p);
            res.held_out = true;
            held_out_text += residuals_csv_row(res);
            ++held_out_rows;
          }
          const double e = std::fabs(*p / c.measured - 1);
          errs_device.push_back(e);
          if (is_static_batch_metric(c.metric)) {
            errs_static[metric_group(c.metric)].push_back(e);
          } else {
            (c.metric == BenchMetric::generation_tokens_per_s ? errs_decode : errs_prefill)
                .push_back(e);
          }
        }
        held_out.push_back(fmt::format("{} {:.1f}% ({} rows)", d,
                                       100 * percentile(errs_device, 0.5), errs_device.size()));
      }
      // Only the kinds that have held-out rows: a stack fitted on decode rows alone has no
      // prefill figure to print.
      std::vector<std::string> kinds;
      for (const auto& [name, errs] :
           {std::pair{"decode", &errs_decode}, std::pair{"prefill", &errs_prefill}}) {
        if (errs->empty()) continue;
        kinds.push_back(fmt::format("{} median |error| {:.1f}% (p90 {:.1f}%)", name,
                                    100 * percentile(*errs, 0.5), 100 * percentile(*errs, 0.9)));
      }
      notes.push_back(fmt::format("{}: leave-one-hardware-out over {} devices{}{}",
                                  hw_class_name(cls), devices.size(), kinds.empty() ? "" : ": ",
                                  fmt::join(kinds, ", ")));
      for (const auto& [group, errs] : errs_static) {
        notes.push_back(fmt::format(
            "{}: leave-one-hardware-out, {}: median |error| {:.1f}% (p90 {:.1f}%) over {} rows",
            hw_class_name(cls), group, 100 * percentile(errs, 0.5), 100 * percentile(errs, 0.9),
            errs.size()));
      }
      notes.push_back(fmt::format("{}: held-out device median |error|: {}", hw_class_name(cls),
                                  fmt::join(held_out, ", ")));
    }
  }
  fmt::print("{}", render(t, f));
  for (const auto& n : notes) fmt::print("{}\n", n);
  if (!a.residuals_out.empty()) {
    const std::string prov = fmt::format(
        "held-out residuals, written by `{}` on {}, commit {}: ln(predicted time / measured "
        "time) of each row under stack '{}' refitted without the row's device",
        residuals_command(a, " --fit " + a.fit + " --cross-validate"),
        calibration::iso_date_utc().substr(0, 10), calibration::source_commit("core cli data"),
        base->name);
    if (const int rc = write_residuals(a, prov, std::move(held_out_text), held_out_rows);
        rc != kExitOk)
      return rc;
  }
  if (!a.write.empty()) {
    std::string cmd = "infercap validate";
    for (const auto& file : a.files) cmd += " --measurements " + file;
    cmd += " --fit " + a.fit + " --write " + a.write;
    SourceRef prov;
    // Only the classes that had rows were fitted; the others keep their own sources.
    prov.fields.clear();
    for (const auto& entry : by_class) {
      prov.fields.push_back(fmt::format("classes.{}.*", hw_class_name(entry.first)));
    }
    prov.ref = fmt::format("fitted by `{}` on {} rows ({} .. {}), commit {}", cmd, ids.size(),
                           *ids.begin(), *ids.rbegin(), calibration::source_commit("core cli"));
    prov.date = calibration::iso_date_utc().substr(0, 10);
    prov.note = fmt::format("{}", fmt::join(notes, "; "));
    record_fit_provenance(fitted, base->sources, std::move(prov));
    if (auto w = spec::write_file_atomically(a.write, stack_to_yaml(fitted), a.force); !w) {
      fmt::print(stderr, "infercap validate: {}\n", w.error().message);
      return kExitIo;
    }
    fmt::print(stderr, "wrote {}\n", a.write);
  }
  return kExitOk;
}

int run_validate(const ValidateArgs& a) {
  spec::Diagnostics diags;
  const auto f = parse_format(a.format);
  if (!f) {
    diags.error("", 0, 0, "--format",
                fmt::format("expected {}, found '{}'", kFormatHelp, a.format));
  }
  if (a.files.empty()) diags.error("", 0, 0, "--measurements", "expected at least one CSV file");
  if (!a.fit.empty() && !a.residuals_out.empty() && !a.cross_validate) {
    diags.error("", 0, 0, "--residuals-out",
                "with --fit, expected --cross-validate as well: a fit writes the held-out "
                "residuals of its leave-one-hardware-out refits");
  }
  if (diags.has_errors()) return print_diagnostics(diags);
  // Output paths are checked before any row is read: a refusal costs nothing.
  for (const std::string* out : {&a.write, &a.residuals_out}) {
    if (out->empty()) continue;
    if (auto ok = spec::check_output_path(*out, a.force); !ok) {
      fmt::print(stderr, "infercap validate: {}\n", ok.error().message);
      return kExitIo;
    }
  }
  auto catalog = spec::Catalog::load(data_dir_or_default(a.data), diags);
  if (diags.has_errors()) return print_diagnostics(diags);
  // Each profile applies to the rows of the hardware it names: a catalog entry, or the entry
  // `calibrate` wrote for a machine the catalog does not know (a YAML beside the profile).
  // Loaded before the rows stream past (each row is predicted as it is read); their problems are
  // reported after the measurement files', as they always were.
  spec::Diagnostics profile_diags;
  std::vector<std::pair<CalibrationProfile, std::string>> profiles;  // profile, hardware name
  std::vector<HardwareSpec> measured;  // entries outside the catalog the profiles name
  for (const auto& file : a.calibrations) {
    auto prof = spec::load_profile(file, profile_diags);
    if (!prof) continue;
    auto h = profile_hardware(catalog, *prof, file, profile_diags);
    if (!h) continue;
    profiles.emplace_back(*prof, h->name);
    if (catalog.find_hardware(h->name) == nullptr) measured.push_back(*h);
  }
  auto profile_for = [&](const HardwareSpec& hw) -> const CalibrationProfile* {
    for (const auto& [prof, name] : profiles) {
      if (name == hw.name) return &prof;
    }
    return nullptr;
  };
  const StackSpec* stack_override = a.stack.empty() ? nullptr : catalog.find_stack(a.stack);
  const bool fitting = !a.fit.empty();
  const StackSpec* fit_base = fitting ? catalog.find_stack(a.fit) : nullptr;
  // Rows are predicted only while everything so far is valid: a run that ends in diagnostics
  // prints nothing else, and one that does not needs every row.
  auto usable = [&] {
    return !diags.has_errors() && !profile_diags.has_errors() &&
           (a.stack.empty() || stack_override != nullptr);
  };

  ResultTable t;
  t.title = "predicted vs measured";
  t.columns = {{"id", Dim::dimensionless},
               {"hardware", Dim::dimensionless},
               {"devices", Dim::dimensionless},
               {"model", Dim::dimensionless},
               {"precision", Dim::dimensionless},
               {"metric", Dim::dimensionless},
               {"stack", Dim::dimensionless},
               {"measured", Dim::dimensionless},
               {"predicted", Dim::dimensionless},
               {"error", Dim::dimensionless},
               {"implied_bandwidth_bytes_per_s", Dim::bytes_per_s},
               {"implied_fraction_of_peak_bandwidth", Dim::dimensionless}};
  // The per-row table is kept only when it is printed; the summary needs only the |error| of
  // each row in its groups, so memory grows with those doubles, not with the rows read.
  const bool keep_rows = !a.summary_only || *f == Format::json;
  ResultTable unmapped;
  unmapped.title = "rows not predicted";
  unmapped.columns = {{"id", Dim::dimensionless}, {"reason", Dim::dimensionless}};
  std::map<std::string, std::vector<double>> by_metric, by_source, by_device;
  std::string residuals_text;  // the --residuals-out CSV's rows, as they come
  std::size_t residual_rows = 0;
  FitRows fit_rows;

  auto reduce = [&](MeasurementRow&& row) {
    if (!usable()) return;
    MappedRow m = map_measurement(row, catalog, measured);
    if (stack_override) {
      m.stack_name = stack_override->name;
      // The engine settings follow the stack the row is predicted with, unless the row states
      // the ones its engine ran.
      if (m.bench) apply_engine_settings(stack_override, m.row, *m.bench);
    }
    if (fitting) {
      // The fit and its leave-one-out predict each row as the per-row tables do, with its
      // hardware's profile.
      if (m.bench) m.bench->profile = profile_for(m.bench->hardware);
      if (fit_base) fit_rows.add(m, *fit_base);
      return;
    }
    if (!m.bench) {
      unmapped.add({m.row.id, m.reason});
      return;
    }
    const StackSpec* s = catalog.find_stack(m.stack_name);
    if (!s) {
      unmapped.add({m.row.id, fmt::format("stack '{}' is not in the catalog", m.stack_name)});
      return;
    }
    auto p = predict_case(*m.bench, *s, profile_for(m.bench->hardware));
    if (!p) {
      unmapped.add({m.row.id, p.error().message});
      return;
    }
    const BenchCase& c = *m.bench;
    const double err = *p / c.measured - 1;
    if (keep_rows) {
      Cell implied, implied_frac;
      if (c.metric == BenchMetric::generation_tokens_per_s) {
        // Bytes a token streams x tokens/s; with a layer split the devices take turns, so the
        // figure compares with one device's bandwidth; with sockets in parallel, with their sum.
        const double bw = bytes_per_generated_token(c) * c.measured;
        const double peak = c.hardware.memory_bandwidth_bytes_per_s * c.deployment.tp;
        implied = bw;
        implied_frac = bw / peak;
      }
      t.add({m.row.id, c.hardware.name, static_cast<long long>(c.deployment.tp * c.deployment.pp),
             c.model.name, std::string(dtype_name(c.deployment.precision.weights)), m.row.metric,
             m.stack_name, c.measured, *p, err, implied, implied_frac});
    }
    const std::string group = metric_group(c.metric);
    const std::string source = source_tag(m.row);
    by_metric[group].push_back(std::fabs(err));
    by_source[source + " " + group].push_back(std::fabs(err));
    if (a.by_device)
      by_device[source + " " + group + " " + c.hardware.name].push_back(std::fabs(err));
    // Seed claims are checks of a story, not measurements: they do not widen the error bands.
    if (!a.residuals_out.empty() && source != "SEED") {
      residuals_text += residuals_csv_row(residual_of(c, m.stack_name, *p));
      ++residual_rows;
    }
  };
  for (const auto& file : a.files) for_each_measurement(file, diags, reduce);
  if (diags.has_errors()) {
    print_diagnostics(diags);
    return diags.items().front().line == 0 ? kExitIo : kExitSpec;
  }
  if (profile_diags.has_errors()) return print_diagnostics(profile_diags);
  if (!a.stack.empty() && stack_override == nullptr) {
    diags.error("", 0, 0, "--stack", fmt::format("unknown stack '{}'", a.stack));
    return print_diagnostics(diags);
  }
  if (fitting) return run_fit(a, fit_base, fit_rows, diags, *f);

  if (!a.residuals_out.empty()) {
    const std::string prov =
        fmt::format("written by `{}` on {}, commit {}; ln(predicted time / measured time) per row",
                    residuals_command(a, ""), calibration::iso_date_utc().substr(0, 10),
                    calibration::source_commit("core cli data"));
    if (const int rc = write_residuals(a, prov, std::move(residuals_text), residual_rows);
        rc != kExitOk)
      return rc;
  }
  ResultTable summary;
  summary.title = "summary of |predicted / measured - 1|";
  summary.columns = {{"group", Dim::dimensionless},
                     {"rows", Dim::dimensionless},
                     {"median_abs_error", Dim::dimensionless},
                     {"p90_abs_error", Dim::dimensionless}};
  for (const auto* g : {&by_metric, &by_source, &by_device}) {
    if (g == &by_device && !a.by_device) continue;
    for (const auto& [k, v] : *g) {
      summary.add({k, static_cast<long long>(v.size()), percentile(v, 0.5), percentile(v, 0.9)});
    }
  }
  if (*f == Format::json) {
    nlohmann::json j;
    j["rows"] = t.to_json();
    j["summary"] = summary.to_json();
    j["unmapped"] = unmapped.to_json();
    fmt::print("{}\n", j.dump(2));
  } else {
    if (!a.summary_only) fmt::print("{}\n", render(t, *f));
    fmt::print("{}\n", render(summary, *f));
    if (!unmapped.rows.empty()) fmt::print("{}", render(unmapped, *f));
  }
  return kExitOk;
}

}  // namespace

Runner register_validate(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* sub = app.add_subcommand("validate", "Compare predictions with measured rows (CSV)");
  sub->add_option("--measurements,-i", a->files, "CSV in the shared/benchmarks schema")->required();
  sub->add_option("--stack,-s", a->stack, "predict every row with this stack instead of its own");
  sub->add_option("--format,-f", a->format, kFormatHelp)->capture_default_str();
  sub->add_option("--data", a->data, "catalog folder");
  sub->add_option("--fit", a->fit, "fit this stack's parameters to the rows that ran on it");
  sub->add_option("--write", a->write, "with --fit: write the fitted stack YAML here");
  sub->add_flag("--cross-validate", a->cross_validate, "with --fit: leave-one-hardware-out errors");
  sub->add_flag("--summary-only", a->summary_only, "print only the summary and unmapped rows");
  sub->add_flag("--by-device", a->by_device, "summary also per source, metric and device");
  sub->add_option("--residuals-out", a->residuals_out,
                  "write each predicted row's residual (the error bands of predict and plan); "
                  "with --fit --cross-validate, each row's residual under the stack refitted "
                  "without its device");
  sub->add_option("--calibration", a->calibrations,
                  "calibration profile(s); each applies to the rows of the hardware it names");
  add_force_flag(sub, a->force);
  return [a] { return run_validate(*a); };
}

}  // namespace infercap::cli
