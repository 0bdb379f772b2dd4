//! Host copies on rayon: between the caller's slices, the pinned staging buffers and the
//! host temporary of the runs.

use std::mem::MaybeUninit;

use rayon::prelude::*;

/// Elements per rayon task of a copy: 32 Ki (128 to 256 KiB), large against a task's overhead,
/// so that a staging piece of 4 MiB of keys spreads over 16 to 32 tasks.
const PIECE: usize = 1 << 15;

/// Copies `src` into `dst` (same length) in parallel on rayon's pool, in pieces of 32 Ki
/// elements: the host side of a streamed pass's fills and drains.
///
/// ```
/// let src: Vec<u32> = (0..100_000).collect();
/// let mut dst = vec![0u32; 100_000];
/// sortlab_gpu_sorts::stream::par_copy(&mut dst, &src);
/// assert_eq!(dst, src);
/// ```
pub fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    debug_assert_eq!(dst.len(), src.len());
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Copies `src` into the uninitialised `dst` (same length) in parallel; `dst` is initialised
/// afterwards.
pub(crate) fn par_copy_uninit<T: Copy + Send + Sync>(dst: &mut [MaybeUninit<T>], src: &[T]) {
    debug_assert_eq!(dst.len(), src.len());
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| {
            let n = d.len().min(s.len());
            // SAFETY: `MaybeUninit<T>` has the layout of `T`; both pieces hold `n` elements and
            // do not overlap (one is borrowed mutably, the other shared).
            unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), d.as_mut_ptr() as *mut T, n) };
        });
}

/// Copies the slices `srcs` one after another into `dst` (whose length is their total), in
/// parallel over pieces of every slice.
pub(crate) fn par_gather<T: Copy + Send + Sync>(dst: &mut [T], srcs: &[&[T]]) {
    let mut pairs: Vec<(&mut [T], &[T])> = Vec::new();
    let mut rest = dst;
    for &s in srcs {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(s.len());
        rest = tail;
        pairs.extend(head.chunks_mut(PIECE).zip(s.chunks(PIECE)));
    }
    debug_assert!(rest.is_empty());
    pairs
        .into_par_iter()
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Allocations of at least this many bytes ask for transparent huge pages.
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Advises the kernel to back `room` (spare capacity of a fresh host temporary, not yet
/// touched) with transparent huge pages where it can: Linux only, where they are on for
/// advised memory (`madvise` mode, as on the device hosts measured). The first touch of each
/// page is then one fault per 2 MiB instead of per 4 KiB, several times faster to fault in
/// (README.md, "Memory"). A hint only: where the kernel declines (huge pages off, or the call
/// fails) nothing changes.
pub(crate) fn advise_huge_pages<T>(room: &mut [MaybeUninit<T>]) {
    let bytes = std::mem::size_of_val(room);
    if bytes < HUGE_PAGE_MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        // A transparent huge page on x86-64 and most aarch64 kernels; only the alignment of the
        // advised range depends on it (a kernel with another size rounds the advice).
        const HUGE_PAGE: usize = 2 << 20;
        // The whole huge pages inside `room`.
        let start = room.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE);
        let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
        if end > first {
            // SAFETY: `first .. end` lies inside `room`, memory this process owns; the advice
            // changes how the kernel backs the pages, never their contents or mapping (the
            // result is ignored: a refused hint is no error).
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// The parts of the concatenation of `slices` at `offset .. offset + len` (which must lie
/// inside it), as sub-slices in order.
pub(crate) fn sub_slices<'a, T>(slices: &[&'a [T]], offset: usize, len: usize) -> Vec<&'a [T]> {
    let (mut skip, mut left) = (offset, len);
    let mut out = Vec::new();
    for &s in slices {
        if left == 0 {
            break;
        }
        if skip >= s.len() {
            skip -= s.len();
            continue;
        }
        let take = (s.len() - skip).min(left);
        out.push(&s[skip..skip + take]);
        skip = 0;
        left -= take;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_page_advice_leaves_memory_usable() {
        for n in [0usize, 1000, 3 << 20, (9 << 20) + 3] {
            let mut v: Vec<u32> = Vec::with_capacity(n);
            advise_huge_pages(&mut v.spare_capacity_mut()[..n]);
            v.extend((0..n as u32).map(|i| i.wrapping_mul(2654435761)));
            assert!(v
                .iter()
                .enumerate()
                .all(|(i, &x)| x == (i as u32).wrapping_mul(2654435761)));
        }
    }

    #[test]
    fn copies() {
        let src: Vec<u64> = (0..300_001).collect();
        let mut dst = vec![0u64; src.len()];
        par_copy(&mut dst, &src);
        assert_eq!(dst, src);
        let mut v: Vec<u64> = Vec::with_capacity(src.len());
        par_copy_uninit(&mut v.spare_capacity_mut()[..src.len()], &src);
        // SAFETY: every element was written just above.
        unsafe { v.set_len(src.len()) };
        assert_eq!(v, src);
        let parts: Vec<&[u64]> = vec![&src[5..10], &[], &src[100..200_000], &src[..3]];
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let mut out = vec![0u64; total];
        par_gather(&mut out, &parts);
        assert_eq!(out, parts.concat());
        let all = parts.concat();
        for (off, len) in [
            (0, 0),
            (0, 5),
            (3, 10),
            (4, 199_000),
            (5, total - 5),
            (total, 0),
        ] {
            let subs = sub_slices(&parts, off, len);
            assert_eq!(subs.concat(), all[off..off + len], "{off} {len}");
        }
    }
}
