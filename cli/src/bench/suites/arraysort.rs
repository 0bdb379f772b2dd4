//! `sortlab bench arraysort`: many small arrays sorted independently: every [`ArrayVariant`] on
//! the GPU (keys, and pairs with index values), the rayon twin on the CPU, over the two array
//! layouts of CUB's `DeviceSegmentedSort` anchor (`bench/anchors/segmented_keys.cu`), so that
//! `scripts/bench-gpu` prints the ratio:
//!
//! - `segments-1000`: arrays of 1000 keys (the last one shorter);
//! - `segments-varying`: lengths log-uniform in `[1, 4096]` (`floor(2^(12u))`, mean about 490),
//!   from the same hash as the anchor's;
//! - `segments-powerlaw`: Pareto lengths of mean 1024 (`ceil(512 / sqrt(u))`, `u` in `(0, 1]`:
//!   at least 512, a tail that puts 1/8 of the keys in arrays longer than 4096), as `sortlab gen
//!   --arrays power-law:1024` draws them, from the anchor's hash.
//!
//! Keys follow `--pattern` inside the arrays (uniform by default, as the anchor's); a row's
//! pattern is the layout's name, with `/PATTERN` added for other key patterns. Rows: op
//! `sort_arrays` (keys) and `sort_arrays_pairs` (u32 values for 4-byte keys, u64 for 8-byte).
//! Every last output is checked: each array sorted and a permutation of its input, pairs
//! stable.
//!
//! The per-array top-k has its own layout, `rows-32768` (rows of 32,768 keys, the shape of
//! `torch.topk` over rows of logits): ops `top_k` and `top_k_pairs` (index values) keep the
//! first 64 of every row in the order, on both paths (`arraysort-topk-select`,
//! `arraysort-topk-sort`) and on the CPU twin (`arrays-topk`); every last output equals the
//! twin's.

use sortlab_arraysort::{self as arraysort, ArrayOptions, ArrayVariant, Segments};
use sortlab_arraysort::{TopKOptions, TopKPath};
use sortlab_cpu_reference::{arrays, top_k};
use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};
use sortlab_verify::seed::splitmix64;

use crate::args::BenchArgs;
use crate::backend::check;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{gbps, wrong, BenchRow};
use crate::bench::setup::{write_rows, Run};
use crate::bench::timing::{
    buffers, gpu_err, reserve_room, slot_count, time_copy, time_gpu_rotating, time_gpu_slots,
    InputSlots,
};
use crate::cmd::say;
use crate::error::CliError;
use crate::key::CliKey;
use crate::with_key_type;

use super::point::Out;

/// The array layouts, by the names of CUB's anchor patterns.
const LAYOUTS: [&str; 3] = ["segments-1000", "segments-varying", "segments-powerlaw"];
/// The CPU twin's row.
const CPU: &str = "arrays";
/// The top-k's layout: rows of [`ROW_LEN`] keys.
const ROWS: &str = "rows-32768";
/// Keys per row of [`ROWS`].
const ROW_LEN: u64 = 32_768;
/// Keys kept per row.
const TOP_K: usize = 64;
/// The CPU twin's top-k row.
const CPU_TOP_K: &str = "arrays-topk";
/// Largest input the CPU twin is timed on.
const CPU_MAX_LEN: u64 = 1 << 24;
/// The anchor's seed of the varying lengths (`cub_anchors --seed` default).
const LAYOUT_SEED: u64 = 0x5EED;

fn algo(v: ArrayVariant) -> String {
    format!("arraysort-{}", v.name())
}

fn top_k_algo(p: TopKPath) -> String {
    format!("arraysort-topk-{}", p.name())
}

/// The GPU rows, in the order they run.
fn gpu_names() -> Vec<String> {
    let sorts = ArrayVariant::ALL.into_iter().map(algo);
    sorts
        .chain(TopKPath::ALL.into_iter().map(top_k_algo))
        .collect()
}

/// The offsets (arrays + 1, first 0, last `n`) of `layout` over `n` keys, as the anchor's.
fn layout_offsets(layout: &str, n: u64) -> Vec<u64> {
    let mut offsets = vec![0u64];
    let (mut pos, mut i) = (0u64, 0u64);
    while pos < n {
        let len = if layout == LAYOUTS[0] {
            1000
        } else if layout == ROWS {
            ROW_LEN
        } else if layout == LAYOUTS[2] {
            // u in (0, 1]: the length is finite.
            let u = ((splitmix64(LAYOUT_SEED ^ 0x50_7E4A_u64.wrapping_add(i)) >> 11) + 1) as f64
                * (1.0 / 9_007_199_254_740_992.0);
            (512.0 / u.sqrt()).ceil() as u64
        } else {
            // splitmix64 is the anchors' `mix64` (patterns.cuh).
            let u = (splitmix64(LAYOUT_SEED ^ 0xAB_CDEF_u64.wrapping_add(i)) >> 11) as f64
                * (1.0 / 9_007_199_254_740_992.0);
            ((12.0 * u).exp2().floor() as u64).max(1)
        };
        pos = (pos + len).min(n);
        offsets.push(pos);
        i += 1;
    }
    offsets
}

/// Runs the suite over the types, patterns and sizes of `args`.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let known = [gpu_names(), vec![CPU.to_string(), CPU_TOP_K.to_string()]].concat();
    let ctx = Run::new(args, &known, &gpu_names())?;
    say(&format!(
        "{:<24} {:<6} {:<17} {:<5} {:<5} {:<24} {:>11} {:>10} {:>9} {:>8}",
        "algo", "engine", "op", "type", "value", "pattern", "n", "ms", "Mkeys/s", "of copy"
    ));
    let mut rows = Vec::new();
    for (t, p, n) in ctx.points() {
        for layout in LAYOUTS.into_iter().chain([ROWS]) {
            with_key_type!(t, K => one::<K>(&ctx, layout, p, n, &mut rows)?);
        }
    }
    write_rows(args, &rows)
}

/// One (type, layout, key pattern, size) point.
fn one<K: CliKey>(
    ctx: &Run,
    layout: &str,
    p: Pattern,
    n: u64,
    rows: &mut Vec<BenchRow>,
) -> Result<(), CliError> {
    let input = generate::<K>(p, n as usize, ctx.seed);
    let offsets = layout_offsets(layout, n);
    let pattern = if p == Pattern::Uniform {
        layout.to_string()
    } else {
        format!("{layout}/{p}")
    };
    let mut out = Out {
        ctx,
        rows,
        pattern,
        n,
        copy_gbps: None,
    };
    if layout == ROWS {
        return top_k_rows(&input, &offsets, &mut out);
    }
    if let Some(gpu) = &ctx.gpu {
        if K::SIZE == 4 {
            gpu_rows::<K, u32>(gpu, &input, &offsets, &mut out)?;
        } else {
            gpu_rows::<K, u64>(gpu, &input, &offsets, &mut out)?;
        }
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants(CPU) {
        let order = ctx.order;
        let work = &mut input.to_vec()[..];
        let t = out.time_cpu(&input, work, |w| {
            // The offsets were built valid: the twin cannot refuse them.
            let _ = arrays::sort_arrays(w, &offsets, order);
        });
        check_arrays::<K, u32>(&input, work, None, &offsets, order, CPU)?;
        out.push::<K>(CPU.into(), "cpu", "sort_arrays", None, 0, t);
    }
    Ok(())
}

/// Each array of `keys` sorted in `order` and a permutation of its input; with index `values`,
/// each value the position of an equal input key in its array, stably.
fn check_arrays<K: SortKey, V: SortValue + Into<u64>>(
    input: &[K],
    keys: &[K],
    values: Option<&[V]>,
    offsets: &[u64],
    order: Order,
    what: &str,
) -> Result<(), CliError> {
    let cuts: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    check::check_arrays_sorted(keys, &cuts, order).map_err(|e| wrong(what, e))?;
    arrays::check_arrays_permutation(input, keys, offsets).map_err(|e| wrong(what, e))?;
    let Some(values) = values else {
        return Ok(());
    };
    for w in cuts.windows(2) {
        for i in w[0]..w[1] {
            let v = usize::try_from(values[i].into()).unwrap_or(usize::MAX);
            let follows = (w[0]..w[1]).contains(&v)
                && input[v].to_ordered_bits() == keys[i].to_ordered_bits();
            let stable = i == w[0]
                || keys[i - 1].to_ordered_bits() != keys[i].to_ordered_bits()
                || values[i - 1].into() < values[i].into();
            if !follows || !stable {
                return Err(wrong(
                    what,
                    format!("value at {i} does not follow its key stably"),
                ));
            }
        }
    }
    Ok(())
}

/// The GPU rows of one point, values `V` (the key's width) for pairs.
fn gpu_rows<K: CliKey, V: SortValue + TryFrom<u64> + Into<u64>>(
    gpu: &Gpu,
    input: &[K],
    offsets: &[u64],
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let n = input.len();
    let what = format!("benchmarking arraysort on {n} {}", K::NAME);
    let err = gpu_err(&what);
    let (order, reps) = (out.ctx.order, out.ctx.reps);
    let d_in = DeviceBuffer::from_host(gpu, input).map_err(&err)?;
    let t = time_copy(gpu, reps, &what, &d_in)?;
    out.copy_gbps = Some(gbps(2 * n as u64 * K::SIZE as u64, t));
    let vals: Vec<V> = (0..n as u64).filter_map(|i| V::try_from(i).ok()).collect();
    let d_vals = DeviceBuffer::from_host(gpu, &vals).map_err(&err)?;
    let d_offsets = DeviceBuffer::from_host(gpu, offsets).map_err(&err)?;
    let (kb, vb) = (n * K::SIZE, n * V::SIZE);
    let (k1, k2) = (slot_count(gpu, 2 * kb), slot_count(gpu, 2 * (kb + vb)));
    reserve_room(gpu, (k1 + k2 + 4) * (kb + vb), &what)?;
    let mut keys = buffers::<K>(gpu, n, k1.max(k2), &what)?;
    let mut values = buffers::<V>(gpu, n, k2, &what)?;
    for v in ArrayVariant::ALL {
        let name = algo(v);
        if !out.ctx.algos.wants(&name) {
            continue;
        }
        let opts = ArrayOptions::default().with_order(order).with_variant(v);
        let segments = Segments::Offsets64(&d_offsets);
        let (t, last) = time_gpu_slots(gpu, reps, &what, k1, |s, restore| {
            if restore {
                keys[s].copy_from_device(&d_in)
            } else {
                arraysort::sort_keys(gpu, &mut keys[s], segments, &opts).map(drop)
            }
        })?;
        let got = keys[last].to_host().map_err(&err)?;
        check_arrays::<K, V>(input, &got, None, offsets, order, &name)?;
        out.push::<K>(name.clone(), "gpu", "sort_arrays", None, 0, t);
        let (t, last) = time_gpu_slots(gpu, reps, &what, k2, |s, restore| {
            if restore {
                keys[s].copy_from_device(&d_in)?;
                values[s].copy_from_device(&d_vals)
            } else {
                arraysort::sort_pairs(gpu, &mut keys[s], &mut values[s], segments, &opts).map(drop)
            }
        })?;
        let (k, vv) = (
            keys[last].to_host().map_err(&err)?,
            values[last].to_host().map_err(&err)?,
        );
        check_arrays(input, &k, Some(&vv), offsets, order, &name)?;
        let vname = if V::SIZE == 4 { "u32" } else { "u64" };
        out.push::<K>(name, "gpu", "sort_arrays_pairs", Some(vname), V::SIZE, t);
    }
    Ok(())
}

/// The top-k rows of one point: both GPU paths (keys, and pairs with u32 index values) and
/// the CPU twin, each last output compared with the twin's.
fn top_k_rows<K: CliKey>(input: &[K], offsets: &[u64], out: &mut Out<'_>) -> Result<(), CliError> {
    let ctx = out.ctx;
    let order = ctx.order;
    let index: Vec<u32> = (0..input.len())
        .map(|i| (i as u64 % ROW_LEN) as u32)
        .collect();
    let want = top_k::top_k_pairs(input, &index, offsets, TOP_K, order)
        .map_err(|e| wrong(CPU_TOP_K, e))?;
    if let Some(gpu) = &ctx.gpu {
        let n = input.len();
        let what = format!("benchmarking the top-k of {n} {}", K::NAME);
        let err = gpu_err(&what);
        let reps = ctx.reps;
        let d_in = DeviceBuffer::from_host(gpu, input).map_err(&err)?;
        let t = time_copy(gpu, reps, &what, &d_in)?;
        out.copy_gbps = Some(gbps(2 * n as u64 * K::SIZE as u64, t));
        let d_index = DeviceBuffer::from_host(gpu, &index).map_err(&err)?;
        let d_offsets = DeviceBuffer::from_host(gpu, offsets).map_err(&err)?;
        let slots = slot_count(gpu, n * K::SIZE);
        let keys = InputSlots::new(gpu, &d_in, slots, &what)?;
        let values = InputSlots::new(gpu, &d_index, slots, &what)?;
        let arrays = offsets.len() - 1;
        let mut ok = buffers::<K>(gpu, arrays * TOP_K, slots, &what)?;
        let mut ov = buffers::<u32>(gpu, arrays * TOP_K, slots, &what)?;
        let segments = Segments::Offsets64(&d_offsets);
        for path in TopKPath::ALL {
            let name = top_k_algo(path);
            if !ctx.algos.wants(&name) {
                continue;
            }
            let opts = TopKOptions::new(TOP_K).with_order(order).with_path(path);
            let (t, last) = time_gpu_rotating(gpu, reps, &what, slots, |s| {
                arraysort::top_k_keys(gpu, keys.get(s), segments, &opts, &mut ok[s]).map(drop)
            })?;
            let got = ok[last].to_host().map_err(&err)?;
            check_top_k(&got, None, &want, offsets, &name)?;
            out.push::<K>(name.clone(), "gpu", "top_k", None, 0, t);
            let (t, last) = time_gpu_rotating(gpu, reps, &what, slots, |s| {
                let (k, v) = (&mut ok[s], &mut ov[s]);
                arraysort::top_k_pairs(gpu, keys.get(s), values.get(s), segments, &opts, k, v)
                    .map(drop)
            })?;
            let (k, v) = (
                ok[last].to_host().map_err(&err)?,
                ov[last].to_host().map_err(&err)?,
            );
            check_top_k(&k, Some(&v), &want, offsets, &name)?;
            out.push::<K>(name, "gpu", "top_k_pairs", Some("u32"), 4, t);
        }
    }
    if input.len() as u64 <= CPU_MAX_LEN && ctx.algos.wants(CPU_TOP_K) {
        let mut work = input.to_vec();
        let t = out.time_cpu(input, &mut work, |w| {
            // The offsets were built valid: the twin cannot refuse them.
            let _ = top_k::top_k(w, offsets, TOP_K, order);
        });
        out.push::<K>(CPU_TOP_K.into(), "cpu", "top_k", None, 0, t);
    }
    Ok(())
}

/// The device's slots of `TOP_K` per array (keys, and values when given) equal the twin's
/// compacted result `want`.
fn check_top_k<K: SortKey>(
    keys: &[K],
    values: Option<&[u32]>,
    want: &top_k::TopK<K, u32>,
    offsets: &[u64],
    what: &str,
) -> Result<(), CliError> {
    for a in 0..offsets.len() - 1 {
        let (s, e) = (want.offsets[a] as usize, want.offsets[a + 1] as usize);
        let slot = a * TOP_K..a * TOP_K + (e - s);
        let same_keys = keys[slot.clone()]
            .iter()
            .zip(&want.keys[s..e])
            .all(|(x, y)| x.to_ordered_bits() == y.to_ordered_bits());
        let same_values = values.is_none_or(|v| v[slot] == want.values[s..e]);
        if !same_keys || !same_values {
            return Err(wrong(
                what,
                format!("row {a} differs from the CPU twin's top {TOP_K}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cover_the_keys_like_the_anchor() {
        let fixed = layout_offsets(LAYOUTS[0], 2500);
        assert_eq!(fixed, vec![0, 1000, 2000, 2500]);
        let n = 1 << 20;
        let varying = layout_offsets(LAYOUTS[1], n);
        assert_eq!((varying[0], *varying.last().unwrap()), (0, n));
        let lens: Vec<u64> = varying.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(lens.iter().all(|&l| (1..=4096).contains(&l)));
        let mean = n as f64 / lens.len() as f64;
        assert!((400.0..600.0).contains(&mean), "mean length {mean}");
        assert_eq!(layout_offsets(LAYOUTS[1], 0), vec![0]);
        let n = 1 << 24;
        let power = layout_offsets(LAYOUTS[2], n);
        assert_eq!((power[0], *power.last().unwrap()), (0, n));
        let lens: Vec<u64> = power.windows(2).map(|w| w[1] - w[0]).collect();
        let body = &lens[..lens.len() - 1];
        assert!(
            body.iter().all(|&l| l >= 512),
            "shortest {:?}",
            body.iter().min()
        );
        let mean = n as f64 / lens.len() as f64;
        assert!((900.0..1150.0).contains(&mean), "mean length {mean}");
        let long: u64 = lens.iter().filter(|&&l| l > 4096).sum();
        let share = long as f64 / n as f64;
        assert!(
            (0.07..0.2).contains(&share),
            "keys in arrays past 4096: {share}"
        );
    }

    #[test]
    fn the_checker_catches_unsorted_lost_and_unstable_arrays() {
        let input = [3u32, 1, 3, 2, 0];
        let offsets = [0u64, 3, 5];
        let good = [1u32, 3, 3, 0, 2];
        let asc = Order::Ascending;
        assert!(check_arrays::<u32, u32>(&input, &good, None, &offsets, asc, "t").is_ok());
        assert!(
            check_arrays::<u32, u32>(&input, &[3, 1, 3, 0, 2], None, &offsets, asc, "t").is_err()
        );
        assert!(
            check_arrays::<u32, u32>(&input, &[1, 3, 3, 0, 3], None, &offsets, asc, "t").is_err()
        );
        let stable = [1u32, 0, 2, 4, 3];
        assert!(check_arrays(&input, &good, Some(&stable[..]), &offsets, asc, "t").is_ok());
        let swapped = [1u32, 2, 0, 4, 3];
        assert!(check_arrays(&input, &good, Some(&swapped[..]), &offsets, asc, "t").is_err());
    }
}
