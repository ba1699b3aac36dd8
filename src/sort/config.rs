//! What a sorter sorts and how: [`SortConfig`]. A leaf of the sort front end (the backends read it, and it
//! names nothing of theirs).

use super::algorithm::SortAlgorithm;
use super::types::{KeyType, Order, ValueType};

/// The capacity a [`SortConfig`] prepares for by default: 2^20 keys.
pub const DEFAULT_MAX_N: u64 = 1 << 20;

/// What a [`Sorter`](super::Sorter) sorts and how. Build it with struct update syntax over the default:
/// `SortConfig { key: KeyType::F32, value: ValueType::U32, max_n: 1 << 22, ..Default::default() }`.
///
/// Stability: every algorithm but [`SortAlgorithm::Bitonic`] and [`SortAlgorithm::Quicksort`] is stable
/// (equal keys keep their input order, in both orders), and [`SortAlgorithm::Auto`] only picks stable ones.
/// With [`SortConfig::stable`] set, a configuration naming an unstable algorithm is refused by
/// [`Sorter::new`](super::Sorter::new) with [`crate::Error::NotStable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortConfig {
    /// The key type. Default [`KeyType::U32`].
    pub key: KeyType,
    /// The value carried with each key ([`ValueType::None`]: keys only). Default none.
    pub value: ValueType,
    /// Ascending or descending. Default ascending.
    pub order: Order,
    /// Sort on bits `[lo, hi)` of the transformed key only (`None`: all bits). Needs `lo < hi <= key bits`
    /// ([`crate::Error::InvalidBitRange`]). The transform makes the unsigned order of the bits the key order
    /// (signed keys' sign bit flipped, floats in totalOrder, all bits inverted for descending), as CUB's
    /// begin_bit/end_bit. Default `None`.
    pub bits: Option<(u32, u32)>,
    /// The algorithm, or [`SortAlgorithm::Auto`] (the default): the device's policy picks per size.
    pub algorithm: SortAlgorithm,
    /// Require a stable sort: an unstable algorithm is refused when the sorter is made. Default `false` (Auto
    /// is stable either way).
    pub stable: bool,
    /// The most keys one sort of this sorter takes (host n, or the capacity of a GPU-side count): pipelines are
    /// built for every size up to it when the sorter is created, and larger sorts are rejected with
    /// [`crate::Error::CountOverCapacity`]; an algorithm named here that cannot sort this many keys is refused
    /// when the sorter is made ([`crate::Error::AlgorithmLimit`]). Default [`DEFAULT_MAX_N`] (2^20); the host
    /// forms use the slice's length.
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
