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
//!   into one pass over the keys when the radius is at most 4096, one more up to 16,384
//!   ([`mod@radius`]);
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
//! `k-sorted:K`), GPU time with CUDA events, CUB `DeviceRadixSort` on the same input in the same
//! run (2026-11-26, commit 9bc547e, kernels of e383f15, `scripts/bench-gpu roughsort` with
//! `--pattern k-sorted:16,k-sorted:256,k-sorted:4096 --sizes 28 --reps 5`, two runs that agree
//! within 1%; `SortKeys` 6.39-6.42 ms, `SortPairs` 8.41-8.46 ms). A device-to-device copy of the
//! keys takes 0.72 ms, so one read of them is about 0.36 ms. The ignored test
//! `gpu_rough_timings` in `verify/tests/rough.rs` prints the same figures and the sort alone
//! with `k` given.
//!
//! | k | [`radius`](radius()) | [`rough_sort`] (radius + sort) | path | keys vs CUB | [`rough_sort_pairs`] | pairs vs CUB |
//! |---|---|---|---|---|---|---|
//! | 16 | 0.48 ms | 1.27 ms | window | 5.07x | 2.70 ms | 3.13x |
//! | 256 | 0.45 ms | 1.88 ms | window | 3.41x | 4.38 ms | 1.93x |
//! | 4096 | 0.46 ms | 2.80 ms | chained | 2.30x | 7.02 ms | 1.20x |
//!
//! (Pairs: `u32` values, against `SortPairs`.) k = 1024, the window path's largest radius, takes
//! 2.70 ms for keys and 6.03 ms for pairs. The pair rows are the steady state of calls made one
//! after another: the 2nd to 4th calls after the device's memory pool last had to grow for a
//! call's 2 GiB of scratch were 1.1 to 1.7 ms slower each (the driver mapping memory, in the
//! host's part of the call), which made earlier tables' pair rows vary between runs (k = 16
//! 3.66 to 4.30 ms); [`sortlab_primitives::Gpu::reserve_pool`] makes the room beforehand.
//!
//! **Against a full device sort: the crossover.** Past the chained path's reach (k = 4096) the
//! sort takes merge passes in device memory, and past the wide radius pass's tile (k = 16,384)
//! the radius takes the far path; CUB `SortKeys` takes 6.4 ms at every radius. Same machine,
//! 2^28 `u32`, rough_sort with its radius (`rough_bench`, and `scripts/bench-gpu roughsort`
//! with CUB in the same run for 8192, 16,384 and 32,768, 2026-11-26, commit 3c883af):
//!
//! | k | 4096 | 8192 | 16,384 | 16,385 | 20,000 | 32,768 | 70,000 |
//! |---|---|---|---|---|---|---|---|
//! | rough_sort, ms | 2.80 | 5.04 | 6.07 | 7.10 | 9.63 | 9.66 | 11.7 |
//! | keys vs CUB | 2.30x | 1.27x | 1.06x | 0.90x | 0.66x | 0.66x | 0.55x |
//! | pairs vs `SortPairs` | 1.20x | 0.88x | 0.73x | - | - | 0.53x | - |
//!
//! So rough_sort beats a full radix sort of keys up to k = 16,384 (pairs up to k = 4096), about
//! a 2^14-th of this length; beyond, a caller that knows its radius is that large does better
//! with a full sort (sortlab-gpu-sorts' radix sort, 5.6-5.8 ms here). Before the wide radius pass
//! (de4ce0b) the radius above 4096 always took the far path (3.66 ms) and the crossover lay
//! between k = 4096 and 8192 (k = 8192 0.84x, 16,384 0.75x).
//!
//! **What bounds it.** The radius reads the keys once (81 % of DRAM bandwidth, Nsight Compute).
//! The sorts are bound by the ALU pipe of their sorting networks and merges: `sort_runs_chained`
//! at k = 4096 (about 2.35 ms) was at 86 % of the ALU pipe with 151 ALU instructions a key
//! before the branch-free window merges, and its largest costs are still the warps'
//! lane-crossing compare-exchanges, the four merge levels in shared memory (about 13
//! instructions a key each) and their merge-path searches. 3x CUB at k = 4096 needs rough_sort
//! under 2.14 ms on this machine.
//!
//! **History** (same command and machine unless named; ms for k = 16 / 256 / 4096):
//! - 2026-11-24: 1.82 / 3.37 / 5.13; then 1.31 / 2.03 / 3.86 (grouped radius kernel,
//!   single-select lane exchange, 32 keys a thread).
//! - 2026-11-25, 56138a7: 1.28 / 1.93 / 3.72, 5.02x / 3.34x / 1.74x (merge passes at k = 4096;
//!   the radius's candidates pruned by the best distance so far, merge tiles of 16 keys a
//!   thread). At k = 1025 the runs of 4096 took 1.90 ms at 90 % of the ALU pipe and the global
//!   merge pass 1.04 ms at 61 % of DRAM.
//! - 2026-11-26, NVIDIA H200 (CUB `SortKeys` 6.20-6.23 ms): at b630880 1.17 / 1.86 / 3.54 ms,
//!   5.29x / 3.34x / 1.76x; at 93f8191, with the chained pass for keys with k from 1025 to 4096
//!   ([`RoughPath::Chained`]: the offset merge done by each run's block against the previous
//!   run's published upper half, no merge pass), 5.29x / 3.31x / **1.93x** (pairs 1.80x /
//!   1.42x / 0.81x; the H200's pair rows varied between runs of the same binary: k = 16 3.65-4.18
//!   ms, the memory pool's growth inside the timed calls, see above).
//! - 2026-11-26, e383f15 (this table's kernels): window merges without bounds checks or
//!   branches (each pair's second run staged reversed, so that a merge takes the smaller of the
//!   two ends of what is left; the bounds-checked merge had compiled to a branch per output that
//!   the warp ran both ways), the second chain's search narrowed, odd-even merge sorts in registers, warp
//!   transposes for the half-cleaners of stride 32 and more, 8-byte windows capped at 64
//!   registers: k = 4096 3.29 -> 2.81 ms, k = 1024 2.96 -> 2.70 (`rough_bench`, same run); u64
//!   keys at 2^26 and k = 16 1.12 -> 0.86 ms.
//!
//! **Measured and not kept** (H100, 2026-11-26, rough_sort at k = 16 / 256 / 4096): every window
//! sorted by a stable LSD radix sort of only the bits in which its keys differ (primitives'
//! `BlockRadixSort`; 8192 keys of this input differ in 14 bits): 512 threads x 16 keys with 5-bit
//! digits 2.34 / 2.44 / 3.90 ms, 6-bit 3.50 / 3.60 / 6.33, 7-bit 3.69 / 3.88 / 6.60; 256 x 32
//! with 6 and 8 bits 3.51-3.73 / 3.66-3.84 / 6.23-6.71, against 1.32 / 1.92 / 3.69 for the
//! networks then (the packed-counter ranking scans 2^bits counters a thread every pass: about
//! 0.55 ms a pass at 2^28 with 5 bits). The global merge pass without bounds checks (see
//! `merge_pass` in `sort.cu`): 1% faster for u32, 3% slower for u64 pairs.
//!
//! The radius on the GPU (whole call, wall clock) against the sequential CPU
//! (`sortlab_cpu_reference::rough::radius_memory_saving`, the faster of the two sequential
//! forms), the device machine's CPU (2026-11-25): 2^16 keys 0.04 ms against 0.45 to 0.60 ms for
//! k = 2 to 4096 (0.11 to 0.12 ms against 0.43 to 0.44 for k = 5000 and n / 4, which take the
//! far path); 2^20 keys 0.04 to 0.05 ms (far path 0.13) against 7.6 to 10 ms; 2^24 keys 0.09
//! to 0.10 ms (far path 0.36) against 166 to 200 ms, for k = 2, 100, 4096, 5000 and n / 4.
//! `radius_halo` runs at about two thirds of the ALU pipe (68 %, with 1.4 TB/s read from memory).
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
