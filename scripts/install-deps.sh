#!/usr/bin/env bash
# Installs the Debian bookworm packages PocketMT needs, only those that are missing.
# Idempotent: when everything is present it touches nothing and never runs apt-get update.
#   scripts/install-deps.sh          build + test + corpus + Python package packages
#   scripts/install-deps.sh --torch  also python3-torch (reference fixtures, side-by-side benchmarks)
#   scripts/install-deps.sh --arch arm64|armhf   also the cross toolchain and qemu-user, and the
#       target's libraries in a private sysroot (docs/arm.md), never installed system-wide: Debian's
#       libxnnpack-dev, libpthreadpool-dev and libsentencepiece-dev are not Multi-Arch: same, so
#       installing their :arm64 or :armhf versions would remove the native ones.
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
arch=
case "${1:-}" in
  --torch) packages+=(python3-torch python3-matplotlib) ;;
  --arch)
    arch=${2:?--arch needs arm64 or armhf}
    case $arch in
      arm64 | armhf) packages+=(crossbuild-essential-"$arch" qemu-user) ;;
      *) echo "install-deps.sh: unknown architecture $arch (arm64 or armhf)" >&2; exit 2 ;;
    esac ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "[deps] all ${#packages[@]} Debian packages present"
else
  echo "[deps] installing: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "[deps] done"
fi
if [[ -z $arch ]]; then exit 0; fi

# The target's libraries, unpacked (dpkg-deb -x) from packages that apt downloads with a private
# state directory, so the machine's own package lists and installed set are never touched. The
# C library is in the sysroot too: qemu -L runs the target's dynamic loader from it.
sysroot_packages=(
  libc6 libgcc-s1 libstdc++6 libgfortran5
  libxnnpack-dev libxnnpack0 libcpuinfo0 libpthreadpool-dev libpthreadpool0
  libsentencepiece-dev libsentencepiece0 zlib1g-dev zlib1g
  libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread
  libflatbuffers-dev libflatbuffers2 doctest-dev libbenchmark-dev libbenchmark1debian
  nlohmann-json3-dev libcli11-dev
)
sysroot=${PMT_SYSROOT:-$HOME/.cache/pocketmt/sysroot-$arch}
stamp=$sysroot/.pocketmt-packages
if [[ -f $stamp && $(cat "$stamp") == "${sysroot_packages[*]}" ]]; then
  echo "[deps] sysroot $sysroot present"
  exit 0
fi
echo "[deps] building the $arch sysroot in $sysroot"
apt_dir=$HOME/.cache/pocketmt/apt-$arch
mkdir -p "$apt_dir"/lists/partial "$apt_dir"/archives/partial "$apt_dir"/debs
: >"$apt_dir"/status  # no package counts as installed: only the target's versions are resolved
apt_opts=(-q -o APT::Architecture="$arch" -o APT::Architectures="$arch"
  -o Dir::State::Lists="$apt_dir"/lists -o Dir::State::status="$apt_dir"/status
  -o Dir::Cache="$apt_dir" -o Dir::Cache::archives="$apt_dir"/archives -o Debug::NoLocking=1
  -o APT::Sandbox::User="$(id -un)")
# A mirror that fails to answer for one index (it happens to the security suite) leaves the
# others usable: only a missing package below is an error.
apt-get "${apt_opts[@]}" update || echo "[deps] apt-get update reported errors; going on"
(cd "$apt_dir"/debs && rm -f ./*.deb && apt-get "${apt_opts[@]}" download "${sysroot_packages[@]/%/:$arch}")
rm -rf "$sysroot"
mkdir -p "$sysroot"
for deb in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
# Absolute links (libz.so -> /lib/<triplet>/libz.so.1.2.13) would point into this machine's root.
find "$sysroot" -type l -lname '/*' | while read -r link; do
  ln -sfn "$sysroot$(readlink "$link")" "$link"
done
echo "${sysroot_packages[*]}" >"$stamp"
echo "[deps] sysroot ready: ${#sysroot_packages[@]} packages"
