//! Every kernel module of every gpu-sorts module compiles with NVRTC for sm_90 (and sm_80 for
//! 8-byte keys with 8-byte values) under the defines the sorts use (every key type, every value
//! width, every variant), with no error and no warning; the kernel files also assert there that
//! the host's shared-memory formulas equal the device's `sizeof`. Plus a few tuning shapes of
//! the fast radix and bitonic sorts. Needs NVRTC (scripts/test installs it), no GPU.

use sortlab_gpu_sorts::bitonic::{self, FastPolicy};
use sortlab_gpu_sorts::{hybrid, merge, multi, quick, radix, sample};
use sortlab_primitives::runtime::nvrtc_available;
use sortlab_primitives::{Defines, KernelSource};
use sortlab_verify::testing::compile_failures;

/// A module's `module_configs(key_size, value_size)`.
type Configs = fn(usize, usize) -> Vec<(KernelSource, Defines)>;

/// Adds the failures of compiling `src` under `defines` for `arch` to `failures`.
fn check(src: &KernelSource, defines: &Defines, arch: &str, failures: &mut Vec<String>) {
    failures.extend(compile_failures([(*src, defines.clone())], &[arch]));
}

/// Compiles every configuration `configs` gives for every key and value width, and fails with
/// every compiler message if any failed.
fn every_module_compiles(configs: Configs) {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for (src, defines) in configs(k, v) {
            check(&src, &defines, "sm_90", &mut failures);
            if k == 8 && v == 8 {
                check(&src, &defines, "sm_80", &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_radix_module_compiles() {
    every_module_compiles(radix::module_configs);
}

#[test]
fn every_merge_module_compiles() {
    every_module_compiles(merge::module_configs);
}

#[test]
fn every_bitonic_module_compiles() {
    every_module_compiles(bitonic::module_configs);
}

#[test]
fn every_sample_module_compiles() {
    every_module_compiles(sample::module_configs);
}

#[test]
fn every_multi_module_compiles() {
    every_module_compiles(multi::module_configs);
}

#[test]
fn every_quick_module_compiles() {
    every_module_compiles(quick::module_configs);
}

#[test]
fn every_hybrid_module_compiles() {
    every_module_compiles(hybrid::module_configs);
}

#[test]
fn radix_fast_tuning_shapes_compile() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    let src = radix::SOURCES[0];
    assert_eq!(src.name, "onesweep.cu");
    // (threads, items, radix bits, MATCH_ALGO)
    for (threads, items, bits, algo) in [
        (256, 23, 8, 0),
        (512, 16, 8, 1),
        (256, 16, 11, 2),
        (384, 20, 6, 1),
        (384, 15, 1, 2),
        (384, 24, 8, 3),
        (896, 18, 8, 3),
        (128, 5, 6, 3),
    ] {
        let (_, d) = radix::module_configs(4, 4).remove(0);
        let defines = d
            .set("BLOCK_THREADS", threads)
            .set("ITEMS_PER_THREAD", items)
            .set("RADIX_BITS", bits)
            .set("MATCH_ALGO", algo);
        check(&src, &defines, "sm_90", &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn bitonic_fast_shapes_compile() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    let src = bitonic::SOURCES[1];
    assert_eq!(src.name, "fast.cu");
    // (threads, items, global threads, fuse) with u32 keys and u64 values.
    for (threads, items, global_threads, fuse) in [
        (256, 16, 128, 3),
        (1024, 8, 512, 2),
        (128, 32, 256, 1),
        (512, 4, 64, 4),
    ] {
        let p = FastPolicy {
            threads,
            items,
            global_threads,
            fuse,
        };
        p.validate().unwrap();
        let (_, words) = bitonic::module_configs(4, 8).remove(1);
        check(
            &src,
            &words.extend(&p.defines(4, 8)),
            "sm_90",
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
