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
#   SINGLE_TU=1 compile all the files in one nvcc call, one after another (simplest,
#               slowest). By default every file is compiled in parallel, and each sort suite
#               (SORT_SUITES below) twice, -DCUB_ANCHORS_KEY_BYTES=4 and =8, one part per key
#               width (CUB's sorts are slow to instantiate); the objects are then linked.
# Exits non-zero when the build fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# The program's files: main.cu (command line, dispatch) and one file per suite.
SOURCES=(main.cu copy.cu reduce_scan.cu radix_keys.cu radix_pairs.cu merge_keys.cu segmented_keys.cu)
# Suites compiled as one part per key width.
SORT_SUITES=(radix_keys.cu radix_pairs.cu merge_keys.cu segmented_keys.cu)

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
    (cd "$here" && "$nvcc" "${flags[@]}" -o "$out_dir/cub_anchors" "${SOURCES[@]}")
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/cub_anchors_build.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    # Parts: "name file [define]", one per object.
    parts=()
    for file in "${SOURCES[@]}"; do
        if [[ " ${SORT_SUITES[*]} " == *" $file "* ]]; then
            parts+=("${file%.cu}-4 $file -DCUB_ANCHORS_KEY_BYTES=4" "${file%.cu}-8 $file -DCUB_ANCHORS_KEY_BYTES=8")
        else
            parts+=("${file%.cu} $file")
        fi
    done
    pids=()
    for part in "${parts[@]}"; do
        read -r name file define <<< "$part"
        "$nvcc" "${flags[@]}" ${define:+"$define"} -c -o "$work/$name.o" "$here/$file" \
            >"$work/$name.log" 2>&1 &
        pids+=("$!")
    done
    failed=0
    for i in "${!parts[@]}"; do
        read -r name _ <<< "${parts[$i]}"
        if ! wait "${pids[$i]}"; then
            failed=1
            echo "build.sh: $name failed:" >&2
            cat "$work/$name.log" >&2
        elif [ -s "$work/$name.log" ]; then
            # Warnings only: show them once, briefly.
            sed "s/^/[$name] /" "$work/$name.log" | head -n 40 >&2
        fi
    done
    [ "$failed" -eq 0 ] || { echo "build.sh: build failed" >&2; exit 1; }
    "$nvcc" "-arch=$arch" -o "$out_dir/cub_anchors" "$work"/*.o
fi

echo "build.sh: built $out_dir/cub_anchors in $((SECONDS - start)) s" >&2
