// PerfModel::create: a deployment's achievable rates, resolved once (the class defaults or a
// calibration profile, the stack's fractions, CPU sockets and threads, the links) and checked.
// Split from perf.cpp (a step's operators and their time) by question; docs/model.md, "From
// work to time".
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "infercap/cpu_kernels.hpp"
#include "infercap/perf.hpp"

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
  if (auto why = stack_mismatch(stack, hw)) return Error{*why};
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
    r.gemm_flops = core_hz * prefill_ops * (eff.*fractions.prefill) *
                   llamacpp_prefill_fma_share(hw, dep.precision.weights, engine_cpu.amx);
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
  r.prefill_launch = eff.prefill_launch_overhead_s;
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

}  // namespace infercap
