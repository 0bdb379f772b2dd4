//! The approximate sort's entry points: in place (allocating), into an output buffer, with
//! caller-supplied scratch, keys and key-value pairs. [`plan`] chooses the kernels, [`run`]
//! launches them.

mod plan;
mod run;

use sortlab_primitives::{DeviceBuffer, Error, Gpu, Result, Scratch, SortKey, SortValue};

use crate::kernels::Kernels;
use crate::options::{self, ApproxOptions, Intervals};
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
    options::validate(opts)?;
    Ok(Layout::<K, u32>::new(n, opts, false, true)?.bytes)
}

/// Bytes of scratch memory [`approx_sort_pairs_with_scratch`] needs for `n` pairs.
///
/// Errors: as [`scratch_bytes`].
pub fn scratch_bytes_pairs<K: SortKey, V: SortValue>(
    n: usize,
    opts: &ApproxOptions,
) -> Result<usize> {
    options::validate(opts)?;
    Ok(Layout::<K, V>::new(n, opts, true, true)?.bytes)
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

/// Checks the options and the length of the values (if any); whether there are values.
fn check_call<V: SortValue>(
    opts: &ApproxOptions,
    n: usize,
    values: Option<&DeviceBuffer<V>>,
) -> Result<bool> {
    options::validate(opts)?;
    if let Some(v) = values {
        check_len("values", n, v.len())?;
    }
    Ok(values.is_some())
}

/// The module and plan of one call.
fn prepare<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    n: usize,
    with_values: bool,
    opts: &ApproxOptions,
    policy: ApproxPolicy,
) -> Result<(Kernels, Plan)> {
    let kern = Kernels::new::<K>(gpu, with_values.then_some(V::SIZE), n, policy)?;
    let plan = plan(&kern, n, opts)?;
    Ok((kern, plan))
}

/// [`run`], after building the splitters of [`Intervals::Sampled`] into the workspace (the
/// sample is itself sorted by [`approx_sort`] and [`refine`]).
fn execute<K: SortKey, V: SortValue>(
    kern: &Kernels,
    plan: Plan,
    io: Io<'_, K>,
    opts: &ApproxOptions,
    ws: &DeviceBuffer<u8>,
    layout: &Layout<K, V>,
) -> Result<ApproxResult> {
    if plan != Plan::Empty && opts.boundaries == Intervals::Sampled {
        let at = layout.splitters.ptr(ws).addr();
        let flip = opts.order.flip::<K::Bits>();
        build_splitters(kern, io.keys_in, opts, flip, at, |sample, sort_opts| {
            let r = approx_sort(&kern.gpu, sample, sort_opts)?;
            refine(&kern.gpu, sample, &r).map(|_| ())
        })?;
    }
    run(kern, plan, io, opts, ws, layout)
}

fn default_policy<K: SortKey, V: SortValue>(gpu: &Gpu, with_values: bool) -> ApproxPolicy {
    ApproxPolicy::for_device(gpu, K::SIZE, if with_values { V::SIZE } else { 0 })
}

/// The device address of the values, 0 for keys alone.
fn addr<V: SortValue>(values: Option<&DeviceBuffer<V>>) -> u64 {
    values.map_or(0, |v| v.ptr().addr())
}

/// [`approx_sort`] and [`approx_sort_pairs`] (`values` `None`: keys alone): the two-pass scatter
/// goes through the workspace and back into the caller's buffers; one pass scatters into new
/// buffers that replace them.
fn sort_in_place<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &ApproxOptions,
) -> Result<ApproxResult> {
    let n = keys.len();
    let with_values = check_call(opts, n, values.as_deref())?;
    let policy = default_policy::<K, V>(gpu, with_values);
    let (kern, plan) = prepare::<K, V>(gpu, n, with_values, opts, policy)?;
    let two = plan.two_pass();
    let vals = addr(values.as_deref());
    // One pass: new output buffers (values: none for keys alone).
    let mut out = if two {
        None
    } else {
        let out_k = DeviceBuffer::<K>::alloc(gpu, n)?;
        let out_v = DeviceBuffer::<V>::alloc(gpu, if with_values { n } else { 0 })?;
        Some((out_k, out_v))
    };
    let layout = Layout::<K, V>::new(n, opts, with_values, two)?;
    let ws = Scratch::get(gpu, None, layout.bytes, "approx_sort")?;
    let (tmp_keys, tmp_vals) = layout.tmp(ws.buffer());
    let (keys_out, vals_out) = match &out {
        None => (keys.ptr().addr(), vals),
        Some((k, v)) => (k.ptr().addr(), if with_values { v.ptr().addr() } else { 0 }),
    };
    let io = Io {
        keys_in: keys,
        vals_in: vals,
        keys_out,
        vals_out,
        tmp_keys,
        tmp_vals,
    };
    let r = execute(&kern, plan, io, opts, ws.buffer(), &layout)?;
    if let Some((out_k, out_v)) = out.as_mut() {
        std::mem::swap(keys, out_k);
        if let Some(v) = values {
            std::mem::swap(v, out_v);
        }
    }
    Ok(r)
}

/// [`approx_sort_into_with_policy`] and [`approx_sort_pairs_into_with_policy`] (values `None`:
/// keys alone).
fn sort_into<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    values_in: Option<&DeviceBuffer<V>>,
    keys_out: &mut DeviceBuffer<K>,
    values_out: Option<&mut DeviceBuffer<V>>,
    opts: &ApproxOptions,
    policy: ApproxPolicy,
) -> Result<ApproxResult> {
    let n = keys_in.len();
    let with_values = check_call(opts, n, values_in)?;
    let what = if with_values { "output keys" } else { "output" };
    check_len(what, n, keys_out.len())?;
    if let Some(v) = &values_out {
        check_len("output values", n, v.len())?;
    }
    let (kern, plan) = prepare::<K, V>(gpu, n, with_values, opts, policy)?;
    let layout = Layout::<K, V>::new(n, opts, with_values, plan.two_pass())?;
    let ws = Scratch::get(gpu, None, layout.bytes, "approx_sort_into")?;
    let (tmp_keys, tmp_vals) = layout.tmp(ws.buffer());
    let io = Io {
        keys_in,
        vals_in: addr(values_in),
        keys_out: keys_out.ptr().addr(),
        vals_out: addr(values_out.as_deref()),
        tmp_keys,
        tmp_vals,
    };
    execute(&kern, plan, io, opts, ws.buffer(), &layout)
}

/// [`approx_sort_with_scratch`] and [`approx_sort_pairs_with_scratch`] (values `None`: keys
/// alone): the two-pass scatter goes through the scratch and back; one pass scatters into the
/// scratch, then copies back.
fn sort_with_scratch<K: SortKey, V: SortValue>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<V>>,
    opts: &ApproxOptions,
    scratch: &mut DeviceBuffer<u8>,
) -> Result<ApproxResult> {
    let n = keys.len();
    let with_values = check_call(opts, n, values.as_deref())?;
    let layout = Layout::<K, V>::new(n, opts, with_values, true)?;
    let ws = Scratch::get(gpu, Some(scratch), layout.bytes, "approx_sort_with_scratch")?;
    let policy = default_policy::<K, V>(gpu, with_values);
    let (kern, plan) = prepare::<K, V>(gpu, n, with_values, opts, policy)?;
    let (tk, tv) = layout.tmp(ws.buffer());
    let two = plan.two_pass();
    let (dk, dv) = (keys.ptr().addr(), addr(values.as_deref()));
    let io = Io {
        keys_in: keys,
        vals_in: dv,
        keys_out: if two { dk } else { tk },
        vals_out: if two { dv } else { tv },
        tmp_keys: tk,
        tmp_vals: tv,
    };
    let r = execute(&kern, plan, io, opts, ws.buffer(), &layout)?;
    if n > 0 && !two {
        copy_back(&kern, tk, tv, dk, dv, n)?;
    }
    Ok(r)
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
    sort_in_place::<K, u32>(gpu, keys, None, opts)
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
    sort_in_place(gpu, keys, Some(values), opts)
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
    approx_sort_into_with_policy(
        gpu,
        input,
        output,
        opts,
        default_policy::<K, u32>(gpu, false),
    )
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
    sort_into::<K, u32>(gpu, input, None, output, None, opts, policy)
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
        default_policy::<K, V>(gpu, true),
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
    sort_into(
        gpu,
        keys_in,
        Some(values_in),
        keys_out,
        Some(values_out),
        opts,
        policy,
    )
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
    sort_with_scratch::<K, u32>(gpu, keys, None, opts, scratch)
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
    sort_with_scratch(gpu, keys, Some(values), opts, scratch)
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
    options::validate(opts)?;
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
    options::validate(opts)?;
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
