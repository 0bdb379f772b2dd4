//! Kernel configurations compile with NVRTC without a warning (needs NVRTC, no GPU:
//! `source scripts/nvrtc-env` first): `u32` keys alone and with `u32` values, `f64` keys alone
//! and with `u64` values and 64-bit offsets (the other key types share these code paths), and
//! the source's own defaults for sm_80 and sm_90. The kernels are `.cuh` family files that
//! [`SOURCE`] concatenates, so the workspace's `nvrtc_compile` test (which compiles `.cu` files)
//! does not see them: the defaults' compile here stands in for it. Each compile takes seconds
//! (the block radix sort's templates), so the full matrix is not run here.

use sortlab_approxsort::{module_defines, ApproxPolicy, SOURCE};
use sortlab_primitives::runtime::compile;
use sortlab_primitives::{Defines, SortKey};

fn compile_configs<K: SortKey>(configs: &[(Option<usize>, bool)]) {
    let mut failures = Vec::new();
    for &(value_size, small) in configs {
        let policy = ApproxPolicy::for_arch(K::SIZE, value_size.unwrap_or(0), (9, 0));
        let d = module_defines::<K>(value_size, small, &policy);
        match compile(&SOURCE, &d, "sm_90") {
            Ok(c) if c.log.is_empty() => assert!(!c.cubin.is_empty()),
            Ok(c) => failures.push(format!("{d:?} warnings:\n{}", c.log)),
            Err(e) => failures.push(format!("{d:?}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const SMALL: &[(Option<usize>, bool)] = &[(None, true), (Some(4), true)];
const WIDE: &[(Option<usize>, bool)] = &[(None, true), (Some(8), false)];

#[test]
fn compiles_u32() {
    compile_configs::<u32>(SMALL);
}
#[test]
fn compiles_f64() {
    compile_configs::<f64>(WIDE);
}

#[test]
fn compiles_defaults_for_sm80_and_sm90() {
    for arch in ["sm_80", "sm_90"] {
        match compile(&SOURCE, &Defines::new(), arch) {
            Ok(c) => assert!(c.log.is_empty(), "{arch} warnings:\n{}", c.log),
            Err(e) => panic!("{arch}: {e}"),
        }
    }
}
