//! # sortlab-roughsort
//!
//! Sorting of roughly sorted sequences on the GPU (after the report "Parallel Sorting of
//! Roughly-Sorted Sequences", Altman & Igarashi 1989, Altman & Chlebus 1990). A sequence is
//! `k`-sorted when `a[i]` precedes-or-equals `a[j]` for all `i < j - k`; its *radius* is the
//! smallest such `k`, how far its most misplaced key is from its sorted place. Data that was
//! sorted and then slightly disturbed (late events in a time-ordered stream, a sorted index
//! after a few updates) has a small radius and sorts in O(n log k) instead of O(n log n).
//!
//! - [`radius`](radius()) and [`is_k_sorted`]: radius determination from the characteristic
//!   sequences `LR` (prefix maxima) and `RL` (suffix minima) and the disorder measure, fused
//!   into one pass over the keys when the radius is at most 4096 ([`mod@radius`]);
//! - [`rough_sort`], [`rough_sort_pairs`]: determine the radius, then sort with it
//!   ([`mod@sort`]: one pass over the keys for radii up to 1024, for keys alone one chained
//!   pass up to 4096, Altman-Chlebus merge passes beyond, a full merge sort when the radius is at
//!   least half the length), reporting the radius and the path ([`RoughReport`]);
//! - [`rough_sort_with_radius`], [`rough_sort_pairs_with_radius`]: trust a radius the caller
//!   knows, check it on the way, and on a too-small one return [`Error::RadiusTooSmall`] with
//!   the data untouched, or redetermine it ([`OnWrongRadius`]).
//!
//! Every function takes device buffers ([`sortlab_primitives::DeviceBuffer`]) and a
//! [`sortlab_primitives::Gpu`]; keys are `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total
//! order, ascending or descending, and key-value sorts are stable. The CPU twins (the
//! sequential halving algorithm, Altman-Chlebus on rayon, the radius in its three forms and the
//! bubble sort baseline) are `sortlab_cpu_reference::rough`.
//!
//! # Performance
//! NVIDIA H100 80GB HBM3, 2^28 `u32` keys of the k-sorted pattern (`sortlab-verify`'s
//! `k-sorted:K`), GPU time with CUDA events (2026-11-26, commit e383f15, `scripts/bench-gpu
//! roughsort` with `--pattern k-sorted:16,k-sorted:256,k-sorted:4096 --sizes 28 --reps 5`); CUB
//! `DeviceRadixSort::SortKeys` on the same input in the same run: 6.39-6.42 ms. A
//! device-to-device copy of the keys takes 0.72 ms, so one read of them is about 0.36 ms. The
//! ignored test `gpu_rough_timings` in `verify/tests/rough.rs` prints the same figures and the
//! sort alone with `k` given.
//!
//! | k | [`radius`](radius()) | [`rough_sort`] (radius + sort) | path | vs CUB |
//! |---|---|---|---|---|
//! | 16 | 0.48 ms | 1.27 ms | window | 5.03x |
//! | 256 | 0.46 ms | 1.90 ms | window | 3.37x |
//! | 4096 | 0.46 ms | 2.79 ms | chained | 2.30x |
//!
//! Key-value pairs (`u32` values) against `SortPairs` (8.43 ms) in the same run: 2.02x, 1.92x,
//! 1.03x. Before the branch-free window merges of 2026-11-26 (below) the `rough_bench` example
//! read 1.29 / 1.92 / 3.29 ms for the keys (k = 1024, the window path's largest: 2.96-2.99 ms,
//! now 2.70). The window merges stage each pair's second run reversed, so that a merge takes
//! the smaller of the two ends of what is left without bounds checks; the merge with bounds
//! checks had compiled to a branch per output that the warp ran both ways. Nsight Compute,
//! `sort_runs_chained` at k = 4096: 2.82 ms with 151 ALU instructions a key (86 % of the ALU
//! pipe) before, 2.69 ms after the branch-free merge alone; the narrowed second search, the
//! unrolled loads and stores of the chained pass, the odd-even merge sort of each thread's items
//! and the warp transposes (half-cleaners of stride 32 and more in registers) then took the
//! sort to about 2.35 ms. It is still bound by the ALU pipe: the warp's lane-crossing
//! compare-exchanges, the merge levels (about 13 instructions a key each, four of them) and
//! their searches. 3x CUB at k = 4096 needs rough_sort under 2.14 ms here.
//!
//! Earlier figures, for the record: 2026-11-25 at 56138a7 (H100, CUB 6.43 ms): 1.28 / 1.93 /
//! 3.72 ms (merge passes at k = 4096), 5.02x / 3.34x / 1.74x.
//! (`scripts/bench-gpu roughsort` with `--pattern k-sorted:16,k-sorted:256,k-sorted:4096`, median
//! of 7, CUB in the same run; key-value pairs against `SortPairs` (8.39 ms): 2.96x, 1.68x,
//! 1.04x, with the merge tiles of 4-byte keys, which pairs no longer take; 2^24 keys 2.96x,
//! 2.31x, 1.34x.) k = 1024 (the window path's largest) takes 2.98 ms
//! and k = 1025 (merge passes) 3.40 ms. Earlier the three rows read 1.82, 3.37 and 5.13 ms
//! (2026-11-24, before the grouped radius kernel, the single-select lane exchange and 32 keys a
//! thread) and 1.31, 2.03, 3.86 ms (before the radius's candidates were pruned by the best
//! distance so far and the merge tiles took 16 keys a thread). At k = 4096 the sort itself (3.2
//! ms: runs of 8192 sorted in shared memory, then one merge pass of about 1 ms) is bound by the
//! sorting network's ALU work (Nsight Compute at k = 1025: runs of 4096 1.90 ms at 90 % of the
//! ALU pipe, the merge pass 1.04 ms with 8 keys a thread, 61 % of DRAM), like the window path; 3x
//! CUB would need it under 1.7 ms. Since 2026-11-26 keys alone with k from 1025 to 4096 take
//! the chained pass ([`RoughPath::Chained`]: the offset merge done by each run's block against
//! the previous run's published upper half, no merge pass): NVIDIA H200, the `rough_bench`
//! example, same run, rough_sort at k = 4096 3.54 -> 3.24 ms, at k = 1025 3.23 -> 3.22; the
//! sort is now the run sort of 8192 keys and one merge level more, still ALU-bound. With CUB
//! in the same run (`scripts/bench-gpu roughsort`, H200, 2^28, median of 5, 2026-11-26 at
//! 93f8191; SortKeys 6.21-6.23 ms, SortPairs 6.87-6.92): keys k = 16 / 256 / 4096 **5.29x /
//! 3.31x / 1.93x**; pairs 1.80x / 1.42x / 0.81x (the pair rows vary between runs on that
//! machine: k = 16 3.65-4.18 ms, k = 4096 7.56-8.52, in runs of the same binary and of the one
//! before this change alike).
//!
//! Measured and not kept (H100, 2026-11-26, the `rough_bench` example, rough_sort at k = 16 /
//! 256 / 4096): every window sorted instead by a stable LSD radix sort of only the bits in which
//! its keys differ (primitives' `BlockRadixSort`; 8192 keys of this input differ in 14 bits, so
//! two or three passes), for the window path, the merge path's runs and its offset pass: 512
//! threads x 16 keys with 5-bit digits 2.34 / 2.44 / 3.90 ms, 6-bit 3.50 / 3.60 / 6.33, 7-bit
//! 3.69 / 3.88 / 6.60; 256 x 32 with 6 and 8 bits 3.51-3.73 / 3.66-3.84 / 6.23-6.71; the radix
//! runs with the global offset merge 4.40 at k = 4096; against 1.32 / 1.92 / 3.69 for the
//! networks in the same run. The packed-counter ranking scans 2^bits counters a thread every
//! pass: about 0.55 ms a pass at 2^28 with 5 bits, more with wider digits.
//!
//! The same kernels on an NVIDIA H200, 2026-11-26 at b630880, the same command (CUB SortKeys
//! 6.20-6.23 ms, SortPairs 6.90-6.94 in the same run): radius 0.43 / 0.42 / 0.42 ms and
//! [`rough_sort`] 1.17 / 1.86 / 3.54 ms at k = 16 / 256 / 4096, **5.29x / 3.34x / 1.76x**
//! SortKeys; pairs 2.54x / 1.43x / 0.92x SortPairs (CUB's pair sort gains more from the H200's
//! memory than the ALU-bound merge passes do); 2^24 keys 2.97x / 2.28x / 1.32x.
//!
//! The radius on the GPU (whole call, wall clock) against the sequential CPU
//! (`sortlab_cpu_reference::rough::radius_memory_saving`, the faster of the two sequential
//! forms), the device machine's CPU (2026-11-25): 2^16 keys 0.04 ms against 0.45 to 0.60 ms for
//! k = 2 to 4096 (0.11 to 0.12 ms against 0.43 to 0.44 for k = 5000 and n / 4, which take the
//! far path); 2^20 keys 0.04 to 0.05 ms (far path 0.13) against 7.6 to 10 ms; 2^24 keys 0.09
//! to 0.10 ms (far path 0.36) against 166 to 200 ms, for k = 2, 100, 4096, 5000 and n / 4. The window kernel is bound by the ALU work of its sorting
//! networks (Nsight Compute, 2^26 keys, k = 256, 512 × 16 keys: 91 % of the ALU pipe's peak,
//! 90 % SM throughput), and so is `radius_halo` at about two thirds of it (68 %, with 1.4 TB/s
//! read from memory).
//!
//! # Example
//! ```no_run
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//! use sortlab_roughsort::{radius, rough_sort};
//! let gpu = Gpu::new(0)?;
//! let mut keys = DeviceBuffer::from_host(&gpu, &[0u32, 2, 1, 3, 5, 4, 6])?;
//! assert_eq!(radius(&gpu, &keys, Order::Ascending)?, 1);
//! let report = rough_sort(&gpu, &mut keys, Order::Ascending)?;
//! assert_eq!(report.radius, 1);
//! assert_eq!(keys.to_host()?, [0, 1, 2, 3, 4, 5, 6]);
//! # Ok::<(), sortlab_roughsort::Error>(())
//! ```
#![deny(missing_docs)]

mod error;
pub mod policy;
pub mod radius;
pub mod sort;

pub use error::{Error, Result};
pub use policy::{RadiusPolicy, SortPolicy};
pub use radius::{is_k_sorted, radius};
pub use sort::{
    rough_sort, rough_sort_pairs, rough_sort_pairs_with_radius, rough_sort_with_radius,
    OnWrongRadius, RoughOptions, RoughPath, RoughReport,
};
