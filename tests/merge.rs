//! The merge sort: every key type (u128 too), value width and order bitwise against the stable CPU reference
//! (values = input index prove stability), sizes around the block and merge tiles and across 1..5 merge passes,
//! both per-workgroup merge kernels, every way to find the split points (partition passes with several lane
//! counts, fused searches, both by size) and several tile shapes, the GPU's 4096-key tiles (16 keys per
//! invocation) on every key width, distributions, bit ranges, GPU-side counts that need fewer merge passes than the
//! capacity (both parities), Auto and the host forms on u128 keys, recording without building pipelines, and bad
//! input.
mod common;
use common::sorting::{check_with, gen, sizes_around, Case, Dist};
use common::with_gpu;
use std::sync::Arc;
use vksort::gpu::{kernel::reflect, Buffer};
use vksort::sort::merge::{block, partition, pass, MergeKernel, MergePolicy, MergeSort, Partition};
use vksort::sort::{self, KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error};

const ALGO: SortAlgorithm = SortAlgorithm::Merge;

/// The device's merge policy for case `c`.
/// `p` with the changes of `f` (the policy is `#[non_exhaustive]`: no struct literals here).
fn with(mut p: MergePolicy, f: impl FnOnce(&mut MergePolicy)) -> MergePolicy {
    f(&mut p);
    p
}

fn device_policy(ctx: &Arc<Context>, c: &Case) -> MergePolicy {
    let s = Sorter::new(ctx, c.config(1)).unwrap();
    s.backend::<MergeSort>().unwrap().policy
}

/// A sorter for `c` and `max_n` keys with policy `p`.
fn sorter(ctx: &Arc<Context>, c: &Case, max_n: usize, p: MergePolicy) -> Sorter {
    Sorter::builder(ctx, c.config(max_n))
        .tuning(p)
        .build()
        .unwrap()
}

/// Sizes that need 0..=5 merge passes with block tile `b`: around b * 2^p, and odd ones in between.
fn pass_sizes(b: usize) -> Vec<usize> {
    let mut v = sizes_around(b);
    for p in 1..=4 {
        let x = b << p;
        v.extend([x - 1, x + 1, x + x / 2 + 3]);
    }
    v.push((b << 4) + 2 * b + 5);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn push_constant_structs_match_reflection() {
    for (shader, size, bindings) in [
        ("merge_block", std::mem::size_of::<block::BlockPush>(), 6),
        (
            "merge_partition",
            std::mem::size_of::<partition::PartitionPush>(),
            4,
        ),
        ("merge_merge", std::mem::size_of::<pass::MergePush>(), 6),
        ("merge_network", std::mem::size_of::<pass::MergePush>(), 6),
    ] {
        let iface = reflect(shader).unwrap();
        assert_eq!(iface.push_constant_size as usize, size, "{shader}");
        assert_eq!(iface.bindings.len(), bindings, "{shader}");
    }
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
                    let b = device_policy(ctx, &c).block_tile() as usize;
                    let big = 3 * b + 7;
                    let s = Sorter::new(ctx, c.config(big)).unwrap();
                    for (i, n) in [0, 1, 2, 3, 100, b, b + 1, big].into_iter().enumerate() {
                        let raw = gen(key, Dist::FloatSpecials, n, 17 + i as u64);
                        check_with(ctx, &s, &c, &raw, None, true);
                    }
                }
            }
        }
    });
}

/// Sizes around the tiles and across 1..=5 merge passes, with both merge kernels, both ways to find the split
/// points, and several tile shapes (merge tile smaller than, equal to and twice the block tile; 1, 2, 4, 16
/// keys per invocation; workgroups of one subgroup).
#[test]
fn sizes_kernels_and_tile_shapes() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let d = device_policy(ctx, &c);
        let sg = vksort::policy::SubgroupPlan::for_device(ctx.caps())
            .max
            .max(d.block_workgroup_size / 16);
        let shapes = [
            d,
            with(d, |p| {
                p.merge_workgroup_size = d.merge_workgroup_size / 2;
                p.merge_items_per_invocation = 4;
            }),
            with(d, |p| {
                p.block_workgroup_size = d.block_workgroup_size / 2;
                p.merge_workgroup_size = d.block_workgroup_size;
                p.block_items_per_invocation = 4;
                p.merge_items_per_invocation = 4;
            }),
            with(d, |p| {
                p.block_workgroup_size = sg;
                p.block_items_per_invocation = 16;
                p.merge_workgroup_size = sg;
                p.merge_items_per_invocation = 1;
                p.partition_workgroup_size = sg;
            }),
            with(d, |p| {
                p.block_workgroup_size = sg;
                p.block_items_per_invocation = 2;
                p.merge_workgroup_size = sg;
                p.merge_items_per_invocation = 2;
            }),
        ];
        for (si, shape) in shapes.into_iter().enumerate() {
            // Every kernel and split on the device's shape, one of each on the others.
            let combos: Vec<(MergeKernel, Partition)> = if si == 0 {
                MergeKernel::ALL
                    .into_iter()
                    .flat_map(|k| Partition::ALL.map(|p| (k, p)))
                    .collect()
            } else {
                vec![(MergeKernel::ALL[si % 2], Partition::ALL[si / 2 % 2])]
            };
            for (kernel, partition) in combos {
                let p = with(shape, |p| {
                    p.merge_kernel = kernel;
                    p.partition = partition;
                    // Mixed: sorts of up to two block tiles fused, larger ones with partition passes.
                    p.fused_max_keys = 2 * shape.block_tile() as u32;
                });
                let sizes = if si == 0 {
                    let mut v = pass_sizes(p.block_tile() as usize);
                    v.extend(sizes_around(p.merge_tile() as usize));
                    v.sort_unstable();
                    v.dedup();
                    v
                } else {
                    let b = p.block_tile() as usize;
                    vec![3, b - 1, b + 1, 2 * b + 3, 5 * b + 17, (b << 4) + 9]
                };
                let max = *sizes.iter().max().unwrap();
                let s = sorter(ctx, &c, max, p);
                for (i, &n) in sizes.iter().enumerate() {
                    let raw = gen(KeyType::U32, Dist::FewUnique, n, 100 + i as u64);
                    check_with(ctx, &s, &c, &raw, None, true);
                }
            }
        }
    });
}

/// The GPU's tile shapes (256 invocations x 16 keys for 32-bit keys, x 8 for 64-bit, x 4 for 128-bit: a tile of
/// 16 KiB of keys, MergePolicy::for_items) on this device: sizes around the 4096-key tile and across several
/// merge passes, both ways to find the split points, every key width, values, orders and bit ranges.
#[test]
fn gpu_tile_shapes() {
    with_gpu(|ctx| {
        for (key, value, order, bits) in [
            (KeyType::U32, ValueType::None, Order::Ascending, None),
            (KeyType::U32, ValueType::U32, Order::Descending, None),
            (
                KeyType::F32,
                ValueType::U64,
                Order::Ascending,
                Some((4, 28)),
            ),
            (
                KeyType::I64,
                ValueType::U32,
                Order::Ascending,
                Some((8, 40)),
            ),
            (KeyType::U64, ValueType::None, Order::Descending, None),
            (KeyType::U128, ValueType::U32, Order::Descending, None),
        ] {
            let c = Case {
                value,
                order,
                bits,
                ..Case::new(ALGO, key)
            };
            let kpt = 16 / key.words();
            let d = device_policy(ctx, &c);
            // The GPU's 256 invocations, or the device's most (lavapipe at subgroup 4 allows 128).
            let wg = 256.min(ctx.caps().max_workgroup_invocations);
            let shape = with(d, |p| {
                p.block_workgroup_size = wg;
                p.block_items_per_invocation = kpt;
                p.merge_workgroup_size = wg;
                p.merge_items_per_invocation = kpt;
            });
            let b = shape.block_tile() as usize;
            let sizes = if key == KeyType::U32 && value == ValueType::None {
                let mut v = sizes_around(b);
                v.extend([8 * b + 5, 18 * b + 5]);
                v
            } else {
                vec![0, 1, 2, 3, b - 1, b, b + 1, 2 * b + 1, 5 * b + 17]
            };
            let max = *sizes.iter().max().unwrap();
            // Every way to find the split points; the partition pass also with 2 lanes per tile (binary-like).
            let mut finds: Vec<(Partition, u32)> = Partition::ALL
                .iter()
                .map(|&p| (p, shape.partition_lanes))
                .collect();
            finds.push((Partition::Pass, 2));
            for (partition, lanes) in finds {
                let p = with(shape, |p| {
                    p.partition = partition;
                    p.partition_lanes = lanes;
                    p.fused_max_keys = 2 * b as u32;
                });
                let s = sorter(ctx, &c, max, p);
                for (i, &n) in sizes.iter().enumerate() {
                    let raw = gen(key, Dist::FewUnique, n, 300 + i as u64);
                    check_with(ctx, &s, &c, &raw, None, true);
                }
                if key != KeyType::U32 || value != ValueType::None {
                    break;
                }
            }
        }
    });
}

#[test]
fn both_kernels_on_wide_items() {
    with_gpu(|ctx| {
        for (key, value, order) in [
            (KeyType::U128, ValueType::U64, Order::Descending),
            (KeyType::F64, ValueType::U32, Order::Ascending),
            (KeyType::I32, ValueType::U64, Order::Descending),
        ] {
            let c = Case {
                value,
                order,
                ..Case::new(ALGO, key)
            };
            let d = device_policy(ctx, &c);
            let b = d.block_tile() as usize;
            let n = 6 * b + 13;
            for kernel in MergeKernel::ALL {
                let s = sorter(ctx, &c, n, with(d, |p| p.merge_kernel = kernel));
                for (i, m) in [b + 3, n].into_iter().enumerate() {
                    let raw = gen(key, Dist::TwoValues, m, 60 + i as u64);
                    check_with(ctx, &s, &c, &raw, None, true);
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
        let s = Sorter::new(ctx, c.config(n)).unwrap();
        check_with(
            ctx,
            &s,
            &c,
            &gen(KeyType::U32, Dist::Uniform, n, 5),
            None,
            true,
        );
    });
}

#[test]
fn distributions() {
    with_gpu(|ctx| {
        // Every distribution in both orders (alternating by configuration).
        for (i, (key, kernel, partition)) in [
            (KeyType::U32, MergeKernel::Serial, Partition::Fused),
            (KeyType::U32, MergeKernel::Network, Partition::Pass),
            (KeyType::F32, MergeKernel::Serial, Partition::Pass),
            (KeyType::F64, MergeKernel::Network, Partition::Fused),
            (KeyType::U128, MergeKernel::Serial, Partition::Fused),
        ]
        .into_iter()
        .enumerate()
        {
            let c = Case {
                value: ValueType::U32,
                order: Order::ALL[i % 2],
                ..Case::new(ALGO, key)
            };
            let p = with(device_policy(ctx, &c), |p| {
                p.merge_kernel = kernel;
                p.partition = partition;
            });
            let n = 5 * p.block_tile() as usize + 333;
            let s = sorter(ctx, &c, n, p);
            common::sorting::check_distributions(ctx, &s, &c, n, true);
        }
    });
}

#[test]
fn bit_ranges() {
    with_gpu(|ctx| {
        for (key, bits) in [
            (KeyType::U32, (8, 24)),
            (KeyType::F32, (20, 32)),
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
                let d = device_policy(ctx, &c);
                let n = 3 * d.block_tile() as usize + 3;
                for (kernel, partition) in MergeKernel::ALL.into_iter().zip(Partition::ALL) {
                    let s = sorter(
                        ctx,
                        &c,
                        n,
                        with(d, |p| {
                            p.merge_kernel = kernel;
                            p.partition = partition;
                        }),
                    );
                    check_with(ctx, &s, &c, &gen(key, Dist::Uniform, n, 9), None, true);
                }
            }
        }
    });
}

/// GPU-side counts: sorts recorded for a capacity that needs 4 merge passes, with counts that need 0..=4
/// (both parities of the block pass's side), on both kernels.
#[test]
fn gpu_side_count() {
    with_gpu(|ctx| {
        for (key, kernel, partition) in [
            (KeyType::U32, MergeKernel::Serial, Partition::Pass),
            (KeyType::U32, MergeKernel::Network, Partition::Fused),
            (KeyType::U128, MergeKernel::Network, Partition::Pass),
            (KeyType::U64, MergeKernel::Serial, Partition::Fused),
            (KeyType::F32, MergeKernel::Serial, Partition::Mixed),
        ] {
            let c = Case {
                value: ValueType::U64,
                order: if key == KeyType::U64 {
                    Order::Descending
                } else {
                    Order::Ascending
                },
                ..Case::new(ALGO, key)
            };
            let d = device_policy(ctx, &c);
            let p = with(d, |p| {
                p.merge_kernel = kernel;
                p.partition = partition;
                // Mixed: counts up to 5 tiles fused (host counts), the capacity with partition passes.
                p.fused_max_keys = 5 * d.block_tile() as u32;
            });
            let b = p.block_tile() as usize;
            let cap = 9 * b + 5;
            let s = sorter(ctx, &c, cap, p);
            let raw = gen(key, Dist::FewUnique, cap, 3);
            for m in [
                0,
                1,
                2,
                100,
                b,
                b + 1,
                2 * b,
                2 * b + 1,
                3 * b + 7,
                5 * b,
                cap,
            ] {
                assert!(p.merge_passes(m as u64) <= 4);
                check_with(ctx, &s, &c, &raw, Some(m), true);
            }
        }
        // A capacity of one tile (one block pass in place, no scratch beyond the control block).
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::I32)
        };
        let b = device_policy(ctx, &c).block_tile() as usize;
        let s = Sorter::new(ctx, c.config(b)).unwrap();
        assert_eq!(
            s.storage_requirements(b as u64).unwrap().scratch_bytes,
            s.storage_requirements(1).unwrap().scratch_bytes
        );
        let raw = gen(KeyType::I32, Dist::Uniform, b, 4);
        for m in [0, 1, 5, b - 1, b] {
            check_with(ctx, &s, &c, &raw, Some(m), true);
        }
    });
}

/// u128 keys: Auto with the policy selector lands on the merge sort (the radix sorts refuse them), with and
/// without a cost model's choice being asked for; the host forms sort them.
#[test]
fn auto_and_host_forms_on_u128() {
    with_gpu(|ctx| {
        let cfg = SortConfig {
            key: KeyType::U128,
            value: ValueType::U32,
            max_n: 10_000,
            ..Default::default()
        };
        let s = Sorter::new(ctx, cfg).unwrap();
        for n in [0, 1, 5000, 10_000] {
            assert_eq!(s.algorithm_for(n), SortAlgorithm::Merge);
        }
        assert!(s.backend::<MergeSort>().is_some());
        assert!(!s.workload(10_000).is_empty());
        assert!(matches!(
            Sorter::new(
                ctx,
                SortConfig {
                    algorithm: SortAlgorithm::Onesweep,
                    ..cfg
                }
            ),
            Err(Error::UnsupportedAlgorithm { .. })
        ));

        let mut r = common::Rng(77);
        let n = 5000;
        let mut keys: Vec<u128> = (0..n)
            .map(|i| {
                // Many ties (the low half repeats), so the pair sort shows stability.
                let hi = (r.next_u64() % 64) as u128;
                (hi << 64) | (i % 7) as u128
            })
            .collect();
        let orig = keys.clone();
        let mut want = keys.clone();
        want.sort_unstable();
        sort::sort(ctx, &mut keys).unwrap();
        assert_eq!(keys, want);

        let mut keys = orig.clone();
        let mut vals: Vec<u32> = (0..n as u32).collect();
        sort::sort_pairs(ctx, &mut keys, &mut vals).unwrap();
        let mut idx: Vec<u32> = (0..n as u32).collect();
        idx.sort_by_key(|&i| orig[i as usize]);
        assert_eq!(vals, idx);
        assert_eq!(keys, want);

        let mut keys = orig.clone();
        let mut vals: Vec<u64> = (0..n as u64).collect();
        let desc = SortConfig {
            order: Order::Descending,
            ..Default::default()
        };
        sort::sort_pairs_with(ctx, &mut keys, &mut vals, &desc).unwrap();
        let mut idx: Vec<u64> = (0..n as u64).collect();
        idx.sort_by_key(|&i| std::cmp::Reverse(orig[i as usize]));
        assert_eq!(vals, idx);

        let mut one = vec![5u128];
        sort::sort(ctx, &mut one).unwrap();
        assert_eq!(one, [5]);
        sort::sort::<u128>(ctx, &mut []).unwrap();
    });
}

/// Auto with the policy selector follows the device's crossover table (`sort::auto`: merge sort on CPU drivers
/// from 2049 to 2^22 keys, and for 64-bit keys on NVIDIA): merge sort inside each range, the radix family's choice just outside it and
/// with a bit range; the sorts it picks are checked against the stable CPU reference (values = index), also with
/// a GPU-side count below a capacity inside the range.
#[test]
fn auto_crossovers() {
    with_gpu(|ctx| {
        let table = sort::auto::crossovers(ctx.caps());
        if table.is_empty() {
            common::skip(
                "crossovers",
                "the device has no crossover table: only Auto's choice outside it is checked, no crossover sort runs",
            );
        }
        let widths = [
            (KeyType::U64, ValueType::None),
            (KeyType::F64, ValueType::U32),
            (KeyType::I64, ValueType::U64),
        ];
        for (key, value) in widths {
            let mut c = Case::new(SortAlgorithm::Auto, key);
            c.value = value;
            let ranges: Vec<_> = table
                .iter()
                .filter(|x| x.key_bytes == key.bytes() && x.value_bytes == value.bytes())
                .collect();
            if ranges.is_empty() {
                let s = Sorter::new(ctx, c.config(1 << 18)).unwrap();
                assert_ne!(s.algorithm_for(1 << 18), ALGO, "{key:?} {value:?}");
                continue;
            }
            for x in ranges {
                let s = Sorter::new(ctx, c.config(x.max_n as usize)).unwrap();
                assert_eq!(s.algorithm_for(x.min_n), x.algorithm);
                assert_eq!(s.algorithm_for(x.max_n), x.algorithm);
                assert_ne!(s.algorithm_for(x.min_n - 1), x.algorithm);
                let n = x.min_n as usize + 3;
                check_with(
                    ctx,
                    &s,
                    &c,
                    &gen(key, Dist::Uniform, n, 6),
                    Some(n - 1000),
                    true,
                );
                let mut d = c;
                d.order = Order::Descending;
                let s = Sorter::new(ctx, d.config(n)).unwrap();
                assert_eq!(s.algorithm_for(n as u64), x.algorithm);
                check_with(ctx, &s, &d, &gen(key, Dist::FewUnique, n, 5), None, true);
                let mut r = c;
                r.bits = Some((0, 40));
                let s = Sorter::new(ctx, r.config(x.min_n as usize)).unwrap();
                assert_ne!(s.algorithm_for(x.min_n), x.algorithm, "bit range");
            }
            let above = Sorter::new(ctx, c.config(1 << 23)).unwrap();
            assert_ne!(above.algorithm_for(1 << 23), ALGO);
        }
    });
}

#[test]
fn recording_builds_no_pipeline() {
    with_gpu(|ctx| {
        for (key, value, max_n, kernel, partition) in [
            (
                KeyType::U32,
                ValueType::U32,
                20_000u64,
                MergeKernel::Serial,
                Partition::Pass,
            ),
            (
                KeyType::U128,
                ValueType::None,
                9_000,
                MergeKernel::Network,
                Partition::Fused,
            ),
        ] {
            let cfg = SortConfig {
                key,
                value,
                algorithm: ALGO,
                max_n,
                ..Default::default()
            };
            let c = Case {
                key,
                value,
                order: Order::Ascending,
                bits: None,
                algorithm: ALGO,
            };
            let p = with(device_policy(ctx, &c), |p| {
                p.merge_kernel = kernel;
                p.partition = partition;
            });
            let s = Sorter::builder(ctx, cfg).tuning(p).build().unwrap();
            common::sorting::assert_recording_builds_no_pipeline(
                ctx,
                &s,
                &[0, 1, 2, 3, 17, 255, 256, 257, 1000, 4096, 4097],
                40,
                &format!("{key:?}"),
            );
        }
    });
}

#[test]
fn bad_input_is_rejected() {
    with_gpu(|ctx| {
        let n = 5000u64;
        let cfg = SortConfig {
            value: ValueType::U32,
            algorithm: ALGO,
            max_n: n,
            ..Default::default()
        };
        // Policies the device cannot run, or whose tiles do not fit each other.
        let c = Case {
            value: ValueType::U32,
            ..Case::new(ALGO, KeyType::U32)
        };
        let d = device_policy(ctx, &c);
        for p in [
            with(d, |p| p.block_items_per_invocation = 3),
            with(d, |p| {
                p.merge_workgroup_size = d.block_workgroup_size * 2;
                p.merge_items_per_invocation = d.block_items_per_invocation * 2;
            }),
            with(d, |p| p.block_workgroup_size = 100),
            with(d, |p| p.partition_lanes = 3),
            with(d, |p| p.partition_lanes = 1),
            with(d, |p| p.block_items_per_invocation = 1),
            with(d, |p| {
                p.block_workgroup_size =
                    ctx.caps().max_workgroup_invocations.next_power_of_two() * 2;
                p.block_items_per_invocation = 32;
            }),
        ] {
            let r = Sorter::builder(ctx, cfg).tuning(p).build();
            assert!(matches!(r, Err(Error::InvalidPolicy { .. })), "{p:?}");
        }
        assert!(matches!(
            Sorter::new(
                ctx,
                SortConfig {
                    key: KeyType::U128,
                    bits: Some((0, 129)),
                    ..cfg
                }
            ),
            Err(Error::InvalidBitRange { .. })
        ));

        let s = Sorter::new(ctx, cfg).unwrap();
        let kb = Buffer::from_slice(ctx, "test::keys", &vec![7u32; n as usize]).unwrap();
        let vb = Buffer::from_slice(ctx, "test::vals", &vec![9u32; n as usize]).unwrap();
        let req = s.storage_requirements(n).unwrap();
        let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
        let cnt = Buffer::from_slice(ctx, "test::count", &[10u32; 4]).unwrap();
        let run = |k: vksort::BufferRef, v: Option<vksort::BufferRef>, sc: vksort::BufferRef, n| {
            ctx.submit("test::bad", |rec| s.cmd_sort(rec, k, v, sc, n))
        };
        let nb = n * 4;
        assert!(matches!(
            run(kb.as_ref(), None, scratch.as_ref(), n),
            Err(Error::ValuesMismatch { expected: true })
        ));
        assert!(matches!(
            run(kb.slice(0, nb - 4), Some(vb.as_ref()), scratch.as_ref(), n),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            run(kb.as_ref(), Some(vb.slice(0, nb - 4)), scratch.as_ref(), n),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.slice(0, req.scratch_bytes - 4),
                n
            ),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            run(kb.as_ref(), Some(vb.as_ref()), scratch.as_ref(), n + 1),
            Err(Error::CountOverCapacity { .. })
        ));
        assert!(matches!(
            ctx.submit("test::bad", |rec| s.cmd_sort_indirect(
                rec,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                cnt.as_ref(),
                n + 1
            )),
            Err(Error::CountOverCapacity { .. })
        ));
        // Keys only: a value buffer is refused.
        let s = Sorter::new(
            ctx,
            SortConfig {
                value: ValueType::None,
                ..cfg
            },
        )
        .unwrap();
        assert!(matches!(
            ctx.submit("test::bad", |rec| s.cmd_sort(
                rec,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n
            )),
            Err(Error::ValuesMismatch { expected: false })
        ));
        // Nothing was written.
        assert!(kb
            .read_vec::<u32>(n as usize)
            .unwrap()
            .iter()
            .all(|&x| x == 7));
        assert!(vb
            .read_vec::<u32>(n as usize)
            .unwrap()
            .iter()
            .all(|&x| x == 9));
    });
}
