//! [`GpuGroup`]: several GPUs of one process and one NCCL clique over them.

use std::sync::{Mutex, MutexGuard};

use super::gpu::Gpu;
use super::nccl::Communicator;
use crate::error::{Error, Result};

/// Several GPUs of one host, driven by one process: a [`Gpu`] per device and a
/// [`Communicator`] per GPU, all of one NCCL clique (rank `i` on `gpus()[i]`).
///
/// # Overview
/// [`GpuGroup::new`] opens the devices and creates the clique with one `ncclCommInitAll`:
/// all ranks or none, so no rank is left waiting for a peer that failed to start. A group of
/// one GPU needs no NCCL ([`Communicator::single`]): one-GPU callers work where NCCL is not
/// installed.
///
/// A process that drives several ranks must issue each rank's collectives from its own
/// thread (each blocks until its peers join); the multi-GPU sort runs one scoped thread per
/// rank (`std::thread::scope`), each with its rank's [`Communicator`] (`Send + Sync`).
///
/// # Errors
/// [`Error::InvalidArgument`] for no ordinals or a repeated one; [`Error::NoDevice`] when a
/// device cannot be opened (no driver, no such ordinal); [`Error::NcclUnavailable`] for two or
/// more GPUs without the NCCL library; [`Error::Nccl`] when NCCL fails to build the clique.
///
/// # Example
/// ```no_run
/// use sortlab_primitives::runtime::GpuGroup;
/// let group = GpuGroup::all()?;
/// for (gpu, comm) in group.gpus().iter().zip(group.communicators()) {
///     println!("rank {} of {} on {}", comm.rank(), comm.ranks(), gpu.info().name);
/// }
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
#[derive(Debug)]
pub struct GpuGroup {
    gpus: Vec<Gpu>,
    comms: Vec<Communicator>,
    /// Held for the whole of one group operation ([`GpuGroup::exclusive`]).
    turn: Mutex<()>,
}

impl GpuGroup {
    /// The devices `ordinals`, rank `i` on `ordinals[i]`.
    pub fn new(ordinals: &[usize]) -> Result<Self> {
        if ordinals.is_empty() {
            return Err(Error::InvalidArgument(
                "a GPU group needs at least one device".into(),
            ));
        }
        for (i, o) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(o) {
                return Err(Error::InvalidArgument(format!(
                    "device {o} appears twice in the GPU group {ordinals:?}"
                )));
            }
        }
        let gpus = ordinals
            .iter()
            .map(|&o| Gpu::new(o))
            .collect::<Result<Vec<_>>>()?;
        let comms = if gpus.len() == 1 {
            vec![Communicator::single(&gpus[0])]
        } else {
            Communicator::init_all(&gpus)?
        };
        Ok(GpuGroup {
            gpus,
            comms,
            turn: Mutex::new(()),
        })
    }

    /// Every visible device (`CUDA_VISIBLE_DEVICES` decides which), ranks in ordinal order.
    pub fn all() -> Result<Self> {
        let n = Gpu::device_count()?;
        if n == 0 {
            return Err(Error::NoDevice {
                reason: "the CUDA driver reports no device".into(),
            });
        }
        GpuGroup::new(&(0..n).collect::<Vec<_>>())
    }

    /// The number of GPUs (ranks).
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Always false: a group has at least one GPU.
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// The GPUs, rank order.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// The communicators, rank order (`communicators()[i]` runs on `gpus()[i]`).
    pub fn communicators(&self) -> &[Communicator] {
        &self.comms
    }

    /// The group for one operation at a time: hold the guard from the first collective of an
    /// operation (a sort, an all-to-all over every rank) to its last.
    ///
    /// Collectives of one clique must be issued in the same order on every rank. Two
    /// operations on one group from two threads would interleave their ranks' calls (rank 0
    /// in one sort's all-gather, rank 1 in the other's) and wait for each other forever; the
    /// guard makes the second wait for the first instead. Every group entry point of
    /// `gpu-sorts::multi` takes it.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::runtime::GpuGroup;
    /// let group = GpuGroup::all()?;
    /// let _turn = group.exclusive(); // other threads' group operations wait here
    /// // ... one thread per rank, each issuing its rank's collectives ...
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn exclusive(&self) -> MutexGuard<'_, ()> {
        // The guard protects no data: a panic while it was held leaves nothing inconsistent.
        self.turn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for all work queued on every GPU of the group.
    pub fn synchronize(&self) -> Result<()> {
        self.gpus.iter().try_for_each(Gpu::synchronize)
    }
}

impl Drop for GpuGroup {
    /// Destroys the communicators concurrently, one thread each: recent NCCL versions make
    /// `ncclCommDestroy` wait for the clique's other ranks, so destroying them one after the
    /// other from one thread could wait forever.
    fn drop(&mut self) {
        let comms = std::mem::take(&mut self.comms);
        if comms.len() <= 1 {
            return;
        }
        std::thread::scope(|s| {
            for comm in comms {
                s.spawn(move || drop(comm));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_gpus_or_no_nccl_is_an_error_not_a_panic() {
        match GpuGroup::new(&[0, 1]) {
            Ok(g) => assert_eq!(g.len(), 2),
            Err(e) => assert!(
                matches!(e, Error::NoDevice { .. } | Error::NcclUnavailable { .. }),
                "{e}"
            ),
        }
        assert!(matches!(GpuGroup::new(&[]), Err(Error::InvalidArgument(_))));
        assert!(matches!(
            GpuGroup::new(&[0, 0]),
            Err(Error::InvalidArgument(_))
        ));
    }
}
