//! `sortlab bench`: benchmark suites. `sort` times every registered sort on every engine
//! available here: warm-up runs (three on the GPU, one on the CPU), then the median of `--reps`
//! timed runs, each on a fresh copy of the same generated input. CPU runs are timed with the
//! wall clock around the sort alone; GPU runs with CUDA events around the device-resident sort
//! alone (no transfers).

use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sortlab_primitives::{DeviceBuffer, Gpu, GpuTimer, KeyType, Order};

use super::{ms, note, parse_pattern, say};
use crate::algo::{find_algo, Algo, ALGOS};
use crate::args::BenchArgs;
use crate::backend::{check, gen::generate, patterns::Pattern};
use crate::engine::{cpu_description, open_gpu, Engine};
use crate::error::CliError;
use crate::io::{alloc_keys, write_atomic};
use crate::key::{parse_key_type, CliKey};
use crate::with_key_type;

/// The benchmark suites `sortlab bench` knows.
pub const SUITES: &[&str] = &["sort", "primitives", "radix", "approxsort", "roughsort"];

/// One benchmark result, as written to the JSON Lines file (field order is the schema's).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Always `"sortlab"`.
    pub tool: &'static str,
    /// Algorithm name from the registry.
    pub algo: String,
    /// `"cpu"` or `"gpu"`.
    pub engine: &'static str,
    /// The operation timed (`"sort_keys"`).
    pub op: &'static str,
    /// Key type name.
    #[serde(rename = "type")]
    pub key_type: &'static str,
    /// Value type name for key-value sorts; `null` for keys only.
    pub value_type: Option<&'static str>,
    /// Input pattern name.
    pub pattern: String,
    /// Number of keys.
    pub n: u64,
    /// Median time in milliseconds.
    pub ms: f64,
    /// Keys per second at the median time.
    pub keys_per_s: f64,
    /// `bytes` per second at the median time, in GB/s (10^9 bytes).
    pub gbps: f64,
    /// Bytes a sort must move at least: every key read once and written once (`2 * n * size`).
    pub bytes: u64,
    /// The GPU's name, or the CPU's description.
    pub device: String,
    /// The date of the run, `YYYY-MM-DD` (UTC).
    pub date: String,
}

/// Runs the suite `args.suite`, prints a table on stdout and writes `--json` if asked.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    match args.suite.as_str() {
        "sort" => bench_sort(args),
        "primitives" => super::bench_primitives::run(args),
        "radix" => super::bench_algos::run(super::bench_algos::Suite::Radix, args),
        "approxsort" => super::bench_algos::run(super::bench_algos::Suite::Approx, args),
        "roughsort" => super::bench_algos::run(super::bench_algos::Suite::Rough, args),
        other => Err(CliError::UnknownSuite {
            given: other.to_string(),
            known: SUITES.join(", "),
        }),
    }
}

struct Plan<'a> {
    algos: Vec<&'static Algo>,
    patterns: Vec<(String, Pattern)>,
    sizes: &'a [u32],
    reps: u32,
    order: Order,
    seed: u64,
    gpu: Option<Gpu>,
    date: String,
    cpu: String,
}

/// The items of a comma-separated list, trimmed, empty ones left out.
pub(crate) fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').map(str::trim).filter(|x| !x.is_empty())
}

/// What every suite takes from the command line before it runs anything: the key types and
/// patterns (unknown names are errors), and a check that the `--json` file can be written
/// (its folder exists), so that a long run does not end in an error.
pub(crate) fn parse_common(args: &BenchArgs) -> Result<(Vec<KeyType>, Vec<Pattern>), CliError> {
    let types = split_list(&args.key_type)
        .map(parse_key_type)
        .collect::<Result<Vec<KeyType>, _>>()?;
    let patterns = split_list(&args.pattern)
        .map(parse_pattern)
        .collect::<Result<Vec<Pattern>, _>>()?;
    if let Some(json) = &args.json {
        check_writable_dir(json)?;
    }
    Ok((types, patterns))
}

/// The GPU, where some row to run needs one (`wanted`) and there is one; else `None`, with a
/// note when one was wanted.
pub(crate) fn gpu_if(wanted: bool) -> Option<Gpu> {
    if !wanted {
        return None;
    }
    match open_gpu() {
        Ok(gpu) => Some(gpu),
        Err(reason) => {
            note(&format!("no CUDA device ({reason}): CPU rows only"));
            None
        }
    }
}

fn bench_sort(args: &BenchArgs) -> Result<(), CliError> {
    let (types, patterns) = parse_common(args)?;
    let patterns: Vec<(String, Pattern)> =
        patterns.into_iter().map(|p| (p.to_string(), p)).collect();
    let algos = match &args.algo {
        Some(list) => split_list(list)
            .map(find_algo)
            .collect::<Result<Vec<_>, _>>()?,
        None => ALGOS.iter().collect(),
    };
    let gpu = gpu_if(algos.iter().any(|a| a.gpu.is_some()));
    let plan = Plan {
        algos,
        patterns,
        sizes: &args.sizes,
        reps: args.reps,
        order: args.order,
        seed: args.seed,
        gpu,
        date: today(),
        cpu: cpu_description(),
    };
    note(&format!(
        "bench sort: {} ({}), median of {} runs after warm-up runs, seed {}",
        plan.cpu,
        match &plan.gpu {
            Some(g) => format!("GPU: {}", g.info().name),
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
    if let Some(json) = &args.json {
        write_atomic(json, |w| {
            for row in &rows {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n")?;
            }
            Ok(())
        })?;
        note(&format!("wrote {} rows to {}", rows.len(), json.display()));
    }
    Ok(())
}

/// Fails early, before minutes of benchmarking, when the JSON file's directory is missing.
fn check_writable_dir(path: &Path) -> Result<(), CliError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(CliError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("directory {} does not exist", dir.display()),
            ),
        })
    }
}

fn bench_type<K: CliKey>(plan: &Plan<'_>, rows: &mut Vec<BenchRow>) -> Result<(), CliError> {
    for (pattern_name, pattern) in &plan.patterns {
        for &log2 in plan.sizes {
            let n = 1u64 << log2;
            drop(alloc_keys::<K>(2 * n)?);
            let input = generate::<K>(*pattern, n as usize, plan.seed);
            for &algo in &plan.algos {
                let mut engines = vec![Engine::Cpu];
                if let (Some(gpu), Some(_)) = (&plan.gpu, &algo.gpu) {
                    engines.push(Engine::Gpu(gpu.clone()));
                }
                for engine in engines {
                    let median_ms = match &engine {
                        Engine::Cpu => time_cpu(algo, &input, plan)?,
                        Engine::Gpu(gpu) => time_gpu(gpu, algo, &input, plan)?,
                    };
                    let row = make_row::<K>(plan, algo, &engine, pattern_name, n, median_ms);
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

fn make_row<K: CliKey>(
    plan: &Plan<'_>,
    algo: &Algo,
    engine: &Engine,
    pattern: &str,
    n: u64,
    median_ms: f64,
) -> BenchRow {
    let bytes = 2 * n * K::SIZE as u64;
    let secs = (median_ms / 1e3).max(f64::MIN_POSITIVE);
    BenchRow {
        tool: "sortlab",
        algo: algo.name.to_string(),
        engine: engine.name(),
        op: "sort_keys",
        key_type: K::NAME,
        value_type: None,
        pattern: pattern.to_string(),
        n,
        ms: median_ms,
        keys_per_s: n as f64 / secs,
        gbps: bytes as f64 / secs / 1e9,
        bytes,
        device: match engine {
            Engine::Cpu => plan.cpu.clone(),
            Engine::Gpu(g) => g.info().name.clone(),
        },
        date: plan.date.clone(),
    }
}

fn time_cpu<K: CliKey>(algo: &Algo, input: &[K], plan: &Plan<'_>) -> Result<f64, CliError> {
    let sort = K::cpu_sort(&algo.cpu);
    let mut work = input.to_vec();
    sort(&mut work, plan.order);
    let mut times = Vec::with_capacity(plan.reps as usize);
    for _ in 0..plan.reps {
        work.copy_from_slice(input);
        let start = Instant::now();
        sort(&mut work, plan.order);
        times.push(ms(start.elapsed()));
    }
    sanity_check(algo, "cpu", &work, plan.order)?;
    Ok(median(&mut times))
}

fn time_gpu<K: CliKey>(
    gpu: &Gpu,
    algo: &Algo,
    input: &[K],
    plan: &Plan<'_>,
) -> Result<f64, CliError> {
    let what = || format!("benchmarking {} on the GPU", algo.name);
    let gpu_err = |source| CliError::Gpu {
        what: what(),
        source,
    };
    let Some(table) = &algo.gpu else {
        return Err(CliError::NoGpuImplementation {
            algo: algo.name.to_string(),
            with_gpu: crate::algo::gpu_algo_names(),
        });
    };
    let sort = K::gpu_sort(table);
    // The input, its working copy and the sort's scratch, twice over.
    let bytes = std::mem::size_of_val(input);
    super::bench_slots::reserve_room(gpu, 4 * bytes, &what())?;
    let pristine = DeviceBuffer::from_host(gpu, input).map_err(gpu_err)?;
    let mut work = pristine.try_clone().map_err(gpu_err)?;
    let timer = GpuTimer::new(gpu).map_err(gpu_err)?;
    for _ in 0..super::bench_slots::WARMUP_CALLS {
        work.copy_from_device(&pristine).map_err(gpu_err)?;
        sort(gpu, &mut work, plan.order).map_err(gpu_err)?;
    }
    let mut times = Vec::with_capacity(plan.reps as usize);
    for _ in 0..plan.reps {
        work.copy_from_device(&pristine).map_err(gpu_err)?;
        timer.start().map_err(gpu_err)?;
        sort(gpu, &mut work, plan.order).map_err(gpu_err)?;
        times.push(timer.stop().map_err(gpu_err)?);
    }
    let out = work.to_host().map_err(gpu_err)?;
    sanity_check(algo, "gpu", &out, plan.order)?;
    Ok(median(&mut times))
}

/// A benchmark of a wrong sort is worthless: check the last run's output is sorted.
fn sanity_check<K: CliKey>(
    algo: &Algo,
    engine: &str,
    keys: &[K],
    order: Order,
) -> Result<(), CliError> {
    check::check_sorted(keys, order).map_err(|e| CliError::WrongResult {
        what: format!("{} on the {engine} engine", algo.name),
        message: e.to_string(),
    })
}

/// The median of `times` (the primitives' [`sortlab_primitives::median`]).
pub use sortlab_primitives::median;

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(today().len(), 10);
    }
}
