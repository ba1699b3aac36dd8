//! Key, value and order types, the key traits of the host forms, the order-preserving key transforms (the Rust
//! twin of `glsl/include/keys.glsl`) and the CPU reference sort. Transformed bits order like the key: signed
//! keys' sign bit flipped, floats in IEEE 754 totalOrder (negative: all bits flipped, positive: sign bit set);
//! descending inverts every bit. A bit range `[lo, hi)` selects bits of the transformed key.

/// The type of the sort keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// Rust `u32`.
    U32,
    /// Rust `i32` (two's complement order).
    I32,
    /// Rust `f32` (IEEE 754 totalOrder: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`).
    F32,
    /// Rust `u64`.
    U64,
    /// Rust `i64`.
    I64,
    /// Rust `f64` (IEEE 754 totalOrder, as [`KeyType::F32`]).
    F64,
    /// Rust `u128` (four u32 words, lowest first); not taken by the radix sorts
    /// ([`crate::Error::UnsupportedAlgorithm`]).
    U128,
}

impl KeyType {
    /// Every key type.
    pub const ALL: [KeyType; 7] = {
        let w = Self::WORD_KEYS;
        [w[0], w[1], w[2], w[3], w[4], w[5], KeyType::U128]
    };
    /// The key types of at most 64 bits (what every sort family takes).
    pub const WORD_KEYS: [KeyType; 6] = [
        KeyType::U32,
        KeyType::I32,
        KeyType::F32,
        KeyType::U64,
        KeyType::I64,
        KeyType::F64,
    ];

    /// The Rust type's name (`"u32"`, `"f64"`, `"u128"`).
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
            KeyType::U128 => "u128",
        }
    }

    /// The key type [`KeyType::name`] names.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Bytes per key.
    pub fn bytes(self) -> u32 {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U128 => 16,
            _ => 8,
        }
    }
    /// Bits per key.
    pub fn bits(self) -> u32 {
        self.bytes() * 8
    }
    /// 32-bit words per key (1, 2 or 4).
    pub fn words(self) -> u32 {
        self.bytes() / 4
    }
    /// Whether the key is a float (IEEE 754 totalOrder).
    pub fn is_float(self) -> bool {
        matches!(self, KeyType::F32 | KeyType::F64)
    }
    /// The shaders' key kind (keys.glsl `KEY_KIND_*`, items.glsl `KEY_KIND_U128`).
    pub(crate) fn kind(self) -> u32 {
        use crate::shaders::include::{items, keys};
        match self {
            KeyType::U32 => keys::KEY_KIND_U32,
            KeyType::I32 => keys::KEY_KIND_I32,
            KeyType::F32 => keys::KEY_KIND_F32,
            KeyType::U64 => keys::KEY_KIND_U64,
            KeyType::I64 => keys::KEY_KIND_I64,
            KeyType::F64 => keys::KEY_KIND_F64,
            KeyType::U128 => items::KEY_KIND_U128,
        }
    }
}

/// The type of the values carried with the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Keys only.
    None,
    /// 4 bytes per key (any 4-byte type).
    U32,
    /// 8 bytes per key (any 8-byte type).
    U64,
}

impl ValueType {
    /// Every value type.
    pub const ALL: [ValueType; 3] = [ValueType::None, ValueType::U32, ValueType::U64];

    /// `"none"`, `"u32"` or `"u64"`.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::None => "none",
            ValueType::U32 => "u32",
            ValueType::U64 => "u64",
        }
    }

    /// The value type [`ValueType::name`] names.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Bytes per value (0 for none).
    pub fn bytes(self) -> u32 {
        match self {
            ValueType::None => 0,
            ValueType::U32 => 4,
            ValueType::U64 => 8,
        }
    }
}

/// Sort order. Both are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Smallest key first (the default).
    #[default]
    Ascending,
    /// Largest key first; equal keys still keep their input order in a stable sort.
    Descending,
}

impl Order {
    /// Both orders.
    pub const ALL: [Order; 2] = [Order::Ascending, Order::Descending];
    /// "asc" or "desc".
    pub fn name(self) -> &'static str {
        match self {
            Order::Ascending => "asc",
            Order::Descending => "desc",
        }
    }
    /// Accepts "asc"/"ascending" and "desc"/"descending".
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "asc" | "ascending" => Some(Order::Ascending),
            "desc" | "descending" => Some(Order::Descending),
            _ => None,
        }
    }
}

/// A key type the sort handles.
pub trait SortKey: bytemuck::Pod {
    /// The [`KeyType`] of this Rust type.
    const TYPE: KeyType;
    /// The key's raw bits (narrower keys in the low bits).
    fn raw_bits(&self) -> u128;
}

/// A value type the sort carries.
pub trait SortValue: bytemuck::Pod {
    /// The [`ValueType`] of this Rust type.
    const TYPE: ValueType;
}

macro_rules! sort_key {
    ($t:ty, $k:ident, $conv:expr) => {
        impl SortKey for $t {
            const TYPE: KeyType = KeyType::$k;
            fn raw_bits(&self) -> u128 {
                $conv(*self)
            }
        }
    };
}
sort_key!(u32, U32, |x: u32| x as u128);
sort_key!(i32, I32, |x: i32| x as u32 as u128);
sort_key!(f32, F32, |x: f32| x.to_bits() as u128);
sort_key!(u64, U64, |x: u64| x as u128);
sort_key!(i64, I64, |x: i64| x as u64 as u128);
sort_key!(f64, F64, |x: f64| x.to_bits() as u128);
sort_key!(u128, U128, |x: u128| x);

macro_rules! sort_value {
    ($t:ty, $v:ident) => {
        impl SortValue for $t {
            const TYPE: ValueType = ValueType::$v;
        }
    };
}
sort_value!(u32, U32);
sort_value!(i32, U32);
sort_value!(f32, U32);
sort_value!(u64, U64);
sort_value!(i64, U64);
sort_value!(f64, U64);

/// The transformed (order-preserving) bits of a key given as raw bits (narrower keys in the low bits).
pub fn transform(kind: KeyType, raw: u128, order: Order) -> u128 {
    let w = raw as u64;
    let t: u128 = match kind {
        KeyType::U32 => (w & 0xffff_ffff) as u128,
        KeyType::I32 => ((w ^ 0x8000_0000) & 0xffff_ffff) as u128,
        KeyType::F32 => {
            let x = w as u32;
            (if x & 0x8000_0000 != 0 {
                !x
            } else {
                x | 0x8000_0000
            }) as u128
        }
        KeyType::U64 => w as u128,
        KeyType::I64 => (w ^ (1u64 << 63)) as u128,
        KeyType::F64 => {
            (if w & (1u64 << 63) != 0 {
                !w
            } else {
                w | (1u64 << 63)
            }) as u128
        }
        KeyType::U128 => raw,
    };
    let t = match order {
        Order::Ascending => t,
        Order::Descending => !t,
    };
    match kind.bits() {
        128 => t,
        b => t & ((1u128 << b) - 1),
    }
}

/// The part of a transformed key the sort orders by: bits `[lo, hi)`.
pub fn sort_bits(kind: KeyType, raw: u128, order: Order, lo: u32, hi: u32) -> u128 {
    let t = transform(kind, raw, order) >> lo;
    let w = hi - lo;
    if w >= 128 {
        t
    } else {
        t & ((1u128 << w) - 1)
    }
}

/// A stable sort permutation of keys given as raw bits (`u64` or `u128`; narrower keys in the low bits):
/// `perm[i]` is the input index of output element i.
pub fn reference_permutation<R: Copy + Into<u128>>(
    kind: KeyType,
    raw: &[R],
    order: Order,
    bits: Option<(u32, u32)>,
) -> Vec<usize> {
    let (lo, hi) = bits.unwrap_or((0, kind.bits()));
    let k: Vec<u128> = raw
        .iter()
        .map(|&r| sort_bits(kind, r.into(), order, lo, hi))
        .collect();
    let mut perm: Vec<usize> = (0..raw.len()).collect();
    perm.sort_by_key(|&i| k[i]);
    perm
}

/// The CPU reference: a stable sort of `keys` (and `values`) by the transformed key bits, as the GPU sorts.
pub fn cpu_sort_reference<K: SortKey, V: Copy>(
    keys: &mut [K],
    values: Option<&mut [V]>,
    order: Order,
    bits: Option<(u32, u32)>,
) {
    let raw: Vec<u128> = keys.iter().map(|k| k.raw_bits()).collect();
    let perm = reference_permutation(K::TYPE, &raw, order, bits);
    let old: Vec<K> = keys.to_vec();
    for (i, &p) in perm.iter().enumerate() {
        keys[i] = old[p];
    }
    if let Some(v) = values {
        let old: Vec<V> = v.to_vec();
        for (i, &p) in perm.iter().enumerate() {
            v[i] = old[p];
        }
    }
}
