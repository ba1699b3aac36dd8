//! The radix sort's tuning: [`RadixPolicy`], its modes, each pass's shared memory and the policy's check
//! against a device. The per-device values are in [`super::tuning`], diagnostics knobs in `RadixDebug`.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::algorithm::SortAlgorithm;

/// The most keys [`SortAlgorithm::Msd`] takes: its bucket pass keeps one entry per split tile in shared memory.
pub const MSD_MAX_KEYS: u64 = 1 << 20;

/// Tuning of the radix sort, passed to the shaders as specialization constants. Each field's override key
/// ([`RadixPolicy::with_overrides`]) is named in its line; docs/tuning.md has the measurements behind the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadixPolicy {
    /// Invocations of the Onesweep, upsweep and downsweep passes (key `wg`).
    pub workgroup_size: u32,
    /// Keys per invocation of those passes: a sub-tile is workgroup_size x this (key `kpt`).
    pub keys_per_thread: u32,
    /// Bits per digit place, 4..=8 (key `bits`).
    pub digit_bits: u32,
    /// Look-back polls of a predecessor before counting its digits itself, 1..=60000 (key `spin`).
    pub spin_limit: u32,
    /// Rank with match-any (VK_NV_shader_subgroup_partitioned) instead of ballots (key `part`).
    pub use_partitioned: bool,
    /// Auto's one-workgroup sort up to this many keys (0: never; at most [`RadixPolicy::small_capacity`]).
    pub small_sort_max: u32,
    /// Invocations of the one-workgroup sort.
    pub small_workgroup_size: u32,
    /// Keys per invocation of the one-workgroup sort.
    pub small_keys_per_thread: u32,
    /// Invocations of the upfront histogram pass (a multiple of the largest subgroup) (key `uwg`).
    pub upfront_workgroup_size: u32,
    /// Keys per invocation of the upfront histogram pass, per chunk (key `ukpt`).
    pub upfront_keys_per_thread: u32,
    /// Most workgroups of the upfront pass, each looping over chunks (key `ugroups`).
    pub upfront_max_groups: u32,
    /// Whether Auto may use Onesweep (inter-workgroup waiting) on this device; else reduce-then-scan.
    pub onesweep_safe: bool,
    /// Onesweep publishes each tile's digit counts before ranking it, not after (key `early`).
    pub early_counts: bool,
    /// Shared histogram copies of the upfront pass (clamped to its subgroups), 1..=16 (key `ucopies`).
    pub upfront_hist_copies: u32,
    /// How the Onesweep/downsweep ranking keeps its per-digit counters (key `rank2`: 0, 1 or 2).
    pub rank_counters: RankCounters,
    /// Wide exchange: a second word (digit, value or high word) travels with each exchanged key (key `keep`).
    pub keep_digit: bool,
    /// The upfront pass reads keys as 16-byte vectors where the tile and the keys' offset allow (key `uvec4`).
    pub upfront_vec4: bool,
    /// How the Onesweep/downsweep ranking finds each key's peers (key `mor`: 0, 1 or 2).
    pub peer_match: PeerMatch,
    /// Onesweep look-back: predecessors' status words read per round trip, 1..=16 (key `lb`).
    pub lookback_batch: u32,
    /// Sub-tiles ranked one after another per tile, one look-back for all, 1..=4 (key `subs`).
    pub sub_tiles: u32,
    /// Parts in which each exchange round moves the tile through shared memory, 1..=kpt (key `xparts`).
    pub exchange_parts: u32,
    /// Sorts of at most this many keys (0: none) use `short_keys_per_thread` in Onesweep (key `smax`).
    pub short_max: u32,
    /// Keys per invocation of Onesweep for sorts up to `short_max` keys, 1..=32 (key `skpt`).
    pub short_keys_per_thread: u32,
    /// Peer matching of the short tiles (which keep one exchange part and no sub-tiles) (key `smor`).
    pub short_peer_match: PeerMatch,
    /// Onesweep sorts of one portion up to this many keys run in one dispatch (0: none) (key `fmax`).
    pub fused_max: u32,
    /// Fused sorts up to this many keys claim items in a loop; larger ones one per workgroup (key `floop`).
    pub fused_loop_max: u32,
    /// Auto's MSD sort up to this many keys (0: never; at most `MSD_MAX_KEYS`) (key `mmax`).
    pub msd_max: u32,
    /// Invocations of the MSD split pass (key `mswg`).
    pub msd_split_workgroup_size: u32,
    /// Keys per invocation of the MSD split pass (key `mskpt`).
    pub msd_split_keys_per_thread: u32,
    /// Invocations of the MSD bucket pass (one workgroup per bucket) (key `mbwg`).
    pub msd_bucket_workgroup_size: u32,
    /// Least keys per invocation of the MSD bucket pass; larger buckets go to helpers (key `mbkpt`).
    pub msd_bucket_keys_per_thread: u32,
    /// Most keys per invocation the MSD bucket pass grows to for large sorts (1..=32) (key `mbmax`).
    pub msd_bucket_max_keys_per_thread: u32,
    /// MSD buckets of at most this many keys are placed by counting, in one round (0: none) (key `mrank`).
    pub msd_rank_max: u32,
    /// MSD sorts up to msd_split_workgroup_size x this keys take one split tile, no differ (key `msingle`).
    pub msd_single_kpt: u32,
    /// Helper workgroups of the MSD bucket pass per bucket tile of the sort's keys, 1..=8 (key `mhelp`).
    pub msd_helper_ratio: u32,
    /// The MSD helpers of a bucket of at least this many keys cooperate (0: never) (key `mcoop`).
    pub msd_coop_min_keys: u32,
    /// The MSD passes rank with match-any, apart from `use_partitioned` (key `mpart`).
    pub msd_partitioned: bool,
    /// Invocations of the hybrid sort's group pass (key `hwg`).
    pub hybrid_workgroup_size: u32,
    /// Keys per invocation of the hybrid group pass (key `hkpt`).
    pub hybrid_keys_per_thread: u32,
    /// Most keys of a hybrid sort (one group may hold them all; u32::MAX: no own limit) (key `hmax`).
    pub hybrid_max: u32,
}

/// How the Onesweep/downsweep ranking keeps its per-digit counters (spec constant `RANK2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RankCounters {
    /// Per-subgroup histograms, a serial loop over subgroups per digit, a separate digit scan.
    #[default]
    PerSubgroup,
    /// CUB style: counters laid out `[digit][subgroup]` and one workgroup scan over all of them.
    Scanned,
    /// As `Scanned`, with 16-bit counters packed two per word (needs a sub-tile below 65536 keys).
    Packed16,
}

impl RankCounters {
    pub(crate) fn spec(self) -> u32 {
        self as u32
    }
}

/// How the Onesweep/downsweep ranking finds each key's peers in its subgroup (spec constant `MATCH_OR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PeerMatch {
    /// digit_bits + 2 subgroup votes (ballot), or match-any where the policy's `use_partitioned` says so.
    #[default]
    Vote,
    /// Lane masks in shared memory, the rank counters then updated in one batch.
    LaneMasks,
    /// As `LaneMasks`, each key's counter updated right away (fewer live registers).
    LaneMasksEager,
}

impl PeerMatch {
    pub(crate) fn spec(self) -> u32 {
        self as u32
    }
}

fn invalid<T>(what: String) -> Result<T> {
    Err(Error::InvalidPolicy {
        family: "radix",
        what,
    })
}

impl RadixPolicy {
    /// What [`SortAlgorithm::Auto`] runs for `n` keys: Small, MSD, then Onesweep where safe, else RTS.
    pub fn auto_algorithm(&self, n: u64) -> SortAlgorithm {
        if n <= self.small_sort_max as u64 {
            SortAlgorithm::Small
        } else if n <= self.msd_max as u64 {
            SortAlgorithm::Msd
        } else if self.onesweep_safe {
            SortAlgorithm::Onesweep
        } else {
            SortAlgorithm::ReduceThenScan
        }
    }

    /// Whether an Onesweep sort of `n` keys over `places` places runs fused (at most 8: one done counter each).
    pub(crate) fn fuses(&self, n: u64, places: u32) -> bool {
        n <= self.fused_max as u64 && places <= 8
    }

    pub(crate) fn fused_loops(&self, n: u64) -> bool {
        n <= self.fused_loop_max as u64
    }

    /// The most keys the one-workgroup sort takes: small_workgroup_size x small_keys_per_thread.
    pub fn small_capacity(&self) -> u32 {
        self.small_workgroup_size * self.small_keys_per_thread
    }

    /// Keys per tile of the MSD differ and split passes (sorts of one tile: [`Self::msd_split_kpt`]).
    pub fn msd_split_tile(&self) -> u32 {
        self.msd_split_workgroup_size * self.msd_split_keys_per_thread
    }

    /// The most keys an MSD sort splits in one tile, with no differ pass (0: none).
    pub fn msd_single_keys(&self) -> u64 {
        (self.msd_split_workgroup_size * self.msd_single_kpt) as u64
    }

    /// Keys per invocation of the MSD split pass for up to `max_n` keys: one tile's within `msd_single_kpt`.
    pub fn msd_split_kpt(&self, max_n: u64) -> u32 {
        let wg = self.msd_split_workgroup_size.max(1) as u64;
        let one = max_n.div_ceil(wg).next_power_of_two() as u32;
        if one <= self.msd_single_kpt {
            one.max(self.msd_split_keys_per_thread)
        } else {
            self.msd_split_keys_per_thread
        }
    }

    /// MSD bucket pass helpers: `msd_helper_ratio` per bucket tile of `max_n` keys, at most 2048 (0: none).
    pub(crate) fn msd_helpers(&self, max_n: u64, bucket_kpt: u32) -> u32 {
        let tile = (self.msd_bucket_workgroup_size * bucket_kpt).max(1) as u64;
        if max_n <= tile {
            0
        } else {
            (self.msd_helper_ratio.max(1) as u64 * max_n.div_ceil(tile)).min(2048) as u32
        }
    }

    pub(crate) fn msd_max_tiles(&self) -> u64 {
        MSD_MAX_KEYS.div_ceil(self.msd_split_tile() as u64)
    }

    /// The most keys the hybrid sort takes: `hybrid_max` (u32::MAX: the radix sorts' 2^32 - 2^16).
    pub fn hybrid_capacity(&self) -> u64 {
        match self.hybrid_max {
            u32::MAX => super::MAX_KEYS,
            m => m as u64,
        }
    }

    /// Keys per group tile of the hybrid sort: hybrid_workgroup_size x hybrid_keys_per_thread.
    pub fn hybrid_tile(&self) -> u32 {
        self.hybrid_workgroup_size * self.hybrid_keys_per_thread
    }

    /// The hybrid sort's (MSD places, log2 of the groups) for up to `max_n` keys on `places` places of `bits`
    /// bits: the fewest whose average group holds at most 7/8 of the group tile (0 places: one place only).
    pub fn hybrid_geometry(&self, places: u32, bits: u32, max_n: u64) -> (u32, u32) {
        if places < 2 {
            return (0, 0);
        }
        let target = (self.hybrid_tile() as u64 * 7 / 8).max(1);
        let d = self.digit_bits;
        let width = |p: u32| bits - (places - p) * d;
        let mut p = 1;
        while p < places - 1 && max_n >> width(p).min(63) > target {
            p += 1;
        }
        let need = max_n.div_ceil(target).max(1);
        let g = (64 - (need - 1).leading_zeros()).min(width(p)).min(16);
        (p, g)
    }

    /// Keys per Onesweep/downsweep tile (one claim, one look-back): sub_tiles sub-tiles.
    pub fn tile(&self) -> u32 {
        self.sub_tile() * self.sub_tiles
    }

    /// Keys ranked at once by a Onesweep/downsweep workgroup: workgroup_size x keys_per_thread.
    pub fn sub_tile(&self) -> u32 {
        self.workgroup_size * self.keys_per_thread
    }

    pub(crate) fn radix(&self) -> u32 {
        1 << self.digit_bits
    }

    fn msd_bucket_shared_bytes(&self, plan: &SubgroupPlan, kpt: u32) -> u64 {
        let wg = self.msd_bucket_workgroup_size;
        let runs = (2 * self.msd_max_tiles() + 1) * 4;
        let helpers = (2 * self.radix() as u64 + 5) * 4;
        self.rank_shared_bytes(plan, wg, wg * kpt)
            .max(self.msd_rank_max as u64 * 8)
            .max(runs)
            + self.radix() as u64 * 4
            + helpers
    }

    /// MSD bucket pass keys per invocation for `max_n` keys: grown until a tile holds twice the average bucket.
    pub(crate) fn msd_bucket_kpt(&self, plan: &SubgroupPlan, max_n: u64, shared: u64) -> u32 {
        let wg = self.msd_bucket_workgroup_size.max(1) as u64;
        let want = (2 * max_n.div_ceil(self.radix() as u64))
            .div_ceil(wg)
            .next_power_of_two()
            .min(self.msd_bucket_max_keys_per_thread as u64) as u32;
        let mut kpt = want;
        while kpt > self.msd_bucket_keys_per_thread
            && self.msd_bucket_shared_bytes(plan, kpt) > shared
        {
            kpt /= 2;
        }
        kpt.max(self.msd_bucket_keys_per_thread)
    }

    fn rank_shared_bytes(&self, plan: &SubgroupPlan, wg: u32, items: u32) -> u64 {
        let max_sg = (wg / plan.min.max(1)) as u64;
        let r = self.radix() as u64;
        let words = (items as u64).max(max_sg * r) + 3 * r + max_sg + 4;
        words * 4
    }

    /// 32-bit words of a ballot the ranking handles: `forced`, or ceil(largest subgroup / 32).
    pub(crate) fn ballot_words_for(plan: &SubgroupPlan, forced: u32) -> u32 {
        match forced {
            0 => plan.max.div_ceil(32).clamp(1, 4),
            w => w,
        }
    }

    /// Shared memory of radix_onesweep.comp (`item_words` per key and value: the parked sub-tiles hold them).
    fn onesweep_shared_bytes(
        &self,
        plan: &SubgroupPlan,
        item_words: u32,
        ballot_words: u32,
    ) -> u64 {
        let max_sg = (self.workgroup_size / plan.min.max(1)) as u64;
        let r = self.radix() as u64;
        let items = self.sub_tile() as u64;
        let counters = match self.rank_counters {
            RankCounters::PerSubgroup => max_sg * r,
            k => {
                let c = max_sg * r / if k == RankCounters::Packed16 { 2 } else { 1 };
                c + (c >> 5) + 1 + max_sg
            }
        };
        let masks = match self.peer_match {
            PeerMatch::Vote => 0,
            _ => max_sg * r * ballot_words as u64,
        };
        let keep = if self.keep_digit { items } else { 0 };
        let parts = if self.keep_digit {
            1
        } else {
            self.exchange_parts.max(1)
        };
        let slots = if parts > 1 {
            self.keys_per_thread.div_ceil(parts) as u64 * self.workgroup_size as u64
        } else {
            items
        };
        let held = match self.sub_tiles.saturating_sub(1) as u64 {
            0 => 0,
            h => h * (items * item_words as u64 + r) + r,
        };
        (slots.max(counters + masks) + 3 * r + max_sg + 4 + keep + held) * 4
    }

    /// Checks the policy against the device for items of one 32-bit word ([`RadixPolicy::check_items`]).
    pub fn check(&self, caps: &DeviceCaps, plan: &SubgroupPlan) -> Result<()> {
        self.check_items(caps, plan, 1)
    }

    /// [`RadixPolicy::check`] for keys and values of `item_words` 32-bit words together.
    pub fn check_items(
        &self,
        caps: &DeviceCaps,
        plan: &SubgroupPlan,
        item_words: u32,
    ) -> Result<()> {
        self.check_with(caps, plan, item_words, 0)
    }

    /// [`RadixPolicy::check_items`] with `ballot_words` forced (0: from the subgroup size; diagnostics).
    pub(crate) fn check_with(
        &self,
        caps: &DeviceCaps,
        plan: &SubgroupPlan,
        item_words: u32,
        ballot_words: u32,
    ) -> Result<()> {
        self.check_tiles()?;
        self.check_msd()?;
        self.check_onesweep(plan, ballot_words)?;
        self.check_upfront()?;
        self.check_workgroups(caps, plan)?;
        for (what, on) in [
            ("use_partitioned", self.use_partitioned),
            ("msd_partitioned", self.msd_partitioned),
        ] {
            if on && !caps.subgroup_partitioned {
                return Err(Error::Unsupported {
                    device: caps.name.clone(),
                    what: format!("{what} needs VK_NV_shader_subgroup_partitioned"),
                });
            }
        }
        self.check_shared_memory(caps, plan, item_words, ballot_words)
    }

    fn check_tiles(&self) -> Result<()> {
        if !(4..=8).contains(&self.digit_bits) {
            return invalid(format!("digit_bits {} not in 4..=8", self.digit_bits));
        }
        if self.tile() > 1 << 16
            || self.small_capacity() > 1 << 16
            || self.msd_split_tile() > 1 << 16
            || self.msd_bucket_workgroup_size * self.msd_bucket_keys_per_thread > 1 << 16
            || self.hybrid_tile() > 1 << 16
        {
            return invalid("tiles of more than 2^16 keys".into());
        }
        let kpts = [
            self.keys_per_thread,
            self.small_keys_per_thread,
            self.upfront_keys_per_thread,
            self.msd_split_keys_per_thread,
            self.msd_bucket_keys_per_thread,
            self.msd_bucket_max_keys_per_thread,
            self.hybrid_keys_per_thread,
        ];
        if kpts.iter().any(|k| !(1..=32).contains(k)) || self.msd_single_kpt > 32 {
            return invalid("keys per thread must be in 1..=32".into());
        }
        Ok(())
    }

    fn check_msd(&self) -> Result<()> {
        if !(1..=8).contains(&self.msd_helper_ratio) {
            let r = self.msd_helper_ratio;
            return invalid(format!("msd_helper_ratio {r} not in 1..=8"));
        }
        if self.msd_rank_max > 32 * self.msd_bucket_workgroup_size {
            return invalid(format!(
                "msd_rank_max {} above 32 keys per invocation of the bucket pass",
                self.msd_rank_max
            ));
        }
        Ok(())
    }

    fn check_onesweep(&self, plan: &SubgroupPlan, ballot_words: u32) -> Result<()> {
        if self.rank_counters == RankCounters::Packed16 && self.sub_tile() >= 1 << 16 {
            return invalid("packed 16-bit rank counters need a sub-tile below 65536 keys".into());
        }
        if !(1..=4).contains(&self.sub_tiles)
            || (self.sub_tiles > 1
                && (self.rank_counters == RankCounters::PerSubgroup || self.keep_digit))
        {
            return invalid(format!(
                "sub_tiles {} must be 1..=4, and more than 1 needs scanned rank counters and no keep_digit",
                self.sub_tiles
            ));
        }
        if self.exchange_parts == 0
            || self.exchange_parts > self.keys_per_thread
            || (self.exchange_parts > 1 && self.keep_digit)
        {
            return invalid(format!(
                "exchange_parts {} must be 1..=keys_per_thread ({}), and more than 1 needs no keep_digit",
                self.exchange_parts, self.keys_per_thread
            ));
        }
        if !(1..=16).contains(&self.lookback_batch) {
            let lb = self.lookback_batch;
            return invalid(format!("lookback_batch {lb} not in 1..=16"));
        }
        if !(1..=32).contains(&self.short_keys_per_thread) {
            return invalid("short_keys_per_thread must be in 1..=32".into());
        }
        if ballot_words > 4 || (ballot_words > 0 && ballot_words * 32 < plan.max) {
            return invalid(format!(
                "ballot_words {ballot_words} must be 0 or cover the largest subgroup ({})",
                plan.max
            ));
        }
        Ok(())
    }

    fn check_upfront(&self) -> Result<()> {
        if !(1..=16).contains(&self.upfront_hist_copies) {
            return invalid("upfront_hist_copies must be in 1..=16".into());
        }
        if self.upfront_max_groups == 0 {
            return invalid("upfront_max_groups must be at least 1".into());
        }
        if !(1..=60000).contains(&self.spin_limit) {
            return invalid(format!("spin_limit {} not in 1..=60000", self.spin_limit));
        }
        Ok(())
    }

    fn check_workgroups(&self, caps: &DeviceCaps, plan: &SubgroupPlan) -> Result<()> {
        for (what, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("small_workgroup_size", self.small_workgroup_size),
            ("msd_split_workgroup_size", self.msd_split_workgroup_size),
            ("msd_bucket_workgroup_size", self.msd_bucket_workgroup_size),
            ("hybrid_workgroup_size", self.hybrid_workgroup_size),
        ] {
            if wg == 0 || wg > caps.max_workgroup_invocations || wg % plan.max != 0 {
                return invalid(format!(
                    "{what} {wg} must be a multiple of the subgroup size {} within {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        if self.small_sort_max > self.small_capacity() {
            return invalid(format!(
                "small_sort_max {} above small_workgroup_size x small_keys_per_thread",
                self.small_sort_max
            ));
        }
        Ok(())
    }

    fn check_shared_memory(
        &self,
        caps: &DeviceCaps,
        plan: &SubgroupPlan,
        item_words: u32,
        ballot_words: u32,
    ) -> Result<()> {
        let r4 = self.radix() as u64 * 4;
        let ballots = Self::ballot_words_for(plan, ballot_words);
        let small = self.small_workgroup_size;
        let passes = [
            self.onesweep_shared_bytes(plan, item_words, ballots),
            self.rank_shared_bytes(plan, small, self.small_capacity()),
            16 * 256 * 4,
            self.rank_shared_bytes(plan, self.msd_split_workgroup_size, 0) + r4,
            self.msd_bucket_shared_bytes(plan, self.msd_bucket_keys_per_thread),
            self.rank_shared_bytes(plan, self.hybrid_workgroup_size, self.hybrid_tile()) + r4,
        ];
        let most = passes.into_iter().max().unwrap_or(0);
        let shared = caps.max_shared_memory as u64;
        if most > shared {
            return invalid(format!(
                "needs {most} bytes of shared memory, the device has {shared}"
            ));
        }
        Ok(())
    }

    /// Overrides fields from `key=value,...` (`VKSORT_POLICY`): each field's key is in its documentation;
    /// booleans take 0 or 1, `rank2`/`mor`/`smor` the enum's index. Checked against a device by the sorter.
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        let peer_match = |v: u32| match v {
            0 => Ok(PeerMatch::Vote),
            1 => Ok(PeerMatch::LaneMasks),
            2 => Ok(PeerMatch::LaneMasksEager),
            _ => Err(format!("mor/smor={v}: peer matching is 0, 1 or 2")),
        };
        crate::policy::for_each_override(spec, "radix", |k, v, bad| {
            match k {
                "wg" => self.workgroup_size = v,
                "kpt" => self.keys_per_thread = v,
                "bits" => self.digit_bits = v,
                "part" => self.use_partitioned = v != 0,
                "early" => self.early_counts = v != 0,
                "uwg" => self.upfront_workgroup_size = v,
                "ukpt" => self.upfront_keys_per_thread = v,
                "ugroups" => self.upfront_max_groups = v,
                "ucopies" => self.upfront_hist_copies = v,
                "spin" => self.spin_limit = v,
                "rank2" => {
                    self.rank_counters = match v {
                        0 => RankCounters::PerSubgroup,
                        1 => RankCounters::Scanned,
                        2 => RankCounters::Packed16,
                        _ => return Err(bad(format!("rank2={v}: rank2 is 0, 1 or 2"))),
                    }
                }
                "keep_digit" | "keep" => self.keep_digit = v != 0,
                "uvec4" => self.upfront_vec4 = v != 0,
                "mor" => self.peer_match = peer_match(v).map_err(bad)?,
                "lb" => self.lookback_batch = v,
                "subs" => self.sub_tiles = v,
                "xparts" => self.exchange_parts = v,
                "smax" => self.short_max = v,
                "skpt" => self.short_keys_per_thread = v,
                "smor" => self.short_peer_match = peer_match(v).map_err(bad)?,
                "fmax" => self.fused_max = v,
                "floop" => self.fused_loop_max = v,
                "mmax" => self.msd_max = v,
                "mswg" => self.msd_split_workgroup_size = v,
                "mskpt" => self.msd_split_keys_per_thread = v,
                "mbwg" => self.msd_bucket_workgroup_size = v,
                "mbkpt" => self.msd_bucket_keys_per_thread = v,
                "mbmax" => self.msd_bucket_max_keys_per_thread = v,
                "mrank" => self.msd_rank_max = v,
                "msingle" => self.msd_single_kpt = v,
                "mhelp" => self.msd_helper_ratio = v,
                "mcoop" => self.msd_coop_min_keys = v,
                "mpart" => self.msd_partitioned = v != 0,
                "hwg" => self.hybrid_workgroup_size = v,
                "hkpt" => self.hybrid_keys_per_thread = v,
                "hmax" => self.hybrid_max = v,
                other => return Err(bad(format!("unknown key `{other}`"))),
            }
            Ok(())
        })?;
        Ok(self)
    }
}
