//! # sortlab-registry
//!
//! The one algorithm registry of the workspace (DESIGN.md section 5): every sort by name, with a
//! one-line description, its stability, its CPU entry point (its twin in
//! `sortlab-cpu-reference`) and, where one exists, its GPU entry point; and, where the
//! algorithm sorts key-value pairs, its pair entry points per engine ([`CpuPairs`],
//! [`GpuPairs`]: one per key type and `u32`/`u64` value type, with their stability). The `sortlab` command
//! reads it (`--algo NAME`, `sortlab list`, `sortlab bench sort` rows) and the verification suite
//! runs every entry (`verify/tests/registry.rs`).
//!
//! ## Adding an algorithm
//!
//! 1. its module in the algorithm crate (`mod.rs` with the entry points, the `.cu` beside it);
//! 2. its CPU twin in `sortlab-cpu-reference`, under the same name;
//! 3. one entry in [`ALGOS`] (with a one-line adapter in `adapters.rs` where the entry point
//!    takes options: the registry's shapes are [`CpuSortFn`] and [`GpuSortFn`]), with its
//!    key-value sorts (`.with_cpu_pairs(..)`, `.with_gpu_pairs(..)`: [`CpuPairsFn`],
//!    [`GpuPairsFn`]) where it has them;
//! 4. its anchor row in `bench/anchors`, for `scripts/bench-gpu`'s ratio.
//!
//! The CLI and the suite pick it up from the entry: nothing else to register.
//!
//! ```
//! use sortlab_primitives::Order;
//! let algo = sortlab_registry::find("reference").expect("registered");
//! let mut keys = vec![3u32, 1, 2];
//! (algo.cpu_for::<u32>().expect("every key type"))(&mut keys, Order::Ascending);
//! assert_eq!(keys, [1, 2, 3]);
//! ```
#![deny(missing_docs)]

mod adapters;
mod algo;
mod pairs;
mod pick;
mod table;

pub use algo::{Algo, CpuSort, CpuSortFn, GpuSort, GpuSortFn};
pub use pairs::{CpuPairs, CpuPairsFn, GpuPairs, GpuPairsFn};
pub use table::{find, gpu_names, names, ALGOS};
