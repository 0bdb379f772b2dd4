//! Shared test helpers: seeded generators per key type and an independent reference order.
#![allow(dead_code)]

use std::cmp::Ordering;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::{Order, SortKey};

/// A seeded generator (fixed seeds keep failures reproducible).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Lengths every sort is tried on: tiny, odd, and past rayon's sequential cut-offs.
pub const LENGTHS: [usize; 9] = [0, 1, 2, 3, 5, 31, 100, 1000, 20_000];

/// A key type as the tests see it: an order that does not go through `to_ordered_bits`, and
/// generators.
pub trait TestKey: SortKey {
    /// Total order by std (`Ord::cmp` for integers, the inherent `total_cmp` for floats).
    fn ref_cmp(&self, other: &Self) -> Ordering;
    /// A random key; with `dup`, from a handful of values so that duplicates abound.
    fn gen(rng: &mut ChaCha8Rng, dup: bool) -> Self;
    /// The key with small "value" `i` (monotone in `i`).
    fn small(i: u32) -> Self;
}

/// Reference order in `order`.
pub fn ref_cmp_in<K: TestKey>(a: &K, b: &K, order: Order) -> Ordering {
    match order {
        Order::Ascending => a.ref_cmp(b),
        Order::Descending => b.ref_cmp(a),
    }
}

/// Random keys.
pub fn keys<K: TestKey>(n: usize, dup: bool, seed: u64) -> Vec<K> {
    let mut r = rng(seed);
    (0..n).map(|_| K::gen(&mut r, dup)).collect()
}

/// Bits of every key, for exact comparison.
pub fn bits<K: SortKey>(keys: &[K]) -> Vec<K::Bits> {
    keys.iter().map(|k| k.to_ordered_bits()).collect()
}

macro_rules! int_key {
    ($t:ty) => {
        impl TestKey for $t {
            fn ref_cmp(&self, other: &Self) -> Ordering {
                Ord::cmp(self, other)
            }
            fn gen(rng: &mut ChaCha8Rng, dup: bool) -> Self {
                if dup {
                    // -4..4 for signed, 0..8 for unsigned, plus the extremes.
                    match rng.gen_range(0..10) {
                        0 => <$t>::MIN,
                        1 => <$t>::MAX,
                        _ => (rng.gen_range(0..8u8) as $t).wrapping_sub(if <$t>::MIN == 0 {
                            0
                        } else {
                            4
                        }),
                    }
                } else if rng.gen_bool(0.5) {
                    rng.gen()
                } else {
                    rng.gen_range(0..1000u16) as $t
                }
            }
            fn small(i: u32) -> Self {
                i as $t
            }
        }
    };
}
int_key!(u32);
int_key!(i32);
int_key!(u64);
int_key!(i64);

macro_rules! float_key {
    ($t:ty, $u:ty, $sub:expr, $nan_payload:expr) => {
        impl TestKey for $t {
            fn ref_cmp(&self, other: &Self) -> Ordering {
                <$t>::total_cmp(self, other)
            }
            fn gen(rng: &mut ChaCha8Rng, dup: bool) -> Self {
                let specials: [$t; 14] = [
                    <$t>::NAN,
                    -<$t>::NAN,
                    <$t>::from_bits($nan_payload),
                    <$t>::from_bits($nan_payload | (1 << (<$u>::BITS - 1))),
                    <$t>::INFINITY,
                    <$t>::NEG_INFINITY,
                    0.0,
                    -0.0,
                    $sub,
                    -$sub,
                    <$t>::MIN_POSITIVE,
                    -<$t>::MIN_POSITIVE,
                    <$t>::MAX,
                    <$t>::MIN,
                ];
                if dup {
                    let few: [$t; 4] = [1.0, -1.0, 0.5, 2.0];
                    return if rng.gen_bool(0.5) {
                        specials[rng.gen_range(0..specials.len())]
                    } else {
                        few[rng.gen_range(0..few.len())]
                    };
                }
                match rng.gen_range(0..4) {
                    0 => specials[rng.gen_range(0..specials.len())],
                    1 => <$t>::from_bits(rng.gen::<$u>()),
                    _ => (rng.gen::<f64>() * 200.0 - 100.0) as $t,
                }
            }
            fn small(i: u32) -> Self {
                i as $t
            }
        }
    };
}
// Smallest subnormals and a quiet NaN with a payload.
float_key!(f32, u32, 1e-45f32, 0x7fc0_1234);
float_key!(f64, u64, 5e-324f64, 0x7ff8_0000_0000_1234);

/// Runs `$body` once per key type, with `$K` bound to the type.
#[macro_export]
macro_rules! for_each_key {
    ($f:ident) => {
        $f::<u32>();
        $f::<i32>();
        $f::<f32>();
        $f::<u64>();
        $f::<i64>();
        $f::<f64>();
    };
}
