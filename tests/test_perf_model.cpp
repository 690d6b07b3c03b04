// [model] tests of the per-operator roofline. Each test states the formula it checks and builds
// its specs by hand, so a catalog change cannot move these numbers.
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/perf.hpp"
#include "infercap/predict.hpp"

using namespace infercap;

namespace {

// A small Llama-shaped decoder: 2 layers, hidden 1024, 8 heads of 128, GQA with 2 KV heads.
ModelSpec tiny_model() {
  ModelSpec m;
  m.name = "tiny";
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 2;
  m.head_dim = 128;
  m.ffn_hidden = 4096;
  m.vocab = 32000;
  m.tied_embeddings = false;
  m.max_context = 4096;
  return m;
}

HardwareSpec test_gpu() {
  HardwareSpec h;
  h.name = "test-gpu";
  h.hw_class = HwClass::gpu;
  at(h.dense_flops_per_s, ComputeType::bf16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::fp16) = 100e12;
  at(h.dense_flops_per_s, ComputeType::int8) = 200e12;
  h.memory_bytes = 16e9;
  h.memory_bandwidth_bytes_per_s = 1e12;
  h.link_bandwidth_bytes_per_s = 100e9;
  h.link_latency_s = 2e-6;
  return h;
}

PerfModel make(const ModelSpec& m, const HardwareSpec& h, Deployment d = {},
               const StackSpec& s = ideal_stack()) {
  auto r = PerfModel::create(m, h, s, d);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Bytes of the layer stack plus lm_head, i.e. everything a decode step streams except the
// embedding table (of which it reads one row per token).
double streamed_weight_params(const ModelSpec& m) {
  return total_params(m) - static_cast<double>(m.vocab) * m.hidden;
}

}  // namespace

TEST_CASE("parameter count of a hand-built Llama shape", "[model]") {
  const ModelSpec m = tiny_model();
  // attention: q 1024x1024 + k,v 1024x256 each + o 1024x1024 = 2,621,440
  // ffn: 3 x 1024 x 4096 = 12,582,912; norms 2 x 1024
  // embeddings: 2 x 32000 x 1024 (untied) + final norm 1024
  const double layer = 2.0 * 1024 * 1024 + 2.0 * 1024 * 256 + 3.0 * 1024 * 4096 + 2 * 1024;
  const double expected = 2 * layer + 2.0 * 32000 * 1024 + 1024;
  CHECK(total_params(m) == Approx(expected).epsilon(1e-12));
  CHECK(kv_elements_per_token_per_layer(m) == 2 * 2 * 128);
}

TEST_CASE("batch-1 decode is bandwidth bound: t = streamed bytes / bandwidth", "[model]") {
  const ModelSpec m = tiny_model();
  const PerfModel p = make(m, test_gpu());
  // bf16 weights: 2 bytes per parameter at 1 TB/s. Activations and the empty KV cache add well
  // under 1% at batch 1.
  const double expected = streamed_weight_params(m) * 2.0 / 1e12;
  const double t = p.decode_step_s(1, 0);
  CHECK(t == Approx(expected).epsilon(0.01));
  CHECK(t >= expected);
  const auto b = p.decode_breakdown(1, 0);
  for (const auto& op : b.ops) {
    if (op.cost.kind == OpKind::gemm) CHECK(op.bound == Bound::memory);
  }
  CHECK(b.time_s == Approx(t).epsilon(1e-12));
}

TEST_CASE("decode time grows with context by KV bytes / bandwidth", "[model]") {
  const ModelSpec m = tiny_model();
  const PerfModel p = make(m, test_gpu());
  // Each extra cached token adds 2 layers x 2 x 2 KV heads x 128 x 2 bytes = 2048 bytes of reads
  // per sequence; attention stays memory bound (4 flops/pair/head-dim, 8 heads vs 2 KV heads).
  const double kv_per_token = 2.0 * 2 * 2 * 128 * 2;
  const double dt = p.decode_step_s(4, 4096) - p.decode_step_s(4, 0);
  CHECK(dt == Approx(4 * 4096 * kv_per_token / 1e12).epsilon(1e-6));
}

TEST_CASE("decode attention over the cache: max(pairs x FLOPs / peak, KV bytes / bandwidth)",
          "[model]") {
  const ModelSpec m = tiny_model();
  // Per layer, per cached token and query: 4 x 8 heads x 128 = 4096 FLOPs and 2 x 2 KV heads x
  // 128 x 2 bytes = 1024 bytes; 2 layers. At 1 TB/s and 100 TFLOP/s memory binds by 25x:
  //   t = b x ctx x 2 x 1024 / 1e12.
  const PerfModel p = make(m, test_gpu());
  CHECK(p.decode_attention_s(4, 4096) == Approx(4.0 * 4096 * 2 * 1024 / 1e12).epsilon(1e-12));
  CHECK(p.decode_attention_s(0, 4096) == 0);
  CHECK(p.decode_attention_s(4, 0) == 0);
  // With the bandwidth 100x higher (100 TB/s), compute binds: t = b x ctx x 2 x 4096 / 1e14.
  HardwareSpec fast = test_gpu();
  fast.memory_bandwidth_bytes_per_s = 100e12;
  const PerfModel q = make(m, fast);
  CHECK(q.decode_attention_s(4, 4096) == Approx(4.0 * 4096 * 2 * 4096 / 1e14).epsilon(1e-12));
  // Without fused attention the score matrix adds b x ctx pairs x 8 heads x its bytes x 2
  // layers at the weight bandwidth (1 TB/s here): 24 B a pair and head, on top of the KV term.
  StackSpec unfused = ideal_stack();
  unfused.for_class(HwClass::gpu).fused_attention = false;
  unfused.for_class(HwClass::gpu).attention_score_bytes_per_pair = 24;
  const PerfModel u = make(m, test_gpu(), {}, unfused);
  CHECK(u.decode_attention_s(4, 4096) ==
        Approx(4.0 * 4096 * 2 * 1024 / 1e12 + 4.0 * 4096 * 8 * 24 * 2 / 1e12).epsilon(1e-12));
  // The same pairs as the decode step's attn_scores operator (4 x 4097 there: the new token's
  // own key too).
  const StepBreakdown ub = u.decode_breakdown(4, 4096);
  int scores = 0;
  for (const OpTime& o : ub.ops) {
    if (o.cost.name != "attn_scores") continue;
    ++scores;
    CHECK(o.cost.activation_bytes == Approx(4.0 * 4097 * 8 * 24 * 2));
  }
  CHECK(scores == 1);
  // The mixed step is a prefill pass of all its tokens plus that attention term.
  const double fused_only = p.mixed_step_s(256 + 4, 128, 0, 0);
  CHECK(p.mixed_step_s(256, 128, 4, 4096) ==
        Approx(fused_only + p.decode_attention_s(4, 4096)).epsilon(1e-12));
  // Never slower on a faster device, at any bandwidth between memory- and compute-bound: the
  // old difference decode_step_s(b, ctx) - decode_step_s(b, 0) rose with bandwidth where the
  // step at ctx = 0 stayed memory bound while the step at ctx turned compute bound.
  double last = p.mixed_step_s(256, 128, 4, 4096);
  for (double bw = 1.25e12; bw <= 200e12; bw *= 1.25) {
    HardwareSpec h = test_gpu();
    h.memory_bandwidth_bytes_per_s = bw;
    const double t = make(m, h).mixed_step_s(256, 128, 4, 4096);
    CHECK(t <= last);
    last = t;
  }
}

TEST_CASE("large prefill is compute bound: t = 2 N P / peak + attention", "[model]") {
  const ModelSpec m = tiny_model();
  const PerfModel p = make(m, test_gpu());
  const double P = 4096;
  // Projections: 2 FLOPs per weight per token; lm_head only for the last token.
  const double layer_weights = streamed_weight_params(m) - static_cast<double>(m.vocab) * m.hidden;
  const double gemm_flops = 2.0 * P * layer_weights + 2.0 * m.vocab * m.hidden;
  // Causal attention: P(P+1)/2 pairs x 4 x heads x head_dim per layer.
  const double attn_flops = P * (P + 1) / 2 * 4 * 8 * 128 * 2;
  // Unfused elementwise ops stay memory bound (read + write, 2 bytes each) per layer: two norms
  // of P x h, rotary over P x (heads + kv_heads) x head_dim, the FFN activation over P x ffn.
  const double elementwise_bytes =
      2 * (2 * (2 * P * 1024 * 2) + 2 * P * (8 + 2) * 128 * 2 + 2 * P * 4096 * 2);
  // lm_head runs for the last token only, so it streams its weights (memory bound); the
  // embedding gathers P rows.
  const double once_bytes = (32000.0 * 1024 + P * 1024) * 2;
  const double expected = (gemm_flops - 2.0 * m.vocab * m.hidden + attn_flops) / 100e12 +
                          (elementwise_bytes + once_bytes) / 1e12;
  const double t = p.prefill_s(1, P, 0);
  CHECK(t == Approx(expected).epsilon(0.01));
  CHECK(p.prefill_breakdown(1, P, 0).ops[1].bound == Bound::compute);
}

TEST_CASE("memory: weights, KV per token and max batch", "[model]") {
  const ModelSpec m = tiny_model();
  HardwareSpec h = test_gpu();
  const PerfModel p = make(m, h);
  const MemoryReport r = p.memory(8, 1000, 1000);
  CHECK(r.weights_bytes == Approx(total_params(m) * 2));
  CHECK(r.kv_bytes_per_token == Approx(2 * 2 * 2 * 128 * 2));  // layers x (K,V) x kv_heads x d x 2B
  CHECK(r.kv_bytes == Approx(8 * 1000 * r.kv_bytes_per_token));
  CHECK(r.fits);
  // max batch = floor((capacity - weights - activations) / (kv per sequence + logits row)).
  const double free_bytes =
      h.memory_bytes - r.weights_bytes - (r.activation_bytes - 8 * 32000 * 4.0);
  const int expected =
      static_cast<int>(std::floor(free_bytes / (1000 * r.kv_bytes_per_token + 32000 * 4.0)));
  CHECK(p.max_batch(1000, 1000) == expected);
  // A device too small for the weights fits nothing.
  h.memory_bytes = 0.1e9;
  CHECK(make(m, h).max_batch(1000, 1000) == 0);
  CHECK_FALSE(make(m, h).memory(1, 1000, 1000).fits);
}

TEST_CASE("memory: an encoder's max batch counts its activations, not a KV cache", "[model]") {
  // A BERT-base-shaped encoder (hidden 768, 12 heads of 64, GELU FFN 3072, vocab 30522), bf16
  // weights and activations, TP 1, on a device with exactly 100 MB free beside the weights.
  ModelSpec m;
  m.name = "tiny-encoder";
  m.arch = ModelArch::encoder;
  m.layers = 2;
  m.hidden = 768;
  m.heads = 12;
  m.kv_heads = 12;
  m.head_dim = 64;
  m.ffn_hidden = 3072;
  m.ffn_kind = FfnKind::gelu;
  m.vocab = 30522;
  m.tied_embeddings = true;
  m.position = PositionKind::learned;
  m.max_context = 512;
  HardwareSpec h = test_gpu();
  const double weights = total_params(m) * 2;
  h.memory_bytes = weights + 100e6;
  const PerfModel p = make(m, h);
  CHECK(p.memory(1, 128).kv_bytes_per_token == 0);
  // Per sequence of 128 tokens: activations 128 x (2 x 768 + (1 + 1) x 3072) x 2 B
  // = 128 x 7680 x 2 = 1,966,080 B, plus the fp32 logits row 30522 x 4 = 122,088 B:
  // 2,088,168 B. 100e6 / 2,088,168 = 47.9 -> 47 sequences (was unbounded before: no KV).
  CHECK(p.max_batch(128) == 47);
  CHECK(p.memory(47, 128).activation_bytes == Approx(47 * 2088168.0));
  CHECK(p.memory(47, 128).fits);
  CHECK_FALSE(p.memory(48, 128).fits);
  // The engine's token budget does not shrink an encoder's working set: a batch is one pass.
  CHECK(p.max_batch(128, 256) == 47);
  // Four times the context: 512 x 7680 x 2 + 122,088 = 7,986,408 B -> floor(12.52) = 12.
  CHECK(p.max_batch(512) == 12);
  // An unfused attention also holds one layer's fp32 scores: 12 heads x 512^2 x 4 B =
  // 12,582,912 B more per sequence: 20,569,320 B -> floor(4.86) = 4.
  StackSpec unfused = ideal_stack();
  for (auto& e : unfused.per_class) e.fused_attention = false;
  CHECK(make(m, h, {}, unfused).max_batch(512) == 4);
  // With TP 2 the FFN outputs, heads and logits split across devices (weights too).
  Deployment tp2;
  tp2.tp = 2;
  const PerfModel p2 = make(m, h, tp2);
  const double free2 = h.memory_bytes - p2.memory(1, 128).weights_bytes;
  // 128 x (2 x 768 + 2 x 1536) x 2 + 15261 x 4 = 1,179,648 + 61,044 = 1,240,692 B per sequence.
  CHECK(p2.max_batch(128) == static_cast<int>(std::floor(free2 / 1240692.0)));
  // Nothing free: nothing fits.
  h.memory_bytes = weights * 0.5;
  CHECK(make(m, h).max_batch(128) == 0);
}

TEST_CASE("weight formats scale the streamed bytes", "[model]") {
  const ModelSpec m = tiny_model();
  Deployment d;
  d.precision.weights = DType::q4_0;  // 4.5 bits per weight
  const PerfModel q = make(m, test_gpu(), d);
  const PerfModel f = make(m, test_gpu());
  CHECK(q.compute_type() == ComputeType::int8);  // block formats use int8 dot products
  const double ratio = q.decode_step_s(1, 0) / f.decode_step_s(1, 0);
  CHECK(ratio == Approx(4.5 / 16).epsilon(0.02));
}

TEST_CASE("NVFP4: 4.5 bits a weight streamed, W4A4 GEMMs on the fp4 roof", "[model]") {
  // The format: 16 E2M1 values share one FP8 scale, (16 x 4 + 8) / 16 = 4.5 bits a weight.
  CHECK(bits_per_element(DType::nvfp4) == 4.5);
  CHECK(parse_dtype("NVFP4") == DType::nvfp4);
  CHECK(parse_dtype("FP4") == DType::nvfp4);  // MLPerf's and TensorRT-LLM's spelling
  CHECK(parse_dtype("e2m1") == DType::nvfp4);
  CHECK(dtype_name(DType::nvfp4) == "nvfp4");
  CHECK(native_compute_type(DType::nvfp4) == ComputeType::fp4);
  CHECK(parse_compute_type("FP4") == ComputeType::fp4);
  CHECK_FALSE(is_block_quantised(DType::nvfp4));  // native on its tensor cores
  const ModelSpec m = tiny_model();
  HardwareSpec h = test_gpu();
  at(h.dense_flops_per_s, ComputeType::fp4) = 400e12;  // 4x the bf16 roof, as on Blackwell
  Deployment d;
  d.precision = {DType::nvfp4, DType::nvfp4, DType::bf16};
  const PerfModel q = make(m, h, d);
  const PerfModel f = make(m, h);
  CHECK(q.compute_type() == ComputeType::fp4);
  // Batch-1 decode streams the weights: 4.5 / 16 of the bf16 bytes.
  CHECK(q.decode_step_s(1, 0) / f.decode_step_s(1, 0) == Approx(4.5 / 16).epsilon(0.02));
  // A long prefill's projections are compute bound: 2 FLOPs a weight a token at 400 instead of
  // 100 TFLOP/s, a quarter of the time.
  const auto qb = q.prefill_breakdown(1, 4096, 0);
  const auto fb = f.prefill_breakdown(1, 4096, 0);
  REQUIRE(qb.ops.size() == fb.ops.size());
  bool seen = false;
  for (size_t i = 0; i < qb.ops.size(); ++i) {
    if (qb.ops[i].cost.name != "ffn_up") continue;
    seen = true;
    CHECK(qb.ops[i].compute_s / fb.ops[i].compute_s == Approx(0.25).epsilon(1e-9));
  }
  CHECK(seen);
  // A stack's fp4_gemm_compute_fraction prices the fp4 roof alone: at 0.5 the projections take
  // twice as long as at the full roof, while a bf16 deployment keeps gemm_compute_fraction.
  StackSpec fp4_half = ideal_stack();
  fp4_half.for_class(HwClass::gpu).fp4_gemm_compute_fraction = 0.5;
  const PerfModel q_half = make(m, h, d, fp4_half);
  const auto hb = q_half.prefill_breakdown(1, 4096, 0);
  for (size_t i = 0; i < hb.ops.size(); ++i) {
    if (hb.ops[i].cost.name == "ffn_up")
      CHECK(hb.ops[i].compute_s / qb.ops[i].compute_s == Approx(2).epsilon(1e-9));
  }
  CHECK(make(m, h, {}, fp4_half).prefill_s(1, 4096, 0) == Approx(f.prefill_s(1, 4096, 0)));
  // Weight-only NVFP4 (16-bit activations) dequantises and multiplies in bf16.
  d.precision = {DType::nvfp4, DType::bf16, DType::bf16};
  CHECK(make(m, h, d).compute_type() == ComputeType::bf16);
  // A device without FP4 tensor cores: "a precision the hardware lacks is an error value".
}

TEST_CASE("unfused attention: ubatch rectangles of pairs, the score matrix a kernel of its own",
          "[model]") {
  // Without flash attention a pass of u prompt tokens multiplies its queries by all n_kv cached
  // keys and masks the future ones in the softmax, so a prompt of q tokens after `past` computes
  //   pairs = q past + q (q + u) / 2   (u = min(q, ubatch); the causal count is q (q + 1) / 2)
  // per head and layer. The attention operator does the two GEMMs on them (4 x head_dim FLOPs a
  // pair and head); attn_scores moves the score matrix, pairs x heads x bytes x layers, at the
  // weight-streaming bandwidth, after QK^T and before PV (nothing of it hidden under the math).
  const ModelSpec m = tiny_model();  // 2 layers, 8 heads of 128
  StackSpec s = ideal_stack();
  StackEfficiency& e = s.for_class(HwClass::gpu);
  e.fused_attention = false;
  e.prefill_chunk_tokens = 512;
  e.attention_score_bytes_per_pair = 24;
  const PerfModel p = make(m, test_gpu(), {}, s);
  const auto find = [](const StepBreakdown& b, std::string_view name) -> const OpTime* {
    for (const OpTime& o : b.ops)
      if (o.cost.name == name) return &o;
    return nullptr;
  };
  // q = 2048 after 1024 cached: 2048 x 1024 + 2048 x 2560 / 2 = 4,718,592 pairs a head; the
  // causal count would be 2048 x 1024 + 2048 x 2049 / 2 = 4,195,328.
  const double pairs = 2048.0 * 1024 + 2048.0 * (2048 + 512) / 2;
  const StepBreakdown b = p.prefill_breakdown(1, 2048, 1024);
  const OpTime* att = find(b, "attention");
  const OpTime* sc = find(b, "attn_scores");
  REQUIRE(att != nullptr);
  REQUIRE(sc != nullptr);
  CHECK(att->cost.flops == Approx(pairs * 4 * 8 * 128 * 2));
  CHECK(sc->cost.activation_bytes == Approx(pairs * 8 * 24 * 2));
  CHECK(sc->cost.flops == 0);
  CHECK(sc->bound == Bound::memory);
  // The ideal stack's bandwidth is the datasheet's 1 TB/s: 1,811,939,328 B take 1.81 ms.
  CHECK(sc->time_s == Approx(pairs * 8 * 24 * 2 / 1e12));
  // A prompt shorter than the ubatch is one pass: its own square, q (q + q) / 2 = q^2.
  const StepBreakdown sb = p.prefill_breakdown(1, 256, 0);
  const OpTime* small = find(sb, "attention");
  REQUIRE(small != nullptr);
  CHECK(small->cost.flops == Approx(256.0 * 256 * 4 * 8 * 128 * 2));
  // A decode (q = 1) meets past + 1 keys, as with flash attention.
  const StepBreakdown db = p.decode_breakdown(1, 1000);
  const OpTime* dec = find(db, "attn_scores");
  REQUIRE(dec != nullptr);
  CHECK(dec->cost.activation_bytes == Approx(1001.0 * 8 * 24 * 2));
  // Not stated: fp32 scores written, read, written and read, 16 B a pair.
  e.attention_score_bytes_per_pair = 0;
  const StepBreakdown b16 = make(m, test_gpu(), {}, s).prefill_breakdown(1, 2048, 1024);
  const OpTime* d16 = find(b16, "attn_scores");
  REQUIRE(d16 != nullptr);
  CHECK(d16->cost.activation_bytes == Approx(pairs * 8 * 16 * 2));
  // Flash attention: causal pairs, no score operator.
  e.fused_attention = true;
  const StepBreakdown fb = make(m, test_gpu(), {}, s).prefill_breakdown(1, 2048, 1024);
  CHECK(find(fb, "attn_scores") == nullptr);
  REQUIRE(find(fb, "attention") != nullptr);
  CHECK(find(fb, "attention")->cost.flops ==
        Approx((2048.0 * 1024 + 2048.0 * 2049 / 2) * 4 * 8 * 128 * 2));
}

TEST_CASE("gemm_overlap_norm_p: a GEMM's compute and memory times combine as a p-norm", "[model]") {
  // t = (t_c^p + t_m^p)^(1/p) for the projections (p = 1 adds them, p -> inf is the max); other
  // operators keep the roofline's max. A prefill of 64 tokens puts the tiny model's projections
  // near the ridge, where the two forms differ most.
  const ModelSpec m = tiny_model();
  const PerfModel roof = make(m, test_gpu());
  const auto rb = roof.prefill_breakdown(1, 64, 0);
  for (const double p : {1.0, 1.9, 4.0}) {
    INFO("p = " << p);
    StackSpec s = ideal_stack();
    s.for_class(HwClass::gpu).gemm_overlap_norm_p = p;
    const auto b = make(m, test_gpu(), {}, s).prefill_breakdown(1, 64, 0);
    REQUIRE(b.ops.size() == rb.ops.size());
    int gemms = 0;
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const OpTime& o = b.ops[i];
      const double c = o.compute_s;
      const double t_m = o.memory_s;
      if (o.cost.kind == OpKind::gemm && c > 0 && t_m > 0) {
        ++gemms;
        const double want = std::pow(std::pow(c, p) + std::pow(t_m, p), 1.0 / p);
        CHECK(o.time_s - o.overhead_s - o.comm_s == Approx(want).epsilon(1e-9));
        CHECK(o.time_s >= rb.ops[i].time_s);  // never faster than the roofline
      } else {
        CHECK(o.time_s == Approx(rb.ops[i].time_s).epsilon(1e-12));
      }
    }
    CHECK(gemms >= 4);
  }
  // Far from the ridge the norm is the max: batch-1 decode streams weights (t_c / t_m < 1%).
  StackSpec s = ideal_stack();
  s.for_class(HwClass::gpu).gemm_overlap_norm_p = 1.9;
  CHECK(make(m, test_gpu(), {}, s).decode_step_s(1, 0) ==
        Approx(roof.decode_step_s(1, 0)).epsilon(1e-3));
}

TEST_CASE("tensor parallel halves the weight stream and adds two all-reduces per layer",
          "[model]") {
  const ModelSpec m = tiny_model();
  Deployment d;
  d.tp = 2;
  const PerfModel p2 = make(m, test_gpu(), d);
  const auto b = p2.decode_breakdown(1, 0);
  double comm = 0;
  for (const auto& op : b.ops) comm += op.comm_s;
  // Ring all-reduce of B*h*2 bytes: 2 (tp-1)/tp of it sent, 2 (tp-1) latency steps; 2 per layer.
  const double per = 1024 * 2.0 * 2 * (1.0 / 2) / 100e9 + 2 * 2e-6;
  CHECK(comm == Approx(2 * 2 * per).epsilon(1e-9));
  const PerfModel p1 = make(m, test_gpu());
  CHECK(p2.memory(1, 100, 100).weights_bytes == Approx(p1.memory(1, 100, 100).weights_bytes / 2));
  // Without a link, tensor parallelism is refused as a value, not an exception.
  HardwareSpec nolink = test_gpu();
  nolink.link_bandwidth_bytes_per_s = 0;
  CHECK_FALSE(PerfModel::create(m, nolink, ideal_stack(), d).ok());
}

TEST_CASE("MoE decode streams only the experts the batch touches", "[model]") {
  ModelSpec m = tiny_model();
  m.moe.experts = 8;
  m.moe.active_experts = 2;
  m.moe.expert_ffn_hidden = 4096;
  const PerfModel p = make(m, test_gpu());
  auto expert_bytes = [&](int batch) {
    for (const auto& op : p.decode_breakdown(batch, 0).ops) {
      if (op.cost.name == "experts") return op.cost.weight_bytes;
    }
    return 0.0;
  };
  const double one_expert = 3.0 * 1024 * 4096 * 2 * 2;  // 3 matrices, bf16, 2 layers
  // E (1 - (1 - k/E)^M): M=1 -> 2 experts; M=64 -> ~8 (all).
  CHECK(expert_bytes(1) == Approx(2 * one_expert));
  CHECK(expert_bytes(64) == Approx(8 * (1 - std::pow(0.75, 64)) * one_expert));
  CHECK(active_params(m) < total_params(m));

  // MoeRouting::same_experts: every token of the step picks the same k = 2 experts, so any batch
  // streams 2 experts' weights; the FLOPs (2 M k per expert weight) do not change.
  Deployment same;
  same.moe_routing = MoeRouting::same_experts;
  const PerfModel q = make(m, test_gpu(), same);
  auto expert_op = [](const PerfModel& model, int batch) {
    for (const auto& op : model.decode_breakdown(batch, 0).ops) {
      if (op.cost.name == "experts") return op.cost;
    }
    return OpCost{};
  };
  CHECK(expert_op(q, 1).weight_bytes == Approx(2 * one_expert));
  CHECK(expert_op(q, 64).weight_bytes == Approx(2 * one_expert));
  CHECK(expert_op(q, 64).flops == Approx(expert_op(p, 64).flops));
  // 64 tokens x 2 choices over the 2 experts: 64 rows per expert GEMM (uniform: 128 / ~8).
  CHECK(expert_op(q, 64).gemm_m == Approx(64));
  CHECK(expert_op(p, 64).gemm_m == Approx(128 / (8 * (1 - std::pow(0.75, 64)))));
  CHECK(q.decode_step_s(64, 0) < p.decode_step_s(64, 0));
}

TEST_CASE("a precision the hardware lacks is an error value", "[model]") {
  // FP8 x FP8 and NVFP4 x NVFP4 (W4A4) on a device with neither roof: an error value naming the
  // precision, not a silent bf16.
  const ModelSpec m = tiny_model();
  const std::pair<Precision, std::string> cases[] = {
      {{DType::fp8, DType::fp8, DType::fp8},
       "hardware 'test-gpu' has no dense fp8 compute roof for weights fp8 / activations fp8; "
       "choose a precision it supports"},
      {{DType::nvfp4, DType::nvfp4, DType::bf16},
       "hardware 'test-gpu' has no dense fp4 compute roof for weights nvfp4 / activations nvfp4; "
       "choose a precision it supports"}};
  for (const auto& [precision, message] : cases) {
    Deployment d;
    d.precision = precision;
    auto r = PerfModel::create(m, test_gpu(), ideal_stack(), d);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == message);
  }
}

TEST_CASE("stack fractions and overheads enter as stated", "[model]") {
  const ModelSpec m = tiny_model();
  StackSpec s = ideal_stack();
  s.datasheet_peaks = false;
  auto& e = s.for_class(HwClass::gpu);
  e.weight_bandwidth_fraction = 0.5;
  e.step_overhead_s = 1e-3;
  e.kernel_overhead_s = 0;
  const PerfModel p = make(m, test_gpu(), {}, s);
  const PerfModel ideal = make(m, test_gpu());
  // Achievable bandwidth = 0.88 x peak for GPUs, then x 0.5 for the stack; + 1 ms per step.
  CHECK(p.decode_step_s(1, 0) - 1e-3 ==
        Approx(ideal.decode_step_s(1, 0) / (0.88 * 0.5)).epsilon(0.01));
  e.supported = false;
  CHECK_FALSE(PerfModel::create(m, test_gpu(), s, {}).ok());
}

TEST_CASE("an eager prompt step takes max(device time, launches x prefill_launch_overhead_s)",
          "[model]") {
  // Engines that replay decode steps as CUDA graphs run prompt steps eagerly: the host issues
  // the step's launches ahead of the device, so the step ends with the slower of the two. The
  // tiny model (2 layers, rotary, no fusion) launches per layer: attn_norm, qkv, rotary,
  // attention and its KV write, o_proj, ffn_norm, ffn_up, ffn_act, ffn_down = 10; per step the
  // embedding, final_norm, lm_head and the sampler = 4: 2 x 10 + 4 = 24 launches. FP8
  // activations add a quantisation launch before each of the 4 layer GEMMs: 2 x 14 + 4 = 32.
  // TP 2 adds two all-reduces a layer: 24 + 4 = 28. Piecewise prefill graphs leave the
  // attention pieces (2 a layer) and one graph replay a layer: 2 x 2 + 2 = 6.
  const ModelSpec m = tiny_model();
  StackSpec s = ideal_stack();
  auto& e = s.for_class(HwClass::gpu);
  e.step_overhead_s = 2e-3;
  e.prefill_launch_overhead_s = 1e-3;
  const PerfModel eager = make(m, test_gpu(), {}, s);
  e.prefill_launch_overhead_s = 0;
  const PerfModel graphed = make(m, test_gpu(), {}, s);
  e.prefill_launch_overhead_s = 1e-3;

  // 8 prompt tokens take microseconds on the device: the host's 24 ms set the step.
  const auto b = eager.prefill_breakdown(1, 8);
  CHECK(b.host_launch_s == Approx(24e-3));
  CHECK(eager.prefill_s(1, 8) == Approx(24e-3 + 2e-3));
  CHECK(graphed.prefill_s(1, 8) < 3e-3);
  // A mixed step carries prompt tokens: eager too. A decode step replays its graph.
  CHECK(eager.decode_step_s(4, 100) == graphed.decode_step_s(4, 100));
  // The decodes' attention of a mixed step is device work under the same host floor.
  CHECK(eager.mixed_step_s(8, 4, 3, 100) == Approx(24e-3 + 2e-3));
  // At 10 us a launch (0.24 ms), 4096 tokens keep the device busier: the floor does not bind.
  e.prefill_launch_overhead_s = 1e-5;
  const PerfModel quick = make(m, test_gpu(), {}, s);
  e.prefill_launch_overhead_s = 1e-3;
  REQUIRE(graphed.prefill_s(1, 4096) > 2e-3 + 0.24e-3);
  CHECK(quick.prefill_s(1, 4096) == graphed.prefill_s(1, 4096));

  HardwareSpec fp8_gpu = test_gpu();
  at(fp8_gpu.dense_flops_per_s, ComputeType::fp8) = 200e12;
  Deployment fp8;
  fp8.precision.weights = fp8.precision.activations = DType::fp8;
  CHECK(make(m, fp8_gpu, fp8, s).prefill_breakdown(1, 8).host_launch_s == Approx(32e-3));
  // A stack that fuses elementwise work and quantisation into its GEMMs launches neither.
  StackSpec fused = s;
  fused.for_class(HwClass::gpu).fused_elementwise = true;
  // Per layer qkv, attention and its KV write, o_proj, ffn_up, ffn_down = 6; per step 3.
  CHECK(make(m, fp8_gpu, fp8, fused).prefill_breakdown(1, 8).host_launch_s == Approx(15e-3));
  Deployment tp2;
  tp2.tp = 2;
  CHECK(make(m, test_gpu(), tp2, s).prefill_breakdown(1, 8).host_launch_s == Approx(28e-3));
  Deployment piecewise;
  piecewise.prefill_cuda_graphs = true;
  const PerfModel pw = make(m, test_gpu(), piecewise, s);
  CHECK(pw.prefill_breakdown(1, 8).host_launch_s == Approx(6e-3));
  CHECK(pw.prefill_s(1, 8) == Approx(6e-3 + 2e-3));
}

TEST_CASE("eager launches of an MLA and MoE layer: DeepSeek-V3's 2170 a prompt step", "[model]") {
  // The count behind the sglang stack's prefill_launch_overhead_s (sglang PR #12160: 82.64 ms
  // for an eager forward of one new token). Per layer, FP8 activations, no fusion: attn_norm 1,
  // the MLA projections 4 GEMMs x 2 (each input quantised) + 5 (two latent norms, rotary, two
  // split/join copies) = 13, attention and its KV write 2, o_proj 2, the all-reduce 1,
  // ffn_norm 1, the FFN all-reduce 1 = 21; a dense FFN 2 + 1 + 2 = 5; a MoE FFN: router 3 (gate
  // GEMM, top-k), experts 5 + 2 quantisations = 7, shared experts 2 x 2 + 1 = 5, so 15. With 3
  // dense and 58 MoE layers and 4 launches a step: 61 x 21 + 3 x 5 + 58 x 15 + 4 = 2170.
  ModelSpec m = tiny_model();
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.ffn_hidden = 18432;
  m.vocab = 129280;
  m.mla.kv_lora_rank = 512;
  m.mla.q_lora_rank = 1536;
  m.mla.qk_nope_head_dim = 128;
  m.mla.qk_rope_head_dim = 64;
  m.mla.v_head_dim = 128;
  m.moe.experts = 256;
  m.moe.active_experts = 8;
  m.moe.expert_ffn_hidden = 2048;
  m.moe.shared_experts = 1;
  m.moe.first_dense_layers = 3;
  REQUIRE(m.mla.enabled());
  HardwareSpec gpu = test_gpu();
  at(gpu.dense_flops_per_s, ComputeType::fp8) = 200e12;
  gpu.memory_bytes = 1e12;
  Deployment d;
  d.tp = 8;
  d.precision.weights = d.precision.activations = DType::fp8;
  StackSpec s = ideal_stack();
  s.for_class(HwClass::gpu).prefill_launch_overhead_s = 1e-6;
  CHECK(make(m, gpu, d, s).prefill_breakdown(1, 1).host_launch_s == Approx(2170e-6));
}

TEST_CASE("CPU options: SMT, VM and NUMA policy scale bandwidth", "[model]") {
  const ModelSpec m = tiny_model();
  HardwareSpec h;
  h.name = "test-cpu";
  h.hw_class = HwClass::cpu;
  at(h.dense_flops_per_s, ComputeType::fp32) = 4e12;
  h.memory_bytes = 256e9;
  h.memory_bandwidth_bytes_per_s = 300e9;
  h.link_bandwidth_bytes_per_s = 60e9;
  h.cpu = CpuTopology{};
  h.cpu->cores = 32;
  h.cpu->per_core_bandwidth_bytes_per_s = 10e9;
  StackSpec s = ideal_stack();
  s.datasheet_peaks = false;
  auto bw = [&](Deployment d) { return make(m, h, d, s).rates().weight_bw; };
  Deployment base;
  // bw(n) = 0.8 * 300 GB/s * (1 - exp(-n / n0)), n0 = 240 GB/s / 10 GB/s = 24 threads.
  CHECK(bw(base) == Approx(240e9 * (1 - std::exp(-32.0 / 24))).epsilon(1e-9));
  Deployment sixteen;
  sixteen.cpu.threads_per_socket = 16;
  CHECK(bw(sixteen) == Approx(240e9 * (1 - std::exp(-16.0 / 24))).epsilon(1e-9));
  Deployment smt = base;
  smt.cpu.smt = true;
  CHECK(bw(smt) == Approx(bw(base) * 0.87));
  Deployment vm = base;
  vm.cpu.virtualized = true;
  CHECK(bw(vm) == Approx(bw(base) * 0.45));
  Deployment inter = base;
  inter.tp = 2;
  inter.cpu.numa = NumaPolicy::interleave;
  const double b0 = bw(base);
  CHECK(bw(inter) == Approx(1.0 / (0.5 / b0 + 0.5 / 60e9)));
  Deployment single = inter;
  single.cpu.numa = NumaPolicy::single_node;
  CHECK(bw(single) == Approx(std::min(b0 / 2, 60e9)));
}

TEST_CASE("predict: TTFT, TPOT and throughputs are consistent", "[model]") {
  const ModelSpec m = tiny_model();
  const PerfModel p = make(m, test_gpu());
  const Prediction r = predict(p, 4, 512, 128);
  CHECK(r.ttft_s == Approx(p.prefill_s(4, 512, 0)));
  double sum = 0;
  for (int i = 1; i < 128; ++i) sum += p.decode_step_s(4, 512 + i);
  CHECK(r.tpot_s == Approx(sum / 127));
  CHECK(r.total_decode_tokens_per_s == Approx(4 / r.tpot_s));
  CHECK(r.prefill_tokens_per_s == Approx(4 * 512 / r.ttft_s));
  CHECK(r.e2e_s == Approx(r.ttft_s + 127 * r.tpot_s));
  // tgN over many steps uses 64 midpoint samples; exact for affine step time.
  double exact = 0;
  for (int i = 0; i < 4096; ++i) exact += p.decode_step_s(1, i);
  CHECK(generation_tokens_per_s(p, 1, 0, 4096) == Approx(4096 / exact).epsilon(1e-6));
}
