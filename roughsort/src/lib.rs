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
//!   least half the length), reporting the radius and the path ([`RoughReport`]); past the
//!   crossover radius ([`sort::full_sort_past_k`]) `sortlab-gpu-sorts`' radix sort instead,
//!   with the radius pass stopped early ([`RoughPath::Radix`]), so that nearly sorted input
//!   never costs much more than a full sort;
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
//! NVIDIA H100, 2^28 `u32` k-sorted keys, radius included, against CUB's `DeviceRadixSort` in
//! the same call: keys 5.05x / 2.28x faster at k = 16 / 4096 and never below 1.04x at any
//! radius (the radix fallback past the crossover). The current table, the crossover, the tuning
//! measurements and what was tried and not kept are in the crate's `README.md`.
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
    rough_sort, rough_sort_pairs, rough_sort_pairs_with_fallback, rough_sort_pairs_with_radius,
    rough_sort_with_fallback, rough_sort_with_radius, Fallback, OnWrongRadius, RoughOptions,
    RoughPath, RoughReport,
};
