#include "infercap/spec/loaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "infercap/precision.hpp"
#include "infercap/spec/schema.hpp"
#include "infercap/spec/sources.hpp"
#include "infercap/units.hpp"

namespace infercap::spec {

namespace {

template <class T>
void get(Reader& r, std::string_view key, T& out, bool required, std::optional<Range> range = {}) {
  auto v = required ? r.template required<T>(key, range) : r.template optional<T>(key, range);
  if (v) out = std::move(*v);
}

void get_quantity(Reader& r, std::string_view key, Dim dim, double& out, bool required,
                  std::optional<Range> range = {}) {
  auto v = required ? r.required_quantity(key, dim, range) : r.optional_quantity(key, dim, range);
  if (v) out = *v;
}

void read_name(Reader& r, std::string& name, std::vector<std::string>& aliases, bool full) {
  if (auto n = full ? r.required<std::string>("name") : r.optional<std::string>("name")) {
    if (!is_catalog_name(*n)) {
      r.error("name",
              fmt::format("expected a lowercase name (letters, digits, '-', '.'), found {}",
                          quote_text(*n)),
              "free-text names belong in aliases");
    }
    name = std::move(*n);
  }
  if (auto a = r.optional<std::vector<std::string>>("aliases")) aliases = std::move(*a);
}

bool looks_like_path(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' ||
           c == ']' || c == '-';
  });
}

// Core's validate(...) says "key.path: message"; place each at that key.
void report_core(Reader& r, const std::vector<std::string>& messages) {
  for (const auto& m : messages) {
    const auto colon = m.find(": ");
    if (colon != std::string::npos && looks_like_path(std::string_view(m).substr(0, colon))) {
      const std::string path = m.substr(0, colon);
      Position p = r.locate(path);
      if (p.line == 0) p = r.position();
      r.diagnostics().error(r.file(), p.line, p.col, path, m.substr(colon + 2));
    } else {
      r.error_here(m);
    }
  }
}

// --- model ---------------------------------------------------------------------------------------

void read_model(Reader& r, ModelSpec& m, bool full) {
  read_name(r, m.name, m.aliases, full);
  get(r, "family", m.family, false);
  if (auto a = r.optional_enum<ModelArch>(
          "arch", {{"decoder", ModelArch::decoder}, {"encoder", ModelArch::encoder}}))
    m.arch = *a;

  // A head width that was derived from hidden / heads is derived again if those change.
  const bool head_dim_derived =
      full || (m.heads > 0 && m.head_dim > 0 && m.head_dim * m.heads == m.hidden);
  const int heads_before = m.heads;
  const int kv_before = m.kv_heads;

  get(r, "layers", m.layers, full, Range::positive());
  get(r, "hidden", m.hidden, full, Range::positive());
  get(r, "heads", m.heads, full, Range::positive());
  const bool kv_given = r.has("kv_heads");
  get(r, "kv_heads", m.kv_heads, false, Range::positive());
  const bool head_dim_given = r.has("head_dim");
  get(r, "head_dim", m.head_dim, false, Range::positive());
  get(r, "ffn_hidden", m.ffn_hidden, full, Range::positive());
  if (auto k = r.optional_enum<FfnKind>("ffn_kind",
                                        {{"swiglu", FfnKind::swiglu}, {"gelu", FfnKind::gelu}}))
    m.ffn_kind = *k;
  get(r, "vocab", m.vocab, full, Range::positive());
  get(r, "tied_embeddings", m.tied_embeddings, false);
  if (auto p = r.optional_enum<PositionKind>("position", {{"rotary", PositionKind::rotary},
                                                          {"learned", PositionKind::learned},
                                                          {"alibi", PositionKind::alibi}}))
    m.position = *p;
  get(r, "qkv_bias", m.qkv_bias, false);
  get(r, "parallel_attention", m.parallel_attention, false);
  get(r, "max_context", m.max_context, full, Range::positive());
  get(r, "published_params", m.published_params, false, Range::non_negative());

  if (auto moe = r.child("moe")) {
    get(*moe, "experts", m.moe.experts, full, Range::positive());
    get(*moe, "active_experts", m.moe.active_experts, full, Range::positive());
    get(*moe, "shared_experts", m.moe.shared_experts, false, Range::non_negative());
    get(*moe, "expert_ffn_hidden", m.moe.expert_ffn_hidden, full, Range::positive());
    get(*moe, "first_dense_layers", m.moe.first_dense_layers, false, Range::non_negative());
  }
  if (auto mla = r.child("mla")) {
    get(*mla, "q_lora_rank", m.mla.q_lora_rank, false, Range::non_negative());
    get(*mla, "kv_lora_rank", m.mla.kv_lora_rank, full, Range::positive());
    get(*mla, "qk_nope_head_dim", m.mla.qk_nope_head_dim, full, Range::positive());
    get(*mla, "qk_rope_head_dim", m.mla.qk_rope_head_dim, full, Range::positive());
    get(*mla, "v_head_dim", m.mla.v_head_dim, full, Range::positive());
  }

  // MHA unless stated: kv_heads follows heads when it was equal to them (or absent).
  if (!kv_given && (full || kv_before == heads_before)) m.kv_heads = m.heads;
  if (!head_dim_given && head_dim_derived && m.heads > 0 && m.hidden > 0) {
    if (m.hidden % m.heads == 0) {
      m.head_dim = m.hidden / m.heads;
    } else if (m.mla.enabled()) {
      m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    } else {
      r.error("heads",
              fmt::format("expected a divisor of hidden ({}) when head_dim is not given, found {}",
                          m.hidden, m.heads),
              "give head_dim if the heads are not hidden / heads wide");
    }
  }
}

void check_model(Reader& r, const ModelSpec& m) {
  report_core(r, validate(m));
}

// --- hardware ------------------------------------------------------------------------------------

void read_peaks(Reader& table, ComputeTable& out) {
  for (int i = 0; i < kComputeTypeCount; ++i) {
    const auto name = compute_type_name(static_cast<ComputeType>(i));
    get_quantity(table, name, Dim::flops_per_s, out[static_cast<std::size_t>(i)], false,
                 Range::positive());
  }
}

void read_hardware(Reader& r, HardwareSpec& h, bool full) {
  read_name(r, h.name, h.aliases, full);
  get(r, "vendor", h.vendor, false);
  get(r, "description", h.description, false);
  if (auto c = r.choice("class", hw_class_spellings(), full)) h.hw_class = static_cast<HwClass>(*c);

  auto dense = full ? r.required_child("dense_flops_per_s") : r.child("dense_flops_per_s");
  if (dense) {
    read_peaks(*dense, h.dense_flops_per_s);
    // The commonest catalog mistake: a datasheet's "with sparsity" figure under the dense key.
    for (const auto& k : dense->keys()) {
      if (k.find("sparse") == std::string::npos) continue;
      dense->ignore(k);
      dense->error(k, "sparse peak under a dense key",
                   "sparse peaks go under sparse_flops_per_s, keyed by compute type");
    }
  }
  if (auto sparse = r.child("sparse_flops_per_s")) read_peaks(*sparse, h.sparse_flops_per_s);
  for (int i = 0; i < kComputeTypeCount; ++i) {
    const auto t = static_cast<std::size_t>(i);
    const double d = h.dense_flops_per_s[t];
    const double s = h.sparse_flops_per_s[t];
    if (d > 0 && s > 0 && d >= s) {
      r.error_at_path(
          fmt::format("dense_flops_per_s.{}", compute_type_name(static_cast<ComputeType>(i))),
          fmt::format("expected a dense peak below the sparse one ({}), found {}",
                      format_quantity(s, Dim::flops_per_s, 4),
                      format_quantity(d, Dim::flops_per_s, 4)),
          "a 2:4 sparse peak is twice the dense one; is a sparse figure under the dense key?");
    }
  }

  get(r, "memory_bytes", h.memory_bytes, full, Range::positive());
  get(r, "memory_bandwidth_bytes_per_s", h.memory_bandwidth_bytes_per_s, full, Range::positive());
  get(r, "cache_bytes", h.cache_bytes, false, Range::non_negative());
  if (auto link = r.child("link")) {
    if (auto k = link->choice("kind", link_kind_spellings(), full))
      h.link_kind = link_kind_spellings()[*k];
    get(*link, "bandwidth_bytes_per_s", h.link_bandwidth_bytes_per_s, false, Range::non_negative());
    get(*link, "latency_s", h.link_latency_s, false, Range::non_negative());
  } else if (full) {
    h.link_kind = "none";
  }
  get(r, "compute_units", h.compute_units, false, Range::positive());
  get(r, "clock_hz", h.clock_hz, false, Range::non_negative());
  get(r, "mma_sync_peak_fraction", h.mma_sync_peak_fraction, false, Range::positive_fraction());
  get(r, "tdp_w", h.tdp_w, false, Range::non_negative());
  get(r, "idle_w", h.idle_w, false, Range::non_negative());
  get(r, "devices_per_server", h.devices_per_server, false, Range::positive());

  // Describe mode has no class: the cpu block is described as optional, with a note.
  if (h.hw_class != HwClass::cpu && !r.describing()) {
    if (r.has("cpu")) {
      r.ignore("cpu");
      r.error("cpu",
              fmt::format("expected no cpu block for class {}, found one",
                          hw_class_spellings()[static_cast<std::size_t>(h.hw_class)]),
              "only class cpu has one");
    }
    h.cpu.reset();
    return;
  }
  auto cpu = (full || !h.cpu) && !r.describing() ? r.required_child("cpu") : r.child("cpu");
  r.describe_note("cpu", "Required for class cpu, and only for it.");
  if (!cpu) return;
  if (!h.cpu) h.cpu = CpuTopology{};
  CpuTopology& c = *h.cpu;
  const bool need = full || c.cores == 0;
  get(*cpu, "cores", c.cores, need, Range::positive());
  get(*cpu, "threads_per_core", c.threads_per_core, false, Range::at_least(1));
  // Optional: a measured machine (a VM) cannot see its channels; the formula check needs both.
  get(*cpu, "memory_channels", c.memory_channels, false, Range::positive());
  get(*cpu, "memory_speed_mt_s", c.memory_speed_mt_s, false, Range::positive());
  get(*cpu, "numa_nodes_per_socket", c.numa_nodes_per_socket, false, Range::at_least(1));
  get(*cpu, "base_clock_hz", c.base_clock_hz, false, Range::positive());
  get(*cpu, "boost_clock_hz", c.boost_clock_hz, false, Range::positive());
  get(*cpu, "per_core_bandwidth_bytes_per_s", c.per_core_bandwidth_bytes_per_s, false,
      Range::non_negative());
  if (auto isa = cpu->choice_list("isa", cpu_isa_spellings(), false)) {
    c.avx2 = c.avx512 = c.avx512_bf16 = c.avx512_vnni = c.amx = false;
    for (auto i : *isa) {
      const std::string& s = cpu_isa_spellings()[i];
      if (s == "avx2") c.avx2 = true;
      if (s == "avx512") c.avx512 = true;
      if (s == "avx512_bf16") c.avx512_bf16 = true;
      if (s == "avx512_vnni") c.avx512_vnni = true;
      if (s.rfind("amx", 0) == 0) c.amx = true;
    }
  }
  // A socket's DRAM bandwidth is defined as channels x MT/s x 8 B (docs/spec-reference.md); a
  // figure that disagrees is a typo or a number from another configuration.
  const double formula = c.memory_channels * c.memory_speed_mt_s * 1e6 * 8.0;
  const double stated = h.memory_bandwidth_bytes_per_s;
  if (formula > 0 && stated > 0 && std::fabs(stated - formula) > 0.01 * formula) {
    r.error("memory_bandwidth_bytes_per_s",
            fmt::format("expected cpu.memory_channels x cpu.memory_speed_mt_s x 8 B = {}, found {}",
                        format_quantity(formula, Dim::bytes_per_s, 4),
                        format_quantity(stated, Dim::bytes_per_s, 4)));
  }
}

void check_hardware(Reader& r, const HardwareSpec& h) {
  report_core(r, validate(h));
}

// --- stack ---------------------------------------------------------------------------------------

void read_stack(Reader& r, StackSpec& s, bool full) {
  read_name(r, s.name, s.aliases, full);
  get(r, "description", s.description, false);
  get(r, "datasheet_peaks", s.datasheet_peaks, false);
  get(r, "memory_reserve_fraction", s.memory_reserve_fraction, false, Range{0, 1, true, false});
  get(r, "memory_reserve_bytes", s.memory_reserve_bytes, false, Range::non_negative());
  if (auto a = r.optional_enum<KvAdmission>(
          "kv_admission", {{kKvAdmissionPromptName, KvAdmission::prompt},
                           {kKvAdmissionFullSequenceName, KvAdmission::full_sequence}}))
    s.kv_admission = *a;
  get(r, "pipeline_microbatches", s.pipeline_microbatches, false);
  if (auto p = r.optional_enum<PromptSchedule>(
          "prompt_schedule", {{kPromptScheduleNames[0], PromptSchedule::chunked},
                              {kPromptScheduleNames[1], PromptSchedule::whole_prompt_steps},
                              {kPromptScheduleNames[2], PromptSchedule::whole_with_decodes}}))
    s.prompt_schedule = *p;
  get(r, "overlap_scheduling", s.overlap_scheduling, false);
  if (auto v = r.optional<std::vector<std::string>>("vendors")) s.vendors = std::move(*v);

  auto classes = full ? r.required_child("classes") : r.child("classes");
  if (full) {
    // A class the file does not list is one the stack does not run on.
    for (auto& e : s.per_class) {
      e = StackEfficiency{};
      e.supported = false;
    }
  }
  if (!classes) return;
  bool any = false;
  for (std::size_t i = 0; i < hw_class_spellings().size(); ++i) {
    auto c = classes->child(hw_class_spellings()[i]);
    if (!c) continue;
    any = true;
    StackEfficiency& e = s.per_class[i];
    e.supported = c->value_or<bool>("supported", true);
    c->describe_note("supported", "When false, none of the fractions below is required.");
    const bool need = full && e.supported && !c->describing();
    const auto frac = Range::positive_fraction();
    get(*c, "weight_bandwidth_fraction", e.weight_bandwidth_fraction, need, frac);
    get(*c, "kv_bandwidth_fraction", e.kv_bandwidth_fraction, need, frac);
    get(*c, "gemm_compute_fraction", e.gemm_compute_fraction, need, frac);
    const bool q_given = c->has("quantised_gemm_compute_fraction");
    const bool a_given = c->has("attention_compute_fraction");
    get(*c, "quantised_gemm_compute_fraction", e.quantised_gemm_compute_fraction, false, frac);
    get(*c, "fp4_gemm_compute_fraction", e.fp4_gemm_compute_fraction, false, frac);
    get(*c, "attention_compute_fraction", e.attention_compute_fraction, false, frac);
    if (full && !q_given) e.quantised_gemm_compute_fraction = e.gemm_compute_fraction;
    if (full && !a_given) e.attention_compute_fraction = e.gemm_compute_fraction;
    get(*c, "gemm_m_half", e.gemm_m_half, false, Range::non_negative());
    get(*c, "gemm_overlap_norm_p", e.gemm_overlap_norm_p, false, Range::non_negative());
    c->describe_note("gemm_overlap_norm_p",
                     "0 (not stated) = the roofline's max of a GEMM's compute and memory time; "
                     "else p >= 1 of (t_c^p + t_m^p)^(1/p), 1 adding them.");
    if (e.gemm_overlap_norm_p > 0 && e.gemm_overlap_norm_p < 1) {
      c->error("gemm_overlap_norm_p",
               fmt::format("expected 0 (not stated: the roofline's max) or a number >= 1 (1 adds "
                           "compute and memory time), found {}",
                           e.gemm_overlap_norm_p));
    }
    get(*c, "kernel_overhead_s", e.kernel_overhead_s, false, Range::non_negative());
    get(*c, "step_overhead_s", e.step_overhead_s, false, Range::non_negative());
    get(*c, "prefill_launch_overhead_s", e.prefill_launch_overhead_s, false, Range::non_negative());
    c->describe_note("prefill_launch_overhead_s",
                     "Host time per kernel launch of a step with prompt tokens, which the engine "
                     "runs eagerly (decode steps replayed as CUDA graphs): such a step takes the "
                     "longer of its device time and its launches x this; 0 (not stated) = not "
                     "modelled. A row or deployment with prefill CUDA graphs counts only the "
                     "launches of the eager attention pieces and one replay per layer.");
    get(*c, "fused_attention", e.fused_attention, false);
    get(*c, "attention_score_bytes_per_pair", e.attention_score_bytes_per_pair, false,
        Range::non_negative());
    c->describe_note("attention_score_bytes_per_pair",
                     "Only with fused_attention false: bytes per query-key pair and head that "
                     "the softmax and conversions between the two attention GEMMs move; 0 (not "
                     "stated) = 16, fp32 scores written, read, written and read.");
    get(*c, "fused_elementwise", e.fused_elementwise, false);
    get(*c, "fp8_expert_gemm", e.fp8_expert_gemm, false);
    get(*c, "expert_gemm_mma_sync", e.expert_gemm_mma_sync, false);
    get(*c, "block_formats_use_int8", e.block_formats_use_int8, false);
    get(*c, "issue_cycles_per_weight", e.issue_cycles_per_weight, false, Range::non_negative());
    get(*c, "quantised_issue_cycles_per_weight", e.quantised_issue_cycles_per_weight, false,
        Range::non_negative());
    get(*c, "activation_bytes_per_element", e.activation_bytes_per_element, false,
        Range::non_negative());
    get(*c, "prefill_chunk_tokens", e.prefill_chunk_tokens, false, Range::non_negative());
    get(*c, "prefill_batch_tokens", e.prefill_batch_tokens, false, Range::non_negative());
    get(*c, "flops_per_watt", e.flops_per_watt, false, Range::non_negative());
    get(*c, "cpu_isa_kernels", e.cpu_isa_kernels, false);
    get(*c, "amx_gemm_fraction", e.amx_gemm_fraction, false, frac);
    const bool f16_given = c->has("fp16_gemm_compute_fraction");
    get(*c, "fp16_gemm_compute_fraction", e.fp16_gemm_compute_fraction, false, frac);
    c->describe_note("fp16_gemm_compute_fraction",
                     "CPU kernels per instruction family only: prefill over F16 weights (fp32 FMA "
                     "after VCVTPH2PS) of the FMA peak; not stated = gemm_compute_fraction.");
    if (full && !f16_given) e.fp16_gemm_compute_fraction = e.gemm_compute_fraction;
    get(*c, "dot_fraction", e.dot_fraction, false, frac);
    get(*c, "quantised_dot_fraction", e.quantised_dot_fraction, false, frac);
    get(*c, "amx_dot_fraction", e.amx_dot_fraction, false, frac);
    get(*c, "dot_memory_overlap", e.dot_memory_overlap, false, frac);
    get(*c, "core_bandwidth_bytes_per_s", e.core_bandwidth_bytes_per_s, false,
        Range::non_negative());
    get(*c, "cross_socket_compute_fraction", e.cross_socket_compute_fraction, false, frac);
  }
  if (full && !any && classes->keys().empty())
    r.error("classes", "expected at least one of [cpu, gpu, npu, fpga], found an empty mapping");
}

void check_stack(Reader&, const StackSpec&) {}

// --- the common flow -----------------------------------------------------------------------------

template <class Spec, class ReadFn, class CheckFn>
std::optional<Spec> load_generic(const Document& doc, Diagnostics& diags, std::string_view kind,
                                 const LoadOptions& opts, const Presets<Spec>* presets, ReadFn read,
                                 CheckFn check) {
  if (!doc.ok) return std::nullopt;
  const std::size_t before = diags.error_count();
  Reader r = Reader::root(doc, diags);
  if (!r.valid() || !check_header(r, kind)) return std::nullopt;

  Spec spec{};
  bool overriding = false;
  std::string preset_name;
  if (r.has("preset")) {
    if (presets == nullptr) {
      r.ignore("preset");
      r.error("preset", fmt::format("expected a full {} spec here, found a preset override", kind),
              "presets apply to files given on the command line, not to catalog entries");
      return std::nullopt;
    }
    auto p = r.required<std::string>("preset");
    if (!p) return std::nullopt;
    const Spec* base = presets->find(*p);
    if (base == nullptr) {
      r.error("preset", fmt::format("unknown {} {}", presets->kind, quote_text(*p)),
              did_you_mean_text(presets->near(*p)));
      return std::nullopt;
    }
    spec = *base;
    spec.aliases.clear();
    spec.name = std::filesystem::path(doc.file).stem().string();
    overriding = true;
    preset_name = *p;
  }

  read(r, spec, !overriding);
  const bool need_sources = opts.require_sources && !overriding;
  const bool has_sources = r.has("sources");
  auto sources = read_sources(r, need_sources);
  r.finish();
  // Without any `sources:` the one "missing required key" says it all; no per-value noise.
  if ((need_sources || overriding) && has_sources) check_source_coverage(r, sources);
  if (overriding) {
    if (sources.empty()) {
      SourceRef s;
      for (const auto& f : r.numeric_fields()) s.fields.push_back(f.path);
      s.ref = fmt::format("override in {}", doc.file);
      s.note = fmt::format("user override of preset '{}'", preset_name);
      sources.push_back(std::move(s));
    }
    // The override's sources come first: they describe the values that replaced the preset's.
    sources.insert(sources.end(), spec.sources.begin(), spec.sources.end());
  }
  spec.sources = std::move(sources);
  if (diags.error_count() == before) check(r, spec);
  if (diags.error_count() != before) return std::nullopt;
  return spec;
}

// load_generic's reads over a describing reader (schema.hpp): the header, `preset:` (which
// lifts every requirement but the header's), the kind's keys and `sources:`.
template <class Spec, class ReadFn>
void describe_generic(SchemaObject& root, std::string_view kind, ReadFn read) {
  Diagnostics sink;
  Reader r = Reader::describer(root, sink);
  check_header(r, kind);
  r.optional<std::string>("preset");
  r.describe_note("preset",
                  "A catalog entry to start from (files given on the command line only); the "
                  "file's other keys override it, and none is required.");
  r.describe_required_unless("preset");
  Spec spec{};
  read(r, spec, true);
  read_sources(r, true);
  r.finish();
}

template <class Spec, class LoadFn>
std::optional<Spec> load_file(const std::string& path, Diagnostics& diags, const LoadOptions& o,
                              LoadFn load) {
  Document doc = parse_file(path, diags);
  if (!doc.ok) return std::nullopt;
  return load(doc, diags, o, nullptr);
}

}  // namespace

const std::vector<std::string>& hw_class_spellings() {
  static const std::vector<std::string> v{"cpu", "gpu", "npu", "fpga"};
  return v;
}

const std::vector<std::string>& link_kind_spellings() {
  static const std::vector<std::string> v{
      "nvlink",   "pcie",     "hccs",       "upi", "infinity-fabric",
      "ethernet", "mlu-link", "neuronlink", "none"};
  return v;
}

const std::vector<std::string>& cpu_isa_spellings() {
  // The first five set CpuTopology flags (amx_* imply amx); the rest are accepted so that a
  // datasheet's ISA list can be copied whole, and ignored by the model.
  static const std::vector<std::string> v{
      "avx2",     "avx512",   "avx512_bf16", "avx512_vnni", "amx", "amx_bf16",
      "amx_int8", "amx_fp16", "avx512_fp16", "avx_vnni",    "fma", "neon",
      "sve",      "sve2",     "dotprod",     "i8mm",        "bf16"};
  return v;
}

bool is_catalog_name(std::string_view name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  });
}

std::optional<ModelSpec> load_model(const Document& doc, Diagnostics& diags,
                                    const LoadOptions& opts, const Presets<ModelSpec>* presets) {
  return load_generic<ModelSpec>(doc, diags, "model", opts, presets, read_model, check_model);
}

std::optional<HardwareSpec> load_hardware(const Document& doc, Diagnostics& diags,
                                          const LoadOptions& opts,
                                          const Presets<HardwareSpec>* presets) {
  return load_generic<HardwareSpec>(doc, diags, "hardware", opts, presets, read_hardware,
                                    check_hardware);
}

std::optional<StackSpec> load_stack(const Document& doc, Diagnostics& diags,
                                    const LoadOptions& opts, const Presets<StackSpec>* presets) {
  return load_generic<StackSpec>(doc, diags, "stack", opts, presets, read_stack, check_stack);
}

void describe_model(SchemaObject& root) {
  describe_generic<ModelSpec>(root, "model", read_model);
}
void describe_hardware(SchemaObject& root) {
  describe_generic<HardwareSpec>(root, "hardware", read_hardware);
}
void describe_stack(SchemaObject& root) {
  describe_generic<StackSpec>(root, "stack", read_stack);
}

std::optional<ModelSpec> load_model_file(const std::string& path, Diagnostics& diags,
                                         const LoadOptions& opts) {
  return load_file<ModelSpec>(path, diags, opts, load_model);
}
std::optional<HardwareSpec> load_hardware_file(const std::string& path, Diagnostics& diags,
                                               const LoadOptions& opts) {
  return load_file<HardwareSpec>(path, diags, opts, load_hardware);
}
std::optional<StackSpec> load_stack_file(const std::string& path, Diagnostics& diags,
                                         const LoadOptions& opts) {
  return load_file<StackSpec>(path, diags, opts, load_stack);
}

}  // namespace infercap::spec
