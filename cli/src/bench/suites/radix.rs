//! `sortlab bench radix`: every [`RadixVariant`] on the GPU, keys and pairs; the rayon radix
//! sort on the CPU.

use sortlab_gpu_sorts::radix::{self, RadixOptions, RadixVariant};
use sortlab_primitives::{Order, SortValue};

use super::point::{sort_rows, GpuPoint, Out};
use crate::backend::check;
use crate::bench::row::wrong;
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
    let mut slots = p.sort_slots()?;
    for v in RadixVariant::ALL {
        let algo = algo(v);
        if !out.ctx.algos.wants(&algo) {
            continue;
        }
        let opts = RadixOptions::default()
            .with_order(out.ctx.order)
            .with_variant(v);
        sort_rows(
            p,
            out,
            &mut slots,
            &algo,
            true,
            &mut |k| radix::sort_keys(p.gpu, k, &opts),
            &mut |k, v| radix::sort_pairs(p.gpu, k, v, &opts),
        )?;
    }
    Ok(())
}

/// The CPU row of one point.
pub(super) fn cpu<K: CliKey>(input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
    cpu_row(
        input,
        out,
        CPU_NAMES[0],
        sortlab_cpu_reference::radix::sort_keys,
    )
}

/// The row of the CPU sort `sort` called `name`, checked sorted.
pub(super) fn cpu_row<K: CliKey>(
    input: &[K],
    out: &mut Out<'_>,
    name: &str,
    sort: fn(&mut [K], Order),
) -> Result<(), CliError> {
    let work = &mut input.to_vec()[..];
    let order = out.ctx.order;
    let t = out.time_cpu(input, work, |w| sort(w, order));
    check::check_sorted(work, order).map_err(|e| wrong(&format!("cpu {name}"), e))?;
    out.push::<K>(name.into(), "cpu", "sort_keys", None, 0, t);
    Ok(())
}
