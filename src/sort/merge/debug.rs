//! Timing knobs of the merge sort, apart from its policy (as the radix sort's `RadixDebug`). Public only with the
//! `diagnostics` cargo feature (`Sorter::builder(..).tuning(MergeDebug { .. })`, or the key `debug` in the merge
//! family's override string: `VKSORT_POLICY=debug=1` with `vksort bench --algos merge`); a product build always
//! runs with [`MergeDebug::default`] (every knob off). Non-zero knobs make the result WRONG on purpose; none is
//! ever chosen by a device policy.

use super::{MergeKernel, MergePolicy};
use crate::error::{Error, Result};

/// The merge sort's diagnostics knobs (all off by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MergeDebug {
    /// Timing experiments only, 0 otherwise (the sort's result is WRONG when non-zero): knock-outs of the merge
    /// passes (specialization constant `DEBUG_MODE` of merge_merge.comp and merge_partition.comp; 0 compiles to
    /// the plain kernels). Every load, the staging through shared memory and every store stay as they are:
    /// - bit 0 (1): no serial merge. Each invocation still finds its diagonal's merge-path split (the search's
    ///   result is folded into its first key), then takes its keys, and its values' source positions, from the
    ///   staged tile as they lie (tile positions lid x KPT .. lid x KPT + KPT - 1: the A slice, then the B slice).
    /// - bit 1 (2): as bit 0, and no diagonal search either (a fixed split): loads, staging and stores only.
    /// - bit 2 (4): no split-point search (the partition pass's, or the merge pass's own with fused splits): the
    ///   co-rank of diagonal k is min(max(k / 2, k - lb), la) (a valid, balanced split of every tile).
    /// - bit 3 (8): no diagonal search, the serial merge kept (from the same fixed split): with bit 0, the
    ///   search's and the merge's shares of the instruction work.
    ///
    /// With bits 0, 1 or 3 a pass leaves its runs unsorted, so the next passes' split searches (still run)
    /// find no valid split points: every merge tile then takes bit 2's balanced split (as uniform keys give),
    /// the one found kept as a dependency only. Each tile so still loads and stores exactly its keys, every key
    /// once per pass (with bit 0 or 1 the output is a permutation of the input, each value beside its key, bit
    /// 0's folded first keys aside; bit 3's invocations merge overlapping stretches).
    ///
    /// The block pass is never changed. Only with [`MergeKernel::Serial`].
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
                "debug_mode {} knocks out parts of the serial merge kernel only (kernel=0)",
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
        let (p, d) = split_overrides(" partition=0, debug = 3 ,merge_kpt=8,");
        assert_eq!(p, "partition=0,merge_kpt=8");
        assert_eq!(d, "debug = 3");
        assert_eq!(
            MergeDebug::default().with_overrides(&d).unwrap().debug_mode,
            3
        );
        assert_eq!(
            split_overrides("kernel=1"),
            ("kernel=1".into(), String::new())
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
