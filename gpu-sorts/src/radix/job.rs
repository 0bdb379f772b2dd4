//! What every variant's launcher shares: the sort job (length, key and value words, bit range),
//! the buffers it works on, and the housekeeping kernels of `util.cu`.

use std::sync::Arc;

use sortlab_primitives::{
    Defines, DeviceBuffer, DevicePtr, Error, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig,
    Module, Region, Result, ScratchLayout,
};

use super::digit_scan;
use super::masks::KeySpec;

/// The housekeeping kernels (`util.cu`).
pub const UTIL_SOURCE: KernelSource = KernelSource::new("util.cu", include_str!("util.cu"));

/// Threads per block of the `util.cu` kernels.
const UTIL_THREADS: u32 = 256;
/// Resident blocks per multiprocessor of the grid-stride `util.cu` kernels.
const UTIL_BLOCKS_PER_SM: u32 = 8;

/// One sort: n keys (and values) by ordered bits `begin .. end`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    pub n: usize,
    pub key: KeySpec,
    /// Bytes per value (4 or 8); `None` for keys only.
    pub value: Option<usize>,
    pub begin: u32,
    pub end: u32,
}

impl Job {
    /// Bytes per value, 0 for keys only.
    pub fn value_size(&self) -> usize {
        self.value.unwrap_or(0)
    }

    /// `KEY_BITS_T` (the key's raw word), `VALUE_T` and `HAS_VALUES`.
    pub fn word_defines(&self) -> Defines {
        Defines::new()
            .set("KEY_BITS_T", self.key.word)
            .value_size(self.value)
    }

    /// What [`Job::word_defines`] is made of (a module cache key).
    pub fn words(&self) -> (&'static str, Option<usize>) {
        (self.key.word, self.value)
    }
}

/// The buffers of a sort: the caller's keys and values (device addresses; 0 for keys only)
/// and the scratch buffer, carved by each variant's layout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs<'a> {
    pub keys: u64,
    pub values: u64,
    pub scratch: &'a DeviceBuffer<u8>,
}

/// The defines of `util.cu`.
pub(crate) fn util_defines() -> Defines {
    Defines::new().set("UTIL_THREADS", UTIL_THREADS)
}

/// The housekeeping module.
pub(crate) fn util_module(gpu: &Gpu) -> Result<Arc<Module>> {
    gpu.module_keyed(&UTIL_SOURCE, (), util_defines)
}

fn util_grid(gpu: &Gpu, items: u64) -> LaunchConfig {
    let blocks = gpu.grid_stride_blocks(items as usize, UTIL_THREADS, UTIL_BLOCKS_PER_SM);
    LaunchConfig::linear(blocks, UTIL_THREADS).dependent()
}

/// Zeroes `count` 32-bit words at `words`.
pub(crate) fn zero_words(
    gpu: &Gpu,
    util: &Module,
    words: DevicePtr<u32>,
    count: u64,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    let kernel = util.kernel("radix_zero_words")?;
    let mut args = KernelArgs::new();
    args.ptr(words).push(count);
    // SAFETY: arguments match `radix_zero_words(u32*, u64)`; the caller owns `count` words at
    // `addr` (a scratch region) and nothing else uses them until this launch is done.
    unsafe { kernel.launch(util_grid(gpu, count), &args) }
}

/// Copies `words` 32-bit words from `src` to `dst` (disjoint device addresses); with `flag =
/// Some((word, bit))` only if the device word `word` has `bit` set.
pub(crate) fn copy_words(
    gpu: &Gpu,
    util: &Module,
    src: u64,
    dst: u64,
    words: u64,
    flag: Option<(DevicePtr<u32>, u32)>,
) -> Result<()> {
    if words == 0 {
        return Ok(());
    }
    let kernel = util.kernel("radix_copy_words")?;
    let (flag_addr, flag_bit) = flag.map_or((0, 0), |(p, bit)| (p.addr(), bit));
    let mut args = KernelArgs::new();
    args.push(src)
        .push(dst)
        .push(words)
        .push(flag_addr)
        .push(flag_bit);
    // SAFETY: arguments match `radix_copy_words(const u32*, u32*, u64, const u32*, u32)`; src
    // and dst hold `words` words each and do not overlap; `flag_addr` is null or a live u32.
    unsafe { kernel.launch(util_grid(gpu, words.div_ceil(4)), &args) }
}

/// The scratch of the tiled variants (Satish's and the one-bit sort): second buffers for the
/// keys and values, `digits` digit counts per tile (u64, digit-major), optionally as many digit
/// offsets per tile (u32), and the digit scan's totals.
#[derive(Debug)]
pub(crate) struct TiledLayout {
    /// Tiles of the input.
    pub tiles: u64,
    pub spare_keys: Region<u32>,
    pub spare_values: Region<u32>,
    pub counts: Region<u64>,
    pub offsets: Region<u32>,
    pub totals: Region<u64>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl TiledLayout {
    /// The layout of `job` in tiles of `tile` keys with `digits` counters a tile (and as many
    /// offsets with `offsets`).
    pub fn new(job: &Job, tile: usize, digits: usize, offsets: bool) -> Self {
        let tiles = job.n.div_ceil(tile);
        let mut l = ScratchLayout::new();
        let spare_keys = l.region::<u32>(job.n * job.key.size / 4);
        let spare_values = l.region::<u32>(job.n * job.value_size() / 4);
        let counts = l.region::<u64>(digits * tiles);
        let offsets = l.region::<u32>(if offsets { digits * tiles } else { 0 });
        let totals = l.region::<u64>(digit_scan::totals_len(digits * tiles));
        TiledLayout {
            tiles: tiles as u64,
            spare_keys,
            spare_values,
            counts,
            offsets,
            totals,
            total: l.bytes().unwrap_or(usize::MAX),
        }
    }

    /// The grid-stride launch of `threads` threads a block over the tiles, checked against
    /// `kernels`' limits.
    pub fn config(&self, gpu: &Gpu, threads: u32, kernels: &[&Kernel]) -> Result<LaunchConfig> {
        if self.tiles > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "{} tiles: more than 2^32",
                self.tiles
            )));
        }
        let cfg = LaunchConfig::linear(gpu.grid_blocks(self.tiles as usize), threads);
        for k in kernels {
            k.check(&cfg)?;
        }
        Ok(cfg)
    }
}
