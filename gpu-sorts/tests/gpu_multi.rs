//! GPU tests of the multi-GPU sort (`sortlab_gpu_sorts::multi`): with 1, 2 and 4 GPUs of one
//! host, keys and pairs, u32/f32/u64/i64 keys, both orders, skewed and sorted patterns, lengths
//! 0, 1, G - 1, 1000 and 1_000_003, even and uneven (empty) shares: the concatenated shares
//! equal the CPU reference's stable sort exactly, and no share exceeds `multi::max_share`.
//! Also the host-to-host path, errors that leave the shares untouched, and a sort by G
//! processes (this test binary re-run as ranks, `sort_keys_rank` in each).
//!
//! Every test needs CUDA devices (and NCCL past one GPU): a test that needs more GPUs than
//! there are fails with "needs N GPUs", it never passes silently.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sortlab_cpu_reference::check;
use sortlab_gpu_sorts::multi::{self, max_share, MultiOptions, MultiReport};
use sortlab_primitives::runtime::{Communicator, GpuGroup, NcclUniqueId};
use sortlab_primitives::{DeviceBuffer, Error, Gpu, Order, SortKey, SortValue};
use sortlab_verify::testing::stable_index_pairs;
use sortlab_verify::{generate, Pattern};

const PATTERNS: [Pattern; 6] = [
    Pattern::FullRange,
    Pattern::AllEqual,
    Pattern::FewDistinct,
    Pattern::Zipf,
    Pattern::Ascending,
    Pattern::Descending,
];

/// One test at a time on the GPUs: NCCL kernels of two cliques on the same devices may wait for
/// each other (NCCL's "using multiple communicators concurrently"), and the test harness runs
/// tests on parallel threads.
static GPUS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    GPUS.lock().unwrap_or_else(|p| p.into_inner())
}

/// A group of the first `g` GPUs.
///
/// # Panics
/// With fewer than `g` GPUs ("needs g GPUs"), or when the group cannot be built.
fn group(g: usize) -> GpuGroup {
    let present = Gpu::device_count().unwrap_or(0);
    assert!(
        present >= g,
        "needs {g} GPUs, {present} present (run on a {g}-GPU machine)"
    );
    GpuGroup::new(&(0..g).collect::<Vec<_>>())
        .unwrap_or_else(|e| panic!("a group of {g} GPUs: {e}"))
}

/// The lengths of `n` keys split over `g` shares, evenly or (uneven) all on the last share
/// but a third of them on the first, the others empty.
fn share_lens(n: usize, g: usize, uneven: bool) -> Vec<usize> {
    if uneven && g > 1 {
        let mut lens = vec![0; g];
        lens[0] = n / 3;
        lens[g - 1] = n - n / 3;
        return lens;
    }
    (0..g).map(|i| (i + 1) * n / g - i * n / g).collect()
}

fn upload<T: sortlab_primitives::DeviceCopy>(
    group: &GpuGroup,
    host: &[T],
    lens: &[usize],
) -> Vec<DeviceBuffer<T>> {
    let mut at = 0;
    group
        .gpus()
        .iter()
        .zip(lens)
        .map(|(gpu, &l)| {
            let b = DeviceBuffer::from_host(gpu, &host[at..at + l]).unwrap();
            at += l;
            b
        })
        .collect()
}

fn download<T: sortlab_primitives::DeviceCopy>(bufs: &[DeviceBuffer<T>]) -> Vec<T> {
    bufs.iter().flat_map(|b| b.to_host().unwrap()).collect()
}

/// Checks the report and the balance bound.
fn check_report(
    report: &MultiReport,
    bufs_lens: &[usize],
    n: usize,
    opts: &MultiOptions,
    what: &str,
) {
    assert_eq!(report.shares, bufs_lens, "{what}: reported shares");
    assert_eq!(report.shares.iter().sum::<usize>(), n, "{what}");
    let bound = max_share(n, bufs_lens.len(), opts.oversampling);
    for (r, &s) in report.shares.iter().enumerate() {
        assert!(s <= bound, "{what}: rank {r} holds {s} keys, bound {bound}");
    }
}

/// Sorts `input` split into shares of `lens` over `group`, keys and pairs (u32 index values),
/// and checks both against the CPU reference's stable sort.
fn check_sort<K: SortKey>(
    group: &GpuGroup,
    input: &[K],
    lens: &[usize],
    opts: &MultiOptions,
    what: &str,
) {
    let n = input.len();
    let mut expected = input.to_vec();
    sortlab_cpu_reference::sort::sort(&mut expected, opts.order);
    let mut shares = upload(group, input, lens);
    let report =
        multi::sort_keys(group, &mut shares, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let lens_after: Vec<usize> = shares.iter().map(DeviceBuffer::len).collect();
    check_report(&report, &lens_after, n, opts, what);
    check::check_equal(&expected, &download(&shares))
        .unwrap_or_else(|e| panic!("keys {what}: {e}"));
    check_pairs::<K, u32>(group, input, lens, opts, what);
}

fn check_pairs<K: SortKey, V: SortValue + TryFrom<usize>>(
    group: &GpuGroup,
    input: &[K],
    lens: &[usize],
    opts: &MultiOptions,
    what: &str,
) where
    <V as TryFrom<usize>>::Error: std::fmt::Debug,
{
    let (values, ek, ev) = stable_index_pairs::<K, V>(input, opts.order);
    let mut k = upload(group, input, lens);
    let mut v = upload(group, &values, lens);
    let report = multi::sort_pairs(group, &mut k, &mut v, opts)
        .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
    let lens_after: Vec<usize> = k.iter().map(DeviceBuffer::len).collect();
    assert_eq!(
        lens_after,
        v.iter().map(DeviceBuffer::len).collect::<Vec<_>>()
    );
    check_report(&report, &lens_after, input.len(), opts, what);
    check::check_pairs_equal(&ek, &ev, &download(&k), &download(&v))
        .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
}

fn every_case<K: SortKey>(group: &GpuGroup, opts: &MultiOptions) {
    let g = group.len();
    for n in [0, 1, g.saturating_sub(1), 1000, 1_000_003] {
        for pattern in PATTERNS {
            for order in [Order::Ascending, Order::Descending] {
                for uneven in [false, true] {
                    if uneven && n != 1000 {
                        continue;
                    }
                    let opts = opts.with_order(order);
                    let input: Vec<K> = generate(pattern, n, 29 + n as u64);
                    let lens = share_lens(n, g, uneven);
                    let what = format!(
                        "G={g} {} n={n} {pattern} {order:?} shares {lens:?} oversampling {}",
                        K::NAME,
                        opts.oversampling
                    );
                    check_sort(group, &input, &lens, &opts, &what);
                }
            }
        }
    }
}

fn every_type(g: usize) {
    let group = group(g);
    let opts = MultiOptions::default();
    every_case::<u32>(&group, &opts);
    every_case::<f32>(&group, &opts);
    every_case::<u64>(&group, &opts);
    every_case::<i64>(&group, &opts);
}

#[test]
#[ignore = "needs a CUDA device"]
fn one_gpu_every_type_pattern_order_and_length() {
    let _serial = serial();
    every_type(1);
}

#[test]
#[ignore = "needs a CUDA device"]
fn two_gpus_every_type_pattern_order_and_length() {
    let _serial = serial();
    every_type(2);
}

#[test]
#[ignore = "needs a CUDA device"]
fn four_gpus_every_type_pattern_order_and_length() {
    let _serial = serial();
    every_type(4);
}

/// Small oversampling: sample steps above 1, so the cuts are searched on the device and the
/// balance bound is loose enough to be reached.
#[test]
#[ignore = "needs a CUDA device"]
fn small_oversampling_searches_cuts_and_stays_balanced() {
    let _serial = serial();
    let g = Gpu::device_count().unwrap_or(0).clamp(1, 4);
    let group = group(g.max(2));
    for os in [1, 3, 64] {
        for n in [1000, 100_000] {
            for pattern in PATTERNS {
                for uneven in [false, true] {
                    let opts = MultiOptions::default().with_oversampling(os);
                    let lens = share_lens(n, group.len(), uneven);
                    let what = format!("G={} n={n} {pattern} os={os} {lens:?}", group.len());
                    let input: Vec<u32> = generate(pattern, n, 7);
                    check_sort(&group, &input, &lens, &opts, &format!("u32 {what}"));
                    let input: Vec<f64> = generate(pattern, n, 8);
                    check_sort(
                        &group,
                        &input,
                        &lens,
                        &opts.with_order(Order::Descending),
                        &format!("f64 {what}"),
                    );
                }
            }
        }
    }
}

/// Host memory to host memory with every visible GPU up to 4.
#[test]
#[ignore = "needs a CUDA device"]
fn host_to_host() {
    let _serial = serial();
    let g = Gpu::device_count().unwrap_or(0).clamp(1, 4);
    let group = group(g);
    for n in [0, 1, g - 1, 1000, 1_000_003] {
        for pattern in [Pattern::FullRange, Pattern::AllEqual, Pattern::Zipf] {
            for order in [Order::Ascending, Order::Descending] {
                let opts = MultiOptions::default().with_order(order);
                let what = format!("host G={g} n={n} {pattern} {order:?}");
                let input: Vec<i64> = generate(pattern, n, 3);
                let mut keys = input.clone();
                let report = multi::sort_keys_host(&group, &mut keys, &opts)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let mut expected = input.clone();
                sortlab_cpu_reference::sort::sort(&mut expected, order);
                check::check_equal(&expected, &keys).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(report.shares.iter().sum::<usize>(), n);

                let input: Vec<f32> = generate(pattern, n, 4);
                let mut keys = input.clone();
                let mut values: Vec<u64> = (0..n as u64).collect();
                let (mut ek, mut ev) = (input.clone(), values.clone());
                sortlab_cpu_reference::sort::sort_pairs(&mut ek, &mut ev, order).unwrap();
                multi::sort_pairs_host(&group, &mut keys, &mut values, &opts.with_timed(true))
                    .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
                check::check_pairs_equal(&ek, &ev, &keys, &values)
                    .unwrap_or_else(|e| panic!("pairs {what}: {e}"));
            }
        }
    }
}

/// Bad input: a clear error, the shares untouched.
#[test]
#[ignore = "needs a CUDA device"]
fn errors_leave_the_shares_untouched() {
    let _serial = serial();
    let g = Gpu::device_count().unwrap_or(0).clamp(1, 4);
    let group = group(g);
    let input: Vec<u32> = generate(Pattern::FullRange, 1000, 1);
    let lens = share_lens(1000, g, false);

    // Too few shares.
    let mut shares = upload(&group, &input[..lens[0]], &lens[..1]);
    if g > 1 {
        let r = multi::sort_keys(&group, &mut shares, &MultiOptions::default());
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
        assert_eq!(download(&shares), &input[..lens[0]]);
    }

    // Keys and values of different lengths on one share.
    let mut keys = upload(&group, &input, &lens);
    let mut short = lens.clone();
    short[g - 1] -= 1;
    let mut values = upload(&group, &input[..999], &short);
    let r = multi::sort_pairs(&group, &mut keys, &mut values, &MultiOptions::default());
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    assert_eq!(download(&keys), input);

    // Oversampling 0, through the group and through a rank (every rank stops).
    let r = multi::sort_keys(
        &group,
        &mut keys,
        &MultiOptions::default().with_oversampling(0),
    );
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    assert_eq!(download(&keys), input);

    // Host pairs of different lengths.
    let mut hk = input.clone();
    let mut hv = vec![0u32; 999];
    let r = multi::sort_pairs_host(&group, &mut hk, &mut hv, &MultiOptions::default());
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    assert_eq!(hk, input);

    // A one-rank communicator needs no NCCL.
    let comm = Communicator::single(&group.gpus()[0]);
    let mut k = DeviceBuffer::from_host(comm.gpu(), &input).unwrap();
    multi::sort_keys_rank(&comm, &mut k, &MultiOptions::default()).unwrap();
    let mut expected = input.clone();
    expected.sort();
    assert_eq!(k.to_host().unwrap(), expected);
}

// ---- Several processes: this binary re-run once per rank. ----

const RANK_ENV: &str = "SORTLAB_MULTI_RANK";
const RANKS_ENV: &str = "SORTLAB_MULTI_RANKS";
const ID_ENV: &str = "SORTLAB_MULTI_ID";
const OUT_ENV: &str = "SORTLAB_MULTI_OUT";
const PROCESS_TEST: &str = "several_processes_sort_with_sort_keys_rank";
/// Keys per rank in the several-process test (rank r has r * 1000 more, rank 0 none extra).
const PROCESS_SHARE: usize = 300_007;

/// Rank `r`'s input share in the several-process test.
fn process_share(r: usize) -> Vec<u64> {
    generate(Pattern::Zipf, PROCESS_SHARE + r * 1000, 100 + r as u64)
}

/// The child's part: join the clique, sort the share, write it to `OUT/rank<r>.bin`.
fn run_as_rank(rank: usize) {
    let env = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
    let ranks: usize = env(RANKS_ENV).parse().unwrap();
    let id: NcclUniqueId = env(ID_ENV).parse().unwrap();
    let out = PathBuf::from(env(OUT_ENV));
    let gpu = Gpu::new(rank).unwrap_or_else(|e| panic!("rank {rank}: {e}"));
    let comm = Communicator::from_unique_id(&gpu, &id, rank, ranks)
        .unwrap_or_else(|e| panic!("rank {rank}: {e}"));
    let mut keys = DeviceBuffer::from_host(&gpu, &process_share(rank)).unwrap();
    let report = multi::sort_keys_rank(&comm, &mut keys, &MultiOptions::default())
        .unwrap_or_else(|e| panic!("rank {rank}: {e}"));
    assert_eq!(report.shares[rank], keys.len());
    let bytes: Vec<u8> = keys
        .to_host()
        .unwrap()
        .iter()
        .flat_map(|k| k.to_le_bytes())
        .collect();
    std::fs::write(out.join(format!("rank{rank}.bin")), bytes).unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn several_processes_sort_with_sort_keys_rank() {
    let _serial = serial();
    if let Ok(rank) = std::env::var(RANK_ENV) {
        run_as_rank(rank.parse().unwrap());
        return;
    }
    let g = Gpu::device_count().unwrap_or(0).min(4);
    assert!(g >= 2, "needs 2 GPUs, {g} present");
    // This process makes the id (NCCL's bootstrap root runs here until the ranks have joined).
    let id = NcclUniqueId::new().unwrap_or_else(|e| panic!("an NCCL unique id: {e}"));
    let out = std::env::temp_dir().join(format!("sortlab-multi-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut children: Vec<_> = (0..g)
        .map(|r| {
            Command::new(&exe)
                .args(["--exact", PROCESS_TEST, "--include-ignored", "--nocapture"])
                .env(RANK_ENV, r.to_string())
                .env(RANKS_ENV, g.to_string())
                .env(ID_ENV, id.to_string())
                .env(OUT_ENV, &out)
                .stdout(Stdio::inherit())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut ok = vec![None; g];
    while ok.iter().any(Option::is_none) {
        for (r, c) in children.iter_mut().enumerate() {
            if ok[r].is_none() {
                if let Some(status) = c.try_wait().unwrap() {
                    ok[r] = Some(status.success());
                }
            }
        }
        if Instant::now() > deadline {
            for c in &mut children {
                let _ = c.kill();
            }
            panic!("the ranks did not finish in 300 s: {ok:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        ok.iter().all(|s| *s == Some(true)),
        "rank exit statuses: {ok:?}"
    );
    let mut input = Vec::new();
    let mut got = Vec::new();
    let mut lens = Vec::new();
    for r in 0..g {
        input.extend(process_share(r));
        let bytes = std::fs::read(out.join(format!("rank{r}.bin"))).unwrap();
        lens.push(bytes.len() / 8);
        got.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap())),
        );
    }
    let _ = std::fs::remove_dir_all(&out);
    let mut expected = input.clone();
    expected.sort();
    check::check_equal(&expected, &got).unwrap();
    let bound = max_share(input.len(), g, MultiOptions::default().oversampling);
    assert!(lens.iter().all(|&l| l <= bound), "{lens:?}, bound {bound}");
}

/// `MultiOptions::in_place`: the same results without the copy of each share.
#[test]
#[ignore = "needs a CUDA device"]
fn in_place_sorts_the_same() {
    let _serial = serial();
    let g = Gpu::device_count().unwrap_or(0).clamp(1, 4);
    let group = group(g);
    for n in [0, 1, g - 1, 1000, 1_000_003] {
        for pattern in [
            Pattern::FullRange,
            Pattern::FewDistinct,
            Pattern::Descending,
        ] {
            for uneven in [false, true] {
                let lens = share_lens(n, g, uneven);
                let opts = MultiOptions::default().with_in_place(true);
                let what = format!("in place G={g} n={n} {pattern} {lens:?}");
                let input: Vec<u64> = generate(pattern, n, 11);
                check_sort(&group, &input, &lens, &opts, &what);
                let input: Vec<f32> = generate(pattern, n, 12);
                check_sort(
                    &group,
                    &input,
                    &lens,
                    &opts.with_order(Order::Descending),
                    &what,
                );
            }
        }
    }
}
