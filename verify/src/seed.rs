//! The run's seed: read from `SORTLAB_SEED` or drawn once per process, and printed, so that any
//! failure can be reproduced (DESIGN.md §5).
//!
//! Every test derives its own seed from the base seed and its name with [`seed_for`], so one
//! `SORTLAB_SEED=N` reproduces every test of a failing run, whichever subset is run.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The environment variable that fixes the base seed (decimal, or hexadecimal with `0x`).
pub const SEED_ENV: &str = "SORTLAB_SEED";

static SEED: OnceLock<u64> = OnceLock::new();

/// Error of parsing a seed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid seed `{given}`: expected a decimal number or 0x-prefixed hexadecimal u64")]
pub struct SeedError {
    /// The string given.
    pub given: String,
}

/// Parses a seed: decimal (`12345`) or hexadecimal with a `0x` / `0X` prefix (`0x3039`);
/// surrounding white space and `_` separators are allowed.
///
/// # Example
/// ```
/// use sortlab_verify::seed::parse_seed;
/// assert_eq!(parse_seed("12345"), Ok(12345));
/// assert_eq!(parse_seed(" 0x3039 "), Ok(12345));
/// assert!(parse_seed("twelve").is_err());
/// ```
pub fn parse_seed(s: &str) -> Result<u64, SeedError> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| SeedError {
        given: s.to_string(),
    })
}

/// The base seed of this process.
///
/// Read from [`SEED_ENV`] (`SORTLAB_SEED`) if set, otherwise drawn from OS randomness and the
/// clock. The first call prints
/// `sortlab-verify: seed = N (set SORTLAB_SEED=N to reproduce)` to stderr; every later call
/// returns the same value without printing.
///
/// # Panics
/// If `SORTLAB_SEED` is set but is not a valid seed (see [`parse_seed`]): a test run asked for
/// a particular seed must not silently run another one.
pub fn seed() -> u64 {
    *SEED.get_or_init(|| {
        let s = match std::env::var_os(SEED_ENV) {
            Some(v) => match v.to_str().map(parse_seed) {
                Some(Ok(s)) => s,
                _ => panic!(
                    "{SEED_ENV}={v:?} is not a valid seed (decimal or 0x-prefixed hexadecimal u64)"
                ),
            },
            None => entropy(),
        };
        eprintln!("sortlab-verify: seed = {s} (set {SEED_ENV}={s} to reproduce)");
        s
    })
}

/// The base seed if [`seed`] has already been called in this process, without initializing
/// (and printing) it. Used by failure messages.
pub fn base_seed_if_set() -> Option<u64> {
    SEED.get().copied()
}

/// The seed for one test: the base [`seed`] mixed with the test's name, so that tests draw
/// independent inputs while one `SORTLAB_SEED` reproduces them all.
///
/// # Example
/// ```
/// let a = sortlab_verify::seed_for("radix::u32::patterns");
/// let b = sortlab_verify::seed_for("radix::u64::patterns");
/// assert_ne!(a, b);
/// assert_eq!(a, sortlab_verify::seed_for("radix::u32::patterns"));
/// ```
pub fn seed_for(test_name: &str) -> u64 {
    derive(seed(), fnv1a(test_name.as_bytes()))
}

/// A ChaCha8 generator seeded with [`seed_for`]`(test_name)`: the one way for any crate's
/// tests, examples and benches to draw reproducible random input (the base seed is printed on
/// first use and fixed with `SORTLAB_SEED`).
///
/// # Example
/// ```
/// use rand::Rng;
/// let mut rng = sortlab_verify::rng_for("my_crate::my_test");
/// let x: u32 = rng.gen();
/// let mut again = sortlab_verify::rng_for("my_crate::my_test");
/// assert_eq!(x, again.gen::<u32>());
/// ```
pub fn rng_for(test_name: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed_for(test_name))
}

/// Mixes a seed with a stream number into a new, well-scrambled seed (splitmix64 based).
/// Deterministic; different streams give unrelated seeds.
///
/// # Example
/// ```
/// use sortlab_verify::seed::derive;
/// assert_eq!(derive(1, 2), derive(1, 2));
/// assert_ne!(derive(1, 2), derive(1, 3));
/// ```
pub fn derive(seed: u64, stream: u64) -> u64 {
    splitmix64(seed ^ splitmix64(stream).rotate_left(17))
}

/// The splitmix64 finalizer: a bijective scramble of a 64-bit word (the CUB anchors' `mix64`).
///
/// ```
/// // splitmix64's first output from state 0.
/// assert_eq!(sortlab_verify::seed::splitmix64(0), 0xE220_A839_7B1D_CDAF);
/// ```
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A fresh seed from the OS-seeded hasher of the standard library and the clock.
fn entropy() -> u64 {
    let mut h = RandomState::new().build_hasher();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    splitmix64(h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_seed("0xFFFF_FFFF_FFFF_FFFF"), Ok(u64::MAX));
        assert_eq!(parse_seed("0Xab"), Ok(0xab));
        assert!(parse_seed("").is_err());
        assert!(parse_seed("0x").is_err());
        assert!(parse_seed("-1").is_err());
        assert!(parse_seed("18446744073709551616").is_err());
        let e = parse_seed("abc").unwrap_err();
        assert!(e.to_string().contains("`abc`"));
    }

    #[test]
    fn seed_is_stable_and_names_differ() {
        let s = seed();
        assert_eq!(seed(), s);
        assert_eq!(base_seed_if_set(), Some(s));
        assert_eq!(seed_for("a"), seed_for("a"));
        assert_ne!(seed_for("a"), seed_for("b"));
        assert_ne!(entropy(), entropy());
    }
}
