//! [`ReduceKey`]: the sum type of each key type.

use std::fmt;

use crate::key::{DeviceCopy, SortKey};

/// A key that can be summed: every [`SortKey`] (`u32`, `i32`, `f32`, `u64`, `i64`, `f64`).
///
/// `u32` and `i32` sum into 64 bits (exact for fewer than 2^32 keys); `u64` and `i64` sum in
/// their own type, wrapping; `f32` and `f64` sum in their own type (rounding, in an order each
/// implementation documents). The host-side operations here define the same sums for the CPU
/// engine:
/// ```
/// use sortlab_primitives::reduce::ReduceKey;
/// assert_eq!(<u32 as ReduceKey>::sum_add(u32::MAX.to_sum(), 1u32.to_sum()), 1u64 << 32);
/// assert_eq!(<i64 as ReduceKey>::sum_add(i64::MAX.to_sum(), 1i64.to_sum()), i64::MIN);
/// assert_eq!(<i32 as ReduceKey>::SUM_CUDA_TYPE, "long long");
/// assert_eq!((-1i32).to_sum(), -1i64);
/// ```
pub trait ReduceKey: SortKey {
    /// The type a sum of these keys is returned in.
    type Sum: DeviceCopy + PartialEq + fmt::Debug + fmt::Display;
    /// CUDA C type of [`ReduceKey::Sum`] (`"unsigned long long"`, `"long long"`, `"float"`,
    /// `"double"`).
    const SUM_CUDA_TYPE: &'static str;
    /// The sum of no keys: `0` (`+0.0` for floats).
    const SUM_ZERO: Self::Sum;
    /// The key widened to the sum type (sign-extended for `i32`).
    fn to_sum(self) -> Self::Sum;
    /// `a + b` in the sum type: wrapping for integers, IEEE addition for floats.
    fn sum_add(a: Self::Sum, b: Self::Sum) -> Self::Sum;
    /// The sum as `f64` (rounding where needed), for tolerances and reports.
    fn sum_to_f64(s: Self::Sum) -> f64;
    /// `a + b` in the key's own type, the scan's sum: wrapping for integers, IEEE addition for
    /// floats.
    fn key_add(a: Self, b: Self) -> Self;
}

macro_rules! int_reduce_key {
    ($($t:ty => $s:ty, $cuda:literal);* $(;)?) => {$(
        impl ReduceKey for $t {
            type Sum = $s;
            const SUM_CUDA_TYPE: &'static str = $cuda;
            const SUM_ZERO: $s = 0;
            #[inline]
            fn to_sum(self) -> $s {
                self as $s
            }
            #[inline]
            fn sum_add(a: $s, b: $s) -> $s {
                a.wrapping_add(b)
            }
            #[inline]
            fn sum_to_f64(s: $s) -> f64 {
                s as f64
            }
            #[inline]
            fn key_add(a: $t, b: $t) -> $t {
                a.wrapping_add(b)
            }
        }
    )*};
}

int_reduce_key! {
    u32 => u64, "unsigned long long";
    i32 => i64, "long long";
    u64 => u64, "unsigned long long";
    i64 => i64, "long long";
}

macro_rules! float_reduce_key {
    ($($t:ty => $cuda:literal);* $(;)?) => {$(
        impl ReduceKey for $t {
            type Sum = $t;
            const SUM_CUDA_TYPE: &'static str = $cuda;
            const SUM_ZERO: $t = 0.0;
            #[inline]
            fn to_sum(self) -> $t {
                self
            }
            #[inline]
            fn sum_add(a: $t, b: $t) -> $t {
                a + b
            }
            #[inline]
            fn sum_to_f64(s: $t) -> f64 {
                s as f64
            }
            #[inline]
            fn key_add(a: $t, b: $t) -> $t {
                a + b
            }
        }
    )*};
}

float_reduce_key! {
    f32 => "float";
    f64 => "double";
}
