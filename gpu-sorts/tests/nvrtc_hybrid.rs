//! Every hybrid sort kernel module compiles with NVRTC for sm_90 (and sm_80 for 8-byte keys
//! with 8-byte values) under the defines the sorts use (every key type, every value width; one
//! module serves both variants), with no error and no warning; `hybrid.cu` also asserts there
//! that the host's shared memory formula equals the device's `sizeof`. Needs NVRTC
//! (scripts/test installs it), no GPU.

use sortlab_gpu_sorts::hybrid;
use sortlab_primitives::runtime::nvrtc_available;
use sortlab_primitives::{Defines, KernelSource};
use sortlab_verify::testing::compile_failures;

/// Adds the failures of compiling `src` under `defines` for `arch` to `failures`.
fn check(src: &KernelSource, defines: &Defines, arch: &str, failures: &mut Vec<String>) {
    failures.extend(compile_failures([(*src, defines.clone())], &[arch]));
}

#[test]
fn every_hybrid_module_compiles() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for (src, defines) in hybrid::module_configs(k, v) {
            check(&src, &defines, "sm_90", &mut failures);
            if k == 8 && v == 8 {
                check(&src, &defines, "sm_80", &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
