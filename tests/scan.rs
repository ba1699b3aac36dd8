//! The scan family: every algorithm x {exclusive, inclusive} x {u32, u64} against the CPU reference
//! (bitwise), edge sizes around each algorithm's tile, wrapping values, the look-back stall emulation,
//! in-place scans, bad input (typed errors, output untouched) and push-constant sizes.
mod common;
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::kernel::reflect;
use vksort::gpu::{Buffer, Profiler};
use vksort::scan::{
    self, cpu_scan_u32, cpu_scan_u64, ScanAlgorithm, ScanConfig, ScanElem, ScanKind, ScanPolicy,
    Scanner, StallMode,
};
use vksort::{Context, Error};

const KINDS: [ScanKind; 2] = [ScanKind::Exclusive, ScanKind::Inclusive];

/// Random values, a third of them near the top of the range so that sums wrap.
fn data_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => u32::MAX - (r.next_u32() & 0xff),
            1 => r.next_u32(),
            _ => r.next_u32() & 0xffff,
        })
        .collect()
}

fn data_u64(n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => u64::MAX - (r.next_u64() & 0xffff),
            1 => r.next_u64(),
            _ => r.next_u64() >> 20,
        })
        .collect()
}

/// Panics with the first difference, its values and how many elements differ.
fn report_difference<T: PartialEq + std::fmt::Debug>(
    config: &ScanConfig,
    n: usize,
    got: &[T],
    want: &[T],
) {
    let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
    let wrong = got.iter().zip(want).filter(|(a, b)| a != b).count();
    panic!(
        "{config:?} n={n}: first difference at {i}: got {:?} want {:?} ({wrong} elements differ)",
        got.get(i),
        want.get(i)
    );
}

fn check(ctx: &Arc<Context>, config: ScanConfig, sizes: &[usize]) {
    for &n in sizes {
        let seed = n as u64 * 31 + config.algorithm as u64;
        match config.elem {
            ScanElem::U32 => {
                let d = data_u32(n, seed);
                let got = scan::scan_u32(ctx, &d, &config).unwrap();
                let want = cpu_scan_u32(&d, config.kind);
                if got != want {
                    report_difference(&config, n, &got, &want);
                }
            }
            ScanElem::U64 => {
                if !ctx.caps().int64 {
                    continue;
                }
                let d = data_u64(n, seed);
                let got = scan::scan_u64(ctx, &d, &config).unwrap();
                let want = cpu_scan_u64(&d, config.kind);
                if got != want {
                    report_difference(&config, n, &got, &want);
                }
            }
        }
    }
}

fn edge_sizes(tile: usize) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 7, 33, 1001];
    v.extend(tile - 2..=tile + 2);
    v.extend([2 * tile - 1, 3 * tile + 5]);
    v
}

fn run_algorithm(algorithm: ScanAlgorithm) {
    with_gpu(|ctx| {
        if !ctx.caps().int64 {
            common::skip("int64", "no shaderInt64: the u64 cases are left out");
        }
        for elem in [ScanElem::U32, ScanElem::U64] {
            for kind in KINDS {
                let config = ScanConfig {
                    algorithm,
                    kind,
                    elem,
                    policy: None,
                };
                if elem == ScanElem::U64 && !ctx.caps().int64 {
                    continue;
                }
                let scanner = Scanner::new(ctx, config).unwrap();
                let tile = scanner.tile_size() as usize;
                let mut sizes = edge_sizes(tile);
                if algorithm == ScanAlgorithm::DecoupledLookback {
                    // The one-workgroup form's edge (one tile, no status cleared).
                    let single = scanner.policy().single_tile() as usize;
                    sizes.extend(single - 1..=single + 1);
                }
                sizes.push((1 << 16) + 3);
                check(ctx, config, &sizes);
            }
        }
        // The big sizes once per algorithm.
        let ex = ScanConfig {
            algorithm,
            ..Default::default()
        };
        check(ctx, ex, &[1 << 20]);
        let inc = ScanConfig {
            algorithm,
            kind: ScanKind::Inclusive,
            ..Default::default()
        };
        check(ctx, inc, &[(1 << 22) + 1]);
    });
}

#[test]
fn lookback_matches_cpu() {
    run_algorithm(ScanAlgorithm::DecoupledLookback);
}

#[test]
fn reduce_then_scan_matches_cpu() {
    run_algorithm(ScanAlgorithm::ReduceThenScan);
}

#[test]
fn blelloch_matches_cpu() {
    run_algorithm(ScanAlgorithm::Blelloch);
}

#[test]
fn hillis_steele_matches_cpu() {
    run_algorithm(ScanAlgorithm::HillisSteele);
}

fn stall_policy(ctx: &Arc<Context>, mode: StallMode) -> ScanPolicy {
    let mut p = ScanPolicy::for_device(ctx.caps());
    p.stall_every = 3;
    p.stall_mode = mode;
    p.spin_limit = 64;
    p
}

/// The look-back completes and is correct when tiles never publish (or publish late): successors must
/// reduce the stuck tiles themselves. The fallback counter proves the fallback ran.
#[test]
fn lookback_survives_stalled_tiles() {
    with_gpu(|ctx| {
        if !ctx.caps().int64 {
            common::skip("int64", "no shaderInt64: the u64 cases are left out");
        }
        for mode in [StallMode::NeverPublish, StallMode::PublishLate] {
            for elem in [ScanElem::U32, ScanElem::U64] {
                if elem == ScanElem::U64 && !ctx.caps().int64 {
                    continue;
                }
                for kind in KINDS {
                    let config = ScanConfig {
                        algorithm: ScanAlgorithm::DecoupledLookback,
                        kind,
                        elem,
                        policy: Some(stall_policy(ctx, mode)),
                    };
                    let s = Scanner::new(ctx, config).unwrap();
                    let tile = s.tile_size() as usize;
                    for n in [1, tile + 1, 20 * tile + 5, (1 << 16) + 3] {
                        check(ctx, config, &[n]);
                    }
                    // The fallback counter of a scan with stalled tiles.
                    let n = 10 * tile + 3;
                    let d = data_u32(n * 2, 5);
                    let input = Buffer::from_slice(ctx, "test::in", &d).unwrap();
                    let output = Buffer::device_local(ctx, "test::out", n as u64 * 8).unwrap();
                    let scratch =
                        Buffer::device_local(ctx, "test::scratch", s.scratch_bytes(n as u64))
                            .unwrap();
                    ctx.submit("test::stall", |rec| {
                        s.cmd_scan(
                            rec,
                            input.as_ref(),
                            output.as_ref(),
                            scratch.as_ref(),
                            n as u64,
                        )
                    })
                    .unwrap();
                    let header = scratch.read_vec::<u32>(2).unwrap();
                    assert_eq!(header[0] as usize, n.div_ceil(tile), "tiles claimed");
                    if mode == StallMode::NeverPublish {
                        assert!(header[1] > 0, "{config:?}: no fallback ran");
                    }
                }
            }
        }
    });
}

/// input == output works for every algorithm (and for the look-back with late-publishing stalled tiles).
#[test]
fn in_place_scans() {
    with_gpu(|ctx| {
        let late = ScanConfig {
            policy: Some(stall_policy(ctx, StallMode::PublishLate)),
            ..Default::default()
        };
        let never = ScanConfig {
            policy: Some(stall_policy(ctx, StallMode::NeverPublish)),
            ..Default::default()
        };
        for kind in KINDS {
            let config = ScanConfig { kind, ..late };
            let s = Scanner::new(ctx, config).unwrap();
            let n = s.tile_size() as usize * 20 + 3;
            let d = data_u32(n, 11);
            let buf = Buffer::from_slice(ctx, "test::inplace", &d).unwrap();
            let scratch =
                Buffer::device_local(ctx, "test::scratch", s.scratch_bytes(n as u64)).unwrap();
            ctx.submit("test::inplace", |rec| {
                s.cmd_scan(rec, buf.as_ref(), buf.as_ref(), scratch.as_ref(), n as u64)
            })
            .unwrap();
            let got = buf.read_vec::<u32>(n).unwrap();
            let want = cpu_scan_u32(&d, kind);
            if got != want {
                report_difference(&config, n, &got, &want);
            }
            let s = Scanner::new(ctx, ScanConfig { kind, ..never }).unwrap();
            let r = ctx.submit("test::inplace", |rec| {
                s.cmd_scan(rec, buf.as_ref(), buf.as_ref(), scratch.as_ref(), n as u64)
            });
            assert!(matches!(
                r,
                Err(Error::InvalidPolicy { family: "scan", .. })
            ));
        }
        for algorithm in ScanAlgorithm::ALL {
            for kind in KINDS {
                let config = ScanConfig {
                    algorithm,
                    kind,
                    ..Default::default()
                };
                let s = Scanner::new(ctx, config).unwrap();
                let mut sizes = vec![1usize, 2, s.tile_size() as usize * 3 + 7];
                if algorithm == ScanAlgorithm::DecoupledLookback {
                    sizes.push((1 << 20) + 3); // many tiles racing in place
                }
                for n in sizes {
                    let d = data_u32(n, 9);
                    let buf = Buffer::from_slice(ctx, "test::inplace", &d).unwrap();
                    let scratch =
                        Buffer::device_local(ctx, "test::scratch", s.scratch_bytes(n as u64))
                            .unwrap();
                    ctx.submit("test::inplace", |rec| {
                        s.cmd_scan(rec, buf.as_ref(), buf.as_ref(), scratch.as_ref(), n as u64)
                    })
                    .unwrap();
                    assert_eq!(
                        buf.read_vec::<u32>(n).unwrap(),
                        cpu_scan_u32(&d, kind),
                        "{config:?} n={n}"
                    );
                }
            }
        }
    });
}

/// Bad input: typed errors, nothing recorded, output untouched.
#[test]
fn bad_input_is_rejected_and_output_untouched() {
    with_gpu(|ctx| {
        let n = 1000u64;
        for algorithm in ScanAlgorithm::ALL {
            let s = Scanner::new(
                ctx,
                ScanConfig {
                    algorithm,
                    ..Default::default()
                },
            )
            .unwrap();
            let input = Buffer::from_slice(ctx, "test::in", &vec![1u32; n as usize]).unwrap();
            let output =
                Buffer::from_slice(ctx, "test::out", &vec![7u32; n as usize + 64]).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", s.scratch_bytes(n)).unwrap();
            let run =
                |i: vksort::BufferRef, o: vksort::BufferRef, sc: vksort::BufferRef, n: u64| {
                    ctx.submit("test::bad", |rec| s.cmd_scan(rec, i, o, sc, n))
                };
            let (i, o, sc) = (input.as_ref(), output.as_ref(), scratch.as_ref());
            assert!(matches!(
                run(i.slice(0, 400), o, sc, n),
                Err(Error::BufferTooSmall { what: "input", .. })
            ));
            assert!(matches!(
                run(i, o.slice(0, 400), sc, n),
                Err(Error::BufferTooSmall { what: "output", .. })
            ));
            if s.scratch_bytes(n) > 16 {
                assert!(matches!(
                    run(i, o, sc.slice(0, s.scratch_bytes(n) - 16), n),
                    Err(Error::BufferTooSmall {
                        what: "scratch",
                        ..
                    })
                ));
            }
            let no_storage = common::with_usage(o, ash::vk::BufferUsageFlags::TRANSFER_DST);
            assert!(matches!(
                run(i, no_storage, sc, n),
                Err(Error::MissingUsage { .. })
            ));
            let mis = o.slice(4, 4000);
            assert!(matches!(run(i, mis, sc, n), Err(Error::Misaligned { .. })));
            let huge = ctx.caps().max_storage_buffer_range / 4 + 1;
            assert!(matches!(run(i, o, sc, huge), Err(Error::TooLarge { .. })));
            // Partial overlap of input and output.
            assert!(matches!(
                run(o.slice(0, 4000), o.slice(16, 4000), sc, 900),
                Err(Error::Overlap { .. })
            ));
            assert_eq!(
                output.read_vec::<u32>(n as usize + 64).unwrap(),
                vec![7u32; n as usize + 64]
            );
        }
        // Devices without 64-bit support or subgroup ballot are refused by name.
        let mut caps = ctx.caps().clone();
        caps.int64 = false;
        assert!(matches!(
            scan::check_device(&caps, ScanElem::U64),
            Err(Error::Unsupported { .. })
        ));
        assert!(scan::check_device(&caps, ScanElem::U32).is_ok());
        caps.subgroup_ops &= !ash::vk::SubgroupFeatureFlags::BALLOT;
        let e = scan::check_device(&caps, ScanElem::U32).unwrap_err();
        assert!(e.to_string().contains("ballot"), "{e}");
        if !ctx.caps().int64 {
            assert!(matches!(
                scan::scan_u64(ctx, &[1, 2], &ScanConfig::default()),
                Err(Error::Unsupported { .. })
            ));
        }
        // Bad policies.
        let mut bad = ScanPolicy::for_device(ctx.caps());
        bad.items_per_invocation = 6;
        let cfg = ScanConfig {
            policy: Some(bad),
            ..Default::default()
        };
        assert!(matches!(
            Scanner::new(ctx, cfg),
            Err(Error::InvalidPolicy { .. })
        ));
        let mut bad = ScanPolicy::for_device(ctx.caps());
        bad.spin_limit = 70000;
        let cfg = ScanConfig {
            policy: Some(bad),
            ..Default::default()
        };
        assert!(matches!(
            Scanner::new(ctx, cfg),
            Err(Error::InvalidPolicy { .. })
        ));
    });
}

#[test]
fn push_constant_structs_match_reflection() {
    use vksort::scan::{add, blelloch_tile, downsweep, hillis_steele, lookback, reduce, spine};
    let cases: &[(&str, usize)] = &[
        (
            "scan_lookback",
            std::mem::size_of::<lookback::LookbackPush>(),
        ),
        ("scan_reduce", std::mem::size_of::<reduce::ReducePush>()),
        ("scan_spine", std::mem::size_of::<spine::SpinePush>()),
        (
            "scan_downsweep",
            std::mem::size_of::<downsweep::DownsweepPush>(),
        ),
        (
            "scan_hillis_steele",
            std::mem::size_of::<hillis_steele::HillisSteelePush>(),
        ),
        (
            "scan_blelloch_tile",
            std::mem::size_of::<blelloch_tile::BlellochPush>(),
        ),
        ("scan_add", std::mem::size_of::<add::AddPush>()),
    ];
    for (stem, size) in cases {
        let elems: &[&str] = if *stem == "scan_lookback" {
            &["u32", "u64", "u32_inplace", "u64_inplace"]
        } else {
            &["u32", "u64"]
        };
        for elem in elems {
            let name = format!("{stem}_{elem}");
            let iface = reflect(&name).unwrap();
            assert_eq!(
                iface.push_constant_size as usize, *size,
                "push constants of {name}"
            );
        }
    }
}

/// The labels of a profiled run's passes, in order.
fn labels_of(prof: &Profiler) -> Vec<String> {
    prof.results()
        .unwrap()
        .into_iter()
        .map(|p| p.label)
        .collect()
}

#[test]
fn names_round_trip_and_passes_are_labelled() {
    for a in ScanAlgorithm::ALL {
        assert_eq!(ScanAlgorithm::from_name(a.name()), Some(a));
    }
    assert_eq!(ScanAlgorithm::default(), ScanAlgorithm::DecoupledLookback);
    assert_eq!(ScanAlgorithm::from_name("nope"), None);
    with_gpu(|ctx| {
        // The look-back scan of one workgroup's tile clears no status; one element more takes two tiles, whose
        // status is the Scanner's own block (left zeroed by every run: no clear either).
        let single = Scanner::new(ctx, ScanConfig::default())
            .unwrap()
            .policy()
            .single_tile() as usize;
        let expect: &[(ScanAlgorithm, usize, &[&str])] = &[
            (
                ScanAlgorithm::DecoupledLookback,
                single,
                &["vksort::scan::lookback"],
            ),
            (
                ScanAlgorithm::DecoupledLookback,
                single + 1,
                &["vksort::scan::lookback"],
            ),
            (
                ScanAlgorithm::ReduceThenScan,
                5000,
                &[
                    "vksort::scan::reduce",
                    "vksort::scan::spine",
                    "vksort::scan::downsweep",
                ],
            ),
        ];
        let d = data_u32(5000, 1);
        for &(algorithm, n, labels) in expect {
            let d = data_u32(n, 1);
            let mut prof = Profiler::new(ctx, 64).unwrap();
            let config = ScanConfig {
                algorithm,
                ..Default::default()
            };
            let got = scan::scan_u32_profiled(ctx, &d, &config, &mut prof).unwrap();
            assert_eq!(got, cpu_scan_u32(&d, ScanKind::Exclusive));
            assert_eq!(&labels_of(&prof), labels, "{algorithm:?} n={n}");
        }
        // Past the block (4,096 tiles of u64), the status lives in the scratch and is cleared first.
        if ctx.caps().int64 {
            let policy = small_tile_policy(ctx);
            let config = ScanConfig {
                elem: ScanElem::U64,
                policy: Some(policy),
                ..Default::default()
            };
            let last_owned = 4096 * policy.tile() as usize;
            for (n, clears) in [(last_owned, false), (last_owned + 1, true)] {
                assert_eq!(policy.clears_status(ScanElem::U64, n as u64), clears);
                let d = data_u64(n, 2);
                let mut prof = Profiler::new(ctx, 64).unwrap();
                let got = scan::scan_u64_profiled(ctx, &d, &config, &mut prof).unwrap();
                if got != cpu_scan_u64(&d, ScanKind::Exclusive) {
                    report_difference(&config, n, &got, &cpu_scan_u64(&d, ScanKind::Exclusive));
                }
                let want: &[&str] = if clears {
                    &["vksort::scan::clear", "vksort::scan::lookback"]
                } else {
                    &["vksort::scan::lookback"]
                };
                assert_eq!(labels_of(&prof), want, "n={n}");
            }
        }
        for algorithm in [ScanAlgorithm::Blelloch, ScanAlgorithm::HillisSteele] {
            let mut prof = Profiler::new(ctx, 64).unwrap();
            let config = ScanConfig {
                algorithm,
                ..Default::default()
            };
            scan::scan_u32_profiled(ctx, &d, &config, &mut prof).unwrap();
            let passes = prof.results().unwrap();
            assert!(passes.iter().all(|p| p.label.starts_with("vksort::scan::")));
        }
    });
}

/// The device's look-back policy with the smallest tile (512 elements), so that few elements overflow the
/// Scanner's own status block.
fn small_tile_policy(ctx: &Arc<Context>) -> ScanPolicy {
    let mut policy = ScanPolicy::for_device(ctx.caps());
    policy.items_per_invocation = (512 / policy.workgroup_size).max(4);
    policy.validate(ctx.caps()).unwrap();
    policy
}

/// A look-back scan over several tiles keeps its status in the Scanner's own block, and every run leaves the
/// block zeroed for the next, which clears nothing ([`ScanPolicy::clears_status`]). Three runs of different
/// lengths and data, back to back in one command buffer, for each element type and kind, then a second
/// Scanner on the pooled block; all bitwise against the CPU. A run that left its tile counter or a status
/// flag behind would make the next one claim tiles past its end, or take a stale prefix.
#[test]
fn own_status_runs_back_to_back() {
    with_gpu(|ctx| {
        for elem in [ScanElem::U32, ScanElem::U64] {
            if elem == ScanElem::U64 && !ctx.caps().int64 {
                continue;
            }
            for kind in KINDS {
                let config = ScanConfig {
                    kind,
                    elem,
                    policy: Some(small_tile_policy(ctx)),
                    ..Default::default()
                };
                for round in 0..2u64 {
                    let s = Scanner::new(ctx, config).unwrap();
                    let (single, tile) = (s.policy().single_tile() as u64, s.tile_size() as u64);
                    let sizes = [single + 1, tile * 40 + 5, single * 3 + 7];
                    let runs: Vec<(Buffer, Buffer, Buffer, Vec<u8>)> = sizes
                        .iter()
                        .enumerate()
                        .map(|(i, &n)| {
                            assert!(!s.policy().clears_status(elem, n), "n={n}");
                            let seed = n + 100 * round + i as u64;
                            let (input, want) = match elem {
                                ScanElem::U32 => {
                                    let d = data_u32(n as usize, seed);
                                    let want = cpu_scan_u32(&d, kind);
                                    (
                                        bytemuck::cast_slice::<_, u8>(&d).to_vec(),
                                        bytemuck::cast_slice::<_, u8>(&want).to_vec(),
                                    )
                                }
                                ScanElem::U64 => {
                                    let d = data_u64(n as usize, seed);
                                    let want = cpu_scan_u64(&d, kind);
                                    (
                                        bytemuck::cast_slice::<_, u8>(&d).to_vec(),
                                        bytemuck::cast_slice::<_, u8>(&want).to_vec(),
                                    )
                                }
                            };
                            let input = Buffer::from_slice(ctx, "test::in", &input).unwrap();
                            let out =
                                Buffer::device_local(ctx, "test::out", want.len() as u64).unwrap();
                            let scratch =
                                Buffer::device_local(ctx, "test::scratch", s.scratch_bytes(n))
                                    .unwrap();
                            (input, out, scratch, want)
                        })
                        .collect();
                    ctx.submit("test::back_to_back", |rec| {
                        for ((input, out, scratch, _), &n) in runs.iter().zip(&sizes) {
                            s.cmd_scan(rec, input.as_ref(), out.as_ref(), scratch.as_ref(), n)?;
                        }
                        Ok(())
                    })
                    .unwrap();
                    for ((_, out, _, want), &n) in runs.iter().zip(&sizes) {
                        let got = out.read(0, want.len() as u64).unwrap();
                        assert!(&got == want, "{config:?} round {round} n={n}: wrong scan");
                    }
                }
            }
        }
    });
}

/// The one-workgroup form (`ScanPolicy::single_workgroup_size` above `workgroup_size`): a host count of up to
/// its tile runs in one workgroup of the larger size, beyond it the tiles of the smaller one look back; both
/// sides of the edge, every element type and kind, and in place.
#[test]
fn one_workgroup_form() {
    with_gpu(|ctx| {
        let caps = ctx.caps();
        let base = ScanPolicy::for_device(caps);
        let single = (base.workgroup_size * 4).min(caps.max_workgroup_invocations);
        if single <= base.workgroup_size {
            common::skip(
                "one-workgroup",
                "no workgroup larger than the scan's on this device",
            );
            return;
        }
        let mut policy = base;
        policy.single_workgroup_size = single;
        assert_eq!(policy.single_tile(), single * policy.items_per_invocation);
        let edge = policy.single_tile() as usize;
        for elem in [ScanElem::U32, ScanElem::U64] {
            for kind in KINDS {
                let config = ScanConfig {
                    algorithm: ScanAlgorithm::DecoupledLookback,
                    kind,
                    elem,
                    policy: Some(policy),
                };
                let tile = policy.tile() as usize;
                check(
                    ctx,
                    config,
                    &[1, tile, tile + 1, edge - 1, edge, edge + 1, 3 * edge + 7],
                );
            }
        }
    });
}
