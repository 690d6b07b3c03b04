#!/usr/bin/env bash
# Installs the Debian 12 packages infercap builds with, only those missing. Idempotent.
set -euo pipefail
PKGS=(build-essential cmake pkg-config libeigen3-dev libyaml-cpp-dev libfmt-dev catch2
      libbenchmark-dev libcli11-dev nlohmann-json3-dev libhwloc-dev libopenblas-dev
      ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
      libimgui-dev libglfw3-dev libgl-dev libstb-dev xvfb xauth
      libcairo2-dev libxlsxwriter-dev fonts-noto-cjk poppler-utils unzip
      fonts-dejavu-core fonts-wqy-zenhei
      clang-14 libclang-rt-14-dev libomp-14-dev)
# The report (core/report): cairo for the PDF, libxlsxwriter for the XLSX, Noto CJK so Chinese
# PDFs render with an embedded Debian font; poppler-utils (pdfinfo, pdftotext, pdffonts) and unzip
# are what the report tests read the PDF and XLSX with. The GUI: stb (PNG screenshots), DejaVu
# for Latin text with Noto CJK (or WenQuanYi Zen Hei) merged into its font atlas. clang-14 and
# libclang-rt-14-dev: the libFuzzer targets (make fuzz-smoke).
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "infercap: installing missing packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
