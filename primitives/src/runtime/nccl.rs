//! NCCL, loaded at run time: the library, unique ids, and one rank's [`Communicator`] with the
//! collectives the multi-GPU sort uses.
//!
//! # Overview
//! NCCL is the transport for everything that crosses between GPUs (DESIGN.md §2). It is opened
//! with `dlopen` the first time it is needed, trying in turn:
//! 1. the path in the environment variable `SORTLAB_NCCL_LIBRARY`, when it is set;
//! 2. `libnccl.so.2`, the soname of NVIDIA's PyPI wheels (`nvidia-nccl-cu12` / `-cu13`:
//!    `site-packages/nvidia/nccl/lib/libnccl.so.2`, found through `LD_LIBRARY_PATH`) and of the
//!    distributions' runtime packages;
//! 3. `libnccl.so`, the development symlink;
//! 4. `nvidia/nccl/lib/libnccl.so.2` of a wheel in the usual Python prefixes (`$VIRTUAL_ENV`,
//!    `$CONDA_PREFIX`, `~/.local`, `/usr/local`, `/usr`: `lib*/python3*/{site,dist}-packages`),
//!    as PyTorch's pip installation brings. Elsewhere, point `SORTLAB_NCCL_LIBRARY` at it:
//!    `python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0],
//!    "lib", "libnccl.so.2"))'`.
//!
//! Only the symbols sortlab calls are resolved (`ncclGetVersion`, `ncclGetUniqueId`,
//! `ncclCommInitRank`, `ncclCommInitAll`, `ncclCommDestroy`, `ncclCommAbort`, `ncclGroupStart`,
//! `ncclGroupEnd`, `ncclSend`, `ncclRecv`, `ncclAllGather`, `ncclAllReduce`,
//! `ncclGetErrorString`), against the NCCL 2.x C API: `ncclUniqueId` is 128 bytes passed by
//! value, `ncclComm_t` a pointer, `ncclDataType_t`, `ncclRedOp_t` and `ncclResult_t` C enums
//! (`int`).
//!
//! **Why not cudarc's `nccl` feature** (which DESIGN.md §2 names): cudarc 0.19's loader looks
//! for `libnccl.so`, `libnccl.so.13`/`.12`/`.11`/`.1` but not `libnccl.so.2`, the one name the
//! wheels and runtime packages install, and it panics when no candidate loads. Here a missing
//! library is [`Error::NcclUnavailable`], which one-GPU callers never see: nothing is loaded
//! until a multi-GPU path asks for it.
//!
//! NVLink multicast (NVLS) stays off: just before NCCL is first loaded, when
//! `NCCL_NVLS_ENABLE` is not set, it is set to `0`; sortlab never calls `cuMulticastCreate`.
//! Setting a variable races with threads that read the environment at the same moment, so the
//! loader sets it before its first NCCL call, from the thread that first asks for NCCL; a
//! program that reads the environment from other threads while it first opens a
//! [`crate::runtime::GpuGroup`] or [`NcclUniqueId`] should set `NCCL_NVLS_ENABLE` itself
//! (any value it sets is kept).
//!
//! # Key types
//! [`NcclUniqueId`] (128 bytes; text form: 256 lowercase hex digits, to pass between processes),
//! [`Communicator`] (one rank of a clique: its [`Gpu`], rank and rank count). Collectives move
//! any [`DeviceCopy`] type as raw words of its size (the keys of every `SortKey` move as their
//! bits); [`Communicator::all_reduce_sum`] needs a typed [`NcclElement`].
//!
//! # Errors
//! [`Error::NcclUnavailable`] when the library (or one of its symbols) cannot be loaded;
//! [`Error::Nccl`] when an NCCL call fails (with NCCL's error string); [`Error::InvalidArgument`]
//! for ranks, lengths or ranges that do not fit, checked before anything is enqueued.
//!
//! # Performance
//! Every collective is enqueued on the [`Gpu`]'s one stream and returns at once; a download or
//! [`Gpu::synchronize`] waits for it. The all-to-all is one `ncclGroupStart`/`ncclGroupEnd`
//! around a send and a receive per peer, so NCCL runs all of them concurrently.
//!
//! # Example
//! ```no_run
//! use sortlab_primitives::runtime::{nccl_available, Communicator, NcclUniqueId};
//! use sortlab_primitives::Gpu;
//! if nccl_available() {
//!     // Rank 0 makes the id and hands its text to the other processes.
//!     let id = NcclUniqueId::new()?;
//!     let text = id.to_string();
//!     let id: NcclUniqueId = text.parse()?;
//!     let comm = Communicator::from_unique_id(&Gpu::new(0)?, &id, 0, 1)?;
//!     assert_eq!((comm.rank(), comm.ranks()), (0, 1));
//! }
//! # Ok::<(), sortlab_primitives::Error>(())
//! ```

use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use cudarc::driver::result as cu;

use super::buffer::DeviceBuffer;
use super::gpu::Gpu;
use crate::error::{Error, Result};
use crate::key::DeviceCopy;

/// `NCCL_UNIQUE_ID_BYTES`.
const ID_BYTES: usize = 128;

/// `ncclUniqueId`: `struct { char internal[128]; }`, passed by value to `ncclCommInitRank`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RawId {
    internal: [u8; ID_BYTES],
}

/// `ncclComm_t`.
type RawComm = *mut c_void;
/// `ncclResult_t`, `ncclDataType_t`, `ncclRedOp_t`: C enums.
type NcclResult = c_int;

// ncclDataType_t values (nccl.h, 2.x).
const NCCL_INT8: c_int = 0;
const NCCL_UINT8: c_int = 1;
const NCCL_INT32: c_int = 2;
const NCCL_UINT32: c_int = 3;
const NCCL_INT64: c_int = 4;
const NCCL_UINT64: c_int = 5;
const NCCL_FLOAT32: c_int = 7;
const NCCL_FLOAT64: c_int = 8;
/// ncclRedOp_t `ncclSum`.
const NCCL_SUM: c_int = 0;

type Stream = cudarc::driver::sys::CUstream;

/// The resolved symbols, and the library that keeps them valid.
struct Api {
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_unique_id: unsafe extern "C" fn(*mut RawId) -> NcclResult,
    comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, RawId, c_int) -> NcclResult,
    comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(RawComm) -> NcclResult,
    comm_abort: unsafe extern "C" fn(RawComm) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
    send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, Stream) -> NcclResult,
    recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, Stream) -> NcclResult,
    all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        RawComm,
        Stream,
    ) -> NcclResult,
    all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        Stream,
    ) -> NcclResult,
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    _lib: libloading::Library,
}

static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();

/// The library names tried, in order.
fn candidates() -> Vec<std::ffi::OsString> {
    let mut names = Vec::new();
    if let Some(path) = std::env::var_os("SORTLAB_NCCL_LIBRARY") {
        if !path.is_empty() {
            names.push(path);
        }
    }
    names.push("libnccl.so.2".into());
    names.push("libnccl.so".into());
    names.extend(
        wheel_libraries(&python_prefixes())
            .into_iter()
            .map(Into::into),
    );
    names
}

/// The usual Python prefixes: `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `~/.local`, `/usr/local`, `/usr`.
fn python_prefixes() -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut prefixes: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .collect();
    if let Some(home) = std::env::var_os("HOME") {
        prefixes.push(PathBuf::from(home).join(".local"));
    }
    prefixes.push("/usr/local".into());
    prefixes.push("/usr".into());
    prefixes
}

/// `nvidia/nccl/lib/libnccl.so.2` of an installed `nvidia-nccl-cu12`/`-cu13` wheel (PyTorch's
/// dependency) under `prefixes`: `lib*/python3*/{site,dist}-packages`.
fn wheel_libraries(prefixes: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut found = Vec::new();
    for prefix in prefixes {
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else {
                continue;
            };
            let mut pythons: Vec<PathBuf> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
                .map(|e| e.path())
                .collect();
            pythons.sort();
            for py in pythons {
                for packages in ["site-packages", "dist-packages"] {
                    let candidate = py.join(packages).join("nvidia/nccl/lib/libnccl.so.2");
                    if candidate.is_file() && !found.contains(&candidate) {
                        found.push(candidate);
                    }
                }
            }
        }
    }
    found
}

fn load() -> std::result::Result<Api, String> {
    let mut tried = Vec::new();
    let mut lib = None;
    for name in candidates() {
        // SAFETY: loading NCCL runs its initialisers, which only set up NCCL's own state.
        match unsafe { libloading::Library::new(&name) } {
            Ok(l) => {
                lib = Some(l);
                break;
            }
            Err(e) => tried.push(format!("{}: {e}", name.to_string_lossy())),
        }
    }
    let Some(lib) = lib else {
        return Err(format!(
            "no NCCL library could be loaded (set SORTLAB_NCCL_LIBRARY to libnccl.so.2's path, \
             or put the directory of an nvidia-nccl-cu12 wheel's nvidia/nccl/lib on \
             LD_LIBRARY_PATH); tried {}",
            tried.join("; ")
        ));
    };
    let api = Api {
        get_version: sym(&lib, "ncclGetVersion")?,
        get_unique_id: sym(&lib, "ncclGetUniqueId")?,
        comm_init_rank: sym(&lib, "ncclCommInitRank")?,
        comm_init_all: sym(&lib, "ncclCommInitAll")?,
        comm_destroy: sym(&lib, "ncclCommDestroy")?,
        comm_abort: sym(&lib, "ncclCommAbort")?,
        group_start: sym(&lib, "ncclGroupStart")?,
        group_end: sym(&lib, "ncclGroupEnd")?,
        send: sym(&lib, "ncclSend")?,
        recv: sym(&lib, "ncclRecv")?,
        all_gather: sym(&lib, "ncclAllGather")?,
        all_reduce: sym(&lib, "ncclAllReduce")?,
        get_error_string: sym(&lib, "ncclGetErrorString")?,
        _lib: lib,
    };
    Ok(api)
}

/// The symbol `name` of `lib`, as a function pointer of type `T`.
fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> std::result::Result<T, String> {
    // SAFETY: every caller names an NCCL 2.x symbol and asks for its C signature (the type of
    // the Api field it goes to); the pointer stays valid while the library lives, and the Api
    // that holds both lives in a static for the rest of the process.
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| format!("the NCCL library lacks {name}: {e}"))
}

/// The loaded library, or [`Error::NcclUnavailable`]. The first call turns NVLink multicast
/// off (module docs) and loads NCCL; later calls return the same result.
fn api() -> Result<&'static Api> {
    API.get_or_init(|| {
        if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
            // NCCL reads its environment when it initialises, at its first call, which comes
            // after this (every NCCL call goes through `api()`). Runs once, before any NCCL
            // thread exists; see the module docs on other threads reading the environment.
            std::env::set_var("NCCL_NVLS_ENABLE", "0");
        }
        load()
    })
    .as_ref()
    .map_err(|reason| Error::NcclUnavailable {
        reason: reason.clone(),
    })
}

/// Turns an NCCL result into `Ok` or [`Error::Nccl`] naming `call`.
fn check(api: &Api, call: &'static str, r: NcclResult) -> Result<()> {
    if r == 0 {
        return Ok(());
    }
    // SAFETY: ncclGetErrorString returns a static NUL-terminated string for any result code.
    let text = unsafe { (api.get_error_string)(r) };
    let message = if text.is_null() {
        format!("NCCL result {r}")
    } else {
        // SAFETY: non-null, NUL-terminated, static (above).
        let s = unsafe { CStr::from_ptr(text) }.to_string_lossy();
        format!("{s} (NCCL result {r})")
    };
    Err(Error::Nccl { call, message })
}

/// Whether the NCCL library can be loaded (loads it on the first call; see the module docs).
pub fn nccl_available() -> bool {
    api().is_ok()
}

/// The loaded NCCL's version `(major, minor, patch)`.
///
/// # Errors
/// [`Error::NcclUnavailable`] without the library; [`Error::Nccl`] if the call fails.
pub fn nccl_version() -> Result<(u32, u32, u32)> {
    let api = api()?;
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid int for the call to write.
    check(api, "ncclGetVersion", unsafe { (api.get_version)(&mut v) })?;
    Ok(decode_version(v.max(0) as u32))
}

/// NCCL_VERSION_CODE: `major * 10000 + minor * 100 + patch` since 2.9, `major * 1000 +
/// minor * 100 + patch` before.
fn decode_version(v: u32) -> (u32, u32, u32) {
    if v >= 10_000 {
        (v / 10_000, (v % 10_000) / 100, v % 100)
    } else {
        (v / 1000, (v % 1000) / 100, v % 100)
    }
}

/// An NCCL unique id: made once (by one rank, [`NcclUniqueId::new`]) and handed to every rank
/// of the clique, which passes it to [`Communicator::from_unique_id`].
///
/// Its text form ([`fmt::Display`] / [`FromStr`]) is 256 lowercase hex digits, for passing it
/// to other processes (an environment variable, a file, a command line).
///
/// ```
/// use sortlab_primitives::runtime::NcclUniqueId;
/// let id = NcclUniqueId::from_bytes([7; 128]);
/// let text = id.to_string();
/// assert_eq!(text.len(), 256);
/// assert_eq!(text.parse::<NcclUniqueId>()?, id);
/// # Ok::<(), sortlab_primitives::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NcclUniqueId(pub [u8; ID_BYTES]);

impl NcclUniqueId {
    /// A fresh id from `ncclGetUniqueId`. That also starts NCCL's bootstrap root in this
    /// process, which the ranks contact when they join: the process that makes the id must
    /// live until every rank has joined (it need not be a rank itself).
    ///
    /// # Errors
    /// [`Error::NcclUnavailable`] without the library; [`Error::Nccl`] if NCCL fails (no
    /// usable network interface for its bootstrap, for one).
    pub fn new() -> Result<Self> {
        let api = api()?;
        let mut raw = RawId {
            internal: [0; ID_BYTES],
        };
        // SAFETY: `raw` is a valid ncclUniqueId for the call to write.
        check(api, "ncclGetUniqueId", unsafe {
            (api.get_unique_id)(&mut raw)
        })?;
        Ok(NcclUniqueId(raw.internal))
    }

    /// The id with these bytes.
    pub fn from_bytes(bytes: [u8; ID_BYTES]) -> Self {
        NcclUniqueId(bytes)
    }

    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8; ID_BYTES] {
        &self.0
    }
}

impl fmt::Display for NcclUniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NcclUniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NcclUniqueId({self})")
    }
}

impl FromStr for NcclUniqueId {
    type Err = Error;
    /// Parses 256 hex digits (either case, surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        let bad = || {
            Error::InvalidArgument(format!(
                "an NCCL unique id is {} hex digits; got {} characters",
                2 * ID_BYTES,
                s.len()
            ))
        };
        if s.len() != 2 * ID_BYTES || !s.is_ascii() {
            return Err(bad());
        }
        let mut out = [0u8; ID_BYTES];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(NcclUniqueId(out))
    }
}

/// Element types NCCL reduces: the typed half of the collectives
/// ([`Communicator::all_reduce_sum`]). Moves (all-gather, all-to-all) take any [`DeviceCopy`].
pub trait NcclElement: DeviceCopy {
    /// The `ncclDataType_t` of the type.
    #[doc(hidden)]
    const DATATYPE: i32;
}

macro_rules! nccl_element {
    ($($t:ty => $d:expr),*) => { $( impl NcclElement for $t { const DATATYPE: i32 = $d; } )* };
}
nccl_element!(i8 => NCCL_INT8, u8 => NCCL_UINT8, i32 => NCCL_INT32, u32 => NCCL_UINT32,
              i64 => NCCL_INT64, u64 => NCCL_UINT64, f32 => NCCL_FLOAT32, f64 => NCCL_FLOAT64);

/// How `count` elements of `T` move as raw words: (NCCL count, NCCL datatype).
fn raw_words<T: DeviceCopy>(count: usize) -> (usize, c_int) {
    match std::mem::size_of::<T>() {
        4 => (count, NCCL_UINT32),
        8 => (count, NCCL_UINT64),
        size => (count * size, NCCL_UINT8),
    }
}

/// One rank of an NCCL clique: its [`Gpu`], its rank and the number of ranks.
///
/// # Overview
/// Made from a unique id ([`Communicator::from_unique_id`], one per process or thread), by
/// [`crate::runtime::GpuGroup`] (every GPU of one process), or alone
/// ([`Communicator::single`], one rank, no NCCL needed). Its collectives run on the `Gpu`'s
/// stream. `Send + Sync`; the NCCL handle sits behind a mutex, so calls from several threads
/// are serialised, but every rank must still issue the same collectives in the same order,
/// and in one process the ranks must run on separate threads (each blocks in NCCL until its
/// peers join). Dropping it destroys the NCCL communicator (after its stream is idle).
///
/// # Errors
/// Each collective checks lengths and ranges ([`Error::InvalidArgument`]) and that the buffers
/// live on this rank's GPU before it enqueues anything; NCCL failures are [`Error::Nccl`].
/// What NCCL cannot see locally, it cannot check: a receive count that differs from the
/// peer's send count is undefined (a hang or garbage), so callers exchange counts first.
///
/// Dropping a communicator calls `ncclCommDestroy`, which recent NCCL versions make wait for
/// the clique's other ranks: drop the ranks of one process concurrently (as
/// [`crate::runtime::GpuGroup`] does), or leave with [`Communicator::abort`].
pub struct Communicator {
    gpu: Gpu,
    rank: usize,
    ranks: usize,
    /// `None` for a one-rank communicator that needs no NCCL.
    comm: Option<Mutex<CommHandle>>,
}

/// An `ncclComm_t`, used by one thread at a time (the mutex around it).
struct CommHandle(RawComm);

// SAFETY: an NCCL communicator may be used from any thread, one thread at a time; the Mutex
// around every CommHandle gives that.
unsafe impl Send for CommHandle {}

impl fmt::Debug for Communicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Communicator")
            .field("device", &self.gpu.info().ordinal)
            .field("rank", &self.rank)
            .field("ranks", &self.ranks)
            .field("nccl", &self.comm.is_some())
            .finish()
    }
}

impl Communicator {
    /// Joins the clique of `id` as `rank` of `ranks`, on `gpu`. Blocks until every rank has
    /// joined (so in one process, call it for each rank from its own thread, or use
    /// [`crate::runtime::GpuGroup`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `rank >= ranks` or more ranks than an `int` holds;
    /// [`Error::NcclUnavailable`]; [`Error::Nccl`] when `ncclCommInitRank` fails.
    pub fn from_unique_id(gpu: &Gpu, id: &NcclUniqueId, rank: usize, ranks: usize) -> Result<Self> {
        if rank >= ranks || ranks > c_int::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "rank {rank} of {ranks} ranks: the rank must be below the rank count"
            )));
        }
        let api = api()?;
        gpu.bind()?;
        let mut comm: RawComm = std::ptr::null_mut();
        // SAFETY: `comm` is a valid out pointer; the id is passed by value as the C API takes
        // it; the Gpu's (primary) context is current, so NCCL picks this device.
        check(api, "ncclCommInitRank", unsafe {
            (api.comm_init_rank)(
                &mut comm,
                ranks as c_int,
                RawId { internal: id.0 },
                rank as c_int,
            )
        })?;
        Ok(Communicator {
            gpu: gpu.clone(),
            rank,
            ranks,
            comm: Some(Mutex::new(CommHandle(comm))),
        })
    }

    /// A clique of one rank on `gpu`: its collectives are device copies, and NCCL is never
    /// loaded.
    pub fn single(gpu: &Gpu) -> Self {
        Communicator {
            gpu: gpu.clone(),
            rank: 0,
            ranks: 1,
            comm: None,
        }
    }

    /// Communicators of every device in `gpus`, ranks in that order, from one
    /// `ncclCommInitAll` (all or nothing: no rank is left waiting for a peer that failed).
    pub(crate) fn init_all(gpus: &[Gpu]) -> Result<Vec<Self>> {
        let api = api()?;
        let devices: Vec<c_int> = gpus.iter().map(|g| g.info().ordinal as c_int).collect();
        let mut comms: Vec<RawComm> = vec![std::ptr::null_mut(); gpus.len()];
        if let Some(g) = gpus.first() {
            g.bind()?;
        }
        // SAFETY: `comms` has room for one handle per device of `devices`, which has
        // gpus.len() entries. NCCL binds each device's primary context, the one every Gpu
        // uses.
        check(api, "ncclCommInitAll", unsafe {
            (api.comm_init_all)(comms.as_mut_ptr(), devices.len() as c_int, devices.as_ptr())
        })?;
        Ok(gpus
            .iter()
            .zip(comms)
            .enumerate()
            .map(|(rank, (gpu, comm))| Communicator {
                gpu: gpu.clone(),
                rank,
                ranks: gpus.len(),
                comm: Some(Mutex::new(CommHandle(comm))),
            })
            .collect())
    }

    /// This rank (0-based).
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The number of ranks in the clique.
    pub fn ranks(&self) -> usize {
        self.ranks
    }
    /// This rank's GPU: the collectives run on its stream.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Waits for every collective (and everything else) queued on this rank's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize()
    }

    fn check_gpu<T: DeviceCopy>(&self, b: &DeviceBuffer<T>, what: &str) -> Result<()> {
        let (mine, theirs) = (self.gpu.info().ordinal, b.gpu().info().ordinal);
        if mine != theirs {
            return Err(Error::InvalidArgument(format!(
                "{what} lives on device {theirs}, the communicator's rank on device {mine}"
            )));
        }
        Ok(())
    }

    /// Runs `f` with the NCCL handle and the API, the context bound.
    fn with_comm<R>(&self, f: impl FnOnce(&Api, RawComm, Stream) -> Result<R>) -> Result<R> {
        let (Some(comm), Ok(api)) = (&self.comm, api()) else {
            return Err(Error::Internal(
                "an NCCL call on a communicator without NCCL".into(),
            ));
        };
        let guard = comm.lock().unwrap_or_else(|p| p.into_inner());
        self.gpu.bind()?;
        f(api, guard.0, self.gpu.cu_stream())
    }

    /// Copies `count` elements from `src` to `dst` on the device (byte addresses).
    fn copy_on_device<T: DeviceCopy>(&self, dst: u64, src: u64, count: usize) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: callers checked both ranges of `count` elements against their buffers;
        // ordered on the stream.
        unsafe {
            cu::memcpy_dtod_async(
                dst,
                src,
                count * std::mem::size_of::<T>(),
                self.gpu.cu_stream(),
            )
        }
        .map_err(|e| Error::driver("cuMemcpyDtoDAsync", e))
    }

    /// Every rank's `send` (the same length on every rank), concatenated in rank order into
    /// `recv` (`send.len() * ranks()` elements) on every rank. Elements move as raw words.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `recv` of another length or a buffer on another
    /// device; [`Error::Nccl`].
    pub fn all_gather<T: DeviceCopy>(
        &self,
        send: &DeviceBuffer<T>,
        recv: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.check_gpu(send, "the all-gather's send buffer")?;
        self.check_gpu(recv, "the all-gather's receive buffer")?;
        if recv.len() != send.len() * self.ranks {
            return Err(Error::InvalidArgument(format!(
                "all-gather of {} elements from each of {} ranks into {}",
                send.len(),
                self.ranks,
                recv.len()
            )));
        }
        if self.comm.is_none() {
            return self.copy_on_device::<T>(recv.ptr().addr(), send.ptr().addr(), send.len());
        }
        if send.is_empty() {
            return Ok(());
        }
        let (count, dtype) = raw_words::<T>(send.len());
        self.with_comm(|api, comm, stream| {
            // SAFETY: send holds `count` words of `dtype`, recv `ranks` times as many (checked);
            // both on this rank's device; the stream is this rank's, its context current.
            check(api, "ncclAllGather", unsafe {
                (api.all_gather)(
                    send.ptr().addr() as *const c_void,
                    recv.ptr().addr() as *mut c_void,
                    count,
                    dtype,
                    comm,
                    stream,
                )
            })
        })
    }

    /// Replaces `buf` on every rank with the element-wise sum of every rank's `buf` (the same
    /// length on every rank).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a buffer on another device; [`Error::Nccl`].
    pub fn all_reduce_sum<T: NcclElement>(&self, buf: &mut DeviceBuffer<T>) -> Result<()> {
        self.check_gpu(buf, "the all-reduce's buffer")?;
        if self.comm.is_none() || buf.is_empty() {
            return Ok(());
        }
        self.with_comm(|api, comm, stream| {
            let p = buf.ptr().addr() as *mut c_void;
            // SAFETY: in place (NCCL allows send == recv) over the buffer's len elements of
            // T's datatype, on this rank's device and stream.
            check(api, "ncclAllReduce", unsafe {
                (api.all_reduce)(p, p, buf.len(), T::DATATYPE, NCCL_SUM, comm, stream)
            })
        })
    }

    /// All-to-all with a count per peer: elements `send_offsets[j] .. + send_counts[j]` of
    /// `send` go to rank `j`, which receives them at `recv_offsets[me] .. + recv_counts[me]` of
    /// its `recv`. One `ncclGroupStart`/`ncclGroupEnd` around a send and a receive per peer
    /// with a non-zero count (this rank's own part included: NCCL copies it). `recv_counts[j]`
    /// must equal rank `j`'s `send_counts[me]` (exchange the counts first).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a slice is not `ranks()` long, a range leaves its
    /// buffer, or a buffer lives on another device; [`Error::Nccl`].
    #[allow(clippy::too_many_arguments)]
    pub fn all_to_all_v<T: DeviceCopy>(
        &self,
        send: &DeviceBuffer<T>,
        send_counts: &[usize],
        send_offsets: &[usize],
        recv: &mut DeviceBuffer<T>,
        recv_counts: &[usize],
        recv_offsets: &[usize],
    ) -> Result<()> {
        self.check_gpu(send, "the all-to-all's send buffer")?;
        self.check_gpu(recv, "the all-to-all's receive buffer")?;
        let fits = |counts: &[usize], offsets: &[usize], len: usize, what: &str| {
            if counts.len() != self.ranks || offsets.len() != self.ranks {
                return Err(Error::InvalidArgument(format!(
                    "all-to-all {what} counts and offsets: {} and {} entries for {} ranks",
                    counts.len(),
                    offsets.len(),
                    self.ranks
                )));
            }
            for (j, (&c, &o)) in counts.iter().zip(offsets).enumerate() {
                if o.checked_add(c).is_none_or(|e| e > len) {
                    return Err(Error::InvalidArgument(format!(
                        "all-to-all {what} range {o}..{o}+{c} for rank {j} leaves a buffer of {len}"
                    )));
                }
            }
            Ok(())
        };
        fits(send_counts, send_offsets, send.len(), "send")?;
        fits(recv_counts, recv_offsets, recv.len(), "receive")?;
        let size = std::mem::size_of::<T>() as u64;
        let (s0, r0) = (send.ptr().addr(), recv.ptr().addr());
        if self.comm.is_none() {
            if send_counts[0] != recv_counts[0] {
                return Err(Error::InvalidArgument(format!(
                    "one-rank all-to-all sends {} elements and receives {}",
                    send_counts[0], recv_counts[0]
                )));
            }
            return self.copy_on_device::<T>(
                r0 + recv_offsets[0] as u64 * size,
                s0 + send_offsets[0] as u64 * size,
                send_counts[0],
            );
        }
        self.with_comm(|api, comm, stream| {
            // SAFETY: ncclGroupStart takes no arguments.
            check(api, "ncclGroupStart", unsafe { (api.group_start)() })?;
            let mut first_err = Ok(());
            for peer in 0..self.ranks {
                let (count, dtype) = raw_words::<T>(send_counts[peer]);
                if count > 0 && first_err.is_ok() {
                    let p = s0 + send_offsets[peer] as u64 * size;
                    // SAFETY: the range was checked against `send`; this rank's stream.
                    first_err = check(api, "ncclSend", unsafe {
                        (api.send)(
                            p as *const c_void,
                            count,
                            dtype,
                            peer as c_int,
                            comm,
                            stream,
                        )
                    });
                }
                let (count, dtype) = raw_words::<T>(recv_counts[peer]);
                if count > 0 && first_err.is_ok() {
                    let p = r0 + recv_offsets[peer] as u64 * size;
                    // SAFETY: the range was checked against `recv`; this rank's stream.
                    first_err = check(api, "ncclRecv", unsafe {
                        (api.recv)(p as *mut c_void, count, dtype, peer as c_int, comm, stream)
                    });
                }
            }
            // Always close the group, even after a failed enqueue.
            // SAFETY: ncclGroupEnd takes no arguments; it matches the start above.
            let end = check(api, "ncclGroupEnd", unsafe { (api.group_end)() });
            first_err.and(end)
        })
    }

    /// Aborts the NCCL communicator (`ncclCommAbort`): for a rank that must leave while its
    /// peers may still wait on it. Dropping a communicator destroys it in order instead.
    pub fn abort(mut self) -> Result<()> {
        let Some(comm) = self.comm.take() else {
            return Ok(());
        };
        let handle = comm.into_inner().unwrap_or_else(|p| p.into_inner());
        let api = api()?;
        self.gpu.bind()?;
        // SAFETY: the handle came from ncclCommInitRank/All and is released exactly once.
        check(api, "ncclCommAbort", unsafe { (api.comm_abort)(handle.0) })
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        let Some(comm) = self.comm.take() else {
            return;
        };
        let handle = comm.into_inner().unwrap_or_else(|p| p.into_inner());
        let Ok(api) = api() else { return };
        // Collectives still queued use the communicator: let them finish first.
        let _ = self.gpu.synchronize();
        if self.gpu.bind().is_ok() {
            // SAFETY: the handle came from ncclCommInitRank/All and is released exactly once.
            let _ = unsafe { (api.comm_destroy)(handle.0) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_id_hex_round_trip() {
        let mut bytes = [0u8; ID_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 37 + 11) as u8;
        }
        let id = NcclUniqueId::from_bytes(bytes);
        let text = id.to_string();
        assert_eq!(text.len(), 256);
        assert!(text.starts_with("0b30"), "{text}");
        assert_eq!(text.parse::<NcclUniqueId>().unwrap(), id);
        assert_eq!(
            format!("  {}\n", text.to_uppercase())
                .parse::<NcclUniqueId>()
                .unwrap(),
            id
        );
        for bad in ["", "00", &text[1..], &format!("{}zz", &text[2..])] {
            assert!(
                matches!(bad.parse::<NcclUniqueId>(), Err(Error::InvalidArgument(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn wheels_are_found_under_python_prefixes() {
        let root = std::env::temp_dir().join(format!("sortlab-nccl-wheel-{}", std::process::id()));
        let lib = root.join("lib/python3.12/site-packages/nvidia/nccl/lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join("libnccl.so.2"), b"").unwrap();
        let found = wheel_libraries(&[root.join("missing"), root.clone()]);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(found, vec![lib.join("libnccl.so.2")]);
    }

    #[test]
    fn versions_decode() {
        assert_eq!(decode_version(22_705), (2, 27, 5));
        assert_eq!(decode_version(2_804), (2, 8, 4));
    }

    #[test]
    fn missing_nccl_is_an_error_not_a_panic() {
        // With NCCL installed this loads it; without, every entry point is NcclUnavailable.
        match nccl_version() {
            Ok((major, _, _)) => assert!(major >= 2),
            Err(e) => {
                assert!(matches!(e, Error::NcclUnavailable { .. }), "{e}");
                assert!(!nccl_available());
                assert!(matches!(
                    NcclUniqueId::new(),
                    Err(Error::NcclUnavailable { .. })
                ));
            }
        }
    }
}
