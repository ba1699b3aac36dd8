//! Reduce (sum, min, max over u32/u64) and stable stream compaction against CPU references, with the
//! look-back stall emulation for compaction, bad input and push-constant sizes.
mod common;
use common::{with_gpu, Rng};
use vksort::compact::{
    self, cpu_compact_u32, CompactPolicy, CompactPush, CompactStaging, Compactor, Predicate,
};
use vksort::gpu::kernel::reflect;
use vksort::gpu::Buffer;
use vksort::reduce::{self, cpu_reduce_u32, cpu_reduce_u64, ReduceOp, ReducePush};
use vksort::scan::{ScanElem, ScanPolicy, StallMode};
use vksort::Error;

const OPS: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];

#[test]
fn reduce_matches_cpu() {
    with_gpu(|ctx| {
        if !ctx.caps().int64 {
            common::skip("int64", "no shaderInt64: the u64 cases are left out");
        }
        let tile = ScanPolicy::for_device(ctx.caps()).tile() as usize;
        let mut sizes = vec![0usize, 1, 2, 7, 1001, (1 << 16) + 3];
        sizes.extend(tile - 2..=tile + 2);
        for &n in &sizes {
            let mut r = Rng(n as u64 + 3);
            let d32: Vec<u32> = (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        u32::MAX - (r.next_u32() & 0xfff)
                    } else {
                        r.next_u32() | 1
                    }
                })
                .collect();
            for op in OPS {
                assert_eq!(
                    reduce::reduce_u32(ctx, &d32, op).unwrap(),
                    cpu_reduce_u32(&d32, op),
                    "u32 {op:?} n={n}"
                );
            }
            if ctx.caps().int64 {
                let d64: Vec<u64> = (0..n)
                    .map(|i| {
                        if i % 2 == 0 {
                            u64::MAX - (r.next_u64() & 0xfff)
                        } else {
                            r.next_u64() | 1
                        }
                    })
                    .collect();
                for op in OPS {
                    assert_eq!(
                        reduce::reduce_u64(ctx, &d64, op).unwrap(),
                        cpu_reduce_u64(&d64, op),
                        "u64 {op:?} n={n}"
                    );
                }
            }
        }
        // Large: more tiles than workgroups.
        let d = Rng(77).vec_u32((1 << 22) + 1);
        for op in OPS {
            assert_eq!(
                reduce::reduce_u32(ctx, &d, op).unwrap(),
                cpu_reduce_u32(&d, op)
            );
        }
    });
}

fn sparse(n: usize, seed: u64, keep_one_in: u32) -> (Vec<u32>, Vec<u32>) {
    let mut r = Rng(seed);
    let data: Vec<u32> = (0..n)
        .map(|_| {
            if r.next_u32() % keep_one_in == 0 {
                r.next_u32() | 1
            } else {
                0
            }
        })
        .collect();
    let flags: Vec<u32> = (0..n)
        .map(|_| (r.next_u32() % 3 == 0) as u32 * r.next_u32().max(1))
        .collect();
    (data, flags)
}

#[test]
fn compact_matches_cpu() {
    with_gpu(|ctx| {
        // The tiles of the default policy (the small inputs', the large ones'), and each tier's end (NVIDIA:
        // 2^21, 2^23 and 2^26 elements; CPU devices have no tier).
        let c = Compactor::new(ctx, None).unwrap();
        let (small, tile) = (c.tile_size(0) as usize, c.tile_size(u64::MAX) as usize);
        let mut sizes = vec![0usize, 1, 2, 7, 1001, (1 << 16) + 3, 3 * tile + 1];
        sizes.extend(tile - 2..=tile + 2);
        sizes.extend(small - 2..=small + 2);
        let base = CompactPolicy::for_device(ctx.caps());
        for end in [base.small.max, base.mid.max, base.large.max]
            .into_iter()
            .filter(|&e| e > 0)
        {
            sizes.extend([end as usize, end as usize + 1]);
        }
        // One workgroup up to its tile (no status cleared), tiles beyond: both sides of the edge.
        let single = c.tile_size(1) as usize;
        sizes.extend(single - 1..=single + 1);
        for &n in &sizes {
            for keep in [1, 2, 7, 1_000_000] {
                let (data, flags) = sparse(n, n as u64 + keep as u64, keep);
                assert_eq!(
                    compact::compact_u32(ctx, &data, None).unwrap(),
                    cpu_compact_u32(&data, None),
                    "values n={n}"
                );
                assert_eq!(
                    compact::compact_u32(ctx, &data, Some(&flags)).unwrap(),
                    cpu_compact_u32(&data, Some(&flags)),
                    "flags n={n}"
                );
            }
        }
        // A one-workgroup form larger than the tiles' workgroup, both sides of its edge.
        let single = (base.scan.workgroup_size * 4).min(ctx.caps().max_workgroup_invocations);
        if single > base.scan.workgroup_size {
            let mut p = base;
            p.scan.single_workgroup_size = single;
            let edge = p.single_tile(1) as usize;
            for n in [edge - 1, edge, edge + 1, 2 * edge + 3] {
                let (data, flags) = sparse(n, n as u64, 3);
                assert_eq!(
                    compact::compact_u32_with(ctx, &data, Some(&flags), Some(p)).unwrap(),
                    cpu_compact_u32(&data, Some(&flags)),
                    "one workgroup of {single}, n={n}"
                );
            }
        }
        let (data, flags) = sparse((1 << 22) + 1, 5, 3);
        assert_eq!(
            compact::compact_u32(ctx, &data, Some(&flags)).unwrap(),
            cpu_compact_u32(&data, Some(&flags))
        );
    });
}

/// A compactor builds every kernel when it is made: recording compactions of any count, on both sides of
/// each tier's one-workgroup tile and of each tier's end, builds none (with the default policy, with three
/// tiers of their own shapes, and with no tier and a one workgroup larger than the tiles').
#[test]
fn compactor_recording_builds_no_kernel() {
    with_gpu(|ctx| {
        let base = CompactPolicy::for_device(ctx.caps());
        let mut wide = base;
        (wide.small.max, wide.mid.max, wide.large.max) = (0, 0, 0);
        // Tier shapes unlike the scan's, so that a count that strays into one builds a kernel.
        wide.small.items_per_invocation = base.scan.items_per_invocation * 2;
        wide.mid.items_per_invocation = base.scan.items_per_invocation * 2;
        wide.large.items_per_invocation = base.scan.items_per_invocation * 2;
        wide.scan.single_workgroup_size =
            (base.scan.workgroup_size * 4).min(ctx.caps().max_workgroup_invocations);
        // Kernels of its own (the context keeps every kernel another test built): a spin limit nobody uses.
        wide.scan.spin_limit = 777;
        // Three tiers below the scan's tile, each of its own shape, their boundaries within the sizes below.
        let mut tiered = base;
        let wg = base.scan.workgroup_size;
        (tiered.small.max, tiered.small.workgroup_size) = (3 * base.scan.tile() as u64, wg);
        tiered.small.items_per_invocation = 8.max(512 / wg);
        (tiered.mid.max, tiered.mid.workgroup_size) = (6 * base.scan.tile() as u64, wg);
        tiered.mid.items_per_invocation = (2 * base.scan.items_per_invocation).min(64);
        (tiered.large.max, tiered.large.workgroup_size) = (9 * base.scan.tile() as u64, wg);
        tiered.large.items_per_invocation = (4 * base.scan.items_per_invocation).min(64);
        tiered.scan.spin_limit = 778;
        for policy in [wide, tiered, base] {
            let c = Compactor::new(ctx, Some(policy)).unwrap();
            let ends = [policy.small.max, policy.mid.max, policy.large.max];
            let mut sizes = vec![0u64, 1, 1 << 16];
            sizes.extend(ends.iter().flat_map(|&e| [e, e + 1]));
            for n in sizes.clone() {
                let edge = policy.single_tile(n) as u64;
                sizes.extend([edge, edge + 1, 3 * edge + 5]);
            }
            sizes.retain(|&n| n <= 1 << 18);
            let max = *sizes.iter().max().unwrap();
            let input = Buffer::from_slice(ctx, "test::input", &vec![1u32; max as usize]).unwrap();
            let output = Buffer::device_local(ctx, "test::output", max * 4).unwrap();
            let count = Buffer::device_local(ctx, "test::count", 4).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", c.scratch_bytes(max)).unwrap();
            let what = format!("{policy:?} (sizes {sizes:?})");
            common::assert_records_without_building(ctx, &what, |rec| {
                for &n in &sizes {
                    let (i, o, k, s) = (
                        input.as_ref(),
                        output.as_ref(),
                        count.as_ref(),
                        scratch.as_ref(),
                    );
                    c.cmd_compact(rec, i, None, o, k, s, n)?;
                    rec.barrier();
                }
                Ok(())
            });
        }
    });
}

/// A compaction over several tiles keeps its status in the Compactor's own block, and every run leaves it
/// zeroed for the next, which clears nothing ([`CompactPolicy::clears_status`]): runs of different lengths,
/// values and flags, back to back in one command buffer (a host submission), then again with a second Compactor
/// on the pooled block, recorded into a command buffer of the test's own with no barrier between the runs;
/// all against the CPU. A run that left its tile counter or a flag behind would make the next one
/// claim tiles past its end, or place its elements after a stale count.
#[test]
fn own_status_runs_back_to_back() {
    with_gpu(|ctx| {
        for round in 0..2u64 {
            let c = Compactor::new(ctx, None).unwrap();
            let p = CompactPolicy::for_device(ctx.caps());
            let (single, tile) = (p.single_tile(1) as u64, c.tile_size(u64::MAX) as u64);
            let sizes = [single + 1, 30 * tile + 3, 2 * single + 5];
            let runs: Vec<_> = sizes
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    assert!(!p.clears_status(n), "n={n}");
                    let (data, flags) = sparse(n as usize, n + 10 * round + i as u64, 3);
                    let flags = (i % 2 == 1).then_some(flags);
                    let want = cpu_compact_u32(&data, flags.as_deref());
                    let input = Buffer::from_slice(ctx, "test::in", &data).unwrap();
                    let flags = flags.map(|f| Buffer::from_slice(ctx, "test::flags", &f).unwrap());
                    let output = Buffer::device_local(ctx, "test::out", n * 4).unwrap();
                    let count = Buffer::from_slice(ctx, "test::count", &[0u32; 4]).unwrap();
                    let scratch =
                        Buffer::device_local(ctx, "test::scratch", c.scratch_bytes(n)).unwrap();
                    (n, input, flags, output, count, scratch, want)
                })
                .collect();
            let record = |rec: &mut vksort::Recorder| -> vksort::Result<()> {
                for (n, input, flags, output, count, scratch, _) in &runs {
                    c.cmd_compact(
                        rec,
                        input.as_ref(),
                        flags.as_ref().map(|f| f.as_ref()),
                        output.as_ref(),
                        count.as_ref(),
                        scratch.as_ref(),
                        *n,
                    )?;
                }
                Ok(())
            };
            match round {
                0 => ctx.submit("test::back_to_back", record).unwrap(),
                // The caller's path, no profiler (whose timestamps would order the runs): vksort orders them.
                _ => common::record_unprofiled(ctx, |rec| record(rec).unwrap()),
            }
            for (n, _, _, output, count, _, want) in &runs {
                assert_eq!(
                    count.read_vec::<u32>(1).unwrap()[0] as usize,
                    want.len(),
                    "round {round} n={n}"
                );
                assert_eq!(
                    &output.read_vec::<u32>(want.len()).unwrap(),
                    want,
                    "round {round} n={n}"
                );
            }
        }
    });
}

/// Every predicate, on elements and on flags, with every staging mode, across tile boundaries.
#[test]
fn compact_predicates_and_staging() {
    with_gpu(|ctx| {
        let preds = [
            Predicate::NonZero,
            Predicate::ODD,
            Predicate::BitsEqual {
                mask: 0xf0,
                value: 0x30,
            },
            Predicate::InRange {
                lo: 1 << 30,
                hi: 3 << 30,
            },
            Predicate::InRange { lo: 9, hi: 9 },
            Predicate::InRange { lo: 10, hi: 3 },
        ];
        let base = CompactPolicy::for_device(ctx.caps());
        // Four shapes: inputs of up to 3 of the scan's tiles take a tile of 8 elements per invocation, twice as
        // many invocations where the device allows (lavapipe: 256 x 8); up to 6 such tiles, the scan's
        // invocations with twice its elements each (at most 64); up to 9, four times its elements (at most 64);
        // above, the scan's tile.
        let mut tiered = base;
        tiered.small.workgroup_size =
            (2 * base.scan.workgroup_size).min(ctx.caps().max_workgroup_invocations);
        tiered.small.items_per_invocation = 8.max(512 / tiered.small.workgroup_size);
        tiered.small.max = 3 * base.scan.tile() as u64;
        tiered.mid.workgroup_size = base.scan.workgroup_size;
        tiered.mid.items_per_invocation = (2 * base.scan.items_per_invocation).min(64);
        tiered.mid.max = 6 * base.scan.tile() as u64;
        tiered.large.workgroup_size = base.scan.workgroup_size;
        tiered.large.items_per_invocation = (4 * base.scan.items_per_invocation).min(64);
        tiered.large.max = 9 * base.scan.tile() as u64;
        for (staging, tiers) in [
            (CompactStaging::Direct, base),
            (CompactStaging::Tile, base),
            (CompactStaging::Subgroup, base),
            (CompactStaging::Subgroup, tiered),
        ] {
            let mut policy = tiers;
            policy.staging = staging;
            let tile = policy.scan.tile() as usize;
            let small = (policy.small.workgroup_size * policy.small.items_per_invocation) as usize;
            let (small_max, mid_max) = (policy.small.max as usize, policy.mid.max as usize);
            let large_max = policy.large.max as usize;
            let mut sizes = vec![
                0,
                1,
                5,
                small + 1,
                tile - 1,
                tile,
                tile + 1,
                3 * tile,
                3 * tile + 7,
            ];
            sizes.extend([
                small_max,
                small_max + 1,
                mid_max,
                mid_max + 1,
                mid_max + 5,
                large_max,
                large_max + 1,
                (1 << 16) + 3,
            ]);
            sizes.retain(|&n| n <= 1 << 18);
            sizes.sort_unstable();
            sizes.dedup();
            for n in sizes {
                let mut r = Rng(n as u64 * 31 + 7);
                // A third zeros, the rest uniform; flags from the same mix.
                let mut draw = || match r.next_u32() % 3 {
                    0 => 0,
                    _ => r.next_u32(),
                };
                let data: Vec<u32> = (0..n).map(|_| draw()).collect();
                let flags: Vec<u32> = (0..n).map(|_| draw()).collect();
                for &pred in &preds {
                    for f in [None, Some(&flags[..])] {
                        assert_eq!(
                            compact::compact_u32_if(ctx, &data, f, pred, Some(policy)).unwrap(),
                            compact::cpu_compact_u32_if(&data, f, pred),
                            "{staging:?} tiers {:?} {:?} {:?} {pred:?} flags={} n={n}",
                            policy.small,
                            policy.mid,
                            policy.large,
                            f.is_some()
                        );
                    }
                }
            }
        }
    });
}

#[test]
fn compact_survives_stalled_tiles() {
    with_gpu(|ctx| {
        for mode in [StallMode::NeverPublish, StallMode::PublishLate] {
            let mut policy = ScanPolicy::for_device(ctx.caps());
            policy.stall_every = 3;
            policy.stall_mode = mode;
            policy.spin_limit = 64;
            let tile = policy.tile() as usize;
            for n in [tile + 1, 20 * tile + 5, (1 << 16) + 3] {
                let (data, flags) = sparse(n, n as u64, 2);
                assert_eq!(
                    compact::compact_u32_with(ctx, &data, None, Some(policy.into())).unwrap(),
                    cpu_compact_u32(&data, None)
                );
                // Every staging mode under stalls (the subgroup staging stores after the look-back too).
                for staging in [CompactStaging::Direct, CompactStaging::Subgroup] {
                    let mut p = CompactPolicy::from(policy);
                    p.staging = staging;
                    assert_eq!(
                        compact::compact_u32_with(ctx, &data, Some(&flags), Some(p)).unwrap(),
                        cpu_compact_u32(&data, Some(&flags)),
                        "{staging:?}"
                    );
                }
            }
            // The fallback counter (scratch word 1, after the tile counter) of a compaction with stalled tiles:
            // tiles that never publish must have been reduced by their successors.
            let c = Compactor::new(ctx, Some(policy.into())).unwrap();
            let n = 20 * tile + 5;
            let (data, _) = sparse(n, 9, 2);
            let input = Buffer::from_slice(ctx, "test::in", &data).unwrap();
            let output = Buffer::device_local(ctx, "test::out", n as u64 * 4).unwrap();
            let count = Buffer::from_slice(ctx, "test::count", &[0u32; 4]).unwrap();
            let scratch =
                Buffer::device_local(ctx, "test::scratch", c.scratch_bytes(n as u64)).unwrap();
            ctx.submit("test::stall", |rec| {
                c.cmd_compact(
                    rec,
                    input.as_ref(),
                    None,
                    output.as_ref(),
                    count.as_ref(),
                    scratch.as_ref(),
                    n as u64,
                )
            })
            .unwrap();
            let want = cpu_compact_u32(&data, None);
            assert_eq!(count.read_vec::<u32>(1).unwrap()[0] as usize, want.len());
            assert_eq!(output.read_vec::<u32>(want.len()).unwrap(), want);
            let header = scratch.read_vec::<u32>(2).unwrap();
            let tiles = n.div_ceil(c.tile_size(n as u64) as usize).max(1);
            assert_eq!(header[0] as usize, tiles, "{mode:?}: tiles claimed");
            if mode == StallMode::NeverPublish {
                assert!(header[1] > 0, "{mode:?}: no fallback ran");
            }
        }
    });
}

#[test]
fn bad_input_is_rejected_and_output_untouched() {
    with_gpu(|ctx| {
        let n = 1000u64;
        let input = Buffer::from_slice(ctx, "test::in", &vec![1u32; n as usize]).unwrap();
        let output = Buffer::from_slice(ctx, "test::out", &vec![7u32; n as usize]).unwrap();
        let count = Buffer::from_slice(ctx, "test::count", &[7u32; 4]).unwrap();
        let scratch =
            Buffer::device_local(ctx, "test::scratch", compact::compact_scratch_bytes(n)).unwrap();
        let (i, o, c, s) = (
            input.as_ref(),
            output.as_ref(),
            count.as_ref(),
            scratch.as_ref(),
        );
        let run = |i: vksort::BufferRef,
                   f: Option<vksort::BufferRef>,
                   o: vksort::BufferRef,
                   s: vksort::BufferRef,
                   n: u64| {
            ctx.submit("test::bad", |rec| {
                compact::cmd_compact(rec, i, f, o, c, s, n)
            })
        };
        assert!(matches!(
            run(i.slice(0, 400), None, o, s, n),
            Err(Error::BufferTooSmall { what: "input", .. })
        ));
        assert!(matches!(
            run(i, Some(i.slice(0, 400)), o, s, n),
            Err(Error::BufferTooSmall { what: "flags", .. })
        ));
        assert!(matches!(
            run(i, None, o.slice(0, 400), s, n),
            Err(Error::BufferTooSmall { what: "output", .. })
        ));
        assert!(matches!(
            run(i, None, o, s.slice(0, 16), n),
            Err(Error::BufferTooSmall {
                what: "scratch",
                ..
            })
        ));
        let no_storage = common::with_usage(o, ash::vk::BufferUsageFlags::TRANSFER_DST);
        assert!(matches!(
            run(i, None, no_storage, s, n),
            Err(Error::MissingUsage { .. })
        ));
        assert!(matches!(
            run(i.slice(4, 3996), None, o, s, 999),
            Err(Error::Misaligned { .. })
        ));
        let huge = ctx.caps().max_storage_buffer_range / 4 + 1;
        assert!(matches!(
            run(i, None, o, s, huge),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(run(o, None, o, s, n), Err(Error::Overlap { .. })));
        // Reduce.
        let rs =
            Buffer::device_local(ctx, "test::rscratch", reduce::reduce_scratch_bytes(n)).unwrap();
        let rrun = |i: vksort::BufferRef,
                    o: vksort::BufferRef,
                    s: vksort::BufferRef,
                    n: u64,
                    e: ScanElem| {
            ctx.submit("test::bad", |rec| {
                reduce::cmd_reduce(rec, i, o, s, n, ReduceOp::Max, e)
            })
        };
        let r = rs.as_ref();
        assert!(matches!(
            rrun(i.slice(0, 400), c, r, n, ScanElem::U32),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            rrun(i, c, r.slice(0, 64), n, ScanElem::U32),
            Err(Error::BufferTooSmall { .. })
        ));
        assert!(matches!(
            rrun(i, no_storage, r, n, ScanElem::U32),
            Err(Error::MissingUsage { .. })
        ));
        assert!(matches!(
            rrun(i, c, r, huge, ScanElem::U32),
            Err(Error::TooLarge { .. })
        ));
        if !ctx.caps().int64 {
            assert!(matches!(
                rrun(i, c, r, 10, ScanElem::U64),
                Err(Error::Unsupported { .. })
            ));
        }
        assert_eq!(
            output.read_vec::<u32>(n as usize).unwrap(),
            vec![7u32; n as usize]
        );
        assert_eq!(count.read_vec::<u32>(4).unwrap(), vec![7u32; 4]);
        // Flags of the wrong length in the host form.
        assert!(matches!(
            compact::compact_u32(ctx, &[1, 2], Some(&[1])),
            Err(Error::LengthMismatch { .. })
        ));
    });
}

#[test]
fn push_constant_structs_match_reflection() {
    for v in ["values", "flags"] {
        let name = format!("compact_{v}");
        assert_eq!(
            reflect(&name).unwrap().push_constant_size as usize,
            std::mem::size_of::<CompactPush>(),
            "{name}"
        );
    }
    for e in ["u32", "u64"] {
        for op in ["sum", "min", "max"] {
            let name = format!("reduce_{e}_{op}");
            assert_eq!(
                reflect(&name).unwrap().push_constant_size as usize,
                std::mem::size_of::<ReducePush>(),
                "{name}"
            );
        }
    }
}
