#!/usr/bin/env bash
# Builds cub_anchors (CUB timing anchors) with nvcc on the CUDA machine.
#
#   bench/anchors/build.sh            -> gpu-bundle/cub_anchors
#   OUT_DIR=/some/dir bench/anchors/build.sh
#
# Environment:
#   OUT_DIR     where the binary goes (default: <repo>/gpu-bundle; a relative path is taken
#               from the current directory)
#   NVCC        the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   ARCH        e.g. sm_90 (default: from `nvidia-smi --query-gpu=compute_cap`, else sm_90)
#   NVCC_FLAGS  extra flags (e.g. -DCUB_ANCHORS_OFFSET64 for 64-bit num_items)
#   SINGLE_TU=1 compile the whole program as one translation unit (simplest, slowest).
#               By default the same source is compiled as 10 parts in parallel
#               (-DCUB_ANCHORS_PART=0..9: CUB's sorts are slow to instantiate) and linked.
# Exits non-zero when the build fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="$here/cub_anchors.cu"

out_dir="${OUT_DIR:-$repo/gpu-bundle}"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"

nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
    if command -v nvcc >/dev/null 2>&1; then
        nvcc="$(command -v nvcc)"
    elif [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    else
        echo "build.sh: nvcc not found (set NVCC, or put the CUDA toolkit's bin on PATH)" >&2
        exit 1
    fi
fi

arch="${ARCH:-}"
if [ -z "$arch" ]; then
    cc=""
    if command -v nvidia-smi >/dev/null 2>&1; then
        cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r' || true)"
    fi
    if [[ "$cc" =~ ^[0-9]+$ ]]; then arch="sm_$cc"; else arch="sm_90"; fi
fi

read -r -a extra <<< "${NVCC_FLAGS:-}"
flags=(-O3 -std=c++17 "-arch=$arch" -lineinfo ${extra[@]+"${extra[@]}"})

echo "build.sh: $("$nvcc" --version | tail -n1); arch $arch; -> $out_dir/cub_anchors" >&2
start=$SECONDS

if [ "${SINGLE_TU:-0}" = "1" ]; then
    "$nvcc" "${flags[@]}" -o "$out_dir/cub_anchors" "$src"
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/cub_anchors_build.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    pids=()
    for part in 0 1 2 3 4 5 6 7 8 9; do
        "$nvcc" "${flags[@]}" "-DCUB_ANCHORS_PART=$part" -c -o "$work/part$part.o" "$src" \
            >"$work/part$part.log" 2>&1 &
        pids+=("$!")
    done
    failed=0
    for part in 0 1 2 3 4 5 6 7 8 9; do
        if ! wait "${pids[$part]}"; then
            failed=1
            echo "build.sh: part $part failed:" >&2
            cat "$work/part$part.log" >&2
        elif [ -s "$work/part$part.log" ]; then
            # Warnings only: show them once, briefly.
            sed "s/^/[part $part] /" "$work/part$part.log" | head -n 40 >&2
        fi
    done
    [ "$failed" -eq 0 ] || { echo "build.sh: build failed" >&2; exit 1; }
    "$nvcc" "-arch=$arch" -o "$out_dir/cub_anchors" "$work"/part*.o
fi

echo "build.sh: built $out_dir/cub_anchors in $((SECONDS - start)) s" >&2
