//! The property suite on every entry of the algorithm registry (`sortlab_registry::ALGOS`): its
//! CPU engine (runs in CI) and, where it has one, its GPU engine (ignored without a CUDA device;
//! run with `--include-ignored` on a CUDA machine, e.g. through scripts/gpu-check).
//!
//! An entry added to the registry fails `every_entry_is_switched_on` until it has its lines
//! in `registry_suites!` below: its CPU test module, and its GPU one where there is one. The
//! pair tests run each entry's key-value sorts; an entry without them on an engine skips them
//! (with a note), and `entries_without_pairs` lists exactly those, so that gaining or losing
//! a key-value sort is noticed.

use std::sync::OnceLock;

use sortlab_primitives::{DeviceBuffer, Gpu, Order, SortKey, SortValue};
use sortlab_registry::{Algo, ALGOS};
use sortlab_verify::SortAlgorithm;

/// The engine a registry entry runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Cpu,
    Gpu,
}

/// A registry entry on one engine, as a [`SortAlgorithm`]: its key sorts, and its key-value
/// sorts where it has them on that engine.
#[derive(Clone, Copy, Debug)]
struct Entry {
    algo: &'static Algo,
    engine: Engine,
}

/// The registered algorithm `name` on the CPU engine.
fn cpu(name: &str) -> Entry {
    entry(name, Engine::Cpu)
}

/// The registered algorithm `name` on the GPU engine.
fn gpu(name: &str) -> Entry {
    entry(name, Engine::Gpu)
}

fn entry(name: &str, engine: Engine) -> Entry {
    let algo = sortlab_registry::find(name).unwrap_or_else(|| panic!("`{name}` is registered"));
    Entry { algo, engine }
}

/// Whether `algo` has a key-value sort on `engine`.
fn has_pairs(algo: &Algo, engine: Engine) -> bool {
    match engine {
        Engine::Cpu => algo.cpu_pairs.is_some(),
        Engine::Gpu => algo.gpu_pairs.is_some(),
    }
}

/// GPU 0, opened once for every GPU test of this file.
fn device() -> Result<&'static Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new(0).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

impl SortAlgorithm for Entry {
    fn name(&self) -> String {
        let engine = match self.engine {
            Engine::Cpu => "cpu",
            Engine::Gpu => "gpu",
        };
        format!("registry {} ({engine})", self.algo.name)
    }
    fn is_stable(&self) -> bool {
        let pairs_stable = match self.engine {
            Engine::Cpu => self.algo.cpu_pairs.map(|p| p.stable),
            Engine::Gpu => self.algo.gpu_pairs.map(|p| p.stable),
        };
        pairs_stable.unwrap_or(self.algo.stable)
    }
    fn supports_pairs(&self) -> bool {
        has_pairs(self.algo, self.engine)
    }
    fn sort_keys<K: SortKey>(&self, keys: &mut [K], order: Order) -> Result<(), String> {
        let missing = |what: &str| format!("{} has no {what} {} sort", self.algo.name, K::NAME);
        match self.engine {
            Engine::Cpu => {
                let sort = self.algo.cpu_for::<K>().ok_or_else(|| missing("CPU"))?;
                sort(keys, order);
                Ok(())
            }
            Engine::Gpu => {
                let sort = self.algo.gpu_for::<K>().ok_or_else(|| missing("GPU"))?;
                let gpu = device()?;
                let mut buf = DeviceBuffer::from_host(gpu, keys).map_err(|e| e.to_string())?;
                sort(gpu, &mut buf, order).map_err(|e| e.to_string())?;
                buf.copy_to_host(keys).map_err(|e| e.to_string())
            }
        }
    }
    fn sort_pairs<K: SortKey, V: SortValue>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        order: Order,
    ) -> Result<(), String> {
        let missing = |what: &str| {
            format!(
                "{} has no {what} {} keys, {} values sort",
                self.algo.name,
                K::NAME,
                std::any::type_name::<V>()
            )
        };
        match self.engine {
            Engine::Cpu => {
                let sort = (self.algo.cpu_pairs_for::<K, V>()).ok_or_else(|| missing("CPU"))?;
                sort(keys, values, order).map_err(|e| e.to_string())
            }
            Engine::Gpu => {
                let sort = (self.algo.gpu_pairs_for::<K, V>()).ok_or_else(|| missing("GPU"))?;
                let gpu = device()?;
                let mut dk = DeviceBuffer::from_host(gpu, keys).map_err(|e| e.to_string())?;
                let mut dv = DeviceBuffer::from_host(gpu, values).map_err(|e| e.to_string())?;
                sort(gpu, &mut dk, &mut dv, order).map_err(|e| e.to_string())?;
                dk.copy_to_host(keys).map_err(|e| e.to_string())?;
                dv.copy_to_host(values).map_err(|e| e.to_string())
            }
        }
    }
}

/// One `sort_suite!` for each entry's CPU engine and, where named, one for its GPU engine
/// (ignored without a device), and `SWITCHED_ON`: the entries so covered, (name, with its GPU
/// engine), which `every_entry_is_switched_on` compares with the registry.
macro_rules! registry_suites {
    ($($cpu_test:ident $(/ $gpu_test:ident)? => $name:literal),* $(,)?) => {
        $(
            sortlab_verify::sort_suite!($cpu_test, cpu($name));
            $(sortlab_verify::sort_suite!($gpu_test, gpu($name), ignore = "needs a CUDA device");)?
        )*
        const SWITCHED_ON: &[(&str, bool)] = &[$(($name, registry_suites!(@gpu $($gpu_test)?))),*];
    };
    (@gpu $gpu_test:ident) => {
        true
    };
    (@gpu) => {
        false
    };
}

registry_suites! {
    reference_cpu => "reference",
    reference_unstable_cpu => "reference-unstable",
    reference_seq_cpu => "reference-seq",
    reference_unstable_seq_cpu => "reference-unstable-seq",
    radix_cpu / radix_gpu => "radix",
    radix_satish_cpu / radix_satish_gpu => "radix-satish",
    radix_onebit_cpu / radix_onebit_gpu => "radix-onebit",
    merge_cpu / merge_gpu => "merge",
    merge_satish_cpu / merge_satish_gpu => "merge-satish",
    bitonic_cpu / bitonic_gpu => "bitonic",
    bitonic_mapping_cpu / bitonic_mapping_gpu => "bitonic-mapping",
    bitonic_notes_cpu / bitonic_notes_gpu => "bitonic-notes",
    sample_cpu / sample_gpu => "sample",
    sample_notes_cpu / sample_notes_gpu => "sample-notes",
    quick_cpu / quick_gpu => "quick",
    quick_notes_cpu / quick_notes_gpu => "quick-notes",
    hybrid_cpu / hybrid_gpu => "hybrid",
    roughsort_cpu / roughsort_gpu => "roughsort",
    roughsort_seq_cpu => "roughsort-seq",
    approx_refine_cpu / approx_refine_gpu => "approx-refine",
    approx_refine_arrays_cpu / approx_refine_arrays_gpu => "approx-refine-arrays",
}

#[test]
fn every_entry_is_switched_on() {
    let registered: Vec<(&str, bool)> = ALGOS.iter().map(|a| (a.name, a.has_gpu())).collect();
    assert_eq!(
        registered, SWITCHED_ON,
        "every registry entry needs its sort_suite! lines in this file"
    );
}

/// The entries whose pair tests skip: (name, engine) of every engine an entry has without a
/// key-value sort there. Every entry sorts pairs on each of its engines today.
const WITHOUT_PAIRS: &[(&str, Engine)] = &[];

#[test]
fn entries_without_pairs() {
    let missing: Vec<(&str, Engine)> = ALGOS
        .iter()
        .flat_map(|a| {
            let engines = if a.has_gpu() {
                &[Engine::Cpu, Engine::Gpu][..]
            } else {
                &[Engine::Cpu][..]
            };
            engines
                .iter()
                .filter(|&&e| !has_pairs(a, e))
                .map(|&e| (a.name, e))
        })
        .collect();
    assert_eq!(
        missing, WITHOUT_PAIRS,
        "the registry entries without a key-value sort changed: update WITHOUT_PAIRS"
    );
}
