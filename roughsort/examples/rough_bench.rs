//! Kernel timings of the roughsort radius and sorts on k-sorted `u32` keys, for tuning and
//! profiling (`cargo run --release -p sortlab-roughsort --example rough_bench`).
//!
//! Environment: `ROUGH_LOG2` (default 28) the length's log2, `ROUGH_K` (comma-separated, default
//! `16,256,4096`) the radii, `ROUGH_REPS` (default 7) the timed runs (median printed),
//! `ROUGH_SCALE` (default 1) the keys' spacing. Input: `0, s, 2s, ...` (s = `ROUGH_SCALE`) with
//! blocks of `k + 1` keys shuffled and their ends swapped (radius exactly `k`:
//! `sortlab-verify`'s `k-sorted:K` pattern for s = 1, seeded by `SORTLAB_SEED`); a larger
//! spacing spreads a window's keys over more bits (s = 16 fills 32 bits at 2^28 keys). `ROUGH_PAIRS=1` times `rough_sort_pairs`
//! (`u32` values) instead, printing every run's time, the host's time inside the call and the
//! buffers' addresses (where the sorted keys and values came from and went to);
//! `ROUGH_RESERVE_GIB=G` first makes G GiB of room in the memory pool (`Gpu::reserve_pool`).
//! Without it the 2nd to 4th calls of each radius were 1.1 to 1.7 ms slower at 2^28 (H100), that
//! time spent in the host's part of the call while the driver mapped memory for the pool.
//! Past the crossover radius (`sort::full_sort_past_k`) both sorts here take the radix fallback;
//! `rough_crossover` times the rough paths there.

use std::error::Error;

use sortlab_primitives::{median, DeviceBuffer, Gpu, GpuTimer, Order};
use sortlab_roughsort::{
    radius, rough_sort, rough_sort_pairs, rough_sort_with_radius, RoughOptions,
};

type Res<T> = Result<T, Box<dyn Error>>;

/// `0, scale, 2 scale, ...` (n keys) with radius exactly `k`: `sortlab-verify`'s k-sorted
/// generator (the `k-sorted:K` pattern), spaced by `scale`.
fn k_sorted(n: usize, k: usize, scale: u32, seed: u64) -> Vec<u32> {
    sortlab_verify::k_sorted::<u32>(n, k, seed)
        .into_iter()
        .map(|x| x.wrapping_mul(scale))
        .collect()
}

/// An error unless `out` is `0, scale, 2 scale, ...`, the sorted input of radius `k`.
fn check_sorted(out: &[u32], k: usize, scale: u32) -> Res<()> {
    let want = |i: usize| (i as u32).wrapping_mul(scale);
    if out.iter().enumerate().any(|(i, &x)| x != want(i)) {
        return Err(format!("k = {k}: not sorted").into());
    }
    Ok(())
}

/// Median of `reps` event-timed runs of `f` (after one warm-up), `prep` untimed before each.
fn time<S>(
    gpu: &Gpu,
    reps: usize,
    state: &mut S,
    mut prep: impl FnMut(&mut S),
    mut f: impl FnMut(&mut S),
) -> Res<f64> {
    let t = GpuTimer::new(gpu)?;
    prep(state);
    f(state);
    let mut v = Vec::new();
    for _ in 0..reps {
        prep(state);
        gpu.synchronize()?;
        t.start()?;
        f(state);
        v.push(t.stop()?);
    }
    Ok(median(&mut v))
}

/// Every run of `rough_sort_pairs` on each radius: its time and the buffers' addresses (MiB)
/// before and after (the call may swap in its scratch buffers).
fn time_pairs(gpu: &Gpu, n: usize, ks: &[usize], reps: usize, scale: u32) -> Res<()> {
    println!("{}, {n} u32/u32 pairs k-sorted, every run", gpu.info().name);
    let mib = |a: u64| a >> 20;
    let vals: Vec<u32> = (0..n as u32).collect();
    let pristine_v = DeviceBuffer::from_host(gpu, &vals)?;
    let t = GpuTimer::new(gpu)?;
    if let Ok(gb) = std::env::var("ROUGH_RESERVE_GIB") {
        let gb: usize = gb.parse()?;
        let room = gpu.reserve_pool(gb << 30)?;
        println!("memory pool: {} MiB of room reserved first", room >> 20);
    }
    for &k in ks {
        let host = k_sorted(n, k, scale, sortlab_verify::seed());
        let pristine = DeviceBuffer::from_host(gpu, &host)?;
        let mut keys = pristine.try_clone()?;
        let mut values = pristine_v.try_clone()?;
        let mut times = Vec::new();
        for rep in 0..=reps {
            keys.copy_from_device(&pristine)?;
            values.copy_from_device(&pristine_v)?;
            let (k0, v0) = (keys.ptr().addr(), values.ptr().addr());
            gpu.synchronize()?;
            t.start()?;
            let host = std::time::Instant::now();
            rough_sort_pairs(gpu, &mut keys, &mut values, Order::Ascending)?;
            let host_ms = host.elapsed().as_secs_f64() * 1e3;
            let ms = t.stop()?;
            let (k1, v1) = (keys.ptr().addr(), values.ptr().addr());
            println!(
                "k={k:<6} run {rep}: {ms:.3} ms (host in call {host_ms:.3})  keys {} -> {} MiB, values {} -> {} MiB",
                mib(k0),
                mib(k1),
                mib(v0),
                mib(v1)
            );
            if rep > 0 {
                times.push(ms);
            }
        }
        check_sorted(&keys.to_host()?, k, scale)?;
        println!("k={k:<6} median {:.3} ms", median(&mut times));
    }
    Ok(())
}

fn main() -> Res<()> {
    let log2: u32 = std::env::var("ROUGH_LOG2").map_or(Ok(28), |s| s.parse())?;
    let reps: usize = std::env::var("ROUGH_REPS").map_or(Ok(7), |s| s.parse())?;
    let ks: Vec<usize> = std::env::var("ROUGH_K")
        .unwrap_or_else(|_| "16,256,4096".into())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let scale: u32 = std::env::var("ROUGH_SCALE").map_or(Ok(1), |s| s.parse())?;
    let pairs = std::env::var("ROUGH_PAIRS").is_ok_and(|s| s == "1");
    let gpu = Gpu::new(0)?;
    let n = 1usize << log2;
    if pairs {
        return time_pairs(&gpu, n, &ks, reps, scale);
    }
    println!(
        "{}, 2^{log2} u32 k-sorted, ms (median of {reps})",
        gpu.info().name
    );
    for k in ks {
        let host = k_sorted(n, k, scale, sortlab_verify::seed());
        let pristine = DeviceBuffer::from_host(&gpu, &host)?;
        let found = radius(&gpu, &pristine, Order::Ascending)?;
        if found != k {
            return Err(format!("radius {found}, want {k}").into());
        }
        let r = time(
            &gpu,
            reps,
            &mut (),
            |_| {},
            |_| {
                radius(&gpu, &pristine, Order::Ascending).unwrap();
            },
        )?;
        let mut work = pristine.try_clone()?;
        let opts = RoughOptions::default();
        let s = time(
            &gpu,
            reps,
            &mut work,
            |w| w.copy_from_device(&pristine).unwrap(),
            |w| {
                rough_sort_with_radius(&gpu, w, k, &opts).unwrap();
            },
        )?;
        let mut work2 = pristine.try_clone()?;
        let mut path = None;
        let all = time(
            &gpu,
            reps,
            &mut work2,
            |w| w.copy_from_device(&pristine).unwrap(),
            |w| path = Some(rough_sort(&gpu, w, Order::Ascending).unwrap().path),
        )?;
        check_sorted(&work2.to_host()?, k, scale)?;
        println!(
            "k={k:<6} radius {r:.3}  sort (k given) {s:.3}  rough_sort {all:.3}  {:?}  {:.2} Gkeys/s",
            path.unwrap(),
            n as f64 / all / 1e6
        );
    }
    Ok(())
}
