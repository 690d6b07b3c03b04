#pragma once
// A device as its datasheet describes it, one device per entry. For CPUs the device is one
// socket; `devices_per_server` says how many sit in a server (2 for a dual-socket box).
// Dense and sparse peaks live in separate tables and are never mixed.
#include <optional>
#include <string>
#include <vector>

#include "infercap/precision.hpp"
#include "infercap/source.hpp"

namespace infercap {

enum class HwClass : unsigned char { cpu, gpu, npu, fpga };
inline constexpr int kHwClassCount = 4;
std::string_view hw_class_name(HwClass c);

struct CpuTopology {
  int cores = 0;             ///< physical cores per socket
  int threads_per_core = 1;  ///< 2 with SMT / Hyper-Threading
  int memory_channels = 0;   ///< per socket
  double memory_speed_mt_s = 0;
  int numa_nodes_per_socket = 1;
  double base_clock_hz = 0;
  double boost_clock_hz = 0;
  bool avx2 = false, avx512 = false, avx512_bf16 = false, avx512_vnni = false, amx = false;
  /// Bandwidth one core can pull on its own; sets how fast bandwidth saturates with cores.
  /// 0 = not stated; the model then uses a documented class default.
  double per_core_bandwidth_bytes_per_s = 0;
};

struct HardwareSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor;
  std::string description;
  HwClass hw_class = HwClass::gpu;
  ComputeTable dense_flops_per_s{};   ///< per device, dense
  ComputeTable sparse_flops_per_s{};  ///< per device, 2:4 structured sparsity; informational only
  double memory_bytes = 0;            ///< device memory (for a CPU socket: the configured DRAM)
  double memory_bandwidth_bytes_per_s = 0;
  double cache_bytes = 0;                 ///< last-level on-chip cache / SRAM
  std::string link_kind;                  ///< nvlink, pcie, hccs, upi, infinity-fabric, ...
  double link_bandwidth_bytes_per_s = 0;  ///< per device, one direction, device to device
  double link_latency_s = 0;
  /// Parallel units that issue memory requests: GPU SMs / CUs, NPU cores (CPUs use cpu.cores).
  /// With `clock_hz` it bounds how fast a kernel can touch weights (see StackEfficiency).
  int compute_units = 0;
  double clock_hz = 0;  ///< boost clock of those units; 0 = not stated
  /// Share of the dense tensor peak that kernels built on warp-level `mma.sync` (Ampere-style
  /// tensor-core code, e.g. CUTLASS 2.x instantiated for Sm80) reach on this device. Hopper
  /// reaches its peak only through `wgmma`; `mma.sync` gets about 2/3 of it. 0 = not stated,
  /// taken as 1: before Hopper `mma.sync` is the native tensor path. Applied only to the ops a
  /// stack runs with such kernels (StackEfficiency::expert_gemm_mma_sync).
  double mma_sync_peak_fraction = 0;
  double tdp_w = 0;
  double idle_w = 0;
  int devices_per_server = 1;
  std::optional<CpuTopology> cpu;
  std::vector<SourceRef> sources;
};

std::vector<std::string> validate(const HardwareSpec& h);

}  // namespace infercap
