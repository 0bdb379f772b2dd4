//! `sortlab bench primitives`: every reduce and scan variant on the GPU (and the CPU twins),
//! in GB/s next to the device-to-device copy rate measured in the same run.
//!
//! GPU rows time the device-resident library call with CUDA events, the way CUB's anchors time
//! `DeviceReduce` and `DeviceScan`: the result stays on the device (`reduce_sum_into`,
//! `scan_with_scratch`) and temporary memory is the caller's, allocated once (host work per call,
//! module lookup and launch checks, is inside the timed region). Inputs and outputs rotate over
//! slots spanning three L2 caches (`bench::timing`), and each reduction's result is
//! checked against the CPU after the timing. Bytes counted: a reduction reads `n` keys; a scan
//! reads and writes `n` keys; the copy reads and writes `n` keys.
//!
//! `--algo` picks rows by name (`reduce-fast`, `scan-decoupled`, `reduce-rayon`, ...: see
//! [`algos`]); the copy, the bound of the GPU rows, is timed whenever a GPU row is.

use sortlab_primitives::reduce::{
    self, reduce_min_into, reduce_sum_into, ReduceKey, ReduceOp, ReduceVariant,
};
use sortlab_primitives::scan::{self, scan_with_scratch, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{DeviceBuffer, Gpu};

use crate::args::BenchArgs;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{BenchRow, RowId};
use crate::bench::setup::{write_rows, Run};
use crate::bench::timing::{buffers, copies, gpu_err, slot_count, time_cpu, time_gpu_rotating};
use crate::cmd::say;
use crate::error::CliError;
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

/// Runs the primitives suite.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let ctx = Run::new(args, &self::algos(), &gpu_algos())?;
    say(&format!(
        "{:<26} {:<6} {:<20} {:<5} {:<15} {:>11} {:>10} {:>9} {:>8}",
        "algo", "engine", "op", "type", "pattern", "n", "ms", "GB/s", "of copy"
    ));
    let mut rows = Vec::new();
    for (t, pattern, n) in ctx.points() {
        with_key_type!(t, K => bench_one::<K>(&ctx, n, pattern, &mut rows)?);
    }
    write_rows(args, &rows)
}

/// Where one point's rows go.
struct Out<'a> {
    ctx: &'a Run,
    rows: &'a mut Vec<BenchRow>,
    key_type: &'static str,
    pattern: String,
    n: u64,
    copy_gbps: Option<f64>,
}

impl Out<'_> {
    /// Prints and keeps the row of `algo` on `engine` doing `op` in `ms`, moving `bytes`.
    fn push(&mut self, algo: String, engine: &'static str, op: &'static str, ms: f64, bytes: u64) {
        let id = RowId {
            algo,
            engine,
            op,
            key_type: self.key_type,
            value_type: None,
            pattern: self.pattern.clone(),
        };
        let r = BenchRow::new(id, self.n, ms, bytes, &self.ctx.stamp);
        let frac = match self.copy_gbps {
            Some(c) if engine == "gpu" && c > 0.0 => format!("{:.2}", r.gbps / c),
            _ => "-".into(),
        };
        say(&format!(
            "{:<26} {:<6} {:<20} {:<5} {:<15} {:>11} {:>10.4} {:>9.1} {:>8}",
            r.algo, r.engine, r.op, r.key_type, r.pattern, r.n, r.ms, r.gbps, frac
        ));
        self.rows.push(r);
    }
}

fn bench_one<K: CliKey + ReduceKey>(
    ctx: &Run,
    n: u64,
    pattern: Pattern,
    rows: &mut Vec<BenchRow>,
) -> Result<(), CliError> {
    let input = generate::<K>(pattern, n as usize, ctx.seed);
    let size = K::SIZE as u64;
    let mut out = Out {
        ctx,
        rows,
        key_type: K::NAME,
        pattern: pattern.to_string(),
        n,
        copy_gbps: None,
    };
    if let Some(gpu) = &ctx.gpu {
        gpu_rows::<K>(gpu, &input, &mut out)?;
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants(CPU_ALGOS[0]) {
        let t = time_cpu(
            ctx.reps,
            &mut (),
            |_| {},
            |_| {
                std::hint::black_box(sortlab_cpu_reference::reduce::sum(&input));
            },
        );
        out.push(CPU_ALGOS[0].into(), "cpu", "reduce_sum", t, n * size);
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants(CPU_ALGOS[1]) {
        let t = time_cpu(
            ctx.reps,
            &mut (),
            |_| {},
            |_| {
                std::hint::black_box(sortlab_cpu_reference::scan::scan(
                    &input,
                    ScanOp::Sum,
                    ScanKind::Inclusive,
                    Direction::Forward,
                ));
            },
        );
        out.push(
            CPU_ALGOS[1].into(),
            "cpu",
            "scan_inclusive_sum",
            t,
            2 * n * size,
        );
    }
    Ok(())
}

fn gpu_rows<K: CliKey + ReduceKey>(
    gpu: &Gpu,
    input: &[K],
    out: &mut Out<'_>,
) -> Result<(), CliError> {
    let (ctx, n) = (out.ctx, out.n);
    let size = K::SIZE as u64;
    let cpu_sum = sortlab_cpu_reference::reduce::sum(input);
    let what = format!("benchmarking primitives on {} {}", n, K::NAME);
    let err = gpu_err(&what);
    let d_in = DeviceBuffer::from_host(gpu, input).map_err(&err)?;
    // Inputs and outputs rotate over slots spanning three L2 caches.
    let k = slot_count(gpu, 2 * input.len() * K::SIZE);
    let ins = copies(gpu, &d_in, k, &what)?;
    drop(d_in);
    let mut outs = buffers::<K>(gpu, input.len(), k, &what)?;
    // The bandwidth reference: a device-to-device copy of the same bytes.
    let (t, _) = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
        outs[s].copy_from_device(&ins[s])
    })?;
    out.copy_gbps = Some(crate::bench::row::gbps(2 * n * size, t));
    out.push("copy".into(), "gpu", "copy", t, 2 * n * size);
    let mut d_sum = DeviceBuffer::<K::Sum>::alloc(gpu, 1).map_err(&err)?;
    for v in ReduceVariant::ALL {
        if !ctx.algos.wants(&reduce_algo(v)) {
            continue;
        }
        let bytes = reduce::scratch_bytes::<K>(gpu, input.len(), ReduceOp::Sum, v);
        let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(&err)?;
        let (t, _) = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
            reduce_sum_into(gpu, &ins[s], v, &mut d_sum, Some(&mut scratch))
        })?;
        // Integer sums must agree exactly; float sums within rounding.
        let g = d_sum.to_host().map_err(&err)?[0];
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
        out.push(reduce_algo(v), "gpu", "reduce_sum", t, n * size);
    }
    let fast = ReduceVariant::Fast;
    if ctx.algos.wants(&reduce_algo(fast)) {
        let bytes = reduce::scratch_bytes::<K>(gpu, input.len(), ReduceOp::Min, fast);
        let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(&err)?;
        let mut d_min = DeviceBuffer::<K>::alloc(gpu, 1).map_err(&err)?;
        let (t, _) = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
            reduce_min_into(gpu, &ins[s], fast, &mut d_min, Some(&mut scratch)).map(|_| ())
        })?;
        out.push(reduce_algo(fast), "gpu", "reduce_min", t, n * size);
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
            let bytes = scan::scratch_bytes::<K>(input.len(), v);
            let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes).map_err(&err)?;
            let (t, _) = time_gpu_rotating(gpu, ctx.reps, &what, k, |s| {
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
            })?;
            out.push(scan_algo(v), "gpu", op, t, 2 * n * size);
        }
    }
    Ok(())
}
