//! The scan's passes as rows: each algorithm's recording, with the push-constant block of each shader
//! (`glsl/scan/scan_<pass>.comp`). Scratch layouts and bytes per pass: docs/architecture.md "Scan passes".

use super::plan::{owns_status, SIMPLE_ITEMS};
use super::{region_align, Scanner};
use crate::error::Result;
use crate::gpu::{push_block, Recorder, Region, StatusLease};

push_block! {
    /// Push constants of `glsl/scan/scan_lookback.comp` (all variants: u32, u64 and their in-place forms).
    pub struct LookbackPush {
        /// Elements.
        pub n: u32,
        /// Workgroups dispatched (= tiles).
        pub groups: u32,
        /// 1: the status is the Scanner's own, zero at the start and left so (`lookback.glsl`, `LB_RESET`).
        pub reset: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_reduce.comp`.
    pub struct ReducePush {
        pub n: u32,
        /// Workgroups dispatched (= tiles).
        pub groups: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_spine.comp`.
    pub struct SpinePush {
        /// Tile sums to scan.
        pub count: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_downsweep.comp`.
    pub struct DownsweepPush {
        pub n: u32,
        /// Workgroups dispatched (= tiles).
        pub groups: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_blelloch_tile.comp`.
    pub struct BlellochPush {
        pub n: u32,
        /// Workgroups dispatched (= tiles).
        pub groups: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_add.comp`.
    pub struct AddPush {
        pub n: u32,
        /// Elements per tile of the level whose sums are added.
        pub tile: u32,
        pub groups: u32,
    }
}

push_block! {
    /// Push constants of `glsl/scan/scan_hillis_steele.comp`.
    pub struct HillisSteelePush {
        pub n: u32,
        /// Doubling distance (mode 0).
        pub stride: u32,
        /// 0: add `src[i - stride]`; 1: the final shift / copy.
        pub mode: u32,
        /// 1 for an inclusive scan (the final pass copies instead of shifting).
        pub inclusive: u32,
        pub groups: u32,
    }
}

/// Bytes of the look-back status region for `tiles` tiles: a 16-byte header and 2 elements per tile.
pub fn status_bytes(tiles: u64, elem: super::ScanElem) -> u64 {
    16 + tiles * 2 * elem.bytes()
}

/// Records what a look-back run over `tiles` tiles needs before its pass; returns its status region and the
/// `reset` push constant. Where the owner's block fits the run ([`owns_status`]): the block, ordered after its last
/// run ([`Recorder::order_block_run`]), reset 1. Else `scratch`, cleared (labelled `clear`) and behind a barrier,
/// reset 0; one tile touches no status (`LB_SINGLE`) and records nothing.
pub(crate) fn record_status(
    rec: &mut Recorder,
    block: Option<&StatusLease>,
    policy: &super::ScanPolicy,
    elem: super::ScanElem,
    tiles: u32,
    scratch: Region,
    clear: &str,
) -> Result<(Region, u32)> {
    let tiles = tiles as u64;
    match block {
        Some(block) if owns_status(policy, tiles, elem) => {
            rec.order_block_run();
            Ok((block.region().slice(0, status_bytes(tiles, elem)), 1))
        }
        _ => {
            if tiles > 1 {
                rec.fill_region(clear, scratch, 0)?;
                rec.barrier();
            }
            Ok((scratch, 0))
        }
    }
}

/// Byte offset in the status region of the count of predecessor tiles that waiting workgroups reduced themselves.
#[cfg(feature = "diagnostics")]
pub const FALLBACK_COUNTER_OFFSET: u64 = 4;

/// Each pass's push constants (and the look-back's status layout) at the pass's path, `scan::<pass>::<Item>`.
macro_rules! pass_paths {
    ($($pass:ident: $($item:ident),+;)*) => {$(
        #[doc = concat!("The pass `vksort::scan::", stringify!($pass), "`.")]
        #[cfg(feature = "diagnostics")]
        pub mod $pass {
            pub use super::{$($item),+};
        }
    )*};
}

pass_paths! {
    add: AddPush;
    blelloch_tile: BlellochPush;
    downsweep: DownsweepPush;
    hillis_steele: HillisSteelePush;
    lookback: LookbackPush, status_bytes, FALLBACK_COUNTER_OFFSET;
    reduce: ReducePush;
    spine: SpinePush;
}

/// What a scan reads, writes and works in: `n` elements of `input` into `output`, with `scratch`.
#[derive(Clone, Copy)]
pub(super) struct ScanIo {
    pub input: Region,
    pub output: Region,
    pub scratch: Region,
    pub n: u32,
}

impl Scanner {
    /// Decoupled look-back: one pass (its workgroup count read from `args` when given) after a status barrier or clear.
    pub(super) fn record_lookback(
        &self,
        rec: &mut Recorder,
        io: ScanIo,
        in_place: bool,
        args: Option<Region>,
    ) -> Result<()> {
        let (input, output, scratch, n) = (io.input, io.output, io.scratch, io.n);
        let single = args.is_none() && n <= self.policy.single_tile();
        let kernel = self.kernel_lookback(in_place, single)?;
        let tiles = if single {
            1
        } else {
            self.tiles(n as u64) as u32
        };
        let (elem, status) = (self.config.elem, self.status.as_ref());
        let scratch = scratch.slice(0, status_bytes(tiles as u64, elem));
        let (status, reset) = record_status(
            rec,
            status,
            &self.policy,
            elem,
            tiles,
            scratch,
            "vksort::scan::clear",
        )?;
        let push = LookbackPush {
            n,
            groups: tiles,
            reset,
        };
        let bindings = [input, output, status];
        let pass = rec
            .pass("vksort::scan::lookback", &kernel)
            .bind(&bindings)
            .push(&push);
        match args {
            Some(args) => pass.indirect(args),
            None => pass.groups(tiles),
        }
    }

    /// Reduce-then-scan: tile sums, the spine's scan of them (one workgroup), the seeded rescan of each tile.
    pub(super) fn record_rts(&self, rec: &mut Recorder, io: ScanIo) -> Result<()> {
        let (input, output, scratch, n) = (io.input, io.output, io.scratch, io.n);
        let tiles = self.tiles(n as u64) as u32;
        let partials = scratch.slice(0, tiles as u64 * self.config.elem.bytes());
        let (k_reduce, k_spine, k_down) = self.kernels_rts()?;
        rec.pass("vksort::scan::reduce", &k_reduce)
            .bind(&[input, partials])
            .push(&ReducePush { n, groups: tiles })
            .groups(tiles)?;
        rec.barrier();
        rec.pass("vksort::scan::spine", &k_spine)
            .bind(&[partials, partials])
            .push(&SpinePush { count: tiles })
            .groups(1)?;
        rec.barrier();
        rec.pass("vksort::scan::downsweep", &k_down)
            .bind(&[input, output, partials])
            .push(&DownsweepPush { n, groups: tiles })
            .groups(tiles)
    }

    /// Blelloch: each level's tiles scanned in shared memory (the tile sums of a level are the next level's
    /// input, scanned in place), then the uniform add of the sums, top level down.
    pub(super) fn record_blelloch(&self, rec: &mut Recorder, io: ScanIo) -> Result<()> {
        let (input, output, scratch, n) = (io.input, io.output, io.scratch, io.n);
        let eb = self.config.elem.bytes();
        let a = region_align(rec.ctx().caps());
        let (bwg, items) = self.blelloch_shape();
        let (k_first, k_excl, k_add) = self.kernels_blelloch()?;
        let levels = self.blelloch_levels(n as u64);
        let mut sums = Vec::new();
        let mut off = 0;
        for &(_, tiles) in &levels {
            sums.push(scratch.slice(off, tiles * eb));
            off += (tiles * eb).next_multiple_of(a);
        }
        let data = |l: usize| if l == 0 { output } else { sums[l - 1] };
        for (l, &(count, tiles)) in levels.iter().enumerate() {
            let (src, k) = if l == 0 {
                (input, &k_first)
            } else {
                (sums[l - 1], &k_excl)
            };
            let (n, groups) = (count as u32, tiles as u32);
            rec.pass("vksort::scan::blelloch_tile", k)
                .bind(&[src, data(l), sums[l]])
                .push(&BlellochPush { n, groups })
                .groups(groups)?;
            rec.barrier();
        }
        let per_group = self.policy.workgroup_size * SIMPLE_ITEMS;
        for l in (0..levels.len() - 1).rev() {
            let n = levels[l].0 as u32;
            let groups = n.div_ceil(per_group);
            let tile = bwg * items;
            rec.pass("vksort::scan::add", &k_add)
                .bind(&[data(l), sums[l]])
                .push(&AddPush { n, tile, groups })
                .groups(groups)?;
            if l > 0 {
                rec.barrier();
            }
        }
        Ok(())
    }

    /// Hillis-Steele: ceil(log2 n) doubling passes in scratch, then the shift (exclusive) or copy into `output`.
    pub(super) fn record_hs(&self, rec: &mut Recorder, io: ScanIo) -> Result<()> {
        let (input, output, scratch, n) = (io.input, io.output, io.scratch, io.n);
        let bytes = n as u64 * self.config.elem.bytes();
        let second = bytes.next_multiple_of(region_align(rec.ctx().caps()));
        let bufs = [scratch.slice(0, bytes), scratch.slice(second, bytes)];
        let k = self.kernel_hs()?;
        let groups = n.div_ceil(self.policy.workgroup_size * SIMPLE_ITEMS);
        let push = |stride, mode, inclusive: bool| HillisSteelePush {
            n,
            stride,
            mode,
            inclusive: inclusive as u32,
            groups,
        };
        let (mut src, mut stride, mut i) = (input, 1u32, 0);
        while stride < n {
            let dst = bufs[i % 2];
            rec.pass("vksort::scan::hillis_steele", &k)
                .bind(&[src, dst])
                .push(&push(stride, 0, false))
                .groups(groups)?;
            rec.barrier();
            (src, stride, i) = (dst, stride.saturating_mul(2), i + 1);
        }
        rec.pass("vksort::scan::shift", &k)
            .bind(&[src, output])
            .push(&push(0, 1, self.inclusive()))
            .groups(groups)
    }
}
