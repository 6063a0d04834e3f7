#!/usr/bin/env bash
# Installs the Debian bookworm packages PocketMT needs, only those that are missing.
# Idempotent: when everything is present it touches nothing and never runs apt-get update.
#   scripts/install-deps.sh          build + test + corpus + Python package packages
#   scripts/install-deps.sh --torch  also python3-torch (reference fixtures, side-by-side benchmarks)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libxnnpack-dev libpthreadpool-dev
  libflatbuffers-dev flatbuffers-compiler
  doctest-dev libbenchmark-dev
  libsentencepiece-dev sentencepiece
  libopenblas-dev zlib1g-dev
  nlohmann-json3-dev libcli11-dev help2man   # JSON, command lines, man pages
  libsword-utils sword-text-web sword-text-kjv sword-text-sparv
  apertium-eng-spa
  clang-14 libclang-rt-14-dev   # the clang build and libFuzzer (scripts/fuzz.sh)
  # the pocketmt Python package (python/): its build, pip install ./python, its pytest suite
  python3-dev pybind11-dev python3-pytest python3-numpy python3-pip python3-setuptools python3-wheel
)
if [[ "${1:-}" == "--torch" ]]; then
  packages+=(python3-torch python3-matplotlib)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "[deps] all ${#packages[@]} Debian packages present"
  exit 0
fi

echo "[deps] installing: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "[deps] done"
