//! GPU tests of the runtime: device open, NVRTC compile and launch, buffer round trips, launch
//! limits, the module caches, and the device key map against the host map for every key type.
//! Run on a CUDA machine with `scripts/gpu-check`.

mod common;

use common::{gpu, rng_for};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sortlab_primitives::key_map::{from_ordered_bits, to_ordered_bits};
use sortlab_primitives::{
    DeviceBuffer, Error, Gpu, GpuTimer, KernelArgs, KernelSource, LaunchConfig, Order, SortKey,
};

#[test]
#[ignore = "needs a CUDA device"]
fn device_opens_and_reports_itself() {
    let g = gpu();
    let i = g.info();
    eprintln!("{i:?}");
    assert!(!i.name.is_empty());
    assert!(i.compute_capability.0 >= 7);
    assert!(i.multiprocessors > 0 && i.total_memory > (1 << 30));
    assert!(i.shared_per_block_optin >= i.shared_per_block);
    let (free, total) = g.memory_info().unwrap();
    assert!(free <= total && total > 0);
    assert!(g.nvrtc_version().unwrap().0 >= 12);
}

#[test]
#[ignore = "needs a CUDA device"]
fn round_trips_of_every_length_class() {
    let g = gpu();
    let mut rng = rng_for("round_trips_of_every_length_class");
    for n in [0usize, 1, 2, 31, 32, 33, 1023, 1025, 1 << 20, (1 << 22) + 3] {
        let host: Vec<u64> = (0..n).map(|_| rng.gen()).collect();
        let d = DeviceBuffer::from_host(&g, &host).unwrap();
        assert_eq!(d.len(), n);
        assert_eq!(d.to_host().unwrap(), host, "n = {n}");
        let mut copy = DeviceBuffer::<u64>::alloc(&g, n).unwrap();
        copy.copy_from_device(&d).unwrap();
        assert_eq!(copy.to_host().unwrap(), host);
        let mut z = DeviceBuffer::<u64>::zeroed(&g, n).unwrap();
        assert!(z.to_host().unwrap().iter().all(|&x| x == 0));
        z.fill_bytes(0xff).unwrap();
        assert!(z.to_host().unwrap().iter().all(|&x| x == u64::MAX));
    }
    // Mismatched lengths are errors, not memory corruption.
    let mut d = DeviceBuffer::<u32>::alloc(&g, 4).unwrap();
    assert!(matches!(
        d.copy_from_host(&[1, 2, 3]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(d.ptr_range(2..5), Err(Error::InvalidArgument(_))));
}

#[test]
#[ignore = "needs a CUDA device"]
fn out_of_memory_is_an_error() {
    let g = gpu();
    match DeviceBuffer::<u8>::alloc(&g, 1 << 50) {
        Err(Error::OutOfMemory { requested, .. }) => assert_eq!(requested, 1 << 50),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
}

const TEST_KERNEL: KernelSource = KernelSource::new(
    "runtime_test.cu",
    r#"
#include "sortlab/thread/types.cuh"
extern "C" __global__ void iota_plus(u32* out, u64 n, u32 add) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (u32)i + add + OFFSET;
}
extern "C" __global__ void big_shared(u32* out) {
    extern __shared__ u32 s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
"#,
);

#[test]
#[ignore = "needs a CUDA device"]
fn compile_launch_and_limits() {
    let g = gpu();
    let defines = sortlab_primitives::Defines::new().set("OFFSET", 5);
    let m = g.module(&TEST_KERNEL, &defines).unwrap();
    // The memory cache returns the same module.
    let m2 = g.module(&TEST_KERNEL, &defines).unwrap();
    assert!(std::sync::Arc::ptr_eq(&m, &m2));
    // A caller's key finds the same module; its defines are built once a key.
    let mut built = 0;
    for _ in 0..3 {
        let k = g
            .module_keyed(&TEST_KERNEL, ("offset", 5u32), || {
                built += 1;
                defines.clone()
            })
            .unwrap();
        assert!(std::sync::Arc::ptr_eq(&m, &k));
    }
    let other = g
        .module_keyed(&TEST_KERNEL, ("offset", 6u32), || {
            built += 1;
            sortlab_primitives::Defines::new().set("OFFSET", 6)
        })
        .unwrap();
    assert!(!std::sync::Arc::ptr_eq(&m, &other));
    assert_eq!(built, 2);
    let k = m.kernel("iota_plus").unwrap();
    let n = 100_000usize;
    let out = DeviceBuffer::<u32>::alloc(&g, n).unwrap();
    let mut args = KernelArgs::new();
    args.ptr(out.ptr()).push(n as u64).push(7u32);
    // SAFETY: iota_plus(u32*, u64, u32) writes out[0..n).
    unsafe {
        k.launch(LaunchConfig::linear(n.div_ceil(256) as u32, 256), &args)
            .unwrap()
    };
    let host = out.to_host().unwrap();
    assert!(host.iter().enumerate().all(|(i, &v)| v == i as u32 + 12));

    // Limits are checked before launch.
    let err = unsafe { k.launch(LaunchConfig::linear(1, 4096), &args) }.unwrap_err();
    assert!(matches!(err, Error::LaunchLimit { .. }), "{err}");
    let err = unsafe { k.launch(LaunchConfig::linear(0, 256), &args) }.unwrap_err();
    assert!(matches!(err, Error::LaunchLimit { .. }), "{err}");
    let too_much = g.info().shared_per_block_optin as u32 + 1;
    let bs = m.kernel("big_shared").unwrap();
    let err =
        unsafe { bs.launch(LaunchConfig::linear(1, 32).with_shared(too_much), &args) }.unwrap_err();
    assert!(matches!(err, Error::LaunchLimit { .. }), "{err}");
    // More than 48 KiB of dynamic shared memory is opted into automatically.
    let out = DeviceBuffer::<u32>::alloc(&g, 1024).unwrap();
    let mut a = KernelArgs::new();
    a.ptr(out.ptr());
    // SAFETY: big_shared(u32*) writes out[0..blockDim.x) and uses blockDim.x words of shared.
    unsafe {
        bs.launch(LaunchConfig::linear(1, 1024).with_shared(100 * 1024), &a)
            .unwrap()
    };
    let h = out.to_host().unwrap();
    assert!(h.iter().enumerate().all(|(i, &v)| v == 1023 - i as u32));

    // An unknown kernel name is an error naming it.
    let e = m.kernel("no_such_kernel").unwrap_err();
    assert!(e.to_string().contains("no_such_kernel"));
    // A compile error comes back with the file name and log.
    let bad = KernelSource::new(
        "bad_kernel.cu",
        "extern \"C\" __global__ void k() { nope(); }",
    );
    match g.module(&bad, &sortlab_primitives::Defines::new()) {
        Err(Error::Compile { file, log }) => {
            assert_eq!(file, "bad_kernel.cu");
            assert!(log.contains("nope"), "{log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// Its own source, so that modules other tests compile while `SORTLAB_CACHE_DIR` (process-wide)
/// points here cannot be mistaken for this test's.
const DISK_CACHE_KERNEL: KernelSource = KernelSource::new(
    "disk_cache_test.cu",
    "#include \"sortlab/thread/types.cuh\"\n\
     extern \"C\" __global__ void put(u32* out) { out[0] = OFFSET; }",
);

#[test]
#[ignore = "needs a CUDA device"]
fn disk_cache_stores_and_reuses_modules() {
    let dir = std::env::temp_dir().join(format!("sortlab-gpu-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("SORTLAB_CACHE_DIR", &dir);
    std::env::remove_var("SORTLAB_NO_DISK_CACHE");
    let ours = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("disk_cache_test-")
            })
            .collect()
    };
    let defines = sortlab_primitives::Defines::new().set("OFFSET", 99);
    {
        let g = Gpu::new(0).unwrap();
        g.module(&DISK_CACHE_KERNEL, &defines).unwrap();
    }
    let files = ours(&dir);
    assert_eq!(files.len(), 1, "one cubin cached: {files:?}");
    // A fresh Gpu (empty memory cache) loads the cached file and it works.
    let run = |g: &Gpu| {
        let k = g
            .module(&DISK_CACHE_KERNEL, &defines)
            .unwrap()
            .kernel("put")
            .unwrap();
        let out = DeviceBuffer::<u32>::zeroed(g, 1).unwrap();
        let mut args = KernelArgs::new();
        args.ptr(out.ptr());
        // SAFETY: put(u32*) writes out[0].
        unsafe { k.launch(LaunchConfig::linear(1, 32), &args).unwrap() };
        out.to_host().unwrap()
    };
    assert_eq!(run(&Gpu::new(0).unwrap()), vec![99]);
    // A corrupt cache file is recompiled, not trusted.
    std::fs::write(&files[0], b"garbage").unwrap();
    assert_eq!(run(&Gpu::new(0).unwrap()), vec![99]);
    std::env::remove_var("SORTLAB_CACHE_DIR");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The workspace's special keys (`sortlab_verify::specials`), with a normal-range f64 subnormal
/// and f32's own subnormals and extremes.
fn edge_values<K: SortKey>() -> Vec<K> {
    let mut v = sortlab_verify::specials::<K>();
    if K::IS_FLOAT {
        let f32_edges = [1e-45f32, -1e-45, f32::MAX, f32::MIN].map(f64::from);
        v.extend([1e-310].into_iter().chain(f32_edges).map(K::from_f64));
    }
    v
}

fn check_key_map<K: SortKey>(g: &Gpu, rng: &mut ChaCha8Rng) {
    let mut keys = edge_values::<K>();
    for _ in 0..100_000 {
        let bits: u64 = rng.gen();
        keys.push(K::from_ordered_bits(
            <K::Bits as sortlab_primitives::KeyBits>::from_u64(bits),
        ));
    }
    let d = DeviceBuffer::from_host(g, &keys).unwrap();
    for order in [Order::Ascending, Order::Descending] {
        let bits = to_ordered_bits(g, &d, order).unwrap().to_host().unwrap();
        for (k, b) in keys.iter().zip(&bits) {
            let host = k.to_ordered_bits();
            let want = if order.is_descending() {
                <K::Bits as sortlab_primitives::KeyBits>::from_u64(!host.to_u64())
            } else {
                host
            };
            assert_eq!(*b, want, "{} key {k:?} order {order}", K::NAME);
        }
        let back = from_ordered_bits::<K>(g, &DeviceBuffer::from_host(g, &bits).unwrap(), order)
            .unwrap()
            .to_host()
            .unwrap();
        for (k, b) in keys.iter().zip(&back) {
            assert_eq!(
                k.to_ordered_bits(),
                b.to_ordered_bits(),
                "{} inverse of {k:?}",
                K::NAME
            );
        }
    }
}

use sortlab_primitives::KeyBits as _;

#[test]
#[ignore = "needs a CUDA device"]
fn device_key_map_equals_host_map_for_every_key_type() {
    let g = gpu();
    let mut rng = rng_for("device_key_map_equals_host_map_for_every_key_type");
    check_key_map::<u32>(&g, &mut rng);
    check_key_map::<i32>(&g, &mut rng);
    check_key_map::<f32>(&g, &mut rng);
    check_key_map::<u64>(&g, &mut rng);
    check_key_map::<i64>(&g, &mut rng);
    check_key_map::<f64>(&g, &mut rng);
    // Empty input launches nothing and returns an empty buffer.
    let e = DeviceBuffer::<f32>::alloc(&g, 0).unwrap();
    assert!(to_ordered_bits(&g, &e, Order::Ascending)
        .unwrap()
        .is_empty());
}

#[test]
#[ignore = "needs a CUDA device"]
fn event_timer_measures() {
    let g = gpu();
    let t = GpuTimer::new(&g).unwrap();
    let src = DeviceBuffer::<u32>::zeroed(&g, 1 << 24).unwrap();
    t.start().unwrap();
    let _bits = to_ordered_bits(&g, &src, Order::Ascending).unwrap();
    let ms = t.stop().unwrap();
    assert!(ms > 0.0 && ms < 10_000.0, "{ms}");
}

/// Each step lets its successor launch at once, then sleeps before it reads: a successor that
/// did not wait for it would read a stale value.
const DEPENDENT_KERNEL: KernelSource = KernelSource::new(
    "dependent_test.cu",
    "#include \"sortlab/thread/types.cuh\"\n\
     #include \"sortlab/grid/grid_dependency.cuh\"\n\
     extern \"C\" __global__ void plus_one(const u32* src, u32* dst, u64 n) {\n\
         sortlab::dependent_entry();\n\
         for (int k = 0; k < 20; ++k) __nanosleep(1000);\n\
         const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n\
         if (i < n) dst[i] = src[i] + 1;\n\
     }",
);

#[test]
#[ignore = "needs a CUDA device"]
fn dependent_launches_wait_for_their_predecessor() {
    let g = gpu();
    eprintln!("dependent launches: {}", g.dependent_launch());
    let m = g
        .module(&DEPENDENT_KERNEL, &sortlab_primitives::Defines::new())
        .unwrap();
    let k = m.kernel("plus_one").unwrap();
    let n = 1usize << 20;
    let mut a = DeviceBuffer::<u32>::zeroed(&g, n).unwrap();
    let mut b = DeviceBuffer::<u32>::zeroed(&g, n).unwrap();
    let steps = 16;
    for step in 0..steps {
        let cfg = LaunchConfig::linear(n.div_ceil(256) as u32, 256);
        // Alternate dependent and ordinary launches: both orders must hold.
        let cfg = if step % 4 == 3 { cfg } else { cfg.dependent() };
        let mut args = KernelArgs::new();
        args.ptr(a.ptr()).ptr(b.ptr()).push(n as u64);
        // SAFETY: plus_one(const u32*, u32*, u64) reads src[0..n) and writes dst[0..n), both
        // n words, distinct; every thread waits on its predecessor first (dependent_entry).
        unsafe { k.launch(cfg, &args).unwrap() };
        std::mem::swap(&mut a, &mut b);
    }
    let host = a.to_host().unwrap();
    assert!(
        host.iter().all(|&v| v == steps),
        "first wrong: {:?}",
        host.iter().position(|&v| v != steps)
    );
}
