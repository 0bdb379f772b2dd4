//! Times the CPU engine's rough sort (radius included) against its radix sort on k-sorted
//! keys, for the crossover radius past which the rough sort should take the full sort:
//! `cargo run --release -p sortlab-cpu-reference --example rough_crossover [LOG2_N]`.

use std::time::Instant;

use sortlab_cpu_reference::{radix, rough};
use sortlab_primitives::Order;

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn time(input: &[u32], f: impl Fn(&mut [u32])) -> f64 {
    let mut work = input.to_vec();
    let runs = (0..5)
        .map(|_| {
            work.copy_from_slice(input);
            let s = Instant::now();
            f(&mut work);
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(runs)
}

fn main() {
    let log2: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(22);
    let n = 1usize << log2;
    println!("threads {}, n = 2^{log2} u32", rayon::current_num_threads());
    println!(
        "{:>9} {:>10} {:>10} {:>7} {:>10}",
        "k", "rough ms", "radix ms", "ratio", "radius ms"
    );
    for k in [
        16usize,
        256,
        1024,
        4096,
        16_384,
        65_536,
        262_144,
        1 << 20,
        n / 8,
        n / 4 - 1,
        n / 4,
        n / 2,
        n - 1,
    ] {
        let keys: Vec<u32> = sortlab_verify::k_sorted(n, k, 7);
        let r = time(&keys, |w| {
            rough::rough_sort_par(w, Order::Ascending);
        });
        let x = time(&keys, |w| radix::sort_keys(w, Order::Ascending));
        let d = time(&keys, |w| {
            std::hint::black_box(rough::radius_par(w, Order::Ascending));
        });
        println!("{k:>9} {r:>10.2} {x:>10.2} {:>7.2} {d:>10.2}", x / r);
    }
}
