#pragma once
// Where a set of measurements was taken: CPU model (from /proc/cpuinfo, CPUID as fallback), ISA
// flags, cores, memory, kernel version, date, git commit and the command line. Recorded in every
// profile so a number can be traced back to the machine and code that produced it.
#include <string>

#include "infercap/calibration_profile.hpp"

namespace infercap::calibration {

struct MachineInfo {
  std::string cpu_model;  ///< "AMD EPYC 9654 96-Core Processor"
  std::string vendor;     ///< CPUID vendor string
  std::string flags;      ///< ISA flags relevant to the kernels, space separated
  int sockets = 0;
  int cores = 0;  ///< physical cores (hwloc)
  int pus = 0;    ///< hardware threads (hwloc)
  int numa_nodes = 0;
  double memory_bytes = 0;                            ///< MemTotal
  double l1d_bytes = 0, l2_bytes = 0, llc_bytes = 0;  ///< per core L1d/L2, LLC of one package
  std::string kernel;                                 ///< uname -sr
  std::string hostname;
  bool virtualized = false;  ///< CPUID hypervisor bit
  /// One thread's measured clock (cpu/clock.hpp: a dependent-add chain), Hz; 0 where not
  /// measured. /proc/cpuinfo's "cpu MHz" is a VM's TSC rate or an idle core's snapshot.
  double core_clock_hz = 0;
  /// fp32 FLOP/s one thread issued through its widest FMA (cpu/clock.hpp), and that width in
  /// bits (512, 256); 0 where not measured. Over core_clock_hz: FLOP per cycle, measured.
  double fma_flops_per_s = 0;
  int fma_bits = 0;
  /// The same FMAs fed by fp16 -> fp32 conversions at llama.cpp's F16 GEMM tile ratio
  /// (cpu/clock.hpp measure_f16_fma_flops_per_s), at fma_bits; 0 where not measured.
  double f16_fma_flops_per_s = 0;
};

/// Reads /proc/cpuinfo, /proc/meminfo, uname, CPUID and hwloc, and times the core clock and the
/// FMA issue rates, plain and fed by fp16 conversions (about 0.2 s). Never fails: unknown fields
/// stay empty or 0.
MachineInfo probe_machine();

/// Fills a Provenance for a run started by `command` (the argv joined). The commit comes from
/// INFERCAP_GIT_COMMIT at build time, or `git rev-parse` in the source tree, or "unknown".
Provenance make_provenance(const MachineInfo& m, const std::string& command);

/// The source tree's commit (INFERCAP_GIT_COMMIT at build time, or `git rev-parse`), with
/// "+dirty" when `dirty_paths` (space-separated, relative to the tree) have uncommitted changes;
/// "unknown" without git.
std::string source_commit(const std::string& dirty_paths);

/// UTC now as ISO 8601, e.g. "2026-11-29T23:40:12Z".
std::string iso_date_utc();

}  // namespace infercap::calibration
