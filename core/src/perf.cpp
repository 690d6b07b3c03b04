#include "infercap/perf.hpp"

#include <fmt/core.h>

#include "infercap/cpu_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace infercap {

namespace {

// What a perfect kernel reaches of the datasheet peak, per hardware class, when no calibration
// profile says otherwise. They separate hardware physics (DRAM/HBM efficiency, clocks under load)
// from software (the stack's fractions), so a stack fitted on one device transfers to another.
//  gpu bandwidth 0.88: H200 copy 4.26 TB/s of 4.8 (shared/reference/h200-micro.json);
//  gpu compute 0.76: H200 bf16 8192^3 GEMM 748 of 989 TFLOP/s (same file);
//  cpu bandwidth 0.80: STREAM triad on 8-channel DDR5 servers is typically 75-85% of
//    channels x MT/s x 8 B; cpu compute 0.70: sustained AVX-512/AMX clocks sit below base;
//  npu/fpga: no public kernel measurements; the GPU figures stand in (docs/model.md).
constexpr std::array<double, kHwClassCount> kAchievableBandwidth{0.80, 0.88, 0.85, 0.85};
constexpr std::array<double, kHwClassCount> kAchievableCompute{0.70, 0.76, 0.70, 0.70};
// Bandwidth one core pulls on its own when the catalog does not say (DDR5 server cores measure
// 15-25 GB/s in single-thread STREAM); it sets how fast bandwidth saturates with threads.
constexpr double kDefaultPerCoreBandwidth = 20e9;
constexpr double kDefaultLinkLatencyS = 5e-6;
// Flash-attention query tile: each tile re-reads the keys before it.
constexpr double kAttentionQueryTile = 128.0;
// Unfused attention keeps fp32 scores: written, read for softmax, written, read for PV (a
// stack's attention_score_bytes_per_pair replaces it where its kernels move more).
constexpr double kUnfusedScoreBytesPerPair = 4.0 * 4.0;

/// Bytes per query-key pair and head that an unfused attention's score matrix moves.
double score_bytes_per_pair(const StackEfficiency& e) {
  return e.attention_score_bytes_per_pair > 0 ? e.attention_score_bytes_per_pair
                                              : kUnfusedScoreBytesPerPair;
}
// Rows of a CPU GEMM tile (tinyBLAS / repack kernels tile 4-8 rows of activations): below this
// many tokens a decode GEMM runs the per-token dot loop.
constexpr double kCpuTileRows = 8.0;

}  // namespace

Result<ComputeType> resolve_compute_type(const Precision& p, const HardwareSpec& hw) {
  const DType w = p.weights;
  const DType a = p.activations;
  ComputeType c = native_compute_type(a).value_or(ComputeType::bf16);
  if (w == DType::fp32) {
    c = ComputeType::fp32;
  } else if (w == DType::fp8 && a == DType::fp8) {
    c = ComputeType::fp8;
  } else if (w == DType::nvfp4 && a == DType::nvfp4) {
    c = ComputeType::fp4;  // W4A4: both operands NVFP4 on 4-bit tensor cores
  } else if (((w == DType::int8 || w == DType::int4) && a == DType::int8) ||
             ((w == DType::q8_0 || w == DType::q4_0 || w == DType::q4_k_m) &&
              at(hw.dense_flops_per_s, ComputeType::int8) > 0)) {
    // W8A8, W4A8 (int4 widened into int8 dot products), and llama.cpp's block formats, whose
    // activations are quantised to 8 bits for integer dot products (dp4a/MMQ, VNNI).
    c = ComputeType::int8;
  } else if (c == ComputeType::int8 || c == ComputeType::fp8 || c == ComputeType::fp4) {
    c = ComputeType::bf16;  // integer/fp8/fp4 activations with wider weights: compute in bf16
  }
  if (at(hw.dense_flops_per_s, c) > 0) return c;
  // CPUs without native half-precision arithmetic widen to fp32 (llama.cpp and PyTorch do).
  if (hw.hw_class == HwClass::cpu && (c == ComputeType::bf16 || c == ComputeType::fp16) &&
      at(hw.dense_flops_per_s, ComputeType::fp32) > 0) {
    return ComputeType::fp32;
  }
  // fp16 and bf16 run on the same tensor cores where only one is listed.
  if (c == ComputeType::bf16 && at(hw.dense_flops_per_s, ComputeType::fp16) > 0 &&
      a != DType::bf16 && w != DType::bf16) {
    return ComputeType::fp16;
  }
  return Error{fmt::format(
      "hardware '{}' has no dense {} compute roof for weights {} / activations {}; choose a "
      "precision it supports",
      hw.name, compute_type_name(c), dtype_name(w), dtype_name(a))};
}

double BandwidthCurve::at(double threads) const {
  if (n0_threads <= 0) return asymptote_bytes_per_s;
  return asymptote_bytes_per_s * (1.0 - std::exp(-threads / n0_threads));
}

Result<PerfModel> PerfModel::create(const ModelSpec& model, const HardwareSpec& hw,
                                    const StackSpec& stack, const Deployment& dep,
                                    const CalibrationProfile* profile) {
  if (dep.tp < 1 || dep.tp > 64) {
    return Error{fmt::format("tp: expected 1..64, found {}", dep.tp)};
  }
  if (dep.pp < 1 || dep.pp > model.layers) {
    return Error{
        fmt::format("pp: expected 1..{} (the model's layers), found {}", model.layers, dep.pp)};
  }
  if (model.heads % dep.tp != 0 && !model.mla.enabled()) {
    return Error{
        fmt::format("tp: {} does not divide the model's {} attention heads", dep.tp, model.heads)};
  }
  const StackEfficiency& eff = stack.for_class(hw.hw_class);
  if (!eff.supported) {
    return Error{fmt::format("stack '{}' does not run on {} hardware ('{}')", stack.name,
                             hw_class_name(hw.hw_class), hw.name)};
  }
  PerfModel m;
  m.model_ = model;
  m.hw_ = hw;
  m.stack_ = stack;
  m.dep_ = dep;
  m.eff_ = eff;
  if (dep.compute) {
    if (at(hw.dense_flops_per_s, *dep.compute) <= 0) {
      return Error{fmt::format("hardware '{}' has no dense {} compute roof", hw.name,
                               compute_type_name(*dep.compute))};
    }
    m.compute_ = *dep.compute;
  } else {
    auto c = resolve_compute_type(dep.precision, hw);
    if (!c) return c.error();
    m.compute_ = *c;
    if (m.compute_ == ComputeType::int8 && is_block_quantised(dep.precision.weights) &&
        dep.precision.activations != DType::int8 && !eff.block_formats_use_int8) {
      const ComputeType act =
          native_compute_type(dep.precision.activations).value_or(ComputeType::bf16);
      if (at(hw.dense_flops_per_s, act) > 0) m.compute_ = act;
    }
  }

  const int cls = static_cast<int>(hw.hw_class);
  double bw = hw.memory_bandwidth_bytes_per_s;
  double flops = at(hw.dense_flops_per_s, m.compute_);
  ComputeType attn_type =
      native_compute_type(dep.precision.activations).value_or(ComputeType::bf16);
  if (attn_type == ComputeType::int8 || attn_type == ComputeType::fp8)
    attn_type = ComputeType::bf16;
  if (at(hw.dense_flops_per_s, attn_type) <= 0) attn_type = m.compute_;
  double attn_flops = at(hw.dense_flops_per_s, attn_type);
  if (!stack.datasheet_peaks) {
    bw *= kAchievableBandwidth[cls];
    flops *= kAchievableCompute[cls];
    attn_flops *= kAchievableCompute[cls];
  }

  // CPU sockets: bandwidth saturates with threads, SMT and virtualisation cost bandwidth, and
  // the NUMA policy decides how much traffic crosses the socket link.
  double threads = 0;
  // bw(N) / (N x one thread's rate) on the saturation curve A (1 - e^-x) at x = N / n0: 1 while
  // threads stream independently, -> 0 once they share a saturated bus. The share of a decode
  // dot loop's loads that cannot overlap other threads' work scales with it.
  auto unsaturated = [](double x) { return x > 1e-12 ? (1 - std::exp(-x)) / x : 1.0; };
  double unsaturated_share = 1;
  if (hw.hw_class == HwClass::cpu && hw.cpu) {
    const auto& c = *hw.cpu;
    threads = dep.cpu.threads_per_socket > 0 ? dep.cpu.threads_per_socket : c.cores;
    const double physical = std::min<double>(threads, c.cores);
    if (!stack.datasheet_peaks) {
      const double per_core = c.per_core_bandwidth_bytes_per_s > 0
                                  ? c.per_core_bandwidth_bytes_per_s
                              : eff.core_bandwidth_bytes_per_s > 0 ? eff.core_bandwidth_bytes_per_s
                                                                   : kDefaultPerCoreBandwidth;
      const BandwidthCurve curve{bw, bw / per_core, 0, 0};
      if (bw > 0) unsaturated_share = unsaturated(physical * per_core / bw);
      bw = curve.at(physical);
      flops *= physical / c.cores;
      attn_flops *= physical / c.cores;
    }
  }
  if (profile != nullptr && !stack.datasheet_peaks) {
    if (profile->bandwidth.asymptote_bytes_per_s > 0) {
      bw = hw.hw_class == HwClass::cpu && threads > 0 ? profile->bandwidth.at(threads)
                                                      : profile->bandwidth.asymptote_bytes_per_s;
      if (hw.hw_class == HwClass::cpu && threads > 0 && profile->bandwidth.n0_threads > 0)
        unsaturated_share = unsaturated(threads / profile->bandwidth.n0_threads);
    }
    if (at(profile->achieved_flops_per_s, m.compute_) > 0) {
      flops = at(profile->achieved_flops_per_s, m.compute_);
    }
    if (at(profile->achieved_flops_per_s, attn_type) > 0) {
      attn_flops = at(profile->achieved_flops_per_s, attn_type);
    }
  }
  if (hw.hw_class == HwClass::cpu) {
    if (dep.cpu.smt) bw *= 1.0 - dep.cpu.smt_penalty;
    if (dep.cpu.virtualized) bw *= dep.cpu.vm_bandwidth_factor;
    if (dep.tp > 1) {
      const double link = hw.link_bandwidth_bytes_per_s > 0 ? hw.link_bandwidth_bytes_per_s : bw;
      switch (dep.cpu.numa) {
        case NumaPolicy::pinned:
          break;
        case NumaPolicy::interleave: {
          // Half of each socket's pages are remote; local and remote halves are read in turn.
          const double remote = std::min(bw, link);
          bw = 1.0 / (0.5 / bw + 0.5 / remote);
          break;
        }
        case NumaPolicy::single_node:
          // Every socket reads the one node that holds the weights: its bandwidth is shared.
          bw = std::min(bw / dep.tp, link);
          break;
      }
    }
  }

  Rates& r = m.rates_;
  r.weight_bw = bw * eff.weight_bandwidth_fraction;
  r.act_bw = r.weight_bw;
  r.kv_bw = bw * eff.kv_bandwidth_fraction;
  r.gemm_flops =
      flops * (is_block_quantised(dep.precision.weights) ? eff.quantised_gemm_compute_fraction
               : m.compute_ == ComputeType::fp4 && eff.fp4_gemm_compute_fraction > 0
                   ? eff.fp4_gemm_compute_fraction
                   : eff.gemm_compute_fraction);
  if (eff.flops_per_watt > 0 && hw.tdp_w > 0 && !stack.datasheet_peaks) {
    r.gemm_flops = std::min(r.gemm_flops, hw.tdp_w * eff.flops_per_watt);
  }
  r.attn_flops = attn_flops * eff.attention_compute_fraction;
  // CPUs whose stack names its kernels: each rate is a fraction of the peak of the instruction
  // family that runs it (cpu_kernels.hpp), not of the catalog's mixed table roof. A calibration
  // profile still sets the bandwidth; its GEMM rates are our kernels', not the stack's, and are
  // not used here.
  const bool isa = hw.hw_class == HwClass::cpu && hw.cpu && eff.cpu_isa_kernels &&
                   !stack.datasheet_peaks && !dep.compute;
  double isa_decode_ops = 0;
  // Bytes per weight the decode streams: the format's, or the engine's packed layout's.
  double streamed_bpe = bytes_per_element(dep.precision.weights);
  if (isa) {
    CpuTopology engine_cpu = *hw.cpu;
    engine_cpu.amx = engine_cpu.amx && dep.cpu.amx;
    const CpuKernelChoice k = llamacpp_cpu_kernels(dep.precision.weights, engine_cpu);
    streamed_bpe = llamacpp_streamed_bytes_per_weight(dep.precision.weights, k);
    const double clock = hw.cpu->base_clock_hz > 0 ? hw.cpu->base_clock_hz : hw.clock_hz;
    const double core_hz = std::min<double>(threads, hw.cpu->cores) * clock;
    const double prefill_ops = cpu_kernel_ops_per_cycle(hw, k.prefill);
    isa_decode_ops = cpu_dot_loop_ops_per_cycle(hw, k.decode);
    const double attn_ops = cpu_kernel_ops_per_cycle(hw, CpuKernel::fp16_fma);
    if (prefill_ops <= 0 || isa_decode_ops <= 0 || attn_ops <= 0 || core_hz <= 0) {
      return Error{fmt::format(
          "hardware '{}' lacks what the {} kernels for {} weights need (cores, base clock, fp32 "
          "peak or the instruction set: {} / {})",
          hw.name, stack.name, dtype_name(dep.precision.weights), cpu_kernel_name(k.prefill),
          cpu_kernel_name(k.decode))};
    }
    // Each kernel family's fraction of its peak (llamacpp_cpu_fractions).
    const CpuKernelFractions fractions = llamacpp_cpu_fractions(dep.precision.weights, k);
    r.gemm_flops = core_hz * prefill_ops * (eff.*fractions.prefill);
    r.attn_flops = core_hz * attn_ops * eff.attention_compute_fraction;
    // Decode: one multiply-add (2 ops) per weight per token in the family's dot loop.
    isa_decode_ops = core_hz * isa_decode_ops * (eff.*fractions.decode) / 2.0;
    // The output projection in its own format and kernel (a Q4_0 file's Q6_K or Q8_0 lm_head):
    // its bytes, and its issue time relative to the weights' kernel, per weight.
    const CpuOutputTensor out =
        llamacpp_output_tensor(dep.precision.weights, model.hidden, engine_cpu);
    const double out_ops = cpu_dot_loop_ops_per_cycle(hw, out.decode);
    if (out.bytes_per_weight > 0 && out_ops > 0 && isa_decode_ops > 0) {
      const double out_weights_per_s = core_hz * out_ops * (eff.*out.fraction) / 2.0;
      m.lm_head_bytes_per_element_ = out.bytes_per_weight;
      // eval_ops counts an op's weights as its bytes / the weights' streamed bytes per element.
      m.lm_head_issue_scale_ =
          streamed_bpe / out.bytes_per_weight * isa_decode_ops / out_weights_per_s;
    }
  }
  // Several sockets of one CPU server: an engine whose thread pool spans them gains only part of
  // each further socket's compute (StackEfficiency::cross_socket_compute_fraction). Each
  // socket's share of the work then runs at (1 + (S - 1) c) / S of its own rate.
  if (hw.hw_class == HwClass::cpu && dep.tp > 1 && eff.cross_socket_compute_fraction < 1 &&
      !stack.datasheet_peaks) {
    const double sockets = dep.tp;
    const double scale = (1.0 + (sockets - 1.0) * eff.cross_socket_compute_fraction) / sockets;
    r.gemm_flops *= scale;
    r.attn_flops *= scale;
  }
  r.link_bw = hw.link_bandwidth_bytes_per_s;
  r.link_latency = hw.link_latency_s > 0 ? hw.link_latency_s : kDefaultLinkLatencyS;
  r.kernel_overhead = eff.kernel_overhead_s;
  if (profile != nullptr && !stack.datasheet_peaks && profile->kernel_overhead_s > 0) {
    r.kernel_overhead = std::max(r.kernel_overhead, profile->kernel_overhead_s);
  }
  r.step_overhead = eff.step_overhead_s;
  r.dot_memory_overlap = eff.dot_memory_overlap;
  r.unsaturated_share = unsaturated_share;
  r.gemm_m_half = eff.gemm_m_half;
  r.gemm_overlap_norm_p = eff.gemm_overlap_norm_p;
  {
    const double cycles = converts_weights(dep.precision) ? eff.quantised_issue_cycles_per_weight
                                                          : eff.issue_cycles_per_weight;
    double unit_hz = static_cast<double>(hw.compute_units) * hw.clock_hz;
    if (hw.hw_class == HwClass::cpu && hw.cpu) {
      const double clock = hw.cpu->base_clock_hz > 0 ? hw.cpu->base_clock_hz : hw.clock_hz;
      unit_hz = std::min<double>(threads > 0 ? threads : hw.cpu->cores, hw.cpu->cores) * clock;
    }
    if (cycles > 0 && unit_hz > 0 && !stack.datasheet_peaks) r.weights_per_s = unit_hz / cycles;
    if (isa) r.weights_per_s = isa_decode_ops;
  }
  m.cpu_dot_loop_ = isa;
  // Calibration measured decode GEMV for this weight format: weights stream at that kernel's
  // rate, not the plain read stream's. Applied as the GEMV/stream ratio at the profile's threads,
  // so the thread, SMT, VM and NUMA factors above still hold. Not on the per-ISA path: there the
  // stack's own dot loop sets the issue rate (dot fractions of its kernel family), and our GEMV
  // kernel's rate is our kernel's issue rate, not a property of memory. On an AVX2 part without
  // VNNI our int4 GEMV runs at 42% of the read stream, compute-bound, while llama.cpp's repacked
  // Q4_0 decode streams faster than that; taking the ratio as a bandwidth limit halved the
  // prediction (epyc-zen3-vm-2c, docs/calibration.md).
  double gemv_ratio = 1;
  if (profile != nullptr && !stack.datasheet_peaks && !isa &&
      profile->bandwidth.asymptote_bytes_per_s > 0) {
    ComputeType storage = ComputeType::bf16;
    switch (dep.precision.weights) {
      case DType::fp32:
        storage = ComputeType::fp32;
        break;
      case DType::fp16:
        storage = ComputeType::fp16;
        break;
      case DType::fp8:
        storage = ComputeType::fp8;
        break;
      case DType::int8:
      case DType::q8_0:
        storage = ComputeType::int8;
        break;
      case DType::int4:
      case DType::nf4:
      case DType::q4_0:
      case DType::q4_k_m:
      case DType::nvfp4:
        storage = ComputeType::int4;  // the profile's 4-bit GEMV
        break;
      default:
        break;
    }
    // A profile without an fp16 GEMV (the CPU backend measures bf16) takes the bf16 one: the same
    // 2-byte weights widened to fp32 before the multiply-add.
    if (storage == ComputeType::fp16 && at(profile->gemv_bandwidth_bytes_per_s, storage) <= 0)
      storage = ComputeType::bf16;
    double gemv = at(profile->gemv_bandwidth_bytes_per_s, storage);
    // Rates measured at several row lengths: interpolate in log k at the hidden size (most
    // projections' k), clamped to the measured range.
    std::vector<std::pair<double, double>> pts;
    for (const auto& g : profile->gemv_by_k)
      if (g.type == storage && g.k > 0 && g.bytes_per_s > 0) pts.emplace_back(g.k, g.bytes_per_s);
    if (!pts.empty()) {
      std::sort(pts.begin(), pts.end());
      const double k = std::clamp<double>(model.hidden, pts.front().first, pts.back().first);
      gemv = pts.back().second;
      for (size_t i = 1; i < pts.size(); ++i) {
        if (k <= pts[i].first) {
          const double lo = pts[i - 1].first, hi = pts[i].first;
          const double t = hi > lo ? std::log(k / lo) / std::log(hi / lo) : 0;
          gemv = pts[i - 1].second + t * (pts[i].second - pts[i - 1].second);
          break;
        }
      }
      if (pts.size() == 1) gemv = pts[0].second;
    }
    const double stream = profile->bandwidth.at(profile->threads > 0 ? profile->threads : 1);
    if (gemv > 0 && stream > 0) gemv_ratio = gemv / stream;
    r.weight_bw *= gemv_ratio;
  }
  m.weight_bytes_per_element_ = streamed_bpe;
  m.weight_bytes_dev_ = total_params(model) * streamed_bpe / (dep.tp * dep.pp);
  if (m.lm_head_bytes_per_element_ > 0 && model.arch != ModelArch::encoder) {
    m.weight_bytes_dev_ += static_cast<double>(model.vocab) * model.hidden *
                           (m.lm_head_bytes_per_element_ - streamed_bpe) / (dep.tp * dep.pp);
  }
  // A model whose weights fit in the measured cache streams them at cache speed. The cache rate
  // was read on the profile's threads; each core reads its own slice, so on a CPU it scales with
  // the threads used. It replaces the DRAM stream only where it is faster: a VM that reports its
  // host's LLC can measure a "cache" plateau at DRAM speed, and the model then must not run one
  // thread at two threads' rate (it did: 2x on few-thread decode of a 0.5B model). Nor is a
  // plateau within 1.5x of the DRAM stream at the same threads a cache: a last-level cache gives
  // a core several times its DRAM share, and the Xeon VM's reported 480 MiB "LLC" read 36.6 GB/s
  // against 30.7 GB/s of DRAM at 2 threads, which predicted its Q8_0 decode 33% fast.
  constexpr double kCacheOverDram = 1.5;
  const double profile_stream =
      profile != nullptr ? profile->bandwidth.at(profile->threads > 0 ? profile->threads : 1) : 0;
  if (profile != nullptr && profile->cache_bandwidth_bytes_per_s > 0 && !stack.datasheet_peaks &&
      profile->cache_bandwidth_bytes_per_s >= kCacheOverDram * profile_stream) {
    if (m.weight_bytes_dev_ < profile->cache_bytes) {
      double cache_bw = profile->cache_bandwidth_bytes_per_s;
      if (hw.hw_class == HwClass::cpu && hw.cpu && threads > 0 && profile->threads > 0)
        cache_bw *= std::min<double>(threads, hw.cpu->cores) / profile->threads;
      // The GEMV kernel reaches the same share of the cache stream as of the DRAM one.
      r.weight_bw = std::max(r.weight_bw, cache_bw * eff.weight_bandwidth_fraction * gemv_ratio);
    }
  }
  if (r.weight_bw <= 0 || r.gemm_flops <= 0 || r.attn_flops <= 0) {
    return Error{fmt::format("hardware '{}' has no usable bandwidth or compute for this deployment",
                             hw.name)};
  }
  if (dep.tp > 1 && r.link_bw <= 0) {
    return Error{
        fmt::format("tp: {} needs a device link, but hardware '{}' lists none", dep.tp, hw.name)};
  }

  // KV heads split across tensor-parallel ranks, replicated once there are fewer heads than ranks;
  // the MLA latent is replicated on every rank.
  double kv_share = 1.0;
  if (!model.mla.enabled() && model.kv_heads > 0) {
    kv_share = std::ceil(static_cast<double>(model.kv_heads) / dep.tp) / model.kv_heads;
  }
  m.kv_bytes_per_token_dev_ = kv_elements_per_token_per_layer(model) * kv_share *
                              bytes_per_element(dep.precision.kv) * model.layers / dep.pp;
  return m;
}

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
double PerfModel::step(double q, int batch, double past, bool is_prefill,
                       StepBreakdown* out) const {
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
  auto add = [&](OpCost o) { ops[static_cast<size_t>(n++)] = o; };
  auto gemm = [&](std::string_view name, OpKind kind, double m_rows, double k, double nn,
                  double weights, double count, double kernels) {
    OpCost o;
    o.name = name;
    o.kind = kind;
    o.flops = 2.0 * m_rows * k * nn * count;
    o.weight_bytes = weights * wb * count;
    o.activation_bytes = m_rows * (k + nn) * ab * count;
    o.kernels = kernels * count;
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
    o.gemm_m = tokens_per_expert;
    o.compute_rate_factor = expert_rate;
    add(o);
    if (e.shared_experts > 0) {
      const double fs = e.shared_experts * f;
      gemm("shared_experts", OpKind::expert_gemm, M, h, (gate + 1.0) * fs, (gate + 1.0) * h * fs,
           n_moe, 2);
      ops[static_cast<size_t>(n - 1)].weight_bytes *= expert_wb / wb;
      ops[static_cast<size_t>(n - 1)].compute_rate_factor = expert_rate;
    }
  }
  allreduce("ffn_allreduce", L);
  total += eval_ops<kCollect>(ops.data(), n, out, is_prefill);

  // --- once per step: embedding, final norm, lm_head, pipeline hand-offs ---
  n = 0;
  {
    OpCost o;
    o.name = "embedding";
    o.kind = OpKind::embedding;
    o.weight_bytes = M * h * wb;
    o.kernels = 1;
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
  }
  if (dep_.pp > 1) {
    OpCost o;
    o.name = "pipeline_p2p";
    o.kind = OpKind::p2p;
    o.comm_bytes = M * h * ab * (dep_.pp - 1);
    o.collectives = dep_.pp - 1;
    o.kernels = dep_.pp - 1;
    add(o);
  }
  total += eval_ops<kCollect>(ops.data(), n, out, is_prefill);
  total += rates_.step_overhead;
  if constexpr (kCollect) {
    out->step_overhead_s = rates_.step_overhead;
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
  const double fused =
      step<false>(prefill_tokens + decode_batch, 1, prefill_context, true, nullptr);
  if (decode_batch <= 0) return fused;
  return fused + decode_attention_s(decode_batch, decode_context);
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
