#!/usr/bin/env python3
"""Writes the hostile inputs of tests/data/bad/cli/ and their manifest, cases.tsv.

Each case is one mistake in an otherwise valid file (a scenario, a hardware or model spec, a
measurement CSV, an import file, a calibration profile), with the command that reads it. The
expected exit code and first diagnostic line are recorded from the binary with --record and then
reviewed by hand; tests/test_spec_bad.cpp runs every case and checks the exit code, the
recorded line, and that the line names file:line:col and a key or column.

  tests/data/bad/cli/make_cases.py              # write the inputs (cases.tsv keeps its lines)
  tests/data/bad/cli/make_cases.py --record BIN # (re)record exit codes and messages with BIN
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))

SCENARIO = """schema_version: 1
kind: scenario
name: bad-case
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
constraints:
  horizon_years: 3
  redundancy: 1
verify:
  top: 0
"""

HARDWARE = """schema_version: 1
kind: hardware
name: bad-gpu
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
"""

MODEL = open(os.path.join(SRC, "tests/data/good/catalog/models/tiny.yaml")).read()

MEAS_HEADER = ("id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,"
               "output_len,batch,metric,value,unit,stack,notes\n")
MEAS_ROW = ("T-1,test,NVIDIA RTX 4090 24GB,{hw},,Meta-Llama-3-8B,8,Q4_K_M,{inp},128,{batch},"
            "decode_throughput_tg128,{value},tokens/s,llama.cpp CUDA,\n")

IMPORT_HEADER = "# hardware: ascend-910b\nkind,dtype,m,n,k,bytes,value,unit,source,samples\n"
IMPORT_OK = "read,,,,,4294967296,1.2,TB/s,synthetic,\n"

LLAMA_CSV = open(os.path.join(SRC, "tests/data/import/llama-bench.csv")).read()
VLLM = open(os.path.join(SRC, "tests/data/import/vllm-serving-c8.json")).read()
PROFILE = open(os.path.join(SRC, "tests/data/calibration/rtx-4090-half-bandwidth.profile.yaml")).read()

PLAN = "plan FILE"
CASES = []  # (name, command, text or None for a directory)


def sub(base, old, new, count=1):
    assert old in base, old
    return base.replace(old, new, count)


def case(name, command, text):
    CASES.append((name, command, text))


def scen(name, old, new):
    case(name + ".yaml", PLAN, sub(SCENARIO, old, new))


def scen_add(name, extra):
    case(name + ".yaml", PLAN, SCENARIO + extra)


# --- scenarios: numbers ------------------------------------------------------------------------
for tag, v in [("nan", "nan"), ("yaml-nan", ".nan"), ("inf", ".inf"), ("neg-inf", "-.inf"),
               ("overflow", "1e400"), ("negative", "-2"), ("text", "lots")]:
    scen("scenario-mean-qps-" + tag, "mean_qps: 2,", "mean_qps: %s," % v)
scen("scenario-peak-below-mean", "peak_qps: 5}", "peak_qps: 1}")
scen("scenario-rate-none", "rate: {mean_qps: 2, peak_qps: 5}", "rate: {}")
scen("scenario-rate-both", "rate: {mean_qps: 2, peak_qps: 5}",
     "rate: {mean_qps: 2, requests_per_day: 1000}")
scen("scenario-hourly-23", "rate: {mean_qps: 2, peak_qps: 5}", "rate: {hourly_qps: [%s]}" %
     ", ".join(["1"] * 23))
scen("scenario-hourly-nan", "rate: {mean_qps: 2, peak_qps: 5}", "rate: {hourly_qps: [%s]}" %
     ", ".join(["1"] * 23 + ["nan"]))
scen("scenario-rate-unit", "mean_qps: 2,", 'mean_qps: "2 GB",')
scen("scenario-prompt-zero", "output_tokens: 100", "output_tokens: 0")
scen("scenario-output-inf", "output_tokens: 100", "output_tokens: .inf")
scen("scenario-output-huge", "output_tokens: 100", "output_tokens: 1e300")
scen("scenario-prompt-p50-nan", "p50: 400", "p50: .nan")
scen("scenario-prompt-sigma-neg", "{kind: lognormal, p50: 400, p90: 1000}",
     "{kind: lognormal, mean: 400, sigma: -1}")
scen("scenario-prompt-kind", "kind: lognormal", "kind: lognormale")
scen("scenario-histogram-weights", "{kind: lognormal, p50: 400, p90: 1000}",
     "{kind: histogram, tokens: [100, 200], weights: [1, -1]}")
scen("scenario-histogram-tokens-nan", "{kind: lognormal, p50: 400, p90: 1000}",
     "{kind: histogram, tokens: [100, .nan], weights: [1, 1]}")
scen("scenario-sla-nan", 'ttft_p99_s: "500 ms"', "ttft_p99_s: .nan")
scen("scenario-sla-unit", 'ttft_p99_s: "500 ms"', 'ttft_p99_s: "500 kg"')
scen("scenario-sla-zero", 'ttft_p99_s: "500 ms"', "ttft_p99_s: 0")
scen("scenario-sla-overflow", 'ttft_p99_s: "500 ms"', 'ttft_p99_s: "1e308 h"')
scen("scenario-sla-p100", 'ttft_p99_s: "500 ms"', 'ttft_p100_s: "500 ms"')
scen("scenario-sla-p0", 'ttft_p99_s: "500 ms"', 'ttft_p0_s: "500 ms"')
scen("scenario-sla-two-ttft", 'ttft_p99_s: "500 ms"', 'ttft_p99_s: "500 ms"\n        ttft_p90_s: 0.3')
scen("scenario-sla-typo", 'ttft_p99_s: "500 ms"', 'ttft_p99_ms: 500')
scen("scenario-sla-long-percentile", 'ttft_p99_s: "500 ms"',
     'ttft_p' + "9" * 400 + '_s: "500 ms"')
scen("scenario-sla-empty", 'ttft_p99_s: "500 ms"\n        tpot_p90_s: 0.05', "{}")
scen("scenario-arrival-unknown", "      prompt_tokens:", "      arrival: weibull\n      prompt_tokens:")
scen("scenario-arrival-scv-zero", "      prompt_tokens:",
     "      arrival: {kind: gamma, scv: 0}\n      prompt_tokens:")
scen("scenario-priority-float", "      prompt_tokens:", "      priority: 1.5\n      prompt_tokens:")
# --- scenarios: constraints --------------------------------------------------------------------
for tag, v in [("int-max", "2147483647"), ("over-int", "1e10"), ("negative", "-1"),
               ("fraction", "1.5"), ("text", "two")]:
    scen("scenario-redundancy-" + tag, "redundancy: 1", "redundancy: %s" % v)
for tag, v in [("zero", "0"), ("31", "31"), ("nan", ".nan")]:
    scen("scenario-horizon-" + tag, "horizon_years: 3", "horizon_years: %s" % v)
for tag, v in [("minus-one", "-1"), ("101", "101"), ("nan", ".nan"), ("inf", ".inf")]:
    scen("scenario-growth-" + tag, "redundancy: 1", "redundancy: 1\n  load_growth_per_year: %s" % v)
scen("scenario-model-changes-huge", "redundancy: 1", "redundancy: 1\n  model_changes_per_year: 1e300")
scen("scenario-capex-negative", "redundancy: 1", "redundancy: 1\n  capex_budget_usd: -5")
scen("scenario-capex-nan", "redundancy: 1", "redundancy: 1\n  capex_budget_usd: .nan")
scen("scenario-capex-cny-inf", "redundancy: 1", "redundancy: 1\n  capex_budget_cny: .inf")
scen("scenario-power-unit", "redundancy: 1", 'redundancy: 1\n  power_cap_w: "5 kg"')
scen("scenario-power-overflow", "redundancy: 1", 'redundancy: 1\n  power_cap_w: "1e308 MW"')
scen("scenario-rack-units-huge", "redundancy: 1", "redundancy: 1\n  rack_units: 1e10")
scen("scenario-constraints-typo", "redundancy: 1", "redundancy: 1\n  redundancey: 2")
# --- scenarios: candidates, serving, verify ----------------------------------------------------
for tag, v in [("zero", "[0]"), ("huge", "[4096]"), ("fraction", "[1.5]"), ("nan", "[.nan]"),
               ("scalar", "4"), ("empty", "[]")]:
    scen("scenario-tp-" + tag, "tp: [1]", "tp: %s" % v)
for tag, v in [("zero", "[0]"), ("huge", "[2000000]")]:
    scen("scenario-max-batch-" + tag, "max_batch: [16]", "max_batch: %s" % v)
scen("scenario-precision-unknown", "precisions: [int8]", "precisions: [int9]")
scen("scenario-hardware-unknown", "hardware: [l4]", "hardware: [h300]")
scen("scenario-hardware-scalar", "hardware: [l4]", "hardware: 5")
scen("scenario-class-filter", "hardware: [l4]", "hardware: [l4]\n  classes: [gpuu]")
scen("scenario-stack-unknown", "hardware: [l4]", "hardware: [l4]\n  stacks: [vlm]")
scen("scenario-model-unknown", "model: qwen2.5-7b", "model: qwen9-7b")
scen("scenario-context-exceeded", "output_tokens: 100", "output_tokens: 200000")
scen_add("scenario-max-context-below-prompt", "serving:\n  max_context_tokens: 1000\n")
scen_add("scenario-max-context-negative", "serving:\n  max_context_tokens: -1\n")
scen_add("scenario-batched-tokens-zero", "serving:\n  max_batched_tokens: 0\n")
scen_add("scenario-kv-block-zero", "serving:\n  kv_block_tokens: 0\n")
scen_add("scenario-chunked-prefill-text", "serving:\n  chunked_prefill: maybe\n")
scen("scenario-verify-requests-low", "top: 0", "top: 0\n  requests: 10")
scen("scenario-verify-requests-huge", "top: 0", "top: 0\n  requests: 3000000000")
scen("scenario-verify-top-negative", "top: 0", "top: -1")
scen("scenario-verify-seed-negative", "top: 0", "top: 0\n  seed: -1")
# --- scenarios: structure ----------------------------------------------------------------------
scen("scenario-unknown-top-key", "verify:", "verfy:")
scen("scenario-workload-typo", "workload:", "workloads:")
scen_add("scenario-second-document", "---\nschema_version: 1\nkind: scenario\n")
scen("scenario-duplicate-key", "  redundancy: 1", "  redundancy: 1\n  redundancy: 2")
scen("scenario-tab-indent", "  redundancy: 1", "\tredundancy: 1")
scen("scenario-classes-not-list", "  classes:\n    - name: chat", "  classes: chat\n  x:\n    - name: chat")
scen("scenario-class-no-name", "    - name: chat\n      model", "    - model")
scen("scenario-two-classes-same-name", "candidates:",
     "    - name: chat\n      model: qwen2.5-7b\n      rate: {mean_qps: 1}\n"
     "      prompt_tokens: 100\n      output_tokens: 10\n      sla: {e2e_p90_s: 30}\ncandidates:")
scen("scenario-objective-unknown", "verify:", "objective: cheapest\nverify:")
scen("scenario-objective-no-budget", "verify:", "objective: max_qps_within_budget\nverify:")
scen("scenario-fleet-strategy", "verify:", "fleet:\n  strategy: mixed\nverify:")
scen("scenario-tier-shares", "verify:",
     "fleet:\n  strategy: tiered\n  tiers:\n    - {model: qwen2.5-7b, share: 0.5}\n"
     "    - {model: qwen2.5-7b, share: 0.3}\nverify:")
scen("scenario-tier-share-nan", "verify:",
     "fleet:\n  strategy: tiered\n  tiers:\n    - {model: qwen2.5-7b, share: .nan}\nverify:")
scen("scenario-wrong-kind", "kind: scenario", "kind: hardware")
scen("scenario-kind-typo", "kind: scenario", "kind: scenaro")
scen("scenario-schema-version", "schema_version: 1", "schema_version: 2")
scen("scenario-schema-version-huge", "schema_version: 1", "schema_version: 99999999999999999999")
scen("scenario-prices-missing", "verify:", "prices:\n  file: no-such-book\nverify:")
scen("scenario-long-key", "verify:", "v" * 5000 + ": 1\nverify:")
scen("scenario-long-model-name", "model: qwen2.5-7b", "model: " + "q" * 5000)
scen("scenario-name-list", "name: bad-case", "name: [a, b]")
case("scenario-top-level-list.yaml", PLAN, "- schema_version: 1\n- kind: scenario\n")
case("scenario-malformed.yaml", PLAN, sub(SCENARIO, "tp: [1]", "tp: [1"))
case("scenario-only-comment.yaml", PLAN, "# nothing here\n")

# --- hardware specs (predict -H FILE) ----------------------------------------------------------
HW = "predict -m llama-3.2-1b -H FILE"


def hw(name, old, new):
    case(name + ".yaml", HW, sub(HARDWARE, old, new))


hw("hardware-memory-overflow", 'memory_bytes: "16 GB"', 'memory_bytes: "1e308 TB"')
hw("hardware-memory-nan", 'memory_bytes: "16 GB"', "memory_bytes: .nan")
hw("hardware-memory-zero", 'memory_bytes: "16 GB"', "memory_bytes: 0")
hw("hardware-bandwidth-inf", '"1 TB/s"', ".inf")
hw("hardware-bandwidth-dimension", '"1 TB/s"', '"1 TB"')
hw("hardware-bandwidth-case", '"1 TB/s"', '"1 tb/s"')
hw("hardware-flops-negative", '"100 TFLOP/s"', '"-100 TFLOP/s"')
hw("hardware-flops-overflow", '"100 TFLOP/s"', '"1e300 EFLOP/s"')
hw("hardware-flops-unknown-type", "  bf16:", "  bf17:")
hw("hardware-tdp-nan", "tdp_w: 300", "tdp_w: .nan")
hw("hardware-tdp-text", "tdp_w: 300", "tdp_w: hot")
hw("hardware-class-unknown", "class: gpu", "class: tpu")
hw("hardware-missing-memory", 'memory_bytes: "16 GB"\n', "")
hw("hardware-duplicate-key", "tdp_w: 300", "tdp_w: 300\ntdp_w: 350")
hw("hardware-second-document", "date: 2026-11-29\n", "date: 2026-11-29\n---\nname: other\n")
hw("hardware-unknown-key", "tdp_w: 300", "tdp_watts: 300")
hw("hardware-name-upper", "name: bad-gpu", "name: Bad GPU")
hw("hardware-devices-per-server-zero", "tdp_w: 300", "tdp_w: 300\ndevices_per_server: 0")
hw("hardware-devices-per-server-huge", "tdp_w: 300", "tdp_w: 300\ndevices_per_server: 1e12")
hw("hardware-no-sources", "sources:\n  - fields: [\"*\"]\n    ref: test fixture\n    date: 2026-11-29\n", "")
hw("hardware-wrong-kind", "kind: hardware", "kind: model")

# --- model specs (predict -m FILE) -------------------------------------------------------------
MD = "predict -H h200 -m FILE"


def model(name, old, new):
    case(name + ".yaml", MD, sub(MODEL, old, new))


model("model-layers-zero", "layers: 2", "layers: 0")
model("model-layers-overflow", "layers: 2", "layers: 1e10")
model("model-layers-fraction", "layers: 2", "layers: 2.5")
model("model-hidden-nan", "hidden: 64", "hidden: .nan")
model("model-hidden-inf", "hidden: 64", "hidden: .inf")
model("model-heads-not-dividing", "heads: 4", "heads: 5")
model("model-kv-heads-over", "kv_heads: 2", "kv_heads: 8")
model("model-vocab-negative", "vocab: 1000", "vocab: -1000")
model("model-vocab-text", "vocab: 1000", "vocab: many")
model("model-max-context-zero", "max_context: 2048", "max_context: 0")
model("model-max-context-overflow", "max_context: 2048", "max_context: 1e30")
model("model-missing-vocab", "vocab: 1000\n", "")
model("model-typo", "ffn_hidden: 128", "ffn_hiden: 128")
model("model-duplicate", "layers: 2", "layers: 2\nlayers: 3")
model("model-second-document", "date: 2026-11-29\n", "date: 2026-11-29\n---\n")
model("model-aliases-not-list", 'aliases: ["Tiny Model 1B", "org/Tiny-1B"]', "aliases: {a: 1}")
model("model-wrong-kind", "kind: model", "kind: hardware")

# --- measurement CSV (validate -i FILE) --------------------------------------------------------
VAL = "validate -i FILE"


def meas(name, hw="1", inp="0", batch="1", value="120", header=MEAS_HEADER, rows=None):
    row = MEAS_ROW.format(hw=hw, inp=inp, batch=batch, value=value)
    case(name + ".csv", VAL, header + (rows if rows is not None else row))


for tag, v in [("nan", "nan"), ("NaN", "NaN"), ("inf", "inf"), ("neg-inf", "-inf"),
               ("overflow", "1e999"), ("zero", "0"), ("negative", "-5"), ("empty", ""),
               ("text", "fast"), ("unit", "120 tok/s")]:
    meas("measurements-value-" + tag, value=v)
for tag, v in [("zero", "0"), ("huge", "5000"), ("fraction", "1.5"), ("nan", "nan"),
               ("negative", "-2"), ("overflow", "1e40")]:
    meas("measurements-hw-count-" + tag, hw=v)
for tag, v in [("zero", "0"), ("huge", "2000000"), ("nan", "nan"), ("fraction", "0.5")]:
    meas("measurements-batch-" + tag, batch=v)
for tag, v in [("negative", "-1"), ("nan", "nan"), ("huge", "1e30")]:
    meas("measurements-input-len-" + tag, inp=v)
meas("measurements-duplicate-column", header=MEAS_HEADER.replace(",notes\n", ",notes,value\n"))
meas("measurements-missing-column", header=MEAS_HEADER.replace(",stack", ""))
meas("measurements-bom-bad-value", header="\ufeff" + MEAS_HEADER, value="nan")
meas("measurements-header-only", rows="")
meas("measurements-crlf-bad-value", header=MEAS_HEADER.replace("\n", "\r\n"),
     rows=MEAS_ROW.format(hw="1", inp="0", batch="1", value="nan").replace("\n", "\r\n"))
meas("measurements-quoted-nan", rows=MEAS_ROW.format(hw="1", inp="0", batch="1", value='"nan"'))
meas("measurements-second-row-bad",
     rows=MEAS_ROW.format(hw="1", inp="0", batch="1", value="120") +
     MEAS_ROW.format(hw="1", inp="0", batch="1", value="-1"))
case("measurements-empty.csv", VAL, "")
case("measurements-blank-lines.csv", VAL, "\n\n\n")
case("measurements-long-line.csv", VAL, "x" * (1 << 21) + "\n")
case("measurements-a-directory.csv", VAL, None)

# --- NPU/profiler measurement import (calibrate --import FILE) ---------------------------------
IMP = "calibrate --import FILE"


def imp(name, rows, header=IMPORT_HEADER):
    case(name + ".csv", IMP, header + rows)


imp("import-value-nan", "read,,,,,4294967296,nan,TB/s,synthetic,\n")
imp("import-value-zero", "read,,,,,4294967296,0,TB/s,synthetic,\n")
imp("import-value-negative", "read,,,,,4294967296,-1,TB/s,synthetic,\n")
imp("import-value-overflow", "read,,,,,4294967296,1e-320,TB/s,synthetic,\n")
imp("import-unit-unknown", "read,,,,,4294967296,1.2,furlongs,synthetic,\n")
imp("import-kind-unknown", "sum,,,,,4294967296,1.2,TB/s,synthetic,\n")
imp("import-bytes-nan", "read,,,,,nan,1.2,TB/s,synthetic,\n")
imp("import-m-zero", IMPORT_OK + "gemm,fp16,0,8192,8192,,200,TFLOP/s,synthetic,\n")
imp("import-gemv-wide", IMPORT_OK + "gemv,bf16,512,64,64,,1,TB/s,synthetic,\n")
imp("import-dtype-unknown", IMPORT_OK + "gemm,bf17,64,64,64,,200,TFLOP/s,synthetic,\n")
imp("import-samples-nan", "read,,,,,4294967296,,,synthetic,0.003;nan\n")
imp("import-no-source", "read,,,,,4294967296,1.2,TB/s,,\n")
imp("import-too-many-cells", "read,,,,,4294967296,1.2,TB/s,synthetic,,extra\n")
imp("import-duplicate-column", IMPORT_OK,
    header="kind,dtype,m,n,k,bytes,value,unit,source,samples,unit\n")
imp("import-unknown-column", "read,,,,,4294967296,1.2,TB/s,synthetic,,red\n",
    header="kind,dtype,m,n,k,bytes,value,unit,source,samples,colour\n")
imp("import-missing-source-column", "read,,,,,4294967296,1.2,TB/s\n",
    header="kind,dtype,m,n,k,bytes,value,unit\n")
imp("import-header-key", IMPORT_OK, header="# wattage: 3\n" + IMPORT_HEADER)
imp("import-header-only", "")
imp("import-bom-bad-kind", "sum,,,,,4294967296,1.2,TB/s,synthetic,\n",
    header="\ufeff" + IMPORT_HEADER)
case("import-yaml-second-document.yaml", IMP,
     "kind: calibration-measurements\nschema_version: 1\nhardware: ascend-910b\n"
     "measurements:\n  - {kind: read, bytes: 4294967296, value: 1.2, unit: TB/s, source: s}\n"
     "---\nkind: calibration-measurements\n")
case("import-yaml-unknown-key.yaml", IMP,
     "kind: calibration-measurements\nschema_version: 1\nhardware: ascend-910b\n"
     "measurements:\n  - kind: read\n    bytez: 4294967296\n    value: 1.2\n")
case("import-yaml-value-nan.yaml", IMP,
     "kind: calibration-measurements\nschema_version: 1\nhardware: ascend-910b\n"
     "measurements:\n  - kind: read\n    bytes: 4294967296\n    value: .nan\n"
     "    unit: TB/s\n    source: s\n")
case("import-a-directory.csv", IMP, None)

# --- llama-bench and vLLM results (calibrate --from-benchmarks FILE) ---------------------------
FB = "calibrate --from-benchmarks FILE"
llama_lines = LLAMA_CSV.splitlines(True)
case("bench-llama-missing-column.csv", FB,
     llama_lines[0].replace(",avg_ts,", ",avg_tps,") + "".join(llama_lines[1:]))
case("bench-llama-duplicate-column.csv", FB,
     llama_lines[0].replace(",stddev_ts", ",avg_ts") + "".join(llama_lines[1:]))
case("bench-llama-short-row.csv", FB, llama_lines[0] + llama_lines[1].rsplit(",", 3)[0] + "\n")
FBH = FB + " --hardware h100-sxm"
case("bench-vllm-completed-zero.json", FBH, sub(VLLM, '"completed": 200', '"completed": 0'))
case("bench-vllm-not-json.json", FBH, "{" + VLLM[1:-5])
case("bench-vllm-no-hardware.json", FB, VLLM)
case("bench-llama-json-bad-rate.json", FB + " --hardware rtx-4090 --model llama-3.1-8b", '[{"model_type": "llama 8B F16", "avg_ts": "nan", '
     '"n_prompt": 512, "n_gen": 0, "gpu_info": "NVIDIA GeForce RTX 4090"}]')

# --- calibration profiles (predict --calibration FILE) -----------------------------------------
PR = "predict -m llama-3.2-1b -H rtx-4090 --calibration FILE"


def prof(name, old, new):
    case(name + ".yaml", PR, sub(PROFILE, old, new))


prof("profile-other-device", "hardware: rtx-4090", "hardware: h200")
prof("profile-bandwidth-nan", "asymptote_bytes_per_s: 504e9", "asymptote_bytes_per_s: .nan")
prof("profile-bandwidth-overflow", "asymptote_bytes_per_s: 504e9", 'asymptote_bytes_per_s: "1e308 TB/s"')
prof("profile-threads-negative", "threads: 1", "threads: -1")
prof("profile-second-document", "    date: 2026-11-30\n", "    date: 2026-11-30\n---\nthreads: 2\n")
prof("profile-wrong-kind", "kind: calibration-profile", "kind: calibration-measurements")

# --- command-line values -----------------------------------------------------------------------
# No file: the diagnostic names the flag as its key.
for tag, flags in [("prompt-nan", "--prompt nan"), ("prompt-inf", "--prompt inf"),
                   ("output-nan", "--output nan"), ("prompt-huge", "--prompt 1e300"),
                   ("prompt-over-context", "-m llama-3.1-8b --prompt 131072 --output 1"),
                   ("batch-zero", "--batch 0")]:
    case("flag-" + tag, "predict " + flags, False)


# --- output paths (-o and the like) ------------------------------------------------------------
# A symbolic link or a read-only file is replaced only with --force; a directory or a missing
# folder never. The bracketed word says how OUT is prepared in a fresh folder TMP (setup_output;
# tests/test_spec_bad.cpp prepares it the same way); each refusal comes before any work.
MEAS_SMALL = "SRC/tests/data/measurements/two-rows.csv"  # a fixture: the [force] line counts its rows
ASCEND = "SRC/data/calibration/imports/ascend-910-published.yaml"
for name, command in [
        ("output-symlink-report", "[symlink] report SRC/data/examples/support-bot.yaml -o OUT.md"),
        ("output-symlink-calibrate-rows", "[symlink] calibrate --tiny --rows OUT.csv"),
        ("output-symlink-validate-write",
         "[symlink] validate -i %s --fit llama.cpp --write OUT.yaml" % MEAS_SMALL),
        ("output-readonly-calibrate-import", "[readonly] calibrate --import %s -o OUT.yaml" % ASCEND),
        ("output-readonly-report", "[readonly] report SRC/data/examples/support-bot.yaml -o OUT.html"),
        ("output-directory-validate",
         "[directory] validate -i %s --residuals-out OUT.csv" % MEAS_SMALL),
        ("output-directory-calibrate", "[directory] calibrate --tiny -o OUT.yaml"),
        ("output-missing-parent-calibrate-import",
         "[missing-parent] calibrate --import %s -o OUT.yaml" % ASCEND),
        ("output-missing-parent-report",
         "[missing-parent] report SRC/data/examples/support-bot.yaml -o OUT.pdf"),
        ("output-force-validate",
         "[force] validate -i %s --summary-only --residuals-out OUT.csv --force" % MEAS_SMALL)]:
    case(name, command, False)


def setup_output(command, tmp):
    """Prepares OUT for an output case; returns its path without the extension ("" if none)."""
    m = re.match(r"^\[([a-z-]+)\] .* OUT(\S*)", command)
    if not m:
        return ""
    kind, ext = m.group(1), m.group(2)
    base = os.path.join(tmp, "missing", "out") if kind == "missing-parent" else os.path.join(tmp, "out")
    out = base + ext
    if kind in ("symlink", "force"):
        with open(os.path.join(tmp, "target" + ext), "w") as f:
            f.write("original\n")
        os.symlink(os.path.join(tmp, "target" + ext), out)
    elif kind == "readonly":
        with open(out, "w") as f:
            f.write("original\n")
        os.chmod(out, 0o444)
    elif kind == "directory":
        os.makedirs(out)
    return base


def write():
    for name, _, text in CASES:
        path = os.path.join(HERE, name)
        if text is False:
            continue
        if text is None:
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, ".keep"), "w") as f:
                f.write("a directory where a file is expected\n")
            continue
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def record(binary):
    env = dict(os.environ, INFERCAP_DATA_DIR=os.path.join(SRC, "data"))
    lines = ["# name\texit\tlocates\tcommand (FILE = this case's path)\t"
             "first diagnostic line (FILE = path, SRC = source tree)\n"]
    for name, command, _ in CASES:
        path = os.path.join(HERE, name)
        tmp = tempfile.mkdtemp(prefix="infercap-bad-out-")
        out = setup_output(command, tmp)
        argv = [binary]
        for a in command.split():
            if a.startswith("["):
                continue
            a = path if a == "FILE" else a
            a = SRC + a[3:] if a.startswith("SRC/") else a
            a = out + a[3:] if a.startswith("OUT") else a
            argv.append(a)
        p = subprocess.run(argv, env=env, capture_output=True, timeout=120)
        err = p.stderr.decode("utf-8", "replace").splitlines()
        first = next((l for l in err if path in l or (out and out in l)), err[0] if err else "")
        first = first.replace(path, "FILE").replace(SRC, "SRC")
        if out:
            first = first.replace(out, "OUT").replace(tmp, "TMP")
        shutil.rmtree(tmp)
        # What the line names: file:line:col and a key or column ("key"), the file alone for
        # whole-file problems ("file"), or a command-line flag ("flag").
        if re.match(r"^(infercap [a-z]+: )?FILE:[0-9]+:[0-9]+: (error: )?[^ :]+: ", first):
            locates = "key"
        elif re.match(r"^error: --[a-z-]+: ", first):
            locates = "flag"
        elif re.match(r"^infercap [a-z]+: (refusing to (replace|overwrite)|cannot write) OUT", first):
            locates = "output"
        elif first.startswith("wrote OUT"):
            locates = "written"
        else:
            locates = "file"
        lines.append("%s\t%d\t%s\t%s\t%s\n" % (name, p.returncode, locates, command, first))
    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    write()
    if len(sys.argv) == 3 and sys.argv[1] == "--record":
        record(os.path.abspath(sys.argv[2]))
    print(len(CASES), "cases")
