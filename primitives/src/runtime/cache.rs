//! The on-disk module cache: CUBINs keyed by source, headers, defines, architecture and NVRTC
//! version, so that a process pays NVRTC once per kernel configuration per machine.
//!
//! Location: `$SORTLAB_CACHE_DIR`, else `$XDG_CACHE_HOME/sortlab/kernels`, else
//! `$HOME/.cache/sortlab/kernels`. Set `SORTLAB_NO_DISK_CACHE=1` to turn it off.

use std::path::PathBuf;

use super::compile::{Defines, KernelSource};
use crate::kernels::HEADERS;

/// Environment variable that turns the disk cache off when set to anything but `0` or empty.
pub const NO_DISK_CACHE_ENV: &str = "SORTLAB_NO_DISK_CACHE";
/// Environment variable that overrides the disk cache folder.
pub const CACHE_DIR_ENV: &str = "SORTLAB_CACHE_DIR";

/// 64-bit FNV-1a: a stable hash (unlike `std`'s, it does not change between Rust releases).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub(crate) fn write(&mut self, bytes: &[u8]) -> &mut Self {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // Separator, so that ("ab", "c") and ("a", "bc") differ.
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        self
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The cache key of one compiled module.
pub(crate) fn module_key(
    src: &KernelSource,
    defines: &Defines,
    arch: &str,
    nvrtc: (u32, u32),
) -> u64 {
    let mut h = Fnv::new();
    h.write(src.name.as_bytes()).write(src.code.as_bytes());
    for (n, c) in HEADERS {
        h.write(n.as_bytes()).write(c.as_bytes());
    }
    for (n, v) in defines.pairs() {
        h.write(n.as_bytes()).write(v.as_bytes());
    }
    h.write(arch.as_bytes());
    h.write(&nvrtc.0.to_le_bytes())
        .write(&nvrtc.1.to_le_bytes());
    h.finish()
}

/// The disk cache folder, or `None` when it is turned off or no home is known.
pub fn disk_cache_dir() -> Option<PathBuf> {
    if let Ok(v) = std::env::var(NO_DISK_CACHE_ENV) {
        if !v.is_empty() && v != "0" {
            return None;
        }
    }
    if let Some(d) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("sortlab").join("kernels"));
    }
    std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| {
        PathBuf::from(h)
            .join(".cache")
            .join("sortlab")
            .join("kernels")
    })
}

pub(crate) fn cache_file(dir: &std::path::Path, src: &KernelSource, key: u64) -> PathBuf {
    let stem = src.name.trim_end_matches(".cu");
    dir.join(format!("{stem}-{key:016x}.cubin"))
}

/// Reads a cached CUBIN, if present.
pub(crate) fn load(dir: &std::path::Path, src: &KernelSource, key: u64) -> Option<Vec<u8>> {
    std::fs::read(cache_file(dir, src, key))
        .ok()
        .filter(|b| !b.is_empty())
}

/// Writes a CUBIN atomically (temp file, then rename). Failures are ignored: the cache is an
/// optimisation, never a requirement.
pub(crate) fn store(dir: &std::path::Path, src: &KernelSource, key: u64, cubin: &[u8]) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let path = cache_file(dir, src, key);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, cubin).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_every_part() {
        let a = KernelSource::new("a.cu", "x");
        let b = KernelSource::new("a.cu", "y");
        let d0 = Defines::new();
        let d1 = Defines::new().set("N", 1);
        let k = module_key(&a, &d0, "sm_90", (13, 0));
        assert_ne!(k, module_key(&b, &d0, "sm_90", (13, 0)));
        assert_ne!(k, module_key(&a, &d1, "sm_90", (13, 0)));
        assert_ne!(k, module_key(&a, &d0, "sm_80", (13, 0)));
        assert_ne!(k, module_key(&a, &d0, "sm_90", (13, 1)));
        assert_eq!(k, module_key(&a, &d0, "sm_90", (13, 0)));
    }

    #[test]
    fn store_then_load_round_trips() {
        let dir = std::env::temp_dir().join(format!("sortlab-cache-test-{}", std::process::id()));
        let src = KernelSource::new("t.cu", "");
        store(&dir, &src, 7, b"cubin");
        assert_eq!(load(&dir, &src, 7).as_deref(), Some(&b"cubin"[..]));
        assert_eq!(load(&dir, &src, 8), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
