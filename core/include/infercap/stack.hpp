#pragma once
// A serving stack (vLLM, TensorRT-LLM, llama.cpp, PyTorch eager, ...) as the roofline sees it:
// what fraction of the hardware's achievable rates it reaches per operator kind, and the fixed
// costs it adds. Fractions are relative to *achievable* rates (a calibration profile's measured
// bandwidth/compute, or datasheet peak x the class default achievable fraction), so a stack fitted
// on one device transfers to another. The `ideal` stack sets `datasheet_peaks` and all fractions
// to 1: the pure datasheet roofline.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/hardware.hpp"
#include "infercap/prompt_schedule.hpp"
#include "infercap/source.hpp"

namespace infercap {

struct StackEfficiency {
  bool supported = true;                       ///< the stack runs on this hardware class at all
  double weight_bandwidth_fraction = 1;        ///< streaming weights (GEMV / skinny GEMM)
  double kv_bandwidth_fraction = 1;            ///< reading the KV cache in attention
  double gemm_compute_fraction = 1;            ///< large GEMMs with native-format weights
  double quantised_gemm_compute_fraction = 1;  ///< large GEMMs with block-quantised weights
  /// Large GEMMs on the fp4 roof (NVFP4 x NVFP4), of that roof: 4-bit block-scaled kernels reach
  /// a smaller share of their peak than 16- and 8-bit ones. 0 = not stated: gemm_compute_fraction.
  double fp4_gemm_compute_fraction = 0;
  double attention_compute_fraction = 1;
  /// Small-M GEMMs reach compute_fraction * M / (M + gemm_m_half): tiles are not full.
  double gemm_m_half = 0;
  /// How a GEMM's compute time t_c and its memory time t_m combine: (t_c^p + t_m^p)^(1/p).
  /// 0 = not stated: the roofline's max(t_c, t_m), every byte hidden under the math. A real
  /// kernel hides its weight stream only in part where the two are close (M of a few hundred
  /// tokens: large-batch decode), so p = 1 would add them and p -> infinity is the max.
  double gemm_overlap_norm_p = 0;
  double kernel_overhead_s = 0;  ///< fixed time per kernel launch (or per op on CPUs)
  double step_overhead_s = 0;    ///< fixed time per forward step (scheduling, sampling)
  /// Host time per kernel launch of a step that carries prompt tokens, in an engine that replays
  /// decode steps as CUDA graphs but runs prompt steps eagerly (SGLang, TensorRT-LLM's PyTorch
  /// backend): the host issues the step's launches ahead of the device, so the step takes the
  /// longer of its device time and launches x this. Seconds; 0 = not modelled (the engine graphs
  /// its prompt steps too, or launches cost kernel_overhead_s alone).
  double prefill_launch_overhead_s = 0;
  bool fused_attention = true;  ///< flash-style attention; false materialises the score matrix
  /// With fused_attention false: bytes per query-key pair and head that the kernels between the
  /// two attention GEMMs move through memory (the score matrix written by QK^T, its softmax,
  /// any precision conversions, read back by PV). 0 = not stated: 16, fp32 scores written, read
  /// and written by the softmax, read by PV. llama.cpp's CUDA backend without flash attention
  /// moves 24 (cuBLAS writes fp16 scores, converted to fp32 for the softmax and back to fp16
  /// for PV); data/stacks/llama.cpp.yaml derives each class's figure from its code.
  double attention_score_bytes_per_pair = 0;
  /// Norms, activations and rotary fused into the neighbouring GEMMs (graph compilers such as
  /// TensorRT, Ascend ATC): no separate pass over the activations. false = one kernel each.
  bool fused_elementwise = false;
  /// false: the stack's MoE kernels have no FP8 path, so with FP8 weights the expert GEMMs keep
  /// 16-bit weights (2 bytes each, streamed as such) and run at the device's fp16 tensor rate;
  /// attention and the router still run FP8. TensorRT-LLM added FP8 for Mixtral's MoE only in
  /// v0.10.0 (its release notes: "Added FP8 quantization support for Mixtral").
  bool fp8_expert_gemm = true;
  /// true: the stack's MoE grouped GEMM is built on warp-level `mma.sync` on every architecture
  /// (CUTLASS 2.x instantiated for Sm80), so on a device whose `mma_sync_peak_fraction` is
  /// below 1 (Hopper) the expert GEMMs reach only that share of the tensor rate. TensorRT-LLM
  /// v0.9.0 sent sm_ >= 90 to its Sm80 MoE kernels ("TODO Update the arch to Sm90 once CUTLASS
  /// hopper specialisations are available", moe_gemm_kernels_template.h); Hopper MoE kernels
  /// came after it, before v0.10.0.
  bool expert_gemm_mma_sync = false;
  /// Block-quantised weights (q4_k_m, q8_0, ...) feed integer dot products where the device has an
  /// int8 roof; false = dequantise to the activation type and use its roof (llama.cpp CUDA in
  /// early 2024 dequantised to fp16 for cuBLAS when the batch exceeded a few tokens).
  bool block_formats_use_int8 = true;
  /// Instruction-issue limit of weight-streaming kernels: cycles one compute unit spends per
  /// weight element (load, convert, multiply-add). An op on W weights takes at least
  /// W * cycles / (units * clock). This is why the same GEMV reaches a smaller share of HBM's
  /// bandwidth than of GDDR's: few units at low clock cannot keep enough bytes in flight.
  /// 0 = no limit. `issue_cycles_per_weight` applies to native formats (bf16 x bf16, fp8 x fp8),
  /// `quantised_issue_cycles_per_weight` to formats whose kernel converts each weight first
  /// (converts_weights(): block formats and weight-only int8/int4), which pay their unpacking here.
  double issue_cycles_per_weight = 0;
  double quantised_issue_cycles_per_weight = 0;
  /// Bytes per activation element moved between kernels; 0 = the deployment's activation format.
  /// llama.cpp keeps activations in fp32 between ops (4) whatever the weight format.
  double activation_bytes_per_element = 0;
  /// Prompt tokens processed per forward pass (llama.cpp's n_ubatch). With pipeline stages
  /// (pp > 1) successive chunks overlap across stages; 0 = the whole prompt in one pass.
  double prefill_chunk_tokens = 0;
  /// Tokens submitted together (llama.cpp's n_batch): chunks overlap across pipeline stages only
  /// within one such batch. 0 = the whole prompt.
  double prefill_batch_tokens = 0;
  /// Sustained dense matrix throughput per watt of board power (FLOP/s per W). Under heavy
  /// tensor load a GPU clocks down to its power limit, so large GEMMs reach at most
  /// tdp_w x this. 0 = no power cap. A fitted stand-in for the device's energy per FLOP.
  double flops_per_watt = 0;

  // --- CPUs: kernels per instruction family (core/include/infercap/cpu_kernels.hpp) ---
  /// true: the stack's CPU rates come from the kernel it runs for each weight format (llama.cpp's
  /// choices), each at a fraction of that kernel family's peak: prefill at
  /// gemm_compute_fraction (native formats), fp16_gemm_compute_fraction (F16 weights),
  /// quantised_gemm_compute_fraction (block formats on vector units) or amx_gemm_fraction (AMX
  /// tiles); decode's dot-product loop is also limited to dot_fraction / quantised_dot_fraction /
  /// amx_dot_fraction of its family's peak. false: one fraction of the catalog's table roof for
  /// the compute type (the stack's own kernels are not modelled).
  bool cpu_isa_kernels = false;
  double amx_gemm_fraction = 1;  ///< AMX tile GEMMs (prefill) of the kernel's AMX peak
  /// Prefill GEMMs over F16 weights (VCVTPH2PS + fp32 FMA tiles) of the FMA peak, after the
  /// conversions' share of the FMA ports (llamacpp_prefill_fma_share). Its own fraction: on the
  /// three 2-core guests llama.cpp's F16 tile reaches 1.2-1.4x the fraction its BF16 and fp32
  /// tiles do (Zen 5: 62% of two AVX-512 FMA units against BF16's 42% of VDPBF16PS). Not stated =
  /// gemm_compute_fraction.
  double fp16_gemm_compute_fraction = 1;
  double dot_fraction = 1;            ///< batch-1 dot loop, native weights, of the family peak
  double quantised_dot_fraction = 1;  ///< same, block-quantised weights (unpacking, scales)
  /// Batch-1 decode of weights in llama.cpp's AMX buffer (Q4_0, Q4_K, Q8_0 where the engine runs
  /// AMX): a 512-bit VNNI GEMV over the buffer's packed layout with many accumulators, of the
  /// family peak (CpuKernel::int8_repack's). Its own fraction: it streams near the memory's rate
  /// where the plain dot loop and CPU_REPACK's 256-bit GEMV (quantised_dot_fraction) stall (on one
  /// thread of the Xeon VM, Qwen2.5-0.5B Q8_0 decodes at 16.5 tokens/s plain and 24.8 in the AMX
  /// buffer; Q4_0 at 20.5 repacked and 34.3 in the AMX buffer).
  double amx_dot_fraction = 1;
  /// How much of a thread's weight loads hide under its dot loop, in (0, 1]: a decode projection
  /// takes max(memory, dot + (1 - overlap) x memory x u), u = bw(threads) / (threads x one
  /// thread's rate) (1 with few threads, -> 0 on a saturated bus, where other threads fill the
  /// gaps). 1 = a pure roofline; small values: one thread's loads and arithmetic run one after
  /// the other, as few-thread llama.cpp decode does (measured on a 2-core Xeon VM,
  /// data/measurements/xeon-amx-vm-2c-llamabench-noamx.csv).
  double dot_memory_overlap = 1;
  /// Bandwidth one thread of this stack's kernels pulls when the catalog gives no per-core figure
  /// (software prefetch and row splitting set how many misses a thread keeps in flight);
  /// 0 = the model's class default (20 GB/s).
  double core_bandwidth_bytes_per_s = 0;
  /// CPUs with several sockets (tp > 1 on a CPU: one server's sockets): the share of each further
  /// socket's compute that a prefill across sockets adds to the first's, in (0, 1]. A run over S
  /// sockets reaches (1 + (S - 1) x this) x one socket's GEMM and attention rate. 1 = tensor
  /// parallel shards pinned to their sockets, S x; llama.cpp runs one thread pool over every
  /// socket with shared weights, which a second socket speeds up by 16-27% in public runs
  /// (data/stacks/llama.cpp.yaml). Bandwidth (decode) keeps the NUMA policy's model.
  double cross_socket_compute_fraction = 1;
};

/// When the engine admits a waiting request to the running batch.
enum class KvAdmission : unsigned char {
  /// When its prompt's KV blocks fit; later tokens take blocks as they come, and a full cache
  /// preempts (vLLM).
  prompt,
  /// Only when every block its whole sequence will fill is free, held from admission to the
  /// end, so nothing is ever evicted (TensorRT-LLM's default capacity scheduler,
  /// GUARANTEED_NO_EVICT, which reserves prompt + maximum output; the simulator reserves prompt
  /// + the request's actual output, which admits more: docs/serving.md).
  full_sequence,
};

/// KvAdmission as stacks (`kv_admission:`) and measurement rows (the `kv_admission` column)
/// spell it.
inline constexpr std::string_view kKvAdmissionPromptName = "prompt";
inline constexpr std::string_view kKvAdmissionFullSequenceName = "full_sequence";
/// The policy a spelling names; nullopt for anything else.
inline std::optional<KvAdmission> kv_admission_from_name(std::string_view s) {
  if (s == kKvAdmissionPromptName) return KvAdmission::prompt;
  if (s == kKvAdmissionFullSequenceName) return KvAdmission::full_sequence;
  return std::nullopt;
}

struct StackSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  bool datasheet_peaks = false;  ///< true for `ideal`: use datasheet peaks, not achievable rates
  std::array<StackEfficiency, kHwClassCount> per_class{};
  double memory_reserve_fraction = 0;              ///< of device memory kept back (vLLM: 1 - 0.9)
  double memory_reserve_bytes = 0;                 ///< runtime context, workspace, graphs
  KvAdmission kv_admission = KvAdmission::prompt;  ///< ServingConfig::reserve_full_sequence
  /// Over pipeline stages (pp > 1) the engine keeps one micro-batch per stage in flight, each
  /// with its own scheduler slots (max_seqs) and 1/pp of the KV cache, so every stage works on
  /// a different micro-batch at once (TensorRT-LLM's in-flight batching: pp micro-batches,
  /// maxNumSequences = maxBatchSize x pp; vLLM's V0 engine: one scheduler per stage, each with
  /// num_gpu_blocks / pp). false: a replica steps its whole batch through the stages one after
  /// another, and a serving run over stages is not predicted.
  bool pipeline_microbatches = false;
  /// The engine's default prompt scheduling in `validate`'s serving rows: chunked, prompts split
  /// into chunks that fill each step's token budget beside the decodes (vLLM v1);
  /// whole_with_decodes, each prompt whole in one step behind that step's decodes, a prompt that
  /// does not fit the remaining budget waiting with those behind it (TensorRT-LLM's in-flight
  /// batching, whose chunked context is opt-in); whole_prompt_steps, steps of whole prompts only,
  /// run before any decode while prompts wait (SGLang's default prefill-first scheduler).
  PromptSchedule prompt_schedule = PromptSchedule::chunked;
  /// The engine schedules one step ahead (ServingConfig::schedule_one_step_ahead): SGLang v0.4's
  /// zero-overhead batch scheduler; `validate`'s serving rows run so.
  bool overlap_scheduling = false;
  /// Hardware vendors the stack's kernels run on, as the catalog names them (HardwareSpec::vendor:
  /// "nvidia", "amd", ...); empty = any vendor its classes support. TensorRT-LLM builds for CUDA
  /// only, and one engine's ROCm build runs other kernels (AMD's aiter, RCCL, HIP graphs) whose
  /// costs are their own stack.
  std::vector<std::string> vendors;
  std::vector<SourceRef> sources;  ///< provenance: the fit command, rows, date, commit

  const StackEfficiency& for_class(HwClass c) const { return per_class[static_cast<int>(c)]; }
  StackEfficiency& for_class(HwClass c) { return per_class[static_cast<int>(c)]; }
};

/// Why `stack` cannot run on `hw`, in words for the user ("stack 'tensorrt-llm' runs on nvidia
/// hardware; 'mi300x' is amd"); nullopt when it can: its class is supported and, where the stack
/// names vendors, the hardware's vendor is one of them (hardware without a vendor passes).
std::optional<std::string> stack_mismatch(const StackSpec& stack, const HardwareSpec& hw);
/// stack_mismatch(stack, hw) is nullopt: the capability check every candidate and prediction
/// passes before it is priced.
inline bool stack_runs_on(const StackSpec& stack, const HardwareSpec& hw) {
  return !stack_mismatch(stack, hw).has_value();
}

/// The built-in datasheet roofline: every fraction 1, no overheads, no reserve.
StackSpec ideal_stack();

}  // namespace infercap
