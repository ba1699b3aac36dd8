//! The radix sort's tuning: [`RadixPolicy`] (tuning as data, passed to the shaders as specialization constants),
//! its modes as enums, the shared-memory budget of each pass computed from it, and its check against a device.
//! The per-device values are in [`super::tuning`] (the reasons in `docs/tuning.md`); timing and test knobs are
//! not here but in the `diagnostics` feature's `RadixDebug`.

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::algorithm::SortAlgorithm;

/// The most keys [`SortAlgorithm::Msd`] takes: its bucket pass keeps one entry per split tile in shared memory.
pub const MSD_MAX_KEYS: u64 = 1 << 20;

/// Tuning of the radix sort, passed to the shaders as specialization constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadixPolicy {
    /// Invocations per workgroup of the onesweep, upsweep and downsweep passes (rounded to a multiple of the
    /// largest subgroup size).
    pub workgroup_size: u32,
    /// Keys per invocation of those passes: a tile is workgroup_size x keys_per_thread keys.
    pub keys_per_thread: u32,
    /// Bits per digit place, 4..=8.
    pub digit_bits: u32,
    /// Look-back polls of a not-ready predecessor before the waiting workgroup counts its digits itself
    /// (1..=60000: lavapipe ends loops after 65535 iterations).
    pub spin_limit: u32,
    /// Rank with subgroupPartitionNV (match-any) instead of ballot matching; needs
    /// VK_NV_shader_subgroup_partitioned.
    pub use_partitioned: bool,
    /// Auto uses the one-workgroup sort up to this many keys (0: never; at most its capacity,
    /// [`RadixPolicy::small_capacity`], up to which an explicit [`SortAlgorithm::Small`] sorts).
    pub small_sort_max: u32,
    /// Invocations of the one-workgroup sort.
    pub small_workgroup_size: u32,
    /// Keys per invocation of the one-workgroup sort.
    pub small_keys_per_thread: u32,
    /// Invocations per workgroup of the upfront histogram pass (rounded to a multiple of the largest subgroup
    /// size). Default 256.
    pub upfront_workgroup_size: u32,
    /// Keys per invocation of the upfront histogram pass (per chunk).
    pub upfront_keys_per_thread: u32,
    /// Most workgroups of the upfront histogram pass (each loops over chunks), bounding its global atomics.
    pub upfront_max_groups: u32,
    /// Whether Auto may use Onesweep (inter-workgroup waiting) on this device; else reduce-then-scan.
    pub onesweep_safe: bool,
    /// Onesweep publishes each tile's digit counts (a shared-atomic histogram) before ranking it ("early
    /// counts"), so successors' look-backs wait less; false: after ranking.
    pub early_counts: bool,
    /// Shared histogram copies of the upfront pass (subgroups spread their atomics over them); clamped to
    /// the subgroups per workgroup and the shared memory (1..=16). Default 1: on an H200, 4 and 8 copies made
    /// the pass 1.6-4x slower (more shared memory, fewer resident workgroups).
    pub upfront_hist_copies: u32,
    /// How the Onesweep/downsweep ranking keeps its per-digit counters (see [`RankCounters`]). Default
    /// [`RankCounters::PerSubgroup`].
    pub rank_counters: RankCounters,
    /// Onesweep/downsweep wide exchange (`keep_digit`): a second shared array (tile x 4 bytes) carries a second
    /// word with each exchanged key (the digit for 32-bit keys, no recompute; the 32-bit value for u32-word keys
    /// with 32-bit values; the high word for 64-bit keys, so no separate digit round), and values move two words
    /// per round: 64-bit keys need 1 exchange round instead of 3, 64-bit key/value pairs 2 instead of 5.
    /// Default off.
    pub keep_digit: bool,
    /// Upfront histogram pass reads the keys as 16-byte vectors (`radix_upfront_vec4`), when
    /// upfront_keys_per_thread x key words is a multiple of 4 and the keys' offset is 16-byte aligned (else the
    /// scalar kernel runs). Default off.
    pub upfront_vec4: bool,
    /// How the Onesweep/downsweep ranking finds each key's peers (see [`PeerMatch`]). Default
    /// [`PeerMatch::Vote`].
    pub peer_match: PeerMatch,
    /// Onesweep look-back: predecessors' status words read per round trip (1..=16, default 4). More reads per
    /// trip walk back faster over predecessors that published only their own counts.
    pub lookback_batch: u32,
    /// Onesweep/downsweep with counters other than `PerSubgroup` (`subs`, 1..=4, default 1; not with `keep_digit`): a workgroup claims
    /// sub_tiles x workgroup_size x keys_per_thread keys and ranks them as that many sub-tiles, one after another
    /// with the same registers; all but the last wait, digit-sorted, in shared memory (sub-tile x (key + value
    /// words) x 4 bytes each) until the tile's offsets are known. One look-back and one published count then cover
    /// the whole tile: fewer tiles for the look-back to walk over.
    pub sub_tiles: u32,
    /// Onesweep/downsweep exchange parts (`xparts`, 1..=keys_per_thread, default 1; not with `keep_digit`): each
    /// exchange round moves the tile through shared memory in this many parts of ceil(keys_per_thread / parts) x
    /// workgroup_size keys, one after another, so the exchange needs that many words of shared memory instead of
    /// the whole tile's (two more barriers per round and part). A larger tile then fits where shared memory, not
    /// registers, limits the workgroups resident per SM.
    pub exchange_parts: u32,
    /// Sorts of at most this many keys (0: none) use `short_keys_per_thread` keys per invocation in Onesweep:
    /// smaller tiles, more workgroups, when a sort is too small to fill the GPU with full tiles.
    pub short_max: u32,
    /// Keys per invocation of Onesweep for sorts up to `short_max` keys (1..=32).
    pub short_keys_per_thread: u32,
    /// How Onesweep's ranking finds peers in sorts up to `short_max` keys (its short tiles keep one exchange
    /// part and no sub-tiles). Default [`PeerMatch::Vote`].
    pub short_peer_match: PeerMatch,
    /// Onesweep sorts of at most this many keys (host n or capacity; 0: none) run their upfront histogram, plan
    /// and every digit place in one dispatch (`vksort::radix::onesweep::fused`) after the setup pass, instead of
    /// one dispatch each: at these sizes a sort's time is mostly the dependent dispatches' fixed cost. Its
    /// workgroups claim the upfront chunks and then each place's tiles from one counter, and a tile waits for
    /// the place before it to finish (safe without co-residency: it only waits on items claimed before its
    /// own). Sorts of one portion only. Default 0 (off) except where measured (NVIDIA).
    pub fused_max: u32,
    /// Fused sorts of at most this many keys (host n or capacity) run one workgroup per tile, each claiming
    /// items until none is left: a place's tiles then spread over the SMs like the grid. Larger fused sorts run
    /// one workgroup per item, which keeps no state across items (fewer registers, more workgroups resident);
    /// with a GPU-side count, the kernel then picks the form by the count. CPU drivers always run the fused
    /// sort on one claiming workgroup. Default 0 (NVIDIA: 2^20, where the claiming form was measured faster).
    pub fused_loop_max: u32,
    /// Auto uses the three-dispatch MSD sort ([`crate::sort::SortAlgorithm::Msd`]) for sorts above `small_sort_max` and up to this many keys
    /// (host n or capacity; 0: never; at most `MSD_MAX_KEYS`). It pays while buckets are small: its split pass
    /// combines one min/max word set per split tile in every workgroup, and one workgroup sorts each bucket.
    pub msd_max: u32,
    /// Invocations of the MSD split pass (`msd::split`).
    pub msd_split_workgroup_size: u32,
    /// Keys per invocation of the MSD split pass: a split tile is msd_split_workgroup_size x this.
    pub msd_split_keys_per_thread: u32,
    /// Invocations of the MSD bucket pass (`msd::buckets`, one workgroup per bucket).
    pub msd_bucket_workgroup_size: u32,
    /// Keys per invocation of the MSD bucket pass (at least; sorts of more than 2^digit_bits x
    /// msd_bucket_workgroup_size x this / 2 keys get more, up to `msd_bucket_max_keys_per_thread`, where the
    /// shared memory allows: a bucket tile then holds twice the average bucket): buckets of up to msd_bucket_workgroup_size x keys per
    /// invocation (and more than msd_rank_max) are sorted in registers; larger ones are shared by the pass's
    /// helper workgroups (`msd_helper_ratio` per bucket tile of the sort), by quantiles of a sample.
    pub msd_bucket_keys_per_thread: u32,
    /// The most keys per invocation the MSD bucket pass grows to for large sorts (1..=32; at or below
    /// `msd_bucket_keys_per_thread`: no growth). Its pipeline's compile time grows with it (the keys of an
    /// invocation are unrolled): a larger bucket tile leaves fewer buckets to the helpers. Default 16.
    pub msd_bucket_max_keys_per_thread: u32,
    /// MSD buckets of at most this many keys (0: none; at most 32 x msd_bucket_workgroup_size) are placed by
    /// counting, in one round: each key's place is the number of the bucket's keys that precede it, found by
    /// comparing it with all of them in shared memory (m^2 comparisons for m keys). Larger buckets take the
    /// radix rounds (in registers, or through global memory). Shared memory: this x 8 bytes.
    pub msd_rank_max: u32,
    /// MSD sorts of at most msd_split_workgroup_size x this many keys (0: none; at most 32) take one split tile
    /// (keys per invocation raised to a power of two up to this) and no differ pass: two dispatches, but one
    /// workgroup splits all keys. Default 4.
    pub msd_single_kpt: u32,
    /// Helper workgroups of the MSD bucket pass per bucket tile of the sort's keys (1..=8, default 2): buckets
    /// larger than the bucket tile share max_n / bucket tile x this many helpers (at most 2048). More helpers
    /// leave each a smaller share of a skewed bucket; each costs a short workgroup when no bucket is that large.
    pub msd_helper_ratio: u32,
    /// The MSD helpers of a bucket of at least this many keys cooperate (0: never): each reads 1/h of the
    /// bucket, they exchange counts through global memory and each scatters its part to the others' shares,
    /// instead of each reading the whole bucket twice alone (whose cost grows with the bucket, while
    /// cooperating costs a fixed exchange). Their waits poll at most `spin_limit` times: when some helper is not running
    /// yet, the bucket's helpers fall back to working alone. Default 1 on GPUs (every bucket whose helpers'
    /// parts fit the tile); 0 on CPU drivers (lavapipe runs one workgroup at a time, so the waits would only
    /// time out). The helpers of a bucket must all run at once to cooperate: bucket workgroups so wide that few
    /// fit an SM (1024 invocations on NVIDIA) leave many helpers waiting, and their cooperation times out.
    pub msd_coop_min_keys: u32,
    /// The MSD passes (split and buckets) rank with match-any instead of ballots; needs
    /// VK_NV_shader_subgroup_partitioned. Apart from `use_partitioned`: on NVIDIA, 32-bit keys rank the
    /// Onesweep passes with ballots but the MSD passes with match-any (lighter pipelines, same speed).
    pub msd_partitioned: bool,
    /// Invocations of the hybrid sort's group pass ([`SortAlgorithm::Hybrid`], `hybrid::local`).
    pub hybrid_workgroup_size: u32,
    /// Keys per invocation of the hybrid sort's group pass: groups of up to hybrid_workgroup_size x this many
    /// keys (the group tile) are sorted in registers; the sort's MSD places are chosen so that groups hold
    /// at most 7/8 of a group tile on average ([`RadixPolicy::hybrid_geometry`]).
    pub hybrid_keys_per_thread: u32,
    /// Most keys of a hybrid sort (explicit [`SortAlgorithm::Hybrid`]; larger ones get
    /// `Error::AlgorithmLimit`): a group larger than the group tile is sorted by one workgroup, and a skewed
    /// input may put nearly all keys in one group. CPU drivers (lavapipe) end a shader invocation after 65535
    /// loop iterations, so there the one workgroup must never face more than this; u32::MAX: no limit but
    /// the radix sort's.
    pub hybrid_max: u32,
}

/// How the Onesweep/downsweep ranking keeps its per-digit counters (spec constant `RANK2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RankCounters {
    /// Per-subgroup histograms, a per-digit serial loop over subgroups, a separate digit scan.
    #[default]
    PerSubgroup,
    /// CUB style: per-subgroup digit counters laid out `[digit][subgroup]` and one workgroup scan over all of
    /// them (2-4 barriers fewer per tile; ~1/32 more shared memory for the padded counters).
    Scanned,
    /// As `Scanned`, with 16-bit counters packed two per word (half the zeroing and scanning; needs a sub-tile
    /// below 65536 keys).
    Packed16,
}

impl RankCounters {
    /// The shaders' `RANK2` value.
    pub(crate) fn spec(self) -> u32 {
        self as u32
    }
}

/// How the Onesweep/downsweep ranking finds each key's peers, the keys of its subgroup with its digit (spec
/// constant `MATCH_OR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PeerMatch {
    /// digit_bits + 2 subgroup votes (ballot), or match-any where the policy's `use_partitioned` says so.
    #[default]
    Vote,
    /// Lane masks in shared memory (one atomicOr, one read and three subgroup barriers per key), the rank
    /// counters then updated in one batch. The masks take subgroups x 2^digit_bits x ballot words x 4 bytes of
    /// shared memory past the rank counters.
    LaneMasks,
    /// As `LaneMasks`, each key's counter updated right away (fewer live registers).
    LaneMasksEager,
}

impl PeerMatch {
    /// The shaders' `MATCH_OR` value.
    pub(crate) fn spec(self) -> u32 {
        self as u32
    }
}

impl RadixPolicy {
    /// What [`SortAlgorithm::Auto`] runs for `n` keys: the one-workgroup sort up to `small_sort_max`, the MSD
    /// sort up to `msd_max`, then Onesweep where `onesweep_safe`, else reduce-then-scan.
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

    /// Whether an Onesweep sort of `n` keys (host n or capacity) over `places` digit places runs in one dispatch:
    /// at most `fused_max` keys and at most 8 places (the control block holds one done counter per place).
    pub(crate) fn fuses(&self, n: u64, places: u32) -> bool {
        n <= self.fused_max as u64 && places <= 8
    }

    /// Whether a fused sort of `n` keys (host n or capacity) runs one workgroup per tile claiming items in a
    /// loop (else one workgroup per item, except on CPU drivers).
    pub(crate) fn fused_loops(&self, n: u64) -> bool {
        n <= self.fused_loop_max as u64
    }

    /// The most keys the one-workgroup sort takes: small_workgroup_size x small_keys_per_thread.
    pub fn small_capacity(&self) -> u32 {
        self.small_workgroup_size * self.small_keys_per_thread
    }

    /// Keys per tile of the MSD sort's differ and split passes (the policy's; sorts of one tile may use more,
    /// see [`Self::msd_split_kpt`]).
    pub fn msd_split_tile(&self) -> u32 {
        self.msd_split_workgroup_size * self.msd_split_keys_per_thread
    }

    /// The most keys an MSD sort splits in one tile, with no differ pass: msd_split_workgroup_size x
    /// msd_single_kpt (0: none).
    pub fn msd_single_keys(&self) -> u64 {
        (self.msd_split_workgroup_size * self.msd_single_kpt) as u64
    }

    /// Keys per invocation of the MSD split pass for sorts of up to `max_n` keys: enough for one tile when that
    /// takes at most `msd_single_kpt` (then the sort needs no differ pass), else the policy's.
    pub fn msd_split_kpt(&self, max_n: u64) -> u32 {
        let wg = self.msd_split_workgroup_size.max(1) as u64;
        let one = max_n.div_ceil(wg).next_power_of_two() as u32;
        if one <= self.msd_single_kpt {
            one.max(self.msd_split_keys_per_thread)
        } else {
            self.msd_split_keys_per_thread
        }
    }

    /// Helper workgroups of the MSD bucket pass for sorts of up to `max_n` keys with `bucket_kpt` keys per
    /// invocation: `msd_helper_ratio` x the bucket tiles of `max_n` keys (at most 2048; 0 when no bucket can
    /// outgrow the tile). Buckets larger than the bucket tile share them in proportion to their keys, at least
    /// one each (there are fewer such buckets than bucket tiles in `max_n` keys, and than 2^digit_bits).
    pub(crate) fn msd_helpers(&self, max_n: u64, bucket_kpt: u32) -> u32 {
        let tile = (self.msd_bucket_workgroup_size * bucket_kpt).max(1) as u64;
        if max_n <= tile {
            0
        } else {
            (self.msd_helper_ratio.max(1) as u64 * max_n.div_ceil(tile)).min(2048) as u32
        }
    }

    /// The most split tiles an MSD sort may have (up to `MSD_MAX_KEYS` keys in the policy's split tiles): the
    /// bucket pass's run tables in shared memory hold one entry per tile.
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

    /// The hybrid sort's shape for up to `max_n` keys sorted on `places` digit places of `bits` bits in all:
    /// (MSD places P, log2 of the groups). The target is 7/8 of the group tile: P is the fewest places (at
    /// least 1, at most places - 1) whose top bits leave at most that many keys per prefix on average (for
    /// uniform keys the largest group then still fits the tile), and the groups are the fewest (a power of two,
    /// up to 2^16, at most one per prefix) whose average is at most the target. P = 0 when the keys have one
    /// place (the hybrid sort is then Onesweep).
    pub fn hybrid_geometry(&self, places: u32, bits: u32, max_n: u64) -> (u32, u32) {
        if places < 2 {
            return (0, 0);
        }
        let target = (self.hybrid_tile() as u64 * 7 / 8).max(1);
        let d = self.digit_bits;
        // Prefix bits of the top p places (the highest may be partial).
        let width = |p: u32| bits - (places - p) * d;
        let mut p = 1;
        while p < places - 1 && max_n >> width(p).min(63) > target {
            p += 1;
        }
        let need = max_n.div_ceil(target).max(1);
        let g = (64 - (need - 1).leading_zeros()).min(width(p)).min(16);
        (p, g)
    }

    /// Keys per Onesweep/downsweep tile (one tile claim, one look-back): sub_tiles sub-tiles.
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

    /// Shared memory of the MSD bucket pass with `kpt` keys per invocation: the bucket tile or the rank
    /// counters, the counted bucket's numbers or the run tables (one entry per split tile), whichever is larger,
    /// plus the per-digit arrays and the helpers' arrays (the sample's numbers, two words each; role and
    /// decision: 5 words).
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

    /// Keys per invocation of the MSD bucket pass for sorts of up to `max_n` keys: the policy's, or more (a power
    /// of two up to `msd_bucket_max_keys_per_thread`, as far as `shared` bytes allow) so that a bucket tile holds
    /// twice the average bucket (max_n / 2^digit_bits keys) and buckets rarely take the slow path.
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

    /// Shared memory bytes of a ranking kernel with `wg` invocations and `items` keys per workgroup.
    fn rank_shared_bytes(&self, plan: &SubgroupPlan, wg: u32, items: u32) -> u64 {
        let max_sg = (wg / plan.min.max(1)) as u64;
        let r = self.radix() as u64;
        let words = (items as u64).max(max_sg * r) + 3 * r + max_sg + 4;
        words * 4
    }

    /// 32-bit words of a ballot the ranking handles: the policy's, or ceil(largest subgroup / 32).
    pub(crate) fn ballot_words_for(plan: &SubgroupPlan, forced: u32) -> u32 {
        match forced {
            0 => plan.max.div_ceil(32).clamp(1, 4),
            w => w,
        }
    }

    /// Shared memory bytes of the Onesweep/downsweep kernel (glsl/sort/radix/radix_onesweep.comp: smem holds the tile,
    /// or the rank counters followed by the match_or lane masks, whichever is larger; then the per-digit arrays).
    /// `item_words`: 32-bit words per key and value (the parked sub-tiles hold them all).
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
        // The exchange's slots: one part of the (sub-)tile (the whole tile with keep_digit or one part).
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

    /// Checks the policy against the device (shared memory, limits, features), for keys and values of one
    /// 32-bit word together (the smallest; [`RadixPolicy::check_items`] for others).
    pub fn check(&self, caps: &DeviceCaps, plan: &SubgroupPlan) -> Result<()> {
        self.check_items(caps, plan, 1)
    }

    /// [`RadixPolicy::check`] for keys and values of `item_words` 32-bit words together (Onesweep's parked
    /// sub-tiles hold them all).
    pub fn check_items(
        &self,
        caps: &DeviceCaps,
        plan: &SubgroupPlan,
        item_words: u32,
    ) -> Result<()> {
        self.check_with(caps, plan, item_words, 0)
    }

    /// [`RadixPolicy::check_items`] with the ranking's ballot words forced to `ballot_words` (0: derived from
    /// the largest subgroup size; a diagnostics knob).
    pub(crate) fn check_with(
        &self,
        caps: &DeviceCaps,
        plan: &SubgroupPlan,
        item_words: u32,
        ballot_words: u32,
    ) -> Result<()> {
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "radix",
                what,
            })
        };
        if !(4..=8).contains(&self.digit_bits) {
            return bad(format!("digit_bits {} not in 4..=8", self.digit_bits));
        }
        if self.tile() > 1 << 16
            || self.small_workgroup_size * self.small_keys_per_thread > 1 << 16
            || self.msd_split_workgroup_size * self.msd_split_keys_per_thread > 1 << 16
            || self.msd_bucket_workgroup_size * self.msd_bucket_keys_per_thread > 1 << 16
            || self.hybrid_tile() > 1 << 16
        {
            return bad("tiles of more than 2^16 keys".into());
        }
        if !(1..=32).contains(&self.keys_per_thread)
            || !(1..=32).contains(&self.small_keys_per_thread)
            || !(1..=32).contains(&self.upfront_keys_per_thread)
            || !(1..=32).contains(&self.msd_split_keys_per_thread)
            || !(1..=32).contains(&self.msd_bucket_keys_per_thread)
            || !(1..=32).contains(&self.msd_bucket_max_keys_per_thread)
            || !(1..=32).contains(&self.hybrid_keys_per_thread)
            || self.msd_single_kpt > 32
        {
            return bad("keys per thread must be in 1..=32".into());
        }
        if !(1..=8).contains(&self.msd_helper_ratio) {
            return bad(format!(
                "msd_helper_ratio {} not in 1..=8",
                self.msd_helper_ratio
            ));
        }
        if self.msd_rank_max > 32 * self.msd_bucket_workgroup_size {
            return bad(format!(
                "msd_rank_max {} above 32 keys per invocation of the bucket pass",
                self.msd_rank_max
            ));
        }
        if self.rank_counters == RankCounters::Packed16 && self.sub_tile() >= 1 << 16 {
            return bad("packed 16-bit rank counters need a sub-tile below 65536 keys".into());
        }
        if !(1..=4).contains(&self.sub_tiles)
            || (self.sub_tiles > 1
                && (self.rank_counters == RankCounters::PerSubgroup || self.keep_digit))
        {
            return bad(format!(
                "sub_tiles {} must be 1..=4, and more than 1 needs scanned rank counters and no keep_digit",
                self.sub_tiles
            ));
        }
        if self.exchange_parts == 0
            || self.exchange_parts > self.keys_per_thread
            || (self.exchange_parts > 1 && self.keep_digit)
        {
            return bad(format!(
                "exchange_parts {} must be 1..=keys_per_thread ({}), and more than 1 needs no keep_digit",
                self.exchange_parts, self.keys_per_thread
            ));
        }
        if !(1..=16).contains(&self.lookback_batch) {
            return bad(format!(
                "lookback_batch {} not in 1..=16",
                self.lookback_batch
            ));
        }
        if !(1..=32).contains(&self.short_keys_per_thread) {
            return bad("short_keys_per_thread must be in 1..=32".into());
        }
        if ballot_words > 4 || (ballot_words > 0 && ballot_words * 32 < plan.max) {
            return bad(format!(
                "ballot_words {ballot_words} must be 0 or cover the largest subgroup ({})",
                plan.max
            ));
        }
        if !(1..=16).contains(&self.upfront_hist_copies) {
            return bad("upfront_hist_copies must be in 1..=16".into());
        }
        if self.upfront_max_groups == 0 {
            return bad("upfront_max_groups must be at least 1".into());
        }
        if !(1..=60000).contains(&self.spin_limit) {
            return bad(format!("spin_limit {} not in 1..=60000", self.spin_limit));
        }
        for (what, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("small_workgroup_size", self.small_workgroup_size),
            ("msd_split_workgroup_size", self.msd_split_workgroup_size),
            ("msd_bucket_workgroup_size", self.msd_bucket_workgroup_size),
            ("hybrid_workgroup_size", self.hybrid_workgroup_size),
        ] {
            if wg == 0 || wg > caps.max_workgroup_invocations || wg % plan.max != 0 {
                return bad(format!(
                    "{what} {wg} must be a multiple of the subgroup size {} within {}",
                    plan.max, caps.max_workgroup_invocations
                ));
            }
        }
        if self.small_sort_max > self.small_workgroup_size * self.small_keys_per_thread {
            return bad(format!(
                "small_sort_max {} above small_workgroup_size x small_keys_per_thread",
                self.small_sort_max
            ));
        }
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
        let shared = caps.max_shared_memory as u64;
        let a = self.onesweep_shared_bytes(
            plan,
            item_words,
            Self::ballot_words_for(plan, ballot_words),
        );
        let b = self.rank_shared_bytes(
            plan,
            self.small_workgroup_size,
            self.small_workgroup_size * self.small_keys_per_thread,
        );
        let c = 16 * 256 * 4;
        // The MSD passes: the rank counters (split) or the bucket tile, plus four per-digit arrays.
        let r4 = self.radix() as u64 * 4;
        let d = self.rank_shared_bytes(plan, self.msd_split_workgroup_size, 0) + r4;
        let e = self.msd_bucket_shared_bytes(plan, self.msd_bucket_keys_per_thread);
        // The hybrid group pass: the group tile or the rank counters, plus three per-digit arrays.
        let f = self.rank_shared_bytes(plan, self.hybrid_workgroup_size, self.hybrid_tile())
            + self.radix() as u64 * 4;
        let most = a.max(b).max(c).max(d).max(e).max(f);
        if most > shared {
            return bad(format!(
                "needs {most} bytes of shared memory, the device has {shared}"
            ));
        }
        Ok(())
    }

    /// Overrides fields from a tuning string `key=value,...` (the `VKSORT_POLICY` variable of the examples and
    /// benches). Keys: wg, kpt, bits, part, early, uwg, ukpt, ugroups, ucopies, spin, rank2 (rank_counters: 0
    /// PerSubgroup, 1 Scanned, 2 Packed16), keep (or keep_digit), uvec4, mor (peer_match: 0 Vote, 1 LaneMasks, 2
    /// LaneMasksEager), lb (lookback_batch), subs (sub_tiles), xparts (exchange_parts), smax (short_max), skpt
    /// (short_keys_per_thread), smor (short_peer_match, as mor), fmax (fused_max), floop (fused_loop_max), mmax
    /// (msd_max), mswg, mskpt (the MSD split pass's workgroup size and keys per invocation), mbwg, mbkpt (the
    /// bucket pass's), mbmax
    /// (msd_bucket_max_keys_per_thread), mrank (msd_rank_max), msingle (msd_single_kpt), mhelp (msd_helper_ratio),
    /// mcoop (msd_coop_min_keys), mpart (msd_partitioned), hwg, hkpt (the hybrid group
    /// pass's workgroup size and keys per invocation), hmax (hybrid_max); boolean fields take 0 or 1. Nothing is
    /// checked against a device here (the sorter does that).
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
