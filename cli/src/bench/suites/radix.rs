//! `sortlab bench radix`: every [`RadixVariant`] on the GPU, keys and pairs; the rayon radix
//! sort on the CPU.

use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::SortValue;

use super::point::{check_sorted_pairs, GpuPoint, Out};
use crate::backend::check;
use crate::bench::row::wrong;
use crate::bench::timing::time_gpu_slots;
use crate::error::CliError;
use crate::key::CliKey;

/// The CPU twin's row: the rayon radix sort.
pub(super) const CPU_NAMES: &[&str] = &["radix"];

fn algo(v: RadixVariant) -> String {
    format!("radix-{}", v.name())
}

/// The GPU rows, in the order they run.
pub(super) fn gpu_names() -> Vec<String> {
    RadixVariant::ALL.into_iter().map(algo).collect()
}

/// The GPU rows of one point.
pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let (gpu, what, order, reps, err) = p.context(out);
    let (mut keys, mut values) = p.sort_slots()?;
    for v in RadixVariant::ALL {
        let algo = algo(v);
        if !out.ctx.algos.wants(&algo) {
            continue;
        }
        let opts = RadixOptions::default().with_order(order).with_variant(v);
        let (t, last) = time_gpu_slots(gpu, reps, what, p.k1, |s, restore| {
            if restore {
                keys[s].copy_from_device(p.d_in)
            } else {
                radix::sort_keys(gpu, &mut keys[s], &opts)
            }
        })?;
        let got = keys[last].to_host().map_err(&err)?;
        check_sorted_pairs::<K, V>(&got, None, order, &algo)?;
        out.push::<K>(algo.clone(), "gpu", "sort_keys", None, 0, t);
        let (t, last) = time_gpu_slots(gpu, reps, what, p.k2, |s, restore| {
            if restore {
                keys[s].copy_from_device(p.d_in)?;
                values[s].copy_from_device(&p.d_vals)
            } else {
                radix::sort_pairs(gpu, &mut keys[s], &mut values[s], &opts)
            }
        })?;
        let (k, vv) = (
            keys[last].to_host().map_err(&err)?,
            values[last].to_host().map_err(&err)?,
        );
        check_sorted_pairs(&k, Some(&vv), order, &algo)?;
        out.push::<K>(algo, "gpu", "sort_pairs", Some(p.vname), V::SIZE, t);
    }
    Ok(())
}

/// The CPU row of one point.
pub(super) fn cpu<K: CliKey>(input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
    let work = &mut input.to_vec()[..];
    let order = out.ctx.order;
    let t = out.time_cpu(input, work, |w| {
        sortlab_cpu_reference::radix::sort_keys(w, order)
    });
    check::check_sorted(work, order).map_err(|e| wrong("cpu radix", e))?;
    out.push::<K>(CPU_NAMES[0].into(), "cpu", "sort_keys", None, 0, t);
    Ok(())
}
