//! The bitonic sort: every key type (u128 too), value width and order against the CPU reference (keys bitwise,
//! values kept beside their keys: the sort is not stable), the local form and the multi-tile form at the sizes
//! around their limits, distributions, bit ranges and GPU-side counts.
mod common;
use common::sorting::{check, check_with, gen, sizes_around, Case, Dist};
use common::with_gpu;
use vksort::sort::bitonic::BitonicSort;
use vksort::sort::{KeyType, Order, SortAlgorithm, Sorter, ValueType};

const ALGO: SortAlgorithm = SortAlgorithm::Bitonic;

/// (tile, single-workgroup capacity) of the device's policy for `c`.
fn limits(ctx: &std::sync::Arc<vksort::Context>, c: &Case) -> (usize, usize) {
    let s = Sorter::new(ctx, c.config(1)).unwrap();
    let b = s.backend::<BitonicSort>().unwrap();
    (
        b.policy.tile() as usize,
        b.policy.single_capacity() as usize,
    )
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
                    let (tile, single) = limits(ctx, &c);
                    let big = single.max(tile) * 2 + 7;
                    let sorter = Sorter::new(ctx, c.config(big)).unwrap();
                    for (i, n) in [0, 1, 2, 3, 100, single - 1, single + 1, big]
                        .into_iter()
                        .enumerate()
                    {
                        let raw = gen(key, Dist::FloatSpecials, n, 17 + i as u64);
                        check_with(ctx, &sorter, &c, &raw, None, false);
                    }
                }
            }
        }
    });
}

#[test]
fn sizes_around_the_tiles() {
    with_gpu(|ctx| {
        for value in [ValueType::None, ValueType::U32] {
            let c = Case {
                value,
                ..Case::new(ALGO, KeyType::U32)
            };
            let (tile, single) = limits(ctx, &c);
            let mut sizes = sizes_around(tile);
            sizes.extend(sizes_around(single));
            let max = *sizes.iter().max().unwrap();
            let sorter = Sorter::new(ctx, c.config(max)).unwrap();
            for (i, &n) in sizes.iter().enumerate() {
                let raw = gen(KeyType::U32, Dist::Uniform, n, i as u64);
                check_with(ctx, &sorter, &c, &raw, None, false);
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
            let (tile, single) = limits(ctx, &c);
            let n = 2 * tile.max(single) + 333;
            let sorter = Sorter::new(ctx, c.config(n)).unwrap();
            common::sorting::check_distributions(ctx, &sorter, &c, n, false);
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
                let (tile, _) = limits(ctx, &c);
                let n = 2 * tile + 3;
                check(ctx, &c, &gen(key, Dist::Uniform, n, 9), None, false);
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
            let (tile, single) = limits(ctx, &c);
            let cap = 2 * tile.max(single) + 5;
            let sorter = Sorter::new(ctx, c.config(cap)).unwrap();
            let raw = gen(key, Dist::Uniform, cap, 3);
            for m in [0, 1, 2, 100, single, single + 1, cap] {
                check_with(ctx, &sorter, &c, &raw, Some(m), false);
            }
        }
    });
}

#[test]
fn bad_input_is_rejected_and_writes_nothing() {
    with_gpu(|ctx| {
        common::sorting::bad_input_is_rejected(ctx, ALGO, KeyType::U32);
        common::sorting::bad_input_is_rejected(ctx, ALGO, KeyType::U128);
        // The radix family takes no 128-bit keys; Auto then falls to a family that does.
        let cfg = Case::new(SortAlgorithm::Onesweep, KeyType::U128).config(100);
        assert!(matches!(
            Sorter::new(ctx, cfg),
            Err(vksort::Error::UnsupportedAlgorithm { .. })
        ));
    });
}
