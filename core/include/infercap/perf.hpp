#pragma once
// The roofline performance model of one replica: a model on N devices with a stack and a
// precision. Construction resolves every rate once; afterwards `decode_step_s` and `prefill_s` are
// cheap closed forms (the serving simulator calls them millions of times).
//
//   op time = max(flops / achieved_compute(kind, M), bytes / achieved_bandwidth(kind))
//             + comm_bytes / link_bw + collectives * link_latency + kernels * kernel_overhead
//   step time = sum of op times + step_overhead
//
// docs/model.md states every formula with units.
#include <string>
#include <vector>

#include "infercap/calibration_profile.hpp"
#include "infercap/hardware.hpp"
#include "infercap/model.hpp"
#include "infercap/ops.hpp"
#include "infercap/precision.hpp"
#include "infercap/result.hpp"
#include "infercap/stack.hpp"

namespace infercap {

enum class NumaPolicy : unsigned char {
  pinned,  ///< each socket reads its own shard from local memory (numactl --cpunodebind/membind)
  interleave,   ///< pages spread over nodes, threads unpinned: half the traffic crosses the link
  single_node,  ///< all weights on one node (first-touch by the loading thread)
};

/// CPU-only deployment knobs the seeds measured. Defaults are documented in docs/model.md.
struct CpuOptions {
  int threads_per_socket = 0;  ///< 0 = all physical cores
  bool smt = false;            ///< run 2 threads per core; costs `smt_penalty` of bandwidth
  double smt_penalty = 0.13;   ///< seed 000 §4.3: HT off gave ~15% more (1/1.15 = 0.87)
  NumaPolicy numa = NumaPolicy::pinned;
  bool virtualized = false;
  double vm_bandwidth_factor = 0.45;  ///< seed 000 §4.3: bare metal "more than twice" a cloud VM
  /// The engine uses AMX tiles where the CPU has them. False for a build without them
  /// (llama.cpp's GGML_AMX_*=OFF, or a clang 14 build, which defines __AMXINT8__ where ggml tests
  /// __AMX_INT8__), so prefill runs on the AVX-512 dot loops and decode on the vector dot code.
  /// (A GCC 12 build of ggml's AMX path dies on its first tile load: GCC drops the stores that
  /// fill the tile configuration; ggml-org/llama.cpp PR #26954.)
  bool amx = true;
};

/// How a MoE model's router spreads a step's tokens over its experts.
enum class MoeRouting : unsigned char {
  /// Each token picks k of E experts independently and uniformly (a trained router, to first
  /// order): M tokens touch E (1 - (1 - k/E)^M) distinct experts.
  uniform,
  /// Every token of a step picks the same k experts. A benchmark artefact, not a deployment
  /// choice: TensorRT-LLM engines built without a checkpoint (`trtllm-build --model_config`, up
  /// to at least v0.10.0.dev2024043000) fill every weight with (randn * 2 - 1) * v_range, whose
  /// common mean makes all tokens' hidden states collinear after the first layer
  /// (docs/validation.md, MoE judge rows).
  same_experts,
};

struct Deployment {
  Precision precision;
  int tp = 1;  ///< tensor-parallel degree (devices sharing each layer); CPUs: sockets used
  int pp = 1;  ///< pipeline stages (layer split), executed one after another for a token
  CpuOptions cpu;
  /// Compute type override; unset = derived from the precision (see resolve_compute_type).
  std::optional<ComputeType> compute;
  MoeRouting moe_routing = MoeRouting::uniform;  ///< MoE models only
  /// The engine replays its prompt steps as piecewise CUDA graphs (SGLang
  /// --enable-piecewise-cuda-graph, TensorRT-LLM enable_piecewise_cuda_graph): only the eager
  /// attention pieces and one replay per layer are launched from the host, so the stack's
  /// prefill_launch_overhead_s floor counts those launches alone.
  bool prefill_cuda_graphs = false;
};

/// Which compute roof a GEMM with these formats runs on, for this hardware. Weight-only formats
/// (int4, nf4, fp8 weights with bf16 activations) dequantise and compute in the activation type;
/// W8A8 runs on int8, fp8xfp8 on fp8; llama.cpp block formats use int8 dot products where the
/// device has an int8 roof. Fails with a message when the device has no roof for the result.
Result<ComputeType> resolve_compute_type(const Precision& p, const HardwareSpec& hw);

struct MemoryReport {
  double weights_bytes = 0;     ///< per device
  double kv_bytes = 0;          ///< per device, at the queried batch and context
  double activation_bytes = 0;  ///< per device, peak working set of one step
  double reserve_bytes = 0;     ///< runtime and stack reserve
  double total_bytes = 0;
  double capacity_bytes = 0;
  double kv_bytes_per_token = 0;  ///< per device, per sequence token
  bool fits = false;
  int max_batch = 0;  ///< at the queried context
};

class PerfModel {
 public:
  static Result<PerfModel> create(const ModelSpec& model, const HardwareSpec& hw,
                                  const StackSpec& stack, const Deployment& dep,
                                  const CalibrationProfile* profile = nullptr);

  /// Time of one decode step: `batch` sequences each generating one token while attending over
  /// `context` cached tokens. Seconds.
  double decode_step_s(int batch, double context) const;
  /// Time to prefill `batch` prompts of `prompt` tokens each, on top of `past` cached tokens
  /// (chunked prefill). Seconds.
  double prefill_s(int batch, double prompt, double past = 0) const;
  /// Mixed step of continuous batching: `prefill_tokens` new prompt tokens (attending to about
  /// `prefill_context` tokens on average) fused with `decode_batch` decodes at `decode_context`.
  /// Priced as one prefill pass over prefill_tokens + decode_batch tokens plus
  /// decode_attention_s(decode_batch, decode_context). Seconds.
  double mixed_step_s(double prefill_tokens, double prefill_context, int decode_batch,
                      double decode_context) const;
  /// Attention of `batch` decodes over `context` cached tokens each, the part of a decode step
  /// that grows with the cache: max(FLOPs / attention rate, KV bytes / KV bandwidth), plus, on a
  /// stack without fused attention, its score matrix's traffic (pairs x heads x
  /// attention_score_bytes_per_pair / weight bandwidth), as step()'s attn_scores. Seconds;
  /// non-increasing in every rate, non-decreasing in batch and context.
  double decode_attention_s(int batch, double context) const;

  StepBreakdown decode_breakdown(int batch, double context) const;
  StepBreakdown prefill_breakdown(int batch, double prompt, double past = 0) const;

  /// Memory at `batch` sequences of `context` tokens; `max_batched_tokens` sizes activations.
  MemoryReport memory(int batch, double context, double max_batched_tokens = 0) const;
  /// Largest number of sequences of `context` tokens whose KV cache fits next to the weights.
  /// An encoder keeps no cache: its bound is the activations of one pass over the whole batch
  /// (per sequence: context x (2 hidden + (gate + 1) ffn / tp) x activation bytes, one layer's
  /// fp32 attention scores when the stack does not fuse attention, and the logits row), and
  /// `max_batched_tokens` does not apply (a request batch is one pass).
  int max_batch(double context, double max_batched_tokens = 0) const;

  const ModelSpec& model() const { return model_; }
  const HardwareSpec& hardware() const { return hw_; }
  const StackSpec& stack() const { return stack_; }
  const Deployment& deployment() const { return dep_; }
  ComputeType compute_type() const { return compute_; }
  int devices() const { return dep_.tp * dep_.pp; }

  /// Resolved achievable rates per device (after calibration, CPU options and stack fractions).
  struct Rates {
    double weight_bw = 0;     ///< bytes/s for weight streaming
    double kv_bw = 0;         ///< bytes/s for KV-cache reads
    double act_bw = 0;        ///< bytes/s for activations
    double gemm_flops = 0;    ///< FLOP/s for large GEMMs in compute_type()
    double attn_flops = 0;    ///< FLOP/s for attention math
    double link_bw = 0;       ///< bytes/s device to device
    double link_latency = 0;  ///< s per collective step
    double kernel_overhead = 0;
    double step_overhead = 0;
    double prefill_launch = 0;  ///< StackEfficiency::prefill_launch_overhead_s (0 = no floor)
    double gemm_m_half = 0;
    double gemm_overlap_norm_p = 0;  ///< StackEfficiency::gemm_overlap_norm_p (0 = max)
    double weights_per_s = 0;        ///< issue limit of weight-streaming ops (0 = none)
    double dot_memory_overlap = 1;   ///< CPU decode dot loop: share hidden under its loads
    /// CPU: bw(threads) / (threads x one thread's rate), 1 = unsaturated (few threads)
    double unsaturated_share = 1;
  };
  const Rates& rates() const { return rates_; }

 private:
  PerfModel() = default;
  template <bool kCollect>
  /// `extra_device_s`: device time priced outside the op list (a mixed step's decode
  /// attention), added before the eager host floor is applied.
  double step(double new_tokens_per_seq, int batch, double context, bool is_prefill,
              StepBreakdown* out, double extra_device_s = 0) const;
  double pipelined(double sequential_s, double tokens) const;
  /// Attention per layer and device: FLOPs of one query-key pair, bytes of one cached token.
  struct AttentionUnits {
    double flops_per_pair = 0;
    double kv_token_bytes = 0;
  };
  AttentionUnits attention_units(bool is_prefill) const;
  template <bool kCollect>
  double eval_ops(const OpCost* ops, int n, StepBreakdown* out, bool is_prefill) const;

  ModelSpec model_;
  HardwareSpec hw_;
  StackSpec stack_;
  Deployment dep_;
  ComputeType compute_ = ComputeType::bf16;
  StackEfficiency eff_;
  Rates rates_;
  // Per-device static sizes resolved at construction.
  double weight_bytes_dev_ = 0;
  double weight_bytes_per_element_ = 2;
  double kv_bytes_per_token_dev_ = 0;
  /// CPU kernels per instruction family: decode GEMMs over fewer than kCpuTileRows tokens run
  /// the dot-product loop (one pass over the weights per token), not the tiled kernel.
  bool cpu_dot_loop_ = false;
  /// llama.cpp files whose output projection llama-quantize stores in another format
  /// (llamacpp_output_tensor): its bytes per weight (0 = the weights' format) and issue scale.
  double lm_head_bytes_per_element_ = 0;
  double lm_head_issue_scale_ = 1;
};

}  // namespace infercap
