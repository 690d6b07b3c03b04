// PerfModel's memory questions: what one device holds for a batch at a context (weights, KV
// cache, live activations, the stack's reserve) and the largest batch that fits. Split from
// perf.cpp (time) by question; the rates and per-device sizes come from PerfModel::create.
#include <algorithm>
#include <cmath>

#include "infercap/perf.hpp"

namespace infercap {

namespace {

// Peak live activations of one step over `tokens` tokens, per device: the residual stream and the
// widest projection output (QKV or FFN gate+up). Logits are counted per sequence by the callers.
double activation_peak_bytes(const ModelSpec& md, const Deployment& dep, double tokens) {
  const double ab = std::max(2.0, bytes_per_element(dep.precision.activations));
  const double gate = md.ffn_kind == FfnKind::swiglu ? 2.0 : 1.0;
  const double ffn =
      md.moe.enabled()
          ? std::max<double>(md.ffn_hidden,
                             static_cast<double>(md.moe.expert_ffn_hidden) * md.moe.active_experts)
          : md.ffn_hidden;
  return tokens * (2.0 * md.hidden + (gate + 1.0) * ffn / dep.tp) * ab;
}

// fp32 logits row of one sequence's last token, per device.
double logits_bytes_per_seq(const ModelSpec& md, const Deployment& dep) {
  return static_cast<double>(md.vocab) / dep.tp * 4.0;
}

// An encoder runs a batch of requests in one forward pass and keeps nothing afterwards (no KV
// cache), so what bounds its batch is the working set of that pass, which grows with every
// sequence in it. Layers run one after another: one layer's tensors are live at a time. Per
// token the live tensors are those of activation_peak_bytes (the residual stream and its
// normalised copy, 2 x hidden, plus the FFN up (and gate) outputs and their activated product,
// (gate + 1) x ffn / tp), at the activation width ab >= 2 bytes. An unfused attention also holds
// one layer's fp32 score matrix per sequence, heads / tp x context^2 x 4 bytes (fused, flash-style
// attention never materialises it). With the logits row each sequence returns:
//   bytes per sequence = context x (2 h + (g + 1) f / tp) x ab
//                        + [unfused] heads / tp x context^2 x 4 + vocab / tp x 4.
double encoder_bytes_per_seq(const ModelSpec& md, const Deployment& dep, bool fused_attention,
                             double context) {
  const double ctx = std::max(1.0, context);
  const double scores =
      fused_attention ? 0.0 : std::max(1.0, md.heads / static_cast<double>(dep.tp)) * ctx * ctx * 4;
  return activation_peak_bytes(md, dep, ctx) + scores + logits_bytes_per_seq(md, dep);
}

}  // namespace

MemoryReport PerfModel::memory(int batch, double context, double max_batched_tokens) const {
  MemoryReport r;
  const double tokens = max_batched_tokens > 0 ? max_batched_tokens : std::max(1.0, context);
  r.capacity_bytes = hw_.memory_bytes;
  r.weights_bytes = weight_bytes_dev_;
  r.kv_bytes_per_token = kv_bytes_per_token_dev_;
  r.kv_bytes = kv_bytes_per_token_dev_ * context * std::max(batch, 0);
  // An encoder's pass holds every sequence of the batch at once (encoder_bytes_per_seq); a
  // decoder's step holds at most its token budget plus one logits row per sequence.
  r.activation_bytes =
      model_.arch == ModelArch::encoder
          ? std::max(batch, 1) * encoder_bytes_per_seq(model_, dep_, eff_.fused_attention, context)
          : activation_peak_bytes(model_, dep_, tokens) +
                std::max(batch, 1) * logits_bytes_per_seq(model_, dep_);
  r.reserve_bytes = stack_.memory_reserve_fraction * hw_.memory_bytes + stack_.memory_reserve_bytes;
  r.total_bytes = r.weights_bytes + r.kv_bytes + r.activation_bytes + r.reserve_bytes;
  r.fits = r.total_bytes <= r.capacity_bytes;
  r.max_batch = max_batch(context, max_batched_tokens);
  return r;
}

int PerfModel::max_batch(double context, double max_batched_tokens) const {
  const double tokens = max_batched_tokens > 0 ? max_batched_tokens : std::max(1.0, context);
  const double reserve =
      stack_.memory_reserve_fraction * hw_.memory_bytes + stack_.memory_reserve_bytes;
  constexpr int kUnbounded = 1 << 20;
  if (model_.arch == ModelArch::encoder) {
    // No cache: the batch is bounded by the pass's activations, which scale with it.
    const double free_enc = hw_.memory_bytes - weight_bytes_dev_ - reserve;
    if (free_enc <= 0) return 0;
    const double b =
        std::floor(free_enc / encoder_bytes_per_seq(model_, dep_, eff_.fused_attention, context));
    return b > kUnbounded ? kUnbounded : static_cast<int>(b);
  }
  const double free_bytes =
      hw_.memory_bytes - weight_bytes_dev_ - activation_peak_bytes(model_, dep_, tokens) - reserve;
  if (free_bytes <= 0) return 0;
  if (kv_bytes_per_token_dev_ <= 0 || context <= 0) return kUnbounded;
  const double per_seq = kv_bytes_per_token_dev_ * context + logits_bytes_per_seq(model_, dep_);
  const double b = std::floor(free_bytes / per_seq);
  return b > kUnbounded ? kUnbounded : static_cast<int>(b);
}

}  // namespace infercap
