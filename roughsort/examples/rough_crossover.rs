//! The rough sort against the full radix sort by radius, for the crossover thresholds of
//! `sort::fallback` (`FULL_SORT_PAST_K_*`):
//! `cargo run --release -p sortlab-roughsort --example rough_crossover`.
//!
//! For each radius `k` of the k-sorted pattern (`sortlab-verify`'s `k-sorted:K`, radius exactly
//! `k`, seeded by `SORTLAB_SEED`) it prints GPU times (CUDA events, median of `ROUGH_REPS`, input
//! restored before each run): the radius alone; `rough_sort` as shipped (radius included,
//! fallback on) and the path it took; the rough sort's own paths (`Fallback::Never`, radius
//! included); `sortlab-gpu-sorts`' radix sort alone (fast, stable); and the ratio radix / rough
//! path (> 1: the rough sort is faster, so the crossover lies past this `k`).
//!
//! Environment: `ROUGH_TYPE` `u32` (default) or `u64`; `ROUGH_PAIRS=1` for key-value pairs
//! (values as wide as the keys, as `sortlab bench`); `ROUGH_LOG2` (default 28) the length's log2;
//! `ROUGH_K` comma-separated radii (default `4096,8192,12288,16384,16385,20000,32768,70000`);
//! `ROUGH_REPS` (default 7). Room is reserved in the memory pool first (`Gpu::reserve_pool`).

use std::error::Error;

use sortlab_gpu_sorts::radix::{self, RadixOptions};
use sortlab_primitives::{median, DeviceBuffer, Gpu, GpuTimer, Order, SortKey, SortValue};
use sortlab_roughsort::sort::full_sort_past_k;
use sortlab_roughsort::{
    radius, rough_sort_pairs_with_fallback, rough_sort_with_fallback, Fallback,
};

type Res<T> = Result<T, Box<dyn Error>>;

/// Median of `reps` event-timed runs of `f(state)` (after one warm-up), `prep(state)` untimed
/// before each.
fn time<S>(
    gpu: &Gpu,
    reps: usize,
    state: &mut S,
    mut prep: impl FnMut(&mut S) -> Res<()>,
    mut f: impl FnMut(&mut S) -> Res<()>,
) -> Res<f64> {
    let t = GpuTimer::new(gpu)?;
    prep(state)?;
    f(state)?;
    let mut v = Vec::new();
    for _ in 0..reps {
        prep(state)?;
        gpu.synchronize()?;
        t.start()?;
        f(state)?;
        v.push(t.stop()?);
    }
    Ok(median(&mut v))
}

/// The working keys and values, restored from their pristine copies before each run.
struct Work<K: SortKey, V: SortValue> {
    keys: DeviceBuffer<K>,
    values: DeviceBuffer<V>,
    pristine: DeviceBuffer<K>,
    pristine_v: DeviceBuffer<V>,
}

impl<K: SortKey, V: SortValue> Work<K, V> {
    fn restore(&mut self) -> Res<()> {
        self.keys.copy_from_device(&self.pristine)?;
        self.values.copy_from_device(&self.pristine_v)?;
        Ok(())
    }
}

/// The rows for keys `K` (with values `V` when `pairs`).
fn run<K: SortKey, V: SortValue + TryFrom<u64>>(
    gpu: &Gpu,
    n: usize,
    ks: &[usize],
    reps: usize,
    pairs: bool,
) -> Res<()> {
    let what = if pairs {
        format!("{}/{} pairs", K::NAME, K::NAME)
    } else {
        format!("{} keys", K::NAME)
    };
    let value_size = pairs.then_some(V::SIZE);
    println!(
        "{}, {n} {what} k-sorted, ms (median of {reps}); the crossover now: past k = {}",
        gpu.info().name,
        full_sort_past_k(K::SIZE, value_size)
    );
    println!(
        "k, radius, rough_sort as shipped (radius included), its path, rough paths only \
         (Fallback::Never, radius included), radix sort alone, radix / rough paths"
    );
    let vals: Vec<V> = (0..n as u64)
        .map(|i| V::try_from(i).map_err(|_| "value out of range".into()))
        .collect::<Res<_>>()?;
    let pristine_v = DeviceBuffer::from_host(gpu, &vals)?;
    drop(vals);
    let opts = RadixOptions::default().with_order(Order::Ascending);
    for &k in ks {
        let host: Vec<K> = sortlab_verify::k_sorted(n, k, sortlab_verify::seed());
        let pristine = DeviceBuffer::from_host(gpu, &host)?;
        drop(host);
        let mut w = Work {
            keys: pristine.try_clone()?,
            values: pristine_v.try_clone()?,
            pristine,
            pristine_v: pristine_v.try_clone()?,
        };
        let r = time(
            gpu,
            reps,
            &mut w,
            |_| Ok(()),
            |w| {
                radius(gpu, &w.pristine, Order::Ascending)?;
                Ok(())
            },
        )?;
        let mut path = None;
        let mut rough = [0.0; 2];
        for (i, fallback) in [Fallback::Auto, Fallback::Never].into_iter().enumerate() {
            rough[i] = time(gpu, reps, &mut w, Work::restore, |w| {
                let report = if pairs {
                    let order = Order::Ascending;
                    rough_sort_pairs_with_fallback(
                        gpu,
                        &mut w.keys,
                        &mut w.values,
                        order,
                        fallback,
                    )?
                } else {
                    rough_sort_with_fallback(gpu, &mut w.keys, Order::Ascending, fallback)?
                };
                if fallback == Fallback::Auto {
                    path = Some(report.path);
                }
                Ok(())
            })?;
        }
        let x = time(gpu, reps, &mut w, Work::restore, |w| {
            if pairs {
                radix::sort_pairs(gpu, &mut w.keys, &mut w.values, &opts)?;
            } else {
                radix::sort_keys(gpu, &mut w.keys, &opts)?;
            }
            Ok(())
        })?;
        println!(
            "k={k:<8} {r:.3}  {:.3}  {:<14} {:.3}  {x:.3}  {:.2}",
            rough[0],
            path.map_or("-", |p| p.name()),
            rough[1],
            x / rough[1]
        );
    }
    Ok(())
}

fn main() -> Res<()> {
    let log2: u32 = std::env::var("ROUGH_LOG2").map_or(Ok(28), |s| s.parse())?;
    let reps: usize = std::env::var("ROUGH_REPS").map_or(Ok(7), |s| s.parse())?;
    let ks: Vec<usize> = std::env::var("ROUGH_K")
        .unwrap_or_else(|_| "4096,8192,12288,16384,16385,20000,32768,70000".into())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let pairs = std::env::var("ROUGH_PAIRS").is_ok_and(|s| s == "1");
    let ty = std::env::var("ROUGH_TYPE").unwrap_or_else(|_| "u32".into());
    let gpu = Gpu::new(0)?;
    let n = 1usize << log2;
    // Keys, values, their pristine copies and the sorts' scratch (about as much again).
    let width = if ty == "u64" { 8 } else { 4 };
    let bytes = n * width * if pairs { 6 } else { 3 };
    let room = gpu.reserve_pool(bytes)?;
    println!("memory pool: {} MiB of room reserved", room >> 20);
    match ty.as_str() {
        "u32" => run::<u32, u32>(&gpu, n, &ks, reps, pairs),
        "u64" => run::<u64, u64>(&gpu, n, &ks, reps, pairs),
        other => Err(format!("ROUGH_TYPE {other}: u32 or u64").into()),
    }
}
