//! [`crate::Intervals::Sampled`]: the sample, sorted on the GPU, and its splitters.
//!
//! The definitions are the CPU twin's (`sortlab_cpu_reference::approx::{sample_len,
//! sample_position, splitter_index}`), so both engines pick the same splitters: `s` =
//! [`sample_len`] keys at hashed positions (every key when `s == n`), sorted in the requested
//! order; splitter `j < intervals - 1` is the ranked bits of sample key `(j + 1) * s /
//! intervals`; a key's interval is the number of splitters `<=` its ranked bits.

use sortlab_primitives::{DeviceBuffer, KernelArgs, KeyBits, Result, SortKey};

pub use sortlab_cpu_reference::approx::{
    sample_len, MAX_SAMPLE, SAMPLE_PER_INTERVAL, SAMPLE_SEED, SAMPLE_STEP,
};

use crate::kernels::{Kernels, SPLIT_TABLE};
use crate::options::ApproxOptions;

/// Keys per interval when the sample itself is sorted (an approximate sort with equal widths,
/// then `refine`): most intervals then hold at most 64 keys, a warp's sort.
const SAMPLE_SORT_BUCKET: usize = 32;

/// Writes the `opts.intervals - 1` splitters of `keys` (ranked bits) at device address `out`;
/// `sort` fully sorts the sample in the order of the options it is given (the approximate sort
/// and its refinement: the caller's, so that this module does not reach up to them).
pub(crate) fn build_splitters<K: SortKey>(
    kern: &Kernels,
    keys: &DeviceBuffer<K>,
    opts: &ApproxOptions,
    flip: K::Bits,
    out: u64,
    sort: impl FnOnce(&mut DeviceBuffer<K>, &ApproxOptions) -> Result<()>,
) -> Result<()> {
    let gpu = &kern.gpu;
    let p = &kern.policy;
    let n = keys.len();
    let m = opts.intervals;
    if m < 2 {
        return Ok(());
    }
    let s = sample_len(n, m);
    let mut sample = DeviceBuffer::<K>::alloc(gpu, s)?;
    let mut args = KernelArgs::new();
    args.ptr(keys.ptr())
        .push(n as u64)
        .push(s as u64)
        .push(SAMPLE_SEED)
        .push(SAMPLE_STEP)
        .ptr(sample.ptr());
    // SAFETY: `sample_gather(const KEY_T*, u64, u64, u64, u64, KEY_T*)`: positions are < n
    // (every key when s >= n, else floor(h * n / 2^64)); writes sample[0..s).
    unsafe { kern.launch_over("sample_gather", s, p.block_threads, 4, &args)? };
    let sort_opts = ApproxOptions {
        intervals: (s / SAMPLE_SORT_BUCKET).max(1),
        order: opts.order,
        ..ApproxOptions::default()
    };
    sort(&mut sample, &sort_opts)?;
    let mut args = KernelArgs::new();
    args.ptr(sample.ptr())
        .push(s as u64)
        .push(m as u32)
        .push(flip.to_u64())
        .push(out);
    // SAFETY: `pick_splitters(const KEY_T*, u64, u32, Bits, Bits*)`: reads sample[< s], writes
    // m - 1 words at `out` (the workspace holds m + 2 words and the table).
    unsafe { kern.launch_over("pick_splitters", m - 1, p.block_threads, 4, &args)? };
    let mut args = KernelArgs::new();
    args.push(out).push(m as u32);
    // SAFETY: `splitter_table(Bits*, u32)`: m >= 2; reads the m - 1 sorted splitters at `out`,
    // writes words m and m + 1 and SPLIT_TABLE + 1 u32 after them (the workspace's splitters
    // part holds them: Layout::new).
    unsafe { kern.launch_over("splitter_table", SPLIT_TABLE + 1, p.block_threads, 1, &args) }
}
