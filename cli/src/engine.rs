//! Engines: where a sort runs. `auto` takes the GPU when one opens and the algorithm has a GPU
//! implementation, else the CPU; `gpu` insists and says why it cannot; `cpu` never touches the
//! GPU runtime.

use sortlab_primitives::{runtime, DeviceBuffer, Gpu, Order};
use sortlab_registry::Algo;

use crate::algo::{cpu_sort, gpu_sort, no_gpu_implementation};
use crate::error::CliError;
use crate::key::CliKey;

/// The `--engine` choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineChoice {
    /// The GPU if one is present and the algorithm has a GPU implementation, else the CPU.
    #[default]
    Auto,
    /// The CPU engine (rayon).
    Cpu,
    /// The GPU; an error when there is no device or no GPU implementation.
    Gpu,
}

/// A resolved engine.
#[derive(Clone, Debug)]
pub enum Engine {
    /// The CPU engine.
    Cpu,
    /// An opened GPU.
    Gpu(Gpu),
}

impl Engine {
    /// `"cpu"` or `"gpu"`, as in benchmark rows.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::Gpu(_) => "gpu",
        }
    }

    /// The device: the GPU's name, or [`cpu_description`].
    pub fn device(&self) -> String {
        match self {
            Engine::Cpu => cpu_description(),
            Engine::Gpu(gpu) => gpu.info().name.clone(),
        }
    }
}

/// Opens GPU 0, or says why not (the runtime's reason).
pub fn open_gpu() -> Result<Gpu, String> {
    match Gpu::new(0) {
        Ok(gpu) => Ok(gpu),
        Err(sortlab_primitives::Error::NoDevice { reason }) => Err(reason),
        Err(e) => Err(e.to_string()),
    }
}

/// Chooses the engine for `algo`. Returns the engine and, when `auto` fell back to the CPU
/// although the algorithm has a GPU implementation, why.
pub fn choose_engine(
    choice: EngineChoice,
    algo: &Algo,
) -> Result<(Engine, Option<String>), CliError> {
    pick_engine(
        choice,
        (!algo.has_gpu()).then(|| no_gpu_implementation(algo)),
    )
}

/// Chooses the engine for work with a GPU implementation, or without one (`no_gpu`: the error
/// of `--engine gpu` then). Returns the engine and, when `auto` fell back to the CPU although
/// there is a GPU implementation, why.
pub fn pick_engine(
    choice: EngineChoice,
    no_gpu: Option<CliError>,
) -> Result<(Engine, Option<String>), CliError> {
    let has_gpu = no_gpu.is_none();
    match choice {
        EngineChoice::Cpu => Ok((Engine::Cpu, None)),
        EngineChoice::Gpu => {
            let gpu = open_gpu().map_err(|reason| CliError::NoDevice { reason })?;
            if let Some(e) = no_gpu {
                return Err(e);
            }
            Ok((Engine::Gpu(gpu), None))
        }
        EngineChoice::Auto => {
            if !has_gpu {
                return Ok((Engine::Cpu, None));
            }
            match open_gpu() {
                Ok(_) if !runtime::nvrtc_available() => Ok((
                    Engine::Cpu,
                    Some("a GPU is present but NVRTC cannot be loaded".to_string()),
                )),
                Ok(gpu) => Ok((Engine::Gpu(gpu), None)),
                Err(reason) => Ok((Engine::Cpu, Some(format!("no CUDA device ({reason})")))),
            }
        }
    }
}

/// Sorts `keys` in place with `algo` on `engine`. On the GPU this uploads, sorts and
/// downloads; `keys` is unchanged if the GPU fails.
pub fn sort_on<K: CliKey>(
    engine: &Engine,
    algo: &Algo,
    keys: &mut [K],
    order: Order,
) -> Result<(), CliError> {
    match engine {
        Engine::Cpu => {
            cpu_sort::<K>(algo)?(keys, order);
            Ok(())
        }
        Engine::Gpu(gpu) => {
            let sort = gpu_sort::<K>(algo)?;
            if keys.len() < 2 {
                return Ok(());
            }
            let what = || format!("sorting with {} on the GPU", algo.name);
            let gpu_err = |source| CliError::Gpu {
                what: what(),
                source,
            };
            let mut buf = DeviceBuffer::from_host(gpu, keys).map_err(gpu_err)?;
            sort(gpu, &mut buf, order).map_err(gpu_err)?;
            buf.copy_to_host(keys).map_err(gpu_err)
        }
    }
}

/// The CPU engine's device, for reports: `"CPU: <model> (<threads> threads)"`.
pub fn cpu_description() -> String {
    format!(
        "CPU: {} ({} threads)",
        cpu_model(),
        rayon::current_num_threads()
    )
}

/// The CPU's model name (from `/proc/cpuinfo`), or the architecture where that is unknown.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}
