#include "stack_yaml.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include "infercap/spec/quoted.hpp"

namespace infercap::cli {

void record_fit_provenance(StackSpec& fitted, const std::vector<SourceRef>& base_sources,
                           SourceRef fit) {
  std::vector<SourceRef> sources;
  for (const auto& s : base_sources) {
    if (s.ref.rfind("fitted by", 0) != 0) sources.push_back(s);
  }
  sources.push_back(std::move(fit));
  fitted.sources = std::move(sources);
}

namespace {

// A YAML flow sequence of quoted scalars: ["a", "b"].
std::string flow_list(const std::vector<std::string>& items) {
  std::string o = "[";
  for (size_t i = 0; i < items.size(); ++i) o += (i ? ", " : "") + spec::quoted_scalar(items[i]);
  return o + "]";
}

}  // namespace

std::string stack_to_yaml(const StackSpec& s) {
  std::string o;
  o += "schema_version: 1\nkind: stack\n";
  o += "name: " + spec::quoted_scalar(s.name) + "\n";
  o += "aliases: " + flow_list(s.aliases) + "\n";
  o += "description: " + spec::quoted_scalar(s.description) + "\n";
  o += fmt::format("datasheet_peaks: {}\n", s.datasheet_peaks);
  o += fmt::format("memory_reserve_fraction: {:.6g}\n", s.memory_reserve_fraction);
  o += fmt::format("memory_reserve_bytes: {:.6g}\n", s.memory_reserve_bytes);
  if (s.kv_admission == KvAdmission::full_sequence)
    o += fmt::format("kv_admission: {}\n", kKvAdmissionFullSequenceName);
  if (s.pipeline_microbatches) o += "pipeline_microbatches: true\n";
  if (s.overlap_scheduling) o += "overlap_scheduling: true\n";
  if (!s.vendors.empty()) o += "vendors: " + flow_list(s.vendors) + "\n";
  if (s.prompt_schedule != PromptSchedule::chunked)
    o += fmt::format("prompt_schedule: {}\n", prompt_schedule_name(s.prompt_schedule));
  o += "classes:\n";
  for (int c = 0; c < kHwClassCount; ++c) {
    const StackEfficiency& e = s.per_class[static_cast<size_t>(c)];
    o += fmt::format("  {}:\n", hw_class_name(static_cast<HwClass>(c)));
    if (!e.supported) {
      o += "    supported: false\n";
      continue;
    }
    o += fmt::format("    weight_bandwidth_fraction: {:.4g}\n", e.weight_bandwidth_fraction);
    o += fmt::format("    kv_bandwidth_fraction: {:.4g}\n", e.kv_bandwidth_fraction);
    o += fmt::format("    gemm_compute_fraction: {:.4g}\n", e.gemm_compute_fraction);
    o += fmt::format("    quantised_gemm_compute_fraction: {:.4g}\n",
                     e.quantised_gemm_compute_fraction);
    if (e.fp4_gemm_compute_fraction > 0)
      o += fmt::format("    fp4_gemm_compute_fraction: {:.4g}\n", e.fp4_gemm_compute_fraction);
    o += fmt::format("    attention_compute_fraction: {:.4g}\n", e.attention_compute_fraction);
    o += fmt::format("    gemm_m_half: {:.4g}\n", e.gemm_m_half);
    if (e.gemm_overlap_norm_p > 0)
      o += fmt::format("    gemm_overlap_norm_p: {:.4g}\n", e.gemm_overlap_norm_p);
    o += fmt::format("    kernel_overhead_s: {:.4g}\n", e.kernel_overhead_s);
    o += fmt::format("    step_overhead_s: {:.4g}\n", e.step_overhead_s);
    if (e.prefill_launch_overhead_s > 0) {
      o += fmt::format("    prefill_launch_overhead_s: {:.4g}\n", e.prefill_launch_overhead_s);
    }
    o += fmt::format("    fused_attention: {}\n", e.fused_attention);
    if (e.attention_score_bytes_per_pair > 0) {
      o += fmt::format("    attention_score_bytes_per_pair: {:.4g}\n",
                       e.attention_score_bytes_per_pair);
    }
    o += fmt::format("    fused_elementwise: {}\n", e.fused_elementwise);
    if (!e.fp8_expert_gemm) o += "    fp8_expert_gemm: false\n";
    if (e.expert_gemm_mma_sync) o += "    expert_gemm_mma_sync: true\n";
    o += fmt::format("    block_formats_use_int8: {}\n", e.block_formats_use_int8);
    o += fmt::format("    issue_cycles_per_weight: {:.4g}\n", e.issue_cycles_per_weight);
    o += fmt::format("    quantised_issue_cycles_per_weight: {:.4g}\n",
                     e.quantised_issue_cycles_per_weight);
    o += fmt::format("    activation_bytes_per_element: {:.4g}\n", e.activation_bytes_per_element);
    o += fmt::format("    prefill_chunk_tokens: {:.6g}\n", e.prefill_chunk_tokens);
    o += fmt::format("    prefill_batch_tokens: {:.6g}\n", e.prefill_batch_tokens);
    o += fmt::format("    flops_per_watt: {:.4g}\n", e.flops_per_watt);
    if (e.cpu_isa_kernels) {
      o += "    cpu_isa_kernels: true\n";
      o += fmt::format("    amx_gemm_fraction: {:.4g}\n", e.amx_gemm_fraction);
      o += fmt::format("    fp16_gemm_compute_fraction: {:.4g}\n", e.fp16_gemm_compute_fraction);
      o += fmt::format("    dot_fraction: {:.4g}\n", e.dot_fraction);
      o += fmt::format("    quantised_dot_fraction: {:.4g}\n", e.quantised_dot_fraction);
      o += fmt::format("    amx_dot_fraction: {:.4g}\n", e.amx_dot_fraction);
      o += fmt::format("    dot_memory_overlap: {:.4g}\n", e.dot_memory_overlap);
      o += fmt::format("    core_bandwidth_bytes_per_s: {:.4g}\n", e.core_bandwidth_bytes_per_s);
    }
    if (e.cross_socket_compute_fraction != 1) {
      o += fmt::format("    cross_socket_compute_fraction: {:.4g}\n",
                       e.cross_socket_compute_fraction);
    }
  }
  o += "sources:\n";
  for (const auto& src : s.sources) {
    o += "  - fields: [";
    for (size_t i = 0; i < src.fields.size(); ++i)
      o += (i ? ", " : "") + spec::quoted_scalar(src.fields[i]);
    o += "]\n";
    o += "    ref: " + spec::quoted_scalar(src.ref) + "\n";
    if (!src.date.empty()) o += "    date: " + spec::quoted_scalar(src.date) + "\n";
    if (!src.note.empty()) o += "    note: " + spec::quoted_scalar(src.note) + "\n";
  }
  return o;
}

}  // namespace infercap::cli
