//! Auto's choice across families with the default selector ([`super::Selector::Policy`]): the radix policy's
//! choice, except in the size ranges of the device class's crossover table, where another family measured
//! faster for the key and value widths (docs/tuning.md, "Auto's crossover tables"). Crossovers apply only to
//! sorts on every key bit, and not to sorters with tuning overrides.

use super::algorithm::SortAlgorithm;
use super::config::SortConfig;
use crate::gpu::DeviceCaps;

/// A size range in which Auto sorts with `algorithm` instead of the radix family's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossover {
    /// Key bytes (4, 8 or 16) and value bytes (0, 4 or 8) the range applies to.
    pub key_bytes: u32,
    pub value_bytes: u32,
    /// Sizes (keys; the capacity with a GPU-side count) from `min_n` to `max_n`, both included.
    pub min_n: u64,
    pub max_n: u64,
    /// A stable algorithm (Auto keeps the sort's stability promise).
    pub algorithm: SortAlgorithm,
}

/// The device class's crossover table (empty where none was measured).
pub fn crossovers(caps: &DeviceCaps) -> &'static [Crossover] {
    crate::tuning::for_class(caps.class).crossovers
}

/// The crossovers that apply to `config` (its widths, sorting on every key bit).
pub(crate) fn for_config<'a>(
    table: &'a [Crossover],
    config: &'a SortConfig,
) -> impl Iterator<Item = &'a Crossover> + 'a {
    let full = match config.bits {
        None => true,
        Some((lo, hi)) => lo == 0 && hi >= config.key.bits(),
    };
    table.iter().filter(move |c| {
        full && c.key_bytes == config.key.bytes() && c.value_bytes == config.value.bytes()
    })
}

/// The algorithm a crossover gives a sort of `n` keys of `config`, if any.
pub(crate) fn choice(table: &[Crossover], config: &SortConfig, n: u64) -> Option<SortAlgorithm> {
    for_config(table, config)
        .find(|c| (c.min_n..=c.max_n).contains(&n))
        .map(|c| c.algorithm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::{KeyType, ValueType};

    const NVIDIA: &[Crossover] = crate::tuning::NVIDIA.crossovers;
    const CPU: &[Crossover] = crate::tuning::CPU.crossovers;

    #[test]
    fn crossovers_apply_by_width_size_and_full_range() {
        let mut c = SortConfig {
            key: KeyType::U64,
            value: ValueType::U32,
            ..Default::default()
        };
        assert_eq!(choice(NVIDIA, &c, 1 << 18), Some(SortAlgorithm::Merge));
        assert_eq!(choice(NVIDIA, &c, 1 << 16), None);
        assert_eq!(choice(NVIDIA, &c, 1 << 20), None);
        c.value = ValueType::U64;
        assert_eq!(choice(NVIDIA, &c, 1 << 22), Some(SortAlgorithm::Merge));
        c.bits = Some((0, 64));
        assert_eq!(choice(NVIDIA, &c, 1 << 18), Some(SortAlgorithm::Merge));
        c.bits = Some((0, 40));
        assert_eq!(choice(NVIDIA, &c, 1 << 18), None);
        c.bits = None;
        c.key = KeyType::F32;
        assert_eq!(choice(NVIDIA, &c, 1 << 18), None);
        assert!(NVIDIA.iter().all(|x| x.algorithm.auto_eligible()));
        assert!(CPU.iter().all(|x| x.algorithm.auto_eligible()));
        for key in [KeyType::U32, KeyType::F32, KeyType::I64] {
            for value in [ValueType::None, ValueType::U32, ValueType::U64] {
                let c = SortConfig {
                    key,
                    value,
                    ..Default::default()
                };
                assert_eq!(choice(CPU, &c, 2048), None);
                assert_eq!(choice(CPU, &c, 2049), Some(SortAlgorithm::Merge));
                assert_eq!(choice(CPU, &c, 1 << 22), Some(SortAlgorithm::Merge));
                assert_eq!(choice(CPU, &c, (1 << 22) + 1), None);
            }
        }
    }
}
