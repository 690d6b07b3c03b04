#pragma once
// One small valid scenario the spec, plan and hardening tests start from: one chat class on an
// L4 (int8, TP1, batch 16). Tests edit a copy of the text to make the case they need.

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

}  // namespace infercap::testing
