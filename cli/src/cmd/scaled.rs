//! `sortlab sort --gpus N` and `sortlab sort --device-memory BYTES`: the radix sort past one
//! GPU, across several GPUs of this host (`gpu-sorts::multi`, through NCCL) or streamed through
//! a device-memory budget (`gpu-sorts::stream`).
//!
//! Both take the file into host memory first: the CPU side of a file larger than host memory is
//! out of scope, and so is the CPU engine's sort of one (it sorts in host memory, with
//! `--engine cpu` and where no GPU opens under `--engine auto`).

use std::time::Instant;

use sortlab_gpu_sorts::multi::{self, MultiOptions};
use sortlab_gpu_sorts::radix::{self, RadixOptions};
use sortlab_gpu_sorts::stream::{self, StreamOptions, StreamProgress};
use sortlab_primitives::GpuGroup;

use super::{ms, note};
use crate::args::SortArgs;
use crate::engine::{pick_engine, Engine, EngineChoice};
use crate::error::CliError;
use crate::io::{read_keys, write_keys};
use crate::key::CliKey;
use crate::progress;

/// The one algorithm `--gpus` and `--device-memory` sort with.
pub const ALGO: &str = "radix";

/// Fails unless `algo` (the `--algo` given, if any) is [`ALGO`].
pub fn check_algo(algo: Option<&str>) -> Result<(), CliError> {
    match algo {
        None | Some(ALGO) => Ok(()),
        Some(other) => Err(CliError::Usage(format!(
            "--gpus and --device-memory sort with `{ALGO}` (gpu-sorts' multi-GPU and streamed \
             radix sorts), not `{other}`: leave --algo out or write --algo {ALGO}"
        ))),
    }
}

/// Fails for `--engine cpu`: `--gpus` and `--device-memory` are GPU options.
pub fn refuse_cpu(engine: EngineChoice) -> Result<(), CliError> {
    if engine == EngineChoice::Cpu {
        return Err(CliError::Usage(
            "--gpus and --device-memory are GPU options: the CPU engine sorts in host memory \
             (sorting a file larger than host memory is not supported); leave them out with \
             --engine cpu"
                .into(),
        ));
    }
    Ok(())
}

/// Reads `args.input`, sorts it across `--gpus` GPUs or streamed through `--device-memory`
/// bytes, writes `args.output` (atomically) and reports what ran on stderr.
pub fn sort<K: CliKey>(args: &SortArgs) -> Result<(), CliError> {
    refuse_cpu(args.engine)?;
    let (engine, fallback) = pick_engine(args.engine, None)?;
    let mut keys = read_keys::<K>(&args.input)?;
    let bytes = (keys.len() * K::SIZE) as u64;
    let order = args.order;
    let gpu_err = |what: String| move |source| CliError::Gpu { what, source };
    let start = Instant::now();
    let how = match &engine {
        Engine::Cpu => {
            sortlab_cpu_reference::radix::sort_keys(&mut keys, order);
            "with the rayon radix sort".to_string()
        }
        Engine::Gpu(gpu) => match (args.gpus, args.device_memory) {
            (Some(g), _) if g > 1 => {
                let ordinals: Vec<usize> = (0..g as usize).collect();
                let group = GpuGroup::new(&ordinals)
                    .map_err(gpu_err(format!("opening {g} GPUs with NCCL")))?;
                let spin = progress::spinner(bytes, &format!("sorting across {g} GPUs"));
                let opts = MultiOptions::default().with_order(order);
                let report = multi::sort_keys_host(&group, &mut keys, &opts)
                    .map_err(gpu_err(format!("sorting across {g} GPUs")))?;
                spin.finish_and_clear();
                format!(
                    "with {ALGO} across {g} GPUs (keys per GPU: {:?})",
                    report.shares
                )
            }
            (_, Some(budget)) => {
                let bar = progress::bytes_bar(bytes, "streaming");
                let opts = StreamOptions::default()
                    .with_order(order)
                    .with_device_budget(Some(usize::try_from(budget).unwrap_or(usize::MAX)));
                let show = |p: StreamProgress| {
                    bar.set_length(p.total_bytes);
                    bar.set_position(p.done_bytes);
                };
                let report = stream::sort_keys_with_progress(gpu, &mut keys, &opts, &show)
                    .map_err(gpu_err(format!(
                        "streaming the keys through {budget} bytes of device memory"
                    )))?;
                bar.finish_and_clear();
                format!(
                    "with {ALGO} streamed through {budget} bytes of device memory ({} chunks, {} \
                     buckets, {} crossings of the host link)",
                    report.chunks, report.buckets, report.crossings
                )
            }
            _ => {
                let spin = progress::spinner(bytes, "sorting on the GPU");
                radix::sort_keys_host(gpu, &mut keys, &RadixOptions::default().with_order(order))
                    .map_err(gpu_err("sorting with radix on the GPU".to_string()))?;
                spin.finish_and_clear();
                format!("with {ALGO} on one GPU")
            }
        },
    };
    let elapsed = start.elapsed();
    write_keys(&args.output, &keys)?;
    if let Some(why) = fallback {
        note(&format!(
            "note: {why}; using the CPU engine (--gpus and --device-memory do not apply)"
        ));
    }
    note(&format!(
        "sorted {} {} keys ({}) {how} on the {} engine [{}] in {:.3} ms (with transfers)",
        keys.len(),
        K::NAME,
        order,
        engine.name(),
        engine.device(),
        ms(elapsed)
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_radix_scales() {
        assert!(check_algo(None).is_ok());
        assert!(check_algo(Some("radix")).is_ok());
        let e = check_algo(Some("merge")).unwrap_err().to_string();
        assert!(e.contains("--algo radix") && e.contains("merge"), "{e}");
    }
}
