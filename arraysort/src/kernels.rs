//! The kernel source (`arraysort.cu`) and its modules: one per key type, value width, offset
//! width and policy.

use std::sync::Arc;

use sortlab_primitives::{Defines, Gpu, KernelSource, Module, Policy, Result, SortKey};

use crate::policy::ArrayPolicy;

/// Every kernel of the many-arrays sorts, their housekeeping and the offsets check.
pub const SOURCE: KernelSource = KernelSource::new("arraysort.cu", include_str!("arraysort.cu"));

/// The width of the offsets a module reads (`OFFSET_T`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OffsetWidth {
    U32,
    U64,
}

impl OffsetWidth {
    fn cuda_type(self) -> &'static str {
        match self {
            OffsetWidth::U32 => "unsigned int",
            OffsetWidth::U64 => "unsigned long long",
        }
    }
}

/// The defines of the module for keys of `key_size` bytes (`key_type` and `key_word` their CUDA
/// types), values of `value_size` bytes (`None`: keys only) and offsets of `width`.
fn defines(
    key_type: &str,
    key_word: &str,
    value_size: Option<usize>,
    width: OffsetWidth,
    policy: &ArrayPolicy,
) -> Defines {
    policy
        .defines()
        .set("KEY_T", key_type)
        .set("KEY_BITS_T", key_word)
        .value_size(value_size)
        .set("OFFSET_T", width.cuda_type())
}

/// Every module configuration (source and defines) the sorts compile for keys of `key_size`
/// bytes and values of `value_size` bytes (0: keys only), both offset widths, under the
/// default policy: for compile checks without a GPU and for warming the module cache. The key
/// type is the unsigned one of that size (the others differ only in `KEY_T`'s bit map).
pub fn module_configs(key_size: usize, value_size: usize) -> Vec<(KernelSource, Defines)> {
    let (key_type, key_word) = if key_size > 4 {
        ("unsigned long long", "unsigned long long")
    } else {
        ("unsigned int", "unsigned int")
    };
    let policy = ArrayPolicy::for_types(key_size, value_size);
    let value = (value_size > 0).then_some(value_size);
    [OffsetWidth::U32, OffsetWidth::U64]
        .into_iter()
        .map(|w| (SOURCE, defines(key_type, key_word, value, w, &policy)))
        .collect()
}

/// A compiled module with its policy.
pub(crate) struct Kernels {
    pub(crate) module: Arc<Module>,
    pub(crate) policy: ArrayPolicy,
}

/// The module for keys `K`, values of `value_size` bytes and offsets of `width`.
pub(crate) fn module<K: SortKey>(
    gpu: &Gpu,
    value_size: Option<usize>,
    width: OffsetWidth,
) -> Result<Kernels> {
    let policy = ArrayPolicy::for_types(K::SIZE, value_size.unwrap_or(0));
    let key = (std::any::TypeId::of::<K>(), value_size, width);
    let module = gpu.module_keyed(&SOURCE, key, || {
        defines(
            K::CUDA_TYPE,
            <K::Bits as sortlab_primitives::KeyBits>::CUDA_TYPE,
            value_size,
            width,
            &policy,
        )
    })?;
    Ok(Kernels { module, policy })
}

/// The module of the offsets check (keys `u32`, no values).
pub(crate) fn helper_module(gpu: &Gpu, width: OffsetWidth) -> Result<Kernels> {
    module::<u32>(gpu, None, width)
}
