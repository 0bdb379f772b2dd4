//! The shared device headers, handed to NVRTC as named include strings.
//!
//! Headers are split by thread scope, like CUB: `sortlab/thread/*.cuh` (per-thread helpers such
//! as the key bit map), `sortlab/warp/*.cuh` and `sortlab/block/*.cuh`. A kernel includes them as
//! `#include "sortlab/thread/key_bits.cuh"`; no file system path is needed at run time.

/// Every shared header: `(include name, text)`.
pub const HEADERS: &[(&str, &str)] = &[
    (
        "sortlab/thread/types.cuh",
        include_str!("../kernels/thread/types.cuh"),
    ),
    (
        "sortlab/thread/key_bits.cuh",
        include_str!("../kernels/thread/key_bits.cuh"),
    ),
    (
        "sortlab/warp/operators.cuh",
        include_str!("../kernels/warp/operators.cuh"),
    ),
    (
        "sortlab/warp/shuffle.cuh",
        include_str!("../kernels/warp/shuffle.cuh"),
    ),
    (
        "sortlab/warp/warp_reduce.cuh",
        include_str!("../kernels/warp/warp_reduce.cuh"),
    ),
    (
        "sortlab/warp/warp_scan.cuh",
        include_str!("../kernels/warp/warp_scan.cuh"),
    ),
    (
        "sortlab/block/block_reduce.cuh",
        include_str!("../kernels/block/block_reduce.cuh"),
    ),
    (
        "sortlab/block/block_scan.cuh",
        include_str!("../kernels/block/block_scan.cuh"),
    ),
];
