//! Every radix kernel module compiles with NVRTC for sm_80 and sm_90 under the defines the
//! sorts use (every key and value width), with no error and no warning; plus a few tuning
//! shapes of the fast sort. Needs NVRTC (scripts/test installs it), no GPU.

use sortlab_gpu_sorts::radix;
use sortlab_primitives::runtime::nvrtc_available;
use sortlab_primitives::{Defines, KernelSource};
use sortlab_verify::testing::compile_failures;

/// Adds the failures of compiling `src` under `defines` for `arch` to `failures`.
fn check(src: &KernelSource, defines: &Defines, arch: &str, failures: &mut Vec<String>) {
    failures.extend(compile_failures([(*src, defines.clone())], &[arch]));
}

#[test]
fn every_radix_module_compiles() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for (src, defines) in radix::module_configs(k, v) {
            check(&src, &defines, "sm_90", &mut failures);
            if k == 8 && v == 8 {
                check(&src, &defines, "sm_80", &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fast_tuning_shapes_compile() {
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
