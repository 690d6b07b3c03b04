#!/bin/bash
# Regenerates data/measurements/serving-sglang.csv from the JSON lines of
# datacrunch-research/h200-benchmarks @ c091ef5 (SGLang runs of December 2024), read from a git
# directory of that repository (a clone or a mirror; nothing of it is committed here):
#   scripts/serving-sglang-rows.sh GIT_DIR > data/measurements/serving-sglang.csv
# The engine settings the runs do not state (max_batch, max_num_tokens, memory_fraction) are
# SGLang's defaults for each deployment, derived in the rows' notes.
set -euo pipefail
R=${1:?source repo checkout (git dir)}
C="datacrunch-research/h200-benchmarks @ c091ef530a525d2e788bc41c39a4450b09c9f2ad (https://github.com/datacrunch-research/h200-benchmarks)"
T=$(mktemp -d)
for f in llama_3_3_70b_online_output llama_3_3_70b_offline_output llama_405b_online_output; do
  git --git-dir="$R" show c091ef530a525d2e788bc41c39a4450b09c9f2ad:sglang/outputs/$f.jsonl > "$T/$f.jsonl"
done
N70="Llama 3.3 70B Instruct (the Llama 3.1 70B architecture: the catalog's llama-3.1-70b)"
N405="Llama 3.1 405B Instruct (the catalog's llama-3.1-405b)"
L70="python3 -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp-size 4 --disable-radix-cache --enable-torch-compile"
L405="python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp-size 8 --disable-radix-cache --enable-torch-compile"
E70="mem_fraction_static 0.85 at TP4 (server_args.py), a KV pool of about 1.1 M tokens a GPU, so max_running_requests = max(2048, min(4096, pool / 131072 x 512)) = 4096 (model_runner.py; 131072 = the model's context), and chunked_prefill_size 8192 tokens a prefill batch"
E405="mem_fraction_static 0.81 at TP8 (server_args.py), a KV pool of about 0.33 M tokens a GPU, so max_running_requests = max(2048, min(4096, pool / 131072 x 512)) = 2048 (model_runner.py; 131072 = the model's context), and chunked_prefill_size 8192 tokens a prefill batch"
S=scripts/sglang-bench-rows.py
python3 $S --jsonl "$T/llama_3_3_70b_online_output.jsonl" --cite "$C, sglang/outputs/llama_3_3_70b_online_output.jsonl" --commands "sglang/experiments/llama_3_3_70b_sglang.sh" --hardware h200 --hw-count 4 --tp 4 --model llama-3.1-70b --model-note "$N70" --precision BF16 --launch "$L70" --max-batch 4096 --max-num-tokens 8192 --memory-fraction 0.85 --engine-note "$E70" --id-prefix SGL
python3 $S --no-header --first-id 26 --jsonl "$T/llama_3_3_70b_offline_output.jsonl" --cite "$C, sglang/outputs/llama_3_3_70b_offline_output.jsonl" --commands "sglang/experiments/llama_3_3_70b_sglang.sh" --hardware h200 --hw-count 4 --tp 4 --model llama-3.1-70b --model-note "$N70" --precision BF16 --launch "$L70" --max-batch 4096 --max-num-tokens 8192 --memory-fraction 0.85 --engine-note "$E70" --id-prefix SGL
python3 $S --no-header --first-id 31 --jsonl "$T/llama_405b_online_output.jsonl" --cite "$C, sglang/outputs/llama_405b_online_output.jsonl" --commands "sglang/experiments/llama_405b_sglang.sh" --hardware h200 --hw-count 8 --tp 8 --model llama-3.1-405b --model-note "$N405" --precision BF16 --launch "$L405" --max-batch 2048 --max-num-tokens 8192 --memory-fraction 0.81 --engine-note "$E405" --id-prefix SGL
rm -rf "$T"
