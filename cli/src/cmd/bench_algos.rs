//! `sortlab bench radix | approxsort | roughsort`: each algorithm crate's variants on the GPU,
//! keys and key-value pairs, with the device-to-device copy rate of the same bytes measured in
//! the same run as the bound, and the CPU twin beside them up to `CPU_MAX_LEN` (2^24) keys.
//!
//! Timing: three warm-up calls (the first compiles the modules), then `--reps` calls timed with
//! CUDA events over buffers rotated so that no call finds its data in L2
//! ([`super::bench_slots`]), an in-place sort's input restored from a pristine device copy
//! outside the timed region; the median is reported. The last output is checked (sorted, or interval order for
//! the approximate sort) so a wrong result is never reported as a speed.
//!
//! `--algo` picks rows by name ([`Suite::gpu_algos`], [`Suite::cpu_algos`]); an engine none of
//! whose rows is picked is not set up at all.
//!
//! Rows: `op` is `sort_keys` / `sort_pairs` for full sorts (so `scripts/bench-gpu` compares
//! them with CUB DeviceRadixSort SortKeys / SortPairs), `approx_sort_keys` /
//! `approx_sort_pairs` for the approximate sort, `radius` for radius determination. Values of
//! pairs have the key's width (u32 for 4-byte keys, u64 for 8-byte keys), as CUB's anchor.

use std::time::Instant;

use sortlab_approxsort::{self as approxsort, ApproxOptions, ApproxVariant, Intervals};
use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};

use super::bench::{gpu_if, median, parse_common, today, BenchRow};
use super::bench_filter::AlgoFilter;
use super::bench_primitives::gpu_err;
use super::bench_slots::{
    buffers, reserve_room, slot_count, time_copy, time_gpu_rotating, time_gpu_slots, InputSlots,
};
use super::{ms, note, say};
use crate::args::BenchArgs;
use crate::backend::check;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::engine::cpu_description;
use crate::error::CliError;
use crate::io::write_atomic;
use crate::key::CliKey;
use crate::with_key_type;

/// Largest input the CPU twins are timed on (a 2-core machine takes minutes beyond).
const CPU_MAX_LEN: u64 = 1 << 24;

/// The algorithm suites this module runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// `radix`: every [`RadixVariant`], keys and pairs.
    Radix,
    /// `approxsort`: Paper and Fast, equal-width and sampled intervals, keys and pairs, and
    /// the refined (full) sort.
    Approx,
    /// `roughsort`: radius determination and the rough sort.
    Rough,
}

/// The approximate sort's variants and boundaries as the suite times them.
const APPROX_VARIANTS: [ApproxVariant; 2] = [ApproxVariant::Paper, ApproxVariant::Fast];
const APPROX_BOUNDARIES: [Intervals; 2] = [Intervals::EqualWidth, Intervals::Sampled];
/// The refined (full) sort's row: sampled intervals, then `refine`.
const APPROX_REFINE: &str = "approx-refine";
/// The GPU rough sort's rows (radius, keys, pairs).
const ROUGH_GPU: &str = "roughsort";
/// The CPU twins' rows: the rayon radix sort, the approximate sort, the radius (sequential and
/// rayon) and the rayon rough sort.
const RADIX_CPU: &str = "radix";
const APPROX_CPU: &str = "approx";
const ROUGH_SEQ: &str = "roughsort-seq";
const ROUGH_PAR: &str = "roughsort-par";

fn radix_algo(v: RadixVariant) -> String {
    format!("radix-{}", v.name())
}

fn approx_algo(variant: ApproxVariant, boundaries: Intervals) -> String {
    format!("approx-{}-{}", variant.name(), boundaries.name())
}

impl Suite {
    /// The names of the suite's GPU rows (what `--algo` selects), in the order they run.
    pub fn gpu_algos(self) -> Vec<String> {
        match self {
            Suite::Radix => RadixVariant::ALL.into_iter().map(radix_algo).collect(),
            Suite::Approx => APPROX_VARIANTS
                .into_iter()
                .flat_map(|v| APPROX_BOUNDARIES.map(|b| approx_algo(v, b)))
                .chain([APPROX_REFINE.to_string()])
                .collect(),
            Suite::Rough => vec![ROUGH_GPU.to_string()],
        }
    }

    /// The names of the suite's CPU rows.
    pub fn cpu_algos(self) -> Vec<String> {
        let names: &[&str] = match self {
            Suite::Radix => &[RADIX_CPU],
            Suite::Approx => &[APPROX_CPU],
            Suite::Rough => &[ROUGH_SEQ, ROUGH_PAR],
        };
        names.iter().map(|s| s.to_string()).collect()
    }
}

struct Ctx {
    gpu: Option<Gpu>,
    algos: AlgoFilter,
    reps: u32,
    seed: u64,
    order: Order,
    date: String,
    cpu: String,
}

/// Runs `suite` over the types, patterns and sizes of `args`.
pub fn run(suite: Suite, args: &BenchArgs) -> Result<(), CliError> {
    let (types, patterns) = parse_common(args)?;
    let known = [suite.gpu_algos(), suite.cpu_algos()].concat();
    let algos = AlgoFilter::new(args.algo.as_deref(), &known)?;
    let gpu = gpu_if(algos.wants_any(&suite.gpu_algos()));
    let ctx = Ctx {
        gpu,
        algos,
        reps: args.reps,
        seed: args.seed,
        order: args.order,
        date: today(),
        cpu: cpu_description(),
    };
    say(&format!(
        "{:<24} {:<6} {:<17} {:<5} {:<5} {:<15} {:>11} {:>10} {:>9} {:>8}",
        "algo", "engine", "op", "type", "value", "pattern", "n", "ms", "Mkeys/s", "of copy"
    ));
    let mut rows = Vec::new();
    for &t in &types {
        for &p in &patterns {
            for &log2 in &args.sizes {
                let n = 1u64 << log2;
                with_key_type!(t, K => one::<K>(&ctx, suite, p, n, &mut rows)?);
            }
        }
    }
    if let Some(json) = &args.json {
        write_atomic(json, |w| {
            for row in &rows {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n")?;
            }
            Ok(())
        })?;
        note(&format!("wrote {} rows to {}", rows.len(), json.display()));
    }
    Ok(())
}

/// One (type, pattern, size) point of a suite.
fn one<K: CliKey>(
    ctx: &Ctx,
    suite: Suite,
    p: Pattern,
    n: u64,
    rows: &mut Vec<BenchRow>,
) -> Result<(), CliError> {
    let input = generate::<K>(p, n as usize, ctx.seed);
    let mut out = Out {
        ctx,
        rows,
        pattern: p.to_string(),
        n,
        copy_gbps: None,
    };
    if let Some(gpu) = &ctx.gpu {
        let what = format!("benchmarking {suite:?} on {n} {}", K::NAME);
        let d_in = DeviceBuffer::from_host(gpu, &input).map_err(gpu_err(&what))?;
        let t = time_copy(gpu, ctx.reps, &what, &d_in)?;
        out.copy_gbps = Some(gbps(2 * n * K::SIZE as u64, t));
        if K::SIZE == 4 {
            gpu_suite::<K, u32>(gpu, suite, &input, &d_in, &mut out, &what)?;
        } else {
            gpu_suite::<K, u64>(gpu, suite, &input, &d_in, &mut out, &what)?;
        }
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants_any(&suite.cpu_algos()) {
        cpu_suite::<K>(suite, &input, &mut out)?;
    }
    Ok(())
}

/// Where rows go, with the point's fixed fields.
struct Out<'a> {
    ctx: &'a Ctx,
    rows: &'a mut Vec<BenchRow>,
    pattern: String,
    n: u64,
    copy_gbps: Option<f64>,
}

impl Out<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push<K: SortKey>(
        &mut self,
        algo: String,
        engine: &'static str,
        op: &'static str,
        value_type: Option<&'static str>,
        value_size: usize,
        ms: f64,
    ) {
        let bytes = 2 * self.n * (K::SIZE + value_size) as u64;
        let secs = (ms / 1e3).max(f64::MIN_POSITIVE);
        let row = BenchRow {
            tool: "sortlab",
            algo,
            engine,
            op,
            key_type: K::NAME,
            value_type,
            pattern: self.pattern.clone(),
            n: self.n,
            ms,
            keys_per_s: self.n as f64 / secs,
            gbps: bytes as f64 / secs / 1e9,
            bytes,
            device: match (engine, &self.ctx.gpu) {
                ("gpu", Some(g)) => g.info().name.clone(),
                _ => self.ctx.cpu.clone(),
            },
            date: self.ctx.date.clone(),
        };
        let frac = match self.copy_gbps {
            Some(c) if engine == "gpu" && c > 0.0 => format!("{:.2}", row.gbps / c),
            _ => "-".into(),
        };
        say(&format!(
            "{:<24} {:<6} {:<17} {:<5} {:<5} {:<15} {:>11} {:>10.4} {:>9.1} {:>8}",
            row.algo,
            row.engine,
            row.op,
            row.key_type,
            row.value_type.unwrap_or("-"),
            row.pattern,
            row.n,
            row.ms,
            row.keys_per_s / 1e6,
            frac
        ));
        self.rows.push(row);
    }
}

fn gbps(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms / 1e3).max(f64::MIN_POSITIVE) / 1e9
}

/// Median of `reps` timed calls of `f` on `work`, restored from `input` before each (untimed).
pub(crate) fn time_cpu<K: Copy>(
    reps: u32,
    input: &[K],
    work: &mut [K],
    mut f: impl FnMut(&mut [K]),
) -> f64 {
    work.copy_from_slice(input);
    f(work);
    let mut t = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        work.copy_from_slice(input);
        let s = Instant::now();
        f(work);
        t.push(ms(s.elapsed()));
    }
    median(&mut t)
}

/// A [`CliError::WrongResult`] for `what`.
pub(crate) fn wrong(what: &str, message: impl std::fmt::Display) -> CliError {
    CliError::WrongResult {
        what: what.to_string(),
        message: message.to_string(),
    }
}

/// Keys sorted in `order`, and (for pairs with index values) stable.
fn check_sorted_pairs<K: SortKey, V: SortValue + Into<u64>>(
    keys: &[K],
    values: Option<&[V]>,
    order: Order,
    what: &str,
) -> Result<(), CliError> {
    check::check_sorted(keys, order).map_err(|e| wrong(what, e))?;
    if let Some(v) = values {
        for i in 1..keys.len() {
            if keys[i].to_ordered_bits() == keys[i - 1].to_ordered_bits()
                && v[i].into() <= v[i - 1].into()
            {
                return Err(wrong(what, format!("not stable at index {i}")));
            }
        }
    }
    Ok(())
}

/// Index values 0..n in the value type.
fn index_values<V: SortValue + TryFrom<u64>>(n: usize) -> Vec<V> {
    (0..n as u64).filter_map(|i| V::try_from(i).ok()).collect()
}

fn gpu_suite<K: CliKey, V: SortValue + TryFrom<u64> + Into<u64>>(
    gpu: &Gpu,
    suite: Suite,
    input: &[K],
    d_in: &DeviceBuffer<K>,
    out: &mut Out<'_>,
    what: &str,
) -> Result<(), CliError> {
    let n = input.len();
    let order = out.ctx.order;
    let reps = out.ctx.reps;
    let err = gpu_err(what);
    let vals = index_values::<V>(n);
    let d_vals = DeviceBuffer::from_host(gpu, &vals).map_err(&err)?;
    // Rotating slots (bench_slots): `k1` of keys alone, `k2` of keys and values, twice that
    // for calls with a separate input and output.
    let (kb, vb) = (n * K::SIZE, n * V::SIZE);
    let k1 = slot_count(gpu, kb);
    let k2 = slot_count(gpu, kb + vb);
    // The rows' slots, and scratch for keys and values twice over.
    reserve_room(gpu, (k1 + 2 * k2 + 2) * (kb + vb), what)?;
    let vname = if V::SIZE == 4 { "u32" } else { "u64" };
    match suite {
        Suite::Radix => {
            let mut keys = buffers::<K>(gpu, n, k1, what)?;
            let mut values = buffers::<V>(gpu, n, k2, what)?;
            for v in RadixVariant::ALL {
                let algo = radix_algo(v);
                if !out.ctx.algos.wants(&algo) {
                    continue;
                }
                let opts = RadixOptions::default().with_order(order).with_variant(v);
                let (t, last) = time_gpu_slots(gpu, reps, what, k1, |s, restore| {
                    if restore {
                        keys[s].copy_from_device(d_in)
                    } else {
                        radix::sort_keys(gpu, &mut keys[s], &opts)
                    }
                })?;
                let got = keys[last].to_host().map_err(&err)?;
                check_sorted_pairs::<K, V>(&got, None, order, &algo)?;
                out.push::<K>(algo.clone(), "gpu", "sort_keys", None, 0, t);
                let (t, last) = time_gpu_slots(gpu, reps, what, k2, |s, restore| {
                    if restore {
                        keys[s].copy_from_device(d_in)?;
                        values[s].copy_from_device(&d_vals)
                    } else {
                        radix::sort_pairs(gpu, &mut keys[s], &mut values[s], &opts)
                    }
                })?;
                let (k, vv) = (
                    keys[last].to_host().map_err(&err)?,
                    values[last].to_host().map_err(&err)?,
                );
                check_sorted_pairs(&k, Some(&vv), order, &algo)?;
                out.push::<K>(algo, "gpu", "sort_pairs", Some(vname), V::SIZE, t);
            }
        }
        Suite::Approx => {
            // The approximate sorts leave their input as it is: slots of inputs too.
            let ka = slot_count(gpu, 2 * kb);
            let kp = slot_count(gpu, 2 * (kb + vb));
            let in_keys = InputSlots::new(gpu, d_in, ka, what)?;
            let in_vals = InputSlots::new(gpu, &d_vals, kp, what)?;
            // k1 >= ka, kp: enough output slots for every row of the suite.
            let mut keys = buffers::<K>(gpu, n, k1, what)?;
            let mut values = buffers::<V>(gpu, n, kp, what)?;
            for variant in APPROX_VARIANTS {
                for boundaries in APPROX_BOUNDARIES {
                    let algo = approx_algo(variant, boundaries);
                    if !out.ctx.algos.wants(&algo) {
                        continue;
                    }
                    let opts = ApproxOptions {
                        order,
                        variant,
                        boundaries,
                        ..ApproxOptions::default()
                    };
                    let mut result = None;
                    let (t, last) = time_gpu_rotating(gpu, reps, what, ka, |s| {
                        let r =
                            approxsort::approx_sort_into(gpu, in_keys.get(s), &mut keys[s], &opts)?;
                        result = Some(r);
                        Ok(())
                    })?;
                    let r = result.ok_or_else(|| wrong(&algo, "no result"))?;
                    let bounds = r.boundaries_host().map_err(&err)?;
                    let got = keys[last].to_host().map_err(&err)?;
                    check::check_interval_order(&got, &bounds, order)
                        .map_err(|e| wrong(&algo, e))?;
                    let (non_empty, largest) = r.interval_stats().map_err(&err)?;
                    note(&format!(
                        "{algo}: {} intervals, {non_empty} non-empty, largest {largest} keys",
                        opts.intervals
                    ));
                    out.push::<K>(algo.clone(), "gpu", "approx_sort_keys", None, 0, t);
                    let (t, _) = time_gpu_rotating(gpu, reps, what, kp, |s| {
                        approxsort::approx_sort_pairs_into(
                            gpu,
                            in_keys.get(s),
                            in_vals.get(s),
                            &mut keys[s],
                            &mut values[s],
                            &opts,
                        )
                        .map(|_| ())
                    })?;
                    out.push::<K>(algo, "gpu", "approx_sort_pairs", Some(vname), V::SIZE, t);
                }
            }
            // The refined (full) sort: approximate sort with sampled intervals, then refine.
            if out.ctx.algos.wants(APPROX_REFINE) {
                let opts = ApproxOptions {
                    order,
                    boundaries: Intervals::Sampled,
                    ..ApproxOptions::default()
                };
                let (t, last) = time_gpu_slots(gpu, reps, what, k1, |s, restore| {
                    if restore {
                        return keys[s].copy_from_device(d_in);
                    }
                    let r = approxsort::approx_sort(gpu, &mut keys[s], &opts)?;
                    approxsort::refine(gpu, &mut keys[s], &r).map(|_| ())
                })?;
                let got = keys[last].to_host().map_err(&err)?;
                check_sorted_pairs::<K, V>(&got, None, order, APPROX_REFINE)?;
                out.push::<K>(APPROX_REFINE.into(), "gpu", "sort_keys", None, 0, t);
            }
        }
        Suite::Rough => {
            let mut keys = buffers::<K>(gpu, n, k1, what)?;
            let mut values = buffers::<V>(gpu, n, k2, what)?;
            // The radius reads its input only: its slots are the sort's, restored once.
            for b in keys.iter_mut() {
                b.copy_from_device(d_in).map_err(&err)?;
            }
            let mut k = 0;
            let (t, _) = time_gpu_rotating(gpu, reps, what, k1, |s| {
                k = sortlab_roughsort::radius(gpu, &keys[s], order).map_err(rough_err)?;
                Ok(())
            })?;
            let want = sortlab_cpu_reference::rough::radius(input, order);
            if k != want {
                return Err(wrong("roughsort radius", format!("{k}, expected {want}")));
            }
            out.push::<K>(ROUGH_GPU.into(), "gpu", "radius", None, 0, t);
            let mut path = None;
            let (t, last) = time_gpu_slots(gpu, reps, what, k1, |s, restore| {
                if restore {
                    return keys[s].copy_from_device(d_in);
                }
                let r =
                    sortlab_roughsort::rough_sort(gpu, &mut keys[s], order).map_err(rough_err)?;
                path = Some(r.path);
                Ok(())
            })?;
            let got = keys[last].to_host().map_err(&err)?;
            check_sorted_pairs::<K, V>(&got, None, order, ROUGH_GPU)?;
            note(&format!("roughsort: radius {k}, path {path:?}"));
            out.push::<K>(ROUGH_GPU.into(), "gpu", "sort_keys", None, 0, t);
            let (t, _) = time_gpu_slots(gpu, reps, what, k2, |s, restore| {
                if restore {
                    keys[s].copy_from_device(d_in)?;
                    return values[s].copy_from_device(&d_vals);
                }
                sortlab_roughsort::rough_sort_pairs(gpu, &mut keys[s], &mut values[s], order)
                    .map(|_| ())
                    .map_err(rough_err)
            })?;
            out.push::<K>(
                ROUGH_GPU.into(),
                "gpu",
                "sort_pairs",
                Some(vname),
                V::SIZE,
                t,
            );
        }
    }
    Ok(())
}

/// A roughsort error as a runtime error (its GPU error, or an invalid-argument one).
pub(crate) fn rough_err(e: sortlab_roughsort::Error) -> sortlab_primitives::Error {
    match e {
        sortlab_roughsort::Error::Gpu(e) => e,
        other => sortlab_primitives::Error::InvalidArgument(other.to_string()),
    }
}

fn cpu_suite<K: CliKey>(suite: Suite, input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
    use sortlab_cpu_reference as cref;
    let order = out.ctx.order;
    let reps = out.ctx.reps;
    let mut work = input.to_vec();
    match suite {
        Suite::Radix => {
            let t = time_cpu(reps, input, &mut work, |work| {
                cref::radix::sort_keys(work, order)
            });
            check::check_sorted(&work, order).map_err(|e| wrong("cpu radix", e))?;
            out.push::<K>(RADIX_CPU.into(), "cpu", "sort_keys", None, 0, t);
        }
        Suite::Approx => {
            let opts = cref::approx::ApproxOptions {
                order,
                ..cref::approx::ApproxOptions::default()
            };
            let mut ok = true;
            let t = time_cpu(reps, input, &mut work, |work| {
                ok &= cref::approx::approx_sort(work, &opts).is_ok()
            });
            if !ok {
                return Err(wrong("cpu approx_sort", "returned an error"));
            }
            out.push::<K>(APPROX_CPU.into(), "cpu", "approx_sort_keys", None, 0, t);
        }
        Suite::Rough => {
            if out.ctx.algos.wants(ROUGH_SEQ) {
                let t = time_cpu(reps, input, &mut work, |w| {
                    std::hint::black_box(cref::rough::radius(w, order));
                });
                out.push::<K>(ROUGH_SEQ.into(), "cpu", "radius", None, 0, t);
            }
            if out.ctx.algos.wants(ROUGH_PAR) {
                let t = time_cpu(reps, input, &mut work, |w| {
                    std::hint::black_box(cref::rough::radius_par(w, order));
                });
                out.push::<K>(ROUGH_PAR.into(), "cpu", "radius", None, 0, t);
                let t = time_cpu(reps, input, &mut work, |work| {
                    cref::rough::rough_sort_par(work, order);
                });
                check::check_sorted(&work, order).map_err(|e| wrong("cpu roughsort", e))?;
                out.push::<K>(ROUGH_PAR.into(), "cpu", "sort_keys", None, 0, t);
            }
        }
    }
    Ok(())
}
