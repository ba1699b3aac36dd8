//! Misuse of the public API, as a renderer could write it in safe code: every case is a typed error, returned
//! by the constructor where it can be known then, else by the recording call before anything is recorded.

mod common;

use common::with_gpu;
use std::sync::Arc;
use vksort::compact::Compactor;
use vksort::reduce::{cmd_reduce, ReduceOp};
use vksort::scan::{ScanConfig, ScanElem, Scanner};
use vksort::sort::check::SortChecker;
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Buffer, BufferRef, Context, ContextOptions, Error};

/// Offsets of the regions carved from one buffer: a multiple of every device's storage-buffer alignment.
const ALIGN: u64 = 256;

/// Every sort algorithm a u32+u32 sorter of a few thousand keys can be made with on this device.
fn algorithms() -> Vec<SortAlgorithm> {
    SortAlgorithm::ALL.to_vec()
}

fn pairs_config(algorithm: SortAlgorithm, max_n: u64) -> SortConfig {
    SortConfig {
        key: KeyType::U32,
        value: ValueType::U32,
        algorithm,
        max_n,
        ..Default::default()
    }
}

/// Records `f` on `ctx`'s own command buffer and returns its result (an `Err` is the recording's).
fn record(
    ctx: &Arc<Context>,
    f: impl FnOnce(&mut vksort::Recorder) -> vksort::Result<()>,
) -> vksort::Result<()> {
    ctx.submit("test::misuse", f)
}

fn overlap(r: vksort::Result<()>) -> (&'static str, &'static str) {
    match r {
        Err(Error::Overlap { a, b }) => (a, b),
        other => panic!("expected Error::Overlap, got {other:?}"),
    }
}

#[test]
fn every_sort_family_refuses_overlapping_regions() {
    with_gpu(|ctx| {
        for algorithm in algorithms() {
            // 3000 keys, or as many as the algorithm takes (the one-workgroup sort).
            let (sorter, n) = match Sorter::new(ctx, pairs_config(algorithm, 3000)) {
                Ok(s) => (s, 3000),
                Err(Error::AlgorithmLimit { max, .. }) => {
                    (Sorter::new(ctx, pairs_config(algorithm, max)).unwrap(), max)
                }
                // (an algorithm this device cannot run at all, e.g. a subgroup operation it lacks)
                Err(Error::Unsupported { what, .. }) => {
                    common::skip("algorithm", &format!("{algorithm:?}: {what}"));
                    continue;
                }
                Err(e) => panic!("{algorithm:?}: {e}"),
            };
            let scratch_bytes = sorter.storage_requirements(n).unwrap().scratch_bytes;
            let kb = (n * 4).next_multiple_of(ALIGN);
            let sb = scratch_bytes.next_multiple_of(ALIGN);
            let buf = Buffer::device_local(ctx, "test::arena", 3 * kb + sb + ALIGN).unwrap();
            let keys = buf.slice(0, kb);
            let values = buf.slice(kb, kb);
            let scratch = buf.slice(2 * kb, sb);
            let count = buf.slice(2 * kb + sb, ALIGN);
            let name = algorithm.name();
            // The same region for keys and values.
            let r = record(ctx, |rec| {
                sorter.cmd_sort(rec, keys, Some(keys), scratch, n)
            });
            assert_eq!(overlap(r), ("keys", "values"), "{name}");
            // Values overlapping the keys by half.
            let half = buf.slice((kb / 2).next_multiple_of(ALIGN), kb);
            let r = record(ctx, |rec| {
                sorter.cmd_sort(rec, keys, Some(half), scratch, n)
            });
            assert_eq!(overlap(r), ("keys", "values"), "{name}");
            // Scratch over the keys.
            let r = record(ctx, |rec| {
                sorter.cmd_sort(rec, keys, Some(values), buf.slice(0, sb), n)
            });
            assert_eq!(overlap(r), ("keys", "scratch"), "{name}");
            // Scratch over the values.
            let r = record(ctx, |rec| {
                sorter.cmd_sort(rec, keys, Some(values), buf.slice(kb, sb), n)
            });
            assert_eq!(overlap(r), ("scratch", "values"), "{name}");
            // A GPU-side count inside the values.
            let r = record(ctx, |rec| {
                sorter.cmd_sort_indirect(rec, keys, Some(values), scratch, values.slice(64, 4), n)
            });
            assert_eq!(overlap(r), ("values", "count"), "{name}");
            // And the disjoint regions sort (nothing was recorded by the refused calls).
            let data: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2654435761) >> 7)
                .collect();
            let idx: Vec<u32> = (0..n as u32).collect();
            let host = Buffer::from_slice(ctx, "test::data", &[data.clone(), idx.clone()].concat())
                .unwrap();
            record(ctx, |rec| {
                rec.copy("test::keys", host.slice(0, 4 * n), keys, 4 * n)?;
                rec.copy("test::values", host.slice(4 * n, 4 * n), values, 4 * n)?;
                rec.barrier();
                rec.fill("test::count", count.slice(0, 4), n as u32)?;
                rec.barrier();
                sorter.cmd_sort_indirect(rec, keys, Some(values), scratch, count.slice(0, 4), n)
            })
            .unwrap();
            let got = buf.read_vec::<u32>((2 * kb / 4) as usize).unwrap();
            let mut want: Vec<(u32, u32)> = data.iter().copied().zip(idx).collect();
            want.sort_by_key(|p| p.0);
            let got_keys = &got[..n as usize];
            let got_vals = &got[(kb / 4) as usize..(kb / 4 + n) as usize];
            if algorithm.stable() {
                let (wk, wv): (Vec<u32>, Vec<u32>) = want.into_iter().unzip();
                assert_eq!(got_keys, &wk[..], "{name}: keys");
                assert_eq!(got_vals, &wv[..], "{name}: values");
            } else {
                let wk: Vec<u32> = want.iter().map(|p| p.0).collect();
                assert_eq!(got_keys, &wk[..], "{name}: keys");
                for (k, v) in got_keys.iter().zip(got_vals) {
                    assert_eq!(
                        data[*v as usize], *k,
                        "{name}: a value travels with its key"
                    );
                }
            }
        }
    });
}

#[test]
fn scans_compactions_reductions_copies_and_checks_refuse_overlaps() {
    with_gpu(|ctx| {
        let n = 4096u64;
        let bytes = n * 4;
        let buf = Buffer::device_local(ctx, "test::arena", 4 * bytes + 4 * ALIGN).unwrap();
        let a = buf.slice(0, bytes);
        let b = buf.slice(bytes, bytes);

        let scanner = Scanner::new(ctx, ScanConfig::default()).unwrap();
        let sb = scanner.scratch_bytes(n);
        let r = record(ctx, |rec| scanner.cmd_scan(rec, a, b, buf.slice(0, sb), n));
        assert_eq!(overlap(r), ("input", "scratch"));
        let r = record(ctx, |rec| {
            scanner.cmd_scan(rec, a, b, buf.slice(bytes, sb), n)
        });
        assert_eq!(overlap(r), ("output", "scratch"));
        let half = buf.slice(bytes / 2, bytes);
        let r = record(ctx, |rec| {
            scanner.cmd_scan(rec, a, half, buf.slice(2 * bytes, sb), n)
        });
        assert_eq!(overlap(r), ("input", "output"));

        let compactor = Compactor::new(ctx, None).unwrap();
        let cs = buf.slice(2 * bytes, compactor.scratch_bytes(n));
        let r = record(ctx, |rec| {
            compactor.cmd_compact(rec, a, None, b, b.slice(ALIGN, 4), cs, n)
        });
        assert_eq!(overlap(r), ("output", "count_out"));
        let r = record(ctx, |rec| {
            compactor.cmd_compact(rec, a, Some(b), buf.slice(2 * bytes, bytes), a, cs, n)
        });
        assert_eq!(overlap(r), ("input", "count_out"));

        let rs = buf.slice(3 * bytes, vksort::reduce::reduce_scratch_bytes(n));
        let r = record(ctx, |rec| {
            cmd_reduce(
                rec,
                a,
                a.slice(ALIGN, 4),
                rs,
                n,
                ReduceOp::Sum,
                ScanElem::U32,
            )
        });
        assert_eq!(overlap(r), ("input", "output"));

        let r = record(ctx, |rec| vksort::copy::cmd_copy(rec, a, half, bytes));
        assert_eq!(overlap(r), ("src", "dst"));
        let r = record(ctx, |rec| rec.copy("test::copy", a, half, bytes));
        assert_eq!(overlap(r), ("copy source", "copy target"));

        let checker = SortChecker::new(ctx, &SortConfig::default(), false).unwrap();
        let r = record(ctx, |rec| {
            checker.cmd_check(rec, a, None, a.slice(ALIGN, bytes), n)
        });
        assert_eq!(overlap(r), ("keys", "result"));
    });
}

#[test]
fn regions_and_objects_of_another_context_are_refused() {
    with_gpu(|ctx| {
        let other = Context::new(ContextOptions::from_env()).unwrap();
        let n = 1000u64;
        let sorter = Sorter::new(ctx, pairs_config(SortAlgorithm::Auto, n)).unwrap();
        let sb = sorter.storage_requirements(n).unwrap().scratch_bytes;
        let mine = |what| Buffer::device_local(ctx, what, sb.max(n * 4)).unwrap();
        let theirs = |what| Buffer::device_local(&other, what, sb.max(n * 4)).unwrap();
        let (k, v, s) = (mine("test::k"), mine("test::v"), mine("test::s"));
        let (ok, ov, os) = (theirs("test::ok"), theirs("test::ov"), theirs("test::os"));
        let wrong = |r: vksort::Result<()>| match r {
            Err(Error::WrongContext { what }) => what,
            other => panic!("expected Error::WrongContext, got {other:?}"),
        };
        // Another context's buffers on this context's recorder.
        let r = record(ctx, |rec| {
            sorter.cmd_sort(rec, ok.as_ref(), Some(v.as_ref()), s.as_ref(), n)
        });
        assert_eq!(wrong(r), "keys");
        let r = record(ctx, |rec| {
            sorter.cmd_sort(rec, k.as_ref(), Some(ov.as_ref()), s.as_ref(), n)
        });
        assert_eq!(wrong(r), "values");
        let r = record(ctx, |rec| {
            sorter.cmd_sort(rec, k.as_ref(), Some(v.as_ref()), os.as_ref(), n)
        });
        assert_eq!(wrong(r), "scratch");
        // This context's sorter on the other context's recorder (with the other's buffers).
        let r = other.submit("test::other", |rec| {
            sorter.cmd_sort(rec, ok.as_ref(), Some(ov.as_ref()), os.as_ref(), n)
        });
        assert_eq!(wrong(r), "sorter");
        let scanner = Scanner::new(ctx, ScanConfig::default()).unwrap();
        let r = other.submit("test::other", |rec| {
            scanner.cmd_scan(rec, ok.as_ref(), ov.as_ref(), os.as_ref(), n)
        });
        assert_eq!(wrong(r), "scanner");
        // A compactor's kernels live in its own context: another context's recorder is refused, with nothing
        // built or recorded there.
        let compactor = Compactor::new(ctx, None).unwrap();
        let cs = theirs("test::ocs");
        let r = other.submit("test::other", |rec| {
            compactor.cmd_compact(
                rec,
                ok.as_ref(),
                None,
                ov.as_ref(),
                os.as_ref().slice(0, 4),
                cs.as_ref(),
                n,
            )
        });
        assert_eq!(wrong(r), "compactor");
        // Objects without a context of their own check the buffers against the recorder's.
        let r = record(ctx, |rec| {
            vksort::copy::cmd_copy(rec, ok.as_ref(), k.as_ref(), 64)
        });
        assert_eq!(wrong(r), "src");
        let r = record(ctx, |rec| rec.fill("test::fill", ok.as_ref(), 0));
        assert_eq!(wrong(r), "fill target");
        assert!(other.take_validation_errors().is_empty());
    });
}

#[test]
fn limits_known_at_creation_are_constructor_errors() {
    with_gpu(|ctx| {
        let make = |algorithm, max_n| Sorter::new(ctx, pairs_config(algorithm, max_n));
        // The one-workgroup sort and the MSD sort have capacities of their own.
        for algorithm in [SortAlgorithm::Small, SortAlgorithm::Msd] {
            match make(algorithm, 1 << 21) {
                Err(Error::AlgorithmLimit {
                    algorithm: a,
                    max,
                    n,
                }) => {
                    assert_eq!((a, n), (algorithm.name(), 1 << 21));
                    assert!(max < 1 << 21);
                }
                other => panic!("{algorithm:?}: {:?}", other.map(|_| ())),
            }
        }
        // CPU drivers cap the hybrid sort at 2^16 keys.
        if ctx.caps().is_cpu() {
            assert!(matches!(
                make(SortAlgorithm::Hybrid, 1 << 17),
                Err(Error::AlgorithmLimit { n: 131072, .. })
            ));
        }
        // The radix sorts' key count, named as such.
        match make(SortAlgorithm::Onesweep, 1 << 32) {
            Err(Error::TooLarge { n, max, .. }) => {
                assert_eq!((n, max), (1 << 32, (1 << 32) - (1 << 16)))
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
        // The bitonic sort binds its arrays whole: one binding bounds it, and the error names both counts.
        let binding = ctx.caps().max_storage_buffer_range / 4;
        if binding < 1 << 31 {
            match make(SortAlgorithm::Bitonic, 1 << 31) {
                Err(Error::AlgorithmLimit { algorithm, max, n }) => {
                    assert_eq!((algorithm, max, n), ("bitonic", binding, 1 << 31))
                }
                other => panic!("{:?}", other.map(|_| ())),
            }
        }
        // Storage queries beyond the capacity, with no arithmetic to overflow.
        let s = make(SortAlgorithm::Auto, 1000).unwrap();
        assert!(matches!(
            s.storage_requirements(u64::MAX),
            Err(Error::CountOverCapacity {
                n: u64::MAX,
                capacity: 1000
            })
        ));
        // A slice reaching past its buffer is clamped to it: too small, never out of bounds.
        let keys = Buffer::device_local(ctx, "test::k", 4000).unwrap();
        let scratch = Buffer::device_local(
            ctx,
            "test::s",
            s.storage_requirements(1000).unwrap().scratch_bytes,
        )
        .unwrap();
        let vals = Buffer::device_local(ctx, "test::v", 4000).unwrap();
        let claimed = keys.slice(0, 400_000);
        assert_eq!(claimed.size(), keys.size());
        let r = record(ctx, |rec| {
            s.cmd_sort(rec, claimed, Some(vals.as_ref()), scratch.as_ref(), 1000)
        });
        assert!(r.is_ok(), "{r:?}");
        let r = record(ctx, |rec| {
            s.cmd_sort(
                rec,
                keys.slice(8, 400_000),
                Some(vals.as_ref()),
                scratch.as_ref(),
                1000,
            )
        });
        assert!(
            matches!(
                r,
                Err(Error::BufferTooSmall { what: "keys", .. }) | Err(Error::Misaligned { .. })
            ),
            "{r:?}"
        );
    });
}

#[test]
fn a_stable_config_refuses_unstable_algorithms() {
    with_gpu(|ctx| {
        for algorithm in SortAlgorithm::ALL {
            let config = SortConfig {
                stable: true,
                ..pairs_config(algorithm, 1000)
            };
            match Sorter::new(ctx, config) {
                Err(Error::NotStable { algorithm: a }) => {
                    assert!(!algorithm.stable(), "{a}");
                    assert_eq!(a, algorithm.name());
                }
                Ok(_) | Err(Error::Unsupported { .. }) | Err(Error::AlgorithmLimit { .. }) => {
                    assert!(algorithm.stable(), "{algorithm:?} made a stable sorter")
                }
                Err(e) => panic!("{algorithm:?}: {e}"),
            }
        }
        // The host forms take the same configuration.
        let mut keys = vec![3u32, 1, 2];
        let mut vals = vec![0u32, 1, 2];
        let config = SortConfig {
            algorithm: SortAlgorithm::Quicksort,
            stable: true,
            ..Default::default()
        };
        assert!(matches!(
            vksort::sort::sort_pairs_with(ctx, &mut keys, &mut vals, &config),
            Err(Error::NotStable { .. })
        ));
        assert_eq!((keys, vals), (vec![3, 1, 2], vec![0, 1, 2]));
    });
}

/// A region from `from_raw` is how a renderer's own buffer enters; the checks still apply to it.
#[test]
fn raw_regions_are_checked_like_buffer_regions() {
    with_gpu(|ctx| {
        let n = 1000u64;
        let s = Sorter::new(ctx, pairs_config(SortAlgorithm::Auto, n)).unwrap();
        let req = s.storage_requirements(n).unwrap();
        let buf =
            Buffer::device_local(ctx, "test::raw", 2 * n * 4 + req.scratch_bytes + ALIGN).unwrap();
        // SAFETY: `buf` is live until the end of the test and has at least the usage claimed.
        let raw = |offset: u64, size: u64| unsafe {
            BufferRef::from_raw(buf.handle(), offset, size, buf.as_ref().usage())
        };
        let kb = (n * 4).next_multiple_of(ALIGN);
        let r = record(ctx, |rec| {
            s.cmd_sort(
                rec,
                raw(0, kb),
                Some(raw(kb / 2, kb)),
                raw(2 * kb, req.scratch_bytes),
                n,
            )
        });
        assert_eq!(overlap(r), ("keys", "values"));
        let r = record(ctx, |rec| {
            s.cmd_sort(
                rec,
                raw(0, kb),
                Some(raw(kb, kb)),
                raw(2 * kb, req.scratch_bytes),
                n,
            )
        });
        assert!(r.is_ok(), "{r:?}");
    });
}
