//! Key types at run time: [`CliKey`] and [`with_key_type!`](crate::with_key_type), which turns
//! a [`KeyType`] chosen on the command line into a call of a generic function.

use sortlab_primitives::{KeyType, SortKey};

use crate::error::CliError;

/// A [`SortKey`] the command can dispatch to: it knows its [`KeyType`].
pub trait CliKey: SortKey {
    /// The run-time name of this type.
    const TYPE: KeyType;
}

macro_rules! cli_key {
    ($($t:ident => $v:ident),*) => {$(
        impl CliKey for $t {
            const TYPE: KeyType = KeyType::$v;
        }
    )*};
}
cli_key!(u32 => U32, i32 => I32, f32 => F32, u64 => U64, i64 => I64, f64 => F64);

/// Runs `$body` with the type alias `$K` bound to the Rust type of the [`KeyType`] `$t`.
///
/// ```
/// use sortlab_cli::{with_key_type, CliKey};
/// use sortlab_primitives::{KeyType, SortKey};
/// fn size<K: CliKey>() -> usize { K::SIZE }
/// let t = KeyType::F64;
/// assert_eq!(with_key_type!(t, K => size::<K>()), 8);
/// ```
#[macro_export]
macro_rules! with_key_type {
    ($t:expr, $K:ident => $body:expr) => {
        match $t {
            $crate::__private::KeyType::U32 => {
                type $K = u32;
                $body
            }
            $crate::__private::KeyType::I32 => {
                type $K = i32;
                $body
            }
            $crate::__private::KeyType::F32 => {
                type $K = f32;
                $body
            }
            $crate::__private::KeyType::U64 => {
                type $K = u64;
                $body
            }
            $crate::__private::KeyType::I64 => {
                type $K = i64;
                $body
            }
            $crate::__private::KeyType::F64 => {
                type $K = f64;
                $body
            }
        }
    };
}

/// Parses a key type name (`u32`, `i32`, `f32`, `u64`, `i64`, `f64`).
pub fn parse_key_type(s: &str) -> Result<KeyType, CliError> {
    s.parse().map_err(|_| CliError::UnknownKeyType {
        given: s.to_string(),
        known: KeyType::ALL.map(|t| t.name()).join(", "),
    })
}
