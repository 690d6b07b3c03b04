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

}  // namespace infercap::calibration::cpu
