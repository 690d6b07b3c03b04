#pragma once
// Random *valid* specs for the property tests (test_property_random.cpp): a model shape, a device,
// a serving stack, a precision, a request class with its SLA, engine settings, constraints and a
// price book, each drawn within the ranges the loaders accept (validate() of each part is empty,
// and the P99 prompt + output fits the model's context, as scenario_resolve.cpp requires). One
// seed gives one spec: the stream is infercap::Rng (xoshiro256**, the same on every platform),
// so a failure prints its seed and reproduces with INFERCAP_PROPERTY_SEED=<seed>.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "infercap/model.hpp"
#include "infercap/serving.hpp"
#include "infercap/solver.hpp"
#include "infercap/units.hpp"
#include "infercap/workload.hpp"

namespace random_specs {

using namespace infercap;

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  double uniform(double lo, double hi) { return lo + (hi - lo) * rng_.uniform(); }
  /// Log-uniform on [lo, hi]: every order of magnitude equally likely.
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  int integer(int lo, int hi) {  // inclusive
    return lo + static_cast<int>(rng_.next_u64() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return rng_.uniform() < p; }
  template <class T>
  const T& pick(const std::vector<T>& xs) {
    return xs[static_cast<size_t>(integer(0, static_cast<int>(xs.size()) - 1))];
  }

 private:
  Rng rng_;
};

/// One random spec: everything a single candidate needs, and a pool around it.
struct Spec {
  uint64_t seed = 0;
  ModelSpec model;
  HardwareSpec hw;
  StackSpec stack;
  PrecisionChoice precision;
  int tp = 1;
  int max_seqs = 1;
  RequestClass cls;
  ServingConfig serving;
  Constraints constraints;
  PriceBook prices;
};

inline ModelSpec random_model(Gen& g) {
  ModelSpec m;
  m.name = "m";
  m.family = "random";
  m.arch = g.chance(0.08) ? ModelArch::encoder : ModelArch::decoder;
  m.layers = g.integer(1, 128);
  m.head_dim = g.pick(std::vector<int>{32, 64, 80, 96, 128, 160, 256});
  m.heads = g.chance(0.7) ? 1 << g.integer(0, 7) : g.integer(1, 128);
  std::vector<int> divisors;
  for (int d = 1; d <= m.heads; ++d)
    if (m.heads % d == 0) divisors.push_back(d);
  m.kv_heads = g.chance(0.3) ? m.heads : g.pick(divisors);
  // Usually hidden = heads x head_dim; some models (Qwen3, Gemma) state head_dim apart.
  m.hidden = g.chance(0.7) ? m.heads * m.head_dim : 64 * g.integer(1, 256);
  m.ffn_hidden = std::max(1, static_cast<int>(m.hidden * g.uniform(1, 6)));
  m.ffn_kind = g.chance(0.7) ? FfnKind::swiglu : FfnKind::gelu;
  m.vocab = g.integer(256, 262144);
  m.tied_embeddings = g.chance(0.3);
  m.position = g.pick(
      std::vector<PositionKind>{PositionKind::rotary, PositionKind::learned, PositionKind::alibi});
  m.qkv_bias = g.chance(0.3);
  m.parallel_attention = g.chance(0.1);
  m.max_context = int64_t{1} << g.integer(9, 20);
  if (m.arch == ModelArch::decoder && g.chance(0.25)) {
    m.moe.experts = g.integer(2, 256);
    m.moe.active_experts = g.integer(1, std::min(8, m.moe.experts));
    m.moe.shared_experts = g.integer(0, 2);
    m.moe.expert_ffn_hidden = std::max(1, static_cast<int>(m.hidden * g.uniform(0.1, 1.5)));
    m.moe.first_dense_layers = g.integer(0, m.layers - 1);
  }
  if (m.arch == ModelArch::decoder && g.chance(0.1)) {
    m.mla.kv_lora_rank = g.integer(64, 1024);
    m.mla.q_lora_rank = g.chance(0.5) ? 0 : g.integer(64, 2048);
    m.mla.qk_nope_head_dim = g.integer(32, 192);
    m.mla.qk_rope_head_dim = g.integer(16, 64);
    m.mla.v_head_dim = g.integer(32, 192);
  }
  return m;
}

inline HardwareSpec random_hardware(Gen& g) {
  HardwareSpec h;
  h.name = "hw";
  h.vendor = "random";
  const double c = g.uniform(0, 1);
  h.hw_class = c < 0.5   ? HwClass::gpu
               : c < 0.7 ? HwClass::cpu
               : c < 0.9 ? HwClass::npu
                         : HwClass::fpga;
  const double base = g.log_uniform(1e12, 5e15);  // dense bf16-class peak, FLOP/s
  auto roof = [&](ComputeType t, double p, double factor) {
    if (g.chance(p)) at(h.dense_flops_per_s, t) = base * factor * g.uniform(0.8, 1.25);
  };
  roof(ComputeType::bf16, 0.85, 1);
  roof(ComputeType::fp16, 0.8, 1);
  roof(ComputeType::fp32, h.hw_class == HwClass::cpu ? 0.95 : 0.6, 0.25);
  roof(ComputeType::tf32, 0.3, 0.5);
  roof(ComputeType::fp8, 0.4, 2);
  roof(ComputeType::int8, 0.7, 2);
  roof(ComputeType::int4, 0.2, 4);
  roof(ComputeType::fp4, 0.15, 4);
  bool any = false;
  for (double f : h.dense_flops_per_s) any = any || f > 0;
  if (!any) at(h.dense_flops_per_s, ComputeType::fp32) = base;
  for (int i = 0; i < kComputeTypeCount; ++i)
    if (h.dense_flops_per_s[i] > 0 && g.chance(0.3))
      h.sparse_flops_per_s[i] = 2 * h.dense_flops_per_s[i];
  h.memory_bytes = g.log_uniform(4 * kGiB, 2048 * kGiB);
  h.memory_bandwidth_bytes_per_s = g.log_uniform(20e9, 20e12);
  h.cache_bytes = g.chance(0.7) ? g.log_uniform(1e6, 512e6) : 0;
  h.link_kind = g.chance(0.5) ? "nvlink" : "pcie";
  h.link_bandwidth_bytes_per_s = g.chance(0.9) ? g.log_uniform(8e9, 1e12) : 0;
  h.link_latency_s = g.chance(0.7) ? g.uniform(1e-6, 20e-6) : 0;
  h.compute_units = g.chance(0.6) ? g.integer(4, 256) : 0;
  h.clock_hz = g.chance(0.6) ? g.uniform(0.5e9, 3e9) : 0;
  h.tdp_w = g.chance(0.95) ? g.uniform(20, 1500) : 0;
  h.idle_w = h.tdp_w > 0 ? g.uniform(0, h.tdp_w) : 0;
  h.devices_per_server = g.pick(std::vector<int>{1, 2, 4, 8, 16});
  if (h.hw_class == HwClass::cpu) {
    CpuTopology t;
    t.cores = g.integer(4, 128);
    t.threads_per_core = g.chance(0.7) ? 2 : 1;
    t.memory_channels = g.integer(2, 12);
    t.memory_speed_mt_s = g.uniform(3200, 8800);
    t.numa_nodes_per_socket = g.pick(std::vector<int>{1, 2, 4});
    t.base_clock_hz = g.uniform(1.5e9, 3e9);
    t.boost_clock_hz = t.base_clock_hz * g.uniform(1, 1.6);
    t.avx2 = g.chance(0.9);
    t.avx512 = t.avx2 && g.chance(0.6);
    t.avx512_bf16 = t.avx512 && g.chance(0.5);
    t.avx512_vnni = t.avx512 && g.chance(0.6);
    t.amx = t.avx512_bf16 && g.chance(0.5);
    t.per_core_bandwidth_bytes_per_s = g.chance(0.5) ? g.uniform(5e9, 40e9) : 0;
    h.cpu = t;
    h.devices_per_server = g.pick(std::vector<int>{1, 2});
  }
  return h;
}

inline StackSpec random_stack(Gen& g, HwClass cls) {
  if (g.chance(0.3)) return ideal_stack();
  StackSpec s;
  s.name = "stack";
  for (auto& e : s.per_class) {
    e.weight_bandwidth_fraction = g.uniform(0.05, 1);
    e.kv_bandwidth_fraction = g.uniform(0.05, 1);
    e.gemm_compute_fraction = g.uniform(0.05, 1);
    e.quantised_gemm_compute_fraction = g.uniform(0.05, 1);
    e.attention_compute_fraction = g.uniform(0.05, 1);
    e.gemm_m_half = g.chance(0.5) ? g.uniform(0, 64) : 0;
    e.kernel_overhead_s = g.chance(0.7) ? g.log_uniform(1e-7, 5e-5) : 0;
    e.step_overhead_s = g.chance(0.7) ? g.log_uniform(1e-6, 5e-3) : 0;
    e.fused_attention = g.chance(0.8);
    e.fused_elementwise = g.chance(0.3);
    e.block_formats_use_int8 = g.chance(0.7);
    e.issue_cycles_per_weight = g.chance(0.3) ? g.uniform(0, 4) : 0;
    e.quantised_issue_cycles_per_weight = g.chance(0.3) ? g.uniform(0, 8) : 0;
    e.activation_bytes_per_element = g.chance(0.2) ? 4 : 0;
    e.prefill_chunk_tokens = g.chance(0.2) ? g.integer(32, 4096) : 0;
    e.prefill_batch_tokens =
        e.prefill_chunk_tokens > 0 && g.chance(0.5) ? e.prefill_chunk_tokens * g.integer(1, 8) : 0;
    e.flops_per_watt = g.chance(0.2) ? g.log_uniform(1e11, 5e12) : 0;
    e.cpu_isa_kernels = g.chance(0.4);
    e.amx_gemm_fraction = g.uniform(0.05, 1);
    e.dot_fraction = g.uniform(0.05, 1);
    e.quantised_dot_fraction = g.uniform(0.05, 1);
    e.amx_dot_fraction = g.uniform(0.05, 1);
    e.core_bandwidth_bytes_per_s = g.chance(0.3) ? g.uniform(5e9, 40e9) : 0;
  }
  // Sometimes the stack does not run on the drawn class: the candidate must say so.
  if (g.chance(0.03)) s.for_class(cls).supported = false;
  s.memory_reserve_fraction = g.chance(0.5) ? g.uniform(0, 0.2) : 0;
  s.memory_reserve_bytes = g.chance(0.5) ? g.uniform(0, 4 * kGiB) : 0;
  return s;
}

inline LengthDist random_length(Gen& g, double lo, double hi) {
  const double v = g.log_uniform(lo, hi);
  switch (g.integer(0, 4)) {
    case 0:
      return *fixed_length(std::floor(v));
    case 1: {
      const double a = std::floor(g.log_uniform(lo, v));
      return *uniform_length(a, std::max(a, std::floor(v)));
    }
    case 2:
      return *lognormal_length_mean_sigma(v, g.uniform(0.05, 1.0));
    case 3:
      return *exponential_length(v);
    default: {
      std::vector<double> t, w;
      const int n = g.integer(1, 5);
      for (int i = 0; i < n; ++i) {
        t.push_back(std::floor(g.log_uniform(lo, hi)));
        w.push_back(g.uniform(0.05, 1));
      }
      return *histogram_length(t, w);
    }
  }
}

inline double p99(const LengthDist& d) {
  auto q = quantile(d, 99);
  return q ? *q : mean(d);
}

inline RequestClass random_class(Gen& g, const ModelSpec& m) {
  RequestClass c;
  c.name = "c";
  c.model = m.name;
  c.rate.mean_qps = g.log_uniform(1e-3, 500);
  if (g.chance(0.5)) c.rate.peak_qps = c.rate.mean_qps * g.uniform(1, 4);
  switch (g.integer(0, 3)) {
    case 0:
      c.arrival.kind = ArrivalKind::poisson;
      break;
    case 1:
      c.arrival.kind = ArrivalKind::deterministic;
      break;
    case 2:
      c.arrival.kind = ArrivalKind::gamma;
      c.arrival.scv = g.uniform(0.1, 4);
      break;
    default:
      c.arrival.kind = ArrivalKind::hyperexponential;
      c.arrival.scv = g.uniform(1.2, 8);
  }
  // Lengths whose P99 prompt + output fits the context window (a longer one is a spec error).
  const double ctx = static_cast<double>(m.max_context);
  for (int attempt = 0;; ++attempt) {
    c.prompt_tokens = random_length(g, 1, std::min(ctx * 0.6, 32768.0));
    c.output_tokens = m.arch == ModelArch::encoder
                          ? *fixed_length(1)
                          : random_length(g, 1, std::min(ctx * 0.3, 4096.0));
    if (p99(c.prompt_tokens) + p99(c.output_tokens) <= ctx) break;
    if (attempt > 20) {
      c.prompt_tokens = *fixed_length(std::floor(ctx / 2));
      c.output_tokens = *fixed_length(1);
      break;
    }
  }
  auto pct = [&] { return g.pick(std::vector<double>{50, 90, 95, 99, 99.9}); };
  if (g.chance(0.8)) c.sla.ttft = {g.log_uniform(0.01, 60), pct()};
  if (m.arch == ModelArch::decoder && g.chance(0.7)) c.sla.tpot = {g.log_uniform(0.002, 1), pct()};
  if (g.chance(0.3) || (!c.sla.ttft.set() && !c.sla.tpot.set()))
    c.sla.e2e = {g.log_uniform(0.05, 600), pct()};
  c.priority = g.integer(0, 3);
  return c;
}

inline PriceBook random_prices(Gen& g, const HardwareSpec& hw) {
  PriceBook b;
  b.name = "random";
  b.depreciation_years = g.uniform(1, 7);
  b.electricity_usd_per_kwh = g.uniform(0.02, 0.4);
  b.pue = g.uniform(1, 2);
  b.hosting_usd_per_kw_year = g.chance(0.3) ? g.uniform(0, 3000) : 0;
  b.hosting_usd_per_rack_unit_year = g.chance(0.3) ? g.uniform(0, 500) : 0;
  b.maintenance_fraction_per_year = g.uniform(0, 0.2);
  b.ops_usd_per_server_year = g.uniform(0, 5000);
  b.engineer_week_usd = g.chance(0.5) ? g.uniform(2000, 10000) : 0;
  if (g.chance(0.03)) return b;  // no price for the device: the candidate must say so
  DevicePricing d;
  d.hardware = hw.name;
  double price = g.log_uniform(200, 60000);
  int units = 1;
  for (int i = g.integer(1, 3); i > 0; --i) {
    d.tiers.push_back({units, price});
    units += g.integer(1, 100);
    price *= g.uniform(0.7, 1.0);
  }
  d.server_price_usd = g.uniform(0, 100000);
  d.server_host_w = g.uniform(0, 2000);
  d.rack_units_per_server = g.integer(1, 8);
  d.cloud_usd_per_device_hour = g.chance(0.3) ? g.uniform(0.1, 10) : 0;
  d.porting_family = "fam";
  d.owned_devices = g.chance(0.1) ? g.integer(0, 16) : 0;
  d.owned_servers = g.chance(0.1) ? g.integer(0, 4) : 0;
  b.devices.push_back(d);
  b.porting.push_back({"fam", g.uniform(0, 20), g.uniform(0, 5), false});
  return b;
}

inline Spec random_spec(uint64_t seed) {
  Gen g(seed);
  Spec s;
  s.seed = seed;
  s.model = random_model(g);
  s.hw = random_hardware(g);
  s.stack = random_stack(g, s.hw.hw_class);
  s.precision = *precision_preset(g.pick(precision_preset_names()));
  if (g.chance(0.3))
    s.precision = *with_kv_precision(s.precision, g.pick(kv_precision_preset_names()));
  // TP: a divisor of the heads that fits in one server, mostly; sometimes not (a "runs" reject).
  std::vector<int> tps;
  for (int t : {1, 2, 4, 8})
    if (s.model.heads % t == 0 && t <= s.hw.devices_per_server) tps.push_back(t);
  s.tp = g.chance(0.95) ? g.pick(tps) : g.pick(std::vector<int>{2, 4, 8, 16});
  s.cls = random_class(g, s.model);
  s.max_seqs = g.pick(std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  s.serving.max_seqs = s.max_seqs;
  s.serving.max_batched_tokens =
      std::max(s.max_seqs, g.pick(std::vector<int>{512, 2048, 8192, 32768}));
  s.serving.prompt_schedule =
      g.chance(0.8) ? PromptSchedule::chunked : PromptSchedule::whole_prompt_steps;
  s.serving.kv_block_tokens = g.pick(std::vector<int>{1, 8, 16, 32});
  if (g.chance(0.2)) {
    const double longest = std::ceil(p99(s.cls.prompt_tokens) + p99(s.cls.output_tokens));
    s.serving.max_context_tokens = static_cast<int64_t>(longest) + g.integer(0, 4096);
  }
  auto& k = s.constraints;
  k.horizon_years = g.integer(1, 10);
  k.load_growth_per_year = g.chance(0.5) ? g.uniform(-0.5, 2) : 0;
  k.redundancy = g.integer(0, 3);
  k.model_changes_per_year = g.chance(0.3) ? g.uniform(0, 12) : 0;
  if (g.chance(0.2)) k.capex_budget_usd = g.log_uniform(1e4, 1e9);
  if (g.chance(0.2)) k.annual_budget_usd = g.log_uniform(1e4, 1e9);
  if (g.chance(0.2)) k.power_cap_w = g.log_uniform(1e3, 1e8);
  if (g.chance(0.2)) k.rack_units = g.integer(1, 10000);
  s.prices = random_prices(g, s.hw);
  return s;
}

/// The plan inputs around one spec: one pool of its class, its device in the search space.
inline PlanInputs plan_inputs(const Spec& s) {
  PlanInputs in;
  in.name = "property";
  in.models = {s.model};
  Pool p;
  p.name = "pool";
  p.model = s.model.name;
  p.classes = {s.cls};
  in.pools = {p};
  in.space.hardware = {s.hw};
  in.space.stacks = {s.stack};
  in.space.precisions = {s.precision};
  in.space.tp = {s.tp};
  in.space.max_seqs = {s.max_seqs};
  in.serving = s.serving;
  in.constraints = s.constraints;
  in.prices = s.prices;
  in.verify_top = 0;
  return in;
}

/// Enough of a spec to recognise it in a failure message (the seed alone reproduces it).
inline std::string describe(const Spec& s) {
  const auto& m = s.model;
  const auto& h = s.hw;
  return fmt::format(
      "seed {} (rerun: INFERCAP_PROPERTY_SEED={}): model {} layers={} hidden={} heads={}/{} "
      "head_dim={} ffn={} vocab={} ctx={} moe={}/{} mla={}; hw {} mem={:.3g} B bw={:.3g} B/s "
      "bf16={:.3g} fp16={:.3g} int8={:.3g} fp32={:.3g} per_server={}; stack {}; precision {} "
      "kv {}; tp {} max_seqs {}; class qps={:.4g} peak={:.4g} prompt mean={:.4g} output "
      "mean={:.4g} ttft={:.4g}@{} tpot={:.4g}@{} e2e={:.4g}@{}",
      s.seed, s.seed, m.arch == ModelArch::encoder ? "encoder" : "decoder", m.layers, m.hidden,
      m.heads, m.kv_heads, m.head_dim, m.ffn_hidden, m.vocab, m.max_context, m.moe.experts,
      m.moe.active_experts, m.mla.kv_lora_rank, hw_class_name(h.hw_class), h.memory_bytes,
      h.memory_bandwidth_bytes_per_s, at(h.dense_flops_per_s, ComputeType::bf16),
      at(h.dense_flops_per_s, ComputeType::fp16), at(h.dense_flops_per_s, ComputeType::int8),
      at(h.dense_flops_per_s, ComputeType::fp32), h.devices_per_server, s.stack.name,
      s.precision.name, dtype_name(s.precision.precision.kv), s.tp, s.max_seqs, s.cls.rate.mean_qps,
      s.cls.rate.peak_qps, mean(s.cls.prompt_tokens), mean(s.cls.output_tokens),
      s.cls.sla.ttft.limit_s, s.cls.sla.ttft.percentile, s.cls.sla.tpot.limit_s,
      s.cls.sla.tpot.percentile, s.cls.sla.e2e.limit_s, s.cls.sla.e2e.percentile);
}

}  // namespace random_specs
