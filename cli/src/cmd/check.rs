//! `sortlab check`: check a file and report; a failed check is exit code 1, not an error.

use std::path::Path;

use sortlab_cpu_reference::arrays;

use super::arrays::ArraysArg;
use super::say;
use crate::args::CheckArgs;
use crate::backend::check;
use crate::error::CliError;
use crate::io::read_keys;
use crate::key::{parse_key_type, CliKey};
use crate::with_key_type;

/// The outcome of a check that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The check passed.
    Pass,
    /// The check failed; the checker's message says where and how.
    Fail(String),
}

/// Runs the check `args` asks for (`--sorted` when none is named) and prints the result.
pub fn run(args: &CheckArgs) -> Result<Verdict, CliError> {
    let key_type = parse_key_type(&args.key_type)?;
    with_key_type!(key_type, K => check_typed::<K>(args))
}

fn check_typed<K: CliKey>(args: &CheckArgs) -> Result<Verdict, CliError> {
    let keys = read_keys::<K>(&args.input)?;
    let order = args.order;
    let what = format!("{} {} keys", keys.len(), K::NAME);
    let file = args.input.display();
    if args.radius {
        let r = check::radius(&keys, order);
        say(&format!("{file}: radius {r} ({order}, {what})"));
        return Ok(Verdict::Pass);
    }
    let other = |p: &Path| read_keys::<K>(p);
    let arrays = ArraysArg::from_args(args.offsets.as_deref(), args.array_len);
    let (claim, result) = if let Some(arrays) = arrays {
        let offsets = arrays.offsets(keys.len())?;
        let m = offsets.len() - 1;
        if let Some(p) = &args.permutation_of {
            let input = other(p)?;
            (
                format!(
                    "array by array ({m} arrays) a permutation of {}",
                    p.display()
                ),
                arrays::check_arrays_permutation(&input, &keys, &offsets),
            )
        } else {
            let cuts: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
            (
                format!("sorted ({order}) array by array ({m} arrays)"),
                check::check_arrays_sorted(&keys, &cuts, order),
            )
        }
    } else if let Some(k) = args.k_sorted {
        (
            format!("{k}-sorted ({order})"),
            check::check_k_sorted(&keys, k, order),
        )
    } else if let Some(p) = &args.same_as {
        let expected = other(p)?;
        (
            format!("equal to {}", p.display()),
            check::check_equal(&expected, &keys),
        )
    } else if let Some(p) = &args.permutation_of {
        let input = other(p)?;
        (
            format!("a permutation of {}", p.display()),
            check::check_permutation(&input, &keys),
        )
    } else {
        (
            format!("sorted ({order})"),
            check::check_sorted(&keys, order),
        )
    };
    Ok(match result {
        Ok(()) => {
            say(&format!("ok: {file} is {claim}, {what}"));
            Verdict::Pass
        }
        Err(e) => {
            say(&format!("FAIL: {file} is not {claim}: {e}"));
            Verdict::Fail(e.to_string())
        }
    })
}
