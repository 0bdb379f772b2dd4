//! [`BitonicVariant::Fast`](super::BitonicVariant::Fast): the launcher of `fast.cu`, its
//! policy, and its schedule of launches.

use sortlab_primitives::{
    Defines, Error, Gpu, KernelArgs, KernelSource, LaunchConfig, Module, Result,
};

use super::job::{Addrs, Job};

/// The fast sort's kernels (`fast.cu`).
pub const FAST_SOURCE: KernelSource = KernelSource::new("fast.cu", include_str!("fast.cu"));

/// The shape of the fast sort: its tile, its block sizes, and how many global steps one
/// launch fuses.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::bitonic::FastPolicy;
/// let p = FastPolicy::for_types(4, 0);
/// assert_eq!(p.tile(), 8192);
/// assert!(p.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FastPolicy {
    /// Threads per block of the tile sort and the in-tile merge (a power of two, 32 to 1024).
    pub threads: u32,
    /// Elements per thread of a tile (a power of two, 2 to 64): the tile is `threads * items`.
    pub items: u32,
    /// Threads per block of the global-step kernels (a multiple of 32, up to 1024).
    pub global_threads: u32,
    /// The most global steps (partner distance at least a tile) one launch runs in registers:
    /// 1 to 4. Each thread of such a launch holds `2^fuse` elements.
    pub fuse: u32,
}

/// Blocks of the tile kernels: 512 threads.
const TILE_THREADS: u32 = 512;
/// Global-step blocks: 256 threads.
const GLOBAL_THREADS: u32 = 256;
/// Global steps per launch: 4, so each pass over memory does the work of four steps.
const FUSE: u32 = 4;

impl FastPolicy {
    /// The policy for keys of `key_size` bytes and values of `value_size` (0: keys only): tiles
    /// of 8192 elements (4096 for 8-byte keys with values, whose shared-memory elements take
    /// 16 bytes), so that three blocks fit a multiprocessor's shared memory.
    pub fn for_types(key_size: usize, value_size: usize) -> FastPolicy {
        let items = if key_size > 4 && value_size > 0 {
            8
        } else {
            16
        };
        FastPolicy {
            threads: TILE_THREADS,
            items,
            global_threads: GLOBAL_THREADS,
            fuse: FUSE,
        }
    }

    /// Elements per tile.
    pub fn tile(&self) -> usize {
        self.threads as usize * self.items as usize
    }

    /// [`Error::InvalidArgument`] unless every field is within its documented range.
    pub fn validate(&self) -> Result<()> {
        let ok = self.threads.is_power_of_two()
            && (32..=1024).contains(&self.threads)
            && self.items.is_power_of_two()
            && (2..=64).contains(&self.items)
            && self.global_threads % 32 == 0
            && (32..=1024).contains(&self.global_threads)
            && (1..=4).contains(&self.fuse);
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "bitonic fast policy {self:?}: threads a power of two 32..1024, items a power \
                 of two 2..64, global_threads a multiple of 32 up to 1024, fuse 1..4"
            )))
        }
    }

    /// Dynamic shared memory of the tile kernels, an upper bound of their storage (`fast.cu`
    /// checks it with a `static_assert`): the network's elements (bits, with values bits and a
    /// tile index) with one padding slot per thread, the tile's values, or a load/store
    /// exchange of keys or values.
    pub fn shared_bytes(&self, key_size: usize, value_size: usize) -> u32 {
        let tile = self.tile();
        let elem = match (key_size, value_size) {
            (k, 0) => k,
            (4, _) => 8,
            _ => 16,
        };
        let network = (tile + self.threads as usize) * elem;
        let values = tile * value_size;
        let exchange = (tile + tile / 16) * key_size.max(value_size);
        (network.max(values).max(exchange).next_multiple_of(128)) as u32
    }

    /// The defines of `fast.cu` beyond the word vocabulary.
    pub fn defines(&self, key_size: usize, value_size: usize) -> Defines {
        Defines::new()
            .set("FAST_THREADS", self.threads)
            .set("FAST_ITEMS", self.items)
            .set("FAST_GLOBAL_THREADS", self.global_threads)
            .set("FAST_FUSE", self.fuse)
            .set("FAST_SMEM_BYTES", self.shared_bytes(key_size, value_size))
    }
}

/// One launch of the fast sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FastLaunch {
    /// Every tile sorted (stages 2 .. tile).
    Tiles,
    /// `steps` consecutive global steps of one stage, the smallest of partner distance
    /// `2^log_d`; `mirror`: the first of them is the stage's mirror step.
    Global {
        /// Steps fused (1 to the policy's `fuse`).
        steps: u32,
        /// Whether the first step is the stage's mirror step.
        mirror: bool,
        /// log2 of the smallest partner distance (at least log2 of the tile).
        log_d: u32,
    },
    /// The half-cleaners of distance tile/2 .. 1 of a stage, in each tile.
    Merge,
}

/// The launches that sort `n` elements under `policy`, in order: the tile sort; then, for each
/// stage k = 2 tile, 4 tile, ..., up to the next power of two >= n, its log2(k / tile) global
/// steps (the mirror step, then half-cleaners k/4 .. tile) cut into as few launches of at most
/// `fuse` steps as possible, of nearly equal size, and the in-tile merge. Nothing for n < 2.
///
/// # Example
/// ```
/// use sortlab_gpu_sorts::bitonic::{fast_schedule, FastLaunch, FastPolicy};
/// let p = FastPolicy::for_types(4, 0);
/// assert_eq!(fast_schedule(8192, &p), vec![FastLaunch::Tiles]);
/// let s = fast_schedule(8193, &p);
/// assert_eq!(s[1], FastLaunch::Global { steps: 1, mirror: true, log_d: 13 });
/// assert_eq!(s.len(), 3);
/// ```
pub fn fast_schedule(n: usize, policy: &FastPolicy) -> Vec<FastLaunch> {
    if n < 2 {
        return Vec::new();
    }
    let mut out = vec![FastLaunch::Tiles];
    let tile_log = policy.tile().trailing_zeros();
    let top = n.next_power_of_two().trailing_zeros();
    let fuse = policy.fuse.max(1);
    for stage in tile_log + 1..=top {
        // Steps 0 .. global of stage 2^stage: step 0 the mirror, step i a half-cleaner of
        // distance 2^(stage - 1 - i); the last global one has distance 2^tile_log.
        let global = stage - tile_log;
        let launches = global.div_ceil(fuse);
        let mut first = 0;
        for l in 0..launches {
            // Nearly equal sizes, the larger first.
            let steps = global / launches + u32::from(l < global % launches);
            out.push(FastLaunch::Global {
                steps,
                mirror: first == 0,
                log_d: stage - first - steps,
            });
            first += steps;
        }
        out.push(FastLaunch::Merge);
    }
    out
}

/// Threads (groups) of a global launch of `steps` steps with smallest distance `2^log_d` over
/// n elements: `d` groups per run of `2^steps * d` elements, runs up to the one holding n - 1.
pub(crate) fn global_groups(n: u64, steps: u32, log_d: u32) -> u64 {
    n.div_ceil(1u64 << (log_d + steps)) << log_d
}

/// Sorts `job` (n >= 2) in place under `policy`.
pub(crate) fn sort(
    gpu: &Gpu,
    module: &Module,
    job: &Job,
    policy: &FastPolicy,
    at: &Addrs,
) -> Result<()> {
    let n = job.n as u64;
    let schedule = fast_schedule(job.n, policy);
    let shared = policy.shared_bytes(job.key_size, job.value_size());
    let tiles = gpu.exact_grid(job.n.div_ceil(policy.tile()), "the bitonic tile sort")?;
    let tile_cfg = LaunchConfig::linear(tiles, policy.threads)
        .with_shared(shared)
        .dependent();
    // Every kernel and launch shape is found and checked before the first launch writes.
    let mut launches = Vec::with_capacity(schedule.len());
    for s in &schedule {
        let (name, cfg) = match *s {
            FastLaunch::Tiles => ("bitonic_fast_tiles".to_string(), tile_cfg),
            FastLaunch::Merge => ("bitonic_fast_merge".to_string(), tile_cfg),
            FastLaunch::Global {
                steps,
                mirror,
                log_d,
            } => {
                let kind = if mirror { "mirror" } else { "global" };
                let groups = global_groups(n, steps, log_d);
                let blocks = usize::try_from(groups.div_ceil(policy.global_threads as u64))
                    .unwrap_or(usize::MAX);
                let blocks = gpu.exact_grid(blocks, "a bitonic global step")?;
                let cfg = LaunchConfig::linear(blocks, policy.global_threads).dependent();
                (format!("bitonic_fast_{kind}_{steps}"), cfg)
            }
        };
        let kernel = module.kernel(&name)?;
        kernel.check(&cfg)?;
        let log_d = match *s {
            FastLaunch::Global { log_d, .. } => Some(log_d),
            _ => None,
        };
        launches.push((kernel, cfg, log_d));
    }
    for (kernel, cfg, log_d) in &launches {
        let mut args = KernelArgs::new();
        args.push(at.keys).push(at.values).push(n);
        job.push_flip(&mut args);
        match log_d {
            Some(log_d) => {
                args.push(*log_d);
                // SAFETY: arguments match `bitonic_fast_{global,mirror}_S(Key*, Value*, u64,
                // Bits, u32)`; keys (and values, or null for keys only, never read then) hold n
                // elements, and every access is guarded by position < n; the groups of one
                // launch are disjoint, so no two threads touch one element; every thread waits
                // on the previous launch before its first access (dependent launch).
                unsafe { kernel.launch(*cfg, &args)? };
            }
            None => {
                // SAFETY: arguments match `bitonic_fast_{tiles,merge}(Key*, Value*, u64, Bits)`;
                // one block per tile of n elements, each touching only its tile below n, with
                // the dynamic shared memory the kernels' static_assert checks; every thread
                // waits on the previous launch first.
                unsafe { kernel.launch(*cfg, &args)? };
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast sort run on the CPU, launch by launch, with the kernels' own index arithmetic:
    /// elements are (bits, id); padding past n reads as all ones and is never stored; swaps
    /// only where the upper element is strictly smaller (by bits in registers; by (bits, tile
    /// index) in the in-tile merge, as `fast.cu` does with values).
    fn simulate(a: &mut [(u64, u64)], policy: &FastPolicy) {
        let n = a.len() as u64;
        let tile = policy.tile();
        for launch in fast_schedule(a.len(), policy) {
            match launch {
                FastLaunch::Tiles => {
                    for t in a.chunks_mut(tile) {
                        t.sort_by_key(|e| e.0);
                    }
                }
                FastLaunch::Global {
                    steps,
                    mirror,
                    log_d,
                } => {
                    let r_len = 1usize << steps;
                    let d = 1u64 << log_d;
                    let groups = global_groups(n, steps, log_d);
                    let threads = groups.div_ceil(policy.global_threads as u64)
                        * policy.global_threads as u64;
                    for g in 0..threads {
                        let r = g & (d - 1);
                        let first = (g >> log_d) << (log_d + steps);
                        if first + r >= n {
                            continue;
                        }
                        let pos = |m: usize| {
                            if mirror && m >= r_len / 2 {
                                first
                                    + (r_len as u64 / 2) * d
                                    + (d - 1 - r)
                                    + (m - r_len / 2) as u64 * d
                            } else {
                                first + r + m as u64 * d
                            }
                        };
                        let mut regs: Vec<(u64, u64)> = (0..r_len)
                            .map(|m| {
                                let p = pos(m);
                                if p < n {
                                    a[p as usize]
                                } else {
                                    (u64::MAX, u64::MAX)
                                }
                            })
                            .collect();
                        let mut cx = |lo: usize, hi: usize| {
                            assert!(pos(lo) < pos(hi));
                            if regs[hi].0 < regs[lo].0 {
                                regs.swap(lo, hi);
                            }
                        };
                        let mut h = r_len / 2;
                        if mirror {
                            for m in 0..r_len / 2 {
                                cx(m, r_len - 1 - m);
                            }
                            h = r_len / 4;
                        }
                        while h >= 1 {
                            for m in 0..r_len {
                                if m & h == 0 {
                                    cx(m, m + h);
                                }
                            }
                            h /= 2;
                        }
                        for (m, e) in regs.into_iter().enumerate() {
                            let p = pos(m);
                            if p < n {
                                assert!(e.1 != u64::MAX, "padding stored at {p}");
                                a[p as usize] = e;
                            }
                        }
                    }
                }
                FastLaunch::Merge => {
                    for t in a.chunks_mut(tile) {
                        let valid = t.len();
                        // (bits, tile index, element)
                        let mut s: Vec<(u64, usize, (u64, u64))> = (0..tile)
                            .map(|i| {
                                if i < valid {
                                    (t[i].0, i, t[i])
                                } else {
                                    (u64::MAX, i, (u64::MAX, u64::MAX))
                                }
                            })
                            .collect();
                        let mut j = tile / 2;
                        while j >= 1 {
                            for q in 0..tile / 2 {
                                let lo = ((q & !(j - 1)) << 1) | (q & (j - 1));
                                let hi = lo + j;
                                if (s[hi].0, s[hi].1) < (s[lo].0, s[lo].1) {
                                    s.swap(lo, hi);
                                }
                            }
                            j /= 2;
                        }
                        for i in 0..valid {
                            assert!(
                                s[i].2 .1 != u64::MAX,
                                "padding among the tile's first {valid}"
                            );
                            t[i] = s[i].2;
                        }
                    }
                }
            }
        }
    }

    fn check(n: usize, policy: &FastPolicy, seed: u64) {
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for shape in 0..4 {
            let mut a: Vec<(u64, u64)> = (0..n as u64)
                .map(|i| {
                    let r = next();
                    let bits = match shape {
                        0 => r,
                        // Few distinct, the largest (all ones, padding's bits) among them.
                        1 => [0, 5, u64::MAX][(r % 3) as usize],
                        2 => n as u64 - i,
                        _ => u64::MAX,
                    };
                    (bits, i)
                })
                .collect();
            let mut expected = a.clone();
            expected.sort_by_key(|e| e.0);
            simulate(&mut a, policy);
            assert!(
                a.windows(2).all(|w| w[0].0 <= w[1].0),
                "n {n} shape {shape} {policy:?}: not sorted"
            );
            let mut ids: Vec<u64> = a.iter().map(|e| e.1).collect();
            ids.sort_unstable();
            assert!(
                ids.iter().copied().eq(0..n as u64),
                "n {n} shape {shape}: ids lost"
            );
            assert!(a.iter().map(|e| e.0).eq(expected.iter().map(|e| e.0)));
        }
    }

    /// Arbitrary n, sorted by the exact schedule of launches, with small tiles (many global
    /// stages) and every fusion depth, and with the real policies.
    #[test]
    fn schedule_sorts_any_length() {
        for fuse in 1..=4 {
            for items in [2, 4] {
                let p = FastPolicy {
                    threads: 2,
                    items,
                    global_threads: 32,
                    fuse,
                };
                for n in (0..300).chain([511, 512, 513, 1000, 1023, 1025, 4097]) {
                    check(n, &p, n as u64 * 31 + fuse as u64);
                }
            }
        }
        for (k, v) in [(4, 0), (8, 8)] {
            let p = FastPolicy::for_types(k, v);
            let t = p.tile();
            for n in [t - 1, t + 1, 2 * t + 3, 5 * t - 7] {
                check(n, &p, n as u64);
            }
        }
    }

    #[test]
    fn schedule_shapes() {
        let p = FastPolicy::for_types(4, 0);
        assert!(fast_schedule(1, &p).is_empty());
        assert_eq!(fast_schedule(2, &p), vec![FastLaunch::Tiles]);
        // 2^24 keys, tiles of 2^13: stages 14 .. 24 with 1 .. 11 global steps.
        let s = fast_schedule(1 << 24, &p);
        let globals = s
            .iter()
            .filter(|l| matches!(l, FastLaunch::Global { .. }))
            .count();
        let merges = s.iter().filter(|l| **l == FastLaunch::Merge).count();
        assert_eq!((globals, merges), (21, 11));
        // Stage 2^22: 9 global steps as 3 + 3 + 3, distances down to the tile.
        let stages: Vec<&[FastLaunch]> = s[1..].split(|l| *l == FastLaunch::Merge).collect();
        let global = |steps, mirror, log_d| FastLaunch::Global {
            steps,
            mirror,
            log_d,
        };
        assert_eq!(
            stages[22 - 14],
            [
                global(3, true, 19),
                global(3, false, 16),
                global(3, false, 13)
            ]
        );
        assert_eq!(stages[18 - 14], [global(3, true, 15), global(2, false, 13)]);
        for l in &s {
            if let FastLaunch::Global { steps, log_d, .. } = l {
                assert!((1..=4).contains(steps) && *log_d >= 13);
            }
        }
        assert_eq!(global_groups(10, 2, 1), 4);
    }

    #[test]
    fn policies_are_valid() {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let p = FastPolicy::for_types(k, v);
            p.validate().unwrap();
            assert!(p.shared_bytes(k, v) <= 76 * 1024, "{k} {v}");
        }
        let bad = FastPolicy {
            fuse: 5,
            ..FastPolicy::for_types(4, 0)
        };
        assert!(bad.validate().is_err());
    }
}
