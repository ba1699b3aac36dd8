//! `--check`: the library's CPU verification ([`crate::bench::ops::verify`], exact mode) turned into the CLI's
//! message and exit status.

use crate::bench::ops::{self, Input, OpSpec, Output};

/// Verifies `out`; prints `check passed` or the first bad index to standard error. Returns the exit status
/// (0 or 1).
pub fn report(spec: &OpSpec, input: &Input, out: &Output) -> i32 {
    match ops::verify(spec, input, out, true) {
        Ok(()) => {
            eprintln!("check passed: {}", what(spec));
            0
        }
        Err(m) => {
            eprintln!("vksort: check FAILED: {m}");
            1
        }
    }
}

fn what(spec: &OpSpec) -> &'static str {
    match spec {
        OpSpec::Sort { value: Some(_), .. } => {
            "sorted, a permutation of the input, equal keys in input order"
        }
        OpSpec::Sort { .. } => "sorted and a permutation of the input",
        OpSpec::Scan { .. } => "every prefix sum matches the CPU",
        OpSpec::Compact { .. } => "the kept elements match the CPU, in order",
        OpSpec::Reduce { .. } => "the result matches the CPU",
        OpSpec::Copy { .. } => "identical to the input",
    }
}
