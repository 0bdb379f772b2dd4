//! A CPU simulation of `sample.cu`'s level loop (splitters, implicit-tree bucketing, counts
//! laid out bucket-major per segment, one global scan, scatter, emit, final sorts, copies
//! home), with the plan's real shapes: the index arithmetic and the bookkeeping must give the
//! stable sort on every shape, in both the sampled and the radix-splitter regime, within the
//! depth bound.

use super::plan::{Plan, BUCKETS, MAX_LEVELS, SAMPLE_DEPTH, TREE_LEVELS};
use super::variant::SampleVariant;

const SPLITTERS: usize = (1 << TREE_LEVELS) - 1;
const SAMPLE_SIZE: usize = 4096;

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D049BB133111EB);
    x ^ (x >> 31)
}

/// `sample_splitters` for one segment of `src` (keys as u64 ordered bits of `bits` width).
fn splitters(
    src: &[(u64, usize)],
    start: usize,
    len: usize,
    depth: u32,
    aim: usize,
    bits: u32,
) -> Vec<u64> {
    let seg = &src[start..start + len];
    if depth >= SAMPLE_DEPTH {
        let lo = seg.iter().map(|x| x.0).min().unwrap();
        let hi = seg.iter().map(|x| x.0).max().unwrap();
        let d = 64 - (lo ^ hi).leading_zeros();
        return (0..SPLITTERS)
            .map(|t| {
                if d == 0 {
                    return lo;
                }
                let shift = d.saturating_sub(TREE_LEVELS);
                let prefix = if d >= bits { 0 } else { (lo >> d) << d };
                let count = (1usize << (d - shift)) - 1;
                prefix + (((t + 1).min(count) as u64) << shift)
            })
            .collect();
    }
    let mut sample: Vec<u64> = (0..SAMPLE_SIZE)
        .map(|i| {
            let h = splitmix64(
                (start as u64)
                    .wrapping_mul(0x9E3779B97F4A7C15)
                    .wrapping_add(i as u64 + 0x5A17),
            );
            seg[((h as u128 * len as u128) >> 64) as usize].0
        })
        .collect();
    sample.sort_unstable();
    let k = len.div_ceil(aim).clamp(2, SPLITTERS + 1);
    let mut distinct: Vec<u64> = (1..k).map(|j| sample[j * SAMPLE_SIZE / k]).collect();
    distinct.dedup();
    (0..SPLITTERS)
        .map(|t| distinct[t.min(distinct.len() - 1)])
        .collect()
}

/// `bucket_of`: the tree walk over the BFS layout, then the equality test.
fn bucket_of(sorted: &[u64], key: u64) -> usize {
    let mut tree = vec![0u64; SPLITTERS + 1];
    for (j, t) in tree.iter_mut().enumerate().skip(1) {
        let level = usize::BITS - 1 - j.leading_zeros();
        let pos = j - (1 << level);
        *t = sorted[((2 * pos + 1) << (TREE_LEVELS - 1 - level)) - 1];
    }
    let mut j = 1;
    for _ in 0..TREE_LEVELS {
        j = 2 * j + usize::from(tree[j] < key);
    }
    let i = j - (SPLITTERS + 1);
    2 * i + usize::from(i < SPLITTERS && sorted[i] == key)
}

/// The level loop of `run.rs` over `keys` (ordered bits), returning the sorted (key, index)
/// pairs and the levels run.
fn simulate(
    keys: &[u64],
    plan: &Plan,
    sample_depth_shift: u32,
    bits: u32,
) -> (Vec<(u64, usize)>, u32) {
    let n = keys.len();
    let chunk = plan.shape.chunk();
    let small_max = plan.small_max();
    let mut bufs = [
        keys.iter().copied().zip(0..).collect::<Vec<_>>(),
        vec![(0u64, 0usize); n],
    ];
    let mut segs = vec![(0usize, n)];
    for depth in 0..MAX_LEVELS {
        let d = depth as usize;
        let (s_i, d_i) = (d % 2, (d + 1) % 2);
        let spl: Vec<Vec<u64>> = segs
            .iter()
            .map(|&(st, len)| {
                splitters(
                    &bufs[s_i],
                    st,
                    len,
                    depth + sample_depth_shift,
                    plan.aim(),
                    bits,
                )
            })
            .collect();
        let mut bases = Vec::new();
        let mut total = 0;
        for &(_, len) in &segs {
            bases.push(total);
            total += len.div_ceil(chunk);
        }
        let mut counts = vec![0usize; total * BUCKETS];
        for (s, &(st, len)) in segs.iter().enumerate() {
            let m = len.div_ceil(chunk);
            for i in st..st + len {
                let c = (i - st) / chunk;
                counts[bases[s] * BUCKETS + bucket_of(&spl[s], bufs[s_i][i].0) * m + c] += 1;
            }
        }
        let mut acc = 0;
        for c in counts.iter_mut() {
            let x = *c;
            *c = acc;
            acc += x;
        }
        let (src, dst) = if s_i == 0 {
            let (a, b) = bufs.split_at_mut(1);
            (&a[0], &mut b[0])
        } else {
            let (a, b) = bufs.split_at_mut(1);
            (&b[0], &mut a[0])
        };
        for (s, &(st, len)) in segs.iter().enumerate() {
            let m = len.div_ceil(chunk);
            let seg0 = counts[bases[s] * BUCKETS];
            for c in 0..m {
                let mut next: Vec<usize> = (0..BUCKETS)
                    .map(|b| st + counts[bases[s] * BUCKETS + b * m + c] - seg0)
                    .collect();
                let end = (st + (c + 1) * chunk).min(st + len);
                for &x in &src[st + c * chunk..end] {
                    let b = bucket_of(&spl[s], x.0);
                    dst[next[b]] = x;
                    next[b] += 1;
                }
            }
        }
        let mut next_segs = Vec::new();
        let mut finals = Vec::new();
        for (s, &(st, len)) in segs.iter().enumerate() {
            let m = len.div_ceil(chunk);
            let base = bases[s] * BUCKETS;
            let seg0 = counts[base];
            for b in 0..BUCKETS {
                let lo = counts[base + b * m] - seg0;
                let hi = if b + 1 < BUCKETS {
                    counts[base + (b + 1) * m] - seg0
                } else {
                    len
                };
                let (bs, bl) = (st + lo, hi - lo);
                if bl == 0 {
                    continue;
                }
                if b % 2 == 1 || bl == 1 {
                    if d_i == 1 {
                        finals.push((bs, bl, true));
                    }
                } else if bl <= small_max {
                    finals.push((bs, bl, false));
                } else {
                    next_segs.push((bs, bl));
                }
            }
        }
        let spare = bufs[d_i].clone();
        for (bs, bl, copy) in finals {
            let mut piece = spare[bs..bs + bl].to_vec();
            if !copy {
                piece.sort_by_key(|x| x.0);
            }
            bufs[0][bs..bs + bl].copy_from_slice(&piece);
        }
        if next_segs.is_empty() {
            return (bufs[0].clone(), depth + 1);
        }
        next_segs.reverse(); // the device's list order is arbitrary
        segs = next_segs;
    }
    panic!("depth bound");
}

fn check(keys: &[u64], variant: SampleVariant, radix_from_start: bool, bits: u32) -> u32 {
    let plan = Plan::new(keys.len(), (bits / 8) as usize, 0, variant);
    let shift = if radix_from_start { SAMPLE_DEPTH } else { 0 };
    let (out, levels) = simulate(keys, &plan, shift, bits);
    let mut want: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    want.sort_by_key(|x| x.0);
    assert!(out == want, "n = {} {variant}", keys.len());
    levels
}

#[test]
fn the_level_loop_is_the_stable_sort() {
    let mut x = 1u64;
    let mut rnd = move || {
        x = splitmix64(x);
        x
    };
    let n = 300_007;
    let uniform: Vec<u64> = (0..n).map(|_| rnd() >> 32).collect();
    let few: Vec<u64> = (0..n).map(|_| rnd() % 5).collect();
    let equal = vec![7u64; n];
    let ascending: Vec<u64> = (0..n as u64).collect();
    let organ: Vec<u64> = (0..n).map(|i| i.min(n - i) as u64).collect();
    for variant in SampleVariant::ALL {
        // Fast: one level (k' = 74 buckets of ~4096); notes: two (buckets of 1024 at most).
        let want = if variant == SampleVariant::Fast { 1 } else { 2 };
        assert_eq!(check(&uniform, variant, false, 32), want, "{variant}");
        assert_eq!(check(&few, variant, false, 32), 1);
        assert_eq!(check(&equal, variant, false, 32), 1);
        assert!(check(&ascending, variant, false, 32) <= 2);
        assert!(check(&organ, variant, false, 32) <= 2);
    }
    // Radix splitters from the first level: bounded by the key width / TREE_LEVELS.
    let wide: Vec<u64> = (0..n).map(|_| rnd()).collect();
    let levels = check(&wide, SampleVariant::Fast, true, 64);
    assert!(levels <= 64 / TREE_LEVELS + 1, "{levels}");
    let levels = check(&few, SampleVariant::Fast, true, 32);
    assert!(levels <= 2, "{levels}");
    let levels = check(&ascending, SampleVariant::Notes, true, 32);
    assert!(levels <= 32 / TREE_LEVELS + 1, "{levels}");
}

/// Sorts `input` (with index values) on the device with radix splitters from the first level
/// (the regime that bounds the depth, which no ordinary input reaches) and checks the result
/// against the stable reference bit for bit.
fn radix_regime_on_device<K: sortlab_primitives::SortKey>(
    gpu: &sortlab_primitives::Gpu,
    input: &[K],
    order: sortlab_primitives::Order,
    variant: SampleVariant,
) {
    use sortlab_primitives::DeviceBuffer;
    let n = input.len();
    let values: Vec<u32> = (0..n as u32).collect();
    let mut plan = Plan::new(n, K::SIZE, 4, variant);
    plan.sample_depth = 0;
    let scratch = DeviceBuffer::<u8>::alloc(gpu, plan.scratch_bytes()).unwrap();
    let k = DeviceBuffer::from_host(gpu, input).unwrap();
    let v = DeviceBuffer::from_host(gpu, &values).unwrap();
    let at = super::run::Addrs {
        keys: k.ptr().addr(),
        values: v.ptr().addr(),
        scratch: Some(&scratch),
    };
    super::run::sort::<K>(gpu, &plan, order.flip::<K::Bits>(), &at).unwrap();
    let (mut ek, mut ev) = (input.to_vec(), values);
    sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
    sortlab_cpu_reference::check::check_pairs_equal(
        &ek,
        &ev,
        &k.to_host().unwrap(),
        &v.to_host().unwrap(),
    )
    .unwrap_or_else(|e| panic!("{} n = {n} {order:?} {variant}: {e}", K::NAME));
}

#[test]
#[ignore = "needs a CUDA device"]
fn radix_splitters_on_the_device() {
    use sortlab_primitives::Order;
    use sortlab_verify::{generate, Pattern};
    let gpu = sortlab_verify::testing::gpu();
    let n = (1 << 20) + 7;
    for variant in SampleVariant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for (i, shape) in [
                Pattern::FullRange,
                Pattern::FewDistinct,
                Pattern::Ascending,
                Pattern::AllEqual,
                Pattern::Zipf,
            ]
            .into_iter()
            .enumerate()
            {
                let seed = 90 + i as u64;
                radix_regime_on_device(&gpu, &generate::<u32>(shape, n, seed), order, variant);
                radix_regime_on_device(&gpu, &generate::<f64>(shape, n, seed), order, variant);
                radix_regime_on_device(&gpu, &generate::<i64>(shape, n, seed), order, variant);
            }
        }
    }
}
