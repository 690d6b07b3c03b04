#pragma once
// The GUI's view model: everything a panel shows, computed from the catalog and the user's
// choices, with no ImGui in sight. The ImGui shell (gui/src) only draws these structs, so the
// numbers on screen are the numbers the [gui] tests check. Units follow the core: SI inside,
// suffixes in field names.
//
// Cost (bench/bench_gui.cpp): evaluate_predict, with its PerfModel, breakdowns, roofline and
// 256-point batch and 64-point context sweeps, takes about 50 us; evaluate_compare over nine
// devices with the auto-TP search about 0.5 ms. Cheap enough for every frame; panels still
// recompute only on input changes. Plans are not: they run on PlanJob's worker thread.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/perf.hpp"
#include "infercap/predict.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/deployment.hpp"  // DeploymentFlags, shared with `infercap predict`
#include "infercap/tco.hpp"
#include "infercap/units.hpp"

namespace infercap::gui {

/// One deployment as the Predict panel picks it. Names are catalog names; an empty stack means
/// the CLI's default stack for the hardware class; empty formats mean the device's native 16-bit
/// type (the CLI's rule, spec::apply_default_precision).
struct Selection {
  std::string model = "llama-3.1-8b";
  std::string hardware = "h100-sxm";
  std::string stack;
  spec::DeploymentFlags dep;
};

/// The request shape every panel shares.
struct Workload {
  int batch = 1;
  double prompt_tokens = 512;
  double output_tokens = 128;
};

/// A PerfModel for a selection, or the reason there is none (unknown name, bad format, no
/// compute roof for the precision, stack unsupported on the class). `stack_used` receives the
/// stack actually chosen.
Result<PerfModel> make_perf(const spec::Catalog& cat, const Selection& sel,
                            std::string* stack_used = nullptr);

// ---- Roofline -----------------------------------------------------------------------------

/// One operator on the roofline chart: x = arithmetic intensity (FLOP per byte moved: weights +
/// activations + KV), y = achieved FLOP/s = flops / op time. Ops without FLOPs or bytes
/// (communication, step overhead) have no place on a roofline and are left out.
struct RooflinePoint {
  std::string_view name;
  OpKind kind = OpKind::gemm;
  Bound bound = Bound::memory;
  bool prefill = false;
  double intensity_flops_per_byte = 0;
  double achieved_flops_per_s = 0;
  double time_share = 0;  ///< of its step's time, 0..1
};

/// A roof: y = min(bandwidth * x, compute). `achievable` roofs are the model's resolved rates
/// (what the stack reaches); the others are datasheet peaks, drawn faint for reference.
struct Roof {
  std::string label;
  double bandwidth_bytes_per_s = 0;
  double compute_flops_per_s = 0;
  bool achievable = true;
  /// Ridge point: the intensity where the bandwidth slope meets the compute roof.
  double ridge_flops_per_byte() const {
    return bandwidth_bytes_per_s > 0 ? compute_flops_per_s / bandwidth_bytes_per_s : 0;
  }
};

struct RooflineChart {
  std::vector<RooflinePoint> points;
  std::vector<Roof> roofs;
  // Log-axis extents covering the points and the roofs' ridges, padded to whole decades.
  double x_min = 1e-2, x_max = 1e4, y_min = 1e9, y_max = 1e16;
};

RooflineChart roofline_chart(const PerfModel& perf, const Prediction& p);

// ---- Batch sweep --------------------------------------------------------------------------

struct SweepPoint {
  int batch = 1;
  double step_s = 0;        ///< decode step = TPOT at this batch
  double tokens_per_s = 0;  ///< batch / step_s, all sequences together
  bool fits = true;         ///< KV cache of `batch` sequences fits next to the weights
};

struct BatchSweep {
  std::vector<SweepPoint> points;  ///< batches 1..max_sweep_batch
  double context_tokens = 0;       ///< decode context the sweep is taken at
  int max_batch = 0;               ///< memory limit at that context (0: not even one fits)
  int knee_batch = 0;              ///< see knee_index; 0 when the sweep is empty
};

/// Decode steps at batch 1..max_sweep_batch and context `context_tokens`; memory checked at
/// prompt + output tokens per sequence.
BatchSweep batch_sweep(const PerfModel& perf, double context_tokens, double memory_context_tokens,
                       int max_sweep_batch = 256);

/// The knee of a throughput-vs-batch curve, Kneedle-style on a log batch axis: the point that
/// maximises (normalised throughput) - (normalised log2 batch), both scaled to 0..1 between the
/// first and the last point. Past the knee, doubling the batch buys little throughput while
/// TPOT keeps growing. Ties go to the larger batch, so a curve still rising in proportion to the
/// batch at the end of the sweep (no knee inside it) gives the last point. Index into `points`;
/// 0 for fewer than 3 points or a flat curve.
std::size_t knee_index(const std::vector<SweepPoint>& points);

/// The sweep point with the most throughput whose TPOT (decode step) is at most `tpot_limit_s`
/// and whose KV cache fits; nullptr when none qualifies (even batch 1 is too slow, or nothing
/// fits).
const SweepPoint* best_within_tpot(const BatchSweep& s, double tpot_limit_s);

/// Seconds of a step spent in operators of each binding roof, indexed by Bound. Step time the
/// ops do not account for (the stack's fixed per-step cost) counts as Bound::overhead, so the
/// entries sum to the step's time whenever it is at least the sum of its ops (always, except
/// for a pipelined prefill, whose stages overlap).
std::array<double, 5> time_by_bound(const StepBreakdown& b);

/// The `infercap predict` command line that reproduces a selection and workload, so a what-if
/// found in the GUI can be pasted into a terminal or a report.
std::string cli_command(const Selection& sel, const Workload& w);

/// Decode at a fixed batch as the context grows: what long prompts do to TPOT and to how many
/// sequences fit.
struct ContextPoint {
  double context_tokens = 0;
  double step_s = 0;  ///< decode step at `batch` sequences of this context
  int max_batch = 0;  ///< sequences of this context whose KV cache fits
};
struct ContextSweep {
  int batch = 1;
  std::vector<ContextPoint> points;  ///< log-spaced from 128 (or less) to the model's window
};
/// `n` log-spaced contexts from min(128, max_context) to `max_context` inclusive (n >= 2; a
/// window of one size gives one point).
ContextSweep context_sweep(const PerfModel& perf, int batch, double max_context, int n = 64);

// ---- Memory -------------------------------------------------------------------------------

/// The memory bar's segments, per device, in the order drawn.
struct MemorySegment {
  const char* label;
  double bytes;
};
std::vector<MemorySegment> memory_segments(const MemoryReport& m);

// ---- Predict panel ------------------------------------------------------------------------

struct PredictView {
  bool ok = false;
  std::string error;  ///< why there is no prediction (when !ok)
  std::string title;  ///< "llama-3.1-8b on h100-sxm x1 (bf16 weights, bf16 KV, ...)"
  std::string stack_used;
  Prediction prediction;
  PerfModel::Rates rates;
  ComputeType compute = ComputeType::bf16;
  int devices = 1;
  double power_w = 0;  ///< nameplate board power of the devices used (TDP x devices)
  RooflineChart roofline;
  BatchSweep sweep;
  ContextSweep context;
};

PredictView evaluate_predict(const spec::Catalog& cat, const Selection& sel, const Workload& w,
                             int max_sweep_batch = 256);

// ---- Compare panel ------------------------------------------------------------------------

struct CompareRow {
  std::string hardware;
  HwClass hw_class = HwClass::gpu;
  std::string stack;
  int tp = 1;
  bool ok = false;
  std::string error;
  bool fits = false;
  int max_batch = 0;
  double ttft_s = 0;
  double tpot_s = 0;
  double tokens_per_s = 0;  ///< total decode tokens/s at the workload's batch
  double power_w = 0;       ///< TDP x devices
  double tokens_per_s_per_w = 0;
  double memory_bytes = 0;    ///< per device, at the workload
  double capacity_bytes = 0;  ///< per device
  /// Purchase price of the devices used (unit price at that volume x devices, servers not
  /// included); 0 when no price book was given or it has no entry for the device.
  double devices_price_usd = 0;
  bool price_estimate = false;       ///< the price book marks the entry as an estimate
  double tokens_per_s_per_kusd = 0;  ///< tokens_per_s per 1000 USD of devices_price_usd
};

/// The same model, precision flags and workload on each hardware. With `auto_tp` each device
/// gets the smallest power-of-two TP (up to 8) at which the workload fits; otherwise
/// `base.dep.tp`. The stack is `base.stack`, or the class default when empty. A device the
/// selection cannot run on comes back with ok == false and the reason.
/// `prices` (optional) adds the devices' purchase price and tokens/s per 1000 USD.
std::vector<CompareRow> evaluate_compare(const spec::Catalog& cat, const Selection& base,
                                         const std::vector<std::string>& hardware,
                                         const Workload& w, bool auto_tp,
                                         const PriceBook* prices = nullptr);

enum class CompareKey {
  hardware,
  tokens_per_s,
  tokens_per_s_per_w,
  ttft,
  tpot,
  max_batch,
  tokens_per_s_per_kusd
};
/// Stable sort; rows that failed go last whatever the direction.
void sort_compare(std::vector<CompareRow>& rows, CompareKey key, bool descending);

/// The comparison as CSV (SI units, unit in each column name, empty cells for what a failed row
/// lacks, its reason in `error`), for pasting into a spreadsheet or a report.
std::string compare_csv(const std::vector<CompareRow>& rows);

// ---- Formatting ---------------------------------------------------------------------------

/// What every panel prints for a figure that does not exist (an encoder's TPOT, a ratio with no
/// price or no power behind it): never a 0 that reads as a measurement.
inline constexpr const char* kNotAvailable = "n/a";

/// "1.23 ms", "15.8 ktokens/s": format_quantity of an SI value; "n/a" for non-finite values.
std::string fmt_q(double value, Dim d, int significant = 3);
/// Memory sizes in binary units, as datasheets state capacity: "80 GiB", "7.1 GiB", "512 MiB";
/// "n/a" for non-finite values.
std::string fmt_mem(double bytes, int significant = 3);
/// fmt_si of a ratio that only exists when its parts do: "n/a" when `v` is not a positive finite
/// number (0 tokens/s per W because the power or the price is unknown reads as a measurement).
std::string fmt_ratio(double v, std::string_view unit = "", int significant = 3);
/// Flops and bytes with a decimal prefix: "989 TFLOP/s", "1.61 GB"; a bare count with an empty
/// unit: "15.8 k", "92".
std::string fmt_si(double v, std::string_view unit, int significant = 3);

}  // namespace infercap::gui
