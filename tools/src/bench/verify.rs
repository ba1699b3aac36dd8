//! CPU verification of GPU results, shared by `vksort ... --check`, the benchmark (which never reports a result
//! it did not verify) and the tests. Every check returns the first bad output index and what is wrong there.
//!
//! Sort semantics checked: ascending (or descending) order of the order keys (see [`super::data`]) restricted to
//! the bit range `[lo, hi)` when one is given; the output a permutation of the input; with values, pairs moved
//! together and, for stable sorts, equal keys in their input order (an unstable sort, such as the bitonic sort,
//! may leave equal keys in any order, their values with them).

use super::data::{par_map, Column, Elem, ElemType};
use crate::with_column;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The first bad element of an output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Output index of the first bad element.
    pub index: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad output at index {}: {}", self.index, self.message)
    }
}

impl std::error::Error for Mismatch {}

fn bad(index: usize, message: impl Into<String>) -> Mismatch {
    Mismatch {
        index,
        message: message.into(),
    }
}

/// What a sort promised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortSpec {
    pub descending: bool,
    /// Only bits `[lo, hi)` of the order key take part in the comparison.
    pub bits: Option<(u32, u32)>,
    /// The sort does not promise to keep equal keys in input order (values still travel with their keys).
    pub unstable: bool,
}

impl SortSpec {
    fn key(&self, col: &Column, i: usize) -> u128 {
        let k = col.order_key(i);
        match self.bits {
            Some((lo, hi)) if hi > lo => {
                let w = hi - lo;
                let shifted = if lo >= 128 { 0 } else { k >> lo };
                if w >= 128 {
                    shifted
                } else {
                    shifted & ((1u128 << w) - 1)
                }
            }
            Some(_) => 0,
            None => k,
        }
    }
    fn out_of_order(&self, prev: u128, next: u128) -> bool {
        if self.descending {
            prev < next
        } else {
            prev > next
        }
    }
}

/// Runs `f` over consecutive ranges covering `0..n` on the host's cores ([`par_map`]) and returns the first error
/// by index: the linear checks of 2^26+ elements took seconds on one thread, which made a full bench sweep
/// mostly waiting for them.
fn par_check(
    n: usize,
    f: impl Fn(std::ops::Range<usize>) -> Result<(), Mismatch> + Sync,
) -> Result<(), Mismatch> {
    par_map(n, f)
        .into_iter()
        .filter_map(|r| r.err())
        .min_by_key(|m| m.index)
        .map_or(Ok(()), Err)
}

/// Checks that the sequence of keys is ordered; returns the first index that breaks the order.
pub fn check_sorted(output: &Column, spec: &SortSpec) -> Result<(), Mismatch> {
    let unsorted = |i: usize| {
        bad(
            i,
            format!(
                "not sorted: {} at index {} comes before {}",
                output.format(i - 1),
                i - 1,
                output.format(i)
            ),
        )
    };
    // Whole keys: the typed elements' order keys (no per-element dispatch on the column).
    fn typed<T: Elem>(
        v: &[T],
        ty: ElemType,
        desc: bool,
        unsorted: impl Fn(usize) -> Mismatch + Sync,
    ) -> Result<(), Mismatch> {
        par_check(v.len(), |r| {
            for i in r.start.max(1)..r.end {
                let (a, b) = (ty.order_key(v[i - 1].raw()), ty.order_key(v[i].raw()));
                if if desc { a < b } else { a > b } {
                    return Err(unsorted(i));
                }
            }
            Ok(())
        })
    }
    if spec.bits.is_none() {
        let (ty, desc) = (output.ty(), spec.descending);
        return with_column!(output, v => typed(v, ty, desc, unsorted));
    }
    par_check(output.len(), |r| {
        for i in r.start.max(1)..r.end {
            if spec.out_of_order(spec.key(output, i - 1), spec.key(output, i)) {
                return Err(unsorted(i));
            }
        }
        Ok(())
    })
}

/// The input indices in the order a stable sort by `spec` puts them.
fn stable_order(input: &Column, spec: &SortSpec) -> Vec<usize> {
    let keys: Vec<u128> = (0..input.len()).map(|i| spec.key(input, i)).collect();
    let mut idx: Vec<usize> = (0..input.len()).collect();
    if spec.descending {
        idx.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
    } else {
        idx.sort_by_key(|&a| keys[a]);
    }
    idx
}

/// Exact check of a sort (keys, or keys and values): sorted, a permutation of the input, and with values,
/// every pair intact and (unless `spec.unstable`) equal keys in their input order. O(n log n) on the host.
pub fn check_sort(
    input: &Column,
    output: &Column,
    values: Option<(&Column, &Column)>,
    spec: &SortSpec,
) -> Result<(), Mismatch> {
    if input.ty() != output.ty() {
        return Err(bad(0, "output key type differs from the input's"));
    }
    if input.len() != output.len() {
        return Err(bad(
            input.len().min(output.len()),
            format!("{} keys in, {} out", input.len(), output.len()),
        ));
    }
    if let Some((vin, vout)) = values {
        if vin.len() != input.len() || vout.len() != input.len() {
            return Err(bad(
                vin.len().min(vout.len()),
                format!(
                    "{} keys but {} input values and {} output values",
                    input.len(),
                    vin.len(),
                    vout.len()
                ),
            ));
        }
    }
    check_sorted(output, spec)?;
    match values {
        None => {
            // keys only: a permutation of the input (the order among keys equal in the compared bits is free)
            let mut a: Vec<u128> = (0..input.len()).map(|i| input.raw_bits(i)).collect();
            let mut b: Vec<u128> = (0..output.len()).map(|i| output.raw_bits(i)).collect();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                let order = stable_order(input, spec);
                let i = (0..output.len())
                    .find(|&i| output.raw_bits(i) != input.raw_bits(order[i]))
                    .unwrap_or(0);
                return Err(bad(
                    i,
                    format!(
                        "not a permutation of the input: {} where the sorted input has {}",
                        output.format(i),
                        input.format(order[i])
                    ),
                ));
            }
        }
        Some((vin, vout)) if spec.unstable => {
            // pairs intact: the output's (key, value) pairs are the input's, as a multiset
            let pairs = |k: &Column, v: &Column| {
                let mut p: Vec<(u128, u128)> = (0..k.len())
                    .map(|i| (k.raw_bits(i), v.raw_bits(i)))
                    .collect();
                p.sort_unstable();
                p
            };
            if pairs(input, vin) != pairs(output, vout) {
                let inp = pairs(input, vin);
                let i = (0..output.len())
                    .find(|&i| {
                        inp.binary_search(&(output.raw_bits(i), vout.raw_bits(i)))
                            .is_err()
                    })
                    .unwrap_or(0);
                return Err(bad(
                    i,
                    format!(
                        "key {} with value {} is not a (key, value) pair of the input (pairs broken or not a \
                         permutation)",
                        output.format(i),
                        vout.format(i)
                    ),
                ));
            }
        }
        Some((vin, vout)) => {
            let order = stable_order(input, spec);
            for (i, &src) in order.iter().enumerate() {
                if output.raw_bits(i) != input.raw_bits(src) {
                    return Err(bad(
                        i,
                        format!(
                            "not a permutation of the input: key {} where the stably sorted input has {}",
                            output.format(i),
                            input.format(src)
                        ),
                    ));
                }
                if vout.raw_bits(i) != vin.raw_bits(src) {
                    return Err(bad(
                        i,
                        format!(
                            "value {} with key {} where the stably sorted input has value {} (pairs broken or \
                             equal keys out of input order)",
                            vout.format(i),
                            output.format(i),
                            vin.format(src)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Linear-time check of a sort for large inputs. With values that are the input index (`0..n`, as the CLI's
/// `--random` and the benchmark give): every value names a distinct input element whose key is the output key,
/// and (unless `spec.unstable`) equal keys have increasing values; the pairs are compared by a multiset hash
/// (streaming), and only when that differs by the exact per-element check (random reads of the input), which
/// names the first fault. Keys only, the permutation check is a multiset hash. A wrong result passes a hash
/// with probability about 2^-64.
pub fn check_sort_fast(
    input: &Column,
    output: &Column,
    index_values: Option<&Column>,
    spec: &SortSpec,
) -> Result<(), Mismatch> {
    let n = input.len();
    if output.len() != n || output.ty() != input.ty() {
        return Err(bad(n.min(output.len()), "output length or type differs"));
    }
    check_sorted(output, spec)?;
    match index_values {
        Some(v) => {
            if v.len() != n {
                return Err(bad(v.len().min(n), "value count differs from key count"));
            }
            // Linear and streaming first: a stable sort's equal keys carry rising values, and the output's
            // (key, value) pairs hash like the input's (key, index) pairs, which are all distinct, so a match
            // means the output holds each input element once with its index (a wrong result passes with
            // probability about 2^-64). A mismatch runs the exact check below, which names the first fault.
            let unstable = spec.unstable;
            if !unstable {
                par_check(n, |r| {
                    for i in r.start.max(1)..r.end {
                        let (pv, src) = (v.raw_bits(i - 1), v.raw_bits(i));
                        if pv >= src && spec.key(output, i - 1) == spec.key(output, i) {
                            if pv == src {
                                return Err(bad(
                                    i,
                                    format!(
                                        "value {src} is not a distinct input index (values must be 0..{n})"
                                    ),
                                ));
                            }
                            return Err(bad(
                                i,
                                format!("equal keys out of input order (value {pv} before {src})"),
                            ));
                        }
                    }
                    Ok(())
                })?;
            }
            if pair_hash(input, None) == pair_hash(output, Some(v)) {
                return Ok(());
            }
            // The exact check: each input index once. A stable sort needs no record of them: a key travels with
            // its input index (checked below), so one index twice would mean one key twice, which the order puts
            // in one run of equal keys, where the indices rise strictly (checked above). An unstable sort's: a
            // bit per input index, set by whichever range meets it first.
            let seen: Vec<AtomicU64> = if unstable {
                (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect()
            } else {
                Vec::new()
            };
            par_check(n, |r| {
                for i in r {
                    let src = v.raw_bits(i);
                    let distinct = |src: u128| {
                        bad(
                            i,
                            format!(
                                "value {src} is not a distinct input index (values must be 0..{n})"
                            ),
                        )
                    };
                    let first = src < n as u128
                        && (!unstable || {
                            let bit = 1u64 << (src % 64);
                            seen[(src / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
                        });
                    if !first {
                        return Err(distinct(src));
                    }
                    if output.raw_bits(i) != input.raw_bits(src as usize) {
                        return Err(bad(
                            i,
                            format!(
                                "key {} travelled with value {} but input {} has key {}",
                                output.format(i),
                                src,
                                src,
                                input.format(src as usize)
                            ),
                        ));
                    }
                }
                Ok(())
            })?;
            return Err(bad(
                0,
                "the (key, value) pairs are not the input's (pair hash differs, no single fault found)",
            ));
        }
        None => {
            if multiset_hash(input) != multiset_hash(output) {
                return Err(bad(
                    0,
                    "not a permutation of the input (multiset hash differs; run an exact check to locate)",
                ));
            }
        }
    }
    Ok(())
}

/// An order-independent hash of (key, value) pairs: the value column's raw elements, or with `values` None each
/// key's index (the input of a sort whose values are its input indices).
pub fn pair_hash(keys: &Column, values: Option<&Column>) -> (u64, u64) {
    fn fold<K: Elem, V: Elem>(k: &[K], v: Option<&[V]>, first: usize) -> (u64, u64) {
        let mut s1 = 0u64;
        let mut s2 = 0u64;
        for (j, &x) in k.iter().enumerate() {
            let r = x.raw();
            let val = v.map_or((first + j) as u128, |v| v[j].raw());
            let hk = super::dist::hash(0x5eed_0001 ^ (r >> 64) as u64, r as u64);
            let h = super::dist::hash(hk ^ (val >> 64) as u64, val as u64);
            s1 = s1.wrapping_add(h);
            s2 ^= h.rotate_left(29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (s1, s2)
    }
    par_map(keys.len(), |r| {
        with_column!(keys, k => match values {
            Some(vc) => with_column!(vc, v => fold(&k[r.clone()], Some(&v[r.clone()]), r.start)),
            None => fold::<_, u32>(&k[r.clone()], None, r.start),
        })
    })
    .into_iter()
    .fold((0, 0), |(a1, a2), (b1, b2)| (a1.wrapping_add(b1), a2 ^ b2))
}

/// An order-independent hash of the raw elements.
pub fn multiset_hash(col: &Column) -> (u64, u64) {
    let zero_high = super::dist::hash(0x8765_4321, 0);
    fn fold<T: Elem>(v: &[T], zero_high: u64) -> (u64, u64) {
        let mut s1 = 0u64;
        let mut s2 = 0u64;
        for &x in v {
            let r = x.raw();
            let high = match (r >> 64) as u64 {
                0 => zero_high,
                h => super::dist::hash(0x8765_4321, h),
            };
            let h = super::dist::hash(0x1234_5678 ^ high, r as u64);
            s1 = s1.wrapping_add(h);
            s2 ^= h.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (s1, s2)
    }
    // Sums and xors: the same hash whatever the split.
    par_map(
        col.len(),
        |r| with_column!(col, v => fold(&v[r], zero_high)),
    )
    .into_iter()
    .fold((0, 0), |(a1, a2), (b1, b2)| (a1.wrapping_add(b1), a2 ^ b2))
}

/// Exact check of a prefix sum (wrapping, of u32 or u64 elements).
pub fn check_scan(input: &Column, output: &Column, inclusive: bool) -> Result<(), Mismatch> {
    if input.len() != output.len() || input.ty() != output.ty() {
        return Err(bad(
            input.len().min(output.len()),
            format!("{} elements in, {} out", input.len(), output.len()),
        ));
    }
    let mask = input.ty().mask();
    let mut acc = 0u128;
    for i in 0..input.len() {
        let x = input.raw_bits(i);
        let expect = if inclusive { acc.wrapping_add(x) } else { acc };
        acc = acc.wrapping_add(x);
        let expect = expect & mask;
        if output.raw_bits(i) != expect {
            return Err(bad(
                i,
                format!(
                    "prefix sum is {} where {} is expected",
                    output.format(i),
                    expect
                ),
            ));
        }
    }
    Ok(())
}

/// What a compaction keeps: the elements whose flag passes `pred`, or with no flags, those that pass it.
pub fn compact_expected(
    input: &Column,
    flags: Option<&Column>,
    pred: vksort::compact::Predicate,
) -> Column {
    let keep: Vec<u128> = (0..input.len())
        .filter(|&i| match flags {
            Some(f) => pred.test(f.raw_bits(i) as u32),
            None => pred.test(input.raw_bits(i) as u32),
        })
        .map(|i| input.raw_bits(i))
        .collect();
    Column::from_raw_bits(input.ty(), &keep)
}

/// Exact check of a compaction (order kept).
pub fn check_compact(
    input: &Column,
    flags: Option<&Column>,
    pred: vksort::compact::Predicate,
    output: &Column,
) -> Result<(), Mismatch> {
    let expected = compact_expected(input, flags, pred);
    for i in 0..expected.len().min(output.len()) {
        if expected.raw_bits(i) != output.raw_bits(i) {
            return Err(bad(
                i,
                format!(
                    "{} where {} is expected",
                    output.format(i),
                    expected.format(i)
                ),
            ));
        }
    }
    if expected.len() != output.len() {
        return Err(bad(
            expected.len().min(output.len()),
            format!(
                "{} elements kept, {} expected",
                output.len(),
                expected.len()
            ),
        ));
    }
    Ok(())
}

/// The CPU reduction (`sum` wrapping, `min`, `max`) of unsigned elements, as raw bits.
pub fn cpu_reduce(input: &Column, op: &str) -> u128 {
    let mask = input.ty().mask();
    let it = (0..input.len()).map(|i| input.raw_bits(i));
    match op {
        "min" => it.min().unwrap_or(mask),
        "max" => it.max().unwrap_or(0),
        _ => it.fold(0u128, |a, x| a.wrapping_add(x)) & mask,
    }
}
