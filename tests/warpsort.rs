//! WarpSort: bitwise against the CPU reference, stability included (values = input index), for every key type
//! (u128 too), value width and order; sizes around every phase threshold of the device's policy (one chunk,
//! the merge rounds, the split into pieces); every distribution (equal keys across splitters among them); bit
//! ranges; GPU-side counts; policies with groups smaller than the subgroup and other tilings; no pipeline built
//! while recording; bad input refused with typed errors.
mod common;
use common::sorting::{check, check_with, gen, Case, Dist};
use common::with_gpu;
use std::sync::Arc;
use vksort::gpu::Buffer;
use vksort::sort::warpsort::{WarpSort, WarpSortPolicy};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error};

const ALGO: SortAlgorithm = SortAlgorithm::WarpSort;

/// The device's policy for `c`.
fn policy(ctx: &Arc<Context>, c: &Case) -> WarpSortPolicy {
    let s = Sorter::new(ctx, c.config(1)).unwrap();
    s.backend::<WarpSort>().unwrap().policy
}

/// `p` with the changes of `f` (the policy is `#[non_exhaustive]`: no struct literals here).
fn with(mut p: WarpSortPolicy, f: impl FnOnce(&mut WarpSortPolicy)) -> WarpSortPolicy {
    f(&mut p);
    p
}

fn sorter_with(ctx: &Arc<Context>, c: &Case, max_n: usize, p: WarpSortPolicy) -> Sorter {
    Sorter::builder(ctx, c.config(max_n))
        .tuning(p)
        .build()
        .unwrap()
}

/// A size that splits into several rows and pieces with the policy `p`.
fn split_size(p: &WarpSortPolicy) -> usize {
    (p.split.min_keys as usize).max(p.chunk() as usize * p.split.rows as usize) * 3 / 2 + 333
}

#[test]
fn every_type_value_and_order() {
    with_gpu(|ctx| {
        for key in KeyType::ALL {
            for value in [ValueType::None, ValueType::U32, ValueType::U64] {
                for order in Order::ALL {
                    let c = Case {
                        value,
                        order,
                        ..Case::new(ALGO, key)
                    };
                    let p = policy(ctx, &c);
                    let chunk = p.chunk() as usize;
                    let big = split_size(&p);
                    let sorter = Sorter::new(ctx, c.config(big)).unwrap();
                    for (i, n) in [0, 1, 2, 3, chunk - 1, 3 * chunk + 1, big]
                        .into_iter()
                        .enumerate()
                    {
                        let raw = gen(key, Dist::FloatSpecials, n, 17 + i as u64);
                        check_with(ctx, &sorter, &c, &raw, None, true);
                    }
                }
            }
        }
    });
}

#[test]
fn sizes_around_every_phase() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let p = policy(ctx, &c);
        let chunk = p.chunk() as usize;
        let rows_stop = chunk * p.split.rows as usize;
        let split = p.split.min_keys as usize;
        let mut sizes: Vec<usize> = vec![0, 1, 2, 3, 5, 17, 100, 257];
        for t in [
            chunk,
            2 * chunk,
            4 * chunk,
            5 * chunk,
            split,
            rows_stop,
            2 * rows_stop,
            4 * split,
        ] {
            sizes.extend(t.saturating_sub(2)..=t + 2);
        }
        sizes.extend([split + 999, 3 * split + 7]);
        sizes.sort_unstable();
        sizes.dedup();
        let max = *sizes.iter().max().unwrap();
        let sorter = Sorter::new(ctx, c.config(max)).unwrap();
        let b = sorter.backend::<WarpSort>().unwrap();
        // The sizes reach every shape: one chunk, merges only, merges and pieces.
        assert_eq!(b.sort_plan(chunk as u64).unwrap().data_passes(), 1);
        assert_eq!(b.sort_plan(split as u64 - 1).unwrap().pieces, 0);
        assert!(b.sort_plan(split as u64).unwrap().pieces >= 2);
        for (i, &n) in sizes.iter().enumerate() {
            let raw = gen(KeyType::U32, Dist::Uniform, n, i as u64);
            check_with(ctx, &sorter, &c, &raw, None, true);
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
            &gen(KeyType::U32, Dist::Entropy(2), n, 5),
            None,
            true,
        );
    });
}

#[test]
fn distributions() {
    with_gpu(|ctx| {
        // Every distribution in both orders (alternating by key type).
        for (i, key) in [KeyType::U32, KeyType::F32, KeyType::F64, KeyType::U128]
            .into_iter()
            .enumerate()
        {
            let c = Case {
                value: ValueType::U32,
                order: Order::ALL[i % 2],
                ..Case::new(ALGO, key)
            };
            let n = split_size(&policy(ctx, &c));
            let sorter = Sorter::new(ctx, c.config(n)).unwrap();
            common::sorting::check_distributions(ctx, &sorter, &c, n, true);
        }
    });
}

#[test]
fn bit_ranges() {
    with_gpu(|ctx| {
        for (key, bits) in [
            (KeyType::U32, (8, 24)),
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
                let n = split_size(&policy(ctx, &c));
                check(ctx, &c, &gen(key, Dist::Uniform, n, 9), None, true);
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
            let p = policy(ctx, &c);
            let chunk = p.chunk() as usize;
            let split = p.split.min_keys as usize;
            // A capacity that merges rows only, and one that splits.
            for cap in [5 * chunk + 3, split_size(&p)] {
                let sorter = Sorter::new(ctx, c.config(cap)).unwrap();
                let raw = gen(key, Dist::FewUnique, cap, 3);
                for m in [0, 1, 2, chunk, chunk + 1, 3 * chunk - 1, split - 1, cap] {
                    if m <= cap {
                        check_with(ctx, &sorter, &c, &raw, Some(m), true);
                    }
                }
            }
        }
    });
}

/// Other tilings through the policy: groups smaller than the subgroup (several groups share one), one-lane
/// groups with a one-item window, chunks smaller than the merge window with few rows and pieces; and the
/// loop budget. (Each tiling builds its own pipelines, which lavapipe compiles slowly: three, on u32 pairs.)
#[test]
fn policies() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let d = policy(ctx, &c);
        let one_lane = with(d, |p| {
            p.group_lanes = 1;
            p.chunk_items_per_invocation = 4;
            p.merge_items_per_invocation = 1;
            p.split.min_keys = 300;
        });
        let variants = [
            with(d, |p| p.group_lanes = (d.group_lanes / 2).max(1)),
            one_lane,
            with(d, |p| {
                p.chunk_items_per_invocation = 2;
                p.merge_items_per_invocation = 8;
                p.split.min_keys = 500;
                p.split.rows = 3;
                p.split.oversampling = 2;
                p.split.max_pieces = 4;
                p.split.piece_items = 64;
            }),
        ];
        for (v, p) in variants.into_iter().enumerate() {
            let max = 6000;
            let sorter = sorter_with(ctx, &c, max, p);
            for (i, n) in [1, 7, 100, 299, 301, 777, 2500, max]
                .into_iter()
                .enumerate()
            {
                for dist in [Dist::Uniform, Dist::TwoValues] {
                    let raw = gen(KeyType::U32, dist, n, (v * 100 + i) as u64);
                    check_with(ctx, &sorter, &c, &raw, None, true);
                }
            }
            check_with(
                ctx,
                &sorter,
                &c,
                &gen(KeyType::U32, Dist::AllEqual, max, 1),
                Some(max - 17),
                true,
            );
        }
        // The loop budget: one-lane groups with a one-item window merging everything into one row, so the last
        // merge runs close to MAX_MERGE_STEPS window steps (lavapipe counts every loop iteration of an
        // invocation against 65535: a loop left inside the step loop would cut it short). Same pipelines.
        let p = with(one_lane, |p| p.split.min_keys = 1 << 30);
        let n = 64_000;
        let sorter = sorter_with(ctx, &c, n, p);
        let plan = sorter
            .backend::<WarpSort>()
            .unwrap()
            .sort_plan(n as u64)
            .unwrap();
        assert!(
            plan.pieces == 0 && plan.longest_merge() > 60_000,
            "{plan:?}"
        );
        check_with(
            ctx,
            &sorter,
            &c,
            &gen(KeyType::U32, Dist::Uniform, n, 77),
            None,
            true,
        );
    });
}

#[test]
fn recording_builds_no_pipeline() {
    with_gpu(|ctx| {
        for (max_n, value) in [(20_000u64, ValueType::U32), (3_000, ValueType::None)] {
            let cfg = SortConfig {
                value,
                algorithm: ALGO,
                max_n,
                ..Default::default()
            };
            let sorter = Sorter::new(ctx, cfg).unwrap();
            common::sorting::assert_recording_builds_no_pipeline(
                ctx,
                &sorter,
                &[0, 1, 2, 3, 17, 63, 64, 65, 255, 256, 257, 4096],
                32,
                "warpsort",
            );
        }
    });
}

#[test]
fn bad_input_is_rejected() {
    with_gpu(|ctx| {
        let cfg = SortConfig {
            value: ValueType::U32,
            algorithm: ALGO,
            max_n: 1000,
            ..Default::default()
        };
        let bad_bits = SortConfig {
            bits: Some((20, 10)),
            ..cfg
        };
        assert!(matches!(
            Sorter::new(ctx, bad_bits),
            Err(Error::InvalidBitRange { .. })
        ));
        let c = Case::new(ALGO, KeyType::U32);
        let d = policy(ctx, &c);
        let r = Sorter::builder(ctx, cfg)
            .tuning(with(d, |p| p.merge_items_per_invocation = 3))
            .build();
        assert!(
            matches!(r, Err(Error::InvalidPolicy { .. })),
            "{:?}",
            r.err()
        );
        let r = Sorter::builder(ctx, cfg)
            .tuning(with(d, |p| p.group_lanes = ctx.caps().subgroup_size * 2))
            .build();
        assert!(matches!(r, Err(Error::InvalidPolicy { .. })));

        let sorter = Sorter::new(ctx, cfg).unwrap();
        let n = 1000u64;
        let req = sorter.storage_requirements(n).unwrap();
        let kb = Buffer::device_local(ctx, "test::keys", n * 4).unwrap();
        let small = Buffer::device_local(ctx, "test::small", n * 2).unwrap();
        let vb = Buffer::device_local(ctx, "test::vals", n * 4).unwrap();
        let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
        let short = Buffer::device_local(ctx, "test::short", req.scratch_bytes / 2).unwrap();
        let cnt = Buffer::from_slice(ctx, "test::count", &[0u32; 4]).unwrap();
        let record = |f: &dyn Fn(&mut vksort::gpu::Recorder) -> vksort::Result<()>| {
            ctx.submit("test::bad", |rec| f(rec))
        };
        let r = record(&|rec| {
            sorter.cmd_sort(rec, small.as_ref(), Some(vb.as_ref()), scratch.as_ref(), n)
        });
        assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
        let r = record(&|rec| sorter.cmd_sort(rec, kb.as_ref(), None, scratch.as_ref(), n));
        assert!(
            matches!(r, Err(Error::ValuesMismatch { expected: true })),
            "{r:?}"
        );
        let r =
            record(&|rec| sorter.cmd_sort(rec, kb.as_ref(), Some(vb.as_ref()), short.as_ref(), n));
        assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
        let r = record(&|rec| {
            sorter.cmd_sort(rec, kb.as_ref(), Some(vb.as_ref()), scratch.as_ref(), n + 1)
        });
        assert!(matches!(r, Err(Error::CountOverCapacity { .. })), "{r:?}");
        let r = record(&|rec| {
            sorter.cmd_sort_indirect(
                rec,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                cnt.slice(2, 4),
                n,
            )
        });
        assert!(matches!(r, Err(Error::Misaligned { .. })), "{r:?}");
        let no_storage = common::with_usage(kb.as_ref(), ash::vk::BufferUsageFlags::TRANSFER_DST);
        let r =
            record(&|rec| sorter.cmd_sort(rec, no_storage, Some(vb.as_ref()), scratch.as_ref(), n));
        assert!(matches!(r, Err(Error::MissingUsage { .. })), "{r:?}");

        // A policy with one lane and a one-item window takes few keys: a sorter for more is refused when it is
        // made (AlgorithmLimit naming the limit and the count); one made for the limit takes exactly that many.
        let tiny = with(d, |p| {
            p.group_lanes = 1;
            p.chunk_items_per_invocation = 1;
            p.merge_items_per_invocation = 1;
            p.split.rows = 2;
            p.split.oversampling = 1;
            p.split.max_pieces = 2;
        });
        let big = SortConfig {
            max_n: 1 << 20,
            ..cfg
        };
        let r = Sorter::builder(ctx, big).tuning(tiny).build();
        let max = match r {
            Err(Error::AlgorithmLimit {
                algorithm: "warpsort",
                max,
                n,
            }) if n == 1 << 20 && max < 1 << 20 => max,
            other => panic!("{:?}", other.err()),
        };
        let at = Sorter::builder(ctx, SortConfig { max_n: max, ..cfg })
            .tuning(tiny)
            .build()
            .unwrap();
        assert_eq!(at.backend::<WarpSort>().unwrap().max_keys(), max);
    });
}
