//! The GPU-side check of sort outputs (`vksort::sort::check`): CPU-sorted outputs of every key and value type,
//! order and bit range pass with the input's host fingerprint; outputs broken in each way it covers (order,
//! stability, elements lost, duplicated or altered) fail with the right index or fingerprint; bad calls get
//! typed errors.

mod common;

use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::sort::check::{fingerprint, CheckReport, SortChecker};
use vksort::sort::{cpu_sort_reference, KeyType, Order, SortConfig, SortKey, ValueType};
use vksort::{Buffer, Context, Error};

/// Keys with many equal ones (16 distinct patterns spread over the key's bits), floats with their specials.
fn gen_keys<K: SortKey>(rng: &mut Rng, n: usize) -> Vec<K> {
    let bytes = std::mem::size_of::<K>();
    let specials: [u128; 8] = match K::TYPE {
        KeyType::F32 => [
            0x8000_0000, // -0.0
            0,
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // NaN
            0xffc0_0001, // -NaN
            0x3f80_0000,
            0xbf80_0000,
        ],
        KeyType::F64 => [
            1 << 63,
            0,
            0x7ff0 << 48,
            0xfff0 << 48,
            0x7ff8 << 48,
            (0xfff8 << 48) | 1,
            0x3ff0 << 48,
            0xbff0 << 48,
        ],
        _ => [0, 1, u128::MAX, 1 << 31, 1 << 63, 77, 0xdead_beef, 3 << 62],
    };
    let pool: Vec<u128> = (0..16)
        .map(|i| {
            if i < 8 {
                specials[i]
            } else {
                ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
            }
        })
        .collect();
    (0..n)
        .map(|_| {
            let r = rng.next_u64();
            let raw = if r % 4 == 0 {
                ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128
            } else {
                pool[(r >> 8) as usize % 16]
            };
            bytemuck::pod_read_unaligned(&raw.to_le_bytes()[..bytes])
        })
        .collect()
}

/// Uploads keys and (optional) values and runs the check.
fn check_on_gpu(
    ctx: &Arc<Context>,
    config: &SortConfig,
    stability: bool,
    keys: &[u8],
    values: Option<&[u8]>,
    n: u64,
) -> vksort::Result<CheckReport> {
    let checker = SortChecker::new(ctx, config, stability)?;
    let up = |name: &str, b: &[u8]| {
        let buf = Buffer::device_local(ctx, name, (b.len() as u64).max(16))?;
        buf.write(0, b)?;
        Ok::<_, Error>(buf)
    };
    let kbuf = up("test::check::keys", keys)?;
    let vbuf = values.map(|v| up("test::check::values", v)).transpose()?;
    checker.check(kbuf.as_ref(), vbuf.as_ref().map(|b| b.as_ref()), n)
}

/// A stable CPU sort of generated keys with index values (`value` None: keys only), as bytes, and the input's
/// fingerprint.
fn sorted_case<K: SortKey>(
    seed: u64,
    n: usize,
    value: ValueType,
    order: Order,
    bits: Option<(u32, u32)>,
) -> (Vec<u8>, Vec<u8>, u64) {
    let mut rng = Rng(seed);
    let mut keys: Vec<K> = gen_keys(&mut rng, n);
    let mut idx: Vec<u64> = (0..n as u64).collect();
    let as_values = |idx: &[u64]| -> Vec<u8> {
        match value {
            ValueType::None => Vec::new(),
            ValueType::U32 => idx.iter().flat_map(|&i| (i as u32).to_le_bytes()).collect(),
            ValueType::U64 => idx.iter().flat_map(|&i| i.to_le_bytes()).collect(),
        }
    };
    let input_fp = fingerprint(
        K::TYPE,
        value,
        bytemuck::cast_slice(&keys),
        &as_values(&idx),
    );
    cpu_sort_reference(&mut keys, Some(&mut idx), order, bits);
    (
        bytemuck::cast_slice(&keys).to_vec(),
        as_values(&idx),
        input_fp,
    )
}

fn config(key: KeyType, value: ValueType, order: Order, bits: Option<(u32, u32)>) -> SortConfig {
    SortConfig {
        key,
        value,
        order,
        bits,
        ..SortConfig::default()
    }
}

fn all_pass<K: SortKey>(ctx: &Arc<Context>, sizes: &[usize]) {
    let kbits = K::TYPE.bits();
    for value in ValueType::ALL {
        for order in Order::ALL {
            for bits in [None, Some((3, kbits - 5))] {
                for &n in sizes {
                    let seed = n as u64 * 31 + kbits as u64;
                    let (keys, values, fp) = sorted_case::<K>(seed, n, value, order, bits);
                    let cfg = config(K::TYPE, value, order, bits);
                    let vals = (value != ValueType::None).then_some(&values[..]);
                    let r = check_on_gpu(ctx, &cfg, true, &keys, vals, n as u64).unwrap();
                    assert!(
                        r.passes(fp),
                        "{:?} {value:?} {order:?} {bits:?} n={n}: {r:?}, input fingerprint {fp:#x}",
                        K::TYPE
                    );
                    assert_eq!(r.fingerprint, fingerprint(K::TYPE, value, &keys, &values));
                }
            }
        }
    }
}

#[test]
fn sorted_outputs_pass_with_the_inputs_fingerprint() {
    with_gpu(|ctx| {
        // the 4096-element tile (256 x 16) and its neighbours, odd sizes, more than one workgroup
        all_pass::<u32>(ctx, &[0, 1, 2, 4095, 4096, 4097, 10007]);
        let sizes = [0, 1, 4097, 10007];
        all_pass::<i32>(ctx, &sizes);
        all_pass::<f32>(ctx, &sizes);
        all_pass::<u64>(ctx, &sizes);
        all_pass::<i64>(ctx, &sizes);
        all_pass::<f64>(ctx, &sizes);
        all_pass::<u128>(ctx, &sizes);
    });
}

/// Swaps elements `i` and `j` (key and value) of byte columns.
fn swap_elems(keys: &mut [u8], values: &mut [u8], kb: usize, vb: usize, i: usize, j: usize) {
    for (col, w) in [(keys, kb), (values, vb)] {
        for b in 0..w {
            col.swap(i * w + b, j * w + b);
        }
    }
}

fn broken_outputs_fail<K: SortKey>(ctx: &Arc<Context>) {
    let n = 9001;
    let kb = K::TYPE.bytes() as usize;
    for value in [ValueType::U32, ValueType::U64] {
        let vb = value.bytes() as usize;
        let cfg = config(K::TYPE, value, Order::Ascending, None);
        let (keys, values, fp) = sorted_case::<K>(7, n, value, Order::Ascending, None);
        let key_at = |k: &[u8], i: usize| k[i * kb..(i + 1) * kb].to_vec();
        let run = |k: &[u8], v: &[u8]| check_on_gpu(ctx, &cfg, true, k, Some(v), n as u64).unwrap();
        assert!(run(&keys, &values).passes(fp));
        // adjacent distinct keys swapped: unsorted exactly at the later one
        let j = (4000..n - 1)
            .find(|&j| key_at(&keys, j) != key_at(&keys, j + 1))
            .unwrap();
        let (mut k, mut v) = (keys.clone(), values.clone());
        swap_elems(&mut k, &mut v, kb, vb, j, j + 1);
        let r = run(&k, &v);
        assert_eq!(r.first_unsorted, Some(j as u64 + 1), "{:?}: {r:?}", K::TYPE);
        assert_eq!(r.fingerprint, fp, "a permutation keeps the fingerprint");
        // the values of two equal keys swapped: unstable there, same fingerprint... of other pairs
        let e = (100..n - 1)
            .find(|&e| key_at(&keys, e) == key_at(&keys, e + 1))
            .unwrap();
        let mut v = values.clone();
        for b in 0..vb {
            v.swap(e * vb + b, (e + 1) * vb + b);
        }
        let r = run(&keys, &v);
        assert_eq!(r.first_unsorted, None);
        assert_eq!(r.first_unstable, Some(e as u64 + 1), "{:?}: {r:?}", K::TYPE);
        assert!(!r.passes(fp));
        // one element replaced by a copy of its neighbour: still sorted, not stable, another multiset
        let (mut k, mut v) = (keys.clone(), values.clone());
        let d = 6000;
        k.copy_within((d + 1) * kb..(d + 2) * kb, d * kb);
        v.copy_within((d + 1) * vb..(d + 2) * vb, d * vb);
        let r = run(&k, &v);
        assert_eq!(r.first_unsorted, None);
        assert_eq!(r.first_unstable, Some(d as u64 + 1));
        assert_ne!(r.fingerprint, fp);
        // one value bit flipped: only the fingerprint shows it (the order of values among equal keys may hold)
        let mut v = values.clone();
        v[123 * vb + vb - 1] ^= 0x40;
        let r = run(&keys, &v);
        assert_ne!(r.fingerprint, fp, "{:?} {value:?}", K::TYPE);
    }
    // keys only: a key copied over its (different) neighbour is sorted and stable, but not the input's multiset
    let cfg = config(K::TYPE, ValueType::None, Order::Descending, None);
    let (mut keys, _, fp) = sorted_case::<K>(9, n, ValueType::None, Order::Descending, None);
    let r = check_on_gpu(ctx, &cfg, true, &keys, None, n as u64).unwrap();
    assert!(r.passes(fp));
    let d = (0..n - 1)
        .find(|&d| keys[d * kb..(d + 1) * kb] != keys[(d + 1) * kb..(d + 2) * kb])
        .unwrap();
    keys.copy_within((d + 1) * kb..(d + 2) * kb, d * kb);
    let r = check_on_gpu(ctx, &cfg, true, &keys, None, n as u64).unwrap();
    assert_eq!((r.first_unsorted, r.first_unstable), (None, None));
    assert_ne!(r.fingerprint, fp, "{:?}", K::TYPE);
}

#[test]
fn broken_outputs_fail_where_they_break() {
    with_gpu(|ctx| {
        broken_outputs_fail::<u32>(ctx);
        broken_outputs_fail::<f32>(ctx);
        broken_outputs_fail::<i64>(ctx);
        broken_outputs_fail::<u128>(ctx);
    });
}

#[test]
fn an_unstable_sort_is_not_held_to_stability() {
    with_gpu(|ctx| {
        let n = 5000;
        let cfg = config(KeyType::U32, ValueType::U32, Order::Ascending, None);
        let (keys, mut values, fp) =
            sorted_case::<u32>(3, n, ValueType::U32, Order::Ascending, None);
        let e = (0..n - 1)
            .find(|&e| keys[e * 4..e * 4 + 4] == keys[e * 4 + 4..e * 4 + 8])
            .unwrap();
        values.swap(e * 4, e * 4 + 4);
        values.swap(e * 4 + 1, e * 4 + 5);
        values.swap(e * 4 + 2, e * 4 + 6);
        values.swap(e * 4 + 3, e * 4 + 7);
        let r = check_on_gpu(ctx, &cfg, false, &keys, Some(&values), n as u64).unwrap();
        assert!(r.passes(fp), "{r:?}");
    });
}

#[test]
fn bad_calls_get_typed_errors() {
    with_gpu(|ctx| {
        let n = 100u64;
        let keys = vec![0u8; 400];
        let cfg = config(KeyType::U32, ValueType::U32, Order::Ascending, None);
        // values missing for a configuration with values
        let e = check_on_gpu(ctx, &cfg, true, &keys, None, n).unwrap_err();
        assert!(matches!(e, Error::ValuesMismatch { expected: true }), "{e}");
        // a key buffer shorter than n keys
        let cfg = config(KeyType::U64, ValueType::None, Order::Ascending, None);
        let e = check_on_gpu(ctx, &cfg, true, &keys, None, n).unwrap_err();
        assert!(matches!(e, Error::BufferTooSmall { .. }), "{e}");
        // an empty bit range
        let cfg = config(
            KeyType::U32,
            ValueType::None,
            Order::Ascending,
            Some((5, 5)),
        );
        assert!(matches!(
            SortChecker::new(ctx, &cfg, false),
            Err(Error::InvalidBitRange { .. })
        ));
    });
}
