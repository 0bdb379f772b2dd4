//! # sortlab-approxsort
//!
//! Interval-based approximate sort on the GPU (Xiao, Chen, Sun, "High Performance Approximate
//! Sort Algorithm Using GPUs"), made exact and fast, and its refinement into a full sort.
//!
//! # Overview
//! [`approx_sort`] moves every key into one of [`ApproxOptions::intervals`] intervals (the
//! paper's default, 10,000): every key of interval `i` precedes-or-equals every key of interval
//! `i + 1`, and inside an interval keys are in no particular order. Many applications need no
//! more (coarse ordering for rendering, bucketing, top-k candidates, load balancing), and it
//! costs a fraction of a full sort. The [`ApproxResult`] holds the interval boundaries on the
//! device (`intervals + 1` offsets) and, on request, a quality report
//! ([`ApproxResult::quality`]: non-empty intervals, largest interval, radius of the output).
//! [`refine`] sorts inside every interval, which makes the output a full sort (a bucket sort);
//! [`refine_with`] with [`RefineVariant::Arrays`] sorts the intervals as arrays with
//! `sortlab_arraysort` instead.
//!
//! - [`ApproxVariant::Paper`] runs the paper's steps as published (a reduction for min and
//!   max, a kernel writing every key's interval and offset to device arrays, a scan, a
//!   scatter); [`ApproxVariant::Fast`] (the default) makes as few passes over memory as the
//!   data allows (see [`ApproxVariant`]).
//! - [`Intervals::EqualWidth`] (the default, the paper's) spaces boundaries evenly between the
//!   smallest and largest key; [`Intervals::Sampled`] takes them from a sorted random sample,
//!   so intervals hold about `n / intervals` keys whatever the distribution.
//!
//! The interval of a key is defined on its ordered bits, exactly as the CPU twin
//! `sortlab_cpu_reference::approx` defines it: the two engines put every key into the same
//! interval. What the paper leaves wrong is fixed there: the projection
//! `(v - min) * (NUM_INTERVAL - 1) / (max - min)` overflows 32-bit arithmetic and divides by
//! zero when all keys are equal; here it is `floor((b - lo) * scale / 2^W)` with `scale =
//! floor(intervals * 2^W / (span + 1))` in exact integer arithmetic (every distinct key its own
//! interval when there are fewer distinct bit patterns than intervals); floats, negative
//! numbers, NaN and infinities go through the ordered bits of DESIGN.md §3; 64-bit keys use
//! 64-bit arithmetic throughout, so no interval is lost to rounding.
//!
//! Entry points: [`approx_sort`] / [`approx_sort_pairs`] (in place: the two-pass scatter writes
//! back into the buffers, a one-pass scatter's output replaces them), [`approx_sort_into`] /
//! [`approx_sort_pairs_into`] (into caller buffers), [`approx_sort_with_scratch`] /
//! [`approx_sort_pairs_with_scratch`] (caller scratch of [`scratch_bytes`] /
//! [`scratch_bytes_pairs`]), host-slice conveniences [`approx_sort_host`],
//! [`approx_sort_pairs_host`], [`refine_host`], [`refine_pairs_host`]. [`PHASES_ENV`] makes every
//! call print its phases' kernel times (a diagnostic).
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, ascending or descending by IEEE total order
//! (`-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`); values of 4 or 8 bytes travel with
//! their keys. For floats, equal widths are equal in ordered-bit space (logarithmic in value):
//! use [`Intervals::Sampled`] for floats spread over many binades.
//!
//! # Stability
//! Not stable: the order inside an interval, and of equal keys' values after [`refine`],
//! depends on the timing of atomics. The CPU twin is stable.
//!
//! # Performance
//! [`ApproxVariant::Fast`] reads the keys once for min and max and once for the counts, then
//! scatters them in tiles that are first grouped by destination in shared memory, so that the
//! writes are runs of consecutive places: with up to [`ApproxPolicy::direct_max_intervals`]
//! intervals in one pass (16 bytes moved per 4-byte key), with more in two (a coarse pass into
//! about `sqrt(intervals)` bins of a power of two intervals each, then the intervals: 24 bytes).
//! Up to [`ApproxPolicy::wide_max_intervals`] (where two words per interval and a tile of about
//! 16,000 keys fit shared memory: 10,000 intervals do, 40,000 do not) both passes are the wide
//! scatter ([`ApproxPath::WideTwoPass`]): one block per multiprocessor, large tiles, each tile
//! visiting only the bins between its smallest and largest. For large equal-width sorts
//! ([`ApproxPolicy::lead_min`], 2^23 keys) the min-max pass also counts the keys' leading 14
//! bits, the coarse bins are equal-width ranges of them, and the coarse pass counts the
//! intervals itself: the count pass is skipped (20 bytes a 4-byte key). Every kernel is a
//! programmatic dependent launch ([`sortlab_primitives::LaunchConfig::dependent`]).
//!
//! About 3x CUB's DeviceRadixSort SortKeys and 2.2x SortPairs at 2^28 `u32` keys (H100 and H200,
//! 10,000 intervals). The current table (device, date, command, ratios at 2^20, 2^24, 2^28) and
//! what was tried and not kept are in the crate's `README.md`.
//!
//! # Example
//! ```no_run
//! use sortlab_approxsort::{approx_sort, refine, ApproxOptions, Intervals};
//! use sortlab_primitives::{DeviceBuffer, Gpu, Order};
//!
//! let gpu = Gpu::new(0)?;
//! let host: Vec<u32> = (0..1_000_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
//! let mut keys = DeviceBuffer::from_host(&gpu, &host)?;
//! let opts = ApproxOptions { intervals: 10_000, boundaries: Intervals::Sampled, ..Default::default() };
//! let r = approx_sort(&gpu, &mut keys, &opts)?;
//! let q = r.quality(&keys)?;
//! println!("{} non-empty intervals, largest {}, radius {}", q.non_empty, q.largest, q.radius);
//! refine(&gpu, &mut keys, &r)?; // now fully sorted
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```
#![deny(missing_docs)]

mod kernels;
mod options;
mod phases;
mod policy;
mod quality;
mod refine;
mod result;
mod sample;
mod sort;

pub use kernels::{module_defines, SOURCE};
pub use options::{ApproxOptions, ApproxVariant, Intervals, DEFAULT_INTERVALS, MAX_INTERVALS};
pub use phases::PHASES_ENV;
pub use policy::ApproxPolicy;
pub use refine::{
    refine, refine_host, refine_pairs, refine_pairs_host, refine_pairs_with, refine_with,
    RefineStats, RefineVariant,
};
pub use result::{ApproxPath, ApproxQuality, ApproxResult};
pub use sample::{sample_len, MAX_SAMPLE, SAMPLE_PER_INTERVAL, SAMPLE_SEED, SAMPLE_STEP};
pub use sort::{
    approx_sort, approx_sort_host, approx_sort_into, approx_sort_into_with_policy,
    approx_sort_pairs, approx_sort_pairs_host, approx_sort_pairs_into,
    approx_sort_pairs_into_with_policy, approx_sort_pairs_with_scratch, approx_sort_with_scratch,
    scratch_bytes, scratch_bytes_pairs,
};
