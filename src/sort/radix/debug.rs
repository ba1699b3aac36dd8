//! Timing and test knobs of the radix sort, apart from its policy: public only with the `diagnostics` feature;
//! a product build runs with every knob off. Some make the result WRONG on purpose; no device table sets any.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;

/// The radix sort's diagnostics knobs (all off by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RadixDebug {
    /// Timing experiments (WRONG results when non-zero): bits 0, 1, 2 skip Onesweep's look-back wait, matching,
    /// scatter; bit 3 (correct) orders all memory at lane-mask syncs; bit 5 leaves out the plan, bit 6 stops the
    /// upfront pass after its shared-memory counting.
    pub debug_mode: u32,
    /// Stall emulation (0: off): Onesweep tiles with id % stall_every == 1 never publish their status, and such
    /// cooperating MSD helpers arrive late, so the fallbacks run.
    pub stall_every: u32,
    /// Tiles per portion (0: as few portions as allowed; less forces more portions).
    pub portion_tiles: u32,
    /// Write through device addresses (the `wide` variants) even when every array fits one binding.
    pub force_wide: bool,
    /// 32-bit words of a subgroup ballot the ranking handles (1..=4; 0: from the largest subgroup size).
    pub ballot_words: u32,
    /// Device address receiving one 64-byte clock record per Onesweep tile per place ([`super::clocks`]; 0:
    /// off). Needs [`DeviceCaps::shader_clock`] and buffer device addresses.
    pub tile_clocks: u64,
    /// Device address (64-byte aligned) receiving one 64-byte record per workgroup of the MSD bucket pass
    /// ([`super::clocks::msd`]; 0: off), with the requirements of `tile_clocks`.
    pub msd_clocks: u64,
}

impl RadixDebug {
    #[cfg(feature = "diagnostics")]
    /// Overrides knobs from `key=value,...`: debug, stall, ptiles (portion_tiles), wide (0 or 1), bw.
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

    /// Checks the knobs against the device (the policy's partitioned passes' clock variants read the SM id).
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
                what: "tile_clocks with tile.partitioned and msd_clocks with msd.partitioned need VK_NV_shader_sm_builtins"
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
