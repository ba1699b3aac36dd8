//! Timing and test knobs of the radix sort, apart from its policy. Public only with the `diagnostics` cargo
//! feature ([`crate::sort::SorterBuilder::debug`]); a product build always runs with [`RadixDebug::default`]
//! (every knob off). Some knobs make the result WRONG on purpose (see [`RadixDebug::debug_mode`]); none of them
//! is ever chosen by a device table.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;

/// The radix sort's diagnostics knobs (all off by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RadixDebug {
    /// Timing experiments only, 0 otherwise (the sort's result is WRONG when non-zero): Onesweep bit 0 skips the
    /// look-back wait, bit 1 the matching of the ranking, bit 2 the scatter (keys stay in their tile's range);
    /// bit 3 (correct results) makes the lane-mask matching's subgroup syncs order all memory
    /// (`subgroupBarrier()`) instead of shared memory only, for comparison; bit 5 leaves out the plan (the
    /// passes then run no workgroups), bit 6 stops the upfront pass after its shared-memory counting.
    pub debug_mode: u32,
    /// Stall emulation (tests of forward progress, 0: off): Onesweep tiles with id % stall_every == 1 never
    /// publish their look-back status, so their successors must count their digits themselves; cooperative MSD
    /// helpers with index % stall_every == 1 among their bucket's arrive late, so the others give up waiting
    /// and the bucket's helpers work alone.
    pub stall_every: u32,
    /// Tiles per portion: 0 cuts a sort into as few portions as the look-back status (2^30 - 1 keys) and the
    /// binding range allow; a smaller value forces more portions (tests of the portion path).
    pub portion_tiles: u32,
    /// Write through 64-bit device addresses (the passes' `wide` variants) even when every array fits one
    /// binding (tests of that path; needs `bufferDeviceAddress`).
    pub force_wide: bool,
    /// 32-bit words of a subgroup ballot the ranking handles (1..=4; 0: ceil(largest subgroup size / 32) of the
    /// device). 4 is always correct; fewer fold the mask arithmetic (timing comparisons).
    pub ballot_words: u32,
    /// The device address of a buffer that receives one 64-byte clock record per Onesweep tile (phase
    /// boundaries in SM clocks, entry/exit in device time, SM id: see [`super::clocks`]); 0: off. Needs
    /// [`DeviceCaps::shader_clock`] (`ContextOptions::shader_clock`) and buffer device addresses. Each place
    /// overwrites the records of the previous one.
    pub tile_clocks: u64,
    /// The device address of a buffer that receives one 64-byte clock record per workgroup of the MSD sort's
    /// bucket pass (2^digit_bits bucket workgroups after the helpers: at most 2^digit_bits + 2048 records; see
    /// [`super::clocks::msd`]); 0: off. The address must be 64-byte aligned (a record never crosses a 4 GiB
    /// boundary of the address). Same requirements as `tile_clocks`.
    pub msd_clocks: u64,
}

impl RadixDebug {
    #[cfg(feature = "diagnostics")]
    /// Overrides knobs from a string `key=value,...`: debug (debug_mode), stall (stall_every), ptiles
    /// (portion_tiles), wide (force_wide, 0 or 1), bw (ballot_words).
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        crate::policy::for_each_override(spec, "radix debug", |k, v, bad| {
            match k {
                "debug" => self.debug_mode = v,
                "stall" => self.stall_every = v,
                "ptiles" => self.portion_tiles = v,
                "wide" => self.force_wide = v != 0,
                "bw" => self.ballot_words = v,
                other => return Err(bad(format!("unknown key `{other}`"))),
            }
            Ok(())
        })?;
        Ok(self)
    }

    /// Checks the knobs against the device (`use_partitioned` / `msd_partitioned`: whether the policy's Onesweep
    /// passes / MSD passes rank with match-any, whose clock variants read the SM id).
    pub(crate) fn check(
        &self,
        caps: &DeviceCaps,
        use_partitioned: bool,
        msd_partitioned: bool,
    ) -> Result<()> {
        let clocks = self.tile_clocks != 0 || self.msd_clocks != 0;
        if clocks && !(caps.shader_clock && caps.buffer_device_address) {
            return Err(Error::Unsupported {
                device: caps.name.clone(),
                what: "tile_clocks and msd_clocks need VK_KHR_shader_clock (ContextOptions::shader_clock) and buffer device addresses"
                    .into(),
            });
        }
        let partitioned_clocks =
            (self.tile_clocks != 0 && use_partitioned) || (self.msd_clocks != 0 && msd_partitioned);
        if partitioned_clocks && !caps.sm_builtins {
            return Err(Error::Unsupported {
                device: caps.name.clone(),
                what: "tile_clocks with use_partitioned and msd_clocks with msd_partitioned need VK_NV_shader_sm_builtins"
                    .into(),
            });
        }
        if !(1..=60000).contains(&self.stall_every.max(1)) {
            return Err(Error::InvalidPolicy {
                family: "radix debug",
                what: format!("stall_every {} above 60000", self.stall_every),
            });
        }
        Ok(())
    }
}
