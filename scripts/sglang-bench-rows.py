#!/usr/bin/env python3
"""Turns the JSON lines that SGLang's `sglang.bench_serving --output-file` appends (one object
per run) into serving rows in the schema of data/measurements/README.md.

    scripts/sglang-bench-rows.py --jsonl FILE --cite 'OWNER/REPO @ COMMIT (URL), PATH' \
        --hardware h200 --hw-count 4 --tp 4 --model llama-3.1-70b --precision BF16 \
        --launch 'python3 -m sglang.launch_server ...' --id-prefix SGL \
        [--first-id 1] [--metrics-online ...] > rows.csv

Each run of the `random` dataset gives: Poisson runs (`request_rate` finite) a fixed-rate row
per metric with `requests` = the run's request count (a finite run: every request counted, the
output rate over the run's wall time, as bench_serving measures it); runs at an infinite rate
(every request sent at once) an `offline` row of output tokens/s. The `random` dataset with
`random_range_ratio` 0 draws each prompt length uniformly from 1 .. the stated length and each
output length from 0 .. the stated length (sglang/bench_serving.py, sample_random_requests:
randint(max(int(L x ratio), 1), L + 1) and randint(int(L x ratio), L + 1)), so the rows carry that
spread as 32 equal-weight points (`input_len_points`, `output_len_points`), scaled to the lengths
the run realised (its total_input_tokens / completed and total_output_tokens / completed). ShareGPT runs
are left out: their length distribution is not in the file, and a mean alone misstates a
median latency. A run whose settings repeat an earlier run's is left out too (noted on stderr).
"""
import argparse
import csv
import json
import math
import sys

HEADER = ["id", "source", "hardware", "hw_count", "mem_bw_gbs", "model", "params_b",
          "precision", "input_len", "output_len", "batch", "metric", "value", "unit", "stack",
          "notes", "tp", "serving_mode", "request_rate", "requests", "max_batch",
          "max_num_tokens", "memory_fraction", "input_len_points", "output_len_points"]

# bench_serving's JSON keys -> (the row's metric, unit). Its TTFT and ITL are medians over
# requests / over every token gap pooled; its e2e latency mean and median are over requests.
ONLINE = [("mean_e2e_latency_ms", "e2e_latency_mean", "ms"),
          ("median_e2e_latency_ms", "e2e_latency_median", "ms"),
          ("median_ttft_ms", "ttft_median", "ms"),
          ("median_itl_ms", "itl_median", "ms"),
          ("output_throughput", "output_tokens_per_s", "tokens/s")]
OFFLINE = [("output_throughput", "offline_output_tokens_per_s", "tokens/s")]

POINTS = 32


def uniform_points(low, stated, realised_mean):
    """Equal-weight points of uniform integers low..stated (each 1/32 share's mean), scaled so
    their mean is the run's realised mean length."""
    span = stated - low + 1
    pts = [low - 0.5 + (k + 0.5) * span / POINTS for k in range(POINTS)]
    scale = realised_mean / (sum(pts) / POINTS)
    return [p * scale for p in pts]


def fmt_num(x):
    return f"{x:.6g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--cite", required=True, help="repository @ commit (URL), path of the file")
    ap.add_argument("--commands", required=True,
                    help="where the bench_serving commands are (repository path)")
    ap.add_argument("--hardware", required=True)
    ap.add_argument("--hw-count", type=int, required=True)
    ap.add_argument("--tp", type=int, required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--model-note", required=True, help="what the catalog model stands for")
    ap.add_argument("--precision", required=True)
    ap.add_argument("--launch", required=True, help="the server command the source states")
    ap.add_argument("--stack", default="SGLang")
    ap.add_argument("--max-batch", type=int, required=True,
                    help="the engine's running-request limit for this deployment")
    ap.add_argument("--max-num-tokens", type=int, required=True,
                    help="the engine's prefill batch budget (chunked_prefill_size)")
    ap.add_argument("--memory-fraction", type=float, required=True,
                    help="the engine's share of GPU memory for weights and KV (mem_fraction_static)")
    ap.add_argument("--engine-note", required=True,
                    help="where the three engine settings come from")
    ap.add_argument("--id-prefix", required=True)
    ap.add_argument("--first-id", type=int, default=1)
    ap.add_argument("--no-header", action="store_true")
    a = ap.parse_args()

    out = csv.writer(sys.stdout, lineterminator="\n")
    if not a.no_header:
        out.writerow(HEADER)
    n = a.first_id
    seen = set()
    with open(a.jsonl, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    for lineno, line in enumerate(lines, 1):
        run = json.loads(line)
        if run.get("dataset_name") != "random":
            print(f"line {lineno}: {run.get('dataset_name')} dataset left out", file=sys.stderr)
            continue
        if run.get("max_concurrency") is not None:
            sys.exit(f"line {lineno}: max_concurrency is set: not a rate or offline run")
        if float(run["random_range_ratio"]) != 0.0:
            sys.exit(f"line {lineno}: random_range_ratio {run['random_range_ratio']}: expected 0")
        rate = float(run["request_rate"])
        done = int(run["completed"])
        isl, osl = int(run["random_input_len"]), int(run["random_output_len"])
        key = (rate, done, isl, osl)
        if key in seen:
            print(f"line {lineno}: repeats an earlier run's settings {key}: left out",
                  file=sys.stderr)
            continue
        seen.add(key)
        in_mean = run["total_input_tokens"] / done
        out_mean = run["total_output_tokens"] / done
        ip = uniform_points(1, isl, in_mean)
        op = uniform_points(0, osl, out_mean)
        offline = math.isinf(rate)
        mode = "offline" if offline else "rate"
        how = ("every request sent at once (request rate inf: offline maximum throughput)"
               if offline else
               f"Poisson arrivals at {rate:g} requests/s")
        for key_json, metric, unit in (OFFLINE if offline else ONLINE):
            notes = (
                f"{a.model_note}, {a.precision} weights and KV cache, TP{a.tp} on "
                f"{a.hw_count} x {a.hardware}; server: `{a.launch}` (engine version not stated: "
                f"the runs are of December 2024, SGLang v0.4); client: sglang.bench_serving "
                f"--dataset-name random --random-input {isl} --random-output {osl} "
                f"--num-prompt {done} --request-rate {rate:g} ({a.commands}); {how}; "
                f"{done} requests, all counted, the output rate over the run's "
                f"{run['duration']:.1f} s wall time; prompt and output lengths uniform in "
                f"1..{isl} and 0..{osl} (random_range_ratio 0), realised means "
                f"{in_mean:.1f} and {out_mean:.1f} tokens (total_input_tokens, "
                f"total_output_tokens / completed); engine settings the source does not state, "
                f"from SGLang's defaults: {a.engine_note}; '{key_json}'")
            out.writerow([
                f"{a.id_prefix}-{n:03d}", f"{a.cite}, line {lineno}, '{key_json}'", a.hardware,
                a.hw_count, "", a.model, "", a.precision, fmt_num(in_mean), fmt_num(out_mean), "",
                metric, fmt_num(float(run[key_json])), unit, a.stack, notes, a.tp, mode,
                "" if offline else fmt_num(rate), done, a.max_batch, a.max_num_tokens,
                fmt_num(a.memory_fraction), ";".join(fmt_num(x) for x in ip),
                ";".join(fmt_num(x) for x in op)])
            n += 1


if __name__ == "__main__":
    main()
