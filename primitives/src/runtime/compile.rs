//! NVRTC compilation of sortlab's CUDA C sources, with named include headers and `-D` defines.

use std::ffi::{c_char, CStr, CString};
use std::fmt;

use cudarc::nvrtc::sys;

use crate::error::{Error, Result};
use crate::kernels::HEADERS;
use crate::key::{KeyBits, SortKey, SortValue};

/// A CUDA C source file compiled at run time: its file name (for logs) and its text.
///
/// Sources are `include_str!`-ed next to the Rust module that launches them:
/// ```
/// use sortlab_primitives::KernelSource;
/// const KEYS: KernelSource = KernelSource::new("keys.cu", "extern \"C\" __global__ void k() {}");
/// assert_eq!(KEYS.name, "keys.cu");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelSource {
    /// File name, shown in compiler errors.
    pub name: &'static str,
    /// CUDA C text.
    pub code: &'static str,
}

impl KernelSource {
    /// A named source.
    pub const fn new(name: &'static str, code: &'static str) -> Self {
        KernelSource { name, code }
    }
}

/// Preprocessor defines handed to NVRTC as `-DNAME=VALUE`, in insertion order.
///
/// Policy structs (threads per block, items per thread, key type...) turn into defines, so no
/// tuning constant is hard-wired in a `.cu` file:
/// ```
/// use sortlab_primitives::Defines;
/// let d = Defines::new().set("BLOCK_THREADS", 256).set("KEY_T", "float");
/// assert_eq!(d.to_options(), vec!["-DBLOCK_THREADS=256", "-DKEY_T=float"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Defines(Vec<(String, String)>);

impl Defines {
    /// No defines.
    pub fn new() -> Self {
        Defines(Vec::new())
    }
    /// Adds (or replaces) `name=value`.
    pub fn set(mut self, name: &str, value: impl fmt::Display) -> Self {
        let value = value.to_string();
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name.to_string(), value)),
        }
        self
    }
    /// The key type of a kernel, in the vocabulary every `.cu` file shares: `KEY_T` (the key's
    /// CUDA type) and `KEY_BITS_T` (the unsigned word of its ordered bits).
    ///
    /// ```
    /// use sortlab_primitives::Defines;
    /// let d = Defines::new().key::<f32>().no_values();
    /// assert_eq!(
    ///     d.to_options(),
    ///     ["-DKEY_T=float", "-DKEY_BITS_T=unsigned int", "-DHAS_VALUES=0"]
    /// );
    /// ```
    pub fn key<K: SortKey>(self) -> Self {
        self.set("KEY_T", K::CUDA_TYPE)
            .set("KEY_BITS_T", <K::Bits as KeyBits>::CUDA_TYPE)
    }
    /// Values of type `V` follow the keys: `HAS_VALUES=1` and `VALUE_T` (a word of the value's
    /// size: values move as raw bits).
    pub fn values<V: SortValue>(self) -> Self {
        self.set("HAS_VALUES", 1).set("VALUE_T", V::CUDA_TYPE)
    }
    /// Keys alone: `HAS_VALUES=0`.
    pub fn no_values(self) -> Self {
        self.set("HAS_VALUES", 0)
    }
    /// [`Defines::values`] for `Some(value size in bytes)` (4 or 8), [`Defines::no_values`]
    /// for `None`: for callers that know the value width at run time.
    pub fn value_size(self, size: Option<usize>) -> Self {
        match size {
            Some(8) => self.values::<u64>(),
            Some(_) => self.values::<u32>(),
            None => self.no_values(),
        }
    }
    /// Adds every define of `other` (later ones win).
    pub fn extend(mut self, other: &Defines) -> Self {
        for (n, v) in &other.0 {
            self = self.set(n, v);
        }
        self
    }
    /// The `-D` options, in order.
    pub fn to_options(&self) -> Vec<String> {
        self.0.iter().map(|(n, v)| format!("-D{n}={v}")).collect()
    }
    /// The `(name, value)` pairs.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

/// A tuning policy that turns into kernel defines (DESIGN.md §2).
pub trait Policy {
    /// The defines this policy hands to its kernels.
    fn defines(&self) -> Defines;
}

/// The result of compiling a source for one architecture.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The device binary (CUBIN) for the requested architecture.
    pub cubin: Vec<u8>,
    /// The compiler log; empty when NVRTC had nothing to say (no warnings).
    pub log: String,
}

/// Whether the NVRTC library can be loaded in this process.
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the candidate names; no symbol is called.
    unsafe { sys::is_culib_present() }
}

fn ensure_nvrtc() -> Result<()> {
    if nvrtc_available() {
        Ok(())
    } else {
        Err(Error::NvrtcUnavailable {
            reason: "libnvrtc could not be loaded (install the CUDA toolkit's NVRTC or the PyPI \
                     wheel nvidia-cuda-nvrtc and put its lib folder on LD_LIBRARY_PATH)"
                .into(),
        })
    }
}

/// The NVRTC version as `(major, minor)`.
pub fn nvrtc_version() -> Result<(u32, u32)> {
    ensure_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loaded (checked above); both pointers are valid for writes.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    check(r, "nvrtcVersion")?;
    Ok((major as u32, minor as u32))
}

fn nvrtc_message(r: sys::nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any result code.
    unsafe {
        let p = sys::nvrtcGetErrorString(r);
        if p.is_null() {
            format!("{r:?}")
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

fn check(r: sys::nvrtcResult, op: &str) -> Result<()> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Compile {
            file: op.to_string(),
            log: nvrtc_message(r),
        })
    }
}

fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::InvalidArgument(format!("{what} contains a NUL byte")))
}

/// Owns an `nvrtcProgram` and destroys it on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe {
            sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

/// Compiles `src` with `defines` for the architecture `arch` (`"sm_90"`), with every header of
/// [`crate::kernels::HEADERS`] available under its include name, `-lineinfo` and C++17.
///
/// Needs NVRTC but no GPU. On a compile error the error carries the file name and the log.
pub fn compile(src: &KernelSource, defines: &Defines, arch: &str) -> Result<Compiled> {
    ensure_nvrtc()?;
    let code = cstring(src.code, src.name)?;
    let name = cstring(src.name, "file name")?;
    let header_codes = HEADERS
        .iter()
        .map(|(n, c)| cstring(c, n))
        .collect::<Result<Vec<_>>>()?;
    let header_names = HEADERS
        .iter()
        .map(|(n, _)| cstring(n, "header name"))
        .collect::<Result<Vec<_>>>()?;
    let code_ptrs: Vec<*const c_char> = header_codes.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<*const c_char> = header_names.iter().map(|c| c.as_ptr()).collect();

    let mut prog = Program(std::ptr::null_mut());
    // SAFETY: every pointer refers to a live NUL-terminated string owned above, and the two
    // header arrays have the same length.
    let r = unsafe {
        sys::nvrtcCreateProgram(
            &mut prog.0,
            code.as_ptr(),
            name.as_ptr(),
            HEADERS.len() as i32,
            code_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    };
    check(r, src.name)?;

    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        "-lineinfo".to_string(),
        "-std=c++17".to_string(),
    ];
    options.extend(defines.to_options());
    let options_c = options
        .iter()
        .map(|o| cstring(o, "compiler option"))
        .collect::<Result<Vec<_>>>()?;
    let option_ptrs: Vec<*const c_char> = options_c.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: the program is valid and the options are live NUL-terminated strings.
    let compiled =
        unsafe { sys::nvrtcCompileProgram(prog.0, option_ptrs.len() as i32, option_ptrs.as_ptr()) };
    let log = program_log(&prog)?;
    if compiled != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(Error::Compile {
            file: src.name.to_string(),
            log: format!("{}\n{}", nvrtc_message(compiled), log),
        });
    }
    let mut size = 0usize;
    // SAFETY: the program compiled; `size` is valid for writes.
    check(
        unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) },
        src.name,
    )?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` has exactly the size NVRTC reported.
    check(
        unsafe { sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr() as *mut c_char) },
        src.name,
    )?;
    Ok(Compiled { cubin, log })
}

fn program_log(prog: &Program) -> Result<String> {
    let mut size = 0usize;
    // SAFETY: the program is valid; `size` is valid for writes.
    check(
        unsafe { sys::nvrtcGetProgramLogSize(prog.0, &mut size) },
        "log",
    )?;
    if size <= 1 {
        return Ok(String::new());
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` has the size NVRTC reported, terminator included.
    check(
        unsafe { sys::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr() as *mut c_char) },
        "log",
    )?;
    let text = CStr::from_bytes_until_nul(&buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(text.trim().to_string())
}
