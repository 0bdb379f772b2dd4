//! # sortlab-cpu-reference
//!
//! The CPU engine of sortlab: reference sorts on rayon, and the checkers the whole project uses
//! to judge a result. It is the oracle every GPU algorithm is tested against, and the engine to
//! use where no GPU is present. It depends on `sortlab-primitives` for key types only, never on a
//! GPU crate.
//!
//! - [`sort`]: keys-only and key-value sorts, stable and unstable, parallel and sequential;
//!   [`radix`], [`merge`], [`bitonic`] and [`sample`]: the twins of the GPU sorts of those
//!   names;
//!   [`arrays`]: many small arrays sorted independently, and [`top_k`] of each.
//! - [`check`]: sorted, permutation, bitwise equality (keys and pairs), radius and k-sortedness,
//!   interval order, per-array order; each failure is a [`CheckError`] saying where.
//! - [`radius`]: the radius of a sequence (`LR`, `RL`, `DM`; sequential, memory-saving, rayon)
//!   and k-sortedness; [`rough`] sorts k-sorted input (and re-exports the radius functions).
//!
//! Keys are `u32`, `i32`, `f32`, `u64`, `i64`, `f64` ([`sortlab_primitives::SortKey`]), always
//! compared by IEEE total order (as [`f32::total_cmp`]:
//! `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), never by `PartialOrd`;
//! [`sortlab_primitives::Order::Descending`] is the reverse of that order.
//!
//! ```
//! use sortlab_cpu_reference::{check, sort};
//! use sortlab_primitives::Order;
//!
//! let input = vec![0.5f64, f64::NAN, -0.0, 0.0, -3.0];
//! let mut keys = input.clone();
//! sort::sort(&mut keys, Order::Ascending);
//! check::check_sorted(&keys, Order::Ascending)?;
//! check::check_permutation(&input, &keys)?;
//! assert_eq!(check::radius(&input, Order::Ascending), 4);
//! # Ok::<(), sortlab_cpu_reference::CheckError>(())
//! ```
#![deny(missing_docs)]

pub mod approx;
pub mod arrays;
pub mod bitonic;
pub mod check;
mod error;
pub mod merge;
pub mod radius;
pub mod radix;
pub mod reduce;
pub mod rough;
pub mod sample;
pub mod scan;
pub mod sort;
#[cfg(test)]
mod test_inputs;
pub mod top_k;

pub use error::{CheckError, Error};

/// Inputs shorter than this are handled on the calling thread by the linear checks and the
/// `_par` radius and sort functions; longer ones are cut into pieces of at least this many
/// keys. A linear pass over 2^14 keys takes a few microseconds, about what handing work to
/// rayon's pool costs (order of magnitude, not tuned).
pub(crate) const PAR_MIN_LEN: usize = 1 << 14;
