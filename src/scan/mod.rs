//! Prefix sums (exclusive, inclusive) of u32 and u64 with wrapping addition, by four [`ScanAlgorithm`]s: a
//! [`Scanner`] records one ([`Scanner::cmd_scan`] states the contract), [`scan_u32`] and the like run one from the
//! host. Each algorithm's passes and scratch: docs/architecture.md "Scan passes".

mod passes;
mod plan;

#[cfg(feature = "diagnostics")]
pub use passes::{add, blelloch_tile, downsweep, hillis_steele, lookback, reduce, spine};
pub(crate) use passes::{record_status, status_bytes};
#[cfg(test)]
pub(crate) use plan::TEST_POLICY;
pub(crate) use plan::{min_items, owns_status, MIN_TILE};
pub use plan::{ScanPolicy, Scanner, StallMode};

use crate::error::{Error, Result};
use crate::gpu::{check_disjoint, Buffer, Context, DeviceCaps, Profiler, Region};
use ash::vk;
use std::sync::Arc;

/// The scan algorithms. All give bitwise identical results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanAlgorithm {
    /// Naive: ceil(log2 n) global doubling passes through scratch, then a shift (exclusive) or copy pass.
    HillisSteele,
    /// Work-efficient up/down-sweep per tile in shared memory, tile sums scanned recursively, uniform add.
    Blelloch,
    /// Merrill & Grimshaw: reduce per tile, spine scan of the tile sums (one workgroup), downsweep.
    ReduceThenScan,
    /// Single-pass chained scan with decoupled look-back (the default).
    #[default]
    DecoupledLookback,
}

impl ScanAlgorithm {
    /// Every algorithm.
    pub const ALL: [ScanAlgorithm; 4] = [
        ScanAlgorithm::HillisSteele,
        ScanAlgorithm::Blelloch,
        ScanAlgorithm::ReduceThenScan,
        ScanAlgorithm::DecoupledLookback,
    ];

    /// The CLI name: "hillis-steele", "blelloch", "reduce-then-scan", "lookback".
    pub fn name(self) -> &'static str {
        match self {
            ScanAlgorithm::HillisSteele => "hillis-steele",
            ScanAlgorithm::Blelloch => "blelloch",
            ScanAlgorithm::ReduceThenScan => "reduce-then-scan",
            ScanAlgorithm::DecoupledLookback => "lookback",
        }
    }

    /// The algorithm of a CLI name (also accepts "decoupled-lookback", "naive", "rts").
    pub fn from_name(s: &str) -> Option<Self> {
        let s = s.to_ascii_lowercase().replace('_', "-");
        Self::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .or(match s.as_str() {
                "decoupled-lookback" | "decoupled-look-back" | "look-back" => {
                    Some(ScanAlgorithm::DecoupledLookback)
                }
                "naive" | "hillis" => Some(ScanAlgorithm::HillisSteele),
                "rts" | "reduce-scan" => Some(ScanAlgorithm::ReduceThenScan),
                "work-efficient" => Some(ScanAlgorithm::Blelloch),
                _ => None,
            })
    }
}

/// Exclusive (`out[i] = sum of in[..i]`) or inclusive (`out[i] = sum of in[..=i]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanKind {
    /// `out[i] = in[0] + ... + in[i - 1]`, `out[0] = 0` (the default).
    #[default]
    Exclusive,
    /// `out[i] = in[0] + ... + in[i]`.
    Inclusive,
}

/// The element type: u32 or u64, added with wrapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScanElem {
    /// 32-bit unsigned elements (the default).
    #[default]
    U32,
    /// 64-bit unsigned elements (needs `shaderInt64` and `shaderSubgroupExtendedTypes`).
    U64,
}

impl ScanElem {
    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            ScanElem::U32 => 4,
            ScanElem::U64 => 8,
        }
    }

    /// Elements per 16-byte vector.
    pub(crate) fn per_vec(self) -> u32 {
        match self {
            ScanElem::U32 => 4,
            ScanElem::U64 => 2,
        }
    }
}

/// What a [`Scanner`] computes, and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScanConfig {
    /// Default: [`ScanAlgorithm::DecoupledLookback`].
    pub algorithm: ScanAlgorithm,
    /// Default: [`ScanKind::Exclusive`].
    pub kind: ScanKind,
    /// Default: [`ScanElem::U32`].
    pub elem: ScanElem,
    /// Default (`None`): [`ScanPolicy::for_device`].
    pub policy: Option<ScanPolicy>,
}

/// The subgroup operations every scan, reduce and compaction kernel uses.
pub(crate) const SUBGROUP_OPS: vk::SubgroupFeatureFlags = vk::SubgroupFeatureFlags::from_raw(
    vk::SubgroupFeatureFlags::BASIC.as_raw()
        | vk::SubgroupFeatureFlags::ARITHMETIC.as_raw()
        | vk::SubgroupFeatureFlags::BALLOT.as_raw()
        | vk::SubgroupFeatureFlags::VOTE.as_raw(),
);

internal! {
/// Checks that a device can run the scan family on `elem`: subgroup basic, vote, arithmetic and ballot operations,
/// and for u64 [`DeviceCaps::int64`]; else [`Error::Unsupported`] naming the device.
fn check_device(caps: &DeviceCaps, elem: ScanElem) -> Result<()> {
    let unsupported = |what: &str| Error::Unsupported {
        device: caps.name.clone(),
        what: what.into(),
    };
    if !caps.has_subgroup_ops(SUBGROUP_OPS) {
        return Err(unsupported(
            "needs subgroup ballot, arithmetic, vote and basic operations in compute shaders",
        ));
    }
    if elem == ScanElem::U64 && !caps.int64 {
        return Err(unsupported(
            "needs shaderInt64 and shaderSubgroupExtendedTypes for 64-bit elements",
        ));
    }
    Ok(())
}
}

/// Offsets of scratch sub-regions are multiples of this.
pub(crate) fn region_align(caps: &DeviceCaps) -> u64 {
    caps.min_storage_buffer_offset_alignment.max(16)
}

/// Checks `n` elements of `elem_bytes` against the device's storage-buffer range.
pub(crate) fn check_count(caps: &DeviceCaps, n: u64, elem_bytes: u64) -> Result<()> {
    let limit = caps.max_storage_buffer_range.min(u32::MAX as u64);
    if n.saturating_mul(elem_bytes) > limit {
        return Err(Error::TooLarge {
            n,
            max: limit / elem_bytes.max(1),
            limit: "one storage-buffer binding",
        });
    }
    Ok(())
}

/// Checks a data region: `n` elements, storage usage, and a 16-byte aligned offset (vector loads).
pub(crate) fn check_data(
    ctx: &Context,
    buf: &Region,
    what: &'static str,
    bytes: u64,
) -> Result<()> {
    buf.check(ctx, what, bytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
    if buf.offset % 16 != 0 {
        return Err(Error::Misaligned {
            what,
            offset: buf.offset,
            alignment: 16,
        });
    }
    Ok(())
}

impl Scanner {
    /// The checks of [`Scanner::cmd_scan`] for `n` elements; returns whether the scan is in place.
    fn check_scan(
        &self,
        ctx: &Context,
        input: &Region,
        output: &Region,
        scratch: &Region,
        n: u64,
    ) -> Result<bool> {
        if ctx.id != self.ctx.id {
            return Err(Error::WrongContext { what: "scanner" });
        }
        let caps = ctx.caps();
        check_device(caps, self.config.elem)?;
        let eb = self.config.elem.bytes();
        check_count(caps, n, eb)?;
        let bytes = n * eb;
        check_data(ctx, input, "input", bytes)?;
        check_data(ctx, output, "output", bytes)?;
        let mut scratch_usage = vk::BufferUsageFlags::STORAGE_BUFFER;
        if self.config.algorithm == ScanAlgorithm::DecoupledLookback {
            scratch_usage |= vk::BufferUsageFlags::TRANSFER_DST;
        }
        let same = input.buffer == output.buffer && input.offset == output.offset;
        if !same {
            check_disjoint(&[("input", *input, bytes), ("output", *output, bytes)])?;
        }
        if same
            && self.config.algorithm == ScanAlgorithm::DecoupledLookback
            && self.policy.stall_every != 0
            && self.policy.stall_mode == StallMode::NeverPublish
        {
            return Err(Error::InvalidPolicy {
                family: "scan",
                what: "the NeverPublish stall emulation needs separate input and output (a tile that \
                       never publishes would overwrite input that its successors reduce); use PublishLate \
                       in place"
                    .into(),
            });
        }
        let scratch_needed = if n == 0 { 0 } else { self.scratch_bytes(n) };
        scratch.check(ctx, "scratch", scratch_needed, scratch_usage)?;
        check_disjoint(&[
            ("input", *input, bytes),
            ("scratch", *scratch, scratch_needed),
        ])?;
        check_disjoint(&[
            ("output", *output, bytes),
            ("scratch", *scratch, scratch_needed),
        ])?;
        Ok(same)
    }
}

internal! {
/// CPU reference: the exclusive or inclusive wrapping prefix sum of `data`.
fn cpu_scan_u32(data: &[u32], kind: ScanKind) -> Vec<u32> {
    cpu_scan(data, kind, 0, u32::wrapping_add)
}
}

internal! {
/// CPU reference: the exclusive or inclusive wrapping prefix sum of `data`.
fn cpu_scan_u64(data: &[u64], kind: ScanKind) -> Vec<u64> {
    cpu_scan(data, kind, 0, u64::wrapping_add)
}
}

fn cpu_scan<T: Copy>(data: &[T], kind: ScanKind, zero: T, add: fn(T, T) -> T) -> Vec<T> {
    let mut acc = zero;
    data.iter()
        .map(|&x| {
            let before = acc;
            acc = add(acc, x);
            if kind == ScanKind::Inclusive {
                acc
            } else {
                before
            }
        })
        .collect()
}

fn scan_host<T: bytemuck::Pod>(
    ctx: &Arc<Context>,
    data: &[T],
    config: &ScanConfig,
    elem: ScanElem,
    profiler: Option<&mut Profiler>,
) -> Result<Vec<T>> {
    let config = ScanConfig { elem, ..*config };
    let scanner = Scanner::new(ctx, config)?;
    let n = data.len() as u64;
    let input = Buffer::from_slice(ctx, "vksort::scan::input", data)?;
    let output = Buffer::device_local(ctx, "vksort::scan::output", n * elem.bytes())?;
    let scratch = Buffer::device_local(ctx, "vksort::scan::scratch", scanner.scratch_bytes(n))?;
    ctx.submit_profiled("vksort::scan", profiler, |rec| {
        scanner.cmd_scan(rec, input.as_ref(), output.as_ref(), scratch.as_ref(), n)
    })?;
    output.read_vec::<T>(data.len())
}

/// Scans `data` on the GPU (`config.elem` is taken as [`ScanElem::U32`]).
pub fn scan_u32(ctx: &Arc<Context>, data: &[u32], config: &ScanConfig) -> Result<Vec<u32>> {
    scan_host(ctx, data, config, ScanElem::U32, None)
}

/// Scans `data` on the GPU (`config.elem` is taken as [`ScanElem::U64`]).
pub fn scan_u64(ctx: &Arc<Context>, data: &[u64], config: &ScanConfig) -> Result<Vec<u64>> {
    scan_host(ctx, data, config, ScanElem::U64, None)
}

/// [`scan_u32`] with `profiler` attached: each pass gets a timestamp (see [`Profiler::results`]). The
/// profiler needs room for the passes (Hillis-Steele: ceil(log2 n) + 2).
pub fn scan_u32_profiled(
    ctx: &Arc<Context>,
    data: &[u32],
    config: &ScanConfig,
    profiler: &mut Profiler,
) -> Result<Vec<u32>> {
    scan_host(ctx, data, config, ScanElem::U32, Some(profiler))
}

/// [`scan_u64`] with `profiler` attached.
pub fn scan_u64_profiled(
    ctx: &Arc<Context>,
    data: &[u64],
    config: &ScanConfig,
    profiler: &mut Profiler,
) -> Result<Vec<u64>> {
    scan_host(ctx, data, config, ScanElem::U64, Some(profiler))
}
