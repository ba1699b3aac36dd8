//! Shared checks of the sort families beside radix (bitonic, merge, WarpSort, quicksort, split radix): input
//! distributions (raw key bits as u128, so 128-bit keys too), the GPU sort of one case through the recorded
//! form (host or GPU-side count), and its comparison with the CPU reference: bitwise for stable sorts (values =
//! input index prove stability), keys bitwise and values a permutation that keeps every pair together for
//! unstable ones.
#![allow(dead_code)]

use super::Rng;
use std::sync::Arc;
use vksort::gpu::Buffer;
use vksort::sort::{self, count, KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::Context;

/// Input distributions (after Cederman & Tsigas, and the radix tests' skewed ones).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    Uniform,
    Sorted,
    Reverse,
    AllEqual,
    /// Five distinct keys.
    FewUnique,
    /// Two distinct keys.
    TwoValues,
    /// 64 blocks; block i draws uniformly from a range placed by i (Helman's staggered distribution).
    Staggered,
    /// The sum of four uniform draws (an approximate gaussian) of the key's range.
    Gaussian,
    /// Ascending then descending.
    OrganPipe,
    /// Uniform with a quarter of the keys replaced by float specials (+-0, +-inf, NaNs of both signs).
    FloatSpecials,
    /// Keys ANDed from k uniform draws (low entropy).
    Entropy(u32),
    /// A renderer's depth keys: floats uniform in a narrow positive range ([0.25, 0.2578125): the top 14 bits
    /// of every key equal); other keys uniform in a window of 2^(bits/4) above the middle of their range.
    Depth,
}

impl Dist {
    pub const ALL: [Dist; 12] = [
        Dist::Uniform,
        Dist::Sorted,
        Dist::Reverse,
        Dist::AllEqual,
        Dist::FewUnique,
        Dist::TwoValues,
        Dist::Staggered,
        Dist::Gaussian,
        Dist::OrganPipe,
        Dist::FloatSpecials,
        Dist::Entropy(3),
        Dist::Depth,
    ];
}

fn key_mask(key: KeyType) -> u128 {
    match key.bits() {
        128 => u128::MAX,
        b => (1u128 << b) - 1,
    }
}

fn draw(r: &mut Rng, key: KeyType) -> u128 {
    let x = ((r.next_u64() as u128) << 64) | r.next_u64() as u128;
    x & key_mask(key)
}

/// `n` raw keys of type `key` (narrower keys in the low bits) drawn from `dist`.
pub fn gen(key: KeyType, dist: Dist, n: usize, seed: u64) -> Vec<u128> {
    let mut r = Rng(seed);
    let mask = key_mask(key);
    let bits = key.bits();
    let sorted = |v: Vec<u128>| -> Vec<u128> {
        let perm = sort::types::reference_permutation(key, &v, Order::Ascending, None);
        perm.iter().map(|&i| v[i]).collect()
    };
    let mut v: Vec<u128> = match dist {
        Dist::Uniform | Dist::FloatSpecials => (0..n).map(|_| draw(&mut r, key)).collect(),
        Dist::Sorted => sorted((0..n).map(|_| draw(&mut r, key)).collect()),
        Dist::Reverse => {
            let mut v = sorted((0..n).map(|_| draw(&mut r, key)).collect());
            v.reverse();
            v
        }
        Dist::AllEqual => vec![draw(&mut r, key); n],
        Dist::FewUnique | Dist::TwoValues => {
            let k = if dist == Dist::TwoValues { 2 } else { 5 };
            let u: Vec<u128> = (0..k).map(|_| draw(&mut r, key)).collect();
            (0..n)
                .map(|_| u[(r.next_u32() % k as u32) as usize])
                .collect()
        }
        Dist::Staggered => {
            let p = 64u128;
            let block = n.div_ceil(64).max(1);
            let span = mask / p;
            (0..n)
                .map(|i| {
                    let b = (i / block) as u128;
                    let slot = if b < p / 2 {
                        2 * b + 1
                    } else {
                        (b - p / 2) * 2
                    };
                    slot * span + draw(&mut r, key) % span.max(1)
                })
                .collect()
        }
        Dist::Gaussian => (0..n)
            .map(|_| {
                let s: u128 = (0..4).map(|_| draw(&mut r, key) >> 2).sum();
                s & mask
            })
            .collect(),
        Dist::OrganPipe => {
            let mut v = sorted((0..n).map(|_| draw(&mut r, key)).collect());
            let tail: Vec<u128> = v.split_off(n / 2);
            v.extend(tail.into_iter().rev());
            v
        }
        Dist::Entropy(k) => (0..n)
            .map(|_| (0..k).fold(mask, |a, _| a & draw(&mut r, key)))
            .collect(),
        Dist::Depth => (0..n)
            .map(|_| {
                let u = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let d = 0.25 + u / 128.0;
                match key {
                    KeyType::F32 => (d as f32).to_bits() as u128,
                    KeyType::F64 => d.to_bits() as u128,
                    _ => (mask >> 1) + 1 + draw(&mut r, key) % (1u128 << (bits / 4)),
                }
            })
            .collect(),
    };
    if dist == Dist::FloatSpecials && key.is_float() {
        let specials: Vec<u128> = if bits == 32 {
            [
                0u32,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7f80_0001,
                0xff80_0123,
                1.0f32.to_bits(),
                (-1.0f32).to_bits(),
            ]
            .iter()
            .map(|&x| x as u128)
            .collect()
        } else {
            [
                0u64,
                1 << 63,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x7ff8_0000_0000_0000,
                0xfff8_0000_0000_0000,
                0x7ff0_0000_0000_0001,
                0xfff0_0000_0012_3456,
                1.0f64.to_bits(),
                (-1.0f64).to_bits(),
            ]
            .iter()
            .map(|&x| x as u128)
            .collect()
        };
        for x in v.iter_mut() {
            if r.next_u32() % 4 == 0 {
                *x = specials[(r.next_u32() as usize) % specials.len()];
            }
        }
    }
    v
}

/// Raw keys as the u32 words of a key buffer (lowest word first).
pub fn to_words(raw: &[u128], key: KeyType) -> Vec<u32> {
    raw.iter()
        .flat_map(|&x| (0..key.words()).map(move |w| (x >> (32 * w)) as u32))
        .collect()
}

/// Values that name their input index (u64 values also carry a second word).
pub fn values_for(n: usize, vt: ValueType) -> Vec<u32> {
    (0..n as u32)
        .flat_map(|i| match vt {
            ValueType::None => vec![],
            ValueType::U32 => vec![i],
            ValueType::U64 => vec![i, i ^ 0x5a5a_0000],
        })
        .collect()
}

/// One sort configuration under test.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub key: KeyType,
    pub value: ValueType,
    pub order: Order,
    pub bits: Option<(u32, u32)>,
    pub algorithm: SortAlgorithm,
}

impl Case {
    pub fn new(algorithm: SortAlgorithm, key: KeyType) -> Self {
        Self {
            key,
            value: ValueType::None,
            order: Order::Ascending,
            bits: None,
            algorithm,
        }
    }
    pub fn config(&self, max_n: usize) -> SortConfig {
        SortConfig {
            key: self.key,
            value: self.value,
            order: self.order,
            bits: self.bits,
            algorithm: self.algorithm,
            stable: false,
            max_n: max_n.max(1) as u64,
        }
    }
}

/// Sorts `raw` with `sorter` (made for `c` and at least raw.len() keys) through the recorded form (a host
/// count, or a GPU-side count `gpu_n` <= raw.len() with capacity raw.len()) and compares with the CPU reference:
/// stable sorts bitwise (keys and values), unstable ones keys bitwise and values as a pairing-preserving
/// permutation. Keys beyond the sorted count must be untouched.
pub fn check_with(
    ctx: &Arc<Context>,
    sorter: &Sorter,
    c: &Case,
    raw: &[u128],
    gpu_n: Option<usize>,
    stable: bool,
) {
    let n = raw.len();
    let kw = to_words(raw, c.key);
    let vw = values_for(n, c.value);
    let pad = |w: &[u32]| {
        let mut v = w.to_vec();
        v.resize(w.len().max(4), 0);
        v
    };
    let kb = Buffer::from_slice(ctx, "test::keys", &pad(&kw)).unwrap();
    let vb = Buffer::from_slice(ctx, "test::vals", &pad(&vw)).unwrap();
    let req = sorter.storage_requirements(n as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes.max(16)).unwrap();
    let cnt = Buffer::from_slice(ctx, "test::count", &[gpu_n.unwrap_or(0) as u32; 4]).unwrap();
    let values = (c.value != ValueType::None).then(|| vb.as_ref());
    ctx.submit("test::sort", |rec| match gpu_n {
        None => sorter.cmd_sort(rec, kb.as_ref(), values, scratch.as_ref(), n as u64),
        Some(_) => sorter.cmd_sort_indirect(
            rec,
            kb.as_ref(),
            values,
            scratch.as_ref(),
            cnt.slice(4, 4),
            n as u64,
        ),
    })
    .unwrap();
    let m = gpu_n.unwrap_or(n);
    let label = format!(
        "{:?} {:?} {:?} {:?} {:?} n={n} gpu_n={gpu_n:?}",
        c.algorithm, c.key, c.value, c.order, c.bits
    );
    let got_kw = kb.read_vec::<u32>(kw.len()).unwrap();
    let got_vw = vb.read_vec::<u32>(vw.len()).unwrap();
    verify(c, raw, m, &got_kw, &got_vw, stable, &label);
    if gpu_n.is_some() {
        let base = (sorter.control_offset(n as u64) / 4) as usize;
        let meta = scratch.read_vec::<u32>(base + 4).unwrap();
        assert_eq!(meta[base + count::CTRL_N as usize], m as u32, "{label}");
        assert_eq!(meta[base + count::CTRL_OVERFLOW as usize], 0, "{label}");
    }
}

/// Compares a sort's output with the CPU reference: `raw` held the keys and [`values_for`]`(raw.len())` the
/// values, of which the first `m` were sorted into `got_kw` / `got_vw` (key and value words); everything
/// beyond `m` must be unchanged. Stable sorts bitwise (keys and values), unstable ones keys in order and a
/// permutation of the input with every value still beside its key.
pub fn verify(
    c: &Case,
    raw: &[u128],
    m: usize,
    got_kw: &[u32],
    got_vw: &[u32],
    stable: bool,
    label: &str,
) {
    let n = raw.len();
    let vw = values_for(n, c.value);
    let perm = sort::types::reference_permutation(c.key, &raw[..m], c.order, c.bits);
    let mut want: Vec<u128> = perm.iter().map(|&i| raw[i]).collect();
    want.extend_from_slice(&raw[m..]);
    let want_kw = to_words(&want, c.key);
    let vwords = (c.value.bytes() / 4) as usize;
    if (stable || c.bits.is_none()) && got_kw != want_kw {
        let first = got_kw.iter().zip(&want_kw).position(|(a, b)| a != b);
        panic!("keys differ: {label}; first difference at word {first:?}");
    }
    if stable {
        if vwords > 0 {
            let want_v: Vec<u32> = perm
                .iter()
                .copied()
                .chain(m..n)
                .flat_map(|i| vw[i * vwords..(i + 1) * vwords].to_vec())
                .collect();
            if got_vw != want_v {
                let first = got_vw.iter().zip(&want_v).position(|(a, b)| a != b);
                panic!("values differ (stability): {label}; first difference at word {first:?}");
            }
        }
    } else {
        // Unstable: ordered by the sort bits, the keys a permutation of the input's (checked through values
        // when they exist, else by the multiset), and every value still beside its key.
        let kwords = c.key.words() as usize;
        let key_at = |w: &[u32], i: usize| -> u128 {
            (0..kwords).fold(0u128, |a, j| a | ((w[i * kwords + j] as u128) << (32 * j)))
        };
        let (lo, hi) = c.bits.unwrap_or((0, c.key.bits()));
        let sb = |x: u128| sort::types::sort_bits(c.key, x, c.order, lo, hi);
        for i in 1..m {
            assert!(
                sb(key_at(got_kw, i - 1)) <= sb(key_at(got_kw, i)),
                "not ordered at {i}: {label}"
            );
        }
        for (i, &r) in raw.iter().enumerate().skip(m) {
            assert_eq!(key_at(got_kw, i), r, "key beyond the count moved: {label}");
        }
        if vwords > 0 {
            let mut seen = vec![false; m];
            for i in 0..m {
                let src = got_vw[i * vwords] as usize;
                assert!(
                    src < m && !seen[src],
                    "values not a permutation at {i}: {label}"
                );
                seen[src] = true;
                assert_eq!(
                    key_at(got_kw, i),
                    raw[src],
                    "value left its key at {i}: {label}"
                );
                if vwords == 2 {
                    assert_eq!(got_vw[i * 2 + 1], src as u32 ^ 0x5a5a_0000, "{label}");
                }
            }
            assert!(
                got_vw[m * vwords..n * vwords] == vw[m * vwords..],
                "value beyond the count moved: {label}"
            );
        } else {
            let mut a: Vec<u128> = (0..m).map(|i| key_at(got_kw, i)).collect();
            let mut b: Vec<u128> = raw[..m].to_vec();
            a.sort_unstable();
            b.sort_unstable();
            assert!(a == b, "keys are not a permutation of the input: {label}");
        }
    }
}

/// [`check_with`] on a sorter made for this case and raw.len() keys.
pub fn check(ctx: &Arc<Context>, c: &Case, raw: &[u128], gpu_n: Option<usize>, stable: bool) {
    let sorter = Sorter::new(ctx, c.config(raw.len())).unwrap();
    check_with(ctx, &sorter, c, raw, gpu_n, stable);
}

/// Sizes around a tile of `tile` keys: 0..=3, tile - 2 ..= tile + 2, twice the tile and one more, odd ones.
pub fn sizes_around(tile: usize) -> Vec<usize> {
    let mut v: Vec<usize> = vec![0, 1, 2, 3, 5, 17, 100, 257];
    v.extend(tile.saturating_sub(2)..=tile + 2);
    v.extend([2 * tile - 1, 2 * tile, 2 * tile + 1, 3 * tile + 7]);
    v.sort_unstable();
    v.dedup();
    v
}

/// The bad inputs every sort family rejects with a typed error before recording anything, and after which the
/// caller's keys are unchanged: a value buffer too short, values given to a keys-only sorter and none to a
/// pairs sorter, a scratch too small or without storage usage, keys too short, a count above the capacity, a
/// misaligned GPU-side count, and an invalid bit range.
pub fn bad_input_is_rejected(ctx: &Arc<Context>, algorithm: SortAlgorithm, key: KeyType) {
    use vksort::Error;
    let n = 3000usize;
    let c = Case {
        value: ValueType::U32,
        ..Case::new(algorithm, key)
    };
    let raw = gen(key, Dist::Uniform, n, 77);
    let kw = to_words(&raw, key);
    let sorter = Sorter::new(ctx, c.config(n)).unwrap();
    let keys_only = Sorter::new(
        ctx,
        Case {
            value: ValueType::None,
            ..c
        }
        .config(n),
    )
    .unwrap();
    let kb = Buffer::from_slice(ctx, "test::keys", &kw).unwrap();
    let vb = Buffer::from_slice(ctx, "test::vals", &values_for(n, ValueType::U32)).unwrap();
    let req = sorter.storage_requirements(n as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes.max(16)).unwrap();
    let cnt = Buffer::from_slice(ctx, "test::count", &[10u32; 4]).unwrap();
    let kbytes = kb.as_ref().size();
    let vbytes = (n * 4) as u64;
    let run =
        |s: &Sorter,
         k: vksort::BufferRef,
         v: Option<vksort::BufferRef>,
         sc: vksort::BufferRef,
         n: u64| { ctx.submit("test::bad", |rec| s.cmd_sort(rec, k, v, sc, n)) };
    let what = format!("{algorithm:?} {key:?}");
    assert!(
        matches!(
            run(
                &sorter,
                kb.as_ref(),
                Some(vb.slice(0, vbytes - 4)),
                scratch.as_ref(),
                n as u64
            ),
            Err(Error::BufferTooSmall { .. })
        ),
        "short values: {what}"
    );
    assert!(
        matches!(
            run(
                &sorter,
                kb.slice(0, kbytes - 4),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n as u64
            ),
            Err(Error::BufferTooSmall { .. })
        ),
        "short keys: {what}"
    );
    assert!(
        matches!(
            run(&sorter, kb.as_ref(), None, scratch.as_ref(), n as u64),
            Err(Error::ValuesMismatch { expected: true })
        ),
        "no values: {what}"
    );
    assert!(
        matches!(
            run(
                &keys_only,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n as u64
            ),
            Err(Error::ValuesMismatch { expected: false })
        ),
        "unexpected values: {what}"
    );
    if req.scratch_bytes > 16 {
        assert!(
            matches!(
                run(
                    &sorter,
                    kb.as_ref(),
                    Some(vb.as_ref()),
                    scratch.slice(0, req.scratch_bytes - 16),
                    n as u64
                ),
                Err(Error::BufferTooSmall { .. })
            ),
            "short scratch: {what}"
        );
    }
    let no_storage = super::with_usage(scratch.as_ref(), ash::vk::BufferUsageFlags::TRANSFER_DST);
    assert!(
        matches!(
            run(
                &sorter,
                kb.as_ref(),
                Some(vb.as_ref()),
                no_storage,
                n as u64
            ),
            Err(Error::MissingUsage { .. })
        ),
        "scratch usage: {what}"
    );
    assert!(
        matches!(
            run(
                &sorter,
                kb.as_ref(),
                Some(vb.as_ref()),
                scratch.as_ref(),
                n as u64 + 1
            ),
            Err(Error::CountOverCapacity { .. })
        ),
        "over capacity: {what}"
    );
    let misaligned = ctx.submit("test::bad", |rec| {
        sorter.cmd_sort_indirect(
            rec,
            kb.as_ref(),
            Some(vb.as_ref()),
            scratch.as_ref(),
            cnt.slice(2, 4),
            n as u64,
        )
    });
    assert!(
        matches!(misaligned, Err(Error::Misaligned { .. })),
        "misaligned count: {what}"
    );
    assert_eq!(
        kb.read_vec::<u32>(kw.len()).unwrap(),
        kw,
        "keys changed: {what}"
    );
    let bad_bits = SortConfig {
        bits: Some((3, key.bits() + 1)),
        ..c.config(n)
    };
    assert!(
        matches!(
            Sorter::new(ctx, bad_bits),
            Err(Error::InvalidBitRange { .. })
        ),
        "bit range: {what}"
    );
}

/// Records, in one submission, sorts with `sorter` of each of `sizes` keys and of `spread` sizes spaced evenly up
/// to its capacity (each with a host count and with a GPU-side count of that capacity), and asserts that
/// recording built no pipeline: the sorter built every one it may use when it was created.
pub fn assert_recording_builds_no_pipeline(
    ctx: &Arc<Context>,
    sorter: &Sorter,
    sizes: &[u64],
    spread: u64,
    what: &str,
) {
    let cfg = *sorter.config();
    let max_n = cfg.max_n;
    let req = sorter.storage_requirements(max_n).unwrap();
    let kb = Buffer::device_local(ctx, "test::keys", max_n * cfg.key.bytes() as u64).unwrap();
    let vb =
        Buffer::device_local(ctx, "test::vals", max_n * cfg.value.bytes().max(4) as u64).unwrap();
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
    let cnt = Buffer::from_slice(ctx, "test::count", &[max_n as u32 / 2]).unwrap();
    let vals = (cfg.value != ValueType::None).then(|| vb.as_ref());
    let mut all: Vec<u64> = sizes.to_vec();
    all.push(max_n);
    all.extend((1..spread).map(|k| max_n * k / spread + k));
    all.retain(|&n| n <= max_n);
    super::assert_records_without_building(ctx, what, |rec| {
        for &n in &all {
            sorter.cmd_sort(rec, kb.as_ref(), vals, scratch.as_ref(), n)?;
            rec.barrier();
            sorter.cmd_sort_indirect(rec, kb.as_ref(), vals, scratch.as_ref(), cnt.as_ref(), n)?;
            rec.barrier();
        }
        Ok(())
    });
}

/// [`check_with`] of `n` keys of every distribution of [`Dist::ALL`] (seeds 40, 41, ...) with one sorter.
pub fn check_distributions(ctx: &Arc<Context>, sorter: &Sorter, c: &Case, n: usize, stable: bool) {
    for (i, dist) in Dist::ALL.into_iter().enumerate() {
        check_with(
            ctx,
            sorter,
            c,
            &gen(c.key, dist, n, 40 + i as u64),
            None,
            stable,
        );
    }
}
