#!/usr/bin/env bash
# Regenerates docs/validation.md: the public measurements predicted with the pure datasheet
# roofline (`ideal`) and with the fitted stacks, the fits themselves with leave-one-device-out
# errors, and the bandwidth the seed article's own figures imply.
#   scripts/validation-report.sh [--refit]   (--refit rewrites data/stacks/llama.cpp*.yaml first)
# Also rewrites data/validation/residuals.csv, the residuals predict and plan show as error bands.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${INFERCAP:-build/cli/infercap}
B=${BENCHMARKS:-../shared/benchmarks}
M=data/measurements
# Local llama-bench ground truth (scripts/llama-bench-rows.py) on three 2-core VMs, a Xeon with
# AMX (llama.cpp built without it), an EPYC Zen 5 and an EPYC Zen 3 (AVX2 only); their rows name
# the entries `infercap calibrate` wrote for them, which the profiles map them to.
MACHINES=(xeon-amx-vm-2c epyc-zen5-vm-2c epyc-zen3-vm-2c)
# Sessions kept aside to judge the calibration loop: data/measurements/<name>-judge.csv with
# data/calibration/<name>.profile.yaml, never in a fit.
JUDGE_MACHINES=(epyc-zen5-vm-2c-s2 epyc-zen5-vm-2c-s3)
# A machine's rows: every $M/<machine>-llamabench*.csv (the Xeon has a second file, measured with
# an AMX build), as `-i FILE` arguments, or the bare paths with `rows_of --paths`.
rows_of() {
  local flag=-i
  [ "$1" = --paths ] && flag="" && shift
  for f in "$M/$1"-llamabench*.csv; do
    if [ -n "$flag" ]; then printf '%s\n%s\n' "$flag" "$f"; else printf '%s\n' "$f"; fi
  done
}
PROFILES=(--calibration)
VM=()
for h in "${MACHINES[@]}"; do
  mapfile -t R < <(rows_of "$h")
  VM+=("${R[@]}")
  PROFILES+=("data/calibration/$h.profile.yaml")
done
VM+=("${PROFILES[@]}")
IN=(-i "$B/llamacpp-gpu-benchmarks.csv" -i "$B/seed-claims.csv" -i "$M/cpu-llamacpp-public.csv" -i "$M/cpu-llamacpp-public-2.csv" "${VM[@]}")
CPU=(-i "$M/cpu-llamacpp-public.csv" -i "$M/cpu-llamacpp-public-2.csv" -i "$B/seed-claims.csv" "${VM[@]}")
STATIC=(-i "$M/vllm-static-public.csv" -i "$M/trtllm-static-public.csv" -i "$M/trtllm-static-moe-judge.csv"
  -i "$M/pytorch-public.csv")
SERVE=(-i "$M/serving-public.csv" -i "$M/serving-nim.csv" -i "$M/serving-mlperf.csv"
  -i "$M/serving-mlperf-v5-judge.csv" -i "$M/serving-sglang.csv" -i "$M/serving-inferencex.csv"
  "${STATIC[@]}")
# Serving stacks, each fitted on its own static-batch rows (stack:file).
FITS=("vllm:$M/vllm-static-public.csv" "tensorrt-llm-0.9:$M/trtllm-static-public.csv"
  "pytorch-cuda-graph:$M/pytorch-public.csv")
if [ "${1:-}" = "--refit" ]; then
  for s in llama.cpp llama.cpp-metal; do
    "$BIN" validate "${IN[@]}" --fit "$s" --write "data/stacks/$s.yaml" >/dev/null
  done
  for e in "${FITS[@]}"; do
    "$BIN" validate -i "${e#*:}" --fit "${e%%:*}" --write "data/stacks/${e%%:*}.yaml" >/dev/null
  done
fi
# The header of the first table of `validate -f md` and its rows whose id matches $2 (ERE).
# awk reads to the end (no early exit), so validate never writes into a closed pipe (SIGPIPE
# under pipefail failed the script now and then).
rows_md() {
  "$BIN" validate $1 -f md | awk -v pat="$2" '
    d {next}
    /^\| id / && !h {print; getline; print; h=1; next}
    h && /^\| / && $2 ~ pat {print}
    h && /^$/ {d=1}'
}
OUT=docs/validation.md
TMP=$(mktemp)
# A stack fitted without the local ground truth, for the leave-it-out columns.
LODO=$(mktemp -d)
trap 'rm -rf "$LODO"' EXIT
# A copy of data/ in $1 for a fit without some rows, with the CPU dot-loop parameters back where
# no row has spoken (overlap 0.5, the stack's old fractions), so a parameter only the left-out
# rows determine does not leak into the leave-out fit.
leave_out_data() {
  mkdir -p "$1" && cp -r data/. "$1"
  sed -i -e 's/^    dot_memory_overlap: .*/    dot_memory_overlap: 0.5/' \
    -e 's/^    dot_fraction: .*/    dot_fraction: 0.5/' \
    -e 's/^    quantised_dot_fraction: .*/    quantised_dot_fraction: 0.07955/' \
    -e 's/^    amx_dot_fraction: .*/    amx_dot_fraction: 0.2/' \
    -e 's/^    amx_gemm_fraction: .*/    amx_gemm_fraction: 0.04/' \
    -e 's/^    fp16_gemm_compute_fraction: .*/    fp16_gemm_compute_fraction: 0.45/' "$1/stacks/llama.cpp.yaml"
}
leave_out_data "$LODO"
# The leave-one-device-out refits start from these priors, not from the committed fit: a
# parameter only the held-out device determines (the AMX fractions: only the Xeon guest has AMX
# rows) would otherwise carry that device's own fit into its prediction.
PRIOR="$LODO/priors"
leave_out_data "$PRIOR"
# `validate --fit`'s table from the committed fit, then the held-out lines of the same fit's
# `--cross-validate` started from the priors; that run also writes its held-out residuals (the
# error bands, at the end) to $1 unless $1 is empty.
fit_and_cv() {
  local held=$1
  shift
  "$BIN" validate "$@"
  "$BIN" validate --data "$PRIOR" "$@" --cross-validate ${held:+--residuals-out "$held"} |
    grep -e 'leave-one-hardware-out' -e 'held-out device'
}
"$BIN" validate -i "$B/llamacpp-gpu-benchmarks.csv" -i "$M/cpu-llamacpp-public.csv" -i "$M/cpu-llamacpp-public-2.csv" --fit llama.cpp \
  --write "$LODO/stacks/llama.cpp.yaml" >/dev/null
# The calibration loop per machine: the committed stack, and one fitted without that machine's
# own rows (the public rows and the other machine's): what a user's new machine gets.
LOOP=""
for h in "${MACHINES[@]}"; do
  OTHER=()
  for o in "${MACHINES[@]}"; do
    if [ "$o" != "$h" ]; then mapfile -t R < <(rows_of "$o"); OTHER+=("${R[@]}"); fi
  done
  mapfile -t OWN < <(rows_of "$h")
  mapfile -t OWN_PATHS < <(rows_of --paths "$h")
  D="$LODO/without-$h"
  leave_out_data "$D"
  # From the priors in $D, as the leave-one-device-out folds: the committed fit carries this
  # machine's own rows (its dot-loop overlap) into the start.
  "$BIN" validate --data "$D" -i "$B/llamacpp-gpu-benchmarks.csv" -i "$M/cpu-llamacpp-public.csv" -i "$M/cpu-llamacpp-public-2.csv" "${OTHER[@]}" \
    "${PROFILES[@]}" --fit llama.cpp --write "$D/stacks/llama.cpp.yaml" >/dev/null
  "$BIN" validate "${OWN[@]}" "${PROFILES[@]}" -f csv >"$D/fitted.csv"
  "$BIN" validate --data "$D" "${OWN[@]}" "${PROFILES[@]}" -f csv >"$D/without.csv"
  LOOP+="#### $h"$'\n\n'
  LOOP+=$(python3 scripts/calibration-loop-table.py "$D/fitted.csv" "$D/without.csv" "${OWN_PATHS[@]}")
  LOOP+=$'\n\n'
done
# Kept-aside sessions: a machine of a kind above on another day, calibrated and measured there
# and never fitted, so the committed stack's prediction is already out of sample (the loop as a
# user runs it).
for h in "${JUDGE_MACHINES[@]}"; do
  "$BIN" validate -i "$M/$h-judge.csv" --calibration "data/calibration/$h.profile.yaml" -f csv \
    >"$LODO/judge-$h.csv"
  LOOP+="#### $h (kept aside, never fitted)"$'\n\n'
  LOOP+=$(python3 scripts/calibration-loop-table.py --one-stack "$LODO/judge-$h.csv" "$M/$h-judge.csv")
  LOOP+=$'\n\n'
done
{
  echo "# Validation against public measurements"
  echo
  echo "Generated by \`scripts/validation-report.sh\` on $(date -u +%Y-%m-%d) at commit $(git rev-parse --short HEAD)."
  echo "Inputs: \`shared/benchmarks/llamacpp-gpu-benchmarks.csv\` (192 llama-bench rows, 20 NVIDIA GPUs"
  echo "and 4 Apple chips, Llama-3 8B/70B, Q4_K_M and F16), \`seed-claims.csv\` (seed article 000's"
  echo "dual-socket CPU table and GPU-vs-CPU comparison) and \`data/measurements/cpu-llamacpp-public.csv\`, \`cpu-llamacpp-public-2.csv\`"
  echo "(public CPU llama-bench runs, each row with the page it was read from). Error is predicted /"
  echo "measured - 1. Seed claims are checks: no fit uses them."
  echo
  echo "## 1. The datasheet roofline (\`--stack ideal\`)"
  echo
  echo "Peak bandwidth and peak dense compute, no overheads: what public roofline calculators do."
  echo
  "$BIN" validate "${IN[@]}" --stack ideal --summary-only -f md
  echo
  echo "## 2. Fitted stacks"
  echo
  echo "Each stack has a handful of physical parameters per hardware class (fractions of achievable"
  echo "bandwidth and compute, per-weight issue cycles, power-capped tensor throughput, per-step"
  echo "overhead; \`docs/model.md\`), fitted by Levenberg-Marquardt on log(predicted/measured)."
  echo "Leave-one-hardware-out refits the stack without a device (which parameters it fits is chosen"
  echo "on the remaining rows too) and predicts that device: the error to expect on hardware with no"
  echo "measurements."
  echo
  for s in llama.cpp llama.cpp-metal; do
    echo '```'
    fit_and_cv "$LODO/held-out-$s.csv" "${IN[@]}" --fit "$s"
    echo '```'
    echo
  done
  echo "### GPUs: the context lengths kept aside"
  echo
  echo "The same llama-bench runs at 1024 and 4096 tokens (\`$M/llamacpp-gpu-xd-judge.csv\`: the"
  echo "other half of the source's tables, read from its notebooks; 196 rows on the 50 GPU, count,"
  echo "model and format groups the fit sees at 512 and 8192), never fitted. Their devices are in the"
  echo "fit, so their error is the fitted rows' (above), not a new device's; what they check is how"
  echo "each prediction scales with context. d = ln(1 + error at 4096) - ln(1 + error at 1024) per"
  echo "configuration is 0 where the model scales as the engine does, whatever its error at either"
  echo "length (\`scripts/context-slope.py\`):"
  echo
  "$BIN" validate -i "$M/llamacpp-gpu-xd-judge.csv" -f csv | python3 scripts/context-slope.py --short 1024 --long 4096
  echo
  echo "Before llama.cpp's unfused attention was priced as its code runs (2026-12-07: every ubatch of"
  echo "512 queries against all cached keys; the score matrix's softmax and fp16/fp32 conversions as"
  echo "memory-bound kernels of their own at 24 B a pair and head on CUDA; \`docs/model.md\`), the"
  echo "CUDA prefill's mean d was +0.102 (median |d| 0.105): 10% too fast at 4096 tokens relative to"
  echo "1024, on 36 of the 37 configurations. The fitted rows' leave-one-device-out prefill median"
  echo "went from 14.5% (p90 38.3%) to the figure above; these rows' prefill median |error| went from"
  echo "12.2% to 13.0% and their p90 from 27.3% to 24.2%, decode 6.0% to 5.4% (CUDA and Metal"
  echo "together): what is left is each device's own error, which a kept-aside context length on a"
  echo "fitted device cannot remove:"
  echo
  "$BIN" validate -i "$M/llamacpp-gpu-xd-judge.csv" --summary-only -f md
  echo
  echo "### GPUs: more cards a run, and a card the fit never saw, kept aside"
  echo
  echo "The notebooks' other groups (\`$M/llamacpp-gpu-xd-judge-2.csv\`: 8B and 70B on 2 to 8"
  echo "cards with llama.cpp's default layer split, and one RTX 3080 Ti), pp and tg at 512 to 8192,"
  echo "never fitted:"
  echo
  "$BIN" validate -i "$M/llamacpp-gpu-xd-judge-2.csv" --summary-only -f md
  echo
  echo "Decode, one card after another, is within 5% (median). Prefill spreads the prompt's"
  echo "ubatches over the cards as a pipeline (\`prefill_chunk_tokens\` / \`prefill_batch_tokens\`, up"
  echo "to u S / (u + S - 1) of one card's rate), and the rows follow it for 8B on 2 to 8 cards and"
  echo "for 70B F16 on 4 to 6 (median |error| 6-22% by model, format and card count at 1024 tokens and"
  echo "more), but not for 70B Q4_K_M on four cards: measured, four H100 PCIe run the 4096-token"
  echo "prompt 1.3x as fast as one, where the pipeline would give 2.3x, and 8B Q4_K_M on the same four"
  echo "cards gets 2.5x, so the model is 84% fast there (median of 33 rows at 1024 tokens and more; +9%"
  echo "on six or eight cards). What stalls that pipeline (the prompt path of that build dequantises"
  echo "Q4_K to fp16 for cuBLAS) was not found; it is left unmodelled. The RTX 3080 Ti, which no fit"
  echo "has seen: prefill 10-13% slow, decode 6-15% fast."
  echo
  echo "### CPUs: llama.cpp per instruction family"
  echo
  echo "The CPU rates are fractions of the peak of the kernel family llama.cpp runs for each weight"
  echo "format (\`docs/model.md\`, CPU kernels): Q4_0/Q8_0 meet Q8 activations in VNNI or AVX2"
  echo "integer dot products, prefill in tiled kernels, decode in a dot loop whose issue rate limits"
  echo "few-thread runs, partly hidden under its loads (\`dot_memory_overlap\`). Fitted on the public"
  echo "CPU rows and the llama-bench ground truth measured on three 2-core VMs"
  echo "(\`data/measurements/xeon-amx-vm-2c-llamabench-amx.csv\` and \`-noamx.csv\`, a Xeon with llama.cpp"
  echo "built with and without AMX;"
  echo "\`data/measurements/epyc-zen5-vm-2c-llamabench.csv\`, an EPYC Zen 5;"
  echo "\`data/measurements/epyc-zen3-vm-2c-llamabench.csv\`, an EPYC Zen 3 with AVX2 and no AVX-512;"
  echo "1 and 2 threads); leave-one-device-out refits without each CPU and predicts it: the error to"
  echo "expect on a CPU with no rows (the VMs' rows, in the fit and out of it, with their calibration profiles:"
  echo "a calibrated machine without llama-bench rows)."
  echo
  echo '```'
  fit_and_cv "" "${CPU[@]}" --fit llama.cpp | grep -v '^gpu'
  echo '```'
  echo
  rows_md "${CPU[*]}" '^CPU-'
  echo
  rows_md "${CPU[*]}" '^CPU2-'
  echo
  rows_md "${CPU[*]}" '^LB'
  echo
  echo "Kept aside to judge, not fitted (\`cpu-llamacpp-judge.csv\`): an AMX run on a Xeon 8480"
  echo "engineering sample that the catalog's 8480+ stands in for (52 threads, clocks not stated)."
  echo "\`amx_gemm_fraction\` comes from the Xeon guest's Q8_0 and Q4_0 AMX rows; this row is Q4_K_M, whose"
  echo "AMX kernel (\`amx/mmq.cpp\`, the K-quant \`tinygemm_kernel_amx\`) stores each 32-weight"
  echo "sub-block's tile product and scales it in AVX-512 before accumulating, work the Q8_0/Q4_0"
  echo "kernel does not do and the model does not count."
  echo
  rows_md "${CPU[*]} -i $M/cpu-llamacpp-judge.csv" '^CPUJ'
  echo
  echo "Also kept aside (\`cpu-llamacpp-judge-2.csv\`): a Core Ultra 7 258V (Lunar Lake) at 4 threads on"
  echo "its P-cores. Its AVX-VNNI has no flag in the catalog's ISA list and its P-cores run far above"
  echo "the 2.2 GHz base the model takes, so fitted with the rest it would pull the dot-loop fractions."
  echo
  rows_md "${CPU[*]} -i $M/cpu-llamacpp-judge-2.csv" '^CPU2J'
  echo
  echo "#### Kept aside: the GCC build on the first Xeon guest"
  echo
  echo "Also kept aside (\`xeon-amx-vm-2c-gcc-judge.csv\`): the first Xeon guest's rows, a GCC build"
  echo "without AMX on an earlier machine of the same kind. They are judged as the calibration loop"
  echo "promises, with that machine's own \`calibrate --quick\` profile, taken 22 minutes before the"
  echo "rows (\`data/calibration/xeon-amx-vm-2c-first.*\`: 26.7 GB/s of DRAM at 2 threads and"
  echo "162 GFLOP/s of fp32 GEMM, where the later machine reads 30.8 and 200). Its clock was never"
  echo "timed: the entry carries the 2.6 GHz TSC calibrate fell back to, so the dot loop's cycles are"
  echo "priced at that clock. Until 2026-12-03 they were judged against the later machine's entry,"
  echo "which runs the same shapes 19-35% faster: decode 48% and prefill 60% (median, at 35be965)."
  echo
  "$BIN" validate "${CPU[@]}" -i "$M/xeon-amx-vm-2c-gcc-judge.csv" \
    --calibration data/calibration/xeon-amx-vm-2c-first.profile.yaml --summary-only -f md |
    grep -E '^\|( group|---| LB1? )'
  echo
  echo "The same ground-truth rows predicted by a stack fitted without them (the public rows only):"
  echo "what a CPU of a kind no public row covers gets. Few-thread decode is where the public rows,"
  echo "all at many threads and bandwidth-bound, say nothing about the dot loop."
  echo
  "$BIN" validate --data "$LODO" "${VM[@]}" --summary-only -f md
  echo
  echo "### The calibration loop on the three machines"
  echo
  echo "\`infercap calibrate --quick\` on each VM (\`data/calibration/<machine>.*\`), then"
  echo "\`predict --calibration\` for llama.cpp against \`llama-bench\` at 1 and 2 threads (targets:"
  echo "decode within 15%, prefill within 25%). \"without this machine's rows\": the stack fitted on the"
  echo "public rows and the other machines', the honest figure for a machine whose own llama-bench"
  echo "rows are not in the fit. The last table is a second Zen 5 session (2026-12-07, a quieter"
  echo "host), calibrated and measured there and never fitted (\`epyc-zen5-vm-2c-s2-judge.csv\`, profile"
  echo "\`data/calibration/epyc-zen5-vm-2c-s2.*\`): the loop as a user runs it. Its profile is the"
  echo "first \`calibrate --quick\` under that name, which rejected its 2-thread DRAM point as noisy"
  echo "and read 48 GB/s on one thread; three later runs kept it and read 109-111 GB/s at 2 threads,"
  echo "and with any of them the same rows come to prefill 10 of 12 and decode 5 of 12 (1-thread Q4_0"
  echo "and Q8_0 decode 19-31% slow, BF16 decode +34% at 1 thread and +70% at 2: llama.cpp's F16 and"
  echo "BF16 decode read 60 and 52 GB/s at 2 threads, half that stream; docs/calibration.md)."
  echo "The table after it is a third session (\`-s3\`, 2026-12-07 12:09-12:16 UTC, after F16's prefill"
  echo "fraction was fitted on the first session's rows): \`calibrate --quick\` read 103.6 GB/s at 2"
  echo "threads before the rows and 54.5 GB/s when run again after them, and with either profile"
  echo "decode is 4 of 12 within 15% (its 2-thread decodes differ from the second session's by -19% to"
  echo "+16%), prefill 12 of 12."
  echo
  echo "$LOOP"
  echo
  echo "Seed claims on the catalog's xeon-8462yp (AMX, 2 sockets) as a check of the CPU model: F16"
  echo "prefill and the AMX tiles' fraction come from the local ground truth (the Xeon guest's AMX"
  echo "rows), and a second socket adds 20% to the prompt rate (\`cross_socket_compute_fraction\`,"
  echo "from a public 1- vs 2-socket llama-bench run; before it, the two sockets counted as 2x and the"
  echo "TTFTs were 51-69% short). The Q8_0 TTFTs, the AMX tiles' prefill over 64 cores of an"
  echo "unnamed CPU and framework, are the ones still far off:"
  echo
  rows_md "${CPU[*]}" '^SEED-0(0|1)'
  echo
  echo "### Accuracy with the fitted stacks"
  echo
  "$BIN" validate "${IN[@]}" --summary-only -f md
  echo
  echo "## 3. What the seed article's own figures imply"
  echo
  echo "A decode speed implies a bandwidth: tokens/s x bytes streamed per token (weights + KV at the"
  echo "mean context). Seed 000 §2.1 says a dual-socket DDR5 server gives \"200 GB/s and more, flagship"
  echo "platforms near 400 GB/s\" and sizes a 7B FP16 model at 14 GB over 250 GB/s (15-20 passes a"
  echo "second). Its own table (§2.2) then claims 28-35 tokens/s for that model: the implied column"
  echo "below shows what that costs. Against the catalog's 32-core dual-socket DDR5-4800 server"
  echo "(\`xeon-8462yp\`, 2 x 307 GB/s; the article names no CPU, so the mapping is an assumption),"
  echo "the claims are possible only at 70-75% of peak; against the article's own 250 GB/s they are not"
  echo "possible at all."
  echo
  "$BIN" validate "${IN[@]}" -f csv | awk -F, 'NR==1 || ($1 ~ /^SEED-/ && NF >= 12)' | awk -F, -v OFS=' | ' '
    NR==1 {print "| id | model | precision | metric | measured | predicted | error | implied bandwidth GB/s | of catalog peak | of the article'"'"'s 250 GB/s |"; print "|---|---|---|---|---|---|---|---|---|---|"; next}
    $1 == "" {exit}
    {imp = ($11 == "" ? "-" : sprintf("%.0f", $11/1e9)); fr = ($12 == "" ? "-" : sprintf("%.0f%%", $12*100)); art = ($11 == "" || $2 !~ /xeon/ ? "-" : sprintf("%.0f%%", $11/250e9*100));
     print "| " $1, $4, $5, $6, $8, sprintf("%.3g", $9), sprintf("%+.0f%%", $10*100), imp, fr, art " |"}'
  echo
  echo "The GPU claim (SEED-020, 90-110 tokens/s for a 7B FP16 model on an \"A-class\" datacenter GPU"
  echo "with a \"mainstream GPU inference framework\") implies about 1.32 TB/s: 68% of an A100 PCIe's"
  echo "1.94 TB/s, reachable by a CUDA-graph stack such as vLLM, beyond what llama.cpp reaches on that"
  echo "card (the fitted llama.cpp stack predicts 63 tokens/s: issue-limited on 108 SMs at 1.41 GHz),"
  echo "and impossible on an A10 (600 GB/s). Row SEED-020 is predicted with llama.cpp because the"
  echo 'article names no stack; `--stack vllm` predicts it within the article'"'"'s range.'
  echo
  echo "## 4. Serving stacks: vLLM, TensorRT-LLM, PyTorch"
  echo
  echo "Static-batch rows (a batch of requests started together: \`ttft\`, \`tpot\`/\`itl\`,"
  echo "\`e2e_latency\`, \`static_output_tokens_per_s\` = batch x output / end-to-end latency; formulas"
  echo "in \`core/include/infercap/predict.hpp\`) fit each serving stack's GPU physics: fractions of"
  echo "achievable weight and KV bandwidth and of tensor throughput, the per-kernel launch cost (per"
  echo "layer: kernels x cost) and the per-step overhead. Which of these a stack's rows determine is"
  echo "chosen from the rows (\`core/include/infercap/stack_fit_params.hpp\`): a parameter is fitted"
  echo "when the predictions move with it (rms d ln t / d ln p >= 0.05) and that movement is not"
  echo "already explained by the parameters chosen before it; then each parameter left out is tried"
  echo "on the fit itself and kept when it lowers the Bayesian information criterion by more than 2"
  echo "(an overhead whose start value made it look small). The fit prints each candidate's"
  echo "sensitivity at the start values. Leave-one-hardware-out refits without a device, choosing"
  echo "the parameters again from the other devices' rows, and predicts it. The fits below start from"
  echo "the committed (already fitted)"
  echo "stacks, so before and after agree; the fit from the estimates is in each stack's provenance."
  echo
  echo "Inputs: \`data/measurements/vllm-static-public.csv\` (vLLM's buildkite latency tests on H200,"
  echo "A100 and H100), \`trtllm-static-public.csv\` (TensorRT-LLM v0.9.0's static-batch tables on H200,"
  echo "H100, L40S, A100, dense models), \`pytorch-public.csv\` (gpt-fast on A100, TP 1-8; torchao's"
  echo "batch-1 tables on A100 and H100 in bf16, int8 and int4 weight-only). pytorch-cuda-graph's"
  echo "leave-one-out figure is its three H100 rows (without them the A100 rows fit the stack; without"
  echo "the A100 rows three rows are too few for its parameters, so A100 has no held-out figure)."
  echo "Weight-only int8 and int4 GEMVs convert every weight to bf16 before the multiply-add, so they"
  echo "are priced with the stack's per-weight issue cost (\`quantised_issue_cycles_per_weight\`,"
  echo "\`converts_weights\` in \`core/include/infercap/precision.hpp\`) as well as their bytes: on an"
  echo "A100 torchao's int4 reads its weights at 34% of the datasheet bandwidth where bf16 reads at 70%."
  echo
  for e in "${FITS[@]}"; do
    echo "### ${e%%:*}"
    echo
    echo '```'
    "$BIN" validate -i "${e#*:}" --fit "${e%%:*}" --cross-validate \
      --residuals-out "$LODO/held-out-${e%%:*}.csv"
    echo '```'
    echo
    rows_md "-i ${e#*:}" '.'
    echo
  done
  echo "### tensorrt-llm-0.9: Mixtral 8x7B, kept aside"
  echo
  cat <<'TXT'
Kept aside to judge, not fitted (`trtllm-static-moe-judge.csv`): the same page's Mixtral 8x7B
rows, predicted with the fractions the dense rows fit. Dense and expert GEMMs share those
fractions; one mechanism differs, stated and not fitted: v0.9's MoE layers had no FP8 path (FP8
for Mixtral came with v0.10.0, its release notes), so on the FP8 rows the experts stream 16-bit
weights at the fp16 tensor rate (`fp8_expert_gemm: false` in `tensorrt-llm-0.9.yaml`). That
moves the compute-bound rows on H100, H200 and L40S (2048-token prompts, 128/128 tokens
at batch 512-1024) towards the page, which the FP8 pricing had 1.4-2.7x too fast; the A100
rows are FP16 and do not move. The routing is the benchmark's, not Mixtral's: the page builds
its engines from a config file without a checkpoint (`trtllm-build --model_config`; "If no
checkpoint directory is specified, TensorRT-LLM will build engine(s) with dummy weights",
examples/mixtral/README.md) and gptSessionBenchmark feeds random token ids. TensorRT-LLM fills weights no checkpoint sets with
`Parameter.xavier_init`, `(torch.randn(shape) * 2 - 1) * v_range` (tensorrt_llm/parameter.py,
the same in v0.7.1 and v0.10.0.dev2024043000, either side of v0.9.0; the rows' notes cite both):
a normal of mean -v_range, not the zero-mean range its comment names. That common mean adds one
large component along the all-ones direction to every matrix product, so after the first layer
every token's hidden state points the same way and the router sends all tokens of a step to the
same 2 experts. `scripts/moe-routing-collapse.py` runs Mixtral's shapes with that initialiser:
from the first layer on the mean cosine between tokens is 1.0000 and 16 tokens pick one pair of
experts per layer, whether they share a sequence or each has its own (a decode batch); with a
zero-mean U[-v_range, v_range] draw instead, 16 separate tokens pick 7-8 of the 8 experts. The
rows say so (`moe_routing: same_experts`), and the model then streams 2 experts' weights per
layer at any batch (`MoeRouting::same_experts`, `core/src/perf.cpp`), where uniform top-2
routing would read all 8 once a few tokens are in flight. That is what the memory-bound rows
needed: the 128-token TTFT rows were 57-138% too slow with 8 experts read (A100 batch 1: 23.8 ms
measured, 96% of peak bandwidth to read all the weights once) and are now within -26% to +8%;
the 2048/2048 rows at batch 32-64 (TRTS-012/032/052/072) were 22-59% too slow and came within
-12% to +31% (-12% to +25% with the kernels below). The prefill median fell from 47% to 19%.
What the routing does not touch, the large-batch FP8 rows on H100 and H200 (128/128 at batch
512-1024, 2048/128 at batch 64, 128/2048 at batch 128-256), it left 36-71% fast. A second
mechanism, also stated and not fitted, is why: v0.9's MoE plugin runs its expert GEMMs as CUTLASS
2.x grouped GEMM instantiated for Sm80 on every GPU from Ampere on. Its arch dispatch reads `else
if (sm_ >= 90) { // TODO Update the arch to Sm90 once CUTLASS hopper specialisations are
available` and calls the `cutlass::arch::Sm80` kernels (moe_gemm_kernels_template.h at 250d9c2,
the tensorrt_llm commit that tensorrtllm_backend's v0.9.0 tag pins; the Hopper MoE GEMM first
appears at 66ef1df, after the release). Those kernels issue `mma.sync`, which on Hopper "can only
reach about 2/3 the peak throughput of Hopper Tensor Cores" (FlashAttention-3's authors,
pytorch.org/blog/flashattention-3, citing Luo et al., arXiv 2402.13499): Hopper reaches its peak
only through `wgmma`. The Hopper entries state `mma_sync_peak_fraction: 0.667` and the stack
`expert_gemm_mma_sync: true`, so the experts run at 2/3 of the fp16 rate there. The H100 and H200
throughput rows move to -12% to +38% (medians 16% and 25%), their 2048-token TTFT rows from -38%
to -14% and -16%; the prefill median of the kept-aside rows (8) falls from 19% to 12%, their
throughput median (16) from 33% to 21%. Dense GEMMs go through TensorRT's own tactics, which have
Hopper kernels; the fitted fractions cover them. L40S (Ada has no `wgmma`: `mma.sync` is its
native path) and A100 do not move, so L40S's rows stay 27-34% fast and A100's TRTS-070 +57%; what
else those engines lose is not stated in any source read, and nothing is fitted to them.
TXT
  echo
  "$BIN" validate -i "$M/trtllm-static-moe-judge.csv" --summary-only --by-device -f md
  echo
  rows_md "-i $M/trtllm-static-moe-judge.csv" '.'
  echo
  echo "### pytorch (eager)"
  echo
  cat <<'TXT'
Eager PyTorch's GPU overhead is derived, not fitted: the CPU dispatch of one aten op is
gpt-fast's own eager (25.5 tok/s) minus compiled (107.0 tok/s, static KV cache) time per token
on an A100, spread over the 2591 ops an eager token dispatches in gpt-fast's model.py: 11.5 us
an op, 0.92 ms a block (`data/stacks/pytorch.yaml`); the weights stream at the CUDA-graph
stack's fraction, the same kernels. PT-001 sets that figure and is no longer a check.
TXT
  echo
  rows_md "-i $M/pytorch-public.csv" '^PT-001$'
  echo
  echo "### pytorch: a rejected source (not the model)"
  echo
  cat <<'TXT'
`pytorch-rejected.csv` holds the two rows read from https://cloudai.pt/tag/cuda-graphs/ (Llama
3.1 8B on an H100 SXM5: 8.4 ms a decode step eager, 5.1 ms as a CUDA graph), kept out of every
fit and summary. The page cites no measurement of its own ("Spheron, 2026", "Fireworks AI") and
names no implementation, batch, context or dtype, and a primary measurement contradicts it:
torchao's H100 table (PT-021) gives the same model in bf16 at 126.9 tok/s, 7.88 ms a step,
compiled with CUDA graphs at batch 1. The page's eager step would be 7% slower than that
compiled one, and its 5.1 ms graph step needs 3.15 TB/s, 94% of the datasheet bandwidth, where
torchao's reads at 57% and no decode row in our data reads more than 89% (llama.cpp's fp16 on
an RTX 4090, GDDR6X). Predicted as the rows state:
TXT
  echo
  rows_md "-i $M/pytorch-rejected.csv" '.'
  echo
  echo "### Serving runs"
  echo
  echo "Serving runs: TensorRT-LLM's performance overview from v0.10 on (TRT: offline maximum"
  echo "throughput, every request queued at once), NVIDIA NIM's published concurrency sweep (NIM:"
  echo "closed loop at N clients, mean TTFT, per-request TPOT and output tokens/s), SGLang's"
  echo "\`bench_serving\` runs (SGL: Poisson rates as finite runs, and offline), InferenceX's"
  echo "DeepSeek-R1 points (IX: closed loops of N clients as finite runs) and MLPerf Inference"
  echo "(MLP: Offline and Server), with the static-batch rows above for comparison. Serving rows run"
  echo "through the serving simulator at the row's setting"
  echo "(N clients, a Poisson rate, or everything queued), with the engine defaults of"
  echo "\`ServingCaseDefaults\` where a row states no limit; \`tpot_*\` rows are per request, \`itl_*\`"
  echo "rows every token gap pooled. Serving rows judge the serving model with the fitted stacks and"
  echo "are never fitted. Prompts are chunked into each step's token budget, as the vLLM and"
  echo "TensorRT-LLM stacks state (\`prompt_schedule\`; SGLang's below), except on the MLPerf v4.1 rows,"
  echo "whose harness runs TensorRT-LLM"
  echo "without chunked context (their \`chunked_prefill\` column): there each prompt runs whole"
  echo "behind the step's decodes, and these rows move by under 0.04 (prompts of at most 1,024 tokens"
  echo "against 4,096 a step). Run whole on every TensorRT-LLM row (measured before the MLPerf outputs"
  echo "carried their spread, below), the NIM sweep's TTFT mean would go"
  echo "from 12.9% to 10.9% median error and all serving TTFT means from 25.3% to 16.6%, but MLPerf"
  echo "v5.0's H100 TP1 x PP2 rows would fall 46-59% short on TTFT, TPOT and e2e (within 1,024 tokens a step"
  echo "a whole prompt rarely finds room beside the decodes, so far fewer requests run than the"
  echo "1,102 the Server log holds in flight: that engine chunked), and trtllm-bench's 20,000-token"
  echo "rows would run one request at a time (a prompt as long as the budget never meets a decode)."
  echo "NIM's setting is not published, so its rows keep the stack's."
  echo "Error per source, metric and device:"
  echo
  "$BIN" validate "${SERVE[@]}" --summary-only --by-device -f md
  echo
  rows_md "${SERVE[*]}" '^(TRT|NIM)-'
  echo
  echo "The NIM sweep (Llama 3.3 70B FP8, TP2 on two H100, 5000 prompt / 500 output tokens, genai-perf"
  echo "keeping N requests outstanding) runs through the simulator as N closed-loop clients whose next"
  echo "request reaches the engine only after the engine has scheduled its next step"
  echo "(\`SimOptions::closed_loop_round_trip\`, \`docs/serving.md\`): a real client's round trip (response,"
  echo "HTTP, tokenising 5000 tokens) takes milliseconds, an in-flight batching engine starts its next"
  echo "step at once. With fixed lengths the clients then lock into trains in which each request but the"
  echo "first waits for its predecessor's whole 5000-token prefill, so TTFT at 5-50 clients is"
  echo "over-predicted by 20-45%; with a zero round trip (the earlier model) the trains run without"
  echo "collisions and the same rows were under-predicted by 18-37%. The measured TTFT lies between the"
  echo "two deterministic limits: real runs break the trains in part, which a deterministic simulator"
  echo "without a jitter no source states does not do. No lone client and no saturated row moves."
  echo
  echo "Past the knee TTFT is the queue: (N - running) / completion rate + prefill. The published rows"
  echo "give the running count by Little's law, output tokens/s x TPOT = 85-86 sequences at 100-250"
  echo "clients; the model's KV cache holds 97 (FP8 KV, 80 KiB per token per device, 44 GB free per"
  echo "device after 35.3 GB of FP8 weights, 1 GB of activations and the stack's 5.4 GB reserve). The"
  echo "11 sequences, about 5 GB per device, are what NIM-013 (100 clients) misses: 2.6 s predicted"
  echo "against 8.0 s. Part is the BF16 embedding and lm_head a ModelOpt FP8 checkpoint keeps (up to"
  echo "2 GB per device at TP2, counted as FP8 here), part TensorRT-LLM's activation workspace for its"
  echo "token budget and runtime buffers; no source read states them, so nothing is fitted."
  echo "FP8 TensorRT-LLM rows take ModelOpt's FP8 KV cache (\`kv_cache_quant_algo\`). The same rows"
  echo "with a BF16 KV cache instead (a check of that reading, not a fit): half the sequences fit (48),"
  echo "the knee falls to 50 clients, and past it throughput is 24% and TPOT 28% below the published"
  echo "figures:"
  echo
  python3 - "$M/serving-nim.csv" "$LODO/nim-bf16kv.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
for r in rows:
    r["kv_precision"] = "BF16"
with open(sys.argv[2], "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
  # A rejected reading, not a prediction of the model: its table is named so, and its groups are
  # not the model's error.
  "$BIN" validate -i "$LODO/nim-bf16kv.csv" --summary-only -f md |
    sed 's/^### summary of .*/### the rejected BF16-KV reading (not the model): \\|predicted \/ measured - 1\\|/'
  echo
  echo "The TensorRT-LLM rows are finite runs: the page's \`\$num_requests\` (1000 to 30000) queued at"
  echo "once, throughput over the whole run, as \`trtllm-bench\` reports it; the simulator runs the same"
  echo "count and admits as TensorRT-LLM's default GUARANTEED_NO_EVICT scheduler does (a request only"
  echo "when its whole sequence's KV blocks are free), with ModelOpt's FP8 KV cache for these FP8 rows."
  echo "Decode-heavy runs (outputs of 2048 tokens and more from short prompts) are over-predicted by"
  echo "15-25%, most on the 70B TP2 H100 rows; prefill-heavy runs (2048 / 128 and 5000 / 500 tokens)"
  echo "are under-predicted by 9-13%; the 405B rows are within -5% to +17%."
  echo
  echo "The NVFP4 rows (TRT-061 to TRT-100: Llama 3.3 70B at TP1 and Llama 3.1 405B at TP4 on B200 and"
  echo "GB200) run W4A4 GEMMs on the fp4 roof at the stack's \`fp4_gemm_compute_fraction\`, 0.52, which"
  echo "is derived from vLLM's B200 kernel benchmark, not fitted (\`data/stacks/tensorrt-llm.yaml\`: an"
  echo "NVFP4 GEMM reaches 0.67 of the share of its roof that a BF16 GEMM reaches). At the stack's FP8"
  echo "share instead (0.7466 then) the compute-heavy rows came out 25-37% fast. The quantisation-inclusive"
  echo "share vLLM's own linear reaches (0.54 of BF16's) was tried too and puts these rows about 20%"
  echo "low; the GEMM-only share was kept because TensorRT-LLM fuses the quantisation into neighbouring"
  echo "kernels, a choice made after seeing both (0.50 then; 0.52 = 0.67 x the GEMM fraction refitted"
  echo "with \`gemm_overlap_norm_p\`). The 405B rows land within -12% to +9%, the 70B TP1 rows within"
  echo "0% to -33%, lowest on the decode-heavy ones (128 / 4096, 2048 / 2048, 20000 /"
  echo "2000). The page does not state the KV format: these rows keep a 16-bit cache (no FP8 rule for"
  echo "NVFP4 checkpoints, whose exports state kv_cache_quant_algo either way); read with an FP8 cache"
  echo "the same decode-heavy rows would be 25-42% fast, so the format, not the GEMM rate, is their"
  echo "open question."
  echo
  echo "The RTX 6000 Pro Blackwell Server Edition rows (TRT-101 to TRT-146: Llama 3.3 70B NVFP4 on 1,"
  echo "2, 4 and 8 cards as TP1 x PP1-8, Llama 3.1 405B on 8 as TP1 x PP8; PCIe, no NVLink) are read on"
  echo "the catalog's Workstation Edition entry, whose GB202, 188 SMs and 1792 GB/s the three variants"
  echo "share (their clocks may differ). They test the pipeline reading above: the page's 128 / 128"
  echo "throughput grows 1.89x from 1 to 2 cards, 1.56x from 2 to 4 and 1.23x from 4 to 8, where the"
  echo "simulator, which prices no pipeline bubble, doubles it at every step. So one card is 26-43%"
  echo "low (the 16-bit KV reading again: the FP8 one would hold twice the sequences), two cards 21-40%"
  echo "low, four from -31% to +1%, and eight from -23% to +63%, fastest where prompts are short; the"
  echo "405B rows at PP8 are 20-33% low. Beyond two stages on PCIe the model's PP scaling is an upper"
  echo "bound."
  echo
  echo "SGLang (SGL, kept aside to judge; \`data/measurements/serving-sglang.csv\`): \`sglang.bench_serving\`"
  echo "runs published as JSON lines (datacrunch-research/h200-benchmarks @ c091ef5, December 2024,"
  echo "SGLang v0.4 without radix cache): Llama 3.3 70B BF16 at TP4 on four H200 and Llama 3.1 405B BF16"
  echo "at TP8 on eight, random prompts and outputs uniform up to 1,024 tokens (32 points each). A rate"
  echo "row is a finite run (its \`requests\`: 300 to 3,200 Poisson arrivals, every one counted, tokens"
  echo "over the run's wall time, as the client reports them; \`docs/serving.md\`), so the overloaded"
  echo "runs (70B at 8 and 16 requests/s, 405B at 4 and 8) are read as the queue they built, not"
  echo "refused. The \`sglang\` stack runs vLLM's fitted GPU figures but for the step overhead (below; no"
  echo "SGLang row is fitted) with SGLang's prefill-first scheduler (\`prompt_schedule:"
  echo "whole_prompt_steps\`) and its one-step-ahead batches (\`overlap_scheduling\`); each row states the"
  echo "running-request limit, prefill budget and memory share (\`memory_fraction\`: 0.85 at TP4, 0.81"
  echo "at TP8) SGLang's defaults give its deployment:"
  echo
  rows_md "-i $M/serving-sglang.csv" '^SGL-'
  echo
  echo "At light load (1 and 2 requests/s) the throughputs follow the arrivals (-5% to +4%). On 70B the"
  echo "decode step and the end-to-end latency are within 5% (median ITL +4% and -1%, end to end -1% to"
  echo "+3%, means and medians); on 405B both are 18-24% long. The stack's step overhead is 0 where"
  echo "vLLM's fit has 2.4 ms: that host time a step is what SGLang v0.4's zero-overhead scheduler"
  echo "overlaps with the step before (\`data/stacks/sglang.yaml\`; with vLLM's 2.4 ms these 70B rows"
  echo "were 16-22% long, the 405B ones 25-33%). The 405B's longer step is mostly the tensor-parallel"
  echo "all-reduce: the model prices a ring, 2 (TP - 1) link latencies of 5 us each, twice a layer"
  echo "(17.6 ms of its 46.9 ms step at TP8), where SGLang, like vLLM, runs a one-shot custom all-reduce"
  echo "for small messages over NVLink. With vLLM's one-shot kernels priced instead (2 link latencies a"
  echo "reduction) the vLLM static fit degenerates (weight bandwidth at its bound of 1.0, a GEMM"
  echo "fraction of 0.34), so the ring stays. The median TTFT counts the same scheduler: it forms each"
  echo "batch while the step before runs, so a request that arrives during a step waits one step more"
  echo "(the stack's \`overlap_scheduling\`, \`docs/serving.md\`; without it these TTFTs were 24-44%"
  echo "short). At 1 and 2 requests/s the 405B's are then within -5% to 0% and the 70B's 23-27% short"
  echo "(63 ms predicted against 86 ms): what the client adds beyond the engine's steps, HTTP,"
  echo "tokenising and detokenising, is not priced. With about 50 sequences running (70B at 4"
  echo "requests/s) the real step has grown more than the model's (median ITL 19.4 ms against 15.8,"
  echo "-19%; end to end -25%), and at 8 requests/s the engine was overloaded (3,515 output tokens/s"
  echo "against 4,064 offered; median ITL 71 ms) where the model still keeps up (3,891; 22.6 ms), so its"
  echo "end-to-end latency is 68% short; at 16 requests/s both are overloaded and the model's throughput"
  echo "is 30% high. Offline, the model is 7-17% fast at prompts of up to 1,024 tokens and 33-40% fast at"
  echo "4,096: its decode steps at a few hundred sequences are shorter than SGLang's (the 1,024 / 1,024"
  echo "offline run's median ITL is 159 ms at the hundreds of sequences its KV pool holds). The 405B"
  echo "runs hold a KV pool of about 0.33 M tokens a GPU; at 4 and 8 requests/s they are KV-bound: end"
  echo "to end -22% and -2%, median ITL -20% and -42%, TTFT -17% and +19% (the queue), throughputs"
  echo "within 3%."
  echo
  echo "#### InferenceX: DeepSeek-R1 on B200, H200, MI300X and MI325X"
  echo
  echo "InferenceX (IX, kept aside to judge; \`data/measurements/serving-inferencex.csv\`, from the"
  echo "JSON its dashboard serves, SemiAnalysisAI/InferenceX-app @ 3a600f1): DeepSeek-R1-0528 in FP8"
  echo "(the catalog's deepseek-v3: 671 B parameters, 256 routed experts, MLA) on one server of 8 B200"
  echo "(TensorRT-LLM 1.2.0rc6 and SGLang v0.5.9), 4 B200 (both), 8 H200 (SGLang) and 8 MI300X and 8"
  echo "MI325X (SGLang on ROCm), and in NVFP4 on 4 and 8 B200 (TensorRT-LLM 1.1.0rc2 and 1.2.0rc6; the"
  echo "checkpoint's experts are W4A4 and the rest FP8, predicted all NVFP4), 4 to 128 clients at 1k/1k,"
  echo "1k/8k and 8k/1k tokens. Each point is a"
  echo "finite closed loop (\`requests\` = 10 x the clients, every request counted over the run's wall"
  echo "time, its first wave and its drain included; \`docs/serving.md\`) with the engine limits the"
  echo "run's own script passed (the InferenceX commit is in each row's notes). Only runs without"
  echo "expert parallelism or DP attention are rows: the November 2025 runs publish ep 1 by default"
  echo "while their scripts ran EP = TP, so they are left out, as is MI355X, which the catalog lacks."
  echo "The model has never seen this model, an MoE with compressed (MLA) attention (each cell:"
  echo "measured / predicted (error); the rows are in the file, IX-001 to IX-505):"
  echo
  "$BIN" validate -i "$M/serving-inferencex.csv" -f csv >"$LODO/ix.csv"
  # One line a point: its setting, then measured / predicted (error) for each metric.
  python3 - "$M/serving-inferencex.csv" "$LODO/ix.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
out = {r["id"]: r for r in csv.DictReader(open(sys.argv[2], encoding="utf-8"))}
metrics = [("output_tokens_per_s", "output tokens/s"), ("ttft_median", "TTFT median s"),
           ("ttft_mean", "TTFT mean s"), ("tpot_mean", "TPOT mean ms"),
           ("e2e_latency_mean", "e2e mean s")]
points = {}
for r in rows:
    key = (r["hardware"], r["stack"], r["precision"], r["tp"], r["input_len"], r["output_len"],
           r["batch"], r["notes"].split(" of 20")[1][:8] if " of 20" in r["notes"] else "")
    points.setdefault(key, {})[r["metric"]] = out[r["id"]]
print("| device | stack | run | weights | TP | in / out | clients | " +
      " | ".join(name for _, name in metrics) + " |")
print("|" + "---|" * (7 + len(metrics)))
for key, m in points.items():
    hw, stack, prec, tp, isl, osl, conc, day = key
    cells = []
    for metric, _ in metrics:
        o = m.get(metric)
        if o is None:
            cells.append("-")
            continue
        scale = 1000.0 if metric == "tpot_mean" else 1.0
        meas, pred = float(o["measured"]) * scale, float(o["predicted"]) * scale
        cells.append(f"{meas:.3g} / {pred:.3g} ({float(o['error']):+.0%})")
    print(f"| {hw} | {stack} | 20{day} | {prec} | {tp} | {round(float(isl))} / {round(float(osl))} | "
          f"{conc} | " + " | ".join(cells) + " |")
PY
  echo
  echo "On NVIDIA GPUs the decode side holds: in FP8, output tokens/s, mean TPOT and mean end-to-end"
  echo "latency are within 15-18% median (50 points each), the model 11-14% long: TensorRT-LLM's"
  echo "PyTorch backend, which these runs use (stack \`tensorrt-llm-pytorch\`; MLPerf's runs, on"
  echo "TensorRT engines, stay on \`tensorrt-llm\`), runs a step that takes in a prompt (a mixed step)"
  echo "without CUDA graphs, so it pays the host floor below, and its running sequences wait for it"
  echo "(B200 TP4 SGLang, four points with 32 running"
  echo "sequences, is the worst the other way: end to end 41% short). In NVFP4 within 3-4% at TP4"
  echo "(12 points), but at TP8 the model's decode is 37% long (9 points, 4 to 32 clients): with a"
  echo "4.5-bit model spread over eight GPUs a step is mostly its 122 all-reduces, which the model"
  echo "prices as a ring of 2 (TP - 1) link latencies of 5 us each, 70 us apiece, where TensorRT-LLM's"
  echo "one-shot kernels take a fraction of that (its TP8 step at 4 clients is 7.1 ms in all). NCCL's"
  echo "own cost model (baseLat 6.6 us + 2 (TP - 1) x 0.6 us over NVLink, nccl src/graph/tuning.cc)"
  echo "was tried instead and dropped: with every stack fitted on the ring's figure, it made the FP8"
  echo "B200 TP8 rows 57% fast and the SGLang 70B TP4 ones 38% short end to end. On MI300X and MI325X"
  echo "SGLang runs its ROCm build (AMD's aiter kernels, RCCL, HIP graphs), its own stack"
  echo "\`sglang-rocm\` (\`vendors: [amd]\`; \`sglang\` now names NVIDIA): SGLang's figures but for the"
  echo "cost of a kernel in a decode step, 13 us where CUDA graphs cost SGLang about nothing, derived"
  echo "from one reading, MI325X's mean TPOT of 24.08 ms at four clients and 1k/1k (IX-079), over the"
  echo "970 kernels the model counts in that step (\`data/stacks/sglang-rocm.yaml\`). With NVIDIA's"
  echo "figures the model was 1.8x too fast on both devices (throughput +82%, TPOT -45%): a step"
  echo "with four sequences takes 24-25 ms there where the H200's takes 10 ms on less bandwidth. The"
  echo "one figure carries MI325X's decode from 4 to 64 clients (mean TPOT within 5% median, 26% at"
  echo "worst, at 8k/1k and 64 clients) and MI300X, a device it never saw: output tokens/s 16%,"
  echo "mean TPOT 13%, mean end to end 14%, median TTFT 14% (medians over its 15 points each)."
  echo
  echo "TTFT: both engines run a step that carries prompt tokens without CUDA graphs (only decode steps"
  echo "are captured), so the host launching DeepSeek's many small kernels one by one, not the GPU,"
  echo "sets a short prompt's step. The stacks price it (\`prefill_launch_overhead_s\`, \`docs/model.md\`)"
  echo "from eager measurements that are not these rows: SGLang's one-token DeepSeek-V3 forward, 82.64"
  echo "ms eager against 23.10 ms as a graph (sglang #12160), and TensorRT-LLM's batch-1 TTFT of"
  echo "DeepSeek-R1 at 1,600 tokens, 0.165 s on 8 x H200 in FP8 and 0.161 s on 8 x B200 in FP4, the same"
  echo "where the GPUs differ twofold (TensorRT-LLM #5929). With it the median error of the median TTFT"
  echo "over all points is 25% (54% before) and of the mean 36% (61%); by device and engine 9-35% for"
  echo "the median (34-67% before): B200 TensorRT-LLM 20%, within 8 ms at 1k-token prompts and 4"
  echo "clients. What is left: SGLang on H200 and B200 is 35-65 ms short at 1k-token prompts,"
  echo "at 4 clients as at 64, a per-request time outside the steps (HTTP, tokenising, the hand-offs"
  echo "between the engine's processes) that the SGLang figure, taken from the forward alone, does not"
  echo "hold; the TensorRT-LLM figure, taken from a whole TTFT, holds its own, so it is an upper bound"
  echo "of the launches. Where TensorRT-LLM's script replays prompt steps as piecewise CUDA graphs (the"
  echo "rows' \`prefill_cuda_graphs\`: 1k/1k and 8k/1k from 64 clients, 1k/8k from 128), the host"
  echo "launches only the attention pieces, and the 1k/8k point at 128 clients is 57 ms short, that"
  echo "same per-request time. Prompts of 8k tokens take 1.0-1.3x the predicted median TTFT (4 to 32"
  echo "clients) in NVFP4 and on H200, 1.6-2.4x on B200 in FP8 and 1.2-1.8x on AMD; TensorRT-LLM"
  echo "#5929's 8,192-token TTFTs are 2.4x the prediction too, so the model prices this model's long"
  echo "prefill short in FP8. (B200 TP4 TensorRT-LLM at 8k/1k and 32 clients measures a 5.2 s median"
  echo "TTFT, a queue the model does not form at 0.2 s; not explained here.)"
  echo "TensorRT-LLM's 1k/1k runs from 64 clients also delay"
  echo "batching (\`batch_wait_timeout_iters\` 40, \`batch_wait_max_tokens_ratio\` 0.8: the rows'"
  echo "\`prompt_wait_steps\` and \`prompt_wait_tokens\`, \`docs/serving.md\`): a prompt waits 40 decode steps"
  echo "for others to share its eager step, 0.60 s measured and 0.52 s predicted at 64 clients (0.05 s"
  echo "without the waiting), 0.53 s and 0.40 s at 128. The SGLang runs on B200 and AMD poll for new"
  echo "requests only every few decode steps (\`--scheduler-recv-interval\` 10 below 16 clients and 30"
  echo "from 16 on B200 TP8, 10 at TP4; \`--num-continuous-decode-steps 4\` on MI300X and MI325X), which"
  echo "the rows state (\`request_poll_steps\`, \`docs/serving.md\`): before the host floor, B200 TP8"
  echo "SGLang's median TTFT was 87% short without it and 39% with it (MI300X and MI325X: 65% and 54%"
  echo "without, 45% and 34% with). The engines stream 10 or 30 tokens a chunk, which is why no ITL row"
  echo "is kept. The mean TTFT also carries a slow tail (means 1.0-4.6x the medians, 1.9x typical),"
  echo "and most of it is the first wave: a run's \`conc\` clients send their first requests at once"
  echo "when the timer starts, and if the other nine tenths of its requests took the median, that"
  echo "wave's would take 10 x mean - 9 x median. At 1k-token prompts and 4 to 8 clients that is"
  echo "0.23-0.40 s on B200 (SGLang and TensorRT-LLM alike: a few prefills of the wave's prompts) but"
  echo "1.1-1.2 s on H200 and 1.9-4.8 s on MI300X and MI325X, rising to 2.6 s and 7.3 s at 64"
  echo "clients: what a stall once a run, after the warm-up requests and unseen by later waves, would"
  echo "give, far longer than any prefill of the wave's 4,000-8,000 tokens. The model runs the first"
  echo "wave like any other, so its mean TTFT on those devices is short by that stall over ten waves;"
  echo "the medians, which it does not touch, are the figures to judge TTFT by on these rows."
  echo
  echo "#### MLPerf Inference"
  echo
  echo "MLPerf Inference (MLP: v3.1 and v4.1, MLP5: v5.0, kept aside to judge): NVIDIA's closed"
  echo "TensorRT-LLM submissions of Llama 2 70B (OpenOrca, 24,576 samples), each with the parallelism,"
  echo "batch limit and precision of its configuration class (the rows' notes name the file). Prompts"
  echo "are sampled from the dataset's own lengths, 32 equal-weight points (\`input_len_points\`: mean"
  echo "222.3, median 152, P99 791 tokens; a fixed 222-token prompt would hide the long tail); outputs"
  echo "average the submission's tokens per sample, spread as the dataset's reference answers are"
  echo "(\`output_len_points\`, below). MLPerf's Server result is the completed"
  echo "tokens/s at the highest Poisson rate the submitter found within P99 TTFT 2 s and TPOT 200 ms;"
  echo "\`max_rate_output_tokens_per_s\` rows search that rate on the simulator (MLP-013 is MLP-006's"
  echo "result read so, MLP-021 MLP-015's; the v5.0 table states no rate). MLP-006 to MLP-011 are the"
  echo "same v4.1 run on 8 x H100 (4 TP2 pairs), MLP-014 to MLP-021 v4.1's 8 x H200 (8 TP1 replicas,"
  echo "llama2-70b-99), read alike. In each: its"
  echo "throughput at the stated 75.1 qps, and its latencies, which were measured at the submitter's"
  echo "highest rate within the limits, read at the model's own highest such rate (rows that state the"
  echo "P99 limits). At a fixed rate near saturation a latency is ill-conditioned: with a holding time"
  echo "S = a + k N per replica, N = lambda a / (1 - lambda k), so a relative error e in the per-token cost"
  echo "k moves N and every latency by about e / (1 - rho). The submission runs each TP2 pair near its"
  echo "capacity (Little's law: 75.1 / 4 qps x 45 s mean latency = 845 sequences at once per pair, of a"
  echo "gpu_batch_size of 1024, at 155 ms per output token); read at the stated rate the model, whose"
  echo "Offline capacity was then 15% above the measured one, served it at lower occupancy and put the"
  echo "latencies 67-81% short (50-86% before the GEMM p-norm below). Every open-loop run is warmed up"
  echo "by twice the batch cap and runs ten"
  echo "times it (a 300-request warm-up had measured the ramp, and the stability test failed loads the"
  echo "engine carries), or, on the MLPerf Server rows, as long as the benchmark's run (\`duration_s\`,"
  echo "below):"
  echo
  rows_md "${SERVE[*]}" '^MLP'
  echo
  echo "Since this session's GEMM change (\`gemm_overlap_norm_p\` = 1.9 on the serving stacks, fitted on"
  echo "the H200 reference's GEMM sweep, not on these rows: docs/model.md) a loaded step pays part of"
  echo "its weight stream on top of the math, the step cost that does not shrink with the batch. On the"
  echo "v4.1 runs it moved the H100 TP2 means from -37% (TTFT), -39% (TPOT) and -39% (end to end) to"
  echo "-11%, -31% and -31%, and the H200 ones from +7%, -12% and -12% to +25%, +8% and +8% (with the"
  echo "rows' max_num_tokens, 4096, and MAX_UTILIZATION admission, the \`kv_admission\` column, also"
  echo "stated now: below). Offline is +19% on the H100 pairs (3,649 tokens/s"
  echo "a GPU where the submission gave 3,066) and +7% on the H200s (4,174 and 3,913), each run at the"
  echo "samples it generated (the \`requests\` column). What a TP2 pair"
  echo "loses beyond the model's all-reduces is in no"
  echo "source read: that capacity error is the H100 latency gap, since near saturation a latency moves"
  echo "by the capacity error over 1 - utilisation, and the model's highest rate (+33%) carries it."
  echo "The H100 run's TTFT P99 reading went from +0.2% to 3.3x the measurement (the H200 one to +29%):"
  echo "at the model's highest rate the TTFT limit now binds (1.52 s of the 2 s), while the submission"
  echo "ran at 0.46 s, far inside it. That is the reading, not the physics: the"
  echo "model's highest rate puts the binding P99 on its limit, and submitters keep a margin (the"
  echo "binding P99 of the seven Llama 2 Server runs here sits at 73-91% of its limit). A row's other"
  echo "metrics inherit that operating point; throughput barely moves with it, latencies do."
  echo
  echo "The rows now also state how the harness spread requests over its replicas (\`dispatch\`, from"
  echo "the harness code at the same commit: least-loaded between the H100's TP2 groups, one shared"
  echo "queue for the H200's TP1 engines; docs/serving.md), and the simulator runs the replicas"
  echo "together. Per-replica Poisson streams had widened each replica's TPOT spread, so the P99 limits"
  echo "bound the model's rate where its means were shorter; with the spread narrowed, the capacity"
  echo "error shows in the means: H100 TP2 TTFT +55%, TPOT -23%, end to end -23% (TTFT P99 3.1x), and"
  echo "H200 TTFT +32%, TPOT +29%, end to end +30% (TTFT P99 +32%, TPOT P99 +36%)."
  echo
  echo "The v5.0 Server runs' own logs (MLP5-009 to MLP5-035, judge rows never fitted) give the same"
  echo "picture on five systems: throughput at the highest rate within 3% (H200 +2%, H100 PP2 +3%,"
  echo "GH200 -3%, B200 +0% and -2%), TPOT P99 within 10%. With the dispatch the rows assume"
  echo "(\`dispatch\`: least-loaded; the v5.0 harness code was not read, and the single-GPU and pipeline"
  echo "rows have no dispatcher to simulate) the H200 x8 means are within 10% (TPOT -0.1%, end to end"
  echo "+0.2%, TTFT +10%; TTFT P99 +32%). The GH200, B200 x1 and H100 pipeline runs keep TPOT and end"
  echo "to end 17-20% short and TTFT 25-30% short (17-22% and 25-51% on all five before the dispatch;"
  echo "28-40% short with the roofline max and 8192 tokens a step), and B200 x8 reads 27% (TPOT, end"
  echo "to end) and 58% (TTFT) short: it ran at 99.6% of its Offline tokens/s, deeper in saturation"
  echo "than any rate the model keeps stable. TTFT P99 from -62% (B200 x8) to +32% (H200). Each row steps within its"
  echo "configuration class's max_num_tokens (\`max_num_tokens\` column: 1536 on H200 and GH200, 1024"
  echo "on the H100 pipeline, 3584 on B200; the Server classes were not read, so the Offline ones are"
  echo "assumed, as for max_batch): prompts then wait for room in a step. The rows also state prompt"
  echo "admission (\`kv_admission\`), which the logs imply though the v5.0 harness code was not read:"
  echo "GUARANTEED_NO_EVICT reserves a request's prompt plus its maximum output, 1024 tokens in this"
  echo "benchmark, so a replica's KV cache would admit 359-700 sequences, while Little's law on each"
  echo "log (rate per replica x mean latency) holds 699-1,880, about twice that (a \`[model]\` test"
  echo "checks it). Against whole-sequence admission (before the dispatch), that took the H200 TTFT P99 from +104% to"
  echo "+14%, the mean TPOT and end-to-end errors from 17-27% to 17-22%, and the B200 TTFT from"
  echo "within 37% (P99) and 26% (mean) to 36-47% and 30-51% short. The real runs carry 700-1,900"
  echo "sequences a replica at 139-170 ms a token, with narrow per-request TPOT (H200: P50 173, P90"
  echo "178, P99 182 ms). At the same rate the model, one replica at a Poisson share, carried fewer at a"
  echo "shorter step, and its in-flight count wandered: at the H200's 14.3 requests/s a GPU its standard deviation was 26% of"
  echo "its mean (313-850 sequences), where a birth-death queue of the same load and step curve gives"
  echo "about 9%. Every simulated request lives exactly the row's mean output length, so a burst of"
  echo "arrivals leaves together one lifetime later and the slow swings are not damped; the real"
  echo "outputs range from 1 to 1024 tokens. So the rows now carry that spread (\`output_len_points\`):"
  echo "the dataset's own tok_output_length values (GPT-4's reference answers: mean 218.9, median 190,"
  echo "P99 779 tokens) as the mean of each 1/32 sorted, scaled to the run's tokens per sample, an"
  echo "assumption about the shape (Llama 2's lengths are not published per sample). Lifetimes that"
  echo "differ damp the swings, the per-request TPOT spread narrows and the P99 limit binds later. With"
  echo "it, v4.1 H100 TP2: TTFT +29% (was +55%), TPOT -25%, end to end -26% (TTFT P99 3.5x); v4.1"
  echo "H200: TTFT +20% (+31%), TPOT +18% (+29%), end to end +16% (+30%), TPOT P99 +33%; v5.0 H200 x8"
  echo "-4%, -6%, -7% (TTFT, TPOT, end to end); H100 PP2 -21%, -17%, -18%; GH200 -14%, -9%, -11%"
  echo "(from -25%, -20%, -20%); B200 x1 -53%, -31%, -33% and B200 x8 -61%, -30%, -31% (from -30%,"
  echo "-19%, -19% and -58%, -27%, -27%): the B200 runs, at 99.4-99.6% of their Offline tokens/s, move"
  echo "away, the model's highest rate for them falling to 5-6% below the submitted one. All serving"
  echo "TTFT means: 25.3% -> 19.8% median error; the Offline rows move by 5% at most. A P99 read at"
  echo "the limit carries the assumed shape's uncertainty: a lognormal of the same mean and spread"
  echo "(coefficient of variation 0.79), tried in an earlier session, put the v4.1 H100 TTFT P99 at"
  echo "1.05x where this shape gives 3.5x (docs/serving.md)."
  echo
  echo "Each MLPerf Server row now runs as long as the benchmark did (\`duration_s\`: the summary's"
  echo "min_duration, 2400 s; 3600 s for the v5.0 H100 runs), rate x duration requests. A run of ten"
  echo "times the batch cap, 7-8 minutes at these rates, had judged the one-B200 run stable at 46.6"
  echo "requests/s while its output was still 9% under the arrivals', reading the highest rate and"
  echo "every latency from a queue still filling; over 2400 s the search settles 0.3% above the"
  echo "submitter's rate. Over the 35 MLPerf latency rows the rms log error goes from 0.456 to 0.319"
  echo "(median 20.5% -> 20.1%), the highest-rate throughputs' median from 4.8% to 3.6% (B200 -4.7% and"
  echo "-6.4% to -0.2% and -1.6%); the v4.1 H100 TTFT P99 from 3.5x to +14% and B200 x8's from -70% to"
  echo "+11%, while the v4.1 H200 means go from +16..21% to +24..26% (its highest rate +7% -> +12%),"
  echo "the v5.0 H100 pipeline's TTFT mean from -21% to -35%, and the end-to-end median over its 7"
  echo "rows from 18.1% to 20.9%. The one-B200 run, read at its own rate now, keeps TPOT 33% and TTFT"
  echo "53% short, though its highest rate is within 0.2%: at its knee a latency moves 25 times as"
  echo "fast as the rate, so those misses are the latencies of a knee 1.6-3.6% lower (the conditioning"
  echo "table below)."
  echo "The MLPerf v5.0 DGX H100 ran 4 replicas of TP1 x PP2"
  echo "instead of v4.1's 4 x TP2; TensorRT-LLM keeps one micro-batch per pipeline stage in flight,"
  echo "which the simulator follows (\`pipeline_microbatches\`, docs/serving.md): +1% Offline, +3% at"
  echo "the highest rate. Its Server run delivers 99.4% of its Offline tokens/s, the v4.1 TP2 run 88%."
  echo "The v5.0 B200 rows (NVFP4 weights and activations, FP8 KV as configured) are predicted within"
  echo "5% at the fp4 share above and were 37-40% fast at the FP8 share; they were among the rows seen"
  echo "when the GEMM-only share was chosen over the quantisation-inclusive one, so they are no longer"
  echo "a blind check of it. v4.1's one-B200 preview (MLP-012), whose configuration was never"
  echo "published, is read as NVFP4 because the round's reports say it ran FP4 (its notes quote them;"
  echo "no KV format stated, so 16-bit): -3%. It was read as FP8 until this was found, and was 23% low;"
  echo "it was not among the rows seen when the fp4 share was chosen. Not predicted: GPT-J's 4-beam"
  echo "search (4 sequences per request sharing the prompt's KV; the simulator runs one)."
  echo
  echo "The engine the v4.1 rows ran, as the submission's own code states it (the rows' notes cite the"
  echo "files): TensorRT-LLM's C++ runtime at github 2d23435 driven by NVIDIA's harness_llm, without"
  echo "CUDA graphs (\`use_graphs\` false, 'TODO: enable cuda graph for the inference.'), with the"
  echo "MAX_UTILIZATION scheduler (a request is admitted on the KV its prompt needs, not its whole"
  echo "sequence), an FP8 KV cache (the README's quantisation command), max_num_tokens 4096, each"
  echo "token streamed back in Server runs only (main_llm.cc: streaming when the scenario is not"
  echo "Offline). The rows state the admission (\`kv_admission\`: prompt), which the main table"
  echo "follows: on the H200 run it took TTFT P99 from +147% to +29% and TTFT mean from +33% to +25%"
  echo "(GUARANTEED_NO_EVICT, the stack's default for current releases, held whole sequences back),"
  echo "before the rows stated their dispatch; the H100 rows did not move. The stack \`tensorrt-llm\` also prices a decode step replayed as a CUDA"
  echo "graph (1 us a kernel, 0.5 ms a step). The same rows read with \`--stack tensorrt-llm-0.9\`"
  echo "instead, whose launch costs were fitted on v0.9's graph-less gptSession (13 us a kernel, 1.8 ms"
  echo "a step) and whose GEMM and bandwidth fractions are this stack's, are a check of that stated"
  echo "setting, not a fit:"
  echo
  rows_md "-i $M/serving-mlperf.csv --stack tensorrt-llm-0.9" '^MLP-0(0[4-9]|1[013-9]|2[01])$'
  echo
  echo "The launch costs take the H100 Offline row from +19% to +12% and its TTFT, TPOT and end-to-end"
  echo "means to +42%, -16% and -15%; but the H200 means go to +35%, +33% and +34%, and the H100 TTFT"
  echo "P99 reading to 3.5x. A cost paid per kernel on both GPUs cannot be the part of the H100 TP2 run"
  echo "that is missing, since the H200 run does not miss it; per-kernel launches from the host also"
  echo "overlap the long kernels of large batches, which an additive 13 us charges in full. The main"
  echo "table keeps the current stack, which the 146 serving-public rows judge; this reading shows"
  echo "what the v4.1 engine settings could add."
  echo
  echo "### Conditioning of the Server latencies at the knee"
  echo
  echo "Every MLPerf Server latency above is read at the model's highest rate within the P99 limits,"
  echo "which lies within 0.6% of the submitter's rate on three of the five v5.0 runs and within 5% on"
  echo "all (column 'knee rate / stated rate': predicted over measured of the run's highest-rate row)."
  echo "There a latency hangs on the last percent of capacity. The table runs each latency row as a"
  echo "fixed-rate run at that knee rate and at 1% below it (\`scripts/serving-conditioning.py\`; a"
  echo "reading of the model, not a fit): kappa = d ln(latency) / d ln(rate), so a capacity error e"
  echo "moves the latency by about kappa x e, and the last column is the capacity error that alone"
  echo "explains the row's miss, ln(predicted / measured) / kappa. The fixed-rate value differs from the"
  echo "knee reading where the search's last stable rate and the rate inferred from its throughput"
  echo "differ by a fraction of a percent; kappa is a local slope."
  echo
  "$BIN" validate -i "$M/serving-mlperf.csv" -i "$M/serving-mlperf-v5-judge.csv" -f csv >"$LODO/mlperf.csv"
  python3 scripts/serving-conditioning.py rows "$LODO/mlperf.csv" "$M/serving-mlperf.csv" \
    "$M/serving-mlperf-v5-judge.csv" >"$LODO/mlperf-knee-rows.csv"
  "$BIN" validate -i "$LODO/mlperf-knee-rows.csv" -f csv >"$LODO/mlperf-knee.csv"
  python3 scripts/serving-conditioning.py table "$LODO/mlperf.csv" "$LODO/mlperf-knee.csv" \
    "$M/serving-mlperf.csv" "$M/serving-mlperf-v5-judge.csv"
  echo
  echo "Every MLPerf latency group over 35% in 'Where the model misses' is of this kind: the B200"
  echo "TTFTs 46-65% short are what a capacity 3.0-3.6% lower would give, inside the few percent to"
  echo "which the highest-rate rows check capacity. These rows judge the capacity (the highest-rate"
  echo "throughputs) and, at a known load, the step time; a latency asked at a fixed rate within a"
  echo "few percent of saturation needs the capacity to about 35% / kappa, under 2% here, to come"
  echo "within 35%. \`plan\` sizes fleets on capacity, its replica band from the throughput residuals;"
  echo "a P99 the model reads at its own knee is the latency of that operating point, not a margin."
  echo
  echo "## 5. Error bands"
  echo
  echo "\`data/validation/residuals.csv\` (rewritten by this script) holds ln(predicted / measured"
  echo "time) of every row above except the seed claims: for a row of a fitted stack (llama.cpp on"
  echo "CPUs and GPUs, llama.cpp-metal, vLLM, TensorRT-LLM v0.9, PyTorch with CUDA graphs) its"
  echo "leave-one-device-out residual, the stack refitted without the row's device, so a band shows"
  echo "the error to expect on hardware the fit has not seen, not the fit's own scatter; rows never"
  echo "fitted (serving runs, kept-aside judges, eager PyTorch) keep their one residual, already out"
  echo "of sample. \`infercap predict\` shows TTFT, TPOT,"
  echo "end-to-end latency and throughputs with the p10-p90 band of the residuals of its stack and"
  echo "hardware class, and \`infercap plan\` the replica count of the recommended fleet across it;"
  echo "with fewer than three rows for a stack and class they say so instead of showing a band. Where"
  echo "the hardware's vendor has three rows or more of its own, the band keeps to them (the catalog"
  echo "names each device's vendor): a stack that runs on several vendors' devices can miss by"
  echo "another factor on each (SGLang did, before its ROCm build became its own stack), and pooled"
  echo "rows would widen one vendor's answers with another's error."
  echo "Serving runs give two kinds of residual: \`serving_throughput\` (offline, fixed-rate and"
  echo "highest-rate throughputs: the capacity a fleet is sized on, and the plan's replica band) and"
  echo "\`serving_latency\` (TTFT, TPOT, end to end), apart because a latency read near saturation"
  echo "carries the capacity error times its conditioning (the table above), which the replica count"
  echo "does not."
  echo
  echo "## 6. Every row (fitted stacks)"
  echo
  "$BIN" validate "${IN[@]}" -f md
} > "$TMP"
mv "$TMP" "$OUT"
# Every group over 35% median error, listed before section 1.
python3 scripts/validation-misses.py "$OUT" 0.35 \
  --see "^MLP5? serving (ttft|tpot|e2e)=Conditioning of the Server latencies at the knee" \
  --see "^(IX )?serving ttft|^IX serving=InferenceX: DeepSeek-R1 on B200, H200, MI300X and MI325X"
# The same table in docs/calibration.md, between its markers.
python3 - "$LOOP" <<'PY'
import sys
p = "docs/calibration.md"
s = open(p, encoding="utf-8").read()
a, b = "<!-- calibration-loop:begin -->", "<!-- calibration-loop:end -->"
i, j = s.index(a) + len(a), s.index(b)
open(p, "w", encoding="utf-8").write(s[:i] + "\n" + sys.argv[1] + "\n" + s[j:])
PY
# The error bands: every row's residual, and for the rows of a fitted stack the residual under
# that stack refitted without the row's device (its leave-one-device-out prediction), which is
# what a device with no rows should expect. Rows never fitted (serving runs, judges, eager
# PyTorch) keep their one residual, already out of sample.
"$BIN" validate "${IN[@]}" "${SERVE[@]}" --summary-only --residuals-out "$LODO/in-sample.csv" >/dev/null
# The held-out files were written by the sections' own leave-one-device-out runs above.
HELD=("$LODO/held-out-llama.cpp.csv" "$LODO/held-out-llama.cpp-metal.csv")
for e in "${FITS[@]}"; do HELD+=("$LODO/held-out-${e%%:*}.csv"); done
python3 scripts/merge-residuals.py --tmp "$LODO" "$LODO/in-sample.csv" "${HELD[@]}" >data/validation/residuals.csv
echo "wrote $OUT"
