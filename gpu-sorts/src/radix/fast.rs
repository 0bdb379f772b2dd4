//! [`RadixVariant::Fast`](super::RadixVariant::Fast): the onesweep launcher (`onesweep.cu`) and
//! the one-block sort of small inputs (`small.cu`).
//!
//! Every launch is a programmatic dependent launch ([`LaunchConfig::dependent`]): each kernel of
//! `onesweep.cu`, `small.cu` and `util.cu` begins with `sortlab::dependent_entry()`, so the next
//! launch's blocks are scheduled while a pass's last tiles finish.

use sortlab_primitives::{
    Gpu, KernelArgs, KernelSource, LaunchConfig, Region, Result, ScratchLayout,
};

use super::job::{self, Addrs, Job};
use super::policy::FastPolicy;

/// The onesweep kernels.
pub const ONESWEEP_SOURCE: KernelSource =
    KernelSource::new("onesweep.cu", include_str!("onesweep.cu"));
/// The one-block sort.
pub const SMALL_SOURCE: KernelSource = KernelSource::new("small.cu", include_str!("small.cu"));

/// Where the onesweep sort keeps its state in scratch, and its shape.
#[derive(Debug)]
pub(crate) struct Layout {
    /// Passes of `radix_bits` (the last one may be narrower).
    pub passes: u32,
    /// Portions (one pass launch each per pass).
    pub portions: u64,
    /// Keys per portion (a whole number of tiles; the last portion may be shorter).
    pub portion_len: u64,
    /// Tiles of the largest portion.
    pub max_tiles: u64,
    /// The keys' second buffer (raw words of 4 bytes).
    pub spare_keys: Region<u32>,
    /// The values' second buffer (empty for keys only).
    pub spare_values: Region<u32>,
    /// The zeroed words, in order: histograms [portions][passes][digits] (`hist_words`), tile
    /// counters [passes * portions] (`counter_words`), status buffer 0 [max_tiles][digits].
    pub zero: Region<u32>,
    pub hist_words: usize,
    pub counter_words: usize,
    /// Status buffer 1 [max_tiles][digits].
    pub status1: Region<u32>,
    /// Digit offsets [passes][portions][digits]: portion 0's from the plan, portion q + 1's
    /// from the last tile of portion q.
    pub base: Region<u64>,
    /// The pass plan [passes + 1].
    pub plan: Region<u32>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Layout {
    /// `None`: the one-block sort runs, with no scratch.
    pub fn new(job: &Job, policy: &FastPolicy) -> Option<Layout> {
        if job.n <= policy.small_max() {
            return None;
        }
        let n = job.n as u64;
        let tile = policy.tile_items() as u64;
        let passes = (job.end - job.begin).div_ceil(policy.radix_bits);
        // Portions of equal tile counts (at most the policy's): each pass launch zeroes the
        // next launch's tile status, a share per block, so a short portion beside a long one
        // would leave one block zeroing a whole portion's status (2^30 u32 keys in one portion
        // of 2^30 - 4096 and one of 4096: 61 ms on an H100 against 25 balanced).
        let tiles = n.div_ceil(tile);
        let per_portion = tiles.div_ceil(tiles.div_ceil(policy.tiles_per_portion()));
        let portion_len = per_portion * tile;
        let portions = tiles.div_ceil(per_portion);
        let max_tiles = per_portion;
        let digits = policy.digits();
        let (portions_us, passes_us) = (portions as usize, passes as usize);
        let hist_words = portions_us * passes_us * digits;
        let counter_words = passes_us * portions_us;
        let status_words = max_tiles as usize * digits;
        let mut l = ScratchLayout::new();
        let spare_keys = l.region::<u32>(job.n * job.key.size / 4);
        let spare_values = l.region::<u32>(job.n * job.value_size() / 4);
        let zero = l.region::<u32>(hist_words + counter_words + status_words);
        let status1 = l.region::<u32>(status_words);
        let base = l.region::<u64>(passes_us * portions_us * digits);
        let plan = l.region::<u32>(passes_us + 1);
        Some(Layout {
            passes,
            portions,
            portion_len,
            max_tiles,
            spare_keys,
            spare_values,
            zero,
            hist_words,
            counter_words,
            status1,
            base,
            plan,
            total: l.bytes().unwrap_or(usize::MAX),
        })
    }
}

/// Scratch bytes of `job` under `policy`, on any device: enough for the shape `for_len` picks
/// and for the main shape a device without the shared memory for it takes instead.
pub(crate) fn scratch_bytes(job: &Job, policy: &FastPolicy) -> usize {
    [policy.for_len(job.n), *policy]
        .iter()
        .filter_map(|p| Layout::new(job, p))
        .map(|l| l.total)
        .max()
        .unwrap_or(0)
}

/// Shared memory a pass block may take besides the kernel's own static shared memory (its scan
/// storage and tile number, well under this).
const PASS_STATIC_SHARED: usize = 1024;

/// Sorts `job` (n >= 2, a non-empty bit range) in place.
pub(crate) fn sort(gpu: &Gpu, job: &Job, policy: &FastPolicy, at: &Addrs) -> Result<()> {
    policy.validate()?;
    let max_shared = gpu
        .info()
        .shared_per_block_optin
        .saturating_sub(PASS_STATIC_SHARED);
    let policy = &policy.for_device(job.n, job.key.size, job.value_size(), max_shared);
    let Some(l) = Layout::new(job, policy) else {
        return small(gpu, job, policy, at);
    };
    let key = &job.key;
    let vsize = job.value_size();
    let digits = policy.digits() as u64;
    // (Keyed by what the defines are made of: no defines built and hashed on every call.)
    let module = gpu.module_keyed(&ONESWEEP_SOURCE, (job.words(), *policy), || {
        job.word_defines().extend(&policy.pass_defines())
    })?;
    let util = job::util_module(gpu)?;
    let histogram = module.kernel("onesweep_histogram")?;
    let plan_kernel = module.kernel("onesweep_plan")?;
    let pass_kernel = module.kernel("onesweep_pass")?;
    let s = at.scratch;
    let hist = l.zero.ptr(s);
    let counters = hist.offset(l.hist_words);
    let status0 = counters.offset(l.counter_words);
    let status1 = l.status1.ptr(s);
    let base = l.base.ptr(s);
    let plan = l.plan.ptr(s);
    let spare_keys = l.spare_keys.ptr(s);

    // Every launch's limits are checked before the first one, so that an error leaves the
    // caller's data as it was (the pass launches are the only ones that write it).
    let smem = policy.pass_shared_bytes(key.size, vsize);
    let pass_cfg = |tiles: u32| {
        LaunchConfig::linear(tiles, policy.block_threads)
            .with_shared(smem as u32)
            .dependent()
    };
    let max_tiles = gpu.exact_grid(l.max_tiles as usize, "a portion of the radix sort")?;
    pass_kernel.check(&pass_cfg(max_tiles))?;
    let hist_smem = (l.passes as u64 * digits * 4) as u32;
    let hist_chunk = policy.hist_threads as u64 * policy.hist_items as u64;
    let hist_resident = gpu.info().multiprocessors as u64 * policy.hist_blocks_per_sm as u64;
    let hist_cfg = |len: u64| {
        LaunchConfig::linear(
            gpu.grid_blocks(len.div_ceil(hist_chunk).min(hist_resident) as usize),
            policy.hist_threads,
        )
        .with_shared(hist_smem)
        .dependent()
    };
    histogram.check(&hist_cfg(l.portion_len))?;
    let plan_cfg = LaunchConfig::linear(1, policy.plan_threads).dependent();
    plan_kernel.check(&plan_cfg)?;

    let n = job.n as u64;
    let portion = |q: u64| {
        let start = q * l.portion_len;
        (start, l.portion_len.min(n - start))
    };

    job::zero_words(gpu, &util, hist, l.zero.len() as u64)?;

    for q in 0..l.portions {
        let (start, len) = portion(q);
        let mut args = KernelArgs::new();
        args.push(at.keys)
            .push(start)
            .push(len)
            .ptr(hist.offset(q as usize * l.passes as usize * digits as usize))
            .push(l.passes)
            .push(job.begin)
            .push(job.end);
        key.push_maps(&mut args);
        // SAFETY: arguments match `onesweep_histogram(const Key*, u64, u64, u32*, u32, u32, u32,
        // Key, Key, Key)`; keys hold n >= start + len words; the portion's counters are
        // passes * digits zeroed words of scratch; dynamic shared memory holds as many.
        unsafe { histogram.launch(hist_cfg(len), &args)? };
    }

    let mut args = KernelArgs::new();
    args.ptr(hist)
        .ptr(base)
        .ptr(plan)
        .push(l.passes)
        .push(l.portions as u32)
        .push(n);
    // SAFETY: arguments match `onesweep_plan(const u32*, u64*, u32*, u32, u32, u64)`; the
    // histograms, offsets and plan are scratch regions of the sizes the layout gives.
    unsafe { plan_kernel.launch(plan_cfg, &args)? };

    let spare_values = if vsize > 0 {
        l.spare_values.ptr(s).addr()
    } else {
        0
    };
    for p in 0..l.passes {
        let shift = job.begin + p * policy.radix_bits;
        let width = policy.radix_bits.min(job.end - shift);
        for q in 0..l.portions {
            let launch = p as u64 * l.portions + q;
            let (start, len) = portion(q);
            let tiles = len.div_ceil(policy.tile_items() as u64);
            let (status, status_next) = if launch % 2 == 0 {
                (status0, status1)
            } else {
                (status1, status0)
            };
            let mut args = KernelArgs::new();
            args.push(at.keys)
                .ptr(spare_keys)
                .push(at.values)
                .push(spare_values)
                .push(start)
                .push(len)
                .push(tiles as u32)
                .push(shift)
                .push(width);
            key.push_maps(&mut args);
            let row = base.offset(launch as usize * digits as usize);
            let next_base = if q + 1 < l.portions {
                row.offset(digits as usize).addr()
            } else {
                0
            };
            args.ptr(row)
                .push(next_base)
                .ptr(status)
                .ptr(status_next)
                .push(max_tiles)
                .ptr(counters.offset(launch as usize))
                .ptr(plan)
                .push(p)
                .push(smem as u32);
            // SAFETY: arguments match `onesweep_pass(Key*, Key*, Value*, Value*, u64, u64, u32,
            // u32, u32, Key, Key, Key, const u64*, u64*, u32*, u32*, u32, u32*, const u32*, u32,
            // u32)`; base and next_base are digit-offset rows of scratch (next_base null for the
            // last portion). The
            // caller's keys (values) and the spare buffers hold n words each (values null for
            // keys only, never read then); the portion lies within n; `tiles` blocks each take
            // one tile through the zeroed counter, in order, so look-back only waits on running
            // blocks; the status buffers hold max_tiles * digits words, the current one zeroed
            // by the previous launch (or the zeroing above); the plan was written by
            // onesweep_plan; the dynamic shared memory is the kernel's SMEM_BYTES (checked in
            // the kernel).
            unsafe { pass_kernel.launch(pass_cfg(tiles as u32), &args)? };
        }
    }

    let plan_end = Some((plan.offset(l.passes as usize), 2));
    let key_words = n * key.size as u64 / 4;
    job::copy_words(gpu, &util, spare_keys.addr(), at.keys, key_words, plan_end)?;
    if vsize > 0 {
        job::copy_words(
            gpu,
            &util,
            spare_values,
            at.values,
            n * vsize as u64 / 4,
            plan_end,
        )?;
    }
    Ok(())
}

/// The one-block sort: n <= policy.small_max().
fn small(gpu: &Gpu, job: &Job, policy: &FastPolicy, at: &Addrs) -> Result<()> {
    let module = gpu.module_keyed(&SMALL_SOURCE, (job.words(), *policy), || {
        job.word_defines().extend(&policy.small_defines())
    })?;
    let kernel = module.kernel("radix_small")?;
    let key = &job.key;
    let mut args = KernelArgs::new();
    args.push(at.keys)
        .push(at.values)
        .push(job.n as u32)
        .push(job.begin)
        .push(job.end);
    key.push_maps(&mut args);
    // SAFETY: arguments match `radix_small(Key*, Value*, u32, u32, u32, Key, Key, Key)`;
    // keys (and values, or null for keys only) hold n <= SMALL_THREADS * SMALL_ITEMS words;
    // the block reads all of them before it writes any.
    unsafe {
        kernel.launch(
            LaunchConfig::linear(1, policy.small_threads).dependent(),
            &args,
        )
    }
}

#[cfg(test)]
mod tests {
    use sortlab_primitives::kernels::kernels_without_dependent_entry;

    /// The launches of this module and of `job`'s housekeeping are dependent, so every kernel
    /// of their sources must wait on its predecessor first.
    #[test]
    fn every_kernel_waits_on_its_predecessor() {
        for src in [
            super::ONESWEEP_SOURCE,
            super::SMALL_SOURCE,
            super::job::UTIL_SOURCE,
        ] {
            assert_eq!(
                kernels_without_dependent_entry(src.code),
                Vec::<String>::new(),
                "{}",
                src.name
            );
        }
    }
}
