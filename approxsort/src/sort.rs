//! The approximate sort's entry points: in place (allocating), into an output buffer, with
//! caller-supplied scratch, keys and key-value pairs.

use sortlab_primitives::reduce::{reduce_min_max, ReduceVariant};
use sortlab_primitives::scan::{scan_in_place, Direction, ScanKind, ScanOp, ScanVariant};
use std::sync::OnceLock;

use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, GpuTimer, KernelArgs, KeyBits, Result, SortKey, SortValue,
};

use crate::kernels::{value_type, Kernels};
use crate::kernels::{LEAD_BUCKETS, LEAD_MAX_BINS, SCAN_SMALL_MAX, SPLIT_TABLE};
use crate::options::{ApproxOptions, ApproxVariant, Intervals};
use crate::policy::ApproxPolicy;
use crate::result::{ApproxPath, ApproxResult};
use crate::sample::build_splitters;

/// Alignment of every part of the workspace (the allocation granule of the scan and reduce
/// kernels' vector loads is 16 bytes; 256 keeps parts on separate cache lines).
const ALIGN: usize = 256;
/// Shared memory the runtime keeps per block beside a kernel's own (static) shared memory.
const SHARED_RESERVE: usize = 1024;
/// Blocks per multiprocessor of the grid-stride kernels (global-atomic path, paper kernels).
const STRIDE_BLOCKS_PER_SM: u32 = 4;

/// Environment variable that makes the approximate sort and `refine` print the kernel time of
/// each phase to stderr (a diagnostic: it synchronises after every phase).
pub const PHASES_ENV: &str = "SORTLAB_APPROX_PHASES";

/// Per-phase kernel timing when [`PHASES_ENV`] is `1`.
pub(crate) struct Phases {
    timer: Option<GpuTimer>,
    what: &'static str,
}

impl Phases {
    pub(crate) fn new(gpu: &Gpu, what: &'static str) -> Self {
        static ON: OnceLock<bool> = OnceLock::new();
        let on = *ON.get_or_init(|| std::env::var_os(PHASES_ENV).is_some_and(|v| v == "1"));
        let timer = if on { GpuTimer::new(gpu).ok() } else { None };
        if let Some(t) = &timer {
            let _ = t.start();
        }
        Phases { timer, what }
    }
    pub(crate) fn mark(&mut self, phase: &str) {
        if let Some(t) = &self.timer {
            if let Ok(ms) = t.stop() {
                eprintln!("[{}] {phase}: {ms:.4} ms", self.what);
            }
            let _ = t.start();
        }
    }
}

/// Byte offsets of the parts of an approximate sort's workspace.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// `m` claim counters (u64 slots), followed by the 2 words of min and max and the
    /// [`COUNTER_WORDS`] counters (all zeroed together).
    claimed: usize,
    mm: usize,
    counters: usize,
    /// Paper: `n` u32 interval numbers and `n` u64 offsets.
    idx: usize,
    off: usize,
    /// Sampled: `m - 1` splitters (ranked bits).
    splitters: usize,
    /// The two-pass scatter's intermediate keys and values (or, with scratch and one pass, the
    /// output before it is copied back).
    tmp_keys: usize,
    tmp_vals: usize,
    total: usize,
}

impl Layout {
    fn new(
        n: usize,
        opts: &ApproxOptions,
        key_size: usize,
        value_size: Option<usize>,
        with_tmp: bool,
    ) -> Result<Self> {
        let overflow = || Error::InvalidArgument(format!("{n} keys overflow the workspace size"));
        let m = opts.intervals;
        let mut at = 0usize;
        let mut part = |bytes: Option<usize>| -> Result<usize> {
            let bytes = bytes.ok_or_else(overflow)?;
            let start = at;
            at = at
                .checked_add(bytes.div_ceil(ALIGN) * ALIGN)
                .ok_or_else(overflow)?;
            Ok(start)
        };
        let paper = opts.variant == ApproxVariant::Paper;
        let sampled = opts.boundaries == Intervals::Sampled;
        let claimed = part(m.checked_mul(8))?;
        // The min-max words and the counters follow the claims directly (one zeroing
        // launch for all).
        let mm = claimed + m * 8;
        let counters = mm + 16;
        let _ = part(Some(16 + 8 * COUNTER_WORDS))?;
        let idx = part(if paper { n.checked_mul(4) } else { Some(0) })?;
        let off = part(if paper { n.checked_mul(8) } else { Some(0) })?;
        // The splitters (words 0..m - 1 of m), s0 and the shift (2 words), the bucket table
        // (SPLIT_TABLE + 1 u32): see `SampledMap` in approx.cu.
        let splitters = part(if sampled {
            m.checked_add(2)
                .and_then(|w| w.checked_mul(key_size))
                .and_then(|b| b.checked_add((SPLIT_TABLE + 1) * 4))
        } else {
            Some(0)
        })?;
        let tmp_keys = part(if with_tmp {
            n.checked_mul(key_size)
        } else {
            Some(0)
        })?;
        let tmp_vals = part(match (with_tmp, value_size) {
            (true, Some(v)) => n.checked_mul(v),
            _ => Some(0),
        })?;
        Ok(Layout {
            claimed,
            mm,
            counters,
            idx,
            off,
            splitters,
            tmp_keys,
            tmp_vals,
            total: at.max(1),
        })
    }
}

/// How one approximate sort runs (chosen by variant, intervals, length and device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    Empty,
    Paper,
    /// Per-key warp-aggregated global atomics (too many intervals for shared memory).
    Global,
    /// Count per chunk (each chunk counted by `split` blocks), then a scatter of `tiles`: one
    /// pass into the intervals (`f == 1`), or a coarse pass into `coarse` bins of `f` intervals
    /// each and a fine pass with claims. `grid` blocks own one chunk of `chunk` keys each in the
    /// count and (coarse) passes.
    Scatter {
        tiles: Tiles,
        f: usize,
        coarse: usize,
        grid: usize,
        chunk: usize,
        split: usize,
        /// The coarse bins from the keys' leading bits where they spread (wide tiles, equal
        /// widths; see `approx_wide_lead` in approx.cu), else the count pass and chunked
        /// coarse pass: chosen on the device.
        lead: bool,
    },
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
    fn kernels(self) -> (&'static str, &'static str) {
        match self {
            Tiles::Staged => ("approx_coarse", "approx_fine"),
            Tiles::Wide => ("approx_wide", "approx_wide_fine"),
        }
    }
    /// Threads a block, keys a tile, and resident blocks a multiprocessor wanted.
    fn shape(self, p: &ApproxPolicy) -> (u32, usize, u32) {
        match self {
            Tiles::Staged => (p.block_threads, p.tile_items(), p.blocks_per_sm),
            Tiles::Wide => (p.wide_threads, p.wide_tile(), p.wide_blocks_per_sm),
        }
    }
    /// Dynamic shared memory of a pass over `bins` bins (`cursors`: the coarse or only pass).
    fn shared_bytes(self, kern: &Kernels, bins: usize, cursors: bool) -> usize {
        match self {
            Tiles::Staged => kern.staged_shared_bytes(bins, cursors),
            Tiles::Wide => kern.wide_shared_bytes(bins),
        }
    }
    /// Phase name prefix (`PHASES_ENV`).
    fn label(self) -> &'static str {
        match self {
            Tiles::Staged => "",
            Tiles::Wide => "wide ",
        }
    }
}

impl Plan {
    /// Whether the scatter takes two passes (through the intermediate buffer).
    pub(crate) fn two_pass(self) -> bool {
        matches!(self, Plan::Scatter { f, .. } if f > 1)
    }
    fn path(self) -> ApproxPath {
        match self {
            Plan::Empty => ApproxPath::Empty,
            Plan::Paper => ApproxPath::Paper,
            Plan::Global => ApproxPath::GlobalAtomics,
            Plan::Scatter {
                tiles: Tiles::Staged,
                f: 1,
                ..
            } => ApproxPath::SharedCounts,
            Plan::Scatter {
                tiles: Tiles::Staged,
                ..
            } => ApproxPath::TwoPass,
            Plan::Scatter {
                tiles: Tiles::Wide,
                f: 1,
                ..
            } => ApproxPath::WideOnePass,
            Plan::Scatter {
                tiles: Tiles::Wide, ..
            } => ApproxPath::WideTwoPass,
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
    // (Sampled intervals of keys alone took the staged path while every key's splitters were
    // searched whole, three times a pass: H100, 2^28 u32 keys, 10,000 intervals, 20.4 ms wide
    // against 16.7 staged. With the bucket table of `SampledMap` (approx.cu): 7.22 wide, 7.95
    // staged; pairs 8.54 wide, 10.1 staged.)
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
    Ok(Plan::Scatter {
        tiles: Tiles::Staged,
        f,
        coarse,
        grid,
        chunk,
        split: 1,
        lead: false,
    })
}

/// Words of the leading-bits path's device data: the bucket counts, the coarse bounds
/// (`coarse + 1`), the coarse claims (`coarse`), the plan's three words (flag, shift, base).
fn lead_words(coarse: usize) -> usize {
    // (one word of room to start the bucket counts 16-byte aligned: the plan loads vectors)
    1 + LEAD_BUCKETS + (coarse + 1) + coarse + 3
}

/// Workspace words after the min-max words: three count the blocks done of the kernels whose
/// last block ends a step (`sortlab::last_block`): the min-max pass's (the leading-bits plan),
/// the count pass's (the scans) and the leading-bits coarse pass's (the scan of the counts); one
/// hands out the tiles of the wide fine pass (`approx_wide_fine_*`).
const COUNTER_WORDS: usize = 4;

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
fn lead_shared_bytes(kern: &Kernels, coarse: usize, m: usize) -> usize {
    kern.wide_shared_bytes(coarse) + m * 4
}

/// Where the leading-bits path keeps its device data (words after the count matrix).
#[derive(Clone, Copy)]
struct Lead {
    /// The most coarse bins.
    coarse: usize,
    /// Device addresses: bucket counts, coarse bounds, coarse claims, the plan's words (the
    /// first, 0 or 1, is the flag the gated kernels read).
    hist: u64,
    bounds: u64,
    claimed: u64,
    flag: u64,
}

impl Lead {
    /// The layout for `coarse` bins placed at device address `base` (8-byte aligned;
    /// `lead_words(coarse)` words, the bucket counts from the first 16-byte aligned one).
    fn at(coarse: usize, base: u64) -> Self {
        let hist = base.next_multiple_of(16);
        let bounds = hist + 8 * LEAD_BUCKETS as u64;
        let claimed = bounds + 8 * (coarse as u64 + 1);
        let flag = claimed + 8 * coarse as u64;
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
    let fit = blocks_that_fit(&kern.gpu, tiles.shared_bytes(kern, coarse, true), wanted) as usize;
    // A chunk's u32 counts hold at most 2^31 keys.
    let grid = (kern.sms() * fit)
        .max(n.div_ceil(1 << 31))
        .min(count)
        .min(kern.gpu.info().max_grid_x as usize)
        .max(1);
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
    let fit = blocks_that_fit(gpu, kern.wide_shared_bytes(coarse), p.wide_blocks_per_sm) as usize;
    // The count kernel (BLOCK_THREADS a block, m u32 counters) fits more blocks a multiprocessor:
    // several count one chunk, each a part of 16-key multiples (aligned vector loads).
    let count_fit = blocks_that_fit(gpu, m * 4, p.blocks_per_sm) as usize;
    let mut split = (count_fit * p.block_threads as usize / (fit * p.wide_threads as usize)).max(1);
    while split > 1 && (chunk % (split * 16) != 0 || grid * split > gpu.info().max_grid_x as usize)
    {
        split -= 1;
    }
    let lead = opts.boundaries == Intervals::EqualWidth
        && f > 1
        && lead_fits(kern, n, m, coarse, coarse * grid + 1, optin);
    Some(Plan::Scatter {
        tiles: Tiles::Wide,
        f,
        coarse,
        grid,
        chunk,
        split,
        lead,
    })
}

/// Where one run reads and writes (device addresses; values 0 for keys only; tmp: the
/// intermediate buffers of a two-pass scatter).
pub(crate) struct Io<'a, K: SortKey> {
    keys_in: &'a DeviceBuffer<K>,
    vals_in: u64,
    keys_out: u64,
    vals_out: u64,
    tmp_keys: u64,
    tmp_vals: u64,
}

/// Bytes of scratch memory [`approx_sort_with_scratch`] needs for `n` keys `K` under `opts`.
///
/// Errors: [`Error::InvalidArgument`] for invalid options or a size that overflows.
pub fn scratch_bytes<K: SortKey>(n: usize, opts: &ApproxOptions) -> Result<usize> {
    opts.validate()?;
    Ok(Layout::new(n, opts, K::SIZE, None, true)?.total)
}

/// Bytes of scratch memory [`approx_sort_pairs_with_scratch`] needs for `n` pairs.
///
/// Errors: as [`scratch_bytes`].
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(
    n: usize,
    opts: &ApproxOptions,
) -> Result<usize> {
    opts.validate()?;
    Ok(Layout::new(n, opts, K::SIZE, Some(V::SIZE), true)?.total)
}

/// The ranked-bits mask of an order: all ones for descending.
pub(crate) fn flip_of<K: SortKey>(order: sortlab_primitives::Order) -> K::Bits {
    if order.is_descending() {
        K::Bits::from_u64(u64::MAX)
    } else {
        K::Bits::default()
    }
}

/// Blocks of `shared` bytes of dynamic shared memory that fit one multiprocessor, at most
/// `wanted`.
pub(crate) fn blocks_that_fit(gpu: &Gpu, shared: usize, wanted: u32) -> u32 {
    let per_sm = gpu.info().shared_per_block_optin + SHARED_RESERVE;
    ((per_sm / (shared + SHARED_RESERVE)) as u32).clamp(1, wanted.max(1))
}

/// One approximate sort from `io.keys_in` into `io.keys_out` with the workspace at `ws`.
fn run<K: SortKey>(
    kern: &Kernels,
    plan: Plan,
    io: Io<'_, K>,
    opts: &ApproxOptions,
    ws: u64,
    layout: &Layout,
) -> Result<ApproxResult> {
    let gpu = &kern.gpu;
    let n = io.keys_in.len();
    let m = opts.intervals;
    let path = plan.path();
    if plan == Plan::Empty {
        return Ok(ApproxResult {
            boundaries: DeviceBuffer::<u64>::zeroed(gpu, m + 1)?,
            len: n,
            options: *opts,
            path,
        });
    }
    // The counts (scanned into the boundaries), the claim counters and the count matrix of a
    // chunked scatter, zeroed by one launch.
    let mut boundaries = DeviceBuffer::<u64>::alloc(gpu, m + 1)?;
    let (matrix_len, lead) = match plan {
        Plan::Scatter {
            coarse, grid, lead, ..
        } => (coarse * grid + 1, lead.then_some(coarse)),
        _ => (0, None),
    };
    // Whether the counts and the count matrix are short enough for one block's scan (always on
    // the leading-bits path: lead_fits), which then ends the count pass (its last block).
    let small_scans = m < SCAN_SMALL_MAX && matrix_len <= SCAN_SMALL_MAX;
    // The count matrix, then (leading-bits path) its device data.
    let lead_len = lead.map_or(0, lead_words);
    let mut matrix = DeviceBuffer::<u64>::alloc(gpu, matrix_len + lead_len)?;
    kern.zero_words(&[
        (ws + layout.claimed as u64, m + 2 + COUNTER_WORDS),
        (boundaries.ptr().addr(), m + 1),
        (matrix.ptr().addr(), matrix_len + lead_len),
    ])?;
    let counter = |i: usize| ws + (layout.counters + 8 * i) as u64;
    let (minmax_done, count_done, lead_done) = (counter(0), counter(1), counter(2));
    let fine_tiles = counter(3);
    let lead = lead.map(|coarse| Lead::at(coarse, matrix.ptr().addr() + 8 * matrix_len as u64));
    let mut phases = Phases::new(gpu, "approx");
    let p = &kern.policy;
    let flip = flip_of::<K>(opts.order).to_u64();
    let keys_in = io.keys_in.ptr().addr();

    // The interval map's device data: min and max, or the splitters.
    let mut paper_mm: Option<DeviceBuffer<K::Bits>> = None;
    let map_ptr = match opts.boundaries {
        Intervals::EqualWidth => match (opts.variant, lead) {
            (ApproxVariant::Fast, Some(l)) => {
                let mm = ws + layout.mm as u64;
                let mut args = KernelArgs::new();
                args.push(keys_in)
                    .push(n as u64)
                    .push(mm)
                    .push(flip)
                    .push(l.hist)
                    .push((keys_in % 16 == 0) as u32)
                    .push(l.coarse as u32)
                    .push(l.bounds)
                    .push(l.flag)
                    .push(minmax_done);
                let fit = blocks_that_fit(gpu, LEAD_BUCKETS * 4, p.blocks_per_sm) as usize;
                // Fewer than 2^32 keys a block (lead_fits: n < SMs * 2^32).
                let grid = (kern.sms() * fit)
                    .min(n.div_ceil(p.block_threads as usize))
                    .max(1);
                // SAFETY: `approx_minmax_lead(const KEY_T*, u64, Bits*, Bits, u64*, u32, u32,
                // u64*, u64*, u32*)`: reads keys[0..n) (vectors only when aligned), writes 2 Bits
                // at `mm` and adds to the LEAD_BUCKETS zeroed words at `hist` (16-byte aligned);
                // its last block (the done word zeroed) writes coarse + 1 bounds (2 <= coarse <=
                // LEAD_MAX_BINS) and the plan's three words, all inside the lead data;
                // LEAD_BUCKETS u32 of dynamic shared memory (fits: lead_fits; the plan's scan
                // storage reuses it).
                unsafe {
                    kern.launch(
                        "approx_minmax_lead",
                        grid as u32,
                        p.block_threads,
                        LEAD_BUCKETS * 4,
                        &args,
                    )?
                };
                mm
            }
            (ApproxVariant::Fast, None) => {
                let mm = ws + layout.mm as u64;
                let vec = 16 / K::SIZE;
                let mut args = KernelArgs::new();
                args.push(keys_in)
                    .push(n as u64)
                    .push(mm)
                    .push((keys_in % 16 == 0) as u32);
                // SAFETY: `approx_minmax(const KEY_T*, u64, Bits*, u32)`: reads keys[0..n)
                // (16-byte vectors only when the address is aligned), writes 2 Bits at `mm`
                // (zeroed above, inside the workspace).
                unsafe {
                    kern.launch(
                        "approx_minmax",
                        kern.grid(n.div_ceil(vec), p.reduce_threads, p.reduce_blocks_per_sm),
                        p.reduce_threads,
                        0,
                        &args,
                    )?
                };
                mm
            }
            (ApproxVariant::Paper, _) => {
                // Step 1 of the paper: a reduction (sortlab's), its result on the host.
                let (lo, hi) = reduce_min_max(gpu, io.keys_in, ReduceVariant::Fast)?
                    .ok_or_else(|| Error::InvalidArgument("min-max of no keys".into()))?;
                let words = [
                    K::Bits::from_u64(!lo.to_ordered_bits().to_u64()),
                    hi.to_ordered_bits(),
                ];
                let buf = DeviceBuffer::from_host(gpu, &words)?;
                let addr = buf.ptr().addr();
                paper_mm = Some(buf);
                addr
            }
        },
        Intervals::Sampled => {
            let at = ws + layout.splitters as u64;
            build_splitters::<K>(kern, io.keys_in, opts, K::Bits::from_u64(flip), at)?;
            at
        }
    };
    phases.mark("min-max or splitters");
    let mode = match opts.boundaries {
        Intervals::EqualWidth => "equal",
        Intervals::Sampled => "sampled",
    };
    let counts = boundaries.ptr().addr();
    let claimed = ws + layout.claimed as u64;
    // The arguments every scatter kernel starts with: its keys and values, n, the map, the
    // flip, the intervals.
    let scatter_args = |keys: u64, vals: u64| {
        let mut a = KernelArgs::new();
        a.push(keys)
            .push(vals)
            .push(n as u64)
            .push(map_ptr)
            .push(flip)
            .push(m as u32);
        a
    };
    let stride_grid = kern.grid(n, p.block_threads, STRIDE_BLOCKS_PER_SM);
    // Exclusive scans of the counts and the matrix (its first `matrix_len` words): one small
    // launch where both are short (`small_scans`).
    let scan = |boundaries: &mut DeviceBuffer<u64>, matrix: &mut DeviceBuffer<u64>| {
        if small_scans {
            return kern.scan_small(
                (boundaries.ptr().addr(), boundaries.len()),
                (matrix.ptr().addr(), matrix_len),
            );
        }
        debug_assert!(matrix.len() == matrix_len);
        for buf in [boundaries, matrix] {
            if !buf.is_empty() {
                scan_in_place(
                    gpu,
                    buf,
                    ScanOp::Sum,
                    ScanKind::Exclusive,
                    Direction::Forward,
                    ScanVariant::Fast,
                )?;
            }
        }
        Ok(())
    };
    match plan {
        Plan::Empty => {}
        Plan::Paper => {
            let mut args = KernelArgs::new();
            args.push(keys_in)
                .push(n as u64)
                .push(map_ptr)
                .push(flip)
                .push(m as u32)
                .push(ws + layout.idx as u64)
                .push(ws + layout.off as u64)
                .push(counts);
            // SAFETY: `paper_assign_{equal,sampled}(const KEY_T*, u64, const Bits*, Bits, u32,
            // u32*, u64*, u64*)`: reads keys[0..n) and the map data (2 words or m - 1
            // splitters), writes idx[0..n), off[0..n) (workspace parts of n words each) and
            // counts[0..m) (intervals are < m).
            unsafe {
                kern.launch(
                    &format!("paper_assign_{mode}"),
                    stride_grid,
                    p.block_threads,
                    0,
                    &args,
                )?
            };
            phases.mark("count");
            scan(&mut boundaries, &mut matrix)?;
            phases.mark("scan");
            let mut args = KernelArgs::new();
            args.push(keys_in)
                .push(io.vals_in)
                .push(n as u64)
                .push(ws + layout.idx as u64)
                .push(ws + layout.off as u64)
                .push(counts)
                .push(io.keys_out)
                .push(io.vals_out);
            // SAFETY: `paper_scatter(const KEY_T*, const Value*, u64, const u32*, const u64*,
            // const u64*, KEY_T*, Value*)`: reads n keys (values), idx and off; bounds[idx] +
            // off is a permutation of 0..n, so it writes each output (value) once, in range.
            unsafe { kern.launch("paper_scatter", stride_grid, p.block_threads, 0, &args)? };
            phases.mark("scatter");
        }
        Plan::Global => {
            let mut args = KernelArgs::new();
            args.push(keys_in)
                .push(n as u64)
                .push(map_ptr)
                .push(flip)
                .push(m as u32)
                .push(counts);
            // SAFETY: `approx_count_{equal,sampled}_global(const KEY_T*, u64, const Bits*,
            // Bits, u32, u64*)`: reads keys[0..n) and the map data, adds to counts[0..m).
            unsafe {
                kern.launch(
                    &format!("approx_count_{mode}_global"),
                    stride_grid,
                    p.block_threads,
                    0,
                    &args,
                )?
            };
            phases.mark("count");
            scan(&mut boundaries, &mut matrix)?;
            phases.mark("scan");
            let mut args = scatter_args(keys_in, io.vals_in);
            args.push(counts)
                .push(claimed)
                .push(io.keys_out)
                .push(io.vals_out);
            // SAFETY: `approx_scatter_{equal,sampled}_global(const KEY_T*, const Value*, u64,
            // const Bits*, Bits, u32, const u64*, Claim*, KEY_T*, Value*)`: the map is the one
            // the counts came from, so interval i receives exactly its count of keys at
            // bounds[i] .. bounds[i + 1]; claimed[0..m) zeroed.
            unsafe {
                kern.launch(
                    &format!("approx_scatter_{mode}_global"),
                    stride_grid,
                    p.block_threads,
                    0,
                    &args,
                )?
            };
            phases.mark("scatter");
        }
        Plan::Scatter {
            tiles,
            f,
            coarse,
            grid,
            chunk,
            split,
            ..
        } => {
            let (coarse_kernel, fine_kernel) = tiles.kernels();
            // The chunked count and coarse pass are skipped on the device when the lead flag
            // is raised.
            let skip = lead.map_or(0, |l| l.flag);
            let (threads, tile, wanted) = tiles.shape(p);
            let mut args = KernelArgs::new();
            args.push(keys_in)
                .push(n as u64)
                .push(map_ptr)
                .push(flip)
                .push(m as u32)
                .push(f as u32)
                .push(coarse as u32)
                .push((chunk / split) as u64)
                .push(split as u32)
                .push(counts)
                .ptr(matrix.ptr())
                .push(skip)
                .push(if small_scans { count_done } else { 0 })
                .push(matrix_len as u64);
            // SAFETY: `approx_count_{equal,sampled}(const KEY_T*, u64, const Bits*, Bits, u32,
            // u32, u32, u64, u32, u64*, u64*, const u64*, u32*, u64)`: block b reads its part of
            // chunk / split keys (inside 0..n), adds to counts[0..m) and to matrix[j * grid + b /
            // split] for j < coarse (the matrix holds coarse * grid + 1 words, zeroed); with the
            // done word (zeroed) its last block scans counts[0..=m] and matrix[0..matrix_len) in
            // place; m u32 counts of dynamic shared memory (fits: plan); returns at once when
            // the skip word (null, or the lead flag) is non-zero.
            unsafe {
                kern.launch(
                    &format!("approx_count_{mode}"),
                    (grid * split) as u32,
                    p.block_threads,
                    m * 4,
                    &args,
                )?
            };
            if !small_scans {
                phases.mark("count");
                scan(&mut boundaries, &mut matrix)?;
                phases.mark("scan");
            } else {
                phases.mark("count and scan");
            }
            let two = f > 1;
            let (coarse_k, coarse_v) = if two {
                (io.tmp_keys, io.tmp_vals)
            } else {
                (io.keys_out, io.vals_out)
            };
            let mut args = scatter_args(keys_in, io.vals_in);
            args.push(f as u32)
                .push(coarse as u32)
                .push(chunk as u64)
                .ptr(matrix.ptr())
                .push(coarse_k)
                .push(coarse_v)
                .push(skip);
            // SAFETY: `approx_{coarse,wide}_{equal,sampled}(const KEY_T*, const Value*, u64,
            // const Bits*, Bits, u32, u32, u32, u64, const u64*, KEY_T*, Value*, const u64*)`
            // (returns at once when the skip word is non-zero): the same grid
            // and chunks as the count, so block b reads chunk b (the count's column b) and its
            // keys of bin j (intervals j * f .. + f - 1) go to its scanned place matrix[j * grid
            // + b] .. + its count: a permutation of 0..n into the output or the intermediate
            // buffer (n keys, not overlapping the input); shared memory as
            // tiles.shared_bytes(coarse) (fits: plan).
            unsafe {
                kern.launch(
                    &format!("{coarse_kernel}_{mode}"),
                    grid as u32,
                    threads,
                    tiles.shared_bytes(kern, coarse, true),
                    &args,
                )?
            };
            let label = tiles.label();
            phases.mark(&if two {
                format!("{label}coarse scatter")
            } else {
                format!("{label}scatter")
            });
            if let Some(l) = lead {
                let shared = lead_shared_bytes(kern, l.coarse, m);
                let lead_grid = kern.sms() * blocks_that_fit(gpu, shared, wanted) as usize;
                let mut args = scatter_args(keys_in, io.vals_in);
                args.push(l.coarse as u32)
                    .push(l.bounds)
                    .push(l.claimed)
                    .push(counts)
                    .push(l.flag)
                    .push(coarse_k)
                    .push(coarse_v)
                    .push(lead_done);
                // SAFETY: `approx_wide_lead(const KEY_T*, const Value*, u64, const Bits*, Bits,
                // u32, u32, const u64*, Claim*, u64*, const u64*, KEY_T*, Value*, u32*)`:
                // runs only when the plan raised the flag (then the chunked coarse pass did
                // not); bin j receives exactly its count at bounds[j] .. bounds[j + 1] of the
                // intermediate buffer (n keys, not overlapping the input), claims zeroed; adds
                // each key to counts[0..m) (zeroed, the count pass skipped) and its last block
                // (the done word zeroed) scans counts[0..=m] in place; shared memory as
                // lead_shared_bytes (fits: lead_fits; the scan's storage reuses it); fewer than
                // 2^32 keys a block (grid >= SMs, n < SMs * 2^32).
                unsafe {
                    kern.launch("approx_wide_lead", lead_grid as u32, threads, shared, &args)?
                };
                phases.mark("lead coarse scatter and scan");
            }
            drop(matrix);
            if two {
                let shared = tiles.shared_bytes(kern, m, false);
                let fine_grid = (kern.sms() * blocks_that_fit(gpu, shared, wanted) as usize)
                    .min(n.div_ceil(tile))
                    .max(1) as u32;
                let mut args = scatter_args(io.tmp_keys, io.tmp_vals);
                args.push(counts)
                    .push(claimed)
                    .push(io.keys_out)
                    .push(io.vals_out);
                if tiles == Tiles::Wide {
                    args.push(fine_tiles);
                }
                // SAFETY: `approx_fine_{equal,sampled}(const KEY_T*, const Value*, u64, const
                // Bits*, Bits, u32, const u64*, Claim*, KEY_T*, Value*)`, the wide ones with a
                // last `u32*`, the tile counter (zeroed); reads the n intermediate keys
                // (values); each interval receives exactly its count at bounds[i] ..
                // bounds[i + 1] (claims never exceed it); claimed[0..m) zeroed;
                // the output does not overlap the intermediate buffer; shared memory as
                // tiles.shared_bytes(m) (fits: plan).
                unsafe {
                    kern.launch(
                        &format!("{fine_kernel}_{mode}"),
                        fine_grid,
                        threads,
                        shared,
                        &args,
                    )?
                };
                phases.mark(&format!("{label}fine scatter"));
            }
        }
    }
    drop(paper_mm);
    Ok(ApproxResult {
        boundaries,
        len: n,
        options: *opts,
        path,
    })
}

fn check_len(what: &str, expected: usize, actual: usize) -> Result<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: {actual} elements where {expected} are needed"
        )))
    }
}

/// Copies `n` keys (and values) from `src` to `dst` with the module's copy kernel.
fn copy_back(
    kern: &Kernels,
    src_k: u64,
    src_v: u64,
    dst_k: u64,
    dst_v: u64,
    n: usize,
) -> Result<()> {
    let p = &kern.policy;
    let mut args = KernelArgs::new();
    args.push(src_k)
        .push(src_v)
        .push(dst_k)
        .push(dst_v)
        .push(n as u64);
    // SAFETY: `copy_pairs(const KEY_T*, const Value*, KEY_T*, Value*, u64)`; both ranges hold
    // n keys (values) and do not overlap (scratch and the caller's buffers).
    unsafe {
        kern.launch(
            "copy_pairs",
            kern.grid(n, p.reduce_threads, p.reduce_blocks_per_sm),
            p.reduce_threads,
            0,
            &args,
        )
    }
}

/// The module and plan of one call.
fn prepare<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    n: usize,
    with_values: bool,
    opts: &ApproxOptions,
    policy: ApproxPolicy,
) -> Result<(Kernels, Plan)> {
    let kern = Kernels::new::<K>(gpu, value_type::<V>(with_values), n, policy)?;
    let plan = plan(&kern, n, opts)?;
    Ok((kern, plan))
}

fn default_policy<K: SortKey>(gpu: &Gpu, value_size: usize) -> ApproxPolicy {
    ApproxPolicy::for_device(gpu, K::SIZE, value_size)
}

/// Approximate sort of `keys` in place: see the [crate docs](crate).
///
/// # Overview
/// Every key is moved into one of `opts.intervals` intervals; every key of interval `i`
/// precedes-or-equals every key of interval `i + 1` in `opts.order`, and the keys inside an
/// interval are in no particular order. The result holds the interval boundaries on the
/// device. With up to [`ApproxPolicy::direct_max_intervals`] intervals (or the paper variant,
/// or more intervals than shared memory holds) the sorted keys go to a new allocation that
/// replaces `*keys` (the old one is freed in stream order: device pointers taken from `keys`
/// before the call no longer point at them); otherwise the two-pass scatter ends in `*keys`
/// itself. [`approx_sort_into`] writes a caller's buffer instead, [`approx_sort_with_scratch`]
/// uses caller-supplied scratch memory.
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` by IEEE total order (`-NaN < -inf < ... < -0.0 <
/// +0.0 < ... < +inf < +NaN`): intervals are defined on the keys' ordered bits, exactly as the
/// CPU twin `sortlab_cpu_reference::approx` defines them.
///
/// # Stability
/// Not stable: the order inside an interval depends on the timing of atomics.
///
/// # Errors
/// [`Error::InvalidArgument`] for 0 intervals or more than [`crate::MAX_INTERVALS`];
/// [`Error::OutOfMemory`] when the output or workspace does not fit. On error `keys` is left as
/// it was.
///
/// # Performance
/// See the [crate docs](crate#performance).
///
/// # Example
/// ```no_run
/// use sortlab_approxsort::{approx_sort, ApproxOptions};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[5u32, 1, 9, 3, 7])?;
/// let r = approx_sort(&gpu, &mut keys, &ApproxOptions::new(2))?;
/// assert_eq!(r.boundaries_host()?, vec![0, 3, 5]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn approx_sort<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    opts: &ApproxOptions,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = keys.len();
    let (kern, plan) = prepare::<K, u32>(gpu, n, false, opts, default_policy::<K>(gpu, 0))?;
    if plan.two_pass() {
        // The coarse pass reads the keys into the workspace, the fine pass writes them back.
        let layout = Layout::new(n, opts, K::SIZE, None, true)?;
        let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
        let w = ws.ptr().addr();
        let out = keys.ptr().addr();
        let io = Io {
            keys_in: keys,
            vals_in: 0,
            keys_out: out,
            vals_out: 0,
            tmp_keys: w + layout.tmp_keys as u64,
            tmp_vals: 0,
        };
        return run(&kern, plan, io, opts, w, &layout);
    }
    let mut out = DeviceBuffer::<K>::alloc(gpu, n)?;
    let layout = Layout::new(n, opts, K::SIZE, None, false)?;
    let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
    let io = Io {
        keys_in: keys,
        vals_in: 0,
        keys_out: out.ptr().addr(),
        vals_out: 0,
        tmp_keys: 0,
        tmp_vals: 0,
    };
    let r = run(&kern, plan, io, opts, ws.ptr().addr(), &layout)?;
    std::mem::swap(keys, &mut out);
    Ok(r)
}

/// [`approx_sort`] of key-value pairs: `values[i]` travels with `keys[i]` (the buffers are
/// replaced by new allocations, or written in place, as [`approx_sort`] says).
///
/// # Errors
/// As [`approx_sort`], and [`Error::InvalidArgument`] when the lengths differ.
pub fn approx_sort_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &ApproxOptions,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = keys.len();
    check_len("values", n, values.len())?;
    let (kern, plan) = prepare::<K, V>(gpu, n, true, opts, default_policy::<K>(gpu, V::SIZE))?;
    if plan.two_pass() {
        let layout = Layout::new(n, opts, K::SIZE, Some(V::SIZE), true)?;
        let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
        let w = ws.ptr().addr();
        let (ok, ov) = (keys.ptr().addr(), values.ptr().addr());
        let io = Io {
            keys_in: keys,
            vals_in: ov,
            keys_out: ok,
            vals_out: ov,
            tmp_keys: w + layout.tmp_keys as u64,
            tmp_vals: w + layout.tmp_vals as u64,
        };
        return run(&kern, plan, io, opts, w, &layout);
    }
    let mut out_k = DeviceBuffer::<K>::alloc(gpu, n)?;
    let mut out_v = DeviceBuffer::<V>::alloc(gpu, n)?;
    let layout = Layout::new(n, opts, K::SIZE, Some(V::SIZE), false)?;
    let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
    let io = Io {
        keys_in: keys,
        vals_in: values.ptr().addr(),
        keys_out: out_k.ptr().addr(),
        vals_out: out_v.ptr().addr(),
        tmp_keys: 0,
        tmp_vals: 0,
    };
    let r = run(&kern, plan, io, opts, ws.ptr().addr(), &layout)?;
    std::mem::swap(keys, &mut out_k);
    std::mem::swap(values, &mut out_v);
    Ok(r)
}

/// Approximate sort from `input` into `output` (same length); `input` is not modified.
///
/// # Errors
/// As [`approx_sort`], and [`Error::InvalidArgument`] when the lengths differ.
pub fn approx_sort_into<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    opts: &ApproxOptions,
) -> Result<ApproxResult> {
    approx_sort_into_with_policy(gpu, input, output, opts, default_policy::<K>(gpu, 0))
}

/// [`approx_sort_into`] with an explicit policy (for tuning and benchmarks).
///
/// # Errors
/// As [`approx_sort_into`], and [`Error::InvalidArgument`] for a tile of more than 65,535 keys.
pub fn approx_sort_into_with_policy<K: SortKey>(
    gpu: &Gpu,
    input: &DeviceBuffer<K>,
    output: &mut DeviceBuffer<K>,
    opts: &ApproxOptions,
    policy: ApproxPolicy,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = input.len();
    check_len("output", n, output.len())?;
    let (kern, plan) = prepare::<K, u32>(gpu, n, false, opts, policy)?;
    let layout = Layout::new(n, opts, K::SIZE, None, plan.two_pass())?;
    let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
    let w = ws.ptr().addr();
    let io = Io {
        keys_in: input,
        vals_in: 0,
        keys_out: output.ptr().addr(),
        vals_out: 0,
        tmp_keys: w + layout.tmp_keys as u64,
        tmp_vals: 0,
    };
    run(&kern, plan, io, opts, w, &layout)
}

/// [`approx_sort_into`] of key-value pairs.
///
/// # Errors
/// As [`approx_sort_into`], and [`Error::InvalidArgument`] when any length differs.
pub fn approx_sort_pairs_into<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    values_in: &DeviceBuffer<V>,
    keys_out: &mut DeviceBuffer<K>,
    values_out: &mut DeviceBuffer<V>,
    opts: &ApproxOptions,
) -> Result<ApproxResult> {
    approx_sort_pairs_into_with_policy(
        gpu,
        keys_in,
        values_in,
        keys_out,
        values_out,
        opts,
        default_policy::<K>(gpu, V::SIZE),
    )
}

/// [`approx_sort_pairs_into`] with an explicit policy (for tuning and benchmarks).
///
/// # Errors
/// As [`approx_sort_pairs_into`].
pub fn approx_sort_pairs_into_with_policy<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    values_in: &DeviceBuffer<V>,
    keys_out: &mut DeviceBuffer<K>,
    values_out: &mut DeviceBuffer<V>,
    opts: &ApproxOptions,
    policy: ApproxPolicy,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = keys_in.len();
    check_len("values", n, values_in.len())?;
    check_len("output keys", n, keys_out.len())?;
    check_len("output values", n, values_out.len())?;
    let (kern, plan) = prepare::<K, V>(gpu, n, true, opts, policy)?;
    let layout = Layout::new(n, opts, K::SIZE, Some(V::SIZE), plan.two_pass())?;
    let ws = DeviceBuffer::<u8>::alloc(gpu, layout.total)?;
    let w = ws.ptr().addr();
    let io = Io {
        keys_in,
        vals_in: values_in.ptr().addr(),
        keys_out: keys_out.ptr().addr(),
        vals_out: values_out.ptr().addr(),
        tmp_keys: w + layout.tmp_keys as u64,
        tmp_vals: w + layout.tmp_vals as u64,
    };
    run(&kern, plan, io, opts, w, &layout)
}

/// [`approx_sort`] in place with caller-supplied scratch memory of at least
/// [`scratch_bytes`] bytes: no allocation of n-sized temporaries (the boundaries, the small
/// per-chunk count matrix, and for [`Intervals::Sampled`] the sample are still allocated).
/// With the two-pass scatter the keys go through the scratch and back; with one pass they are
/// scattered into the scratch and copied back (8 more bytes per 4-byte key).
///
/// # Errors
/// As [`approx_sort`], and [`Error::InvalidArgument`] when the scratch is too small.
pub fn approx_sort_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    opts: &ApproxOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = keys.len();
    let layout = Layout::new(n, opts, K::SIZE, None, true)?;
    check_scratch(scratch, &layout)?;
    let (kern, plan) = prepare::<K, u32>(gpu, n, false, opts, default_policy::<K>(gpu, 0))?;
    let ws = scratch.ptr().addr();
    let tmp = ws + layout.tmp_keys as u64;
    let two = plan.two_pass();
    let dst = keys.ptr().addr();
    let io = Io {
        keys_in: keys,
        vals_in: 0,
        keys_out: if two { dst } else { tmp },
        vals_out: 0,
        tmp_keys: tmp,
        tmp_vals: 0,
    };
    let r = run(&kern, plan, io, opts, ws, &layout)?;
    if n > 0 && !two {
        copy_back(&kern, tmp, 0, dst, 0, n)?;
    }
    Ok(r)
}

/// [`approx_sort_pairs`] with caller-supplied scratch memory of at least
/// [`scratch_bytes_pairs`] bytes (see [`approx_sort_with_scratch`]).
///
/// # Errors
/// As [`approx_sort_with_scratch`], and [`Error::InvalidArgument`] when the lengths differ.
pub fn approx_sort_pairs_with_scratch<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &ApproxOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<ApproxResult> {
    opts.validate()?;
    let n = keys.len();
    check_len("values", n, values.len())?;
    let layout = Layout::new(n, opts, K::SIZE, Some(V::SIZE), true)?;
    check_scratch(scratch, &layout)?;
    let (kern, plan) = prepare::<K, V>(gpu, n, true, opts, default_policy::<K>(gpu, V::SIZE))?;
    let ws = scratch.ptr().addr();
    let (tk, tv) = (ws + layout.tmp_keys as u64, ws + layout.tmp_vals as u64);
    let two = plan.two_pass();
    let (dk, dv) = (keys.ptr().addr(), values.ptr().addr());
    let io = Io {
        keys_in: keys,
        vals_in: dv,
        keys_out: if two { dk } else { tk },
        vals_out: if two { dv } else { tv },
        tmp_keys: tk,
        tmp_vals: tv,
    };
    let r = run(&kern, plan, io, opts, ws, &layout)?;
    if n > 0 && !two {
        copy_back(&kern, tk, tv, dk, dv, n)?;
    }
    Ok(r)
}

fn check_scratch(scratch: &DeviceBuffer<u8>, layout: &Layout) -> Result<()> {
    if scratch.len() < layout.total {
        return Err(Error::InvalidArgument(format!(
            "scratch of {} bytes, {} needed (scratch_bytes)",
            scratch.len(),
            layout.total
        )));
    }
    Ok(())
}

/// Host-slice convenience: uploads `keys`, runs [`approx_sort`], downloads the keys into
/// `keys` and returns the boundaries.
///
/// # Errors
/// As [`approx_sort`]; `keys` is unchanged on error.
pub fn approx_sort_host<K: SortKey>(
    gpu: &Gpu,
    keys: &mut [K],
    opts: &ApproxOptions,
) -> Result<Vec<usize>> {
    opts.validate()?;
    let mut d = DeviceBuffer::from_host(gpu, keys)?;
    let r = approx_sort(gpu, &mut d, opts)?;
    let b = r.boundaries_host()?;
    d.copy_to_host(keys)?;
    Ok(b)
}

/// Host-slice convenience of [`approx_sort_pairs`].
///
/// # Errors
/// As [`approx_sort_pairs`]; the slices are unchanged on error.
pub fn approx_sort_pairs_host<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [V],
    opts: &ApproxOptions,
) -> Result<Vec<usize>> {
    opts.validate()?;
    check_len("values", keys.len(), values.len())?;
    let mut dk = DeviceBuffer::from_host(gpu, keys)?;
    let mut dv = DeviceBuffer::from_host(gpu, values)?;
    let r = approx_sort_pairs(gpu, &mut dk, &mut dv, opts)?;
    let b = r.boundaries_host()?;
    let hk = dk.to_host()?;
    let hv = dv.to_host()?;
    keys.copy_from_slice(&hk);
    values.copy_from_slice(&hv);
    Ok(b)
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
