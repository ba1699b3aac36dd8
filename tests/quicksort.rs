//! The GPU quicksort: every key type (u128 too), value width and order against the CPU reference (keys bitwise,
//! values kept beside their keys: the sort is not stable), sizes around the phase-two tile and the phase-one
//! threshold, distributions, worst cases for both pivot rules and for phase two's median of three (and the
//! fallbacks they end in), bit ranges, GPU-side counts, recording without building pipelines, bad input, wide
//! local workgroups.
mod common;
use common::sorting::{check, check_with, gen, sizes_around, Case, Dist};
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::Buffer;
use vksort::sort::quicksort::{PivotMode, QuicksortPolicy, QuicksortSort, SCRATCH_USAGE};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error, Policy};

const ALGO: SortAlgorithm = SortAlgorithm::Quicksort;

/// The device's policy for `c`.
fn policy(ctx: &Arc<Context>, c: &Case) -> QuicksortPolicy {
    let s = Sorter::new(ctx, c.config(1)).unwrap();
    s.backend::<QuicksortSort>().unwrap().policy
}

/// `p` with the changes of `f` (the policy is `#[non_exhaustive]`: no struct literals here).
fn with(mut p: QuicksortPolicy, f: impl FnOnce(&mut QuicksortPolicy)) -> QuicksortPolicy {
    f(&mut p);
    p
}

fn sorter(ctx: &Arc<Context>, c: &Case, max_n: usize, p: Option<QuicksortPolicy>) -> Sorter {
    let b = Sorter::builder(ctx, c.config(max_n));
    match p {
        Some(p) => b.tuning(p).build().unwrap(),
        None => b.build().unwrap(),
    }
}

/// (local tile, local_max) of the device's policy for `c`.
fn limits(ctx: &Arc<Context>, c: &Case) -> (usize, usize) {
    let p = policy(ctx, c);
    (p.local_tile() as usize, p.local_max as usize)
}

fn key_mask(key: KeyType) -> u128 {
    match key.bits() {
        128 => u128::MAX,
        b => (1u128 << b) - 1,
    }
}

/// A median-of-three killer for phase two (ascending unsigned keys): every three-way partition around the
/// median of the first, middle and last key splits off only the two smallest keys. Phase two's partition keeps
/// each part in input order, so the construction follows it: at each level the first key gets the next rank,
/// the middle one the rank after it (the median of the three, the last key being any larger one), and the rest
/// keep their order as the next level's sequence.
fn median3_killer(n: usize) -> Vec<u128> {
    let mut rank = vec![0u128; n];
    let mut cur: Vec<usize> = (0..n).collect();
    let mut next = 0u128;
    while cur.len() > 2 {
        let mid = cur.len() / 2;
        rank[cur[0]] = next;
        rank[cur[mid]] = next + 1;
        next += 2;
        cur = cur
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != 0 && j != mid)
            .map(|(_, &i)| i)
            .collect();
    }
    for i in cur {
        rank[i] = next;
        next += 1;
    }
    rank
}

/// Keys 2^(i mod bits), repeated (unsigned keys): the midpoint of the key range splits off one power of two per
/// round (the min/max rule's worst case).
fn powers_of_two(key: KeyType, n: usize) -> Vec<u128> {
    let b = key.bits() as usize;
    (0..n).map(|i| 1u128 << (i * 7 % b)).collect()
}

/// quicksort.glsl's qs_hash (lowbias32), which places the sampled keys.
fn qs_hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Large uniform keys with the smallest keys at the positions phase one samples in round 0 (the sample rule's
/// worst case: its median is near the minimum).
fn sample_killer(key: KeyType, n: usize, sample: usize, seed: u64) -> Vec<u128> {
    let mask = key_mask(key);
    let top = 1u128 << (key.bits() - 1);
    let mut r = Rng(seed);
    let mut v: Vec<u128> = (0..n)
        .map(|_| (((r.next_u64() as u128) << 64 | r.next_u64() as u128) & mask) | top)
        .collect();
    let step = n / sample;
    for i in 0..sample {
        let jitter = qs_hash((i as u32).wrapping_mul(0x9e37_79b9)) as usize % step;
        v[i * step + jitter] = i as u128;
    }
    v
}

#[test]
fn name_and_flags() {
    assert_eq!(SortAlgorithm::from_name("quicksort"), Some(ALGO));
    assert_eq!(ALGO.name(), "quicksort");
    assert!(!ALGO.stable());
    assert!(SortAlgorithm::ALL.contains(&ALGO));
    assert!(vksort::sort::registry::families()
        .any(|(name, algs)| name == "quicksort" && algs == [ALGO]));
    with_gpu(|ctx| {
        let p = with(policy(ctx, &Case::new(ALGO, KeyType::U32)), |p| {
            p.workgroup_size = 128;
            p.items_per_invocation = 8;
            p.local_workgroup_size = 128;
            p.local_items_per_invocation = 8;
            p.local_max = 4096;
            p.extra_rounds = 4;
            p.max_rounds = 64;
            p.pivot = PivotMode::Sample;
            p.local_depth_limit = u32::MAX;
        });
        assert_eq!(p.rounds(4096), 0);
        assert_eq!(p.rounds(4097), 1 + 4);
        assert_eq!(p.rounds(1 << 20), 8 + 4);
        let q = p
            .with_overrides(
                "pivot=0, local_max=8192,extra_rounds=2,max_rounds=3,local_depth_limit=5,workgroup_size=64,\
                 items_per_invocation=4,local_workgroup_size=256,local_items_per_invocation=2",
            )
            .unwrap();
        assert_eq!(q.pivot, PivotMode::MinMax);
        assert_eq!(
            (
                q.local_max,
                q.extra_rounds,
                q.max_rounds,
                q.local_depth_limit
            ),
            (8192, 2, 3, 5)
        );
        assert_eq!(
            (
                q.workgroup_size,
                q.items_per_invocation,
                q.local_workgroup_size,
                q.local_items_per_invocation
            ),
            (64, 4, 256, 2)
        );
        assert_eq!(q.rounds(1 << 20), 3);
        for bad in [
            "pivot=2",
            "nope=1",
            "wg=64",
            "workgroup_size",
            "workgroup_size=x",
        ] {
            assert!(
                matches!(p.with_overrides(bad), Err(Error::InvalidPolicy { .. })),
                "{bad}"
            );
        }
    });
}

#[test]
fn every_key_type_and_value() {
    with_gpu(|ctx| {
        for key in KeyType::ALL {
            for value in [ValueType::None, ValueType::U32, ValueType::U64] {
                let c = Case {
                    value,
                    ..Case::new(ALGO, key)
                };
                let (tile, lm) = limits(ctx, &c);
                let big = 3 * lm + 17;
                let s = sorter(ctx, &c, big, None);
                for (i, n) in [0, 1, 2, 3, 100, tile + 1, lm + 1, big]
                    .into_iter()
                    .enumerate()
                {
                    let raw = gen(key, Dist::FloatSpecials, n, 17 + i as u64);
                    check_with(ctx, &s, &c, &raw, None, false);
                }
            }
        }
    });
}

#[test]
fn descending() {
    with_gpu(|ctx| {
        for key in KeyType::ALL {
            let c = Case {
                value: ValueType::U32,
                order: Order::Descending,
                ..Case::new(ALGO, key)
            };
            let (_, lm) = limits(ctx, &c);
            let big = 2 * lm + 3;
            let s = sorter(ctx, &c, big, None);
            for (i, n) in [2, 1000, big].into_iter().enumerate() {
                check_with(
                    ctx,
                    &s,
                    &c,
                    &gen(key, Dist::FloatSpecials, n, 3 + i as u64),
                    None,
                    false,
                );
            }
        }
    });
}

#[test]
fn sizes_around_the_limits() {
    with_gpu(|ctx| {
        for value in [ValueType::None, ValueType::U32] {
            let c = Case {
                value,
                ..Case::new(ALGO, KeyType::U32)
            };
            let (tile, lm) = limits(ctx, &c);
            let mut sizes = sizes_around(tile);
            sizes.extend(lm - 2..=lm + 2);
            sizes.extend([2 * lm - 1, 2 * lm + 1, 5 * lm + 3]);
            sizes.sort_unstable();
            sizes.dedup();
            let s = sorter(ctx, &c, *sizes.iter().max().unwrap(), None);
            for (i, &n) in sizes.iter().enumerate() {
                check_with(
                    ctx,
                    &s,
                    &c,
                    &gen(KeyType::U32, Dist::Uniform, n, i as u64),
                    None,
                    false,
                );
            }
        }
    });
}

#[test]
fn other_tilings() {
    // Phase one with 16 keys per invocation (the chunk scan then takes several entries per invocation), phase
    // two with 2, a local_max that is no power of two.
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U64)
        };
        let p = with(policy(ctx, &c), |p| {
            p.workgroup_size = 64;
            p.items_per_invocation = 16;
            p.local_workgroup_size = 128;
            p.local_items_per_invocation = 2;
            p.local_max = 3000;
        });
        let sizes = [5, 255, 257, 1023, 1025, 2999, 3001, 7000, 20011];
        let s = sorter(ctx, &c, 20011, Some(p));
        for (i, n) in sizes.into_iter().enumerate() {
            for dist in [Dist::Uniform, Dist::FewUnique] {
                check_with(
                    ctx,
                    &s,
                    &c,
                    &gen(KeyType::U64, dist, n, 70 + i as u64),
                    None,
                    false,
                );
            }
        }
    });
}

/// Phase two's local sort in wide workgroups: 512 x 2, 512 x 4 and 1024 x 4 with one-word keys and 256 x 2 with
/// two-word keys once placed the "=" and ">" classes of a partition chunk shorter than a tile wrongly on NVIDIA
/// (the chunk scan's total), with sizes whose last chunk is short. Devices run the shapes their workgroups hold
/// (lavapipe: the 256-wide one).
#[test]
fn wide_local_workgroups() {
    with_gpu(|ctx| {
        for (wg, kpt, key, value) in [
            (512, 4, KeyType::U32, ValueType::None),
            (512, 2, KeyType::U32, ValueType::None),
            (512, 4, KeyType::U32, ValueType::U32),
            (1024, 4, KeyType::U32, ValueType::None),
            (256, 2, KeyType::U64, ValueType::None),
        ] {
            if wg > ctx.caps().max_workgroup_invocations {
                continue;
            }
            let c = Case {
                value,
                ..Case::new(ALGO, key)
            };
            let p = with(policy(ctx, &c), |p| {
                p.local_workgroup_size = wg;
                p.local_items_per_invocation = kpt;
            });
            let tile = (wg * kpt) as usize;
            let sizes = [tile, tile + 1, tile + 5, 2 * tile + 11, 3 * tile, 10007];
            let s = sorter(ctx, &c, *sizes.iter().max().unwrap(), Some(p));
            for (i, n) in sizes.into_iter().enumerate() {
                for dist in [Dist::Uniform, Dist::FewUnique] {
                    check_with(ctx, &s, &c, &gen(key, dist, n, 90 + i as u64), None, false);
                }
            }
        }
    });
}

#[test]
fn large() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let n = (1 << 20) + 7;
        check(
            ctx,
            &c,
            &gen(KeyType::U32, Dist::Uniform, n, 5),
            None,
            false,
        );
    });
}

#[test]
fn distributions() {
    with_gpu(|ctx| {
        // Every distribution in both orders (alternating by configuration).
        for (i, (key, pivot)) in [
            (KeyType::U32, PivotMode::Sample),
            (KeyType::U32, PivotMode::MinMax),
            (KeyType::F32, PivotMode::Sample),
            (KeyType::I64, PivotMode::MinMax),
            (KeyType::F64, PivotMode::Sample),
            (KeyType::U128, PivotMode::Sample),
            (KeyType::U128, PivotMode::MinMax),
        ]
        .into_iter()
        .enumerate()
        {
            let c = Case {
                value: ValueType::U32,
                order: Order::ALL[i % 2],
                ..Case::new(ALGO, key)
            };
            let p = with(policy(ctx, &c), |p| p.pivot = pivot);
            let n = 4 * p.local_max as usize + 333;
            let s = sorter(ctx, &c, n, Some(p));
            common::sorting::check_distributions(ctx, &s, &c, n, false);
        }
    });
}

#[test]
fn worst_cases() {
    with_gpu(|ctx| {
        for key in [KeyType::U32, KeyType::U64] {
            let c = Case {
                value: ValueType::U32,
                ..Case::new(ALGO, key)
            };
            let dev = policy(ctx, &c);
            let lm = dev.local_max as usize;
            let n = 4 * lm + 5;
            let sample = dev.workgroup_size as usize;
            let inputs: Vec<(&str, Vec<u128>)> = vec![
                ("sorted", gen(key, Dist::Sorted, n, 1)),
                ("reverse", gen(key, Dist::Reverse, n, 2)),
                ("all equal", gen(key, Dist::AllEqual, n, 3)),
                ("two values", gen(key, Dist::TwoValues, n, 4)),
                ("organ pipe", gen(key, Dist::OrganPipe, n, 5)),
                ("median-of-three killer", median3_killer(n)),
                ("powers of two", powers_of_two(key, n)),
                ("sample killer", sample_killer(key, n, sample, 6)),
            ];
            // The device policy with either pivot rule; phase two only by its fallback (depth 0); phase one cut
            // short (one round), its leftovers sorted by phase two alone, with and without the fallback.
            let policies = [
                dev,
                with(dev, |p| p.pivot = PivotMode::MinMax),
                with(dev, |p| p.local_depth_limit = 0),
                with(dev, |p| p.max_rounds = 1),
                with(dev, |p| {
                    p.max_rounds = 1;
                    p.local_depth_limit = 0;
                    p.pivot = PivotMode::MinMax;
                }),
            ];
            for p in policies {
                let s = sorter(ctx, &c, n, Some(p));
                for (name, raw) in &inputs {
                    eprintln!("{key:?} {name} {p:?}");
                    check_with(ctx, &s, &c, raw, None, false);
                }
                // Phase two alone (one workgroup sorts all): its median-of-three killer.
                check_with(ctx, &s, &c, &median3_killer(lm), None, false);
            }
        }
    });
}

/// Sorts `raw` and reads the bookkeeping: (phase-one rounds that had sequences, the longest sort job queued).
fn phase_one_trace(ctx: &Arc<Context>, s: &Sorter, c: &Case, raw: &[u128]) -> (u32, u32) {
    use vksort::sort::quicksort::layout::{JOB_WORDS, RS_WORDS};
    let n = raw.len();
    let words = common::sorting::to_words(raw, c.key);
    let kb = Buffer::from_slice(ctx, "test::keys", &words).unwrap();
    let vb =
        Buffer::from_slice(ctx, "test::vals", &common::sorting::values_for(n, c.value)).unwrap();
    let req = s.storage_requirements(n as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
    let vals = (c.value != ValueType::None).then(|| vb.as_ref());
    ctx.submit("test::sort", |rec| {
        s.cmd_sort(rec, kb.as_ref(), vals, scratch.as_ref(), n as u64)
    })
    .unwrap();
    let lay = s.backend::<QuicksortSort>().unwrap().layout(n as u64);
    let m = scratch
        .read_vec::<u32>((lay.meta_bytes / 4) as usize)
        .unwrap();
    let rs = |r: u32, w: u64| m[(lay.rs_off as u64 + r as u64 * RS_WORDS + w) as usize];
    let used = (0..lay.rounds).filter(|&r| rs(r, 1) > 0).count() as u32;
    let jobs = rs(lay.rounds, 0);
    let longest = (0..jobs)
        .map(|q| (lay.queue_off as u64 + q as u64 * JOB_WORDS) as usize)
        .filter(|&j| m[j + 2] & 2 == 0)
        .map(|j| m[j + 1])
        .max()
        .unwrap_or(0);
    (used, longest)
}

#[test]
fn phase_one_progress() {
    // Sorting correctly proves nothing about the pivots (phase two sorts whatever phase one leaves): the rounds
    // used and the jobs queued do. Both rules with their fallbacks split these inputs within a few rounds of
    // the ceil(log2(n / local_max)) perfect splits need, and leave no sequence longer than local_max.
    with_gpu(|ctx| {
        for (key, bits) in [(KeyType::U32, None), (KeyType::U128, Some((60, 100)))] {
            let c = Case {
                value: ValueType::U32,
                bits,
                ..Case::new(ALGO, key)
            };
            let dev = policy(ctx, &c);
            let lm = dev.local_max as usize;
            let n = 16 * lm + 5;
            let need = 5;
            let inputs = [
                ("uniform", gen(key, Dist::Uniform, n, 1)),
                ("gaussian", gen(key, Dist::Gaussian, n, 2)),
                ("staggered", gen(key, Dist::Staggered, n, 3)),
                ("powers of two", powers_of_two(key, n)),
                (
                    "sample killer",
                    sample_killer(key, n, dev.workgroup_size as usize, 4),
                ),
            ];
            for pivot in [PivotMode::Sample, PivotMode::MinMax] {
                let s = sorter(ctx, &c, n, Some(with(dev, |p| p.pivot = pivot)));
                for (name, raw) in &inputs {
                    let (used, longest) = phase_one_trace(ctx, &s, &c, raw);
                    eprintln!("{key:?} {pivot:?} {name}: {used} rounds, longest job {longest}");
                    assert!(
                        longest as usize <= lm,
                        "{key:?} {pivot:?} {name}: a job of {longest} keys"
                    );
                    let slack = if *name == "uniform" { 1 } else { 4 };
                    assert!(
                        used <= need + slack,
                        "{key:?} {pivot:?} {name}: {used} rounds"
                    );
                }
            }
        }
    });
}

#[test]
fn bit_ranges() {
    with_gpu(|ctx| {
        for (key, bits) in [
            (KeyType::U32, (8, 24)),
            (KeyType::F32, (16, 32)),
            (KeyType::I64, (0, 40)),
            (KeyType::U128, (60, 100)),
        ] {
            for order in Order::ALL {
                let c = Case {
                    value: ValueType::U32,
                    order,
                    bits: Some(bits),
                    ..Case::new(ALGO, key)
                };
                let dev = policy(ctx, &c);
                let n = 2 * dev.local_max as usize + 3;
                // The min/max midpoint in a masked range of one or more words, and the sample's median.
                for pivot in [PivotMode::MinMax, PivotMode::Sample] {
                    let s = sorter(ctx, &c, n, Some(with(dev, |p| p.pivot = pivot)));
                    for (i, dist) in [Dist::Uniform, Dist::FewUnique].into_iter().enumerate() {
                        check_with(ctx, &s, &c, &gen(key, dist, n, 9 + i as u64), None, false);
                    }
                }
            }
        }
    });
}

#[test]
fn gpu_side_count() {
    with_gpu(|ctx| {
        for key in [KeyType::U32, KeyType::U128] {
            let c = Case {
                value: ValueType::U64,
                ..Case::new(ALGO, key)
            };
            let (tile, lm) = limits(ctx, &c);
            // Phase one recorded for the capacity; then a capacity phase two sorts alone.
            for cap in [3 * lm + 5, lm] {
                let s = sorter(ctx, &c, cap, None);
                let raw = gen(key, Dist::Uniform, cap, 3);
                for m in [0, 1, 2, 100, tile, tile + 1, lm, lm + 1, cap] {
                    if m <= cap {
                        check_with(ctx, &s, &c, &raw, Some(m), false);
                    }
                }
            }
        }
    });
}

#[test]
fn recording_builds_no_pipeline() {
    with_gpu(|ctx| {
        for (key, value, max_n) in [
            (KeyType::U32, ValueType::U32, 20_000u64),
            (KeyType::U128, ValueType::None, 9_000),
        ] {
            let cfg = SortConfig {
                key,
                value,
                algorithm: ALGO,
                max_n,
                ..Default::default()
            };
            let sorter = Sorter::new(ctx, cfg).unwrap();
            assert_eq!(
                sorter.storage_requirements(max_n).unwrap().scratch_usage,
                SCRATCH_USAGE
            );
            common::sorting::assert_recording_builds_no_pipeline(
                ctx,
                &sorter,
                &[0, 1, 2, 3, 17, 1000, 1025, 4096, 4097],
                16,
                &format!("{key:?}"),
            );
        }
    });
}

#[test]
fn bad_input() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let n = 10_000u64;
        let s = sorter(ctx, &c, n as usize, None);
        let req = s.storage_requirements(n).unwrap();
        let kb = Buffer::device_local(ctx, "test::keys", n * 4).unwrap();
        let vb = Buffer::device_local(ctx, "test::vals", n * 4).unwrap();
        let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
        let storage_only =
            common::with_usage(scratch.as_ref(), ash::vk::BufferUsageFlags::STORAGE_BUFFER);
        let small = scratch.slice(0, req.scratch_bytes - 256);
        let results = ctx.submit("test::bad", |rec| {
            let k = kb.as_ref();
            let v = Some(vb.as_ref());
            let r = [
                s.cmd_sort(rec, k, v, storage_only, n).err(),
                s.cmd_sort(rec, k, v, small, n).err(),
                s.cmd_sort(rec, k, None, scratch.as_ref(), n).err(),
                s.cmd_sort(rec, k, v, scratch.as_ref(), n + 1).err(),
                s.cmd_sort(rec, kb.slice(0, 100), v, scratch.as_ref(), n)
                    .err(),
            ];
            assert!(
                matches!(r[0], Some(Error::MissingUsage { .. })),
                "{:?}",
                r[0]
            );
            assert!(
                matches!(r[1], Some(Error::BufferTooSmall { .. })),
                "{:?}",
                r[1]
            );
            assert!(
                matches!(r[2], Some(Error::ValuesMismatch { expected: true })),
                "{:?}",
                r[2]
            );
            assert!(
                matches!(r[3], Some(Error::CountOverCapacity { .. })),
                "{:?}",
                r[3]
            );
            assert!(
                matches!(r[4], Some(Error::BufferTooSmall { .. })),
                "{:?}",
                r[4]
            );
            Ok(())
        });
        results.unwrap();
        let dev = policy(ctx, &c);
        for p in [
            with(dev, |p| p.workgroup_size = 100),
            with(dev, |p| p.local_items_per_invocation = 3),
            with(dev, |p| p.local_max = dev.local_tile() as u32 - 1),
            with(dev, |p| p.max_rounds = 65),
            with(dev, |p| p.local_workgroup_size = 1 << 20),
        ] {
            let r = Sorter::builder(ctx, c.config(100)).tuning(p).build();
            assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{p:?}");
        }
        let r = Sorter::new(
            ctx,
            SortConfig {
                bits: Some((10, 10)),
                ..c.config(100)
            },
        );
        assert!(matches!(r, Err(Error::InvalidBitRange { .. })));
    });
}
