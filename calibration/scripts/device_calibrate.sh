#!/usr/bin/env bash
# Calibrates a second machine from binaries built here, in one run: its CPU (e.g. the Intel Xeon
# with AMX of the H200 box) and, when it has an NVIDIA GPU, the CUDA backend.
#   calibration/scripts/device_calibrate.sh pack      # here: binaries + shared libs -> build-devrun/
#   calibration/scripts/device_calibrate.sh run OUT   # there: checks, profiles, decoder, benches
#
# The target needs no compiler or packages. build-devrun/lib carries the Debian libraries (hwloc,
# yaml-cpp, fmt, OpenBLAS, ...) and LD_LIBRARY_PATH points at them. The accelerator backends are
# modules (libinfercap-backend-cuda.so with libinfercap_cuda_kernels.so, -opencl.so) that travel
# beside the binaries, where infercap looks for them first; only they need the CUDA libraries.
# cuBLAS/cuBLASLt (~600 MB) cannot travel in a 64 MiB carry, so `run` takes them from the target:
# a CUDA install or the pip wheels that PyTorch pulls in (nvidia-cublas, e.g.
# /opt/torch/.venv/.../nvidia/cublas/lib). The CUDA module links the CUDA 13 runtime; a driver of
# the 580 series or newer runs it.
#
# `run` is ordered by what is missing most: the CUDA smoke check (static runtime, no cuBLAS),
# the [calib] tests, the CUDA profiles, then the CPU profile, decoder and benches. It keeps to a
# time budget (RUN_BUDGET_S, default 420 s) so that one device call of 10 minutes holds it, and
# skips the optional steps (the CUDA --full sweep, the benches) when the budget is spent. OUT
# receives log.txt and results.tar.gz (the profiles, rows and smoke lines).
set -u
shopt -s nullglob  # no backend modules built: their globs expand to nothing
here=$(cd "$(dirname "$0")/../.." && pwd)
pack=$here/build-devrun
case "${1:-}" in
  pack)
    build=${BUILD:-$here/build-dev}
    rm -rf "$pack" && mkdir -p "$pack/lib"
    for b in cli/infercap tests/infercap_tests calibration/infercap_decoder_run bench/infercap_bench; do
      cp "$build/$b" "$pack/" || exit 1
    done
    # Backend modules and the CUDA kernels library: beside infercap, as in the build tree.
    for m in "$build"/cli/libinfercap-backend-*.so "$build"/cli/libinfercap_cuda_kernels.so; do
      [ -f "$m" ] && { cp "$m" "$pack/" || exit 1; }
    done
    if [ -f "$pack/libinfercap-backend-cuda.so" ]; then
      # The smoke binary: the same kernels.cu, the static CUDA runtime, nothing else.
      "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O2 -std=c++17 -arch=sm_90 \
        "$here/calibration/cuda/kernels.cu" "$here/calibration/cuda/cuda_smoke.cpp" \
        -cudart static -DINFERCAP_SMOKE_COMMIT="\"$(git -C "$here" rev-parse --short HEAD)\"" \
        -o "$pack/cuda_smoke" || exit 1
    else
      echo "note: $build was configured without CUDA (INFERCAP_WITH_CUDA=OFF): CPU only" >&2
    fi
    ldd "$pack"/infercap* "$pack"/lib*.so | awk '/=>/{print $3}' | sort -u |
      grep -v "^$pack/" |
      grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so|/libcu[A-Za-z]*\.so' |
      xargs -I{} cp -L {} "$pack/lib/"
    # The C++ runtime travels apart: `run` uses it only when the target's own is older than this
    # build's, since cuBLAS from the target may need the newer one.
    mkdir -p "$pack/lib-compat" && mv "$pack"/lib/libstdc++.so.6 "$pack"/lib/libgcc_s.so.1 "$pack/lib-compat/"
    du -sh "$pack"
    ;;
  run)
    out=${2:-/tmp/infercap-device}
    budget=${RUN_BUDGET_S:-420}
    res=$out/results
    mkdir -p "$res"
    export INFERCAP_DATA_DIR=$here/data
    # CUDA's libraries from the target's image: pip wheels first (python knows where), then a
    # CUDA install (wheels of CUDA 13 keep them in nvidia/cu13/lib, 9 levels below /opt).
    cuda_dirs=$(
      python3 -c 'import nvidia, os; [print(os.path.join(p, d, "lib")) for p in nvidia.__path__ for d in os.listdir(p)]' 2>/dev/null
      find /usr/local /opt -maxdepth 10 \( -name 'libcudart.so.1*' -o -name 'libcublasLt.so.1*' \) 2>/dev/null |
        xargs -r -n1 dirname
    )
    cuda_dirs=$(echo "$cuda_dirs" | awk 'NF && !seen[$0]++' | while read -r d; do [ -d "$d" ] && printf '%s:' "$d"; done)
    compat=$pack/lib-compat:
    sys_cxx=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/{print $NF; exit}')
    need=$(strings "$pack/lib-compat/libstdc++.so.6" | grep -E '^GLIBCXX_3\.4\.[0-9]+$' | sort -V | tail -1)
    need=${need:-GLIBCXX_3.4.30}  # GCC 12's, should `strings` be missing there
    [ -n "$sys_cxx" ] && grep -q -a "$need" "$sys_cxx" && compat=""
    export LD_LIBRARY_PATH=$pack/lib:$compat${cuda_dirs}/usr/local/cuda/lib64
    log() { echo "== [$SECONDS s] $*"; }
    left() { [ "$SECONDS" -lt "$budget" ]; }
    gpu=0
    command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && gpu=1
    {
      log "machine"
      lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L3' | cut -c1-200
      grep -o -w -E 'amx_tile|amx_bf16|amx_int8|avx512_bf16|avx512_vnni' /proc/cpuinfo | sort | uniq -c
      echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
      [ -f "$pack/libinfercap-backend-cuda.so" ] &&
        ldd "$pack/libinfercap-backend-cuda.so" | grep -E "cublas|cudart|stdc" | sed 's/ (0x.*//'
      ldd "$pack/infercap_tests" "$pack"/lib*.so | grep -E "^/|not found" | grep -B1 "not found" &&
        log "WARNING: libraries not found (above)"
      if [ "$gpu" = 1 ]; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
        if [ -x "$pack/cuda_smoke" ]; then
          log "cuda_smoke: read, copy by grid, both GEMV kernels (CUDA events, host references)"
          # The CSV is a measurement import: `infercap calibrate --import` makes it a profile
          # here, even if the full binary could not run there.
          timeout 240 "$pack/cuda_smoke" --csv "$res/h200-cuda-smoke.csv" --hardware h200 |
            tee "$res/h200-cuda-smoke.jsonl"
        fi
      fi
      log "tests [calib] (CPU ISAs, OpenCL, CUDA when a GPU is here)"
      timeout 150 "$pack/infercap_tests" "[calib]"
      log "kernels"
      timeout 30 "$pack/infercap" calibrate --list
      if [ "$gpu" = 1 ]; then
        for effort in quick full; do
          if [ "$effort" = full ] && [ "$SECONDS" -gt $((budget / 2)) ]; then
            log "skipped calibrate --backend cuda --full (budget)"; continue
          fi
          # Each GEMV instance keeps the faster of the two kernels that passes its check.
          log "calibrate --backend cuda --$effort"
          time timeout 200 "$pack/infercap" calibrate --backend cuda --"$effort" --hardware h200 \
            -o "$res/h200-cuda-$effort.yaml" --rows "$res/h200-cuda-$effort-rows.csv"
        done
      fi
      log "calibrate --quick (CPU)"
      time timeout 120 "$pack/infercap" calibrate --quick -o "$res/cpu-profile.yaml" --rows "$res/cpu-rows.csv"
      model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
      hw=""
      for c in 8480 8462 8592 6980 9654 9755; do
        case "$model" in *$c*) hw=$(ls "$here/data/hardware" | grep -m1 "$c" | sed 's/\.yaml$//') ;; esac
      done
      # A VM may hide the SKU ("Intel(R) Xeon(R) Processor"): AMX means Sapphire Rapids or later,
      # and the 8480+ stands in as the datasheet (an assumption the log states).
      if [ -z "$hw" ] && grep -q -w amx_tile /proc/cpuinfo; then hw=xeon-8480p; fi
      log "decoder (datasheet: ${hw:-none})"
      for w in bf16 int8; do
        left || { log "skipped decoder $w (budget)"; continue; }
        INFERCAP_DECODER_SHAPES=1 timeout 60 "$pack/infercap_decoder_run" --model qwen2.5-0.5b --weights $w --steps 16 \
          --context 128 --prompt 128 ${hw:+--hardware $hw} --profile "$res/cpu-profile.yaml"
      done
      log "bench (each reference in its own process)"
      for f in 'TriadOurs/' TriadOursUnpinned TriadStreamOmp SgemvOurs SgemvOpenBlas; do
        left || { log "skipped bench $f (budget)"; continue; }
        timeout 60 "$pack/infercap_bench" --benchmark_filter="BM_Calib_$f" --benchmark_min_time=0.2 2>&1 | grep BM_
      done
      log "done"
    } 2>&1 | tee "$out/log.txt"
    tar -C "$res" -czf "$out/results.tar.gz" . && rm -rf "$res"
    ;;
  *) echo "usage: $0 pack | run OUT" >&2; exit 2 ;;
esac
