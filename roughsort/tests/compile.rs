//! Every kernel configuration the host can launch compiles with NVRTC for sm_90 without a
//! warning: each key type × keys-only and both value widths, with the policies the host picks
//! (the workspace's `nvrtc_compile` test covers sm_80 with the defaults). Needs NVRTC
//! (scripts/test installs it), no GPU. The configurations compile on parallel threads.

use sortlab_primitives::runtime::{compile, nvrtc_available};
use sortlab_primitives::{Defines, KernelSource, SortKey};
use sortlab_roughsort::{radius, sort, RadiusPolicy, SortPolicy};

/// Compiles `src` with `defines` for sm_90; `Some(problem)` on an error or a warning.
fn try_compile(src: &KernelSource, defines: &Defines) -> Option<String> {
    match compile(src, defines, "sm_90") {
        Ok(c) if c.log.is_empty() && !c.cubin.is_empty() => None,
        Ok(c) => Some(format!("{} {defines:?} warnings:\n{}", src.name, c.log)),
        Err(e) => Some(format!("{} {defines:?}: {e}", src.name)),
    }
}

/// Every (source, defines) the host launches for keys `K`.
fn configs<K: SortKey>(out: &mut Vec<(KernelSource, Defines)>) {
    for rp in [
        RadiusPolicy::for_key(K::SIZE),
        RadiusPolicy::wide_for_key(K::SIZE),
    ] {
        out.push((radius::SOURCE, radius::module_defines::<K>(&rp)));
    }
    for (value, size) in [(None, 0), (Some(4), 4), (Some(8), 8)] {
        // Radii below and above the 4-byte keys' policy switch (32).
        let mut policies = vec![SortPolicy::for_sizes(K::SIZE, size, 1)];
        let large = SortPolicy::for_sizes(K::SIZE, size, 4096);
        if large != policies[0] {
            policies.push(large);
        }
        for sp in policies {
            out.push((sort::SOURCE, sort::module_defines::<K>(value, &sp)));
        }
    }
}

#[test]
fn every_configuration_compiles_without_warnings() {
    assert!(
        nvrtc_available(),
        "NVRTC is not loadable: run scripts/test (it installs the PyPI wheel nvidia-cuda-nvrtc) \
         or source scripts/nvrtc-env"
    );
    let mut all = Vec::new();
    configs::<u32>(&mut all);
    configs::<i32>(&mut all);
    configs::<f32>(&mut all);
    configs::<u64>(&mut all);
    configs::<i64>(&mut all);
    configs::<f64>(&mut all);
    let threads = std::thread::available_parallelism()
        .map_or(2, |p| p.get())
        .min(8);
    let chunks: Vec<Vec<(KernelSource, Defines)>> = (0..threads)
        .map(|t| all.iter().skip(t).step_by(threads).cloned().collect())
        .collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|(src, d)| try_compile(src, d))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("compile thread panicked"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
