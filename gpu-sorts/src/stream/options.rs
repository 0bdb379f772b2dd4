//! [`StreamOptions`], and what a streamed sort tells its caller: [`StreamProgress`] while it
//! runs ([`StreamPhase`]), [`StreamReport`] when it is done.

use sortlab_primitives::Order;

/// How a streamed sort runs: the order, and how much device memory it may use.
///
/// `Default` sorts ascending with the device's free memory less a margin.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::stream::StreamOptions;
/// use sortlab_primitives::Order;
/// let opts = StreamOptions::default()
///     .with_order(Order::Descending)
///     .with_device_budget(Some(1 << 30));
/// assert_eq!(opts.device_budget, Some(1 << 30));
/// assert_eq!(StreamOptions::default().order, Order::Ascending);
/// assert!(!StreamOptions::default().pageable_runs);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamOptions {
    /// Ascending or descending (IEEE total order for floats, as `f32::total_cmp`).
    pub order: Order,
    /// Bytes of device memory the sort may use: the sum of the sizes of the device buffers it
    /// allocates (the memory pool may round each up to its granularity). `None`: the device's
    /// free memory (and its pool's free room) less a margin of 256 MiB and 1/16 of it.
    /// Below [`super::min_device_budget`] the sort is refused.
    pub device_budget: Option<usize>,
    /// Whether a [`super::StreamSorter`] keeps its sorted runs in ordinary (pageable) host
    /// memory instead of page-locked memory. Page-locked runs (`false`, the default) are copied
    /// by DMA both ways and halve the host's copies, but the sorter then holds page-locked
    /// memory as large as the longest input it sorted (keys and values) for its whole life;
    /// `true` page-locks only the lanes' staging, for hosts where page-locked memory is
    /// scarce, at the one-call functions' speed per pass. The one-call functions
    /// ([`super::sort_keys`], [`super::sort_pairs`]) always use ordinary memory.
    pub pageable_runs: bool,
}

impl StreamOptions {
    /// The same options in `order`.
    pub fn with_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
    /// The same options with the device budget `bytes` (`None`: the device's free memory less
    /// a margin).
    pub fn with_device_budget(mut self, bytes: Option<usize>) -> Self {
        self.device_budget = bytes;
        self
    }
    /// The same options with the sorter's runs in ordinary host memory (`true`) or
    /// page-locked memory (`false`, the default): see [`StreamOptions::pageable_runs`].
    pub fn with_pageable_runs(mut self, pageable: bool) -> Self {
        self.pageable_runs = pageable;
        self
    }
}

/// The pass a streamed sort is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamPhase {
    /// The first pass: chunks of the input to the device, sorted there, back into a host
    /// temporary as sorted runs. An input that fits the budget in one chunk is sorted in this
    /// phase alone (to the device, sorted, back into the caller's slices).
    Runs,
    /// The second pass: output buckets gathered from the runs, to the device, sorted there,
    /// back into their final place in the caller's slices.
    Merge,
}

/// Progress of a streamed sort, as passed to the `_with_progress` entry points' callback.
///
/// `done_bytes` counts the bytes that have crossed the host link (both directions, both
/// passes) for the chunks and buckets finished so far; it never decreases, and the last call
/// has `done_bytes == total_bytes`, the bytes the whole sort moves across the link
/// ([`StreamReport::bytes_to_device`] + [`StreamReport::bytes_to_host`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamProgress {
    /// The pass running.
    pub phase: StreamPhase,
    /// Bytes moved across the link so far.
    pub done_bytes: u64,
    /// Bytes the whole sort moves across the link.
    pub total_bytes: u64,
}

/// What a streamed sort did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamReport {
    /// Chunks of the first pass (1 when the input fits the budget in one chunk; 0 when there
    /// was nothing to sort: fewer than two keys).
    pub chunks: usize,
    /// Output buckets of the second pass (0 when there was none).
    pub buckets: usize,
    /// How many times every key (and value) crossed the host link: 4 when streamed (to the
    /// device and back in each pass), 2 when the input fit in one chunk, 0 for fewer than two
    /// keys.
    pub crossings: u32,
    /// Bytes copied from the host to the device (keys and values; with the padding keys of a
    /// pass's last, short chunk).
    pub bytes_to_device: u64,
    /// Bytes copied from the device to the host.
    pub bytes_to_host: u64,
    /// Keys per chunk and per bucket (the last of each pass may hold fewer); the input's
    /// length when it fit in one chunk.
    pub chunk_keys: usize,
    /// Wall-clock time of each step.
    pub times: StreamTimes,
    /// Whether the sorted runs between the two passes lay in page-locked memory (a
    /// [`super::StreamSorter`]'s, copied by DMA both ways) rather than in an ordinary host
    /// temporary (copied through the staging pieces).
    pub pinned_runs: bool,
}

/// Wall-clock time of the steps of a streamed sort (zero for the steps it did not take).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamTimes {
    /// Allocations before the first copy: the lanes (device buffers, radix scratch, pinned
    /// staging) and the host temporary's reservation.
    pub setup: std::time::Duration,
    /// The first pass (chunks to the device, sorted, back as runs), or the one piece.
    pub runs: std::time::Duration,
    /// The split of the runs into buckets on the host.
    pub split: std::time::Duration,
    /// The second pass (buckets gathered, sorted, into place).
    pub merge: std::time::Duration,
}
