//! Tests of the block-level headers (`sortlab/block/*.cuh`) through the kernels of
//! `primitives::block`, and of the scratch API of `reduce` and `scan`.
//!
//! Without a GPU (run everywhere): representative tile modules compile with NVRTC for sm_90
//! without a warning.
//!
//! On a CUDA device (`#[ignore = "needs a CUDA device"]`): [`block::sort_tiles`] and
//! [`block::sort_tiles_pairs`] with every algorithm, key type and order against a tile-wise
//! stable sort on the host (keys compared bit for bit; values are the element's index, so the
//! stability of every tile is checked), on random and adversarial tiles (all equal, sorted,
//! reversed, few distinct, NaN / -0.0 / inf / subnormal floats, integer extremes), full and
//! partial, with tiles that are and are not powers of two; [`block::histogram`] against host
//! counts; the test kernels `tile_load_store` (every arrangement, aligned and not, the fill past
//! the end) and `tile_radix_digits` (a radix digit pass with its digit offsets and counts);
//! argument errors; the `_with_scratch` reductions and scans against the allocating ones.
//! The seed is printed and can be set with `SORTLAB_SEED`. `sort_tiles_throughput` prints a
//! rough timing of the tile sorts.
//!
//! The reference is written here (a stable `sort_by` on ordered bits, tile by tile): the CPU
//! engine `sortlab-cpu-reference` depends on this crate, so it cannot be a dev-dependency.

mod common;

use common::{compile_failure, gpu, random_key, rng_for, same_bits, Specials};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::block::{
    self, histogram, sort_tiles, sort_tiles_pairs, BlockSortAlgo, BlockSortPolicy, HistogramAlgo,
};
use sortlab_primitives::reduce::{self, ReduceKey, ReduceOp, ReduceVariant};
use sortlab_primitives::scan::{self, Direction, ScanKind, ScanOp, ScanVariant};
use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, GpuTimer, KernelArgs, KeyBits, LaunchConfig, Order, SortKey,
    SortValue,
};

// ---------------------------------------------------------------------------------------------
// Compilation (no GPU needed).

fn compile_config<K: SortKey, V: SortValue>(tile: usize) {
    let policy = BlockSortPolicy::for_tile(tile, K::SIZE).unwrap();
    let defines = block::module_defines::<K, V>(&policy);
    if let Some(failure) =
        compile_failure(&block::SOURCE, &defines, "sm_90", &format!("{defines:?}"))
    {
        panic!("{failure}");
    }
}

#[test]
fn tile_module_u32_2048_compiles() {
    compile_config::<u32, u32>(2048);
}

#[test]
fn tile_module_f64_u64_8192_compiles() {
    compile_config::<f64, u64>(8192);
}

#[test]
fn tile_module_i32_1792_compiles() {
    compile_config::<i32, u32>(1792);
}

// ---------------------------------------------------------------------------------------------
// Keys, patterns, references.

/// A key type under test.
trait TestKey: Specials {}
impl<K: Specials> TestKey for K {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    /// Random bit patterns (random NaN payloads included).
    Random,
    /// Random with about 2% specials.
    RandomSpecials,
    /// Only specials: ties of distinct bits (-0.0 and +0.0, NaNs).
    Specials,
    AllEqual,
    Ascending,
    Descending,
    /// Four distinct keys.
    FewDistinct,
}

const PATTERNS: [Pattern; 7] = [
    Pattern::Random,
    Pattern::RandomSpecials,
    Pattern::Specials,
    Pattern::AllEqual,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::FewDistinct,
];

fn keys_of<K: TestKey>(rng: &mut ChaCha8Rng, p: Pattern, n: usize) -> Vec<K> {
    let specials = K::specials();
    let few: Vec<K> = (0..4).map(|_| random_key::<K>(rng)).collect();
    let base = random_key::<K>(rng);
    let mut v: Vec<K> = (0..n)
        .map(|_| match p {
            Pattern::Random | Pattern::Ascending | Pattern::Descending => random_key(rng),
            Pattern::RandomSpecials if rng.gen_ratio(1, 50) => {
                specials[rng.gen_range(0..specials.len())]
            }
            Pattern::RandomSpecials => random_key(rng),
            Pattern::Specials => specials[rng.gen_range(0..specials.len())],
            Pattern::AllEqual => base,
            Pattern::FewDistinct => few[rng.gen_range(0..few.len())],
        })
        .collect();
    match p {
        Pattern::Ascending => v.sort_by(|a, b| a.total_cmp(b)),
        Pattern::Descending => v.sort_by(|a, b| b.total_cmp(a)),
        _ => {}
    }
    v
}

/// The permutation that stably sorts each tile of `keys` in `order`: `perm[i]` is the index of
/// the key that belongs at `i`.
fn tile_sort_perm<K: SortKey>(keys: &[K], tile: usize, order: Order) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..keys.len()).collect();
    for chunk in perm.chunks_mut(tile) {
        chunk.sort_by(|&a, &b| order.cmp_keys(&keys[a], &keys[b]));
    }
    perm
}

fn first_difference<K: SortKey>(got: &[K], want: impl Fn(usize) -> K) -> Option<usize> {
    (0..got.len()).find(|&i| !same_bits(got[i], want(i)))
}

// ---------------------------------------------------------------------------------------------
// sort_tiles and sort_tiles_pairs.

/// Lengths around `tile`: empty, one key, partial first tile, exactly one tile, one more, and
/// several tiles with a partial last one.
fn lengths_for(tile: usize) -> Vec<usize> {
    let mut v = vec![
        0,
        1,
        tile.saturating_sub(1),
        tile,
        tile + 1,
        3 * tile + tile / 2 + 1,
    ];
    v.retain(|&n| n != 0 || tile == 1);
    v.push(0);
    v.sort_unstable();
    v.dedup();
    v
}

fn check_sort_tiles<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng, tile: usize, n: usize, p: Pattern) {
    let host = keys_of::<K>(rng, p, n);
    let values: Vec<u32> = (0..n as u32).collect();
    for order in [Order::Ascending, Order::Descending] {
        let perm = tile_sort_perm(&host, tile, order);
        for algo in BlockSortAlgo::ALL {
            let ctx = format!("{} {p:?} n={n} tile={tile} {order} {algo}", K::NAME);
            let mut d = DeviceBuffer::from_host(g, &host).unwrap();
            sort_tiles(g, &mut d, tile, order, algo).unwrap();
            let got = d.to_host().unwrap();
            if let Some(i) = first_difference(&got, |i| host[perm[i]]) {
                panic!(
                    "{ctx} keys: first difference at {i}: got {:?}, want {:?}",
                    got[i], host[perm[i]]
                );
            }
            let mut dk = DeviceBuffer::from_host(g, &host).unwrap();
            let mut dv = DeviceBuffer::from_host(g, &values).unwrap();
            sort_tiles_pairs(g, &mut dk, &mut dv, tile, order, algo).unwrap();
            let (gk, gv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
            if let Some(i) = first_difference(&gk, |i| host[perm[i]]) {
                panic!(
                    "{ctx} pairs: first key difference at {i}: got {:?}, want {:?}",
                    gk[i], host[perm[i]]
                );
            }
            if let Some(i) = (0..n).find(|&i| gv[i] as usize != perm[i]) {
                panic!(
                    "{ctx} pairs: value (original index) at {i} is {}, the stable sort has {} \
                     (key {:?})",
                    gv[i], perm[i], gk[i]
                );
            }
        }
    }
}

/// Every pattern and edge length for each tile, plus a long random buffer.
fn sort_tiles_suite<K: TestKey>(test: &str, tiles: &[usize]) {
    let g = gpu();
    let mut rng = rng_for(test);
    for &tile in tiles {
        for n in lengths_for(tile) {
            for p in PATTERNS {
                check_sort_tiles::<K>(&g, &mut rng, tile, n, p);
            }
        }
        check_sort_tiles::<K>(&g, &mut rng, tile, (1 << 20) + 7, Pattern::RandomSpecials);
    }
}

/// Tiles of 2048 (128 × 16, the default shape), 1920 (128 × 15: neither the tile nor the keys
/// per thread a power of two), 100 (a partial tile of 32 × 4), 8192 (512 × 16), 16384
/// (512 × 32, the largest of 4-byte keys), and tiny ones (32 × 1, 32 × 2).
#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_u32() {
    sort_tiles_suite::<u32>("sort_tiles_u32", &[2048, 1920, 100, 8192, 16384, 1, 2, 33]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_i32() {
    sort_tiles_suite::<i32>("sort_tiles_i32", &[2048, 1792]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_f32() {
    sort_tiles_suite::<f32>("sort_tiles_f32", &[2048, 100, 8192]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_u64() {
    sort_tiles_suite::<u64>("sort_tiles_u64", &[2048, 8192]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_i64() {
    sort_tiles_suite::<i64>("sort_tiles_i64", &[2048, 1000]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_f64() {
    sort_tiles_suite::<f64>("sort_tiles_f64", &[2048, 1792, 100, 8192]);
}

/// 8-byte values (their own modules): moved whole, stably.
fn check_wide_values<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng, tile: usize) {
    for n in [tile, 3 * tile + 5] {
        for p in [Pattern::FewDistinct, Pattern::RandomSpecials] {
            let host = keys_of::<K>(rng, p, n);
            let values: Vec<u64> = (0..n as u64).map(|i| i | (i << 40) | (1 << 63)).collect();
            for order in [Order::Ascending, Order::Descending] {
                let perm = tile_sort_perm(&host, tile, order);
                for algo in BlockSortAlgo::ALL {
                    let ctx = format!(
                        "{} u64 values {p:?} n={n} tile={tile} {order} {algo}",
                        K::NAME
                    );
                    let mut dk = DeviceBuffer::from_host(g, &host).unwrap();
                    let mut dv = DeviceBuffer::from_host(g, &values).unwrap();
                    sort_tiles_pairs(g, &mut dk, &mut dv, tile, order, algo).unwrap();
                    let (gk, gv) = (dk.to_host().unwrap(), dv.to_host().unwrap());
                    assert!(
                        first_difference(&gk, |i| host[perm[i]]).is_none(),
                        "{ctx} keys"
                    );
                    assert!((0..n).all(|i| gv[i] == values[perm[i]]), "{ctx} values");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_pairs_with_8_byte_values() {
    let g = gpu();
    let mut rng = rng_for("sort_tiles_pairs_with_8_byte_values");
    check_wide_values::<f32>(&g, &mut rng, 2048);
    check_wide_values::<f32>(&g, &mut rng, 16384);
    check_wide_values::<i64>(&g, &mut rng, 8192);
}

// ---------------------------------------------------------------------------------------------
// Argument errors.

#[test]
#[ignore = "needs a CUDA device"]
fn bad_arguments_are_errors_and_leave_data_intact() {
    let g = gpu();
    let host: Vec<u32> = (0..100).rev().collect();
    let mut d = DeviceBuffer::from_host(&g, &host).unwrap();
    for tile in [0, block::MAX_TILE_4B + 1] {
        for algo in BlockSortAlgo::ALL {
            let e = sort_tiles(&g, &mut d, tile, Order::Ascending, algo).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        }
    }
    let mut d64 = DeviceBuffer::from_host(&g, &[3u64, 2, 1]).unwrap();
    let e = sort_tiles(
        &g,
        &mut d64,
        block::MAX_TILE_8B + 1,
        Order::Ascending,
        BlockSortAlgo::Merge,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains(&block::MAX_TILE_8B.to_string()),
        "{e}"
    );
    let mut short = DeviceBuffer::from_host(&g, &[1u32, 2]).unwrap();
    let e = sort_tiles_pairs(
        &g,
        &mut d,
        &mut short,
        16,
        Order::Ascending,
        BlockSortAlgo::Radix,
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(d.to_host().unwrap(), host);
    assert_eq!(short.to_host().unwrap(), vec![1, 2]);
    for (tile, shift, bits) in [(0, 0, 4), (16, 0, 0), (16, 0, 9), (16, 30, 4)] {
        let e = histogram(
            &g,
            &d,
            tile,
            shift,
            bits,
            Order::Ascending,
            HistogramAlgo::SharedAtomic,
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    // Empty buffers are no-ops (and still check their arguments).
    let mut empty = DeviceBuffer::<f32>::alloc(&g, 0).unwrap();
    sort_tiles(&g, &mut empty, 7, Order::Descending, BlockSortAlgo::Bitonic).unwrap();
    assert!(sort_tiles(&g, &mut empty, 0, Order::Descending, BlockSortAlgo::Bitonic).is_err());
    let h = histogram(
        &g,
        &empty,
        7,
        0,
        4,
        Order::Ascending,
        HistogramAlgo::WarpAggregated,
    )
    .unwrap();
    assert!(h.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Histograms.

fn check_histogram<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng) {
    let width = <K::Bits as KeyBits>::BITS;
    for p in [
        Pattern::Random,
        Pattern::AllEqual,
        Pattern::FewDistinct,
        Pattern::Specials,
    ] {
        for n in [1, 2047, 2048, 5000, 100_003] {
            let host = keys_of::<K>(rng, p, n);
            let d = DeviceBuffer::from_host(g, &host).unwrap();
            for (tile, shift, bits) in [
                (2048, 0, 8),
                (7, 4, 4),
                (5000, width - 8, 8),
                (n, 3, 1),
                (4099, width - 5, 5),
            ] {
                for order in [Order::Ascending, Order::Descending] {
                    for algo in HistogramAlgo::ALL {
                        let got = histogram(g, &d, tile, shift, bits, order, algo)
                            .unwrap()
                            .to_host()
                            .unwrap();
                        let bins = 1usize << bits;
                        let mut want = vec![0u32; n.div_ceil(tile) * bins];
                        for (i, k) in host.iter().enumerate() {
                            let b = k.to_ordered_bits().to_u64();
                            let b = if order.is_descending() { !b } else { b };
                            want[(i / tile) * bins + ((b >> shift) as usize & (bins - 1))] += 1;
                        }
                        assert_eq!(
                            got,
                            want,
                            "{} {p:?} n={n} tile={tile} bits [{shift}, +{bits}) {order} {algo:?}",
                            K::NAME
                        );
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn histograms_match_host_counts() {
    let g = gpu();
    let mut rng = rng_for("histograms_match_host_counts");
    check_histogram::<u32>(&g, &mut rng);
    check_histogram::<f32>(&g, &mut rng);
    check_histogram::<i64>(&g, &mut rng);
    check_histogram::<f64>(&g, &mut rng);
}

// ---------------------------------------------------------------------------------------------
// The test kernels: tile load/store and the radix digit pass.

/// Runs `tile_load_store` in `mode` over `host[offset..]` (offset 1 misaligns the tiles).
fn check_load_store<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng, policy_tile: usize) {
    let policy = BlockSortPolicy::for_tile(policy_tile, K::SIZE).unwrap();
    let cap = policy.capacity();
    let defines = block::module_defines::<K, u32>(&policy);
    let module = g.module(&block::SOURCE, &defines).unwrap();
    let bytes = block::temp_bytes::<K, u32>(g, &policy).unwrap().load_store;
    let kernel = module.kernel("tile_load_store").unwrap();
    let fill = K::specials()[0];
    for mode in 0u32..3 {
        for offset in [0usize, 1] {
            for tile in [cap, cap - 1, 1, cap / 2 + 1] {
                for n in [1, tile, 3 * tile + 2] {
                    let host = keys_of::<K>(rng, Pattern::Random, n + offset);
                    let input = DeviceBuffer::from_host(g, &host).unwrap();
                    let tiles = n.div_ceil(tile);
                    let full = DeviceBuffer::<K>::zeroed(g, tiles * cap).unwrap();
                    let copy = DeviceBuffer::<K>::zeroed(g, n).unwrap();
                    let mut args = KernelArgs::new();
                    args.ptr(input.ptr().offset(offset))
                        .ptr(full.ptr())
                        .ptr(copy.ptr())
                        .push(n as u64)
                        .push(tile as u64);
                    push_key(&mut args, fill);
                    args.push(mode);
                    let grid = tiles.min(7) as u32;
                    // SAFETY: arguments match `tile_load_store(const Key*, Key*, Key*, u64, u64,
                    // Key, u32)`: the input holds n keys from `offset`, `full` tiles * cap, `copy`
                    // n; tile <= cap; dynamic shared memory as the module reports.
                    unsafe {
                        kernel
                            .launch(
                                LaunchConfig::linear(grid, policy.block_threads).with_shared(bytes),
                                &args,
                            )
                            .unwrap()
                    };
                    let (f, c) = (full.to_host().unwrap(), copy.to_host().unwrap());
                    let src = &host[offset..];
                    let ctx = format!("{} mode {mode} offset {offset} tile {tile} n {n}", K::NAME);
                    for t in 0..tiles {
                        for i in 0..cap {
                            let e = t * tile + i;
                            let want = if i < tile && e < n { src[e] } else { fill };
                            assert!(same_bits(f[t * cap + i], want), "{ctx}: full[{t}][{i}]");
                        }
                    }
                    assert!(first_difference(&c, |i| src[i]).is_none(), "{ctx}: copy");
                }
            }
        }
    }
}

/// Pushes a key by value as a kernel argument (its bits in the low bytes of the slot).
fn push_key<K: SortKey>(args: &mut KernelArgs, k: K) {
    let mut bytes = Vec::new();
    k.write_le(&mut bytes);
    bytes.resize(8, 0);
    args.push(u64::from_le_bytes(bytes.try_into().unwrap()));
}

#[test]
#[ignore = "needs a CUDA device"]
fn tile_load_store_round_trips() {
    let g = gpu();
    let mut rng = rng_for("tile_load_store_round_trips");
    check_load_store::<u32>(&g, &mut rng, 2048);
    check_load_store::<f32>(&g, &mut rng, 1792);
    check_load_store::<f64>(&g, &mut rng, 2048);
    check_load_store::<i64>(&g, &mut rng, 1000);
}

/// `tile_radix_digits`: each tile stably sorted by bits [begin, end) of the ordered bits, and
/// the last pass's digit offsets and counts.
fn check_radix_digits<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng, policy_tile: usize) {
    let policy = BlockSortPolicy::for_tile(policy_tile, K::SIZE).unwrap();
    let cap = policy.capacity();
    let digits = 1usize << policy.radix_bits;
    let module = g
        .module(&block::SOURCE, &block::module_defines::<K, u32>(&policy))
        .unwrap();
    let bytes = block::temp_bytes::<K, u32>(g, &policy)
        .unwrap()
        .radix_digits;
    let kernel = module.kernel("tile_radix_digits").unwrap();
    let width = <K::Bits as KeyBits>::BITS;
    let rb = policy.radix_bits;
    for p in [
        Pattern::Random,
        Pattern::FewDistinct,
        Pattern::Specials,
        Pattern::AllEqual,
    ] {
        for tile in [cap, cap - 3] {
            let n = 2 * tile + tile / 3;
            let host = keys_of::<K>(rng, p, n);
            let input = DeviceBuffer::from_host(g, &host).unwrap();
            for (begin, end) in [
                (4, 4 + rb),
                (0, 13),
                (width - rb, width),
                (0, width),
                (5, 5),
            ] {
                for order in [Order::Ascending, Order::Descending] {
                    let tiles = n.div_ceil(tile);
                    let out = DeviceBuffer::<K>::zeroed(g, n).unwrap();
                    let offsets = DeviceBuffer::<u32>::zeroed(g, tiles * digits).unwrap();
                    let counts = DeviceBuffer::<u32>::zeroed(g, tiles * digits).unwrap();
                    let mut args = KernelArgs::new();
                    args.ptr(input.ptr())
                        .ptr(out.ptr())
                        .ptr(offsets.ptr())
                        .ptr(counts.ptr())
                        .push(n as u64)
                        .push(tile as u64)
                        .push(order.flip::<K::Bits>())
                        .push(begin)
                        .push(end);
                    // SAFETY: arguments match `tile_radix_digits(const Key*, Key*, u32*, u32*,
                    // u64, u64, Bits, u32, u32)`; in/out hold n keys, offsets and counts
                    // 2^RADIX_BITS per tile; tile <= cap; shared memory as reported.
                    unsafe {
                        kernel
                            .launch(
                                LaunchConfig::linear(tiles as u32, policy.block_threads)
                                    .with_shared(bytes),
                                &args,
                            )
                            .unwrap()
                    };
                    let bits_of = |k: &K| {
                        let b = k.to_ordered_bits().to_u64();
                        if order.is_descending() {
                            !b & (u64::MAX >> (64 - width))
                        } else {
                            b
                        }
                    };
                    let field = |k: &K| {
                        let span = end - begin;
                        let mask = if span >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << span) - 1
                        };
                        (bits_of(k) >> begin.min(63)) & mask
                    };
                    let mut last_begin = begin;
                    while last_begin + rb < end {
                        last_begin += rb;
                    }
                    let last_digit = |k: &K| {
                        let span = end.saturating_sub(last_begin);
                        if span == 0 {
                            0
                        } else {
                            ((bits_of(k) >> last_begin) & ((1u64 << span) - 1)) as usize
                        }
                    };
                    let (got, off, cnt) = (
                        out.to_host().unwrap(),
                        offsets.to_host().unwrap(),
                        counts.to_host().unwrap(),
                    );
                    let ctx = format!(
                        "{} {p:?} tile {tile} bits [{begin}, {end}) {order}",
                        K::NAME
                    );
                    for (t, chunk) in host.chunks(tile).enumerate() {
                        let mut want = chunk.to_vec();
                        want.sort_by_key(&field);
                        let g0 = &got[t * tile..t * tile + chunk.len()];
                        assert!(
                            first_difference(g0, |i| want[i]).is_none(),
                            "{ctx}: tile {t}"
                        );
                        let mut c = vec![0u32; digits];
                        for k in chunk {
                            c[last_digit(k)] += 1;
                        }
                        let mut run = 0;
                        for d in 0..digits {
                            assert_eq!(cnt[t * digits + d], c[d], "{ctx}: tile {t} count of {d}");
                            assert_eq!(off[t * digits + d], run, "{ctx}: tile {t} offset of {d}");
                            run += c[d];
                        }
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn tile_radix_digit_pass_with_offsets_and_counts() {
    let g = gpu();
    let mut rng = rng_for("tile_radix_digit_pass_with_offsets_and_counts");
    check_radix_digits::<u32>(&g, &mut rng, 2048);
    check_radix_digits::<f32>(&g, &mut rng, 100);
    check_radix_digits::<i64>(&g, &mut rng, 2048);
    check_radix_digits::<f64>(&g, &mut rng, 1792);
}

// ---------------------------------------------------------------------------------------------
// The scratch API of reduce and scan.

fn check_reduce_scratch<K: TestKey + ReduceKey>(
    g: &Gpu,
    rng: &mut ChaCha8Rng,
    variants: &[ReduceVariant],
) {
    for n in [1, 1000, 2049, (1 << 20) + 7] {
        let host = keys_of::<K>(rng, Pattern::RandomSpecials, n);
        let d = DeviceBuffer::from_host(g, &host).unwrap();
        for &variant in variants {
            for op in ReduceOp::ALL {
                let need = reduce::scratch_bytes::<K>(g, n, op, variant);
                assert!(need > 0);
                let ctx = format!("{} n={n} {variant} {op:?}", K::NAME);
                // Garbage contents: the call initialises what it needs.
                let mut scratch = DeviceBuffer::<u8>::alloc(g, need).unwrap();
                scratch.fill_bytes(0xA5).unwrap();
                let mut small = DeviceBuffer::<u8>::alloc(g, need - 1).unwrap();
                match op {
                    ReduceOp::Sum => {
                        let want = reduce::reduce_sum(g, &d, variant).unwrap();
                        for _ in 0..2 {
                            let got = reduce::reduce_sum_with_scratch(g, &d, variant, &mut scratch)
                                .unwrap();
                            if !K::IS_FLOAT {
                                assert_eq!(got, want, "{ctx}");
                            }
                        }
                        let e = reduce::reduce_sum_with_scratch(g, &d, variant, &mut small)
                            .unwrap_err();
                        assert!(e.to_string().contains(&need.to_string()), "{ctx}: {e}");
                    }
                    ReduceOp::Min => {
                        let want = reduce::reduce_min(g, &d, variant).unwrap().unwrap();
                        let got = reduce::reduce_min_with_scratch(g, &d, variant, &mut scratch)
                            .unwrap()
                            .unwrap();
                        assert!(same_bits(got, want), "{ctx}");
                        assert!(
                            reduce::reduce_min_with_scratch(g, &d, variant, &mut small).is_err()
                        );
                    }
                    ReduceOp::Max => {
                        let want = reduce::reduce_max(g, &d, variant).unwrap().unwrap();
                        let got = reduce::reduce_max_with_scratch(g, &d, variant, &mut scratch)
                            .unwrap()
                            .unwrap();
                        assert!(same_bits(got, want), "{ctx}");
                        assert!(
                            reduce::reduce_max_with_scratch(g, &d, variant, &mut small).is_err()
                        );
                    }
                    ReduceOp::MinMax => {
                        let (lo, hi) = reduce::reduce_min_max(g, &d, variant).unwrap().unwrap();
                        let (glo, ghi) =
                            reduce::reduce_min_max_with_scratch(g, &d, variant, &mut scratch)
                                .unwrap()
                                .unwrap();
                        assert!(same_bits(glo, lo) && same_bits(ghi, hi), "{ctx}");
                        let e = reduce::reduce_min_max_with_scratch(g, &d, variant, &mut small)
                            .unwrap_err();
                        assert!(matches!(e, Error::InvalidArgument(_)), "{ctx}: {e}");
                    }
                }
            }
        }
    }
    let empty = DeviceBuffer::<K>::alloc(g, 0).unwrap();
    let mut none = DeviceBuffer::<u8>::alloc(g, 0).unwrap();
    assert_eq!(
        reduce::scratch_bytes::<K>(g, 0, ReduceOp::Sum, ReduceVariant::Fast),
        0
    );
    assert!(
        reduce::reduce_min_with_scratch(g, &empty, ReduceVariant::Fast, &mut none)
            .unwrap()
            .is_none()
    );
}

fn check_scan_scratch<K: TestKey>(g: &Gpu, rng: &mut ChaCha8Rng) {
    for variant in ScanVariant::ALL {
        let max = variant.max_len().unwrap_or((1 << 22) + 3);
        for n in [1, 33, 2048, 5000, (1 << 22) + 3] {
            if n > max {
                continue;
            }
            let host = keys_of::<K>(rng, Pattern::Random, n);
            let d = DeviceBuffer::from_host(g, &host).unwrap();
            let need = scan::scratch_bytes::<K>(n, variant);
            let ctx = format!("{} n={n} {variant} needs {need}", K::NAME);
            for (op, kind, dir) in [
                (ScanOp::Max, ScanKind::Inclusive, Direction::Forward),
                (ScanOp::Min, ScanKind::Exclusive, Direction::Reverse),
            ] {
                let mut want = DeviceBuffer::<K>::alloc(g, n).unwrap();
                scan::scan(g, &d, &mut want, op, kind, dir, variant).unwrap();
                let want = want.to_host().unwrap();
                let mut scratch = DeviceBuffer::<u8>::alloc(g, need + 100).unwrap();
                scratch.fill_bytes(0xFF).unwrap();
                for _ in 0..2 {
                    let mut out = DeviceBuffer::<K>::alloc(g, n).unwrap();
                    scan::scan_with_scratch(g, &d, &mut out, op, kind, dir, variant, &mut scratch)
                        .unwrap();
                    let got = out.to_host().unwrap();
                    assert!(
                        first_difference(&got, |i| want[i]).is_none(),
                        "{ctx} {op:?}"
                    );
                }
                let mut inplace = d.try_clone().unwrap();
                scan::scan_in_place_with_scratch(
                    g,
                    &mut inplace,
                    op,
                    kind,
                    dir,
                    variant,
                    &mut scratch,
                )
                .unwrap();
                let got = inplace.to_host().unwrap();
                assert!(
                    first_difference(&got, |i| want[i]).is_none(),
                    "{ctx} in place"
                );
                if need > 0 {
                    let mut small = DeviceBuffer::<u8>::alloc(g, need - 1).unwrap();
                    let mut out = DeviceBuffer::<K>::from_host(g, &host).unwrap();
                    let e = scan::scan_with_scratch(
                        g, &d, &mut out, op, kind, dir, variant, &mut small,
                    )
                    .unwrap_err();
                    assert!(matches!(e, Error::InvalidArgument(_)), "{ctx}: {e}");
                    assert!(e.to_string().contains(&need.to_string()), "{ctx}: {e}");
                    let untouched = out.to_host().unwrap();
                    assert!(first_difference(&untouched, |i| host[i]).is_none(), "{ctx}");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn reduce_and_scan_with_caller_scratch() {
    let g = gpu();
    let mut rng = rng_for("reduce_and_scan_with_caller_scratch");
    check_reduce_scratch::<u32>(&g, &mut rng, &ReduceVariant::ALL);
    let some = [ReduceVariant::Fast, ReduceVariant::Interleaved];
    check_reduce_scratch::<f64>(&g, &mut rng, &some);
    check_reduce_scratch::<i64>(&g, &mut rng, &some);
    check_scan_scratch::<u32>(&g, &mut rng);
    check_scan_scratch::<f64>(&g, &mut rng);
}

// ---------------------------------------------------------------------------------------------
// Rough throughput of the tile sorts (printed, not asserted), over a few block shapes.

fn pol(block_threads: u32, items_per_thread: u32, radix_bits: u32) -> BlockSortPolicy {
    BlockSortPolicy {
        block_threads,
        items_per_thread,
        radix_bits,
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn sort_tiles_throughput() {
    let g = gpu();
    let mut rng = rng_for("sort_tiles_throughput");
    let n = 1usize << 24;
    // The default policies first (radix and merge, then bitonic; with pairs), then
    // alternatives (keys only).
    let sweeps = [
        (
            2048,
            vec![
                pol(128, 16, 4),
                pol(64, 32, 4),
                pol(256, 8, 4),
                pol(128, 16, 5),
            ],
        ),
        (8192, vec![pol(512, 16, 4), pol(256, 32, 4)]),
    ];
    for (tile, policies) in &sweeps {
        assert_eq!(
            BlockSortPolicy::for_algo(*tile, 4, BlockSortAlgo::Radix).unwrap(),
            policies[0]
        );
        assert_eq!(
            BlockSortPolicy::for_algo(*tile, 4, BlockSortAlgo::Merge).unwrap(),
            policies[0]
        );
        assert_eq!(
            BlockSortPolicy::for_algo(*tile, 4, BlockSortAlgo::Bitonic).unwrap(),
            policies[1]
        );
    }
    // Compile every module first, in parallel.
    std::thread::scope(|s| {
        for (_, policies) in &sweeps {
            for p in policies {
                let g = g.clone();
                s.spawn(move || block::temp_bytes::<u32, u32>(&g, p).unwrap());
            }
        }
    });
    let host: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    let pristine = DeviceBuffer::from_host(&g, &host).unwrap();
    let pristine_values = DeviceBuffer::from_host(&g, &values).unwrap();
    let mut keys = DeviceBuffer::<u32>::alloc(&g, n).unwrap();
    let mut vals = DeviceBuffer::<u32>::alloc(&g, n).unwrap();
    let timer = GpuTimer::new(&g).unwrap();
    println!(
        "sort_tiles on {}, 2^24 random u32 keys, median of 7 (Gkeys/s):",
        g.info().name
    );
    for (tile, policies) in &sweeps {
        let tile = *tile;
        let perm = tile_sort_perm(&host, tile, Order::Ascending);
        for (pi, policy) in policies.iter().enumerate() {
            for algo in BlockSortAlgo::ALL {
                if pi > 0 && policy.radix_bits != 4 && algo != BlockSortAlgo::Radix {
                    continue; // the radix bits change the radix sort only
                }
                let default = BlockSortPolicy::for_algo(tile, 4, algo).unwrap() == *policy;
                for pairs in [false, true] {
                    if pairs && !default {
                        continue;
                    }
                    let mut times = Vec::new();
                    for rep in 0..8 {
                        keys.copy_from_device(&pristine).unwrap();
                        vals.copy_from_device(&pristine_values).unwrap();
                        timer.start().unwrap();
                        if pairs {
                            block::sort_tiles_pairs_with_policy(
                                &g,
                                &mut keys,
                                &mut vals,
                                tile,
                                Order::Ascending,
                                algo,
                                policy,
                            )
                            .unwrap();
                        } else {
                            block::sort_tiles_with_policy(
                                &g,
                                &mut keys,
                                tile,
                                Order::Ascending,
                                algo,
                                policy,
                            )
                            .unwrap();
                        }
                        let ms = timer.stop().unwrap();
                        if rep > 0 {
                            times.push(ms);
                        }
                    }
                    let ms = sortlab_primitives::median(&mut times);
                    println!(
                        "  tile {tile:5} {:4}x{:2} r{} {:8} {:5}: {ms:7.3} ms {:6.2}",
                        policy.block_threads,
                        policy.items_per_thread,
                        policy.radix_bits,
                        algo.name(),
                        if pairs { "pairs" } else { "keys" },
                        n as f64 / ms / 1e6
                    );
                    let got = keys.to_host().unwrap();
                    assert!(first_difference(&got, |i| host[perm[i]]).is_none());
                }
            }
        }
    }
    // The copy rate, for scale: one device-to-device copy of the keys.
    timer.start().unwrap();
    keys.copy_from_device(&pristine).unwrap();
    let ms = timer.stop().unwrap();
    println!(
        "  copy of the keys: {ms:.3} ms ({:.0} GB/s read + written)",
        2.0 * (n * 4) as f64 / ms / 1e6
    );
}
