//! CUDA graphs: the work a [`Gpu`] queues on its stream, captured once ([`Gpu::capture`]) and
//! replayed ([`Graph::launch`]) without the host re-issuing each kernel.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::DriverError;

use super::gpu::Gpu;
use crate::error::{Error, Result};

/// Work captured from a [`Gpu`]'s stream by [`Gpu::capture`], instantiated and ready to be
/// replayed with [`Graph::launch`]. Dropping it destroys the graph and its executable.
///
/// A `Graph` may be sent to another thread but not shared between threads (the driver's graph
/// objects are not internally synchronised).
///
/// # Example
/// ```no_run
/// use sortlab_primitives::{DeviceBuffer, Gpu};
/// let gpu = Gpu::new(0)?;
/// let src = DeviceBuffer::from_host(&gpu, &[1u32, 2, 3])?;
/// let mut dst = DeviceBuffer::<u32>::zeroed(&gpu, 3)?;
/// let graph = gpu.capture(|_| dst.copy_from_device(&src))?;
/// // SAFETY: `src` and `dst`, the buffers the captured copy uses, are alive.
/// unsafe { graph.launch()? };
/// assert_eq!(dst.to_host()?, vec![1, 2, 3]);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
pub struct Graph {
    gpu: Gpu,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    nodes: usize,
}

// SAFETY: the graph and its executable are driver handles, valid on any thread once the
// context is bound (every use binds it); `Graph` is not `Sync`, so no two threads use them at
// once, as the driver requires.
unsafe impl Send for Graph {}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.gpu.info().ordinal)
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// Ends the capture of a stream when dropped before [`CaptureGuard::end`] (an early return or
/// a panic in the captured closure), so the stream never stays in capture mode.
struct CaptureGuard<'a> {
    gpu: &'a Gpu,
    active: bool,
}

impl CaptureGuard<'_> {
    /// Ends the capture and returns the captured graph (null where the driver returns none).
    fn end(&mut self) -> std::result::Result<sys::CUgraph, DriverError> {
        self.active = false;
        // An error binding is reported by the end-capture call itself.
        let _ = self.gpu.bind();
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is alive (the guard borrows its `Gpu`) and is capturing (begun by
        // `Gpu::capture`, ended only here); `graph` is valid for the write.
        let r = unsafe { sys::cuStreamEndCapture(self.gpu.cu_stream(), &mut graph) };
        match r.result() {
            Ok(()) => Ok(graph),
            Err(e) => {
                destroy_graph(graph);
                Err(e)
            }
        }
    }
}

impl Drop for CaptureGuard<'_> {
    fn drop(&mut self) {
        if self.active {
            if let Ok(g) = self.end() {
                destroy_graph(g);
            }
        }
    }
}

/// Destroys a graph that was never handed out (null does nothing).
fn destroy_graph(graph: sys::CUgraph) {
    if !graph.is_null() {
        // SAFETY: `graph` came from cuStreamEndCapture and is destroyed exactly once, here.
        let _ = unsafe { sys::cuGraphDestroy(graph) };
    }
}

fn check(op: &'static str, r: sys::CUresult) -> Result<()> {
    r.result().map_err(|e| Error::driver(op, e))
}

/// The graph's nodes, and an error unless every memory allocation node has its free node in
/// the graph and every free node frees a graph allocation (counted per address: the graph may
/// reuse an address after its free).
fn check_memory_nodes(graph: sys::CUgraph) -> Result<usize> {
    let mut count = 0usize;
    // SAFETY: `graph` is a valid graph; a null node array asks for the count only.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut count)
    })?;
    if count == 0 {
        // An empty capture: the driver refuses a node query of zero nodes (INVALID_VALUE).
        return Ok(0);
    }
    let mut nodes: Vec<sys::CUgraphNode> = vec![std::ptr::null_mut(); count];
    // SAFETY: `nodes` has room for `count` handles, the count the driver just gave.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count)
    })?;
    nodes.truncate(count);
    // Per address: allocations minus frees.
    let mut live: HashMap<sys::CUdeviceptr, i64> = HashMap::new();
    for &node in &nodes {
        let mut ty = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        // SAFETY: `node` is a node of `graph`; `ty` is valid for the write.
        check("cuGraphNodeGetType", unsafe {
            sys::cuGraphNodeGetType(node, &mut ty)
        })?;
        match ty {
            sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_ALLOC => {
                // SAFETY: an all-zero value is valid for this plain C struct (null pointers,
                // zero counts); the driver overwrites it.
                let mut p: sys::CUDA_MEM_ALLOC_NODE_PARAMS = unsafe { std::mem::zeroed() };
                // SAFETY: `node` is an allocation node; `p` is valid for the write.
                check("cuGraphMemAllocNodeGetParams", unsafe {
                    sys::cuGraphMemAllocNodeGetParams(node, &mut p)
                })?;
                *live.entry(p.dptr).or_default() += 1;
            }
            sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_FREE => {
                let mut dptr: sys::CUdeviceptr = 0;
                // SAFETY: `node` is a free node; `dptr` is valid for the write.
                check("cuGraphMemFreeNodeGetParams", unsafe {
                    sys::cuGraphMemFreeNodeGetParams(node, &mut dptr)
                })?;
                *live.entry(dptr).or_default() -= 1;
            }
            _ => {}
        }
    }
    if live.values().any(|&c| c > 0) {
        return Err(Error::Unsupported(
            "a buffer allocated inside a graph capture is still alive at its end; allocate \
             buffers that outlive the captured work before capturing (see Gpu::capture)"
                .into(),
        ));
    }
    if live.values().any(|&c| c < 0) {
        return Err(Error::Unsupported(
            "a buffer allocated before a graph capture was dropped inside it (every launch \
             would free it again); keep the buffers the captured work uses alive past the \
             capture (see Gpu::capture)"
                .into(),
        ));
    }
    Ok(count)
}

impl Gpu {
    /// Captures the work `f` queues on this `Gpu`'s stream into a CUDA graph, instead of
    /// running it, and returns the graph instantiated, to be replayed with [`Graph::launch`].
    ///
    /// # Overview
    /// Begins stream capture on the stream, calls `f(self)`, and ends the capture always (also
    /// when `f` fails or panics, so the stream is never left capturing). Every kernel, copy,
    /// memset, stream-ordered allocation and free that `f` queues on this stream becomes a node
    /// of the graph; nothing of it runs until the graph is launched. A sort that issues no
    /// device-to-host copy and no synchronisation (sortlab's device-scheduled sorts with the
    /// caller's scratch: `arraysort`, `radix`, `merge`, ...) can be captured this way and
    /// replayed on new data written into the same buffers.
    ///
    /// The capture mode is *relaxed* (`CU_STREAM_CAPTURE_MODE_RELAXED`): calls the driver deems
    /// potentially unsafe (`cuModuleLoadData` of a kernel compiled on first use,
    /// `cuFuncSetAttribute` for large shared memory, `cuMemGetInfo`) are allowed, and other
    /// threads, which the global mode would stop from allocating or freeing with the
    /// synchronous calls while any capture is in progress, are not disturbed. Warm up anyway
    /// (run the work once before capturing) so that compilation stays out of the capture.
    ///
    /// # What `f` may not do
    /// - **Wait for the device or read results on the host.** A download
    ///   ([`crate::DeviceBuffer::to_host`], `copy_to_host`, `copy_range_to_host`), an upload
    ///   from pageable memory ([`crate::DeviceBuffer::copy_from_host`]) or
    ///   [`Gpu::synchronize`] inside `f` fails with [`Error::Driver`] whose message names the
    ///   driver's `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (or
    ///   `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` for the calls after it), never a hang or a
    ///   panic; `capture` then returns that error of `f` and destroys the partial graph. A
    ///   sort that reads a few bytes back to size its next step (`gpu_sorts::sample`) cannot
    ///   be captured.
    /// - **Allocate a buffer that outlives the capture.** A [`crate::DeviceBuffer`] allocated
    ///   inside `f` comes from the stream-ordered pool as a graph allocation node, reallocated
    ///   at every launch; one allocated and dropped inside `f` (a sort's temporary) is fine.
    ///   One kept past the capture has no memory: `capture` returns [`Error::Unsupported`]
    ///   for it, and the buffer must not be used (`std::mem::forget` it; its address was the
    ///   destroyed graph's). A buffer allocated before the capture and dropped inside
    ///   `f` is never freed (the driver refuses a graph free of memory the graph did not
    ///   allocate, which fails the capture with a driver error; were a free recorded, every
    ///   launch would free it again, and `capture` returns [`Error::Unsupported`]). Allocate
    ///   inputs, outputs and scratch before capturing, and call the `_with_scratch` entry
    ///   points inside `f`. (On a device without stream-ordered allocation, where
    ///   [`Gpu::pool_memory`] is `(0, 0)`, an allocation inside `f` is made at capture time and
    ///   its drop fails to synchronise: allocate nothing inside `f` there.)
    /// - **Use other streams unjoined, or this stream from other threads.** Only this
    ///   stream's work is captured: work `f` queues on a fork ([`Gpu::fork_stream`]) runs at
    ///   once, and work other threads queue on this `Gpu` (or a clone) during the capture is
    ///   captured with `f`'s.
    ///
    /// The graph records device addresses, not buffers: the buffers it uses must stay alive
    /// for every launch (the safety contract of [`Graph::launch`]).
    ///
    /// # Errors
    /// `f`'s error when `f` fails; [`Error::Driver`] when the driver cannot begin or end the
    /// capture (`cuStreamEndCapture` with `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` where `f`
    /// swallowed a failed call, `..._UNJOINED` where it forked work onto another stream and did
    /// not join it, `CUDA_ERROR_INVALID_VALUE` or `..._INVALIDATED` where it dropped a buffer
    /// allocated before the capture) or instantiate the graph; [`Error::Unsupported`] for a
    /// buffer allocated inside and kept outside (or a recorded free of one allocated outside).
    ///
    /// # Performance
    /// A launch costs one `cuGraphLaunch` (a few microseconds) whatever the number of
    /// kernels, against a `cuLaunchKernel` and the host-side planning per kernel when the work
    /// is queued again.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::{DeviceBuffer, Error, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let src = DeviceBuffer::from_host(&gpu, &[7u32, 8])?;
    /// let mut dst = DeviceBuffer::<u32>::zeroed(&gpu, 2)?;
    /// let graph = gpu.capture(|_| dst.copy_from_device(&src))?;
    /// // SAFETY: the buffers the captured copy uses are alive.
    /// unsafe { graph.launch()? };
    /// assert_eq!(dst.to_host()?, vec![7, 8]);
    /// // A download cannot be captured: an error, and the stream works on.
    /// let err = gpu.capture(|_| src.to_host().map(drop)).unwrap_err();
    /// assert!(matches!(err, Error::Driver { .. }), "{err}");
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn capture(&self, f: impl FnOnce(&Gpu) -> Result<()>) -> Result<Graph> {
        self.bind()?;
        // SAFETY: the stream is alive (held by `self`) and is a created non-blocking stream,
        // not the legacy default stream, so it may be captured.
        check("cuStreamBeginCapture", unsafe {
            sys::cuStreamBeginCapture_v2(
                self.cu_stream(),
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        })?;
        let mut guard = CaptureGuard {
            gpu: self,
            active: true,
        };
        let ran = f(self);
        let ended = guard.end();
        if let Err(e) = ran {
            if let Ok(g) = ended {
                destroy_graph(g);
            }
            return Err(e);
        }
        let graph = ended.map_err(|e| Error::driver("cuStreamEndCapture", e))?;
        if graph.is_null() {
            return Err(Error::Internal(
                "cuStreamEndCapture returned no graph".into(),
            ));
        }
        let nodes = match check_memory_nodes(graph) {
            Ok(n) => n,
            Err(e) => {
                destroy_graph(graph);
                return Err(e);
            }
        };
        self.bind()?;
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: `graph` is a valid graph; `exec` is valid for the write.
        let r = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) };
        if let Err(e) = check("cuGraphInstantiateWithFlags", r) {
            destroy_graph(graph);
            return Err(e);
        }
        Ok(Graph {
            gpu: self.clone(),
            graph,
            exec,
            nodes,
        })
    }
}

impl Graph {
    /// Replays the captured work on the stream it was captured on, after everything already
    /// queued there and before everything queued later; returns at once.
    ///
    /// # Safety
    /// Every device buffer the captured work reads or writes must still be allocated (the
    /// graph holds addresses, not the buffers), and nothing may use them concurrently on
    /// another stream. Launches of one graph are ordered after each other by the driver.
    ///
    /// # Errors
    /// [`Error::Driver`] when the driver refuses the launch.
    ///
    /// # Example
    /// See [`Graph`].
    pub unsafe fn launch(&self) -> Result<()> {
        // SAFETY: the caller keeps the contract of `launch`, which is that of `launch_on`.
        unsafe { self.launch_on(&self.gpu) }
    }

    /// Replays the captured work on `gpu`'s stream (a clone or a fork, [`Gpu::fork_stream`],
    /// of the `Gpu` it was captured on).
    ///
    /// # Safety
    /// As [`Graph::launch`]; buffers written on another stream must be ordered before this
    /// launch by the caller (as with any work on a fork).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `gpu` is another device or context; [`Error::Driver`]
    /// when the driver refuses the launch.
    ///
    /// # Example
    /// ```no_run
    /// use sortlab_primitives::{DeviceBuffer, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let mut buf = DeviceBuffer::<u8>::zeroed(&gpu, 4)?;
    /// let graph = gpu.capture(|_| buf.fill_bytes(9))?;
    /// let side = gpu.fork_stream()?;
    /// gpu.synchronize()?;
    /// // SAFETY: `buf` is alive, and the work that zeroed it on `gpu` is done.
    /// unsafe { graph.launch_on(&side)? };
    /// side.synchronize()?;
    /// assert_eq!(buf.to_host()?, vec![9; 4]);
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub unsafe fn launch_on(&self, gpu: &Gpu) -> Result<()> {
        if !Arc::ptr_eq(&gpu.inner.device.ctx, &self.gpu.inner.device.ctx) {
            return Err(Error::InvalidArgument(
                "a graph launched on another device's or context's stream".into(),
            ));
        }
        gpu.bind()?;
        // SAFETY: `exec` is a valid executable graph of this context and the stream is alive;
        // the caller guarantees the buffers the graph uses.
        check("cuGraphLaunch", unsafe {
            sys::cuGraphLaunch(self.exec, gpu.cu_stream())
        })
    }

    /// The number of nodes captured (kernels, copies, memsets, allocations and frees).
    ///
    /// ```no_run
    /// use sortlab_primitives::{DeviceBuffer, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let mut buf = DeviceBuffer::<u8>::zeroed(&gpu, 4)?;
    /// assert_eq!(gpu.capture(|_| buf.fill_bytes(1))?.nodes(), 1);
    /// # Ok::<(), sortlab_primitives::Error>(())
    /// ```
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The `Gpu` whose stream the work was captured on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let _ = self.gpu.bind();
        // SAFETY: `exec` and `graph` came from a successful instantiation and capture and are
        // destroyed exactly once, here; an executable still running is freed by the driver
        // when it completes.
        unsafe {
            let _ = sys::cuGraphExecDestroy(self.exec);
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DeviceBuffer, KernelArgs, KernelSource, LaunchConfig};

    /// Without a device there is nothing to capture on: `Gpu::new` is the error, never a
    /// panic (with one, a capture of nothing is an empty graph).
    #[test]
    fn graph_needs_a_device() {
        match Gpu::new(0) {
            Err(e) => assert!(matches!(e, Error::NoDevice { .. }), "{e}"),
            Ok(gpu) => {
                let g = gpu.capture(|_| Ok(())).unwrap();
                assert_eq!(g.nodes(), 0);
            }
        }
    }

    static ADD_ONE: KernelSource = KernelSource::new(
        "graph_test.cu",
        r#"extern "C" __global__ void add_one(const unsigned* x, unsigned* y, unsigned long long n) {
            unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
            if (i < n) y[i] = x[i] + 1u;
        }"#,
    );

    /// A kernel, a device-to-device copy and a temporary buffer (allocated and freed inside)
    /// are captured once and replayed on changed input; nothing runs at capture time.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn graph_capture_replays_on_new_input() {
        let gpu = Gpu::new(0).unwrap();
        let n = 100_000usize;
        let module = gpu.module(&ADD_ONE, &crate::Defines::new()).unwrap();
        let kernel = module.kernel("add_one").unwrap();
        let mut x = DeviceBuffer::<u32>::zeroed(&gpu, n).unwrap();
        let mut y = DeviceBuffer::<u32>::zeroed(&gpu, n).unwrap();
        let cfg = LaunchConfig::linear(n.div_ceil(256) as u32, 256);
        let graph = gpu
            .capture(|g| {
                let mut tmp = DeviceBuffer::<u32>::alloc(g, n)?;
                let mut args = KernelArgs::new();
                args.ptr(x.ptr()).ptr(tmp.ptr()).push(n as u64);
                // SAFETY: add_one(const u32*, u32*, u64) reads x[0..n) and writes tmp[0..n).
                unsafe { kernel.launch(cfg, &args)? };
                y.copy_from_device(&tmp)?;
                tmp.fill_bytes(0)
            })
            .unwrap();
        assert!(graph.nodes() >= 4, "{graph:?}");
        assert_eq!(y.to_host().unwrap(), vec![0; n], "nothing ran at capture");
        for round in 1..=2u32 {
            let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(round * 7)).collect();
            x.copy_from_host(&input).unwrap();
            // SAFETY: x and y are alive; the temporary is the graph's own.
            unsafe { graph.launch().unwrap() };
            let want: Vec<u32> = input.iter().map(|v| v + 1).collect();
            assert_eq!(y.to_host().unwrap(), want, "round {round}");
        }
    }

    /// A download, a synchronisation, and buffers that cross the capture's edge are errors;
    /// the stream works normally afterwards.
    #[test]
    #[ignore = "needs a CUDA device"]
    fn graph_capture_refuses_host_round_trips_and_escaping_buffers() {
        let gpu = Gpu::new(0).unwrap();
        let mut buf = DeviceBuffer::from_host(&gpu, &[1u32, 2, 3]).unwrap();
        let capture_error = |e: &Error| matches!(e, Error::Driver { message, .. } if message.contains("STREAM_CAPTURE"));
        let e = gpu.capture(|_| buf.to_host().map(drop)).unwrap_err();
        assert!(capture_error(&e), "{e}");
        let e = gpu.capture(|g| g.synchronize()).unwrap_err();
        assert!(capture_error(&e), "{e}");
        let mut kept = None;
        let e = gpu
            .capture(|g| {
                kept = Some(DeviceBuffer::<u32>::alloc(g, 16)?);
                Ok(())
            })
            .unwrap_err();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        // Its address was the destroyed graph's: never freed.
        std::mem::forget(kept);
        let outside = DeviceBuffer::<u32>::alloc(&gpu, 16).unwrap();
        let e = gpu
            .capture(move |_| {
                drop(outside);
                Ok(())
            })
            .map(|g| g.nodes());
        // The driver refuses the free (its memory leaks); it must never become a free node.
        assert!(
            matches!(e, Err(Error::Unsupported(_) | Error::Driver { .. }) | Ok(0)),
            "{e:?}"
        );
        // A panic inside the closure ends the capture too.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = gpu.capture(|_| panic!("inside the capture"));
        }));
        assert!(caught.is_err());
        buf.fill_bytes(0).unwrap();
        gpu.synchronize().unwrap();
        assert_eq!(buf.to_host().unwrap(), vec![0; 3]);
    }
}
