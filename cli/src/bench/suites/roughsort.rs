//! `sortlab bench roughsort`: radius determination and the rough sort (keys and pairs) on the
//! GPU; the radius (sequential and rayon) and the rayon rough sort on the CPU.

use sortlab_cpu_reference::rough;
use sortlab_primitives::SortValue;

use super::point::{check_sorted_keys, GpuPoint, Out};
use crate::backend::check;
use crate::bench::row::wrong;
use crate::bench::timing::{time_gpu_rotating, time_gpu_slots};
use crate::cmd::note;
use crate::error::CliError;
use crate::key::CliKey;

/// The GPU rough sort's rows (radius, keys, pairs).
const GPU_NAME: &str = "roughsort";
/// The CPU twins' rows: the sequential radius, and the rayon radius and rough sort.
const SEQ: &str = "roughsort-seq";
const PAR: &str = "roughsort-par";
pub(super) const CPU_NAMES: &[&str] = &[SEQ, PAR];

/// The GPU rows' name.
pub(super) fn gpu_names() -> Vec<String> {
    vec![GPU_NAME.to_string()]
}

/// A roughsort error as a runtime error (its GPU error, or an invalid-argument one).
pub(crate) fn rough_err(e: sortlab_roughsort::Error) -> sortlab_primitives::Error {
    match e {
        sortlab_roughsort::Error::Gpu(e) => e,
        other => sortlab_primitives::Error::InvalidArgument(other.to_string()),
    }
}

/// The GPU rows of one point.
pub(super) fn gpu<K: CliKey, V: SortValue + Into<u64>>(
    p: &GpuPoint<'_, K, V>,
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let (gpu, what, order, reps, err) = p.context(out);
    let (mut keys, mut values) = p.sort_slots()?;
    // The radius reads its input only: its slots are the sort's, restored once.
    for b in keys.iter_mut() {
        b.copy_from_device(p.d_in).map_err(&err)?;
    }
    let mut k = 0;
    let (t, _) = time_gpu_rotating(gpu, reps, what, p.k1, |s| {
        k = sortlab_roughsort::radius(gpu, &keys[s], order).map_err(rough_err)?;
        Ok(())
    })?;
    let want = rough::radius(p.input, order);
    if k != want {
        return Err(wrong("roughsort radius", format!("{k}, expected {want}")));
    }
    out.push::<K>(GPU_NAME.into(), "gpu", "radius", None, 0, t);
    let mut path = None;
    let (t, last) = time_gpu_slots(gpu, reps, what, p.k1, |s, restore| {
        if restore {
            return keys[s].copy_from_device(p.d_in);
        }
        let r = sortlab_roughsort::rough_sort(gpu, &mut keys[s], order).map_err(rough_err)?;
        path = Some(r.path);
        Ok(())
    })?;
    let got = keys[last].to_host().map_err(&err)?;
    check_sorted_keys(&got, order, GPU_NAME)?;
    out.push::<K>(GPU_NAME.into(), "gpu", "sort_keys", None, 0, t);
    let mut pairs_path = None;
    let (t, _) = time_gpu_slots(gpu, reps, what, p.k2, |s, restore| {
        if restore {
            keys[s].copy_from_device(p.d_in)?;
            return values[s].copy_from_device(&p.d_vals);
        }
        let r = sortlab_roughsort::rough_sort_pairs(gpu, &mut keys[s], &mut values[s], order)
            .map_err(rough_err)?;
        pairs_path = Some(r.path);
        Ok(())
    })?;
    // The paths taken ("radix": the full radix sort past the crossover radius).
    let name = |p: Option<sortlab_roughsort::RoughPath>| p.map_or("-", |p| p.name());
    note(&format!(
        "roughsort: radius {k}, keys path {}, pairs path {}",
        name(path),
        name(pairs_path)
    ));
    out.push::<K>(
        GPU_NAME.into(),
        "gpu",
        "sort_pairs",
        Some(p.vname),
        V::SIZE,
        t,
    );
    Ok(())
}

/// The CPU rows of one point.
pub(super) fn cpu<K: CliKey>(input: &[K], out: &mut Out<'_>) -> Result<(), CliError> {
    let work = &mut input.to_vec()[..];
    let order = out.ctx.order;
    if out.ctx.algos.wants(SEQ) {
        let t = out.time_cpu(input, work, |w| {
            std::hint::black_box(rough::radius(w, order));
        });
        out.push::<K>(SEQ.into(), "cpu", "radius", None, 0, t);
    }
    if out.ctx.algos.wants(PAR) {
        let t = out.time_cpu(input, work, |w| {
            std::hint::black_box(rough::radius_par(w, order));
        });
        out.push::<K>(PAR.into(), "cpu", "radius", None, 0, t);
        let t = out.time_cpu(input, work, |w| {
            rough::rough_sort_par(w, order);
        });
        check::check_sorted(work, order).map_err(|e| wrong("cpu roughsort", e))?;
        out.push::<K>(PAR.into(), "cpu", "sort_keys", None, 0, t);
    }
    Ok(())
}
