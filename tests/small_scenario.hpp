#pragma once
// Small valid specs the spec, schema, plan and hardening tests start from: one scenario (one chat
// class on an L4: int8, TP1, batch 16) and one hardware entry (a GPU of 100 TFLOP/s bf16, 16 GB
// at 1 TB/s, 300 W). Tests edit a copy of the text to make the case they need.
// (tests/data/bad/cli/make_cases.py writes the same two as YAML files in Python, for the CLI
// cases; it cannot include this header.)

namespace infercap::testing {

inline const char* const kSmallScenario = R"(schema_version: 1
kind: scenario
name: t
workload:
  classes:
    - name: chat
      model: qwen2.5-7b
      rate: {mean_qps: 2, peak_qps: 5}
      prompt_tokens: {kind: lognormal, p50: 400, p90: 1000}
      output_tokens: 100
      sla:
        ttft_p99_s: "500 ms"
        tpot_p90_s: 0.05
candidates:
  hardware: [l4]
  precisions: [int8]
  tp: [1]
  max_batch: [16]
)";

inline const char* const kSmallHardware = R"(schema_version: 1
kind: hardware
name: test-gpu
class: gpu
dense_flops_per_s:
  bf16: "100 TFLOP/s"
memory_bytes: "16 GB"
memory_bandwidth_bytes_per_s: "1 TB/s"
tdp_w: 300
sources:
  - fields: ["*"]
    ref: test fixture
    date: 2026-11-29
)";

}  // namespace infercap::testing
