#include "infercap/model.hpp"

#include <fmt/core.h>

namespace infercap {

namespace {

double attention_params(const ModelSpec& m) {
  const double h = m.hidden;
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    const double qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double q = a.q_lora_rank > 0
                         ? h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk_head
                         : h * m.heads * qk_head;
    const double kv_a = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank;
    const double kv_b =
        static_cast<double>(a.kv_lora_rank) * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
    const double o = static_cast<double>(m.heads) * a.v_head_dim * h;
    return q + kv_a + kv_b + o;
  }
  const double q_dim = static_cast<double>(m.heads) * m.head_dim;
  const double kv_dim = static_cast<double>(m.kv_heads) * m.head_dim;
  double p = h * q_dim + 2.0 * h * kv_dim + q_dim * h;
  if (m.qkv_bias) p += q_dim + 2.0 * kv_dim;
  // GELU-era models (BERT, GPT-J family) carry biases on the output projection too.
  if (m.ffn_kind == FfnKind::gelu) p += h;
  return p;
}

double ffn_params(const ModelSpec& m, double width) {
  const double h = m.hidden;
  if (m.ffn_kind == FfnKind::swiglu) return 3.0 * h * width;
  return 2.0 * h * width + width + h;  // up + down with biases
}

double norm_params(const ModelSpec& m) {
  // RMSNorm: a scale; LayerNorm (GELU-era models): scale and bias. Two norms per layer.
  return (m.ffn_kind == FfnKind::gelu ? 4.0 : 2.0) * m.hidden;
}

}  // namespace

std::vector<std::string> validate(const ModelSpec& m) {
  std::vector<std::string> e;
  auto positive = [&](const char* key, long long v) {
    if (v <= 0) e.push_back(fmt::format("{}: expected a positive integer, found {}", key, v));
  };
  positive("layers", m.layers);
  positive("hidden", m.hidden);
  positive("heads", m.heads);
  positive("kv_heads", m.kv_heads);
  positive("head_dim", m.head_dim);
  positive("ffn_hidden", m.ffn_hidden);
  positive("vocab", m.vocab);
  positive("max_context", m.max_context);
  if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    e.push_back(
        fmt::format("kv_heads: expected a divisor of heads ({}), found {}", m.heads, m.kv_heads));
  }
  if (m.kv_heads > m.heads) {
    e.push_back(
        fmt::format("kv_heads: expected at most heads ({}), found {}", m.heads, m.kv_heads));
  }
  if (m.moe.enabled()) {
    if (m.moe.active_experts <= 0 || m.moe.active_experts > m.moe.experts) {
      e.push_back(fmt::format("moe.active_experts: expected 1..{} (moe.experts), found {}",
                              m.moe.experts, m.moe.active_experts));
    }
    if (m.moe.expert_ffn_hidden <= 0) {
      e.push_back(fmt::format("moe.expert_ffn_hidden: expected a positive integer, found {}",
                              m.moe.expert_ffn_hidden));
    }
    if (m.moe.shared_experts < 0) {
      e.push_back(fmt::format("moe.shared_experts: expected >= 0, found {}", m.moe.shared_experts));
    }
    if (m.moe.first_dense_layers < 0 || m.moe.first_dense_layers >= m.layers) {
      e.push_back(fmt::format("moe.first_dense_layers: expected 0..{}, found {}", m.layers - 1,
                              m.moe.first_dense_layers));
    }
  }
  if (m.mla.enabled()) {
    if (m.mla.qk_rope_head_dim <= 0 || m.mla.qk_nope_head_dim <= 0 || m.mla.v_head_dim <= 0) {
      e.push_back("mla: expected positive qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
    }
  }
  return e;
}

LayerParams dense_layer_params(const ModelSpec& m) {
  LayerParams p;
  p.attention = attention_params(m);
  p.ffn_dense = ffn_params(m, m.ffn_hidden);
  p.norms = norm_params(m);
  return p;
}

LayerParams moe_layer_params(const ModelSpec& m) {
  if (!m.moe.enabled()) return dense_layer_params(m);
  LayerParams p;
  p.attention = attention_params(m);
  p.expert_each = ffn_params(m, m.moe.expert_ffn_hidden);
  p.shared_experts = m.moe.shared_experts * p.expert_each;
  p.router = static_cast<double>(m.hidden) * m.moe.experts;
  p.norms = norm_params(m);
  return p;
}

int moe_layer_count(const ModelSpec& m) {
  return m.moe.enabled() ? m.layers - m.moe.first_dense_layers : 0;
}

double embedding_params(const ModelSpec& m) {
  const double h = m.hidden;
  double p = static_cast<double>(m.vocab) * h;
  if (!m.tied_embeddings && m.arch == ModelArch::decoder) p += static_cast<double>(m.vocab) * h;
  if (m.position == PositionKind::learned) p += static_cast<double>(m.max_context) * h;
  p += h;  // final norm
  return p;
}

namespace {
double sum_params(const ModelSpec& m, bool active_only) {
  const LayerParams d = dense_layer_params(m);
  const LayerParams e = moe_layer_params(m);
  const int n_moe = moe_layer_count(m);
  const int n_dense = m.layers - n_moe;
  const double dense_layer = d.attention + d.ffn_dense + d.norms;
  const double experts = active_only ? m.moe.active_experts : m.moe.experts;
  const double moe_layer =
      e.attention + e.norms + e.router + e.shared_experts + experts * e.expert_each;
  return embedding_params(m) + n_dense * dense_layer + n_moe * moe_layer;
}
}  // namespace

double total_params(const ModelSpec& m) {
  return sum_params(m, false);
}
double active_params(const ModelSpec& m) {
  return sum_params(m, true);
}

double kv_elements_per_token_per_layer(const ModelSpec& m) {
  if (m.arch == ModelArch::encoder) return 0;
  if (m.mla.enabled()) return m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  return 2.0 * m.kv_heads * m.head_dim;
}

}  // namespace infercap
