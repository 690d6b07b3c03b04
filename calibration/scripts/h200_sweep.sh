#!/usr/bin/env bash
# The whole CUDA calibration sweep on a GPU host (written for the H200 box), in one script:
#   calibration/scripts/h200_sweep.sh smoke             # here: build the carryable cuda_smoke
#   calibration/scripts/h200_sweep.sh build             # there (or here): infercap with CUDA
#   calibration/scripts/h200_sweep.sh run OUT [NAME]    # there: tests, sweep, profiles -> OUT
# `run` writes OUT/NAME-quick.yaml and OUT/NAME-full.yaml (NAME defaults to h200-cuda) with the
# rows as CSV beside them and a log; it copies the profiles into data/calibration/ only when every
# step passed, so a failed or partial run never lands in the catalog.
#
# Two routes, because cuBLAS/cuBLASLt (~600 MB of shared libraries) cannot travel in a 64 MiB
# carry: (1) the GPU host has the CUDA 13 toolkit or at least its runtime libraries and the
# Debian build dependencies (scripts/install-deps.sh): `build` then `run` there; (2) a bare host
# with only the driver: `smoke` here, carry build-smoke/, run build-smoke/cuda_smoke there: it
# checks and times read, copy and the decode GEMVs (static CUDA runtime, no cuBLAS), and its
# JSON lines become a measurement-import CSV (see data/calibration/imports/h200-cuda-smoke-*.csv)
# that `infercap calibrate --import` fits into a profile.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build-h200}
cuda=${CUDA_HOME:-/usr/local/cuda}
case "${1:-}" in
  smoke)
    mkdir -p "$here/build-smoke"
    "$cuda/bin/nvcc" -O2 -std=c++17 -arch=sm_90 "$here/calibration/cuda/kernels.cu" \
      "$here/calibration/cuda/cuda_smoke.cpp" -cudart static -o "$here/build-smoke/cuda_smoke" &&
      ls -la "$here/build-smoke/cuda_smoke"
    ;;
  build)
    cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DINFERCAP_WITH_CUDA=ON \
      -DINFERCAP_BUILD_BENCH=OFF -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" &&
      cmake --build "$build" -j"$(nproc)" --target infercap infercap_tests
    ;;
  run)
    out=${2:-/tmp/infercap-h200}
    name=${3:-h200-cuda}
    mkdir -p "$out"
    export INFERCAP_DATA_DIR=$here/data
    bin=$build/cli/infercap
    # cuBLAS may come from a CUDA install or from a pip wheel (nvidia-cublas, which PyTorch pulls
    # in); when the loader cannot find it, look for it once.
    if ldd "$bin" | grep -q "libcublas.*not found"; then
      lib=$(find /usr/local /opt /usr/lib / -xdev -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
      [ -n "$lib" ] && export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    ok=1
    step() { echo "== $*"; }
    {
      step "device"
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
        --format=csv || ok=0
      step "tests [calib] (CUDA kernels against their host references)"
      timeout 300 "$build/tests/infercap_tests" "[calib]" || ok=0
      step "kernels"
      "$bin" calibrate --list | sed -n '/^cuda/,/^[a-z]/p'
      for effort in quick full; do
        step "calibrate --backend cuda --$effort"
        time timeout 600 "$bin" calibrate --backend cuda --"$effort" --hardware h200 \
          -o "$out/$name-$effort.yaml" --rows "$out/$name-$effort-rows.csv" || ok=0
      done
      if [ -x "$here/build-smoke/cuda_smoke" ]; then
        step "cuda_smoke (CUDA events, for comparison with the host-clock harness)"
        "$here/build-smoke/cuda_smoke" | tee "$out/$name-smoke.jsonl" || ok=0
      fi
      step "reference figures: $here/../shared/reference/h200-micro.json"
      if [ "$ok" = 1 ]; then
        cp "$out/$name-quick.yaml" "$out/$name-full.yaml" "$here/data/calibration/"
        step "profiles copied to data/calibration/ ($name-quick.yaml, $name-full.yaml)"
      else
        step "a step failed: profiles left in $out only"
      fi
    } 2>&1 | tee "$out/$name-log.txt"
    ;;
  *) echo "usage: $0 smoke | build | run OUT [NAME]" >&2; exit 2 ;;
esac
