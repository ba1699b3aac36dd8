//! Timing knobs of the merge sort apart from its policy (as the radix sort's `RadixDebug`): public with the
//! `diagnostics` feature (`tuning(MergeDebug { .. })`, or `debug=` in the merge override string). Non-zero knobs
//! make the result WRONG on purpose; no device policy sets one.

use super::{MergeKernel, MergePolicy};
use crate::error::{Error, Result};

/// The merge sort's diagnostics knobs (all off by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MergeDebug {
    /// Knock-outs of the serial merge kernel's passes, for timing only (the result is WRONG when non-zero; 0
    /// compiles to the plain kernels): bit 0 (1) no serial merge, bit 1 (2) no diagonal search either, bit 2 (4)
    /// no split-point search (a balanced split), bit 3 (8) no diagonal search, the merge kept. Loads, staging and
    /// stores stay; docs/tuning.md ("MergeDebug knock-outs") says what each leaves.
    pub debug_mode: u32,
}

/// The bits [`MergeDebug::debug_mode`] knows.
const KNOWN_BITS: u32 = 1 | 2 | 4 | 8;

/// The keys of [`MergeDebug::with_overrides`].
#[cfg(feature = "diagnostics")]
const KEYS: &[&str] = &["debug"];

impl MergeDebug {
    #[cfg(feature = "diagnostics")]
    /// Overrides knobs from a string `key=value,...`: debug (debug_mode; the radix sort's key for its own).
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        crate::policy::for_each_override(spec, "merge debug", |k, v, bad| {
            match k {
                "debug" => self.debug_mode = v,
                other => return Err(bad(format!("unknown key `{other}`"))),
            }
            Ok(())
        })?;
        Ok(self)
    }

    /// Checks the knobs against the policy.
    pub(crate) fn check(&self, policy: &MergePolicy) -> Result<()> {
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "merge debug",
                what,
            })
        };
        if self.debug_mode & !KNOWN_BITS != 0 {
            return bad(format!(
                "debug_mode {}: only bits 1, 2, 4 and 8 are knock-outs",
                self.debug_mode
            ));
        }
        if self.debug_mode != 0 && policy.merge_kernel != MergeKernel::Serial {
            return bad(format!(
                "debug_mode {} knocks out parts of the serial merge kernel only (merge_kernel=0)",
                self.debug_mode
            ));
        }
        Ok(())
    }
}

/// Splits a merge override string into the policy's part and the diagnostics knobs' part (keys of
/// [`MergeDebug::with_overrides`]), each `key=value,...`, in their order.
#[cfg(feature = "diagnostics")]
pub(crate) fn split_overrides(spec: &str) -> (String, String) {
    let (mut policy, mut debug) = (Vec::new(), Vec::new());
    for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let key = kv.split_once('=').map_or(kv, |(k, _)| k).trim();
        if KEYS.contains(&key) {
            debug.push(kv);
        } else {
            policy.push(kv);
        }
    }
    (policy.join(","), debug.join(","))
}

#[cfg(all(test, feature = "diagnostics"))]
mod tests {
    use super::*;

    #[test]
    fn overrides_split_and_parse() {
        let (p, d) = split_overrides(" partition=0, debug = 3 ,merge_items_per_invocation=8,");
        assert_eq!(p, "partition=0,merge_items_per_invocation=8");
        assert_eq!(d, "debug = 3");
        assert_eq!(
            MergeDebug::default().with_overrides(&d).unwrap().debug_mode,
            3
        );
        assert_eq!(
            split_overrides("merge_kernel=1"),
            ("merge_kernel=1".into(), String::new())
        );
        assert!(MergeDebug::default().with_overrides("dbg=1").is_err());
    }

    #[test]
    fn check_refuses_unknown_bits_and_the_network_kernel() {
        let p = MergePolicy {
            block_workgroup_size: 256,
            block_items_per_invocation: 16,
            merge_workgroup_size: 256,
            merge_items_per_invocation: 16,
            merge_kernel: MergeKernel::Serial,
            partition: super::super::Partition::Mixed,
            fused_max_keys: 1 << 21,
            partition_workgroup_size: 64,
            partition_lanes: 8,
        };
        for m in [0, 1, 2, 3, 4, 8, 15] {
            assert!(MergeDebug { debug_mode: m }.check(&p).is_ok(), "{m}");
        }
        assert!(MergeDebug { debug_mode: 16 }.check(&p).is_err());
        let net = MergePolicy {
            merge_kernel: MergeKernel::Network,
            ..p
        };
        assert!(MergeDebug { debug_mode: 0 }.check(&net).is_ok());
        assert!(MergeDebug { debug_mode: 1 }.check(&net).is_err());
    }
}
