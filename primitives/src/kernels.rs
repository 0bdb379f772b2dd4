//! The shared device headers, handed to NVRTC as named include strings.
//!
//! Headers are split by thread scope, like CUB: `sortlab/thread/*.cuh` (per-thread helpers such
//! as the key bit map), `sortlab/warp/*.cuh`, `sortlab/block/*.cuh` and `sortlab/grid/*.cuh` (tile
//! status, last block, dependent launch: the grid-wide protocols). A kernel includes them as
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
        "sortlab/thread/key_defines.cuh",
        include_str!("../kernels/thread/key_defines.cuh"),
    ),
    (
        "sortlab/thread/merge_path.cuh",
        include_str!("../kernels/thread/merge_path.cuh"),
    ),
    (
        "sortlab/thread/merge_path_keys.cuh",
        include_str!("../kernels/thread/merge_path_keys.cuh"),
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
        "sortlab/grid/tile_status.cuh",
        include_str!("../kernels/grid/tile_status.cuh"),
    ),
    (
        "sortlab/grid/last_block.cuh",
        include_str!("../kernels/grid/last_block.cuh"),
    ),
    (
        "sortlab/grid/grid_dependency.cuh",
        include_str!("../kernels/grid/grid_dependency.cuh"),
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
        "sortlab/block/block_merge.cuh",
        include_str!("../kernels/block/block_merge.cuh"),
    ),
    (
        "sortlab/block/block_sort_span.cuh",
        include_str!("../kernels/block/block_sort_span.cuh"),
    ),
    (
        "sortlab/block/bulk_copy.cuh",
        include_str!("../kernels/block/bulk_copy.cuh"),
    ),
];

/// The `extern "C" __global__` kernels of CUDA source `src` whose body does not begin with
/// `sortlab::dependent_entry();` or `sortlab::grid_dependency_wait();`
/// (`sortlab/grid/grid_dependency.cuh`): the kernels a launcher must not launch with
/// [`crate::LaunchConfig::dependent`]. A source check for the unit tests of launchers that
/// launch a whole module dependent, so that a kernel added later cannot miss its wait.
///
/// ```
/// use sortlab_primitives::kernels::kernels_without_dependent_entry;
/// let src = r#"
/// extern "C" __global__ void a(int* p) {
///     sortlab::dependent_entry();
///     *p = 1;
/// }
/// extern "C" __global__ void __launch_bounds__(64)
/// b(int* p) { *p = 2; }
/// "#;
/// assert_eq!(kernels_without_dependent_entry(src), ["b"]);
/// ```
pub fn kernels_without_dependent_entry(src: &str) -> Vec<String> {
    const ENTRIES: [&str; 2] = [
        "sortlab::dependent_entry();",
        "sortlab::grid_dependency_wait();",
    ];
    let mut missing = Vec::new();
    let mut rest = src;
    while let Some(at) = rest.find("extern \"C\" __global__") {
        rest = &rest[at..];
        let Some(open) = rest.find('{') else { break };
        let name = kernel_name(&rest[..open]).to_string();
        rest = &rest[open + 1..];
        if !ENTRIES.iter().any(|e| rest.trim_start().starts_with(e)) {
            missing.push(name);
        }
    }
    missing
}

/// The name in a kernel signature (`... name(params)`): the identifier before the parenthesis
/// that matches the signature's last one.
fn kernel_name(signature: &str) -> &str {
    let sig = signature.trim_end();
    let mut depth = 0usize;
    let mut params = 0;
    for (i, c) in sig.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    params = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let head = sig[..params].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &head[start..]
}
