#!/usr/bin/env python3
"""Turns InferenceX's published serving points (the JSON array the InferenceX dashboard serves,
one object per point) into serving rows in the schema of data/measurements/README.md.

    scripts/inferencex-rows.py --json benchmarks.json \
        --cite 'SemiAnalysisAI/InferenceX-app @ COMMIT (URL), PATH' > rows.csv

Only the DeepSeek-R1 points whose runs are single-node, aggregated (not disaggregated), without
speculative decoding and, as the run's own scripts show, without expert parallelism or
data-parallel attention are turned into rows: the groups of DEPLOYMENTS below, each with the
InferenceX commit whose scripts ran it and the engine settings those scripts pass. Every other
point is counted on stderr by the reason it is left out (a record's `ep` 1 is not enough: the
2025-11-02 runs predate the field, and their scripts ran EP = TP).

The client (InferenceX's copy of vLLM's benchmark_serving.py) runs a closed loop of `conc`
clients sending 10 x conc requests (`--num-prompts $((CONC * 10)) --max-concurrency $CONC
--request-rate inf --ignore-eos`), every one counted, tokens over the run's wall time including
its drain; prompt and output lengths are uniform integers in [int(0.8 L), L] (random_range_ratio
0.8: `np.random.randint(int(L * 0.8), L + 1)`), carried as 32 equal-weight points. Published
latencies are in seconds (the client's `*_ms` / 1000), throughputs per GPU (over TP GPUs): the
rows give the deployment's output tokens/s (output_tput_per_gpu x TP). ITL is left out: the
engines stream 10 or 30 tokens a chunk (`stream_interval`), so the client's inter-token gaps are
gaps between chunks. SGLang's --scheduler-recv-interval (and --num-continuous-decode-steps,
which runs that many decode steps between scheduling passes) becomes `request_poll_steps`, and
TensorRT-LLM's piecewise CUDA graphs for prompt steps `prefill_cuda_graphs` and its batch waiting
`prompt_wait_steps` / `prompt_wait_tokens`.
"""
import argparse
import csv
import json
import sys

HEADER = ["id", "source", "hardware", "hw_count", "mem_bw_gbs", "model", "params_b",
          "precision", "input_len", "output_len", "batch", "metric", "value", "unit", "stack",
          "notes", "tp", "serving_mode", "requests", "max_batch", "max_num_tokens",
          "memory_fraction", "kv_precision", "chunked_prefill", "request_poll_steps",
          "prefill_cuda_graphs", "prompt_wait_steps", "prompt_wait_tokens", "input_len_points",
          "output_len_points"]

IX = "SemiAnalysisAI/InferenceX"
CLIENT_VENDORED = ("InferenceX's vendored client (utils/bench_serving/benchmark_serving.py, from "
                   "IX d053ae24e, 2026-01-21): 2 x conc warm-up requests before the timer")
CLIENT_CLONED = ("kimbochen/bench_serving's benchmark_serving.py, cloned unpinned by the run "
                 "(main at 499c0b1 from August 2025 to January 2026): one test request before "
                 "the timer")
R1_FP4 = "nvidia/DeepSeek-R1-0528-FP4-V2"
FP4_NOTE = ("NVFP4 checkpoint: the routed experts' GEMMs in NVFP4, weights and activations (W4A4), "
            "attention, shared experts and the dense layers FP8 as in the original; the model runs "
            "every GEMM in NVFP4")

R1 = "deepseek-ai/DeepSeek-R1-0528"


def trt_b200(tp, memory_note):
    """benchmarks/dsr1_fp8_b200_trt.sh at IX ec7bafaae (TensorRT-LLM 1.2.0rc6.post2)."""
    return dict(
        commit="ec7bafaae", script="benchmarks/dsr1_fp8_b200_trt.sh",
        image="nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2", stack="TensorRT-LLM PyTorch",
        launch=f"trtllm-serve {R1} --tp_size {tp} --ep_size 1 "
               "--max_num_tokens max((conc + isl + 127) // 64 x 64, 8192); extra options: "
               f"MoE backend TRTLLM, kv_cache_config dtype fp8 free_gpu_memory_fraction {memory_note}",
        kv="fp8", chunked="false", max_tokens="trt", memory_fraction=None, max_batch=None,
        graphs="trt-fp8")


def trt_b200_fp4(tp, date):
    """The ep-1 points of benchmarks/dsr1_fp4_b200_trt[_slurm].sh: TensorRT-LLM 1.1.0rc2.post2 at
    IX 029199755 (2025-12-15), 1.2.0rc6.post2 at IX 6eecc0e66 (2026-02-03)."""
    old = date == "2025-12-15"
    tokens = "(conc + isl + 127) // 64 x 64" if old else "max((conc + isl + 127) // 64 x 64, 8192)"
    return dict(
        commit="029199755" if old else "6eecc0e66",
        script="benchmarks/dsr1_fp4_b200_trt_slurm.sh" if old else "benchmarks/dsr1_fp4_b200_trt.sh",
        image="nvcr.io/nvidia/tensorrt-llm/release:" + ("1.1.0rc2.post2" if old else "1.2.0rc6.post2"),
        stack="TensorRT-LLM PyTorch", client=CLIENT_CLONED if old else CLIENT_VENDORED,
        launch=f"trtllm-serve {R1_FP4} --tp_size {tp} --ep_size 1 --max_num_tokens {tokens}; "
               "extra options: MoE backend TRTLLM, kv_cache_config dtype fp8 "
               "free_gpu_memory_fraction 0.8 enable_block_reuse false, cuda_graph_config "
               f"max_batch_size {512 if old else 'conc'}, stream_interval 10",
        kv="fp8", chunked="false", max_tokens="trt-old" if old else "trt", memory_fraction=None,
        max_batch=None, precision="FP4")


def sglang_b200(tp, running, memory, prefill, recv):
    """benchmarks/single_node/dsr1_fp8_b200.sh at IX 12ba0ae07 (SGLang v0.5.9-cu130). `recv`:
    --scheduler-recv-interval, a number or "b200-tp8" (10 below 16 clients, else 30)."""
    return dict(
        commit="12ba0ae07", script="benchmarks/single_node/dsr1_fp8_b200.sh",
        image="lmsysorg/sglang:v0.5.9-cu130", stack="SGLang",
        launch=f"python3 -m sglang.launch_server --model-path {R1} "
               f"--tensor-parallel-size {tp} --data-parallel-size 1 --ep-size 1 "
               f"--max-running-requests {running} --cuda-graph-max-bs {running} "
               f"--mem-fraction-static {memory} --kv-cache-dtype fp8_e4m3 --chunked-prefill-size "
               f"{prefill} --max-prefill-tokens {prefill} --attention-backend trtllm_mla "
               "--moe-runner-backend flashinfer_trtllm --quantization fp8 "
               "--enable-flashinfer-allreduce-fusion --scheduler-recv-interval "
               f"{'(10 below conc 16, else 30)' if recv == 'b200-tp8' else recv} "
               "--stream-interval 30 --disable-radix-cache",
        kv="fp8", chunked="", max_tokens=prefill, memory_fraction=memory, max_batch=running,
        poll=recv)


def sglang_mi30x(hw):
    """benchmarks/single_node/dsr1_fp8_{mi300x,mi325x}.sh at IX f267602ff (SGLang v0.5.9 ROCm)."""
    return dict(
        commit="f267602ff", script=f"benchmarks/single_node/dsr1_fp8_{hw}.sh",
        image="lmsysorg/sglang:v0.5.9-rocm700-mi30x", stack="SGLang ROCm",
        launch="SGLANG_USE_AITER=1 SGLANG_AITER_MLA_PERSIST=1 python3 -m sglang.launch_server "
               f"--model-path {R1} --tensor-parallel-size 8 "
               "--mem-fraction-static 0.8 --cuda-graph-max-bs 128 --chunked-prefill-size 131072 "
               "--max-prefill-tokens 131072 --num-continuous-decode-steps 4 --kv-cache-dtype "
               "fp8_e4m3 --attention-backend aiter --disable-radix-cache (expert parallel size "
               "the default 1; max running requests SGLang's own sizing)",
        kv="fp8", chunked="", max_tokens=131072, memory_fraction=0.8, max_batch=None,
        poll=4)


# (hardware, framework, precision, tp, date) -> the deployment that produced the points: the
# InferenceX commit the run was triggered from (a push editing perf-changelog.yaml names its
# configs) and what that commit's script passes to the server.
DEPLOYMENTS = {
    ("b200", "trt", "fp8", 8, "2026-01-29"): trt_b200(
        8, "0.8 enable_block_reuse false, cuda_graph_config max_batch_size conc, "
           "stream_interval 10 (piecewise CUDA graphs and delayed batching at 1k1k conc >= "
           "64, 1k8k conc >= 128, 8k1k conc >= 64)"),
    ("b200", "trt", "fp8", 4, "2026-01-29"): trt_b200(
        4, "0.8 (0.75 at 8k1k) enable_block_reuse false, cuda_graph_config max_batch_size "
           "conc, stream_interval 10"),
    ("b200", "sglang", "fp8", 8, "2026-03-25"): sglang_b200(
        8, 128, 0.82, 32768, "b200-tp8"),
    ("b200", "sglang", "fp8", 4, "2026-03-25"): sglang_b200(4, 32, 0.95, 8192, 10),
    ("h200", "sglang", "fp8", 8, "2026-03-25"): dict(
        commit="12ba0ae07", script="benchmarks/single_node/dsr1_fp8_h200.sh",
        image="lmsysorg/sglang:v0.5.9-cu130", stack="SGLang",
        launch=f"python3 -m sglang.launch_server --model-path {R1} "
               "--tensor-parallel-size 8 --data-parallel-size 1 --max-running-requests (512 at "
               "1k1k, else 256) --cuda-graph-max-bs (512 | 256) --chunked-prefill-size 32768 "
               "--max-prefill-tokens 32768 --mem-fraction-static 0.82 --attention-backend "
               "flashinfer --stream-interval 10 --disable-radix-cache (KV cache dtype auto: "
               "BF16; expert parallel size the default 1)",
        kv="bf16", chunked="", max_tokens=32768, memory_fraction=0.82, max_batch="h200"),
    ("b200", "trt", "fp4", 4, "2025-12-15"): trt_b200_fp4(4, "2025-12-15"),
    ("b200", "trt", "fp4", 8, "2025-12-15"): trt_b200_fp4(8, "2025-12-15"),
    ("b200", "trt", "fp4", 4, "2026-02-03"): trt_b200_fp4(4, "2026-02-03"),
    ("b200", "trt", "fp4", 8, "2026-02-03"): trt_b200_fp4(8, "2026-02-03"),
    ("mi300x", "sglang", "fp8", 8, "2026-02-27"): sglang_mi30x("mi300x"),
    ("mi325x", "sglang", "fp8", 8, "2026-02-27"): sglang_mi30x("mi325x"),
}

# Groups left out on purpose, with the reason (checked against the scripts of their commits).
LEFT_OUT = {
    "2025-11-02": "run from IX e06929c70, before records carried ep / dp_attention: its TensorRT-LLM "
                  "scripts ran EP = TP (and DP attention at some points), its SGLang script "
                  "--enable-ep-moe (EP = TP)",
    "2025-11-10": "SGLang FP4 script with --enable-ep-moe (EP = TP, IX 79abd6cb4)",
    "2025-12-31": "the prompt count depends on the runner (50 x conc on docker nodes, 10 x conc "
                  "on slurm ones, IX d27433dff), which the record does not name",
}

METRICS = [("output_tput_per_gpu", "output_tokens_per_s", "tokens/s", True),
           ("mean_ttft", "ttft_mean", "s", False),
           ("median_ttft", "ttft_median", "s", False),
           ("mean_tpot", "tpot_mean", "s", False),
           ("mean_e2el", "e2e_latency_mean", "s", False)]

HW_NAME = {"b200": "B200", "h200": "H200", "mi300x": "MI300X", "mi325x": "MI325X"}
POINTS = 32
RATIO = 0.8


def uniform_points(stated):
    """Equal-weight points of the uniform integers int(0.8 L)..L (each 1/32 share's mean)."""
    low = int(stated * RATIO)
    span = stated - low + 1
    return [low - 0.5 + (k + 0.5) * span / POINTS for k in range(POINTS)]


def fmt_num(x):
    return f"{x:.6g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True, help="the dashboard's benchmarks JSON array")
    ap.add_argument("--cite", required=True, help="repository @ commit (URL), path of the file")
    ap.add_argument("--id-prefix", default="IX")
    a = ap.parse_args()
    with open(a.json, encoding="utf-8") as f:
        points = json.load(f)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(HEADER)
    n = 1
    skipped = {}

    def skip(why):
        skipped[why] = skipped.get(why, 0) + 1

    for p in points:
        if p.get("model") != "dsr1":
            skip(f"model {p.get('model')}")
            continue
        if p.get("disagg") or p.get("is_multinode") or p.get("spec_method") != "none":
            skip("disaggregated, multi-node or speculative decoding")
            continue
        if p["decode_ep"] != 1 or p["decode_dp_attention"] or p["prefill_tp"] != p["decode_tp"]:
            skip("expert parallel or DP attention as published")
            continue
        tp = int(p["decode_tp"])
        key = (p["hardware"], p["framework"], p["precision"], tp, p["date"])
        if p["date"] in LEFT_OUT:
            skip(LEFT_OUT[p["date"]])
            continue
        d = DEPLOYMENTS.get(key)
        if d is None:
            skip(f"no deployment known for {p['hardware']} {p['framework']} {p['precision']} "
                 f"of {p['date']} (MI355X is not in the catalog)")
            continue
        isl, osl, conc = int(p["isl"]), int(p["osl"]), int(p["conc"])
        if d["max_tokens"] == "trt":
            max_tokens = max((conc + isl + 127) // 64 * 64, 8192)
        elif d["max_tokens"] == "trt-old":
            max_tokens = (conc + isl + 127) // 64 * 64
        else:
            max_tokens = d["max_tokens"]
        max_batch = d["max_batch"]
        # Decode steps between the engine's polls for new requests (empty: every step).
        poll = d.get("poll", "")
        if poll == "b200-tp8":
            poll = 10 if conc < 16 else 30
        # Piecewise CUDA graphs for prompt steps: the FP8 TensorRT-LLM script turns them on at
        # 1k1k conc >= 64, 1k8k conc >= 128 and 8k1k conc >= 64 (IX ec7bafaae,
        # benchmarks/dsr1_fp8_b200_trt.sh:35-51); the FP4 script only with EP 8 (none here);
        # SGLang's scripts never pass --enable-piecewise-cuda-graph.
        graphs = "false"
        if d.get("graphs") == "trt-fp8" and conc >= {(1024, 1024): 64, (1024, 8192): 128,
                                                     (8192, 1024): 64}.get((isl, osl), 1 << 30):
            graphs = "true"
        # Batch waiting, the same script at 1k1k conc >= 64 (:35-39): batch_wait_timeout_iters
        # 40, batch_wait_max_tokens_ratio 0.8 (of max_num_tokens; TensorRT-LLM stops waiting at
        # tokens >= ratio x max_num_tokens, so the integer level is its ceiling).
        wait_steps, wait_tokens = "", ""
        if d.get("graphs") == "trt-fp8" and (isl, osl) == (1024, 1024) and conc >= 64:
            wait_steps, wait_tokens = 40, -(-8 * max_tokens // 10)
        if max_batch == "h200":
            max_batch = 512 if (isl, osl) == (1024, 1024) else 256
        ip, op = uniform_points(isl), uniform_points(osl)
        in_mean, out_mean = sum(ip) / POINTS, sum(op) / POINTS
        m = p["metrics"]
        precision = d.get("precision", "FP8")
        weights = FP4_NOTE if precision == "FP4" else "FP8 block-scaled weights"
        client = d.get("client", CLIENT_VENDORED)
        for key_json, metric, unit, per_gpu in METRICS:
            if key_json not in m:
                continue
            value = float(m[key_json]) * (tp if per_gpu else 1)
            how = (f"'{key_json}' x TP {tp}" if per_gpu else f"'{key_json}'")
            notes = (
                f"DeepSeek-R1-0528 (the DeepSeek-V3 architecture without its MTP module: the "
                f"catalog's deepseek-v3), {weights}, KV cache {d['kv'].upper()}, "
                f"TP{tp} on {tp} x {HW_NAME[p['hardware']]}, one server; image {d['image']}; "
                f"InferenceX run {p['run_url']} of {p['date']}, triggered from {IX} @ "
                f"{d['commit']}, {d['script']}: `{d['launch']}`; client: {client}, "
                f"--dataset-name random --random-input-len {isl} --random-output-len {osl} "
                f"--random-range-ratio 0.8 --num-prompts {10 * conc} --max-concurrency {conc} "
                f"--request-rate inf --ignore-eos: a closed loop of {conc} clients, "
                f"{10 * conc} requests all counted over the run's wall time; lengths uniform in "
                f"{int(isl * RATIO)}..{isl} and {int(osl * RATIO)}..{osl}; {how}")
            out.writerow([
                f"{a.id_prefix}-{n:03d}", f"{a.cite}, the {p['hardware']} {p['framework']} {p['precision']} TP{tp} record "
                f"of run {p['run_url']} at isl {isl} osl {osl} conc {conc}, {how}",
                p["hardware"], tp, "", "deepseek-v3", "", precision, fmt_num(in_mean),
                fmt_num(out_mean), conc, metric, repr(value) if not per_gpu else fmt_num(value),
                unit, d["stack"], notes, tp, "concurrency", 10 * conc,
                "" if max_batch is None else max_batch, max_tokens,
                "" if d["memory_fraction"] is None else fmt_num(d["memory_fraction"]),
                d["kv"], d["chunked"], poll, graphs, wait_steps, wait_tokens, ";".join(fmt_num(x) for x in ip),
                ";".join(fmt_num(x) for x in op)])
            n += 1
    for why, count in sorted(skipped.items(), key=lambda kv: -kv[1]):
        print(f"left out {count}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main()
