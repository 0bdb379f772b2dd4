//! [`BitonicVariant::Mapping`](super::BitonicVariant::Mapping): the bitonic sorting report's
//! index-mapping kernel, one launch per (stage, step) (`network.cu`).

use sortlab_primitives::{Gpu, Module, Result};

use super::job::{Addrs, Job};
use super::network;

/// The pair of thread `i` in step `t` (partner distance `2^(t-1)`) of stage `g` (blocks of
/// `2^g` merged), as the kernel computes it: `map = (i / 2^(t-1)) * 2^t + i mod 2^(t-1)`, the
/// partner `map + 2^(t-1)`, ascending where `(map / 2^g) mod 2 == 0`. Returns (lower index,
/// upper index, ascending).
#[cfg(test)]
pub(crate) fn mapped_pair(i: u64, g: u32, t: u32) -> (u64, u64, bool) {
    let half = 1u64 << (t - 1);
    let map = (i / half) * (2 * half) + i % half;
    (map, map + half, (map >> g) & 1 == 0)
}

/// Every (stage g, step t) of a network of `len` (a power of two) elements, in launch order:
/// g = 1 .. log2 len, t = g .. 1.
pub(crate) fn steps(len: u64) -> impl Iterator<Item = (u32, u32)> {
    let m = len.trailing_zeros();
    (1..=m).flat_map(|g| (1..=g).rev().map(move |t| (g, t)))
}

/// Sorts `job` (n >= 2) with `threads` threads per block; `plain` replaces the report's
/// atomic compare-exchange of keys by the plain one (pairs always use the plain one).
pub(crate) fn sort(
    gpu: &Gpu,
    module: &Module,
    job: &Job,
    at: &Addrs,
    threads: u32,
    plain: bool,
) -> Result<()> {
    let l = network::Layout::new(job)?;
    let pairs = l.len as u64 / 2;
    let name = match (job.value.is_some(), l.padded, plain) {
        (true, true, _) => "bitonic_mapping_indexed",
        (true, false, _) => "bitonic_mapping_values",
        (false, _, true) => "bitonic_mapping_plain",
        (false, _, false) => "bitonic_mapping_atomic",
    };
    let kernel = module.kernel(name)?;
    let cfg = network::exact_config(gpu, &kernel, pairs, threads, "the bitonic mapping step")?;
    network::sort(gpu, module, job, at, &kernel, cfg, |work| {
        for (g, t) in steps(work.len) {
            let mut args = work.args();
            args.push(pairs).push(g).push(t);
            // SAFETY: arguments match `bitonic_mapping_{atomic,plain}(Bits*, u64, u32, u32)`,
            // `bitonic_mapping_values(Bits*, Value*, u64, u32, u32)` or
            // `bitonic_mapping_indexed(Bits*, u64*, u64, u32, u32)`; the work array (and the
            // payload) hold len = 2 * pairs elements, and every thread i < pairs touches only
            // its own pair, map and map + 2^(t-1), both below len (1 <= t <= g <= log2 len).
            unsafe { kernel.launch(cfg, &args)? };
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_in_launch_order() {
        let s: Vec<_> = steps(8).collect();
        assert_eq!(s, [(1, 1), (2, 2), (2, 1), (3, 3), (3, 2), (3, 1)]);
        assert_eq!(steps(1 << 20).count(), 20 * 21 / 2);
    }

    /// Every step's threads cover every index exactly once (each pair belongs to one thread,
    /// which is what makes the report's atomic pair correct).
    #[test]
    fn pairs_partition_the_indices() {
        for m in 1..=7u32 {
            let len = 1u64 << m;
            for (g, t) in steps(len) {
                let mut seen = vec![0u32; len as usize];
                for i in 0..len / 2 {
                    let (lo, hi, _) = mapped_pair(i, g, t);
                    assert_eq!(hi - lo, 1 << (t - 1));
                    seen[lo as usize] += 1;
                    seen[hi as usize] += 1;
                }
                assert!(seen.iter().all(|&c| c == 1), "len {len} g {g} t {t}");
            }
        }
    }
}
