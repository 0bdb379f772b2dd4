//! `sortlab bench bitonic`: every [`BitonicVariant`] on the GPU, keys and pairs (unstable: the
//! pairs are checked as values following their keys); the rayon bitonic network on the CPU.

use sortlab_gpu_sorts::bitonic::{self, BitonicOptions, BitonicVariant};
use sortlab_primitives::SortValue;

use super::point::{sort_rows, GpuPoint, Out};
use super::radix::cpu_row;
use crate::error::CliError;
use crate::key::CliKey;

/// The CPU twin's row: the rayon bitonic network.
pub(super) const CPU_NAMES: &[&str] = &["bitonic"];

fn algo(v: BitonicVariant) -> String {
    format!("bitonic-{}", v.name())
}

/// The GPU rows, in the order they run.
pub(super) fn gpu_names() -> Vec<String> {
    BitonicVariant::ALL.into_iter().map(algo).collect()
}

/// The GPU rows of one point.
pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let mut slots = p.sort_slots()?;
    for v in BitonicVariant::ALL {
        let algo = algo(v);
        if !out.ctx.algos.wants(&algo) {
            continue;
        }
        let opts = BitonicOptions::default()
            .with_order(out.ctx.order)
            .with_variant(v);
        sort_rows(
            p,
            out,
            &mut slots,
            &algo,
            false,
            &mut |k| bitonic::sort_keys(p.gpu, k, &opts),
            &mut |k, v| bitonic::sort_pairs(p.gpu, k, v, &opts),
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
        sortlab_cpu_reference::bitonic::sort_keys,
    )
}
