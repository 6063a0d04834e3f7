#!/usr/bin/env bash
# bench/torch_train_bench.py at PyTorch's best, without changing the system: Debian's OpenBLAS
# (OpenMP or pthread build) and jemalloc are fetched with `apt-get download`, unpacked with
# `dpkg -x` into a cache outside the checkout, and given to this one python3 process through
# LD_LIBRARY_PATH (Debian's torch reaches BLAS through libblas.so.3, which the OpenBLAS
# directory provides) and LD_PRELOAD. The benchmark's JSON lines say which BLAS (library, core
# kernels) and allocator were actually mapped.
#
#   bench/torch_train_peer.sh [--blas openmp|pthread|system] [--malloc jemalloc|glibc] [BENCH ARGS...]
#   bench/torch_train_peer.sh --threads 1 --steps 5        # OpenMP OpenBLAS + jemalloc (the default)
#
# Why: with the reference libblas (netlib, ~5 GFLOP/s) or glibc malloc (large blocks go back to
# the kernel every step; this VM charges ~11 us per first touch of a page) PyTorch runs 2-3x
# slower than it can; jemalloc with its default decay returns them too (MALLOC_CONF below).
# OPENBLAS_CORETYPE, when set, passes through (the same kernels on both sides).
# Cache: $PMT_PEER_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/pocketmt/torch-peer. Exit 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

blas=openmp malloc=jemalloc
while (($#)); do
  case "$1" in
    --blas) blas=${2:?}; shift 2 ;;
    --malloc) malloc=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) break ;;
  esac
done
case "$blas" in openmp|pthread|system) ;; *) echo "torch_train_peer: --blas openmp|pthread|system" >&2; exit 2 ;; esac
case "$malloc" in jemalloc|glibc) ;; *) echo "torch_train_peer: --malloc jemalloc|glibc" >&2; exit 2 ;; esac

cache=${PMT_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pocketmt/torch-peer}
# The unpacked packages' library folder, for this machine's Debian architecture.
libdir=$cache/root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
# Unpacks Debian package $1 under $cache/root once.
unpack() {
  if [[ ! -e "$cache/root/.$1" ]]; then
    mkdir -p "$cache/debs" "$cache/root"
    (cd "$cache/debs" && rm -f "$1"_*.deb && apt-get download -q "$1" >&2)
    dpkg -x "$cache/debs/$1"_*.deb "$cache/root"
    touch "$cache/root/.$1"
  fi
}

if [[ "$blas" != system ]]; then
  unpack "libopenblas0-$blas"
  export LD_LIBRARY_PATH="$libdir/openblas-$blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [[ "$malloc" == jemalloc ]]; then
  unpack libjemalloc2
  export LD_PRELOAD="$libdir/libjemalloc.so.2${LD_PRELOAD:+:$LD_PRELOAD}"
  # Keep freed pages: every step frees and reallocates the same large tensors (the 131 MB logits
  # among them), and with jemalloc's default decay they go back to the kernel and fault in again:
  # 3.3x the CPU time per step here (10.6 s against 3.2 s, 1 thread).
  export MALLOC_CONF=${MALLOC_CONF:-dirty_decay_ms:-1,muzzy_decay_ms:-1}
fi
exec /usr/bin/python3 bench/torch_train_bench.py "$@"
