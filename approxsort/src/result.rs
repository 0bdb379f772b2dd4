//! [`ApproxResult`]: the interval boundaries of an approximate sort, and its quality report.

use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, Result};

use crate::options::ApproxOptions;

/// Which kernels an approximate sort ran (chosen by variant, intervals and length).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApproxPath {
    /// Nothing to move (no keys).
    Empty,
    /// [`crate::ApproxVariant::Paper`]: interval and offset arrays in device memory.
    Paper,
    /// [`crate::ApproxVariant::Fast`] with up to [`crate::ApproxPolicy::direct_max_intervals`]
    /// intervals: counts per chunk, then one staged scatter pass (no global atomics).
    SharedCounts,
    /// [`crate::ApproxVariant::Fast`] with more intervals (that fit shared memory): counts per
    /// chunk, a staged scatter into about `sqrt(intervals)` coarse bins, then a staged scatter
    /// of those into the intervals (one global atomic per interval and tile).
    TwoPass,
    /// [`crate::ApproxVariant::Fast`] with more than
    /// [`crate::ApproxPolicy::direct_max_intervals`] intervals, up to
    /// [`crate::ApproxPolicy::wide_one_pass_max`]: counts per chunk, then one staged scatter
    /// pass of large tiles into every interval (no global atomics).
    WideOnePass,
    /// [`crate::ApproxVariant::Fast`] with more intervals, up to
    /// [`crate::ApproxPolicy::wide_max_intervals`] when two words per interval and a large tile
    /// fit shared memory: counts per chunk, a staged scatter of large tiles into about
    /// `sqrt(intervals)` coarse bins, then one of those into the intervals (one global atomic
    /// per interval and tile). With equal widths from [`crate::ApproxPolicy::lead_min`] keys on,
    /// where the keys spread over their leading bits, the coarse bins are ranges of those bits
    /// counted with the min and max, and the coarse pass counts the intervals: one pass over the
    /// keys fewer (decided on the device; the same path is reported either way).
    WideTwoPass,
    /// [`crate::ApproxVariant::Fast`] with more intervals than shared memory holds:
    /// warp-aggregated global atomics per key.
    GlobalAtomics,
}

/// How good an approximate sort is (see [`ApproxResult::quality`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ApproxQuality {
    /// Number of intervals holding at least one key.
    pub non_empty: usize,
    /// Keys in the largest interval.
    pub largest: usize,
    /// Radius of the output: the smallest `k` such that it is `k`-sorted (`a[i]` precedes or
    /// equals `a[j]` whenever `j - i > k`, as `sortlab_cpu_reference::check::radius`); no key
    /// is further than this from its place in the sorted output, and it is below
    /// [`ApproxQuality::largest`].
    pub radius: usize,
}

/// The outcome of an approximate sort: the interval boundaries, on the device.
///
/// Interval `i` of the output is `keys[b[i]..b[i + 1]]` with `b` = [`ApproxResult::boundaries`]
/// (`intervals + 1` offsets, `b[0] = 0`, `b[intervals] = n`). Every key of interval `i`
/// precedes-or-equals every key of interval `i + 1` in [`ApproxResult::order`].
#[derive(Debug)]
pub struct ApproxResult {
    pub(crate) boundaries: DeviceBuffer<u64>,
    pub(crate) len: usize,
    pub(crate) options: ApproxOptions,
    pub(crate) path: ApproxPath,
}

impl ApproxResult {
    /// Boundaries given by the caller (from the host), e.g. to [`crate::refine`] intervals
    /// computed elsewhere: `0 = b[0] <= ... <= b[last] = len`, at least one interval.
    ///
    /// Errors: [`Error::InvalidArgument`] when the boundaries are malformed.
    pub fn from_host(gpu: &Gpu, boundaries: &[usize], len: usize, order: Order) -> Result<Self> {
        let ok = boundaries.len() >= 2
            && boundaries[0] == 0
            && boundaries[boundaries.len() - 1] == len
            && boundaries.windows(2).all(|w| w[0] <= w[1]);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "interval boundaries must be 0 = b[0] <= ... <= b[last] = {len} with at least two entries"
            )));
        }
        let words: Vec<u64> = boundaries.iter().map(|&b| b as u64).collect();
        Ok(ApproxResult {
            boundaries: DeviceBuffer::from_host(gpu, &words)?,
            len,
            options: ApproxOptions {
                intervals: boundaries.len() - 1,
                order,
                ..ApproxOptions::default()
            },
            path: ApproxPath::Empty,
        })
    }

    /// The `intervals + 1` boundaries, on the device.
    pub fn boundaries(&self) -> &DeviceBuffer<u64> {
        &self.boundaries
    }
    /// The boundaries, downloaded.
    pub fn boundaries_host(&self) -> Result<Vec<usize>> {
        Ok(self
            .boundaries
            .to_host()?
            .into_iter()
            .map(|b| b as usize)
            .collect())
    }
    /// Takes the boundaries buffer.
    pub fn into_boundaries(self) -> DeviceBuffer<u64> {
        self.boundaries
    }
    /// Number of intervals.
    pub fn intervals(&self) -> usize {
        self.options.intervals
    }
    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there were no keys.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The order of the intervals.
    pub fn order(&self) -> Order {
        self.options.order
    }
    /// The options the sort ran with.
    pub fn options(&self) -> &ApproxOptions {
        &self.options
    }
    /// The kernels that ran.
    pub fn path(&self) -> ApproxPath {
        self.path
    }

    /// Non-empty intervals and the largest interval, from the downloaded boundaries.
    pub fn interval_stats(&self) -> Result<(usize, usize)> {
        let b = self.boundaries.to_host()?;
        let mut non_empty = 0;
        let mut largest = 0;
        for w in b.windows(2) {
            let len = w[1].saturating_sub(w[0]) as usize;
            non_empty += (len > 0) as usize;
            largest = largest.max(len);
        }
        Ok((non_empty, largest))
    }
}
