#!/usr/bin/env python3
"""Fit the exponent p with which a GPU GEMM's compute and memory times combine,
t = (t_c^p + t_m^p)^(1/p), on the skinny-GEMM sweep of a micro-kernel reference run.

Usage: scripts/fit-gemm-overlap.py [../shared/reference/h200-micro.json]

The sweep is one weight matrix (k = 4096 inputs, n = 14336 outputs, bf16) multiplied by M
tokens, M = 1 .. 8192. The memory time is the model's (core/src/perf.cpp): weights plus the
step's activations in and out, at the bandwidth the M = 1 run reaches; the compute time is
c x M. p and c are fitted together by least squares on ln(time) over 16 <= M <= 4096 (the
8192 run is slower per token than 4096, a kernel choice the form does not describe). p -> inf
is the roofline's max(t_c, t_m); p = 1 adds them.

Last, the same form with a compute ramp (the stacks' `gemm_m_half`: t_c = c (M + m_half)) is
fitted with p, c and m_half together; docs/serving.md tells why that reading is not adopted.
"""
import json
import math
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/reference/h200-micro.json"
ref = json.load(open(path))
pts = [(m["m"], m["median_s"]) for m in ref["micro"] if m["kind"] == "skinny_gemm"]
K, N, B = 4096, 14336, 2  # the sweep's shape and bf16 bytes
W = K * N * B
bw = (W + (K + N) * B) / dict(pts)[1]  # bytes/s the M = 1 run moves


def t_mem(m):
    return (W + m * (K + N) * B) / bw


def t_model(m, p, c, m_half=0.0):
    a, b = t_mem(m), c * (m + m_half)
    return max(a, b) if math.isinf(p) else (a**p + b**p) ** (1 / p)


fit = [(m, t) for m, t in pts if 16 <= m <= 4096]


def rms(p, c, m_half=0.0):
    return math.sqrt(sum(math.log(t_model(m, p, c, m_half) / t) ** 2 for m, t in fit) / len(fit))


c0 = (dict(pts)[4096] - dict(pts)[1024]) / 3072
best = min(((rms(p / 10, c0 * f / 100), p / 10, c0 * f / 100)
            for p in range(10, 41) for f in range(80, 121)), key=lambda x: x[0])
e, p, c = best
print(f"reference: {ref['device']}, {ref['date']}, {ref['torch']}")
print(f"M = 1 bandwidth {bw / 1e12:.3f} TB/s; fitted p = {p:.1f}, c = {c * 1e6:.4f} us/token "
      f"({2 * K * N / c / 1e12:.0f} TFLOP/s marginal); rms ln error {e:.3f}")
cmax = min((c0 * f / 100 for f in range(50, 151)), key=lambda x: rms(math.inf, x))
print(f"the roofline max, its own c fitted ({cmax * 1e6:.4f} us/token): rms ln error "
      f"{rms(math.inf, cmax):.3f}")
print("M, measured us, p-norm error, max error")
for m, t in pts:
    print(f"{m}, {t * 1e6:.1f}, {t_model(m, p, c) / t - 1:+.2f}, {t_model(m, math.inf, cmax) / t - 1:+.2f}")
ramp = min(((rms(q / 10, c0 * f / 100, h), q / 10, c0 * f / 100, h)
            for q in range(10, 80, 2) for f in range(70, 121) for h in range(0, 400, 16)),
           key=lambda x: x[0])
er, pr, cr, hr = ramp
print(f"with a compute ramp t_c = c (M + m_half): p = {pr:.1f}, c = {cr * 1e6:.4f} us/token, "
      f"m_half = {hr}; rms ln error {er:.3f}")
