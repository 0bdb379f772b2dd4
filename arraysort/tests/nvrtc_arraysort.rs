//! Every arraysort kernel module compiles with NVRTC for sm_80 and sm_90 under the defines the
//! sorts use (every key and value width, both offset widths), with no error and no warning.
//! Needs NVRTC (scripts/test installs it), no GPU.

use sortlab_arraysort::module_configs;
use sortlab_primitives::runtime::nvrtc_available;
use sortlab_primitives::{Defines, KernelSource};
use sortlab_verify::testing::compile_failures;

/// Adds the failures of compiling `src` under `defines` for `arch` to `failures`.
fn check(src: &KernelSource, defines: &Defines, arch: &str, failures: &mut Vec<String>) {
    failures.extend(compile_failures([(*src, defines.clone())], &[arch]));
}

#[test]
fn every_arraysort_module_compiles() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let mut failures = Vec::new();
    for (k, v) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for (src, defines) in module_configs(k, v) {
            check(&src, &defines, "sm_90", &mut failures);
            if v == 8 {
                check(&src, &defines, "sm_80", &mut failures);
            }
        }
    }
    // Signed and float keys differ only in KEY_T's bit map.
    for key in ["int", "float", "long long", "double"] {
        let (src, d) = module_configs(
            if key.contains("long") || key == "double" {
                8
            } else {
                4
            },
            4,
        )
        .remove(0);
        check(&src, &d.set("KEY_T", key), "sm_90", &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
