//! `sortlab bench merge`: every [`MergeVariant`] on the GPU, keys and pairs (stable); the rayon
//! merge sort on the CPU.

use sortlab_gpu_sorts::merge::{self, MergeOptions, MergeVariant};
use sortlab_primitives::SortValue;

use super::point::{sort_rows, GpuPoint, Out};
use super::radix::cpu_row;
use crate::error::CliError;
use crate::key::CliKey;

/// The CPU twin's row: the rayon merge sort.
pub(super) const CPU_NAMES: &[&str] = &["merge"];

fn algo(v: MergeVariant) -> String {
    format!("merge-{}", v.name())
}

/// The GPU rows, in the order they run.
pub(super) fn gpu_names() -> Vec<String> {
    MergeVariant::ALL.into_iter().map(algo).collect()
}

/// The GPU rows of one point.
pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let mut slots = p.sort_slots()?;
    for v in MergeVariant::ALL {
        let algo = algo(v);
        if !out.ctx.algos.wants(&algo) {
            continue;
        }
        let opts = MergeOptions::default()
            .with_order(out.ctx.order)
            .with_variant(v);
        sort_rows(
            p,
            out,
            &mut slots,
            &algo,
            true,
            &mut |k| merge::sort_keys(p.gpu, k, &opts),
            &mut |k, v| merge::sort_pairs(p.gpu, k, v, &opts),
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
        sortlab_cpu_reference::merge::sort_keys,
    )
}
