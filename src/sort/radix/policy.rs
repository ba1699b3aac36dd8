//! The radix sort's tuning: [`RadixPolicy`], made of one part per pass (override keys are field paths,
//! `tile.items_per_invocation=8`), its modes, each pass's shared memory and its check against a device.
//! The per-device values are in [`super::tuning`], diagnostics knobs in `RadixDebug`.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::{tunable, SubgroupPlan};
use crate::sort::algorithm::SortAlgorithm;

/// The most keys [`SortAlgorithm::Msd`] takes: its bucket pass keeps one entry per split tile in shared memory.
pub const MSD_MAX_KEYS: u64 = 1 << 20;

tunable! {
    /// Tuning of the radix sort, passed to the shaders as specialization constants: one part per pass.
    /// Override keys are the field paths ([`crate::policy::Policy`]); docs/tuning.md has the measurements.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct RadixPolicy {
        /// The Onesweep / reduce-then-scan tile: its shape, digit and ranking.
        pub tile: RankTile,
        /// Onesweep's look-back between the tiles of a place.
        pub lookback: Lookback,
        /// The upfront histogram pass (every place's digit counts in one read of the keys).
        pub upfront: UpfrontPass,
        /// The rank sort of small inputs.
        pub small: SmallSort,
        /// Onesweep's shorter tiles for sorts of few keys.
        pub short: ShortTiles,
        /// Onesweep in one dispatch (upfront, plan and every place).
        pub fused: FusedSort,
        /// The MSD sort: limits and helpers of its bucket pass.
        pub msd: MsdSort,
        /// The MSD sort's split (and differ) pass.
        pub msd_split: MsdSplitPass,
        /// The MSD sort's bucket pass (one workgroup per bucket).
        pub msd_bucket: MsdBucketPass,
        /// The hybrid sort's group pass.
        pub hybrid: HybridSort,
    }
}

impl crate::policy::Policy for RadixPolicy {
    const FAMILY: &'static str = "radix";
}

tunable! {
    /// The tile of the Onesweep, upsweep and downsweep passes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct RankTile {
        /// Invocations per workgroup.
        pub workgroup_size: u32,
        /// Keys per invocation: a sub-tile is workgroup_size x this.
        pub items_per_invocation: u32,
        /// Bits per digit place, 4..=8.
        pub digit_bits: u32,
        /// How the ranking keeps its per-digit counters (0, 1 or 2: [`RankCounters`]).
        pub rank_counters: RankCounters,
        /// Wide exchange: a second word (digit, value or high word) travels with each exchanged key.
        pub keep_digit: bool,
        /// How the ranking finds each key's peers (0, 1 or 2: [`PeerMatch`]).
        pub peer_match: PeerMatch,
        /// Sub-tiles ranked one after another per tile, one look-back for all, 1..=4.
        pub sub_tiles: u32,
        /// Parts in which each exchange round moves the tile through shared memory, 1..=items_per_invocation.
        pub exchange_parts: u32,
        /// Rank with match-any (VK_NV_shader_subgroup_partitioned) instead of ballots.
        pub partitioned: bool,
    }
}

tunable! {
    /// Onesweep's look-back.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Lookback {
        /// Polls of a predecessor before counting its digits itself, 1..=60000.
        pub spin_limit: u32,
        /// Predecessors' status words read per round trip, 1..=16.
        pub batch: u32,
        /// Publish each tile's digit counts before ranking it, not after.
        pub early_counts: bool,
        /// Whether Auto may use Onesweep (inter-workgroup waiting) on this device; else reduce-then-scan.
        pub safe: bool,
    }
}

tunable! {
    /// The upfront histogram pass.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct UpfrontPass {
        /// Invocations per workgroup (a multiple of the largest subgroup).
        pub workgroup_size: u32,
        /// Keys per invocation, per chunk.
        pub items_per_invocation: u32,
        /// Most workgroups, each looping over chunks.
        pub max_groups: u32,
        /// Shared histogram copies (clamped to the subgroups), 1..=16.
        pub hist_copies: u32,
        /// Read keys as 16-byte vectors where the tile and the keys' offset allow.
        pub vec4: bool,
    }
}

tunable! {
    /// The rank sort of small inputs (`SortAlgorithm::Small`): every workgroup holds all keys in shared memory
    /// and places a few of them by counting the keys that precede each.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct SmallSort {
        /// Auto's small sort up to this many keys (0: never; at most [`RadixPolicy::small_capacity`]).
        pub max: u32,
        /// Invocations of its workgroups.
        pub workgroup_size: u32,
        /// Keys held in shared memory per invocation: the capacity is workgroup_size x this.
        pub items_per_invocation: u32,
        /// Keys each subgroup places: a workgroup places this many per subgroup, every key compared with all n.
        pub targets_per_subgroup: u32,
        /// Sorts of at most this many keys (0: none; GPU-side counts: on the GPU) place `few_targets_per_subgroup`.
        pub few_max: u32,
        /// Keys each subgroup places in sorts of at most `few_max` keys: more workgroups, each shorter.
        pub few_targets_per_subgroup: u32,
    }
}

tunable! {
    /// Onesweep's short tiles (one exchange part, no sub-tiles) for sorts of few keys.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ShortTiles {
        /// Sorts of at most this many keys (0: none) use these tiles.
        pub max: u32,
        /// Keys per invocation of the short tiles, 1..=32.
        pub items_per_invocation: u32,
        /// Peer matching of the short tiles (0, 1 or 2: [`PeerMatch`]).
        pub peer_match: PeerMatch,
    }
}

tunable! {
    /// Onesweep in one dispatch.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct FusedSort {
        /// Onesweep sorts of one portion up to this many keys run in one dispatch (0: none).
        pub max: u32,
        /// Fused sorts up to this many keys claim items in a loop; larger ones one per workgroup.
        pub loop_max: u32,
    }
}

tunable! {
    /// The MSD sort.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MsdSort {
        /// Auto's MSD sort up to this many keys (0: never; at most 2^20, `MSD_MAX_KEYS`).
        pub max: u32,
        /// Buckets of at most this many keys are placed by counting, in one round (0: none).
        pub rank_max: u32,
        /// Sorts up to msd_split.workgroup_size x this keys take one split tile, no differ pass.
        pub single_items_per_invocation: u32,
        /// Helper workgroups of the bucket pass per bucket tile of the sort's keys, 1..=8.
        pub helper_ratio: u32,
        /// The helpers of a bucket of at least this many keys cooperate (0: never).
        pub coop_min_keys: u32,
        /// The MSD passes rank with match-any, apart from `tile.partitioned`.
        pub partitioned: bool,
    }
}

tunable! {
    /// The MSD split (and differ) pass.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MsdSplitPass {
        /// Invocations per workgroup.
        pub workgroup_size: u32,
        /// Keys per invocation.
        pub items_per_invocation: u32,
    }
}

tunable! {
    /// The MSD bucket pass.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MsdBucketPass {
        /// Invocations per workgroup (one workgroup per bucket).
        pub workgroup_size: u32,
        /// Least keys per invocation; larger buckets go to helpers.
        pub items_per_invocation: u32,
        /// Most keys per invocation it grows to for large sorts, 1..=32.
        pub max_items_per_invocation: u32,
    }
}

tunable! {
    /// The hybrid sort's group pass.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct HybridSort {
        /// Most keys of a hybrid sort (one group may hold them all; u32::MAX: no own limit).
        pub max: u32,
        /// Invocations per workgroup.
        pub workgroup_size: u32,
        /// Keys per invocation.
        pub items_per_invocation: u32,
    }
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

    /// The mode of index `v` (its spec constant's value).
    pub fn from_index(v: u32) -> std::result::Result<Self, String> {
        match v {
            0 => Ok(Self::PerSubgroup),
            1 => Ok(Self::Scanned),
            2 => Ok(Self::Packed16),
            _ => Err(format!("{v}: rank counters are 0, 1 or 2")),
        }
    }
}

/// How the Onesweep/downsweep ranking finds each key's peers in its subgroup (spec constant `MATCH_OR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PeerMatch {
    /// digit_bits + 2 subgroup votes (ballot), or match-any where the policy's `tile.partitioned` says so.
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

    /// The mode of index `v` (its spec constant's value).
    pub fn from_index(v: u32) -> std::result::Result<Self, String> {
        match v {
            0 => Ok(Self::Vote),
            1 => Ok(Self::LaneMasks),
            2 => Ok(Self::LaneMasksEager),
            _ => Err(format!("{v}: peer matching is 0, 1 or 2")),
        }
    }
}

crate::policy::leaf_field! {
    RankCounters => |v| RankCounters::from_index(v);
    PeerMatch => |v| PeerMatch::from_index(v);
}

/// The most keys of `key_words` words the small sort holds in `shared_bytes` (less 256 for the driver's own).
pub(crate) fn small_shared_keys(shared_bytes: u32, key_words: u32) -> u32 {
    shared_bytes.saturating_sub(256) / (4 * key_words.max(1))
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
        if n <= self.small.max as u64 {
            SortAlgorithm::Small
        } else if n <= self.msd.max as u64 {
            SortAlgorithm::Msd
        } else if self.lookback.safe {
            SortAlgorithm::Onesweep
        } else {
            SortAlgorithm::ReduceThenScan
        }
    }

    /// Whether an Onesweep sort of `n` keys over `places` places runs fused (at most 8: one done counter each).
    pub(crate) fn fuses(&self, n: u64, places: u32) -> bool {
        n <= self.fused.max as u64 && places <= 8
    }

    pub(crate) fn fused_loops(&self, n: u64) -> bool {
        n <= self.fused.loop_max as u64
    }

    /// The most keys the small sort takes: small.workgroup_size x small.items_per_invocation (a sorter never
    /// holds more than its shared memory does; [`RadixPolicy::for_sort`] fits 64-bit keys).
    pub fn small_capacity(&self) -> u32 {
        self.small.workgroup_size * self.small.items_per_invocation
    }

    /// Keys per tile of the MSD differ and split passes (sorts of one tile: [`Self::msd_split_items_per_invocation`]).
    pub fn msd_split_tile(&self) -> u32 {
        self.msd_split.workgroup_size * self.msd_split.items_per_invocation
    }

    /// The most keys an MSD sort splits in one tile, with no differ pass (0: none).
    pub fn msd_single_keys(&self) -> u64 {
        (self.msd_split.workgroup_size * self.msd.single_items_per_invocation) as u64
    }

    /// Keys per invocation of the MSD split pass for up to `max_n` keys (one tile's: see
    /// `msd.single_items_per_invocation`).
    pub fn msd_split_items_per_invocation(&self, max_n: u64) -> u32 {
        let wg = self.msd_split.workgroup_size.max(1) as u64;
        let one = max_n.div_ceil(wg).next_power_of_two() as u32;
        if one <= self.msd.single_items_per_invocation {
            one.max(self.msd_split.items_per_invocation)
        } else {
            self.msd_split.items_per_invocation
        }
    }

    /// MSD bucket pass helpers: `msd.helper_ratio` per bucket tile of `max_n` keys, at most 2048 (0: none).
    pub(crate) fn msd_helpers(&self, max_n: u64, bucket_kpt: u32) -> u32 {
        let tile = (self.msd_bucket.workgroup_size * bucket_kpt).max(1) as u64;
        if max_n <= tile {
            0
        } else {
            (self.msd.helper_ratio.max(1) as u64 * max_n.div_ceil(tile)).min(2048) as u32
        }
    }

    /// An upper bound on the loop iterations one invocation runs when a workgroup of `wg` invocations, `kpt`
    /// keys each, sorts `keys` keys through global memory on `places` digit places (radix_range.glsl
    /// `sort_range` with radix_rank.glsl's `rank_digits`, every loop counted as not unrolled), in subgroups of at
    /// least `min_subgroup` invocations (more subgroups: longer loops over them). The hybrid group pass and the
    /// MSD bucket pass's large shares sort this way; a device with a loop budget bounds their capacity by it.
    pub fn range_loops(
        &self,
        wg: u32,
        kpt: u32,
        places: u32,
        min_subgroup: u32,
        keys: u64,
    ) -> u64 {
        let wg = wg.max(1) as u64;
        let kpt = kpt.max(1) as u64;
        let radix = self.radix() as u64;
        let sub = min_subgroup.max(1) as u64;
        let subgroups = (wg / sub).max(1);
        let dpt = radix.div_ceil(wg);
        // scan_digit_totals: two loops over the invocation's digits, the workgroup scan's loop over subgroups.
        let scan = 2 * dpt + subgroups.div_ceil(sub);
        // rank_digits: clearing the histograms, the items in batches of 4 (three loops over a batch, one ballot
        // per digit bit each), the serial loop over subgroups per digit, the digit scan.
        let rank = (subgroups * radix).div_ceil(wg)
            + kpt.div_ceil(4)
            + kpt * (self.tile.digit_bits as u64 + 3)
            + dpt * (subgroups + 1)
            + scan;
        // A chunk of the range: clear, load, digits and store of the items, ranking, the running offsets.
        let chunk = 1 + 4 * kpt + rank + dpt;
        let per_invocation = keys.div_ceil(wg);
        let chunks = keys.div_ceil(wg * kpt);
        // The bits that differ and the final copy, then per place: three loops over the invocation's digits,
        // the histogram, the digit scan and the chunks.
        2 * per_invocation + places as u64 * (3 * dpt + per_invocation + scan + chunks * chunk)
    }

    pub(crate) fn msd_max_tiles(&self) -> u64 {
        MSD_MAX_KEYS.div_ceil(self.msd_split_tile() as u64)
    }

    /// Keys per Onesweep/downsweep tile (one claim, one look-back): tile.sub_tiles sub-tiles.
    pub fn tile(&self) -> u32 {
        self.sub_tile() * self.tile.sub_tiles
    }

    /// Keys ranked at once by a Onesweep/downsweep workgroup: tile.workgroup_size x tile.items_per_invocation.
    pub fn sub_tile(&self) -> u32 {
        self.tile.workgroup_size * self.tile.items_per_invocation
    }

    pub(crate) fn radix(&self) -> u32 {
        1 << self.tile.digit_bits
    }

    fn msd_bucket_shared_bytes(&self, plan: &SubgroupPlan, kpt: u32) -> u64 {
        let wg = self.msd_bucket.workgroup_size;
        let runs = (2 * self.msd_max_tiles() + 1) * 4;
        let helpers = (2 * self.radix() as u64 + 5) * 4;
        self.rank_shared_bytes(plan, wg, wg * kpt)
            .max(self.msd.rank_max as u64 * 8)
            .max(runs)
            + self.radix() as u64 * 4
            + helpers
    }

    /// MSD bucket pass keys per invocation for `max_n` keys: grown until a tile holds twice the average bucket.
    pub(crate) fn msd_bucket_items_per_invocation(
        &self,
        plan: &SubgroupPlan,
        max_n: u64,
        shared: u64,
    ) -> u32 {
        let wg = self.msd_bucket.workgroup_size.max(1) as u64;
        let want = (2 * max_n.div_ceil(self.radix() as u64))
            .div_ceil(wg)
            .next_power_of_two()
            .min(self.msd_bucket.max_items_per_invocation as u64) as u32;
        let mut kpt = want;
        while kpt > self.msd_bucket.items_per_invocation
            && self.msd_bucket_shared_bytes(plan, kpt) > shared
        {
            kpt /= 2;
        }
        kpt.max(self.msd_bucket.items_per_invocation)
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
        let max_sg = (self.tile.workgroup_size / plan.min.max(1)) as u64;
        let r = self.radix() as u64;
        let items = self.sub_tile() as u64;
        let counters = match self.tile.rank_counters {
            RankCounters::PerSubgroup => max_sg * r,
            k => {
                let c = max_sg * r / if k == RankCounters::Packed16 { 2 } else { 1 };
                c + (c >> 5) + 1 + max_sg
            }
        };
        let masks = match self.tile.peer_match {
            PeerMatch::Vote => 0,
            _ => max_sg * r * ballot_words as u64,
        };
        let keep = if self.tile.keep_digit { items } else { 0 };
        let parts = if self.tile.keep_digit {
            1
        } else {
            self.tile.exchange_parts.max(1)
        };
        let slots = if parts > 1 {
            self.tile.items_per_invocation.div_ceil(parts) as u64 * self.tile.workgroup_size as u64
        } else {
            items
        };
        let held = match self.tile.sub_tiles.saturating_sub(1) as u64 {
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
            ("tile.partitioned", self.tile.partitioned),
            ("msd.partitioned", self.msd.partitioned),
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
        if !(4..=8).contains(&self.tile.digit_bits) {
            return invalid(format!(
                "tile.digit_bits {} not in 4..=8",
                self.tile.digit_bits
            ));
        }
        if self.tile() > 1 << 16
            || self.small_capacity() > 1 << 16
            || self.msd_split_tile() > 1 << 16
            || self.msd_bucket.workgroup_size * self.msd_bucket.items_per_invocation > 1 << 16
            || self.hybrid_tile() > 1 << 16
        {
            return invalid("tiles of more than 2^16 keys".into());
        }
        let kpts = [
            self.tile.items_per_invocation,
            self.small.items_per_invocation,
            self.upfront.items_per_invocation,
            self.msd_split.items_per_invocation,
            self.msd_bucket.items_per_invocation,
            self.msd_bucket.max_items_per_invocation,
            self.hybrid.items_per_invocation,
        ];
        if kpts.iter().any(|k| !(1..=32).contains(k)) || self.msd.single_items_per_invocation > 32 {
            return invalid("items_per_invocation must be in 1..=32".into());
        }
        Ok(())
    }

    fn check_msd(&self) -> Result<()> {
        if !(1..=8).contains(&self.msd.helper_ratio) {
            let r = self.msd.helper_ratio;
            return invalid(format!("msd.helper_ratio {r} not in 1..=8"));
        }
        if self.msd.rank_max > 32 * self.msd_bucket.workgroup_size {
            return invalid(format!(
                "msd.rank_max {} above 32 keys per invocation of the bucket pass",
                self.msd.rank_max
            ));
        }
        Ok(())
    }

    fn check_onesweep(&self, plan: &SubgroupPlan, ballot_words: u32) -> Result<()> {
        if self.tile.rank_counters == RankCounters::Packed16 && self.sub_tile() >= 1 << 16 {
            return invalid("packed 16-bit rank counters need a sub-tile below 65536 keys".into());
        }
        if !(1..=4).contains(&self.tile.sub_tiles)
            || (self.tile.sub_tiles > 1
                && (self.tile.rank_counters == RankCounters::PerSubgroup || self.tile.keep_digit))
        {
            return invalid(format!(
                "tile.sub_tiles {} must be 1..=4, and more than 1 needs scanned rank counters and no tile.keep_digit",
                self.tile.sub_tiles
            ));
        }
        if self.tile.exchange_parts == 0
            || self.tile.exchange_parts > self.tile.items_per_invocation
            || (self.tile.exchange_parts > 1 && self.tile.keep_digit)
        {
            return invalid(format!(
                "tile.exchange_parts {} must be 1..=tile.items_per_invocation ({}), and more than 1 needs no tile.keep_digit",
                self.tile.exchange_parts, self.tile.items_per_invocation
            ));
        }
        if !(1..=16).contains(&self.lookback.batch) {
            let lb = self.lookback.batch;
            return invalid(format!("lookback.batch {lb} not in 1..=16"));
        }
        if !(1..=32).contains(&self.short.items_per_invocation) {
            return invalid("short.items_per_invocation must be in 1..=32".into());
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
        if !(1..=16).contains(&self.upfront.hist_copies) {
            return invalid("upfront.hist_copies must be in 1..=16".into());
        }
        if self.upfront.max_groups == 0 {
            return invalid("upfront.max_groups must be at least 1".into());
        }
        if !(1..=60000).contains(&self.lookback.spin_limit) {
            return invalid(format!(
                "lookback.spin_limit {} not in 1..=60000",
                self.lookback.spin_limit
            ));
        }
        Ok(())
    }

    fn check_workgroups(&self, caps: &DeviceCaps, plan: &SubgroupPlan) -> Result<()> {
        for (what, wg) in [
            ("tile.workgroup_size", self.tile.workgroup_size),
            ("small.workgroup_size", self.small.workgroup_size),
            ("msd_split.workgroup_size", self.msd_split.workgroup_size),
            ("msd_bucket.workgroup_size", self.msd_bucket.workgroup_size),
            ("hybrid.workgroup_size", self.hybrid.workgroup_size),
        ] {
            if wg == 0 || wg > caps.max_workgroup_invocations || wg % plan.max != 0 {
                return invalid(format!(
                    "{what} {wg} must be a multiple of the subgroup size {} within {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        for (what, tps) in [
            ("targets_per_subgroup", self.small.targets_per_subgroup),
            ("few_targets_per_subgroup", self.small.few_targets_per_subgroup),
        ] {
            if !(1..=64).contains(&tps) {
                return invalid(format!("small.{what} {tps} not in 1..=64"));
            }
        }
        if self.small.max > self.small_capacity() {
            return invalid(format!(
                "small.max {} above small.workgroup_size x small.items_per_invocation",
                self.small.max
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
        let passes = [
            self.onesweep_shared_bytes(plan, item_words, ballots),
            // The small sort's 32-bit keys (64-bit keys: RadixSort::small_capacity).
            self.small_capacity() as u64 * 4,
            16 * 256 * 4,
            self.rank_shared_bytes(plan, self.msd_split.workgroup_size, 0) + r4,
            self.msd_bucket_shared_bytes(plan, self.msd_bucket.items_per_invocation),
            self.rank_shared_bytes(plan, self.hybrid.workgroup_size, self.hybrid_tile()) + r4,
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
}
