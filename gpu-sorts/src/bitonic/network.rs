//! What [`BitonicVariant::Mapping`](super::BitonicVariant::Mapping) and
//! [`BitonicVariant::Notes`](super::BitonicVariant::Notes) share: `network.cu`, the work array
//! (the caller's keys, or a padded copy in scratch), and the copies in and out.

use sortlab_primitives::{
    Defines, Error, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Module, Region, Result,
    ScratchLayout,
};

use super::job::{Addrs, Job};

/// The published kernels and their copies (`network.cu`).
pub const NETWORK_SOURCE: KernelSource =
    KernelSource::new("network.cu", include_str!("network.cu"));

/// Threads per block of the published kernels unless
/// [`BitonicOptions::threads_per_block`](super::BitonicOptions::threads_per_block) says
/// otherwise.
pub const NETWORK_THREADS: u32 = 256;

/// Threads per block of the copies in and out (grid-stride).
const COPY_THREADS: u32 = 256;
/// Resident blocks per multiprocessor of the copies.
const COPY_BLOCKS_PER_SM: u32 = 8;

/// The defines of `network.cu` beyond the word vocabulary: none (the block size is chosen at
/// launch).
pub(crate) fn defines() -> Defines {
    Defines::new()
}

/// Where the network runs: the work array of `len` (a power of two) ordered-bits words, and
/// what moves with the keys.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Work {
    /// Device address of the words.
    pub words: u64,
    /// Elements, `n` rounded up to a power of two.
    pub len: u64,
    pub payload: Payload,
}

impl Work {
    /// A step kernel's first arguments: the words, then the payload's address where there is
    /// one.
    pub(crate) fn args(&self) -> KernelArgs {
        let mut args = KernelArgs::new();
        args.push(self.words);
        match self.payload {
            Payload::Keys => {}
            Payload::Values(p) | Payload::Indexed(p) => {
                args.push(p);
            }
        }
        args
    }
}

/// What moves with the keys through the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Payload {
    /// Nothing.
    Keys,
    /// The caller's values, in place (n a power of two): compared never.
    Values(u64),
    /// Input indices (u64) in scratch (padded pairs): compared where the words tie.
    Indexed(u64),
}

/// The scratch of a padded sort: the work words, and with values the indices and a copy of
/// the values.
#[derive(Debug)]
pub(crate) struct Layout {
    pub len: usize,
    pub padded: bool,
    pub words: Region<u8>,
    pub index: Region<u64>,
    pub spare: Region<u8>,
    /// Scratch bytes needed (`usize::MAX` if that overflows).
    pub total: usize,
}

impl Layout {
    /// The layout of `job`: nothing when n is a power of two (the network runs on the caller's
    /// buffers), else `len` words, and for pairs `len` indices and n values.
    pub fn new(job: &Job) -> Result<Layout> {
        let len = job.n.checked_next_power_of_two().ok_or_else(|| {
            Error::InvalidArgument(format!("bitonic sort of {} keys: too many", job.n))
        })?;
        let padded = len != job.n;
        let mut l = ScratchLayout::new();
        let (mut words, mut index, mut spare) = Default::default();
        if padded {
            words = l.region::<u8>(len.saturating_mul(job.key_size));
            if job.value.is_some() {
                index = l.region::<u64>(len);
                spare = l.region::<u8>(job.n.saturating_mul(job.value_size()));
            }
        }
        Ok(Layout {
            len,
            padded,
            words,
            index,
            spare,
            total: l.bytes().unwrap_or(usize::MAX),
        })
    }
}

/// The launch of one thread per `threads_total` items in blocks of `threads` (exact, checked
/// against `kernel`).
pub(crate) fn exact_config(
    gpu: &Gpu,
    kernel: &Kernel,
    threads_total: u64,
    threads: u32,
    what: &str,
) -> Result<LaunchConfig> {
    let blocks = threads_total.div_ceil(threads as u64);
    let blocks = usize::try_from(blocks)
        .map_err(|_| Error::Unsupported(format!("{what}: {blocks} blocks")))?;
    let cfg = LaunchConfig::linear(gpu.exact_grid(blocks, what)?, threads);
    kernel.check(&cfg)?;
    Ok(cfg)
}

/// Runs a published network on `job`: the keys (and values) go into the work array (in place,
/// or padded into scratch), `steps` runs every step on it, and they come back. `step` and
/// `cfg` are the step kernel and its launch, checked here before anything is written.
pub(crate) fn sort(
    gpu: &Gpu,
    module: &Module,
    job: &Job,
    at: &Addrs,
    step: &Kernel,
    cfg: LaunchConfig,
    steps: impl FnOnce(&Work) -> Result<()>,
) -> Result<()> {
    let l = Layout::new(job)?;
    step.check(&cfg)?;
    let indexed = l.padded && job.value.is_some();
    let (pad, unpad) = if indexed {
        (
            module.kernel("bitonic_pad_indexed")?,
            module.kernel("bitonic_unpad_indexed")?,
        )
    } else {
        (
            module.kernel("bitonic_pad")?,
            module.kernel("bitonic_unpad")?,
        )
    };
    let copy = |kernel: &Kernel, items: usize| -> Result<LaunchConfig> {
        let blocks = gpu.grid_stride_blocks(items, COPY_THREADS, COPY_BLOCKS_PER_SM);
        let cfg = LaunchConfig::linear(blocks, COPY_THREADS);
        kernel.check(&cfg)?;
        Ok(cfg)
    };
    let (pad_cfg, unpad_cfg) = (copy(&pad, l.len)?, copy(&unpad, job.n)?);
    let s = at.scratch;
    let words = if l.padded {
        l.words.ptr(s).addr()
    } else {
        at.keys
    };
    let (n, len) = (job.n as u64, l.len as u64);
    let payload = match (indexed, job.value) {
        (true, _) => Payload::Indexed(l.index.ptr(s).addr()),
        (false, Some(_)) => Payload::Values(at.values),
        (false, None) => Payload::Keys,
    };
    let (index, spare) = (l.index.ptr(s).addr(), l.spare.ptr(s).addr());
    let mut args = KernelArgs::new();
    if indexed {
        args.push(at.keys)
            .push(at.values)
            .push(words)
            .push(index)
            .push(spare)
            .push(n)
            .push(len);
        job.push_flip(&mut args);
        // SAFETY: arguments match `bitonic_pad_indexed(const Key*, const Value*, Bits*, u64*,
        // Value*, u64, u64, Bits)`; keys and values hold n elements, the scratch regions len
        // words, len indices and n values, none overlapping the caller's buffers.
        unsafe { pad.launch(pad_cfg, &args)? };
    } else {
        args.push(at.keys).push(words).push(n).push(len);
        job.push_flip(&mut args);
        // SAFETY: arguments match `bitonic_pad(const Key*, Bits*, u64, u64, Bits)`; keys hold
        // n keys; words is either the same buffer (n == len, converted in place element by
        // element) or a scratch region of len words.
        unsafe { pad.launch(pad_cfg, &args)? };
    }
    steps(&Work {
        words,
        len,
        payload,
    })?;
    let mut args = KernelArgs::new();
    if indexed {
        args.push(words)
            .push(index)
            .push(spare)
            .push(at.keys)
            .push(at.values)
            .push(n);
        job.push_flip(&mut args);
        // SAFETY: arguments match `bitonic_unpad_indexed(const Bits*, const u64*, const Value*,
        // Key*, Value*, u64, Bits)`; sizes as for the pad; every index of the first n elements
        // is below n (padding sorts last), so the gather stays inside the copy of the values.
        unsafe { unpad.launch(unpad_cfg, &args) }
    } else {
        args.push(words).push(at.keys).push(n);
        job.push_flip(&mut args);
        // SAFETY: arguments match `bitonic_unpad(const Bits*, Key*, u64, Bits)`; words holds at
        // least n words, keys n keys (possibly the same buffer, converted element by element).
        unsafe { unpad.launch(unpad_cfg, &args) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let j = |n, value| Job {
            n,
            key_size: 4,
            value,
            flip: 0,
        };
        let l = Layout::new(&j(1 << 20, Some(8))).unwrap();
        assert!(!l.padded && l.total == 0);
        let l = Layout::new(&j(1000, None)).unwrap();
        assert!(l.padded && l.len == 1024 && l.total >= 4096);
        let l = Layout::new(&j(1000, Some(8))).unwrap();
        assert!(l.total >= 4096 + 8192 + 8000);
        let l = Layout::new(&j((1 << 32) + 1, None)).unwrap();
        assert_eq!(l.len, 1 << 33);
        assert!(Layout::new(&j(usize::MAX, None)).is_err());
    }
}
