//! [`ScanVariant`].

use std::fmt;

/// Which scan kernel runs: the classic scans of GPU Gems 3 chapter 39 ("Parallel Prefix Sum
/// (Scan) with CUDA"), kept for comparison, and the fast single-pass default.
///
/// Three classic variants work inside one warp or one block by construction; beyond
/// [`ScanVariant::max_len`] they return [`crate::Error::InvalidArgument`], never a wrong answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanVariant {
    /// Hillis-Steele (log n steps of n operations) in one warp, with shuffles: at most 32 keys.
    Naive,
    /// Hillis-Steele in one block with two shared buffers (GPU Gems 39-1): at most 1024 keys.
    DoubleBuffered,
    /// Blelloch's work-efficient up-sweep / down-sweep in one block of 1024 threads, with
    /// GPU Gems' bank-conflict padding (39-2): at most 2048 keys.
    WorkEfficient,
    /// Any length: Blelloch scans of tiles, a scan of the tile totals (recursively), the totals
    /// added back (GPU Gems 39.2.4). Reads the keys once and the output twice.
    Hierarchical,
    /// Any length, one pass: decoupled look-back (Merrill & Garland, 2016) with items per
    /// thread in registers and warp-shuffle scans; reads each key once and writes it once.
    /// Float sums depend on which predecessor tiles had finished, so they may differ in the
    /// last bits from run to run.
    #[default]
    Fast,
}

/// [`ScanVariant::Naive`]'s limit: one warp.
pub(crate) const NAIVE_MAX: usize = 32;
/// [`ScanVariant::DoubleBuffered`]'s limit: one block of 1024 threads, one key each.
pub(crate) const DOUBLE_BUFFERED_MAX: usize = 1024;
/// [`ScanVariant::WorkEfficient`]'s limit: one block of 1024 threads, two keys each.
pub(crate) const WORK_EFFICIENT_MAX: usize = 2 * 1024;

impl ScanVariant {
    /// Every variant, classic ones first.
    pub const ALL: [ScanVariant; 5] = [
        ScanVariant::Naive,
        ScanVariant::DoubleBuffered,
        ScanVariant::WorkEfficient,
        ScanVariant::Hierarchical,
        ScanVariant::Fast,
    ];

    /// Short name (`"naive"`, `"double-buffered"`, `"work-efficient"`, `"hierarchical"`,
    /// `"fast"`).
    pub fn name(self) -> &'static str {
        match self {
            ScanVariant::Naive => "naive",
            ScanVariant::DoubleBuffered => "double-buffered",
            ScanVariant::WorkEfficient => "work-efficient",
            ScanVariant::Hierarchical => "hierarchical",
            ScanVariant::Fast => "fast",
        }
    }

    /// The most keys this variant scans: `Some(32)` for [`ScanVariant::Naive`] (one warp),
    /// `Some(1024)` for [`ScanVariant::DoubleBuffered`] (one block), `Some(2048)` for
    /// [`ScanVariant::WorkEfficient`] (one block, two keys per thread), `None` (any length)
    /// otherwise.
    pub fn max_len(self) -> Option<usize> {
        match self {
            ScanVariant::Naive => Some(NAIVE_MAX),
            ScanVariant::DoubleBuffered => Some(DOUBLE_BUFFERED_MAX),
            ScanVariant::WorkEfficient => Some(WORK_EFFICIENT_MAX),
            ScanVariant::Hierarchical | ScanVariant::Fast => None,
        }
    }

    /// What bounds [`ScanVariant::max_len`], for error messages.
    pub(crate) fn limit_reason(self) -> &'static str {
        match self {
            ScanVariant::Naive => "one warp",
            ScanVariant::DoubleBuffered => "one block of 1024 threads",
            ScanVariant::WorkEfficient => "one block of 1024 threads, two keys each",
            ScanVariant::Hierarchical | ScanVariant::Fast => "no limit",
        }
    }

    /// The `SCAN_VARIANT` define of `scan.cu`.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}

impl fmt::Display for ScanVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
