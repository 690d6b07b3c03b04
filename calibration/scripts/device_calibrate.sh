#!/usr/bin/env bash
# Calibrates a second machine (e.g. the Intel Xeon host of the H200 box, which has AMX) from
# binaries built here, in one run:
#   calibration/scripts/device_calibrate.sh pack      # here: binaries + shared libs -> build-devrun/
#   calibration/scripts/device_calibrate.sh run OUT   # there: tests, calibrate, decoder, benches
# The target needs no compiler or packages: build-devrun/lib carries the Debian libraries
# (hwloc, yaml-cpp, fmt, OpenBLAS, ...) and LD_LIBRARY_PATH points at them.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
pack=$here/build-devrun
case "${1:-}" in
  pack)
    build=${BUILD:-$here/build-dev}
    rm -rf "$pack" && mkdir -p "$pack/lib"
    for b in cli/infercap tests/infercap_tests calibration/infercap_decoder_run bench/infercap_bench; do
      cp "$build/$b" "$pack/"
    done
    ldd "$pack"/infercap* | awk '/=>/{print $3}' | sort -u |
      grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so|/libcu[A-Za-z]*\.so' |
      xargs -I{} cp -L {} "$pack/lib/"
    du -sh "$pack"
    ;;
  run)
    out=${2:-/tmp/infercap-device}
    mkdir -p "$out"
    # CUDA's own libraries come from the target's image when it has them.
    cuda_dirs=$(find /usr/local /opt -name 'libcudart.so.1*' -o -name 'libcublasLt.so.1*' 2>/dev/null |
      xargs -r -n1 dirname | sort -u | tr '\n' ':')
    export LD_LIBRARY_PATH=$pack/lib:$cuda_dirs/usr/local/cuda/lib64 INFERCAP_DATA_DIR=$here/data
    log() { echo "== $*"; }
    {
      log "machine"; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L3|Flags' | cut -c1-400
      grep -o -w -E 'amx_tile|amx_bf16|amx_int8|avx512_bf16|avx512_vnni' /proc/cpuinfo | sort | uniq -c
      ldd "$pack/infercap_tests" | grep "not found"; log "tests [calib]"; timeout 60 "$pack/infercap_tests" "[calib]"
      log "kernels"; timeout 30 "$pack/infercap" calibrate --list
      log "calibrate --quick"; time timeout 200 "$pack/infercap" calibrate --quick -o "$out/profile.yaml" --rows "$out/rows.csv"
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
        INFERCAP_DECODER_SHAPES=1 timeout 150 "$pack/infercap_decoder_run" --model qwen2.5-0.5b --weights $w --steps 16 \
          --context 128 --prompt 128 ${hw:+--hardware $hw} --profile "$out/profile.yaml"
      done
      log "bench (each reference in its own process)"
      for f in 'TriadOurs/' TriadOursUnpinned TriadStreamOmp SgemvOurs SgemvOpenBlas; do
        timeout 60 "$pack/infercap_bench" --benchmark_filter="BM_Calib_$f" --benchmark_min_time=0.2 2>&1 | grep BM_
      done
    } 2>&1 | tee "$out/log.txt"
    ;;
  *) echo "usage: $0 pack | run OUT" >&2; exit 2 ;;
esac
