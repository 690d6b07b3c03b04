#pragma once
// The shape of a transformer model: everything the roofline needs, nothing about weights' values.
// All counts are plain integers; derived sizes (parameters, KV bytes per token) are functions.
#include <cstdint>
#include <string>
#include <vector>

#include "infercap/result.hpp"
#include "infercap/source.hpp"

namespace infercap {

enum class FfnKind : unsigned char { swiglu, gelu };  ///< swiglu: gate+up+down; gelu: up+down
enum class ModelArch : unsigned char { decoder, encoder };
enum class PositionKind : unsigned char { rotary, learned, alibi };

struct MoeSpec {
  int experts = 0;             ///< routed experts per MoE layer (0 = dense model)
  int active_experts = 0;      ///< routed experts each token uses
  int shared_experts = 0;      ///< always-on experts
  int expert_ffn_hidden = 0;   ///< FFN width of one expert
  int first_dense_layers = 0;  ///< leading layers that use the dense FFN (DeepSeek-V3: 3)
  bool enabled() const { return experts > 0; }
};

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a compressed latent.
struct MlaSpec {
  int q_lora_rank = 0;   ///< 0 = queries projected directly
  int kv_lora_rank = 0;  ///< latent width cached per token per layer
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  bool enabled() const { return kv_lora_rank > 0; }
};

struct ModelSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string family;
  ModelArch arch = ModelArch::decoder;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< == heads: MHA; 1: MQA; between: GQA
  int head_dim = 0;  ///< usually hidden / heads, but not always (Qwen3, Gemma)
  int ffn_hidden = 0;
  FfnKind ffn_kind = FfnKind::swiglu;
  int vocab = 0;
  bool tied_embeddings = false;
  PositionKind position = PositionKind::rotary;
  bool qkv_bias = false;
  bool parallel_attention = false;  ///< GPT-J style: attention and FFN read the same input
  int64_t max_context = 0;
  MoeSpec moe;
  MlaSpec mla;
  double published_params = 0;  ///< from the model card, for the 2% check; 0 if not stated
  std::vector<SourceRef> sources;
};

/// Checks structural invariants (heads divide hidden unless head_dim is explicit, kv_heads divide
/// heads, positive sizes, MoE counts consistent). Messages name the key path.
std::vector<std::string> validate(const ModelSpec& m);

/// Parameters per transformer layer, split the way memory and traffic need them.
struct LayerParams {
  double attention = 0;       ///< q, k, v, o projections (or MLA's low-rank set)
  double ffn_dense = 0;       ///< dense FFN (0 in pure MoE layers)
  double expert_each = 0;     ///< one routed expert
  double shared_experts = 0;  ///< all shared experts together
  double router = 0;
  double norms = 0;
};

LayerParams dense_layer_params(const ModelSpec& m);  ///< a layer with the dense FFN
LayerParams moe_layer_params(const ModelSpec& m);    ///< a MoE layer (== dense if no MoE)
int moe_layer_count(const ModelSpec& m);
/// Embedding (and untied lm_head, and learned positions) parameters.
double embedding_params(const ModelSpec& m);
/// Total parameters, all experts counted.
double total_params(const ModelSpec& m);
/// Parameters one token touches (active experts only).
double active_params(const ModelSpec& m);
/// KV-cache elements per token per layer (2 * kv_heads * head_dim; MLA: latent + rope key).
double kv_elements_per_token_per_layer(const ModelSpec& m);

}  // namespace infercap
