//! Input patterns, all in one place (DESIGN.md §5), and the lengths of many small arrays.
//!
//! A [`Pattern`] names the shape of an input; [`crate::generate`] draws one. The names used on
//! the command line are those of [`Pattern::name`], parsed back by [`str::parse`]:
//! `uniform, full-range, gaussian, zipf, few-distinct, all-equal, ascending, descending,
//! pipe-organ, saw-short, saw-long, sorted-95, k-sorted[:K], float-specials`.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use crate::seed::derive;

/// The shape of a generated input.
///
/// Keys are converted to each key type with [`SortKey::from_f64`](sortlab_primitives::SortKey::from_f64) unless said otherwise, so
/// "value v" below means `v` as `u32`, `i32`, `f32`, ... (rounded for floats, which keeps
/// ascending values non-decreasing).
///
/// # Example
/// ```
/// use sortlab_verify::{generate, Pattern};
/// let p: Pattern = "k-sorted:3".parse().unwrap();
/// assert_eq!(p, Pattern::KSorted(3));
/// assert_eq!(p.to_string(), "k-sorted:3");
/// let keys: Vec<u32> = generate(Pattern::Ascending, 5, 7);
/// assert_eq!(keys, [0, 1, 2, 3, 4]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Uniform values in `0..2^31`, the papers' input, for every key type (as a float value
    /// for float types).
    Uniform,
    /// Uniform random bits over the whole type: negatives for signed types, and for floats
    /// every bit pattern (NaNs, infinities, subnormals included).
    FullRange,
    /// The mean of four uniform values in `0..2^31` (bell shaped, as the approxsort paper).
    Gaussian,
    /// Zipf-distributed ranks, exponent s = 1 over `n` ranks (rank 1 is drawn with probability
    /// `1 / H_n`, about 6% at n = 10^7), each rank mapped to a scrambled value in `0..2^31`.
    Zipf,
    /// [`FEW_DISTINCT`] random values over the whole type, repeated at random.
    FewDistinct,
    /// One random value (over the whole type) everywhere: min == max.
    AllEqual,
    /// `0, 1, 2, ..., n-1` (for `f32` past 2^24 and `f64` past 2^53: the next floats up, so
    /// still strictly increasing).
    Ascending,
    /// `n-1, ..., 1, 0`.
    Descending,
    /// Up then down: `0, 1, ..., ~n/2, ..., 1, 0`.
    PipeOrgan,
    /// Ascending runs of [`SAW_SHORT_RUN`] values, each run starting anew at a random value.
    SawShort,
    /// 16 ascending runs of about `n / 16` values, each starting anew at a random value.
    SawLong,
    /// Ascending (`0..n`), then 5% of positions (at least one) overwritten with a random value
    /// in `0..n`.
    Sorted95,
    /// Distinct ascending values displaced so that the radius (the smallest `r` such that
    /// `a[i] <= a[j]` whenever `j - i > r`) is exactly `min(k, n - 1)`: the array is cut into
    /// blocks of `k + 1` positions (at a random offset), and in a random half of the blocks, at
    /// least one, the two end elements are swapped and the inner ones shuffled. Every
    /// inversion stays inside a block, and a swapped block holds one at distance exactly `k`.
    KSorted(usize),
    /// Special values mixed with ordinary ones. Floats: NaN of both signs (quiet, signalling,
    /// full payload), ±inf, ±0.0, smallest and largest subnormals of both signs,
    /// ±`MIN_POSITIVE`, `MIN`, `MAX`, ±1. Integers: `MIN`, `MIN + 1`, `MAX`, `MAX - 1`, 0, ±1,
    /// ±2. Half of the elements are specials; when `n` is at least the number of specials,
    /// each appears at least once.
    FloatSpecials,
}

/// The radius of `k-sorted` when none is given (`"k-sorted"` parses as `KSorted(16)`).
pub const DEFAULT_K: usize = 16;

/// How many distinct values [`Pattern::FewDistinct`] draws (a power of two, so that picking
/// one from a random word is exactly uniform).
pub const FEW_DISTINCT: usize = 16;

/// The run length of [`Pattern::SawShort`].
pub const SAW_SHORT_RUN: usize = 32;

/// How many runs [`Pattern::SawLong`] has.
pub const SAW_LONG_RUNS: usize = 16;

impl Pattern {
    /// Every pattern, once, in a fixed order ([`Pattern::KSorted`] with [`DEFAULT_K`]).
    pub const ALL: [Pattern; 14] = [
        Pattern::Uniform,
        Pattern::FullRange,
        Pattern::Gaussian,
        Pattern::Zipf,
        Pattern::FewDistinct,
        Pattern::AllEqual,
        Pattern::Ascending,
        Pattern::Descending,
        Pattern::PipeOrgan,
        Pattern::SawShort,
        Pattern::SawLong,
        Pattern::Sorted95,
        Pattern::KSorted(DEFAULT_K),
        Pattern::FloatSpecials,
    ];

    /// The pattern's name without parameter (`"k-sorted"` for every `KSorted(k)`); the
    /// [`Display`](fmt::Display) form adds the parameter (`"k-sorted:16"`) and parses back.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::FullRange => "full-range",
            Pattern::Gaussian => "gaussian",
            Pattern::Zipf => "zipf",
            Pattern::FewDistinct => "few-distinct",
            Pattern::AllEqual => "all-equal",
            Pattern::Ascending => "ascending",
            Pattern::Descending => "descending",
            Pattern::PipeOrgan => "pipe-organ",
            Pattern::SawShort => "saw-short",
            Pattern::SawLong => "saw-long",
            Pattern::Sorted95 => "sorted-95",
            Pattern::KSorted(_) => "k-sorted",
            Pattern::FloatSpecials => "float-specials",
        }
    }

    /// A number identifying the pattern (and its parameter), mixed into the generator's seed
    /// so that two patterns drawn with one seed are independent.
    pub(crate) fn stream_id(self) -> u64 {
        let index = Pattern::ALL
            .iter()
            .position(|p| p.name() == self.name())
            .unwrap_or(0) as u64;
        match self {
            Pattern::KSorted(k) => derive(index, k as u64),
            _ => index,
        }
    }

    /// Whether the input is drawn at random (as opposed to a fixed shape such as ascending).
    pub fn is_random(self) -> bool {
        !matches!(
            self,
            Pattern::Ascending | Pattern::Descending | Pattern::PipeOrgan | Pattern::KSorted(0)
        )
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::KSorted(k) => write!(f, "k-sorted:{k}"),
            p => f.write_str(p.name()),
        }
    }
}

/// Error of parsing a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pattern `{given}`; known: {known}")]
pub struct ParsePatternError {
    /// The string given.
    pub given: String,
    /// The accepted names, comma separated.
    pub known: String,
}

impl FromStr for Pattern {
    type Err = ParsePatternError;

    /// Parses a name of [`Pattern::name`]; `k-sorted` takes an optional radius, `k-sorted:K`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParsePatternError {
            given: s.to_string(),
            known: Pattern::ALL
                .iter()
                .map(|p| match p {
                    Pattern::KSorted(_) => "k-sorted[:K]",
                    p => p.name(),
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        if let Some(k) = s.strip_prefix("k-sorted:") {
            return k.parse::<usize>().map(Pattern::KSorted).map_err(|_| err());
        }
        if s == "k-sorted" {
            return Ok(Pattern::KSorted(DEFAULT_K));
        }
        Pattern::ALL
            .into_iter()
            .find(|p| !matches!(p, Pattern::KSorted(_)) && p.name() == s)
            .ok_or_else(err)
    }
}

/// Lengths of many small arrays ([`crate::small_arrays`], [`crate::array_offsets`]): all the
/// same, or drawn per array. On the command line (`str::parse`, `Display`): `fixed:N`,
/// `uniform:MIN..MAX` ([`ArrayLengths::Varying`]) or `power-law:MEAN`.
///
/// ```
/// use sortlab_verify::ArrayLengths;
/// let l: ArrayLengths = "uniform:1..64".parse().unwrap();
/// assert_eq!(l, ArrayLengths::Varying { min: 1, max: 64 });
/// assert_eq!(l.to_string(), "uniform:1..64");
/// assert!("fixed:0".parse::<ArrayLengths>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayLengths {
    /// Every array has this length (0 allowed).
    Fixed(usize),
    /// Each length is drawn uniformly from `min..=max`; in [`crate::small_arrays`], with two
    /// arrays or more, at least one has length `min` and one length `max`. `min` and `max` are
    /// swapped if out of order.
    Varying {
        /// The shortest length (0 gives empty arrays).
        min: usize,
        /// The longest length.
        max: usize,
    },
    /// Pareto lengths of exponent 2 (`ceil(mean / 2 / sqrt(u))`, `u` uniform in `(0, 1]`), of
    /// mean about `mean`: many short arrays and a few very long ones.
    PowerLaw {
        /// The mean length.
        mean: usize,
    },
}

impl ArrayLengths {
    /// One length drawn from `rng` (for [`ArrayLengths::Varying`] without the guarantee of
    /// [`crate::small_arrays`]).
    pub(crate) fn draw(self, rng: &mut impl rand::Rng) -> usize {
        match self {
            ArrayLengths::Fixed(len) => len,
            ArrayLengths::Varying { min, max } => rng.gen_range(min.min(max)..=min.max(max)),
            ArrayLengths::PowerLaw { mean } => {
                // u in (0, 1]: never 0, so the length is finite.
                let u = 1.0 - rng.gen::<f64>();
                (mean as f64 / 2.0 / u.sqrt()).ceil() as usize
            }
        }
    }

    /// Whether no drawn length can be positive (such lengths cover no keys).
    pub(crate) fn all_empty(self) -> bool {
        match self {
            ArrayLengths::Fixed(len) => len == 0,
            ArrayLengths::Varying { min, max } => min.max(max) == 0,
            ArrayLengths::PowerLaw { mean } => mean == 0,
        }
    }
}

impl fmt::Display for ArrayLengths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArrayLengths::Fixed(n) => write!(f, "fixed:{n}"),
            ArrayLengths::Varying { min, max } => write!(f, "uniform:{min}..{max}"),
            ArrayLengths::PowerLaw { mean } => write!(f, "power-law:{mean}"),
        }
    }
}

impl FromStr for ArrayLengths {
    type Err = String;

    /// `fixed:N`, `uniform:MIN..MAX` or `power-law:MEAN`, with some length positive.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{s}` is not an array layout: write fixed:N, uniform:MIN..MAX or power-law:MEAN"
            )
        };
        let num = |x: &str| x.trim().parse::<usize>().map_err(|_| bad());
        let (kind, arg) = s.split_once(':').ok_or_else(bad)?;
        let lengths = match kind {
            "fixed" => ArrayLengths::Fixed(num(arg)?),
            "uniform" => {
                let (lo, hi) = arg.split_once("..").ok_or_else(bad)?;
                let (min, max) = (num(lo)?, num(hi)?);
                if min > max {
                    return Err(format!("`{s}`: need MIN <= MAX"));
                }
                ArrayLengths::Varying { min, max }
            }
            "power-law" => ArrayLengths::PowerLaw { mean: num(arg)? },
            _ => return Err(bad()),
        };
        if lengths.all_empty() {
            return Err(format!("`{s}`: arrays need a positive length"));
        }
        Ok(lengths)
    }
}

impl From<usize> for ArrayLengths {
    fn from(len: usize) -> Self {
        ArrayLengths::Fixed(len)
    }
}

impl From<RangeInclusive<usize>> for ArrayLengths {
    fn from(r: RangeInclusive<usize>) -> Self {
        ArrayLengths::Varying {
            min: *r.start(),
            max: *r.end(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Pattern::ALL
            .into_iter()
            .chain([0, 1, 2, 1000].map(Pattern::KSorted))
        {
            assert_eq!(p.to_string().parse::<Pattern>(), Ok(p), "{p}");
            assert!(p.to_string().starts_with(p.name()));
        }
        assert_eq!("k-sorted".parse(), Ok(Pattern::KSorted(DEFAULT_K)));
        assert_eq!("k-sorted:0".parse(), Ok(Pattern::KSorted(0)));
        let names: Vec<&str> = Pattern::ALL.iter().map(|p| p.name()).collect();
        let mut dedup = names.clone();
        dedup.sort_unstable();
        dedup.dedup();
        assert_eq!(dedup.len(), names.len());
    }

    #[test]
    fn parse_errors_list_names() {
        for bad in [
            "",
            "Uniform",
            "k-sorted:",
            "k-sorted:-1",
            "k-sorted:x",
            "k-sorted16",
        ] {
            let e = bad.parse::<Pattern>().unwrap_err();
            assert_eq!(e.given, bad);
            let msg = e.to_string();
            for p in Pattern::ALL {
                assert!(msg.contains(p.name()), "{msg}");
            }
            assert!(msg.contains("k-sorted[:K]"), "{msg}");
        }
    }

    #[test]
    fn stream_ids_distinct() {
        let mut ids: Vec<u64> = Pattern::ALL
            .into_iter()
            .chain([0, 1, 2].map(Pattern::KSorted))
            .map(Pattern::stream_id)
            .collect();
        let len = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), len);
    }
}
