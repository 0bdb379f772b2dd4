//! The kernel source and its modules: one per key type, value type, offset width and policy.

use std::sync::Arc;

use sortlab_primitives::{
    Defines, DevicePtr, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Policy,
    Result, SortKey,
};

use crate::policy::ApproxPolicy;

/// Every kernel of the approximate sort, its refinement and its quality report: the family files
/// of `kernels/` concatenated, in the order `kernels/common.cuh` lists, into one source (one
/// NVRTC compile per configuration; errors name it `approx.cu`).
pub const SOURCE: KernelSource = KernelSource::new(
    "approx.cu",
    concat!(
        include_str!("kernels/common.cuh"),
        include_str!("kernels/maps.cuh"),
        include_str!("kernels/block_steps.cuh"),
        include_str!("kernels/tile.cuh"),
        include_str!("kernels/minmax.cuh"),
        include_str!("kernels/count.cuh"),
        include_str!("kernels/staged_scatter.cuh"),
        include_str!("kernels/wide_scatter.cuh"),
        include_str!("kernels/paper.cuh"),
        include_str!("kernels/sampled.cuh"),
        include_str!("kernels/refine_bucket.cuh"),
        include_str!("kernels/refine_small.cuh"),
        include_str!("kernels/helpers.cuh")
    ),
);

/// The defines of the module for keys `K`, values of `value_size` bytes (`None`: keys only),
/// 32-bit shared offsets when `small_offsets` (every position below 2^32), under `policy`.
pub fn module_defines<K: SortKey>(
    value_size: Option<usize>,
    small_offsets: bool,
    policy: &ApproxPolicy,
) -> Defines {
    policy
        .defines()
        .key::<K>()
        .value_size(value_size)
        .set("SMALL_OFFSETS", small_offsets as u32)
        .set("LEAD_BITS", LEAD_BITS)
        .set("SPLIT_TABLE_BITS", SPLIT_TABLE_BITS)
        .set("SCAN_SMALL_THREADS", SCAN_SMALL_THREADS)
}

/// Whether positions `0..n` fit the 32-bit shared offsets.
pub(crate) fn small_offsets(n: usize) -> bool {
    (n as u64) < u32::MAX as u64
}

/// A compiled module with its policy.
pub(crate) struct Kernels {
    pub(crate) gpu: Gpu,
    pub(crate) module: Arc<Module>,
    pub(crate) policy: ApproxPolicy,
    /// SMALL_OFFSETS of the module.
    pub(crate) small_offsets: bool,
    /// Bytes of a key, and of a value (0 for keys only).
    pub(crate) key_size: usize,
    pub(crate) value_size: usize,
}

impl Kernels {
    /// The module for keys `K` and values of `value_size` bytes (`None` for keys only), for
    /// `n` keys.
    pub(crate) fn new<K: SortKey>(
        gpu: &Gpu,
        value_size: Option<usize>,
        n: usize,
        policy: ApproxPolicy,
    ) -> Result<Self> {
        let small = small_offsets(n);
        // Keyed by what the defines are made of (cheaper than building and hashing them).
        let key = (std::any::TypeId::of::<K>(), value_size, small, policy);
        let module = gpu.module_keyed(&SOURCE, key, || {
            module_defines::<K>(value_size, small, &policy)
        })?;
        Ok(Kernels {
            gpu: gpu.clone(),
            module,
            policy,
            small_offsets: small,
            key_size: K::SIZE,
            value_size: value_size.unwrap_or(0),
        })
    }

    pub(crate) fn kernel(&self, name: &str) -> Result<Kernel> {
        self.module.kernel(name)
    }

    /// Dynamic shared memory of the staged scatter kernels over `bins` bins, with the block's
    /// cursor per bin when `cursors` (the coarse pass): `stage_layout` of `kernels/block_steps.cuh`.
    pub(crate) fn staged_shared_bytes(&self, bins: usize, cursors: bool) -> usize {
        let t = self.policy.tile_items();
        let offset = if self.small_offsets { 4 } else { 8 };
        let part = |bytes: usize| bytes.div_ceil(16) * 16;
        part(t * offset)
            + part(t * 4)
            + part(t * 4)
            + part(t * self.key_size)
            + part(t * self.value_size)
            + part(t * 2)
            + part(bins.div_ceil(2) * 4)
            + if cursors { bins * offset } else { 0 }
    }

    /// Dynamic shared memory of the wide scatter over `m` intervals: `scatter_wide` of
    /// `kernels/wide_scatter.cuh`.
    pub(crate) fn wide_shared_bytes(&self, m: usize) -> usize {
        let t = self.policy.wide_tile();
        let offset = if self.small_offsets { 4 } else { 8 };
        let part = |bytes: usize| bytes.div_ceil(16) * 16;
        part(m * 4) + part(m * offset) + part(t * self.key_size) + part(t * self.value_size)
    }

    pub(crate) fn sms(&self) -> usize {
        self.gpu.info().multiprocessors as usize
    }

    /// Blocks of `shared` bytes of dynamic shared memory that fit one multiprocessor, at most
    /// `wanted`.
    pub(crate) fn blocks_that_fit(&self, shared: usize, wanted: u32) -> u32 {
        let per_sm = self.gpu.info().shared_per_block_optin + SHARED_RESERVE;
        ((per_sm / (shared + SHARED_RESERVE)) as u32).clamp(1, wanted.max(1))
    }

    /// Launches `name` on `grid` blocks of `threads` with `shared` bytes of dynamic shared
    /// memory, as a dependent launch ([`LaunchConfig::dependent`]): every kernel of
    /// [`SOURCE`] begins with `sortlab::dependent_entry()`.
    ///
    /// # Safety
    /// As [`Kernel::launch`]: `args` must match the kernel's parameters and every pointer must
    /// be valid for the accesses the kernel makes with them.
    pub(crate) unsafe fn launch(
        &self,
        name: &str,
        grid: u32,
        threads: u32,
        shared: usize,
        args: &KernelArgs,
    ) -> Result<()> {
        let k = self.kernel(name)?;
        let cfg = LaunchConfig::linear(grid.max(1), threads)
            .with_shared(shared as u32)
            .dependent();
        // SAFETY: forwarded to the caller; the kernel waits on its predecessor first thing.
        unsafe { k.launch(cfg, args) }
    }

    /// A grid-stride launch of `name` over `items`: `threads` a block, at most `per_sm` blocks a
    /// multiprocessor, no dynamic shared memory.
    ///
    /// # Safety
    /// As [`Kernels::launch`].
    pub(crate) unsafe fn launch_over(
        &self,
        name: &str,
        items: usize,
        threads: u32,
        per_sm: u32,
        args: &KernelArgs,
    ) -> Result<()> {
        let grid = self.gpu.grid_stride_blocks(items, threads, per_sm);
        // SAFETY: forwarded to the caller.
        unsafe { self.launch(name, grid, threads, 0, args) }
    }

    /// Zeroes up to three ranges of `u64` words, `(start, words)` each, in one launch.
    pub(crate) fn zero_words(&self, ranges: &[(DevicePtr<u64>, usize)]) -> Result<()> {
        assert!(ranges.len() <= 3, "zero_words takes at most three ranges");
        let total: usize = ranges.iter().map(|r| r.1).sum();
        if total == 0 {
            return Ok(());
        }
        let p = &self.policy;
        let mut args = KernelArgs::new();
        for i in 0..3 {
            match ranges.get(i) {
                Some(&(start, words)) => args.ptr(start).push(words as u64),
                None => args.push(0u64).push(0u64),
            };
        }
        // SAFETY: `zero_words(u64*, u64, u64*, u64, u64*, u64)`; each of the caller's ranges
        // holds its number of words (absent ones are empty).
        unsafe {
            self.launch_over(
                "zero_words",
                total,
                p.reduce_threads,
                p.reduce_blocks_per_sm,
                &args,
            )
        }
    }

    /// Exclusive sum scans of `a` and `b` (`u64` words, `(address, len)` each, both at most
    /// [`SCAN_SMALL_MAX`]) in place, by one block.
    pub(crate) fn scan_small(&self, a: (u64, usize), b: (u64, usize)) -> Result<()> {
        debug_assert!(a.1 <= SCAN_SMALL_MAX && b.1 <= SCAN_SMALL_MAX);
        let mut args = KernelArgs::new();
        args.push(a.0).push(a.1 as u64).push(b.0).push(b.1 as u64);
        // SAFETY: `scan_small(u64*, u64, u64*, u64)`: reads and writes a[0..na) and b[0..nb),
        // which the caller's ranges hold; one block of SCAN_SMALL_THREADS.
        unsafe { self.launch("scan_small", 1, SCAN_SMALL_THREADS, 0, &args) }
    }
}

/// Shared memory the runtime keeps per block beside a kernel's own (static) shared memory.
pub(crate) const SHARED_RESERVE: usize = 1024;

// Sizes the kernels take as defines (module_defines): the kernels use these, not the files' defaults.

/// The leading-bits histogram's buckets, log2 (`LEAD_BITS`).
const LEAD_BITS: u32 = 14;

/// Buckets of the leading-bits histogram (the kernels' `LEAD_BUCKETS`).
pub(crate) const LEAD_BUCKETS: usize = 1 << LEAD_BITS;

/// The sampled map's table buckets, log2 (`SPLIT_TABLE_BITS`).
const SPLIT_TABLE_BITS: u32 = 12;

/// Buckets of the sampled map's table (the kernels' `SPLIT_TABLE`).
pub(crate) const SPLIT_TABLE: usize = 1 << SPLIT_TABLE_BITS;

/// The most coarse bins of the leading-bits path (the host's limit: the plan takes any).
pub(crate) const LEAD_MAX_BINS: usize = 1024;

/// Threads of `scan_small` (`SCAN_SMALL_THREADS`).
const SCAN_SMALL_THREADS: u32 = 1024;

/// The longest array [`Kernels::scan_small`] (or a count pass's last block) scans: 8 rounds of a
/// 1024-thread block's 8192 words, a few microseconds; longer ones take sortlab-primitives'
/// device-wide scan.
pub(crate) const SCAN_SMALL_MAX: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use sortlab_primitives::kernels::kernels_without_dependent_entry;

    /// Every launch of [`super::Kernels::launch`] is dependent, so every kernel must wait first.
    #[test]
    fn every_kernel_waits_on_its_predecessor() {
        assert_eq!(
            kernels_without_dependent_entry(super::SOURCE.code),
            Vec::<String>::new()
        );
    }
}
