// infercap_decoder_run: a real small decoder (a catalog model's exact shapes, random weights) run
// on the calibration kernels, timed per decode step and per prefill, next to PerfModel's
// datasheet-only and calibrated predictions of the same steps. docs/calibration.md reports it.
//
//   infercap_decoder_run --model qwen2.5-0.5b --weights bf16 --hardware data/calibration/x.yaml
//                        --profile data/calibration/x.profile.yaml [--threads N] [--steps 16]
//                        [--context 128] [--prompt 128]
//
// The forward pass: embedding row, per layer RMSNorm, fused QKV (+bias), rotary, causal GQA
// attention over an fp32 KV cache, O projection, residual, RMSNorm, fused gate/up, SiLU x up,
// down, residual; final RMSNorm and the lm_head for the last position only (as PerfModel counts).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cpuid.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/perf.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/loaders.hpp"
#include "infercap/spec/profile_io.hpp"
#include "matmul.hpp"
#include "thread_team.hpp"

using namespace infercap;
using namespace infercap::calibration;
using namespace infercap::calibration::cpu;

namespace {

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ULL + 7) {}
  float next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) / 16777216.0) * 2.0f - 1.0f;
  }
};

struct Kernel {
  MatmulFn fn = nullptr;
  ActFormat act = ActFormat::f32;
  bool amx = false;
  std::string isa;
};

Kernel pick(DType w) {
  const bool z = avx512_available().available;
  switch (w) {
    case DType::fp32:
      return z ? Kernel{avx512::matmul_f32, ActFormat::f32, false, "avx512"}
               : Kernel{avx2::matmul_f32, ActFormat::f32, false, "avx2"};
    case DType::bf16:
      if (amx_available(false).available) return {amx::matmul_bf16, ActFormat::bf16, true, "amx"};
      if (avx512_bf16_available().available)
        return {avx512::matmul_bf16, ActFormat::bf16, false, "avx512_bf16"};
      return {avx2::matmul_bf16, ActFormat::f32, false, "avx2"};
    case DType::int8:
      if (amx_available(true).available) return {amx::matmul_int8, ActFormat::q8, true, "amx"};
      if (avx512_vnni_available().available)
        return {avx512::matmul_int8, ActFormat::q8, false, "avx512_vnni"};
      return {avx2::matmul_int8, ActFormat::f32, false, "avx2"};
    default:
      if (avx512_vnni_available().available)
        return {avx512::matmul_int4, ActFormat::q8, false, "avx512_vnni"};
      return {avx2::matmul_int4, ActFormat::f32, false, "avx2"};
  }
}

struct Linear {
  PackedWeights w;
  std::vector<float> bias;
};

class Decoder {
 public:
  Decoder(const ModelSpec& m, DType wt, int threads, long max_tokens, long max_ctx)
      : m_(m), team_(threads, -1), kern_(pick(wt)), max_ctx_(max_ctx) {
    H_ = m.hidden;
    D_ = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
    Q_ = static_cast<long>(m.heads) * D_;
    KV_ = static_cast<long>(m.kv_heads) * D_;
    F_ = m.ffn_hidden;
    const long qkv = Q_ + 2 * KV_;
    uint64_t seed = 1;
    for (int l = 0; l < m.layers; ++l) {
      layers_.push_back({make(qkv, H_, wt, seed++, m.qkv_bias), make(H_, Q_, wt, seed++, false),
                         make(2 * F_, H_, wt, seed++, false), make(H_, F_, wt, seed++, false)});
    }
    lm_head_ = make(m.vocab, H_, wt, seed++, false);
    embed_.resize(static_cast<size_t>(H_) * 64);  // 64 distinct rows stand in for the table
    Rng g(99);
    for (auto& v : embed_) v = g.next();
    for (long k : {H_, Q_, F_}) acts_[k] = Activations(kern_.act, max_tokens, k, kern_.amx);
    kc_.assign(static_cast<size_t>(m.layers) * m.kv_heads * max_ctx * D_, 0.0f);
    vc_ = kc_;
    x_.resize(static_cast<size_t>(max_tokens * H_));
    h_.resize(x_.size());
    qkv_.resize(static_cast<size_t>(max_tokens * qkv));
    att_.resize(static_cast<size_t>(max_tokens * Q_));
    gu_.resize(static_cast<size_t>(max_tokens * 2 * F_));
    ff_.resize(static_cast<size_t>(max_tokens * F_));
    logits_.resize(static_cast<size_t>(m.vocab));
    scores_.resize(static_cast<size_t>(team_.size()) * static_cast<size_t>(max_ctx));
    // Rotary angles are a function of position only: tabulated once, as engines do.
    rope_.resize(static_cast<size_t>(max_ctx * D_));
    for (long p = 0; p < max_ctx; ++p) {
      for (long i = 0; i < D_ / 2; ++i) {
        const double ang =
            static_cast<double>(p) *
            std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(D_));
        rope_[static_cast<size_t>(p * D_ + 2 * i)] = static_cast<float>(std::cos(ang));
        rope_[static_cast<size_t>(p * D_ + 2 * i + 1)] = static_cast<float>(std::sin(ang));
      }
    }
  }
  const std::string& isa() const { return kern_.isa; }
  /// Seconds spent in matmuls since the last reset (the rest is norms, rotary, attention, ...).
  double matmul_s_ = 0;
  std::map<long, double> by_k_;  ///< seconds per matrix shape (k * 1000003 + n)
  double weight_bytes() const {
    double b = lm_head_.w.weight_bytes();
    for (const auto& l : layers_) {
      b += l.qkv.w.weight_bytes() + l.o.w.weight_bytes() + l.gu.w.weight_bytes() +
           l.down.w.weight_bytes();
    }
    return b;
  }

  /// Runs `m` new tokens at positions [pos, pos + m); returns the arg-max token of the last.
  long forward(long m, long pos) {
    for (long t = 0; t < m; ++t) {
      std::memcpy(&x_[static_cast<size_t>(t * H_)],
                  &embed_[static_cast<size_t>(((pos + t) % 64) * H_)], sizeof(float) * H_);
    }
    for (int l = 0; l < m_.layers; ++l) {
      Layer& L = layers_[static_cast<size_t>(l)];
      rmsnorm(x_.data(), h_.data(), m, H_);
      matmul(L.qkv, h_.data(), m, qkv_.data());
      rope_and_cache(l, m, pos);
      attention(l, m, pos);
      matmul(L.o, att_.data(), m, h_.data());
      for (long i = 0; i < m * H_; ++i) x_[static_cast<size_t>(i)] += h_[static_cast<size_t>(i)];
      rmsnorm(x_.data(), h_.data(), m, H_);
      matmul(L.gu, h_.data(), m, gu_.data());
      for (long t = 0; t < m; ++t) {
        for (long i = 0; i < F_; ++i) {
          const float g = gu_[static_cast<size_t>(t * 2 * F_ + i)],
                      u = gu_[static_cast<size_t>(t * 2 * F_ + F_ + i)];
          ff_[static_cast<size_t>(t * F_ + i)] = g / (1.0f + std::exp(-g)) * u;
        }
      }
      matmul(L.down, ff_.data(), m, h_.data());
      for (long i = 0; i < m * H_; ++i) x_[static_cast<size_t>(i)] += h_[static_cast<size_t>(i)];
    }
    rmsnorm(x_.data() + (m - 1) * H_, h_.data(), 1, H_);
    matmul(lm_head_, h_.data(), 1, logits_.data());
    return std::max_element(logits_.begin(), logits_.end()) - logits_.begin();
  }

 private:
  struct Layer {
    Linear qkv, o, gu, down;
  };
  Linear make(long n, long k, DType wt, uint64_t seed, bool bias) {
    Linear L;
    allocate_weights(L.w, wt, n, k, -1);
    const float scale = 1.0f / std::sqrt(static_cast<float>(k));
    team_.run([&](int tid, int nt) {
      const auto [b, e] = split_range(n, nt, tid, kRowGrain);
      std::vector<float> row(static_cast<size_t>(k));
      for (long r = b; r < e; ++r) {
        Rng g(seed * 1000003ULL + static_cast<uint64_t>(r));
        for (auto& v : row) v = g.next() * scale;
        pack_row(L.w, row.data(), r);
      }
    });
    if (bias) L.bias.assign(static_cast<size_t>(n), 0.01f);
    return L;
  }
  void matmul(const Linear& L, const float* x, long m, float* y) {
    const double t0 = now_s();
    struct Acc {
      double& s;
      double& by;
      double t0;
      ~Acc() {
        const double d = now_s() - t0;
        s += d;
        by += d;
      }
    } acc{matmul_s_, by_k_[L.w.k * 1000003 + L.w.n], t0};
    Activations& a = acts_.at(L.w.k);
    MatmulArgs args{&L.w, x, &a, m, y};
    const bool conv = kern_.act != ActFormat::f32;
    team_.run([&](int tid, int nt) {
      if (conv) {
        const auto [mb, me] = split_range(m, nt, tid);
        prepare_activations(a, x, mb, me);
        team_.barrier();
      }
      const auto [b, e] = split_range(L.w.n, nt, tid, kRowGrain);
      if (e > b) kern_.fn(args, b, e);
    });
    if (!L.bias.empty()) {
      for (long t = 0; t < m; ++t)
        for (long i = 0; i < L.w.n; ++i) y[t * L.w.n + i] += L.bias[static_cast<size_t>(i)];
    }
  }
  static void rmsnorm(const float* x, float* y, long m, long h) {
    for (long t = 0; t < m; ++t) {
      double ss = 0;
#pragma omp simd reduction(+ : ss)
      for (long i = 0; i < h; ++i) ss += static_cast<double>(x[t * h + i]) * x[t * h + i];
      const auto inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(h) + 1e-6));
      for (long i = 0; i < h; ++i) y[t * h + i] = x[t * h + i] * inv;
    }
  }
  void rope_and_cache(int l, long m, long pos) {
    const long qkv = Q_ + 2 * KV_;
    for (long t = 0; t < m; ++t) {
      float* row = &qkv_[static_cast<size_t>(t * qkv)];
      const auto p = static_cast<double>(pos + t);
      for (long hd = 0; hd < m_.heads + m_.kv_heads; ++hd) {  // q heads then k heads
        float* v = row + hd * D_;
        for (long i = 0; i < D_ / 2; ++i) {
          const double ang =
              p * std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(D_));
          const auto c = static_cast<float>(std::cos(ang)), s = static_cast<float>(std::sin(ang));
          const float a = v[i], b = v[i + D_ / 2];
          v[i] = a * c - b * s;
          v[i + D_ / 2] = a * s + b * c;
        }
      }
      for (long kh = 0; kh < m_.kv_heads; ++kh) {
        const size_t off =
            ((static_cast<size_t>(l) * m_.kv_heads + kh) * max_ctx_ + (pos + t)) * D_;
        std::memcpy(&kc_[off], row + Q_ + kh * D_, sizeof(float) * D_);
        std::memcpy(&vc_[off], row + Q_ + KV_ + kh * D_, sizeof(float) * D_);
      }
    }
  }
  void attention(int l, long m, long pos) {
    const long qkv = Q_ + 2 * KV_;
    const long groups = m_.heads / m_.kv_heads;
    const auto scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(D_)));
    team_.run([&](int tid, int nt) {
      float* sc = &scores_[static_cast<size_t>(tid) * static_cast<size_t>(max_ctx_)];
      const auto [wb, we] = split_range(m * m_.heads, nt, tid);
      for (long w = wb; w < we; ++w) {
        const long t = w / m_.heads, hd = w % m_.heads, kh = hd / groups;
        const float* q = &qkv_[static_cast<size_t>(t * qkv + hd * D_)];
        const float* K = &kc_[(static_cast<size_t>(l) * m_.kv_heads + kh) * max_ctx_ * D_];
        const float* V = &vc_[(static_cast<size_t>(l) * m_.kv_heads + kh) * max_ctx_ * D_];
        const long n = pos + t + 1;  // causal
        float mx = -INFINITY;
        for (long j = 0; j < n; ++j) {
          float s = 0;
#pragma omp simd reduction(+ : s)
          for (long i = 0; i < D_; ++i) s += q[i] * K[j * D_ + i];
          sc[j] = s * scale;
          mx = std::max(mx, sc[j]);
        }
        float sum = 0;
        for (long j = 0; j < n; ++j) {
          sc[j] = std::exp(sc[j] - mx);
          sum += sc[j];
        }
        float* out = &att_[static_cast<size_t>(t * Q_ + hd * D_)];
        std::fill(out, out + D_, 0.0f);
        for (long j = 0; j < n; ++j) {
          const float p = sc[j] / sum;
#pragma omp simd
          for (long i = 0; i < D_; ++i) out[i] += p * V[j * D_ + i];
        }
      }
    });
  }

  const ModelSpec& m_;
  ThreadTeam team_;
  Kernel kern_;
  long max_ctx_;
  long H_ = 0, D_ = 0, Q_ = 0, KV_ = 0, F_ = 0;
  std::vector<Layer> layers_;
  Linear lm_head_;
  std::vector<float> embed_;
  std::map<long, Activations> acts_;
  std::vector<float> kc_, vc_, x_, h_, qkv_, att_, gu_, ff_, logits_, scores_, rope_;
};

StackSpec kernels_stack() {
  // This program's own kernels: fractions 1 of the achievable rates, no stack overheads; the
  // per-call overhead comes from the profile when one is given.
  StackSpec s;
  s.name = "infercap-kernels";
  s.description = "the calibration kernels (tools/decoder_run.cpp)";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name = "qwen2.5-0.5b", weights = "bf16", hw_path, profile_path;
  int threads = 0, steps = 16;
  double given_decode_ms = 0, given_prefill_ms = 0;  // --measured-*: predict only (another host)
  long context = 128, prompt = 128;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") {
      model_name = v;
    } else if (k == "--weights") {
      weights = v;
    } else if (k == "--hardware") {
      hw_path = v;
    } else if (k == "--profile") {
      profile_path = v;
    } else if (k == "--threads") {
      threads = std::stoi(v);
    } else if (k == "--steps") {
      steps = std::stoi(v);
    } else if (k == "--context") {
      context = std::stol(v);
    } else if (k == "--prompt") {
      prompt = std::stol(v);
    } else if (k == "--measured-decode-ms") {
      given_decode_ms = std::stod(v);
    } else if (k == "--measured-prefill-ms") {
      given_prefill_ms = std::stod(v);
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  spec::Diagnostics diags;
  const auto catalog = spec::Catalog::load(spec::Catalog::default_data_dir(), diags);
  auto model = catalog.resolve_model(model_name, diags);
  std::optional<HardwareSpec> hw;
  if (!hw_path.empty()) hw = catalog.resolve_hardware(hw_path, diags);
  std::optional<CalibrationProfile> profile;
  if (!profile_path.empty()) {
    auto p = spec::load_profile(profile_path, diags);
    if (p) profile = *p;
  }
  const auto wt = parse_dtype(weights);
  if (!model || !wt || (!hw_path.empty() && !hw) || (!profile_path.empty() && !profile)) {
    fmt::print(stderr, "{}", diags.format());
    return 3;
  }
  if (threads <= 0) threads = std::max(1, hwloc_get_nbobjs_by_type(topology(), HWLOC_OBJ_CORE));
  Quantiles qd, qp;
  const double mid_ctx = static_cast<double>(context) + 2 + steps / 2.0;
  if (given_decode_ms > 0 && given_prefill_ms > 0) {
    // Predictions only, against times measured elsewhere (e.g. the device log of this tool).
    qd.median = given_decode_ms / 1e3;
    qp.median = given_prefill_ms / 1e3;
    fmt::print("given: decode step {:.2f} ms (context ~{:.0f}), prefill {} tokens {:.1f} ms\n",
               given_decode_ms, mid_ctx, prompt, given_prefill_ms);
  } else {
    const long max_ctx = std::max(context + steps + 8, prompt + 8);
    fmt::print(stderr, "building {} with random {} weights on {} threads...\n", model->name,
               weights, threads);
    Decoder dec(*model, *wt, threads, std::max<long>({prompt, context, 1}), max_ctx);
    fmt::print("model {}: {} weights ({:.2f} GB streamed per token), kernels {}, {} threads\n",
               model->name, weights, dec.weight_bytes() / 1e9, dec.isa(), threads);

    // Prefill: `prompt` tokens from position 0, three runs, median.
    std::vector<double> pre;
    for (int r = 0; r < 3; ++r) {
      const double t0 = now_s();
      dec.forward(prompt, 0);
      pre.push_back(now_s() - t0);
    }
    // Decode: fill the cache to `context`, then time single-token steps.
    dec.forward(context, 0);
    std::vector<double> dt;
    double mm = 0;
    for (int s = 0; s < steps + 2; ++s) {
      dec.matmul_s_ = 0;
      if (s == 0) dec.by_k_.clear();
      const double t0 = now_s();
      dec.forward(1, context + s);
      if (s >= 2) {  // two warm-up steps
        dt.push_back(now_s() - t0);
        mm += dec.matmul_s_;
      }
    }
    qd = quantiles(dt);
    qp = quantiles(pre);
    double total = 0;
    for (double v : dt) total += v;
    if (std::getenv("INFERCAP_DECODER_SHAPES") != nullptr) {
      for (const auto& [key, sec] : dec.by_k_) {
        fmt::print("  matmul n={} k={}: {:.2f} ms per step\n", key % 1000003, key / 1000003,
                   sec / static_cast<double>(dt.size() + 2) * 1e3);
      }
    }
    fmt::print("decode: {:.0f}% of the time in matmuls ({:.1f} GB/s over the weights)\n",
               100 * mm / total, dec.weight_bytes() * static_cast<double>(dt.size()) / mm / 1e9);
    fmt::print(
        "measured: decode step {:.2f} ms (p10 {:.2f}, p90 {:.2f}; context ~{:.0f}), prefill {} "
        "tokens {:.1f} ms\n",
        qd.median * 1e3, qd.p10 * 1e3, qd.p90 * 1e3, mid_ctx, prompt, qp.median * 1e3);
  }
  if (!hw) return 0;

  Deployment dep;
  dep.precision.weights = *wt;
  dep.precision.activations = *wt == DType::fp32                 ? DType::fp32
                              : pick(*wt).act == ActFormat::q8   ? DType::int8
                              : pick(*wt).act == ActFormat::bf16 ? DType::bf16
                                                                 : DType::fp32;
  dep.precision.kv = DType::fp32;
  dep.cpu.threads_per_socket = threads;
  auto report = [&](const char* label, const StackSpec& st, const CalibrationProfile* p) {
    auto pm = PerfModel::create(*model, *hw, st, dep, p);
    if (!pm) {
      fmt::print("{}: {}\n", label, pm.error().message);
      return;
    }
    const double d = pm->decode_step_s(1, mid_ctx),
                 f = pm->prefill_s(1, static_cast<double>(prompt));
    fmt::print("{:<34} decode {:8.2f} ms ({:+6.1f}%)   prefill {:9.1f} ms ({:+6.1f}%)\n", label,
               d * 1e3, 100 * (d / qd.median - 1), f * 1e3, 100 * (f / qp.median - 1));
  };
  report("datasheet roofline (ideal stack)", ideal_stack(), nullptr);
  report("datasheet x class defaults", kernels_stack(), nullptr);
  if (profile) report("calibrated (profile)", kernels_stack(), &*profile);
  return 0;
}
