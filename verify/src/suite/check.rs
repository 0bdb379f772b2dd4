//! The checkers of the suite: one sort of one input against the CPU reference, and the
//! [`Failure`] that says what ran, on what, and how to reproduce it.

use std::any::Any;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sortlab_cpu_reference::{check, sort};
use sortlab_primitives::{Order, SortKey};

use super::{IndexValue, SortAlgorithm};
use crate::gen::generate;
use crate::patterns::Pattern;
use crate::seed::{base_seed_if_set, SEED_ENV};

/// The input a failed case ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Drawn by [`generate`].
    Generated {
        /// The pattern.
        pattern: Pattern,
        /// The length.
        n: usize,
        /// The seed given to [`generate`].
        seed: u64,
    },
    /// Given explicitly (quickcheck, a hand-written case).
    Given {
        /// The length.
        n: usize,
        /// The keys, printed (shortened past 64 keys; floats also as raw bits).
        keys: String,
    },
}

/// A failed check: what ran, on what, and why, with what it takes to reproduce it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Failure {
    /// [`SortAlgorithm::name`].
    pub algorithm: String,
    /// The key type ([`SortKey::NAME`]).
    pub key_type: &'static str,
    /// The value type for key-value sorts, `None` for keys only.
    pub value_type: Option<&'static str>,
    /// The input.
    pub input: Input,
    /// The order.
    pub order: Order,
    /// What went wrong.
    pub reason: String,
    /// The process's base seed, if one was set up ([`crate::seed`](mod@crate::seed)).
    pub base_seed: Option<u64>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.value_type {
            Some(v) => format!("pairs {}/{v}", self.key_type),
            None => format!("keys {}", self.key_type),
        };
        writeln!(
            f,
            "{} failed on {what}, order {}:",
            self.algorithm, self.order
        )?;
        writeln!(f, "  {}", self.reason)?;
        match &self.input {
            Input::Generated { pattern, n, seed } => {
                writeln!(
                    f,
                    "  input: pattern {pattern}, n = {n}, seed = {seed} ({seed:#x})"
                )?;
                write!(
                    f,
                    "  reproduce: sortlab_verify::generate::<{}>(\"{pattern}\".parse()?, {n}, {seed:#x})",
                    self.key_type
                )?;
            }
            Input::Given { n, keys } => write!(f, "  input (n = {n}): {keys}")?,
        }
        if let Some(b) = self.base_seed {
            write!(f, "\n  whole run: {SEED_ENV}={b}")?;
        }
        Ok(())
    }
}

/// The text of a panic payload.
pub(super) fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// Runs `f`, turning a panic into an error.
fn no_panic(what: &str, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(format!("{what} returned an error: {e}")),
        Err(p) => Err(format!("{what} panicked: {}", panic_text(p.as_ref()))),
    }
}

/// Checks one keys-only sort of `input`: the output has the input's length, is sorted, is a
/// permutation of the input, and equals the CPU reference sort bit for bit (equal keys are
/// bit-identical in total order, so every correct sort gives exactly the reference).
/// A panic inside the algorithm is reported as a failure.
pub fn verify_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    input: &[K],
    order: Order,
) -> Result<(), String> {
    let mut actual = input.to_vec();
    no_panic("sort_keys", || alg.sort_keys(&mut actual, order))?;
    if actual.len() != input.len() {
        return Err(format!(
            "output length {} != input length {}",
            actual.len(),
            input.len()
        ));
    }
    check::check_sorted(&actual, order).map_err(|e| format!("output not sorted: {e}"))?;
    check::check_permutation(input, &actual)
        .map_err(|e| format!("output not a permutation of the input: {e}"))?;
    let mut expected = input.to_vec();
    sort::sort(&mut expected, order);
    check::check_equal(&expected, &actual)
        .map_err(|e| format!("output differs from the reference: {e}"))
}

/// Checks one key-value sort of `input` with values = input indices (`V` = `u32` or `u64`).
///
/// Stable algorithms must equal the stable reference `sort_pairs` exactly. Unstable ones must
/// give the reference keys, and every value must be a distinct valid index whose input key is
/// bit-identical to the output key beside it (so the (key, value) multiset is preserved).
/// A panic inside the algorithm is reported as a failure.
pub fn verify_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    input: &[K],
    order: Order,
) -> Result<(), String> {
    let n = input.len();
    if n as u64 > V::MAX_LEN {
        return Err(format!(
            "{n} elements: too many for {} indices",
            V::VALUE_NAME
        ));
    }
    let values: Vec<V> = (0..n).map(V::from_index).collect();
    let (mut ak, mut av) = (input.to_vec(), values.clone());
    no_panic("sort_pairs", || alg.sort_pairs(&mut ak, &mut av, order))?;
    if ak.len() != n || av.len() != n {
        return Err(format!(
            "output lengths {} keys, {} values != input length {n}",
            ak.len(),
            av.len()
        ));
    }
    check::check_sorted(&ak, order).map_err(|e| format!("keys not sorted: {e}"))?;
    if alg.is_stable() {
        let (mut ek, mut ev) = (input.to_vec(), values);
        sort::sort_pairs(&mut ek, &mut ev, order)
            .map_err(|e| format!("reference sort_pairs failed: {e}"))?;
        return check::check_pairs_equal(&ek, &ev, &ak, &av)
            .map_err(|e| format!("differs from the stable reference: {e}"));
    }
    let mut ek = input.to_vec();
    sort::sort(&mut ek, order);
    check::check_equal(&ek, &ak).map_err(|e| format!("keys differ from the reference: {e}"))?;
    let mut seen = vec![false; n];
    for (pos, (k, v)) in ak.iter().zip(&av).enumerate() {
        let i = v.to_index();
        if i >= n {
            return Err(format!(
                "value at {pos} is {v:?}: not an input index (n = {n})"
            ));
        }
        if seen[i] {
            return Err(format!("value at {pos} is {v:?}: index seen twice"));
        }
        seen[i] = true;
        if input[i].to_ordered_bits() != k.to_ordered_bits() {
            return Err(format!(
                "at {pos}: key {k:?} carries value {i}, but input key {i} is {:?}",
                input[i]
            ));
        }
    }
    Ok(())
}

/// Runs `verify` on `generate::<K>(pattern, n, seed)`; a failure gets its full context.
fn on_generated<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    value_type: Option<&'static str>,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
    verify: impl FnOnce(&[K]) -> Result<(), String>,
) -> Result<(), Box<Failure>> {
    let input = generate::<K>(pattern, n, seed);
    verify(&input).map_err(|reason| {
        Box::new(Failure {
            algorithm: alg.name(),
            key_type: K::NAME,
            value_type,
            input: Input::Generated { pattern, n, seed },
            order,
            reason,
            base_seed: base_seed_if_set(),
        })
    })
}

/// [`verify_keys`] on `generate::<K>(pattern, n, seed)`, the failure with full context.
pub fn try_check_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) -> Result<(), Box<Failure>> {
    on_generated::<K, A>(alg, None, pattern, n, order, seed, |k| {
        verify_keys(alg, k, order)
    })
}

/// Sorts `generate::<K>(pattern, n, seed)` with `alg` and checks it against the CPU
/// reference ([`verify_keys`]).
///
/// # Panics
/// On failure, with a message naming the algorithm, key type, pattern, n, order and seed
/// (see [`Failure`]): this is a test helper.
///
/// # Example
/// ```
/// use sortlab_verify::{algorithms::CpuUnstable, check_keys, Order, Pattern};
/// check_keys::<i64, _>(&CpuUnstable, Pattern::Zipf, 10_000, Order::Ascending, 5);
/// ```
pub fn check_keys<K: SortKey, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) {
    if let Err(f) = try_check_keys::<K, A>(alg, pattern, n, order, seed) {
        panic!("{f}");
    }
}

/// [`verify_pairs`] on `generate::<K>(pattern, n, seed)` with index values of type `V`, the
/// failure with full context.
pub fn try_check_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) -> Result<(), Box<Failure>> {
    on_generated::<K, A>(alg, Some(V::VALUE_NAME), pattern, n, order, seed, |k| {
        verify_pairs::<K, V, A>(alg, k, order)
    })
}

/// Key-value sort of `generate::<K>(pattern, n, seed)` with values = input indices as `V`,
/// checked by [`verify_pairs`] (exact for stable algorithms; keys and permutation for
/// unstable ones).
///
/// # Panics
/// On failure, with a message naming algorithm, key and value type, pattern, n, order and
/// seed: this is a test helper.
///
/// # Example
/// ```
/// use sortlab_verify::{algorithms::CpuStable, check_pairs, Order, Pattern};
/// check_pairs::<f64, u32, _>(&CpuStable, Pattern::FewDistinct, 5000, Order::Descending, 5);
/// ```
pub fn check_pairs<K: SortKey, V: IndexValue, A: SortAlgorithm + ?Sized>(
    alg: &A,
    pattern: Pattern,
    n: usize,
    order: Order,
    seed: u64,
) {
    if let Err(f) = try_check_pairs::<K, V, A>(alg, pattern, n, order, seed) {
        panic!("{f}");
    }
}

/// Formats keys for a failure: Debug, shortened past 64 keys; floats also as raw bits (the
/// sign of a NaN and its payload do not show in Debug).
pub(super) fn show_keys<K: SortKey>(keys: &[K]) -> String {
    const SHOW: usize = 64;
    let head = &keys[..keys.len().min(SHOW)];
    let more = if keys.len() > SHOW { ", ..." } else { "" };
    let mut s = format!("{head:?}{more}");
    if K::IS_FLOAT {
        let raw: Vec<String> = head
            .iter()
            .map(|&k| {
                let mut b = Vec::with_capacity(8);
                k.write_le(&mut b);
                let w = b
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &byte| (acc << 8) | byte as u64);
                format!("{w:#x}")
            })
            .collect();
        s.push_str(&format!("\n  raw bits: [{}{more}]", raw.join(", ")));
    }
    s
}
