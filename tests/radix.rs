//! The radix sort: every key type, value width, order, bit range and algorithm against the CPU reference
//! (bitwise, stability checked through values = input index), edge sizes, forward-progress emulation, GPU-side
//! counts, and rejected input.
mod common;
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::{kernel::reflect, Buffer};
use vksort::sort::count;
use vksort::sort::radix::{self, PeerMatch, RadixDebug, RadixPolicy, RadixSort, RankCounters};
use vksort::sort::{self, KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error};

#[derive(Clone, Copy, Debug)]
enum Dist {
    Uniform,
    AllEqual,
    Sorted,
    Reverse,
    FewUnique,
    Entropy(u32),
    FloatSpecials,
    /// Long runs of one low byte (uniform tiles in the first pass), random high bits.
    Runs,
    /// A renderer's view depths: the f32 bits of distances in [1, 100], denser near the camera (every key's
    /// high byte is one of two values); 64-bit keys carry one of 64 screen tiles in the high word (tile|depth).
    Depths,
}

fn gen(key: KeyType, dist: Dist, n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed);
    let mask = if key.bytes() == 4 {
        0xffff_ffffu64
    } else {
        u64::MAX
    };
    let mut v: Vec<u64> = match dist {
        Dist::Uniform => (0..n).map(|_| r.next_u64() & mask).collect(),
        Dist::AllEqual => {
            let x = r.next_u64() & mask;
            vec![x; n]
        }
        Dist::Sorted | Dist::Reverse => {
            let mut v: Vec<u64> = (0..n).map(|_| r.next_u64() & mask).collect();
            let perm = sort::types::reference_permutation(key, &v, Order::Ascending, None);
            v = perm.iter().map(|&i| v[i]).collect();
            if let Dist::Reverse = dist {
                v.reverse();
            }
            v
        }
        Dist::FewUnique => {
            let u: Vec<u64> = (0..5).map(|_| r.next_u64() & mask).collect();
            (0..n).map(|_| u[(r.next_u32() % 5) as usize]).collect()
        }
        Dist::Entropy(k) => (0..n)
            .map(|_| (0..k).fold(mask, |a, _| a & r.next_u64()))
            .collect(),
        Dist::FloatSpecials => (0..n).map(|_| r.next_u64() & mask).collect(),
        Dist::Depths => (0..n)
            .map(|_| {
                let u = r.next_u32() as f32 / u32::MAX as f32;
                let depth = (1.0 + 99.0 * u * u).to_bits() as u64;
                if key.bytes() == 8 {
                    ((r.next_u32() as u64 % 64) << 32) | depth
                } else {
                    depth
                }
            })
            .collect(),
        Dist::Runs => (0..n as u64)
            .map(|i| ((r.next_u64() << 8) | ((i / 1500) & 0xff)) & mask)
            .collect(),
    };
    if let Dist::FloatSpecials = dist {
        let specials: Vec<u64> = if key.bytes() == 4 {
            vec![
                0,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7f80_0001,
                0xff80_0123,
                0x7fff_ffff,
                0xffff_ffff,
                1.0f32.to_bits() as u64,
                (-1.0f32).to_bits() as u64,
            ]
        } else {
            vec![
                0,
                1 << 63,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x7ff8_0000_0000_0000,
                0xfff8_0000_0000_0000,
                0x7ff0_0000_0000_0001,
                0xfff0_0000_0012_3456,
                1.0f64.to_bits(),
                (-1.0f64).to_bits(),
            ]
        };
        for x in v.iter_mut() {
            if r.next_u32() % 4 == 0 {
                *x = specials[(r.next_u32() as usize) % specials.len()];
            }
        }
    }
    v
}

fn to_words(raw: &[u64], bytes: u32) -> Vec<u32> {
    if bytes == 4 {
        raw.iter().map(|&x| x as u32).collect()
    } else {
        raw.iter()
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect()
    }
}

fn values_for(n: usize, vt: ValueType) -> Vec<u64> {
    (0..n as u64)
        .map(|i| match vt {
            ValueType::U64 => i | ((i ^ 0x5a5a) << 32),
            _ => i,
        })
        .collect()
}

struct Case {
    key: KeyType,
    value: ValueType,
    order: Order,
    bits: Option<(u32, u32)>,
    algorithm: SortAlgorithm,
    policy: Option<RadixPolicy>,
    debug: RadixDebug,
}

impl Case {
    fn new(key: KeyType) -> Self {
        Self {
            key,
            value: ValueType::None,
            order: Order::Ascending,
            bits: None,
            algorithm: SortAlgorithm::Auto,
            policy: None,
            debug: RadixDebug::default(),
        }
    }
    fn config(&self, max_n: usize) -> SortConfig {
        SortConfig {
            key: self.key,
            value: self.value,
            order: self.order,
            bits: self.bits,
            algorithm: self.algorithm,
            stable: false,
            max_n: max_n.max(1) as u64,
        }
    }
    /// The sorter of this case for up to `max_n` keys, with its policy and debug knobs.
    fn sorter(&self, ctx: &Arc<Context>, max_n: usize) -> vksort::Result<Sorter> {
        sorter_with(ctx, self.config(max_n), self.policy, self.debug)
    }
}

/// A sorter for `cfg` with the policy `p` (None: the device's) and the diagnostics knobs `d`.
fn sorter_with(
    ctx: &Arc<Context>,
    cfg: SortConfig,
    p: Option<RadixPolicy>,
    d: RadixDebug,
) -> vksort::Result<Sorter> {
    let mut b = Sorter::builder(ctx, cfg).tuning(d);
    if let Some(p) = p {
        b = b.tuning(p);
    }
    b.build()
}

/// The radix backend of a sorter.
fn radix_of(s: &Sorter) -> &RadixSort {
    s.backend::<RadixSort>().expect("a radix sorter")
}

/// The most keys the hybrid sort of case `c` takes on this device (its policy's, within the device's loop budget).
fn hybrid_capacity(ctx: &Arc<Context>, c: &Case) -> u64 {
    radix_of(&c.sorter(ctx, 1).unwrap()).hybrid_capacity()
}

/// The most keys the one-workgroup sort of case `c` takes on this device (workgroup x keys per invocation of
/// its policy: 2048 on lavapipe at subgroups of 8, 1024 where workgroups hold at most 128 invocations).
fn small_capacity(ctx: &Arc<Context>, c: &Case) -> usize {
    c.policy
        .unwrap_or_else(|| sort_policy(ctx, c.key, c.value))
        .small_capacity() as usize
}

/// A wished-for workgroup size within the device's invocations per workgroup.
fn fit_workgroup(ctx: &Arc<Context>, wg: u32) -> u32 {
    wg.min(ctx.caps().max_workgroup_invocations)
}

/// `p` within the device's shared memory: the workgroups above 64 invocations halved until it fits (with
/// 8-bit digits, subgroups of 4 hold 256 counters per 4 invocations: 32 KiB at 128), as the device's own
/// policy is cut ([`RadixPolicy::for_device`]); the one-workgroup sort's limit within its new capacity.
fn fit_shared(ctx: &Arc<Context>, mut p: RadixPolicy) -> RadixPolicy {
    let plan = vksort::policy::SubgroupPlan::for_device(ctx.caps());
    while let Err(e) = p.check(ctx.caps(), &plan) {
        let mut cut = false;
        for wg in [
            &mut p.tile.workgroup_size,
            &mut p.small.workgroup_size,
            &mut p.msd_split.workgroup_size,
            &mut p.msd_bucket.workgroup_size,
            &mut p.hybrid.workgroup_size,
        ] {
            if *wg > 64 && (*wg / 2) % plan.max == 0 {
                *wg /= 2;
                cut = true;
            }
        }
        p.small.max = p.small.max.min(p.small_capacity());
        assert!(cut, "{e}");
    }
    p
}

/// The policy's `rank2` spelling (0, 1, 2) as the enum.
fn rank(v: u32) -> RankCounters {
    [
        RankCounters::PerSubgroup,
        RankCounters::Scanned,
        RankCounters::Packed16,
    ][v as usize]
}

/// The policy's `match_or` spelling (0, 1, 2) as the enum.
fn peer(v: u32) -> PeerMatch {
    [
        PeerMatch::Vote,
        PeerMatch::LaneMasks,
        PeerMatch::LaneMasksEager,
    ][v as usize]
}

/// Sorts `raw` on the GPU (host count, or a GPU-side count `gpu_n` <= raw.len() with capacity raw.len()) and
/// compares with the CPU reference bit for bit.
fn check(ctx: &Arc<Context>, c: &Case, raw: &[u64], gpu_n: Option<usize>) {
    let sorter = c.sorter(ctx, raw.len()).unwrap();
    let n = raw.len();
    let kw = to_words(raw, c.key.bytes());
    let vals = values_for(n, c.value);
    let vw = to_words(&vals, c.value.bytes().max(4));
    let kb = Buffer::from_slice(ctx, "test::keys", &pad(&kw)).unwrap();
    let vb = Buffer::from_slice(ctx, "test::vals", &pad(&vw)).unwrap();
    let req = sorter.storage_requirements(n as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
    let cnt = Buffer::from_slice(ctx, "test::count", &[gpu_n.unwrap_or(0) as u32; 4]).unwrap();
    let values = (c.value != ValueType::None).then(|| vb.as_ref());
    ctx.submit("test::sort", |rec| match gpu_n {
        None => sorter.cmd_sort(rec, kb.as_ref(), values, scratch.as_ref(), n as u64),
        Some(_) => sorter.cmd_sort_indirect(
            rec,
            kb.as_ref(),
            values,
            scratch.as_ref(),
            cnt.slice(4, 4),
            n as u64,
        ),
    })
    .unwrap();
    let m = gpu_n.unwrap_or(n);
    let label = format!(
        "{:?} {:?} {:?} {:?} {:?} n={n} gpu_n={gpu_n:?} -> {:?}",
        c.key,
        c.value,
        c.order,
        c.bits,
        c.algorithm,
        sorter.algorithm_for(n as u64)
    );
    verify(c, raw, m, &kb, &vb, &label);
    if gpu_n.is_some() {
        let meta = scratch
            .read_vec::<u32>((sorter.control_offset(n as u64) / 4 + 4) as usize)
            .unwrap();
        let base = (sorter.control_offset(n as u64) / 4) as usize;
        assert_eq!(meta[base + count::CTRL_N as usize], m as u32, "{label}");
        assert_eq!(meta[base + count::CTRL_OVERFLOW as usize], 0, "{label}");
    }
}

/// Checks that `kb` and `vb` hold `raw`'s first `m` keys (with [`values_for`]'s values) as the CPU reference
/// sorts them, equal keys in input order, and the rest as they were.
fn verify(c: &Case, raw: &[u64], m: usize, kb: &Buffer, vb: &Buffer, label: &str) {
    let vals = values_for(raw.len(), c.value);
    let perm = sort::types::reference_permutation(c.key, &raw[..m], c.order, c.bits);
    let mut want_k: Vec<u64> = perm.iter().map(|&i| raw[i]).collect();
    want_k.extend_from_slice(&raw[m..]);
    let want_kw = to_words(&want_k, c.key.bytes());
    let got_k = kb.read_vec::<u32>(want_kw.len()).unwrap();
    if got_k != want_kw {
        let first = got_k.iter().zip(&want_kw).position(|(a, b)| a != b);
        panic!("keys differ: {label}; first difference at word {first:?}");
    }
    if c.value != ValueType::None {
        let mut want_v: Vec<u64> = perm.iter().map(|&i| vals[i]).collect();
        want_v.extend_from_slice(&vals[m..]);
        let want_vw = to_words(&want_v, c.value.bytes());
        let got_v = vb.read_vec::<u32>(want_vw.len()).unwrap();
        if got_v != want_vw {
            let first = got_v.iter().zip(&want_vw).position(|(a, b)| a != b);
            panic!("values differ (stability): {label}; first difference at word {first:?}");
        }
    }
}

/// One key more than `cap` is refused when case `c`'s sorter is made (`AlgorithmLimit` naming `algorithm`, the
/// capacity and the count); a visible skip where `cap` is the algorithm's own `limit` (nothing above to refuse).
fn refused_above(ctx: &Arc<Context>, c: &Case, cap: u64, limit: u64, algorithm: &str, why: &str) {
    if cap >= limit {
        return common::skip(&format!("{algorithm}-capacity-limit"), why);
    }
    let over = cap + 1;
    let e = c.sorter(ctx, over as usize).err();
    assert!(
        matches!(
            &e,
            Some(Error::AlgorithmLimit { algorithm: a, max, n }) if *a == algorithm && *max == cap && *n == over
        ),
        "{e:?}"
    );
}

fn pad(w: &[u32]) -> Vec<u32> {
    let mut v = w.to_vec();
    v.resize(w.len().max(4), 0);
    v
}

fn lavapipe_policy(ctx: &Arc<Context>) -> RadixPolicy {
    RadixPolicy::for_device(ctx.caps())
}

/// The policy a Sorter picks for a key/value type when the config has none (tile and small-sort limits differ
/// by type on GPUs).
fn sort_policy(ctx: &Arc<Context>, key: KeyType, value: ValueType) -> RadixPolicy {
    RadixPolicy::for_sort(ctx.caps(), key, value)
}

/// `p` changed by `f` (the policy is `#[non_exhaustive]`: no struct literals out of the crate).
fn with(mut p: RadixPolicy, f: impl FnOnce(&mut RadixPolicy)) -> RadixPolicy {
    f(&mut p);
    p
}

const BIT_RANGES: [Option<(u32, u32)>; 4] = [None, Some((0, 16)), Some((8, 24)), Some((13, 14))];

#[test]
fn push_constant_structs_match_reflection() {
    use vksort::sort::radix::{hybrid, msd, onesweep, rts, setup, small, upfront};
    let cases: &[(&str, usize)] = &[
        (
            "radix_upfront_scalar",
            std::mem::size_of::<upfront::UpfrontPush>(),
        ),
        ("radix_plan", std::mem::size_of::<upfront::PlanPush>()),
        ("radix_setup", std::mem::size_of::<setup::SetupPush>()),
        ("radix_copy", std::mem::size_of::<setup::CopyPush>()),
        (
            "radix_onesweep_ballot",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_partitioned",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_downsweep",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_downsweep_partitioned",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_ballot_wide",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_partitioned_wide",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_downsweep_wide",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_downsweep_partitioned_wide",
            std::mem::size_of::<onesweep::OnesweepPush>(),
        ),
        (
            "radix_onesweep_fused",
            std::mem::size_of::<onesweep::FusedPush>(),
        ),
        (
            "radix_onesweep_fused_partitioned",
            std::mem::size_of::<onesweep::FusedPush>(),
        ),
        ("radix_upsweep", std::mem::size_of::<rts::UpsweepPush>()),
        ("radix_spine", std::mem::size_of::<rts::SpinePush>()),
        ("radix_small", std::mem::size_of::<small::SmallPush>()),
        ("radix_msd_differ", std::mem::size_of::<msd::SplitPush>()),
        (
            "radix_msd_split_ballot",
            std::mem::size_of::<msd::SplitPush>(),
        ),
        (
            "radix_msd_split_partitioned",
            std::mem::size_of::<msd::SplitPush>(),
        ),
        (
            "radix_msd_buckets_ballot",
            std::mem::size_of::<msd::BucketsPush>(),
        ),
        (
            "radix_msd_buckets_partitioned",
            std::mem::size_of::<msd::BucketsPush>(),
        ),
        (
            "radix_hybrid_bounds",
            std::mem::size_of::<hybrid::BoundsPush>(),
        ),
        (
            "radix_hybrid_local",
            std::mem::size_of::<hybrid::LocalPush>(),
        ),
    ];
    for (shader, size) in cases {
        let iface = reflect(shader).unwrap();
        assert_eq!(
            iface.push_constant_size as usize, *size,
            "push constants of {shader}"
        );
    }
}

#[test]
fn cpu_reference_orders_floats_totally() {
    let mut k = vec![
        f32::NAN,
        -f32::NAN,
        1.0,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1.0,
    ];
    let mut v: Vec<u32> = (0..k.len() as u32).collect();
    sort::cpu_sort_reference(&mut k, Some(&mut v), Order::Ascending, None);
    let bits: Vec<u32> = k.iter().map(|x| x.to_bits()).collect();
    let want: Vec<u32> = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    assert_eq!(bits, want);
    sort::cpu_sort_reference(&mut k, Some(&mut v), Order::Descending, None);
    assert_eq!(k[0].to_bits(), f32::NAN.to_bits());
}

/// Every key type x value width x order x bit range, every algorithm, at one moderate size.
#[test]
fn full_matrix() {
    with_gpu(|ctx| {
        for key in KeyType::WORD_KEYS {
            for value in ValueType::ALL {
                let small_max = sort_policy(ctx, key, value).small_capacity() as usize;
                for order in [Order::Ascending, Order::Descending] {
                    for bits in BIT_RANGES {
                        let dist = if matches!(key, KeyType::F32 | KeyType::F64) {
                            Dist::FloatSpecials
                        } else {
                            Dist::Entropy(1 + (bits.is_some() as u32))
                        };
                        for alg in [
                            SortAlgorithm::Onesweep,
                            SortAlgorithm::ReduceThenScan,
                            SortAlgorithm::Small,
                            SortAlgorithm::Msd,
                        ] {
                            let n = if alg == SortAlgorithm::Small {
                                small_max - 3
                            } else {
                                5000
                            };
                            let mut c = Case::new(key);
                            c.value = value;
                            c.order = order;
                            c.bits = bits;
                            c.algorithm = alg;
                            check(ctx, &c, &gen(key, dist, n, n as u64 ^ key as u64), None);
                        }
                    }
                }
            }
        }
    });
}

/// Every distribution for every key type, ascending and descending, with values (stability).
#[test]
fn distributions() {
    with_gpu(|ctx| {
        let dists = [
            Dist::Uniform,
            Dist::AllEqual,
            Dist::Sorted,
            Dist::Reverse,
            Dist::FewUnique,
            Dist::Entropy(2),
            Dist::Entropy(4),
            Dist::FloatSpecials,
            Dist::Runs,
            Dist::Depths,
        ];
        for key in KeyType::WORD_KEYS {
            for dist in dists {
                for order in [Order::Ascending, Order::Descending] {
                    for (alg, n) in [
                        (SortAlgorithm::Auto, 3333),
                        (SortAlgorithm::Auto, 777),
                        (SortAlgorithm::ReduceThenScan, 5000),
                        (SortAlgorithm::Onesweep, 5000),
                        (SortAlgorithm::Msd, 5000),
                    ] {
                        let mut c = Case::new(key);
                        c.value = ValueType::U32;
                        c.order = order;
                        c.algorithm = alg;
                        check(ctx, &c, &gen(key, dist, n, 7 + n as u64), None);
                    }
                }
            }
        }
    });
}

/// The keys renderers sort (view depths, 64-bit tile|depth keys, low-entropy and few unique keys) on every path
/// Auto takes on this device: sizes at and past each of the policy's thresholds (the one-workgroup sort, the
/// MSD sort, Onesweep's short tiles, the fused forms, the per-place passes; the merge sort where Auto picks it
/// for 64-bit keys), with 32-bit values (stability), and a GPU-side count below the capacity.
#[test]
fn auto_paths_with_renderer_keys() {
    with_gpu(|ctx| {
        for (key, value) in [
            (KeyType::F32, ValueType::U32),
            (KeyType::U32, ValueType::None),
            (KeyType::U64, ValueType::U32),
        ] {
            let p = sort_policy(ctx, key, value);
            let mut sizes = vec![3000usize];
            for t in [
                p.small.max,
                p.msd.max,
                p.short.max,
                p.fused.loop_max,
                p.fused.max,
            ] {
                if t > 0 {
                    sizes.extend([t as usize, t as usize + 1]);
                }
            }
            // CPU drivers run the radix sort slowly; their thresholds are small anyway.
            if ctx.caps().is_cpu() {
                sizes.retain(|&n| n <= 1 << 15);
            }
            sizes.sort_unstable();
            sizes.dedup();
            for (i, &n) in sizes.iter().enumerate() {
                for dist in [Dist::Depths, Dist::Entropy(3), Dist::FewUnique] {
                    let mut c = Case::new(key);
                    c.value = value;
                    check(ctx, &c, &gen(key, dist, n, 11 + i as u64), None);
                }
            }
            // A GPU-side count of half the largest size.
            let cap = *sizes.last().unwrap();
            let mut c = Case::new(key);
            c.value = value;
            check(ctx, &c, &gen(key, Dist::Depths, cap, 5), Some(cap / 2));
        }
    });
}

/// Sizes around tile boundaries, tiny and odd sizes, for every algorithm.
#[test]
fn edge_sizes() {
    with_gpu(|ctx| {
        for key in [KeyType::U32, KeyType::F64] {
            let value = if key == KeyType::U32 {
                ValueType::U64
            } else {
                ValueType::U32
            };
            let p = sort_policy(ctx, key, value);
            let tile = p.tile() as usize;
            let small = p.small_capacity() as usize;
            let mut sizes: Vec<usize> = vec![
                0,
                1,
                2,
                3,
                7,
                31,
                33,
                255,
                257,
                2 * tile + 1,
                3 * tile - 1,
                12345,
            ];
            sizes.extend(tile - 2..=tile + 2);
            sizes.extend(small - 2..=small + 2);
            // The one-workgroup sort uses ceil(n / workgroup) items per invocation: every row count's edges.
            let wg = p.small.workgroup_size as usize;
            for rows in 1..=p.small.items_per_invocation as usize {
                sizes.extend(rows * wg - 1..=rows * wg + 1);
            }
            let split = (p.msd_split.workgroup_size * p.msd_split.items_per_invocation) as usize;
            sizes.extend(split - 1..=split + 1);
            sizes.push(2 * split + 1);
            for alg in [
                SortAlgorithm::Auto,
                SortAlgorithm::Onesweep,
                SortAlgorithm::ReduceThenScan,
                SortAlgorithm::Small,
                SortAlgorithm::Msd,
            ] {
                for &n in &sizes {
                    if alg == SortAlgorithm::Small && n > small {
                        continue;
                    }
                    let mut c = Case::new(key);
                    c.value = value;
                    c.algorithm = alg;
                    check(ctx, &c, &gen(key, Dist::Uniform, n, n as u64), None);
                }
            }
        }
    });
}

/// The default policy's small-sort capacity is what a sorter of each key type takes: a sorter for that many keys
/// is made and sorts them, one key more is refused (the small sort holds every key in shared memory, so 64-bit
/// keys take fewer where the shared memory is short: NVIDIA's 48 KiB, `VKSORT_LIMITS=shared=16384`).
#[test]
fn small_capacity_is_the_sorters() {
    with_gpu(|ctx| {
        for key in [KeyType::U32, KeyType::F64] {
            for value in [ValueType::None, ValueType::U64] {
                let mut c = Case::new(key);
                c.value = value;
                c.algorithm = SortAlgorithm::Small;
                let cap = small_capacity(ctx, &c);
                if let Err(e) = c.sorter(ctx, cap) {
                    panic!("{key:?} + {value:?}: a small sorter of its policy's {cap} keys: {e}");
                }
                assert!(
                    c.sorter(ctx, cap + 1).is_err(),
                    "{key:?} + {value:?}: {} keys, above the small sort's capacity, not refused",
                    cap + 1
                );
                check(ctx, &c, &gen(key, Dist::Uniform, cap, 3), None);
            }
        }
    });
}

/// The small sort with fewer targets per subgroup up to `few_max` keys (more, shorter workgroups; NVIDIA's policy
/// has it, lavapipe's not): sizes on both sides of `few_max`, host and GPU-side counts, keys and pairs; GPU-side
/// counts on both sides of `few_max` under a capacity past it (the kernel then chooses by the count).
#[test]
fn small_sort_few_targets() {
    with_gpu(|ctx| {
        for (key, value) in [
            (KeyType::U32, ValueType::U32),
            (KeyType::F64, ValueType::None),
        ] {
            let mut p = sort_policy(ctx, key, value);
            p.small.few_max = 1000;
            p.small.few_targets_per_subgroup = 1;
            let mut c = Case::new(key);
            c.value = value;
            c.algorithm = SortAlgorithm::Small;
            c.policy = Some(p);
            for n in [2, 33, 257, 999, 1000, 1001, 1500] {
                check(ctx, &c, &gen(key, Dist::Entropy(2), n, n as u64), None);
            }
            check(ctx, &c, &gen(key, Dist::Uniform, 1000, 5), Some(700));
            for m in [2, 33, 700, 1000, 1001, 1200] {
                check(ctx, &c, &gen(key, Dist::Uniform, 1400, m as u64), Some(m));
            }
        }
    });
}

/// Small sorts recorded back to back through one recorder, with no barrier of the caller's between them (each
/// on buffers and a scratch of its own, so the contract asks for none): their runs share the sorter's status
/// block, and vksort must order them itself. Without that order the GPU overlaps them, and their counts mix.
/// No profiler: its timestamps would order the passes.
#[test]
fn small_sorts_back_to_back_in_one_recorder() {
    with_gpu(|ctx| {
        let mut c = Case::new(KeyType::U32);
        c.value = ValueType::U32;
        c.algorithm = SortAlgorithm::Small;
        let n = small_capacity(ctx, &c);
        let s = c.sorter(ctx, n).unwrap();
        let scratch_bytes = s.storage_requirements(n as u64).unwrap().scratch_bytes;
        let vw = to_words(&values_for(n, c.value), 4);
        let runs: Vec<_> = (0..6u64)
            .map(|i| {
                let raw = gen(c.key, Dist::Uniform, n, 40 + i);
                let kb = Buffer::from_slice(ctx, "test::keys", &to_words(&raw, 4)).unwrap();
                let vb = Buffer::from_slice(ctx, "test::vals", &vw).unwrap();
                let sb = Buffer::device_local(ctx, "test::scratch", scratch_bytes).unwrap();
                (raw, kb, vb, sb)
            })
            .collect();
        common::record_unprofiled(ctx, |rec| {
            for (_, kb, vb, sb) in &runs {
                s.cmd_sort(rec, kb.as_ref(), Some(vb.as_ref()), sb.as_ref(), n as u64)
                    .unwrap();
            }
        });
        for (i, (raw, kb, vb, _)) in runs.iter().enumerate() {
            verify(&c, raw, n, kb, vb, &format!("back-to-back run {i}"));
        }
    });
}

/// Digit widths 4..=8 (digits straddling the 32-bit word boundary of 64-bit keys, odd bit ranges).
#[test]
fn digit_widths() {
    with_gpu(|ctx| {
        for digit_bits in 4..=8 {
            let mut p = lavapipe_policy(ctx);
            p.tile.digit_bits = digit_bits;
            // Few upfront workgroups: each loops over several chunks.
            p.upfront.max_groups = [1, 3, 64, 2, 1000][digit_bits as usize - 4];
            let p = fit_shared(ctx, p);
            for alg in [
                SortAlgorithm::Onesweep,
                SortAlgorithm::ReduceThenScan,
                SortAlgorithm::Small,
                SortAlgorithm::Msd,
            ] {
                for (key, bits) in [
                    (KeyType::U64, None),
                    (KeyType::I64, Some((27, 45))),
                    (KeyType::I32, Some((3, 32))),
                ] {
                    let mut c = Case::new(key);
                    c.value = ValueType::U32;
                    c.bits = bits;
                    c.algorithm = alg;
                    c.policy = Some(p);
                    let n = if alg == SortAlgorithm::Small {
                        small_capacity(ctx, &c).min(1500)
                    } else {
                        4100
                    };
                    check(
                        ctx,
                        &c,
                        &gen(key, Dist::Uniform, n, digit_bits as u64),
                        None,
                    );
                }
            }
        }
    });
}

/// Onesweep with the stall-emulating policy `p`: u32+u32 and f64+u64 over 20 tiles + 17 keys, few-unique and
/// uniform keys, each checked against the CPU reference.
fn check_stalled(ctx: &Arc<Context>, p: RadixPolicy, d: RadixDebug) {
    check_stalled_over(ctx, p, d, 20);
}

/// [`check_stalled`] over `tiles` tiles + 17 keys.
fn check_stalled_over(ctx: &Arc<Context>, p: RadixPolicy, d: RadixDebug, tiles: usize) {
    for (key, value) in [
        (KeyType::U32, ValueType::U32),
        (KeyType::F64, ValueType::U64),
    ] {
        let mut c = Case::new(key);
        c.value = value;
        c.algorithm = SortAlgorithm::Onesweep;
        c.policy = Some(p);
        c.debug = d;
        let n = tiles * p.tile() as usize + 17;
        check(ctx, &c, &gen(key, Dist::FewUnique, n, 99), None);
        check(ctx, &c, &gen(key, Dist::Uniform, n, 98), None);
    }
}

/// Forward progress: tiles that never publish their look-back status; the sort still completes correctly.
#[test]
fn onesweep_forward_progress_emulation() {
    with_gpu(|ctx| {
        for (stall_every, spin) in [(2, 1), (3, 4), (7, 64)] {
            let mut p = lavapipe_policy(ctx);
            let d = RadixDebug {
                stall_every,
                ..Default::default()
            };
            p.lookback.spin_limit = spin;
            check_stalled(ctx, p, d);
        }
    });
}

/// The fused Onesweep (upfront, plan and every place in one dispatch, `RadixPolicy::fused`), in both its
/// forms on GPUs (workgroups claiming items in a loop, `fused.loop_max`, one workgroup per item, and the form a
/// GPU-side count picks; CPU drivers always loop), against the per-place passes (`fused.max` 0), all against
/// the CPU reference: key and value widths, bit ranges of 1..=8 places (odd ones end with the copy), skipped
/// places (all-equal and few-unique keys), descending order, sizes around the tile, GPU-side counts, the
/// device's ranking variants and stalled tiles.
#[test]
fn fused_onesweep() {
    with_gpu(|ctx| {
        let mut forms = vec![(u32::MAX, u32::MAX), (0, 0)];
        if !ctx.caps().is_cpu() {
            forms.push((u32::MAX, 0));
        }
        for (fused_max, fused_loop_max) in forms {
            let mut base = lavapipe_policy(ctx);
            base.fused.max = fused_max;
            base.fused.loop_max = fused_loop_max;
            for (key, value, bits) in [
                (KeyType::U32, ValueType::None, None),
                (KeyType::F32, ValueType::U32, None),
                (KeyType::U64, ValueType::U32, None),
                (KeyType::I32, ValueType::U64, Some((13, 14))),
                (KeyType::F64, ValueType::None, Some((0, 20))),
                (KeyType::U32, ValueType::U32, Some((8, 24))),
            ] {
                let mut p = sort_policy(ctx, key, value);
                p.fused.max = fused_max;
                p.fused.loop_max = fused_loop_max;
                let tile = p.tile() as usize;
                for (n, dist) in [
                    (0, Dist::Uniform),
                    (1, Dist::Uniform),
                    (2, Dist::Reverse),
                    (tile - 1, Dist::Uniform),
                    (tile, Dist::FewUnique),
                    (tile + 1, Dist::Uniform),
                    (3 * tile + 5, Dist::AllEqual),
                    (5 * tile + 17, Dist::Entropy(2)),
                    (20 * tile + 17, Dist::Uniform),
                ] {
                    let mut c = Case::new(key);
                    c.value = value;
                    c.bits = bits;
                    c.algorithm = SortAlgorithm::Onesweep;
                    c.policy = Some(p);
                    c.order = if n % 2 == 0 {
                        Order::Ascending
                    } else {
                        Order::Descending
                    };
                    check(ctx, &c, &gen(key, dist, n, n as u64 + 5), None);
                }
                // GPU-side counts below the capacity, and zero. On GPUs, with the claiming form up to 6 tiles: a
                // capacity of 9 tiles takes the one-item grid and the kernel picks the form by the count.
                let mut by_count = vec![(p, 5 * tile + 1), (p, 0)];
                if !ctx.caps().is_cpu() && fused_max == u32::MAX {
                    let mut q = p;
                    q.fused.loop_max = 6 * tile as u32;
                    by_count.extend([
                        (q, 0),
                        (q, 1),
                        (q, 5 * tile + 1),
                        (q, 6 * tile),
                        (q, 8 * tile + 3),
                    ]);
                }
                for (p, m) in by_count {
                    let mut c = Case::new(key);
                    c.value = value;
                    c.bits = bits;
                    c.algorithm = SortAlgorithm::Onesweep;
                    c.policy = Some(p);
                    check(
                        ctx,
                        &c,
                        &gen(key, Dist::Uniform, 9 * tile, m as u64),
                        Some(m),
                    );
                }
            }
            // The ranking variants the device's policies use, sub-tiles, and stalled tiles (the look-back's
            // recount inside the fused dispatch).
            for (rank2, mor, subs, stall_every) in
                [(2, 2, 1, 0), (2, 0, 2, 0), (0, 0, 1, 3), (2, 2, 1, 2)]
            {
                let mut p = base;
                p.tile.rank_counters = rank(rank2);
                p.tile.peer_match = peer(mor);
                p.tile.sub_tiles = subs;
                p.tile.workgroup_size = p.tile.workgroup_size.min(128);
                p.tile.items_per_invocation = p.tile.items_per_invocation.min(8);
                p.tile.exchange_parts = p.tile.exchange_parts.min(p.tile.items_per_invocation);
                if stall_every > 0 {
                    p.lookback.spin_limit = 4;
                }
                let d = RadixDebug {
                    stall_every,
                    ..Default::default()
                };
                // Stalled tiles with few of them: a CPU driver runs the fused sort on one workgroup, whose loops
                // lavapipe ends after 65,535 iterations in all, and each recount of a stalled tile loops over it.
                check_stalled_over(ctx, p, d, if stall_every > 0 { 4 } else { 20 });
            }
        }
    });
}

/// Where a fused Onesweep's wait that gave up shows (`Sorter::gave_up_offset`). Giving up takes 2^30 polls and
/// workgroups that do not run side by side; a CPU driver runs the fused sort on one workgroup, which never
/// waits on another, so no wait is made to give up here. Checked instead: the offset is Some exactly for the
/// sorts that run fused (Onesweep up to `fused.max`; not above it, with `fused.max` 0, the other algorithms or
/// above the capacity), and after a fused sort (recorded with `cmd_sort` and `cmd_sort_indirect` on a scratch
/// filled with ones) it reads 0 between the fused words the sort set: the plan's flag (1) before it, the first
/// place's done tiles after it.
#[test]
fn fused_gave_up_offset() {
    with_gpu(|ctx| {
        let (key, value) = (KeyType::U32, ValueType::U32);
        let mut p = sort_policy(ctx, key, value);
        p.short.max = 0;
        let tile = p.tile() as usize;
        let cap = 9 * tile;
        let sorter_for = |alg, fused_max: u32, cap: usize| {
            let mut q = p;
            q.fused.max = fused_max;
            q.fused.loop_max = fused_max;
            let mut c = Case::new(key);
            c.value = value;
            c.algorithm = alg;
            c.policy = Some(q);
            c.sorter(ctx, cap).unwrap()
        };
        let fused_max = 5 * tile as u32;
        let s = sorter_for(SortAlgorithm::Onesweep, fused_max, cap);
        for n in [2, tile, 5 * tile] {
            assert!(s.gave_up_offset(n as u64).is_some(), "n={n}");
        }
        for n in [5 * tile + 1, cap, cap + 1] {
            assert_eq!(s.gave_up_offset(n as u64), None, "n={n}");
        }
        let unfused = sorter_for(SortAlgorithm::Onesweep, 0, cap);
        assert_eq!(unfused.gave_up_offset(tile as u64), None);
        for alg in [
            SortAlgorithm::ReduceThenScan,
            SortAlgorithm::Small,
            SortAlgorithm::Msd,
        ] {
            let other = sorter_for(alg, u32::MAX, 1000);
            assert_eq!(other.gave_up_offset(1000), None, "{alg:?}");
        }
        // After fused sorts of n keys (host n, or a GPU-side count of n under capacity m).
        let s = sorter_for(SortAlgorithm::Onesweep, u32::MAX, cap);
        for (n, gpu) in [
            (2, None),
            (tile + 1, None),
            (5 * tile + 17, None),
            (3 * tile + 5, Some(cap)),
        ] {
            let m = gpu.unwrap_or(n);
            let at = s.gave_up_offset(m as u64).expect("a fused sort");
            let raw: Vec<u32> = Rng(n as u64).vec_u32(m);
            let kb = Buffer::from_slice(ctx, "test::keys", &raw).unwrap();
            let vb = Buffer::from_slice(ctx, "test::vals", &vec![0u32; m]).unwrap();
            let cnt = Buffer::from_slice(ctx, "test::count", &[n as u32]).unwrap();
            let req = s.storage_requirements(m as u64).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
            scratch
                .write(0, &vec![0xff; req.scratch_bytes as usize])
                .unwrap();
            common::record_own(ctx, |rec| {
                match gpu {
                    None => s.cmd_sort(
                        rec,
                        kb.as_ref(),
                        Some(vb.as_ref()),
                        scratch.as_ref(),
                        n as u64,
                    ),
                    Some(_) => s.cmd_sort_indirect(
                        rec,
                        kb.as_ref(),
                        Some(vb.as_ref()),
                        scratch.as_ref(),
                        cnt.as_ref(),
                        m as u64,
                    ),
                }
                .unwrap()
            });
            let mut want = raw[..n].to_vec();
            want.sort();
            assert_eq!(kb.read_vec::<u32>(n).unwrap(), want, "n={n} gpu={gpu:?}");
            let word =
                |off: u64| u32::from_le_bytes(scratch.read(off, 4).unwrap().try_into().unwrap());
            let label = format!("n={n} gpu={gpu:?} offset {at}");
            assert_eq!(word(at), 0, "{label}: the flag");
            assert_eq!(word(at - 4), 1, "{label}: the plan's flag before it");
            assert_eq!(
                word(at + 4),
                n.div_ceil(tile) as u32,
                "{label}: place 0's tiles after it"
            );
        }
    });
}

/// A GPU-side count below the capacity (and zero), for every algorithm.
#[test]
fn gpu_side_count() {
    with_gpu(|ctx| {
        for alg in [
            SortAlgorithm::Auto,
            SortAlgorithm::Onesweep,
            SortAlgorithm::ReduceThenScan,
            SortAlgorithm::Small,
            SortAlgorithm::Msd,
        ] {
            for (cap, m) in [
                (1500usize, 1000usize),
                (1500, 0),
                (1500, 1),
                (1500, 1500),
                (9000, 5001),
            ] {
                if alg == SortAlgorithm::Small && cap > 2048 {
                    continue;
                }
                for key in [KeyType::U32, KeyType::I64] {
                    let mut c = Case::new(key);
                    c.value = ValueType::U32;
                    c.algorithm = alg;
                    // The one-workgroup sort: within its capacity (1024 where workgroups hold 128 invocations).
                    let (cap, m) = if alg == SortAlgorithm::Small {
                        let cap = cap.min(small_capacity(ctx, &c));
                        (cap, m.min(cap))
                    } else {
                        (cap, m)
                    };
                    check(ctx, &c, &gen(key, Dist::Uniform, cap, m as u64), Some(m));
                }
            }
        }
    });
}

/// A GPU-side count above the capacity is clamped and flagged.
#[test]
fn gpu_side_count_overflow_is_clamped_and_flagged() {
    with_gpu(|ctx| {
        for alg in [
            SortAlgorithm::Onesweep,
            SortAlgorithm::Small,
            SortAlgorithm::Msd,
        ] {
            let cap = 1000usize;
            let sorter = Sorter::new(
                ctx,
                SortConfig {
                    algorithm: alg,
                    max_n: cap as u64,
                    ..Default::default()
                },
            )
            .unwrap();
            let raw: Vec<u32> = Rng(5).vec_u32(cap);
            let kb = Buffer::from_slice(ctx, "test::keys", &raw).unwrap();
            let req = sorter.storage_requirements(cap as u64).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
            let cnt = Buffer::from_slice(ctx, "test::count", &[5000u32]).unwrap();
            ctx.submit("test::sort", |rec| {
                sorter.cmd_sort_indirect(
                    rec,
                    kb.as_ref(),
                    None,
                    scratch.as_ref(),
                    cnt.as_ref(),
                    cap as u64,
                )
            })
            .unwrap();
            let mut want = raw.clone();
            want.sort();
            assert_eq!(kb.read_vec::<u32>(cap).unwrap(), want);
            let base = (sorter.control_offset(cap as u64) / 4) as usize;
            let meta = scratch.read_vec::<u32>(base + 4).unwrap();
            assert_eq!(meta[base + count::CTRL_N as usize], cap as u32);
            assert_eq!(meta[base + count::CTRL_OVERFLOW as usize], 1);
            assert_eq!(meta[base + count::CTRL_RAW_COUNT as usize], 5000);
        }
    });
}

/// Large inputs, once per algorithm (slow on lavapipe).
#[test]
fn large() {
    with_gpu(|ctx| {
        let n = (1 << 22) + 3;
        let mut c = Case::new(KeyType::U32);
        c.value = ValueType::U32;
        c.algorithm = SortAlgorithm::Onesweep;
        check(ctx, &c, &gen(KeyType::U32, Dist::Uniform, n, 1), None);
        let mut c = Case::new(KeyType::F32);
        c.algorithm = SortAlgorithm::ReduceThenScan;
        c.order = Order::Descending;
        check(
            ctx,
            &c,
            &gen(KeyType::F32, Dist::FloatSpecials, (1 << 20) + 5, 2),
            None,
        );
        let mut c = Case::new(KeyType::I64);
        c.value = ValueType::U64;
        c.algorithm = SortAlgorithm::Onesweep;
        check(
            ctx,
            &c,
            &gen(KeyType::I64, Dist::Entropy(2), (1 << 20) + 7, 3),
            None,
        );
    });
}

/// The host forms.
#[test]
fn host_forms() {
    with_gpu(|ctx| {
        let mut r = Rng(11);
        let mut k: Vec<f32> = (0..5000)
            .map(|_| (r.next_u32() % 1000) as f32 - 500.0)
            .collect();
        let mut want = k.clone();
        sort::sort(ctx, &mut k).unwrap();
        sort::cpu_sort_reference::<f32, u32>(&mut want, None, Order::Ascending, None);
        assert_eq!(k, want);
        let mut k: Vec<i64> = (0..3000).map(|_| r.next_u64() as i64 >> 40).collect();
        let mut v: Vec<f64> = (0..3000).map(|i| i as f64).collect();
        let (mut wk, mut wv) = (k.clone(), v.clone());
        let cfg = SortConfig {
            order: Order::Descending,
            ..Default::default()
        };
        sort::sort_pairs_with(ctx, &mut k, &mut v, &cfg).unwrap();
        sort::cpu_sort_reference(&mut wk, Some(&mut wv), Order::Descending, None);
        assert_eq!(k, wk);
        assert_eq!(v, wv);
        let mut e: Vec<u32> = vec![];
        sort::sort(ctx, &mut e).unwrap();
        let mut one = vec![5u64];
        sort::sort(ctx, &mut one).unwrap();
        assert!(matches!(
            sort::sort_pairs(ctx, &mut [1u32, 2], &mut [1u32]),
            Err(Error::LengthMismatch {
                what: "values",
                expected: 2,
                got: 1
            })
        ));
    });
}

#[test]
fn names_round_trip() {
    for a in SortAlgorithm::ALL {
        assert_eq!(SortAlgorithm::from_name(a.name()), Some(a));
    }
    for k in KeyType::WORD_KEYS {
        assert_eq!(KeyType::from_name(k.name()), Some(k));
    }
    for v in ValueType::ALL {
        assert_eq!(ValueType::from_name(v.name()), Some(v));
    }
    assert_eq!(SortAlgorithm::ReduceThenScan.name(), "reduce-then-scan");
}

/// Rejected input returns a typed error and leaves the buffers untouched.
#[test]
fn bad_input_is_rejected_and_writes_nothing() {
    with_gpu(|ctx| {
        // Bit ranges.
        for bits in [(0, 33), (5, 5), (6, 2)] {
            let cfg = SortConfig {
                bits: Some(bits),
                ..Default::default()
            };
            assert!(
                matches!(Sorter::new(ctx, cfg), Err(Error::InvalidBitRange { .. })),
                "{bits:?}"
            );
        }
        let cfg = SortConfig {
            key: KeyType::U64,
            bits: Some((0, 65)),
            ..Default::default()
        };
        assert!(matches!(
            Sorter::new(ctx, cfg),
            Err(Error::InvalidBitRange { .. })
        ));
        // Policy.
        let mut p = lavapipe_policy(ctx);
        p.tile.digit_bits = 9;
        assert!(matches!(
            sorter_with(ctx, SortConfig::default(), Some(p), RadixDebug::default()),
            Err(Error::InvalidPolicy { .. })
        ));
        let n = 5000usize;
        let raw = Rng(3).vec_u32(n);
        let cfg = SortConfig {
            value: ValueType::U32,
            algorithm: SortAlgorithm::Onesweep,
            ..Default::default()
        };
        let sorter = Sorter::new(ctx, cfg).unwrap();
        let kb = Buffer::from_slice(ctx, "test::keys", &raw).unwrap();
        let vb = Buffer::from_slice(ctx, "test::vals", &raw).unwrap();
        let req = sorter.storage_requirements(n as u64).unwrap();
        let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
        let cnt = Buffer::from_slice(ctx, "test::count", &[10u32; 4]).unwrap();
        let run =
            |k: vksort::BufferRef, v: Option<vksort::BufferRef>, s: vksort::BufferRef, n: u64| {
                ctx.submit("test::bad", |rec| sorter.cmd_sort(rec, k, v, s, n))
            };
        let nb = (n * 4) as u64;
        // value buffer shorter than the keys
        assert!(matches!(
            run(
                kb.as_ref(),
                Some(vb.slice(0, nb - 4)),
                scratch.as_ref(),
                n as u64
            ),
            Err(Error::BufferTooSmall { .. })
        ));
        // missing values
        assert!(matches!(
            run(kb.as_ref(), None, scratch.as_ref(), n as u64),
            Err(Error::ValuesMismatch { expected: true })
        ));
        // key buffer too small for n
        assert!(matches!(
            run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n as u64 + 1
            ),
            Err(Error::BufferTooSmall { .. })
        ));
        // scratch too small
        assert!(matches!(
            run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.slice(0, req.scratch_bytes - 4),
                n as u64
            ),
            Err(Error::BufferTooSmall { .. })
        ));
        // missing usage
        let no_ind = common::with_usage(
            scratch.as_ref(),
            ash::vk::BufferUsageFlags::STORAGE_BUFFER | ash::vk::BufferUsageFlags::TRANSFER_DST,
        );
        assert!(matches!(
            run(kb.as_ref(), Some(vb.as_ref()), no_ind, n as u64),
            Err(Error::MissingUsage { .. })
        ));
        // misaligned offset
        let align = ctx.caps().min_storage_buffer_offset_alignment.max(4);
        if align > 4 {
            assert!(matches!(
                run(kb.slice(4, nb - 4), Some(vb.as_ref()), scratch.as_ref(), 10),
                Err(Error::Misaligned { .. })
            ));
        } else {
            common::skip(
                "offset-alignment",
                "minStorageBufferOffsetAlignment is 4: no misaligned key offset to refuse",
            );
        }
        // more keys than the sorter was made for, and a sorter for more keys than a sort takes
        assert!(matches!(
            run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                cfg.max_n + 1
            ),
            Err(Error::CountOverCapacity { .. })
        ));
        assert!(matches!(
            Sorter::new(
                ctx,
                SortConfig {
                    max_n: vksort::sort::radix::MAX_KEYS + 1,
                    ..cfg
                }
            ),
            Err(Error::TooLarge { .. })
        ));
        // GPU-side count: misaligned count offset, count buffer too small
        let r = ctx.submit("test::bad", |rec| {
            sorter.cmd_sort_indirect(
                rec,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                cnt.slice(2, 4),
                n as u64,
            )
        });
        assert!(matches!(r, Err(Error::Misaligned { .. })), "{r:?}");
        let r = ctx.submit("test::bad", |rec| {
            sorter.cmd_sort_indirect(
                rec,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                cnt.slice(0, 2),
                n as u64,
            )
        });
        assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
        // Small with more keys than one workgroup sorts: refused when the sorter is made (the capacity is
        // known then), naming the policy's limit.
        let small = Sorter::new(
            ctx,
            SortConfig {
                algorithm: SortAlgorithm::Small,
                max_n: 1000,
                ..Default::default()
            },
        )
        .unwrap();
        let limit = radix_of(&small).policy.small_capacity() as u64;
        let r = Sorter::new(
            ctx,
            SortConfig {
                algorithm: SortAlgorithm::Small,
                max_n: limit + 1,
                ..Default::default()
            },
        );
        assert!(
            matches!(
                r,
                Err(Error::AlgorithmLimit {
                    algorithm: "small",
                    max,
                    n,
                }) if max == limit && n == limit + 1
            ),
            "{:?}",
            r.err()
        );
        assert_eq!(kb.read_vec::<u32>(n).unwrap(), raw);
        assert_eq!(vb.read_vec::<u32>(n).unwrap(), raw);
    });
}

/// Pipelines are built when a sorter is created: recording sorts of any size up to its `max_n`, with host or
/// GPU-side counts, builds none (for every algorithm, Auto included).
#[test]
fn recording_builds_no_pipeline() {
    with_gpu(|ctx| {
        for (alg, max_n, value) in [
            (SortAlgorithm::Auto, 70_000u64, ValueType::U32),
            (SortAlgorithm::Onesweep, 70_000, ValueType::None),
            (SortAlgorithm::ReduceThenScan, 9_000, ValueType::U64),
            (SortAlgorithm::Small, 1_500, ValueType::U32),
            (SortAlgorithm::Msd, 40_000, ValueType::None),
        ] {
            let cfg = SortConfig {
                value,
                algorithm: alg,
                max_n,
                ..Default::default()
            };
            // The one-workgroup sort within its capacity (1024 where workgroups hold 128 invocations), the MSD
            // sort within its (36864 keys at 16 KiB of shared memory).
            let max_n = match alg {
                SortAlgorithm::Small => {
                    max_n.min(sort_policy(ctx, KeyType::U32, value).small_capacity() as u64)
                }
                SortAlgorithm::Msd => {
                    let one = Sorter::new(ctx, SortConfig { max_n: 1, ..cfg }).unwrap();
                    max_n.min(radix_of(&one).msd_max_keys())
                }
                _ => max_n,
            };
            let cfg = SortConfig { max_n, ..cfg };
            let sorter = Sorter::new(ctx, cfg).unwrap();
            common::sorting::assert_recording_builds_no_pipeline(
                ctx,
                &sorter,
                &[0, 1, 2, 3, 17, 255, 256, 257, 1000, 4096, 4097],
                64,
                &format!("{alg:?}"),
            );
        }
    });
}

#[test]
fn auto_resolves_by_size() {
    with_gpu(|ctx| {
        let mut p = lavapipe_policy(ctx);
        p.small.max = 1000;
        p.msd.max = 4000;
        let s = sorter_with(
            ctx,
            SortConfig {
                ..Default::default()
            },
            Some(p),
            RadixDebug::default(),
        )
        .unwrap();
        assert_eq!(s.algorithm_for(p.small.max as u64), SortAlgorithm::Small);
        assert_eq!(s.algorithm_for(p.small.max as u64 + 1), SortAlgorithm::Msd);
        assert_eq!(s.algorithm_for(p.msd.max as u64), SortAlgorithm::Msd);
        let big = s.algorithm_for(p.msd.max as u64 + 1);
        assert!(matches!(
            big,
            SortAlgorithm::Onesweep | SortAlgorithm::ReduceThenScan
        ));
    });
}

/// Auto's radix choices as a GPU's table makes them, on any device: the one-workgroup sort up to `small.max`,
/// the MSD sort up to `msd.max` (within its capacity here), Onesweep above, and reduce-then-scan where the
/// look-back is not safe. lavapipe's own table gives the MSD sort no range (`msd.max` 0), so the thresholds
/// are set here as NVIDIA's table sets them, and each boundary from 2,049 keys to 2^22 is sorted, with a host
/// and a GPU-side count, against the CPU reference, checking which algorithm Auto resolved to.
#[test]
fn auto_radix_choices_across_sizes() {
    with_gpu(|ctx| {
        for (key, value, top) in [
            (KeyType::U32, ValueType::U32, 22),
            (KeyType::U64, ValueType::None, 18),
        ] {
            let mut probe = Case::new(key);
            probe.value = value;
            probe.algorithm = SortAlgorithm::Msd;
            let msd_cap = radix_of(&probe.sorter(ctx, 1).unwrap()).msd_max_keys() as u32;
            for safe in [true, false] {
                let mut p = sort_policy(ctx, key, value);
                p.small.max = p.small_capacity();
                p.msd.max = (1 << 16).min(msd_cap);
                p.lookback.safe = safe;
                let (s, m) = (p.small.max as usize, p.msd.max as usize);
                let above = if safe {
                    SortAlgorithm::Onesweep
                } else {
                    SortAlgorithm::ReduceThenScan
                };
                let mut c = Case::new(key);
                c.value = value;
                c.policy = Some(p);
                let expect = |n: usize| match n {
                    n if n <= s => SortAlgorithm::Small,
                    n if n <= m => SortAlgorithm::Msd,
                    _ => above,
                };
                for n in [2049, s, s + 1, m, m + 1, (1 << 17) + 3, 1 << top] {
                    // Reduce-then-scan (tested at scale elsewhere) only up to 2^18 here.
                    if n < 2049 || (!safe && n > 1 << 18) {
                        continue;
                    }
                    let want = expect(n);
                    let sorter = c.sorter(ctx, n).unwrap();
                    assert_eq!(
                        sorter.algorithm_for(n as u64),
                        want,
                        "{key:?} n={n} safe={safe}"
                    );
                    let raw = gen(key, Dist::Uniform, n, n as u64 + safe as u64);
                    check(ctx, &c, &raw, None);
                    check(ctx, &c, &raw, Some(n - n / 3));
                }
            }
        }
    });
}

#[test]
fn smoke() {
    with_gpu(|ctx| {
        for alg in [
            SortAlgorithm::Small,
            SortAlgorithm::Onesweep,
            SortAlgorithm::ReduceThenScan,
            SortAlgorithm::Msd,
        ] {
            let mut c = Case::new(KeyType::U32);
            c.algorithm = alg;
            c.value = ValueType::U32;
            for n in [2usize, 100, 1000, 2000] {
                let n = if alg == SortAlgorithm::Small {
                    n.min(small_capacity(ctx, &c))
                } else {
                    n
                };
                check(ctx, &c, &gen(c.key, Dist::Uniform, n, n as u64), None);
            }
        }
    });
}

/// Every pass is labelled and timed when a profiler is attached.
#[test]
fn passes_are_labelled_and_profiled() {
    with_gpu(|ctx| {
        let cases = [
            (
                SortAlgorithm::Onesweep,
                vec![
                    "vksort::radix::setup",
                    "vksort::radix::upfront",
                    "vksort::radix::onesweep::place0",
                    "vksort::radix::onesweep::place1",
                    "vksort::radix::onesweep::place2",
                    "vksort::radix::onesweep::place3",
                ],
            ),
            (
                SortAlgorithm::ReduceThenScan,
                vec![
                    "vksort::radix::setup",
                    "vksort::radix::upfront",
                    "vksort::radix::upsweep::place0",
                    "vksort::radix::spine::place0",
                    "vksort::radix::downsweep::place0",
                    "vksort::radix::upsweep::place1",
                    "vksort::radix::spine::place1",
                    "vksort::radix::downsweep::place1",
                ],
            ),
            (SortAlgorithm::Small, vec!["vksort::radix::small"]),
            (
                SortAlgorithm::Msd,
                vec![
                    "vksort::radix::msd::differ",
                    "vksort::radix::msd::split",
                    "vksort::radix::msd::buckets",
                ],
            ),
            // One split tile (at most msd.single_items_per_invocation x the split workgroup): no differ pass.
            (
                SortAlgorithm::Msd,
                vec!["vksort::radix::msd::split", "vksort::radix::msd::buckets"],
            ),
        ];
        for (case, (alg, want)) in cases.into_iter().enumerate() {
            let bits = if alg == SortAlgorithm::ReduceThenScan {
                Some((0, 16))
            } else {
                None
            };
            // (The one-workgroup sort takes no more than its capacity, refused beyond it at creation.)
            let small = sort_policy(ctx, KeyType::U32, ValueType::None).small_capacity() as usize;
            let max_n = if alg == SortAlgorithm::Small {
                2000.min(small) as u64
            } else {
                1 << 13
            };
            let sorter = Sorter::new(
                ctx,
                SortConfig {
                    algorithm: alg,
                    bits,
                    max_n,
                    ..Default::default()
                },
            )
            .unwrap();
            let p = radix_of(&sorter).policy;
            let split_wg = p.msd_split.workgroup_size as usize;
            let n = match (alg, case) {
                // Several split tiles of the policy's size.
                (SortAlgorithm::Msd, 3) => {
                    2 * split_wg
                        * p.msd_split
                            .items_per_invocation
                            .max(p.msd.single_items_per_invocation)
                            as usize
                        + 1
                }
                // One split workgroup's keys: one tile whenever msd.single_items_per_invocation > 0.
                (SortAlgorithm::Msd, _) => split_wg,
                (SortAlgorithm::Small, _) => 2000.min(small),
                _ => 2000usize,
            };
            // The places of the policy's digits (8 bits: 4 places of 32-bit keys, 2 of the 16-bit range), the
            // final copy after an odd number.
            let want: Vec<String> = match alg {
                SortAlgorithm::Onesweep | SortAlgorithm::ReduceThenScan => {
                    let bits = bits.map_or(32, |(lo, hi)| hi - lo);
                    let places = bits.div_ceil(p.tile.digit_bits);
                    let mut w = vec![
                        "vksort::radix::setup".to_string(),
                        "vksort::radix::upfront".to_string(),
                    ];
                    for place in 0..places as usize {
                        let per: &[&str] = if alg == SortAlgorithm::Onesweep {
                            &["vksort::radix::onesweep::place"]
                        } else {
                            &[
                                "vksort::radix::upsweep::place",
                                "vksort::radix::spine::place",
                                "vksort::radix::downsweep::place",
                            ]
                        };
                        w.extend(per.iter().map(|pass| format!("{pass}{place}")));
                    }
                    if places % 2 == 1 {
                        w.push("vksort::radix::copy".to_string());
                    }
                    if p.tile.digit_bits == 8 {
                        assert_eq!(w, want, "{alg:?}");
                    }
                    w
                }
                _ => want.iter().map(|l| l.to_string()).collect(),
            };
            // Onesweep up to the policy's fused.max (GPUs): the upfront pass and the places in one dispatch.
            let want = if alg == SortAlgorithm::Onesweep && n as u64 <= p.fused.max as u64 {
                vec![
                    "vksort::radix::setup".to_string(),
                    "vksort::radix::onesweep::fused".to_string(),
                ]
            } else {
                want
            };
            let raw = Rng(9).vec_u32(n);
            let kb = Buffer::from_slice(ctx, "test::keys", &raw).unwrap();
            let req = sorter.storage_requirements(n as u64).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
            let mut prof = vksort::gpu::Profiler::new(ctx, 64).unwrap();
            ctx.submit_profiled("test::sort", Some(&mut prof), |rec| {
                sorter.cmd_sort(rec, kb.as_ref(), None, scratch.as_ref(), n as u64)
            })
            .unwrap();
            let labels: Vec<String> = prof
                .results()
                .unwrap()
                .into_iter()
                .map(|p| p.label)
                .collect();
            assert_eq!(
                labels,
                want,
                "{alg:?}, n {n}, split {} x {} (policy {} x {}, one tile up to {} per invocation)",
                p.msd_split.workgroup_size,
                p.msd_split_items_per_invocation(n as u64),
                p.msd_split.workgroup_size,
                p.msd_split.items_per_invocation,
                p.msd.single_items_per_invocation
            );
            let mut sorted = raw.clone();
            sorted.sort_by_key(|&x| if bits.is_some() { x & 0xffff } else { x });
            assert!(kb.read_vec::<u32>(n).unwrap() == sorted, "{alg:?}");
        }
        // Partitioned ranking (of every pass, of the MSD passes) needs VK_NV_shader_subgroup_partitioned.
        if !ctx.caps().subgroup_partitioned {
            for msd_only in [false, true] {
                let mut p = lavapipe_policy(ctx);
                p.tile.partitioned = !msd_only;
                p.msd.partitioned = true;
                let r = sorter_with(
                    ctx,
                    SortConfig {
                        ..Default::default()
                    },
                    Some(p),
                    RadixDebug::default(),
                );
                assert!(
                    matches!(&r, Err(Error::Unsupported { what, .. }) if what.contains("partitioned")),
                    "msd_only {msd_only}"
                );
            }
        }
    });
}

/// Other workgroup sizes, tile sizes and digit widths (workgroups larger and smaller than the radix), and the
/// 4-word ballot arithmetic.
#[test]
fn policy_variations() {
    with_gpu(|ctx| {
        for (wg, kpt, digit_bits, swg, skpt) in
            [(256, 5, 7, 64, 7), (64, 3, 8, 128, 5), (192, 1, 6, 192, 2)]
        {
            // Workgroups within the device's invocations (128 at most: 256 and 192 become 128).
            let mut p = lavapipe_policy(ctx);
            p.tile.workgroup_size = fit_workgroup(ctx, wg);
            p.tile.items_per_invocation = kpt;
            p.tile.digit_bits = digit_bits;
            p.small.workgroup_size = fit_workgroup(ctx, swg);
            p.small.items_per_invocation = skpt;
            p.small.max = p.small.workgroup_size * skpt;
            p.upfront.items_per_invocation = 3;
            // Publishing tile counts after ranking (no early counts); 1 and "too many" upfront histograms.
            p.lookback.early_counts = wg != 256;
            p.upfront.hist_copies = if wg == 64 { 1 } else { 16 };
            let p = fit_shared(ctx, p);
            // The generic 4-word ballot arithmetic (the device default folds it to fewer words).
            let d = RadixDebug {
                ballot_words: if wg == 64 { 4 } else { 0 },
                ..Default::default()
            };
            for alg in [
                SortAlgorithm::Onesweep,
                SortAlgorithm::ReduceThenScan,
                SortAlgorithm::Small,
            ] {
                for (key, value) in [
                    (KeyType::F32, ValueType::U64),
                    (KeyType::I64, ValueType::U32),
                ] {
                    let mut c = Case::new(key);
                    c.value = value;
                    c.algorithm = alg;
                    c.policy = Some(p);
                    c.debug = d;
                    c.order = Order::Descending;
                    let n = if alg == SortAlgorithm::Small {
                        p.small.max as usize - 1
                    } else {
                        3001
                    };
                    check(ctx, &c, &gen(key, Dist::FloatSpecials, n, wg as u64), None);
                }
            }
        }
    });
}

/// The policy variants `rank2` (CUB-style ranking), `keep_digit` (wide exchange), `match_or` and `sub_tiles`,
/// alone and together: every key type x value width x order at tile - 1, tile, tile + 1 (Onesweep and the
/// downsweep; with sub-tiles also where the last tile's sub-tiles are partly empty), then a few types at
/// 2^20 + 3, other workgroup/tile/digit shapes, and the forward-progress emulation.
#[test]
fn rank2_keep_digit_and_match_or_variants() {
    with_gpu(|ctx| {
        for (rank2, keep_digit, match_or, sub_tiles) in [
            (1, false, 0, 1),
            (2, false, 0, 1),
            (0, true, 0, 1),
            (2, true, 0, 1),
            (0, false, 1, 1),
            (2, false, 1, 1),
            (2, false, 2, 1),
            (2, false, 2, 2),
            (1, false, 0, 3),
        ] {
            let mut p = lavapipe_policy(ctx);
            p.tile.rank_counters = rank(rank2);
            p.tile.keep_digit = keep_digit;
            p.tile.peer_match = peer(match_or);
            p.tile.sub_tiles = sub_tiles;
            if match_or != 0 {
                // The lane masks take MAX_SUBGROUPS x 256 words more: half the workgroup fits 32 KiB.
                p.tile.workgroup_size =
                    (p.tile.workgroup_size / 2).max(ctx.caps().max_subgroup_size);
            }
            if sub_tiles > 1 {
                // Parked sub-tiles of 64-bit keys and values take 4 words per key: smaller sub-tiles fit 32 KiB.
                p.tile.items_per_invocation = 8 / sub_tiles;
            }
            let tile = p.tile() as usize;
            let mut sizes = vec![tile - 1, tile, tile + 1];
            if sub_tiles > 1 {
                // The last tile: a partial first sub-tile, then a partial last one.
                sizes.extend([tile + p.sub_tile() as usize / 2, 2 * tile - 7]);
            }
            for key in KeyType::WORD_KEYS {
                for value in ValueType::ALL {
                    for order in [Order::Ascending, Order::Descending] {
                        for (i, &n) in sizes.iter().enumerate() {
                            let dist = [Dist::Uniform, Dist::FewUnique, Dist::FloatSpecials][i % 3];
                            for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
                                if alg == SortAlgorithm::ReduceThenScan && i % 3 != 2 {
                                    continue;
                                }
                                let mut c = Case::new(key);
                                c.value = value;
                                c.order = order;
                                c.algorithm = alg;
                                c.policy = Some(p);
                                check(ctx, &c, &gen(key, dist, n, n as u64 + key as u64), None);
                            }
                        }
                    }
                }
            }
            // Early counts off, a few bit ranges and a multi-tile all-equal input (uniform-tile fast path).
            let mut q = p;
            q.lookback.early_counts = false;
            for (key, value, bits) in [
                (KeyType::U32, ValueType::U32, Some((8, 24))),
                (KeyType::I64, ValueType::U64, Some((13, 14))),
                (KeyType::F32, ValueType::None, None),
            ] {
                for dist in [Dist::AllEqual, Dist::Entropy(2)] {
                    let mut c = Case::new(key);
                    c.value = value;
                    c.bits = bits;
                    c.algorithm = SortAlgorithm::Onesweep;
                    c.policy = Some(q);
                    check(ctx, &c, &gen(key, dist, 5 * tile + 3, 5), None);
                }
            }
        }
        let mut p = lavapipe_policy(ctx);
        p.tile.rank_counters = RankCounters::Packed16;
        p.tile.keep_digit = true;
        p.upfront.vec4 = true;
        let n = (1 << 20) + 3;
        for (key, value, order) in [
            (KeyType::U32, ValueType::None, Order::Ascending),
            (KeyType::F32, ValueType::U32, Order::Descending),
            (KeyType::U64, ValueType::U64, Order::Ascending),
        ] {
            let mut c = Case::new(key);
            c.value = value;
            c.order = order;
            c.algorithm = SortAlgorithm::Onesweep;
            c.policy = Some(p);
            check(ctx, &c, &gen(key, Dist::Uniform, n, 11), None);
        }
        let mut c = Case::new(KeyType::U32);
        c.value = ValueType::U32;
        c.algorithm = SortAlgorithm::Onesweep;
        c.policy = Some(with(p, |q| q.tile.keep_digit = false));
        check(ctx, &c, &gen(KeyType::U32, Dist::Uniform, n, 12), None);
        c.policy = Some(with(p, |q| {
            q.tile.rank_counters = RankCounters::PerSubgroup
        }));
        check(ctx, &c, &gen(KeyType::U32, Dist::Uniform, n, 13), None);
        c.policy = Some(with(p, |q| q.tile.rank_counters = RankCounters::Scanned));
        check(ctx, &c, &gen(KeyType::U32, Dist::Uniform, n, 13), None);
        // Other shapes: workgroups smaller/larger than the radix, odd keys per thread, narrow digits.
        for (wg, kpt, digit_bits) in [(256, 5, 7), (64, 3, 8), (192, 1, 6), (128, 8, 4)] {
            for (rank2, keep_digit) in [(1, false), (2, false), (0, true), (2, true)] {
                let mut p = lavapipe_policy(ctx);
                p.tile.workgroup_size = fit_workgroup(ctx, wg);
                p.tile.items_per_invocation = kpt;
                p.tile.digit_bits = digit_bits;
                p.tile.rank_counters = rank(rank2);
                p.tile.keep_digit = keep_digit;
                let p = fit_shared(ctx, p);
                for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
                    for (key, value) in [
                        (KeyType::F32, ValueType::U64),
                        (KeyType::I64, ValueType::U32),
                        (KeyType::U32, ValueType::None),
                    ] {
                        let mut c = Case::new(key);
                        c.value = value;
                        c.algorithm = alg;
                        c.policy = Some(p);
                        c.order = Order::Descending;
                        check(
                            ctx,
                            &c,
                            &gen(key, Dist::FloatSpecials, 3001, wg as u64),
                            None,
                        );
                    }
                }
            }
        }
        // Forward progress: stalled tiles with both variants on.
        for (stall_every, spin) in [(2, 1), (3, 4)] {
            let mut p = lavapipe_policy(ctx);
            let d = RadixDebug {
                stall_every,
                ..Default::default()
            };
            p.lookback.spin_limit = spin;
            p.tile.rank_counters = rank(1 + stall_every % 2);
            p.tile.keep_digit = true;
            check_stalled(ctx, p, d);
            // Sub-tiles: the recount of a stalled predecessor covers all of its sub-tiles.
            p.tile.keep_digit = false;
            p.tile.sub_tiles = 2;
            p.tile.items_per_invocation = 4;
            check_stalled(ctx, p, d);
        }
    });
}

/// Exchange parts: the tile moves through shared memory in parts (keys per invocation that do and do not divide
/// evenly, every counter kind, sub-tiles, key and value widths, both Onesweep and reduce-then-scan, partial last
/// tiles and skewed digits); a policy that asks for parts with keep_digit or more parts than keys per invocation
/// is refused.
#[test]
fn exchange_parts() {
    with_gpu(|ctx| {
        for (kpt, parts, rank2, subs) in [(8, 2, 2, 1), (7, 3, 1, 1), (6, 6, 0, 1), (8, 2, 2, 2)] {
            let mut p = lavapipe_policy(ctx);
            // At most 128 invocations: two 256 x 8 sub-tiles with the device's lane masks need more than
            // the 48 KiB of shared memory of NVIDIA's driver (the shapes are what is tested here).
            p.tile.workgroup_size = p.tile.workgroup_size.min(128);
            p.tile.items_per_invocation = kpt;
            p.tile.exchange_parts = parts;
            p.tile.rank_counters = rank(rank2);
            p.tile.sub_tiles = subs;
            let tile = (p.tile.workgroup_size * kpt * subs) as usize;
            for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
                for (key, value, dist) in [
                    (KeyType::U32, ValueType::None, Dist::Uniform),
                    (KeyType::F32, ValueType::U32, Dist::FloatSpecials),
                    (KeyType::U64, ValueType::U64, Dist::Entropy(2)),
                    (KeyType::I32, ValueType::U64, Dist::FewUnique),
                ] {
                    let mut c = Case::new(key);
                    c.value = value;
                    c.algorithm = alg;
                    c.policy = Some(p);
                    c.order = if kpt % 2 == 0 {
                        Order::Ascending
                    } else {
                        Order::Descending
                    };
                    check(ctx, &c, &gen(key, dist, 5 * tile + 17, kpt as u64), None);
                }
            }
        }
        let p = lavapipe_policy(ctx);
        for bad in [
            with(p, |q| {
                q.tile.exchange_parts = 2;
                q.tile.keep_digit = true;
            }),
            with(p, |q| {
                q.tile.exchange_parts = q.tile.items_per_invocation + 1
            }),
            with(p, |q| q.tile.exchange_parts = 0),
        ] {
            let mut c = Case::new(KeyType::U32);
            c.algorithm = SortAlgorithm::Onesweep;
            c.policy = Some(bad);
            let r = c.sorter(ctx, 1024);
            assert!(
                matches!(r, Err(vksort::Error::InvalidPolicy { .. })),
                "{bad:?}"
            );
        }
    });
}

/// The upfront pass's 16-byte-vector variant: tails (n not a multiple of 4), keys per invocation that do and do
/// not allow it (scalar fallback), several chunks per workgroup, 64-bit keys, a GPU-side count.
#[test]
fn upfront_vec4_variant() {
    with_gpu(|ctx| {
        for (ukpt, ugroups) in [(8, 1), (4, 3), (6, 64), (16, 2)] {
            let mut p = lavapipe_policy(ctx);
            p.upfront.vec4 = true;
            p.upfront.items_per_invocation = ukpt;
            p.upfront.max_groups = ugroups;
            for (key, value) in [
                (KeyType::U32, ValueType::None),
                (KeyType::F64, ValueType::U32),
                (KeyType::I32, ValueType::U64),
            ] {
                for n in [2, 5, 4096, 4099, 20001] {
                    for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
                        let mut c = Case::new(key);
                        c.value = value;
                        c.algorithm = alg;
                        c.policy = Some(p);
                        let raw = gen(key, Dist::Uniform, n, n as u64 + ukpt as u64);
                        check(ctx, &c, &raw, None);
                        if n > 5 {
                            check(ctx, &c, &raw, Some(n - 3));
                        }
                    }
                }
            }
        }
    });
}

/// Portions (sorts cut into several look-back domains / source bindings) and wide writes (64-bit device
/// addresses), forced on small inputs through the policy: every portion boundary, partial last portions, a
/// GPU-side count that ends inside an earlier portion, stalled tiles across portions.
#[test]
fn portions_and_wide_writes() {
    with_gpu(|ctx| {
        if !ctx.caps().buffer_device_address {
            return common::skip("bda", "bufferDeviceAddress not available");
        }
        let cases = [
            (KeyType::U32, ValueType::U32),
            (KeyType::F64, ValueType::U64),
            (KeyType::U64, ValueType::None),
            (KeyType::I32, ValueType::U64),
        ];
        for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
            for (portion_tiles, force_wide) in [(3, false), (3, true), (0, true), (1, true)] {
                for (i, &(key, value)) in cases.iter().enumerate() {
                    let p = sort_policy(ctx, key, value);
                    let mut c = Case::new(key);
                    c.value = value;
                    c.algorithm = alg;
                    c.policy = Some(p);
                    c.debug = RadixDebug {
                        portion_tiles,
                        force_wide,
                        ..Default::default()
                    };
                    c.order = if i % 2 == 0 {
                        Order::Ascending
                    } else {
                        Order::Descending
                    };
                    let tile = p.tile() as usize;
                    for n in [3 * tile, 3 * tile + 1, 7 * tile + 5, 2 * tile - 1] {
                        check(ctx, &c, &gen(key, Dist::Uniform, n, n as u64), None);
                    }
                    check(ctx, &c, &gen(key, Dist::FewUnique, 5 * tile + 3, 7), None);
                    // GPU-side count ending in the second portion of a capacity of four.
                    let cap = 12 * tile + 1;
                    check(
                        ctx,
                        &c,
                        &gen(key, Dist::Uniform, cap, 11),
                        Some(4 * tile + 2),
                    );
                }
            }
        }
        // Stalled tiles inside portions: the fallback counts from the portion's keys.
        let mut p = lavapipe_policy(ctx);
        let d = RadixDebug {
            portion_tiles: 4,
            force_wide: true,
            stall_every: 3,
            ..Default::default()
        };
        p.lookback.spin_limit = 4;
        check_stalled(ctx, p, d);
    });
}

/// An array larger than one binding (lavapipe: maxStorageBufferRange = 128 MiB): the sort goes wide and cuts
/// the input into portions by itself.
#[test]
fn beyond_one_binding() {
    with_gpu(|ctx| {
        let range = ctx.caps().max_storage_buffer_range;
        if !ctx.caps().buffer_device_address || range > 256 << 20 {
            return common::skip(
                "bda",
                &format!(
                    "needs bufferDeviceAddress and maxStorageBufferRange <= 256 MiB (is {range})"
                ),
            );
        }
        let n = (range / 4) as usize + 1029;
        let mut c = Case::new(KeyType::U32);
        c.algorithm = SortAlgorithm::Onesweep;
        let sorter = c.sorter(ctx, n).unwrap();
        let layout = radix_of(&sorter).pick(n as u64).layout(n as u64);
        assert!(
            layout.portions.wide && layout.portions.count >= 2,
            "{layout:?}"
        );
        check(ctx, &c, &gen(KeyType::U32, Dist::Uniform, n, 5), None);
    });
}

/// A device of its own with the shader clock (the extension is enabled only when asked for at creation), or
/// None (the check is skipped and logged) where the clock or buffer device addresses are missing.
fn clock_context() -> Option<Arc<Context>> {
    let ctx = Context::new(vksort::ContextOptions {
        shader_clock: true,
        ..vksort::ContextOptions::from_env()
    })
    .expect("Vulkan context");
    if !ctx.caps().shader_clock || !ctx.caps().buffer_device_address {
        common::skip(
            "shader-clock",
            &format!(
                "{}: no shader clock or no bufferDeviceAddress",
                ctx.caps().name
            ),
        );
        return None;
    }
    Some(ctx)
}

#[test]
fn tile_clocks_record_every_tile() {
    let _guard = common::lock();
    let Some(ctx) = clock_context() else {
        return;
    };
    let policy = RadixPolicy::for_sort(ctx.caps(), KeyType::U32, ValueType::U32);
    let tile = policy.tile() as u64;
    let n = 5 * tile + 7;
    let config = SortConfig {
        key: KeyType::U32,
        value: ValueType::U32,
        algorithm: SortAlgorithm::Onesweep,
        max_n: n,
        ..Default::default()
    };
    let plain = sorter_with(&ctx, config, Some(policy), RadixDebug::default()).unwrap();
    let layout = radix_of(&plain).pick(n).layout(n);
    let tiles = layout.portions.count * layout.portions.tiles;
    // The places of the policy's digits (8 bits: 4), those where keys below 2^16 differ (8 bits: 2).
    let places = 32u64.div_ceil(policy.tile.digit_bits as u64);
    let live = 16u64.div_ceil(policy.tile.digit_bits as u64);
    let records = Buffer::device_local(&ctx, "test::clocks", places * tiles * 64).unwrap();
    let addr = records.device_address().unwrap();
    let sorter = sorter_with(
        &ctx,
        config,
        Some(policy),
        RadixDebug {
            tile_clocks: addr,
            ..Default::default()
        },
    )
    .unwrap();
    let mut rng = Rng(77);
    let keys: Vec<u32> = (0..n).map(|_| rng.next_u32() & 0xFFFF).collect();
    let vals: Vec<u32> = (0..n as u32).collect();
    let kb = Buffer::from_slice(&ctx, "test::keys", &keys).unwrap();
    let vb = Buffer::from_slice(&ctx, "test::vals", &vals).unwrap();
    let scratch = Buffer::device_local(
        &ctx,
        "test::scratch",
        sorter.storage_requirements(n).unwrap().scratch_bytes,
    )
    .unwrap();
    records
        .write(0, &vec![0u8; (places * tiles * 64) as usize])
        .unwrap();
    ctx.submit("test::clocks", |rec| {
        sorter.cmd_sort(rec, kb.as_ref(), Some(vb.as_ref()), scratch.as_ref(), n)
    })
    .unwrap();
    // The sort is still right (stable: values are the original indices).
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
    want.sort_by_key(|p| p.0);
    let got_k: Vec<u32> = kb.read_vec(n as usize).unwrap();
    let got_v: Vec<u32> = vb.read_vec(n as usize).unwrap();
    assert!(want.iter().map(|p| p.0).eq(got_k.iter().copied()));
    assert!(want.iter().map(|p| p.1).eq(got_v.iter().copied()));
    // Every place that ran left one record per tile, its phases in order. Keys below 2^16: the places above
    // bit 16 (8-bit digits: places 2 and 3) are skipped (every key has digit 0 there), so they leave no records.
    let words: Vec<u32> = records
        .read_vec((places * tiles) as usize * radix::clocks::RECORD_WORDS)
        .unwrap();
    for (p, chunk) in words
        .chunks_exact(tiles as usize * radix::clocks::RECORD_WORDS)
        .enumerate()
    {
        let recs = radix::clocks::decode(chunk);
        if p as u64 >= live {
            assert!(recs.is_empty(), "place {p} was skipped");
            continue;
        }
        assert_eq!(recs.len() as u64, tiles, "place {p}");
        let mut seen: Vec<u32> = recs.iter().map(|r| r.tile).collect();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..tiles as u32));
        for r in &recs {
            let set: Vec<u32> = r.cycles.iter().copied().filter(|&c| c != 0).collect();
            assert!(set.len() >= 4, "{r:?}");
            assert!(
                set.windows(2).all(|w| w[1].wrapping_sub(w[0]) < 1 << 31),
                "{r:?}"
            );
            assert!(r.end_ns >= r.entry_ns, "{r:?}");
        }
        assert!(radix::clocks::summarize(&recs).contains("whole tile"));
    }
    let errors = ctx.take_validation_errors();
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );
}

#[test]
fn msd_clocks_record_every_workgroup() {
    let _guard = common::lock();
    let Some(ctx) = clock_context() else {
        return;
    };
    // Small bucket tiles and no counted buckets: entropy-3 keys leave large buckets to the helpers.
    let mut policy = sort_policy(&ctx, KeyType::U32, ValueType::U32);
    policy.msd_bucket.items_per_invocation = 1;
    policy.msd.rank_max = 0;
    let n = 40 * policy.msd_bucket.workgroup_size as usize + 7;
    let radix_size = 1usize << policy.tile.digit_bits;
    let groups = radix_size + 2048;
    let records = Buffer::device_local(&ctx, "test::msd_clocks", groups as u64 * 64).unwrap();
    let c = msd_case(KeyType::U32, Order::Ascending, None, policy);
    let config = SortConfig {
        key: c.key,
        value: c.value,
        algorithm: SortAlgorithm::Msd,
        max_n: n as u64,
        ..Default::default()
    };
    let debug = RadixDebug {
        msd_clocks: records.device_address().unwrap(),
        ..Default::default()
    };
    let sorter = sorter_with(&ctx, config, Some(policy), debug).unwrap();
    let raw = gen(KeyType::U32, Dist::Entropy(3), n, 31);
    let keys: Vec<u32> = raw.iter().map(|&k| k as u32).collect();
    let vals: Vec<u32> = (0..n as u32).collect();
    let kb = Buffer::from_slice(&ctx, "test::keys", &keys).unwrap();
    let vb = Buffer::from_slice(&ctx, "test::vals", &vals).unwrap();
    let scratch = Buffer::device_local(
        &ctx,
        "test::scratch",
        sorter.storage_requirements(n as u64).unwrap().scratch_bytes,
    )
    .unwrap();
    records.write(0, &vec![0u8; groups * 64]).unwrap();
    ctx.submit("test::msd_clocks", |rec| {
        sorter.cmd_sort(
            rec,
            kb.as_ref(),
            Some(vb.as_ref()),
            scratch.as_ref(),
            n as u64,
        )
    })
    .unwrap();
    // The clocked kernel still sorts (stable: values are the original indices).
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(vals.iter().copied()).collect();
    want.sort_by_key(|p| p.0);
    assert!(want.iter().map(|p| p.0).eq(kb.read_vec::<u32>(n).unwrap()));
    assert!(want.iter().map(|p| p.1).eq(vb.read_vec::<u32>(n).unwrap()));
    // One record per bucket workgroup; the keys that the buckets and the helpers' shares wrote add up to n.
    use radix::clocks::msd::{decode, summarize, Path};
    let words: Vec<u32> = records.read_vec(groups * 16).unwrap();
    let recs = decode(&words);
    let buckets = recs.iter().filter(|r| {
        !matches!(
            r.path,
            Path::Share | Path::ShareCoop | Path::ShareGlobal | Path::Idle
        )
    });
    assert_eq!(buckets.count(), radix_size);
    assert!(
        recs.iter().any(|r| r.path == Path::Left),
        "no bucket left to the helpers"
    );
    let placed: u64 = recs
        .iter()
        .filter(|r| !matches!(r.path, Path::Left | Path::Idle))
        .map(|r| r.keys as u64)
        .sum();
    assert_eq!(placed, n as u64);
    // A bucket's helpers decide together whether they cooperate: its shares are all cooperative or all alone.
    for b in 0..radix_size as u32 {
        let coop = recs
            .iter()
            .any(|r| r.bucket == b && r.path == Path::ShareCoop);
        let alone = recs.iter().any(|r| r.bucket == b && r.path == Path::Share);
        assert!(!(coop && alone), "bucket {b}: cooperative and lone shares");
    }
    for r in &recs {
        let set: Vec<u32> = r.cycles.iter().copied().filter(|&c| c != 0).collect();
        assert!(set.len() >= 2, "{r:?}");
        assert!(
            set.windows(2).all(|w| w[1].wrapping_sub(w[0]) < 1 << 31),
            "{r:?}"
        );
        // The low words' difference: lavapipe's real-time clock keeps 32 bits (its high word stays 0), so a
        // workgroup alive across a 2^32 ns boundary ends "before" it began.
        assert!(
            (r.end_ns.wrapping_sub(r.entry_ns) as u32) < 1 << 31,
            "{r:?}"
        );
    }
    assert!(summarize(&recs, 4).contains("span"));
    let errors = ctx.take_validation_errors();
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );
}

/// Short tiles (`short.max`, `short.items_per_invocation`): sorts up to short.max keys run with the short tile,
/// larger ones with the full tile; sizes around both tiles and around short.max, host and GPU-side counts; the
/// scratch for a capacity covers every smaller sort.
#[test]
fn short_tiles_for_small_sorts() {
    with_gpu(|ctx| {
        let mut p = lavapipe_policy(ctx);
        p.short.items_per_invocation = 2;
        let short_tile = (p.tile.workgroup_size * 2) as usize;
        let tile = p.tile() as usize;
        p.short.max = (5 * short_tile + 3) as u32;
        let smax = p.short.max as usize;
        let sorter = sorter_with(
            ctx,
            SortConfig {
                ..Default::default()
            },
            Some(p),
            RadixDebug::default(),
        )
        .unwrap();
        assert_eq!(
            radix_of(&sorter).pick(smax as u64).policy.tile() as usize,
            short_tile
        );
        assert_eq!(
            radix_of(&sorter).pick(smax as u64 + 1).policy.tile() as usize,
            tile
        );
        let mut prev = 0;
        for n in (0..4 * smax as u64).step_by(97) {
            let b = sorter.storage_requirements(n).unwrap().scratch_bytes;
            assert!(b >= prev, "scratch for {n} keys shrank: {b} < {prev}");
            assert!(b >= radix_of(&sorter).pick(n).layout(n).total);
            prev = b;
        }
        let mut sizes = vec![
            short_tile - 1,
            short_tile,
            short_tile + 1,
            3 * short_tile + 1,
        ];
        sizes.extend(smax - 1..=smax + 1);
        sizes.extend([tile + 1, 2 * smax + 5]);
        for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
            for &n in &sizes {
                let mut c = Case::new(KeyType::U32);
                c.value = ValueType::U32;
                c.algorithm = alg;
                c.policy = Some(p);
                let raw = gen(c.key, Dist::Uniform, n, n as u64 + 7);
                check(ctx, &c, &raw, None);
                check(ctx, &c, &raw, Some(n - n / 3));
            }
        }
    });
}

/// Places whose keys all share one digit are skipped; with an even number of places the plan runs one of them
/// anyway when the passes to run would be odd, so the result lands in the caller's buffers without a copy (none
/// is recorded). Odd place counts still copy. Checked with values (stability) for both pass algorithms.
#[test]
fn skipped_places_and_the_final_side() {
    with_gpu(|ctx| {
        let n = 3 * lavapipe_policy(ctx).tile() as usize + 5;
        // Key masks: 1 place skipped (3 to run), 2 skipped, 3 skipped (1 to run), all skipped (all equal).
        for mask in [0x00ff_ffffu64, 0x0000_ffff, 0x0000_00ff, 0] {
            for bits in [None, Some((0, 24))] {
                for alg in [SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
                    let mut c = Case::new(KeyType::U32);
                    c.value = ValueType::U32;
                    c.algorithm = alg;
                    c.bits = bits;
                    let raw: Vec<u64> = gen(c.key, Dist::Uniform, n, mask ^ 0x55)
                        .into_iter()
                        .map(|k| k & mask)
                        .collect();
                    check(ctx, &c, &raw, None);
                    check(ctx, &c, &raw, Some(n - 7));
                }
            }
        }
    });
}

/// An explicit MSD sort of `key` with values of the key's width (the original index: stability), in `order` on
/// `bits`, under policy `p`.
fn msd_case(key: KeyType, order: Order, bits: Option<(u32, u32)>, p: RadixPolicy) -> Case {
    let mut c = Case::new(key);
    c.value = if key.bytes() == 8 {
        ValueType::U64
    } else {
        ValueType::U32
    };
    c.order = order;
    c.bits = bits;
    c.algorithm = SortAlgorithm::Msd;
    c.policy = Some(p);
    c
}

/// The device's policy with MSD bucket tiles of one key per invocation, split tiles of 3 times the device's (3
/// keys per invocation of 1024) and no counted buckets: small sorts reach the bucket pass's helpers. (Smaller
/// split tiles would need more shared memory for the bucket pass's runs than the device has.)
fn tiny_msd_policy(ctx: &Arc<Context>) -> RadixPolicy {
    let mut p = lavapipe_policy(ctx);
    p.msd_bucket.items_per_invocation = 1;
    p.msd_split.items_per_invocation = (p.msd_split.items_per_invocation * 3).min(32);
    p.msd.rank_max = 0;
    p
}

/// Skewed keys in the MSD sort: buckets larger than the bucket tile, shared by the bucket pass's helper
/// workgroups, divided one or more digits down (entropy-reduced keys), with nodes of equal keys (a copy), shares
/// larger than the bucket tile (sorted through global memory: few helpers), narrow float ranges and narrow ranges
/// across a word boundary (the split digit comes from the keys' range). Every key type with values (stability),
/// both orders, a bit range and a GPU-side count.
#[test]
fn msd_skewed_buckets_on_helpers() {
    with_gpu(|ctx| {
        let tiny = tiny_msd_policy(ctx);
        let tile = tiny.msd_bucket.workgroup_size as usize;
        let mut few = tiny;
        few.msd.helper_ratio = 1;
        let mut many = tiny;
        many.msd.helper_ratio = 8;
        many.msd.rank_max = tiny.msd_bucket.workgroup_size / 2;
        for key in KeyType::WORD_KEYS {
            let top = key.bits() - 1;
            let n = 40 * tile + 7;
            let mut r = Rng(key as u64 + 77);
            // 3/4 of the keys one value, the rest spread below the same top bits: a node of equal keys.
            let x = r.next_u64() & 0xffff_ff00;
            let crowded: Vec<u64> = (0..n)
                .map(|_| {
                    if r.next_u32() % 4 != 0 {
                        x
                    } else {
                        x ^ (r.next_u64() & 0xff_ffff)
                    }
                })
                .collect();
            // Depth-like floats in [1, 100) (a third of them in [64, 100)); integers: 12 random low bits under one top bit.
            let narrow: Vec<u64> = (0..n)
                .map(|_| {
                    let u = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    match key {
                        KeyType::F32 => (1.0 + 99.0 * u as f32).to_bits() as u64,
                        KeyType::F64 => (1.0 + 99.0 * u).to_bits(),
                        _ => (1u64 << (top - 1)) | (r.next_u64() & 0xfff),
                    }
                })
                .collect();
            // A narrow range across a word boundary (64-bit keys: the bias subtraction borrows from the high word;
            // i32: across the sign).
            let straddle: Vec<u64> = (0..n)
                .map(|_| {
                    let base = if key.bits() == 64 {
                        0xffff_f000u64
                    } else {
                        0x7fff_f000
                    };
                    base + (r.next_u64() & 0x1fff)
                })
                .collect();
            let dists = [
                gen(key, Dist::Entropy(3), n, key as u64 + 3),
                crowded,
                narrow,
                straddle,
            ];
            for raw in &dists {
                for (p, order, bits, gpu_n) in [
                    (tiny, Order::Ascending, None, None),
                    (few, Order::Descending, None, Some(n - 2 * tile)),
                    (many, Order::Ascending, Some((3, top)), None),
                ] {
                    let c = msd_case(key, order, bits, p);
                    check(ctx, &c, raw, gpu_n);
                }
            }
        }
    });
}

/// The MSD sort at its capacity on this device (lavapipe: within its loop budget, for the key width, the bucket
/// shape and the subgroup size; elsewhere 2^20 keys), for the keys that load one workgroup most: one bucket of
/// every key that no sample splits (all but 1 in 256 keys equal, the rest varying in every bit below the top
/// digit: one helper moves the whole bucket and sorts it through global memory on every place below the split
/// digit), and entropy-reduced keys. With values (stability) and a GPU-side count; one key more is refused.
#[test]
fn msd_at_capacity() {
    with_gpu(|ctx| {
        for key in [KeyType::U32, KeyType::U64] {
            let mut c = Case::new(key);
            c.value = ValueType::U32;
            c.algorithm = SortAlgorithm::Msd;
            let cap = radix_of(&c.sorter(ctx, 1).unwrap()).msd_max_keys();
            println!("{key:?}: MSD capacity {cap}");
            let n = cap as usize;
            let mut r = Rng(key as u64 + 91);
            let top = key.bits() - 8;
            let low = |r: &mut Rng| r.next_u64() & ((1u64 << top) - 1);
            let x = (0x5a << top) | low(&mut r);
            let one_share: Vec<u64> = (0..n)
                .map(|_| {
                    if r.next_u32() % 256 != 0 {
                        x
                    } else {
                        (0x5a << top) | low(&mut r)
                    }
                })
                .collect();
            check(ctx, &c, &one_share, None);
            check(
                ctx,
                &c,
                &gen(key, Dist::Entropy(3), n, key as u64 + 92),
                Some(n - 5),
            );
            refused_above(
                ctx,
                &c,
                cap,
                radix::MSD_MAX_KEYS,
                "msd",
                "the device has no loop budget: the MSD sort takes its full 2^20 keys",
            );
        }
    });
}

/// Cooperative MSD helpers (`msd.coop_min_keys`): a large bucket's helpers each read a part of it and exchange
/// counts, waiting for each other a bounded time. Buckets of many helpers (skewed and crowded keys), large
/// buckets cooperating beside smaller ones alone, a bucket of two helpers, and helpers that arrive late (stall
/// emulation: the others give up and each works alone). u32 and f64 keys with values (stability), both orders,
/// a GPU-side count; each against the CPU reference. (lavapipe runs one workgroup at a time, so there the
/// helpers always end up alone.)
#[test]
fn msd_cooperative_helpers() {
    with_gpu(|ctx| {
        let mut coop = tiny_msd_policy(ctx);
        coop.msd.coop_min_keys = 1;
        let tile = coop.msd_bucket.workgroup_size as usize;
        let mut pair = coop;
        pair.msd.helper_ratio = 1;
        // Entropy-3 keys: the bucket of top digit 0 (~1/3 of the keys) cooperates, those of one bit set (~8%
        // each) work alone.
        let mut mixed = coop;
        mixed.msd.coop_min_keys = 8 * tile as u32;
        let mut hurried = coop;
        hurried.lookback.spin_limit = 1;
        let stalled = RadixDebug {
            stall_every: 2,
            ..Default::default()
        };
        for key in [KeyType::U32, KeyType::F64] {
            let mut r = Rng(key as u64 + 5);
            // 3/4 of the keys one value: one bucket holds them (a node of equal keys).
            let x = r.next_u64() & 0xffff_ff00;
            let mut crowded = |n: usize| -> Vec<u64> {
                (0..n)
                    .map(|_| {
                        if r.next_u32() % 4 != 0 {
                            x
                        } else {
                            x ^ (r.next_u64() & 0xff_ffff)
                        }
                    })
                    .collect()
            };
            let n = 40 * tile + 7;
            let many = [gen(key, Dist::Entropy(3), n, key as u64 + 3), crowded(n)];
            // 1.9 bucket tiles, one helper per tile: two helpers, both on the crowded bucket.
            let two = crowded(tile * 19 / 10);
            for (i, raw) in many.iter().chain([&two]).enumerate() {
                let order = if i % 2 == 0 {
                    Order::Ascending
                } else {
                    Order::Descending
                };
                for (p, d, gpu_n) in [
                    ([mixed, coop, pair][i], RadixDebug::default(), None),
                    (coop, stalled, Some(raw.len() - 3)),
                    (hurried, stalled, None),
                ] {
                    let mut c = msd_case(key, order, None, p);
                    c.debug = d;
                    check(ctx, &c, raw, gpu_n);
                }
            }
        }
    });
}

/// Cooperating MSD helpers in bucket workgroups of 512 and 1024 invocations, where the device has them (not on
/// lavapipe: 256): the cases that sorted wrongly on an H200 when the workgroup scan's total was wrong there
/// (the bucket's key count in `find_runs`, the rank's digit totals; glsl/include/wg_scan.glsl): u64 keys, u64
/// keys with u32 values and u32 pairs, entropy-3, few-unique and uniform keys, at 2^18 and 2^20 keys.
#[test]
fn msd_wide_bucket_workgroups() {
    with_gpu(|ctx| {
        let plan = vksort::policy::SubgroupPlan::for_device(ctx.caps());
        for wg in [512u32, 1024] {
            if wg > ctx.caps().max_workgroup_invocations {
                common::skip(
                    "workgroup-invocations",
                    &format!("no bucket workgroups of {wg} invocations"),
                );
                continue;
            }
            for (key, value) in [
                (KeyType::U64, ValueType::None),
                (KeyType::U64, ValueType::U32),
                (KeyType::U32, ValueType::U32),
            ] {
                let mut p = sort_policy(ctx, key, value);
                p.msd_bucket.workgroup_size = wg;
                p.msd_bucket.items_per_invocation = 4;
                p.msd_bucket.max_items_per_invocation = 4;
                p.msd.coop_min_keys = 1;
                // Within the device's shared memory: narrower digits where 8-bit ones do not fit (lavapipe at
                // subgroups of 16: 32 subgroups of 256 counters take all of its 32 KiB).
                while p.check(ctx.caps(), &plan).is_err() && p.tile.digit_bits > 4 {
                    p.tile.digit_bits -= 1;
                }
                let mut c = Case::new(key);
                c.value = value;
                c.algorithm = SortAlgorithm::Msd;
                c.policy = Some(p);
                for (i, dist) in [Dist::Entropy(3), Dist::FewUnique, Dist::Uniform]
                    .into_iter()
                    .enumerate()
                {
                    for n in [(1usize << 18) + 5, (1 << 20) - 3] {
                        check(ctx, &c, &gen(key, dist, n, 40 + i as u64), None);
                    }
                }
            }
        }
    });
}

/// The MSD sort's three bucket paths: buckets placed by counting (up to `msd.rank_max` keys, one or several per
/// invocation), sorted in registers, and larger than the bucket tile, sorted by one workgroup through global
/// memory (forced here with 1-key-per-invocation bucket tiles and keys crowded into few split digits). Every key
/// type with values (stability), both orders, bit ranges, host and GPU-side counts; and the size limit.
#[test]
fn msd_buckets_large_and_small() {
    with_gpu(|ctx| {
        let base = lavapipe_policy(ctx);
        let tiny = tiny_msd_policy(ctx);
        let bucket_tile = tiny.msd_bucket.workgroup_size as usize;
        // Buckets up to half the bucket tile counted, up to the tile in registers, larger ones alone.
        let mut mixed = tiny;
        mixed.msd.rank_max = tiny.msd_bucket.workgroup_size / 2;
        // Every bucket up to 4 keys per invocation counted.
        let mut counted = base;
        counted.msd.rank_max = 4 * base.msd_bucket.workgroup_size;
        for key in KeyType::WORD_KEYS {
            for (i, dist) in [
                Dist::Entropy(4),
                Dist::FewUnique,
                Dist::Runs,
                Dist::Uniform,
                Dist::FloatSpecials,
            ]
            .into_iter()
            .enumerate()
            {
                for (p, order, bits) in [
                    (tiny, Order::Ascending, None),
                    (tiny, Order::Descending, Some((3, 29))),
                    (mixed, Order::Ascending, Some((3, 29))),
                    (mixed, Order::Descending, None),
                    (base, Order::Descending, None),
                ] {
                    let c = msd_case(key, order, bits, p);
                    let n = 20 * bucket_tile + 3 + i;
                    let raw = gen(key, dist, n, 31 * i as u64 + key as u64);
                    check(ctx, &c, &raw, None);
                    check(ctx, &c, &raw, Some(n - n / 4));
                }
            }
            // Keys over 4 split digits (top bits), buckets of ~n / 4 keys: counted, up to 4 keys per invocation.
            let n = 3 * counted.msd.rank_max as usize + 5;
            let mut r = Rng(key as u64 + 9);
            let raw: Vec<u64> = (0..n)
                .map(|_| (r.next_u64() % 4) << (key.bits() - 2) | (r.next_u64() & 0xffff))
                .collect();
            for order in [Order::Ascending, Order::Descending] {
                let mut c = Case::new(key);
                c.value = ValueType::U32;
                c.order = order;
                c.algorithm = SortAlgorithm::Msd;
                c.policy = Some(counted);
                check(ctx, &c, &raw, None);
                check(ctx, &c, &raw, Some(n - 7));
            }
            // Every key in one bucket, differing only below the split digit: all of them take the large path.
            let n = 9 * bucket_tile + 1;
            let mut r = Rng(key as u64 + 5);
            let raw: Vec<u64> = (0..n)
                .map(|i| {
                    let outlier = if i == n / 2 {
                        1u64 << (key.bits() - 1)
                    } else {
                        0
                    };
                    outlier | (r.next_u64() & 0xfff)
                })
                .collect();
            let mut c = Case::new(key);
            c.value = ValueType::U32;
            c.algorithm = SortAlgorithm::Msd;
            c.policy = Some(tiny);
            check(ctx, &c, &raw, None);
        }
        // One key above the MSD sort's limit: refused when the sorter is made.
        let n = radix::MSD_MAX_KEYS + 1;
        let r = Sorter::new(
            ctx,
            SortConfig {
                algorithm: SortAlgorithm::Msd,
                max_n: n,
                ..Default::default()
            },
        );
        assert!(
            matches!(
                r,
                Err(Error::AlgorithmLimit {
                    algorithm: "msd",
                    max,
                    n: m,
                }) if max <= radix::MSD_MAX_KEYS && m == n
            ),
            "{:?}",
            r.err()
        );
    });
}

/// Keys, order, bit range and GPU-side count of one hybrid sort case.
type HybridCase = (Vec<u64>, Order, Option<(u32, u32)>, Option<usize>);

/// The MSD hybrid sort: one and two MSD places (with a small group tile, so that a few thousand keys make many
/// groups), skewed keys whose groups outgrow the group tile (sorted through global memory), keys whose top
/// places all agree (the groups move down to the places that vary), every key type with values (stability),
/// both orders, a bit range, GPU-side counts, and the edge sizes with the device's policy.
#[test]
fn hybrid_sort() {
    with_gpu(|ctx| {
        // A group tile of 128 keys in 128 x 1 (a wide workgroup keeps a group of every key within a CPU
        // driver's loop budget up to a few tens of thousands of keys: each case is cut to the capacity).
        let mut tiny = lavapipe_policy(ctx);
        tiny.hybrid.workgroup_size = 128;
        tiny.hybrid.items_per_invocation = 1;
        for key in KeyType::WORD_KEYS {
            let top = key.bits() - 1;
            let value = if key.bytes() == 8 {
                ValueType::U64
            } else {
                ValueType::U32
            };
            let mut r = Rng(key as u64 + 99);
            // Only the low 12 bits vary: every place above them is skipped.
            let low: Vec<u64> = (0..9000).map(|_| r.next_u64() & 0xfff).collect();
            let float = matches!(key, KeyType::F32 | KeyType::F64);
            let cases: [HybridCase; 8] = [
                // One MSD place (5000 >> 8 keys per prefix, within the 7/8-tile target).
                (
                    gen(key, Dist::Uniform, 5000, 1),
                    Order::Ascending,
                    None,
                    None,
                ),
                // Two MSD places, a GPU-side count below the capacity.
                (
                    gen(key, Dist::Uniform, 40_000, 2),
                    Order::Descending,
                    None,
                    Some(39_001),
                ),
                (
                    gen(key, Dist::Entropy(3), 20_000, 3),
                    Order::Ascending,
                    Some((3, top)),
                    None,
                ),
                (
                    gen(
                        key,
                        if float {
                            Dist::FloatSpecials
                        } else {
                            Dist::FewUnique
                        },
                        12_000,
                        4,
                    ),
                    Order::Descending,
                    None,
                    None,
                ),
                (
                    gen(key, Dist::AllEqual, 3000, 5),
                    Order::Ascending,
                    None,
                    Some(2999),
                ),
                (low.clone(), Order::Ascending, None, None),
                // Presorted input both ways (every group's keys arrive in one run).
                (
                    gen(key, Dist::Sorted, 5000, 6),
                    Order::Ascending,
                    None,
                    None,
                ),
                (
                    gen(key, Dist::Reverse, 5000, 7),
                    Order::Ascending,
                    None,
                    None,
                ),
            ];
            for (mut raw, order, bits, gpu_n) in cases {
                let mut c = Case::new(key);
                c.value = value;
                c.order = order;
                c.bits = bits;
                c.algorithm = SortAlgorithm::Hybrid;
                c.policy = Some(tiny);
                // Within the device's capacity for this shape (lavapipe: its loop budget), the GPU-side count
                // as far below it.
                let n = raw.len().min(hybrid_capacity(ctx, &c) as usize);
                let gpu_n = gpu_n.map(|m| n - (raw.len() - m).min(n - 1));
                raw.truncate(n);
                check(ctx, &c, &raw, gpu_n);
            }
        }
        // One group holding 90% of the keys (one workgroup sorts it through global memory), at the sorter's
        // hybrid capacity (lavapipe: within its loop budget, for the shape and subgroup size) or 2^16 keys; one
        // key more is refused.
        for (key, value) in [
            (KeyType::U32, ValueType::None),
            (KeyType::U64, ValueType::U64),
        ] {
            let mut c = Case::new(key);
            c.value = value;
            c.algorithm = SortAlgorithm::Hybrid;
            let cap = hybrid_capacity(ctx, &c);
            let n = cap.min(1 << 16) as usize;
            let mut r = Rng(key as u64 + 5);
            let top = key.bits() - 16;
            let raw: Vec<u64> = (0..n)
                .map(|_| {
                    let x = if key.bytes() == 8 {
                        r.next_u64()
                    } else {
                        r.next_u64() & 0xffff_ffff
                    };
                    if r.next_u32() % 10 != 0 {
                        (0x1234 << top) | (x & ((1 << top) - 1))
                    } else {
                        x
                    }
                })
                .collect();
            check(ctx, &c, &raw, None);
            // Every key in one group with every bit below the top byte varying: the most places the group
            // pass sorts, through global memory (the capacity keeps it within a CPU driver's loop budget).
            let one: Vec<u64> = (0..n)
                .map(|_| {
                    (0x12 << (key.bits() - 8)) | (r.next_u64() & ((1 << (key.bits() - 8)) - 1))
                })
                .collect();
            check(ctx, &c, &one, None);
            refused_above(
                ctx,
                &c,
                cap,
                radix::MAX_KEYS,
                "hybrid",
                "the device's hybrid capacity is the radix key limit: no count above it to refuse",
            );
        }
        // Edge sizes around the device policy's group tile.
        let p = sort_policy(ctx, KeyType::U32, ValueType::U32);
        let t = p.hybrid_tile() as usize;
        let mut c = Case::new(KeyType::U32);
        c.value = ValueType::U32;
        c.algorithm = SortAlgorithm::Hybrid;
        let cap = hybrid_capacity(ctx, &c) as usize;
        for n in [
            0,
            1,
            2,
            3,
            t - 1,
            t,
            t + 1,
            2 * t + 5,
            (256 * t + 3).min(cap),
        ] {
            let mut c = Case::new(KeyType::U32);
            c.value = ValueType::U32;
            c.algorithm = SortAlgorithm::Hybrid;
            check(
                ctx,
                &c,
                &gen(KeyType::U32, Dist::Uniform, n, n as u64),
                None,
            );
        }
    });
}

/// The hybrid sort's shape: the fewest MSD places whose prefixes hold at most 7/8 of the group tile, groups up
/// to 2^16, one place of keys: none.
#[test]
fn hybrid_geometry() {
    let mut p = with_gpu(lavapipe_policy);
    p.tile.digit_bits = 8;
    p.hybrid.workgroup_size = 256;
    p.hybrid.items_per_invocation = 20;
    // 32-bit keys: 4 places of 8 bits; target 4480 keys per group.
    assert_eq!(p.hybrid_geometry(4, 32, 1 << 28), (2, 16));
    assert_eq!(p.hybrid_geometry(4, 32, 1 << 24), (2, 12));
    assert_eq!(p.hybrid_geometry(4, 32, 1 << 20), (1, 8));
    assert_eq!(p.hybrid_geometry(4, 32, 1000), (1, 0));
    // 64-bit keys at 2^30: three places, 2^16 groups.
    assert_eq!(p.hybrid_geometry(8, 64, 1 << 30), (3, 16));
    assert_eq!(p.hybrid_geometry(1, 8, 1 << 20), (0, 0));
}
