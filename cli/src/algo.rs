//! The algorithm registry: every sort the command can run, by name.
//!
//! Adding an algorithm is one entry in [`ALGOS`]: a name, a one-line description, whether it
//! is stable, its CPU implementation (a generic `fn(&mut [K], Order)`, one instance per key
//! type via [`cpu_sort!`](crate::cpu_sort)) and, where one exists, its GPU implementation
//! (a generic `fn(&Gpu, &mut DeviceBuffer<K>, Order) -> Result<()>` via
//! [`gpu_sort!`](crate::gpu_sort)).

use sortlab_primitives::{DeviceBuffer, Gpu, Order};

use crate::backend::sort;
use crate::error::CliError;
use crate::gpu_algos;

/// A CPU sort of keys of type `K`, in place.
pub type CpuSortFn<K> = fn(&mut [K], Order);

/// A GPU sort of a device-resident buffer of keys of type `K`, in place. An algorithm that
/// does not support some key type returns [`sortlab_primitives::Error::Unsupported`] for it.
pub type GpuSortFn<K> = fn(&Gpu, &mut DeviceBuffer<K>, Order) -> sortlab_primitives::Result<()>;

/// One CPU sort function per key type.
#[derive(Clone, Copy, Debug)]
pub struct CpuSort {
    /// The `u32` instance.
    pub u32: CpuSortFn<u32>,
    /// The `i32` instance.
    pub i32: CpuSortFn<i32>,
    /// The `f32` instance.
    pub f32: CpuSortFn<f32>,
    /// The `u64` instance.
    pub u64: CpuSortFn<u64>,
    /// The `i64` instance.
    pub i64: CpuSortFn<i64>,
    /// The `f64` instance.
    pub f64: CpuSortFn<f64>,
}

/// One GPU sort function per key type.
#[derive(Clone, Copy, Debug)]
pub struct GpuSort {
    /// The `u32` instance.
    pub u32: GpuSortFn<u32>,
    /// The `i32` instance.
    pub i32: GpuSortFn<i32>,
    /// The `f32` instance.
    pub f32: GpuSortFn<f32>,
    /// The `u64` instance.
    pub u64: GpuSortFn<u64>,
    /// The `i64` instance.
    pub i64: GpuSortFn<i64>,
    /// The `f64` instance.
    pub f64: GpuSortFn<f64>,
}

/// Builds a [`CpuSort`] from a generic function path: `cpu_sort!(sort::sort)`.
#[macro_export]
macro_rules! cpu_sort {
    ($($f:ident)::+) => {
        $crate::algo::CpuSort {
            u32: $($f)::+::<u32>,
            i32: $($f)::+::<i32>,
            f32: $($f)::+::<f32>,
            u64: $($f)::+::<u64>,
            i64: $($f)::+::<i64>,
            f64: $($f)::+::<f64>,
        }
    };
}

/// Builds a [`GpuSort`] from a generic function path: `gpu_sort!(radix::sort_buffer)`.
#[macro_export]
macro_rules! gpu_sort {
    ($($f:ident)::+) => {
        $crate::algo::GpuSort {
            u32: $($f)::+::<u32>,
            i32: $($f)::+::<i32>,
            f32: $($f)::+::<f32>,
            u64: $($f)::+::<u64>,
            i64: $($f)::+::<i64>,
            f64: $($f)::+::<f64>,
        }
    };
}

/// A registered sort.
#[derive(Clone, Copy, Debug)]
pub struct Algo {
    /// Name on the command line (`--algo NAME`) and in benchmark rows.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// Whether equal keys keep their input order.
    pub stable: bool,
    /// The CPU implementation (every algorithm has one: its twin in `sortlab-cpu-reference`).
    pub cpu: CpuSort,
    /// The GPU implementation, where there is one.
    pub gpu: Option<GpuSort>,
}

/// Every registered algorithm, in listing order.
pub static ALGOS: &[Algo] = &[
    Algo {
        name: "reference",
        description: "CPU reference: stable parallel merge sort (rayon par_sort_by)",
        stable: true,
        cpu: cpu_sort!(sort::sort),
        gpu: None,
    },
    Algo {
        name: "reference-unstable",
        description: "CPU reference: unstable parallel pattern-defeating quicksort (rayon)",
        stable: false,
        cpu: cpu_sort!(sort::sort_unstable),
        gpu: None,
    },
    Algo {
        name: "reference-seq",
        description: "CPU reference: stable sequential sort (std sort_by)",
        stable: true,
        cpu: cpu_sort!(sort::sort_seq),
        gpu: None,
    },
    Algo {
        name: "reference-unstable-seq",
        description: "CPU reference: unstable sequential sort (std sort_unstable_by)",
        stable: false,
        cpu: cpu_sort!(sort::sort_unstable_seq),
        gpu: None,
    },
    Algo {
        name: "radix",
        description: "GPU LSD radix sort, the fast variant (onesweep); CPU twin: rayon radix sort",
        stable: true,
        cpu: cpu_sort!(gpu_algos::radix_cpu),
        gpu: Some(gpu_sort!(gpu_algos::radix_fast)),
    },
    Algo {
        name: "radix-satish",
        description: "GPU 4-bit blocked radix sort (Satish, Harris, Garland)",
        stable: true,
        cpu: cpu_sort!(gpu_algos::radix_cpu),
        gpu: Some(gpu_sort!(gpu_algos::radix_satish)),
    },
    Algo {
        name: "radix-onebit",
        description: "GPU 1-bit split radix sort (CUDPP style)",
        stable: true,
        cpu: cpu_sort!(gpu_algos::radix_cpu),
        gpu: Some(gpu_sort!(gpu_algos::radix_onebit)),
    },
    Algo {
        name: "roughsort",
        description: "radius, then k-sorted sort in O(n log k) (GPU windows; CPU Altman-Chlebus)",
        stable: false,
        cpu: cpu_sort!(gpu_algos::rough_cpu),
        gpu: Some(gpu_sort!(gpu_algos::rough_gpu)),
    },
    Algo {
        name: "roughsort-seq",
        description: "CPU sequential roughsort (halving algorithm)",
        stable: false,
        cpu: cpu_sort!(gpu_algos::rough_seq_cpu),
        gpu: None,
    },
    Algo {
        name: "approx-refine",
        description: "interval approximate sort then refine inside intervals (a bucket sort)",
        stable: false,
        cpu: cpu_sort!(gpu_algos::approx_refine_cpu),
        gpu: Some(gpu_sort!(gpu_algos::approx_refine_gpu)),
    },
];

/// The registered algorithm called `name`, or an error listing the known names.
pub fn find_algo(name: &str) -> Result<&'static Algo, CliError> {
    ALGOS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| CliError::UnknownAlgo {
            given: name.to_string(),
            known: algo_names(ALGOS.iter()),
        })
}

/// The names of the algorithms that have a GPU implementation, comma separated, or
/// `none yet`.
pub fn gpu_algo_names() -> String {
    let names = algo_names(ALGOS.iter().filter(|a| a.gpu.is_some()));
    if names.is_empty() {
        "none yet".to_string()
    } else {
        names
    }
}

fn algo_names<'a>(algos: impl Iterator<Item = &'a Algo>) -> String {
    algos.map(|a| a.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in ALGOS.iter().enumerate() {
            assert!(ALGOS[..i].iter().all(|b| b.name != a.name), "{}", a.name);
        }
    }

    #[test]
    fn unknown_algo_lists_known() {
        let e = find_algo("bogo").unwrap_err().to_string();
        assert!(
            e.contains("`bogo`") && e.contains("reference, reference-unstable"),
            "{e}"
        );
    }
}
