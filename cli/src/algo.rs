//! The algorithm registry (`sortlab-registry`) as the command sees it: look-ups whose failures
//! are [`CliError`]s.

use sortlab_primitives::SortKey;
use sortlab_registry::{Algo, CpuSortFn, GpuSortFn, ALGOS};

use crate::error::CliError;

/// The registered algorithm called `name`, or an error listing the known names.
pub fn find_algo(name: &str) -> Result<&'static Algo, CliError> {
    sortlab_registry::find(name).ok_or_else(|| CliError::UnknownAlgo {
        given: name.to_string(),
        known: sortlab_registry::names(ALGOS),
    })
}

/// `algo`'s CPU sort of `K` keys.
pub fn cpu_sort<K: SortKey>(algo: &Algo) -> Result<CpuSortFn<K>, CliError> {
    algo.cpu_for::<K>().ok_or_else(|| {
        CliError::Usage(format!(
            "algorithm `{}` has no {} instance",
            algo.name,
            K::NAME
        ))
    })
}

/// `algo`'s GPU sort of `K` keys, or [`no_gpu_implementation`].
pub fn gpu_sort<K: SortKey>(algo: &Algo) -> Result<GpuSortFn<K>, CliError> {
    algo.gpu_for::<K>()
        .ok_or_else(|| no_gpu_implementation(algo))
}

/// The error of `--engine gpu` for an algorithm without a GPU implementation.
pub fn no_gpu_implementation(algo: &Algo) -> CliError {
    CliError::NoGpuImplementation {
        algo: algo.name.to_string(),
        with_gpu: sortlab_registry::gpu_names(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_algo_lists_known() {
        let e = find_algo("bogo").unwrap_err().to_string();
        assert!(
            e.contains("`bogo`") && e.contains("reference, reference-unstable"),
            "{e}"
        );
    }

    #[test]
    fn cpu_only_algo_has_no_gpu_sort() {
        let a = find_algo("reference").unwrap();
        assert!(cpu_sort::<f64>(a).is_ok());
        assert!(matches!(
            gpu_sort::<u32>(a),
            Err(CliError::NoGpuImplementation { .. })
        ));
    }
}
