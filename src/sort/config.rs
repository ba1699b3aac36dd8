//! What a sorter sorts and how: [`SortConfig`] (a leaf: it names nothing of the backends).

use super::algorithm::SortAlgorithm;
use super::types::{KeyType, Order, ValueType};

/// The capacity a [`SortConfig`] prepares for by default: 2^20 keys.
pub const DEFAULT_MAX_N: u64 = 1 << 20;

/// What a [`Sorter`](super::Sorter) sorts and how, with struct update syntax over the default:
/// `SortConfig { key: KeyType::F32, value: ValueType::U32, max_n: 1 << 22, ..Default::default() }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortConfig {
    /// The key type. Default [`KeyType::U32`].
    pub key: KeyType,
    /// The value carried with each key ([`ValueType::None`]: keys only). Default none.
    pub value: ValueType,
    /// Ascending or descending. Default ascending.
    pub order: Order,
    /// Sort on bits `[lo, hi)` of the transformed key only, as CUB's begin_bit/end_bit (default `None`: all
    /// bits); `lo < hi <= key bits` ([`crate::Error::InvalidBitRange`]).
    pub bits: Option<(u32, u32)>,
    /// The algorithm, or [`SortAlgorithm::Auto`] (the default): the device's policy picks per size.
    pub algorithm: SortAlgorithm,
    /// Refuse an unstable algorithm ([`crate::Error::NotStable`]). Default `false` (Auto is stable either way).
    pub stable: bool,
    /// The most keys one sort takes (host n, or a GPU-side count's capacity); pipelines are built up to it.
    /// Errors: [`crate::Error::CountOverCapacity`] above it, [`crate::Error::AlgorithmLimit`] for an algorithm
    /// that cannot sort it. Default [`DEFAULT_MAX_N`]; the host forms use the slice's length.
    pub max_n: u64,
}

impl Default for SortConfig {
    fn default() -> Self {
        Self {
            key: KeyType::U32,
            value: ValueType::None,
            order: Order::Ascending,
            bits: None,
            algorithm: SortAlgorithm::Auto,
            stable: false,
            max_n: DEFAULT_MAX_N,
        }
    }
}
