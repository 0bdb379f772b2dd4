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
        "sortlab/thread/type_traits.cuh",
        include_str!("../kernels/thread/type_traits.cuh"),
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
    (
        "sortlab/block/tile_status.cuh",
        include_str!("../kernels/block/tile_status.cuh"),
    ),
    (
        "sortlab/block/block_load_store.cuh",
        include_str!("../kernels/block/block_load_store.cuh"),
    ),
    (
        "sortlab/block/block_radix_rank.cuh",
        include_str!("../kernels/block/block_radix_rank.cuh"),
    ),
    (
        "sortlab/block/block_radix_sort.cuh",
        include_str!("../kernels/block/block_radix_sort.cuh"),
    ),
    (
        "sortlab/block/block_histogram.cuh",
        include_str!("../kernels/block/block_histogram.cuh"),
    ),
    (
        "sortlab/block/block_bitonic.cuh",
        include_str!("../kernels/block/block_bitonic.cuh"),
    ),
    (
        "sortlab/block/block_merge_sort.cuh",
        include_str!("../kernels/block/block_merge_sort.cuh"),
    ),
    (
        "sortlab/block/bulk_copy.cuh",
        include_str!("../kernels/block/bulk_copy.cuh"),
    ),
];
