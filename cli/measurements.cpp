#include "measurements.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "common.hpp"
#include "infercap/spec/csv.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/spec/table_key.hpp"

namespace infercap::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A column the reader reads, by name, checked against kMeasurementColumns when this file is
// compiled (table_key.hpp), so a column read but not listed does not compile.
using Col = spec::TableKey<kMeasurementColumns>;

// A count's bounds as whole numbers: "in [1, 1000000]", not Range::describe's "1e+06".
std::string whole_range(Col c) {
  return fmt::format("in [{}, {}]", static_cast<long long>(c->bounds.lo),
                     static_cast<long long>(c->bounds.hi));
}

// A `input_len_points` or `output_len_points` cell: ';'-separated token counts in [1, kMaxTokens]
// whose mean is the row's input_len or output_len (`mean_name`, `mean`; within half a token:
// points written in whole tokens round each share's mean), so the two columns cannot tell
// different stories. Calls `fail` with the first problem; `out` is set only when all is well.
void read_length_points(const std::string& cell, std::string_view mean_name, double mean_want,
                        std::vector<double>& out, const std::function<void(std::string)>& fail) {
  std::vector<double> points;
  size_t start = 0;
  while (start <= cell.size()) {
    size_t end = cell.find(';', start);
    if (end == std::string::npos) end = cell.size();
    std::string item = cell.substr(start, end - start);
    const auto first = item.find_first_not_of(" \t");
    item = first == std::string::npos ? std::string() : item.substr(first);
    item.erase(item.find_last_not_of(" \t") + 1);
    const auto v = spec::parse_csv_number(item);
    if (!v || !(*v >= 1 && *v <= kMaxTokens)) {
      fail(fmt::format("expected ';'-separated token counts in [1, 1e9], found '{}' as point {}",
                       item, points.size() + 1));
      return;
    }
    points.push_back(*v);
    start = end + 1;
  }
  double sum = 0;
  for (double p : points) sum += p;
  const double mean = sum / static_cast<double>(points.size());
  if (!(std::abs(mean - mean_want) <= 0.5)) {
    fail(fmt::format(
        "expected points whose mean is {} ({:g}), found a mean of {:.2f} over {} points", mean_name,
        mean_want, mean, points.size()));
    return;
  }
  out = std::move(points);
}

}  // namespace

void for_each_measurement(const std::string& path, spec::Diagnostics& diags,
                          const std::function<void(MeasurementRow&&)>& each) {
  spec::CsvReader in(path, diags);
  if (!in.ok()) return;
  std::vector<std::string> cells;
  std::map<std::string, size_t> col;
  bool header = false;
  int data_rows = 0;
  while (in.next(cells)) {
    const int lineno = in.line();
    if (!header) {
      header = true;
      const size_t before = diags.error_count();
      col = spec::csv_header(in, cells, diags);
      for (const auto& column : kMeasurementColumns) {
        if (column.need == ColumnNeed::optional) continue;
        const std::string c(column.name);
        if (!col.count(c)) {
          diags.error(path, lineno, 1, c,
                      fmt::format("expected a '{}' column in the header (schema: {})", c,
                                  "shared/benchmarks/README.md"));
        }
      }
      if (diags.error_count() > before) return;
      continue;
    }
    ++data_rows;
    MeasurementRow r;
    r.file = path;
    r.line = lineno;
    // A cell's column as a spreadsheet numbers it.
    auto at = [&](Col c) -> int { return static_cast<int>(col[std::string(c.name())]) + 1; };
    auto get = [&](Col c) -> std::string {
      const size_t i = col[std::string(c.name())];
      return i < cells.size() ? cells[i] : std::string();
    };
    auto given = [&](Col c) { return col.count(std::string(c.name())) > 0; };
    bool ok = true;
    auto fail = [&](Col c, std::string msg) {
      diags.error(path, lineno, at(c), std::string(c.name()), std::move(msg));
      ok = false;
    };
    // A finite number in the column's bounds (NaN and infinity are refused here, so every later
    // sort and median sees only numbers); an empty cell only where the column need not be filled.
    auto num = [&](Col c, double& out) {
      const spec::Range& range = c->bounds;
      const std::string s = get(c);
      if (s.empty()) {
        if (c->need == ColumnNeed::cell)
          fail(c, fmt::format("expected a number {}, found an empty cell", range.describe()));
        return;
      }
      const auto v = spec::parse_csv_number(s);
      if (!v) {
        fail(c, fmt::format("expected a finite number {}, found '{}'", range.describe(), s));
        return;
      }
      if (!range.contains(*v)) {
        fail(c, fmt::format("expected a number {}, found '{}'", range.describe(), s));
        return;
      }
      out = *v;
    };
    auto count = [&](Col c, int& out) {
      const std::string s = get(c);
      if (s.empty()) return;  // defaults to 1
      const auto v = spec::parse_csv_number(s);
      if (!v || *v != std::floor(*v) || !c->bounds.contains(*v)) {
        fail(c, fmt::format("expected a whole number {}, found '{}'", whole_range(c), s));
        return;
      }
      out = static_cast<int>(*v);
    };
    r.id = get("id");
    r.source = get("source");
    r.hardware = get("hardware");
    r.model = get("model");
    r.precision = get("precision");
    r.metric = get("metric");
    r.unit = get("unit");
    r.stack = get("stack");
    r.notes = get("notes");
    count("hw_count", r.hw_count);
    num("mem_bw_gbs", r.mem_bw_gbs);
    num("params_b", r.params_b);
    num("input_len", r.input_len);
    num("output_len", r.output_len);
    count("batch", r.batch);
    // A throughput, a latency or a power: zero or less measures nothing.
    num("value", r.value);
    // Optional columns beyond the shared schema: whole counts (0 = not stated), a rate.
    auto whole = [&](Col c, int& out) {
      double v = 0;
      const bool was_ok = ok;
      num(c, v);
      if (ok && v != std::floor(v)) {
        fail(c, fmt::format("expected a whole number {}, found '{}'", whole_range(c), get(c)));
        return;
      }
      if (ok || !was_ok) out = static_cast<int>(v);
    };
    if (given("threads")) whole("threads", r.threads);
    if (given("tp")) whole("tp", r.tp);
    if (given("amx") && !get("amx").empty()) {
      int amx = 1;
      whole("amx", amx);
      r.amx = amx != 0;
    }
    if (given("moe_routing") && !get("moe_routing").empty()) {
      const std::string routing = get("moe_routing");
      if (routing == "same_experts") {
        r.moe_routing = MoeRouting::same_experts;
      } else if (routing != "uniform") {
        fail("moe_routing", fmt::format("expected uniform or same_experts, found '{}'", routing));
      }
    }
    if (given("serving_mode")) r.serving_mode = get("serving_mode");
    if (given("request_rate")) num("request_rate", r.request_rate);
    if (given("kv_precision") && !get("kv_precision").empty()) {
      r.kv_precision = get("kv_precision");
      if (!parse_dtype(r.kv_precision)) {
        fail("kv_precision", fmt::format("expected a precision (fp16, bf16, fp8, int8, ...), "
                                         "found '{}'",
                                         r.kv_precision));
      }
    }
    if (given("max_batch")) whole("max_batch", r.max_batch);
    if (given("max_num_tokens")) whole("max_num_tokens", r.max_num_tokens);
    // A column of one of two words (empty: not stated), read by its enum's from_name.
    auto either = [&](Col c, auto& out, auto from_name, std::string_view a, std::string_view b) {
      if (!given(c) || get(c).empty()) return;
      out = from_name(get(c));
      if (!out) fail(c, fmt::format("expected {} or {}, found '{}'", a, b, get(c)));
    };
    either("kv_admission", r.kv_admission, kv_admission_from_name, kKvAdmissionPromptName,
           kKvAdmissionFullSequenceName);
    either("dispatch", r.dispatch, dispatch_from_name, kDispatchLeastLoadedName,
           kDispatchSharedQueueName);
    const auto true_false = [](std::string_view s) -> std::optional<bool> {
      if (s == "true") return true;
      if (s == "false") return false;
      return std::nullopt;
    };
    either("chunked_prefill", r.chunked_prefill, true_false, "true", "false");
    std::optional<bool> graphs;
    either("prefill_cuda_graphs", graphs, true_false, "true", "false");
    r.prefill_cuda_graphs = graphs.value_or(false);
    if (given("beams")) whole("beams", r.beams);
    if (given("requests")) whole("requests", r.requests);
    if (given("pp")) whole("pp", r.pp);
    if (given("ttft_p99_limit_s")) num("ttft_p99_limit_s", r.ttft_p99_limit_s);
    if (given("tpot_p99_limit_s")) num("tpot_p99_limit_s", r.tpot_p99_limit_s);
    if (given("duration_s")) num("duration_s", r.duration_s);
    if (given("memory_fraction")) num("memory_fraction", r.memory_fraction);
    if (given("request_poll_steps")) whole("request_poll_steps", r.request_poll_steps);
    if (given("prompt_wait_steps")) whole("prompt_wait_steps", r.prompt_wait_steps);
    if (given("prompt_wait_tokens")) whole("prompt_wait_tokens", r.prompt_wait_tokens);
    if (given("input_len_points") && !get("input_len_points").empty()) {
      read_length_points(get("input_len_points"), "input_len", r.input_len, r.input_len_points,
                         [&](std::string msg) { fail("input_len_points", std::move(msg)); });
    }
    if (given("output_len_points") && !get("output_len_points").empty()) {
      read_length_points(get("output_len_points"), "output_len", r.output_len, r.output_len_points,
                         [&](std::string msg) { fail("output_len_points", std::move(msg)); });
    }
    if (ok) each(std::move(r));
  }
  if (!header) {
    diags.error(path, 1, 1, "", "expected a header line and data rows, found an empty file");
  } else if (data_rows == 0 && !diags.has_errors()) {
    diags.error(path, in.line(), 1, "",
                "expected data rows after the header, found none (a header-only file)");
  }
}

std::vector<MeasurementRow> read_measurements(const std::string& path, spec::Diagnostics& diags) {
  std::vector<MeasurementRow> rows;
  for_each_measurement(path, diags, [&](MeasurementRow&& r) { rows.push_back(std::move(r)); });
  return rows;
}

namespace {

double to_seconds(const MeasurementRow& r, double v) {
  return r.unit == "ms" ? v / 1000 : r.unit == "us" ? v / 1e6 : v;
}

// Static-batch and serving metrics (docs/validation.md lists the forms). Sets `reason` and
// returns nullopt for a serving row it cannot read; nullopt with an empty reason = not one of
// these metrics.
std::optional<BenchMetric> serving_metric(const MeasurementRow& r, BenchCase& c,
                                          std::string& reason) {
  const std::string& m = r.metric;
  c.prompt_tokens = r.input_len;
  c.output_tokens = r.output_len;
  if (r.serving_mode.empty()) {
    std::optional<BenchMetric> s;
    if (m == "tpot" || m == "itl") s = BenchMetric::tpot_s;
    if (m == "e2e_latency") s = BenchMetric::e2e_latency_s;
    if (m == "static_output_tokens_per_s") s = BenchMetric::static_output_tokens_per_s;
    if (s && is_latency_metric(*s)) c.measured = to_seconds(r, r.value);
    if (s && r.output_len < 1) {
      reason = "a static-batch row needs output_len >= 1";
      return std::nullopt;
    }
    return s;
  }
  const std::string mode = lower(r.serving_mode);
  if (mode == "concurrency") {
    c.serving = ServingMode::concurrency;
  } else if (mode == "rate") {
    c.serving = ServingMode::rate;
    c.request_rate_qps = r.request_rate;
    // A maximum-rate row finds its rate (a stated one is the submitter's, kept for the reader).
    // So does any rate row that states P99 limits: it was measured at the rate a submitter
    // raised until a limit would break (MLPerf Server), and is read at the model's own such rate.
    c.ttft_p99_limit_s = r.ttft_p99_limit_s;
    c.tpot_p99_limit_s = r.tpot_p99_limit_s;
    const bool limits = r.ttft_p99_limit_s > 0 || r.tpot_p99_limit_s > 0;
    if (m == "max_rate_output_tokens_per_s") {
      if (!limits) reason = "a maximum-rate row needs ttft_p99_limit_s or tpot_p99_limit_s";
    } else if (!limits && !(r.request_rate > 0)) {
      reason = "a fixed-rate serving row needs request_rate > 0";
    }
  } else if (mode == "offline") {
    c.serving = ServingMode::offline;
  } else {
    reason = fmt::format("serving_mode: expected concurrency, rate or offline, found '{}'",
                         r.serving_mode);
  }
  // tpot_*: per request, (e2e - TTFT) / (output - 1), then over requests (vLLM's TPOT,
  // genai-perf's and NIM's "ITL", MLPerf's TPOT); itl_*: every token gap pooled (vLLM's ITL).
  // A row names the one its benchmark computes; the notes say which tool printed it.
  static const std::map<std::string, BenchMetric> kForms{
      {"ttft_mean", BenchMetric::serving_ttft_mean_s},
      {"ttft_median", BenchMetric::serving_ttft_p50_s},
      {"ttft_p99", BenchMetric::serving_ttft_p99_s},
      {"tpot_mean", BenchMetric::serving_tpot_mean_s},
      {"tpot_median", BenchMetric::serving_tpot_p50_s},
      {"tpot_p99", BenchMetric::serving_tpot_p99_s},
      {"itl_mean", BenchMetric::serving_itl_mean_s},
      {"itl_median", BenchMetric::serving_itl_p50_s},
      {"itl_p99", BenchMetric::serving_itl_p99_s},
      {"e2e_latency_mean", BenchMetric::serving_e2e_mean_s},
      {"e2e_latency_median", BenchMetric::serving_e2e_p50_s},
      {"e2e_latency_p99", BenchMetric::serving_e2e_p99_s},
      {"output_tokens_per_s", BenchMetric::serving_output_tokens_per_s},
      {"offline_output_tokens_per_s", BenchMetric::serving_output_tokens_per_s},
      {"requests_per_s", BenchMetric::serving_requests_per_s},
      {"max_rate_output_tokens_per_s", BenchMetric::serving_max_rate_output_tokens_per_s}};
  const auto it = kForms.find(m);
  if (it == kForms.end()) {
    if (reason.empty()) reason = fmt::format("unknown serving metric '{}'", m);
    return std::nullopt;
  }
  if (it->second == BenchMetric::serving_max_rate_output_tokens_per_s &&
      c.serving != ServingMode::rate && reason.empty()) {
    reason = "a max_rate_output_tokens_per_s row is a Poisson run: expected serving_mode rate";
  }
  // Beam search first: it is why such a row cannot be predicted, whatever else it lacks.
  if (r.beams > 1 && reason.empty()) {
    reason = fmt::format(
        "beam search ({} beams) is not modelled: the simulator runs one sequence per request",
        r.beams);
  }
  // Pipeline stages (r.pp > 1) are resolved with the stack, in map_measurement().
  if (reason.empty() && (r.input_len < 1 || r.output_len < 1))
    reason = "a serving row needs input_len and output_len";
  c.max_seqs = r.max_batch;
  c.max_batched_tokens = r.max_num_tokens;
  c.requests = r.requests;
  c.duration_s = r.duration_s;
  c.memory_fraction = r.memory_fraction;
  c.request_poll_decode_steps = std::max(1, r.request_poll_steps);
  c.prompt_wait_steps = r.prompt_wait_steps;
  c.prompt_wait_tokens = r.prompt_wait_tokens;
  if (reason.empty() && r.duration_s > 0 && c.serving != ServingMode::rate)
    reason = "duration_s is a rate row's run length: this row is not serving_mode rate";
  // On a rate row, `requests` makes it a finite run of that many arrivals (a benchmark client's
  // count); a run length in seconds or a search for the highest rate says something else.
  if (reason.empty() && r.requests > 0 && c.serving == ServingMode::rate) {
    if (r.duration_s > 0) {
      reason = "a rate row's run is either requests (a finite run) or duration_s, not both";
    } else if (c.ttft_p99_limit_s > 0 || c.tpot_p99_limit_s > 0) {
      reason =
          "requests makes a rate row a finite run at its stated rate; P99 limits search "
          "for the rate: give one or the other";
    }
  }
  // On a concurrency row, `requests` is the run's count (benchmark_serving --num-prompts with
  // --max-concurrency): fewer requests than clients would leave clients that never send one.
  if (reason.empty() && r.requests > 0 && c.serving == ServingMode::concurrency &&
      r.requests < r.batch) {
    reason = fmt::format(
        "requests ({}) is the run's count at {} concurrent clients: expected at least one "
        "request a client",
        r.requests, r.batch);
  }
  c.prompt_len_points = r.input_len_points;
  c.output_len_points = r.output_len_points;
  if (!reason.empty()) return std::nullopt;
  if (is_latency_metric(it->second)) c.measured = to_seconds(r, r.value);
  return it->second;
}

}  // namespace

std::string stack_for_row(const MeasurementRow& r, const spec::Catalog& catalog, HwClass cls,
                          std::string* why) {
  if (catalog.find_stack(r.stack) != nullptr) return catalog.find_stack(r.stack)->name;
  const std::string s = lower(r.stack);
  if (s.find("llama.cpp") != std::string::npos || s.find("llama-bench") != std::string::npos) {
    return s.find("metal") != std::string::npos ? "llama.cpp-metal" : "llama.cpp";
  }
  if (s.find("vllm") != std::string::npos) return "vllm";
  if (s.find("tensorrt") != std::string::npos) return "tensorrt-llm";
  std::string d = default_stack_for(cls);
  if (why) *why = fmt::format("stack '{}' is not in the catalog; assumed '{}'", r.stack, d);
  return d;
}

void apply_engine_settings(const StackSpec* stack, const MeasurementRow& row, BenchCase& c) {
  c.reserve_full_sequence = stack != nullptr && stack->kv_admission == KvAdmission::full_sequence;
  c.prompt_schedule = stack != nullptr ? stack->prompt_schedule : PromptSchedule::chunked;
  c.schedule_one_step_ahead = stack != nullptr && stack->overlap_scheduling;
  // The engine's prompt scheduling as the row states it (MLPerf v4.1's harness builds its
  // TensorRT-LLM executor without chunked context: whole prompts behind the decodes).
  if (row.chunked_prefill) {
    c.prompt_schedule =
        *row.chunked_prefill ? PromptSchedule::chunked : PromptSchedule::whole_with_decodes;
  }
  // The engine's admission as the row states it (MLPerf's harness runs TensorRT-LLM with
  // MAX_UTILIZATION, not the GUARANTEED_NO_EVICT its stack defaults to).
  if (row.kv_admission) c.reserve_full_sequence = *row.kv_admission == KvAdmission::full_sequence;
}

MappedRow map_measurement(const MeasurementRow& r, const spec::Catalog& catalog,
                          const std::vector<HardwareSpec>& extra_hardware) {
  MappedRow m;
  m.row = r;
  const HardwareSpec* hw = catalog.find_hardware(r.hardware);
  for (const auto& h : extra_hardware) {
    if (hw != nullptr) break;
    if (spec::normalize_name(h.name) == spec::normalize_name(r.hardware)) hw = &h;
    for (const auto& a : h.aliases)
      if (hw == nullptr && spec::normalize_name(a) == spec::normalize_name(r.hardware)) hw = &h;
  }
  const ModelSpec* model = catalog.find_model(r.model);
  const auto prec = parse_dtype(r.precision);
  if (!hw) {
    m.reason = fmt::format("unknown hardware '{}'", r.hardware);
  } else if (!model) {
    m.reason = fmt::format("unknown model '{}'", r.model);
  } else if (!prec) {
    m.reason = fmt::format("unknown precision '{}'", r.precision);
  } else if (r.moe_routing == MoeRouting::same_experts && moe_layer_count(*model) == 0) {
    m.reason = fmt::format("moe_routing same_experts: model '{}' has no experts", r.model);
  }
  BenchCase c;
  if (m.reason.empty()) {
    c.id = r.id;
    c.source = r.source;
    c.model = *model;
    c.hardware = *hw;
    if (r.mem_bw_gbs > 0) c.hardware.memory_bandwidth_bytes_per_s = r.mem_bw_gbs * 1e9;
    c.batch = r.batch;
    c.measured = r.value;
    // llama.cpp keeps activations and the KV cache in f16 whatever the weight format.
    c.deployment.precision = {*prec, DType::fp16, DType::fp16};
    if (*prec == DType::fp32) c.deployment.precision = {DType::fp32, DType::fp32, DType::fp32};
    c.deployment.moe_routing = r.moe_routing;
    c.deployment.prefill_cuda_graphs = r.prefill_cuda_graphs;
    if (hw->hw_class == HwClass::cpu) {
      c.deployment.tp = r.hw_count;  // sockets of one server, NUMA-pinned shards
      c.deployment.cpu.threads_per_socket = r.threads;
      c.deployment.cpu.amx = r.amx;
    } else if (r.tp > 0) {
      // Tensor parallel as the row states; the other devices are data-parallel replicas.
      c.deployment.tp = r.tp;
      c.replicas = std::max(1, r.hw_count / r.tp);
    } else {
      c.deployment.pp = r.hw_count;  // llama.cpp's default split: whole layers per device
    }
    const std::string& metric = r.metric;
    // The token count a metric name ends in ("pp512" -> 512); 0 (no length) when it is not a
    // whole number in [1, 1e9], which the checks below report.
    auto suffix_n = [&](const std::string& prefix) -> double {
      const auto v = spec::parse_csv_number(std::string_view(metric).substr(prefix.size()));
      return v && *v >= 1 && *v <= kMaxTokens && *v == std::floor(*v) ? *v : 0;
    };
    if (metric.rfind("prefill_throughput_pp", 0) == 0) {
      c.metric = BenchMetric::prefill_tokens_per_s;
      c.prompt_tokens = suffix_n("prefill_throughput_pp");
    } else if (metric.rfind("decode_throughput_tg", 0) == 0) {
      c.metric = BenchMetric::generation_tokens_per_s;
      c.prompt_tokens = 0;
      c.output_tokens = suffix_n("decode_throughput_tg");
    } else if (metric == "decode_tokens_per_s") {
      c.metric = BenchMetric::generation_tokens_per_s;
      c.prompt_tokens = r.input_len;
      c.output_tokens = std::max(1.0, r.output_len);
    } else if (metric == "ttft") {
      c.metric = BenchMetric::ttft_s;
      c.prompt_tokens = r.input_len;
      if (r.unit == "ms") c.measured = r.value / 1000;
      if (r.input_len <= 0) m.reason = "ttft row without input_len";
    } else if (auto sm = serving_metric(r, c, m.reason); sm) {
      c.metric = *sm;
    } else if (!m.reason.empty()) {
      // serving_metric() explained why the row cannot be predicted
    } else if (metric == "system_power") {
      m.reason = "power is not a roofline output (plan's energy model covers it)";
    } else {
      m.reason = fmt::format("unknown metric '{}'", metric);
    }
    if (m.reason.empty() && (c.metric == BenchMetric::generation_tokens_per_s) &&
        c.output_tokens <= 0 && c.prompt_tokens <= 0) {
      m.reason = "generation row without a length";
    }
    if (m.reason.empty() && c.metric == BenchMetric::prefill_tokens_per_s && c.prompt_tokens <= 0) {
      m.reason = "prefill row without a length (expected prefill_throughput_pp<N>)";
    }
  }
  if (m.reason.empty()) {
    std::string why;
    m.stack_name = stack_for_row(r, catalog, hw->hw_class, &why);
    // llama.cpp's 8-bit format is Q8_0 (int8 blocks with an fp16 scale per 32 weights).
    if (m.stack_name.rfind("llama.cpp", 0) == 0 && c.deployment.precision.weights == DType::int8) {
      c.deployment.precision.weights = DType::q8_0;
    }
    // Other stacks: FP8 checkpoints (ModelOpt, compressed-tensors) quantise weights and
    // activations, and so do NVFP4 ones (W4A4 on Blackwell's FP4 tensor cores: ModelOpt's
    // "quant_algo": "NVFP4" quantises the activations of each GEMM to NVFP4 blocks too); 16-bit
    // rows compute in bf16. The KV cache stays 16-bit unless a row says otherwise (the public
    // tables do not state it).
    if (m.stack_name.rfind("llama.cpp", 0) != 0) {
      const DType w = c.deployment.precision.weights;
      if (w == DType::fp8) c.deployment.precision = {DType::fp8, DType::fp8, DType::bf16};
      if (w == DType::nvfp4) c.deployment.precision = {DType::nvfp4, DType::nvfp4, DType::bf16};
      if (w == DType::fp16 || w == DType::bf16) c.deployment.precision = {w, w, w};
    }
    apply_engine_settings(catalog.find_stack(m.stack_name), r, c);
    c.dispatch = r.dispatch;
    // Pipeline stages: an engine that keeps one micro-batch per stage in flight (the stack's
    // pipeline_microbatches) is simulated as that many interleaved engines; one that steps its
    // whole batch through the stages in turn would run at 1/pp of that, and is not predicted.
    // A static-batch row's pipeline stages would be read as one device's step: refused.
    if (r.pp > 1) {
      if (c.serving == ServingMode::none) {
        m.reason = fmt::format(
            "pipeline parallelism ({} stages) on a static-batch row is not modelled (only "
            "serving rows over stages are)",
            r.pp);
        return m;
      }
      const StackSpec* s = catalog.find_stack(m.stack_name);
      if (s == nullptr || !s->pipeline_microbatches) {
        m.reason = fmt::format(
            "pipeline parallelism ({} stages) on stack '{}': the stack does not state that its "
            "engine keeps a micro-batch per stage in flight (pipeline_microbatches)",
            r.pp, m.stack_name);
        return m;
      }
      if (r.pp > c.model.layers) {
        m.reason =
            fmt::format("pp {}: expected at most the model's {} layers", r.pp, c.model.layers);
        return m;
      }
      c.deployment.pp = r.pp;
      c.replicas = std::max(1, r.hw_count / (c.deployment.tp * r.pp));
    }
    // TensorRT-LLM serves FP8 from NVIDIA ModelOpt checkpoints, whose hf_quant_config.json
    // carries "kv_cache_quant_algo": "FP8" beside "quant_algo": "FP8" (ModelOpt's export, e.g.
    // modelopt/torch/export/convert_hf_config.py's FP8 example), and TensorRT-LLM's checkpoint
    // loader applies it: an FP8 row that states no KV format has an FP8 KV cache. (The static
    // rows state it: 'kv_cache_quant_algo FP8 in the page's engine configs'.) Without it, NIM's
    // sweep could not run: ~100 sequences of 5500 tokens at TP2 would need 180 GB of BF16 KV.
    if (m.stack_name == "tensorrt-llm" && r.kv_precision.empty() &&
        c.deployment.precision.weights == DType::fp8) {
      c.deployment.precision.kv = DType::fp8;
    }
    if (!r.kv_precision.empty()) {
      const auto kv = parse_dtype(r.kv_precision);
      if (!kv) {
        m.reason = fmt::format("kv_precision: unknown format '{}'", r.kv_precision);
        return m;
      }
      c.deployment.precision.kv = *kv;
    }
    m.bench = std::move(c);
  }
  return m;
}

std::vector<MappedRow> map_measurements(const std::vector<MeasurementRow>& rows,
                                        const spec::Catalog& catalog,
                                        const std::vector<HardwareSpec>& extra_hardware) {
  std::vector<MappedRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(map_measurement(r, catalog, extra_hardware));
  return out;
}

}  // namespace infercap::cli
