//! Checks every sort algorithm (`SortAlgorithm::ALL`, Auto included) runs the same way, where a bug would write
//! where it must not:
//! - a GPU-side count above the capacity (a renderer's cull count larger than the sorter was made for): the first
//!   `capacity` keys sorted, the control block saying so, every word past the capacity untouched;
//! - refused calls recorded into the caller's own command buffer (`Recorder::new`, a renderer's path; the host
//!   form drops its command buffer on an error, so a refusal that recorded passes first would go unseen there),
//!   followed by one valid sort of a sub-range, submitted: keys and values outside that sub-range unchanged.
mod common;
use ash::vk;
use common::sorting::{gen, to_words, values_for, verify, Case, Dist};
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::Buffer;
use vksort::sort::{count, KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error};

/// The algorithms of the radix family, which take keys of up to 64 bits.
fn is_radix(a: SortAlgorithm) -> bool {
    matches!(
        a,
        SortAlgorithm::Auto
            | SortAlgorithm::Onesweep
            | SortAlgorithm::ReduceThenScan
            | SortAlgorithm::Small
            | SortAlgorithm::Msd
            | SortAlgorithm::Hybrid
    )
}

/// A sorter for `c` of `cap` keys, or of the algorithm's limit when that is lower (the one-workgroup sort);
/// returns it with its capacity.
fn sorter_up_to(ctx: &Arc<Context>, c: &Case, cap: usize) -> (Sorter, usize) {
    match Sorter::new(ctx, c.config(cap)) {
        Ok(s) => (s, cap),
        Err(Error::AlgorithmLimit { max, .. }) if (max as usize) < cap => (
            Sorter::new(ctx, c.config(max as usize)).unwrap(),
            max as usize,
        ),
        Err(e) => panic!("{c:?}: {e}"),
    }
}

/// A GPU-side count of five times the capacity, in every family: the first `capacity` keys (and values) sorted
/// as the CPU reference sorts them, the control block holding the capacity as the sorted count, the overflow
/// flag and the raw count, and the keys and values past the capacity (within the regions the sort was given)
/// untouched.
#[test]
fn gpu_count_over_capacity_every_family() {
    with_gpu(|ctx| {
        for (i, alg) in SortAlgorithm::ALL.into_iter().enumerate() {
            // 32-bit pairs ascending, and the widest key the family takes with 64-bit values, descending.
            let wide = if is_radix(alg) {
                KeyType::I64
            } else {
                KeyType::U128
            };
            let cases = [
                Case {
                    value: ValueType::U32,
                    ..Case::new(alg, KeyType::U32)
                },
                Case {
                    value: ValueType::U64,
                    order: Order::Descending,
                    ..Case::new(alg, wide)
                },
            ];
            for (j, c) in cases.into_iter().enumerate() {
                let (sorter, cap) = sorter_up_to(ctx, &c, 3000);
                let n = 5 * cap;
                let raw = gen(c.key, Dist::Uniform, n, 100 + 2 * i as u64 + j as u64);
                let kw = to_words(&raw, c.key);
                let vw = values_for(n, c.value);
                let kb = Buffer::from_slice(ctx, "test::keys", &kw).unwrap();
                let vb = Buffer::from_slice(ctx, "test::vals", &vw).unwrap();
                let req = sorter.storage_requirements(cap as u64).unwrap();
                let scratch =
                    Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
                let cnt = Buffer::from_slice(ctx, "test::count", &[n as u32]).unwrap();
                ctx.submit("test::overflow", |rec| {
                    sorter.cmd_sort_indirect(
                        rec,
                        kb.as_ref(),
                        Some(vb.as_ref()),
                        scratch.as_ref(),
                        cnt.as_ref(),
                        cap as u64,
                    )
                })
                .unwrap();
                let label = format!(
                    "{alg:?} {:?} {:?} {:?}: count {n}, capacity {cap}",
                    c.key, c.value, c.order
                );
                let got_kw = kb.read_vec::<u32>(kw.len()).unwrap();
                let got_vw = vb.read_vec::<u32>(vw.len()).unwrap();
                verify(&c, &raw, cap, &got_kw, &got_vw, alg.stable(), &label);
                let base = (sorter.control_offset(cap as u64) / 4) as usize;
                let meta = scratch.read_vec::<u32>(base + 4).unwrap();
                assert_eq!(
                    meta[base + count::CTRL_N as usize],
                    cap as u32,
                    "sorted count: {label}"
                );
                assert_eq!(
                    meta[base + count::CTRL_OVERFLOW as usize],
                    1,
                    "overflow flag: {label}"
                );
                assert_eq!(
                    meta[base + count::CTRL_RAW_COUNT as usize],
                    n as u32,
                    "raw count: {label}"
                );
                assert_eq!(
                    cnt.read_vec::<u32>(1).unwrap(),
                    [n as u32],
                    "count buffer changed: {label}"
                );
            }
        }
    });
}

/// Refused calls recorded into the caller's own command buffer record nothing, in every family: overlapping
/// keys and values, keys, values or scratch too short, values missing, a count above the capacity, a GPU-side
/// count misaligned or inside the keys, and a scratch without storage usage, each refused with its error; then
/// one valid sort of a sub-range of the same buffers, and the command buffer submitted. The sub-range is sorted
/// as the CPU reference sorts it, and every key and value word outside it (random data the refused calls'
/// regions covered) is unchanged.
#[test]
fn refused_calls_in_callers_command_buffer_every_family() {
    with_gpu(|ctx| {
        let align = ctx.caps().min_storage_buffer_offset_alignment.max(4) as usize;
        let up = |bytes: usize| bytes.div_ceil(align) * align;
        for (i, alg) in SortAlgorithm::ALL.into_iter().enumerate() {
            let c = Case {
                value: ValueType::U32,
                ..Case::new(alg, KeyType::U32)
            };
            let (sorter, cap) = sorter_up_to(ctx, &c, 3000);
            let words = 2 * cap + 64;
            let mut r = Rng(200 + i as u64);
            let keys0 = r.vec_u32(words);
            let vals0 = r.vec_u32(words);
            let kb = Buffer::from_slice(ctx, "test::keys", &keys0).unwrap();
            let vb = Buffer::from_slice(ctx, "test::vals", &vals0).unwrap();
            let req = sorter.storage_requirements(cap as u64).unwrap();
            let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
            let cnt = Buffer::from_slice(ctx, "test::count", &[cap as u32 / 2; 4]).unwrap();
            // What a sort of `cap` keys needs: Auto's requirement covers every size it may sort, with whichever
            // family takes each size, the sort of `cap` keys only its own algorithm's.
            let need = Sorter::new(
                ctx,
                SortConfig {
                    algorithm: sorter.algorithm_for(cap as u64),
                    ..c.config(cap)
                },
            )
            .unwrap()
            .storage_requirements(cap as u64)
            .unwrap()
            .scratch_bytes;
            // The valid sort: m keys at a word offset into the key buffer, their values at another.
            let m = cap - 7;
            let (ko, vo) = (up(4 * 37), up(4 * 301));
            let capb = 4 * cap as u64;
            let what = format!("{alg:?}, capacity {cap}");
            common::record_own(ctx, |rec| {
                let refused =
                    |name: &str, r: vksort::Result<()>, ok: &dyn Fn(&Error) -> bool| match r {
                        Err(e) if ok(&e) => {}
                        other => panic!("{what}: {name}: {other:?}"),
                    };
                let (k, v, s) = (kb.as_ref(), vb.as_ref(), scratch.as_ref());
                let cap = cap as u64;
                refused(
                    "values over the keys",
                    sorter.cmd_sort(rec, k, Some(kb.slice(0, capb)), s, cap),
                    &|e| matches!(e, Error::Overlap { .. }),
                );
                refused(
                    "short keys",
                    sorter.cmd_sort(rec, kb.slice(0, capb - 4), Some(v), s, cap),
                    &|e| matches!(e, Error::BufferTooSmall { what: "keys", .. }),
                );
                refused(
                    "short values",
                    sorter.cmd_sort(rec, k, Some(vb.slice(0, capb - 4)), s, cap),
                    &|e| matches!(e, Error::BufferTooSmall { what: "values", .. }),
                );
                refused("no values", sorter.cmd_sort(rec, k, None, s, cap), &|e| {
                    matches!(e, Error::ValuesMismatch { expected: true })
                });
                refused(
                    "short scratch",
                    sorter.cmd_sort(rec, k, Some(v), scratch.slice(0, need - 4), cap),
                    &|e| {
                        matches!(
                            e,
                            Error::BufferTooSmall {
                                what: "scratch",
                                ..
                            }
                        )
                    },
                );
                refused(
                    "host count over the capacity",
                    sorter.cmd_sort(rec, k, Some(v), s, cap + 1),
                    &|e| matches!(e, Error::CountOverCapacity { .. }),
                );
                refused(
                    "GPU-side capacity over the sorter's",
                    sorter.cmd_sort_indirect(rec, k, Some(v), s, cnt.as_ref(), cap + 1),
                    &|e| matches!(e, Error::CountOverCapacity { .. }),
                );
                refused(
                    "misaligned count",
                    sorter.cmd_sort_indirect(rec, k, Some(v), s, cnt.slice(2, 4), cap),
                    &|e| matches!(e, Error::Misaligned { what: "count", .. }),
                );
                refused(
                    "count inside the keys",
                    sorter.cmd_sort_indirect(rec, k, Some(v), s, kb.slice(8, 4), cap),
                    &|e| matches!(e, Error::Overlap { .. }),
                );
                let no_storage =
                    common::with_usage(scratch.as_ref(), vk::BufferUsageFlags::TRANSFER_DST);
                refused(
                    "scratch without storage usage",
                    sorter.cmd_sort(rec, k, Some(v), no_storage, cap),
                    &|e| {
                        matches!(
                            e,
                            Error::MissingUsage {
                                what: "scratch",
                                ..
                            }
                        )
                    },
                );
                sorter
                    .cmd_sort(
                        rec,
                        kb.slice(ko as u64, 4 * m as u64),
                        Some(vb.slice(vo as u64, 4 * m as u64)),
                        s,
                        m as u64,
                    )
                    .unwrap();
            });
            let keys = kb.read_vec::<u32>(words).unwrap();
            let vals = vb.read_vec::<u32>(words).unwrap();
            let (k0, v0) = (ko / 4, vo / 4);
            for w in (0..words).filter(|w| !(k0..k0 + m).contains(w)) {
                assert_eq!(keys[w], keys0[w], "{what}: key word {w} changed");
            }
            for w in (0..words).filter(|w| !(v0..v0 + m).contains(w)) {
                assert_eq!(vals[w], vals0[w], "{what}: value word {w} changed");
            }
            // The sub-range: keys as the reference orders them; values (random) still beside their keys, in
            // input order among equal keys for the stable algorithms.
            let sub: Vec<u128> = keys0[k0..k0 + m].iter().map(|&x| x as u128).collect();
            let perm = vksort::sort::types::reference_permutation(
                KeyType::U32,
                &sub,
                Order::Ascending,
                None,
            );
            let want_k: Vec<u32> = perm.iter().map(|&p| keys0[k0 + p]).collect();
            let mut want_v: Vec<(u32, u32)> = perm
                .iter()
                .map(|&p| (keys0[k0 + p], vals0[v0 + p]))
                .collect();
            assert!(keys[k0..k0 + m] == want_k[..], "{what}: keys not sorted");
            let mut got_v: Vec<(u32, u32)> = (0..m).map(|j| (keys[k0 + j], vals[v0 + j])).collect();
            if !alg.stable() {
                want_v.sort_unstable();
                got_v.sort_unstable();
            }
            assert!(got_v == want_v, "{what}: values not beside their keys");
        }
    });
}
