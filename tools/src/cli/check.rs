//! `--check`: the library's CPU verification ([`crate::bench::ops::verify`], exact mode) turned into the CLI's
//! message and exit status.

use crate::bench::ops::{self, Input, OpSpec, Output};

/// Verifies `out`; prints `check passed` or the first bad index to standard error. Returns the exit status
/// (0 or 1).
pub fn report(spec: &OpSpec, input: &Input, out: &Output) -> i32 {
    match ops::verify(spec, input, out, true) {
        Ok(()) => {
            eprintln!("check passed: {}", what(spec, out));
            0
        }
        Err(m) => {
            eprintln!("vksort: check FAILED: {m}");
            1
        }
    }
}

fn what(spec: &OpSpec, out: &Output) -> &'static str {
    let stable = !matches!(out.algorithm, Some(a) if !ops::sort_stable(a));
    match spec {
        OpSpec::Sort { value: Some(_), .. } if !stable => {
            "sorted, a permutation of the input, every value with its key (an unstable sort: equal keys in any \
             order)"
        }
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
