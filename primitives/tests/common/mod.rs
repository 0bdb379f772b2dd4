//! Helpers shared by primitives' integration tests: the seed (printed, overridable with
//! `SORTLAB_SEED`), the device, key generation, bit-exact comparison and NVRTC compile checks.
//!
//! Each test binary compiles this module on its own and uses part of it.
#![allow(dead_code)]

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::runtime::compile;
use sortlab_primitives::{Defines, Gpu, KernelSource, KeyBits, SortKey};

/// The seed of a test and a generator from it: the workspace's one seed helper, printed once
/// and fixed with `SORTLAB_SEED` (`sortlab_verify::seed`).
#[allow(unused_imports)]
pub use sortlab_verify::{rng_for, seed_for as seed};

/// Device 0 (the tests that call it are `#[ignore = "needs a CUDA device"]`).
pub fn gpu() -> Gpu {
    Gpu::new(0).expect("a CUDA device")
}

/// A key of random bits (for floats any bit pattern, NaN payloads included).
pub fn random_key<K: SortKey>(rng: &mut ChaCha8Rng) -> K {
    K::from_ordered_bits(<K::Bits as KeyBits>::from_u64(rng.gen()))
}

/// Whether two keys have the same bits (so -0.0 differs from +0.0, and NaNs by payload).
pub fn same_bits<K: SortKey>(a: K, b: K) -> bool {
    a.to_ordered_bits() == b.to_ordered_bits()
}

/// Keys whose order, signs and bit patterns are interesting.
pub trait Specials: SortKey {
    /// Extremes, 0, ±1, and for floats ±NaN (with payloads), ±inf, ±0.0, subnormals.
    fn specials() -> Vec<Self>;
}

macro_rules! specials_int {
    ($($t:ty),*) => {$(
        impl Specials for $t {
            fn specials() -> Vec<Self> {
                vec![<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX / 2, (<$t>::MIN / 2).wrapping_sub(1)]
            }
        }
    )*};
}
specials_int!(u32, i32, u64, i64);

macro_rules! specials_float {
    ($($t:ident),*) => {$(
        impl Specials for $t {
            fn specials() -> Vec<Self> {
                vec![
                    $t::NAN,
                    -$t::NAN,
                    $t::from_bits($t::NAN.to_bits() | 1),
                    $t::INFINITY,
                    $t::NEG_INFINITY,
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    $t::MIN_POSITIVE / 2.0,
                    -$t::MIN_POSITIVE / 2.0,
                    $t::MAX,
                    $t::MIN,
                ]
            }
        }
    )*};
}
specials_float!(f32, f64);

/// Compiles `src` with `defines` for `arch` with NVRTC: `None` when it compiles to a non-empty
/// cubin without a warning, else what went wrong, prefixed by `what`.
pub fn compile_failure(
    src: &KernelSource,
    defines: &Defines,
    arch: &str,
    what: &str,
) -> Option<String> {
    match compile(src, defines, arch) {
        Ok(c) if c.log.is_empty() => {
            assert!(!c.cubin.is_empty(), "{what}: empty cubin");
            None
        }
        Ok(c) => Some(format!("{what} warnings:\n{}", c.log)),
        Err(e) => Some(format!("{what}: {e}")),
    }
}

/// Asserts that `src` compiles for sm_90 without a warning with each of `configs`, listing
/// every failure.
pub fn assert_configs_compile(src: &KernelSource, configs: impl IntoIterator<Item = Defines>) {
    let failures: Vec<String> = configs
        .into_iter()
        .filter_map(|d| compile_failure(src, &d, "sm_90", &format!("{d:?}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
