//! Every `.cu` kernel file of the workspace compiles with NVRTC for sm_80 and sm_90, with no
//! error and no warning. Needs NVRTC (scripts/test installs it from PyPI), no GPU.
//!
//! Kernel files give every define a default (`#ifndef NAME`), so each compiles on its own; the
//! per-algorithm tests compile the other configurations. `bench/anchors` holds host programs
//! for `nvcc`, not NVRTC kernels, and is skipped.

mod common;

use std::path::{Path, PathBuf};

use common::compile_failure;

use sortlab_primitives::runtime::{compile, nvrtc_available, nvrtc_version};
use sortlab_primitives::{Defines, KernelSource};

/// The workspace root: `SORTLAB_WORKSPACE_ROOT` (set by scripts/gpu-check, whose binaries run
/// on another machine) or the folder above this crate.
fn workspace_root() -> PathBuf {
    if let Some(root) = std::env::var_os("SORTLAB_WORKSPACE_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("primitives lives in the workspace")
        .to_path_buf()
}

fn find_cu(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name.starts_with('.')
                || name == "target"
                || name.starts_with("gpu-bundle")
                || p.ends_with("bench/anchors")
            {
                continue;
            }
            find_cu(&p, out);
        } else if name.ends_with(".cu") {
            out.push(p);
        }
    }
}

#[test]
fn every_kernel_file_compiles_for_sm80_and_sm90_without_warnings() {
    assert!(
        nvrtc_available(),
        "NVRTC is not loadable: run scripts/test (it installs the PyPI wheel nvidia-cuda-nvrtc) \
         or put a CUDA 13 libnvrtc on LD_LIBRARY_PATH"
    );
    eprintln!("NVRTC {:?}", nvrtc_version().unwrap());
    let mut files = Vec::new();
    find_cu(&workspace_root(), &mut files);
    files.sort();
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("primitives/src/key_map.cu")),
        "the walk found no kernel files: {files:?}"
    );
    let mut failures = Vec::new();
    for f in &files {
        let code: &'static str = Box::leak(std::fs::read_to_string(f).unwrap().into_boxed_str());
        let name: &'static str = Box::leak(
            f.strip_prefix(workspace_root())
                .unwrap()
                .display()
                .to_string()
                .into_boxed_str(),
        );
        for arch in ["sm_80", "sm_90"] {
            let source = KernelSource::new(name, code);
            let what = format!("{name} ({arch})");
            failures.extend(compile_failure(&source, &Defines::new(), arch, &what));
        }
        eprintln!("compiled {name}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn compile_errors_carry_the_file_name_and_log() {
    assert!(nvrtc_available(), "NVRTC is not loadable: run scripts/test");
    let bad = KernelSource::new(
        "broken.cu",
        "extern \"C\" __global__ void k() { undeclared_x = 1; }",
    );
    let err = compile(&bad, &Defines::new(), "sm_90").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("broken.cu"), "{msg}");
    assert!(msg.contains("undeclared_x"), "{msg}");
    // Warnings come back in the log of a successful compile.
    let warn = KernelSource::new(
        "warn.cu",
        "extern \"C\" __global__ void k() { int unused_v; }",
    );
    let c = compile(&warn, &Defines::new(), "sm_90").unwrap();
    assert!(
        c.log.contains("unused_v"),
        "expected a warning, log: {:?}",
        c.log
    );
    // Headers are reachable by their include names, and defines reach the source.
    let inc = KernelSource::new(
        "inc.cu",
        "#include \"sortlab/thread/key_bits.cuh\"\n\
         extern \"C\" __global__ void k(u32* o) { o[0] = sortlab::KeyBits<float>::to_bits(VALUE); }",
    );
    compile(&inc, &Defines::new().set("VALUE", "1.0f"), "sm_80").unwrap();
    assert!(
        compile(&inc, &Defines::new(), "sm_80").is_err(),
        "VALUE undefined must fail"
    );
}
