//! The radix sorts' workload formulas for the performance model ([`crate::workload`]): per pass, the bytes read
//! and written and a rough work per key, as functions of N, key and value width and the policy.
//!
//! k = key bytes, v = value bytes, D = digit places = ceil(bits / digit_bits), R = 2^digit_bits, T = tiles:
//! - Onesweep: setup zeroes the control block, histograms and look-back status; the upfront pass reads N k once
//!   for all places; each of the D passes reads and writes N (k + v) plus the look-back's T R counters (written,
//!   read about twice); with D odd a final copy moves N (k + v) back. Up to the policy's `fused_max` keys
//!   (and at most 8 places) the upfront pass and the D passes are one dispatch (`onesweep::fused`).
//! - Reduce-then-scan (Merrill & Grimshaw's workload): per place an upsweep reads N k and writes T R counts, a
//!   spine scans them, a downsweep reads N (k + v) and the counts and writes N (k + v).
//! - Small: reads and writes N (k + v) once.
//! - Hybrid: setup and upfront as Onesweep, P of the D passes (the MSD places), a bounds pass that reads N k
//!   and writes the group starts, and a group pass that reads and writes N (k + v) once.
//! - MSD: a differ pass reads N k (none for one split tile); the split pass reads one min/max word set per split
//!   tile in each workgroup, reads N (k + v) and writes it with a run table (R words per tile); the bucket pass
//!   reads two run-table rows per bucket and N (k + v), and writes N (k + v).

use super::RadixPolicy;
use crate::sort::algorithm::SortAlgorithm;
use crate::workload::PassModel;

/// The passes of a radix sort of `n` keys of `key_bytes` (sorting `key_bits` of them) with `value_bytes` per
/// value, by `algorithm` (not Auto) under `policy`.
pub(crate) fn passes(
    policy: &RadixPolicy,
    algorithm: SortAlgorithm,
    key_bytes: u32,
    value_bytes: u32,
    key_bits: u32,
    n: u64,
) -> Vec<PassModel> {
    let n = n as f64;
    let k = key_bytes as f64;
    let v = value_bytes as f64;
    let d = policy.digit_bits.max(1);
    let places = key_bits.div_ceil(d).max(1);
    let r = (1u64 << d) as f64;
    let tiles = (n / policy.tile().max(1) as f64).ceil().max(1.0);
    let pf = places as f64;
    let kv = n * (k + v);
    match algorithm {
        SortAlgorithm::Small => {
            return vec![PassModel::new("vksort::radix::small", 1, kv, kv, pf * 8.0)]
        }
        SortAlgorithm::Msd => {
            let split_tiles = if n <= policy.msd_single_keys() as f64 {
                1.0
            } else {
                (n / policy.msd_split_tile().max(1) as f64).ceil().max(1.0)
            };
            let table = split_tiles * (r + 4.0) * 4.0;
            let mut out = Vec::new();
            if split_tiles > 1.0 {
                out.push(PassModel::new(
                    "vksort::radix::msd::differ",
                    1,
                    n * k,
                    split_tiles * 16.0,
                    2.0,
                ));
            }
            out.push(PassModel::new(
                "vksort::radix::msd::split",
                1,
                kv + split_tiles * split_tiles * 16.0,
                kv + table,
                8.0,
            ));
            out.push(PassModel::new(
                "vksort::radix::msd::buckets",
                1,
                kv + r * split_tiles * 8.0,
                kv,
                pf * 8.0,
            ));
            return out;
        }
        _ => {}
    }
    let (hybrid_p, hybrid_g) = match algorithm {
        SortAlgorithm::Hybrid => policy.hybrid_geometry(places, key_bits, n as u64),
        _ => (0, 0),
    };
    let onesweep = algorithm != SortAlgorithm::ReduceThenScan;
    let status = if onesweep { pf * tiles * r * 4.0 } else { 0.0 };
    let mut out = vec![
        PassModel::new(
            "vksort::radix::setup",
            1,
            0.0,
            1024.0 + pf * r * 4.0 + status,
            0.0,
        ),
        PassModel::new(
            "vksort::radix::upfront",
            1,
            n * k + pf * r * 4.0,
            pf * r * 8.0 + 64.0,
            pf * 2.0,
        ),
    ];
    if hybrid_p > 0 {
        // The MSD places' Onesweep passes (the others dispatch no workgroup), then the bounds and group passes.
        let hp = hybrid_p as f64;
        let hs = status * hp / pf;
        let starts = ((1u64 << hybrid_g) + 1) as f64 * 4.0;
        out.extend([
            PassModel::new(
                "vksort::radix::onesweep",
                places,
                hp * kv + 2.0 * hs,
                hp * kv + hs,
                hp * 10.0,
            ),
            PassModel::new("vksort::radix::hybrid::bounds", 1, n * k, starts, 2.0),
            PassModel::new(
                "vksort::radix::hybrid::local",
                1,
                kv + starts,
                kv,
                (pf - hp) * 8.0,
            ),
        ]);
        return out;
    }
    if onesweep && policy.fuses(n as u64, places) {
        // The fused sort: the upfront pass and every place in one dispatch.
        let upfront = out.pop().expect("the upfront pass");
        out.push(PassModel::new(
            "vksort::radix::onesweep::fused",
            1,
            upfront.read_bytes + pf * kv + 2.0 * status,
            upfront.write_bytes + pf * kv + status,
            upfront.ops_per_key + pf * 10.0,
        ));
    } else if onesweep {
        out.push(PassModel::new(
            "vksort::radix::onesweep",
            places,
            pf * kv + 2.0 * status,
            pf * kv + status,
            pf * 10.0,
        ));
    } else {
        let counts = pf * tiles * r * 4.0;
        out.extend([
            PassModel::new(
                "vksort::radix::upsweep",
                places,
                pf * n * k,
                counts,
                pf * 2.0,
            ),
            PassModel::new("vksort::radix::spine", places, counts, counts, 0.0),
            PassModel::new(
                "vksort::radix::downsweep",
                places,
                pf * kv + counts,
                pf * kv,
                pf * 10.0,
            ),
        ]);
    }
    if places % 2 == 1 {
        out.push(PassModel::new("vksort::radix::copy", 1, kv, kv, 0.0));
    }
    out
}
