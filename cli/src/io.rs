//! Key files: raw little-endian keys, no header. Reading checks the length; writing is atomic
//! (a temporary file in the output's directory, renamed into place once complete), so a failed
//! command never leaves a partial or clobbered output.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::CliError;
use crate::key::CliKey;
use crate::progress;

/// Bytes converted per step when reading or writing (a multiple of every key size).
const CHUNK_BYTES: usize = 1 << 20;

/// A vector with room for `n` keys of type `K`, or [`CliError::TooLarge`] when that much
/// memory cannot be had (checked up front, so that a huge `--n` is an error, not an abort).
pub fn alloc_keys<K: CliKey>(n: u64) -> Result<Vec<K>, CliError> {
    let too_large = || CliError::TooLarge {
        n,
        key_type: K::TYPE,
        bytes: n as u128 * K::SIZE as u128,
    };
    let n = usize::try_from(n).map_err(|_| too_large())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| too_large())?;
    Ok(v)
}

/// Reads a file of little-endian keys of type `K`.
///
/// Errors: [`CliError::Read`] when the file cannot be opened or read,
/// [`CliError::BadLength`] when its length is not a multiple of the key size.
pub fn read_keys<K: CliKey>(path: &Path) -> Result<Vec<K>, CliError> {
    let read_err = |source| CliError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_dir() {
        return Err(read_err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    if !meta.is_file() {
        // A pipe or device: its length is known only at the end.
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(read_err)?;
        check_length::<K>(path, bytes.len() as u64)?;
        let mut keys = alloc_keys::<K>((bytes.len() / K::SIZE) as u64)?;
        keys.extend(bytes.chunks_exact(K::SIZE).map(K::from_le_slice));
        return Ok(keys);
    }
    let len = meta.len();
    check_length::<K>(path, len)?;
    let mut keys = alloc_keys::<K>(len / K::SIZE as u64)?;
    let bar = progress::bytes_bar(len, &format!("reading {}", path.display()));
    let mut buf = vec![0u8; CHUNK_BYTES.min(len as usize)];
    let mut left = len as usize;
    while left > 0 {
        let chunk = &mut buf[..left.min(CHUNK_BYTES)];
        file.read_exact(chunk).map_err(read_err)?;
        keys.extend(chunk.chunks_exact(K::SIZE).map(K::from_le_slice));
        left -= chunk.len();
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    Ok(keys)
}

fn check_length<K: CliKey>(path: &Path, len: u64) -> Result<(), CliError> {
    if len % K::SIZE as u64 == 0 {
        Ok(())
    } else {
        Err(CliError::BadLength {
            path: path.to_path_buf(),
            len,
            key_type: K::TYPE,
        })
    }
}

/// Writes `keys` as little-endian bytes to `path`, atomically (see [`write_atomic`]).
pub fn write_keys<K: CliKey>(path: &Path, keys: &[K]) -> Result<(), CliError> {
    let total = (keys.len() * K::SIZE) as u64;
    let bar = progress::bytes_bar(total, &format!("writing {}", path.display()));
    let per_chunk = CHUNK_BYTES / K::SIZE;
    let result = write_atomic(path, |w| {
        let mut bytes = Vec::with_capacity(CHUNK_BYTES);
        for chunk in keys.chunks(per_chunk) {
            bytes.clear();
            for &k in chunk {
                k.write_le(&mut bytes);
            }
            w.write_all(&bytes)?;
            bar.inc(bytes.len() as u64);
        }
        Ok(())
    });
    bar.finish_and_clear();
    result
}

/// Writes a file atomically: `fill` writes into a temporary file in `path`'s directory, which
/// replaces `path` only once `fill` and the flush have succeeded. On any error the temporary
/// file is removed and whatever was at `path` is left as it was.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CliError> {
    let write_err = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".sortlab-").suffix(".tmp");
    #[cfg(unix)]
    let perms = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.permissions())
            .unwrap_or_else(|| std::fs::Permissions::from_mode(0o644))
    };
    #[cfg(unix)]
    builder.permissions(perms);
    let mut tmp = builder.tempfile_in(&dir).map_err(write_err)?;
    {
        let mut w = BufWriter::with_capacity(CHUNK_BYTES, tmp.as_file_mut());
        fill(&mut w).map_err(write_err)?;
        w.flush().map_err(write_err)?;
    }
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}
