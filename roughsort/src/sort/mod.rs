//! Sorting `k`-sorted device keys (and key-value pairs) in O(n log k).
//!
//! # Overview
//! Altman & Chlebus: a `k`-sorted sequence is sorted by sorting every run of `2m` keys from
//! position 0 (any `m >= k`), then every run of `2m` from position `m` — the second pass merges
//! the sorted upper half of one run with the sorted lower half of the next. The GPU form picks
//! one of three paths by the radius `k` and records it in [`RoughReport::path`]:
//!
//! | path | when | passes over the keys |
//! |---|---|---|
//! | [`RoughPath::AlreadySorted`] | `k == 0` | none |
//! | [`RoughPath::Window`] | `k <=` [`WINDOW_MAX_K_DIVISOR`]-th of a window (1024 keys for 4-byte keys and u32 pairs, 512 for 8-byte keys with values) | one read, one write |
//! | [`RoughPath::Chained`] | keys alone, `k` up to half a window (4096), more than a window of keys | one read, one and a half writes |
//! | [`RoughPath::MergePasses`] | larger `k` (key-value pairs: from the window path's limit on), `2m < n` (`m` = `k` rounded up to a power of two) | a window sort, `log2(2m / window)` merge passes, one offset merge pass |
//! | [`RoughPath::FullSort`] | `2m >= n` | a window sort, then merge passes to one run: a full merge sort |
//! | [`RoughPath::Radix`] | `k` past [`full_sort_past_k`] (the crossover: 16,384 for 4-byte keys alone, 4096 for 8-byte keys and for pairs), unless [`Fallback::Never`] | `sortlab-gpu-sorts`' radix sort (fast variant, stable) |
//!
//! **The fallback** (`sort/fallback.rs`): past the crossover radius a full radix sort is faster
//! than any rough path, so [`rough_sort`] and [`rough_sort_pairs`] hand the keys to
//! `sortlab_gpu_sorts::radix` there. The radius pass stops as soon as it shows that the radius
//! may be past the crossover (the one-read pass's bound on a long inversion: the wide pass and
//! the far path then never run), so such a call costs one read of the keys more than the radix
//! sort, and its report carries a lower bound on the radius ([`RoughReport::radius_exact`]
//! false). [`rough_sort_with_radius`] decides from the `k` given, before any pass.
//!
//! **Window**: block `b` writes the sorted positions `[s, s + T)` (`s = b * T`) from the
//! window of input positions `[s - k - 1, s + T + k)`. In a `k`-sorted input every key is at
//! most `k` places from its (stable) sorted place, so the sorted output's positions
//! `[s, s + T)` are exactly the sorted window's elements at the same offsets. The window is
//! itself `k`-sorted, so Altman-Chlebus sorts it in registers and shared memory: a stable
//! sort of each thread's keys (a bitonic network over 16, or 32 for 4-byte keys alone with
//! `k >= 32`: [`SortPolicy`]), merge levels up to runs of `2m`, one merge level from offset `m`
//! (2 levels for `k = 16`, 5 for `k = 256` with 32 keys a thread). Keys alone merge up to runs
//! of a warp's keys (512 or 1024) with bitonic merge steps in the warp's registers (shuffles, no
//! barrier), and the offset level too where `2m` is at most that; key-value pairs keep the
//! stable merge levels.
//!
//! **Chained** (keys alone): Altman-Chlebus with `m` half a window in one pass, in place. Block
//! `b` takes run `b` (a window of keys) by an atomic ticket, sorts it in registers and shared
//! memory, writes its sorted upper half in place and raises a flag; then it waits for run
//! `b - 1`'s flag, merges that run's published upper half with its own lower half in shared
//! memory and writes the merge, positions `[bW - W/2, bW + W/2)`. The ticket order means the run
//! a block waits on belongs to a block already running, so the chain always moves. It saves the
//! merge pass's read and write (and its partition kernel) for one more merge level in shared
//! memory (H200, 2^28 `u32`, k = 4096: 3.54 -> 3.24 ms). Key-value pairs keep the merge passes
//! (their merges must be stable and carry values; a chained pass for pairs measured slower:
//! README.md).
//!
//! **Merge passes**: every window of 8192 (4096) keys is sorted into runs of `2m` in place,
//! then merge-path merges in global memory (a partition kernel, then one block per tile of a
//! quarter window) double the runs up to `2m`, and one more merge pass merges the runs of `m`
//! from offset `m`. The results ping-pong between the keys and one scratch buffer.
//!
//! **Checking a given radius** ([`rough_sort_with_radius`]): the window path checks each
//! window before sorting (the windows overlap enough to cover every pair of positions up to
//! `2k + 1` apart, and a sequence with no inversion between `k + 1` and `2k + 1` apart is
//! `k`-sorted); the merge paths run [`crate::is_k_sorted`] first. Either way a wrong `k` is
//! found before the caller's buffers change.
//!
//! # Where the sorted keys live
//! The window and merge paths write into a scratch buffer; when the result ends there, the
//! scratch buffer is swapped into the caller's [`DeviceBuffer`] (as CUB's `DoubleBuffer`), so
//! after a call `keys.ptr()` (and `values.ptr()`) may differ from before, and the old
//! allocation is freed (stream-ordered). The length never changes.

use sortlab_primitives::{
    Defines, DeviceBuffer, DevicePtr, Error as GpuError, Gpu, KernelArgs, KernelSource, KeyBits,
    LaunchConfig, Module, Order, Policy, SortKey, SortValue,
};

use sortlab_gpu_sorts::radix::{self, RadixOptions};

use crate::error::{Error, Result};
use crate::policy::{padded, SortPolicy};
use crate::radius::{is_k_sorted, radius, radius_up_to, Found};

mod fallback;

pub use fallback::{
    full_sort_past_k, prefers_full_sort, Fallback, FULL_SORT_PAST_K_KEYS_4B,
    FULL_SORT_PAST_K_KEYS_8B, FULL_SORT_PAST_K_PAIRS,
};

/// The sort kernels (`sort.cu`).
pub const SOURCE: KernelSource = KernelSource::new("sort.cu", include_str!("sort.cu"));

/// The window path handles radii up to this fraction of a window: a window of `W` keys then
/// writes at least `W - W / 4 - 1` of them (75 %), so its reads exceed its writes by at most a
/// third, while every merge path pays a separate window sort and at least one merge pass.
/// Measured at the crossover (H100, 2^28 `u32`, radius included): `k = 1024` (window) 3.08
/// ms, `k = 1025` (merge passes) 3.60 ms; a larger window share (1 / 4) would read every key
/// up to twice.
pub const WINDOW_MAX_K_DIVISOR: usize = 8;

/// The defines of the sort module for keys `K`, values of `value_size` bytes (None: keys
/// only), under `policy`: `KEY_T`, `KEY_BITS_T`, `HAS_VALUES`, `VALUE_T` and the policy's.
pub fn module_defines<K: SortKey>(value_size: Option<usize>, policy: &SortPolicy) -> Defines {
    policy.defines().key::<K>().value_size(value_size)
}

/// What [`rough_sort_with_radius`] does when the keys turn out not to be `k`-sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnWrongRadius {
    /// Return [`Error::RadiusTooSmall`], leaving the keys (and values) as they were.
    #[default]
    Error,
    /// Determine the radius on the device and sort with it ([`rough_sort`]); the report then
    /// says `determined: true`.
    Redetermine,
}

/// Options of [`rough_sort_with_radius`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RoughOptions {
    /// The sort order (IEEE total order for floats).
    pub order: Order,
    /// What to do when the radius given is too small.
    pub on_wrong_radius: OnWrongRadius,
    /// Whether a `k` past the crossover takes the full radix sort (the default) or the rough
    /// sort's own paths.
    pub fallback: Fallback,
}

/// Which strategy sorted the keys (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoughPath {
    /// Radius 0 (or fewer than two keys): nothing to do.
    AlreadySorted,
    /// One pass: each block sorts a window of `T + 2k + 1` keys in shared memory and writes
    /// the middle `T`.
    Window,
    /// Altman-Chlebus with runs longer than a window: a window sort into runs, merge passes
    /// up to runs of `2m`, one offset merge pass.
    MergePasses,
    /// The radius is at least half the length: a full merge sort (window sort, then merge
    /// passes up to one run).
    FullSort,
    /// Keys alone with a radius up to half a window (more than the window path takes): one
    /// pass in which each block sorts a window-long run and merges its lower half with the
    /// previous run's upper half (Altman-Chlebus with `m` half a window, the offset merge chained
    /// from block to block).
    Chained,
    /// The radius is past the crossover ([`full_sort_past_k`]): `sortlab-gpu-sorts`' radix
    /// sort (fast variant, stable) sorted the keys in place.
    Radix,
}

impl RoughPath {
    /// A short name (`"already-sorted"`, `"window"`, `"merge-passes"`, `"full-sort"`,
    /// `"chained"`, `"radix"`).
    pub fn name(self) -> &'static str {
        match self {
            RoughPath::AlreadySorted => "already-sorted",
            RoughPath::Window => "window",
            RoughPath::MergePasses => "merge-passes",
            RoughPath::FullSort => "full-sort",
            RoughPath::Chained => "chained",
            RoughPath::Radix => "radix",
        }
    }
}

impl std::fmt::Display for RoughPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a roughsort did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoughReport {
    /// The radius the sort used: determined on the device ([`rough_sort`], or a
    /// redetermination), or the `k` given to [`rough_sort_with_radius`]. A lower bound on the
    /// radius where `radius_exact` is false.
    pub radius: usize,
    /// The strategy that ran.
    pub path: RoughPath,
    /// Whether `radius` was determined on the device rather than given.
    pub determined: bool,
    /// False only where the radius pass stopped early, having shown that the radius may be
    /// past the crossover ([`RoughPath::Radix`]): `radius` is then a lower bound on the radius
    /// (possibly below [`full_sort_past_k`]). True for a radius given.
    pub radius_exact: bool,
}

/// The sequence of kernels for `n` keys of radius `k` (`1 <= k < n`) under `policy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Window path: runs of `2m` inside each window, then the offset level `m`; `tile_out`
    /// outputs per block.
    Window { m: usize, tile_out: usize },
    /// Window sort into runs of `2 * run_half` (in place), then merge passes `(run, offset)`.
    Merge {
        run_half: usize,
        passes: Vec<(usize, usize)>,
        full: bool,
    },
    /// `sort_runs_chained`: runs of a window sorted and merged from half a window, in place.
    Chained,
}

/// Output tiles of the window path are a multiple of this many keys, so that each block's
/// stores start on a 128-byte boundary for 4-byte keys.
const TILE_ALIGN: usize = 32;

pub(crate) fn plan(n: usize, k: usize, policy: &SortPolicy) -> Plan {
    let w = policy.window();
    let items = policy.items_per_thread as usize;
    if k <= w / WINDOW_MAX_K_DIVISOR {
        let tile_out = (w - 2 * k - 1) / TILE_ALIGN * TILE_ALIGN;
        return Plan::Window {
            m: k.next_power_of_two().max(items),
            tile_out,
        };
    }
    // k > w / 8, so m >= w / 4 = the merge tile, which then divides every run and offset.
    let m = k.next_power_of_two();
    if policy.chained && m <= w / 2 && n > w {
        return Plan::Chained;
    }
    let full = m >= n.div_ceil(2);
    let (run_half, mut runs) = if full {
        (w / 2, w)
    } else {
        (m.min(w / 2), (2 * m).min(w))
    };
    let mut passes = Vec::new();
    while runs < n && (full || runs < 2 * m) {
        passes.push((runs, 0));
        runs *= 2;
    }
    if !full {
        passes.push((m, m));
    }
    Plan::Merge {
        run_half,
        passes,
        full,
    }
}

/// One sort's module, policy and sizes.
struct SortCtx<'a> {
    gpu: &'a Gpu,
    module: std::sync::Arc<Module>,
    policy: SortPolicy,
    n: usize,
    flip: u64,
    key_size: usize,
    /// Bytes of a value, or None for keys only.
    value_size: Option<usize>,
}

/// Parameters of one `sort_windows` launch.
struct Windows {
    before: usize,
    after: usize,
    tile_out: usize,
    run_half: usize,
    offset_pass: bool,
    /// The radius to check each window against, and the flag to raise.
    check: Option<(usize, DevicePtr<u32>)>,
}

/// A device address or null, as a kernel argument.
fn ptr_or_null<T>(p: Option<DevicePtr<T>>) -> u64 {
    p.map_or(0, |p| p.addr())
}

impl SortCtx<'_> {
    /// Dynamic shared memory of `sort_windows` and `sort_runs_chained`: the padded window's
    /// slots (each as wide as a key or a value, whichever is wider), plus its 4-byte source
    /// indices with values.
    fn window_shared_bytes(&self) -> usize {
        let slots = padded(self.policy.window(), self.key_size);
        match self.value_size {
            Some(v) => slots * v.max(self.key_size) + slots * 4,
            None => slots * self.key_size,
        }
    }

    /// The arguments `sort_windows` and `merge_pass` begin with: `(in keys, out keys, in values,
    /// out values, n, flip)`.
    fn in_out_args<K, V>(
        &self,
        (in_k, in_v): (DevicePtr<K>, Option<DevicePtr<V>>),
        (out_k, out_v): (DevicePtr<K>, Option<DevicePtr<V>>),
    ) -> KernelArgs {
        let mut args = KernelArgs::new();
        args.ptr(in_k)
            .ptr(out_k)
            .push(ptr_or_null(in_v))
            .push(ptr_or_null(out_v))
            .push(self.n as u64)
            .push(self.flip);
        args
    }

    /// `sort_windows` from (`in_k`, `in_v`) to (`out_k`, `out_v`).
    fn windows<K, V>(
        &self,
        input: (DevicePtr<K>, Option<DevicePtr<V>>),
        output: (DevicePtr<K>, Option<DevicePtr<V>>),
        p: &Windows,
    ) -> Result<()> {
        let shared = self.window_shared_bytes();
        let blocks = self
            .gpu
            .exact_grid(self.n.div_ceil(p.tile_out), "sort_windows")?;
        let kernel = self.module.kernel("sort_windows")?;
        let mut args = self.in_out_args(input, output);
        args.push(p.before as u64)
            .push(p.after as u64)
            .push(p.tile_out as u64)
            .push(p.run_half as u32)
            .push(p.offset_pass as u32)
            .push(p.check.is_some() as u32)
            .push(p.check.map_or(0, |c| c.0) as u64)
            .push(ptr_or_null(p.check.map(|c| c.1)));
        let cfg =
            LaunchConfig::linear(blocks, self.policy.block_threads).with_shared(shared as u32);
        // SAFETY: arguments match `sort_windows(const KEY_T*, KEY_T*, const Value*, Value*, u64,
        // Bits, u64, u64, u64, u32, u32, u32, u64, u32*)`; the key buffers hold n keys and the
        // value buffers (present exactly when the module has HAS_VALUES) n values; block b
        // reads [b * tile_out - before, b * tile_out + tile_out + after) ∩ [0, n) (at most a
        // window: tile_out + before + after <= WINDOW) and writes [b * tile_out, (b + 1) *
        // tile_out) ∩ [0, n); input and output differ unless before == after == 0, when each
        // block reads its whole range before writing it; the flag pointer is valid when
        // checking; the dynamic shared memory is PADDED(WINDOW) slots (+ indices with values).
        unsafe { kernel.launch(cfg, &args) }.map_err(Error::from)
    }

    /// `sort_runs_chained` on `keys` (keys alone), in place.
    fn chained<K>(&self, keys: DevicePtr<K>) -> Result<()> {
        let w = self.policy.window();
        let runs = self.n.div_ceil(w);
        // ticket, then ready[0 .. runs)
        let flags = DeviceBuffer::<u32>::zeroed(self.gpu, runs + 1)?;
        let blocks = self.gpu.exact_grid(runs, "sort_runs_chained")?;
        let shared = self.window_shared_bytes();
        let kernel = self.module.kernel("sort_runs_chained")?;
        let mut args = KernelArgs::new();
        args.ptr(keys)
            .push(self.n as u64)
            .push(self.flip)
            .ptr(flags.ptr())
            .push(flags.ptr().addr() + 4);
        let cfg =
            LaunchConfig::linear(blocks, self.policy.block_threads).with_shared(shared as u32);
        // SAFETY: arguments match `sort_runs_chained(KEY_T*, u64, Bits, u32*, u32*)` of a
        // keys-only module; keys hold n keys; the flags are runs + 1 zeroed words (the ticket,
        // then one per run) and the grid is one block per run, each block taking a distinct
        // ticket < runs, reading and writing keys of its run and the previous one only (see the
        // kernel); a block waits only on the run before its own, whose ticket a running block
        // already holds; the dynamic shared memory is PADDED(WINDOW) keys.
        unsafe { kernel.launch(cfg, &args) }.map_err(Error::from)
    }

    /// One merge pass `(run, offset)` from (`in_k`, `in_v`) to (`out_k`, `out_v`).
    fn merge<K, V>(
        &self,
        input: (DevicePtr<K>, Option<DevicePtr<V>>),
        output: (DevicePtr<K>, Option<DevicePtr<V>>),
        (run, offset): (usize, usize),
        splits: &DeviceBuffer<u64>,
    ) -> Result<()> {
        let tiles = self.n.div_ceil(self.policy.merge_tile());
        let threads = self.policy.merge_threads;
        let partition = self.module.kernel("merge_partition")?;
        let mut args = KernelArgs::new();
        args.ptr(input.0)
            .push(self.n as u64)
            .push(self.flip)
            .push(run as u64)
            .push(offset as u64)
            .push(tiles as u64)
            .ptr(splits.ptr());
        let blocks = self
            .gpu
            .exact_grid(tiles.div_ceil(threads as usize), "merge_partition")?;
        // SAFETY: arguments match `merge_partition(const KEY_T*, u64, Bits, u64, u64, u64,
        // u64*)`; the keys hold n keys, read at indices < n; splits holds `tiles` words and
        // thread b writes index b < tiles only.
        unsafe { partition.launch(LaunchConfig::linear(blocks, threads), &args)? };
        let merge = self.module.kernel("merge_pass")?;
        let mut args = self.in_out_args(input, output);
        args.push(run as u64).push(offset as u64).ptr(splits.ptr());
        let blocks = self.gpu.exact_grid(tiles, "merge_pass")?;
        // SAFETY: arguments match `merge_pass(const KEY_T*, KEY_T*, const Value*, Value*, u64,
        // Bits, u64, u64, const u64*)`; input and output are distinct buffers of n keys (and n
        // values when the module has HAS_VALUES); run and offset are multiples of the merge
        // tile, so block b reads splits[b] (and splits[b + 1] only within its segment, so b + 1
        // < tiles), reads the [x0, x1) share of its segment's runs and writes out[x0, x1).
        unsafe { merge.launch(LaunchConfig::linear(blocks, threads), &args) }.map_err(Error::from)
    }
}

/// A fresh buffer of `n` elements for the pass outputs.
fn scratch<T: sortlab_primitives::DeviceCopy>(gpu: &Gpu, n: usize) -> Result<DeviceBuffer<T>> {
    Ok(DeviceBuffer::<T>::alloc(gpu, n)?)
}

/// Sorts `keys` (and `values`) of radius at most `k` in `order`. With `check`, first makes
/// sure they are `k`-sorted and returns `Ok(None)`, having changed nothing, if not.
fn sort_with<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    mut values: Option<&mut DeviceBuffer<V>>,
    k: usize,
    order: Order,
    check: bool,
) -> Result<Option<RoughPath>> {
    let n = keys.len();
    if let Some(v) = &values {
        check_lengths(n, v.len())?;
    }
    if n < 2 {
        return Ok(Some(RoughPath::AlreadySorted));
    }
    let k = k.min(n - 1);
    if k == 0 {
        if check && !is_k_sorted(gpu, keys, 0, order)? {
            return Ok(None);
        }
        return Ok(Some(RoughPath::AlreadySorted));
    }
    let value_size = values.as_ref().map(|_| V::SIZE);
    let policy = SortPolicy::for_sizes(K::SIZE, value_size.unwrap_or(0), k);
    // (Keyed by what the defines are made of: no defines built and hashed on every call.)
    let module = gpu.module_keyed(
        &SOURCE,
        (std::any::TypeId::of::<K>(), value_size, policy),
        || module_defines::<K>(value_size, &policy),
    )?;
    let ctx = SortCtx {
        gpu,
        module,
        policy,
        n,
        flip: order.flip::<K::Bits>().to_u64(),
        key_size: K::SIZE,
        value_size,
    };
    match plan(n, k, &policy) {
        Plan::Window { m, tile_out } => {
            let mut out_k = scratch::<K>(gpu, n)?;
            let mut out_v = match &values {
                Some(_) => Some(scratch::<V>(gpu, n)?),
                None => None,
            };
            let flag = DeviceBuffer::<u32>::zeroed(gpu, if check { 1 } else { 0 })?;
            let params = Windows {
                before: k + 1,
                after: k,
                tile_out,
                run_half: m,
                offset_pass: true,
                check: check.then(|| (k, flag.ptr())),
            };
            ctx.windows(
                (keys.ptr(), values.as_ref().map(|v| v.ptr())),
                (out_k.ptr(), out_v.as_ref().map(|v| v.ptr())),
                &params,
            )?;
            if check && flag.to_host()?[0] != 0 {
                return Ok(None);
            }
            std::mem::swap(keys, &mut out_k);
            if let (Some(v), Some(o)) = (values.as_deref_mut(), out_v.as_mut()) {
                std::mem::swap(v, o);
            }
            Ok(Some(RoughPath::Window))
        }
        Plan::Chained => {
            if check && !is_k_sorted(gpu, keys, k, order)? {
                return Ok(None);
            }
            ctx.chained(keys.ptr())?;
            Ok(Some(RoughPath::Chained))
        }
        Plan::Merge {
            run_half,
            passes,
            full,
        } => {
            if check && !is_k_sorted(gpu, keys, k, order)? {
                return Ok(None);
            }
            // Scratch first, so that running out of memory leaves the data as it was.
            let (mut tmp_k, mut tmp_v, splits) = if passes.is_empty() {
                (scratch::<K>(gpu, 0)?, None, scratch::<u64>(gpu, 0)?)
            } else {
                let tmp_v = match &values {
                    Some(_) => Some(scratch::<V>(gpu, n)?),
                    None => None,
                };
                let tiles = n.div_ceil(policy.merge_tile());
                (scratch::<K>(gpu, n)?, tmp_v, scratch::<u64>(gpu, tiles)?)
            };
            let user = (keys.ptr(), values.as_ref().map(|v| v.ptr()));
            let params = Windows {
                before: 0,
                after: 0,
                tile_out: policy.window(),
                run_half,
                offset_pass: false,
                check: None,
            };
            ctx.windows(user, user, &params)?;
            let temp = (tmp_k.ptr(), tmp_v.as_ref().map(|v| v.ptr()));
            let mut in_user = true;
            for &pass in &passes {
                let (src, dst) = if in_user { (user, temp) } else { (temp, user) };
                ctx.merge(src, dst, pass, &splits)?;
                in_user = !in_user;
            }
            if !in_user {
                std::mem::swap(keys, &mut tmp_k);
                if let (Some(v), Some(t)) = (values, tmp_v.as_mut()) {
                    std::mem::swap(v, t);
                }
            }
            Ok(Some(if full {
                RoughPath::FullSort
            } else {
                RoughPath::MergePasses
            }))
        }
    }
}

/// Sorts the device keys `keys` in `order`, determining their radius first, and reports the
/// radius and the path taken.
///
/// # Overview
/// [`radius`](crate::radius()) (one read of the keys for radii up to 4096), then the path of
/// the [module documentation](self) for that radius: one pass over the keys for radii up to
/// 1024 (4-byte keys), one chained pass up to 4096, merge passes beyond. O(n log k) work. Past
/// the crossover radius ([`full_sort_past_k`]: 16,384 for 4-byte keys, 4096 for 8-byte keys)
/// `sortlab-gpu-sorts`' radix sort sorts the keys instead ([`RoughPath::Radix`]), the radius
/// pass stopping as soon as it shows the radius may be that large: a nearly sorted input
/// never costs much more than a full sort (one read of the keys more).
///
/// # Key types
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64` in IEEE total order (as [`f32::total_cmp`]:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`), ascending or descending. The
/// result equals `sortlab_cpu_reference::sort::sort` bit for bit.
///
/// # Stability
/// Stable (not observable for keys alone); see [`rough_sort_pairs`].
///
/// # Errors
/// [`Error::Gpu`] for runtime failures (out of device memory: the sort needs one scratch
/// buffer of `n` keys, except on the chained path, which sorts in place; the radix path
/// `sortlab_gpu_sorts::radix::scratch_bytes`, about as much); the keys are then unchanged.
///
/// # Performance
/// NVIDIA H100, 2^28 `u32`, radius included: 5.07x / 3.41x / 2.30x as fast as CUB's radix sort
/// at `k = 16 / 256 / 4096` (the table is in the crate's `README.md`). The result may live in a new allocation (see the module
/// documentation).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// use sortlab_roughsort::{rough_sort, RoughPath};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[1u32, 5, 3, 4, 2, 6])?;
/// let report = rough_sort(&gpu, &mut keys, Order::Ascending)?;
/// assert_eq!((report.radius, report.path), (3, RoughPath::Window));
/// assert_eq!(keys.to_host()?, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
) -> Result<RoughReport> {
    determine_and_sort::<K, u32>(gpu, keys, None, order, Fallback::Auto)
}

/// Sorts device key-value pairs by key in `order`, stably, determining the radius of the keys
/// first.
///
/// # Overview
/// As [`rough_sort`]; `values[i]` travels with `keys[i]`. The crossover to the radix sort is
/// at `k` = 4096 ([`FULL_SORT_PAST_K_PAIRS`]).
///
/// # Key types
/// Keys as [`rough_sort`]; values any [`SortValue`] (4 or 8 bytes), moved and never compared.
///
/// # Stability
/// Stable in both orders: every sort and merge keeps equal keys in input order, and equal keys
/// are never moved past each other by the window path either, and the radix sort past the
/// crossover is stable too; the result equals `sortlab_cpu_reference::sort::sort_pairs`
/// exactly.
///
/// # Errors
/// [`Error::Gpu`] with [`GpuError::InvalidArgument`] when `keys` and `values` differ in
/// length, and for runtime failures; the data is then unchanged.
///
/// # Performance
/// As [`rough_sort`], moving the values once per kernel. The results may live in new
/// allocations (see the module documentation).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// use sortlab_roughsort::rough_sort_pairs;
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[2u32, 1, 2, 1])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3])?;
/// rough_sort_pairs(&gpu, &mut keys, &mut values, Order::Ascending)?;
/// assert_eq!(keys.to_host()?, [1, 1, 2, 2]);
/// assert_eq!(values.to_host()?, [1, 3, 0, 2]);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort_pairs<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<RoughReport> {
    check_lengths(keys.len(), values.len())?;
    determine_and_sort(gpu, keys, Some(values), order, Fallback::Auto)
}

/// Sorts `keys` (and `values`) in `order` by `sortlab-gpu-sorts`' radix sort (fast variant,
/// stable), in place.
fn radix_sort<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    order: Order,
) -> Result<()> {
    let opts = RadixOptions::default().with_order(order);
    match values {
        Some(v) => radix::sort_pairs(gpu, keys, v, &opts)?,
        None => radix::sort_keys(gpu, keys, &opts)?,
    }
    Ok(())
}

/// [`rough_sort`] and [`rough_sort_pairs`] (lengths checked): the radius, stopping early past
/// the crossover under [`Fallback::Auto`], then the rough sort or the radix sort.
fn determine_and_sort<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    order: Order,
    fallback: Fallback,
) -> Result<RoughReport> {
    let value_size = values.as_ref().map(|_| V::SIZE);
    let limit = full_sort_past_k(K::SIZE, value_size);
    let found = match fallback {
        Fallback::Auto => radius_up_to(gpu, keys, order, limit)?,
        Fallback::Never => Found::Exact(radius(gpu, keys, order)?),
    };
    let (k, radius_exact) = match found {
        Found::Exact(k) if fallback == Fallback::Never || k <= limit => {
            let path = sort_with(gpu, keys, values, k, order, false)?;
            return report(k, path, true);
        }
        Found::Exact(k) => (k, true),
        Found::Past { lower } => (lower, false),
    };
    radix_sort(gpu, keys, values, order)?;
    Ok(RoughReport {
        radius: k,
        path: RoughPath::Radix,
        determined: true,
        radius_exact,
    })
}

/// The report of a radix sort for a radius `k` given past the crossover, or None where the
/// rough sort runs ([`Fallback::Never`], or `k` at most the crossover).
fn given_past_crossover<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    k: usize,
    opts: &RoughOptions,
) -> Result<Option<RoughReport>> {
    let value_size = values.as_ref().map(|_| V::SIZE);
    let effective = k.min(keys.len().saturating_sub(1));
    if opts.fallback == Fallback::Never || !prefers_full_sort(effective, K::SIZE, value_size) {
        return Ok(None);
    }
    radix_sort(gpu, keys, values, opts.order)?;
    Ok(Some(RoughReport {
        radius: k,
        path: RoughPath::Radix,
        determined: false,
        radius_exact: true,
    }))
}

/// [`rough_sort`] with the fallback chosen: [`Fallback::Never`] keeps the rough sort's own
/// paths at every radius (the exact radius always determined), for comparisons with the
/// report's algorithm and for measuring the crossover.
///
/// # Overview
/// As [`rough_sort`] (which is this with [`Fallback::Auto`]).
///
/// # Key types
/// As [`rough_sort`].
///
/// # Stability
/// Stable (not observable for keys alone).
///
/// # Errors
/// As [`rough_sort`].
///
/// # Performance
/// With [`Fallback::Never`], the crate's `README.md` crossover table: past the crossover each
/// doubling of the radius adds a merge pass, and the radius needs its wide pass (radii up to
/// 16,384) or its far path (five more passes).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// use sortlab_roughsort::{rough_sort_with_fallback, Fallback, RoughPath};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[5u32, 4, 3, 2, 1])?;
/// let report = rough_sort_with_fallback(&gpu, &mut keys, Order::Ascending, Fallback::Never)?;
/// assert_eq!((report.radius, report.path), (4, RoughPath::Window));
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort_with_fallback<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    order: Order,
    fallback: Fallback,
) -> Result<RoughReport> {
    determine_and_sort::<K, u32>(gpu, keys, None, order, fallback)
}

/// [`rough_sort_pairs`] with the fallback chosen (see [`rough_sort_with_fallback`]).
///
/// # Overview
/// As [`rough_sort_pairs`] (which is this with [`Fallback::Auto`]).
///
/// # Key types
/// As [`rough_sort_pairs`].
///
/// # Stability
/// Stable in both orders, equal to `sortlab_cpu_reference::sort::sort_pairs` exactly.
///
/// # Errors
/// As [`rough_sort_pairs`].
///
/// # Performance
/// See [`rough_sort_with_fallback`].
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu, Order};
/// use sortlab_roughsort::{rough_sort_pairs_with_fallback, Fallback};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[2u32, 1, 2, 1])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u32, 1, 2, 3])?;
/// rough_sort_pairs_with_fallback(&gpu, &mut keys, &mut values, Order::Ascending, Fallback::Never)?;
/// assert_eq!(values.to_host()?, [1, 3, 0, 2]);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort_pairs_with_fallback<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
    fallback: Fallback,
) -> Result<RoughReport> {
    check_lengths(keys.len(), values.len())?;
    determine_and_sort(gpu, keys, Some(values), order, fallback)
}

/// [`GpuError::InvalidArgument`] unless there are as many values as keys.
fn check_lengths(keys: usize, values: usize) -> Result<()> {
    if keys != values {
        return Err(GpuError::InvalidArgument(format!(
            "roughsort of {keys} keys with {values} values"
        ))
        .into());
    }
    Ok(())
}

/// The report of a sort that ran with radius `k`, or an error if it found `k` too small.
fn report(k: usize, path: Option<RoughPath>, determined: bool) -> Result<RoughReport> {
    match path {
        Some(path) => Ok(RoughReport {
            radius: k,
            path,
            determined,
            radius_exact: true,
        }),
        None => Err(Error::RadiusTooSmall { k }),
    }
}

/// Sorts the device keys `keys`, trusting the radius `k` given, and checks it: a too-small `k`
/// never gives a silently unsorted result.
///
/// # Overview
/// The path of the [module documentation](self) for radius `k`, after (merge paths) or while
/// (window path) checking that the keys are `k`-sorted. If they are not, nothing is written
/// and `opts.on_wrong_radius` decides: [`OnWrongRadius::Error`] returns
/// [`Error::RadiusTooSmall`], [`OnWrongRadius::Redetermine`] runs [`rough_sort`] (with
/// `opts.fallback`). A `k` at least the length is the same as `n - 1`. A `k` past the crossover
/// ([`prefers_full_sort`]) with [`Fallback::Auto`] (the default) takes the radix sort at once,
/// without checking `k`: no `k` can make that sort wrong ([`RoughPath::Radix`]).
///
/// # Key types
/// As [`rough_sort`], in `opts.order`.
///
/// # Stability
/// Stable (not observable for keys alone).
///
/// # Errors
/// [`Error::RadiusTooSmall`] as above (never past the crossover with [`Fallback::Auto`]), with
/// the keys exactly as they were (so still a permutation of the input); [`Error::Gpu`] for
/// runtime failures, data unchanged.
///
/// # Performance
/// As [`rough_sort`] without the radius determination; the window path's check costs a block
/// scan per window, the merge paths' check one pass of [`is_k_sorted`].
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// use sortlab_roughsort::{rough_sort_with_radius, Error, OnWrongRadius, RoughOptions};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[1u32, 5, 3, 4, 2, 6])?;
/// let opts = RoughOptions::default();
/// let err = rough_sort_with_radius(&gpu, &mut keys, 2, &opts).unwrap_err();
/// assert_eq!(err, Error::RadiusTooSmall { k: 2 });
/// assert_eq!(keys.to_host()?, [1, 5, 3, 4, 2, 6]);
/// let opts = RoughOptions { on_wrong_radius: OnWrongRadius::Redetermine, ..opts };
/// let report = rough_sort_with_radius(&gpu, &mut keys, 2, &opts)?;
/// assert_eq!((report.radius, report.determined), (3, true));
/// assert_eq!(keys.to_host()?, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort_with_radius<K: SortKey>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    k: usize,
    opts: &RoughOptions,
) -> Result<RoughReport> {
    if let Some(r) = given_past_crossover::<K, u32>(gpu, keys, None, k, opts)? {
        return Ok(r);
    }
    match sort_with::<K, u32>(gpu, keys, None, k, opts.order, true)? {
        Some(path) => report(k, Some(path), false),
        None => match opts.on_wrong_radius {
            OnWrongRadius::Error => Err(Error::RadiusTooSmall { k }),
            OnWrongRadius::Redetermine => {
                determine_and_sort::<K, u32>(gpu, keys, None, opts.order, opts.fallback)
            }
        },
    }
}

/// Sorts device key-value pairs by key, stably, trusting the radius `k` given, and checks it.
///
/// # Overview
/// As [`rough_sort_with_radius`]; `values[i]` travels with `keys[i]`.
///
/// # Key types
/// Keys as [`rough_sort`]; values any [`SortValue`], moved and never compared.
///
/// # Stability
/// Stable in both orders, as [`rough_sort_pairs`].
///
/// # Errors
/// [`Error::RadiusTooSmall`] (with [`OnWrongRadius::Error`]; never past the crossover with
/// [`Fallback::Auto`]), keys and values exactly as they were; [`Error::Gpu`] for mismatched
/// lengths and runtime failures, data unchanged.
///
/// # Performance
/// As [`rough_sort_with_radius`], moving the values once per kernel.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// use sortlab_roughsort::{rough_sort_pairs_with_radius, RoughOptions};
/// let gpu = Gpu::new(0)?;
/// let mut keys = DeviceBuffer::from_host(&gpu, &[2.0f64, 1.0, 3.0])?;
/// let mut values = DeviceBuffer::from_host(&gpu, &[0u64, 1, 2])?;
/// rough_sort_pairs_with_radius(&gpu, &mut keys, &mut values, 1, &RoughOptions::default())?;
/// assert_eq!(values.to_host()?, [1, 0, 2]);
/// # Ok::<(), sortlab_roughsort::Error>(())
/// ```
pub fn rough_sort_pairs_with_radius<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    k: usize,
    opts: &RoughOptions,
) -> Result<RoughReport> {
    check_lengths(keys.len(), values.len())?;
    if let Some(r) = given_past_crossover(gpu, keys, Some(&mut *values), k, opts)? {
        return Ok(r);
    }
    match sort_with(gpu, keys, Some(&mut *values), k, opts.order, true)? {
        Some(path) => report(k, Some(path), false),
        None => match opts.on_wrong_radius {
            OnWrongRadius::Error => Err(Error::RadiusTooSmall { k }),
            OnWrongRadius::Redetermine => {
                determine_and_sort(gpu, keys, Some(values), opts.order, opts.fallback)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policies() -> Vec<SortPolicy> {
        let mut all: Vec<SortPolicy> = Vec::new();
        for (key, value) in [(4, 0), (8, 0), (4, 4), (4, 8), (8, 4), (8, 8)] {
            for k in [1, 31, 32, 4096] {
                let p = SortPolicy::for_sizes(key, value, k);
                if !all.contains(&p) {
                    all.push(p);
                }
            }
        }
        all
    }

    #[test]
    fn plans_keep_the_kernels_preconditions() {
        for policy in policies() {
            let (w, tile) = (policy.window(), policy.merge_tile());
            let items = policy.items_per_thread as usize;
            assert_eq!(4 * tile, w);
            let mut ns: Vec<usize> = vec![2, 3, 100, w - 1, w, w + 1, 3 * w + 5, 1 << 20];
            ns.push((1 << 28) + 3);
            for n in ns {
                let mut ks: Vec<usize> = vec![1, 2, 15, 16, 17, 255, 256, 257];
                ks.extend([w / 8, w / 8 + 1, w / 4, w / 2, w, 4096, 4097, n / 2, n - 1]);
                for k in ks.into_iter().filter(|&k| k >= 1 && k < n) {
                    match plan(n, k, &policy) {
                        Plan::Window { m, tile_out } => {
                            assert!(m >= k && m >= items && m.is_power_of_two());
                            assert!(2 * m <= w / 2, "n {n} k {k}");
                            assert!(tile_out + 2 * k < w && tile_out >= w / 2);
                            assert_eq!(tile_out % TILE_ALIGN, 0);
                        }
                        Plan::Chained => {
                            assert!(policy.chained && k > w / 8 && k <= w / 2 && n > w);
                        }
                        Plan::Merge {
                            run_half,
                            passes,
                            full,
                        } => {
                            let m = k.next_power_of_two();
                            assert!(!policy.chained || m > w / 2 || n <= w);
                            assert!(run_half <= w / 2 && run_half >= items);
                            let mut runs = 2 * run_half;
                            for &(run, offset) in &passes {
                                assert_eq!(run % tile, 0, "n {n} k {k} {passes:?}");
                                assert_eq!(offset % tile, 0, "n {n} k {k} {passes:?}");
                                if offset == 0 {
                                    assert_eq!(run, runs);
                                    runs *= 2;
                                }
                            }
                            if full {
                                assert!(runs >= n, "n {n} k {k} {passes:?}");
                            } else {
                                assert!(runs >= 2 * m && 2 * m < n);
                                assert_eq!(passes.last(), Some(&(m, m)));
                            }
                        }
                    }
                }
            }
        }
    }
}
