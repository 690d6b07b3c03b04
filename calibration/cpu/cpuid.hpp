#pragma once
// Run-time ISA detection: CPUID for what the core implements, XGETBV for what the OS saves on a
// context switch, and arch_prctl(ARCH_REQ_XCOMP_PERM) for AMX tile data, which Linux (>= 5.16)
// hands out only on request. Each kernel is dispatched on these, never on compile-time flags.
#include <string>

#include "infercap/calibration/kernel.hpp"

namespace infercap::calibration::cpu {

struct IsaSupport {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_bf16 = false, avx512_vnni = false;
  bool avx512_vp2intersect = false;  ///< Zen 5 has it, Zen 4 not: tells their FMA widths apart
  bool amx_tile = false, amx_bf16 = false, amx_int8 = false;
  bool os_avx = false, os_avx512 = false, os_amx = false;  ///< XCR0 state enabled by the OS
  bool hypervisor = false;
  std::string vendor;
  std::string brand;
};

/// Probed once and cached.
const IsaSupport& isa();

Availability avx2_available();         ///< AVX2 + FMA + F16C, OS saves YMM
Availability avx512_available();       ///< F, BW, VL, DQ, OS saves ZMM
Availability avx512_bf16_available();  ///< + AVX512_BF16
Availability avx512_vnni_available();  ///< + AVX512_VNNI
/// AMX-TILE plus AMX-BF16 (`int8` false) or AMX-INT8 (`int8` true), XCR0 tile state, and the
/// kernel granting XTILEDATA to this process. The first call makes the arch_prctl request.
Availability amx_available(bool int8);

/// Space-separated names of the features above that are present ("avx2 fma avx512f ...").
std::string isa_flags();

}  // namespace infercap::calibration::cpu
