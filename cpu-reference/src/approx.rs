//! Interval approximate sort on the CPU: the rayon twin of `sortlab_approxsort` (Xiao, Chen,
//! Sun, "High Performance Approximate Sort Algorithm Using GPUs").
//!
//! # Overview
//! [`approx_sort`] moves every key into one of `intervals` intervals so that every key of
//! interval `i` precedes-or-equals every key of interval `i + 1` in the chosen [`Order`];
//! inside an interval keys are not ordered. [`ApproxResult::boundaries`] holds the `intervals +
//! 1` offsets of the intervals (interval `i` is `keys[b[i]..b[i + 1]]`), and [`refine`] sorts
//! inside every interval, turning the result into a full sort (a bucket sort).
//!
//! # The interval of a key
//! Defined on the key's ordered bits ([`SortKey::to_ordered_bits`], IEEE total order for
//! floats), complemented for [`Order::Descending`]; call that word `b` (`W` = 32 or 64 bits).
//! The GPU (`sortlab_approxsort`) uses the same definition, so the two engines put every key
//! into the same interval ([`IntervalMap`] computes it):
//! - [`Intervals::EqualWidth`] (the paper's linear projection, made exact): with `lo` and `hi`
//!   the smallest and largest `b` of the input and `span = hi - lo`: if `span < intervals`
//!   every distinct key has its own interval, `b - lo`; otherwise
//!   `scale = floor(intervals * 2^W / (span + 1))` and the interval is
//!   `floor((b - lo) * scale / 2^W)`, in exact integer arithmetic (no overflow, no division by
//!   zero when all keys are equal, no interval lost to rounding for 64-bit keys). For floats the
//!   widths are equal in ordered-bit space (NaN and infinities are ordinary keys there), which is
//!   logarithmic in value: use [`Intervals::Sampled`] for floats spread over many binades.
//! - [`Intervals::Sampled`]: `s` = [`sample_len`] keys at the positions of [`sample_position`]
//!   are sorted, the splitters are `sample[(j + 1) * s / intervals]` for `j` in
//!   `0..intervals - 1`, and the interval of `b` is the number of splitters `<= b`. Intervals
//!   then hold about `n / intervals` keys each whatever the distribution.
//!
//! # Stability
//! Both variants here are stable counting sorts: keys of one interval keep their input order.
//! The GPU's are not, so only the intervals (and the multiset inside each) are comparable.
//!
//! # Example
//! ```
//! use sortlab_cpu_reference::approx::{approx_sort, refine, ApproxOptions};
//! use sortlab_cpu_reference::check::{check_interval_order, check_sorted};
//! use sortlab_primitives::Order;
//!
//! let mut keys = vec![8u32, 3, 7, 1, 6, 2];
//! let opts = ApproxOptions { intervals: 2, ..ApproxOptions::default() };
//! let r = approx_sort(&mut keys, &opts)?;
//! assert_eq!(r.boundaries, [0, 3, 6]);
//! assert_eq!(keys, [3, 1, 2, 8, 7, 6]); // stable inside each interval
//! check_interval_order(&keys, &r.boundaries, Order::Ascending).unwrap();
//! refine(&mut keys, &r)?;
//! check_sorted(&keys, Order::Ascending).unwrap();
//! # Ok::<(), sortlab_cpu_reference::Error>(())
//! ```

use std::fmt;

use rayon::prelude::*;
use sortlab_primitives::{KeyBits, Order, SortKey, SortValue};

use crate::check::radius;
use crate::sort::{rank, sort, sort_pairs, sort_pairs_seq, sort_seq};
use crate::Error;

/// The paper's default number of intervals.
pub const DEFAULT_INTERVALS: usize = 10_000;
/// The largest number of intervals (interval numbers are 32-bit on the GPU).
pub const MAX_INTERVALS: usize = u32::MAX as usize;
/// [`Intervals::Sampled`]: sample keys drawn per interval (the oversampling factor).
pub const SAMPLE_PER_INTERVAL: usize = 16;
/// [`Intervals::Sampled`]: the largest sample.
pub const MAX_SAMPLE: usize = 1 << 22;
/// [`Intervals::Sampled`]: the seed of the sample positions (fixed, so runs are repeatable and
/// the GPU draws the same positions).
pub const SAMPLE_SEED: u64 = 0x5EED_A995_0127_2011;
/// [`Intervals::Sampled`]: the increment between the hashed words of consecutive sample keys
/// (the golden ratio, as SplitMix64's own stream).
pub const SAMPLE_STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// Which implementation runs. One type for both engines: this CPU twin and the GPU's
/// `sortlab_approxsort` (which re-exports it). Every variant puts every key into the same
/// interval; only the order inside an interval and the speed differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ApproxVariant {
    /// As published. On the CPU: the paper's steps one after another on one thread (interval
    /// numbers and offsets of every key in arrays, counts, an exclusive scan, a scatter). On
    /// the GPU: a min-max reduction, a kernel that writes every key's interval and its offset
    /// inside the interval (a global atomic increment per key) to device arrays, an exclusive
    /// scan of the counts, and a scatter kernel reading both arrays back: 4 + 4 + 12 + 16 + 8
    /// bytes of traffic per 4-byte key beyond the data itself.
    Paper,
    /// As few passes over memory as the data allows. On the CPU (rayon): per-chunk counts, one
    /// scan, a parallel scatter. On the GPU: min and max (one read); per-chunk counts in shared
    /// memory with warp-aggregated atomics (one read); a scan; then a scatter whose tiles are
    /// grouped by destination in shared memory first, so that the writes are runs of
    /// consecutive places: one pass straight into the intervals when they are few
    /// (`sortlab_approxsort::ApproxPolicy::direct_max_intervals`: 16 bytes per 4-byte key),
    /// else a coarse pass into about `sqrt(intervals)` bins (each block at its own places from
    /// the counts, no atomics) and a fine pass into the intervals (one global atomic per
    /// interval and tile): 24 bytes per key. Past what shared memory holds (about 56,000
    /// intervals on Hopper), warp-aggregated global atomics per key.
    #[default]
    Fast,
}

impl ApproxVariant {
    /// Both variants.
    pub const ALL: [ApproxVariant; 2] = [ApproxVariant::Paper, ApproxVariant::Fast];
    /// Short name (`"paper"`, `"fast"`).
    pub fn name(self) -> &'static str {
        match self {
            ApproxVariant::Paper => "paper",
            ApproxVariant::Fast => "fast",
        }
    }
}

impl fmt::Display for ApproxVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How interval boundaries are chosen (both engines; see the module documentation for the
/// exact interval of a key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Intervals {
    /// Equal widths between the smallest and the largest key, on the keys' ordered bits (the
    /// paper's linear projection, in exact integer arithmetic). Skewed data (zipf, outliers)
    /// fills few intervals; for floats the widths are equal in ordered-bit space, which is
    /// logarithmic in value.
    #[default]
    EqualWidth,
    /// Boundaries from a sorted random sample ([`sample_len`] keys): about `n / intervals` keys
    /// per interval whatever the distribution.
    Sampled,
}

impl Intervals {
    /// Both modes.
    pub const ALL: [Intervals; 2] = [Intervals::EqualWidth, Intervals::Sampled];
    /// Short name (`"equal-width"`, `"sampled"`).
    pub fn name(self) -> &'static str {
        match self {
            Intervals::EqualWidth => "equal-width",
            Intervals::Sampled => "sampled",
        }
    }
}

impl fmt::Display for Intervals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Options of [`approx_sort`] (and of the GPU's `sortlab_approxsort::approx_sort`, which
/// re-exports this type).
///
/// ```
/// use sortlab_cpu_reference::approx::{ApproxOptions, ApproxVariant, Intervals};
/// use sortlab_primitives::Order;
/// let o = ApproxOptions { intervals: 90_000, order: Order::Descending, ..Default::default() };
/// assert_eq!(o.variant, ApproxVariant::Fast);
/// assert_eq!(o.boundaries, Intervals::EqualWidth);
/// assert_eq!(ApproxOptions::default().intervals, 10_000);
/// assert_eq!(ApproxVariant::Paper.to_string(), "paper");
/// assert_eq!(Intervals::ALL.map(Intervals::name), ["equal-width", "sampled"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ApproxOptions {
    /// Number of intervals, `1..=`[`MAX_INTERVALS`]; more than the number of keys is fine (the
    /// extra intervals are empty). 0 is an error.
    pub intervals: usize,
    /// Ascending (interval 0 holds the smallest keys) or descending.
    pub order: Order,
    /// Implementation.
    pub variant: ApproxVariant,
    /// How boundaries are chosen.
    pub boundaries: Intervals,
}

impl Default for ApproxOptions {
    fn default() -> Self {
        ApproxOptions {
            intervals: DEFAULT_INTERVALS,
            order: Order::Ascending,
            variant: ApproxVariant::Fast,
            boundaries: Intervals::EqualWidth,
        }
    }
}

impl ApproxOptions {
    /// The default options with `intervals` intervals.
    pub fn new(intervals: usize) -> Self {
        ApproxOptions {
            intervals,
            ..Self::default()
        }
    }

    /// [`Error::InvalidArgument`] for 0 intervals or more than [`MAX_INTERVALS`].
    pub fn validate(&self) -> Result<(), Error> {
        if self.intervals == 0 {
            return Err(Error::InvalidArgument(
                "approx_sort needs at least one interval (intervals = 0)".into(),
            ));
        }
        if self.intervals > MAX_INTERVALS {
            return Err(Error::InvalidArgument(format!(
                "approx_sort takes at most {MAX_INTERVALS} intervals, got {}",
                self.intervals
            )));
        }
        Ok(())
    }
}

/// The outcome of [`approx_sort`]: where each interval starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApproxResult {
    /// `intervals + 1` offsets: interval `i` is `keys[boundaries[i]..boundaries[i + 1]]`;
    /// `boundaries[0] = 0`, `boundaries[intervals] = n`.
    pub boundaries: Vec<usize>,
    /// The order the intervals are in.
    pub order: Order,
}

/// How good an approximate sort is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ApproxQuality {
    /// Number of intervals holding at least one key.
    pub non_empty: usize,
    /// Keys in the largest interval.
    pub largest: usize,
    /// Radius of the output: the smallest `k` such that it is `k`-sorted
    /// ([`crate::check::radius`]); every key is at most this far from its sorted position, and
    /// it is below [`ApproxQuality::largest`].
    pub radius: usize,
}

impl ApproxResult {
    /// Number of intervals.
    pub fn intervals(&self) -> usize {
        self.boundaries.len().saturating_sub(1)
    }
    /// Intervals holding at least one key.
    pub fn non_empty(&self) -> usize {
        self.boundaries.windows(2).filter(|w| w[1] > w[0]).count()
    }
    /// Keys in the largest interval.
    pub fn largest(&self) -> usize {
        self.boundaries
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }
    /// The quality report of `keys`, the output this result describes.
    pub fn quality<K: SortKey>(&self, keys: &[K]) -> ApproxQuality {
        ApproxQuality {
            non_empty: self.non_empty(),
            largest: self.largest(),
            radius: radius(keys, self.order),
        }
    }
}

/// 64-bit finaliser of SplitMix64 (Steele, Lea, Flood), the sample-position hash.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// [`Intervals::Sampled`]: the sample size for `n` keys and `intervals` intervals:
/// `min(n, intervals * SAMPLE_PER_INTERVAL, MAX_SAMPLE)`.
pub fn sample_len(n: usize, intervals: usize) -> usize {
    n.min(intervals.saturating_mul(SAMPLE_PER_INTERVAL))
        .min(MAX_SAMPLE)
}

/// [`Intervals::Sampled`]: the position of sample key `i` of `s` among `n` keys: every key
/// when `s == n`, else `floor(splitmix64(SAMPLE_SEED + (i + 1) * SAMPLE_STEP) * n / 2^64)`
/// (uniform, with replacement).
#[inline]
pub fn sample_position(i: usize, s: usize, n: usize) -> usize {
    if s >= n {
        return i;
    }
    let h = splitmix64(SAMPLE_SEED.wrapping_add((i as u64 + 1).wrapping_mul(SAMPLE_STEP)));
    ((h as u128 * n as u128) >> 64) as usize
}

/// [`Intervals::Sampled`]: the index into the sorted sample of splitter `j` (`j <
/// intervals - 1`): `(j + 1) * s / intervals`.
#[inline]
pub fn splitter_index(j: usize, s: usize, intervals: usize) -> usize {
    ((j as u128 + 1) * s as u128 / intervals as u128) as usize
}

/// The interval of every key under given options and input: see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntervalMap<B: KeyBits> {
    order: Order,
    kind: MapKind<B>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum MapKind<B> {
    /// Interval `b - lo` (every distinct key its own interval).
    Direct { lo: B },
    /// Interval `floor((b - lo) * scale / 2^W)`.
    Scaled { lo: B, scale: B },
    /// Interval = number of splitters `<= b`; `table[t]` = the number of splitters below
    /// `t << (W - TABLE_BITS)` (t: the top [`TABLE_BITS`] of the word), so that the search runs
    /// between two table entries.
    Sampled { splitters: Vec<B>, table: Vec<u32> },
}

/// [`Intervals::Sampled`] on the CPU: the splitter search starts from a table of `2^TABLE_BITS`
/// buckets of the word's top bits (criterion, 2 cores, 10,000 intervals, 2^24 uniform u32:
/// 166 ms, against 242 ms without the table). The intervals are searched once into an array.
const TABLE_BITS: u32 = 12;

impl<B: KeyBits> IntervalMap<B> {
    /// The equal-width map of `intervals` intervals over ranked bits `lo..=hi` (`lo <= hi`).
    pub fn equal_width(lo: B, hi: B, intervals: usize, order: Order) -> Self {
        let (lo64, hi64) = (lo.to_u64(), hi.to_u64());
        let span = hi64.wrapping_sub(lo64) & mask::<B>();
        let m = intervals as u64;
        let kind = if span < m {
            MapKind::Direct { lo }
        } else if span == mask::<B>() {
            // span + 1 = 2^W: scale = intervals exactly.
            MapKind::Scaled {
                lo,
                scale: B::from_u64(m),
            }
        } else {
            let scale = ((m as u128) << B::BITS) / (span as u128 + 1);
            MapKind::Scaled {
                lo,
                scale: B::from_u64(scale as u64),
            }
        };
        IntervalMap { order, kind }
    }

    /// The sampled map from a sorted sample of ranked bits.
    pub fn sampled(sorted_sample: &[B], intervals: usize, order: Order) -> Self {
        let s = sorted_sample.len();
        let splitters = if s == 0 {
            Vec::new()
        } else {
            (0..intervals - 1)
                .map(|j| sorted_sample[splitter_index(j, s, intervals).min(s - 1)])
                .collect()
        };
        let shift = B::BITS - TABLE_BITS;
        let table = (0..=1u64 << TABLE_BITS)
            .map(|t| {
                if t == 1 << TABLE_BITS {
                    splitters.len() as u32
                } else {
                    let start = t << shift;
                    splitters.partition_point(|x| x.to_u64() < start) as u32
                }
            })
            .collect();
        IntervalMap {
            order,
            kind: MapKind::Sampled { splitters, table },
        }
    }

    /// The interval of the ranked bits `b` (the key's ordered bits, complemented for
    /// descending order).
    #[inline]
    pub fn interval_of_bits(&self, b: B) -> usize {
        match &self.kind {
            MapKind::Direct { lo } => (b.to_u64().wrapping_sub(lo.to_u64()) & mask::<B>()) as usize,
            MapKind::Scaled { lo, scale } => {
                let d = b.to_u64().wrapping_sub(lo.to_u64()) & mask::<B>();
                ((d as u128 * scale.to_u64() as u128) >> B::BITS) as usize
            }
            MapKind::Sampled { splitters, table } => {
                let t = (b.to_u64() >> (B::BITS - TABLE_BITS)) as usize;
                let (lo, hi) = (table[t] as usize, table[t + 1] as usize);
                lo + splitters[lo..hi].partition_point(|&s| s <= b)
            }
        }
    }

    /// The interval of `key`.
    #[inline]
    pub fn interval<K: SortKey<Bits = B>>(&self, key: K) -> usize {
        self.interval_of_bits(rank(key, self.order))
    }

    /// The interval map [`approx_sort`] uses for `keys` under `opts` (`None` when `keys` is
    /// empty: then no key has an interval).
    pub fn for_keys<K: SortKey<Bits = B>>(
        keys: &[K],
        opts: &ApproxOptions,
    ) -> Result<Option<Self>, Error> {
        opts.validate()?;
        if keys.is_empty() {
            return Ok(None);
        }
        let order = opts.order;
        Ok(Some(match opts.boundaries {
            Intervals::EqualWidth => {
                let (lo, hi) = ranked_min_max(keys, order);
                Self::equal_width(lo, hi, opts.intervals, order)
            }
            Intervals::Sampled => {
                let n = keys.len();
                let s = sample_len(n, opts.intervals);
                let mut sample: Vec<B> = (0..s)
                    .into_par_iter()
                    .map(|i| rank(keys[sample_position(i, s, n)], order))
                    .collect();
                sample.par_sort_unstable();
                Self::sampled(&sample, opts.intervals, order)
            }
        }))
    }
}

/// All ones in the low `B::BITS` bits.
#[inline]
fn mask<B: KeyBits>() -> u64 {
    u64::MAX >> (64 - B::BITS)
}

/// The smallest and largest ranked bits of a non-empty `keys`.
fn ranked_min_max<K: SortKey>(keys: &[K], order: Order) -> (K::Bits, K::Bits) {
    let (lo, hi) = match crate::reduce::min_max(keys) {
        Some((a, b)) => (a.to_ordered_bits(), b.to_ordered_bits()),
        None => (K::Bits::default(), K::Bits::default()),
    };
    match order {
        Order::Ascending => (lo, hi),
        // Complementing reverses the order: the smallest ranked word is ~max.
        Order::Descending => (
            K::Bits::from_u64(!hi.to_u64()),
            K::Bits::from_u64(!lo.to_u64()),
        ),
    }
}

/// Keys per parallel chunk of the fast variant (at least); smaller inputs run on one chunk.
/// A chunk of 2^15 keys is tens of microseconds of work, enough to pay for a rayon task.
const MIN_CHUNK: usize = 1 << 15;
/// The fast variant keeps a count per chunk and interval: at most this many counts in all
/// (fewer chunks when intervals are many).
const MAX_COUNTS: usize = 1 << 24;
/// [`refine`]: intervals longer than this are sorted with the parallel sort, shorter ones on
/// one thread each (the intervals themselves are spread over rayon's threads).
const PAR_SORT_MIN: usize = 1 << 16;

/// A pointer that may be shared between rayon tasks that write disjoint elements.
#[derive(Clone, Copy)]
struct SharedOut<T>(*mut T);
// SAFETY: only used to write disjoint indices from different threads (see `scatter`).
unsafe impl<T: Send> Send for SharedOut<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedOut<T> {}

impl<T> SharedOut<T> {
    /// The pointer (a method, so that closures capture the whole `Sync` wrapper).
    fn get(&self) -> *mut T {
        self.0
    }
}

/// The interval of every key, as `u32`.
fn intervals_of<K: SortKey>(keys: &[K], map: &IntervalMap<K::Bits>, parallel: bool) -> Vec<u32> {
    if parallel {
        keys.par_iter()
            .with_min_len(MIN_CHUNK)
            .map(|&k| map.interval(k) as u32)
            .collect()
    } else {
        keys.iter().map(|&k| map.interval(k) as u32).collect()
    }
}

/// Moves `keys` (and `values`) to the positions of a stable counting sort by `idx` on one
/// thread, as the paper's steps, and returns the boundaries. `values` is empty for keys only.
fn counting_sort<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    idx: &[u32],
    m: usize,
) -> Vec<usize> {
    let with_values = !values.is_empty();
    // The paper's steps: offsets inside each interval (the atomic increments, in input
    // order here), an exclusive scan of the counts, a scatter.
    let mut counts = vec![0usize; m + 1];
    let offsets: Vec<usize> = idx
        .iter()
        .map(|&i| {
            let o = counts[i as usize];
            counts[i as usize] += 1;
            o
        })
        .collect();
    let mut sum = 0;
    for c in counts.iter_mut() {
        let v = *c;
        *c = sum;
        sum += v;
    }
    let out_k: Vec<K> = {
        let mut out = keys.to_vec();
        for (j, &k) in keys.iter().enumerate() {
            out[counts[idx[j] as usize] + offsets[j]] = k;
        }
        out
    };
    keys.copy_from_slice(&out_k);
    if with_values {
        let mut out = values.to_vec();
        for (j, &v) in values.iter().enumerate() {
            out[counts[idx[j] as usize] + offsets[j]] = v;
        }
        values.copy_from_slice(&out);
    }
    counts
}

/// The fast counting sort: contiguous chunks, a count per (chunk, interval), scanned
/// interval-major, then each chunk moves its keys (and values, in the same loop) from its own
/// cursors into a fresh buffer, copied back in parallel. `interval_at(j, key)` is the interval
/// of `keys[j]` (computed from the key where that is cheap, so that no array of interval numbers
/// is written and read). `values` is empty for keys only.
fn counting_sort_fast<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    m: usize,
    interval_at: impl Fn(usize, K) -> usize + Sync,
) -> Vec<usize> {
    let n = keys.len();
    let with_values = !values.is_empty();
    let threads = rayon::current_num_threads().max(1);
    let chunks = (n.div_ceil(MIN_CHUNK))
        .min(threads * 4)
        .min((MAX_COUNTS / m.max(1)).max(1))
        .max(1);
    let chunk_len = n.div_ceil(chunks);
    let mut counts: Vec<Vec<usize>> = keys
        .par_chunks(chunk_len)
        .enumerate()
        .map(|(c, ks)| {
            let mut h = vec![0usize; m];
            for (j, &k) in ks.iter().enumerate() {
                h[interval_at(c * chunk_len + j, k)] += 1;
            }
            h
        })
        .collect();
    let mut boundaries = vec![0usize; m + 1];
    let mut sum = 0;
    for (i, b) in boundaries.iter_mut().enumerate().take(m) {
        *b = sum;
        for h in counts.iter_mut() {
            let v = h[i];
            h[i] = sum;
            sum += v;
        }
    }
    boundaries[m] = sum;
    let mut out_k: Vec<K> = Vec::with_capacity(n);
    let mut out_v: Vec<V> = Vec::with_capacity(if with_values { n } else { 0 });
    let (dst_k, dst_v) = (SharedOut(out_k.as_mut_ptr()), SharedOut(out_v.as_mut_ptr()));
    let vals_in: &[V] = values;
    keys.par_chunks(chunk_len)
        .zip(counts.par_iter())
        .enumerate()
        .for_each(|(c, (ks, start))| {
            let mut cursor = start.clone();
            let base = c * chunk_len;
            for (j, &k) in ks.iter().enumerate() {
                let i = interval_at(base + j, k);
                let p = cursor[i];
                cursor[i] += 1;
                debug_assert!(p < n);
                // SAFETY: the cursors of chunk c for interval i run over
                // [start_c[i], start_c[i] + count_c[i]), and these ranges, over all chunks and
                // intervals, partition 0..n (they are an exclusive scan of the counts): each
                // element of the outputs (capacity n) is written exactly once, by one task, and
                // the outputs outlive the parallel loop.
                unsafe {
                    dst_k.get().add(p).write(k);
                    if with_values {
                        dst_v.get().add(p).write(vals_in[base + j]);
                    }
                }
            }
        });
    // SAFETY: the loop above wrote every element 0..n of each output (see there).
    unsafe {
        out_k.set_len(n);
        if with_values {
            out_v.set_len(n);
        }
    }
    copy_back(keys, &out_k, chunk_len);
    copy_back(values, &out_v, chunk_len);
    boundaries
}

/// `dst.copy_from_slice(src)` in parallel chunks (nothing when both are empty).
fn copy_back<T: Copy + Send + Sync>(dst: &mut [T], src: &[T], chunk_len: usize) {
    dst.par_chunks_mut(chunk_len.max(1))
        .zip(src.par_chunks(chunk_len.max(1)))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Approximate sort of `keys` into `opts.intervals` intervals: see the [module docs](self).
///
/// # Overview
/// The interval of every key ([`IntervalMap`]), then a stable counting sort by interval. Returns
/// the interval boundaries.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` by IEEE total order, ascending or descending.
///
/// # Stability
/// Stable: keys of one interval keep their input order.
///
/// # Errors
/// [`Error::InvalidArgument`] when `opts.intervals` is 0 or above [`MAX_INTERVALS`] (keys left
/// as they were).
///
/// # Performance
/// O(n) (plus O(s log s) for the sample of [`Intervals::Sampled`]), with a copy of the keys (and
/// values) and, for sampled intervals or the paper's variant, n interval numbers as extra
/// memory; [`ApproxVariant::Fast`] on all of rayon's threads. Timed by the `approx` criterion
/// benchmark (`cargo bench -p sortlab-cpu-reference --bench approx`); figures in the crate's
/// `README.md`.
///
/// # Example
/// ```
/// use sortlab_cpu_reference::approx::{approx_sort, ApproxOptions};
/// use sortlab_primitives::Order;
///
/// let mut keys = vec![-1.5f32, f32::NAN, 0.0, f32::NEG_INFINITY];
/// let opts = ApproxOptions { intervals: 2, order: Order::Descending, ..Default::default() };
/// let r = approx_sort(&mut keys, &opts)?;
/// assert_eq!(r.boundaries.len(), 3);
/// assert!(keys[0].is_nan());
/// # Ok::<(), sortlab_cpu_reference::Error>(())
/// ```
pub fn approx_sort<K: SortKey>(
    keys: &mut [K],
    opts: &ApproxOptions,
) -> Result<ApproxResult, Error> {
    approx_impl::<K, u32>(keys, &mut [], opts)
}

/// [`approx_sort`] of key-value pairs: `values[i]` travels with `keys[i]`.
///
/// # Errors
/// As [`approx_sort`], and [`Error::LengthMismatch`] when the slices differ in length.
pub fn approx_sort_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    opts: &ApproxOptions,
) -> Result<ApproxResult, Error> {
    Error::check_pairs(keys.len(), values.len())?;
    approx_impl(keys, values, opts)
}

fn approx_impl<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    opts: &ApproxOptions,
) -> Result<ApproxResult, Error> {
    let m = opts.intervals;
    let Some(map) = IntervalMap::for_keys(keys, opts)? else {
        return Ok(ApproxResult {
            boundaries: vec![0; m + 1],
            order: opts.order,
        });
    };
    let boundaries = if opts.variant == ApproxVariant::Fast && keys.len() > MIN_CHUNK {
        if let MapKind::Sampled { .. } = map.kind {
            // A splitter search per key: once, into an array.
            let idx = intervals_of(keys, &map, true);
            counting_sort_fast(keys, values, m, |j, _| idx[j] as usize)
        } else {
            // Equal widths: a subtraction and a multiplication, computed in both passes.
            counting_sort_fast(keys, values, m, |_, k| map.interval(k))
        }
    } else {
        let idx = intervals_of(keys, &map, false);
        counting_sort(keys, values, &idx, m)
    };
    Ok(ApproxResult {
        boundaries,
        order: opts.order,
    })
}

/// Checks boundaries against a length: `0 = b[0] <= ... <= b[last] = len`.
fn check_boundaries(b: &[usize], len: usize) -> Result<(), Error> {
    let ok = b.first() == Some(&0) && b.last() == Some(&len) && b.windows(2).all(|w| w[0] <= w[1]);
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "interval boundaries do not describe {len} keys (need 0 = b[0] <= ... <= b[last] = {len})"
        )))
    }
}

/// Splits `data` into the intervals of `b` (validated).
fn split_intervals<'a, T>(mut data: &'a mut [T], b: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(b.len().saturating_sub(1));
    for w in b.windows(2) {
        let (head, tail) = data.split_at_mut(w[1] - w[0]);
        if !head.is_empty() {
            parts.push(head);
        }
        data = tail;
    }
    parts
}

/// Sorts inside every interval of `approx` (the result of [`approx_sort`] on `keys`), which
/// makes `keys` fully sorted in `approx.order`: a bucket sort.
///
/// # Stability
/// Stable inside each interval (and [`approx_sort`] is stable), so `approx_sort` + `refine`
/// is a stable sort equal to [`crate::sort::sort`].
///
/// # Errors
/// [`Error::InvalidArgument`] when the boundaries do not describe `keys.len()` keys.
pub fn refine<K: SortKey>(keys: &mut [K], approx: &ApproxResult) -> Result<(), Error> {
    check_boundaries(&approx.boundaries, keys.len())?;
    let order = approx.order;
    split_intervals(keys, &approx.boundaries)
        .into_par_iter()
        .for_each(|part| {
            if part.len() >= PAR_SORT_MIN {
                sort(part, order);
            } else {
                sort_seq(part, order);
            }
        });
    Ok(())
}

/// [`refine`] of key-value pairs: stable inside each interval, so [`approx_sort_pairs`] +
/// `refine_pairs` equals the stable [`crate::sort::sort_pairs`].
///
/// # Errors
/// As [`refine`], and [`Error::LengthMismatch`] when the slices differ in length.
pub fn refine_pairs<K: SortKey, V: SortValue>(
    keys: &mut [K],
    values: &mut [V],
    approx: &ApproxResult,
) -> Result<(), Error> {
    Error::check_pairs(keys.len(), values.len())?;
    check_boundaries(&approx.boundaries, keys.len())?;
    let order = approx.order;
    let ks = split_intervals(keys, &approx.boundaries);
    let vs = split_intervals(values, &approx.boundaries);
    ks.into_par_iter().zip(vs).try_for_each(|(k, v)| {
        if k.len() >= PAR_SORT_MIN {
            sort_pairs(k, v, order)
        } else {
            sort_pairs_seq(k, v, order)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_width_params_are_exact() {
        // Full 32-bit range: scale = m, interval = top bits.
        let m = IntervalMap::<u32>::equal_width(0, u32::MAX, 4, Order::Ascending);
        assert_eq!(m.interval_of_bits(0), 0);
        assert_eq!(m.interval_of_bits(u32::MAX), 3);
        assert_eq!(m.interval_of_bits(1 << 30), 1);
        // Few distinct values: each its own interval.
        let m = IntervalMap::<u64>::equal_width(10, 12, 5, Order::Ascending);
        assert_eq!([10, 11, 12].map(|b| m.interval_of_bits(b)), [0, 1, 2]);
        // 64-bit extremes do not overflow, and the top key lands in the last or the one before.
        for m_ in [1usize, 2, 3, 10_000, u32::MAX as usize] {
            let m = IntervalMap::<u64>::equal_width(0, u64::MAX - 1, m_, Order::Ascending);
            assert!(m.interval_of_bits(u64::MAX - 1) < m_);
            assert!(m.interval_of_bits(u64::MAX - 1) + 2 >= m_);
        }
    }

    #[test]
    fn small_cases() {
        let mut k: Vec<u32> = vec![];
        let r = approx_sort(&mut k, &ApproxOptions::new(3)).unwrap();
        assert_eq!(r.boundaries, [0, 0, 0, 0]);
        assert!(approx_sort(&mut k, &ApproxOptions::new(0)).is_err());
        let mut k = vec![5i64; 7];
        let r = approx_sort(&mut k, &ApproxOptions::new(3)).unwrap();
        assert_eq!(r.boundaries, [0, 7, 7, 7]);
        let mut k = vec![3u32, 1, 2];
        let mut v = vec![0u32, 1];
        assert!(matches!(
            approx_sort_pairs(&mut k, &mut v, &ApproxOptions::new(3)),
            Err(Error::LengthMismatch { .. })
        ));
        assert_eq!(k, [3, 1, 2]);
    }

    /// The sampled map's table search gives the plain count of splitters `<= b`, for splitters
    /// spread, clustered in one table bucket, repeated, and at the extremes.
    #[test]
    fn sampled_table_search_counts_the_splitters() {
        fn check<B: KeyBits>(mut sample: Vec<B>, probes: &[B]) {
            sample.sort_unstable();
            for intervals in [1, 2, 100, 10_000] {
                let map = IntervalMap::sampled(&sample, intervals, Order::Ascending);
                let MapKind::Sampled { splitters, .. } = &map.kind else {
                    unreachable!()
                };
                for &b in probes.iter().chain(splitters.iter()) {
                    let want = splitters.partition_point(|&s| s <= b);
                    assert_eq!(map.interval_of_bits(b), want, "{b:?}");
                }
            }
        }
        let mut x = 12345u64;
        let mut next = move || {
            x = splitmix64(x);
            x
        };
        let spread: Vec<u32> = (0..50_000).map(|_| next() as u32).collect();
        let clustered: Vec<u32> = (0..50_000)
            .map(|_| 7 << 20 | (next() as u32 & 0xfff))
            .collect();
        let repeated: Vec<u32> = (0..50_000)
            .map(|_| [0, 9, u32::MAX][(next() % 3) as usize])
            .collect();
        let mut probes: Vec<u32> = (0..20_000).map(|_| next() as u32).collect();
        probes.extend([
            0,
            1,
            9,
            10,
            7 << 20,
            (7 << 20) + 0xfff,
            (8 << 20) - 1,
            u32::MAX - 1,
            u32::MAX,
        ]);
        for sample in [spread.clone(), clustered, repeated] {
            check(sample, &probes);
        }
        let wide: Vec<u64> = (0..50_000).map(|_| next()).collect();
        let probes64: Vec<u64> = (0..20_000).map(|_| next()).chain([0, u64::MAX]).collect();
        check(wide, &probes64);
    }

    /// Past one chunk the fast variant runs in parallel chunks: it must equal the paper's serial
    /// stable counting sort exactly (keys, values, boundaries) for both boundary kinds, both
    /// orders, keys with ties, and interval counts below and above the distinct keys.
    #[test]
    fn fast_equals_paper_past_one_chunk() {
        fn check<K: SortKey>(keys: &[K]) {
            let n = keys.len();
            for boundaries in [Intervals::EqualWidth, Intervals::Sampled] {
                for order in [Order::Ascending, Order::Descending] {
                    for intervals in [1, 7, 10_000, 1 << 20] {
                        let fast = ApproxOptions {
                            intervals,
                            order,
                            boundaries,
                            variant: ApproxVariant::Fast,
                        };
                        let paper = ApproxOptions {
                            variant: ApproxVariant::Paper,
                            ..fast
                        };
                        let values: Vec<u32> = (0..n as u32).collect();
                        let (mut fk, mut fv) = (keys.to_vec(), values.clone());
                        let (mut pk, mut pv) = (keys.to_vec(), values);
                        let rf = approx_sort_pairs(&mut fk, &mut fv, &fast).unwrap();
                        let rp = approx_sort_pairs(&mut pk, &mut pv, &paper).unwrap();
                        let what = format!("{} {fast:?}", K::NAME);
                        assert_eq!(rf.boundaries, rp.boundaries, "{what}");
                        assert!(
                            fk.iter()
                                .zip(&pk)
                                .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits()),
                            "{what}"
                        );
                        assert_eq!(fv, pv, "{what}");
                        let mut k_only = keys.to_vec();
                        assert_eq!(
                            approx_sort(&mut k_only, &fast).unwrap().boundaries,
                            rp.boundaries
                        );
                        assert!(
                            k_only
                                .iter()
                                .zip(&pk)
                                .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits()),
                            "{what}"
                        );
                    }
                }
            }
        }
        let n = 3 * MIN_CHUNK + 7;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x = splitmix64(x);
            x
        };
        let wide: Vec<u32> = (0..n).map(|_| next() as u32).collect();
        let ties: Vec<u32> = (0..n).map(|_| (next() % 1000) as u32).collect();
        let floats: Vec<f64> = (0..n)
            .map(|_| (next() >> 11) as f64 - (1u64 << 52) as f64)
            .collect();
        check(&wide);
        check(&ties);
        check(&floats);
    }
}
