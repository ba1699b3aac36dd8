//! The sort's value types and their order: key, value and order types, the key traits of the host forms, the
//! order-preserving key transforms (the Rust twin of `glsl/include/keys.glsl`) and the CPU reference sort the
//! tests compare against. A leaf module: it depends on nothing else in the crate, and every sort backend uses it.
//!
//! A key's transformed bits order like the key: unsigned keys unchanged, signed keys with the sign bit flipped,
//! floats in IEEE 754 totalOrder (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN; negative -> all bits
//! flipped, positive -> sign bit set). Descending order inverts every transformed bit (equal keys keep their
//! input order). A bit range `[lo, hi)` selects bits of the transformed key, as CUB's begin_bit/end_bit do.

/// The type of the sort keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl KeyType {
    pub const ALL: [KeyType; 6] = [
        KeyType::U32,
        KeyType::I32,
        KeyType::F32,
        KeyType::U64,
        KeyType::I64,
        KeyType::F64,
    ];
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
    /// Bytes per key.
    pub fn bytes(self) -> u32 {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            _ => 8,
        }
    }
    /// Bits per key.
    pub fn bits(self) -> u32 {
        self.bytes() * 8
    }
    /// The shaders' key kind (keys.glsl KEY_KIND_*).
    pub(crate) fn kind(self) -> u32 {
        self as u32
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
    pub const ALL: [ValueType; 3] = [ValueType::None, ValueType::U32, ValueType::U64];
    pub fn name(self) -> &'static str {
        match self {
            ValueType::None => "none",
            ValueType::U32 => "u32",
            ValueType::U64 => "u64",
        }
    }
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
    #[default]
    Ascending,
    Descending,
}

impl Order {
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
    const TYPE: KeyType;
    /// The key's raw bits (32-bit keys in the low word).
    fn raw_bits(&self) -> u64;
}

/// A value type the sort carries.
pub trait SortValue: bytemuck::Pod {
    const TYPE: ValueType;
}

macro_rules! sort_key {
    ($t:ty, $k:ident, $conv:expr) => {
        impl SortKey for $t {
            const TYPE: KeyType = KeyType::$k;
            fn raw_bits(&self) -> u64 {
                $conv(*self)
            }
        }
    };
}
sort_key!(u32, U32, |x: u32| x as u64);
sort_key!(i32, I32, |x: i32| x as u32 as u64);
sort_key!(f32, F32, |x: f32| x.to_bits() as u64);
sort_key!(u64, U64, |x: u64| x);
sort_key!(i64, I64, |x: i64| x as u64);
sort_key!(f64, F64, |x: f64| x.to_bits());

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

/// The transformed (order-preserving) bits of a key given as raw bits (32-bit keys in the low word).
pub fn transform(kind: KeyType, raw: u64, order: Order) -> u64 {
    let t = match kind {
        KeyType::U32 => raw & 0xffff_ffff,
        KeyType::I32 => (raw ^ 0x8000_0000) & 0xffff_ffff,
        KeyType::F32 => {
            let x = raw as u32;
            (if x & 0x8000_0000 != 0 {
                !x
            } else {
                x | 0x8000_0000
            }) as u64
        }
        KeyType::U64 => raw,
        KeyType::I64 => raw ^ (1u64 << 63),
        KeyType::F64 => {
            if raw & (1u64 << 63) != 0 {
                !raw
            } else {
                raw | (1u64 << 63)
            }
        }
    };
    let t = match order {
        Order::Ascending => t,
        Order::Descending => !t,
    };
    if kind.bytes() == 4 {
        t & 0xffff_ffff
    } else {
        t
    }
}

/// The part of a transformed key the sort orders by: bits `[lo, hi)`.
pub fn sort_bits(kind: KeyType, raw: u64, order: Order, lo: u32, hi: u32) -> u64 {
    let t = transform(kind, raw, order) >> lo;
    let w = hi - lo;
    if w >= 64 {
        t
    } else {
        t & ((1u64 << w) - 1)
    }
}

/// A stable sort permutation of keys given as raw bits: `perm[i]` is the input index of output element i.
pub fn reference_permutation(
    kind: KeyType,
    raw: &[u64],
    order: Order,
    bits: Option<(u32, u32)>,
) -> Vec<usize> {
    let (lo, hi) = bits.unwrap_or((0, kind.bits()));
    let k: Vec<u64> = raw
        .iter()
        .map(|&r| sort_bits(kind, r, order, lo, hi))
        .collect();
    let mut perm: Vec<usize> = (0..raw.len()).collect();
    perm.sort_by_key(|&i| k[i]);
    perm
}

/// The CPU reference: a stable sort of `keys` (and `values`, when given) by the transformed key bits, as the GPU
/// sort does for `order` and `bits`.
pub fn cpu_sort_reference<K: SortKey, V: Copy>(
    keys: &mut [K],
    values: Option<&mut [V]>,
    order: Order,
    bits: Option<(u32, u32)>,
) {
    let raw: Vec<u64> = keys.iter().map(|k| k.raw_bits()).collect();
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
