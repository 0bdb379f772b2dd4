//! Kernel-only timing of the radix sorts on a CUDA device, and a sweep of fast-sort policies.
//!
//! Every timed run sorts a fresh copy of the input (restored from a pristine device buffer,
//! then the L2 cache flushed by writing a buffer several times its size), timed with CUDA
//! events around the sort call alone (scratch allocated beforehand); the median of the runs is
//! printed with keys/s. The last run's result is checked (sorted, same multiset).
//!
//! ```text
//! cargo run --release -p sortlab-gpu-sorts --example radix_bench -- [table] [phases] [sweep] [classic] [tune]
//! ```
//! `table`: the fast sort at 2^20, 2^24, 2^28 for u32 keys (uniform in 0..2^31 and full-range),
//! u32/u32 pairs, u64 keys; `phases`: the fast sort of 2^28 u32 keys by 8, 16, 24, 32 bits
//! (fixed cost and cost per pass); `sweep`: fast-sort policies at 2^28; `classic`: OneBit and
//! Satish; `tune`: shapes × look-back windows at 2^28, the fastest per workload then timed as
//! in `table` (and `phases`); `policies` / `policies-pairs` / `policies-f32`: the shapes listed
//! in `RADIX_POLICIES` (e.g. `384x15x3a,384x20x2b`: threads x items x min blocks, then
//! `a`tomic-or, `b`allot, `m`atch-any or `s`plit-by-nibbles ranking) on 2^28 u32 keys / pairs / f32 keys
//! (2^`RADIX_LOG2` if set). With no
//! argument: table, phases, sweep, classic.

use std::error::Error;

use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::radix::{
    self, tuning, FastPolicy, PassShape, RadixOptions, RadixVariant, RankMatch,
};
use sortlab_primitives::{median, DeviceBuffer, Gpu, GpuTimer, KeyBits, SortKey};
use sortlab_verify::seed::derive;
use sortlab_verify::{generate, seed, Pattern};

type Res<T> = Result<T, Box<dyn Error>>;

/// Order-independent digest of keys (wrapping sums of the bits and their squares).
fn digest<K: SortKey>(keys: &[K]) -> (u64, u64) {
    keys.iter().fold((0u64, 0u64), |(a, b), k| {
        let x = k.to_ordered_bits().to_u64();
        (a.wrapping_add(x), b.wrapping_add(x.wrapping_mul(x)))
    })
}

/// Which sort a row times.
#[derive(Clone, Copy)]
enum Sort<'a> {
    Variant(RadixVariant),
    Policy(&'a FastPolicy),
}

/// One input on the device, kept pristine, with its work buffers and an L2 flusher.
struct Input<K: SortKey> {
    n: usize,
    pristine: DeviceBuffer<K>,
    work: DeviceBuffer<K>,
    values_pristine: DeviceBuffer<u32>,
    values: DeviceBuffer<u32>,
    digest: (u64, u64),
    pattern: Pattern,
}

impl<K: SortKey> Input<K> {
    fn new(gpu: &Gpu, n: usize, pattern: Pattern) -> Res<Self> {
        let host = generate::<K>(pattern, n, derive(seed(), n as u64));
        let digest = digest(&host);
        let idx: Vec<u32> = (0..n as u32).collect();
        Ok(Input {
            n,
            pristine: DeviceBuffer::from_host(gpu, &host)?,
            work: DeviceBuffer::alloc(gpu, n)?,
            values_pristine: DeviceBuffer::from_host(gpu, &idx)?,
            values: DeviceBuffer::alloc(gpu, n)?,
            digest,
            pattern,
        })
    }

    /// Median milliseconds of `reps` sorts (after one warm-up), and a check of the last.
    fn time(
        &mut self,
        gpu: &Gpu,
        flush: &mut DeviceBuffer<u8>,
        sort: Sort,
        pairs: bool,
        reps: usize,
        bits: Option<(u32, u32)>,
    ) -> Res<f64> {
        let mut opts = RadixOptions::default().with_variant(match sort {
            Sort::Variant(v) => v,
            Sort::Policy(_) => RadixVariant::Fast,
        });
        if let Some((b, e)) = bits {
            opts = opts.with_bits(b, e);
        }
        let bytes = match sort {
            Sort::Variant(_) if pairs => radix::scratch_bytes_pairs::<K, u32>(self.n, &opts),
            Sort::Variant(_) => radix::scratch_bytes::<K>(self.n, &opts),
            Sort::Policy(p) if pairs => tuning::scratch_bytes_pairs::<K, u32>(self.n, &opts, p),
            Sort::Policy(p) => tuning::scratch_bytes::<K>(self.n, &opts, p),
        };
        let mut scratch = DeviceBuffer::<u8>::alloc(gpu, bytes)?;
        let timer = GpuTimer::new(gpu)?;
        let mut times = Vec::new();
        for rep in 0..=reps {
            self.work.copy_from_device(&self.pristine)?;
            if pairs {
                self.values.copy_from_device(&self.values_pristine)?;
            }
            flush.fill_bytes(rep as u8)?;
            timer.start()?;
            match (sort, pairs) {
                (Sort::Variant(_), false) => {
                    radix::sort_keys_with_scratch(gpu, &mut self.work, &opts, &mut scratch)?
                }
                (Sort::Variant(_), true) => radix::sort_pairs_with_scratch(
                    gpu,
                    &mut self.work,
                    &mut self.values,
                    &opts,
                    &mut scratch,
                )?,
                (Sort::Policy(p), false) => {
                    tuning::sort_keys(gpu, &mut self.work, &opts, p, &mut scratch)?
                }
                (Sort::Policy(p), true) => tuning::sort_pairs(
                    gpu,
                    &mut self.work,
                    &mut self.values,
                    &opts,
                    p,
                    &mut scratch,
                )?,
            }
            let ms = timer.stop()?;
            if rep > 0 {
                times.push(ms);
            }
        }
        let out = self.work.to_host()?;
        if bits.is_none() {
            check::check_sorted(&out, opts.order).map_err(|e| format!("not sorted: {e}"))?;
        }
        if digest(&out) != self.digest {
            return Err("the output is not a permutation of the input".into());
        }
        if pairs {
            // Spot-check that values travelled with their keys.
            let input = self.pristine.to_host()?;
            let values = self.values.to_host()?;
            let step = (self.n / 4096).max(1);
            for i in (0..self.n).step_by(step) {
                let from = values[i] as usize;
                if input[from].to_ordered_bits() != out[i].to_ordered_bits() {
                    return Err(format!("value at {i} does not belong to its key").into());
                }
            }
        }
        Ok(median(&mut times))
    }
}

fn reps_for(n: usize) -> usize {
    if n >= 1 << 27 {
        9
    } else if n >= 1 << 23 {
        15
    } else {
        31
    }
}

fn row(label: &str, ty: &str, pattern: Pattern, n: usize, ms: f64) {
    println!(
        "{label:<34} {ty:<8} {:<10} 2^{:<3} {ms:>9.3} ms {:>7.2} Gkeys/s",
        format!("{pattern:?}"),
        n.trailing_zeros(),
        n as f64 / ms / 1e6
    );
}

fn copy_rate(gpu: &Gpu) -> Res<f64> {
    let n = 1usize << 28;
    let a = DeviceBuffer::<u32>::zeroed(gpu, n)?;
    let mut b = DeviceBuffer::<u32>::alloc(gpu, n)?;
    let timer = GpuTimer::new(gpu)?;
    let mut t = Vec::new();
    for _ in 0..7 {
        timer.start()?;
        b.copy_from_device(&a)?;
        t.push(timer.stop()?);
    }
    Ok(2.0 * (4 * n) as f64 / median(&mut t) / 1e6)
}

fn table<K: SortKey>(
    gpu: &Gpu,
    flush: &mut DeviceBuffer<u8>,
    pattern: Pattern,
    pairs: bool,
) -> Res<()> {
    let ty = if pairs {
        format!("{}/u32", K::NAME)
    } else {
        K::NAME.to_string()
    };
    for log in [20, 24, 28] {
        let n = 1usize << log;
        let mut input = Input::<K>::new(gpu, n, pattern)?;
        let ms = input.time(
            gpu,
            flush,
            Sort::Variant(RadixVariant::Fast),
            pairs,
            reps_for(n),
            None,
        )?;
        row("fast (default policy)", &ty, input.pattern, n, ms);
    }
    Ok(())
}

fn shapes() -> Vec<(String, FastPolicy)> {
    // (threads, items, min blocks, ballot, radix bits)
    let list: [(u32, u32, u32, bool, u32); 12] = [
        (384, 18, 2, true, 8),
        (384, 15, 3, true, 8),
        (384, 15, 2, true, 8),
        (512, 16, 2, true, 8),
        (256, 16, 4, true, 8),
        (256, 20, 4, true, 8),
        (128, 18, 8, true, 8),
        (256, 15, 5, true, 8),
        (384, 18, 2, false, 8),
        (384, 15, 3, false, 8),
        (256, 16, 1, true, 11),
        (384, 12, 1, true, 11),
    ];
    list.iter()
        .map(|&(t, i, m, b, r)| {
            let mut p = FastPolicy::for_types(4, 0).with_shape(PassShape::new(t, i, m));
            p.rank_match = if b { RankMatch::Ballot } else { RankMatch::Any };
            p.radix_bits = r;
            let label = format!("{t}x{i} min{m} {} {r}b", if b { "ballot" } else { "match" });
            (label, p)
        })
        .collect()
}

fn sweep<K: SortKey>(
    gpu: &Gpu,
    flush: &mut DeviceBuffer<u8>,
    pairs: bool,
    list: &[(String, FastPolicy)],
) -> Res<()> {
    // RADIX_LOG2 sets the size (default 2^28).
    let log2: u32 = std::env::var("RADIX_LOG2").map_or(Ok(28), |s| s.parse())?;
    let n = 1usize << log2;
    // RADIX_PATTERN: uniform (default), full-range, all-equal or ascending.
    let pattern = match std::env::var("RADIX_PATTERN").as_deref() {
        Ok("full-range") => Pattern::FullRange,
        Ok("all-equal") => Pattern::AllEqual,
        Ok("ascending") => Pattern::Ascending,
        _ => Pattern::Uniform,
    };
    let mut input = Input::<K>::new(gpu, n, pattern)?;
    let ty = if pairs {
        format!("{}/u32", K::NAME)
    } else {
        K::NAME.to_string()
    };
    // RADIX_END: sort by bits 0..RADIX_END only.
    let bits = match std::env::var("RADIX_END") {
        Ok(e) => Some((0, e.parse()?)),
        Err(_) => None,
    };
    for (label, p) in list {
        match input.time(gpu, flush, Sort::Policy(p), pairs, reps_for(n), bits) {
            Ok(ms) => row(label, &ty, pattern, n, ms),
            Err(e) => println!("{label:<34} {ty:<8} failed: {e}"),
        }
    }
    Ok(())
}

/// Shapes × look-back windows for keys of `key_size` bytes (and values).
fn tune_list(key_size: usize, value_size: usize) -> Vec<(String, FastPolicy)> {
    use RankMatch::{AtomicOr as A, Ballot as B};
    // (threads, items, min blocks, match)
    let shapes: &[(u32, u32, u32, RankMatch)] = if key_size > 4 {
        &[
            (512, 12, 2, A),
            (512, 12, 2, B),
            (384, 12, 2, A),
            (256, 16, 3, A),
        ]
    } else if value_size > 0 {
        &[
            (512, 16, 2, A),
            (512, 16, 2, B),
            (384, 18, 2, A),
            (384, 15, 3, A),
            (256, 20, 4, A),
        ]
    } else {
        &[
            (384, 15, 3, A),
            (384, 15, 3, B),
            (384, 15, 2, A),
            (384, 18, 2, A),
            (512, 16, 2, A),
            (256, 20, 4, A),
            (256, 16, 4, A),
        ]
    };
    shapes
        .iter()
        .map(|&(t, i, m, r)| {
            let mut p =
                FastPolicy::for_types(key_size, value_size).with_shape(PassShape::new(t, i, m));
            p.rank_match = r;
            (format!("{t}x{i} min{m} {r:?}"), p)
        })
        .collect()
}

/// Times `list` on 2^28 keys, returns the fastest policy.
fn pick<K: SortKey>(
    gpu: &Gpu,
    flush: &mut DeviceBuffer<u8>,
    pattern: Pattern,
    pairs: bool,
    list: &[(String, FastPolicy)],
) -> Res<FastPolicy> {
    let n = 1usize << 28;
    let mut input = Input::<K>::new(gpu, n, pattern)?;
    let ty = if pairs {
        format!("{}/u32", K::NAME)
    } else {
        K::NAME.to_string()
    };
    let mut best: Option<(f64, FastPolicy)> = None;
    for (label, p) in list {
        match input.time(gpu, flush, Sort::Policy(p), pairs, 7, None) {
            Ok(ms) => {
                row(label, &ty, pattern, n, ms);
                if best.is_none_or(|(b, _)| ms < b) {
                    best = Some((ms, *p));
                }
            }
            Err(e) => println!("{label:<34} {ty:<8} failed: {e}"),
        }
    }
    best.map(|b| b.1)
        .ok_or_else(|| "every policy failed".into())
}

/// The table with `policy`.
fn tuned_table<K: SortKey>(
    gpu: &Gpu,
    flush: &mut DeviceBuffer<u8>,
    pattern: Pattern,
    pairs: bool,
    policy: &FastPolicy,
) -> Res<()> {
    let ty = if pairs {
        format!("{}/u32", K::NAME)
    } else {
        K::NAME.to_string()
    };
    let label = format!(
        "fast {}x{} min{} {:?}",
        policy.block_threads, policy.items_per_thread, policy.min_blocks, policy.rank_match
    );
    for log in [20, 24, 28] {
        let n = 1usize << log;
        let mut input = Input::<K>::new(gpu, n, pattern)?;
        let ms = input.time(gpu, flush, Sort::Policy(policy), pairs, reps_for(n), None)?;
        row(&label, &ty, pattern, n, ms);
    }
    Ok(())
}

/// Sweeps, picks the fastest policy per workload, prints phases and the table with it.
fn tune(gpu: &Gpu, flush: &mut DeviceBuffer<u8>) -> Res<()> {
    let keys = pick::<u32>(gpu, flush, Pattern::Uniform, false, &tune_list(4, 0))?;
    let pairs = pick::<u32>(gpu, flush, Pattern::Uniform, true, &tune_list(4, 4))?;
    let wide = pick::<u64>(gpu, flush, Pattern::FullRange, false, &tune_list(8, 0))?;
    println!("picked: keys {keys:?}\npairs {pairs:?}\nu64 {wide:?}");
    let n = 1usize << 28;
    let mut input = Input::<u32>::new(gpu, n, Pattern::FullRange)?;
    for end in [8, 16, 32] {
        let ms = input.time(gpu, flush, Sort::Policy(&keys), false, 7, Some((0, end)))?;
        row(
            &format!("picked, bits 0..{end}"),
            "u32",
            Pattern::FullRange,
            n,
            ms,
        );
    }
    drop(input);
    tuned_table::<u32>(gpu, flush, Pattern::Uniform, false, &keys)?;
    tuned_table::<u32>(gpu, flush, Pattern::FullRange, false, &keys)?;
    tuned_table::<u32>(gpu, flush, Pattern::Uniform, true, &pairs)?;
    tuned_table::<u64>(gpu, flush, Pattern::Uniform, false, &wide)?;
    tuned_table::<u64>(gpu, flush, Pattern::FullRange, false, &wide)?;
    tuned_table::<f32>(gpu, flush, Pattern::FullRange, false, &keys)?;
    Ok(())
}

/// Policies from `RADIX_POLICIES`: comma-separated `TxIxM` + `a` (atomic-or), `b` (ballot) or
/// `m` (match-any), e.g. `384x15x3a,384x20x2b`, for keys of `key_size` bytes and values of
/// `value_size` (0: keys only); `RADIX_HIST=BxTxI` sets the histogram kernel's blocks per SM,
/// threads and keys per thread in all of them, `RADIX_SMALL=TxI` the one-block sort's threads
/// and keys per thread (inputs up to T * I keys take it), `RADIX_WINDOW` the look-back window,
/// `RADIX_BITS` the digit width.
/// Each shape is timed as given at every
/// size (no mid-sized shape).
fn env_policies(key_size: usize, value_size: usize) -> Res<Vec<(String, FastPolicy)>> {
    let spec = std::env::var("RADIX_POLICIES").unwrap_or_else(|_| "384x15x3a".into());
    let hist = match std::env::var("RADIX_HIST") {
        Ok(h) => match dims(&h, "RADIX_HIST")?[..] {
            [per_sm, threads, items] => Some((per_sm, threads, items)),
            _ => return Err(format!("RADIX_HIST {h}: want BLOCKSxTHREADSxITEMS").into()),
        },
        Err(_) => None,
    };
    let small = match std::env::var("RADIX_SMALL") {
        Ok(h) => match dims(&h, "RADIX_SMALL")?[..] {
            [threads, items] => Some((threads, items)),
            _ => return Err(format!("RADIX_SMALL {h}: want THREADSxITEMS").into()),
        },
        Err(_) => None,
    };
    let mut out = Vec::new();
    for item in spec.split(',').filter(|s| !s.is_empty()) {
        let (shape, m) = item.split_at(item.len() - 1);
        let [t, i, b] = dims(shape, "RADIX_POLICIES item")?[..] else {
            return Err(format!("RADIX_POLICIES item {item}: want TxIxM").into());
        };
        let mut p = FastPolicy::for_types(key_size, value_size).with_shape(PassShape::new(t, i, b));
        // This shape at every size.
        p.mid_max = 0;
        p.large_min = usize::MAX;
        p.rank_match = match m {
            "a" => RankMatch::AtomicOr,
            "b" => RankMatch::Ballot,
            "m" => RankMatch::Any,
            "s" => RankMatch::Split4,
            _ => return Err(format!("RADIX_POLICIES item {item}: match a, b, m or s").into()),
        };
        if let Some((per_sm, threads, items)) = hist {
            p.hist_blocks_per_sm = per_sm;
            p.hist_threads = threads;
            p.hist_items = items;
        }
        if let Ok(w) = std::env::var("RADIX_WINDOW") {
            p.lookback_window = w.parse()?;
        }
        if let Ok(b) = std::env::var("RADIX_BITS") {
            p.radix_bits = b.parse()?;
        }
        if let Some((threads, items)) = small {
            p.small_threads = threads;
            p.small_items = items;
        }
        out.push((item.to_string(), p));
    }
    Ok(out)
}

/// The numbers of an `AxBxC` shape (`what` names it in the error).
fn dims(shape: &str, what: &str) -> Res<Vec<u32>> {
    shape
        .split('x')
        .map(|x| x.parse())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what} {shape}: {e}").into())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let want = |s: &str| args.is_empty() || args.iter().any(|a| a == s);
    // `tune` is not part of the default set (it repeats the table with the picked policies).
    let gpu = Gpu::new(0)?;
    println!(
        "{} ({} SMs, L2 {} MiB); device-to-device copy {:.0} GB/s (read + write)",
        gpu.info().name,
        gpu.info().multiprocessors,
        gpu.info().l2_bytes >> 20,
        copy_rate(&gpu)?
    );
    let mut flush = DeviceBuffer::<u8>::alloc(&gpu, (gpu.info().l2_bytes * 4).max(1 << 26))?;
    if want("table") {
        table::<u32>(&gpu, &mut flush, Pattern::Uniform, false)?;
        table::<u32>(&gpu, &mut flush, Pattern::FullRange, false)?;
        table::<u32>(&gpu, &mut flush, Pattern::Uniform, true)?;
        table::<u64>(&gpu, &mut flush, Pattern::Uniform, false)?;
        table::<u64>(&gpu, &mut flush, Pattern::FullRange, false)?;
    }
    if want("phases") {
        // Fixed cost (zeroing, histogram, plan, launches) and cost per pass, from bit ranges.
        let n = 1usize << 28;
        let mut input = Input::<u32>::new(&gpu, n, Pattern::FullRange)?;
        for end in [8, 16, 24, 32] {
            let ms = input.time(
                &gpu,
                &mut flush,
                Sort::Variant(RadixVariant::Fast),
                false,
                7,
                Some((0, end)),
            )?;
            row(
                &format!("fast, bits 0..{end}"),
                "u32",
                Pattern::FullRange,
                n,
                ms,
            );
        }
    }
    if want("sweep") {
        let list = shapes();
        sweep::<u32>(&gpu, &mut flush, false, &list)?;
        sweep::<u32>(&gpu, &mut flush, true, &list)?;
        let mut wide: Vec<(String, FastPolicy)> = Vec::new();
        for (t, i, m) in [
            (384, 12, 2),
            (384, 15, 2),
            (256, 16, 3),
            (512, 12, 2),
            (384, 10, 3),
        ] {
            let p = FastPolicy::for_types(8, 0).with_shape(PassShape::new(t, i, m));
            wide.push((format!("{t}x{i} min{m} ballot 8b"), p));
        }
        let n = 1usize << 28;
        let mut input = Input::<u64>::new(&gpu, n, Pattern::FullRange)?;
        for (label, p) in &wide {
            match input.time(&gpu, &mut flush, Sort::Policy(p), false, 5, None) {
                Ok(ms) => row(label, "u64", Pattern::FullRange, n, ms),
                Err(e) => println!("{label:<34} u64 failed: {e}"),
            }
        }
    }
    // `policies` / `policies-pairs`: the shapes of RADIX_POLICIES at 2^RADIX_LOG2 (default 28;
    // not in the default set).
    if args.iter().any(|a| a == "policies") {
        sweep::<u32>(&gpu, &mut flush, false, &env_policies(4, 0)?)?;
    }
    if args.iter().any(|a| a == "policies-pairs") {
        sweep::<u32>(&gpu, &mut flush, true, &env_policies(4, 4)?)?;
    }
    if args.iter().any(|a| a == "policies-u64") {
        sweep::<u64>(&gpu, &mut flush, false, &env_policies(8, 0)?)?;
    }
    if args.iter().any(|a| a == "policies-f32") {
        sweep::<f32>(&gpu, &mut flush, false, &env_policies(4, 0)?)?;
    }
    if args.iter().any(|a| a == "tune") {
        tune(&gpu, &mut flush)?;
    }
    if want("classic") {
        for v in [RadixVariant::Satish, RadixVariant::OneBit] {
            for log in [20, 24] {
                let n = 1usize << log;
                let mut input = Input::<u32>::new(&gpu, n, Pattern::Uniform)?;
                let ms = input.time(&gpu, &mut flush, Sort::Variant(v), false, 5, None)?;
                row(v.name(), "u32", Pattern::Uniform, n, ms);
            }
        }
    }
    Ok(())
}
