//! [`ReduceVariant`] and [`ReduceOp`].

use std::fmt;

/// Which reduction kernel runs: the four classic kernels of Mark Harris's "Optimizing Parallel
/// Reduction in CUDA", kept for comparison, and the fast single-pass default.
///
/// Every variant is correct for every length (0 included, and past 2^32) and never writes its
/// input: the classic ones write one partial per tile to a temporary buffer and launch again on
/// the partials until one value remains, padding partial tiles with the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceVariant {
    /// Harris kernel 1: interleaved addressing with the divergent branch `tid % (2*s) == 0`.
    Interleaved,
    /// Harris kernel 3: sequential addressing, the active threads contiguous (no divergence,
    /// no bank conflicts).
    Sequential,
    /// Harris kernel 4: tiles of two blocks' worth, half the blocks, one add while loading.
    FirstAddDuringLoad,
    /// Harris kernel 5: as [`ReduceVariant::FirstAddDuringLoad`], the last warp unrolled, here
    /// with warp shuffles (the original's volatile shared memory without `__syncwarp()` is a
    /// race on Volta and later).
    UnrolledLastWarp,
    /// One pass: grid-stride 16-byte vector loads, warp shuffles, a block reduction, and the
    /// last block to finish (atomic ticket) reduces the per-block partials. Deterministic for
    /// floats on a given device (the grid depends on the number of multiprocessors).
    #[default]
    Fast,
}

impl ReduceVariant {
    /// Every variant, classic ones first.
    pub const ALL: [ReduceVariant; 5] = [
        ReduceVariant::Interleaved,
        ReduceVariant::Sequential,
        ReduceVariant::FirstAddDuringLoad,
        ReduceVariant::UnrolledLastWarp,
        ReduceVariant::Fast,
    ];

    /// Short name (`"interleaved"`, `"sequential"`, `"first-add"`, `"unrolled"`, `"fast"`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceVariant::Interleaved => "interleaved",
            ReduceVariant::Sequential => "sequential",
            ReduceVariant::FirstAddDuringLoad => "first-add",
            ReduceVariant::UnrolledLastWarp => "unrolled",
            ReduceVariant::Fast => "fast",
        }
    }

    /// The `REDUCE_VARIANT` define of `reduce.cu`.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}

impl fmt::Display for ReduceVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The operation of a reduction (min and max by the total order of [`crate::SortKey`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    /// Sum, in [`crate::reduce::ReduceKey::Sum`].
    Sum,
    /// Smallest key.
    Min,
    /// Largest key.
    Max,
    /// Smallest and largest key, in one pass.
    MinMax,
}

impl ReduceOp {
    /// Every operation.
    pub const ALL: [ReduceOp; 4] = [
        ReduceOp::Sum,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::MinMax,
    ];

    /// Short name (`"sum"`, `"min"`, `"max"`, `"min-max"`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::MinMax => "min-max",
        }
    }

    /// The `REDUCE_OP` define of `reduce.cu`.
    pub(crate) fn index(self) -> u32 {
        self as u32
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
