//! `sortlab bench sort`: every registered sort (`sortlab_registry::ALGOS`) on every engine
//! available here: warm-up runs (three on the GPU, one on the CPU), then the median of `--reps`
//! timed runs, each on a fresh copy of the same generated input. CPU runs are timed with the
//! wall clock around the sort alone; GPU runs with CUDA events around the device-resident sort
//! alone (no transfers), on one buffer restored from a pristine device copy before each run.

use sortlab_primitives::{DeviceBuffer, Gpu, Order};
use sortlab_registry::{Algo, ALGOS};

use crate::algo::{cpu_sort, find_algo, gpu_sort};
use crate::args::BenchArgs;
use crate::backend::{check, gen::generate, patterns::Pattern};
use crate::bench::row::{wrong, BenchRow, RowId, Stamp};
use crate::bench::setup::{gpu_if, parse_common, split_list, write_rows};
use crate::bench::timing::{gpu_err, reserve_room, time_cpu, time_gpu_slots};
use crate::cmd::{note, say};
use crate::engine::Engine;
use crate::error::CliError;
use crate::io::alloc_keys;
use crate::key::CliKey;
use crate::with_key_type;

struct Plan<'a> {
    algos: Vec<&'static Algo>,
    patterns: Vec<(String, Pattern)>,
    sizes: &'a [u32],
    reps: u32,
    order: Order,
    seed: u64,
    gpu: Option<Gpu>,
    stamp: Stamp,
}

/// Runs the suite over the types, patterns and sizes of `args`.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let (types, patterns) = parse_common(args)?;
    let patterns: Vec<(String, Pattern)> =
        patterns.into_iter().map(|p| (p.to_string(), p)).collect();
    let algos = match &args.algo {
        Some(list) => split_list(list)
            .map(find_algo)
            .collect::<Result<Vec<_>, _>>()?,
        None => ALGOS.iter().collect(),
    };
    let gpu = gpu_if(algos.iter().any(|a| a.has_gpu()));
    let stamp = Stamp::new(gpu.as_ref(), args.order);
    let plan = Plan {
        algos,
        patterns,
        sizes: &args.sizes,
        reps: args.reps,
        order: args.order,
        seed: args.seed,
        gpu,
        stamp,
    };
    note(&format!(
        "bench sort: {} ({}), median of {} runs after warm-up runs, seed {}",
        plan.stamp.cpu,
        match &plan.stamp.gpu {
            Some(name) => format!("GPU: {name}"),
            None => "no GPU".to_string(),
        },
        plan.reps,
        plan.seed
    ));
    say(&format!(
        "{:<24} {:<6} {:<5} {:<16} {:>12} {:>12} {:>10}",
        "algo", "engine", "type", "pattern", "n", "ms", "Mkeys/s"
    ));
    let mut rows = Vec::new();
    for t in types {
        with_key_type!(t, K => bench_type::<K>(&plan, &mut rows)?);
    }
    write_rows(args, &rows)
}

fn bench_type<K: CliKey>(plan: &Plan<'_>, rows: &mut Vec<BenchRow>) -> Result<(), CliError> {
    for (pattern_name, pattern) in &plan.patterns {
        for &log2 in plan.sizes {
            let n = 1u64 << log2;
            drop(alloc_keys::<K>(2 * n)?);
            let input = generate::<K>(*pattern, n as usize, plan.seed);
            for &algo in &plan.algos {
                let mut engines = vec![Engine::Cpu];
                if let (Some(gpu), true) = (&plan.gpu, algo.has_gpu()) {
                    engines.push(Engine::Gpu(gpu.clone()));
                }
                for engine in engines {
                    let median_ms = match &engine {
                        Engine::Cpu => time_cpu_sort(algo, &input, plan)?,
                        Engine::Gpu(gpu) => time_gpu_sort(gpu, algo, &input, plan)?,
                    };
                    let id = RowId {
                        algo: algo.name.to_string(),
                        engine: engine.name(),
                        op: "sort_keys",
                        key_type: K::NAME,
                        value_type: None,
                        pattern: pattern_name.clone(),
                    };
                    let bytes = 2 * n * K::SIZE as u64;
                    let row = BenchRow::new(id, n, median_ms, bytes, &plan.stamp);
                    say(&format!(
                        "{:<24} {:<6} {:<5} {:<16} {:>12} {:>12.3} {:>10.2}",
                        row.algo,
                        row.engine,
                        row.key_type,
                        row.pattern,
                        row.n,
                        row.ms,
                        row.keys_per_s / 1e6
                    ));
                    rows.push(row);
                }
            }
        }
    }
    Ok(())
}

fn time_cpu_sort<K: CliKey>(algo: &Algo, input: &[K], plan: &Plan<'_>) -> Result<f64, CliError> {
    let sort = cpu_sort::<K>(algo)?;
    let mut work = input.to_vec();
    let t = time_cpu(
        plan.reps,
        &mut work[..],
        |w| w.copy_from_slice(input),
        |w| sort(w, plan.order),
    );
    sanity_check(algo, "cpu", &work, plan.order)?;
    Ok(t)
}

fn time_gpu_sort<K: CliKey>(
    gpu: &Gpu,
    algo: &Algo,
    input: &[K],
    plan: &Plan<'_>,
) -> Result<f64, CliError> {
    let what = format!("benchmarking {} on the GPU", algo.name);
    let err = gpu_err(&what);
    let sort = gpu_sort::<K>(algo)?;
    // The input, its working copy and the sort's scratch, twice over.
    reserve_room(gpu, 4 * std::mem::size_of_val(input), &what)?;
    let pristine = DeviceBuffer::from_host(gpu, input).map_err(&err)?;
    let mut work = pristine.try_clone().map_err(&err)?;
    // One slot, restored from the pristine copy before every call.
    let (t, _) = time_gpu_slots(gpu, plan.reps, &what, 1, |_, restore| {
        if restore {
            work.copy_from_device(&pristine)
        } else {
            sort(gpu, &mut work, plan.order)
        }
    })?;
    let out = work.to_host().map_err(&err)?;
    sanity_check(algo, "gpu", &out, plan.order)?;
    Ok(t)
}

/// A benchmark of a wrong sort is worthless: check the last run's output is sorted.
fn sanity_check<K: CliKey>(
    algo: &Algo,
    engine: &str,
    keys: &[K],
    order: Order,
) -> Result<(), CliError> {
    check::check_sorted(keys, order)
        .map_err(|e| wrong(&format!("{} on the {engine} engine", algo.name), e))
}
