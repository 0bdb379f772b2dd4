//! Every bitonic kernel module compiles with NVRTC for sm_90 (and sm_80 for the widest pairs)
//! under the defines the sorts use (every key type, every value width), with no error and no
//! warning; plus a few other shapes of the fast sort. Needs NVRTC (scripts/test installs it),
//! no GPU.

use sortlab_gpu_sorts::bitonic::{self, FastPolicy};
use sortlab_primitives::runtime::nvrtc_available;
use sortlab_primitives::{Defines, KernelSource};
use sortlab_verify::testing::compile_failures;

/// Adds the failures of compiling `src` under `defines` for `arch` to `failures`.
fn check(src: &KernelSource, defines: &Defines, arch: &str, failures: &mut Vec<String>) {
    failures.extend(compile_failures([(*src, defines.clone())], &[arch]));
}

#[test]
fn every_bitonic_module_compiles() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for (src, defines) in bitonic::module_configs(k, v) {
            check(&src, &defines, "sm_90", &mut failures);
            if k == 8 && v == 8 {
                check(&src, &defines, "sm_80", &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fast_shapes_compile() {
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
