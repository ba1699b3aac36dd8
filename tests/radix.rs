//! The radix sort: every key type, value width, order, bit range and algorithm against the CPU reference
//! (bitwise, stability checked through values = input index), edge sizes, forward-progress emulation, GPU-side
//! counts, and rejected input.
mod common;
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::{kernel::reflect, Buffer};
use vksort::radix::{self, RadixPolicy};
use vksort::sort::{self, KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Error};

#[derive(Clone, Copy, Debug)]
enum Dist {
    Uniform,
    AllEqual,
    Sorted,
    Reverse,
    FewUnique,
    Entropy(u32),
    FloatSpecials,
}

fn gen(key: KeyType, dist: Dist, n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed);
    let mask = if key.bytes() == 4 { 0xffff_ffffu64 } else { u64::MAX };
    let mut v: Vec<u64> = match dist {
        Dist::Uniform => (0..n).map(|_| r.next_u64() & mask).collect(),
        Dist::AllEqual => {
            let x = r.next_u64() & mask;
            vec![x; n]
        }
        Dist::Sorted | Dist::Reverse => {
            let mut v: Vec<u64> = (0..n).map(|_| r.next_u64() & mask).collect();
            let perm = radix::keys::reference_permutation(key, &v, Order::Ascending, None);
            v = perm.iter().map(|&i| v[i]).collect();
            if let Dist::Reverse = dist {
                v.reverse();
            }
            v
        }
        Dist::FewUnique => {
            let u: Vec<u64> = (0..5).map(|_| r.next_u64() & mask).collect();
            (0..n).map(|_| u[(r.next_u32() % 5) as usize]).collect()
        }
        Dist::Entropy(k) => (0..n)
            .map(|_| (0..k).fold(mask, |a, _| a & r.next_u64()))
            .collect(),
        Dist::FloatSpecials => (0..n).map(|_| r.next_u64() & mask).collect(),
    };
    if let Dist::FloatSpecials = dist {
        let specials: Vec<u64> = if key.bytes() == 4 {
            vec![
                0,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7f80_0001,
                0xff80_0123,
                0x7fff_ffff,
                0xffff_ffff,
                1.0f32.to_bits() as u64,
                (-1.0f32).to_bits() as u64,
            ]
        } else {
            vec![
                0,
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
        };
        for x in v.iter_mut() {
            if r.next_u32() % 4 == 0 {
                *x = specials[(r.next_u32() as usize) % specials.len()];
            }
        }
    }
    v
}

fn to_words(raw: &[u64], bytes: u32) -> Vec<u32> {
    if bytes == 4 {
        raw.iter().map(|&x| x as u32).collect()
    } else {
        raw.iter().flat_map(|&x| [x as u32, (x >> 32) as u32]).collect()
    }
}

fn values_for(n: usize, vt: ValueType) -> Vec<u64> {
    (0..n as u64)
        .map(|i| match vt {
            ValueType::U64 => i | ((i ^ 0x5a5a) << 32),
            _ => i,
        })
        .collect()
}

struct Case {
    key: KeyType,
    value: ValueType,
    order: Order,
    bits: Option<(u32, u32)>,
    algorithm: SortAlgorithm,
    policy: Option<RadixPolicy>,
}

impl Case {
    fn new(key: KeyType) -> Self {
        Self {
            key,
            value: ValueType::None,
            order: Order::Ascending,
            bits: None,
            algorithm: SortAlgorithm::Auto,
            policy: None,
        }
    }
    fn config(&self) -> SortConfig {
        SortConfig {
            key: self.key,
            value: self.value,
            order: self.order,
            bits: self.bits,
            algorithm: self.algorithm,
            policy: self.policy,
        }
    }
}

/// Sorts `raw` on the GPU (host count, or a GPU-side count `gpu_n` <= raw.len() with capacity raw.len()) and
/// compares with the CPU reference bit for bit.
fn check(ctx: &Arc<Context>, c: &Case, raw: &[u64], gpu_n: Option<usize>) {
    let sorter = Sorter::new(ctx, c.config()).unwrap();
    let n = raw.len();
    let kw = to_words(raw, c.key.bytes());
    let vals = values_for(n, c.value);
    let vw = to_words(&vals, c.value.bytes().max(4));
    let kb = Buffer::from_slice(ctx, "test::keys", &pad(&kw)).unwrap();
    let vb = Buffer::from_slice(ctx, "test::vals", &pad(&vw)).unwrap();
    let req = sorter.storage_requirements(n as u64);
    let scratch = Buffer::device_local(ctx, "test::scratch", req.scratch_bytes).unwrap();
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
    let perm = radix::keys::reference_permutation(c.key, &raw[..m], c.order, c.bits);
    let mut want_k: Vec<u64> = perm.iter().map(|&i| raw[i]).collect();
    want_k.extend_from_slice(&raw[m..]);
    let got_k = kb.read_vec::<u32>(kw.len()).unwrap();
    let label = format!(
        "{:?} {:?} {:?} {:?} {:?} n={n} gpu_n={gpu_n:?} -> {:?}",
        c.key,
        c.value,
        c.order,
        c.bits,
        c.algorithm,
        sorter.algorithm_for(n as u64)
    );
    let want_kw = to_words(&want_k, c.key.bytes());
    if got_k != want_kw {
        let first = got_k.iter().zip(&want_kw).position(|(a, b)| a != b);
        panic!("keys differ: {label}; first difference at word {first:?}");
    }
    if c.value != ValueType::None {
        let mut want_v: Vec<u64> = perm.iter().map(|&i| vals[i]).collect();
        want_v.extend_from_slice(&vals[m..]);
        let want_vw = to_words(&want_v, c.value.bytes());
        let got_v = vb.read_vec::<u32>(want_vw.len()).unwrap();
        if got_v != want_vw {
            let first = got_v.iter().zip(&want_vw).position(|(a, b)| a != b);
            panic!("values differ (stability): {label}; first difference at word {first:?}");
        }
    }
    if gpu_n.is_some() {
        let meta = scratch.read_vec::<u32>((sorter.control_offset(n as u64) / 4 + 4) as usize).unwrap();
        let base = (sorter.control_offset(n as u64) / 4) as usize;
        assert_eq!(meta[base + radix::CTRL_N as usize], m as u32, "{label}");
        assert_eq!(meta[base + radix::CTRL_OVERFLOW as usize], 0, "{label}");
    }
}

fn pad(w: &[u32]) -> Vec<u32> {
    let mut v = w.to_vec();
    v.resize(w.len().max(4), 0);
    v
}

#[test]
fn smoke() {
    with_gpu(|ctx| {
        for alg in [SortAlgorithm::Small, SortAlgorithm::Onesweep, SortAlgorithm::ReduceThenScan] {
            let mut c = Case::new(KeyType::U32);
            c.algorithm = alg;
            c.value = ValueType::U32;
            for n in [2usize, 100, 1000, 2000] {
                check(ctx, &c, &gen(c.key, Dist::Uniform, n, n as u64), None);
            }
        }
    });
}
