#pragma once
// The core clock a thread actually runs at, measured, because the one /proc/cpuinfo reports is
// not it: a virtual machine reports its host's TSC rate (2.6 GHz on a Zen 5 guest that runs at
// 3.6), and a bare-metal part's "cpu MHz" is a snapshot of an idle core. A measured machine's
// peaks are cores x clock x FLOP/cycle (measured_hardware.cpp), so a wrong clock is a wrong peak.

namespace infercap::calibration::cpu {

/// Cycles per second of the calling thread, from a chain of dependent 64-bit register-register
/// adds: every x86-64 core since the P6 retires one dependent ADD per cycle (latency 1), so adds /
/// seconds is the clock. (Register, not immediate, addends: Golden Cove and later fold
/// add-immediate chains at rename.) A chain of dependent IMULs (latency 3) checks it: if the two
/// disagree by more than 25% the result is 0. Best (highest) of 64 runs of ~0.5 ms each, after a
/// 20 ms warm-up that lets the core leave its idle state. Returns 0 where the probe does not exist
/// (not x86-64), the chains disagree, or the timing is implausible (< 0.2 GHz or > 10 GHz). Takes
/// about 100 ms.
double measure_core_clock_hz();

/// fp32 FLOP/s one thread issues through its widest FMA: twelve independent accumulator chains
/// of VFMADD231PS (zmm with `bits` 512, ymm with 256; 2 x lanes FLOP each), enough to fill two
/// FMA pipes of latency 4 to 6 and leave nothing else on the ports. Best of 64 runs of ~0.5 ms
/// after a 20 ms warm-up, like the clock probe. Divided by that clock it is the FLOP per cycle a
/// datasheet's peak assumes, measured: 64 on a core with two 512-bit FMA units, 32 on Zen 4's
/// double-pumped AVX-512, lower where AVX-512 code runs below the scalar clock (Intel's licence
/// levels). The caller checks the ISA (CPUID): `bits` 512 needs AVX512F, 256 AVX2 and FMA. 0
/// where not x86-64, `bits` is neither, or the timing is implausible. Takes about 70 ms.
double measure_fma_flops_per_s(int bits);

/// The same twelve FMA chains with their sources converted from fp16 in memory (VCVTPH2PS,
/// L1-resident) at the ratio of llama.cpp's F16 GEMM tile (tinyBLAS: 10 conversions per 24 FMAs
/// with 512-bit registers, 7 per 12 with 256-bit), in fp32 FLOP/s of the FMAs. Over
/// measure_fma_flops_per_s: what the conversions cost an F16 prefill on this core, where they
/// share the FMA ports (1 = free). `bits` 512 needs AVX512F, 256 AVX2, FMA and F16C; 0 where
/// not x86-64, `bits` is neither, or the timing is implausible. Takes about 70 ms.
double measure_f16_fma_flops_per_s(int bits);

}  // namespace infercap::calibration::cpu
