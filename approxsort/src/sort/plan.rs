//! How one approximate sort runs: the workspace [`Layout`] and the [`Plan`] (which kernels, on
//! how many bins, tiles and blocks), chosen by variant, intervals, length and device.

use sortlab_primitives::{
    DeviceBuffer, DevicePtr, Error, Region, Result, ScratchLayout, SortKey, SortValue,
};

use crate::kernels::{
    Kernels, LEAD_BUCKETS, LEAD_MAX_BINS, SCAN_SMALL_MAX, SHARED_RESERVE, SPLIT_TABLE,
};
use crate::options::{ApproxOptions, ApproxVariant, Intervals};
use crate::policy::ApproxPolicy;
use crate::result::ApproxPath;

/// The regions of an approximate sort's workspace (scratch) for keys `K` and values `V`.
#[derive(Debug)]
pub(crate) struct Layout<K: SortKey, V: SortValue> {
    /// `m` claim counters, then the 2 words of min and max (`K::Bits` each, 8-byte slots) and
    /// the [`COUNTER_WORDS`] counters: all zeroed by one launch.
    pub(crate) words: Region<u64>,
    /// Paper: `n` interval numbers and `n` offsets.
    pub(crate) idx: Region<u32>,
    pub(crate) off: Region<u64>,
    /// Sampled: the splitters (words 0..m - 1 of m), s0 and the shift (2 words), then the
    /// bucket table (SPLIT_TABLE + 1 u32): see `SampledMap` in kernels/maps.cuh.
    pub(crate) splitters: Region<K::Bits>,
    /// The two-pass scatter's intermediate keys and values (or, with scratch and one pass, the
    /// output before it is copied back).
    pub(crate) tmp_keys: Region<K>,
    pub(crate) tmp_vals: Region<V>,
    /// Bytes of the whole workspace.
    pub(crate) bytes: usize,
}

impl<K: SortKey, V: SortValue> Clone for Layout<K, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K: SortKey, V: SortValue> Copy for Layout<K, V> {}

impl<K: SortKey, V: SortValue> Layout<K, V> {
    /// The workspace of `n` keys (with values when `with_values`) under `opts`, with room for
    /// the intermediate keys (values) when `with_tmp`.
    pub(crate) fn new(
        n: usize,
        opts: &ApproxOptions,
        with_values: bool,
        with_tmp: bool,
    ) -> Result<Self> {
        let m = opts.intervals;
        let paper = opts.variant == ApproxVariant::Paper;
        let sampled = opts.boundaries == Intervals::Sampled;
        let mut l = ScratchLayout::new();
        let words = l.region(m.saturating_add(2 + COUNTER_WORDS));
        let idx = l.region(if paper { n } else { 0 });
        let off = l.region(if paper { n } else { 0 });
        let table_words = ((SPLIT_TABLE + 1) * 4).div_ceil(std::mem::size_of::<K::Bits>());
        let splitters = l.region(if sampled {
            m.saturating_add(2 + table_words)
        } else {
            0
        });
        let tmp_keys = l.region(if with_tmp { n } else { 0 });
        let tmp_vals = l.region(if with_tmp && with_values { n } else { 0 });
        Ok(Layout {
            words,
            idx,
            off,
            splitters,
            tmp_keys,
            tmp_vals,
            bytes: l.bytes()?,
        })
    }

    /// The intermediate keys and values in `ws` (0 for an empty region: keys alone, or no room
    /// for them).
    pub(crate) fn tmp(&self, ws: &DeviceBuffer<u8>) -> (u64, u64) {
        let addr = |empty: bool, a: u64| if empty { 0 } else { a };
        (
            addr(self.tmp_keys.is_empty(), self.tmp_keys.ptr(ws).addr()),
            addr(self.tmp_vals.is_empty(), self.tmp_vals.ptr(ws).addr()),
        )
    }

    /// The claim counters (`m` words from the first).
    pub(crate) fn claimed(&self, ws: &DeviceBuffer<u8>) -> DevicePtr<u64> {
        self.words.ptr(ws)
    }

    /// The min and max words (word `m`, `m + 1`).
    pub(crate) fn minmax(&self, ws: &DeviceBuffer<u8>, m: usize) -> DevicePtr<K::Bits> {
        self.words.ptr(ws).offset(m).cast()
    }

    /// Counter `i` (< [`COUNTER_WORDS`]), a `u32` in an 8-byte slot after the min and max.
    pub(crate) fn counter(&self, ws: &DeviceBuffer<u8>, m: usize, i: usize) -> DevicePtr<u32> {
        debug_assert!(i < COUNTER_WORDS);
        self.words.ptr(ws).offset(m + 2 + i).cast()
    }
}

/// How one approximate sort runs (chosen by variant, intervals, length and device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    Empty,
    Paper,
    /// Per-key warp-aggregated global atomics (too many intervals for shared memory).
    Global,
    /// Count per chunk, then a tiled scatter (see [`Scatter`]).
    Scatter(Scatter),
}

/// A tiled scatter: count per chunk (each chunk counted by `split` blocks), then a scatter of
/// `tiles`: one pass into the intervals (`f == 1`), or a coarse pass into `coarse` bins of `f`
/// intervals each and a fine pass with claims. `grid` blocks own one chunk of `chunk` keys each
/// in the count and (coarse) passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scatter {
    pub(crate) tiles: Tiles,
    pub(crate) f: usize,
    pub(crate) coarse: usize,
    pub(crate) grid: usize,
    pub(crate) chunk: usize,
    pub(crate) split: usize,
    /// The coarse bins from the keys' leading bits where they spread (wide tiles, equal widths;
    /// see `approx_wide_lead` in kernels/wide_scatter.cuh), else the count pass and chunked
    /// coarse pass: chosen on the device.
    pub(crate) lead: bool,
}

/// The tiles of a scatter pass: the staged kernels' (`tile_items` keys, several blocks a
/// multiprocessor) or the wide kernels' (`wide_tile` keys, one block a multiprocessor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tiles {
    Staged,
    Wide,
}

impl Tiles {
    /// Kernel name stems of the coarse (or only) pass and of the fine pass.
    pub(crate) fn kernels(self) -> (&'static str, &'static str) {
        match self {
            Tiles::Staged => ("approx_coarse", "approx_fine"),
            Tiles::Wide => ("approx_wide", "approx_wide_fine"),
        }
    }
    /// Threads a block, keys a tile, and resident blocks a multiprocessor wanted.
    pub(crate) fn shape(self, p: &ApproxPolicy) -> (u32, usize, u32) {
        match self {
            Tiles::Staged => (p.block_threads, p.tile_items(), p.blocks_per_sm),
            Tiles::Wide => (p.wide_threads, p.wide_tile(), p.wide_blocks_per_sm),
        }
    }
    /// Dynamic shared memory of a pass over `bins` bins (`cursors`: the coarse or only pass).
    pub(crate) fn shared_bytes(self, kern: &Kernels, bins: usize, cursors: bool) -> usize {
        match self {
            Tiles::Staged => kern.staged_shared_bytes(bins, cursors),
            Tiles::Wide => kern.wide_shared_bytes(bins),
        }
    }
    /// Phase name prefix (`PHASES_ENV`).
    pub(crate) fn label(self) -> &'static str {
        match self {
            Tiles::Staged => "",
            Tiles::Wide => "wide ",
        }
    }
}

impl Plan {
    /// Whether the scatter takes two passes (through the intermediate buffer).
    pub(crate) fn two_pass(self) -> bool {
        matches!(self, Plan::Scatter(s) if s.f > 1)
    }
    pub(crate) fn path(self) -> ApproxPath {
        match self {
            Plan::Empty => ApproxPath::Empty,
            Plan::Paper => ApproxPath::Paper,
            Plan::Global => ApproxPath::GlobalAtomics,
            Plan::Scatter(Scatter {
                tiles: Tiles::Staged,
                f: 1,
                ..
            }) => ApproxPath::SharedCounts,
            Plan::Scatter(Scatter {
                tiles: Tiles::Staged,
                ..
            }) => ApproxPath::TwoPass,
            Plan::Scatter(Scatter {
                tiles: Tiles::Wide,
                f: 1,
                ..
            }) => ApproxPath::WideOnePass,
            Plan::Scatter(Scatter {
                tiles: Tiles::Wide, ..
            }) => ApproxPath::WideTwoPass,
        }
    }
}

/// The plan for `n` keys under `opts` with the module `kern`.
pub(crate) fn plan(kern: &Kernels, n: usize, opts: &ApproxOptions) -> Result<Plan> {
    let p = &kern.policy;
    if p.tile_items() > u16::MAX as usize || p.tile_items() == 0 {
        return Err(Error::InvalidArgument(format!(
            "a tile of {} keys: the scatter's 16-bit counters need 1 to {} keys",
            p.tile_items(),
            u16::MAX
        )));
    }
    if n == 0 {
        return Ok(Plan::Empty);
    }
    if opts.variant == ApproxVariant::Paper {
        return Ok(Plan::Paper);
    }
    let m = opts.intervals;
    let gpu = &kern.gpu;
    let optin = gpu
        .info()
        .shared_per_block_optin
        .saturating_sub(SHARED_RESERVE);
    let (f, coarse) = bins(m, p.direct_max_intervals, p.coarse_max);
    // Sampled intervals take the wide path too since the bucket table of `SampledMap`
    // (kernels/maps.cuh): 7.22 ms against 7.95 staged (H100, 2^28 u32 keys; README.md).
    if let Some(wide) = wide_plan(kern, n, opts, optin) {
        return Ok(wide);
    }
    let fits = m <= p.shared_max_intervals
        && m.saturating_mul(4) <= optin
        && kern.staged_shared_bytes(coarse, true) <= optin
        && (f == 1 || kern.staged_shared_bytes(m, false) <= optin);
    if !fits {
        return Ok(Plan::Global);
    }
    let (grid, chunk) = chunks(kern, n, Tiles::Staged, coarse);
    Ok(Plan::Scatter(Scatter {
        tiles: Tiles::Staged,
        f,
        coarse,
        grid,
        chunk,
        split: 1,
        lead: false,
    }))
}

/// Words of the leading-bits path's device data: the bucket counts, the coarse bounds
/// (`coarse + 1`), the coarse claims (`coarse`), the plan's three words (flag, shift, base).
pub(crate) fn lead_words(coarse: usize) -> usize {
    // (one word of room to start the bucket counts 16-byte aligned: the plan loads vectors)
    1 + LEAD_BUCKETS + (coarse + 1) + coarse + 3
}

/// Workspace words after the min-max words: three count the blocks done of the kernels whose
/// last block ends a step (`sortlab::last_block`): the min-max pass's (the leading-bits plan),
/// the count pass's (the scans) and the leading-bits coarse pass's (the scan of the counts); one
/// hands out the tiles of the wide fine pass (`approx_wide_fine_*`).
pub(crate) const COUNTER_WORDS: usize = 4;

/// Whether the leading-bits path may run for `n` keys into `m` intervals over `coarse` bins
/// (the chunked fallback's count matrix `matrix_len` words): long enough an input, both scans
/// by one block (the fallback's is skipped on the device), shared memory for its kernels, and
/// fewer than 2^32 keys a block.
fn lead_fits(
    kern: &Kernels,
    n: usize,
    m: usize,
    coarse: usize,
    matrix_len: usize,
    optin: usize,
) -> bool {
    let p = &kern.policy;
    let sms = kern.sms();
    n >= p.lead_min
        && (2..=LEAD_MAX_BINS).contains(&coarse)
        && m < SCAN_SMALL_MAX
        && matrix_len <= SCAN_SMALL_MAX
        && LEAD_BUCKETS * 4 <= optin
        && lead_shared_bytes(kern, coarse, m) <= optin
        && (n as u64) < (sms as u64) << 32
}

/// Dynamic shared memory of `approx_wide_lead`: the wide scatter's and the interval counters.
pub(crate) fn lead_shared_bytes(kern: &Kernels, coarse: usize, m: usize) -> usize {
    kern.wide_shared_bytes(coarse) + m * 4
}

/// Where the leading-bits path keeps its device data (words after the count matrix).
#[derive(Clone, Copy)]
pub(crate) struct Lead {
    /// The most coarse bins.
    pub(crate) coarse: usize,
    /// Bucket counts, coarse bounds, coarse claims, the plan's words (the first, 0 or 1, is the
    /// flag the gated kernels read).
    pub(crate) hist: DevicePtr<u64>,
    pub(crate) bounds: DevicePtr<u64>,
    pub(crate) claimed: DevicePtr<u64>,
    pub(crate) flag: DevicePtr<u64>,
}

impl Lead {
    /// The layout for `coarse` bins after the first `matrix_len` words of `matrix` (a fresh,
    /// aligned allocation of `matrix_len + lead_words(coarse)` words): the bucket counts from
    /// the first 16-byte aligned word on.
    pub(crate) fn after(coarse: usize, matrix: DevicePtr<u64>, matrix_len: usize) -> Self {
        let hist = matrix.offset(matrix_len.next_multiple_of(2));
        let bounds = hist.offset(LEAD_BUCKETS);
        let claimed = bounds.offset(coarse + 1);
        let flag = claimed.offset(coarse);
        Lead {
            coarse,
            hist,
            bounds,
            claimed,
            flag,
        }
    }
}

/// `(f, coarse)`: up to `one_pass_max` intervals one pass (`f == 1`, a bin an interval), beyond
/// a coarse pass into about `sqrt(m)` bins (at most `coarse_max`) of `f` intervals each, `f` a
/// power of two (the kernels shift instead of dividing).
fn bins(m: usize, one_pass_max: usize, coarse_max: usize) -> (usize, usize) {
    if m <= one_pass_max {
        return (1, m);
    }
    let c = ((m as f64).sqrt().ceil() as usize).clamp(2, coarse_max.max(2));
    let f = m.div_ceil(c).next_power_of_two();
    (f, m.div_ceil(f))
}

/// `(grid, chunk)` of a chunked pass of `tiles` over `coarse` bins: as many blocks as fit the
/// multiprocessors (at most one a tile), each owning `chunk` keys, a whole number of tiles.
fn chunks(kern: &Kernels, n: usize, tiles: Tiles, coarse: usize) -> (usize, usize) {
    let (_, tile, wanted) = tiles.shape(&kern.policy);
    let count = n.div_ceil(tile);
    let fit = kern.blocks_that_fit(tiles.shared_bytes(kern, coarse, true), wanted) as usize;
    // A chunk's u32 counts hold at most 2^31 keys.
    let grid =
        kern.gpu
            .grid_blocks((kern.sms() * fit).max(n.div_ceil(1 << 31)).min(count)) as usize;
    (grid, count.div_ceil(grid) * tile)
}

/// The wide scatter's plan for `n` keys into `opts.intervals` intervals, when the policy takes
/// it and its shared memory (and the count kernel's) fits `optin` bytes; with the leading-bits
/// coarse bins where they may pay (equal widths, two passes, `lead_fits`).
fn wide_plan(kern: &Kernels, n: usize, opts: &ApproxOptions, optin: usize) -> Option<Plan> {
    let p = &kern.policy;
    let m = opts.intervals;
    let wide = kern.wide_shared_bytes(m);
    let usable = m > p.direct_max_intervals
        && m <= p.wide_max_intervals
        && m <= p.shared_max_intervals
        && p.wide_tile() > 0
        && p.wide_tile() <= 1 << 16
        && m.saturating_mul(4) <= optin
        && wide <= optin;
    if !usable {
        return None;
    }
    let (f, coarse) = bins(m, p.wide_one_pass_max, p.coarse_max);
    let gpu = &kern.gpu;
    let (grid, chunk) = chunks(kern, n, Tiles::Wide, coarse);
    let fit = kern.blocks_that_fit(kern.wide_shared_bytes(coarse), p.wide_blocks_per_sm) as usize;
    // The count kernel (BLOCK_THREADS a block, m u32 counters) fits more blocks a multiprocessor:
    // several count one chunk, each a part of 16-key multiples (aligned vector loads).
    let count_fit = kern.blocks_that_fit(m * 4, p.blocks_per_sm) as usize;
    let mut split = (count_fit * p.block_threads as usize / (fit * p.wide_threads as usize)).max(1);
    while split > 1 && (chunk % (split * 16) != 0 || grid * split > gpu.info().max_grid_x as usize)
    {
        split -= 1;
    }
    let lead = opts.boundaries == Intervals::EqualWidth
        && f > 1
        && lead_fits(kern, n, m, coarse, coarse * grid + 1, optin);
    Some(Plan::Scatter(Scatter {
        tiles: Tiles::Wide,
        f,
        coarse,
        grid,
        chunk,
        split,
        lead,
    }))
}

#[cfg(test)]
mod tests {
    use super::bins;

    #[test]
    fn bins_split_intervals_about_their_square_root() {
        assert_eq!(bins(100, 512, 1024), (1, 100));
        assert_eq!(bins(512, 512, 1024), (1, 512));
        // About sqrt(m) intervals a bin, rounded up to a power of two.
        assert_eq!(bins(10_000, 512, 1024), (128, 79));
        assert_eq!(bins(10_001, 512, 1024), (128, 79));
        assert_eq!(bins(40_000, 0, 1024), (256, 157));
        // Capped coarse bins take more intervals each; every interval is in a bin.
        assert_eq!(bins(1 << 22, 0, 1024), (4096, 1024));
        assert_eq!(bins(10, 0, 1), (8, 2));
        for m in [2usize, 3, 513, 9_999, 90_000] {
            let (f, c) = bins(m, 0, 1024);
            assert!(f.is_power_of_two(), "m {m}: f {f}");
            assert!(f * c >= m && f * (c - 1) < m, "m {m}: f {f}, coarse {c}");
        }
    }
}
