//! Reductions of a device key array: sum, min, max and min-max in one pass, for every key type.
//!
//! # Overview
//! [`reduce_sum`], [`reduce_min`], [`reduce_max`] and [`reduce_min_max`] read a
//! [`DeviceBuffer`] of keys and return one value to the host. The kernel is chosen by
//! [`ReduceVariant`]: the four classic kernels of Mark Harris's "Optimizing Parallel Reduction
//! in CUDA" (interleaved addressing, sequential addressing, first add during load, unrolled last
//! warp), kept for comparison, and [`ReduceVariant::Fast`], the default: one pass with 16-byte
//! vector loads, warp shuffles, and the last block to finish reducing the per-block partials.
//! The warp- and block-level reductions are shared headers
//! (`sortlab/warp/warp_reduce.cuh`, `sortlab/block/block_reduce.cuh`) for the sort kernels.
//!
//! # Key types
//! `u32`, `i32`, `f32`, `u64`, `i64`, `f64`. Sums: `u32` and `i32` into 64 bits, `u64` and `i64`
//! wrapping in their own type, floats in their own type ([`ReduceKey`]). Min and max use the
//! total order of [`SortKey::total_cmp`] (`-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`):
//! the kernels reduce the keys' ordered bits, so the result is one of the input keys, bit for
//! bit.
//!
//! # Empty input, rounding
//! The sum of no keys is `0` ([`ReduceKey::SUM_ZERO`]); min and max of no keys are `None`.
//! Integer results are exact (modulo wrapping). Float sums round in a variant-specific tree
//! order; each is within the classic bound `|computed - exact| <= (n - 1) * eps * sum(|x|)`,
//! and is deterministic for a given variant and device.
//!
//! # Scratch memory
//! A reduction needs a little temporary device memory (partials, tile status words): about one
//! word per tile of a few thousand keys. The plain functions take it from the device's
//! stream-ordered memory pool; [`reduce_sum_with_scratch`], [`reduce_min_with_scratch`], [`reduce_max_with_scratch`] and
//! [`reduce_min_max_with_scratch`] take it from the caller,
//! who sizes it with [`scratch_bytes`] and may reuse it across calls (its contents need not be
//! initialised). A buffer that is too small is [`Error::InvalidArgument`], naming the size
//! needed, and nothing runs.
//!
//! # Device-resident results
//! The plain functions download their result and so wait for the GPU. [`reduce_sum_into`],
//! [`reduce_min_into`], [`reduce_max_into`] and [`reduce_min_max_into`] leave it in a device
//! buffer instead and return as soon as the work is queued, as CUB's `DeviceReduce` does: the
//! form for pipelines, and the one `sortlab bench primitives` times against CUB.
//!
//! # Performance
//! [`ReduceVariant::Fast`] reads at the device-to-device copy rate and at 1.00 to 1.84 times
//! CUB's `DeviceReduce` (H100, u32, 2^16 to 2^28 keys): the table, the device and the command
//! are in `primitives/README.md`. `sortlab bench primitives` measures it.
//!
//! # Example
//! ```no_run
//! use sortlab_primitives::reduce::{reduce_min_max, reduce_sum, ReduceVariant};
//! use sortlab_primitives::{DeviceBuffer, Gpu};
//! let gpu = Gpu::new(0)?;
//! let keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2])?;
//! assert_eq!(reduce_sum(&gpu, &keys, ReduceVariant::Fast)?, 6u64);
//! assert_eq!(reduce_min_max(&gpu, &keys, ReduceVariant::default())?, Some((1, 3)));
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

mod key;
mod policy;
mod variant;

pub use key::ReduceKey;
pub use policy::ReducePolicy;
pub use variant::{ReduceOp, ReduceVariant};

use crate::error::{Error, Result};
use crate::key::{DeviceCopy, SortKey};
use crate::runtime::{
    Defines, DeviceBuffer, DevicePtr, Gpu, Kernel, KernelArgs, KernelSource, LaunchConfig, Policy,
    Region, Scratch, ScratchLayout,
};

/// The reduction kernels (`reduce.cu`).
pub const SOURCE: KernelSource = KernelSource::new("reduce.cu", include_str!("reduce.cu"));

/// The defines of the module that runs `op` with `variant` on keys `K` under `policy`:
/// `KEY_T`, `SUM_T` (sums only), `REDUCE_OP`, `REDUCE_VARIANT` and the policy's.
pub fn module_defines<K: ReduceKey>(
    op: ReduceOp,
    variant: ReduceVariant,
    policy: &ReducePolicy,
) -> Defines {
    let sum = (op == ReduceOp::Sum).then_some(K::SUM_CUDA_TYPE);
    defines_for::<K>(sum, op, variant, policy)
}

fn defines_for<K: SortKey>(
    sum_cuda_type: Option<&str>,
    op: ReduceOp,
    variant: ReduceVariant,
    policy: &ReducePolicy,
) -> Defines {
    let mut d = policy
        .defines()
        .key::<K>()
        .set("REDUCE_OP", op.index())
        .set("REDUCE_VARIANT", variant.index());
    if let Some(s) = sum_cuda_type {
        d = d.set("SUM_T", s);
    }
    d
}

/// Sum of the keys (`0` when there are none).
///
/// `u32` and `i32` keys sum into 64 bits, `u64` and `i64` wrap, floats sum in their own type
/// (see the [module docs](self) for rounding). Allocates its temporary memory
/// ([`scratch_bytes`]) from the device's pool; [`reduce_sum_with_scratch`] takes it from the
/// caller.
pub fn reduce_sum<K: ReduceKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
) -> Result<K::Sum> {
    sum_impl(gpu, keys, variant, None)
}

/// [`reduce_sum`] with caller-supplied temporary memory: `scratch` must hold at least
/// [`scratch_bytes`]`::<K>(gpu, keys.len(), ReduceOp::Sum, variant)` bytes (any contents; the
/// call may overwrite all of them), else [`Error::InvalidArgument`] naming the size needed.
pub fn reduce_sum_with_scratch<K: ReduceKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<K::Sum> {
    sum_impl(gpu, keys, variant, Some(scratch))
}

fn sum_impl<K: ReduceKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<K::Sum> {
    if keys.is_empty() {
        return Ok(K::SUM_ZERO);
    }
    let v = run::<K, K::Sum>(
        gpu,
        keys,
        Some(K::SUM_CUDA_TYPE),
        ReduceOp::Sum,
        variant,
        1,
        scratch,
    )?;
    first(&v)
}

/// Smallest key by total order (`-NaN` below `-inf`, `-0.0` below `+0.0`), `None` when empty.
pub fn reduce_min<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
) -> Result<Option<K>> {
    extreme_impl(gpu, keys, ReduceOp::Min, variant, None)
}

/// [`reduce_min`] with caller-supplied temporary memory of at least
/// [`scratch_bytes`]`::<K>(gpu, keys.len(), ReduceOp::Min, variant)` bytes (see
/// [`reduce_sum_with_scratch`]).
pub fn reduce_min_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<Option<K>> {
    extreme_impl(gpu, keys, ReduceOp::Min, variant, Some(scratch))
}

/// Largest key by total order (`+NaN` above `+inf`), `None` when empty.
pub fn reduce_max<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
) -> Result<Option<K>> {
    extreme_impl(gpu, keys, ReduceOp::Max, variant, None)
}

/// [`reduce_max`] with caller-supplied temporary memory of at least
/// [`scratch_bytes`]`::<K>(gpu, keys.len(), ReduceOp::Max, variant)` bytes (see
/// [`reduce_sum_with_scratch`]).
pub fn reduce_max_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<Option<K>> {
    extreme_impl(gpu, keys, ReduceOp::Max, variant, Some(scratch))
}

fn extreme_impl<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    op: ReduceOp,
    variant: ReduceVariant,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<Option<K>> {
    if keys.is_empty() {
        return Ok(None);
    }
    let v = run::<K, K>(gpu, keys, None, op, variant, 1, scratch)?;
    Ok(Some(first(&v)?))
}

/// Smallest and largest key by total order, in one pass; `None` when empty.
pub fn reduce_min_max<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
) -> Result<Option<(K, K)>> {
    min_max_impl(gpu, keys, variant, None)
}

/// [`reduce_min_max`] with caller-supplied temporary memory of at least
/// [`scratch_bytes`]`::<K>(gpu, keys.len(), ReduceOp::MinMax, variant)` bytes (see
/// [`reduce_sum_with_scratch`]).
pub fn reduce_min_max_with_scratch<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<Option<(K, K)>> {
    min_max_impl(gpu, keys, variant, Some(scratch))
}

fn min_max_impl<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<Option<(K, K)>> {
    if keys.is_empty() {
        return Ok(None);
    }
    let v = run::<K, K>(gpu, keys, None, ReduceOp::MinMax, variant, 2, scratch)?;
    match v[..] {
        [lo, hi] => Ok(Some((lo, hi))),
        _ => Err(internal("min-max result is not two words")),
    }
}

/// [`reduce_sum`] that stays on the device, as a sort pipeline or CUB's `DeviceReduce` does:
/// the sum lands in `out[0]`, and the call returns once the work is queued on the GPU's stream
/// (nothing is downloaded or waited for). `scratch` is caller memory of at least
/// [`scratch_bytes`] bytes, or `None` to take it from the device's pool.
///
/// The sum of no keys is `0`, written to `out[0]` all the same.
///
/// # Errors
/// [`Error::InvalidArgument`] when `out` is empty or `scratch` too small (nothing runs).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::reduce::{reduce_sum_into, ReduceVariant};
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let keys = DeviceBuffer::from_host(&gpu, &[3u32, 1, 2])?;
/// let mut sum = DeviceBuffer::<u64>::alloc(&gpu, 1)?;
/// reduce_sum_into(&gpu, &keys, ReduceVariant::Fast, &mut sum, None)?;
/// assert_eq!(sum.to_host()?, vec![6]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub fn reduce_sum_into<K: ReduceKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    out: &mut DeviceBuffer<K::Sum>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    if keys.is_empty() {
        check_out(out, 1)?;
        // SUM_ZERO is 0 or +0.0 in every sum type: all bytes zero.
        return out.fill_bytes_range(0..1, 0);
    }
    let sum = Some(K::SUM_CUDA_TYPE);
    run_into(gpu, keys, sum, ReduceOp::Sum, variant, 1, out, scratch)
}

/// [`reduce_min`] that stays on the device: the smallest key lands in `out[0]` (see
/// [`reduce_sum_into`]). Returns `false`, writing nothing, when `keys` is empty.
///
/// # Errors
/// [`Error::InvalidArgument`] when `out` is empty or `scratch` too small (nothing runs).
pub fn reduce_min_into<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    out: &mut DeviceBuffer<K>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<bool> {
    extreme_into(gpu, keys, ReduceOp::Min, variant, out, scratch)
}

/// [`reduce_max`] that stays on the device: the largest key lands in `out[0]` (see
/// [`reduce_sum_into`]). Returns `false`, writing nothing, when `keys` is empty.
///
/// # Errors
/// [`Error::InvalidArgument`] when `out` is empty or `scratch` too small (nothing runs).
pub fn reduce_max_into<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    out: &mut DeviceBuffer<K>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<bool> {
    extreme_into(gpu, keys, ReduceOp::Max, variant, out, scratch)
}

/// [`reduce_min_max`] that stays on the device: the smallest key lands in `out[0]`, the largest
/// in `out[1]` (see [`reduce_sum_into`]). Returns `false`, writing nothing, when `keys` is
/// empty.
///
/// # Errors
/// [`Error::InvalidArgument`] when `out` holds fewer than two keys or `scratch` is too small
/// (nothing runs).
pub fn reduce_min_max_into<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    variant: ReduceVariant,
    out: &mut DeviceBuffer<K>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<bool> {
    extreme_into(gpu, keys, ReduceOp::MinMax, variant, out, scratch)
}

fn extreme_into<K: SortKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    op: ReduceOp,
    variant: ReduceVariant,
    out: &mut DeviceBuffer<K>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<bool> {
    let len = if op == ReduceOp::MinMax { 2 } else { 1 };
    check_out(out, len)?;
    if keys.is_empty() {
        return Ok(false);
    }
    run_into(gpu, keys, None, op, variant, len, out, scratch)?;
    Ok(true)
}

/// Bytes of temporary device memory a reduction `op` of `n` keys `K` with `variant` needs on
/// `gpu`: what the `..._with_scratch` functions require of their scratch buffer (0 for no
/// keys). The allocating functions take the same amount from the device's memory pool.
pub fn scratch_bytes<K: ReduceKey>(
    gpu: &Gpu,
    n: usize,
    op: ReduceOp,
    variant: ReduceVariant,
) -> usize {
    if n == 0 {
        return 0;
    }
    let acc_bytes = match op {
        ReduceOp::Sum => std::mem::size_of::<K::Sum>(),
        ReduceOp::Min | ReduceOp::Max => K::SIZE,
        ReduceOp::MinMax => 2 * K::SIZE,
    };
    // A size past usize (never, for keys that fit in memory) asks for what no buffer holds.
    Plan::new(gpu, n, variant, K::SIZE, acc_bytes)
        .layout
        .bytes()
        .unwrap_or(usize::MAX)
}

fn first<T: Copy>(v: &[T]) -> Result<T> {
    v.first()
        .copied()
        .ok_or_else(|| internal("empty reduction result"))
}

fn internal(what: &str) -> Error {
    Error::Internal(format!("reduce: {what}"))
}

/// Where one reduction keeps its temporaries.
struct Plan {
    layout: ScratchLayout,
    /// The result the host downloads (when the caller gave no output buffer).
    result: Region<u8>,
    /// Classic: the last level's accumulator, before `reduce_finish`.
    acc: Region<u8>,
    /// Fast: the last-block counter (zeroed per call), and the grid's partials.
    counter: Region<u32>,
    partials: Region<u8>,
    grid: usize,
    /// Classic: the level 1 and level 2 partials (ping-pong), and keys per tile.
    level_a: Region<u8>,
    level_b: Region<u8>,
    per_tile: usize,
}

impl Plan {
    fn new(gpu: &Gpu, n: usize, variant: ReduceVariant, key_size: usize, acc_bytes: usize) -> Self {
        let policy = ReducePolicy::for_variant(variant);
        let mut layout = ScratchLayout::new();
        let result = layout.region::<u8>(acc_bytes);
        let mut plan = Plan {
            layout,
            result,
            acc: Region::default(),
            counter: Region::default(),
            partials: Region::default(),
            grid: 0,
            level_a: Region::default(),
            level_b: Region::default(),
            per_tile: 0,
        };
        if variant == ReduceVariant::Fast {
            let vec = 16 / key_size;
            let per_block = policy.block_threads as usize * policy.unroll as usize * vec;
            plan.grid = gpu.grid_stride_blocks(n, per_block as u32, policy.blocks_per_sm) as usize;
            plan.counter = plan.layout.region::<u32>(1);
            plan.partials = plan.layout.region::<u8>(plan.grid * acc_bytes);
        } else {
            plan.per_tile = match variant {
                ReduceVariant::FirstAddDuringLoad | ReduceVariant::UnrolledLastWarp => {
                    2 * policy.block_threads as usize
                }
                _ => policy.block_threads as usize,
            };
            plan.acc = plan.layout.region::<u8>(acc_bytes);
            let level1 = n.div_ceil(plan.per_tile);
            let level2 = level1.div_ceil(plan.per_tile);
            plan.level_a =
                plan.layout
                    .region::<u8>(if level1 > 1 { level1 * acc_bytes } else { 0 });
            plan.level_b =
                plan.layout
                    .region::<u8>(if level2 > 1 { level2 * acc_bytes } else { 0 });
        }
        plan
    }
}

/// Runs one reduction of `keys` (not empty) and downloads its result: `acc_len` words of type
/// `A` (the sum, the key, or the keys min and max).
fn run<K: SortKey, A: DeviceCopy>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    sum_cuda_type: Option<&str>,
    op: ReduceOp,
    variant: ReduceVariant,
    acc_len: usize,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<Vec<A>> {
    let acc_bytes = acc_len * std::mem::size_of::<A>();
    let plan = Plan::new(gpu, keys.len(), variant, K::SIZE, acc_bytes);
    let mut scratch = Scratch::get(gpu, scratch, plan.layout.bytes()?, "this reduction")?;
    let dest = scratch.ptr(plan.result).cast::<A>();
    launch(
        gpu,
        keys,
        sum_cuda_type,
        op,
        variant,
        &plan,
        &mut scratch,
        dest,
    )?;
    let mut bytes = vec![0u8; acc_bytes];
    scratch
        .buffer()
        .copy_range_to_host(plan.result.byte_range(), &mut bytes)?;
    Ok(bytes
        .chunks_exact(std::mem::size_of::<A>())
        .map(|w| {
            // SAFETY: `w` holds size_of::<A>() bytes, and `A: DeviceCopy` has no invalid bit
            // patterns; the read is unaligned-safe.
            unsafe { std::ptr::read_unaligned(w.as_ptr().cast::<A>()) }
        })
        .collect())
}

/// Runs one reduction of `keys` (not empty) into `out[0 .. acc_len)`, on the device: nothing
/// is downloaded and nothing waits for the GPU.
#[allow(clippy::too_many_arguments)]
fn run_into<K: SortKey, A: DeviceCopy>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    sum_cuda_type: Option<&str>,
    op: ReduceOp,
    variant: ReduceVariant,
    acc_len: usize,
    out: &mut DeviceBuffer<A>,
    scratch: Option<&mut DeviceBuffer<u8>>,
) -> Result<()> {
    check_out(out, acc_len)?;
    let plan = Plan::new(
        gpu,
        keys.len(),
        variant,
        K::SIZE,
        acc_len * std::mem::size_of::<A>(),
    );
    let mut scratch = Scratch::get(gpu, scratch, plan.layout.bytes()?, "this reduction")?;
    launch(
        gpu,
        keys,
        sum_cuda_type,
        op,
        variant,
        &plan,
        &mut scratch,
        out.ptr(),
    )
}

fn check_out<A: DeviceCopy>(out: &DeviceBuffer<A>, acc_len: usize) -> Result<()> {
    if out.len() < acc_len {
        return Err(Error::InvalidArgument(format!(
            "this reduction writes {acc_len} result value(s); the output buffer holds {}",
            out.len()
        )));
    }
    Ok(())
}

/// Launches the kernels of one reduction of `keys` (not empty) under `plan`, leaving its result
/// (the kernels' `Out`: `plan`'s accumulator bytes) at `dest`.
#[allow(clippy::too_many_arguments)]
fn launch<K: SortKey, A: DeviceCopy>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    sum_cuda_type: Option<&str>,
    op: ReduceOp,
    variant: ReduceVariant,
    plan: &Plan,
    scratch: &mut Scratch<'_>,
    dest: DevicePtr<A>,
) -> Result<()> {
    debug_assert_eq!(std::mem::size_of::<A>() % 4, 0);
    let n = keys.len();
    let policy = ReducePolicy::for_variant(variant);
    let defines = defines_for::<K>(sum_cuda_type, op, variant, &policy);
    let module = gpu.module(&SOURCE, &defines)?;
    if variant == ReduceVariant::Fast {
        scratch
            .buffer_mut()
            .fill_bytes_range(plan.counter.byte_range(), 0)?;
        let kernel = module.kernel("reduce_fast")?;
        let mut args = KernelArgs::new();
        args.ptr(keys.ptr())
            .push(n as u64)
            .ptr(scratch.ptr(plan.partials))
            .ptr(scratch.ptr(plan.counter))
            .ptr(dest);
        // SAFETY: arguments match `reduce_fast(const KEY_T*, u64, Acc*, u32*, Out*)`; the
        // kernel reads keys[0..n), writes the scratch's partials (room for plan.grid
        // accumulators), its counter (zeroed just before, on the stream) and one Out at `dest`
        // (the plan's accumulator bytes: the caller's checked output or the scratch's result
        // region); it runs with policy.block_threads threads as compiled.
        unsafe {
            kernel.launch(
                LaunchConfig::linear(plan.grid as u32, policy.block_threads),
                &args,
            )?
        };
    } else {
        let name = match variant {
            ReduceVariant::Interleaved => "interleaved",
            ReduceVariant::Sequential => "sequential",
            ReduceVariant::FirstAddDuringLoad => "first_add",
            _ => "unrolled",
        };
        let keys_kernel = module.kernel(&format!("reduce_{name}_keys"))?;
        let partials_kernel = module.kernel(&format!("reduce_{name}_partials"))?;
        // Ping-pong regions: level 1 partials in `a`, level 2 in `b`, level 3 in `a` again ...;
        // the last level's one accumulator goes to `acc`, which reduce_finish turns into the
        // caller's result.
        let a = scratch.ptr(plan.level_a);
        let b = scratch.ptr(plan.level_b);
        let acc = scratch.ptr(plan.acc);
        let mut m = n;
        let mut input: Option<DevicePtr<u8>> = None; // None: the keys
        let mut into_a = true;
        loop {
            let tiles = m.div_ceil(plan.per_tile);
            let out = if tiles == 1 {
                acc
            } else if into_a {
                a
            } else {
                b
            };
            let grid = gpu.grid_blocks(tiles);
            let mut args = KernelArgs::new();
            let kernel: &Kernel = match input {
                None => {
                    args.ptr(keys.ptr());
                    &keys_kernel
                }
                Some(p) => {
                    args.ptr(p);
                    &partials_kernel
                }
            };
            args.ptr(out).push(m as u64);
            // SAFETY: arguments match `reduce_<variant>_{keys,partials}(const In*, Acc*, u64)`;
            // the input holds m elements (the keys, or the previous level's m partials), `out`
            // has room for `tiles` accumulators (level1 >= every odd level, level2 >= every
            // even level, 1 for `acc`: disjoint scratch regions) and is not the input;
            // block size as compiled.
            unsafe { kernel.launch(LaunchConfig::linear(grid, policy.block_threads), &args)? };
            if tiles == 1 {
                break;
            }
            input = Some(out);
            m = tiles;
            into_a = !into_a;
        }
        let finish = module.kernel("reduce_finish")?;
        let mut args = KernelArgs::new();
        args.ptr(acc).ptr(dest);
        // SAFETY: arguments match `reduce_finish(const Acc*, Out*)`; `acc` holds the last
        // level's accumulator (written above, on the stream), `dest` has room for one Out (the
        // plan's accumulator bytes); one thread writes it.
        unsafe { finish.launch(LaunchConfig::linear(1, 32), &args)? };
    }
    Ok(())
}
