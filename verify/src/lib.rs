//! # sortlab-verify
//!
//! sortlab's verification suite (DESIGN.md §5): seeded input generators, edge-case lengths,
//! checkers against the CPU engine, and a property suite that is written once and switched on
//! per algorithm in one line.
//!
//! - [`patterns`]: the input shapes ([`Pattern`]) and the lengths of many small arrays
//!   ([`ArrayLengths`]);
//! - [`gen`]: [`generate`], deterministic for (pattern, length, seed, key type), the k-sorted
//!   generator of exact radius ([`k_sorted`]) and many small arrays ([`small_arrays`]);
//! - [`seed`](mod@seed): the run's seed, printed once and overridable with `SORTLAB_SEED`;
//! - [`lengths`]: edge lengths (0, 1, 2, warp, block and tile sizes ±1, 2^k ±1, large);
//! - [`suite`]: the [`SortAlgorithm`] trait, the check functions and the [`sort_suite!`] macro;
//! - [`algorithms`]: the CPU engine's sorts as [`SortAlgorithm`]s, and [`sort_algorithm!`] to
//!   make one from a host sort's two functions or from two bodies;
//! - [`testing`]: helpers for tests of device sorts (a host slice through a device buffer);
//! - [`check`]: the checkers (`check_sorted`, `check_permutation`, ...), re-exported from
//!   `sortlab-cpu-reference`.
//!
//! # Example
//! An algorithm joins the suite in one line of a test file:
//! ```ignore
//! sortlab_verify::sort_suite!(cpu_stable, sortlab_verify::algorithms::CpuStable);
//! // A GPU algorithm: every generated test is ignored unless run with --include-ignored.
//! sortlab_verify::sort_suite!(radix, MyGpuRadix::new(), ignore = "needs a CUDA device");
//! ```
//! The checks are plain functions too:
//! ```
//! use sortlab_verify::{algorithms::CpuStable, check_keys, Order, Pattern};
//! check_keys::<f32, _>(&CpuStable, Pattern::FloatSpecials, 1000, Order::Descending, 42);
//! ```
#![deny(missing_docs)]

pub mod algorithms;
pub mod gen;
pub mod lengths;
pub mod patterns;
pub mod seed;
pub mod suite;
pub mod testing;

pub use gen::{array_offsets, generate, k_sorted, small_arrays, specials};
pub use lengths::{edge_lengths, large_lengths};
pub use patterns::{ArrayLengths, ParsePatternError, Pattern};
pub use seed::{rng_for, seed, seed_for, SEED_ENV};
/// The workspace's checkers (sorted, same multiset, equal to the reference, k-sorted, interval
/// order, per-array order), re-exported from the CPU engine: one definition of each.
pub use sortlab_cpu_reference::check;
pub use sortlab_cpu_reference::CheckError;
pub use sortlab_primitives::{KeyType, Order, SortKey, SortValue};
pub use suite::{check_keys, check_pairs, Failure, IndexValue, SortAlgorithm};
