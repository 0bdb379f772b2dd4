//! `sortlab bench approxsort`: the approximate sort (Paper and Fast, equal-width and sampled
//! intervals, keys and pairs) and the refined (full) sort on the GPU; the twin's approximate
//! sort on the CPU.

use sortlab_approxsort::{
    self as approxsort, ApproxOptions, ApproxVariant, Intervals, RefineVariant,
};
use sortlab_primitives::SortValue;

use super::point::{check_sorted_keys, GpuPoint, Out};
use crate::backend::check;
use crate::bench::row::wrong;
use crate::bench::timing::{buffers, slot_count, time_gpu_rotating, time_gpu_slots, InputSlots};
use crate::cmd::note;
use crate::error::CliError;
use crate::key::CliKey;

/// The approximate sort's variants and boundaries as the suite times them.
const VARIANTS: [ApproxVariant; 2] = [ApproxVariant::Paper, ApproxVariant::Fast];
const BOUNDARIES: [Intervals; 2] = [Intervals::EqualWidth, Intervals::Sampled];
/// The refined (full) sort's rows: sampled intervals, then `refine` by buckets, or by
/// arraysort's segmented sort of the intervals (`RefineVariant::Arrays`).
const REFINE: &str = "approx-refine";
const REFINE_ARRAYS: &str = "approx-refine-arrays";
/// The CPU twin's row: the approximate sort.
pub(super) const CPU_NAMES: &[&str] = &["approx"];

fn algo(variant: ApproxVariant, boundaries: Intervals) -> String {
    format!("approx-{}-{}", variant.name(), boundaries.name())
}

/// The GPU rows, in the order they run.
pub(super) fn gpu_names() -> Vec<String> {
    VARIANTS
        .into_iter()
        .flat_map(|v| BOUNDARIES.map(|b| algo(v, b)))
        .chain([REFINE.to_string(), REFINE_ARRAYS.to_string()])
        .collect()
}

/// The GPU rows of one point.
pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let (gpu, what, order, reps, err) = p.context(out);
    let n = p.input.len();
    // The approximate sorts leave their input as it is: slots of inputs too.
    let ka = slot_count(gpu, 2 * p.kb);
    let kp = slot_count(gpu, 2 * (p.kb + p.vb));
    let in_keys = InputSlots::new(gpu, p.d_in, ka, what)?;
    let in_vals = InputSlots::new(gpu, &p.d_vals, kp, what)?;
    // k1 >= ka, kp: enough output slots for every row of the suite.
    let mut keys = buffers::<K>(gpu, n, p.k1, what)?;
    let mut values = buffers::<V>(gpu, n, kp, what)?;
    for variant in VARIANTS {
        for boundaries in BOUNDARIES {
            let algo = algo(variant, boundaries);
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
                let r = approxsort::approx_sort_into(gpu, in_keys.get(s), &mut keys[s], &opts)?;
                result = Some(r);
                Ok(())
            })?;
            let r = result.ok_or_else(|| wrong(&algo, "no result"))?;
            let bounds = r.boundaries_host().map_err(&err)?;
            let got = keys[last].to_host().map_err(&err)?;
            check::check_interval_order(&got, &bounds, order).map_err(|e| wrong(&algo, e))?;
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
            out.push::<K>(algo, "gpu", "approx_sort_pairs", Some(p.vname), V::SIZE, t);
        }
    }
    // The refined (full) sort: approximate sort with sampled intervals, then refine.
    for (name, variant) in [
        (REFINE, RefineVariant::Buckets),
        (REFINE_ARRAYS, RefineVariant::Arrays),
    ] {
        if !out.ctx.algos.wants(name) {
            continue;
        }
        let opts = ApproxOptions {
            order,
            boundaries: Intervals::Sampled,
            ..ApproxOptions::default()
        };
        let (t, last) = time_gpu_slots(gpu, reps, what, p.k1, |s, restore| {
            if restore {
                return keys[s].copy_from_device(p.d_in);
            }
            let r = approxsort::approx_sort(gpu, &mut keys[s], &opts)?;
            approxsort::refine_with(gpu, &mut keys[s], &r, variant).map(|_| ())
        })?;
        let got = keys[last].to_host().map_err(&err)?;
        check_sorted_keys(&got, order, name)?;
        out.push::<K>(name.into(), "gpu", "sort_keys", None, 0, t);
    }
    Ok(())
}

/// The CPU row of one point.
pub(super) fn cpu<K: CliKey>(input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
    let work = &mut input.to_vec()[..];
    use sortlab_cpu_reference::approx;
    let opts = approx::ApproxOptions {
        order: out.ctx.order,
        ..approx::ApproxOptions::default()
    };
    let mut ok = true;
    let t = out.time_cpu(input, work, |w| ok &= approx::approx_sort(w, &opts).is_ok());
    if !ok {
        return Err(wrong("cpu approx_sort", "returned an error"));
    }
    out.push::<K>(CPU_NAMES[0].into(), "cpu", "approx_sort_keys", None, 0, t);
    Ok(())
}
