#include "calibrate_import.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bench_import_keys.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "infercap/calibration/measurement_import.hpp"
#include "infercap/calibration/provenance.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap/spec/csv.hpp"
#include "infercap/spec/profile_io.hpp"
#include "infercap/spec/text_file.hpp"
#include "stack_yaml.hpp"

namespace infercap::cli {

namespace {

using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string stem(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  const auto dot = s.find('.');
  return dot == std::string::npos ? s : s.substr(0, dot);
}

// A device string ("NVIDIA GeForce RTX 4090") matched to the catalog through its aliases, with
// vendor words dropped as a fallback.
const HardwareSpec* match_hardware(const std::string& name, const spec::Catalog& catalog) {
  std::vector<std::string> tries{trim(name)};
  std::string s = trim(name);
  for (const char* drop : {"NVIDIA ", "GeForce ", "AMD ", "Intel(R) ", "Apple "}) {
    const auto p = s.find(drop);
    if (p != std::string::npos) {
      s.erase(p, std::string(drop).size());
      tries.push_back(s);
    }
  }
  std::string dashed = lower(s);
  std::replace(dashed.begin(), dashed.end(), ' ', '-');
  tries.push_back(dashed);
  for (const auto& t : tries)
    if (const HardwareSpec* h = catalog.find_hardware(t)) return h;
  return nullptr;
}

// "models/Meta-Llama-3-8B-Instruct-Q4_K_M.gguf" -> Meta-Llama-3-8B-Instruct, tried against the
// catalog's aliases with the quantisation suffix cut at each '-' / '.' from the right.
const ModelSpec* match_model(const std::string& name, const spec::Catalog& catalog) {
  std::string s = name.substr(name.find_last_of('/') + 1);
  if (s.size() > 5 && lower(s.substr(s.size() - 5)) == ".gguf") s.resize(s.size() - 5);
  if (const ModelSpec* m = catalog.find_model(name)) return m;
  while (!s.empty()) {
    if (const ModelSpec* m = catalog.find_model(s)) return m;
    const auto cut = s.find_last_of("-.");
    if (cut == std::string::npos) break;
    s.resize(cut);
  }
  return nullptr;
}

// llama-bench's model_type ends in the file type: "llama 8B Q4_K - Medium", "llama 7B mostly
// Q4_0", "llama 8B F16", "llama 8B BF16".
std::string precision_from_model_type(const std::string& t) {
  static const std::pair<const char*, const char*> kinds[] = {{"Q4_K - Medium", "Q4_K_M"},
                                                              {"Q4_K - Small", "Q4_K_S"},
                                                              {"Q5_K - Medium", "Q5_K_M"},
                                                              {"Q6_K", "Q6_K"},
                                                              {"Q8_0", "Q8_0"},
                                                              {"Q4_0", "Q4_0"},
                                                              {"BF16", "BF16"},
                                                              {"F16", "F16"},
                                                              {"F32", "F32"}};
  for (const auto& [pat, name] : kinds)
    if (t.find(pat) != std::string::npos) return name;
  return {};
}

double num_at(const json& j, std::string_view name, double dflt) {
  const std::string key(name);
  if (!j.contains(key)) return dflt;
  const auto& v = j.at(key);
  if (v.is_number()) return v.get<double>();
  // A number written as a string ("12.5" in llama-bench CSV); "nan", "inf" and text are absent.
  if (v.is_string()) return spec::parse_csv_number(v.get<std::string>()).value_or(dflt);
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return dflt;
}

std::string str_at(const json& j, std::string_view name) {
  const std::string key(name);
  if (!j.contains(key)) return {};
  const auto& v = j.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return {};
  return v.dump();
}

// Each reader names its keys through its table's key type (bench_import_keys.hpp), checked when
// this file is compiled.
double num(const json& j, LlamaBenchKey k, double dflt = 0) {
  return num_at(j, k.name(), dflt);
}
std::string str(const json& j, LlamaBenchKey k) {
  return str_at(j, k.name());
}
double vllm_num(const json& j, VllmKey k, double dflt = 0) {
  return num_at(j, k.name(), dflt);
}
std::string vllm_str(const json& j, VllmKey k) {
  return str_at(j, k.name());
}
bool vllm_has(const json& j, VllmKey k) {
  return j.contains(std::string(k.name()));
}

// A JSON syntax error at file:line:col (nlohmann reports the byte offset where it stopped).
Error json_error(const std::string& file, std::string_view text, const json::exception& e) {
  const auto* pe = dynamic_cast<const json::parse_error*>(&e);
  if (pe == nullptr || pe->byte == 0) return Error{fmt::format("{}: not JSON: {}", file, e.what())};
  const std::size_t end = std::min<std::size_t>(pe->byte - 1, text.size());
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return Error{fmt::format("{}:{}:{}: not JSON: {}", file, line, end - line_start + 1, e.what())};
}

// An error about `key` of a flat JSON object (a vLLM result), at file:line:col of the key's
// first occurrence; nlohmann keeps no positions, and a vLLM result names each key once.
Error json_key_error(const std::string& file, std::string_view text, const std::string& key,
                     const std::string& message) {
  const std::size_t at = text.find("\"" + key + "\"");
  if (at == std::string_view::npos) return Error{fmt::format("{}: {}: {}", file, key, message)};
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return Error{fmt::format("{}:{}:{}: {}: {}", file, line, at - line_start + 1, key, message)};
}

// One llama-bench result (a JSON object, or a CSV row turned into one) as a measurement row.
Result<MeasurementRow> llama_bench_row(const json& j, size_t index, const std::string& file,
                                       const BenchImportOptions& opt, const spec::Catalog& catalog,
                                       std::vector<std::string>& notes) {
  MeasurementRow r;
  r.file = file;
  r.line = static_cast<int>(index) + 1;
  r.id = fmt::format("{}-{}", stem(file), index + 1);
  const std::string commit = str(j, "build_commit");
  r.source = fmt::format("llama-bench result {} of {}{}", index + 1, file,
                         commit.empty() ? "" : ", llama.cpp build " + commit);
  const double n_prompt = num(j, "n_prompt"), n_gen = num(j, "n_gen");
  // Token counts become integers in the metric name: whole numbers up to the measurement
  // reader's ceiling (kMaxTokens, measurements.hpp), never a cast of 1e91 or of a fraction.
  static_assert(kMaxTokens == 1e9, "the message below states the ceiling");
  for (const auto& [key, v] : {std::pair{"n_prompt", n_prompt}, std::pair{"n_gen", n_gen}}) {
    if (!(v >= 0 && v <= kMaxTokens && v == std::floor(v))) {
      return Error{
          fmt::format("{}: result {}: {}: expected a whole number of tokens from 0 to "
                      "1e9, found {}",
                      file, index + 1, key, v)};
    }
  }
  const double ngl = num(j, "n_gpu_layers");
  // Hardware: the flag, else the GPU list when layers are offloaded, else the CPU.
  std::string hw_name = opt.hardware;
  const std::string gpu_info = str(j, "gpu_info");
  int devices = opt.devices;
  const bool on_gpu = ngl > 0 && !gpu_info.empty();
  if (hw_name.empty()) {
    std::string first = on_gpu ? gpu_info : str(j, "cpu_info");
    if (on_gpu) first = first.substr(0, first.find(','));
    const HardwareSpec* h = match_hardware(first, catalog);
    if (h == nullptr) {
      return Error{fmt::format("{}: result {}: '{}' matches no catalog hardware; pass --hardware",
                               file, index + 1, trim(first))};
    }
    hw_name = h->name;
  }
  if (devices <= 0)
    devices = on_gpu ? static_cast<int>(std::count(gpu_info.begin(), gpu_info.end(), ',')) + 1 : 1;
  r.hardware = hw_name;
  r.hw_count = devices;
  // Model and weight format.
  r.model = opt.model;
  if (r.model.empty()) {
    const ModelSpec* m = match_model(str(j, "model_filename"), catalog);
    if (m == nullptr) {
      return Error{
          fmt::format("{}: result {}: model file '{}' ({}) matches no catalog model; pass "
                      "--model",
                      file, index + 1, str(j, "model_filename"), str(j, "model_type"))};
    }
    r.model = m->name;
  }
  r.precision =
      opt.precision.empty() ? precision_from_model_type(str(j, "model_type")) : opt.precision;
  if (r.precision.empty()) {
    return Error{fmt::format("{}: result {}: no weight format in model_type '{}'; pass --precision",
                             file, index + 1, str(j, "model_type"))};
  }
  r.params_b = num(j, "model_n_params") / 1e9;
  r.batch = 1;
  r.value = num(j, "avg_ts");
  r.unit = "tokens/s";
  std::string backends = str(j, "backends");
  if (backends.empty()) {  // older builds: one boolean per backend
    static constexpr LlamaBenchKey kFlags[] = {"cuda", "metal",   "vulkan",
                                               "sycl", "kompute", "opencl"};
    for (const auto& b : kFlags) {
      if (num(j, b) > 0)
        backends += std::string(backends.empty() ? "" : ",") + std::string(b.name());
    }
  }
  r.stack = opt.stack.empty() ? "llama.cpp " + (on_gpu ? backends : std::string("CPU")) : opt.stack;
  r.notes =
      fmt::format("stddev {:.3g} tokens/s; n_threads {}; type_k {}; flash_attn {}",
                  num(j, "stddev_ts"), str(j, "n_threads"), str(j, "type_k"), str(j, "flash_attn"));
  if (n_prompt > 0 && n_gen == 0) {
    r.metric = fmt::format("prefill_throughput_pp{}", static_cast<long long>(n_prompt));
    r.input_len = n_prompt;
  } else if (n_gen > 0 && n_prompt == 0) {
    r.metric = fmt::format("decode_throughput_tg{}", static_cast<long long>(n_gen));
    r.output_len = n_gen;
  } else {
    notes.push_back(
        fmt::format("result {}: pp{}+tg{} mixes prefill and decode in one rate; skipped", index + 1,
                    n_prompt, n_gen));
    return Error{""};
  }
  if (!(r.value > 0))
    return Error{fmt::format("{}: result {}: avg_ts must be a positive rate", file, index + 1)};
  return r;
}

Result<BenchImport> llama_bench_rows(const json& arr, const std::string& file,
                                     const BenchImportOptions& opt, const spec::Catalog& catalog,
                                     const char* format) {
  BenchImport out;
  out.format = format;
  for (size_t i = 0; i < arr.size(); ++i) {
    auto r = llama_bench_row(arr[i], i, file, opt, catalog, out.notes);
    if (r) {
      out.rows.push_back(std::move(*r));
    } else if (!r.error().message.empty()) {
      return Error{r.error().message};
    }
  }
  if (out.rows.empty()) return Error{fmt::format("{}: no usable llama-bench results", file)};
  return out;
}

}  // namespace

Result<BenchImport> parse_llama_bench_json(std::string_view text, const std::string& file,
                                           const BenchImportOptions& opt,
                                           const spec::Catalog& catalog) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return json_error(file, text, e);
  }
  if (!j.is_array()) {
    return Error{
        fmt::format("{}: llama-bench JSON is an array of results (llama-bench -o json)", file)};
  }
  return llama_bench_rows(j, file, opt, catalog, "llama-bench-json");
}

Result<BenchImport> parse_llama_bench_csv(std::string_view text, const std::string& file,
                                          const BenchImportOptions& opt,
                                          const spec::Catalog& catalog) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::vector<std::string> header;
  json arr = json::array();
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim(line).empty()) continue;
    auto cells = spec::split_csv_line(line);
    if (header.empty()) {
      header = cells;
      std::map<std::string, size_t> seen;
      for (size_t i = 0; i < header.size(); ++i) {
        auto [it, fresh] = seen.emplace(header[i], i);
        if (!fresh) {
          return Error{
              fmt::format("{}:{}:{}: {}: expected each column once, found it again "
                          "(first at column {})",
                          file, lineno, i + 1, header[i], it->second + 1)};
        }
      }
      for (const auto& key : kLlamaBenchKeys) {
        if (!key.required) continue;
        const std::string need(key.name);
        if (std::find(header.begin(), header.end(), need) == header.end()) {
          return Error{
              fmt::format("{}:{}:1: {}: expected a '{}' column in a llama-bench CSV "
                          "header (llama-bench -o csv)",
                          file, lineno, need, need)};
        }
      }
      continue;
    }
    if (cells.size() != header.size()) {
      return Error{fmt::format("{}:{}:{}: cells: expected {} cells (the header's), found {}", file,
                               lineno, std::min(cells.size(), header.size()) + 1, header.size(),
                               cells.size())};
    }
    json o = json::object();
    for (size_t i = 0; i < cells.size(); ++i) o[header[i]] = cells[i];
    arr.push_back(std::move(o));
  }
  if (header.empty()) return Error{fmt::format("{}: empty CSV", file)};
  return llama_bench_rows(arr, file, opt, catalog, "llama-bench-csv");
}

Result<BenchImport> parse_vllm_json(std::string_view text, const std::string& file,
                                    const BenchImportOptions& opt, const spec::Catalog& catalog) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return json_error(file, text, e);
  }
  if (!j.is_object()) return Error{fmt::format("{}: a vLLM result is a JSON object", file)};
  BenchImport out;
  out.tensor_parallel = true;
  if (opt.hardware.empty())
    return Error{fmt::format("{}: vLLM results do not name the GPU; pass --hardware", file)};
  const HardwareSpec* hw = match_hardware(opt.hardware, catalog);
  if (hw == nullptr) return Error{fmt::format("--hardware: unknown hardware '{}'", opt.hardware)};
  MeasurementRow base;
  base.file = file;
  base.hardware = hw->name;
  base.hw_count = std::max(1, opt.devices);
  std::string model_name = opt.model.empty() ? vllm_str(j, "model_id") : opt.model;
  const ModelSpec* model = match_model(model_name, catalog);
  if (model == nullptr) {
    return Error{
        fmt::format("{}: model '{}' matches no catalog model; pass --model", file, model_name)};
  }
  base.model = model->name;
  base.precision = opt.precision.empty() ? "bf16" : opt.precision;
  base.stack = opt.stack.empty() ? "vllm" : opt.stack;
  base.batch = 1;
  if (vllm_has(j, "request_throughput") || vllm_has(j, "mean_ttft_ms")) {
    out.format = "vllm-serving";
    const double completed = vllm_num(j, "completed");
    if (!(completed > 0)) {
      return json_key_error(
          file, text, "completed",
          fmt::format("expected a positive count of requests, found {}",
                      vllm_has(j, "completed") ? j.at("completed").dump() : "none"));
    }
    const double in_len = vllm_num(j, "total_input_tokens") / completed;
    const double out_len = vllm_num(j, "total_output_tokens") / completed;
    const double conc = vllm_num(j, "max_concurrency");
    base.source = fmt::format("vLLM benchmark_serving, {} ({} requests, {})", file, completed,
                              vllm_str(j, "date"));
    base.input_len = in_len;
    base.output_len = out_len;
    if (conc == 1) {
      // One request at a time: TTFT is one prefill of the mean prompt, no queueing.
      MeasurementRow r = base;
      r.id = stem(file) + "-ttft";
      r.metric = "ttft";
      r.unit = "ms";
      r.value = vllm_num(j, "median_ttft_ms");
      r.notes = "median TTFT at max_concurrency 1";
      if (r.value > 0) out.rows.push_back(r);
    } else {
      out.notes.push_back(fmt::format(
          "TTFT skipped: at max_concurrency {} it includes queueing and co-scheduled prefills",
          conc > 0 ? fmt::format("{}", conc) : std::string("unbounded")));
    }
    if (conc >= 1) {
      // A closed loop of `conc` clients keeps about that many sequences decoding; TPOT is one
      // decode step of that batch at the mean context.
      MeasurementRow r = base;
      r.id = stem(file) + "-tpot";
      r.metric = "decode_tokens_per_s";
      r.unit = "tokens/s";
      r.batch = static_cast<int>(conc);
      const double tpot_ms = vllm_num(j, "median_tpot_ms", vllm_num(j, "mean_tpot_ms"));
      r.value = tpot_ms > 0 ? 1000.0 / tpot_ms : 0;
      r.notes = fmt::format("1000 / median TPOT {:.3g} ms at max_concurrency {}", tpot_ms, conc);
      if (r.value > 0) out.rows.push_back(r);
    } else {
      out.notes.push_back("TPOT skipped: without max_concurrency the decode batch is unknown");
    }
  } else if (vllm_has(j, "avg_latency")) {
    out.format = "vllm-latency";
    if (opt.input_len <= 0 || opt.output_len <= 0 || opt.batch <= 0) {
      return Error{
          fmt::format("{}: benchmark_latency JSON does not record its shape; pass "
                      "--input-len, --output-len and --batch-size",
                      file)};
    }
    if (opt.output_len > 1) {
      out.notes.push_back(fmt::format(
          "benchmark_latency with output_len {} mixes prefill and decode in one latency, which "
          "no metric of the fit describes; run it with --output-len 1 for a prefill (TTFT) row",
          opt.output_len));
    } else {
      MeasurementRow r = base;
      r.id = stem(file) + "-latency";
      r.source = fmt::format("vLLM benchmark_latency, {}", file);
      r.metric = "ttft";
      r.unit = "s";
      r.batch = opt.batch;
      r.input_len = opt.input_len;
      r.value = vllm_num(j, "avg_latency");
      r.notes = "avg_latency with output_len 1: one prefill of the batch (plus one sampled token)";
      if (r.value > 0) out.rows.push_back(r);
    }
  } else {
    return Error{
        fmt::format("{}: neither a benchmark_serving (request_throughput, mean_ttft_ms) "
                    "nor a benchmark_latency (avg_latency) result",
                    file)};
  }
  if (out.rows.empty()) {
    std::string why;
    for (const auto& n : out.notes) why += "\n  " + n;
    return Error{fmt::format("{}: no usable rows{}", file, why)};
  }
  return out;
}

Result<BenchImport> import_benchmark_file(const std::string& path, const BenchImportOptions& opt,
                                          const spec::Catalog& catalog) {
  auto read = spec::read_text_file(path);
  if (!read) return Error{fmt::format("{}: {}", path, read.error().message)};
  std::string_view text = *read;
  // A spreadsheet's UTF-8 byte-order mark is not part of the first cell.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (first < text.size() && text[first] == '[')
    return parse_llama_bench_json(text, path, opt, catalog);
  if (first < text.size() && text[first] == '{') return parse_vllm_json(text, path, opt, catalog);
  return parse_llama_bench_csv(text, path, opt, catalog);
}

std::vector<MappedRow> map_imported(const BenchImport& imp, const spec::Catalog& catalog) {
  auto rows = map_measurements(imp.rows, catalog);
  if (imp.tensor_parallel) {
    for (auto& m : rows) {
      if (m.bench && m.bench->hardware.hw_class != HwClass::cpu) {
        m.bench->deployment.tp = m.row.hw_count;
        m.bench->deployment.pp = 1;
        // vLLM keeps activations and KV in the model's 16-bit type unless told otherwise.
        m.bench->deployment.precision.activations = DType::bf16;
        m.bench->deployment.precision.kv = DType::bf16;
      }
    }
  }
  return rows;
}

std::vector<StackParam> import_fit_params(const std::vector<BenchCase>& cases) {
  int decode = 0, native_prefill = 0, quant_prefill = 0;
  for (const auto& c : cases) {
    if (c.metric == BenchMetric::generation_tokens_per_s) {
      ++decode;
    } else {
      ++(is_block_quantised(c.deployment.precision.weights) ? quant_prefill : native_prefill);
    }
  }
  std::vector<StackParam> p;
  if (decode > 0) p.push_back(StackParam::weight_bandwidth_fraction);
  if (native_prefill > 0) p.push_back(StackParam::gemm_compute_fraction);
  if (quant_prefill > 0) p.push_back(StackParam::quantised_gemm_compute_fraction);
  // The fixed cost per step only separates from bandwidth with several decode rows.
  if (decode >= 3) p.push_back(StackParam::step_overhead_s);
  while (!p.empty() && cases.size() <= p.size()) p.pop_back();
  return p;
}

std::shared_ptr<ImportArgs> add_import_options(CLI::App* sub) {
  auto a = std::make_shared<ImportArgs>();
  sub->add_option("--from-benchmarks", a->from_benchmarks,
                  "fit a stack to llama-bench JSON/CSV or vLLM benchmark_serving/_latency JSON "
                  "(-o: stack YAML)");
  sub->add_option("--import", a->import_files,
                  "fit a profile to imported NPU/profiler measurements (CSV or YAML); several "
                  "files of one device merge, the fastest kernel's figures kept");
  sub->add_option("--stack", a->stack, "with --from-benchmarks: the catalog stack to start from");
  sub->add_option("--model", a->opt.model,
                  "with --from-benchmarks: the model, if the file "
                  "does not name it");
  sub->add_option("--precision", a->opt.precision, "with --from-benchmarks: weight format");
  sub->add_option("--devices", a->opt.devices, "with --from-benchmarks: accelerators used");
  sub->add_option("--input-len", a->opt.input_len, "benchmark_latency: its --input-len");
  sub->add_option("--output-len", a->opt.output_len, "benchmark_latency: its --output-len");
  sub->add_option("--batch-size", a->opt.batch, "benchmark_latency: its --batch-size");
  return a;
}

std::vector<StackParam> sensitive_params(const std::vector<StackParam>& params,
                                         const StackSpec& start, HwClass cls,
                                         const std::vector<BenchCase>& cases,
                                         std::vector<std::string>* dropped) {
  std::vector<double> base;
  for (const auto& c : cases) {
    auto p = predict_case(c, start);
    base.push_back(p ? *p : 0);
  }
  std::vector<StackParam> keep;
  for (auto prm : params) {
    StackSpec moved = start;
    double* f = stack_param_field(moved.for_class(cls), prm);
    // A 1% step (down for fractions near 1, from a small floor for overheads at zero): the local
    // slope, so a limit that binds only after a large step does not count.
    const bool fraction = stack_param_is_fraction(prm);
    *f = *f <= 0 ? 1e-4 : (fraction && *f > 0.98 ? *f * 0.99 : *f * 1.01);
    double most = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      auto p = predict_case(cases[i], moved);
      if (p && base[i] > 0) most = std::max(most, std::fabs(*p / base[i] - 1));
    }
    if (most > 1e-5) {
      keep.push_back(prm);
    } else if (dropped != nullptr) {
      dropped->push_back(fmt::format(
          "{} moves no prediction of these rows (another limit binds, e.g. the power cap or the "
          "issue rate): not fitted",
          stack_param_name(prm)));
    }
  }
  return keep;
}

namespace {

int run_profile_import(const ImportArgs& a, const std::string& output,
                       const std::string& hardware) {
  std::vector<calibration::ImportedMeasurements> parts;
  std::string files;
  for (const auto& file : a.import_files) {
    auto part = calibration::read_measurement_file(file);
    if (!part) {
      fmt::print(stderr, "infercap calibrate: {}\n", part.error().message);
      return kExitSpec;
    }
    parts.push_back(std::move(*part));
    files += (files.empty() ? "" : " ") + file;
  }
  std::vector<std::string> merge_notes;
  auto m = calibration::merge_measurements(parts, a.import_files, &merge_notes);
  if (!m) {
    fmt::print(stderr, "infercap calibrate: {}\n", m.error().message);
    return kExitSpec;
  }
  if (!hardware.empty()) m->hardware = hardware;
  auto fit = calibration::fit_imported(*m);
  if (!fit) {
    fmt::print(stderr, "infercap calibrate: no profile written: {}\n", fit.error().message);
    return kExitCalibration;
  }
  fmt::print("imported {} rows from {}\n", m->rows.size(), files);
  for (const auto& n : merge_notes) fmt::print("  {}\n", n);
  for (const auto& n : fit->notes) fmt::print("  {}\n", n);
  for (const auto& r : fit->rejected) fmt::print("  rejected: {}\n", r);
  CalibrationProfile p = fit->profile;
  std::set<std::string> srcs(m->sources.begin(), m->sources.end());
  std::string joined;
  for (const auto& s : srcs) joined += (joined.empty() ? "" : " | ") + s;
  p.provenance.notes =
      trim(p.provenance.notes + (p.provenance.notes.empty() ? "" : " ") + "Row sources: " + joined);
  if (parts.size() > 1) {
    p.provenance.command =
        "infercap calibrate --import " + files + " (rows from: " + p.provenance.command + ")";
  } else if (p.provenance.command.empty()) {
    p.provenance.command = "infercap calibrate --import " + files;
  }
  if (p.provenance.date.empty()) p.provenance.date = calibration::iso_date_utc();
  if (output.empty()) {
    fmt::print("\n{}", spec::profile_to_yaml(p));
    return kExitOk;
  }
  auto saved = spec::save_profile(p, output, a.force);
  if (!saved) {
    fmt::print(stderr, "infercap calibrate: {}\n", saved.error().message);
    return kExitIo;
  }
  fmt::print("wrote {}\n", output);
  return kExitOk;
}

int run_stack_fit(const ImportArgs& a, const std::string& output, const std::string& hardware,
                  const std::string& data) {
  spec::Diagnostics diags;
  const auto catalog = spec::Catalog::load(data_dir_or_default(data), diags);
  if (diags.has_errors()) return print_diagnostics(diags);
  BenchImportOptions opt = a.opt;
  opt.hardware = hardware;
  opt.stack = a.stack;
  std::vector<MappedRow> mapped;
  std::vector<std::string> files_fmt;
  for (const auto& f : a.from_benchmarks) {
    auto imp = import_benchmark_file(f, opt, catalog);
    if (!imp) {
      fmt::print(stderr, "infercap calibrate: {}\n", imp.error().message);
      return kExitSpec;
    }
    files_fmt.push_back(fmt::format("{} ({})", f, imp->format));
    for (const auto& n : imp->notes) fmt::print("  note: {}\n", n);
    auto rows = map_imported(*imp, catalog);
    mapped.insert(mapped.end(), rows.begin(), rows.end());
  }
  // The stack to start from: --stack, else the one every row ran on.
  std::string stack_name = a.stack;
  std::set<std::string> stacks;
  for (const auto& m : mapped) {
    if (!m.bench) {
      fmt::print("  not used: {}: {}\n", m.row.id, m.reason);
      continue;
    }
    stacks.insert(m.stack_name);
  }
  if (stack_name.empty()) {
    if (stacks.size() != 1) {
      fmt::print(stderr, "infercap calibrate: rows ran on {} stacks ({}); pick one with --stack\n",
                 stacks.size(), fmt::join(stacks, ", "));
      return kExitUsage;
    }
    stack_name = *stacks.begin();
  }
  const StackSpec* base = catalog.find_stack(stack_name);
  if (base == nullptr) {
    fmt::print(stderr, "infercap calibrate: unknown stack '{}'\n", stack_name);
    return kExitSpec;
  }
  std::map<HwClass, std::vector<BenchCase>> by_class;
  for (const auto& m : mapped)
    if (m.bench) by_class[m.bench->hardware.hw_class].push_back(*m.bench);
  if (by_class.empty()) {
    fmt::print(stderr, "infercap calibrate: no row could be mapped to the catalog\n");
    return kExitSpec;
  }
  StackSpec fitted = *base;
  std::vector<std::string> summary;
  for (auto& [cls, cases] : by_class) {
    std::vector<std::string> dropped;
    const auto params = sensitive_params(import_fit_params(cases), fitted, cls, cases, &dropped);
    for (const auto& d : dropped) fmt::print("  note: {}\n", d);
    fmt::print("\n{} rows on {} ({}):\n", cases.size(), hw_class_name(cls), base->name);
    fmt::print("  {:<22} {:<24} {:>12} {:>12}\n", "id", "metric", "measured", "predicted");
    for (const auto& c : cases) {
      auto p = predict_case(c, fitted);
      fmt::print("  {:<22} {:<24} {:>12.4g} {:>12}\n", c.id, bench_metric_name(c.metric),
                 c.measured, p ? fmt::format("{:.4g}", *p) : p.error().message);
    }
    if (params.empty()) {
      fmt::print(stderr, "infercap calibrate: {} {} row(s) cannot determine any parameter\n",
                 cases.size(), hw_class_name(cls));
      return kExitCalibration;
    }
    auto r = fit_stack(fitted, cls, cases, params);
    if (!r) {
      fmt::print(stderr, "infercap calibrate: fit failed: {}\n", r.error().message);
      return kExitCalibration;
    }
    fitted = r->stack;
    fmt::print("  fitted (95% CI):\n");
    for (size_t i = 0; i < r->params.size(); ++i) {
      fmt::print("    {:<34} {:.4g}  [{:.4g}, {:.4g}]\n", stack_param_name(r->params[i]),
                 r->values[i], r->ci95_low[i], r->ci95_high[i]);
    }
    fmt::print("  rms log error {:.3f} -> {:.3f} over {} rows\n", r->rms_log_error_before,
               r->rms_log_error_after, r->cases);
    std::vector<std::string> names;
    for (auto prm : r->params) names.emplace_back(stack_param_name(prm));
    summary.push_back(fmt::format("{}: fitted {} on {} rows, rms log error {:.3f} -> {:.3f}",
                                  hw_class_name(cls), fmt::join(names, ", "), r->cases,
                                  r->rms_log_error_before, r->rms_log_error_after));
  }
  std::string cmd = "infercap calibrate";
  for (const auto& f : a.from_benchmarks) cmd += " --from-benchmarks " + f;
  if (!hardware.empty()) cmd += " --hardware " + hardware;
  if (!a.opt.model.empty()) cmd += " --model " + a.opt.model;
  cmd += " --stack " + base->name;
  SourceRef prov;
  prov.fields = {"classes.*"};
  prov.ref = fmt::format("fitted by `{}` from {}, commit {}", cmd, fmt::join(files_fmt, ", "),
                         calibration::source_commit("core cli"));
  prov.date = calibration::iso_date_utc().substr(0, 10);
  prov.note = fmt::format("{}", fmt::join(summary, "; "));
  record_fit_provenance(fitted, base->sources, std::move(prov));
  const std::string yaml = stack_to_yaml(fitted);
  if (output.empty()) {
    fmt::print("\n{}", yaml);
    return kExitOk;
  }
  if (auto w = spec::write_file_atomically(output, yaml, a.force); !w) {
    fmt::print(stderr, "infercap calibrate: {}\n", w.error().message);
    return kExitIo;
  }
  fmt::print("wrote {}\n", output);
  return kExitOk;
}

}  // namespace

int run_import(const ImportArgs& a, const std::string& output, const std::string& hardware,
               const std::string& data) {
  if (!a.import_files.empty() && !a.from_benchmarks.empty()) {
    fmt::print(stderr, "infercap calibrate: --import and --from-benchmarks exclude each other\n");
    return kExitUsage;
  }
  // The output path is checked before any file is read or fitted: a refusal costs nothing.
  if (!output.empty()) {
    if (auto ok = spec::check_output_path(output, a.force); !ok) {
      fmt::print(stderr, "infercap calibrate: {}\n", ok.error().message);
      return kExitIo;
    }
  }
  if (!a.import_files.empty()) return run_profile_import(a, output, hardware);
  return run_stack_fit(a, output, hardware, data);
}

}  // namespace infercap::cli
