#pragma once
// Per-operator costs of one forward step. A step is a short list of OpCost; turning each into a
// time and a binding roof is the whole roofline. Prefill, decode, the memory report and the
// GUI's roofline chart all read this one list.
#include <string_view>
#include <vector>

namespace infercap {

enum class OpKind : unsigned char {
  gemm,         ///< dense projection (QKV, O, FFN, lm_head)
  expert_gemm,  ///< MoE experts
  attention,    ///< scores and values over the KV cache
  norm,         ///< RMSNorm / LayerNorm
  elementwise,  ///< rotary, activation, residual adds
  routing,      ///< MoE router
  embedding,
  allreduce,  ///< tensor-parallel all-reduce
  p2p,        ///< pipeline-stage hand-off
};
std::string_view op_kind_name(OpKind k);

/// compute: FLOPs; memory: bytes; issue: the units' per-weight instruction rate; overhead:
/// launches.
enum class Bound : unsigned char { compute, memory, overhead, communication, issue };
std::string_view bound_name(Bound b);

/// One operator's work in one step, already multiplied by how many times it runs (e.g. layers).
struct OpCost {
  std::string_view name;  ///< static string, e.g. "qkv_proj"
  OpKind kind = OpKind::gemm;
  double flops = 0;
  double weight_bytes = 0;
  double activation_bytes = 0;
  double kv_bytes = 0;    ///< KV-cache reads + writes
  double comm_bytes = 0;  ///< bytes each device sends over the link
  double kernels = 0;     ///< kernel launches (overhead count)
  /// Host launches of the op in an eager framework step (PyTorch): its kernels plus the
  /// activation quantisation, routing and copy kernels an eager engine runs beside them. Read
  /// only where the stack prices eager prompt steps (prefill_launch_overhead_s).
  double launches = 0;
  double gemm_m = 0;       ///< rows of the GEMM (tokens in flight), for the small-M efficiency ramp
  double collectives = 0;  ///< link round trips (latency count)
  /// The op's tensor rate relative to the deployment's compute type (1 = that type's rate; 0.5 =
  /// an FP8 deployment whose MoE kernels run this GEMM in 16 bits).
  double compute_rate_factor = 1;
  /// Issue time per weight relative to the step's weight format (the issue rate is resolved for
  /// that one): a tensor stored in another format, run by another kernel, takes this multiple.
  double issue_scale = 1;
};

/// One operator's time and what bound it.
struct OpTime {
  OpCost cost;
  double compute_s = 0;
  double memory_s = 0;
  double comm_s = 0;
  double overhead_s = 0;
  double issue_s = 0;
  double time_s = 0;
  Bound bound = Bound::memory;
};

struct StepBreakdown {
  std::vector<OpTime> ops;
  double time_s = 0;  ///< max(sum of op times, host_launch_s) + step overhead
  double step_overhead_s = 0;
  /// Host time of an eager prompt step's launches (launches x prefill_launch_overhead_s); where
  /// it exceeds the ops' sum, time_s is it plus the step overhead. 0 = not modelled.
  double host_launch_s = 0;
  double flops = 0;
  double bytes = 0;
};

/// The part of a step's time its host launches add beyond its operators (0 where the device is
/// the slower): what predict's operator table and the GUI show as the host's wait.
inline double host_wait_s(const StepBreakdown& b) {
  double ops_s = 0;
  for (const auto& o : b.ops) ops_s += o.time_s;
  return b.host_launch_s > ops_s ? b.host_launch_s - ops_s : 0.0;
}

}  // namespace infercap
