//! `sortlab bench radix | merge | bitonic | approxsort | roughsort`: each algorithm crate's variants on the GPU,
//! keys and key-value pairs, with the device-to-device copy rate of the same bytes measured in
//! the same run as the bound, and the CPU twin beside them up to `CPU_MAX_LEN` (2^24) keys.
//!
//! Timing (`bench::timing`): three warm-up calls (the first compiles the modules), then
//! `--reps` calls timed with CUDA events over rotating slots, an in-place sort's input restored
//! from a pristine device copy outside the timed region; the median is reported. The last output
//! is checked (sorted, or interval order for the approximate sort) so a wrong result is never
//! reported as a speed.
//!
//! `--algo` picks rows by name ([`Suite::gpu_algos`], [`Suite::cpu_algos`]); an engine none of
//! whose rows is picked is not set up at all.
//!
//! Rows: `op` is `sort_keys` / `sort_pairs` for full sorts (so `scripts/bench-gpu` compares
//! them with CUB DeviceRadixSort SortKeys / SortPairs, merge and bitonic rows with DeviceMergeSort), `approx_sort_keys` /
//! `approx_sort_pairs` for the approximate sort, `radius` for radius determination. Values of
//! pairs have the key's width (u32 for 4-byte keys, u64 for 8-byte keys), as CUB's anchor.

use sortlab_primitives::{DeviceBuffer, Gpu, SortValue};

use super::full::Family;
use super::point::{GpuPoint, Out};
use super::{approxsort, roughsort};
use crate::args::BenchArgs;
use crate::backend::gen::generate;
use crate::backend::patterns::Pattern;
use crate::bench::row::{gbps, BenchRow};
use crate::bench::setup::{write_rows, Run};
use crate::bench::timing::{gpu_err, reserve_room, slot_count, time_copy};
use crate::cmd::say;
use crate::error::CliError;
use crate::key::CliKey;
use crate::with_key_type;

/// Largest input the CPU twins are timed on (a 2-core machine takes minutes beyond).
const CPU_MAX_LEN: u64 = 1 << 24;

/// The algorithm suites this module runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// `radix`, `merge`, `bitonic`: every variant of a family of full sorts, keys and pairs.
    Full(Family),
    /// `approxsort`: Paper and Fast, equal-width and sampled intervals, keys and pairs, and
    /// the refined (full) sort.
    Approx,
    /// `roughsort`: radius determination and the rough sort.
    Rough,
}

impl Suite {
    /// The names of the suite's GPU rows (what `--algo` selects), in the order they run.
    pub fn gpu_algos(self) -> Vec<String> {
        match self {
            Suite::Full(f) => f.gpu_names(),
            Suite::Approx => approxsort::gpu_names(),
            Suite::Rough => roughsort::gpu_names(),
        }
    }

    /// The names of the suite's CPU rows.
    pub fn cpu_algos(self) -> Vec<String> {
        let names: &[&str] = match self {
            Suite::Full(f) => &[f.name()],
            Suite::Approx => approxsort::CPU_NAMES,
            Suite::Rough => roughsort::CPU_NAMES,
        };
        names.iter().map(|s| s.to_string()).collect()
    }
}

/// Runs `suite` over the types, patterns and sizes of `args`.
pub fn run(suite: Suite, args: &BenchArgs) -> Result<(), CliError> {
    let known = [suite.gpu_algos(), suite.cpu_algos()].concat();
    let ctx = Run::new(args, &known, &suite.gpu_algos())?;
    say(&format!(
        "{:<24} {:<6} {:<17} {:<5} {:<5} {:<15} {:>11} {:>10} {:>9} {:>8}",
        "algo", "engine", "op", "type", "value", "pattern", "n", "ms", "Mkeys/s", "of copy"
    ));
    let mut rows = Vec::new();
    for (t, p, n) in ctx.points() {
        with_key_type!(t, K => one::<K>(&ctx, suite, p, n, &mut rows)?);
    }
    write_rows(args, &rows)
}

/// One (type, pattern, size) point of a suite.
fn one<K: CliKey>(
    ctx: &Run,
    suite: Suite,
    p: Pattern,
    n: u64,
    rows: &mut Vec<BenchRow>,
) -> Result<(), CliError> {
    let input = generate::<K>(p, n as usize, ctx.seed);
    let mut out = Out {
        ctx,
        rows,
        pattern: p.to_string(),
        n,
        copy_gbps: None,
    };
    if let Some(gpu) = &ctx.gpu {
        let what = format!("benchmarking {suite:?} on {n} {}", K::NAME);
        let d_in = DeviceBuffer::from_host(gpu, &input).map_err(gpu_err(&what))?;
        let t = time_copy(gpu, ctx.reps, &what, &d_in)?;
        out.copy_gbps = Some(gbps(2 * n * K::SIZE as u64, t));
        if K::SIZE == 4 {
            gpu_suite::<K, u32>(gpu, suite, &input, &d_in, &mut out, &what)?;
        } else {
            gpu_suite::<K, u64>(gpu, suite, &input, &d_in, &mut out, &what)?;
        }
    }
    if n <= CPU_MAX_LEN && ctx.algos.wants_any(&suite.cpu_algos()) {
        match suite {
            Suite::Full(f) => f.cpu(&input, &mut out)?,
            Suite::Approx => approxsort::cpu(&input, &mut out)?,
            Suite::Rough => roughsort::cpu(&input, &mut out)?,
        }
    }
    Ok(())
}

/// The GPU rows of `suite` at one point, values of type `V` (the key's width) for pairs.
fn gpu_suite<K: CliKey, V: SortValue + TryFrom<u64> + Into<u64>>(
    gpu: &Gpu,
    suite: Suite,
    input: &[K],
    d_in: &DeviceBuffer<K>,
    out: &mut Out<'_>,
    what: &str,
) -> Result<(), CliError> {
    let n = input.len();
    let vals: Vec<V> = (0..n as u64).filter_map(|i| V::try_from(i).ok()).collect();
    let d_vals = DeviceBuffer::from_host(gpu, &vals).map_err(gpu_err(what))?;
    // Rotating slots: `k1` of keys alone, `k2` of keys and values, twice that for calls with a
    // separate input and output.
    let (kb, vb) = (n * K::SIZE, n * V::SIZE);
    let k1 = slot_count(gpu, kb);
    let k2 = slot_count(gpu, kb + vb);
    // The rows' slots, and scratch for keys and values twice over.
    reserve_room(gpu, (k1 + 2 * k2 + 2) * (kb + vb), what)?;
    let p = GpuPoint {
        gpu,
        input,
        d_in,
        d_vals,
        what,
        kb,
        vb,
        k1,
        k2,
        vname: if V::SIZE == 4 { "u32" } else { "u64" },
    };
    match suite {
        Suite::Full(f) => f.gpu(&p, out),
        Suite::Approx => approxsort::gpu(&p, out),
        Suite::Rough => roughsort::gpu(&p, out),
    }
}
