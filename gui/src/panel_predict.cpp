// Predict: one deployment, live. Headline latencies and throughputs, the memory bar, the
// roofline of every operator, the decode batch sweep with its knee, and the operator table.
#include <fmt/core.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.hpp"
#include "plot.hpp"

namespace infercap::gui {

namespace {

void metric(const char* label, const std::string& value, const char* tip = nullptr) {
  ImGui::BeginGroup();
  ImGui::TextDisabled("%s", label);
  ImGui::Text("%s", value.c_str());
  ImGui::EndGroup();
  if (tip != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

std::string flops_label(double v) {
  return fmt_si(v, "FLOP/s", 3);
}

void draw_roofline(const PredictView& v, float width, float height) {
  const RooflineChart& c = v.roofline;
  PlotAxis x{c.x_min, c.x_max, true, "arithmetic intensity (FLOP/byte)",
             [](double d) { return fmt_si(d, "", 3); }};
  PlotAxis y{c.y_min, c.y_max, true, "achieved FLOP/s", flops_label};
  Plot p;
  if (p.begin("##roofline", {width, height}, x, y)) {
    for (const auto& r : c.roofs) {
      if (r.bandwidth_bytes_per_s <= 0 || r.compute_flops_per_s <= 0) continue;
      const ImU32 col = r.achievable ? IM_COL32(230, 230, 230, 220) : palette::faint;
      const double ridge = r.ridge_flops_per_byte();
      p.segment(c.x_min, r.bandwidth_bytes_per_s * c.x_min, ridge, r.compute_flops_per_s, col,
                r.achievable ? 2.0f : 1.5f, !r.achievable);
      p.segment(ridge, r.compute_flops_per_s, c.x_max, r.compute_flops_per_s, col,
                r.achievable ? 2.0f : 1.5f, !r.achievable);
    }
    const RooflinePoint* hover = nullptr;
    float best = 64.0f;  // squared pixel distance for the hover pick
    for (const auto& pt : c.points) {
      const float radius = 3.0f + 6.0f * static_cast<float>(std::sqrt(pt.time_share));
      p.marker(pt.intensity_flops_per_byte, pt.achieved_flops_per_s, bound_color(pt.bound),
               pt.prefill ? Marker::square : Marker::circle, radius);
      if (p.hovered()) {
        const ImVec2 s = p.map(pt.intensity_flops_per_byte, pt.achieved_flops_per_s);
        const ImVec2 m = p.mouse();
        const float d = (s.x - m.x) * (s.x - m.x) + (s.y - m.y) * (s.y - m.y);
        if (d < best) {
          best = d;
          hover = &pt;
        }
      }
    }
    p.end();
    if (hover != nullptr) {
      ImGui::SetTooltip(
          "%s (%s, %s)\nintensity %s FLOP/byte\nachieved %s\n%.1f%% of the step\n"
          "bound: %s",
          std::string(hover->name).c_str(), std::string(op_kind_name(hover->kind)).c_str(),
          hover->prefill ? "prefill" : "decode",
          fmt_si(hover->intensity_flops_per_byte, "", 3).c_str(),
          flops_label(hover->achieved_flops_per_s).c_str(), 100.0 * hover->time_share,
          std::string(bound_name(hover->bound)).c_str());
    }
  }
  // The roofs' key, as text under the chart: inside the plot it would cross the roofs.
  for (const auto& r : c.roofs) {
    const std::string t = r.label + ": " + flops_label(r.compute_flops_per_s) + ", " +
                          fmt_q(r.bandwidth_bytes_per_s, Dim::bytes_per_s) + ", ridge " +
                          fmt_si(r.ridge_flops_per_byte(), "", 3);
    const ImU32 col = r.achievable ? IM_COL32(230, 230, 230, 255) : palette::grey;
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    const float lh = ImGui::GetTextLineHeight();
    ImGui::GetWindowDrawList()->AddLine({pos.x, pos.y + lh / 2}, {pos.x + 18, pos.y + lh / 2}, col,
                                        r.achievable ? 2.0f : 1.0f);
    ImGui::Dummy({22, lh});
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "%s", t.c_str());
  }
  legend_item(bound_color(Bound::memory), "memory");
  ImGui::SameLine();
  legend_item(bound_color(Bound::compute), "compute");
  ImGui::SameLine();
  legend_item(bound_color(Bound::issue), "issue");
  ImGui::SameLine();
  legend_item(bound_color(Bound::overhead), "overhead");
  ImGui::SameLine();
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "square: prefill op, circle: decode op; size: share of its step.\n"
        "Solid roofs: achievable rates of this stack; dashed: datasheet peak.\n"
        "Hover a point for the operator.");
  }
}

void draw_sweep(const PredictView& v, int current_batch, double tpot_target_s, float width,
                float height) {
  const BatchSweep& s = v.sweep;
  if (s.points.empty()) return;
  double tmax = 0, smax = 0;
  std::vector<double> xs, tps, tpot;
  for (const auto& pt : s.points) {
    xs.push_back(pt.batch);
    tps.push_back(pt.tokens_per_s);
    tpot.push_back(pt.step_s);
    tmax = std::max(tmax, pt.tokens_per_s);
    smax = std::max(smax, pt.step_s);
  }
  PlotAxis x{1, static_cast<double>(s.points.back().batch), true, "batch (sequences)",
             [](double d) { return fmt_si(d, "", 3); }};
  PlotAxis y{0, tmax * 1.1, false, "decode tokens/s", [](double d) { return fmt_si(d, "", 3); }};
  PlotAxis y2{0, smax * 1.1, false, "TPOT", [](double d) { return fmt_q(d, Dim::seconds, 2); }};
  Plot p;
  if (p.begin("##sweep", {width, height}, x, y, &y2)) {
    const double last = s.points.back().batch;
    if (s.max_batch < last) {
      p.shade_x(std::max(1, s.max_batch), last, IM_COL32(240, 90, 90, 40));
      const std::string l = "memory: max batch " + std::to_string(s.max_batch);
      if (s.max_batch >= 1) p.vline(s.max_batch, palette::red, l.c_str(), true, 1);
    }
    p.line(xs, tps, palette::blue, 2.5f);
    p.line(xs, tpot, palette::orange, 2.0f, true);
    if (tpot_target_s > 0 && tpot_target_s < smax * 1.1) {
      p.segment(1, tpot_target_s, last, tpot_target_s, palette::orange, 1.0f, true, true);
    }
    if (const SweepPoint* best = best_within_tpot(s, tpot_target_s)) {
      p.marker(best->batch, best->tokens_per_s, palette::green, Marker::square, 5);
    }
    const std::string knee = "knee: batch " + std::to_string(s.knee_batch) +
                             (s.knee_batch > s.max_batch ? " (does not fit)" : "");
    p.vline(s.knee_batch, palette::green, knee.c_str());
    if (current_batch >= 1 && current_batch <= static_cast<int>(last)) {
      const auto& cp = s.points[static_cast<std::size_t>(current_batch - 1)];
      p.marker(cp.batch, cp.tokens_per_s, palette::yellow, Marker::diamond, 5);
      p.marker(cp.batch, cp.step_s, palette::yellow, Marker::diamond, 5, true);
    }
    p.end();
    if (p.hovered()) {
      const int b = std::clamp(static_cast<int>(std::lround(p.unmap_x(p.mouse().x))), 1,
                               static_cast<int>(last));
      const auto& hp = s.points[static_cast<std::size_t>(b - 1)];
      ImGui::SetTooltip("batch %d\n%s tokens/s\nTPOT %s\n%s", hp.batch,
                        fmt_si(hp.tokens_per_s, "", 3).c_str(),
                        fmt_q(hp.step_s, Dim::seconds).c_str(),
                        hp.fits ? "fits in memory" : "does not fit in memory");
    }
  }
  legend_item(palette::blue, "tokens/s (left)");
  ImGui::SameLine();
  legend_item(palette::orange, "TPOT (right; dashed: target)");
  ImGui::SameLine();
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Decode steps at context %.0f (TPOT's mean context).\nYellow: the current "
        "batch; green line: the knee (past it, doubling the batch buys little\n"
        "throughput while TPOT grows); red: batches whose KV cache does not fit.",
        s.context_tokens);
  }
}

// TPOT (left) and the largest batch that fits (right, log) as the context grows to the model's
// window, at the current batch.
void draw_context_sweep(const PredictView& v, double current_context, float width, float height) {
  const ContextSweep& s = v.context;
  if (s.points.size() < 2) {
    ImGui::TextDisabled("The model's window is too short for a context sweep.");
    return;
  }
  std::vector<double> xs, tpot, mb;
  double tmax = 0, bmax = 1;
  for (const auto& p : s.points) {
    xs.push_back(p.context_tokens);
    tpot.push_back(p.step_s);
    mb.push_back(std::max(1, p.max_batch));
    tmax = std::max(tmax, p.step_s);
    bmax = std::max(bmax, static_cast<double>(p.max_batch));
  }
  PlotAxis x{xs.front(), xs.back(), true, "context (tokens)",
             [](double d) { return fmt_si(d, "", 3); }};
  PlotAxis y{0, tmax * 1.1, false, "TPOT", [](double d) { return fmt_q(d, Dim::seconds, 2); }};
  PlotAxis y2{1, std::pow(10.0, std::ceil(std::log10(bmax * 1.2))), true, "max batch",
              [](double d) { return fmt_si(d, "", 3); }};
  Plot p;
  if (p.begin("##ctx", {width, height}, x, y, &y2)) {
    p.line(xs, tpot, palette::orange, 2.5f);
    p.line(xs, mb, palette::purple, 2.0f, true);
    if (current_context >= xs.front() && current_context <= xs.back()) {
      p.vline(current_context, palette::yellow, "prompt + output", true);
    }
    // Contexts where not even one sequence fits.
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (s.points[i].max_batch < 1) {
        p.shade_x(s.points[i].context_tokens, xs.back(), IM_COL32(240, 90, 90, 40));
        break;
      }
    }
    p.end();
    if (p.hovered()) {
      const double c = p.unmap_x(p.mouse().x);
      const ContextPoint* near = &s.points.front();
      for (const auto& cp : s.points) {
        if (std::fabs(std::log(cp.context_tokens / c)) <
            std::fabs(std::log(near->context_tokens / c)))
          near = &cp;
      }
      ImGui::SetTooltip("context %.0f\nTPOT %s at batch %d\nat most %d sequences fit",
                        near->context_tokens, fmt_q(near->step_s, Dim::seconds).c_str(), s.batch,
                        near->max_batch);
    }
  }
  legend_item(palette::orange, "TPOT (left)");
  ImGui::SameLine();
  legend_item(palette::purple, "max batch that fits (right, log)");
}

void draw_ops_table(const App& app) {
  const Prediction& pr = app.predict.prediction;
  const StepBreakdown& b = app.ops_show_prefill ? pr.prefill : pr.decode;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("ops", 10, flags, {0, ImGui::GetContentRegionAvail().y})) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const char* h : {"op", "kind", "time", "share", "FLOPs", "bytes", "FLOP/byte", "achieved",
                        "bound", "compute / memory / issue / overhead"}) {
    ImGui::TableSetupColumn(h);
  }
  ImGui::TableHeadersRow();
  for (const auto& op : b.ops) {
    ImGui::TableNextRow();
    const double bytes = op.cost.weight_bytes + op.cost.activation_bytes + op.cost.kv_bytes;
    const double share = b.time_s > 0 ? op.time_s / b.time_s : 0;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(op.cost.name).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(std::string(op_kind_name(op.cost.kind)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_q(op.time_s, Dim::seconds).c_str());
    ImGui::TableNextColumn();
    ImGui::ProgressBar(static_cast<float>(share), {70, 0},
                       (std::to_string(static_cast<int>(std::lround(100 * share))) + "%").c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_si(op.cost.flops, "", 3).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_q(bytes, Dim::bytes).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(bytes > 0 ? fmt_si(op.cost.flops / bytes, "", 3).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(op.time_s > 0 ? flops_label(op.cost.flops / op.time_s).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(bound_color(op.bound)), "%s",
                       std::string(bound_name(op.bound)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s / %s / %s / %s", fmt_q(op.compute_s, Dim::seconds).c_str(),
                        fmt_q(op.memory_s, Dim::seconds).c_str(),
                        fmt_q(op.issue_s, Dim::seconds).c_str(),
                        fmt_q(op.overhead_s + op.comm_s, Dim::seconds).c_str());
  }
  ImGui::EndTable();
}

// The rates the model resolved for this deployment: what every op time divides by.
void draw_rates(const PredictView& v) {
  section("Achievable rates per device");
  const auto& r = v.rates;
  auto row = [](const char* k, const std::string& val) {
    ImGui::TextDisabled("%s", k);
    ImGui::SameLine(ImGui::GetFontSize() * 10);
    ImGui::TextUnformatted(val.c_str());
  };
  row("weight streaming", fmt_q(r.weight_bw, Dim::bytes_per_s));
  row("KV cache reads", fmt_q(r.kv_bw, Dim::bytes_per_s));
  row("activations", fmt_q(r.act_bw, Dim::bytes_per_s));
  row("GEMM", flops_label(r.gemm_flops));
  row("attention", flops_label(r.attn_flops));
  if (r.weights_per_s > 0) row("issue limit", fmt_si(r.weights_per_s, "weights/s", 3));
  if (v.devices > 1) {
    row("link", fmt_q(r.link_bw, Dim::bytes_per_s));
    row("link latency", fmt_q(r.link_latency, Dim::seconds));
  }
  row("kernel overhead", fmt_q(r.kernel_overhead, Dim::seconds));
  row("step overhead", fmt_q(r.step_overhead, Dim::seconds));
  row("TDP (all devices)", fmt_q(v.power_w, Dim::watts));
}

// The headline's figures within the model's measured error (p10-p90 of the validation
// residuals of the stack and class), as `infercap predict` prints them; or that there is no
// band. One wrapped line, so the layout holds at 1280x720.
void error_band_line(const std::vector<PredictionBand>& bands, const std::string& stack) {
  if (bands.empty()) return;
  std::string text;
  std::string missing, missing_note;
  for (const auto& b : bands) {
    if (!b.band.available) {
      missing += (missing.empty() ? "" : ", ") + b.quantity;
      if (missing_note.find(b.band.note) == std::string::npos)
        missing_note += (missing_note.empty() ? "" : "; ") + b.band.note;
      continue;
    }
    const auto f = [&](double x) { return b.rate ? fmt_si(x, "", 3) : fmt_q(x, Dim::seconds); };
    text +=
        fmt::format("{}{} {}-{}", text.empty() ? "" : ";  ", b.quantity, f(b.low()), f(b.high()));
  }
  ImGui::PushTextWrapPos(0);
  if (!text.empty()) {
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "within the model's measured error: %s",
                       text.c_str());
    if (ImGui::IsItemHovered()) {
      std::string tip;
      for (const auto& b : bands) {
        if (b.band.available && tip.find(b.band.note) == std::string::npos)
          tip += b.band.note + "\n";
      }
      ImGui::SetTooltip("p10-p90 of measured / predicted over validation rows:\n%s", tip.c_str());
    }
  }
  if (!missing.empty()) {
    ImGui::TextDisabled("%s: no validation rows for this stack/class (%s: %s)", missing.c_str(),
                        stack.c_str(), missing_note.c_str());
  }
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_predict_panel(App& app) {
  if (app.inputs_changed) {
    app.predict = evaluate_predict(*app.catalog, app.sel, app.work, app.sweep_max_batch);
    app.inputs_changed = false;
    app.predict_bands.clear();
    const HardwareSpec* hw = app.catalog->find_hardware(app.sel.hardware);
    const ModelSpec* md = app.catalog->find_model(app.sel.model);
    if (app.predict.ok && hw != nullptr) {
      app.predict_bands = prediction_bands(
          app.predict.prediction, app.residuals, app.predict.stack_used, hw->hw_class,
          md != nullptr && md->arch == ModelArch::encoder, hw->vendor);
    }
  }
  ImGui::BeginChild("inputs", {ImGui::GetFontSize() * 23, 0}, true);
  draw_inputs(app, false);
  if (app.predict.ok) draw_rates(app.predict);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("results", {0, 0}, false);
  const PredictView& v = app.predict;
  if (!v.ok) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "No prediction: %s", v.error.c_str());
    ImGui::EndChild();
    return;
  }
  const Prediction& p = v.prediction;
  ImGui::TextUnformatted(v.title.c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("copy CLI command")) {
    ImGui::SetClipboardText(cli_command(app.sel, app.work).c_str());
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", cli_command(app.sel, app.work).c_str());
  ImGui::Separator();
  const ModelSpec* model = app.catalog->find_model(app.sel.model);
  const bool encoder = model != nullptr && model->arch == ModelArch::encoder;
  const MemoryReport& mr = p.memory;
  if (!mr.fits) {
    // A headline for a deployment that cannot run would read as an answer: say so first.
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1),
                       "DOES NOT FIT: %s needed per device, %s available. The figures below assume "
                       "memory the device does not have.",
                       fmt_mem(mr.total_bytes).c_str(), fmt_mem(mr.capacity_bytes).c_str());
    ImGui::PopTextWrapPos();
  }
  if (encoder) {
    ImGui::TextDisabled(
        "%s is an encoder: one forward pass per request, no decode, so no TPOT or decode "
        "throughput.",
        app.sel.model.c_str());
  }
  if (!mr.fits) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.55f);
  // Eight figures in columns; as many a row as fit, so a narrow or scaled window wraps them.
  const float row_w = ImGui::GetContentRegionAvail().x;
  const float min_col = ImGui::GetFontSize() * 7.5f;
  const int per_row = std::clamp(static_cast<int>(row_w / min_col), 1, 8);
  const float col = row_w / static_cast<float>(per_row);
  float x0 = ImGui::GetCursorPosX();
  auto next = [&](int i) {
    if (i % per_row != 0) ImGui::SameLine(x0 + col * static_cast<float>(i % per_row));
  };
  const char* na = kNotAvailable;
  metric("TTFT", fmt_q(p.ttft_s, Dim::seconds), "prefill of all prompts of the batch together");
  next(1);
  metric("TPOT", encoder ? na : fmt_q(p.tpot_s, Dim::seconds),
         encoder ? "an encoder does not decode" : "mean decode step over the output");
  next(2);
  metric("E2E", fmt_q(encoder ? p.ttft_s : p.e2e_s, Dim::seconds),
         encoder ? "the forward pass" : "TTFT + (output - 1) x TPOT");
  next(3);
  metric("decode tok/s", encoder ? na : fmt_ratio(p.total_decode_tokens_per_s),
         "all sequences: batch / TPOT");
  next(4);
  metric("per sequence", encoder ? na : fmt_ratio(p.decode_tokens_per_s, "tok/s"), "1 / TPOT");
  next(5);
  metric("prefill tok/s", fmt_ratio(p.prefill_tokens_per_s), "batch x prompt / TTFT");
  next(6);
  const double per_w =
      v.power_w > 0 ? (encoder ? p.prefill_tokens_per_s : p.total_decode_tokens_per_s) / v.power_w
                    : 0;
  metric(
      encoder ? "prefill tok/s/W" : "tok/s per W", fmt_ratio(per_w),
      encoder ? "prompt tokens/s over the devices' TDP" : "decode tokens/s over the devices' TDP");
  next(7);
  metric("compute", std::string(compute_type_name(v.compute)) + " x" + std::to_string(v.devices),
         "compute roof and devices (TP x PP)");
  if (!mr.fits) ImGui::PopStyleVar();
  error_band_line(app.predict_bands, v.stack_used);

  // Memory bar.
  const MemoryReport& m = p.memory;
  ImGui::Spacing();
  const ImU32 seg_cols[] = {IM_COL32(90, 160, 255, 255), IM_COL32(100, 210, 120, 255),
                            IM_COL32(255, 160, 60, 255), IM_COL32(150, 150, 150, 255)};
  std::vector<BarSegment> segs;
  const auto ms = memory_segments(m);
  for (std::size_t i = 0; i < ms.size(); ++i)
    segs.push_back({ms[i].label, ms[i].bytes, seg_cols[i]});
  ImGui::Text("memory per device: %s of %s", fmt_mem(m.total_bytes).c_str(),
              fmt_mem(m.capacity_bytes).c_str());
  ImGui::SameLine();
  if (m.fits) {
    ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "fits; at most %d sequences of %.0f tokens",
                       m.max_batch, p.prompt_tokens + p.output_tokens);
  } else {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1),
                       "does not fit; at most %d sequences of %.0f tokens", m.max_batch,
                       p.prompt_tokens + p.output_tokens);
  }
  stacked_bar("##mem", segs, m.capacity_bytes, [](double b) { return fmt_mem(b); }, {-1, 18});
  for (std::size_t i = 0; i < segs.size(); ++i) {
    if (i) ImGui::SameLine();
    const std::string t = segs[i].label + " " + fmt_mem(segs[i].value);
    legend_item(segs[i].col, t.c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("  white bar: capacity");

  // Where the decode step's time goes, by binding roof.
  {
    const auto t = time_by_bound(p.decode);
    ImGui::TextDisabled("decode step %s:", fmt_q(p.decode.time_s, Dim::seconds).c_str());
    for (Bound b :
         {Bound::memory, Bound::compute, Bound::issue, Bound::overhead, Bound::communication}) {
      const double share =
          p.decode.time_s > 0 ? t[static_cast<std::size_t>(b)] / p.decode.time_s : 0;
      if (share < 0.005) continue;
      ImGui::SameLine();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(bound_color(b)), "%s %.0f%%",
                         std::string(bound_name(b)).c_str(), 100 * share);
    }
  }

  // Charts.
  ImGui::Spacing();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float w = (avail - ImGui::GetStyle().ItemSpacing.x) / 2;
  const float h = std::max(220.0f, ImGui::GetContentRegionAvail().y * 0.48f);
  // Children of fixed width clip their legends, so a narrow window never pushes the second
  // chart off screen.
  const float chart_h =
      h + 3 * ImGui::GetFrameHeightWithSpacing() +
      static_cast<float>(v.roofline.roofs.size()) * ImGui::GetTextLineHeightWithSpacing();
  const ImGuiWindowFlags no_scroll =
      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::BeginChild("roofline_chart", {w, chart_h}, false, no_scroll);
  ImGui::Text("Roofline per operator (per device)");
  draw_roofline(v, w, h);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("sweep_chart", {w, chart_h}, false, no_scroll);
  if (ImGui::RadioButton("batch sweep", !app.sweep_context)) app.sweep_context = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("context sweep", app.sweep_context)) app.sweep_context = true;
  if (app.sweep_context) {
    ImGui::SameLine();
    ImGui::TextDisabled("at batch %d", app.work.batch);
    draw_context_sweep(v, app.work.prompt_tokens + app.work.output_tokens, w, h);
  } else {
    ImGui::SameLine();
    ImGui::TextDisabled("1 to");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
    const char* ranges[] = {"64", "256", "1024"};
    int ri = app.sweep_max_batch == 64 ? 0 : app.sweep_max_batch == 1024 ? 2 : 1;
    if (ImGui::Combo("##range", &ri, ranges, 3)) {
      app.sweep_max_batch = ri == 0 ? 64 : ri == 2 ? 1024 : 256;
      app.inputs_changed = true;  // recomputed next frame
    }
    draw_sweep(v, app.work.batch, app.tpot_target_ms * 1e-3, w, h);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::DragFloat("TPOT target", &app.tpot_target_ms, 0.5f, 1.0f, 2000.0f, "%.0f ms");
    ImGui::SameLine();
    if (const SweepPoint* best = best_within_tpot(v.sweep, app.tpot_target_ms * 1e-3)) {
      ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "best: batch %d, %s tok/s", best->batch,
                         fmt_si(best->tokens_per_s, "", 3).c_str());
    } else {
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "no batch that fits meets it");
    }
  }
  ImGui::EndChild();

  // Operators.
  ImGui::Spacing();
  ImGui::Text("Operators");
  ImGui::SameLine();
  if (ImGui::RadioButton("decode step", !app.ops_show_prefill)) app.ops_show_prefill = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("prefill", app.ops_show_prefill)) app.ops_show_prefill = true;
  ImGui::SameLine();
  const StepBreakdown& b = app.ops_show_prefill ? p.prefill : p.decode;
  if (const double wait = host_wait_s(b); wait > 0) {
    // An eager prompt step whose host launches outlast the device work.
    ImGui::TextDisabled("step %s: host launches %s (the operators %s), fixed step overhead %s",
                        fmt_q(b.time_s, Dim::seconds).c_str(),
                        fmt_q(b.host_launch_s, Dim::seconds).c_str(),
                        fmt_q(b.host_launch_s - wait, Dim::seconds).c_str(),
                        fmt_q(b.step_overhead_s, Dim::seconds).c_str());
  } else {
    ImGui::TextDisabled("step %s, of which fixed step overhead %s",
                        fmt_q(b.time_s, Dim::seconds).c_str(),
                        fmt_q(b.step_overhead_s, Dim::seconds).c_str());
  }
  draw_ops_table(app);
  ImGui::EndChild();
}

}  // namespace infercap::gui
