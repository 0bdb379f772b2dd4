//! [`ScanOp`], [`ScanKind`] and [`Direction`].

use std::fmt;

/// The operator of a scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanOp {
    /// Sum in the key's own type: wrapping for integers, IEEE addition for floats. The
    /// exclusive identity is `0` (`+0.0`).
    #[default]
    Sum,
    /// Largest key so far by total order ([`crate::SortKey::total_cmp`]). The exclusive
    /// identity is [`crate::SortKey::LOWEST`].
    Max,
    /// Smallest key so far by total order. The exclusive identity is
    /// [`crate::SortKey::HIGHEST`].
    Min,
}

impl ScanOp {
    /// Every operator.
    pub const ALL: [ScanOp; 3] = [ScanOp::Sum, ScanOp::Max, ScanOp::Min];

    /// Short name (`"sum"`, `"max"`, `"min"`).
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "sum",
            ScanOp::Max => "max",
            ScanOp::Min => "min",
        }
    }

    /// The `SCAN_OP` define of `scan.cu`.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}

impl fmt::Display for ScanOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether element `i` of a scan includes input `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanKind {
    /// `out[i] = in[0] op ... op in[i]` (forward).
    #[default]
    Inclusive,
    /// `out[i] = in[0] op ... op in[i - 1]`, the operator's identity for `i = 0` (forward):
    /// `0`, [`crate::SortKey::LOWEST`] or [`crate::SortKey::HIGHEST`].
    Exclusive,
}

impl ScanKind {
    /// Both kinds.
    pub const ALL: [ScanKind; 2] = [ScanKind::Inclusive, ScanKind::Exclusive];

    /// Short name (`"inclusive"`, `"exclusive"`).
    pub fn name(self) -> &'static str {
        match self {
            ScanKind::Inclusive => "inclusive",
            ScanKind::Exclusive => "exclusive",
        }
    }

    /// Whether this is [`ScanKind::Exclusive`].
    pub fn is_exclusive(self) -> bool {
        self == ScanKind::Exclusive
    }
}

impl fmt::Display for ScanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which way a scan runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Prefixes: `out[i]` combines `in[0..=i]` (inclusive) or `in[0..i]` (exclusive).
    #[default]
    Forward,
    /// Suffixes: `out[i]` combines `in[i..n]` (inclusive) or `in[i + 1..n]` (exclusive); a
    /// reverse inclusive min scan is the suffix minimum.
    Reverse,
}

impl Direction {
    /// Both directions.
    pub const ALL: [Direction; 2] = [Direction::Forward, Direction::Reverse];

    /// Short name (`"forward"`, `"reverse"`).
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Reverse => "reverse",
        }
    }

    /// Whether this is [`Direction::Reverse`].
    pub fn is_reverse(self) -> bool {
        self == Direction::Reverse
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
