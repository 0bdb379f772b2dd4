//! `--algo` for the suites whose rows are named by the suite itself (`primitives`, `radix`,
//! `approxsort`, `roughsort`), not by the algorithm registry as in `bench sort`.

use crate::error::CliError;

/// Which of a suite's algorithms to time: all of them, or those `--algo` names.
#[derive(Clone, Debug)]
pub(crate) struct AlgoFilter {
    wanted: Option<Vec<String>>,
}

impl AlgoFilter {
    /// The filter of `--algo` (a comma-separated list; `None`: every algorithm). Every name
    /// must be one of `known` (the suite's row names), else [`CliError::UnknownAlgo`] lists them:
    /// a misspelt name fails before anything runs instead of silently timing nothing.
    pub(crate) fn new(arg: Option<&str>, known: &[String]) -> Result<Self, CliError> {
        let Some(list) = arg else {
            return Ok(Self { wanted: None });
        };
        let wanted: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if wanted.is_empty() {
            return Err(CliError::UnknownAlgo {
                given: list.to_string(),
                known: known.join(", "),
            });
        }
        if let Some(bad) = wanted.iter().find(|w| !known.contains(w)) {
            return Err(CliError::UnknownAlgo {
                given: bad.clone(),
                known: known.join(", "),
            });
        }
        Ok(Self {
            wanted: Some(wanted),
        })
    }

    /// Whether the algorithm (row name) `name` is to be timed.
    pub(crate) fn wants(&self, name: &str) -> bool {
        self.wanted
            .as_ref()
            .is_none_or(|w| w.iter().any(|x| x == name))
    }

    /// Whether any of `names` is to be timed (to skip a whole engine's set-up).
    pub(crate) fn wants_any(&self, names: &[String]) -> bool {
        names.iter().any(|n| self.wants(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        ["radix-fast", "radix-satish", "radix"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn no_list_wants_everything() {
        let f = AlgoFilter::new(None, &known()).unwrap();
        assert!(f.wants("radix-fast") && f.wants("anything"));
    }

    #[test]
    fn a_list_wants_only_its_names() {
        let f = AlgoFilter::new(Some(" radix-fast, radix "), &known()).unwrap();
        assert!(f.wants("radix-fast") && f.wants("radix"));
        assert!(!f.wants("radix-satish"));
        assert!(f.wants_any(&known()[1..]));
        assert!(!f.wants_any(&known()[1..2]));
    }

    #[test]
    fn unknown_or_empty_names_are_errors_that_list_the_known() {
        for arg in ["radix-fastest", "radix-fast,nope", ",", ""] {
            match AlgoFilter::new(Some(arg), &known()) {
                Err(CliError::UnknownAlgo { known, .. }) => {
                    assert_eq!(known, "radix-fast, radix-satish, radix")
                }
                other => panic!("{arg:?}: {other:?}"),
            }
        }
    }
}
