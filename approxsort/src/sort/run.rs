//! The launches of one approximate sort: [`run`], in named steps (the workspace zeroed, the
//! interval map, then the paper's, the global-atomic or the tiled scatter's kernels).

use sortlab_primitives::reduce::{reduce_min_max, ReduceVariant};
use sortlab_primitives::scan::{scan_in_place, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Error, KernelArgs, KeyBits, Result, SortKey, SortValue};

use crate::kernels::{Kernels, LEAD_BUCKETS, SCAN_SMALL_MAX};
use crate::options::{ApproxOptions, ApproxVariant, Intervals};
use crate::phases::Phases;
use crate::result::ApproxResult;
use crate::sort::plan::{lead_shared_bytes, lead_words, Layout, Lead, Plan, Scatter, Tiles};

/// Blocks per multiprocessor of the grid-stride kernels (global-atomic path, paper kernels).
const STRIDE_BLOCKS_PER_SM: u32 = 4;

/// Where one run reads and writes (device addresses; values 0 for keys only; tmp: the
/// intermediate buffers of a two-pass scatter).
pub(crate) struct Io<'a, K: SortKey> {
    pub(crate) keys_in: &'a DeviceBuffer<K>,
    pub(crate) vals_in: u64,
    pub(crate) keys_out: u64,
    pub(crate) vals_out: u64,
    pub(crate) tmp_keys: u64,
    pub(crate) tmp_vals: u64,
}

/// What every step of one run shares.
struct Run<'a, K: SortKey> {
    kern: &'a Kernels,
    io: Io<'a, K>,
    n: usize,
    m: usize,
    flip: u64,
    keys_in: u64,
    /// The interval map's device data: min and max, or the splitters.
    map: u64,
    /// The map's kernel name suffix: `equal` or `sampled`.
    mode: &'static str,
    /// The counts, scanned in place into the boundaries.
    counts: u64,
    /// The claim counters (`m`, zeroed).
    claimed: u64,
    /// The count matrix of a chunked scatter: its first `matrix_len` words.
    matrix_len: usize,
    /// Whether the counts and the count matrix are short enough for one block's scan (always on
    /// the leading-bits path: `lead_fits`), which then ends the count pass (its last block).
    small_scans: bool,
    /// The grid of the grid-stride kernels.
    stride_grid: u32,
    phases: Phases,
}

/// One approximate sort from `io.keys_in` into `io.keys_out` with the workspace `ws` laid out
/// as `layout`; with [`Intervals::Sampled`], the splitters are already in the workspace
/// (`build_splitters`).
pub(crate) fn run<K: SortKey, V: SortValue>(
    kern: &Kernels,
    plan: Plan,
    io: Io<'_, K>,
    opts: &ApproxOptions,
    ws: &DeviceBuffer<u8>,
    layout: &Layout<K, V>,
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
        Plan::Scatter(s) => (s.coarse * s.grid + 1, s.lead.then_some(s.coarse)),
        _ => (0, None),
    };
    // The count matrix, then (leading-bits path) its device data.
    let lead_len = lead.map_or(0, lead_words);
    let mut matrix = DeviceBuffer::<u64>::alloc(gpu, matrix_len + lead_len)?;
    kern.zero_words(&[
        (layout.words.ptr(ws), layout.words.len()),
        (boundaries.ptr(), m + 1),
        (matrix.ptr(), matrix_len + lead_len),
    ])?;
    let lead = lead.map(|coarse| Lead::after(coarse, matrix.ptr(), matrix_len));
    let mut phases = Phases::new(gpu, "approx");
    let flip = opts.order.flip::<K::Bits>().to_u64();
    let counters = Counters::at(ws, layout, m);
    let (map, paper_mm) = interval_map(kern, &io, opts, ws, layout, lead, flip, &counters)?;
    phases.mark("min-max or splitters");
    let p = &kern.policy;
    let mut r = Run {
        kern,
        n,
        m,
        flip,
        keys_in: io.keys_in.ptr().addr(),
        io,
        map,
        mode: match opts.boundaries {
            Intervals::EqualWidth => "equal",
            Intervals::Sampled => "sampled",
        },
        counts: boundaries.ptr().addr(),
        claimed: layout.claimed(ws).addr(),
        matrix_len,
        small_scans: m < SCAN_SMALL_MAX && matrix_len <= SCAN_SMALL_MAX,
        stride_grid: kern
            .gpu
            .grid_stride_blocks(n, p.block_threads, STRIDE_BLOCKS_PER_SM),
        phases,
    };
    match plan {
        Plan::Empty => {}
        Plan::Paper => {
            let (idx, off) = (layout.idx.ptr(ws).addr(), layout.off.ptr(ws).addr());
            r.paper(&mut boundaries, &mut matrix, idx, off)?
        }
        Plan::Global => r.global(&mut boundaries, &mut matrix)?,
        Plan::Scatter(shape) => r.scatter(shape, lead, &counters, &mut boundaries, matrix)?,
    }
    drop(paper_mm);
    Ok(ApproxResult {
        boundaries,
        len: n,
        options: *opts,
        path,
    })
}

/// Device addresses of the workspace's counter words (after the min-max words): the blocks done
/// of the kernels whose last block ends a step (`sortlab::last_block`) and the wide fine pass's
/// tile counter.
struct Counters {
    /// The min-max pass's (its last block plans the leading-bits bins).
    minmax_done: u64,
    /// The count pass's (its last block scans the counts and the matrix).
    count_done: u64,
    /// The leading-bits coarse pass's (its last block scans the counts).
    lead_done: u64,
    /// Hands out the tiles of the wide fine pass (`approx_wide_fine_*`).
    fine_tiles: u64,
}

impl Counters {
    fn at<K: SortKey, V: SortValue>(
        ws: &DeviceBuffer<u8>,
        layout: &Layout<K, V>,
        m: usize,
    ) -> Self {
        let counter = |i: usize| layout.counter(ws, m, i).addr();
        Counters {
            minmax_done: counter(0),
            count_done: counter(1),
            lead_done: counter(2),
            fine_tiles: counter(3),
        }
    }
}

/// The interval map's device data (its address) and, for the paper's min-max on the host, the
/// buffer that holds it: min and max (from `approx_minmax_lead`, `approx_minmax` or the
/// paper's reduction), or the splitters (already built).
#[allow(clippy::too_many_arguments)]
fn interval_map<K: SortKey, V: SortValue>(
    kern: &Kernels,
    io: &Io<'_, K>,
    opts: &ApproxOptions,
    ws: &DeviceBuffer<u8>,
    layout: &Layout<K, V>,
    lead: Option<Lead>,
    flip: u64,
    counters: &Counters,
) -> Result<(u64, Option<DeviceBuffer<K::Bits>>)> {
    let gpu = &kern.gpu;
    let p = &kern.policy;
    let n = io.keys_in.len();
    let keys_in = io.keys_in.ptr().addr();
    let mm = layout.minmax(ws, opts.intervals).addr();
    match (opts.boundaries, opts.variant, lead) {
        (Intervals::Sampled, ..) => Ok((layout.splitters.ptr(ws).addr(), None)),
        (Intervals::EqualWidth, ApproxVariant::Fast, Some(l)) => {
            let mut args = KernelArgs::new();
            args.push(keys_in)
                .push(n as u64)
                .push(mm)
                .push(flip)
                .ptr(l.hist)
                .push((keys_in % 16 == 0) as u32)
                .push(l.coarse as u32)
                .ptr(l.bounds)
                .ptr(l.flag)
                .push(counters.minmax_done);
            let fit = kern.blocks_that_fit(LEAD_BUCKETS * 4, p.blocks_per_sm);
            // Fewer than 2^32 keys a block (lead_fits: n < SMs * 2^32).
            let grid = gpu.grid_stride_blocks(n, p.block_threads, fit);
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
                    grid,
                    p.block_threads,
                    LEAD_BUCKETS * 4,
                    &args,
                )?
            };
            Ok((mm, None))
        }
        (Intervals::EqualWidth, ApproxVariant::Fast, None) => {
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
                kern.launch_over(
                    "approx_minmax",
                    n.div_ceil(vec),
                    p.reduce_threads,
                    p.reduce_blocks_per_sm,
                    &args,
                )?
            };
            Ok((mm, None))
        }
        (Intervals::EqualWidth, ApproxVariant::Paper, _) => {
            // Step 1 of the paper: a reduction (sortlab's), its result on the host.
            let (lo, hi) = reduce_min_max(gpu, io.keys_in, ReduceVariant::Fast)?
                .ok_or_else(|| Error::InvalidArgument("min-max of no keys".into()))?;
            let words = [
                K::Bits::from_u64(!lo.to_ordered_bits().to_u64()),
                hi.to_ordered_bits(),
            ];
            let buf = DeviceBuffer::from_host(gpu, &words)?;
            Ok((buf.ptr().addr(), Some(buf)))
        }
    }
}

impl<K: SortKey> Run<'_, K> {
    /// The arguments every scatter kernel starts with: its keys and values, n, the map, the
    /// flip, the intervals.
    fn scatter_args(&self, keys: u64, vals: u64) -> KernelArgs {
        let mut a = KernelArgs::new();
        a.push(keys)
            .push(vals)
            .push(self.n as u64)
            .push(self.map)
            .push(self.flip)
            .push(self.m as u32);
        a
    }

    /// The arguments of a count kernel: the keys, n, the map, the flip, the intervals.
    fn count_args(&self) -> KernelArgs {
        let mut a = KernelArgs::new();
        a.push(self.keys_in)
            .push(self.n as u64)
            .push(self.map)
            .push(self.flip)
            .push(self.m as u32);
        a
    }

    /// Exclusive scans of the counts and the matrix (its first `matrix_len` words): one small
    /// launch where both are short (`small_scans`).
    fn scan(
        &self,
        boundaries: &mut DeviceBuffer<u64>,
        matrix: &mut DeviceBuffer<u64>,
    ) -> Result<()> {
        if self.small_scans {
            return self.kern.scan_small(
                (boundaries.ptr().addr(), boundaries.len()),
                (matrix.ptr().addr(), self.matrix_len),
            );
        }
        debug_assert!(matrix.len() == self.matrix_len);
        for buf in [boundaries, matrix] {
            if !buf.is_empty() {
                scan_in_place(
                    &self.kern.gpu,
                    buf,
                    ScanOp::Sum,
                    ScanKind::Exclusive,
                    Direction::Forward,
                    ScanVariant::Fast,
                )?;
            }
        }
        Ok(())
    }

    /// Launches the grid-stride kernel `name` (`BLOCK_THREADS` a block).
    ///
    /// # Safety
    /// As [`Kernels::launch`].
    unsafe fn launch_stride(&self, name: &str, args: &KernelArgs) -> Result<()> {
        let threads = self.kern.policy.block_threads;
        // SAFETY: forwarded to the caller.
        unsafe { self.kern.launch(name, self.stride_grid, threads, 0, args) }
    }

    /// The paper's kernels: every key's interval and offset to device arrays, a scan, a
    /// scatter.
    fn paper(
        &mut self,
        boundaries: &mut DeviceBuffer<u64>,
        matrix: &mut DeviceBuffer<u64>,
        idx: u64,
        off: u64,
    ) -> Result<()> {
        let mut args = self.count_args();
        args.push(idx).push(off).push(self.counts);
        // SAFETY: `paper_assign_{equal,sampled}(const KEY_T*, u64, const Bits*, Bits, u32,
        // u32*, u64*, u64*)`: reads keys[0..n) and the map data (2 words or m - 1
        // splitters), writes idx[0..n), off[0..n) (workspace parts of n words each) and
        // counts[0..m) (intervals are < m).
        unsafe { self.launch_stride(&format!("paper_assign_{}", self.mode), &args)? };
        self.phases.mark("count");
        self.scan(boundaries, matrix)?;
        self.phases.mark("scan");
        let mut args = KernelArgs::new();
        args.push(self.keys_in)
            .push(self.io.vals_in)
            .push(self.n as u64)
            .push(idx)
            .push(off)
            .push(self.counts)
            .push(self.io.keys_out)
            .push(self.io.vals_out);
        // SAFETY: `paper_scatter(const KEY_T*, const Value*, u64, const u32*, const u64*,
        // const u64*, KEY_T*, Value*)`: reads n keys (values), idx and off; bounds[idx] +
        // off is a permutation of 0..n, so it writes each output (value) once, in range.
        unsafe { self.launch_stride("paper_scatter", &args)? };
        self.phases.mark("scatter");
        Ok(())
    }

    /// Per-key warp-aggregated global atomics: counts, a scan, claims.
    fn global(
        &mut self,
        boundaries: &mut DeviceBuffer<u64>,
        matrix: &mut DeviceBuffer<u64>,
    ) -> Result<()> {
        let mut args = self.count_args();
        args.push(self.counts);
        // SAFETY: `approx_count_{equal,sampled}_global(const KEY_T*, u64, const Bits*,
        // Bits, u32, u64*)`: reads keys[0..n) and the map data, adds to counts[0..m).
        unsafe { self.launch_stride(&format!("approx_count_{}_global", self.mode), &args)? };
        self.phases.mark("count");
        self.scan(boundaries, matrix)?;
        self.phases.mark("scan");
        let mut args = self.scatter_args(self.keys_in, self.io.vals_in);
        args.push(self.counts)
            .push(self.claimed)
            .push(self.io.keys_out)
            .push(self.io.vals_out);
        // SAFETY: `approx_scatter_{equal,sampled}_global(const KEY_T*, const Value*, u64,
        // const Bits*, Bits, u32, const u64*, Claim*, KEY_T*, Value*)`: the map is the one
        // the counts came from, so interval i receives exactly its count of keys at
        // bounds[i] .. bounds[i + 1]; claimed[0..m) zeroed.
        unsafe { self.launch_stride(&format!("approx_scatter_{}_global", self.mode), &args)? };
        self.phases.mark("scatter");
        Ok(())
    }

    /// The tiled scatter: the chunked count pass (with its scans), the coarse (or only) pass,
    /// on the leading-bits path the lead coarse pass (the device runs it or the chunked passes),
    /// then the fine pass of a two-pass scatter.
    fn scatter(
        &mut self,
        s: Scatter,
        lead: Option<Lead>,
        counters: &Counters,
        boundaries: &mut DeviceBuffer<u64>,
        mut matrix: DeviceBuffer<u64>,
    ) -> Result<()> {
        // The chunked count and coarse pass are skipped on the device when the lead flag is
        // raised.
        let skip = lead.map_or(0, |l| l.flag.addr());
        self.count_pass(s, skip, counters, boundaries, &mut matrix)?;
        let two = s.f > 1;
        let (coarse_k, coarse_v) = if two {
            (self.io.tmp_keys, self.io.tmp_vals)
        } else {
            (self.io.keys_out, self.io.vals_out)
        };
        self.coarse_pass(s, skip, &matrix, coarse_k, coarse_v)?;
        if let Some(l) = lead {
            self.lead_pass(s, l, counters, coarse_k, coarse_v)?;
        }
        drop(matrix);
        if two {
            self.fine_pass(s, counters)?;
        }
        Ok(())
    }

    /// The chunked count pass, and the scans of the counts and the matrix (by its last block,
    /// or after it).
    fn count_pass(
        &mut self,
        s: Scatter,
        skip: u64,
        counters: &Counters,
        boundaries: &mut DeviceBuffer<u64>,
        matrix: &mut DeviceBuffer<u64>,
    ) -> Result<()> {
        let p = &self.kern.policy;
        let mut args = self.count_args();
        args.push(s.f as u32)
            .push(s.coarse as u32)
            .push((s.chunk / s.split) as u64)
            .push(s.split as u32)
            .push(self.counts)
            .ptr(matrix.ptr())
            .push(skip)
            .push(if self.small_scans {
                counters.count_done
            } else {
                0
            })
            .push(self.matrix_len as u64);
        // SAFETY: `approx_count_{equal,sampled}(const KEY_T*, u64, const Bits*, Bits, u32,
        // u32, u32, u64, u32, u64*, u64*, const u64*, u32*, u64)`: block b reads its part of
        // chunk / split keys (inside 0..n), adds to counts[0..m) and to matrix[j * grid + b /
        // split] for j < coarse (the matrix holds coarse * grid + 1 words, zeroed); with the
        // done word (zeroed) its last block scans counts[0..=m] and matrix[0..matrix_len) in
        // place; m u32 counts of dynamic shared memory (fits: plan); returns at once when
        // the skip word (null, or the lead flag) is non-zero.
        unsafe {
            self.kern.launch(
                &format!("approx_count_{}", self.mode),
                (s.grid * s.split) as u32,
                p.block_threads,
                self.m * 4,
                &args,
            )?
        };
        if !self.small_scans {
            self.phases.mark("count");
            self.scan(boundaries, matrix)?;
            self.phases.mark("scan");
        } else {
            self.phases.mark("count and scan");
        }
        Ok(())
    }

    /// The coarse pass of a two-pass scatter (or its only pass), each block at its own places
    /// from the scanned count matrix, into `(keys, vals)`.
    fn coarse_pass(
        &mut self,
        s: Scatter,
        skip: u64,
        matrix: &DeviceBuffer<u64>,
        keys: u64,
        vals: u64,
    ) -> Result<()> {
        let (coarse_kernel, _) = s.tiles.kernels();
        let (threads, _, _) = s.tiles.shape(&self.kern.policy);
        let mut args = self.scatter_args(self.keys_in, self.io.vals_in);
        args.push(s.f as u32)
            .push(s.coarse as u32)
            .push(s.chunk as u64)
            .ptr(matrix.ptr())
            .push(keys)
            .push(vals)
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
            self.kern.launch(
                &format!("{coarse_kernel}_{}", self.mode),
                s.grid as u32,
                threads,
                s.tiles.shared_bytes(self.kern, s.coarse, true),
                &args,
            )?
        };
        let label = s.tiles.label();
        self.phases.mark(&if s.f > 1 {
            format!("{label}coarse scatter")
        } else {
            format!("{label}scatter")
        });
        Ok(())
    }

    /// The leading-bits coarse pass (runs on the device only when the plan raised the flag),
    /// which also counts the intervals and scans the counts, into `(keys, vals)`.
    fn lead_pass(
        &mut self,
        s: Scatter,
        l: Lead,
        counters: &Counters,
        keys: u64,
        vals: u64,
    ) -> Result<()> {
        let kern = self.kern;
        let (threads, _, wanted) = s.tiles.shape(&kern.policy);
        let shared = lead_shared_bytes(kern, l.coarse, self.m);
        let lead_grid = kern
            .gpu
            .grid_blocks(kern.sms() * kern.blocks_that_fit(shared, wanted) as usize);
        let mut args = self.scatter_args(self.keys_in, self.io.vals_in);
        args.push(l.coarse as u32)
            .ptr(l.bounds)
            .ptr(l.claimed)
            .push(self.counts)
            .ptr(l.flag)
            .push(keys)
            .push(vals)
            .push(counters.lead_done);
        // SAFETY: `approx_wide_lead(const KEY_T*, const Value*, u64, const Bits*, Bits,
        // u32, u32, const u64*, Claim*, u64*, const u64*, KEY_T*, Value*, u32*)`:
        // runs only when the plan raised the flag (then the chunked coarse pass did
        // not); bin j receives exactly its count at bounds[j] .. bounds[j + 1] of the
        // intermediate buffer (n keys, not overlapping the input), claims zeroed; adds
        // each key to counts[0..m) (zeroed, the count pass skipped) and its last block
        // (the done word zeroed) scans counts[0..=m] in place; shared memory as
        // lead_shared_bytes (fits: lead_fits; the scan's storage reuses it); fewer than
        // 2^32 keys a block (grid >= SMs, n < SMs * 2^32).
        unsafe { kern.launch("approx_wide_lead", lead_grid, threads, shared, &args)? };
        self.phases.mark("lead coarse scatter and scan");
        Ok(())
    }

    /// The fine pass of a two-pass scatter: the intermediate keys to their intervals, claiming
    /// places.
    fn fine_pass(&mut self, s: Scatter, counters: &Counters) -> Result<()> {
        let kern = self.kern;
        let (_, fine_kernel) = s.tiles.kernels();
        let (threads, tile, wanted) = s.tiles.shape(&kern.policy);
        let shared = s.tiles.shared_bytes(kern, self.m, false);
        let fit = kern.blocks_that_fit(shared, wanted);
        let fine_grid = kern.gpu.grid_stride_blocks(self.n, tile as u32, fit);
        let mut args = self.scatter_args(self.io.tmp_keys, self.io.tmp_vals);
        args.push(self.counts)
            .push(self.claimed)
            .push(self.io.keys_out)
            .push(self.io.vals_out);
        if s.tiles == Tiles::Wide {
            args.push(counters.fine_tiles);
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
                &format!("{fine_kernel}_{}", self.mode),
                fine_grid,
                threads,
                shared,
                &args,
            )?
        };
        let label = s.tiles.label();
        self.phases.mark(&format!("{label}fine scatter"));
        Ok(())
    }
}

/// Copies `n` keys (and values) from `src` to `dst` with the module's copy kernel.
pub(crate) fn copy_back(
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
        kern.launch_over(
            "copy_pairs",
            n,
            p.reduce_threads,
            p.reduce_blocks_per_sm,
            &args,
        )
    }
}
