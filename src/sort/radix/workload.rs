//! The radix sorts' workload formulas for the performance model ([`crate::workload`]): per pass, the bytes read
//! and written and a rough work per key, as functions of N, key and value width and the policy. The passes and
//! their bytes are described in docs/architecture.md, "The radix sorts".

use super::RadixPolicy;
use crate::sort::algorithm::SortAlgorithm;
use crate::workload::PassModel;

/// The quantities every formula uses: n, key and value bytes, digit places, radix, Onesweep tiles, N (k + v).
struct Shape {
    n: f64,
    k: f64,
    places: u32,
    pf: f64,
    r: f64,
    tiles: f64,
    kv: f64,
}

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
    let nf = n as f64;
    let (k, v) = (key_bytes as f64, value_bytes as f64);
    let d = policy.tile.digit_bits.max(1);
    let places = key_bits.div_ceil(d).max(1);
    let sh = Shape {
        n: nf,
        k,
        places,
        pf: places as f64,
        r: (1u64 << d) as f64,
        tiles: (nf / policy.tile().max(1) as f64).ceil().max(1.0),
        kv: nf * (k + v),
    };
    match algorithm {
        SortAlgorithm::Small => {
            // One rank pass: every key compared with all n.
            vec![PassModel::new("vksort::radix::small", 1, sh.kv, sh.kv, nf * 3.0)]
        }
        SortAlgorithm::Msd => msd(policy, &sh),
        _ => lsd(policy, algorithm, key_bits, &sh),
    }
}

/// The MSD sort: differ (several split tiles), split and bucket passes.
fn msd(policy: &RadixPolicy, sh: &Shape) -> Vec<PassModel> {
    let (n, kv) = (sh.n, sh.kv);
    let split_tiles = if n <= policy.msd_single_keys() as f64 {
        1.0
    } else {
        (n / policy.msd_split_tile().max(1) as f64).ceil().max(1.0)
    };
    let table = split_tiles * (sh.r + 4.0) * 4.0;
    let mut out = Vec::new();
    if split_tiles > 1.0 {
        let differ = PassModel::new(
            "vksort::radix::msd::differ",
            1,
            n * sh.k,
            split_tiles * 16.0,
            2.0,
        );
        out.push(differ);
    }
    let split_read = kv + split_tiles * split_tiles * 16.0;
    out.push(PassModel::new(
        "vksort::radix::msd::split",
        1,
        split_read,
        kv + table,
        8.0,
    ));
    let buckets_read = kv + sh.r * split_tiles * 8.0;
    out.push(PassModel::new(
        "vksort::radix::msd::buckets",
        1,
        buckets_read,
        kv,
        sh.pf * 8.0,
    ));
    out
}

/// The LSD sorts and the hybrid: setup and upfront, then the places' passes (fused, Onesweep or
/// reduce-then-scan; the hybrid's MSD places and group passes), then the copy for odd places.
fn lsd(
    policy: &RadixPolicy,
    algorithm: SortAlgorithm,
    key_bits: u32,
    sh: &Shape,
) -> Vec<PassModel> {
    let (n, kv, pf, r) = (sh.n, sh.kv, sh.pf, sh.r);
    let onesweep = algorithm != SortAlgorithm::ReduceThenScan;
    let status = if onesweep {
        pf * sh.tiles * r * 4.0
    } else {
        0.0
    };
    let setup_write = 1024.0 + pf * r * 4.0 + status;
    let upfront = PassModel::new(
        "vksort::radix::upfront",
        1,
        n * sh.k + pf * r * 4.0,
        pf * r * 8.0 + 64.0,
        pf * 2.0,
    );
    let mut out = vec![PassModel::new(
        "vksort::radix::setup",
        1,
        0.0,
        setup_write,
        0.0,
    )];
    if algorithm == SortAlgorithm::Hybrid {
        let (p, g) = policy.hybrid_geometry(sh.places, key_bits, n as u64);
        if p > 0 {
            out.push(upfront);
            out.extend(hybrid(sh, status, p, g));
            return out;
        }
    }
    if onesweep && policy.fuses(n as u64, sh.places) {
        out.push(PassModel::new(
            "vksort::radix::onesweep::fused",
            1,
            upfront.read_bytes + pf * kv + 2.0 * status,
            upfront.write_bytes + pf * kv + status,
            upfront.ops_per_key + pf * 10.0,
        ));
    } else if onesweep {
        out.push(upfront);
        let (read, write) = (pf * kv + 2.0 * status, pf * kv + status);
        let places = PassModel::new("vksort::radix::onesweep", sh.places, read, write, pf * 10.0);
        out.push(places);
    } else {
        out.push(upfront);
        let counts = pf * sh.tiles * r * 4.0;
        out.extend([
            PassModel::new(
                "vksort::radix::upsweep",
                sh.places,
                pf * n * sh.k,
                counts,
                pf * 2.0,
            ),
            PassModel::new("vksort::radix::spine", sh.places, counts, counts, 0.0),
            PassModel::new(
                "vksort::radix::downsweep",
                sh.places,
                pf * kv + counts,
                pf * kv,
                pf * 10.0,
            ),
        ]);
    }
    if sh.places % 2 == 1 {
        out.push(PassModel::new("vksort::radix::copy", 1, kv, kv, 0.0));
    }
    out
}

/// The hybrid sort's `p` MSD places' Onesweep passes (the others run no workgroup), its bounds pass and its
/// group pass over 2^`g` groups.
fn hybrid(sh: &Shape, status: f64, p: u32, g: u32) -> [PassModel; 3] {
    let (hp, kv) = (p as f64, sh.kv);
    let hs = status * hp / sh.pf;
    let starts = ((1u64 << g) + 1) as f64 * 4.0;
    [
        PassModel::new(
            "vksort::radix::onesweep",
            sh.places,
            hp * kv + 2.0 * hs,
            hp * kv + hs,
            hp * 10.0,
        ),
        PassModel::new("vksort::radix::hybrid::bounds", 1, sh.n * sh.k, starts, 2.0),
        PassModel::new(
            "vksort::radix::hybrid::local",
            1,
            kv + starts,
            kv,
            (sh.pf - hp) * 8.0,
        ),
    ]
}
