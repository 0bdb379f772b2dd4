//! `sortlab bench primitives`: every reduce and scan variant on the GPU (and the CPU twins),
//! in GB/s next to the device-to-device copy rate measured in the same run.
//!
//! GPU rows time the device-resident library call with CUDA events, the way CUB's anchors time
//! `DeviceReduce` and `DeviceScan`: the result stays on the device (`reduce_sum_into`,
//! `scan_with_scratch`) and temporary memory is the caller's, allocated once (host work per call,
//! module lookup and launch checks, is inside the timed region). A warm-up call compiles the
//! module; the median of `--reps` runs is reported, and each reduction's result is checked
//! against the CPU after the timing. Inputs and outputs rotate over copies spanning three L2
//! caches ([`super::bench_slots`]), as the anchors' do, so small sizes are timed from device
//! memory too. Bytes counted: a reduction reads `n` keys;
//! a scan reads and writes `n` keys; the copy reads and writes `n` keys.
//!
//! `--algo` picks rows by name (`reduce-fast`, `scan-decoupled`, `reduce-rayon`, ...: see
//! [`algos`]); the copy, the bound of the GPU rows, is timed whenever a GPU row is.

use std::time::Instant;

use sortlab_primitives::reduce::{
    self, reduce_min_into, reduce_sum_into, ReduceKey, ReduceOp, ReduceVariant,
};
use sortlab_primitives::scan::{self, scan_with_scratch, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Gpu};

use super::bench::{gpu_if, median, parse_common, today, BenchRow};
use super::bench_filter::AlgoFilter;
use super::bench_slots::{buffers, copies, slot_count, time_gpu_rotating};
use super::{ms, note, say};
use crate::args::BenchArgs;
use crate::backend::gen::generate;
use crate::engine::cpu_description;
use crate::error::CliError;
use crate::io::write_atomic;
use crate::key::CliKey;
use crate::with_key_type;

/// Largest input the CPU twins are timed on (beyond it a 2-core machine takes too long).
const CPU_MAX_LEN: u64 = 1 << 24;

/// The CPU twins' rows.
const CPU_ALGOS: [&str; 2] = ["reduce-rayon", "scan-rayon"];

fn reduce_algo(v: ReduceVariant) -> String {
    format!("reduce-{}", v.name())
}

fn scan_algo(v: ScanVariant) -> String {
    format!("scan-{}", v.name())
}

/// The suite's GPU rows (`copy`, every reduction, every scan) by name.
fn gpu_algos() -> Vec<String> {
    std::iter::once("copy".to_string())
        .chain(ReduceVariant::ALL.into_iter().map(reduce_algo))
        .chain(ScanVariant::ALL.into_iter().map(scan_algo))
        .collect()
}

/// Every row name of the suite, GPU then CPU (what `--algo` accepts).
pub fn algos() -> Vec<String> {
    let mut names = gpu_algos();
    names.extend(CPU_ALGOS.map(String::from));
    names
}

struct Ctx {
    gpu: Option<Gpu>,
    algos: AlgoFilter,
    reps: u32,
    seed: u64,
    date: String,
    cpu: String,
}

/// Runs the primitives suite.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let (types, patterns) = parse_common(args)?;
    let algos = AlgoFilter::new(args.algo.as_deref(), &self::algos())?;
    let gpu = gpu_if(algos.wants_any(&gpu_algos()));
    let ctx = Ctx {
        gpu,
        algos,
        reps: args.reps,
        seed: args.seed,
        date: today(),
        cpu: cpu_description(),
    };
    say(&format!(
        "{:<26} {:<6} {:<20} {:<5} {:<15} {:>11} {:>10} {:>9} {:>8}",
        "algo", "engine", "op", "type", "pattern", "n", "ms", "GB/s", "of copy"
    ));
    let mut rows = Vec::new();
    for t in types {
        for &pattern in &patterns {
            for &log2 in &args.sizes {
                let n = 1u64 << log2;
                with_key_type!(t, K => bench_one::<K>(&ctx, n, pattern, &mut rows)?);
            }
        }
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

#[allow(clippy::too_many_arguments)]
fn row<K: CliKey>(
    ctx: &Ctx,
    algo: String,
    engine: &'static str,
    op: &'static str,
    pattern: &str,
    n: u64,
    ms: f64,
    bytes: u64,
) -> BenchRow {
    let secs = (ms / 1e3).max(f64::MIN_POSITIVE);
    BenchRow {
        tool: "sortlab",
        algo,
        engine,
        op,
        key_type: K::NAME,
        value_type: None,
        pattern: pattern.to_string(),
        n,
        ms,
        keys_per_s: n as f64 / secs,
        gbps: bytes as f64 / secs / 1e9,
        bytes,
        device: match (engine, &ctx.gpu) {
            ("gpu", Some(g)) => g.info().name.clone(),
            _ => ctx.cpu.clone(),
        },
        date: ctx.date.clone(),
    }
}

fn print(r: &BenchRow, copy_gbps: Option<f64>) {
    let frac = match copy_gbps {
        Some(c) if c > 0.0 => format!("{:.2}", r.gbps / c),
        _ => "-".into(),
    };
    say(&format!(
        "{:<26} {:<6} {:<20} {:<5} {:<15} {:>11} {:>10.4} {:>9.1} {:>8}",
        r.algo, r.engine, r.op, r.key_type, r.pattern, r.n, r.ms, r.gbps, frac
    ));
}

pub(crate) fn gpu_err(what: &str) -> impl Fn(sortlab_primitives::Error) -> CliError + '_ {
    move |source| CliError::Gpu {
        what: what.to_string(),
        source,
    }
}

fn time_cpu(reps: u32, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            ms(s.elapsed())
        })
        .collect();
    median(&mut t)
}

fn bench_one<K: CliKey + ReduceKey>(
    ctx: &Ctx,
    n: u64,
    pattern: crate::backend::patterns::Pattern,
    rows: &mut Vec<BenchRow>,
) -> Result<(), CliError> {
    let input = generate::<K>(pattern, n as usize, ctx.seed);
    let pname = pattern.to_string();
    let size = K::SIZE as u64;
    let cpu_sum = sortlab_cpu_reference::reduce::sum(&input);
    if let Some(gpu) = &ctx.gpu {
        let what = format!("benchmarking primitives on {} {}", n, K::NAME);
        let d_in = DeviceBuffer::from_host(gpu, &input).map_err(gpu_err(&what))?;
        // Inputs and outputs rotate over slots spanning three L2 caches (bench_slots).
        let k = slot_count(gpu, 2 * input.len() * K::SIZE);
        let ins = copies(gpu, &d_in, k, &what)?;
        drop(d_in);
        let mut outs = buffers::<K>(gpu, input.len(), k, &what)?;
        // The bandwidth reference: a device-to-device copy of the same bytes.
        let t = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
            outs[s].copy_from_device(&ins[s])
        })?
        .0;
        let r = row::<K>(
            ctx,
            "copy".into(),
            "gpu",
            "copy",
            &pname,
            n,
            t,
            2 * n * size,
        );
        let copy_gbps = Some(r.gbps);
        print(&r, copy_gbps);
        rows.push(r);
        let mut d_sum = DeviceBuffer::<K::Sum>::alloc(gpu, 1).map_err(gpu_err(&what))?;
        for v in ReduceVariant::ALL {
            if !ctx.algos.wants(&reduce_algo(v)) {
                continue;
            }
            let bytes = reduce::scratch_bytes::<K>(gpu, input.len(), ReduceOp::Sum, v);
            let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(gpu_err(&what))?;
            let t = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
                reduce_sum_into(gpu, &ins[s], v, &mut d_sum, Some(&mut scratch))
            })?
            .0;
            // Integer sums must agree exactly; float sums within rounding.
            let g = d_sum.to_host().map_err(gpu_err(&what))?[0];
            let (a, b) = (K::sum_to_f64(g), K::sum_to_f64(cpu_sum));
            let tol = if K::IS_FLOAT {
                1e-3 * b.abs().max(1.0)
            } else {
                0.0
            };
            if (a - b).abs() > tol {
                return Err(CliError::WrongResult {
                    what: format!("reduce-{} on {} {}", v.name(), n, K::NAME),
                    message: format!("GPU sum {g}, CPU sum {cpu_sum}"),
                });
            }
            let r = row::<K>(
                ctx,
                reduce_algo(v),
                "gpu",
                "reduce_sum",
                &pname,
                n,
                t,
                n * size,
            );
            print(&r, copy_gbps);
            rows.push(r);
        }
        let fast = ReduceVariant::Fast;
        if ctx.algos.wants(&reduce_algo(fast)) {
            let bytes = reduce::scratch_bytes::<K>(gpu, input.len(), ReduceOp::Min, fast);
            let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(gpu_err(&what))?;
            let mut d_min = DeviceBuffer::<K>::alloc(gpu, 1).map_err(gpu_err(&what))?;
            let t = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
                reduce_min_into(gpu, &ins[s], fast, &mut d_min, Some(&mut scratch)).map(|_| ())
            })?
            .0;
            let r = row::<K>(
                ctx,
                reduce_algo(fast),
                "gpu",
                "reduce_min",
                &pname,
                n,
                t,
                n * size,
            );
            print(&r, copy_gbps);
            rows.push(r);
        }
        for v in ScanVariant::ALL {
            if v.max_len().is_some_and(|m| (n as usize) > m) || !ctx.algos.wants(&scan_algo(v)) {
                continue;
            }
            for (kind, op) in [
                (ScanKind::Inclusive, "scan_inclusive_sum"),
                (ScanKind::Exclusive, "scan_exclusive_sum"),
            ] {
                if kind == ScanKind::Exclusive && v != ScanVariant::Fast {
                    continue;
                }
                let bytes = scan::scratch_bytes::<K>(gpu, input.len(), v);
                let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(gpu_err(&what))?;
                let t = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
                    scan_with_scratch(
                        gpu,
                        &ins[s],
                        &mut outs[s],
                        ScanOp::Sum,
                        kind,
                        Direction::Forward,
                        v,
                        &mut scratch,
                    )
                })?
                .0;
                let r = row::<K>(ctx, scan_algo(v), "gpu", op, &pname, n, t, 2 * n * size);
                print(&r, copy_gbps);
                rows.push(r);
            }
        }
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants(CPU_ALGOS[0]) {
        let t = time_cpu(ctx.reps, || {
            std::hint::black_box(sortlab_cpu_reference::reduce::sum(&input));
        });
        let r = row::<K>(
            ctx,
            CPU_ALGOS[0].into(),
            "cpu",
            "reduce_sum",
            &pname,
            n,
            t,
            n * size,
        );
        print(&r, None);
        rows.push(r);
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants(CPU_ALGOS[1]) {
        let t = time_cpu(ctx.reps, || {
            std::hint::black_box(sortlab_cpu_reference::scan::scan(
                &input,
                ScanOp::Sum,
                ScanKind::Inclusive,
                Direction::Forward,
            ));
        });
        let r = row::<K>(
            ctx,
            CPU_ALGOS[1].into(),
            "cpu",
            "scan_inclusive_sum",
            &pname,
            n,
            t,
            2 * n * size,
        );
        print(&r, None);
        rows.push(r);
    }
    Ok(())
}
