//! Tuning sweep of the fast scan's launch policy on a CUDA device (not a test, not a benchmark
//! of record: `sortlab bench primitives` is that).
//!
//! ```sh
//! cargo run --release -p sortlab-primitives --example scan_tune -- [LOG2_N] [REPS]
//! ```
//!
//! For `u32` and `u64` keys (2^LOG2_N of them, default 2^28 and 2^27), an exclusive forward sum
//! under each policy of the sweep and the device's default, kernel time by CUDA events (median
//! of REPS, default 15), every result checked against the host; then the default policy in
//! reverse. Prints TB/s read + written next to a device-to-device copy of the same bytes.

use sortlab_primitives::scan::{scan_with_policy, Direction, ScanKind, ScanOp, ScanPolicy};
use sortlab_primitives::{median, DeviceBuffer, Error, Gpu, GpuTimer, SortKey};

fn time(gpu: &Gpu, reps: usize, mut f: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    f()?;
    let timer = GpuTimer::new(gpu)?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        timer.start()?;
        f()?;
        t.push(timer.stop()?);
    }
    Ok(median(&mut t))
}

trait TuneKey: SortKey {
    fn from_index(i: u64) -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn zero() -> Self;
}
impl TuneKey for u32 {
    fn from_index(i: u64) -> Self {
        (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as u32
    }
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    fn zero() -> Self {
        0
    }
}
impl TuneKey for u64 {
    fn from_index(i: u64) -> Self {
        i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20
    }
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    fn zero() -> Self {
        0
    }
}

fn sweep<K: TuneKey>(
    gpu: &Gpu,
    n: usize,
    reps: usize,
    policies: &[(u32, u32, u32)],
) -> Result<(), Error> {
    let host: Vec<K> = (0..n as u64).map(K::from_index).collect();
    let mut want = Vec::with_capacity(n);
    let mut acc = K::zero();
    for &x in &host {
        want.push(acc);
        acc = K::add(acc, x);
    }
    let input = DeviceBuffer::from_host(gpu, &host)?;
    let mut out = DeviceBuffer::<K>::alloc(gpu, n)?;
    let bytes = 2.0 * (n * K::SIZE) as f64;
    let copy = time(gpu, reps, || out.copy_from_device(&input))?;
    println!(
        "{} n={n}: copy {:.3} ms ({:.2} TB/s)",
        K::NAME,
        copy,
        bytes / copy / 1e9
    );
    let default = ScanPolicy::for_variant(sortlab_primitives::ScanVariant::Fast, K::SIZE);
    let d = (
        default.block_threads,
        default.items_per_thread,
        default.min_blocks,
    );
    let mut all: Vec<(u32, u32, u32)> = policies.to_vec();
    all.push(d);
    for dir in [Direction::Forward, Direction::Reverse] {
        for &(threads, items, min_blocks) in &all {
            if dir == Direction::Reverse && (threads, items, min_blocks) != d {
                continue;
            }
            let policy = ScanPolicy {
                block_threads: threads,
                items_per_thread: items,
                min_blocks,
            };
            out.fill_bytes(0xab)?;
            let ms = match time(gpu, reps, || {
                scan_with_policy(
                    gpu,
                    &input,
                    &mut out,
                    ScanOp::Sum,
                    ScanKind::Exclusive,
                    dir,
                    &policy,
                )
            }) {
                Ok(ms) => ms,
                Err(e) => {
                    println!("  {threads:>4} x {items:>2} /{min_blocks}: {e}");
                    continue;
                }
            };
            let got = out.to_host()?;
            let ok = if dir == Direction::Forward {
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits())
            } else {
                // Reverse exclusive: element i gets the sum of host[i + 1 ..].
                let total = K::add(want[n - 1], host[n - 1]);
                let mut ok = true;
                let mut suffix = K::zero();
                for i in (0..n).rev() {
                    ok &= got[i].to_ordered_bits() == suffix.to_ordered_bits();
                    suffix = K::add(suffix, host[i]);
                }
                ok && suffix.to_ordered_bits() == total.to_ordered_bits()
            };
            println!(
                "  {:<7} {threads:>4} x {items:>2} /{min_blocks}{}: {:.3} ms, {:.2} TB/s, {:.3} of copy{}",
                if dir == Direction::Forward {
                    "forward"
                } else {
                    "reverse"
                },
                if (threads, items, min_blocks) == d {
                    " (default)"
                } else {
                    ""
                },
                ms,
                bytes / ms / 1e9,
                copy / ms,
                if ok { "" } else { "  WRONG RESULT" }
            );
        }
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let log2: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(28);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(15);
    let gpu = Gpu::new(0)?;
    println!("{}", gpu.info().name);
    sweep::<u32>(
        &gpu,
        1 << log2,
        reps,
        &[
            (128, 47, 0),
            (128, 63, 0),
            (192, 39, 0),
            (256, 23, 0),
            (256, 27, 0),
            (256, 31, 0),
            (256, 35, 0),
            (256, 27, 7),
            (256, 39, 0),
            (256, 47, 0),
            (384, 23, 0),
            (512, 15, 0),
            (512, 19, 0),
        ],
    )?;
    sweep::<u64>(
        &gpu,
        1 << (log2 - 1),
        reps,
        &[
            (256, 15, 0),
            (256, 19, 0),
            (256, 27, 0),
            (128, 31, 0),
            (128, 39, 0),
            (512, 11, 0),
        ],
    )?;
    Ok(())
}
