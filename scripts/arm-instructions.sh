#!/usr/bin/env bash
# Instructions per encoded source token and per decoded token, counted under qemu-user for
# x86-64, arm64 and armhf and several CPU models, int8 and fp32: numbers for ARM without ARM
# hardware (issue 13). Prints a markdown table (also DIR/table.md) with an estimate of ms/token
# on a Raspberry Pi 4 and 5 from assumed instructions per cycle (stated below, not measured).
#
#   scripts/arm-instructions.sh [--out DIR] [--sentences N] [--targets ARCH:CPU,...]
#
# --targets: the default is x86-64:max, arm64 with cortex-a53, -a72, -a76 and max, armhf with
# cortex-a7, -a15 and max.
#
# How: bench/qemu_insn_count.c (a TCG plugin, built here for the host) counts every guest
# instruction of bench/probe.cc (pmt-probe), which loads a model and translates N random-id
# sources once each, batch 1, 1 thread. A randomly initialised `general` model (the shipped
# model's shapes; a trained one would stop at EOS early) is exported int8 and fp32 with the
# shipped vocabulary (int8 calibrated on tests/data/everyday). Counts of runs that differ in one
# argument are subtracted, so the load and the process cancel out:
#   per source token  = (I(src 40, max_len 1) - I(src 8, max_len 1)) / (N * 32)
#   per decoded token = (I(src 8, max_len 65) - I(src 8, max_len 1)) / (decoder steps between them)
# XNNPACK picks its kernels from the CPU features qemu reports for -cpu (dot product on
# cortex-a76 and max; under qemu-user it cannot read the core's name, so no Cortex-A53-specific
# kernels); our own kernels are NEON on arm64, and on armhf where the CPU has NEON (every model
# here). Needs the ARM sysroots
# (scripts/install-deps.sh --arch arm64 and --arch armhf). Exit 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
out=runs/arm-instructions sentences=4
targets=x86-64:max,arm64:cortex-a53,arm64:cortex-a72,arm64:cortex-a76,arm64:max,armhf:cortex-a7,armhf:cortex-a15,armhf:max
while (($#)); do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --out) out=$2 ;;
    --sentences) sentences=$2 ;;
    --targets) targets=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ "$sentences" =~ ^[1-9][0-9]*$ && "$targets" =~ ^((x86-64|arm64|armhf):[a-z0-9-]+,?)+$ ]] || usage
for q in qemu-x86_64 qemu-aarch64 qemu-arm; do
  command -v "$q" >/dev/null || { echo "arm-instructions: $q missing: scripts/install-deps.sh --arch arm64" >&2; exit 2; }
done
mkdir -p "$out"
jobs=$(nproc)

echo "== models and tools" >&2
cmake -S . -B build >/dev/null
cmake --build build -j"$jobs" --target pmt-convert bench_random_checkpoint pmt-probe >/dev/null
cc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$out/qemu_insn_count.so" bench/qemu_insn_count.c
spm=models/checkpoints/general-spm.model
build/bench/bench_random_checkpoint --preset general "$out/random-general.safetensors" >/dev/null
build/converter/pmt-convert export --checkpoint "$out/random-general.safetensors" --spm "$spm" --dtype f32 \
  --out "$out/random-f32.pmt" >/dev/null
build/converter/pmt-convert export --checkpoint "$out/random-general.safetensors" --spm "$spm" --dtype int8 \
  --calib-data tests/data/everyday/everyday --quiet --out "$out/random-int8.pmt" >/dev/null
declare -A probe=([x86-64]=build/bench/pmt-probe)
for arch in arm64 armhf; do
  triplet=$([[ $arch == arm64 ]] && echo aarch64-linux-gnu || echo arm-linux-gnueabihf)
  cmake -S . -B "build-insn-$arch" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$triplet.cmake" \
    -DPMT_BUILD_CONVERTER=OFF -DPMT_BUILD_TESTS=OFF -DPMT_BUILD_TOOLS=OFF -DPMT_BUILD_EXAMPLES=OFF \
    -DPMT_BUILD_PYTHON=OFF >/dev/null
  cmake --build "build-insn-$arch" -j"$jobs" --target pmt-probe >/dev/null
  probe[$arch]=build-insn-$arch/bench/pmt-probe
done

# count ARCH CPU MODEL SRC MAXLEN -> "instructions decoder_steps"
count() {
  local arch=$1 cpu=$2 model=$3 src=$4 maxlen=$5 emu steps
  case $arch in
    x86-64) emu=(qemu-x86_64 -cpu "$cpu") ;;
    arm64) emu=(qemu-aarch64 -cpu "$cpu" -L "$HOME/.cache/pocketmt/sysroot-arm64") ;;
    armhf) emu=(qemu-arm -cpu "$cpu" -L "$HOME/.cache/pocketmt/sysroot-armhf") ;;
  esac
  steps=$("${emu[@]}" -plugin "$out/qemu_insn_count.so,out=$out/count.txt" "${probe[$arch]}" "$model" "$src" "$maxlen" \
    "$sentences" | sed -n 's/^decoder steps: //p')
  echo "$(sed -n 's/^instructions: //p' "$out/count.txt") $steps"
}

rows=()
for spec in ${targets//,/ }; do
  arch=${spec%%:*} cpu=${spec#*:}
  for dtype in int8 f32; do
    model=$out/random-$dtype.pmt
    echo "== $arch $cpu $dtype" >&2
    read -r i_short steps_short <<< "$(count "$arch" "$cpu" "$model" 8 1)"
    read -r i_long _ <<< "$(count "$arch" "$cpu" "$model" 40 1)"
    read -r i_gen steps_gen <<< "$(count "$arch" "$cpu" "$model" 8 65)"
    per_src=$(( (i_long - i_short) / (sentences * 32) ))
    per_tok=$(( (i_gen - i_short) / (steps_gen - steps_short) ))
    rows+=("$arch|$cpu|$([[ $dtype == f32 ]] && echo fp32 || echo int8)|$per_src|$per_tok")
  done
done

# The estimate, on the rows of the matching core: a Raspberry Pi 4 (Cortex-A72 at 1.8 GHz; in
# 32-bit mode qemu has no A72, Cortex-A15 is the nearest ARMv7-A core with NEON and VFPv4) at an
# assumed 1.0 instructions per cycle, a Pi 5 (Cortex-A76 at 2.4 GHz) at an assumed 1.5.
{
  echo "| target | qemu -cpu | weights | instructions / source token | instructions / decoded token | est. ms / decoded token |"
  echo "|---|---|---|--:|--:|--:|"
  for r in "${rows[@]}"; do
    IFS='|' read -r arch cpu dtype per_src per_tok <<< "$r"
    awk -v a="$arch" -v c="$cpu" -v d="$dtype" -v s="$per_src" -v t="$per_tok" 'BEGIN {
      est = "";
      if (c == "cortex-a72" || (a == "armhf" && c == "cortex-a15")) est = sprintf("%.2f (Pi 4)", t / 1.8e6);
      if (c == "cortex-a76") est = sprintf("%.2f (Pi 5)", t / (1.5 * 2.4e6));
      printf "| %s | %s | %s | %.2f M | %.2f M | %s |\n", a, c, d, s / 1e6, t / 1e6, est }'
  done
} | tee "$out/table.md"
