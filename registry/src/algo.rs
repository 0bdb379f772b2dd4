//! A registry entry and its per-key-type entry points.

use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};

use crate::pairs::{CpuPairs, CpuPairsFn, GpuPairs, GpuPairsFn};
use crate::pick::pick;

/// A CPU sort of keys of type `K`, in place.
pub type CpuSortFn<K> = fn(&mut [K], Order);

/// A GPU sort of a device-resident buffer of keys of type `K`, in place. An algorithm that
/// does not support some key type returns [`sortlab_primitives::Error::Unsupported`] for it.
pub type GpuSortFn<K> = fn(&Gpu, &mut DeviceBuffer<K>, Order) -> sortlab_primitives::Result<()>;

/// Builds a per-key-type table (`$table`: [`CpuSort`] or [`GpuSort`]) from a generic function.
macro_rules! per_key {
    ($table:ident, $f:path) => {
        $crate::algo::$table {
            u32: $f,
            i32: $f,
            f32: $f,
            u64: $f,
            i64: $f,
            f64: $f,
        }
    };
}
pub(crate) use per_key;

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

impl CpuSort {
    /// The instance for key type `K`; `None` only for a key type without one, which no
    /// [`SortKey`] is.
    pub fn get<K: SortKey>(&self) -> Option<CpuSortFn<K>> {
        pick(&[
            &self.u32, &self.i32, &self.f32, &self.u64, &self.i64, &self.f64,
        ])
    }
}

impl GpuSort {
    /// The instance for key type `K`; `None` only for a key type without one, which no
    /// [`SortKey`] is.
    pub fn get<K: SortKey>(&self) -> Option<GpuSortFn<K>> {
        pick(&[
            &self.u32, &self.i32, &self.f32, &self.u64, &self.i64, &self.f64,
        ])
    }
}

/// A registered sort.
#[derive(Clone, Copy, Debug)]
pub struct Algo {
    /// Name on the command line (`--algo NAME`) and in benchmark rows.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// Whether equal keys keep their input order (for the pair sorts, each table's `stable`
    /// says it per engine).
    pub stable: bool,
    /// The CPU implementation (every algorithm has one: its twin in `sortlab-cpu-reference`).
    pub cpu: CpuSort,
    /// The GPU implementation, where there is one.
    pub gpu: Option<GpuSort>,
    /// The CPU key-value sort, where there is one.
    pub cpu_pairs: Option<CpuPairs>,
    /// The GPU key-value sort, where there is one (only with a GPU implementation).
    pub gpu_pairs: Option<GpuPairs>,
}

impl Algo {
    /// An entry with a CPU implementation only; add the GPU one with [`Algo::with_gpu`].
    pub const fn new(
        name: &'static str,
        description: &'static str,
        stable: bool,
        cpu: CpuSort,
    ) -> Self {
        Algo {
            name,
            description,
            stable,
            cpu,
            gpu: None,
            cpu_pairs: None,
            gpu_pairs: None,
        }
    }

    /// The entry with `gpu` as its GPU implementation.
    pub const fn with_gpu(self, gpu: GpuSort) -> Self {
        Algo {
            gpu: Some(gpu),
            ..self
        }
    }

    /// The entry with `pairs` as its CPU key-value sort.
    pub const fn with_cpu_pairs(self, pairs: CpuPairs) -> Self {
        Algo {
            cpu_pairs: Some(pairs),
            ..self
        }
    }

    /// The entry with `pairs` as its GPU key-value sort.
    pub const fn with_gpu_pairs(self, pairs: GpuPairs) -> Self {
        Algo {
            gpu_pairs: Some(pairs),
            ..self
        }
    }

    /// Whether the algorithm has a GPU implementation.
    pub fn has_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// The CPU sort of keys of type `K` (`None` only as [`CpuSort::get`] says).
    pub fn cpu_for<K: SortKey>(&self) -> Option<CpuSortFn<K>> {
        self.cpu.get::<K>()
    }

    /// The GPU sort of keys of type `K`; `None` when the algorithm has no GPU implementation.
    pub fn gpu_for<K: SortKey>(&self) -> Option<GpuSortFn<K>> {
        self.gpu.as_ref().and_then(GpuSort::get::<K>)
    }

    /// The CPU sort of `K` keys with `V` values; `None` when the algorithm has no CPU
    /// key-value sort, or as [`CpuPairs::get`] says.
    pub fn cpu_pairs_for<K: SortKey, V: SortValue>(&self) -> Option<CpuPairsFn<K, V>> {
        self.cpu_pairs.as_ref().and_then(CpuPairs::get::<K, V>)
    }

    /// The GPU sort of `K` keys with `V` values; `None` when the algorithm has no GPU
    /// key-value sort, or as [`GpuPairs::get`] says.
    pub fn gpu_pairs_for<K: SortKey, V: SortValue>(&self) -> Option<GpuPairsFn<K, V>> {
        self.gpu_pairs.as_ref().and_then(GpuPairs::get::<K, V>)
    }
}
