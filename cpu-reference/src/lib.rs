//! # sortlab-cpu-reference
//!
//! The CPU engine of sortlab: reference sorts on rayon, and the checkers the whole project uses
//! to judge a result. It is the oracle every GPU algorithm is tested against, and the engine to
//! use where no GPU is present. It depends on `sortlab-primitives` for key types only, never on a
//! GPU crate.
//!
//! - [`sort`]: keys-only and key-value sorts, stable and unstable, parallel and sequential.
//! - [`check`]: sorted, permutation, bitwise equality (keys and pairs), radius and k-sortedness,
//!   interval order, per-array order; each failure is a [`CheckError`] saying where.
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
pub mod check;
mod error;
pub mod radix;
pub mod reduce;
pub mod rough;
pub mod scan;
pub mod sort;

pub use error::{CheckError, Error};
