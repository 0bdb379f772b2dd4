//! The approximate sort's entry points: in place (allocating), into an output buffer, with
//! caller-supplied scratch, keys and key-value pairs. [`plan`] chooses the kernels, [`run`]
//! launches them.

mod plan;
mod run;

use sortlab_primitives::{DeviceBuffer, Error, Gpu, Result, SortKey, SortValue};

use crate::kernels::{value_type, Kernels};
use crate::options::{ApproxOptions, Intervals};
use crate::policy::ApproxPolicy;
use crate::refine::refine;
use crate::result::ApproxResult;
use crate::sample::build_splitters;
use plan::{plan, Layout, Plan};
use run::{copy_back, run, Io};

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

fn check_len(what: &str, expected: usize, actual: usize) -> Result<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{what}: {actual} elements where {expected} are needed"
        )))
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

/// [`run`], after building the splitters of [`Intervals::Sampled`] into the workspace (the
/// sample is itself sorted by [`approx_sort`] and [`refine`]).
fn execute<K: SortKey>(
    kern: &Kernels,
    plan: Plan,
    io: Io<'_, K>,
    opts: &ApproxOptions,
    ws: u64,
    layout: &Layout,
) -> Result<ApproxResult> {
    if plan != Plan::Empty && opts.boundaries == Intervals::Sampled {
        let at = ws + layout.splitters as u64;
        let flip = opts.order.flip::<K::Bits>();
        build_splitters(kern, io.keys_in, opts, flip, at, |sample, sort_opts| {
            let r = approx_sort(&kern.gpu, sample, sort_opts)?;
            refine(&kern.gpu, sample, &r).map(|_| ())
        })?;
    }
    run(kern, plan, io, opts, ws, layout)
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
        return execute(&kern, plan, io, opts, w, &layout);
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
    let r = execute(&kern, plan, io, opts, ws.ptr().addr(), &layout)?;
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
        return execute(&kern, plan, io, opts, w, &layout);
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
    let r = execute(&kern, plan, io, opts, ws.ptr().addr(), &layout)?;
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
    execute(&kern, plan, io, opts, w, &layout)
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
    execute(&kern, plan, io, opts, w, &layout)
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
    let r = execute(&kern, plan, io, opts, ws, &layout)?;
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
    let r = execute(&kern, plan, io, opts, ws, &layout)?;
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
