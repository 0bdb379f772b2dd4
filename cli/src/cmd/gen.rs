//! `sortlab gen`: write a generated input file.

use std::time::Instant;

use super::{ms, note, parse_pattern};
use crate::args::GenArgs;
use crate::backend::{gen::generate, patterns::Pattern};
use crate::error::CliError;
use crate::io::{alloc_keys, write_keys};
use crate::key::{parse_key_type, CliKey};
use crate::progress;
use crate::with_key_type;

/// Generates `args.n` keys of `args.key_type` in `args.pattern` with `args.seed` and writes
/// them to `args.output` (atomically).
pub fn run(args: &GenArgs) -> Result<(), CliError> {
    let key_type = parse_key_type(&args.key_type)?;
    let pattern = parse_pattern(&args.pattern)?;
    with_key_type!(key_type, K => gen_typed::<K>(args, pattern))
}

fn gen_typed<K: CliKey>(args: &GenArgs, pattern: Pattern) -> Result<(), CliError> {
    // Fail cleanly, before generating, when the keys cannot fit in memory.
    drop(alloc_keys::<K>(args.n)?);
    let n = args.n as usize;
    let bytes = args.n * K::SIZE as u64;
    let start = Instant::now();
    let spin = progress::spinner(bytes, &format!("generating {n} {} keys", K::NAME));
    let keys = generate::<K>(pattern, n, args.seed);
    spin.finish_and_clear();
    write_keys(&args.output, &keys)?;
    if let (Some(lengths), Some(path)) = (args.arrays, &args.offsets) {
        let offsets: Vec<u64> = sortlab_verify::array_offsets(lengths, n, args.seed)
            .ok_or_else(|| CliError::Usage(format!("--arrays {lengths}: no array can hold a key")))?
            .into_iter()
            .map(|o| o as u64)
            .collect();
        write_keys(path, &offsets)?;
        note(&format!(
            "{} arrays ({lengths}): offsets in {}",
            offsets.len() - 1,
            path.display()
        ));
    }
    note(&format!(
        "generated {n} {} keys ({}, seed {}) in {:.1} ms: {} ({bytes} bytes)",
        K::NAME,
        pattern,
        args.seed,
        ms(start.elapsed()),
        args.output.display()
    ));
    Ok(())
}
