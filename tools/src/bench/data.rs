//! Typed host arrays of every element type vksort handles (the CLI's files, the benchmark's inputs, the
//! verification functions' arguments), and the order-preserving unsigned image of each type.
//!
//! The order key ([`Column::order_key`]) is the unsigned integer whose unsigned order is the order vksort's
//! sorts give the type: unsigned integers (u128 too) unchanged, signed integers with the sign bit flipped, floats
//! with the sign bit flipped when positive and all bits flipped when negative (IEEE-754 total order: -NaN < -inf
//! < ... < -0.0 < +0.0 < ... < +inf < +NaN).
//!
//! Raw bits and order keys travel as `u128` (narrower types in the low bits, the rest zero), so one code path
//! serves keys of 32, 64 and 128 bits.

use serde::{Deserialize, Serialize};
use std::fmt;
use vksort::sort::{KeyType, ValueType};

/// An element type of keys, values, scan and compaction inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
    /// 128-bit unsigned integers (Rust `u128`, little-endian: 16 bytes, lowest first). Sort keys only.
    U128,
}

impl ElemType {
    pub const ALL: [ElemType; 7] = [
        ElemType::U32,
        ElemType::I32,
        ElemType::F32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F64,
        ElemType::U128,
    ];

    /// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `u128`.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::U64 => "u64",
            ElemType::I64 => "i64",
            ElemType::F64 => "f64",
            ElemType::U128 => "u128",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U128 => 16,
            _ => 8,
        }
    }

    /// Bits per element.
    pub fn bits(self) -> u32 {
        self.bytes() as u32 * 8
    }

    /// All ones in the element's width (`u128::MAX` for u128).
    pub fn mask(self) -> u128 {
        match self.bits() {
            128 => u128::MAX,
            b => (1u128 << b) - 1,
        }
    }

    /// The order key of the element whose raw bits are `raw` (see the module docs).
    pub fn order_key(self, raw: u128) -> u128 {
        match self {
            ElemType::U32 | ElemType::U64 | ElemType::U128 => raw,
            ElemType::I32 => raw ^ 0x8000_0000,
            ElemType::I64 => raw ^ (1 << 63),
            ElemType::F32 => {
                if raw & 0x8000_0000 != 0 {
                    !raw & 0xffff_ffff
                } else {
                    raw | 0x8000_0000
                }
            }
            ElemType::F64 => {
                if raw & (1 << 63) != 0 {
                    !raw & 0xffff_ffff_ffff_ffff
                } else {
                    raw | (1 << 63)
                }
            }
        }
    }

    /// The raw bits of the element whose order key is `key` (inverse of [`ElemType::order_key`]).
    pub fn from_order_key(self, key: u128) -> u128 {
        match self {
            ElemType::U32 | ElemType::U64 | ElemType::U128 => key,
            ElemType::I32 => key ^ 0x8000_0000,
            ElemType::I64 => key ^ (1 << 63),
            ElemType::F32 => {
                if key & 0x8000_0000 != 0 {
                    key & 0x7fff_ffff
                } else {
                    !key & 0xffff_ffff
                }
            }
            ElemType::F64 => {
                if key & (1 << 63) != 0 {
                    key & !(1 << 63)
                } else {
                    !key & 0xffff_ffff_ffff_ffff
                }
            }
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A typed host array.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    U128(Vec<u128>),
}

/// An element type of a [`Column`]: its raw bits, zero-extended (see [`Column::raw_bits`]).
pub trait Elem: Copy + Send + Sync {
    fn raw(self) -> u128;
}
macro_rules! impl_elem {
    ($($t:ty: $x:ident => $raw:expr),* $(,)?) => {
        $(impl Elem for $t {
            fn raw(self) -> u128 {
                let $x = self;
                $raw
            }
        })*
    };
}
impl_elem!(
    u32: x => x as u128,
    i32: x => x as u32 as u128,
    f32: x => x.to_bits() as u128,
    u64: x => x as u128,
    i64: x => x as u64 as u128,
    f64: x => x.to_bits() as u128,
    u128: x => x,
);

/// Runs `$body` with `$v` bound to the typed vector inside a [`Column`] (by reference or value as given).
#[macro_export]
macro_rules! with_column {
    ($col:expr, $v:ident => $body:expr) => {
        match $col {
            $crate::bench::data::Column::U32($v) => $body,
            $crate::bench::data::Column::I32($v) => $body,
            $crate::bench::data::Column::F32($v) => $body,
            $crate::bench::data::Column::U64($v) => $body,
            $crate::bench::data::Column::I64($v) => $body,
            $crate::bench::data::Column::F64($v) => $body,
            $crate::bench::data::Column::U128($v) => $body,
        }
    };
}

impl Column {
    /// An empty column of type `ty`.
    pub fn empty(ty: ElemType) -> Self {
        Self::from_raw_bits(ty, &[])
    }

    pub fn ty(&self) -> ElemType {
        match self {
            Column::U32(_) => ElemType::U32,
            Column::I32(_) => ElemType::I32,
            Column::F32(_) => ElemType::F32,
            Column::U64(_) => ElemType::U64,
            Column::I64(_) => ElemType::I64,
            Column::F64(_) => ElemType::F64,
            Column::U128(_) => ElemType::U128,
        }
    }

    pub fn len(&self) -> usize {
        with_column!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The little-endian bytes of the array.
    pub fn as_bytes(&self) -> &[u8] {
        with_column!(self, v => bytemuck::cast_slice(v.as_slice()))
    }

    /// `n` zero elements of type `ty`, their memory touched on every host thread (a fresh allocation's pages
    /// are faulted in on first write; one thread faulting in a GiB took about a second on the H200 host).
    pub fn zeroed(ty: ElemType, n: usize) -> Self {
        match ty {
            ElemType::U32 => Column::U32(par_generate(n, |_| 0)),
            ElemType::I32 => Column::I32(par_generate(n, |_| 0)),
            ElemType::F32 => Column::F32(par_generate(n, |_| 0.0)),
            ElemType::U64 => Column::U64(par_generate(n, |_| 0)),
            ElemType::I64 => Column::I64(par_generate(n, |_| 0)),
            ElemType::F64 => Column::F64(par_generate(n, |_| 0.0)),
            ElemType::U128 => Column::U128(par_generate(n, |_| 0)),
        }
    }

    /// The elements' little-endian bytes, writable.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        with_column!(self, v => bytemuck::cast_slice_mut(v.as_mut_slice()))
    }

    /// A column from little-endian bytes; fails when `bytes` is not a whole number of elements.
    pub fn from_bytes(ty: ElemType, bytes: &[u8]) -> Result<Self, String> {
        let size = ty.bytes();
        if bytes.len() % size != 0 {
            return Err(format!(
                "{} bytes is not a multiple of the {} size ({} bytes)",
                bytes.len(),
                ty.name(),
                size
            ));
        }
        let n = bytes.len() / size;
        fn fill<T: bytemuck::Pod>(n: usize, bytes: &[u8]) -> Vec<T> {
            let mut v = vec![T::zeroed(); n];
            bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(bytes);
            v
        }
        Ok(match ty {
            ElemType::U32 => Column::U32(fill(n, bytes)),
            ElemType::I32 => Column::I32(fill(n, bytes)),
            ElemType::F32 => Column::F32(fill(n, bytes)),
            ElemType::U64 => Column::U64(fill(n, bytes)),
            ElemType::I64 => Column::I64(fill(n, bytes)),
            ElemType::F64 => Column::F64(fill(n, bytes)),
            ElemType::U128 => Column::U128(fill(n, bytes)),
        })
    }

    /// A column from raw bit patterns (the low bits for narrower types).
    pub fn from_raw_bits(ty: ElemType, raw: &[u128]) -> Self {
        Self::from_fn(ty, raw.len(), |i| raw[i])
    }

    /// A column of `n` elements whose raw bits are `f(i)` (the low bits for narrower types), generated on all
    /// host cores for large `n`.
    pub fn from_fn(ty: ElemType, n: usize, f: impl Fn(usize) -> u128 + Sync) -> Self {
        match ty {
            ElemType::U32 => Column::U32(par_generate(n, |i| f(i) as u32)),
            ElemType::I32 => Column::I32(par_generate(n, |i| f(i) as u32 as i32)),
            ElemType::F32 => Column::F32(par_generate(n, |i| f32::from_bits(f(i) as u32))),
            ElemType::U64 => Column::U64(par_generate(n, |i| f(i) as u64)),
            ElemType::I64 => Column::I64(par_generate(n, |i| f(i) as u64 as i64)),
            ElemType::F64 => Column::F64(par_generate(n, |i| f64::from_bits(f(i) as u64))),
            ElemType::U128 => Column::U128(par_generate(n, f)),
        }
    }

    /// A column from order keys (see the module docs).
    pub fn from_order_keys(ty: ElemType, keys: &[u128]) -> Self {
        Self::from_fn(ty, keys.len(), |i| ty.from_order_key(keys[i]))
    }

    /// The raw bits of element `i` (zero-extended for narrower types).
    pub fn raw_bits(&self, i: usize) -> u128 {
        with_column!(self, v => v[i].raw())
    }

    /// The order key of element `i`.
    pub fn order_key(&self, i: usize) -> u128 {
        self.ty().order_key(self.raw_bits(i))
    }

    /// All order keys.
    pub fn order_keys(&self) -> Vec<u128> {
        (0..self.len()).map(|i| self.order_key(i)).collect()
    }

    /// Sorts the column by order key, ascending or descending (the CPU side of the `sorted` and `reverse`
    /// distributions).
    pub fn sort_by_order_key(&mut self, descending: bool) {
        let ty = self.ty();
        fn by_key<T: Elem>(v: &mut [T], ty: ElemType, descending: bool) {
            if descending {
                v.sort_unstable_by_key(|a| std::cmp::Reverse(ty.order_key(a.raw())));
            } else {
                v.sort_unstable_by_key(|a| ty.order_key(a.raw()));
            }
        }
        with_column!(self, v => by_key(v, ty, descending))
    }

    /// Element `i` as text (floats in Rust's shortest round-trip form).
    pub fn format(&self, i: usize) -> String {
        with_column!(self, v => v[i].to_string())
    }

    /// Parses one number per line (blank lines and lines starting with `#` ignored). Hex (`0x...`) is accepted
    /// for integer types.
    pub fn parse_text(ty: ElemType, text: &str) -> Result<Self, String> {
        let mut raw = Vec::new();
        for (lineno, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let bad = || {
                format!(
                    "line {}: `{}` is not a valid {}",
                    lineno + 1,
                    t.chars().take(40).collect::<String>(),
                    ty.name()
                )
            };
            let hex = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .map(|h| u128::from_str_radix(&h.replace('_', ""), 16));
            let fits = |x: &u128| *x <= ty.mask();
            let bits: Option<u128> = match ty {
                ElemType::U32 => match hex {
                    Some(h) => h.ok().filter(fits),
                    None => t.parse::<u32>().ok().map(|x| x as u128),
                },
                ElemType::I32 => match hex {
                    Some(h) => h.ok().filter(fits),
                    None => t.parse::<i32>().ok().map(|x| x as u32 as u128),
                },
                ElemType::U64 => match hex {
                    Some(h) => h.ok().filter(fits),
                    None => t.parse::<u64>().ok().map(|x| x as u128),
                },
                ElemType::I64 => match hex {
                    Some(h) => h.ok().filter(fits),
                    None => t.parse::<i64>().ok().map(|x| x as u64 as u128),
                },
                ElemType::U128 => match hex {
                    Some(h) => h.ok(),
                    None => t.parse::<u128>().ok(),
                },
                ElemType::F32 => t.parse::<f32>().ok().map(|x| x.to_bits() as u128),
                ElemType::F64 => t.parse::<f64>().ok().map(|x| x.to_bits() as u128),
            };
            raw.push(bits.ok_or_else(bad)?);
        }
        Ok(Self::from_raw_bits(ty, &raw))
    }

    /// Writes one number per line.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        with_column!(self, v => {
            for x in v.iter() {
                writeln!(w, "{x}")?;
            }
        });
        Ok(())
    }

    /// The identity index `0..n` as a column of `ty` (u32 or u64): the values the CLI and the benchmark give
    /// random keys, so that stability can be checked.
    pub fn index(ty: ElemType, n: usize) -> Self {
        match ty {
            ElemType::U64 => Column::U64(par_generate(n, |i| i as u64)),
            _ => Column::U32(par_generate(n, |i| i as u32)),
        }
    }
}

/// Generates `n` values of `f(i)` on all host cores (one thread below 2^16 elements).
pub fn par_generate<T: Copy + Default + Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let threads = par_threads(n);
    if threads == 1 {
        out.iter_mut().enumerate().for_each(|(i, x)| *x = f(i));
        return out;
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = f(c * chunk + j);
                }
            });
        }
    });
    out
}

/// `f` over consecutive ranges covering `0..n`, one per host core (up to 16; one range below 2^16
/// elements), the results in range order.
pub fn par_map<R: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> R + Sync) -> Vec<R> {
    let threads = par_threads(n);
    if threads == 1 {
        return vec![f(0..n)];
    }
    let step = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(step)
            .map(|a| {
                let f = &f;
                s.spawn(move || f(a..(a + step).min(n)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Threads for `n` elements of host work: every core (up to 16), one below 2^16 elements.
fn par_threads(n: usize) -> usize {
    if n < 1 << 16 {
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(16)
}

/// The library's key type of a column type (every column type is one).
pub fn key_type(key: ElemType) -> vksort::Result<KeyType> {
    KeyType::from_name(key.name())
        .ok_or_else(|| vksort::Error::InvalidArgument(format!("unknown key type {key}")))
}

/// The library's value type of an optional column type (u32, u64 or none).
pub fn value_type(value: Option<ElemType>) -> vksort::Result<ValueType> {
    match value {
        None => Ok(ValueType::None),
        Some(ElemType::U32) => Ok(ValueType::U32),
        Some(ElemType::U64) => Ok(ValueType::U64),
        Some(v) => Err(vksort::Error::InvalidArgument(format!(
            "values of type {v} are not supported (u32, u64)"
        ))),
    }
}
