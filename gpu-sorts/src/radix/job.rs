//! What every variant's launcher shares: the sort job (length, key and value words, bit range),
//! the device addresses it works on, scratch carving, and the housekeeping kernels of
//! `util.cu`.

use std::sync::Arc;

use sortlab_primitives::{Defines, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Result};

use super::masks::KeySpec;

/// The housekeeping kernels (`util.cu`).
pub const UTIL_SOURCE: KernelSource = KernelSource::new("util.cu", include_str!("util.cu"));

/// Threads per block of the `util.cu` kernels.
const UTIL_THREADS: u32 = 256;
/// Resident blocks per multiprocessor of the grid-stride `util.cu` kernels.
const UTIL_BLOCKS_PER_SM: u64 = 8;
/// Scratch regions start at multiples of this many bytes (a cache line pair; 16-byte vector
/// accesses need 16).
pub(crate) const SCRATCH_ALIGN: usize = 256;

/// A value type's raw word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ValueSpec {
    /// Bytes per value (4 or 8).
    pub size: usize,
    /// CUDA type of the raw word.
    pub word: &'static str,
}

/// One sort: n keys (and values) by ordered bits `begin .. end`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    pub n: usize,
    pub key: KeySpec,
    pub value: Option<ValueSpec>,
    pub begin: u32,
    pub end: u32,
}

impl Job {
    /// Bytes per value, 0 for keys only.
    pub fn value_size(&self) -> usize {
        self.value.map_or(0, |v| v.size)
    }

    /// `KEY_WORD`, `VALUE_WORD` and `PAIRS`.
    pub fn word_defines(&self) -> Defines {
        let (key, value, pairs) = self.words();
        Defines::new()
            .set("KEY_WORD", key)
            .set("VALUE_WORD", value)
            .set("PAIRS", pairs as u32)
    }

    /// What [`Job::word_defines`] is made of: the key's and the value's CUDA words and whether
    /// values travel (a module cache key).
    pub fn words(&self) -> (&'static str, &'static str, bool) {
        (
            self.key.word,
            self.value.map_or("unsigned int", |v| v.word),
            self.value.is_some(),
        )
    }
}

/// Device addresses of a sort: the caller's keys and values (0 for keys only) and scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addrs {
    pub keys: u64,
    pub values: u64,
    pub scratch: u64,
}

/// Carves aligned regions off a scratch allocation, by offset.
#[derive(Debug, Default)]
pub(crate) struct Carver {
    end: usize,
}

impl Carver {
    /// A region of `bytes` bytes: its offset from the scratch start.
    pub fn take(&mut self, bytes: usize) -> usize {
        let at = self.end.div_ceil(SCRATCH_ALIGN) * SCRATCH_ALIGN;
        self.end = at + bytes;
        at
    }
    /// Bytes used so far.
    pub fn total(&self) -> usize {
        self.end
    }
}

/// `blocks` clamped to the device's grid limit (at least 1).
pub(crate) fn grid(gpu: &Gpu, blocks: u64) -> u32 {
    blocks.clamp(1, gpu.info().max_grid_x as u64) as u32
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
    let resident = gpu.info().multiprocessors as u64 * UTIL_BLOCKS_PER_SM;
    let blocks = items.div_ceil(UTIL_THREADS as u64).min(resident);
    LaunchConfig::linear(grid(gpu, blocks), UTIL_THREADS).dependent()
}

/// Zeroes `count` 32-bit words at `addr`.
pub(crate) fn zero_words(gpu: &Gpu, util: &Module, addr: u64, count: u64) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    let kernel = util.kernel("radix_zero_words")?;
    let mut args = KernelArgs::new();
    args.push(addr).push(count);
    // SAFETY: arguments match `radix_zero_words(u32*, u64)`; the caller owns `count` words at
    // `addr` (a scratch region) and nothing else uses them until this launch is done.
    unsafe { kernel.launch(util_grid(gpu, count), &args) }
}

/// Copies `words` 32-bit words from `src` to `dst` (disjoint); with `flag = Some((addr, bit))`
/// only if the device word at `addr` has `bit` set.
pub(crate) fn copy_words(
    gpu: &Gpu,
    util: &Module,
    src: u64,
    dst: u64,
    words: u64,
    flag: Option<(u64, u32)>,
) -> Result<()> {
    if words == 0 {
        return Ok(());
    }
    let kernel = util.kernel("radix_copy_words")?;
    let (flag_addr, flag_bit) = flag.unwrap_or((0, 0));
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
