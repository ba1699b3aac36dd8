//! "An `Err` from a `cmd_*` function leaves the command buffer and the caller's buffers untouched" (src/error.rs),
//! for every family but the sorts (tests/families.rs covers those): the scan (`cmd_scan`, `cmd_scan_indirect`),
//! the compaction (`Compactor::cmd_compact`, `cmd_compact_if`, the free `cmd_compact`), the reduction, the copy
//! and the sort checker. Each test records every refusal it can provoke from the family's argument checks into
//! a command buffer of its own (`Recorder::new`, a renderer's path: the host forms drop their command buffer on
//! an error, so a refusal that recorded passes would go unseen there), all regions cut from one arena of random
//! words, so that a refused call that wrote anything would change it; then one valid call on buffers of its own.
//! After submitting: each refusal returned its exact `Error` variant, the arena is bit-identical, the passes
//! recorded (a profiler stamps each dispatch, fill and copy) are exactly those of the valid call recorded alone,
//! the valid call's result is right, and validation reported nothing.
mod common;
use ash::vk;
use common::{record_own, with_gpu, with_usage, Rng};
use std::sync::Arc;
use vksort::compact::{Compactor, Predicate};
use vksort::reduce::{cmd_reduce, reduce_scratch_bytes, ReduceOp};
use vksort::scan::{ScanAlgorithm, ScanConfig, ScanElem, ScanPolicy, Scanner, StallMode};
use vksort::sort::check::{CheckReport, SortChecker};
use vksort::sort::{KeyType, SortConfig, ValueType};
use vksort::{Buffer, BufferRef, Context, ContextOptions, Error, Recorder};

const STORAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::STORAGE_BUFFER;
const TRANSFER_DST: vk::BufferUsageFlags = vk::BufferUsageFlags::TRANSFER_DST;
const TRANSFER_SRC: vk::BufferUsageFlags = vk::BufferUsageFlags::TRANSFER_SRC;
const INDIRECT: vk::BufferUsageFlags = vk::BufferUsageFlags::INDIRECT_BUFFER;

/// Records `refusals` then `valid` into one command buffer, and `valid` alone into another: the passes of the
/// first must be exactly those of the second (a refusal recorded none), and there must be some.
fn refusals_then_valid(
    ctx: &Arc<Context>,
    family: &str,
    refusals: impl FnOnce(&mut Recorder),
    valid: impl Fn(&mut Recorder),
) {
    let with = record_own(ctx, |rec| {
        refusals(rec);
        valid(rec);
    });
    let alone = record_own(ctx, |rec| valid(rec));
    match (with, alone) {
        (Some(with), Some(alone)) => {
            assert!(
                !alone.is_empty(),
                "{family}: the valid call recorded no pass"
            );
            assert_eq!(with, alone, "{family}: refused calls recorded passes");
        }
        _ => eprintln!("{family}: no timestamps, the passes recorded go uncounted"),
    }
}

/// The offsets every region lies at: a multiple of the storage-buffer offset alignment and of 16.
fn align(ctx: &Context) -> u64 {
    ctx.caps().min_storage_buffer_offset_alignment.max(16)
}

/// Whether offset 4 is a misaligned storage-buffer offset for `Region::check` (else only the families' own
/// 16-byte check refuses it).
fn offset_4_misaligned(ctx: &Context) -> bool {
    ctx.caps().min_storage_buffer_offset_alignment > 4
}

/// One buffer of random words that every region of a test is cut from.
struct Arena {
    buf: Buffer,
    init: Vec<u32>,
    name: &'static str,
}

impl Arena {
    fn new(ctx: &Arc<Context>, name: &'static str, bytes: u64, seed: u64) -> Self {
        let init = Rng(seed).vec_u32(bytes.div_ceil(4) as usize);
        let buf = Buffer::from_slice(ctx, name, &init).unwrap();
        Self { buf, init, name }
    }

    fn at(&self, offset: u64, size: u64) -> BufferRef<'_> {
        let r = self.buf.slice(offset, size);
        assert_eq!(r.size(), size, "{}: region past the arena", self.name);
        r
    }

    fn assert_unchanged(&self) {
        let now = self.buf.read_vec::<u32>(self.init.len()).unwrap();
        for (w, (a, b)) in now.iter().zip(&self.init).enumerate() {
            assert_eq!(a, b, "{}: word {w} changed by a refused call", self.name);
        }
    }
}

/// A region of `bytes` of a VK_NULL_HANDLE buffer with `usage`.
fn null_region(bytes: u64, usage: vk::BufferUsageFlags) -> BufferRef<'static> {
    // SAFETY: a null handle is refused (Error::NullBuffer) before anything is recorded; nothing dereferences it.
    unsafe { BufferRef::from_raw(vk::Buffer::null(), 0, bytes, usage) }
}

/// Asserts that `r` is an error that `ok` accepts.
#[track_caller]
fn refused(family: &str, case: &str, r: vksort::Result<()>, ok: impl Fn(&Error) -> bool) {
    match r {
        Err(e) if ok(&e) => {}
        other => panic!("{family}: {case}: unexpected {other:?}"),
    }
}

#[test]
fn scan_refusals_record_nothing() {
    with_gpu(|ctx| {
        let al = align(ctx);
        let up = |b: u64| b.next_multiple_of(al);
        let n = 1000u64;
        let nb = 4 * n;
        let s = Scanner::new(ctx, ScanConfig::default()).unwrap();
        assert_eq!(s.config().algorithm, ScanAlgorithm::DecoupledLookback);
        let blelloch = Scanner::new(
            ctx,
            ScanConfig {
                algorithm: ScanAlgorithm::Blelloch,
                ..Default::default()
            },
        )
        .unwrap();
        let mut stall = ScanPolicy::for_device(ctx.caps());
        stall.stall_every = 3;
        stall.stall_mode = StallMode::NeverPublish;
        let stalling = Scanner::new(
            ctx,
            ScanConfig {
                policy: Some(stall),
                ..Default::default()
            },
        )
        .unwrap();
        let wide = ctx.caps().int64.then(|| {
            Scanner::new(
                ctx,
                ScanConfig {
                    elem: ScanElem::U64,
                    ..Default::default()
                },
            )
            .unwrap()
        });
        let sb = s.scratch_bytes(n);
        assert!(sb > 4);
        let (i0, o0) = (0, up(nb + al));
        let s0 = o0 + up(nb + al);
        let a0 = s0 + up(sb + al);
        let arena = Arena::new(ctx, "test::scan::arena", a0 + al + 64, 1);
        let (i, o, sc) = (arena.at(i0, nb), arena.at(o0, nb), arena.at(s0, sb));
        let args = arena.at(a0, 12);
        let ones = vec![1u32; n as usize];
        let vi = Buffer::from_slice(ctx, "test::scan::valid_in", &ones).unwrap();
        let vo = Buffer::device_local(ctx, "test::scan::valid_out", nb).unwrap();
        let vs = Buffer::device_local(ctx, "test::scan::valid_scratch", sb).unwrap();
        let f = "scan";
        refusals_then_valid(
            ctx,
            f,
            |rec| {
                let mut scan = |case: &str, i, o, sc, n, ok: &dyn Fn(&Error) -> bool| {
                    refused(f, case, s.cmd_scan(rec, i, o, sc, n), ok)
                };
                scan(
                    "count over one storage binding",
                    i,
                    o,
                    sc,
                    1 << 32,
                    &|e| matches!(e, Error::TooLarge { n, .. } if *n == 1 << 32),
                );
                scan("short input", arena.at(i0, nb - 4), o, sc, n, &|e| {
                    matches!(e, Error::BufferTooSmall { what: "input", needed, available }
                        if *needed == nb && *available == nb - 4)
                });
                scan("short output", i, arena.at(o0, nb - 4), sc, n, &|e| {
                    matches!(e, Error::BufferTooSmall { what: "output", .. })
                });
                scan(
                    "short scratch",
                    i,
                    o,
                    arena.at(s0, sb - 4),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "scratch", needed, .. } if *needed == sb),
                );
                scan(
                    "input without storage usage",
                    with_usage(i, TRANSFER_SRC),
                    o,
                    sc,
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "input", missing } if *missing == STORAGE),
                );
                scan(
                    "output without storage usage",
                    i,
                    with_usage(o, TRANSFER_DST),
                    sc,
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "output", missing } if *missing == STORAGE),
                );
                scan(
                    "look-back scratch without transfer-dst usage",
                    i,
                    o,
                    with_usage(sc, STORAGE),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "scratch", missing } if *missing == TRANSFER_DST),
                );
                scan("misaligned input", arena.at(i0 + 4, nb), o, sc, n, &|e| {
                    matches!(
                        e,
                        Error::Misaligned {
                            what: "input",
                            offset: 4,
                            ..
                        }
                    )
                });
                scan("misaligned output", i, arena.at(o0 + 4, nb), sc, n, &|e| {
                    matches!(e, Error::Misaligned { what: "output", .. })
                });
                if offset_4_misaligned(ctx) {
                    scan("misaligned scratch", i, o, arena.at(s0 + 4, sb), n, &|e| {
                        matches!(
                            e,
                            Error::Misaligned {
                                what: "scratch",
                                ..
                            }
                        )
                    });
                }
                scan("null input", null_region(nb, STORAGE), o, sc, n, &|e| {
                    matches!(e, Error::NullBuffer { what: "input" })
                });
                scan(
                    "output 16 bytes into the input",
                    i,
                    arena.at(i0 + 16, nb),
                    sc,
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "input",
                                b: "output"
                            }
                        )
                    },
                );
                scan(
                    "scratch inside the input",
                    i,
                    o,
                    arena.at(i0 + al, sb),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "input",
                                b: "scratch"
                            }
                        )
                    },
                );
                scan(
                    "scratch inside the output",
                    i,
                    o,
                    arena.at(o0 + al, sb),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "output",
                                b: "scratch"
                            }
                        )
                    },
                );
                refused(
                    f,
                    "in place with the NeverPublish stall emulation",
                    stalling.cmd_scan(rec, o, o, sc, n),
                    |e| matches!(e, Error::InvalidPolicy { family: "scan", .. }),
                );
                if let Some(w) = &wide {
                    refused(
                        f,
                        "u64 scanner on u32-sized regions",
                        w.cmd_scan(rec, i, o, sc, n),
                        |e| {
                            matches!(e, Error::BufferTooSmall { what: "input", needed, .. }
                                if *needed == 8 * n)
                        },
                    );
                }
                let mut indirect =
                    |case: &str, s: &Scanner, o, args, n, ok: &dyn Fn(&Error) -> bool| {
                        refused(f, case, s.cmd_scan_indirect(rec, i, o, sc, n, args), ok)
                    };
                indirect(
                    "indirect with the Blelloch scan",
                    &blelloch,
                    o,
                    args,
                    n,
                    &|e| matches!(e, Error::InvalidPolicy { family: "scan", .. }),
                );
                indirect(
                    "indirect count over one storage binding",
                    &s,
                    o,
                    args,
                    1 << 32,
                    &|e| matches!(e, Error::TooLarge { .. }),
                );
                indirect(
                    "indirect short output",
                    &s,
                    arena.at(o0, nb - 4),
                    args,
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "output", .. }),
                );
                indirect(
                    "misaligned arguments",
                    &s,
                    o,
                    arena.at(a0 + 2, 12),
                    n,
                    &|e| {
                        matches!(e, Error::Misaligned { what: "indirect arguments", offset, alignment: 4 }
                        if *offset == a0 + 2)
                    },
                );
                indirect("short arguments", &s, o, arena.at(a0, 8), n, &|e| {
                    matches!(
                        e,
                        Error::BufferTooSmall {
                            what: "indirect arguments",
                            needed: 12,
                            available: 8
                        }
                    )
                });
                indirect(
                    "arguments without indirect usage",
                    &s,
                    o,
                    with_usage(args, STORAGE),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "indirect arguments", missing } if *missing == INDIRECT),
                );
                indirect(
                    "arguments inside the output",
                    &s,
                    o,
                    arena.at(o0 + 64, 12),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "indirect arguments",
                                b: "output"
                            }
                        )
                    },
                );
                indirect(
                    "arguments inside the scratch",
                    &s,
                    o,
                    arena.at(s0, 12),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "indirect arguments",
                                b: "scratch"
                            }
                        )
                    },
                );
            },
            |rec| {
                s.cmd_scan(rec, vi.as_ref(), vo.as_ref(), vs.as_ref(), n)
                    .unwrap()
            },
        );
        arena.assert_unchanged();
        let want: Vec<u32> = (0..n as u32).collect();
        assert_eq!(vo.read_vec::<u32>(n as usize).unwrap(), want);
    });
}

/// A compaction's regions: input, flags, output, count, scratch.
type Compaction<'a> = (
    BufferRef<'a>,
    Option<BufferRef<'a>>,
    BufferRef<'a>,
    BufferRef<'a>,
    BufferRef<'a>,
);

#[test]
fn compaction_refusals_record_nothing() {
    with_gpu(|ctx| {
        let al = align(ctx);
        let up = |b: u64| b.next_multiple_of(al);
        let n = 1000u64;
        let nb = 4 * n;
        let c = Compactor::new(ctx, None).unwrap();
        let sb = c.scratch_bytes(n);
        assert!(sb > 4);
        let step = up(nb + al);
        let (i0, f0, o0, c0) = (0, step, 2 * step, 3 * step);
        let s0 = c0 + up(4 + al);
        let arena = Arena::new(ctx, "test::compact::arena", s0 + up(sb) + 64, 2);
        let (i, fl, o) = (arena.at(i0, nb), arena.at(f0, nb), arena.at(o0, nb));
        let (cnt, sc) = (arena.at(c0, 4), arena.at(s0, sb));
        let data: Vec<u32> = (0..n as u32).map(|x| x % 2).collect();
        let vi = Buffer::from_slice(ctx, "test::compact::valid_in", &data).unwrap();
        let vo = Buffer::device_local(ctx, "test::compact::valid_out", nb).unwrap();
        let vc = Buffer::device_local(ctx, "test::compact::valid_count", 4).unwrap();
        let vs = Buffer::device_local(ctx, "test::compact::valid_scratch", sb).unwrap();
        let f = "compact";
        refusals_then_valid(
            ctx,
            f,
            |rec| {
                let mut compact =
                    |case: &str, regions: Compaction, n, ok: &dyn Fn(&Error) -> bool| {
                        let (i, fl, o, cnt, sc) = regions;
                        refused(f, case, c.cmd_compact(rec, i, fl, o, cnt, sc, n), ok)
                    };
                let all = (i, Some(fl), o, cnt, sc);
                compact("count over one storage binding", all, 1 << 32, &|e| {
                    matches!(e, Error::TooLarge { .. })
                });
                compact(
                    "short input",
                    (arena.at(i0, nb - 4), None, o, cnt, sc),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "input", needed, .. } if *needed == nb),
                );
                compact(
                    "short flags",
                    (i, Some(arena.at(f0, nb - 4)), o, cnt, sc),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "flags", .. }),
                );
                compact(
                    "short output",
                    (i, Some(fl), arena.at(o0, nb - 4), cnt, sc),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "output", .. }),
                );
                compact("short count", (i, None, o, arena.at(c0, 2), sc), n, &|e| {
                    matches!(
                        e,
                        Error::BufferTooSmall {
                            what: "count_out",
                            needed: 4,
                            available: 2
                        }
                    )
                });
                compact(
                    "short scratch",
                    (i, None, o, cnt, arena.at(s0, sb - 4)),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "scratch", needed, .. } if *needed == sb),
                );
                compact(
                    "input without storage usage",
                    (with_usage(i, TRANSFER_SRC), None, o, cnt, sc),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "input", .. }),
                );
                compact(
                    "output without storage usage",
                    (i, None, with_usage(o, TRANSFER_DST), cnt, sc),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "output", missing } if *missing == STORAGE),
                );
                compact(
                    "count without storage usage",
                    (i, None, o, with_usage(cnt, TRANSFER_DST), sc),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::MissingUsage {
                                what: "count_out",
                                ..
                            }
                        )
                    },
                );
                compact(
                    "scratch without transfer-dst usage",
                    (i, None, o, cnt, with_usage(sc, STORAGE)),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "scratch", missing } if *missing == TRANSFER_DST),
                );
                compact(
                    "misaligned input",
                    (arena.at(i0 + 4, nb), None, o, cnt, sc),
                    n,
                    &|e| matches!(e, Error::Misaligned { what: "input", .. }),
                );
                compact(
                    "misaligned flags",
                    (i, Some(arena.at(f0 + 4, nb)), o, cnt, sc),
                    n,
                    &|e| matches!(e, Error::Misaligned { what: "flags", .. }),
                );
                if offset_4_misaligned(ctx) {
                    compact(
                        "misaligned output",
                        (i, None, arena.at(o0 + 4, nb), cnt, sc),
                        n,
                        &|e| matches!(e, Error::Misaligned { what: "output", .. }),
                    );
                    compact(
                        "misaligned count",
                        (i, None, o, arena.at(c0 + 4, 4), sc),
                        n,
                        &|e| {
                            matches!(
                                e,
                                Error::Misaligned {
                                    what: "count_out",
                                    ..
                                }
                            )
                        },
                    );
                }
                compact(
                    "null output",
                    (i, None, null_region(nb, STORAGE), cnt, sc),
                    n,
                    &|e| matches!(e, Error::NullBuffer { what: "output" }),
                );
                compact(
                    "output inside the input",
                    (i, None, arena.at(i0 + al, nb), cnt, sc),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "input",
                                b: "output"
                            }
                        )
                    },
                );
                compact(
                    "count inside the output",
                    (i, None, o, arena.at(o0 + al, 4), sc),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "output",
                                b: "count_out"
                            }
                        )
                    },
                );
                compact(
                    "scratch over the count",
                    (i, None, o, cnt, arena.at(c0, sb)),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "count_out",
                                b: "scratch"
                            }
                        )
                    },
                );
                compact(
                    "output over the flags",
                    (i, Some(fl), arena.at(f0, nb), cnt, sc),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "flags",
                                b: "output"
                            }
                        )
                    },
                );
                refused(
                    f,
                    "cmd_compact_if: short output",
                    c.cmd_compact_if(
                        rec,
                        i,
                        None,
                        Predicate::ODD,
                        arena.at(o0, nb - 4),
                        cnt,
                        sc,
                        n,
                    ),
                    |e| matches!(e, Error::BufferTooSmall { what: "output", .. }),
                );
                refused(
                    f,
                    "free cmd_compact: count inside the output",
                    vksort::compact::cmd_compact(rec, i, None, o, arena.at(o0, 4), sc, n),
                    |e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "output",
                                b: "count_out"
                            }
                        )
                    },
                );
            },
            |rec| {
                c.cmd_compact(
                    rec,
                    vi.as_ref(),
                    None,
                    vo.as_ref(),
                    vc.as_ref(),
                    vs.as_ref(),
                    n,
                )
                .unwrap()
            },
        );
        arena.assert_unchanged();
        assert_eq!(vc.read_vec::<u32>(1).unwrap()[0], n as u32 / 2);
        assert_eq!(
            vo.read_vec::<u32>(n as usize / 2).unwrap(),
            vec![1u32; n as usize / 2]
        );
    });
}

#[test]
fn reduce_refusals_record_nothing() {
    with_gpu(|ctx| {
        let al = align(ctx);
        let up = |b: u64| b.next_multiple_of(al);
        let n = 1000u64;
        let nb = 4 * n;
        let sb = reduce_scratch_bytes(n);
        let (i0, o0) = (0, up(nb + al));
        let s0 = o0 + up(8 + al);
        let arena = Arena::new(ctx, "test::reduce::arena", s0 + up(sb) + 64, 3);
        let (i, o, sc) = (arena.at(i0, nb), arena.at(o0, 4), arena.at(s0, sb));
        let data: Vec<u32> = (1..=n as u32).collect();
        let vi = Buffer::from_slice(ctx, "test::reduce::valid_in", &data).unwrap();
        let vo = Buffer::device_local(ctx, "test::reduce::valid_out", 4).unwrap();
        let vs = Buffer::device_local(ctx, "test::reduce::valid_scratch", sb).unwrap();
        let f = "reduce";
        let u32s = ScanElem::U32;
        refusals_then_valid(
            ctx,
            f,
            |rec| {
                let mut reduce = |case: &str, i, o, sc, n, elem, ok: &dyn Fn(&Error) -> bool| {
                    refused(
                        f,
                        case,
                        cmd_reduce(rec, i, o, sc, n, ReduceOp::Sum, elem),
                        ok,
                    )
                };
                reduce(
                    "count over one storage binding",
                    i,
                    o,
                    sc,
                    1 << 32,
                    u32s,
                    &|e| matches!(e, Error::TooLarge { .. }),
                );
                reduce(
                    "short input",
                    arena.at(i0, nb - 4),
                    o,
                    sc,
                    n,
                    u32s,
                    &|e| matches!(e, Error::BufferTooSmall { what: "input", needed, .. } if *needed == nb),
                );
                reduce(
                    "short scratch",
                    i,
                    o,
                    arena.at(s0, sb - 4),
                    n,
                    u32s,
                    &|e| matches!(e, Error::BufferTooSmall { what: "scratch", needed, .. } if *needed == sb),
                );
                reduce(
                    "output without storage usage",
                    i,
                    with_usage(o, TRANSFER_DST),
                    sc,
                    n,
                    u32s,
                    &|e| matches!(e, Error::MissingUsage { what: "output", missing } if *missing == STORAGE),
                );
                reduce(
                    "scratch without transfer-dst usage",
                    i,
                    o,
                    with_usage(sc, STORAGE),
                    n,
                    u32s,
                    &|e| matches!(e, Error::MissingUsage { what: "scratch", missing } if *missing == TRANSFER_DST),
                );
                reduce(
                    "misaligned input",
                    arena.at(i0 + 4, nb),
                    o,
                    sc,
                    n,
                    u32s,
                    &|e| matches!(e, Error::Misaligned { what: "input", .. }),
                );
                if offset_4_misaligned(ctx) {
                    reduce(
                        "misaligned output",
                        i,
                        arena.at(o0 + 4, 4),
                        sc,
                        n,
                        u32s,
                        &|e| matches!(e, Error::Misaligned { what: "output", .. }),
                    );
                }
                reduce(
                    "null input",
                    null_region(nb, STORAGE),
                    o,
                    sc,
                    n,
                    u32s,
                    &|e| matches!(e, Error::NullBuffer { what: "input" }),
                );
                reduce(
                    "output inside the input",
                    i,
                    arena.at(i0 + al, 4),
                    sc,
                    n,
                    u32s,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "input",
                                b: "output"
                            }
                        )
                    },
                );
                reduce(
                    "scratch inside the input",
                    i,
                    o,
                    arena.at(i0 + al, sb),
                    n,
                    u32s,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "input",
                                b: "scratch"
                            }
                        )
                    },
                );
                reduce(
                    "scratch over the output",
                    i,
                    o,
                    arena.at(o0, sb),
                    n,
                    u32s,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "output",
                                b: "scratch"
                            }
                        )
                    },
                );
                // A u64 reduction given a 4-byte output (and a u32-sized input).
                let int64 = ctx.caps().int64;
                reduce(
                    "u64 elements, 4-byte output",
                    arena.at(i0, 2 * nb),
                    o,
                    sc,
                    n,
                    ScanElem::U64,
                    &|e| {
                        if int64 {
                            matches!(
                                e,
                                Error::BufferTooSmall {
                                    what: "output",
                                    needed: 8,
                                    available: 4
                                }
                            )
                        } else {
                            matches!(e, Error::Unsupported { .. })
                        }
                    },
                );
            },
            |rec| {
                cmd_reduce(
                    rec,
                    vi.as_ref(),
                    vo.as_ref(),
                    vs.as_ref(),
                    n,
                    ReduceOp::Sum,
                    u32s,
                )
                .unwrap()
            },
        );
        arena.assert_unchanged();
        assert_eq!(vo.read_vec::<u32>(1).unwrap()[0], data.iter().sum::<u32>());
    });
}

#[test]
fn copy_refusals_record_nothing() {
    with_gpu(|ctx| {
        let al = align(ctx);
        let up = |b: u64| b.next_multiple_of(al);
        let bytes = 4096u64;
        let (s0, d0) = (0, up(bytes + al));
        let arena = Arena::new(ctx, "test::copy::arena", d0 + up(bytes + al), 4);
        let (src, dst) = (arena.at(s0, bytes), arena.at(d0, bytes));
        let data = Rng(40).vec_u32(bytes as usize / 4);
        let vsrc = Buffer::from_slice(ctx, "test::copy::valid_src", &data).unwrap();
        let vdst = Buffer::device_local(ctx, "test::copy::valid_dst", bytes).unwrap();
        let f = "copy";
        refusals_then_valid(
            ctx,
            f,
            |rec| {
                let mut copy = |case: &str, s, d, b, ok: &dyn Fn(&Error) -> bool| {
                    refused(f, case, vksort::copy::cmd_copy(rec, s, d, b), ok)
                };
                copy(
                    "size not a multiple of 16",
                    src,
                    dst,
                    bytes - 8,
                    &|e| matches!(e, Error::SizeNotMultiple { what: "copy", size, multiple: 16 } if *size == bytes - 8),
                );
                copy(
                    "short src",
                    arena.at(s0, bytes - 16),
                    dst,
                    bytes,
                    &|e| matches!(e, Error::BufferTooSmall { what: "src", needed, .. } if *needed == bytes),
                );
                copy("short dst", src, arena.at(d0, bytes - 16), bytes, &|e| {
                    matches!(e, Error::BufferTooSmall { what: "dst", .. })
                });
                copy(
                    "src without storage usage",
                    with_usage(src, TRANSFER_SRC),
                    dst,
                    bytes,
                    &|e| matches!(e, Error::MissingUsage { what: "src", missing } if *missing == STORAGE),
                );
                copy(
                    "dst without storage usage",
                    src,
                    with_usage(dst, TRANSFER_DST),
                    bytes,
                    &|e| matches!(e, Error::MissingUsage { what: "dst", missing } if *missing == STORAGE),
                );
                if offset_4_misaligned(ctx) {
                    copy(
                        "misaligned dst",
                        src,
                        arena.at(d0 + 4, bytes),
                        bytes,
                        &|e| matches!(e, Error::Misaligned { what: "dst", .. }),
                    );
                }
                copy("null src", null_region(bytes, STORAGE), dst, bytes, &|e| {
                    matches!(e, Error::NullBuffer { what: "src" })
                });
                copy(
                    "dst 16 bytes into the src",
                    src,
                    arena.at(s0 + 16, bytes),
                    bytes,
                    &|e| matches!(e, Error::Overlap { a: "src", b: "dst" }),
                );
                copy("dst is the src", src, src, bytes, &|e| {
                    matches!(e, Error::Overlap { a: "src", b: "dst" })
                });
            },
            |rec| vksort::copy::cmd_copy(rec, vsrc.as_ref(), vdst.as_ref(), bytes).unwrap(),
        );
        arena.assert_unchanged();
        assert_eq!(vdst.read_vec::<u32>(data.len()).unwrap(), data);
    });
}

#[test]
fn sort_checker_refusals_record_nothing() {
    with_gpu(|ctx| {
        let al = align(ctx);
        let up = |b: u64| b.next_multiple_of(al);
        let n = 1000u64;
        let nb = 4 * n;
        let config = |key, value| SortConfig {
            key,
            value,
            ..Default::default()
        };
        let pairs = SortChecker::new(ctx, &config(KeyType::U32, ValueType::U32), true).unwrap();
        let keys_only =
            SortChecker::new(ctx, &config(KeyType::U32, ValueType::None), false).unwrap();
        let wide = SortChecker::new(ctx, &config(KeyType::U64, ValueType::None), false).unwrap();
        let rb = pairs.result_bytes(n);
        let (k0, v0) = (0, up(nb + al));
        let r0 = 2 * v0;
        let arena = Arena::new(ctx, "test::check::arena", r0 + up(rb.max(nb) + al), 5);
        let (k, v, r) = (arena.at(k0, nb), arena.at(v0, nb), arena.at(r0, rb));
        let sorted: Vec<u32> = (0..n as u32).collect();
        let vk_ = Buffer::from_slice(ctx, "test::check::valid_keys", &sorted).unwrap();
        let vv = Buffer::from_slice(ctx, "test::check::valid_values", &sorted).unwrap();
        let vr = Buffer::device_local(ctx, "test::check::valid_result", rb).unwrap();
        let f = "sort check";
        refusals_then_valid(
            ctx,
            f,
            |rec| {
                let mut check =
                    |case: &str, c: &SortChecker, k, v, r, n, ok: &dyn Fn(&Error) -> bool| {
                        refused(f, case, c.cmd_check(rec, k, v, r, n), ok)
                    };
                check(
                    "count of 2^32 - 1",
                    &pairs,
                    k,
                    Some(v),
                    r,
                    u32::MAX as u64,
                    &|e| matches!(e, Error::TooLarge { n, .. } if *n == u32::MAX as u64),
                );
                check(
                    "no values for a pairs checker",
                    &pairs,
                    k,
                    None,
                    r,
                    n,
                    &|e| matches!(e, Error::ValuesMismatch { expected: true }),
                );
                check(
                    "values for a keys-only checker",
                    &keys_only,
                    k,
                    Some(v),
                    r,
                    n,
                    &|e| matches!(e, Error::ValuesMismatch { expected: false }),
                );
                check(
                    "u64 keys in a u32-sized region",
                    &wide,
                    k,
                    None,
                    r,
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "keys", needed, .. } if *needed == 8 * n),
                );
                check(
                    "short keys",
                    &pairs,
                    arena.at(k0, nb - 4),
                    Some(v),
                    r,
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "keys", .. }),
                );
                check(
                    "short values",
                    &pairs,
                    k,
                    Some(arena.at(v0, nb - 4)),
                    r,
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "values", .. }),
                );
                check(
                    "short result",
                    &pairs,
                    k,
                    Some(v),
                    arena.at(r0, rb - 4),
                    n,
                    &|e| matches!(e, Error::BufferTooSmall { what: "result", needed, .. } if *needed == rb),
                );
                check(
                    "keys without storage usage",
                    &pairs,
                    with_usage(k, TRANSFER_SRC),
                    Some(v),
                    r,
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "keys", .. }),
                );
                check(
                    "result without transfer-dst usage",
                    &pairs,
                    k,
                    Some(v),
                    with_usage(r, STORAGE),
                    n,
                    &|e| matches!(e, Error::MissingUsage { what: "result", missing } if *missing == TRANSFER_DST),
                );
                if offset_4_misaligned(ctx) {
                    check(
                        "misaligned keys",
                        &pairs,
                        arena.at(k0 + 4, nb),
                        Some(v),
                        r,
                        n,
                        &|e| matches!(e, Error::Misaligned { what: "keys", .. }),
                    );
                }
                check(
                    "null values",
                    &pairs,
                    k,
                    Some(null_region(nb, STORAGE)),
                    r,
                    n,
                    &|e| matches!(e, Error::NullBuffer { what: "values" }),
                );
                check(
                    "result inside the keys",
                    &pairs,
                    k,
                    Some(v),
                    arena.at(k0 + al, rb),
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "keys",
                                b: "result"
                            }
                        )
                    },
                );
                check("values are the keys", &pairs, k, Some(k), r, n, &|e| {
                    matches!(
                        e,
                        Error::Overlap {
                            a: "keys",
                            b: "values"
                        }
                    )
                });
                check(
                    "values over the result",
                    &pairs,
                    k,
                    Some(arena.at(r0, nb)),
                    r,
                    n,
                    &|e| {
                        matches!(
                            e,
                            Error::Overlap {
                                a: "result",
                                b: "values"
                            }
                        )
                    },
                );
            },
            |rec| {
                pairs
                    .cmd_check(rec, vk_.as_ref(), Some(vv.as_ref()), vr.as_ref(), n)
                    .unwrap()
            },
        );
        arena.assert_unchanged();
        let words = vr.read_vec::<u32>(rb as usize / 4).unwrap();
        let report = CheckReport::from_words(&words, n);
        let fp = vksort::sort::check::fingerprint(
            KeyType::U32,
            ValueType::U32,
            bytemuck::cast_slice(&sorted),
            bytemuck::cast_slice(&sorted),
        );
        assert!(report.passes(fp), "{report:?}");
    });
}

/// Another context's regions on this context's recorder, for every family; this context's scanner, compactor
/// and checker on the other's recorder: `Error::WrongContext` naming the region or object, nothing recorded on
/// either side, both arenas unchanged, no validation error on either context.
#[test]
fn another_contexts_regions_and_objects_record_nothing() {
    with_gpu(|ctx| {
        let other = Context::new(ContextOptions::from_env()).unwrap();
        let _ = other.take_validation_errors();
        let al = align(ctx).max(align(&other));
        let up = |b: u64| b.next_multiple_of(al);
        let n = 1000u64;
        let nb = 4 * n;
        let s = Scanner::new(ctx, ScanConfig::default()).unwrap();
        let c = Compactor::new(ctx, None).unwrap();
        let chk = SortChecker::new(ctx, &SortConfig::default(), false).unwrap();
        let sb = s
            .scratch_bytes(n)
            .max(c.scratch_bytes(n))
            .max(reduce_scratch_bytes(n))
            .max(chk.result_bytes(n));
        let step = up(nb.max(sb) + al);
        let size = 4 * step;
        let mine = Arena::new(ctx, "test::mine", size, 6);
        let theirs = Arena::new(&other, "test::theirs", size, 7);
        let [i0, o0, s0, x0] = [0, step, 2 * step, 3 * step];
        let (i, o, sc, x) = (
            mine.at(i0, nb),
            mine.at(o0, nb),
            mine.at(s0, sb),
            mine.at(x0, 16),
        );
        let (ti, to, ts, tx) = (
            theirs.at(i0, nb),
            theirs.at(o0, nb),
            theirs.at(s0, sb),
            theirs.at(x0, 16),
        );
        let f = "another context";
        let wrong = |what: &'static str| move |e: &Error| matches!(e, Error::WrongContext { what: w } if *w == what);
        let mine_passes = record_own(ctx, |rec| {
            refused(
                f,
                "scan: their input",
                s.cmd_scan(rec, ti, o, sc, n),
                wrong("input"),
            );
            refused(
                f,
                "scan: their output",
                s.cmd_scan(rec, i, to, sc, n),
                wrong("output"),
            );
            refused(
                f,
                "scan: their scratch",
                s.cmd_scan(rec, i, o, ts, n),
                wrong("scratch"),
            );
            refused(
                f,
                "indirect scan: their arguments",
                s.cmd_scan_indirect(rec, i, o, sc, n, tx.slice(0, 12)),
                wrong("indirect arguments"),
            );
            refused(
                f,
                "compaction: their flags",
                c.cmd_compact(rec, i, Some(ti), o, x.slice(0, 4), sc, n),
                wrong("flags"),
            );
            refused(
                f,
                "compaction: their count",
                c.cmd_compact(rec, i, None, o, tx.slice(0, 4), sc, n),
                wrong("count_out"),
            );
            refused(
                f,
                "reduce: their output",
                cmd_reduce(rec, i, to.slice(0, 4), sc, n, ReduceOp::Max, ScanElem::U32),
                wrong("output"),
            );
            refused(
                f,
                "reduce: their scratch",
                cmd_reduce(rec, i, x.slice(0, 4), ts, n, ReduceOp::Min, ScanElem::U32),
                wrong("scratch"),
            );
            refused(
                f,
                "copy: their dst",
                vksort::copy::cmd_copy(rec, i, to, nb),
                wrong("dst"),
            );
            refused(
                f,
                "check: their keys",
                chk.cmd_check(rec, ti, None, sc, n),
                wrong("keys"),
            );
            refused(
                f,
                "check: their result",
                chk.cmd_check(rec, i, None, ts, n),
                wrong("result"),
            );
        });
        // This context's objects on the other's recorder, with the other's regions.
        let theirs_passes = record_own(&other, |rec| {
            refused(
                f,
                "their recorder: scanner",
                s.cmd_scan(rec, ti, to, ts, n),
                wrong("scanner"),
            );
            refused(
                f,
                "their recorder: indirect scanner",
                s.cmd_scan_indirect(rec, ti, to, ts, n, tx.slice(0, 12)),
                wrong("scanner"),
            );
            refused(
                f,
                "their recorder: compactor",
                c.cmd_compact(rec, ti, None, to, tx.slice(0, 4), ts, n),
                wrong("compactor"),
            );
            refused(
                f,
                "their recorder: checker",
                chk.cmd_check(rec, ti, None, ts, n),
                wrong("checker"),
            );
        });
        for (side, passes) in [("mine", mine_passes), ("theirs", theirs_passes)] {
            if let Some(p) = passes {
                assert!(p.is_empty(), "{side}: refused calls recorded {p:?}");
            }
        }
        mine.assert_unchanged();
        theirs.assert_unchanged();
        let errors = other.take_validation_errors();
        assert!(
            errors.is_empty(),
            "validation errors on the other context:\n{}",
            errors.join("\n")
        );
    });
}
