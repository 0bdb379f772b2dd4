//! [`ApproxOptions`], [`ApproxVariant`] and [`Intervals`].

use std::fmt;

use sortlab_primitives::{Error, Order, Result};

pub use sortlab_cpu_reference::approx::{DEFAULT_INTERVALS, MAX_INTERVALS};

/// Which implementation runs. Both put every key into the same interval; only the order inside
/// an interval (unspecified for both) and the speed differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ApproxVariant {
    /// As published: a min-max reduction (`sortlab_primitives::reduce_min_max`), a kernel that
    /// writes every key's interval and its offset inside the interval (a global atomic
    /// increment per key) to device arrays, an exclusive scan of the counts, and a scatter
    /// kernel reading both arrays back: 4 + 4 + 12 + 16 + 8 bytes of traffic per 4-byte key
    /// beyond the data itself.
    Paper,
    /// As few passes over memory as the data allows: min and max (one read); per-chunk counts
    /// in shared memory with warp-aggregated atomics (one read); a scan; then a scatter whose
    /// tiles are grouped by destination in shared memory first, so that the writes are runs of
    /// consecutive places: one pass straight into the intervals when they are few
    /// ([`crate::ApproxPolicy::direct_max_intervals`]: 16 bytes per 4-byte key), else a coarse
    /// pass into about `sqrt(intervals)` bins (each block at its own places from the counts, no
    /// atomics) and a fine pass into the intervals (one global atomic per interval and tile):
    /// 24 bytes per key. Past what shared memory holds (about 56,000 intervals on Hopper),
    /// warp-aggregated global atomics per key.
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

/// How interval boundaries are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Intervals {
    /// Equal widths between the smallest and the largest key, on the keys' ordered bits (the
    /// paper's linear projection, in exact integer arithmetic). Skewed data (zipf, outliers)
    /// fills few intervals; for floats the widths are equal in ordered-bit space, which is
    /// logarithmic in value.
    #[default]
    EqualWidth,
    /// Boundaries from a sorted random sample (`sample_len` keys, sorted on the GPU): about
    /// `n / intervals` keys per interval whatever the distribution.
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

/// Options of [`crate::approx_sort`].
///
/// ```
/// use sortlab_approxsort::{ApproxOptions, ApproxVariant, Intervals};
/// use sortlab_primitives::Order;
/// let o = ApproxOptions { intervals: 90_000, order: Order::Descending, ..Default::default() };
/// assert_eq!(o.variant, ApproxVariant::Fast);
/// assert_eq!(o.boundaries, Intervals::EqualWidth);
/// assert_eq!(ApproxOptions::default().intervals, 10_000);
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
    pub fn validate(&self) -> Result<()> {
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
