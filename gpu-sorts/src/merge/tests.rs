//! CPU checks of the host arithmetic and a CPU simulation of the kernels' index arithmetic
//! (pair geometry, partition, per-thread merge-path splits, rank merge), no GPU needed.

use super::plan::{levels, Plan, Shape};
use super::*;

#[test]
fn scratch_sizes() {
    for variant in MergeVariant::ALL {
        let o = MergeOptions::default().with_variant(variant);
        let tile = Shape::of(variant, 4, 0).sort_tile();
        assert_eq!(scratch_bytes::<u32>(0, &o), 0);
        assert_eq!(scratch_bytes::<u32>(1, &o), 0);
        // One tile: one block, no scratch.
        assert_eq!(scratch_bytes::<u32>(tile, &o), 0);
        assert_eq!(scratch_bytes_pairs::<f32, u64>(tile, &o), 0);
        let n = 1 << 20;
        let keys = scratch_bytes::<u32>(n, &o);
        // The second buffer, and under 1% more (the fast sort's splits).
        assert!((4 * n..4 * n + n / 64).contains(&keys), "{variant} {keys}");
        let pairs = scratch_bytes_pairs::<u64, u64>(n, &o);
        assert!(
            (16 * n..16 * n + n / 64).contains(&pairs),
            "{variant} {pairs}"
        );
        assert!(
            scratch_bytes_pairs::<f32, u32>(tile + 1, &o) >= scratch_bytes::<f32>(tile + 1, &o)
        );
    }
    // Fast: a u64 split per merge block after the second buffers.
    let p = Plan::new(1 << 20, 4, 4, MergeVariant::Fast);
    let l = p.layout().unwrap();
    assert_eq!(l.splits.len(), (1 << 20) / p.shape.merge_tile());
    assert_eq!(l.values.offset(), 4 << 20);
    // Past 2^32 keys the sizes are plain products.
    let big = (1usize << 32) + 5;
    let o = MergeOptions::default();
    assert!(scratch_bytes::<u32>(big, &o) >= 4 * big);
}

#[test]
fn level_counts_and_buffers() {
    assert_eq!(levels(0, 8), 0);
    assert_eq!(levels(8, 8), 0);
    assert_eq!(levels(9, 8), 1);
    assert_eq!(levels(16, 8), 1);
    assert_eq!(levels(17, 8), 2);
    assert_eq!(levels(8 * 1024, 8), 10);
    assert_eq!(levels(8 * 1024 + 1, 8), 11);
    assert_eq!(merge_levels(MergeVariant::Fast, 1 << 28, 4, 4), 15);
    assert_eq!(merge_levels(MergeVariant::Fast, 1 << 28, 8, 0), 16);
    assert_eq!(merge_levels(MergeVariant::Satish, 1 << 28, 8, 8), 18);
    assert_eq!(merge_levels(MergeVariant::Fast, (1 << 32) + 5, 4, 0), 20);
    // Run widths as shifts: tiles of 2^13 (fast, u32), 2^12 (fast, 8-byte keys), 2^10 (Satish).
    assert_eq!(
        Plan::new(1 << 20, 4, 0, MergeVariant::Fast).width_log2(0),
        13
    );
    assert_eq!(
        Plan::new(1 << 20, 8, 8, MergeVariant::Fast).width_log2(2),
        14
    );
    assert_eq!(
        Plan::new(1 << 20, 4, 4, MergeVariant::Satish).width_log2(1),
        11
    );
    // The last level always writes the caller's buffers.
    for n in [10_000, 20_000, 40_000, 100_000, 1 << 20] {
        let p = Plan::new(n, 4, 0, MergeVariant::Fast);
        assert!(p.levels > 0);
        let mut in_caller = p.tiles_in_place();
        for level in 0..p.levels {
            assert_eq!(
                p.level_reads_caller(level),
                in_caller,
                "n={n} level {level}"
            );
            in_caller = !in_caller;
        }
        assert!(in_caller, "n={n}: the result ends in the caller's buffer");
    }
}

#[test]
fn shapes_are_valid_and_fit() {
    for variant in MergeVariant::ALL {
        for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
            let s = Shape::of(variant, k, v);
            s.validate().unwrap();
            // Hopper's 227 KiB, and the A100's 163 KiB, hold every block.
            assert!(s.sort_shared_bytes(k, v) <= 160 << 10, "{s:?}");
            assert!(s.merge_shared_bytes(k, v) <= 64 << 10, "{s:?}");
        }
    }
    let s = Shape::of(MergeVariant::Fast, 4, 4);
    // 8192 keys + 256 pad slots, u32 each; a u32 index per slot.
    assert_eq!(s.sort_shared_bytes(4, 0), 8448 * 4);
    assert_eq!(s.sort_shared_bytes(4, 4), 8448 * 8);
    // u64 values outgrow the padded u32 keys: 8192 * 8 bytes, then the index.
    assert_eq!(s.sort_shared_bytes(4, 8), 8192 * 8 + 8448 * 4);
    let bad = Shape {
        merge_items: 3,
        ..s
    };
    assert!(bad.validate().is_err());
}

#[test]
fn edge_lengths_cover_paths() {
    let e = edge_lengths(MergeVariant::Fast);
    for len in [1024, 2048, 4096, 8192, 16384] {
        assert!(e.contains(&len), "{e:?}");
    }
    assert_eq!(edge_lengths(MergeVariant::Satish), vec![1024, 2048]);
}

#[test]
fn module_configs_cover_every_key_type() {
    for (k, v) in [(4, 0), (4, 8), (8, 4)] {
        let c = module_configs(k, v);
        assert_eq!(c.len(), 6);
        let opts = c[0].1.to_options();
        assert!(opts.iter().any(|o| o.starts_with("-DSORT_SMEM_BYTES=")));
        assert!(opts
            .iter()
            .any(|o| o == &format!("-DHAS_VALUES={}", (v > 0) as u32)));
    }
}

// ---- The kernels' index arithmetic, simulated. ----

/// `pair_of` of merge.cu: (start, left length, right length) of the pair holding `pos`.
fn pair_of(pos: u64, n: u64, width: u64) -> (u64, u64, u64) {
    let start = pos / (2 * width) * (2 * width);
    let rest = n - start;
    let a_len = rest.min(width);
    (start, a_len, (rest - a_len).min(width))
}

/// `merge_path_by` (and merge_path_global): left-run elements among the first `diag` outputs.
fn merge_path(a: &[u64], b: &[u64], diag: usize) -> usize {
    let (mut lo, mut hi) = (diag.saturating_sub(b.len()), diag.min(a.len()));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if b[diag - 1 - mid] < a[mid] {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The tile sort: each tile sorted stably by key. Elements are (key, input index).
fn sort_tiles(v: &mut [(u64, usize)], tile: usize) {
    for t in v.chunks_mut(tile) {
        t.sort_by_key(|e| e.0);
    }
}

/// One level of `merge_partition` + `merge_path_pass` with `threads` x `items` outputs a block.
fn fast_level(src: &[(u64, usize)], width: u64, threads: usize, items: usize) -> Vec<(u64, usize)> {
    let n = src.len() as u64;
    let tile = (threads * items) as u64;
    let blocks = n.div_ceil(tile);
    let key = |i: u64| src[i as usize].0;
    let splits: Vec<u64> = (0..blocks)
        .map(|t| {
            let pos = t * tile;
            let (s, a_len, b_len) = pair_of(pos, n, width);
            let a: Vec<u64> = (s..s + a_len).map(key).collect();
            let b: Vec<u64> = (s + a_len..s + a_len + b_len).map(key).collect();
            merge_path(&a, &b, (pos - s) as usize) as u64
        })
        .collect();
    let mut out = vec![None; src.len()];
    for t in 0..blocks {
        let o0 = t * tile;
        let (s, a_len, b_len) = pair_of(o0, n, width);
        let pair_len = a_len + b_len;
        let end = (o0 + tile).min(s + pair_len);
        let (diag0, diag1) = (o0 - s, end - s);
        let a0 = splits[t as usize];
        let a1 = if diag1 == pair_len {
            a_len
        } else {
            splits[t as usize + 1]
        };
        assert!(a0 <= a1 && a1 <= a_len, "block {t}");
        let b0 = diag0 - a0;
        let (na, count) = ((a1 - a0) as usize, (diag1 - diag0) as usize);
        assert!(count <= tile as usize && na <= count);
        assert!(b0 + (count - na) as u64 <= b_len, "block {t}");
        let sh: Vec<(u64, usize)> = (0..count)
            .map(|i| {
                if i < na {
                    src[(s + a0) as usize + i]
                } else {
                    src[(s + a_len + b0) as usize + i - na]
                }
            })
            .collect();
        let keys: Vec<u64> = sh.iter().map(|e| e.0).collect();
        for tid in 0..threads {
            let d = (tid * items).min(count);
            let split = merge_path(&keys[..na], &keys[na..], d);
            let (mut ia, mut ib) = (split, na + d - split);
            for k in 0..items {
                let take_b = ib < count && (ia >= na || keys[ib] < keys[ia]);
                let from = if take_b { ib } else { ia };
                if take_b {
                    ib += 1;
                } else {
                    ia += 1;
                }
                if d + k < count {
                    let slot = &mut out[(o0 as usize) + d + k];
                    assert!(slot.is_none(), "output written twice");
                    *slot = Some(sh[from]);
                }
            }
        }
    }
    out.into_iter()
        .map(|e| e.expect("output never written"))
        .collect()
}

/// One level of `merge_rank_pass`.
fn rank_level(src: &[(u64, usize)], width: u64) -> Vec<(u64, usize)> {
    let n = src.len() as u64;
    let mut out = vec![None; src.len()];
    for i in 0..n {
        let (s, a_len, b_len) = pair_of(i, n, width);
        let run = |from: u64, len: u64| &src[from as usize..(from + len) as usize];
        let key = src[i as usize].0;
        let own = i - s;
        let pos = if own < a_len {
            s + own + run(s + a_len, b_len).partition_point(|e| e.0 < key) as u64
        } else {
            s + own - a_len + run(s, a_len).partition_point(|e| e.0 <= key) as u64
        };
        let slot = &mut out[pos as usize];
        assert!(slot.is_none(), "position {pos} claimed twice");
        *slot = Some(src[i as usize]);
    }
    out.into_iter()
        .map(|e| e.expect("position never written"))
        .collect()
}

/// Elements of the simulation: (key bits, input index).
type Elem = (u64, usize);

/// The whole sort, simulated with tiles of `tile` and `merge` as the level.
fn simulate(keys: &[u64], tile: usize, merge: &dyn Fn(&[Elem], u64) -> Vec<Elem>) {
    let mut v: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    sort_tiles(&mut v, tile);
    for level in 0..levels(keys.len(), tile) {
        v = merge(&v, (tile as u64) << level);
    }
    let mut want: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    want.sort_by_key(|e| e.0);
    assert_eq!(v, want, "n={} tile {tile}", keys.len());
}

fn inputs(n: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let random: Vec<u64> = (0..n).map(|_| next()).collect();
    let few: Vec<u64> = (0..n).map(|_| next() % 3).collect();
    let up: Vec<u64> = (0..n as u64).collect();
    let down: Vec<u64> = (0..n as u64).rev().collect();
    vec![random, few, up, down, vec![7; n]]
}

#[test]
fn fast_merge_arithmetic_simulated() {
    // Small shapes: sort tiles of 16, merge blocks of 4 threads x 2 (and x 4, and 2 x 8).
    for (threads, items) in [(4, 2), (4, 4), (2, 8)] {
        let tile = 16;
        for n in [2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 255, 257, 1000] {
            for keys in inputs(n, n as u64) {
                simulate(&keys, tile, &|src, w| fast_level(src, w, threads, items));
            }
        }
    }
    // The default shape of 4-byte keys: 8192-key tiles, 256 x 16 merge blocks, 5 levels.
    let s = Shape::of(MergeVariant::Fast, 4, 0);
    let (threads, items) = (s.merge_threads as usize, s.merge_items as usize);
    for keys in inputs(5 * 8192 * 4 + 3, 5) {
        simulate(&keys, s.sort_tile(), &|src, w| {
            fast_level(src, w, threads, items)
        });
    }
}

#[test]
fn satish_rank_arithmetic_simulated() {
    for n in [2, 7, 8, 9, 24, 25, 100, 1000] {
        for keys in inputs(n, n as u64 + 1) {
            simulate(&keys, 8, &rank_level);
        }
    }
}
