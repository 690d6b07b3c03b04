#pragma once
// What a calibration run measured on one machine, in the form the model uses. Written by
// `infercap calibrate`, read by predict/validate/plan through `--calibration FILE`.
#include <optional>
#include <string>
#include <vector>

#include "infercap/precision.hpp"

namespace infercap {

struct Provenance {
  std::string machine;  ///< CPU/GPU model string
  std::string host;
  std::string os;
  std::string date;  ///< ISO 8601
  std::string commit;
  std::string command;
  std::string notes;
};

/// Achieved bandwidth as a saturating function of threads:
///   bw(n) = asymptote * (1 - exp(-n / n0))
/// n0 = asymptote / (bandwidth of one thread). For GPUs n is irrelevant (use the asymptote).
struct BandwidthCurve {
  double asymptote_bytes_per_s = 0;
  double n0_threads = 1;
  double ci95_low_bytes_per_s = 0;
  double ci95_high_bytes_per_s = 0;
  double at(double threads) const;
};

/// Decode-GEMV weight streaming measured at one row length: short rows (k = input features)
/// stream slower than long ones, so a model's rate depends on its hidden size.
struct GemvPoint {
  ComputeType type = ComputeType::bf16;  ///< the weights' storage type (int4 for 4-bit formats)
  double k = 0;                          ///< row length the rate was measured at
  double bytes_per_s = 0;
};

struct CalibrationProfile {
  int schema_version = 1;
  std::string hardware;  ///< catalog name the profile applies to, if known
  std::string backend;   ///< cpu, cuda, opencl, import
  Provenance provenance;
  BandwidthCurve bandwidth;                ///< DRAM/HBM streaming read
  double cache_bandwidth_bytes_per_s = 0;  ///< cache-resident regime (0 = not measured)
  double cache_bytes = 0;                  ///< working set below which the cache regime applies
  ComputeTable achieved_flops_per_s{};     ///< best GEMM rate per compute type (0 = not measured)
  ComputeTable gemv_bandwidth_bytes_per_s{};  ///< weight-streaming rate of decode GEMV, by type
  double kernel_overhead_s = 0;               ///< per-call overhead of a tiny kernel
  double fork_join_s = 0;                     ///< thread team fork/join (CPUs)
  int threads = 0;                            ///< threads the figures above were measured with
  /// The GEMV rate at several k (optional). When present for the weights' type, the model
  /// interpolates it (log k) at the model's hidden size instead of using the table above.
  std::vector<GemvPoint> gemv_by_k;
};

}  // namespace infercap
