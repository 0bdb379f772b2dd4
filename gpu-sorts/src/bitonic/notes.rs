//! [`BitonicVariant::Notes`](super::BitonicVariant::Notes): the course notes' (j, k) kernel,
//! one launch per (k, j) (`network.cu`).

use sortlab_primitives::{Gpu, Module, Result};

use super::job::{Addrs, Job};
use super::network;

/// The compare-exchange of thread `i` in step (k, j), as the kernel computes it: with `ixj =
/// i ^ j`, `Some((i, ixj, ascending))` where `ixj > i`, ascending where `i & k == 0`; `None`
/// for the threads that sit the step out.
#[cfg(test)]
pub(crate) fn notes_pair(i: u64, j: u64, k: u64) -> Option<(u64, u64, bool)> {
    let ixj = i ^ j;
    (ixj > i).then_some((i, ixj, i & k == 0))
}

/// Every (k, j) of a network of `len` (a power of two) elements, in launch order: k = 2, 4,
/// ..., len; j = k/2, ..., 1.
pub(crate) fn steps(len: u64) -> impl Iterator<Item = (u64, u64)> {
    let m = len.trailing_zeros();
    (1..=m).flat_map(|g| (0..g).rev().map(move |t| (1u64 << g, 1u64 << t)))
}

/// Sorts `job` (n >= 2) with `threads` threads per block.
pub(crate) fn sort(gpu: &Gpu, module: &Module, job: &Job, at: &Addrs, threads: u32) -> Result<()> {
    let l = network::Layout::new(job)?;
    let len = l.len as u64;
    let name = match (job.value.is_some(), l.padded) {
        (true, true) => "bitonic_notes_indexed",
        (true, false) => "bitonic_notes_values",
        (false, _) => "bitonic_notes_keys",
    };
    let kernel = module.kernel(name)?;
    let cfg = network::exact_config(gpu, &kernel, len, threads, "the bitonic notes step")?;
    network::sort(gpu, module, job, at, &kernel, cfg, |work| {
        for (k, j) in steps(work.len) {
            let mut args = work.args();
            args.push(len).push(j).push(k);
            // SAFETY: arguments match `bitonic_notes_keys(Bits*, u64, u64, u64)`,
            // `bitonic_notes_values(Bits*, Value*, u64, u64, u64)` or
            // `bitonic_notes_indexed(Bits*, u64*, u64, u64, u64)`; the work array (and the
            // payload) hold len elements; thread i < len touches i and i ^ j < len (j < len, a
            // power of two) only where i ^ j > i, so each pair belongs to one thread.
            unsafe { kernel.launch(cfg, &args)? };
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::mapping;
    use super::*;
    use std::collections::BTreeSet;

    /// The report's mapping and the notes' (j, k) kernel run the same network: for every step,
    /// the same pairs with the same directions, in the same order of steps.
    #[test]
    fn mapping_equals_notes() {
        for m in 1..=8u32 {
            let len = 1u64 << m;
            let map_steps: Vec<_> = mapping::steps(len).collect();
            let notes_steps: Vec<_> = steps(len).collect();
            assert_eq!(map_steps.len(), notes_steps.len());
            for (&(g, t), &(k, j)) in map_steps.iter().zip(&notes_steps) {
                assert_eq!((1u64 << g, 1u64 << (t - 1)), (k, j));
                let by_map: BTreeSet<_> = (0..len / 2)
                    .map(|i| mapping::mapped_pair(i, g, t))
                    .collect();
                let by_notes: BTreeSet<_> = (0..len).filter_map(|i| notes_pair(i, j, k)).collect();
                assert_eq!(by_map, by_notes, "len {len} k {k} j {j}");
                assert_eq!(by_map.len() as u64, len / 2);
            }
        }
    }

    /// The padded network sorts: every input of length 1 .. 70 padded with all-ones words and
    /// compared by (word, index), as `network.cu` does for pairs, puts the real elements first,
    /// sorted; keys alone (words only) come out sorted too.
    #[test]
    fn padded_network_sorts() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 1..70usize {
            let len = n.next_power_of_two();
            let mut w: Vec<(u32, u64)> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Few distinct words, all ones among them.
                    let v = [0, 1, 7, u32::MAX][(x % 4) as usize];
                    if i < n {
                        (v, i as u64)
                    } else {
                        (u32::MAX, i as u64)
                    }
                })
                .collect();
            let mut keys: Vec<u32> = w.iter().map(|e| e.0).collect();
            for (k, j) in steps(len as u64) {
                for i in 0..len as u64 {
                    if let Some((lo, hi, up)) = notes_pair(i, j, k) {
                        let (lo, hi) = (lo as usize, hi as usize);
                        if (w[hi] < w[lo]) == up && w[hi] != w[lo] {
                            w.swap(lo, hi);
                        }
                        if (keys[hi] < keys[lo]) == up && keys[hi] != keys[lo] {
                            keys.swap(lo, hi);
                        }
                    }
                }
            }
            assert!(w.windows(2).all(|p| p[0] <= p[1]), "n {n}");
            assert!(
                w[..n].iter().all(|e| e.1 < n as u64),
                "n {n}: padding among the first n"
            );
            assert!(keys.windows(2).all(|p| p[0] <= p[1]), "n {n}");
        }
    }
}
