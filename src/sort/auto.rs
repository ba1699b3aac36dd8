//! Auto's choice across families with the default selector ([`super::Selector::Policy`]): the radix family's
//! own policy (small, MSD or Onesweep by size), except where the device's crossover table says that another
//! family measured faster for the configuration's key and value widths and size. The table holds only what was
//! measured, per device kind; a device without one keeps the radix policy everywhere. On CPU drivers "faster"
//! counts the first sort, whose pipelines compile when it runs.
//!
//! A crossover applies only to sorts on every bit of the key (no bit range): the radix sorts do fewer passes
//! over a narrow range, the comparison sorts do not gain from it. A sorter with tuning overrides
//! ([`super::SorterBuilder::tuning`]) takes none.

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

/// NVIDIA (H200, driver 580.159.04, 2026-11-26: `vksort bench --algos auto,msd,onesweep,merge --keys u64,u32
/// --values none,u32,u64 --sizes 15..22`, uniform keys, ms; BENCHMARKS.md, "Auto across families"): merge sort
/// against the radix policy's choice (Onesweep above 2^16 keys) for 64-bit keys: no value 0.075 / 0.087 / 0.115
/// against 0.111 / 0.134 / 0.163 at 2^17 / 2^18 / 2^19 (1.41-1.55x), Onesweep 7% ahead at 2^20; 32-bit
/// values 1.38-1.46x at 2^17-2^19, Onesweep 4% ahead at 2^20; 64-bit values 1.11-1.54x from 2^17 to 2^22 (the
/// largest size measured). At 2^16 and below the MSD sort stays ahead; 32-bit keys keep the radix sorts.
const NVIDIA: &[Crossover] = &[
    Crossover {
        key_bytes: 8,
        value_bytes: 0,
        min_n: 1 << 17,
        max_n: 1 << 19,
        algorithm: SortAlgorithm::Merge,
    },
    Crossover {
        key_bytes: 8,
        value_bytes: 4,
        min_n: 1 << 17,
        max_n: 1 << 19,
        algorithm: SortAlgorithm::Merge,
    },
    Crossover {
        key_bytes: 8,
        value_bytes: 8,
        min_n: 1 << 17,
        max_n: 1 << 22,
        algorithm: SortAlgorithm::Merge,
    },
];

/// The merge sort on CPU drivers from above the one-workgroup sort (2048 keys, the CPU radix policy's
/// `small_sort_max`) to 2^22 keys, for 32- and 64-bit keys with any values. A CPU driver compiles each pipeline
/// with LLVM when it first runs, and Onesweep's ranking kernels cost seconds there, the merge sort's a fraction:
/// lavapipe (Mesa 22.3.6, LLVM 15, 2 cores, idle, driver cache off; docs/first-minute.md), first sort / later
/// sorts of 2^20 keys, Onesweep against merge: f32 4.48 / 0.83 s against 2.00 / 1.14 s, u32 4.51 / 0.71
/// against 2.19 / 1.03, u64 6.96 / 2.00 against 3.27 / 1.86, f32 + u32 5.25 / 0.99 against 3.04 / 1.42, u64 + u32
/// 8.78 / 2.28 against 3.83 / 2.30; f32 at 2^16 3.05 / 0.055 against 0.88 / 0.056 and at 2^22 6.45 / 3.27
/// against 5.05 / 3.18. Later sorts are at most 1.45x slower, the first one 1.5-2.3x faster.
const CPU: &[Crossover] = &[
    cpu_merge(4, 0),
    cpu_merge(4, 4),
    cpu_merge(4, 8),
    cpu_merge(8, 0),
    cpu_merge(8, 4),
    cpu_merge(8, 8),
];

/// One width's entry of [`CPU`].
const fn cpu_merge(key_bytes: u32, value_bytes: u32) -> Crossover {
    Crossover {
        key_bytes,
        value_bytes,
        min_n: 2049,
        max_n: 1 << 22,
        algorithm: SortAlgorithm::Merge,
    }
}

/// The device's crossover table (empty where none was measured).
pub fn crossovers(caps: &DeviceCaps) -> &'static [Crossover] {
    if caps.is_cpu() {
        CPU
    } else if caps.vendor_id == 0x10de {
        NVIDIA
    } else {
        &[]
    }
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
