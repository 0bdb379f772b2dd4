//! Input generation: [`generate`] draws a [`Pattern`] of any length for any key type.
//!
//! Generation is sequential and linear in `n` (one ChaCha8 stream; no sort is ever needed);
//! measured speeds are in `cpu-reference/README.md`.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::{KeyBits, SortKey};

use crate::patterns::{ArrayLengths, Pattern, FEW_DISTINCT, SAW_LONG_RUNS, SAW_SHORT_RUN};
use crate::seed::{derive, splitmix64};

/// Draws `n` keys of `pattern`.
///
/// Deterministic: the same (pattern, n, seed, key type) always gives the same keys, bit for
/// bit, on every machine (ChaCha8 seeded with `seed` mixed with the pattern). See [`Pattern`]
/// for each shape.
///
/// # Example
/// ```
/// use sortlab_verify::{generate, Pattern};
/// let a: Vec<f64> = generate(Pattern::Gaussian, 1000, 42);
/// let b: Vec<f64> = generate(Pattern::Gaussian, 1000, 42);
/// assert_eq!(a, b);
/// assert!(a.iter().all(|&x| (0.0..2f64.powi(31)).contains(&x)));
/// let c: Vec<i32> = generate(Pattern::FullRange, 1000, 42);
/// assert!(c.iter().any(|&x| x < 0));
/// ```
pub fn generate<K: SortKey>(pattern: Pattern, n: usize, seed: u64) -> Vec<K> {
    let mut rng = ChaCha8Rng::seed_from_u64(derive(seed, pattern.stream_id()));
    let rng = &mut rng;
    match pattern {
        Pattern::Uniform => (0..n).map(|_| K::from_f64(u31(rng) as f64)).collect(),
        Pattern::FullRange => (0..n).map(|_| random_bits::<K>(rng)).collect(),
        Pattern::Gaussian => (0..n)
            .map(|_| {
                let sum: u64 = (0..4).map(|_| u31(rng) as u64).sum();
                K::from_f64(sum as f64 / 4.0)
            })
            .collect(),
        Pattern::Zipf => {
            let zipf = Zipf1::new(n as u64);
            let salt = rng.next_u64();
            (0..n)
                .map(|_| {
                    let rank = zipf.sample(rng);
                    K::from_f64((splitmix64(rank ^ salt) >> 33) as f64)
                })
                .collect()
        }
        Pattern::FewDistinct => {
            let values: Vec<K> = (0..FEW_DISTINCT).map(|_| random_bits::<K>(rng)).collect();
            (0..n)
                .map(|_| values[rng.next_u32() as usize % FEW_DISTINCT])
                .collect()
        }
        Pattern::AllEqual => vec![random_bits::<K>(rng); n],
        Pattern::Ascending => (0..n).map(|i| ascending::<K>(i as u64)).collect(),
        Pattern::Descending => (0..n).map(|i| ascending::<K>((n - 1 - i) as u64)).collect(),
        Pattern::PipeOrgan => (0..n)
            .map(|i| ascending::<K>(i.min(n - 1 - i) as u64))
            .collect(),
        Pattern::SawShort => saw(rng, n, SAW_SHORT_RUN),
        Pattern::SawLong => saw(rng, n, n.div_ceil(SAW_LONG_RUNS).max(1)),
        Pattern::Sorted95 => {
            let mut v: Vec<K> = (0..n).map(|i| ascending::<K>(i as u64)).collect();
            for _ in 0..n.div_ceil(20) {
                let at = rng.gen_range(0..n);
                v[at] = ascending::<K>(rng.gen_range(0..n) as u64);
            }
            v
        }
        Pattern::KSorted(k) => k_sorted_from(rng, n, k),
        Pattern::FloatSpecials => specials_mix(rng, n),
    }
}

/// Many small arrays, concatenated: `count` arrays, each drawn with `pattern` and its own seed
/// derived from `seed`, as the GPU-ArraySort input.
///
/// Returns the keys and the offsets: `offsets.len() == count + 1`, `offsets[0] == 0`, array
/// `i` is `keys[offsets[i]..offsets[i + 1]]`, and `offsets[count] == keys.len()`.
/// Deterministic for (count, lengths, pattern, seed, key type).
///
/// # Example
/// ```
/// use sortlab_verify::{small_arrays, Pattern};
/// let (keys, offsets) = small_arrays::<f32>(100, 0..=40, Pattern::Uniform, 9);
/// assert_eq!(offsets.len(), 101);
/// assert_eq!(offsets[100], keys.len());
/// assert!(offsets.windows(2).any(|w| w[0] == w[1])); // some array is empty
/// let (keys, offsets) = small_arrays::<u64>(10, 32, Pattern::Ascending, 9);
/// assert_eq!((keys.len(), offsets[3]), (320, 96));
/// ```
pub fn small_arrays<K: SortKey>(
    count: usize,
    lengths: impl Into<ArrayLengths>,
    pattern: Pattern,
    seed: u64,
) -> (Vec<K>, Vec<usize>) {
    let lens: Vec<usize> = match lengths.into() {
        ArrayLengths::Fixed(len) => vec![len; count],
        ArrayLengths::Varying { min, max } => {
            let (min, max) = (min.min(max), min.max(max));
            let mut rng = ChaCha8Rng::seed_from_u64(derive(seed, u64::MAX));
            let lengths = ArrayLengths::Varying { min, max };
            let mut lens: Vec<usize> = (0..count).map(|_| lengths.draw(&mut rng)).collect();
            if count >= 2 {
                let a = rng.gen_range(0..count);
                let b = (a + rng.gen_range(1..count)) % count;
                lens[a] = min;
                lens[b] = max;
            }
            lens
        }
        power_law => {
            let mut rng = ChaCha8Rng::seed_from_u64(derive(seed, u64::MAX));
            (0..count).map(|_| power_law.draw(&mut rng)).collect()
        }
    };
    let mut offsets = Vec::with_capacity(count + 1);
    offsets.push(0);
    let mut keys = Vec::with_capacity(lens.iter().sum());
    for (i, &len) in lens.iter().enumerate() {
        keys.extend(generate::<K>(pattern, len, derive(seed, i as u64)));
        offsets.push(keys.len());
    }
    (keys, offsets)
}

/// The offsets (arrays + 1, first 0, last `keys`) of arrays with `lengths`, drawn until they
/// hold `keys` keys (the last one cut short), deterministic in `seed`; `None` when `lengths`
/// cannot cover a key (every length 0) and `keys > 0`.
///
/// ```
/// use sortlab_verify::{array_offsets, ArrayLengths};
/// assert_eq!(array_offsets(ArrayLengths::Fixed(1000), 2500, 1), Some(vec![0, 1000, 2000, 2500]));
/// let o = array_offsets(ArrayLengths::PowerLaw { mean: 64 }, 10_000, 1).unwrap();
/// assert_eq!((o[0], o[o.len() - 1]), (0, 10_000));
/// assert_eq!(array_offsets(ArrayLengths::Fixed(0), 5, 1), None);
/// ```
pub fn array_offsets(lengths: ArrayLengths, keys: usize, seed: u64) -> Option<Vec<usize>> {
    if keys > 0 && lengths.all_empty() {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(derive(seed, u64::MAX - 1));
    let mut offsets = vec![0];
    let mut at = 0;
    while at < keys {
        at = (at + lengths.draw(&mut rng)).min(keys);
        offsets.push(at);
    }
    Some(offsets)
}

/// A uniform value in `0..2^31`.
#[inline]
fn u31(rng: &mut ChaCha8Rng) -> u32 {
    rng.next_u32() >> 1
}

/// The key whose ordered bits are the low bits of `b`.
#[inline]
fn from_bits<K: SortKey>(b: u64) -> K {
    K::from_ordered_bits(<K::Bits as KeyBits>::from_u64(b))
}

/// A key with uniformly random bits.
#[inline]
fn random_bits<K: SortKey>(rng: &mut ChaCha8Rng) -> K {
    if K::SIZE == 4 {
        from_bits(rng.next_u32() as u64)
    } else {
        from_bits(rng.next_u64())
    }
}

/// The largest integer up to which every integer is exactly a key of type `K`.
fn exact_limit<K: SortKey>() -> u64 {
    match (K::IS_FLOAT, K::SIZE) {
        (true, 4) => 1 << f32::MANTISSA_DIGITS,
        (true, _) => 1 << f64::MANTISSA_DIGITS,
        (false, _) => u64::MAX,
    }
}

/// The `i`-th key of a strictly increasing sequence starting at 0: the value `i` while exact,
/// then (floats only) the following representable floats.
#[inline]
fn ascending<K: SortKey>(i: u64) -> K {
    let limit = exact_limit::<K>();
    if i <= limit {
        K::from_f64(i as f64)
    } else {
        from_bits::<K>(K::from_f64(limit as f64).to_ordered_bits().to_u64() + (i - limit))
    }
}

/// Ascending runs of `run` values, each an arithmetic progression in `0..2^31` from a random
/// start with a random step.
fn saw<K: SortKey>(rng: &mut ChaCha8Rng, n: usize, run: usize) -> Vec<K> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let len = run.min(n - v.len());
        let start = (u31(rng) >> 1) as u64; // < 2^30
        let max_step = ((1u64 << 30) / len as u64).max(1);
        let step = rng.gen_range(1..=max_step);
        v.extend((0..len as u64).map(|j| K::from_f64((start + j * step) as f64)));
    }
    v
}

/// `n` distinct keys, the values `0, 1, ..., n - 1` displaced so that the radius is exactly
/// `min(k, n - 1)`: the roughsort report's k-sorted input, the workspace's one generator of it
/// ([`Pattern::KSorted`], drawn by [`generate`]; see there for the construction).
///
/// Deterministic for (n, k, seed, key type). Sorted, the keys are
/// `generate::<K>(Pattern::Ascending, n, _)`: `0..n` for integers.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::check::radius;
/// use sortlab_verify::{k_sorted, Order};
/// let keys: Vec<u32> = k_sorted(10_000, 100, 7);
/// assert_eq!(radius(&keys, Order::Ascending), 100);
/// let mut sorted = keys.clone();
/// sorted.sort_unstable();
/// assert!(sorted.iter().enumerate().all(|(i, &x)| x == i as u32));
/// ```
pub fn k_sorted<K: SortKey>(n: usize, k: usize, seed: u64) -> Vec<K> {
    generate(Pattern::KSorted(k), n, seed)
}

/// Distinct ascending keys with radius exactly `min(k, n - 1)` (see [`Pattern::KSorted`]).
fn k_sorted_from<K: SortKey>(rng: &mut ChaCha8Rng, n: usize, k: usize) -> Vec<K> {
    let mut v: Vec<K> = (0..n).map(|i| ascending::<K>(i as u64)).collect();
    let k = k.min(n.saturating_sub(1));
    if k == 0 {
        return v;
    }
    let block = k + 1; // <= n
    let offset = rng.gen_range(0..=k.min(n - block));
    let blocks = (n - offset) / block; // >= 1
    let forced = rng.gen_range(0..blocks);
    for b in 0..blocks {
        if b != forced && rng.gen_bool(0.5) {
            continue;
        }
        let s = offset + b * block;
        v.swap(s, s + k);
        // Any permutation inside the block keeps every inversion at distance <= k.
        let inner = &mut v[s + 1..s + k];
        for i in (1..inner.len()).rev() {
            inner.swap(i, rng.gen_range(0..=i));
        }
    }
    v
}

/// The key with IEEE bits `raw` (floats only).
fn from_ieee<K: SortKey>(raw: u64) -> K {
    let sign = 1u64 << (K::SIZE * 8 - 1);
    from_bits::<K>(if raw & sign != 0 { !raw } else { raw | sign })
}

/// The special values of [`Pattern::FloatSpecials`] for `K`: for floats every kind of NaN
/// (quiet, signalling, full payload, both signs), ±inf, ±0.0, the extreme subnormals, ±MIN_POSITIVE,
/// ±MAX and ±1.0; for integers 0, 1, ±1, ±2 and the extremes of the ordered bits.
///
/// ```
/// let v = sortlab_verify::specials::<f32>();
/// assert!(v.iter().any(|x| x.is_nan()) && v.iter().any(|x| x.to_bits() == (-0.0f32).to_bits()));
/// ```
pub fn specials<K: SortKey>() -> Vec<K> {
    if K::IS_FLOAT {
        let (bits, mant) = if K::SIZE == 4 {
            (32, f32::MANTISSA_DIGITS - 1)
        } else {
            (64, f64::MANTISSA_DIGITS - 1)
        };
        let s = 1u64 << (bits - 1); // sign
        let e = (s - 1) & !((1u64 << mant) - 1); // exponent all ones
        let m = (1u64 << mant) - 1; // mantissa all ones
        let q = 1u64 << (mant - 1); // quiet bit
        let one = (s >> 1) - (1u64 << mant); // exponent = bias
        let min_pos = 1u64 << mant;
        [
            e | q,       // NaN
            s | e | q,   // -NaN
            e | 1,       // signalling NaN
            s | e | 1,   // negative signalling NaN
            e | m,       // NaN, full payload (HIGHEST)
            s | e | m,   // -NaN, full payload (LOWEST)
            e,           // +inf
            s | e,       // -inf
            0,           // +0.0
            s,           // -0.0
            1,           // smallest subnormal
            s | 1,       // its negative
            m,           // largest subnormal
            s | m,       // its negative
            min_pos,     // MIN_POSITIVE
            s | min_pos, // -MIN_POSITIVE
            e - 1,       // MAX
            s | (e - 1), // MIN
            one,         // 1.0
            s | one,     // -1.0
        ]
        .into_iter()
        .map(from_ieee::<K>)
        .collect()
    } else {
        let top = <K::Bits as KeyBits>::BITS;
        let max = if top == 64 {
            u64::MAX
        } else {
            (1u64 << top) - 1
        };
        let mut v: Vec<K> = [0, 1, max, max - 1]
            .into_iter()
            .map(from_bits::<K>)
            .collect();
        v.extend([0.0, 1.0, -1.0, 2.0, -2.0].map(K::from_f64));
        v
    }
}

/// Half specials, a quarter ordinary values in `-2^31..2^31`, a quarter random bits; every
/// special at least once when `n` allows.
fn specials_mix<K: SortKey>(rng: &mut ChaCha8Rng, n: usize) -> Vec<K> {
    let table = specials::<K>();
    let mut v: Vec<K> = (0..n)
        .map(|_| match rng.next_u32() & 3 {
            0 | 1 => table[rng.gen_range(0..table.len())],
            2 => K::from_f64(rng.next_u32() as i32 as f64),
            _ => random_bits::<K>(rng),
        })
        .collect();
    // Every special once, at distinct random positions (one per stride).
    let m = table.len().min(n);
    if let Some(stride) = n.checked_div(m) {
        for (j, &special) in table[..m].iter().enumerate() {
            v[j * stride + rng.gen_range(0..stride)] = special;
        }
    }
    v
}

/// Zipf sampler with exponent s = 1 over ranks `1..=n`: rejection-inversion (Hörmann and
/// Derflinger 1996, as in `rand_distr::Zipf`), O(1) per sample without a table.
struct Zipf1 {
    /// `1 + ln n`: the integral of the hat function over the support.
    t: f64,
    n: u64,
}

impl Zipf1 {
    fn new(n: u64) -> Self {
        let n = n.max(1);
        Zipf1 {
            t: 1.0 + (n as f64).ln(),
            n,
        }
    }

    #[inline]
    fn sample(&self, rng: &mut ChaCha8Rng) -> u64 {
        loop {
            let pt = unit(rng) * self.t;
            // Inverse of the hat's CDF: linear on [0, 1], then exponential.
            let inv_b = if pt <= 1.0 { pt } else { (pt - 1.0).exp() };
            // floor(inv_b + 1), by truncation (inv_b >= 0; faster than `floor`).
            let x = inv_b as u64 + 1;
            // Accept with probability (1/x) / hat(inv_b), the hat being 1 on [0, 1] and
            // 1/inv_b after: rank 1 always, rank x > 1 with probability inv_b / x.
            if x == 1 || (rng.next_u32() as f64) * (x as f64) < inv_b * 4_294_967_296.0 {
                return x.min(self.n);
            }
        }
    }
}

/// A uniform `f64` in `[0, 1)`.
#[inline]
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use crate::patterns::ArrayLengths;

    #[test]
    fn array_offsets_cover_the_keys() {
        let n = 1 << 20;
        for l in ["uniform:1..64", "power-law:1024", "uniform:0..4", "fixed:7"] {
            let lengths: ArrayLengths = l.parse().unwrap();
            let o = super::array_offsets(lengths, n, 7).unwrap();
            assert_eq!((o[0], o[o.len() - 1]), (0, n), "{l}");
            assert!(o.windows(2).all(|w| w[0] <= w[1]), "{l}");
            assert_eq!(
                super::array_offsets(lengths, n, 7).unwrap(),
                o,
                "{l}: deterministic"
            );
        }
        let o = super::array_offsets(ArrayLengths::Varying { min: 1, max: 64 }, n, 7).unwrap();
        assert!(o.windows(2).all(|w| (1..=64).contains(&(w[1] - w[0]))));
        assert_eq!(
            super::array_offsets(ArrayLengths::Fixed(5), 0, 1),
            Some(vec![0])
        );
        assert_eq!(
            super::array_offsets(ArrayLengths::PowerLaw { mean: 0 }, 3, 1),
            None
        );
    }

    #[test]
    fn power_law_has_its_mean_and_a_long_tail() {
        let n = 1 << 26;
        let o = super::array_offsets(ArrayLengths::PowerLaw { mean: 1024 }, n, 3).unwrap();
        let lens: Vec<usize> = o.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = n as f64 / lens.len() as f64;
        assert!((800.0..1300.0).contains(&mean), "mean {mean}");
        let max = *lens.iter().max().unwrap();
        assert!(max > 20 * 1024, "longest {max}");
        assert!(lens.iter().filter(|&&l| l <= 1024).count() * 2 > lens.len());
    }

    #[test]
    fn array_lengths_parse_and_print() {
        for s in [
            "fixed:1000",
            "uniform:1..64",
            "power-law:1024",
            "uniform:0..8",
        ] {
            assert_eq!(s.parse::<ArrayLengths>().unwrap().to_string(), s);
        }
        for s in [
            "fixed:0",
            "uniform:9..3",
            "uniform:0..0",
            "zipf:3",
            "fixed",
            "power-law:x",
        ] {
            assert!(s.parse::<ArrayLengths>().is_err(), "{s}");
        }
    }

    use super::*;
    use sortlab_cpu_reference::check;
    use sortlab_primitives::Order;
    use std::collections::HashSet;

    fn bits<K: SortKey>(v: &[K]) -> Vec<u64> {
        v.iter().map(|k| k.to_ordered_bits().to_u64()).collect()
    }

    fn extra_patterns() -> Vec<Pattern> {
        let mut p = Pattern::ALL.to_vec();
        p.extend([0, 1, 2, 7, 100].map(Pattern::KSorted));
        p
    }

    fn shapes<K: SortKey>() {
        for p in extra_patterns() {
            for n in [0, 1, 2, 3, 31, 32, 33, 100, 1000, 4097] {
                let a = generate::<K>(p, n, 11);
                assert_eq!(a.len(), n, "{p} {n}");
                assert_eq!(bits(&a), bits(&generate::<K>(p, n, 11)), "{p} {n}");
                if n >= 100 && p != Pattern::AllEqual && p.is_random() {
                    assert_ne!(
                        bits(&a),
                        bits(&generate::<K>(p, n, 12)),
                        "{p} {n}: seed ignored"
                    );
                }
            }
        }
        let n = 5000;
        let g = |p| generate::<K>(p, n, 3);
        assert!(check::is_sorted(&g(Pattern::Ascending), Order::Ascending));
        assert!(check::is_sorted(&g(Pattern::Descending), Order::Descending));
        let asc = bits(&g(Pattern::Ascending));
        assert!(asc.windows(2).all(|w| w[0] < w[1]), "ascending is strict");
        let pipe = g(Pattern::PipeOrgan);
        assert!(check::is_sorted(&pipe[..n / 2], Order::Ascending));
        assert!(check::is_sorted(&pipe[n / 2..], Order::Descending));
        let eq = bits(&g(Pattern::AllEqual));
        assert!(eq.iter().all(|&b| b == eq[0]));
        let few: HashSet<u64> = bits(&g(Pattern::FewDistinct)).into_iter().collect();
        assert!(few.len() <= FEW_DISTINCT && few.len() > 1);
        for (p, run) in [
            (Pattern::SawShort, SAW_SHORT_RUN),
            (Pattern::SawLong, n.div_ceil(SAW_LONG_RUNS)),
        ] {
            let s = g(p);
            for chunk in s.chunks(run) {
                assert!(check::is_sorted(chunk, Order::Ascending), "{p}");
            }
            assert!(!check::is_sorted(&s, Order::Ascending), "{p}");
        }
        let s95 = g(Pattern::Sorted95);
        let out_of_place = s95
            .iter()
            .enumerate()
            .filter(|&(i, k)| k.to_ordered_bits() != ascending::<K>(i as u64).to_ordered_bits())
            .count();
        assert!(out_of_place > 0 && out_of_place <= n / 20, "{out_of_place}");
        for p in [Pattern::Uniform, Pattern::Gaussian, Pattern::Zipf] {
            assert!(g(p)
                .iter()
                .all(|k| (0.0..=2f64.powi(31)).contains(&k.to_f64())));
        }
        let specials_in: HashSet<u64> = bits(&g(Pattern::FloatSpecials)).into_iter().collect();
        for s in bits(&specials::<K>()) {
            assert!(specials_in.contains(&s), "special {s:#x} missing");
        }
    }

    #[test]
    fn shapes_all_types() {
        shapes::<u32>();
        shapes::<i32>();
        shapes::<f32>();
        shapes::<u64>();
        shapes::<i64>();
        shapes::<f64>();
    }

    #[test]
    fn signed_full_range_has_negatives() {
        let v: Vec<i64> = generate(Pattern::FullRange, 100, 1);
        assert!(v.iter().any(|&x| x < 0) && v.iter().any(|&x| x > 0));
        let v: Vec<i32> = generate(Pattern::FloatSpecials, 100, 1);
        assert!(v.contains(&i32::MIN) && v.contains(&i32::MAX) && v.contains(&-1));
        let v: Vec<u32> = generate(Pattern::FloatSpecials, 100, 1);
        assert!(v.contains(&u32::MAX) && v.contains(&0));
        let v: Vec<f32> = generate(Pattern::FullRange, 10_000, 1);
        assert!(v.iter().any(|x| x.is_nan()) && v.iter().any(|&x| x < 0.0));
    }

    #[test]
    fn float_specials_present() {
        let v: Vec<f32> = generate(Pattern::FloatSpecials, 1000, 5);
        let has = |f: &dyn Fn(f32) -> bool| v.iter().any(|&x| f(x));
        assert!(has(&|x| x.is_nan() && x.is_sign_positive()));
        assert!(has(&|x| x.is_nan() && x.is_sign_negative()));
        assert!(has(&|x| x == f32::INFINITY) && has(&|x| x == f32::NEG_INFINITY));
        assert!(has(&|x| x == 0.0 && x.is_sign_negative()));
        assert!(has(&|x| x == 0.0 && x.is_sign_positive()));
        assert!(has(&|x| x.is_subnormal()));
        assert!(has(&|x| x == f32::MAX) && has(&|x| x == f32::MIN));
        assert!(has(&|x| x == f32::MIN_POSITIVE) && has(&|x| x == -1.0));
        assert!(has(&|x| x.is_normal()
            && x != 1.0
            && x != -1.0
            && x.abs() > 2.0));
        let d: Vec<f64> = generate(Pattern::FloatSpecials, 1000, 5);
        assert!(d.iter().any(|x| x.is_nan()));
        assert!(d.contains(&f64::NEG_INFINITY) && d.contains(&f64::MAX));
        assert!(d.contains(&5e-324) && d.contains(&-5e-324));
        assert!(d.iter().any(|&x| x == 0.0 && x.is_sign_negative()));
        // Fewer elements than specials: still the right length, still deterministic.
        assert_eq!(generate::<f64>(Pattern::FloatSpecials, 3, 5).len(), 3);
    }

    #[test]
    fn zipf_is_skewed() {
        let n = 20_000;
        let v: Vec<u32> = generate(Pattern::Zipf, n, 8);
        let mut counts = std::collections::HashMap::new();
        for x in &v {
            *counts.entry(*x).or_insert(0usize) += 1;
        }
        let top = counts.values().copied().max().unwrap_or(0);
        // P(rank 1) = 1 / H_n ≈ 9.4% at n = 20000.
        assert!(top > n / 15 && top < n / 8, "{top}");
        assert!(counts.len() > n / 10, "{}", counts.len());
        let z = Zipf1::new(1);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert!((0..100).all(|_| z.sample(&mut rng) == 1));
    }

    fn radius_exact<K: SortKey>() {
        for n in [0usize, 1, 2, 3, 4, 5, 8, 17, 64, 100, 1000, 4099] {
            let mut ks = vec![0, 1, 2, 3, 5, 16, 31, 32, 33, n / 2, n.saturating_sub(2)];
            ks.extend([n.saturating_sub(1), n, n + 5]);
            for k in ks {
                for seed in 0..3 {
                    let v = generate::<K>(Pattern::KSorted(k), n, seed);
                    let want = k.min(n.saturating_sub(1));
                    let r = check::radius(&v, Order::Ascending);
                    assert_eq!(r, want, "{} n={n} k={k} seed={seed}", K::NAME);
                    let mut sorted = v.clone();
                    sorted.sort_by(|a, b| a.total_cmp(b));
                    assert_eq!(
                        bits(&sorted),
                        bits(&generate::<K>(Pattern::Ascending, n, 0))
                    );
                }
            }
        }
    }

    #[test]
    fn k_sorted_radius_exact() {
        radius_exact::<u32>();
        radius_exact::<f32>();
        radius_exact::<i64>();
    }

    #[test]
    fn ascending_strict_past_float_precision() {
        let l = exact_limit::<f32>();
        let v: Vec<f32> = (l - 3..l + 5).map(ascending::<f32>).collect();
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
        assert_eq!(v[3], 16_777_216.0);
        assert_eq!(ascending::<i32>(5), 5);
    }

    fn check_offsets<K: SortKey>(keys: &[K], offsets: &[usize], count: usize) {
        assert_eq!(offsets.len(), count + 1);
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[count], keys.len());
        assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn small_arrays_fixed_and_varying() {
        let (k, o) = small_arrays::<u32>(50, 7, Pattern::Ascending, 1);
        check_offsets(&k, &o, 50);
        for w in o.windows(2) {
            assert_eq!(w[1] - w[0], 7);
            assert_eq!(&k[w[0]..w[1]], &[0, 1, 2, 3, 4, 5, 6]);
        }
        let (k, o) = small_arrays::<i64>(3, 0, Pattern::Uniform, 1);
        assert!(k.is_empty());
        assert_eq!(o, [0, 0, 0, 0]);
        let (k, o) = small_arrays::<f64>(0, 0..=10, Pattern::Uniform, 1);
        assert!(k.is_empty());
        assert_eq!(o, [0]);
        for (min, max) in [(0, 0), (0, 1), (0, 100), (5, 9), (9, 5), (3, 3)] {
            let (k, o) = small_arrays::<f32>(200, min..=max, Pattern::FullRange, 5);
            check_offsets(&k, &o, 200);
            let lens: Vec<usize> = o.windows(2).map(|w| w[1] - w[0]).collect();
            let (lo, hi) = (min.min(max), min.max(max));
            assert!(lens.iter().all(|&l| (lo..=hi).contains(&l)));
            assert!(lens.contains(&lo) && lens.contains(&hi));
            let again = small_arrays::<f32>(200, min..=max, Pattern::FullRange, 5);
            assert_eq!(again.1, o);
            assert!(again
                .0
                .iter()
                .zip(&k)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        let (_, o) = small_arrays::<u32>(1, 4..=9, Pattern::Uniform, 5);
        assert!((4..=9).contains(&o[1]));
        // Arrays differ from each other: each has its own seed.
        let (k, o) = small_arrays::<u64>(2, 64, Pattern::FullRange, 3);
        assert_ne!(&k[o[0]..o[1]], &k[o[1]..o[2]]);
    }
}
