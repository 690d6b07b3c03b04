#include "infercap_gui/view_model.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "infercap/units.hpp"

namespace infercap::gui {

Result<PerfModel> make_perf(const spec::Catalog& cat, const Selection& sel,
                            std::string* stack_used) {
  const ModelSpec* model = cat.find_model(sel.model);
  if (model == nullptr) return Error{fmt::format("unknown model '{}'", sel.model)};
  const HardwareSpec* hw = cat.find_hardware(sel.hardware);
  if (hw == nullptr) return Error{fmt::format("unknown hardware '{}'", sel.hardware)};
  const std::string stack_name =
      sel.stack.empty() ? spec::default_stack_for(hw->hw_class) : sel.stack;
  const StackSpec* stack = cat.find_stack(stack_name);
  if (stack == nullptr) return Error{fmt::format("unknown stack '{}'", stack_name)};
  if (stack_used != nullptr) *stack_used = stack->name;
  if (auto why = stack_mismatch(*stack, *hw)) return Error{*why};
  spec::Diagnostics diags;
  auto dep = spec::make_deployment(sel.dep, diags);
  if (!dep) {
    std::string msg;
    for (const auto& d : diags.items())
      msg += (msg.empty() ? "" : "; ") + d.key_path + ": " + d.message;
    return Error{msg};
  }
  spec::apply_default_precision(sel.dep, *hw, *dep);
  return PerfModel::create(*model, *hw, *stack, *dep);
}

// ---- Roofline -----------------------------------------------------------------------------

namespace {

double floor_decade(double v) {
  return std::pow(10.0, std::floor(std::log10(v)));
}
double ceil_decade(double v) {
  return std::pow(10.0, std::ceil(std::log10(v)));
}

void add_points(const StepBreakdown& b, bool prefill, std::vector<RooflinePoint>& out) {
  for (const auto& op : b.ops) {
    const double bytes = op.cost.weight_bytes + op.cost.activation_bytes + op.cost.kv_bytes;
    if (op.cost.flops <= 0 || bytes <= 0 || op.time_s <= 0) continue;
    RooflinePoint p;
    p.name = op.cost.name;
    p.kind = op.cost.kind;
    p.bound = op.bound;
    p.prefill = prefill;
    p.intensity_flops_per_byte = op.cost.flops / bytes;
    p.achieved_flops_per_s = op.cost.flops / op.time_s;
    p.time_share = b.time_s > 0 ? op.time_s / b.time_s : 0;
    out.push_back(p);
  }
}

}  // namespace

RooflineChart roofline_chart(const PerfModel& perf, const Prediction& p) {
  RooflineChart c;
  add_points(p.prefill, true, c.points);
  add_points(p.decode, false, c.points);

  const auto& r = perf.rates();
  const auto& hw = perf.hardware();
  const ComputeType ct = perf.compute_type();
  c.roofs.push_back({"weights, GEMM", r.weight_bw, r.gemm_flops, true});
  if (r.kv_bw != r.weight_bw || r.attn_flops != r.gemm_flops) {
    c.roofs.push_back({"KV cache, attention", r.kv_bw, r.attn_flops, true});
  }
  const double peak = at(hw.dense_flops_per_s, ct);
  if (hw.memory_bandwidth_bytes_per_s > 0 && peak > 0) {
    c.roofs.push_back({fmt::format("datasheet {} dense", compute_type_name(ct)),
                       hw.memory_bandwidth_bytes_per_s, peak, false});
  }

  double xlo = std::numeric_limits<double>::infinity(), xhi = 0;
  double ylo = std::numeric_limits<double>::infinity(), yhi = 0;
  for (const auto& pt : c.points) {
    xlo = std::min(xlo, pt.intensity_flops_per_byte);
    xhi = std::max(xhi, pt.intensity_flops_per_byte);
    ylo = std::min(ylo, pt.achieved_flops_per_s);
    yhi = std::max(yhi, pt.achieved_flops_per_s);
  }
  for (const auto& roof : c.roofs) {
    if (roof.bandwidth_bytes_per_s <= 0 || roof.compute_flops_per_s <= 0) continue;
    xhi = std::max(xhi, roof.ridge_flops_per_byte());
    xlo = std::min(xlo, roof.ridge_flops_per_byte());
    yhi = std::max(yhi, roof.compute_flops_per_s);
  }
  if (xhi > 0 && std::isfinite(xlo)) {
    c.x_min = floor_decade(xlo / 2);
    c.x_max = ceil_decade(xhi * 2);
  }
  if (yhi > 0 && std::isfinite(ylo)) {
    c.y_min = floor_decade(ylo / 2);
    c.y_max = ceil_decade(yhi * 1.5);
  }
  return c;
}

// ---- Batch sweep --------------------------------------------------------------------------

std::size_t knee_index(const std::vector<SweepPoint>& pts) {
  if (pts.size() < 3) return 0;
  const double x0 = std::log2(static_cast<double>(pts.front().batch));
  const double x1 = std::log2(static_cast<double>(pts.back().batch));
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo;
  for (const auto& p : pts) {
    ylo = std::min(ylo, p.tokens_per_s);
    yhi = std::max(yhi, p.tokens_per_s);
  }
  if (!(x1 > x0) || !(yhi > ylo)) return 0;
  std::size_t best = 0;
  double best_d = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double x = (std::log2(static_cast<double>(pts[i].batch)) - x0) / (x1 - x0);
    const double y = (pts[i].tokens_per_s - ylo) / (yhi - ylo);
    if (y - x >= best_d) {  // ties go to the larger batch
      best_d = y - x;
      best = i;
    }
  }
  return best;
}

BatchSweep batch_sweep(const PerfModel& perf, double context_tokens, double memory_context_tokens,
                       int max_sweep_batch) {
  BatchSweep s;
  s.context_tokens = context_tokens;
  s.max_batch = perf.max_batch(memory_context_tokens);
  s.points.reserve(static_cast<std::size_t>(std::max(0, max_sweep_batch)));
  for (int b = 1; b <= max_sweep_batch; ++b) {
    SweepPoint p;
    p.batch = b;
    p.step_s = perf.decode_step_s(b, context_tokens);
    p.tokens_per_s = p.step_s > 0 ? b / p.step_s : 0;
    p.fits = b <= s.max_batch;
    s.points.push_back(p);
  }
  if (!s.points.empty()) s.knee_batch = s.points[knee_index(s.points)].batch;
  return s;
}

const SweepPoint* best_within_tpot(const BatchSweep& s, double tpot_limit_s) {
  const SweepPoint* best = nullptr;
  for (const auto& p : s.points) {
    if (!p.fits || p.step_s > tpot_limit_s) continue;
    if (best == nullptr || p.tokens_per_s > best->tokens_per_s) best = &p;
  }
  return best;
}

std::array<double, 5> time_by_bound(const StepBreakdown& b) {
  std::array<double, 5> t{};
  double ops = 0;
  for (const auto& op : b.ops) {
    t[static_cast<std::size_t>(op.bound)] += op.time_s;
    ops += op.time_s;
  }
  // Whatever the ops do not account for is the fixed per-step cost (scheduling, sampling).
  t[static_cast<std::size_t>(Bound::overhead)] += std::max(0.0, b.time_s - ops);
  return t;
}

std::string cli_command(const Selection& sel, const Workload& w) {
  std::string c = fmt::format("infercap predict -m {} -H {}", sel.model, sel.hardware);
  const auto& d = sel.dep;
  if (!sel.stack.empty()) c += " -s " + sel.stack;
  if (!d.weights.empty()) c += " --weights " + d.weights;
  if (!d.activations.empty()) c += " --activations " + d.activations;
  if (!d.kv.empty()) c += " --kv " + d.kv;
  if (!d.compute.empty()) c += " --compute " + d.compute;
  if (d.tp != 1) c += fmt::format(" --tp {}", d.tp);
  if (d.pp != 1) c += fmt::format(" --pp {}", d.pp);
  if (d.threads != 0) c += fmt::format(" --threads {}", d.threads);
  if (d.smt) c += " --smt";
  if (d.numa != "pinned") c += " --numa " + d.numa;
  if (d.virtualized) c += " --vm";
  c += fmt::format(" -b {} -p {} -o {}", w.batch, w.prompt_tokens, w.output_tokens);
  return c;
}

ContextSweep context_sweep(const PerfModel& perf, int batch, double max_context, int n) {
  ContextSweep s;
  s.batch = batch;
  if (max_context < 1 || batch < 1) return s;
  const double lo = std::min(128.0, max_context);
  const int count = max_context > lo ? std::max(2, n) : 1;
  for (int i = 0; i < count; ++i) {
    // Geometric steps; the last point is exactly the window.
    const double f = count > 1 ? static_cast<double>(i) / (count - 1) : 0.0;
    const double ctx =
        i == count - 1 ? max_context : std::round(lo * std::pow(max_context / lo, f));
    s.points.push_back({ctx, perf.decode_step_s(batch, ctx), perf.max_batch(ctx)});
  }
  return s;
}

// ---- Memory -------------------------------------------------------------------------------

std::vector<MemorySegment> memory_segments(const MemoryReport& m) {
  return {{"weights", m.weights_bytes},
          {"KV cache", m.kv_bytes},
          {"activations", m.activation_bytes},
          {"reserve", m.reserve_bytes}};
}

// ---- Predict ------------------------------------------------------------------------------

PredictView evaluate_predict(const spec::Catalog& cat, const Selection& sel, const Workload& w,
                             int max_sweep_batch) {
  PredictView v;
  if (w.batch < 1 || w.prompt_tokens < 1 || w.output_tokens < 1) {
    v.error = "batch, prompt and output must each be at least 1";
    return v;
  }
  auto perf = make_perf(cat, sel, &v.stack_used);
  if (!perf) {
    v.error = perf.error().message;
    return v;
  }
  const PerfModel& pm = *perf;
  const auto& prec = pm.deployment().precision;
  v.title = fmt::format("{} on {} x{} ({} weights, {} KV, {} compute, stack {})", pm.model().name,
                        pm.hardware().name, pm.devices(), dtype_name(prec.weights),
                        dtype_name(prec.kv), compute_type_name(pm.compute_type()), pm.stack().name);
  v.prediction = predict(pm, w.batch, w.prompt_tokens, w.output_tokens);
  v.rates = pm.rates();
  v.compute = pm.compute_type();
  v.devices = pm.devices();
  v.power_w = pm.hardware().tdp_w * pm.devices();
  v.roofline = roofline_chart(pm, v.prediction);
  // The sweep is taken at the same mean decode context as TPOT: prompt + output / 2.
  v.sweep = batch_sweep(pm, w.prompt_tokens + w.output_tokens / 2.0,
                        w.prompt_tokens + w.output_tokens, max_sweep_batch);
  const double window = pm.model().max_context > 0 ? static_cast<double>(pm.model().max_context)
                                                   : w.prompt_tokens + w.output_tokens;
  v.context = context_sweep(pm, w.batch, window);
  v.ok = true;
  return v;
}

// ---- Compare ------------------------------------------------------------------------------

std::vector<CompareRow> evaluate_compare(const spec::Catalog& cat, const Selection& base,
                                         const std::vector<std::string>& hardware,
                                         const Workload& w, bool auto_tp, const PriceBook* prices) {
  std::vector<CompareRow> rows;
  rows.reserve(hardware.size());
  for (const auto& name : hardware) {
    CompareRow row;
    row.hardware = name;
    if (const HardwareSpec* hw = cat.find_hardware(name)) row.hw_class = hw->hw_class;
    Selection sel = base;
    sel.hardware = name;
    const std::vector<int> tps =
        auto_tp ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{base.dep.tp};
    std::string last_error;
    for (int tp : tps) {
      sel.dep.tp = tp;
      auto perf = make_perf(cat, sel, &row.stack);
      if (!perf) {
        last_error = perf.error().message;
        continue;
      }
      const Prediction p = predict(*perf, w.batch, w.prompt_tokens, w.output_tokens);
      row.ok = true;
      row.tp = tp;
      row.fits = p.memory.fits;
      row.max_batch = p.memory.max_batch;
      row.ttft_s = p.ttft_s;
      row.tpot_s = p.tpot_s;
      row.tokens_per_s = p.total_decode_tokens_per_s;
      row.power_w = perf->hardware().tdp_w * perf->devices();
      row.tokens_per_s_per_w = row.power_w > 0 ? row.tokens_per_s / row.power_w : 0;
      row.memory_bytes = p.memory.total_bytes;
      row.capacity_bytes = p.memory.capacity_bytes;
      if (row.fits) break;  // smallest TP that fits; otherwise keep the largest that ran
    }
    if (!row.ok) row.error = last_error;
    if (row.ok && prices != nullptr) {
      if (const DevicePricing* dp = prices->find(row.hardware)) {
        const double devices = row.tp * base.dep.pp;
        row.devices_price_usd = dp->unit_price_usd(devices) * devices;
        row.price_estimate = dp->estimate;
        if (row.devices_price_usd > 0) {
          row.tokens_per_s_per_kusd = row.tokens_per_s / (row.devices_price_usd / 1000.0);
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

void sort_compare(std::vector<CompareRow>& rows, CompareKey key, bool descending) {
  auto value = [key](const CompareRow& r) -> double {
    switch (key) {
      case CompareKey::tokens_per_s:
        return r.tokens_per_s;
      case CompareKey::tokens_per_s_per_w:
        return r.tokens_per_s_per_w;
      case CompareKey::ttft:
        return r.ttft_s;
      case CompareKey::tpot:
        return r.tpot_s;
      case CompareKey::max_batch:
        return r.max_batch;
      case CompareKey::tokens_per_s_per_kusd:
        return r.tokens_per_s_per_kusd;
      case CompareKey::hardware:
        return 0;
    }
    return 0;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) {
    if (a.ok != b.ok) return a.ok;  // failures last
    if (key == CompareKey::hardware) {
      return descending ? a.hardware > b.hardware : a.hardware < b.hardware;
    }
    return descending ? value(a) > value(b) : value(a) < value(b);
  });
}

std::string compare_csv(const std::vector<CompareRow>& rows) {
  std::string out =
      "hardware,class,stack,tp,fits,max_batch,ttft_s,tpot_s,tokens_per_s,power_w,"
      "tokens_per_s_per_w,memory_bytes,capacity_bytes,devices_price_usd,tokens_per_s_per_kusd,"
      "error\n";
  auto quoted = [](const std::string& s) {
    // RFC 4180: a field with a comma, quote or newline is quoted, quotes doubled.
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const auto& r : rows) {
    out += fmt::format("{},{},{},", quoted(r.hardware), hw_class_name(r.hw_class), quoted(r.stack));
    if (r.ok) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},", r.tp, r.fits ? "true" : "false",
                         r.max_batch, r.ttft_s, r.tpot_s, r.tokens_per_s, r.power_w,
                         r.tokens_per_s_per_w, r.memory_bytes, r.capacity_bytes);
      out += r.devices_price_usd > 0
                 ? fmt::format("{},{},", r.devices_price_usd, r.tokens_per_s_per_kusd)
                 : std::string(",,");
      out += "\n";
    } else {
      out += ",,,,,,,,,,,," + quoted(r.error) + "\n";
    }
  }
  return out;
}

// ---- Formatting ---------------------------------------------------------------------------

std::string fmt_q(double value, Dim d, int significant) {
  if (!std::isfinite(value)) return kNotAvailable;
  return format_quantity(value, d, significant);
}

std::string fmt_mem(double bytes, int significant) {
  if (!std::isfinite(bytes)) return kNotAvailable;
  static constexpr const char* kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  double v = bytes;
  const double next = 1024.0 * (1.0 - 0.5 * std::pow(10.0, -significant));
  while (std::fabs(v) >= next && i < 5) {
    v /= 1024.0;
    ++i;
  }
  const std::string num = std::fabs(v) >= std::pow(10.0, significant) - 0.5
                              ? fmt::format("{:.0f}", v)
                              : fmt::format("{:.{}g}", v, significant);
  return num + " " + kUnit[i];
}

std::string fmt_ratio(double v, std::string_view unit, int significant) {
  if (!std::isfinite(v) || !(v > 0)) return kNotAvailable;
  return fmt_si(v, unit, significant);
}

std::string fmt_si(double v, std::string_view unit, int significant) {
  if (!std::isfinite(v)) return kNotAvailable;
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  double a = std::fabs(v);
  // Values that round up to 1000 at this precision take the next prefix ("1 k", not "1e+03").
  const double next = 1000.0 * (1.0 - 0.5 * std::pow(10.0, -significant));
  while (a >= next && i < 6) {
    a /= 1000.0;
    v /= 1000.0;
    ++i;
  }
  // %g keeps `significant` digits without trailing zeros, but writes 100 at two digits as
  // 1e+02: integers too long for the digits are printed whole.
  std::string num = std::fabs(v) >= std::pow(10.0, significant) - 0.5
                        ? fmt::format("{:.0f}", v)
                        : fmt::format("{:.{}g}", v, significant);
  if (i == 0 && unit.empty()) return num;
  return fmt::format("{} {}{}", num, kPrefix[i], unit);
}

}  // namespace infercap::gui
