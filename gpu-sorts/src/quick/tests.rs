//! CPU checks of the host arithmetic and a CPU simulation of the kernels' scheduling (plan,
//! count, write, children, finishing, fallback) with small tiles, no GPU needed.

use super::plan::{max_rounds, Plan, Shape};
use super::*;

#[test]
fn scratch_sizes() {
    for variant in QuickVariant::ALL {
        let o = QuickOptions::default().with_variant(variant);
        let tile = Shape::of(4).tile();
        assert_eq!(scratch_bytes::<u32>(0, &o), 0);
        assert_eq!(scratch_bytes::<u32>(1, &o), 0);
        assert_eq!(scratch_bytes::<u32>(tile, &o), 0);
        assert_eq!(scratch_bytes_pairs::<f32, u64>(tile, &o), 0);
        assert_eq!(scratch_bytes_pairs::<f64, u64>(Shape::of(8).tile(), &o), 0);
        let n = 1 << 28;
        let keys = scratch_bytes::<u32>(n, &o);
        // The second buffer, and under half a byte per key more.
        assert!((4 * n..4 * n + n / 2).contains(&keys), "{variant} {keys}");
        let pairs = scratch_bytes_pairs::<u64, u64>(n, &o);
        assert!((16 * n..16 * n + n).contains(&pairs), "{variant} {pairs}");
        assert!(
            scratch_bytes_pairs::<f32, u32>(tile + 1, &o) >= scratch_bytes::<f32>(tile + 1, &o)
        );
    }
    let big = (1usize << 32) + 5;
    assert!(scratch_bytes::<u32>(big, &QuickOptions::default()) >= 4 * big);
}

#[test]
fn rounds_and_capacities() {
    assert_eq!(max_rounds(8192, 8192), 0);
    assert_eq!(max_rounds(8193, 8192), 6);
    assert_eq!(super::max_rounds(1 << 28, 4), 27);
    assert_eq!(super::max_rounds((1 << 32) + 5, 4), 34);
    let p = Plan::new(1 << 20, 4, 0, QuickVariant::Fast);
    assert_eq!(p.cap_seqs, (1 << 20) / 8193 + 1);
    assert_eq!(p.cap_chunks, (1 << 20) / 4096 + p.cap_seqs);
    assert!(p.cap_tasks <= 1 << 20);
    let l = p.layout().unwrap();
    assert_eq!(l.values.len(), 0);
    assert_eq!(l.lists.len(), 2 * 7 * p.cap_seqs);
    assert!(Plan::new(100, 8, 8, QuickVariant::Notes).small());
}

#[test]
fn shapes_fit() {
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        let s = Shape::of(k);
        assert!(s.tile_shared_bytes(k, v) <= 160 << 10, "{s:?}");
        assert!(s.chunk_shared_bytes(k, v) <= 48 << 10, "{s:?}");
        assert!(s.chunk() <= s.tile() && s.chunk() <= 1 << 20);
        assert!(s.tile_threads.is_power_of_two());
    }
    // As the merge sort's tile sort: 8192 keys + 256 pad slots.
    assert_eq!(Shape::of(4).tile_shared_bytes(4, 0), 8448 * 4);
    assert_eq!(Shape::of(4).tile_shared_bytes(4, 8), 8192 * 8 + 8448 * 4);
}

#[test]
fn edge_lengths_and_configs() {
    assert_eq!(
        edge_lengths(QuickVariant::Fast),
        vec![1024, 2048, 4096, 8192, 16384]
    );
    for (k, v) in [(4, 0), (4, 8), (8, 4)] {
        let c = module_configs(k, v);
        assert_eq!(c.len(), 3);
        let opts = c[0].1.to_options();
        assert!(opts.iter().any(|o| o.starts_with("-DTILE_SMEM_BYTES=")));
        assert!(opts
            .iter()
            .any(|o| o == &format!("-DHAS_VALUES={}", (v > 0) as u32)));
    }
}

// ---- The kernels' scheduling, simulated (sequentially, same arithmetic). ----

#[derive(Clone, Copy, Debug)]
struct Seq {
    start: usize,
    len: usize,
    chunk_begin: usize,
    lt: usize,
    eq: usize,
    gt: usize,
    pivot: u64,
}

#[derive(Clone, Copy, Debug)]
struct Task {
    start: usize,
    len: usize,
    copy: bool,
    buf: usize,
}

/// `sample_pivot` of quick.cu: the ninther of 27 keys at regular positions, group g taking
/// samples g, g + 3, ...
fn sample_pivot(keys: &[(u64, usize)], start: usize, len: usize) -> u64 {
    let mut m: Vec<u64> = (0..3)
        .map(|g| {
            let mut s: Vec<u64> = (0..9)
                .map(|i| keys[start + len * (2 * (3 * i + g) + 1) / 54].0)
                .collect();
            s.sort_unstable();
            s[4]
        })
        .collect();
    m.sort_unstable();
    m[1]
}

/// The whole sort of `input` with tiles of `tile` keys and chunks of `chunk`, at most `rounds`
/// rounds; checks every capacity against the host's bounds. Returns the rounds that had work.
fn simulate(input: &[u64], tile: usize, chunk: usize, rounds: u32) -> u32 {
    let n = input.len();
    let elems: Vec<(u64, usize)> = input.iter().copied().zip(0..).collect();
    let mut bufs = [elems.clone(), vec![(u64::MAX, usize::MAX); n]];
    let cap_seqs = n / (tile + 1) + 1;
    let cap_chunks = n.div_ceil(chunk) + cap_seqs;
    let cap_tasks = (3 * cap_seqs * (rounds as usize + 1) + n / tile + 1).min(n);
    let mut list = vec![Seq {
        start: 0,
        len: n,
        chunk_begin: 0,
        lt: 0,
        eq: 0,
        gt: 0,
        pivot: 0,
    }];
    let mut tasks: Vec<Task> = Vec::new();
    let mut busy = 0;
    let mut round = 0;
    loop {
        let cur = (round & 1) as usize;
        let last = round == rounds;
        if round > 0 {
            // Children of the previous round, in buffer `cur`.
            let prev = std::mem::take(&mut list);
            for p in prev {
                for (start, len) in [(p.start, p.lt), (p.start + p.lt + p.eq, p.gt)] {
                    if len == 0 {
                        continue;
                    }
                    if len > tile && !last {
                        list.push(Seq {
                            start,
                            len,
                            chunk_begin: 0,
                            lt: 0,
                            eq: 0,
                            gt: 0,
                            pivot: 0,
                        });
                    } else if !(len == 1 && cur == 0) {
                        tasks.push(Task {
                            start,
                            len,
                            copy: false,
                            buf: cur,
                        });
                    }
                }
                if cur == 1 {
                    let mut o = 0;
                    while o < p.eq {
                        let len = (p.eq - o).min(tile);
                        tasks.push(Task {
                            start: p.start + p.lt + o,
                            len,
                            copy: true,
                            buf: 1,
                        });
                        o += tile;
                    }
                }
            }
            assert!(list.len() <= cap_seqs, "list overflow");
            assert!(tasks.len() <= cap_tasks, "task overflow");
        }
        if last || list.is_empty() {
            break;
        }
        busy += 1;
        // Plan.
        let mut chunks = 0;
        for s in list.iter_mut() {
            s.chunk_begin = chunks;
            chunks += s.len.div_ceil(chunk);
            s.pivot = sample_pivot(&bufs[cur], s.start, s.len);
        }
        assert!(chunks <= cap_chunks, "chunk overflow");
        // Pass 1 (chunks in reverse order: the atomics' order is arbitrary).
        let mut offsets = vec![[0usize; 3]; chunks];
        for v in (0..chunks).rev() {
            let j = list.partition_point(|s| s.chunk_begin <= v) - 1;
            let s = &mut list[j];
            let first = (v - s.chunk_begin) * chunk;
            let part = &bufs[cur][s.start + first..s.start + (first + chunk).min(s.len)];
            let lt = part.iter().filter(|e| e.0 < s.pivot).count();
            let eq = part.iter().filter(|e| e.0 == s.pivot).count();
            let gt = part.len() - lt - eq;
            offsets[v] = [s.lt, s.eq, s.gt];
            s.lt += lt;
            s.eq += eq;
            s.gt += gt;
        }
        // Pass 2.
        let (src, dst) = if cur == 0 {
            let (a, b) = bufs.split_at_mut(1);
            (&a[0], &mut b[0])
        } else {
            let (a, b) = bufs.split_at_mut(1);
            (&b[0], &mut a[0])
        };
        for (v, off) in offsets.iter().enumerate() {
            let j = list.partition_point(|s| s.chunk_begin <= v) - 1;
            let s = list[j];
            let first = (v - s.chunk_begin) * chunk;
            let part = &src[s.start + first..s.start + (first + chunk).min(s.len)];
            let mut at = [
                s.start + off[0],
                s.start + s.lt + off[1],
                s.start + s.lt + s.eq + off[2],
            ];
            for &e in part {
                let side = if e.0 < s.pivot {
                    0
                } else if e.0 == s.pivot {
                    1
                } else {
                    2
                };
                dst[at[side]] = e;
                at[side] += 1;
            }
        }
        round += 1;
    }
    // Finishing.
    for t in &tasks {
        let r = t.start..t.start + t.len;
        if t.copy {
            let piece = bufs[1][r.clone()].to_vec();
            bufs[0][r].copy_from_slice(&piece);
        } else {
            let mut piece = bufs[t.buf][r.clone()].to_vec();
            piece.sort_by_key(|e| e.0);
            bufs[0][r].copy_from_slice(&piece);
        }
    }
    let mut want = input.to_vec();
    want.sort_unstable();
    let got: Vec<u64> = bufs[0].iter().map(|e| e.0).collect();
    assert_eq!(got, want, "n={n} tile {tile} chunk {chunk}");
    let mut idx: Vec<usize> = bufs[0].iter().map(|e| e.1).collect();
    for e in &bufs[0] {
        assert_eq!(input[e.1], e.0, "a value left its key");
    }
    idx.sort_unstable();
    assert!(idx.iter().copied().eq(0..n), "values are not a permutation");
    busy
}

fn inputs(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let random: Vec<u64> = (0..n).map(|_| next()).collect();
    let few: Vec<u64> = (0..n).map(|_| next() % 5).collect();
    let up: Vec<u64> = (0..n as u64).collect();
    let down: Vec<u64> = (0..n as u64).rev().collect();
    let organ: Vec<u64> = (0..n as u64).map(|i| i.min(n as u64 - i)).collect();
    vec![
        ("random", random),
        ("few", few),
        ("up", up),
        ("down", down),
        ("organ", organ),
        ("equal", vec![7; n]),
    ]
}

#[test]
fn scheduling_simulated() {
    for (tile, chunk) in [(16, 8), (32, 8), (64, 32)] {
        for n in [tile + 1, 2 * tile - 1, 2 * tile + 1, 100, 1000, 4097] {
            if n <= tile {
                continue;
            }
            let rounds = max_rounds(n, tile);
            for (name, keys) in inputs(n, n as u64) {
                let busy = simulate(&keys, tile, chunk, rounds);
                assert!(busy <= rounds, "{name} n={n}");
                if name == "equal" {
                    assert_eq!(busy, 1, "all equal keys finish in one round");
                }
            }
        }
    }
    // Few rounds: the remaining sequences take the fallback path (a sort task longer than a
    // tile).
    for (_, keys) in inputs(3000, 9) {
        simulate(&keys, 16, 8, 2);
    }
}

#[test]
fn rounds_on_patterns_stay_near_log() {
    // 2^17 keys in tiles of 64: 11 rounds with perfect pivots.
    let n = 1 << 17;
    let rounds = max_rounds(n, 64);
    for (name, keys) in inputs(n, 3) {
        let busy = simulate(&keys, 64, 32, rounds);
        assert!(busy <= 18, "{name}: {busy} rounds");
    }
}

/// The fast sort's launches are dependent, so every kernel of `quick.cu` must wait on its
/// predecessor first.
#[test]
fn every_kernel_waits_on_its_predecessor() {
    use sortlab_primitives::kernels::kernels_without_dependent_entry;
    assert_eq!(
        kernels_without_dependent_entry(QUICK_SOURCE.code),
        Vec::<String>::new()
    );
}

/// `quick_write`'s arithmetic for one chunk of `threads` x `items` keys (striped: item k of
/// thread t is key k * threads + t): per-thread counts, their exclusive scan, the staging
/// positions, and the coalesced stores to the three parts. Returns (destination, key) pairs.
fn write_chunk(
    keys: &[u64],
    pivot: u64,
    threads: usize,
    items: usize,
    bases: [usize; 3],
) -> Vec<(usize, u64)> {
    let valid = keys.len();
    let side = |b: u64| {
        if b < pivot {
            0
        } else if b == pivot {
            1
        } else {
            2
        }
    };
    let counts: Vec<[usize; 3]> = (0..threads)
        .map(|t| {
            let mut c = [0; 3];
            for k in 0..items {
                let i = k * threads + t;
                if i < valid {
                    c[side(keys[i])] += 1;
                }
            }
            c
        })
        .collect();
    let total = counts
        .iter()
        .fold([0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
    let mut staged = vec![None; valid];
    let mut before = [0; 3];
    for (t, c) in counts.iter().enumerate() {
        let mut at = [
            before[0],
            total[0] + before[1],
            total[0] + total[1] + before[2],
        ];
        for k in 0..items {
            let i = k * threads + t;
            if i < valid {
                let s = side(keys[i]);
                assert!(staged[at[s]].is_none(), "staging slot written twice");
                staged[at[s]] = Some(keys[i]);
                at[s] += 1;
            }
        }
        for s in 0..3 {
            before[s] += c[s];
        }
    }
    let (n_lt, n_eq) = (total[0], total[1]);
    (0..valid)
        .map(|i| {
            let to = if i < n_lt {
                bases[0] + i
            } else if i < n_lt + n_eq {
                bases[1] + i - n_lt
            } else {
                bases[2] + i - n_lt - n_eq
            };
            (to, staged[i].expect("staging slot never written"))
        })
        .collect()
}

#[test]
fn write_chunk_arithmetic_simulated() {
    for (threads, items) in [(4, 4), (8, 2), (32, 16)] {
        for n in [1, 3, threads * items - 1, threads * items] {
            for (_, keys) in inputs(n, n as u64 + 7) {
                let pivot = keys[n / 2];
                let out = write_chunk(&keys, pivot, threads, items, [0, 1000, 2000]);
                let lt: Vec<u64> = keys.iter().copied().filter(|&k| k < pivot).collect();
                let gt: Vec<u64> = keys.iter().copied().filter(|&k| k > pivot).collect();
                let eq = keys.len() - lt.len() - gt.len();
                // Each part holds exactly its keys, contiguous from its base.
                let mut got_lt: Vec<u64> = out.iter().filter(|o| o.0 < 1000).map(|o| o.1).collect();
                let mut got_gt: Vec<u64> =
                    out.iter().filter(|o| o.0 >= 2000).map(|o| o.1).collect();
                let mut want_lt = lt.clone();
                let mut want_gt = gt.clone();
                got_lt.sort_unstable();
                got_gt.sort_unstable();
                want_lt.sort_unstable();
                want_gt.sort_unstable();
                assert_eq!(got_lt, want_lt);
                assert_eq!(got_gt, want_gt);
                let mut dests: Vec<usize> = out.iter().map(|o| o.0).collect();
                dests.sort_unstable();
                let want: Vec<usize> = (0..lt.len())
                    .chain(1000..1000 + eq)
                    .chain(2000..2000 + gt.len())
                    .collect();
                assert_eq!(dests, want);
            }
        }
    }
}

/// `fallback_sort` of quick.cu for one piece: tiles sorted, then merge passes in which each of
/// `threads` threads produces `items` outputs per step of a tile (merge-path split over the
/// source, serial merge), between two buffers.
fn fallback(piece: &[u64], threads: usize, items: usize) -> Vec<u64> {
    let len = piece.len();
    let tile = threads * items;
    let mut bufs = [piece.to_vec(), vec![u64::MAX; len]];
    for t in bufs[0].chunks_mut(tile) {
        t.sort_unstable();
    }
    let mut cur = 0;
    let mut width = tile;
    while width < len {
        let src = bufs[cur].clone();
        let dst = &mut bufs[cur ^ 1];
        let mut written = vec![false; len];
        for tid in 0..threads {
            let mut o = tid * items;
            while o < len {
                let ps = o / (2 * width) * (2 * width);
                let a_len = (len - ps).min(width);
                let b_len = (len - ps - a_len).min(width);
                let a = &src[ps..ps + a_len];
                let b = &src[ps + a_len..ps + a_len + b_len];
                let diag = o - ps;
                let (mut lo, mut hi) = (diag.saturating_sub(b_len), diag.min(a_len));
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if b[diag - 1 - mid] < a[mid] {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                let (mut ia, mut ib) = (lo, diag - lo);
                let mut k = 0;
                while k < items && o + k < ps + a_len + b_len {
                    let take_b = ib < b_len && (ia >= a_len || b[ib] < a[ia]);
                    let from = if take_b { a_len + ib } else { ia };
                    assert!(!written[o + k], "output written twice");
                    written[o + k] = true;
                    dst[o + k] = src[ps + from];
                    if take_b {
                        ib += 1;
                    } else {
                        ia += 1;
                    }
                    k += 1;
                }
                o += tile;
            }
        }
        assert!(written.iter().all(|&w| w), "an output never written");
        cur ^= 1;
        width *= 2;
    }
    bufs[cur].clone()
}

#[test]
fn fallback_arithmetic_simulated() {
    for (threads, items) in [(4, 4), (8, 2)] {
        for n in [17, 31, 32, 33, 100, 257, 1000] {
            for (name, keys) in inputs(n, n as u64 + 11) {
                let mut want = keys.clone();
                want.sort_unstable();
                assert_eq!(fallback(&keys, threads, items), want, "{name} n={n}");
            }
        }
    }
}
