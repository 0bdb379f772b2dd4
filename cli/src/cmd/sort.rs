//! `sortlab sort`: sort a file with a registered algorithm.

use std::time::Instant;

use sortlab_registry::Algo;

use super::arrays::{sort_arrays_on, top_k_on, ArraysArg};
use super::scaled;
use super::{ms, note};
use crate::algo::find_algo;
use crate::args::SortArgs;
use crate::engine::{choose_engine, pick_engine, sort_on};
use crate::error::CliError;
use crate::io::{read_keys, write_keys};
use crate::key::{parse_key_type, CliKey};
use crate::progress;
use crate::with_key_type;

/// Reads `args.input`, sorts it with `args.algo` on the chosen engine, writes `args.output`
/// (atomically) and reports the engine and the sort's time on stderr.
pub fn run(args: &SortArgs) -> Result<(), CliError> {
    let key_type = parse_key_type(&args.key_type)?;
    if let Some(arrays) = ArraysArg::from_args(args.offsets.as_deref(), args.array_len) {
        if let Some(k) = args.top_k {
            return with_key_type!(key_type, K => top_k_typed::<K>(args, &arrays, k));
        }
        return with_key_type!(key_type, K => sort_arrays_typed::<K>(args, &arrays));
    }
    if args.gpus.is_some() || args.device_memory.is_some() {
        scaled::check_algo(args.algo.as_deref())?;
        return with_key_type!(key_type, K => scaled::sort::<K>(args));
    }
    let algo = find_algo(args.algo.as_deref().unwrap_or("reference"))?;
    with_key_type!(key_type, K => sort_typed::<K>(args, algo))
}

/// Sorts each array of `args.input` (cut by `arrays`, checked before anything is sorted).
fn sort_arrays_typed<K: CliKey>(args: &SortArgs, arrays: &ArraysArg) -> Result<(), CliError> {
    let mut keys = read_keys::<K>(&args.input)?;
    let offsets = arrays.offsets(keys.len())?;
    if args.device_memory.is_some() {
        scaled::refuse_cpu(args.engine)?;
    }
    let (engine, fallback) = pick_engine(args.engine, None)?;
    let start = Instant::now();
    sort_arrays_on(&engine, &mut keys, &offsets, args.order, args.device_memory)?;
    let elapsed = start.elapsed();
    write_keys(&args.output, &keys)?;
    if let Some(why) = fallback {
        note(&format!("note: {why}; using the CPU engine"));
    }
    note(&format!(
        "sorted {} arrays of {} {} keys ({}) on the {} engine [{}] in {:.3} ms",
        offsets.len() - 1,
        keys.len(),
        K::NAME,
        args.order,
        engine.name(),
        engine.device(),
        ms(elapsed)
    ));
    Ok(())
}

/// Keeps the first `k` keys of each array of `args.input` (cut by `arrays`, checked first) and
/// writes them, with `--out-offsets` the result's offsets and with `--indices` each kept key's
/// position in its array.
fn top_k_typed<K: CliKey>(args: &SortArgs, arrays: &ArraysArg, k: u64) -> Result<(), CliError> {
    let keys = read_keys::<K>(&args.input)?;
    let offsets = arrays.offsets(keys.len())?;
    let k = usize::try_from(k).map_err(|_| CliError::Usage(format!("--top-k {k} is too large")))?;
    let (engine, fallback) = pick_engine(args.engine, None)?;
    let start = Instant::now();
    let top = top_k_on(
        &engine,
        &keys,
        &offsets,
        k,
        args.order,
        args.indices.is_some(),
    )?;
    let elapsed = start.elapsed();
    write_keys(&args.output, &top.keys)?;
    if let Some(path) = &args.out_offsets {
        write_keys(path, &top.offsets)?;
    }
    if let Some(path) = &args.indices {
        write_keys(path, &top.values)?;
    }
    if let Some(why) = fallback {
        note(&format!("note: {why}; using the CPU engine"));
    }
    note(&format!(
        "kept the top {k} ({}) of {} arrays of {} {} keys: {} keys, on the {} engine [{}] in {:.3} ms",
        args.order,
        offsets.len() - 1,
        keys.len(),
        K::NAME,
        top.keys.len(),
        engine.name(),
        engine.device(),
        ms(elapsed)
    ));
    Ok(())
}

fn sort_typed<K: CliKey>(args: &SortArgs, algo: &Algo) -> Result<(), CliError> {
    let (engine, fallback) = choose_engine(args.engine, algo)?;
    let mut keys = read_keys::<K>(&args.input)?;
    let bytes = (keys.len() * K::SIZE) as u64;
    let spin = progress::spinner(bytes, &format!("sorting with {}", algo.name));
    let start = Instant::now();
    sort_on(&engine, algo, &mut keys, args.order)?;
    let elapsed = start.elapsed();
    spin.finish_and_clear();
    write_keys(&args.output, &keys)?;
    if let Some(why) = fallback {
        note(&format!("note: {why}; using the CPU engine"));
    }
    let transfers = if engine.name() == "gpu" {
        " (with transfers)"
    } else {
        ""
    };
    note(&format!(
        "sorted {} {} keys ({}) with {} on the {} engine [{}] in {:.3} ms{transfers}",
        keys.len(),
        K::NAME,
        args.order,
        algo.name,
        engine.name(),
        engine.device(),
        ms(elapsed)
    ));
    Ok(())
}
