//! The split radix sorts (blocked form `split-radix`, per-bit form `split-radix-bit`): every key type (u128
//! too), value width and order bitwise against the CPU reference with values = input index (stability), sizes
//! around the tiles, 2^20 + 7 once, distributions, bit ranges, several digit widths, GPU-side counts, the
//! GPU-side plan (which bits vary, how many passes run) against its CPU reference, the indirect scan it is
//! built on, recording without building pipelines, and bad input.
mod common;
use common::sorting::{check_with, gen, sizes_around, to_words, Case, Dist};
use common::with_gpu;
use std::sync::Arc;
use vksort::gpu::Buffer;
use vksort::scan::{ScanConfig, Scanner};
use vksort::sort::split::{self, SplitPolicy, SplitSort};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error, Policy};

const BLOCKED: SortAlgorithm = SortAlgorithm::SplitRadix;
const PER_BIT: SortAlgorithm = SortAlgorithm::SplitRadixBit;
const FORMS: [SortAlgorithm; 2] = [BLOCKED, PER_BIT];

/// A sorter for `c` and `max_n` keys, with `policy` as tuning when given.
/// `p` with the changes of `f` (the policy is `#[non_exhaustive]`: no struct literals here).
fn with(mut p: SplitPolicy, f: impl FnOnce(&mut SplitPolicy)) -> SplitPolicy {
    f(&mut p);
    p
}

fn sorter(ctx: &Arc<Context>, c: &Case, max_n: usize, policy: Option<SplitPolicy>) -> Sorter {
    let mut b = Sorter::builder(ctx, c.config(max_n));
    if let Some(p) = policy {
        b = b.tuning(p);
    }
    b.build().unwrap()
}

fn split_of(s: &Sorter) -> &SplitSort {
    s.backend::<SplitSort>().expect("a split sorter")
}

/// The device policy's tile for `c`.
fn tile(ctx: &Arc<Context>, c: &Case) -> usize {
    split_of(&sorter(ctx, c, 1, None)).policy.tile() as usize
}

#[test]
fn every_type_value_and_order() {
    with_gpu(|ctx| {
        // Every key type with every value width and both orders, in both forms.
        let mut i = 0u64;
        for key in KeyType::ALL {
            for value in ValueType::ALL {
                for (order, form) in Order::ALL.into_iter().flat_map(|o| FORMS.map(|f| (o, f))) {
                    i += 1;
                    let c = Case {
                        value,
                        order,
                        ..Case::new(form, key)
                    };
                    let t = tile(ctx, &c);
                    let big = 2 * t + 7;
                    let s = sorter(ctx, &c, big, None);
                    for (j, n) in [0, 1, 2, 3, 100, t + 1, big].into_iter().enumerate() {
                        let raw = gen(key, Dist::FloatSpecials, n, 17 * i + j as u64);
                        check_with(ctx, &s, &c, &raw, None, true);
                    }
                }
            }
        }
    });
}

#[test]
fn sizes_around_the_tiles() {
    with_gpu(|ctx| {
        for alg in FORMS {
            let c = Case {
                value: ValueType::U32,
                ..Case::new(alg, KeyType::U32)
            };
            let t = tile(ctx, &c);
            let sizes = sizes_around(t);
            let max = *sizes.iter().max().unwrap();
            let s = sorter(ctx, &c, max, None);
            for (i, &n) in sizes.iter().enumerate() {
                // Keys of 20 bits: the per-bit form runs 20 passes (an even number), the blocked form 5 (odd:
                // the final copy runs).
                let raw: Vec<u128> = gen(KeyType::U32, Dist::Uniform, n, i as u64)
                    .into_iter()
                    .map(|x| x & 0xf_ffff)
                    .collect();
                check_with(ctx, &s, &c, &raw, None, true);
            }
        }
    });
}

#[test]
fn large() {
    with_gpu(|ctx| {
        let c = Case {
            value: ValueType::U32,
            ..Case::new(BLOCKED, KeyType::U32)
        };
        let n = (1 << 20) + 7;
        let s = sorter(ctx, &c, n, None);
        check_with(
            ctx,
            &s,
            &c,
            &gen(KeyType::U32, Dist::Uniform, n, 5),
            None,
            true,
        );
        // The per-bit form over many scan tiles (keys of 13 varying bits keep it short), host and GPU-side count.
        let c = Case {
            value: ValueType::U64,
            ..Case::new(PER_BIT, KeyType::U32)
        };
        let n = (1 << 16) + 3;
        let s = sorter(ctx, &c, n, None);
        let raw: Vec<u128> = gen(KeyType::U32, Dist::Uniform, n, 6)
            .into_iter()
            .map(|x| x & 0x8000_0fff)
            .collect();
        check_with(ctx, &s, &c, &raw, None, true);
        check_with(ctx, &s, &c, &raw, Some(n - 1000), true);
    });
}

#[test]
fn distributions() {
    with_gpu(|ctx| {
        for (k, key) in [KeyType::U32, KeyType::F32, KeyType::F64, KeyType::U128]
            .into_iter()
            .enumerate()
        {
            for alg in FORMS {
                // The per-bit form's 128 passes of u128 keys are slow on lavapipe: fewer distributions there.
                if alg == PER_BIT && key == KeyType::U128 {
                    continue;
                }
                // Every distribution in both orders (alternating by key type).
                let c = Case {
                    value: ValueType::U32,
                    order: Order::ALL[k % 2],
                    ..Case::new(alg, key)
                };
                let n = 2 * tile(ctx, &c) + 333;
                let s = sorter(ctx, &c, n, None);
                for (i, dist) in Dist::ALL.into_iter().enumerate() {
                    let raw = gen(key, dist, n, 40 + i as u64 + 100 * k as u64);
                    check_with(ctx, &s, &c, &raw, None, true);
                }
            }
        }
        let c = Case {
            value: ValueType::U64,
            ..Case::new(PER_BIT, KeyType::U128)
        };
        let n = tile(ctx, &c) + 77;
        let s = sorter(ctx, &c, n, None);
        for dist in [Dist::Uniform, Dist::TwoValues, Dist::Entropy(3)] {
            check_with(ctx, &s, &c, &gen(KeyType::U128, dist, n, 9), None, true);
        }
    });
}

#[test]
fn bit_ranges() {
    with_gpu(|ctx| {
        for (key, bits) in [
            (KeyType::U32, (8, 24)),
            (KeyType::F32, (31, 32)),
            (KeyType::I64, (0, 40)),
            (KeyType::U128, (60, 100)),
        ] {
            for (i, order) in Order::ALL.into_iter().enumerate() {
                for alg in FORMS {
                    let c = Case {
                        value: ValueType::U32,
                        order,
                        bits: Some(bits),
                        ..Case::new(alg, key)
                    };
                    let n = 2 * tile(ctx, &c) + 3;
                    let s = sorter(ctx, &c, n, None);
                    let dist = if i == 0 {
                        Dist::Uniform
                    } else {
                        Dist::FewUnique
                    };
                    check_with(ctx, &s, &c, &gen(key, dist, n, 9), None, true);
                }
            }
        }
    });
}

#[test]
fn digit_widths_and_tiles() {
    with_gpu(|ctx| {
        let base = Case {
            value: ValueType::U64,
            ..Case::new(BLOCKED, KeyType::U64)
        };
        let dev = split_of(&sorter(ctx, &base, 1, None)).policy;
        let sub = ctx.caps().subgroup_size;
        for (bits, wg, kpt) in [
            (1, dev.workgroup_size, dev.items_per_invocation),
            (2, dev.workgroup_size, 3),
            (3, sub, 1),
            (5, dev.workgroup_size, dev.items_per_invocation),
            (7, 2 * sub, 5),
            (8, dev.workgroup_size, 4),
        ] {
            let p = with(dev, |p| {
                p.digit_bits = bits;
                p.workgroup_size = wg;
                p.items_per_invocation = kpt;
            });
            let t = p.tile() as usize;
            let n = 3 * t + 5;
            let s = sorter(ctx, &base, n, Some(p));
            assert_eq!(split_of(&s).policy, p);
            for (i, m) in [t - 1, n].into_iter().enumerate() {
                let raw = gen(
                    KeyType::U64,
                    Dist::Staggered,
                    m,
                    bits as u64 * 10 + i as u64,
                );
                check_with(ctx, &s, &base, &raw, None, true);
            }
        }
    });
}

#[test]
fn gpu_side_count() {
    with_gpu(|ctx| {
        for (key, alg) in [
            (KeyType::U32, BLOCKED),
            (KeyType::U32, PER_BIT),
            (KeyType::U128, BLOCKED),
            (KeyType::I64, PER_BIT),
        ] {
            let c = Case {
                value: ValueType::U64,
                ..Case::new(alg, key)
            };
            let t = tile(ctx, &c);
            let cap = 2 * t + 5;
            let s = sorter(ctx, &c, cap, None);
            let raw = gen(key, Dist::Uniform, cap, 3);
            for m in [0, 1, 2, 100, t, t + 1, cap] {
                check_with(ctx, &s, &c, &raw, Some(m), true);
            }
            // Capacities of 0 and 1 (nothing but the count pass).
            for cap in [0, 1] {
                let s = sorter(ctx, &c, cap, None);
                check_with(ctx, &s, &c, &raw[..cap], Some(cap), true);
            }
        }
    });
}

/// Sorts `raw` (host count) and returns the sorted key words and the control block's words.
fn sort_and_read_control(
    ctx: &Arc<Context>,
    s: &Sorter,
    key: KeyType,
    raw: &[u128],
) -> (Vec<u32>, Vec<u32>) {
    let n = raw.len();
    let mut words = to_words(raw, key);
    words.resize(words.len().max(4), 0);
    let kb = Buffer::from_slice(ctx, "test::keys", &words).unwrap();
    let req = s.storage_requirements(n as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
    ctx.submit("test::sort", |rec| {
        s.cmd_sort(rec, kb.as_ref(), None, scratch.as_ref(), n as u64)
    })
    .unwrap();
    let control = scratch.read_vec::<u32>(256).unwrap();
    (kb.read_vec::<u32>(words.len()).unwrap(), control)
}

/// The GPU-side plan against its CPU reference: which bits vary (within the bit range), how many passes run
/// (and so whether the final copy runs), and keys that vary in few, scattered bits sorted in that many passes.
#[test]
fn plan_skips_the_bits_that_do_not_vary() {
    with_gpu(|ctx| {
        let n = 3000usize;
        let scattered = |seed: u64| -> Vec<u128> {
            // Bits 3, 9, 17..19, 30 and 31 vary; the others are fixed (some set, some clear).
            gen(KeyType::U32, Dist::Uniform, n, seed)
                .into_iter()
                .map(|x| (x & 0xc00e_0208) | 0x0100_0400)
                .collect()
        };
        type PlanCase = (KeyType, Order, Option<(u32, u32)>, Vec<u128>);
        let cases: Vec<PlanCase> = vec![
            (KeyType::U32, Order::Ascending, None, scattered(1)),
            (KeyType::U32, Order::Descending, Some((4, 31)), scattered(2)),
            (KeyType::U32, Order::Ascending, None, vec![7; n]),
            (
                KeyType::I32,
                Order::Ascending,
                None,
                gen(KeyType::I32, Dist::FewUnique, n, 3),
            ),
            (
                KeyType::F64,
                Order::Descending,
                None,
                gen(KeyType::F64, Dist::FloatSpecials, n, 4),
            ),
            (
                KeyType::U128,
                Order::Ascending,
                Some((1, 128)),
                gen(KeyType::U128, Dist::Uniform, n, 5)
                    .into_iter()
                    .map(|x| x & (0xff << 100 | 0xf << 40 | 1))
                    .collect(),
            ),
        ];
        for (key, order, bits, raw) in cases {
            let want = split::cpu_varying_bits(key, order, bits, &raw);
            for alg in FORMS {
                let c = Case {
                    order,
                    bits,
                    ..Case::new(alg, key)
                };
                let s = sorter(ctx, &c, n, None);
                let (got_keys, control) = sort_and_read_control(ctx, &s, key, &raw);
                let k = control[split::CTRL_VARYING as usize] as usize;
                let bits_got: Vec<u32> =
                    control[split::CTRL_BITS as usize..split::CTRL_BITS as usize + k].to_vec();
                assert_eq!(bits_got, want, "{alg:?} {key:?} {order:?} {bits:?}");
                let per_pass = if alg == PER_BIT {
                    1
                } else {
                    split_of(&s).policy.digit_bits as usize
                };
                assert_eq!(
                    control[split::CTRL_PASSES as usize] as usize,
                    want.len().div_ceil(per_pass),
                    "{alg:?} {key:?}"
                );
                let perm = vksort::sort::types::reference_permutation(key, &raw, order, bits);
                let sorted: Vec<u128> = perm.iter().map(|&i| raw[i]).collect();
                let mut want_words = to_words(&sorted, key);
                want_words.resize(got_keys.len(), 0);
                assert_eq!(got_keys, want_words, "{alg:?} {key:?} {order:?} {bits:?}");
            }
        }
    });
}

/// The look-back scan with its workgroup count read on the GPU (what the split sorts' scans are): g groups scan
/// a prefix of g tiles, 0 groups nothing; the rest of the output is untouched. The buffers run two tiles past
/// `max_n` (the regions end at it), so more groups than tiles (9 for 4) would show a write past the end. A `z`
/// above 1 (outside the contract: `x * y` workgroups) launches copies that must claim nothing.
#[test]
fn indirect_scan_scans_a_prefix() {
    with_gpu(|ctx| {
        let scanner = Scanner::new(ctx, ScanConfig::default()).unwrap();
        let t = scanner.tile_size() as usize;
        let n = 3 * t + 11;
        let room = 2 * t;
        let data: Vec<u32> = common::Rng(8).vec_u32(n).iter().map(|x| x % 100).collect();
        const FILL: u32 = 0xdead_beef;
        for (groups, in_place, z) in [
            (0u32, false, 1u32),
            (1, true, 1),
            (2, false, 1),
            (4, true, 1),
            (9, false, 1),
            (9, true, 1),
            (2, false, 3),
            (1, true, 2),
        ] {
            let mut padded = data.clone();
            padded.resize(n + room, FILL);
            let input = Buffer::from_slice(ctx, "test::in", &padded).unwrap();
            let output = Buffer::from_slice(ctx, "test::out", &vec![FILL; n + room]).unwrap();
            let args = Buffer::from_slice(ctx, "test::args", &[groups, 1, z]).unwrap();
            let scratch =
                Buffer::device_local(ctx, "test::scratch", scanner.scratch_bytes(n as u64))
                    .unwrap();
            let out = if in_place { &input } else { &output };
            let bytes = n as u64 * 4;
            ctx.submit("test::scan", |rec| {
                let a = args.as_ref();
                scanner.cmd_scan_indirect(
                    rec,
                    input.as_ref().slice(0, bytes),
                    out.as_ref().slice(0, bytes),
                    scratch.as_ref(),
                    n as u64,
                    a,
                )
            })
            .unwrap();
            let got = out.read_vec::<u32>(n + room).unwrap();
            let done = (groups as usize * t).min(n);
            let want = vksort::scan::cpu_scan_u32(&data[..done], vksort::scan::ScanKind::Exclusive);
            assert_eq!(&got[..done], &want[..], "groups {groups}");
            let rest: Vec<u32> = if in_place {
                data[done..].to_vec()
            } else {
                vec![FILL; n - done]
            };
            assert_eq!(
                &got[done..n],
                &rest[..],
                "groups {groups}: beyond the prefix"
            );
            assert_eq!(
                &got[n..],
                &vec![FILL; room][..],
                "groups {groups}, in place {in_place}: a write past max_n"
            );
        }
    });
}

/// Pipelines are built when a sorter is created: recording sorts of any size up to its `max_n`, with host or
/// GPU-side counts, builds none.
#[test]
fn recording_builds_no_pipeline() {
    with_gpu(|ctx| {
        for (alg, key, value, max_n) in [
            (BLOCKED, KeyType::U32, ValueType::U32, 9000u64),
            (PER_BIT, KeyType::U64, ValueType::None, 5000),
            (BLOCKED, KeyType::U128, ValueType::U64, 3000),
        ] {
            let cfg = SortConfig {
                key,
                value,
                algorithm: alg,
                max_n,
                ..Default::default()
            };
            let s = Sorter::new(ctx, cfg).unwrap();
            common::sorting::assert_recording_builds_no_pipeline(
                ctx,
                &s,
                &[0, 1, 2, 3, 17, 255, 256, 257, 1000, 1024, 1025],
                16,
                &format!("{alg:?}"),
            );
        }
    });
}

/// Rejected input returns a typed error and leaves the buffers untouched.
#[test]
fn bad_input_is_rejected_and_writes_nothing() {
    with_gpu(|ctx| {
        for alg in FORMS {
            let cfg = SortConfig {
                bits: Some((3, 3)),
                algorithm: alg,
                ..Default::default()
            };
            assert!(matches!(
                Sorter::new(ctx, cfg),
                Err(Error::InvalidBitRange { .. })
            ));
        }
        let c = Case {
            value: ValueType::U32,
            ..Case::new(BLOCKED, KeyType::U32)
        };
        let dev = split_of(&sorter(ctx, &c, 1, None)).policy;
        for p in [
            with(dev, |p| p.digit_bits = 0),
            with(dev, |p| p.digit_bits = 9),
            with(dev, |p| p.items_per_invocation = 0),
            with(dev, |p| p.items_per_invocation = 33),
            with(dev, |p| p.workgroup_size = dev.workgroup_size + 1),
            with(dev, |p| {
                p.workgroup_size = 1024;
                p.items_per_invocation = 32;
            }),
        ] {
            let r = Sorter::builder(ctx, c.config(100)).tuning(p).build();
            assert!(
                matches!(
                    r,
                    Err(Error::InvalidPolicy {
                        family: "split",
                        ..
                    })
                ),
                "{p:?}"
            );
        }
        let q = dev
            .with_overrides("digit_bits=3,items_per_invocation=4,scan.workgroup_size=64")
            .unwrap();
        assert_eq!(
            (q.digit_bits, q.items_per_invocation, q.scan.workgroup_size),
            (3, 4, 64)
        );
        assert!(
            dev.with_overrides("bits=3").is_err(),
            "the old short keys are gone"
        );
        assert!(matches!(
            dev.with_overrides("nope=1"),
            Err(Error::InvalidPolicy { .. })
        ));

        let n = 5000usize;
        let raw = common::Rng(3).vec_u32(n);
        for alg in FORMS {
            let cfg = SortConfig {
                value: ValueType::U32,
                algorithm: alg,
                max_n: n as u64,
                ..Default::default()
            };
            let s = Sorter::new(ctx, cfg).unwrap();
            let kb = Buffer::from_slice(ctx, "test::keys", &raw).unwrap();
            let vb = Buffer::from_slice(ctx, "test::vals", &raw).unwrap();
            let req = s.storage_requirements(n as u64).unwrap();
            assert_eq!(req.scratch_usage, split::SCRATCH_USAGE);
            let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
            let run = |k: vksort::BufferRef,
                       v: Option<vksort::BufferRef>,
                       sc: vksort::BufferRef,
                       n: u64| {
                ctx.submit("test::bad", |rec| s.cmd_sort(rec, k, v, sc, n))
            };
            let nb = (n * 4) as u64;
            let r = run(
                kb.as_ref(),
                Some(vb.slice(0, nb - 4)),
                scratch.as_ref(),
                n as u64,
            );
            assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
            let r = run(kb.as_ref(), None, scratch.as_ref(), n as u64);
            assert!(
                matches!(r, Err(Error::ValuesMismatch { expected: true })),
                "{r:?}"
            );
            let r = run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.slice(0, req.scratch_bytes - 4),
                n as u64,
            );
            assert!(matches!(r, Err(Error::BufferTooSmall { .. })), "{r:?}");
            let no_indirect = common::with_usage(
                scratch.as_ref(),
                ash::vk::BufferUsageFlags::STORAGE_BUFFER | ash::vk::BufferUsageFlags::TRANSFER_DST,
            );
            let r = run(kb.as_ref(), Some(vb.as_ref()), no_indirect, n as u64);
            assert!(matches!(r, Err(Error::MissingUsage { .. })), "{r:?}");
            let r = run(
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n as u64 + 1,
            );
            assert!(matches!(r, Err(Error::CountOverCapacity { .. })), "{r:?}");
            let cnt = Buffer::from_slice(ctx, "test::count", &[10u32; 4]).unwrap();
            let r = ctx.submit("test::bad", |rec| {
                s.cmd_sort_indirect(
                    rec,
                    kb.as_ref(),
                    Some(vb.as_ref()),
                    scratch.as_ref(),
                    cnt.slice(2, 4),
                    n as u64,
                )
            });
            assert!(matches!(r, Err(Error::Misaligned { .. })), "{r:?}");
            assert_eq!(kb.read_vec::<u32>(n).unwrap(), raw);
            assert_eq!(vb.read_vec::<u32>(n).unwrap(), raw);
        }
    });
}

#[test]
fn names_workload_and_passes() {
    with_gpu(|ctx| {
        assert_eq!(SortAlgorithm::from_name("split-radix"), Some(BLOCKED));
        assert_eq!(SortAlgorithm::from_name("split-radix-bit"), Some(PER_BIT));
        assert!(BLOCKED.stable() && PER_BIT.stable());
        for (key, bits, bit_passes) in [
            (KeyType::U32, None, 32),
            (KeyType::F64, Some((3, 20)), 17),
            (KeyType::U128, None, 128),
        ] {
            let c = Case {
                bits,
                ..Case::new(BLOCKED, key)
            };
            let s = sorter(ctx, &c, 1000, None);
            let b = split_of(&s);
            assert_eq!(b.recorded_passes(PER_BIT), bit_passes);
            assert_eq!(
                b.recorded_passes(BLOCKED),
                bit_passes.div_ceil(b.policy.digit_bits)
            );
            let w = s.workload(1 << 20);
            assert!(w.iter().all(|p| p.label.starts_with("vksort::")));
            assert!(w.iter().any(|p| p.label == "vksort::split::scatter"));
        }
    });
}
