//! What a sorter sorts and how: [`SortConfig`]. A leaf of the sort front end (the backends read it, and it
//! names nothing of theirs).

use super::algorithm::SortAlgorithm;
use super::types::{KeyType, Order, ValueType};

/// The capacity a [`SortConfig`] prepares for by default: 2^20 keys.
pub const DEFAULT_MAX_N: u64 = 1 << 20;

/// What a [`Sorter`] sorts and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortConfig {
    pub key: KeyType,
    pub value: ValueType,
    pub order: Order,
    /// Sort on bits `[lo, hi)` of the transformed key only (None: all bits). Needs lo < hi <= key bits.
    pub bits: Option<(u32, u32)>,
    pub algorithm: SortAlgorithm,
    /// The most keys one sort of this sorter takes (host n, or the capacity of a GPU-side count): pipelines are
    /// built for every size up to it when the sorter is created, and larger sorts are rejected with
    /// [`crate::Error::CountOverCapacity`]. Default [`DEFAULT_MAX_N`]; the host forms use the slice's length.
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
            max_n: DEFAULT_MAX_N,
        }
    }
}
