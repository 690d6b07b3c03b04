// PerfModel's time questions: one forward step as a list of operators (perf.hpp, ops.hpp),
// each priced on the rates PerfModel::create resolved (perf_rates.cpp); prefill, decode and the
// mixed steps of continuous batching built from it. Memory per device: perf_memory.cpp.
#include <algorithm>
#include <array>
#include <cmath>

#include "infercap/perf.hpp"

namespace infercap {

namespace {

// Flash-attention query tile: each tile re-reads the keys before it.
constexpr double kAttentionQueryTile = 128.0;
// Unfused attention keeps fp32 scores: written, read for softmax, written, read for PV (a
// stack's attention_score_bytes_per_pair replaces it where its kernels move more).
constexpr double kUnfusedScoreBytesPerPair = 4.0 * 4.0;

// Rows of a CPU GEMM tile (tinyBLAS / repack kernels tile 4-8 rows of activations): below this
// many tokens a decode GEMM runs the per-token dot loop.
constexpr double kCpuTileRows = 8.0;

/// Bytes per query-key pair and head that an unfused attention's score matrix moves.
double score_bytes_per_pair(const StackEfficiency& e) {
  return e.attention_score_bytes_per_pair > 0 ? e.attention_score_bytes_per_pair
                                              : kUnfusedScoreBytesPerPair;
}

}  // namespace

template <bool kCollect>
double PerfModel::eval_ops(const OpCost* ops, int n, StepBreakdown* out, bool is_prefill) const {
  const Rates& r = rates_;
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const OpCost& o = ops[i];
    double flop_rate = o.kind == OpKind::attention ? r.attn_flops : r.gemm_flops;
    if ((o.kind == OpKind::gemm || o.kind == OpKind::expert_gemm) && r.gemm_m_half > 0) {
      flop_rate *= o.gemm_m / (o.gemm_m + r.gemm_m_half);
    }
    // Only ops priced at another compute type (MoE experts without FP8) take the factor; the
    // others skip the multiply, so their times stay bit-identical to the rate without it.
    if (o.compute_rate_factor != 1.0) flop_rate *= o.compute_rate_factor;
    const double compute_s = o.flops > 0 ? o.flops / flop_rate : 0.0;
    const double memory_s =
        (o.weight_bytes + o.activation_bytes) / r.weight_bw + o.kv_bytes / r.kv_bw;
    const double comm_s =
        o.comm_bytes > 0 ? o.comm_bytes / r.link_bw + o.collectives * r.link_latency : 0.0;
    const double overhead_s = o.kernels * r.kernel_overhead;
    // Weight-streaming kernels are also limited by how fast their units issue per weight.
    double issue_s = 0;
    const bool is_gemm = o.kind == OpKind::gemm || o.kind == OpKind::expert_gemm;
    if (r.weights_per_s > 0 && is_gemm) {
      issue_s = o.weight_bytes / weight_bytes_per_element_ / r.weights_per_s * o.issue_scale;
    }
    double compute_used = compute_s;
    double serial_s = 0;  // the part of the dot loop its loads do not hide
    if (cpu_dot_loop_ && is_gemm && !is_prefill && o.gemm_m < kCpuTileRows) {
      // A few tokens: one dot-product pass over the weights per token; the tiled kernel's rate
      // does not apply.
      issue_s *= std::max(1.0, o.gemm_m);
      compute_used = 0;
      // Each thread waits on its own loads for the part its loop does not overlap; threads
      // overlap one another, so once the bus saturates the stream alone sets the time.
      serial_s = (1.0 - r.dot_memory_overlap) * memory_s * r.unsaturated_share;
    }
    double core = std::max(compute_used, memory_s);
    if (is_gemm && r.gemm_overlap_norm_p > 0 && compute_used > 0 && memory_s > 0) {
      // (t_c^p + t_m^p)^(1/p), written as max x (1 + (min/max)^p)^(1/p) so it cannot overflow.
      const double p = r.gemm_overlap_norm_p;
      const double lo = std::min(compute_used, memory_s);
      core *= std::pow(1.0 + std::pow(lo / core, p), 1.0 / p);
    }
    const double t = std::max(core, issue_s + serial_s) + comm_s + overhead_s;
    total += t;
    if constexpr (kCollect) {
      OpTime ot;
      ot.cost = o;
      ot.memory_s = memory_s;
      ot.comm_s = comm_s;
      ot.overhead_s = overhead_s;
      ot.time_s = t;
      ot.issue_s = issue_s;
      ot.compute_s = compute_used;
      const double top = std::max({compute_used, memory_s, issue_s, comm_s, overhead_s});
      ot.bound = top == comm_s && comm_s > 0           ? Bound::communication
                 : top == overhead_s && overhead_s > 0 ? Bound::overhead
                 : top == issue_s && issue_s > 0       ? Bound::issue
                 : compute_used >= memory_s            ? Bound::compute
                                                       : Bound::memory;
      out->ops.push_back(ot);
      out->flops += o.flops;
      out->bytes += o.weight_bytes + o.activation_bytes + o.kv_bytes;
    }
  }
  return total;
}

// One forward step: `batch` sequences each adding `q` tokens on top of `past` cached ones.
// Every operator is written once per layer type and multiplied by the layer count, so the cost
// of a prediction does not grow with depth.
template <bool kCollect>
double PerfModel::step(double q, int batch, double past, bool is_prefill, StepBreakdown* out,
                       double extra_device_s) const {
  const ModelSpec& md = model_;
  const double tp = dep_.tp;
  const double B = batch;
  const double M = B * q;  // tokens in the step
  const double h = md.hidden;
  const double wb = weight_bytes_per_element_;  // as streamed: the engine's layout where it packs
  const double ab = eff_.activation_bytes_per_element > 0 ? eff_.activation_bytes_per_element
                    : bytes_per_element(dep_.precision.activations) >= 2
                        ? bytes_per_element(dep_.precision.activations)
                        : 2.0;  // int8/fp8 activations still move as 16-bit between kernels
  const double heads_d = std::max(1.0, md.heads / tp);
  const double kv_heads_d = std::ceil(md.kv_heads / tp);
  const bool encoder = md.arch == ModelArch::encoder;
  const bool mla = md.mla.enabled();

  // Query-key pairs per head: causal for decoders, full for encoders.
  const double pairs = encoder ? B * q * (past + q) : B * (q * past + q * (q + 1.0) / 2.0);

  const int n_moe = moe_layer_count(md);
  const int n_dense = md.layers - n_moe;

  std::array<OpCost, 16> ops{};
  int n = 0;
  // An eager engine quantises a GEMM's FP8/FP4/INT8 input in a kernel of its own, unless the
  // stack fuses it into the neighbouring kernels (fused_elementwise).
  const double quant_launch =
      !eff_.fused_elementwise && bytes_per_element(dep_.precision.activations) < 2 ? 1.0 : 0.0;
  auto add = [&](OpCost o) { ops[static_cast<size_t>(n++)] = o; };
  // Host launches of an eager prompt step, counted only where the stack prices them. With
  // piecewise prefill graphs the host launches the attention pieces and replays one graph per
  // layer between them.
  const bool eager_floor = is_prefill && rates_.prefill_launch > 0;
  double launches = 0;
  auto count_launches = [&] {
    if (!eager_floor) return;
    for (int i = 0; i < n; ++i) {
      const OpCost& o = ops[static_cast<size_t>(i)];
      if (!dep_.prefill_cuda_graphs || o.kind == OpKind::attention) launches += o.launches;
    }
  };
  auto gemm = [&](std::string_view name, OpKind kind, double m_rows, double k, double nn,
                  double weights, double count, double kernels) {
    OpCost o;
    o.name = name;
    o.kind = kind;
    o.flops = 2.0 * m_rows * k * nn * count;
    o.weight_bytes = weights * wb * count;
    o.activation_bytes = m_rows * (k + nn) * ab * count;
    o.kernels = kernels * count;
    o.launches = kernels * (1.0 + quant_launch) * count;
    o.gemm_m = m_rows;
    add(o);
  };
  auto elementwise = [&](std::string_view name, OpKind kind, double elems, double count,
                         double kernels) {
    if (eff_.fused_elementwise) return;  // folded into a GEMM epilogue or prologue
    OpCost o;
    o.name = name;
    o.kind = kind;
    o.flops = 4.0 * elems * count;
    o.activation_bytes = 2.0 * elems * ab * count;
    o.kernels = kernels * count;
    o.launches = o.kernels;
    add(o);
  };

  double total = 0;
  const double L = md.layers;

  // --- attention block (same in every layer) ---
  elementwise("attn_norm", OpKind::norm, M * h, L, 1);
  if (mla) {
    const auto& a = md.mla;
    const double qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double q_w = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * heads_d * qk_head
                                         : h * heads_d * qk_head;
    const double kv_a = h * (a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_b = a.kv_lora_rank * heads_d * (a.qk_nope_head_dim + a.v_head_dim);
    gemm("q_kv_proj", OpKind::gemm, M, h, (q_w + kv_a + kv_b) / h, q_w + kv_a + kv_b, L, 4);
    // Eager MLA also runs the two latent norms, the rotary part and the copies that split and
    // join the rotary and non-rotary halves of the query and key.
    ops[static_cast<size_t>(n - 1)].launches += 5.0 * L;
  } else {
    const double n_qkv = (heads_d + 2.0 * kv_heads_d) * md.head_dim;
    gemm("qkv_proj", OpKind::gemm, M, h, n_qkv, h * n_qkv, L, 1);
    if (md.position == PositionKind::rotary) {
      elementwise("rotary", OpKind::elementwise, M * (heads_d + kv_heads_d) * md.head_dim, L, 1);
    }
  }
  {
    OpCost o;
    o.name = "attention";
    o.kind = OpKind::attention;
    const AttentionUnits au = attention_units(is_prefill);
    // Without flash attention each forward pass of u prompt tokens (llama.cpp's ubatch)
    // multiplies its queries by every cached key, the future ones masked only in the softmax:
    // a prompt of q tokens after `past` computes the sum over its chunks of u x (past + the
    // chunk's end) = q past + q (q + u) / 2 pairs, not the causal q past + q (q + 1) / 2.
    const double u = eff_.prefill_chunk_tokens > 0 ? std::min(q, eff_.prefill_chunk_tokens) : q;
    const double score_pairs =
        eff_.fused_attention || encoder ? pairs : B * (q * past + q * (q + u) / 2.0);
    o.flops = score_pairs * au.flops_per_pair * L;
    const double kv_token_bytes = au.kv_token_bytes;
    // Decode and unfused prefill read every cached key once; fused prefill re-reads them per tile.
    double kv_read_tokens = B * (past + q);
    if (is_prefill && eff_.fused_attention) {
      const double tiles = std::ceil(q / kAttentionQueryTile);
      kv_read_tokens =
          B * (tiles * past + q * (q + kAttentionQueryTile) / (2 * kAttentionQueryTile));
    }
    o.kv_bytes = (kv_read_tokens + M) * kv_token_bytes * L;  // reads + this step's writes
    if (encoder) o.kv_bytes = 0;
    o.activation_bytes = 2.0 * M * heads_d * md.head_dim * ab * L;
    o.kernels = (eff_.fused_attention ? 1.0 : 2.0) * L;
    o.launches = o.kernels + (encoder ? 0.0 : L);  // and the write of this step's keys and values
    add(o);
    if (!eff_.fused_attention) {
      // The score matrix between the two GEMMs: softmax and conversions are kernels of their
      // own, memory-bound, run after QK^T and before PV, so their traffic is not hidden under
      // the GEMMs' math (it was one operator's max(compute, memory) before).
      OpCost sc;
      sc.name = "attn_scores";
      sc.kind = OpKind::elementwise;
      sc.activation_bytes = score_pairs * heads_d * score_bytes_per_pair(eff_) * L;
      sc.kernels = 2.0 * L;
      sc.launches = sc.kernels;
      add(sc);
    }
  }
  {
    const double o_in = mla ? heads_d * md.mla.v_head_dim : heads_d * md.head_dim;
    gemm("o_proj", OpKind::gemm, M, o_in, h, o_in * h, L, 1);
  }
  auto allreduce = [&](std::string_view name, double count) {
    if (dep_.tp <= 1) return;
    OpCost o;
    o.name = name;
    o.kind = OpKind::allreduce;
    // Ring all-reduce: each rank sends 2 (tp-1)/tp of the buffer in 2 (tp-1) steps.
    o.comm_bytes = M * h * ab * 2.0 * (tp - 1.0) / tp * count;
    o.collectives = 2.0 * (tp - 1.0) * count;
    o.kernels = count;
    o.launches = count;
    add(o);
  };
  allreduce("attn_allreduce", L);
  if (!md.parallel_attention) elementwise("ffn_norm", OpKind::norm, M * h, L, 1);

  // --- FFN: dense layers, then MoE layers ---
  const double gate = md.ffn_kind == FfnKind::swiglu ? 2.0 : 1.0;
  if (n_dense > 0) {
    const double f = md.ffn_hidden / tp;
    gemm("ffn_up", OpKind::gemm, M, h, gate * f, gate * h * f, n_dense, 1);
    elementwise("ffn_act", OpKind::elementwise, M * f, n_dense, 1);
    gemm("ffn_down", OpKind::gemm, M, f, h, f * h, n_dense, 1);
  }
  if (n_moe > 0) {
    const auto& e = md.moe;
    const double E = e.experts;
    const double k = e.active_experts;
    const double f = e.expert_ffn_hidden / tp;
    gemm("router", OpKind::gemm, M, h, E, h * E, n_moe, 1);
    // A 16-bit gate GEMM, then the top-k selection (scores and indices): three launches.
    ops[static_cast<size_t>(n - 1)].launches = 3.0 * n_moe;
    // Expected distinct experts touched by M tokens choosing k of E uniformly; k when every
    // token picks the same ones (MoeRouting::same_experts).
    const double touched =
        dep_.moe_routing == MoeRouting::same_experts ? k : E * (1.0 - std::pow(1.0 - k / E, M));
    const double per_expert_weights = (gate + 1.0) * h * f;
    const double tokens_per_expert = M * k / std::max(touched, 1.0);
    // A stack whose MoE kernels lack FP8 (fp8_expert_gemm: false, TensorRT-LLM before v0.10)
    // keeps an FP8 deployment's experts in 16 bits: twice the bytes, the fp16 tensor rate.
    double expert_wb = wb;
    double expert_rate = 1;
    if (!eff_.fp8_expert_gemm && dep_.precision.weights == DType::fp8 &&
        compute_ == ComputeType::fp8) {
      const double fp8 = at(hw_.dense_flops_per_s, ComputeType::fp8);
      const double fp16 = at(hw_.dense_flops_per_s, ComputeType::fp16);
      expert_wb = 2.0;
      if (fp8 > 0 && fp16 > 0) expert_rate = fp16 / fp8;
    }
    // Expert GEMMs built on mma.sync (TensorRT-LLM v0.9's Sm80 grouped GEMM) reach only the
    // device's mma.sync share of its tensor peak (about 2/3 on Hopper, which needs wgmma).
    if (eff_.expert_gemm_mma_sync && hw_.mma_sync_peak_fraction > 0) {
      expert_rate *= hw_.mma_sync_peak_fraction;
    }
    OpCost o;
    o.name = "experts";
    o.kind = OpKind::expert_gemm;
    o.flops = 2.0 * M * k * per_expert_weights * n_moe;
    o.weight_bytes = touched * per_expert_weights * expert_wb * n_moe;
    o.activation_bytes = M * k * (2.0 * h + (gate + 1.0) * f) * ab * n_moe;
    o.kernels = 3.0 * n_moe;
    // Eager MoE: sort tokens by expert, the two grouped GEMMs (each input quantised), the
    // activation and the weighted sum back into token order.
    o.launches = (5.0 + 2.0 * quant_launch) * n_moe;
    o.gemm_m = tokens_per_expert;
    o.compute_rate_factor = expert_rate;
    add(o);
    if (e.shared_experts > 0) {
      const double fs = e.shared_experts * f;
      gemm("shared_experts", OpKind::expert_gemm, M, h, (gate + 1.0) * fs, (gate + 1.0) * h * fs,
           n_moe, 2);
      ops[static_cast<size_t>(n - 1)].weight_bytes *= expert_wb / wb;
      ops[static_cast<size_t>(n - 1)].compute_rate_factor = expert_rate;
      ops[static_cast<size_t>(n - 1)].launches += n_moe;  // the activation between the two
    }
  }
  allreduce("ffn_allreduce", L);
  total += eval_ops<kCollect>(ops.data(), n, out, is_prefill);
  count_launches();
  if (eager_floor && dep_.prefill_cuda_graphs) launches += L;

  // --- once per step: embedding, final norm, lm_head, pipeline hand-offs ---
  n = 0;
  {
    OpCost o;
    o.name = "embedding";
    o.kind = OpKind::embedding;
    o.weight_bytes = M * h * wb;
    o.kernels = 1;
    o.launches = 1;
    add(o);
  }
  if (!encoder) {
    elementwise("final_norm", OpKind::norm, B * h, 1, 1);
    // Only the last position of each sequence needs logits.
    const double vocab_d = md.vocab / tp;
    gemm("lm_head", OpKind::gemm, B, h, vocab_d, h * vocab_d, 1, 1);
    if (lm_head_bytes_per_element_ > 0) {
      ops[static_cast<size_t>(n - 1)].weight_bytes = h * vocab_d * lm_head_bytes_per_element_;
      ops[static_cast<size_t>(n - 1)].issue_scale = lm_head_issue_scale_;
    }
    ops[static_cast<size_t>(n - 1)].launches = 2;  // the 16-bit head, then the sampler
  }
  if (dep_.pp > 1) {
    OpCost o;
    o.name = "pipeline_p2p";
    o.kind = OpKind::p2p;
    o.comm_bytes = M * h * ab * (dep_.pp - 1);
    o.collectives = dep_.pp - 1;
    o.kernels = dep_.pp - 1;
    o.launches = o.kernels;
    add(o);
  }
  total += eval_ops<kCollect>(ops.data(), n, out, is_prefill);
  count_launches();
  // An eager prompt step: the host issues its launches ahead of the device (asynchronous
  // launch), so the step ends when the slower of the two does. Decode steps replay a graph.
  total += extra_device_s;
  double host_s = 0;
  if (eager_floor) {
    host_s = launches * rates_.prefill_launch;
    total = std::max(total, host_s);
  }
  total += rates_.step_overhead;
  if constexpr (kCollect) {
    out->step_overhead_s = rates_.step_overhead;
    out->host_launch_s = host_s;
    out->time_s = total;
  }
  return total;
}

double PerfModel::decode_step_s(int batch, double context) const {
  if (batch <= 0) return 0;
  return step<false>(1.0, batch, context, false, nullptr);
}

double PerfModel::prefill_s(int batch, double prompt, double past) const {
  if (batch <= 0 || prompt <= 0) return 0;
  const double t = step<false>(prompt, batch, past, true, nullptr);
  return pipelined(t, batch * prompt);
}

double PerfModel::pipelined(double sequential_s, double tokens) const {
  // U chunks through S stages: (U + S - 1) stage-times, each 1/(U S) of the sequential time.
  const double chunk = eff_.prefill_chunk_tokens;
  if (dep_.pp <= 1 || chunk <= 0 || tokens <= chunk) return sequential_s;
  const double group =
      eff_.prefill_batch_tokens > 0 ? std::min(tokens, eff_.prefill_batch_tokens) : tokens;
  const double u = std::max(1.0, std::ceil(group / chunk));
  const double s = dep_.pp;
  return sequential_s * (u + s - 1) / (u * s);
}

PerfModel::AttentionUnits PerfModel::attention_units(bool is_prefill) const {
  const ModelSpec& md = model_;
  const double heads_d = std::max(1.0, md.heads / static_cast<double>(dep_.tp));
  const double kv_heads_d = std::ceil(md.kv_heads / static_cast<double>(dep_.tp));
  AttentionUnits u;
  if (md.mla.enabled()) {
    const auto& a = md.mla;
    // Decode absorbs kv_b into the query and output (scores and values over the latent);
    // prefill expands the latent into per-head keys and values.
    u.flops_per_pair =
        is_prefill ? 2.0 * heads_d * (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim)
                   : 2.0 * heads_d * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim);
    u.kv_token_bytes = kv_elements_per_token_per_layer(md) * bytes_per_element(dep_.precision.kv);
  } else {
    u.flops_per_pair = 4.0 * heads_d * md.head_dim;
    u.kv_token_bytes = md.arch == ModelArch::encoder
                           ? 0.0
                           : 2.0 * kv_heads_d * md.head_dim * bytes_per_element(dep_.precision.kv);
  }
  return u;
}

double PerfModel::decode_attention_s(int batch, double context) const {
  // The part of a decode step that grows with the cache: each of `batch` queries meets
  // `context` more keys (flops_per_pair each) and reads their cached bytes, in every layer.
  // Priced as its own roofline term, max(FLOPs / attention rate, bytes / KV bandwidth), so it
  // can only fall when either rate rises. (It was decode_step_s(b, ctx) - decode_step_s(b, 0),
  // a difference of two roofline maxima, which rises with bandwidth when the step at ctx = 0
  // is memory bound and the step at ctx is compute bound: a faster device then got a slower
  // mixed step, and its P99 rose; tests/test_property_random.cpp counted 148 such specs in
  // 100k.) Where both steps are bound by the same roof the two forms are equal; elsewhere
  // this one is the larger, by at most the smaller roof's share.
  if (batch <= 0 || context <= 0 || model_.arch == ModelArch::encoder) return 0;
  const AttentionUnits u = attention_units(false);
  const double L = model_.layers;
  const double pairs = static_cast<double>(batch) * context;
  const double compute_s = pairs * u.flops_per_pair * L / rates_.attn_flops;
  const double memory_s = pairs * u.kv_token_bytes * L / rates_.kv_bw;
  // Unfused attention also moves its score matrix, after QK^T and before PV (step()'s
  // attn_scores operator): pairs x heads x the stack's bytes, at the weight-streaming bandwidth.
  double scores_s = 0;
  if (!eff_.fused_attention) {
    const double heads_d = std::max(1.0, model_.heads / static_cast<double>(dep_.tp));
    scores_s = pairs * heads_d * score_bytes_per_pair(eff_) * L / rates_.weight_bw;
  }
  return std::max(compute_s, memory_s) + scores_s;
}

double PerfModel::mixed_step_s(double prefill_tokens, double prefill_context, int decode_batch,
                               double decode_context) const {
  // A fused step reads the weights once: price it as one prefill of all new tokens plus the
  // decodes' attention over their caches, the part that does not share the weight stream.
  if (prefill_tokens <= 0) return decode_step_s(decode_batch, decode_context);
  // The decodes' attention runs inside the same eager step, under its host floor.
  const double attention = decode_batch > 0 ? decode_attention_s(decode_batch, decode_context) : 0;
  return step<false>(prefill_tokens + decode_batch, 1, prefill_context, true, nullptr, attention);
}

StepBreakdown PerfModel::decode_breakdown(int batch, double context) const {
  StepBreakdown b;
  if (batch > 0) step<true>(1.0, batch, context, false, &b);
  return b;
}

StepBreakdown PerfModel::prefill_breakdown(int batch, double prompt, double past) const {
  StepBreakdown b;
  if (batch > 0 && prompt > 0) {
    step<true>(prompt, batch, past, true, &b);
    // Pipelining shortens the whole pass; scale the ops alike so they still add up.
    const double scaled = pipelined(b.time_s, batch * prompt);
    if (b.time_s > 0 && scaled < b.time_s) {
      const double k = scaled / b.time_s;
      for (auto& o : b.ops) o.time_s *= k;
      b.time_s = scaled;
    }
  }
  return b;
}

}  // namespace infercap
