//! LSD radix sort, one pass per digit place (Onesweep, after Adinets & Merrill 2022), with a reduce-then-scan
//! alternative, a three-dispatch MSD sort and a one-workgroup sort for small inputs. The dispatch/plan layer:
//! policy, scratch layout, and the sequence of passes. The public API is [`crate::sort`].
//!
//! # Passes (labels) and bytes moved per key (k = key bytes, v = value bytes)
//! - `vksort::radix::setup`: zeroes the control block, the histograms and (Onesweep) the look-back status
//!   slots (~4 x places x 2^digit_bits / tile B per key; one dispatch per binding-sized chunk), and writes n:
//!   the host's, or the GPU-side count clamped to the capacity (with an overflow flag), and the upfront pass's
//!   indirect arguments.
//! - `vksort::radix::upfront`: reads the keys once (k B/key) and builds the histograms of every digit place.
//! - `vksort::radix::plan` (sorts of several portions; with one, the upfront pass's last workgroup plans):
//!   one workgroup: global exclusive digit offsets per place; skips places whose
//!   histogram has one digit holding all n keys (a no-op pass); writes every later pass's indirect dispatch
//!   arguments (0 groups when skipped) and which side (caller's buffers or scratch) each pass reads.
//! - `vksort::radix::onesweep::place<p>` (Onesweep, one per place): reads and writes keys and values once
//!   (2(k + v) B/key) plus the look-back status (~4 x 2^digit_bits / tile B per tile).
//! - reduce-then-scan per place: `vksort::radix::upsweep::place<p>` (k B/key), `vksort::radix::spine::place<p>`
//!   (the tile counts), `vksort::radix::downsweep::place<p>` (2(k + v) B/key).
//! - `vksort::radix::small`: the whole sort in one workgroup (k + v read, k + v written, once).
//! - `vksort::radix::msd::differ`, `vksort::radix::msd::split`, `vksort::radix::msd::buckets` (the MSD sort for
//!   small inputs, [`msd`]): the differ pass reads the keys (k B/key) for per-tile AND/OR words; the split pass
//!   reads keys and values and writes them, each tile sorted on the split digit, to the scratch (2(k + v) B/key)
//!   with a run table (4 x 2^digit_bits B per split tile); the bucket pass reads them back and writes k + v once
//!   (buckets larger than its tile: each of their helper workgroups reads the bucket's keys twice, and its
//!   share is written to the second scratch and back). No setup pass, no zeroed memory beyond
//!   the 2^digit_bits split-digit counts (the differ pass zeroes them), no waiting between workgroups.
//! - `vksort::radix::copy`: recorded only for an odd number of places (with an even number the plan runs one
//!   skipped place anyway when the passes to run are odd); it copies only when an odd number of passes ran
//!   (decided on the GPU; indirect with 0 groups otherwise): 2(k + v) B/key.
//!
//! Every pass after the first is separated by [`Recorder::barrier`]; all later passes are dispatched
//! indirectly from arguments the plan (or setup) pass wrote, and read n from the control block. Sorts of at
//! most the policy's `short_max` keys (host n or capacity) run through a second `RadixSort` whose tiles hold
//! `short_keys_per_thread` keys per invocation ([`RadixSort::pick`]); [`RadixSort::scratch_bytes`] covers both.
//!
//! # Scratch layout (`storage_requirements(max_n)`, offsets aligned to 256 bytes)
//! `[alt keys: max_n x k][alt values: max_n x v][meta: control block (CTRL_WORDS u32) | digit offsets
//! (2 x places x RADIX u32)][status: Onesweep's places x portions slots (tile counter + tiles per portion x RADIX
//! u32), or reduce-then-scan's RADIX x tiles counts, whichever is larger][MSD sort, when the sorter may use it
//! (configured, or Auto up to `msd_max`): second scratch keys and values for min(max_n, msd capacity) keys |
//! AND/OR words (4 u32 per split tile) | run table (RADIX x split tiles u32) | split-digit counts (RADIX u32)]`.
//!
//! # Portions and wide writes
//! [`RadixSort::portions`] cuts a sort into portions of whole tiles: at most 2^30 - 1 keys each (the look-back
//! status word's count), and, when an array exceeds one binding (`maxStorageBufferRange`), at most one binding
//! of keys and of values each; the policy's `portion_tiles` can force smaller ones (tests). Every per-key pass
//! runs once per portion (labels `...::portion<q>`), separated by barriers. Onesweep's portions have their own
//! look-back domains; portion q's global digit offsets are the plan's plus the digit counts of portions < q,
//! which portion q - 1's last tile leaves in the place's second offsets array (two arrays used alternately).
//! Reduce-then-scan needs no carry (its spine covers all tiles). "Wide" sorts (an array beyond one binding, or
//! the policy's `force_wide`) bind each portion's sources from its first key and write through 64-bit buffer
//! device addresses (the `*_wide` kernel variants; `bufferDeviceAddress` and `SHADER_DEVICE_ADDRESS` usage).
//!
//! # Forward progress
//! Onesweep's look-back polls a predecessor's status at most `spin_limit` times; then the waiting workgroup
//! counts the predecessor tile's digit from its keys and goes on, so it never depends on another workgroup
//! being scheduled. `stall_every` (tests) makes chosen tiles never publish, forcing that path.

pub mod clocks;
pub mod msd;
pub mod onesweep;
pub mod rts;
pub mod setup;
pub mod small;
pub mod upfront;

use crate::error::{Error, Result};
use crate::gpu::{BufferRef, Context, DeviceCaps, Kernel, Recorder};
use crate::policy::SubgroupPlan;
use crate::sort::types::{KeyType, Order};
use crate::sort::{SortAlgorithm, SortConfig};
use ash::vk;
use std::sync::Arc;

/// Control block words (u32 index into the meta region; see `glsl/sort/radix/radix_common.glsl`).
pub const CTRL_N: u64 = 0;
pub const CTRL_OVERFLOW: u64 = 1;
pub const CTRL_RAW_COUNT: u64 = 2;
pub const CTRL_TILES: u64 = 3;
pub(crate) const CTRL_UPFRONT_ARGS: u64 = 4;
pub(crate) const CTRL_COPY_ARGS: u64 = 8;
pub(crate) const CTRL_PASS: u64 = 32;
pub(crate) const CTRL_WORDS: u64 = 256;
/// The most keys [`SortAlgorithm::Msd`] takes: its bucket pass keeps one entry per split tile in shared memory.
pub const MSD_MAX_KEYS: u64 = 1 << 20;

/// Keys per invocation per step of the MSD bucket pass's helper sweeps (its spec constant `SW`).
pub(crate) const MSD_SWEEP_KEYS: u32 = 16;
/// Onesweep status slot: words before the first tile's status (the tile counter is word 0).
pub(crate) const STATUS_HDR: u64 = 32;
/// Most keys one sort takes: 2^32 - 2^16 (counts and indices are 32-bit words on the GPU, and rounding a count
/// up to whole tiles or chunks, at most 2^16 keys each, must not wrap). Larger sorts than one look-back status
/// word can count (2^30 - 1 keys) or than one binding can hold are cut into portions.
pub const MAX_KEYS: u64 = (1 << 32) - (1 << 16);
/// Most keys of one Onesweep portion (the look-back status word holds a 30-bit count).
pub const MAX_PORTION_KEYS: u64 = (1 << 30) - 1;

/// Usage flags the scratch buffer needs (plus `SHADER_DEVICE_ADDRESS` for sorts whose arrays exceed one
/// binding: [`crate::sort::StorageRequirements::scratch_usage`]). No transfer usage: the setup pass zeroes the
/// scratch with a compute shader.
pub const SCRATCH_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw() | vk::BufferUsageFlags::INDIRECT_BUFFER.as_raw(),
);

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
    /// Tests only: tiles with id % stall_every == 1 never publish their look-back status (0: off).
    pub stall_every: u32,
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
    /// Keys per invocation of the upfront histogram pass (per chunk).
    pub upfront_keys_per_thread: u32,
    /// Most workgroups of the upfront histogram pass (each loops over chunks), bounding its global atomics.
    pub upfront_max_groups: u32,
    /// Whether Auto may use Onesweep (inter-workgroup waiting) on this device; else reduce-then-scan.
    pub onesweep_safe: bool,
    /// Onesweep publishes each tile's digit counts (a shared-atomic histogram) before ranking it ("early
    /// counts"), so successors' look-backs wait less; false: after ranking.
    pub early_counts: bool,
    /// Timing experiments only, 0 otherwise (the sort's result is WRONG when non-zero): Onesweep bit 0 skips the
    /// look-back wait, bit 1 the matching of the ranking, bit 2 the scatter (keys stay in their tile's range); bit 5
    /// leaves out the plan (the passes then run no workgroups), bit 6 stops the upfront pass after its
    /// shared-memory counting.
    pub debug_mode: u32,
    /// Shared histogram copies of the upfront pass (subgroups spread their atomics over them); clamped to
    /// the subgroups per workgroup and the shared memory (1..=16). Default 1: on an H200, 4 and 8 copies made
    /// the pass 1.6-4x slower (more shared memory, fewer resident workgroups).
    pub upfront_hist_copies: u32,
    /// Onesweep/downsweep ranking, CUB style (`rank2`): 0 off (default: per-subgroup histograms, a per-digit
    /// serial loop over subgroups, a separate digit scan); 1: per-subgroup digit counters laid out
    /// `[digit][subgroup]` and one workgroup scan over all of them (2-4 barriers fewer per tile; ~1/32 more shared
    /// memory for the padded counters); 2: the same with 16-bit counters packed two per word (half the zeroing
    /// and scanning; needs a tile below 65536 keys).
    pub rank2: u32,
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
    /// Tiles per portion: 0 (default) cuts a sort into as few portions as the look-back status (2^30 - 1 keys)
    /// and the binding range allow; a smaller value forces more portions (tests of the portion path).
    pub portion_tiles: u32,
    /// Write through 64-bit device addresses (the passes' `wide` variants) even when every array fits one
    /// binding (tests of that path; needs `bufferDeviceAddress`). Default off: wide is used only when an array
    /// exceeds `maxStorageBufferRange`.
    pub force_wide: bool,
    /// 32-bit words of a subgroup ballot the ranking handles (1..=4; 0, the default: ceil(largest subgroup
    /// size / 32) of the device). 4 is always correct; fewer fold the mask arithmetic (timing comparisons).
    pub ballot_words: u32,
    /// Diagnostics, 0 (default) otherwise: the device address of a buffer that receives one 64-byte clock record
    /// per Onesweep tile (phase boundaries in SM clocks, entry/exit in device time, SM id: see
    /// [`clocks`]); needs [`DeviceCaps::shader_clock`] (`VKSORT_SHADER_CLOCK=1`) and buffer device addresses.
    /// Each place overwrites the records of the previous one.
    pub tile_clocks: u64,
    /// Onesweep/downsweep ranking: 0 (default) finds each item's peers (the subgroup's items with its digit) by
    /// digit_bits + 2 subgroup votes (ballot) or match-any; 1 through lane masks in shared memory (one atomicOr,
    /// one read and three subgroup barriers per item), the rank counters then updated in one batch; 2 the same
    /// with each item's counter updated right away (fewer live registers). The masks take MAX_SUBGROUPS x
    /// 2^digit_bits x ballot words x 4 bytes of shared memory past the rank counters.
    pub match_or: u32,
    /// Onesweep look-back: predecessors' status words read per round trip (1..=16, default 4). More reads per
    /// trip walk back faster over predecessors that published only their own counts.
    pub lookback_batch: u32,
    /// Onesweep/downsweep with `rank2` (`subs`, 1..=4, default 1; not with `keep_digit`): a workgroup claims
    /// sub_tiles x workgroup_size x keys_per_thread keys and ranks them as that many sub-tiles, one after another
    /// with the same registers; all but the last wait, digit-sorted, in shared memory (sub-tile x (key + value
    /// words) x 4 bytes each) until the tile's offsets are known. One look-back and one published count then cover
    /// the whole tile: fewer tiles for the look-back to walk over.
    pub sub_tiles: u32,
    /// Sorts of at most this many keys (0: none) use `short_keys_per_thread` keys per invocation in Onesweep:
    /// smaller tiles, more workgroups, when a sort is too small to fill the GPU with full tiles.
    pub short_max: u32,
    /// Keys per invocation of Onesweep for sorts up to `short_max` keys (1..=32).
    pub short_keys_per_thread: u32,
    /// Auto uses the three-dispatch MSD sort ([`msd`]) for sorts above `small_sort_max` and up to this many keys
    /// (host n or capacity; 0: never; at most `MSD_MAX_KEYS`). It pays while buckets are small: its split pass
    /// combines one AND/OR word per split tile in every workgroup, and one workgroup sorts each bucket.
    pub msd_max: u32,
    /// Invocations of the MSD split pass (`msd::split`).
    pub msd_split_workgroup_size: u32,
    /// Keys per invocation of the MSD split pass: a split tile is msd_split_workgroup_size x this.
    pub msd_split_keys_per_thread: u32,
    /// Invocations of the MSD bucket pass (`msd::buckets`, one workgroup per bucket).
    pub msd_bucket_workgroup_size: u32,
    /// Keys per invocation of the MSD bucket pass (at least; sorts of more than 2^digit_bits x
    /// msd_bucket_workgroup_size x this / 2 keys get more, up to 16, where the shared memory allows: a bucket
    /// tile then holds twice the average bucket): buckets of up to msd_bucket_workgroup_size x keys per
    /// invocation (and more than msd_rank_max) are sorted in registers; larger ones are shared by the pass's
    /// helper workgroups (`msd_helper_ratio` per bucket tile of the sort), by quantiles of a sample.
    pub msd_bucket_keys_per_thread: u32,
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
}

impl RadixPolicy {
    /// Overrides fields from a tuning string `key=value,...` (the `VKSORT_POLICY` variable of the examples
    /// and benches). Keys: wg, kpt, bits, part, early, ukpt, ugroups, ucopies, spin, debug, rank2, keep (or
    /// keep_digit), uvec4, bw, ptiles, wide, mor (match_or), lb (lookback_batch), subs (sub_tiles), smax (short_max), skpt
    /// (short_keys_per_thread), mmax (msd_max), mswg, mskpt (the MSD split pass's workgroup size and keys per
    /// invocation), mbwg, mbkpt (the bucket pass's), mrank (msd_rank_max), msingle (msd_single_kpt), mhelp
    /// (msd_helper_ratio); boolean
    /// fields take 0 or 1. Nothing is checked against a device here
    /// (the sorter does that).
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        let bad = |what: String| Error::InvalidArgument(format!("policy overrides: {what}"));
        for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
            let v: u32 = v
                .trim()
                .parse()
                .map_err(|_| bad(format!("`{kv}`: the value must be a number")))?;
            match k.trim() {
                "wg" => self.workgroup_size = v,
                "kpt" => self.keys_per_thread = v,
                "bits" => self.digit_bits = v,
                "part" => self.use_partitioned = v != 0,
                "early" => self.early_counts = v != 0,
                "ukpt" => self.upfront_keys_per_thread = v,
                "ugroups" => self.upfront_max_groups = v,
                "ucopies" => self.upfront_hist_copies = v,
                "spin" => self.spin_limit = v,
                "debug" => self.debug_mode = v,
                "rank2" => self.rank2 = v,
                "keep_digit" | "keep" => self.keep_digit = v != 0,
                "uvec4" => self.upfront_vec4 = v != 0,
                "bw" => self.ballot_words = v,
                "ptiles" => self.portion_tiles = v,
                "wide" => self.force_wide = v != 0,
                "mor" => self.match_or = v,
                "lb" => self.lookback_batch = v,
                "subs" => self.sub_tiles = v,
                "smax" => self.short_max = v,
                "skpt" => self.short_keys_per_thread = v,
                "mmax" => self.msd_max = v,
                "mswg" => self.msd_split_workgroup_size = v,
                "mskpt" => self.msd_split_keys_per_thread = v,
                "mbwg" => self.msd_bucket_workgroup_size = v,
                "mbkpt" => self.msd_bucket_keys_per_thread = v,
                "mrank" => self.msd_rank_max = v,
                "msingle" => self.msd_single_kpt = v,
                "mhelp" => self.msd_helper_ratio = v,
                other => return Err(bad(format!("unknown key `{other}`"))),
            }
        }
        Ok(self)
    }

    /// The policy for a device:
    /// - NVIDIA: 256 x 12 keys per tile (10 for 64-bit keys; 256 x 6 for sorts up to 2^18 keys), 8-bit digits,
    ///   peers found through shared lane masks (`match_or` 2) and packed 16-bit rank counters (`rank2` 2);
    ///   Auto sorts up to 2^16 keys with the MSD sort (1024 x 1 split tiles, bucket tiles of 256 x 4 or more by
    ///   size, buckets of up to 256 keys placed by counting) and never with the one-workgroup sort (slower than MSD from 2^10 to 2^13
    ///   keys).
    ///   Measured on an H100 with the per-tile clocks (`examples/tile_clocks`, docs/perf-notes.md): these keep
    ///   3 workgroups per SM (68-80 registers, 15.5 KiB shared) and made the Onesweep passes 1.7-1.9x faster than
    ///   512 x 8 with ballot or match-any ranking (2 workgroups per SM, 64 registers).
    /// - CPU drivers (lavapipe): 128 x 8 keys per tile (32 KiB shared memory, subgroup 8), small up to 2048; no
    ///   MSD sort in Auto (slower there than Onesweep).
    /// - Others: 256 x 12, shrunk until the shared memory fits; Onesweep is not used by Auto on ARM (Mali),
    ///   Qualcomm (Adreno) and Apple (MoltenVK) GPUs, whose schedulers give weak forward-progress guarantees
    ///   (the fallback keeps Onesweep correct there, but slow): they get reduce-then-scan.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        // Other GPUs; the NVIDIA and CPU policies below state only what differs.
        let base = Self {
            workgroup_size: 256,
            keys_per_thread: 12,
            digit_bits: 8,
            spin_limit: 4096,
            stall_every: 0,
            use_partitioned: caps.subgroup_partitioned,
            small_sort_max: 4096,
            small_workgroup_size: 256,
            small_keys_per_thread: 16,
            upfront_keys_per_thread: 16,
            upfront_max_groups: 512,
            onesweep_safe: !matches!(caps.vendor_id, 0x13b5 | 0x5143 | 0x106b),
            early_counts: true,
            upfront_hist_copies: 1,
            debug_mode: 0,
            rank2: 0,
            keep_digit: false,
            upfront_vec4: false,
            portion_tiles: 0,
            force_wide: false,
            ballot_words: 0,
            tile_clocks: 0,
            match_or: 0,
            lookback_batch: 4,
            sub_tiles: 1,
            short_max: 0,
            short_keys_per_thread: 4,
            msd_max: 1 << 16,
            msd_split_workgroup_size: 512,
            msd_split_keys_per_thread: 8,
            msd_bucket_workgroup_size: 256,
            msd_bucket_keys_per_thread: 8,
            msd_rank_max: 256,
            msd_single_kpt: 4,
            msd_helper_ratio: 2,
        };
        let mut p = if caps.vendor_id == 0x10de {
            Self {
                // H100 (BENCHMARKS.md, fifth session): the MSD sort took 29-31 us at 2^10..2^13 keys where the
                // one-workgroup sort (512 x 16) took 54-72 us; smaller sizes were not measured. Auto uses MSD.
                small_sort_max: 0,
                small_workgroup_size: 512,
                // H100 (BENCHMARKS.md, eighth session), u32 keys: 8 keys per invocation against 16 took the
                // upfront pass 14 against 17 us at 2^16, 36 against 50 at 2^22, 83 against 87 at 2^24, the same
                // at 2^18, 2^20 and 2^28 (4 and 2 were slower at 2^20).
                upfront_keys_per_thread: 8,
                upfront_max_groups: 1024,
                rank2: 2,
                match_or: 2,
                // H100, u32 keys, 2^16..2^20 (BENCHMARKS.md, fourth session): 256 x 6 tiles beat 256 x 12 up to
                // 2^18 keys (0.0655 against 0.0801 ms at 2^16), 256 x 12 wins from 2^19.
                short_max: 1 << 18,
                short_keys_per_thread: 6,
                // H100 (BENCHMARKS.md, eighth session): the three-dispatch MSD sort (no sweeps over all keys) is
                // 1.4-2.2x CUB up to 2^18 uniform keys (u32: 0.035 against Onesweep's 0.064 ms at 2^17, 0.051
                // against 0.071 at 2^18; 2^19: 0.092 at best against 0.084), but skewed keys crowd into large
                // buckets: entropy-reduced keys (AND of 3 words; a third of them in one bucket) took 0.34 ms at
                // 2^16 and 1.19 ms at 2^18 with one workgroup per bucket, and still 0.13 and 0.37 ms with the
                // helper workgroups (ninth session), where Onesweep took 0.06-0.07. Auto keeps it to 2^16. Its split
                // tile of 1024 x 1 was the fastest at 2^16..2^18 (1024 x 2 and 512 x 4 slower). Bucket tiles:
                // 256 x 4 at 2^16..2^17, 256 x 8 at 2^18 (buckets of ~1024 keys: 0.035 against 0.047 ms for the
                // bucket pass), 256 x 16 at 2^19: msd_bucket_kpt() picks them by size.
                msd_max: 1 << 16,
                msd_split_workgroup_size: 1024,
                msd_split_keys_per_thread: 1,
                msd_bucket_keys_per_thread: 4,
                // H100 (BENCHMARKS.md, seventh session), u32 keys: buckets of up to 256 keys placed by counting
                // made the MSD sort 1.3-1.5x faster at 2^10..2^15 (0.0191 against 0.0297 ms at 2^10, 0.0290
                // against 0.0387 at 2^15) and changed nothing at 2^16, where half the buckets hold more than
                // 256 keys; 512 was slower at 2^16 (0.064 against 0.047 ms).
                msd_rank_max: 256,
                // H100 (BENCHMARKS.md, eighth session), u32 keys: one split tile up to 2048 keys (2 per invocation)
                // took 0.0223 ms at 2^12 where one 4096-key tile took 0.0238 and no single tile 0.0223; at 2^11
                // 0.0191 against 0.0222 with no single tile.
                msd_single_kpt: 2,
                ..base
            }
        } else if caps.is_cpu() {
            Self {
                workgroup_size: 128,
                keys_per_thread: 8,
                spin_limit: 256,
                use_partitioned: false,
                small_sort_max: 2048,
                small_workgroup_size: 128,
                upfront_keys_per_thread: 8,
                upfront_max_groups: 64,
                onesweep_safe: true,
                // lavapipe, 2^14 u32 keys: the MSD sort's 256 bucket workgroups took ~45 ms where Onesweep
                // took 7 ms (a CPU driver pays per workgroup and per barrier): Auto does not use it there.
                msd_max: 0,
                msd_split_workgroup_size: 128,
                msd_bucket_workgroup_size: 128,
                ..base
            }
        } else {
            base
        };
        // Shrink until the kernels' shared memory fits.
        for _ in 0..16 {
            if p.check(caps, &plan).is_ok() {
                break;
            }
            if p.keys_per_thread > 4 {
                p.keys_per_thread -= 2;
            } else if p.workgroup_size > plan.max * 2 && p.workgroup_size > 64 {
                p.workgroup_size /= 2;
            } else if p.digit_bits > 4 {
                p.digit_bits -= 1;
            }
            if p.small_keys_per_thread > 4 {
                p.small_keys_per_thread -= 2;
            } else if p.small_workgroup_size > plan.max * 2 && p.small_workgroup_size > 64 {
                p.small_workgroup_size /= 2;
            }
            p.small_sort_max = p
                .small_sort_max
                .min(p.small_workgroup_size * p.small_keys_per_thread);
            if p.msd_split_workgroup_size > plan.max * 2 && p.msd_split_workgroup_size > 64 {
                p.msd_split_workgroup_size /= 2;
                p.msd_split_keys_per_thread *= 2;
            }
            if p.msd_bucket_workgroup_size > plan.max * 2 && p.msd_bucket_workgroup_size > 64 {
                p.msd_bucket_workgroup_size /= 2;
            }
        }
        if p.check(caps, &plan).is_err() {
            p.msd_max = 0;
        }
        p
    }

    /// The policy for a device and a key/value type: [`RadixPolicy::for_device`], with fewer keys per invocation
    /// on GPUs when a key and its value take 3 or 4 words (64-bit keys with values, 32-bit keys with 64-bit
    /// values), so the per-invocation registers (keys, values, ranks, destinations) stay in the register file.
    /// CPU drivers keep the device policy. This is what [`crate::sort::Sorter`] uses when the config has no
    /// policy.
    pub fn for_sort(caps: &DeviceCaps, key: KeyType, value: crate::sort::types::ValueType) -> Self {
        let mut p = Self::for_device(caps);
        let words = (key.bytes() + value.bytes()) / 4;
        if caps.vendor_id == 0x10de && key.bytes() == 8 {
            // H100, u64 keys: 256 x 10 (3 workgroups per SM) 1.99 ms against 256 x 12 (2 per SM) 2.09 ms at 2^24.
            p.keys_per_thread = p.keys_per_thread.min(10);
        }
        if !caps.is_cpu() && words >= 3 {
            p.keys_per_thread = p.keys_per_thread.min(32 / words).max(4);
            p.small_keys_per_thread = p.small_keys_per_thread.min(8);
            p.small_sort_max = p
                .small_sort_max
                .min(p.small_workgroup_size * p.small_keys_per_thread);
        }
        p
    }

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

    /// The most keys the one-workgroup sort takes: small_workgroup_size x small_keys_per_thread.
    pub fn small_capacity(&self) -> u32 {
        self.small_workgroup_size * self.small_keys_per_thread
    }

    /// Keys per tile of the MSD sort's differ and split passes (the policy's; sorts of one tile may use more,
    /// see [`Self::msd_split_kpt`]).
    pub fn msd_split_tile(&self) -> u32 {
        self.msd_split_workgroup_size * self.msd_split_keys_per_thread
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
    /// plus the per-digit arrays and the helpers' arrays (a sweep step's count per item and subgroup, the
    /// share's bounds and role: 9 words).
    fn msd_bucket_shared_bytes(&self, plan: &SubgroupPlan, kpt: u32) -> u64 {
        let wg = self.msd_bucket_workgroup_size;
        let max_sg = (wg / plan.min.max(1)) as u64;
        let runs = (2 * self.msd_max_tiles() + 1) * 4;
        let helpers = (MSD_SWEEP_KEYS as u64 * max_sg + 9) * 4;
        self.rank_shared_bytes(plan, wg, wg * kpt)
            .max(self.msd_rank_max as u64 * 8)
            .max(runs)
            + self.radix() as u64 * 4
            + helpers
    }

    /// Keys per invocation of the MSD bucket pass for sorts of up to `max_n` keys: the policy's, or more (a power
    /// of two up to 16, as far as `shared` bytes allow) so that a bucket tile holds twice the average bucket
    /// (max_n / 2^digit_bits keys) and buckets rarely take the slow path.
    pub(crate) fn msd_bucket_kpt(&self, plan: &SubgroupPlan, max_n: u64, shared: u64) -> u32 {
        let wg = self.msd_bucket_workgroup_size.max(1) as u64;
        let want = (2 * max_n.div_ceil(self.radix() as u64))
            .div_ceil(wg)
            .next_power_of_two()
            .min(16) as u32;
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
    pub(crate) fn ballot_words_for(&self, plan: &SubgroupPlan) -> u32 {
        match self.ballot_words {
            0 => plan.max.div_ceil(32).clamp(1, 4),
            w => w,
        }
    }

    /// Shared memory bytes of the Onesweep/downsweep kernel (glsl/sort/radix/radix_onesweep.comp: smem holds the tile,
    /// or the rank counters followed by the match_or lane masks, whichever is larger; then the per-digit arrays).
    /// `item_words`: 32-bit words per key and value (the parked sub-tiles hold them all).
    fn onesweep_shared_bytes(&self, plan: &SubgroupPlan, item_words: u32) -> u64 {
        let max_sg = (self.workgroup_size / plan.min.max(1)) as u64;
        let r = self.radix() as u64;
        let items = self.sub_tile() as u64;
        let counters = match self.rank2 {
            0 => max_sg * r,
            k => {
                let c = max_sg * r / if k == 2 { 2 } else { 1 };
                c + (c >> 5) + 1 + max_sg
            }
        };
        let masks = match self.match_or {
            0 => 0,
            _ => max_sg * r * self.ballot_words_for(plan) as u64,
        };
        let keep = if self.keep_digit { items } else { 0 };
        let held = match self.sub_tiles.saturating_sub(1) as u64 {
            0 => 0,
            h => h * (items * item_words as u64 + r) + r,
        };
        (items.max(counters + masks) + 3 * r + max_sg + 4 + keep + held) * 4
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
        let bad = |what: String| Err(Error::InvalidArgument(format!("radix policy: {what}")));
        if !(4..=8).contains(&self.digit_bits) {
            return bad(format!("digit_bits {} not in 4..=8", self.digit_bits));
        }
        if self.tile() > 1 << 16
            || self.small_workgroup_size * self.small_keys_per_thread > 1 << 16
            || self.msd_split_workgroup_size * self.msd_split_keys_per_thread > 1 << 16
            || self.msd_bucket_workgroup_size * self.msd_bucket_keys_per_thread > 1 << 16
        {
            return bad("tiles of more than 2^16 keys".into());
        }
        if !(1..=32).contains(&self.keys_per_thread)
            || !(1..=32).contains(&self.small_keys_per_thread)
            || !(1..=32).contains(&self.upfront_keys_per_thread)
            || !(1..=32).contains(&self.msd_split_keys_per_thread)
            || !(1..=32).contains(&self.msd_bucket_keys_per_thread)
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
        if self.rank2 > 2 || (self.rank2 == 2 && self.sub_tile() >= 1 << 16) {
            return bad(format!(
                "rank2 {} must be 0, 1 or 2 (2: tile below 65536 keys)",
                self.rank2
            ));
        }
        if !(1..=4).contains(&self.sub_tiles)
            || (self.sub_tiles > 1 && (self.rank2 == 0 || self.keep_digit))
        {
            return bad(format!(
                "sub_tiles {} must be 1..=4, and more than 1 needs rank2 and no keep_digit",
                self.sub_tiles
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
        if self.match_or > 2 {
            return bad(format!("match_or {} must be 0, 1 or 2", self.match_or));
        }
        if self.ballot_words > 4 || (self.ballot_words > 0 && self.ballot_words * 32 < plan.max) {
            return bad(format!(
                "ballot_words {} must be 0 or cover the largest subgroup ({})",
                self.ballot_words, plan.max
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
        if self.tile_clocks != 0 && !(caps.shader_clock && caps.buffer_device_address) {
            return Err(Error::Unsupported {
                device: caps.name.clone(),
                what: "tile_clocks needs VK_KHR_shader_clock (VKSORT_SHADER_CLOCK=1) and buffer device addresses"
                    .into(),
            });
        }
        if self.tile_clocks != 0 && self.use_partitioned && !caps.sm_builtins {
            return Err(Error::Unsupported {
                device: caps.name.clone(),
                what: "tile_clocks with use_partitioned needs VK_NV_shader_sm_builtins".into(),
            });
        }
        if self.use_partitioned && !caps.subgroup_partitioned {
            return Err(Error::Unsupported {
                device: caps.name.clone(),
                what: "use_partitioned needs VK_NV_shader_subgroup_partitioned".into(),
            });
        }
        let shared = caps.max_shared_memory as u64;
        let a = self.onesweep_shared_bytes(plan, item_words);
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
        let most = a.max(b).max(c).max(d).max(e);
        if most > shared {
            return bad(format!(
                "needs {most} bytes of shared memory, the device has {shared}"
            ));
        }
        Ok(())
    }
}

/// Where the count comes from.
#[derive(Clone, Copy, Debug)]
pub enum Count {
    Host(u64),
    Gpu { count: BufferRef, capacity: u64 },
}

/// How a sort of up to `max_n` keys is cut into portions (see `glsl/sort/radix/radix_common.glsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Portions {
    /// The passes write through 64-bit device addresses (an array exceeds one binding, or the policy's
    /// `force_wide`); sources are then bound per portion.
    pub wide: bool,
    /// Tiles per portion.
    pub tiles: u64,
    /// Keys per portion (tiles x keys per tile).
    pub keys: u64,
    /// Portions of a sort of `max_n` keys (at least 1).
    pub count: u64,
}

/// Byte layout of the scratch buffer for a capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub alt_keys_off: u64,
    pub alt_keys_bytes: u64,
    pub alt_vals_off: u64,
    pub alt_vals_bytes: u64,
    /// Control block and histograms (one binding).
    pub meta_off: u64,
    pub meta_bytes: u64,
    /// Meta word offset of the histograms / global digit offsets (2 x places x RADIX words: the plan's offsets,
    /// then the second running-offsets array of portions).
    pub hist_word: u64,
    /// Status region: Onesweep's (place, portion) slots of `status_slot_bytes` each, or reduce-then-scan's
    /// per-(digit, tile) counts (`rts_status_bytes`), whichever is larger.
    pub status_off: u64,
    pub status_slot_bytes: u64,
    pub status_slots: u64,
    pub rts_status_bytes: u64,
    pub status_bytes: u64,
    /// The MSD sort's regions (empty when the sorter never uses it): the second scratch arrays, where buckets
    /// larger than the bucket tile are sorted (keys, then values: up to `MSD_MAX_KEYS` keys), and its tables:
    /// the differ pass's AND/OR words (4 u32 per split tile), then the split pass's run table (2^digit_bits rows
    /// of `msd_stride` u32), then the counts row (2^digit_bits u32: each split digit's keys).
    pub msd_keys_off: u64,
    pub msd_keys_bytes: u64,
    pub msd_vals_off: u64,
    pub msd_vals_bytes: u64,
    pub msd_tables_off: u64,
    pub msd_tables_bytes: u64,
    /// Split tiles of the MSD sort's capacity (the run table's row length).
    pub msd_stride: u64,
    pub portions: Portions,
    pub total: u64,
}

const ALIGN: u64 = 256;

/// The radix sort behind a [`crate::sort::Sorter`].
pub struct RadixSort {
    pub(crate) ctx: Arc<Context>,
    pub policy: RadixPolicy,
    pub(crate) plan: SubgroupPlan,
    pub(crate) key: KeyType,
    pub(crate) key_words: u32,
    pub(crate) val_words: u32,
    pub(crate) descending: bool,
    pub(crate) lo: u32,
    pub(crate) hi: u32,
    pub(crate) places: u32,
    pub(crate) algorithm: SortAlgorithm,
    /// The same sort with the policy's short tiles (`short_keys_per_thread`), for sorts of at most
    /// `short_max` keys.
    pub(crate) short: Option<Box<RadixSort>>,
}

impl RadixSort {
    pub fn new(ctx: &Arc<Context>, config: &SortConfig) -> Result<Self> {
        let caps = ctx.caps();
        let plan = SubgroupPlan::for_device(caps);
        let policy = config
            .policy
            .unwrap_or_else(|| RadixPolicy::for_sort(caps, config.key, config.value));
        let item_words = (config.key.bytes() + config.value.bytes()) / 4;
        policy.check_items(caps, &plan, item_words)?;
        ctx.require_subgroup_ops(
            vk::SubgroupFeatureFlags::BASIC
                | vk::SubgroupFeatureFlags::VOTE
                | vk::SubgroupFeatureFlags::ARITHMETIC
                | vk::SubgroupFeatureFlags::BALLOT
                | vk::SubgroupFeatureFlags::SHUFFLE,
            "subgroup basic, vote, arithmetic, ballot and shuffle operations",
        )?;
        let kbits = config.key.bits();
        let (lo, hi) = config.bits.unwrap_or((0, kbits));
        if lo >= hi || hi > kbits {
            return Err(Error::InvalidArgument(format!(
                "bit range [{lo}, {hi}) is not within [0, {kbits}) or is empty"
            )));
        }
        let places = (hi - lo).div_ceil(policy.digit_bits);
        let short =
            if policy.short_max > 0 && policy.short_keys_per_thread != policy.keys_per_thread {
                let short_policy = RadixPolicy {
                    keys_per_thread: policy.short_keys_per_thread,
                    sub_tiles: 1,
                    short_max: 0,
                    ..policy
                };
                let config = SortConfig {
                    policy: Some(short_policy),
                    ..*config
                };
                Some(Box::new(Self::new(ctx, &config)?))
            } else {
                None
            };
        Ok(Self {
            ctx: ctx.clone(),
            short,
            policy,
            plan,
            key: config.key,
            key_words: config.key.bytes() / 4,
            val_words: config.value.bytes() / 4,
            descending: config.order == Order::Descending,
            lo,
            hi,
            places,
            algorithm: config.algorithm,
        })
    }

    pub(crate) fn flags(&self) -> u32 {
        self.descending as u32
    }

    /// The sort that runs `max_n` keys (host n or capacity): the short-tile one up to the policy's
    /// `short_max`, else this one.
    pub fn pick(&self, max_n: u64) -> &RadixSort {
        match &self.short {
            Some(s) if max_n <= self.policy.short_max as u64 => s,
            _ => self,
        }
    }

    /// Scratch bytes for any sort of up to `max_n` keys: the largest layout among the tile sizes that sizes up
    /// to `max_n` may use (the short tiles need more look-back status per key).
    pub fn scratch_bytes(&self, max_n: u64) -> u64 {
        let own = self.layout(max_n).total;
        match &self.short {
            Some(s) => own.max(s.layout(max_n.min(self.policy.short_max as u64)).total),
            None => own,
        }
    }

    pub fn algorithm_for(&self, n: u64) -> SortAlgorithm {
        match self.algorithm {
            SortAlgorithm::Auto => self.policy.auto_algorithm(n),
            a => a,
        }
    }

    /// Bytes one binding may cover on this device.
    pub(crate) fn binding_range(&self) -> u64 {
        self.ctx.caps().max_storage_buffer_range
    }

    /// How a sort of up to `max_n` keys is cut into portions: as few as the look-back status word (2^30 - 1
    /// keys), the binding range (sources bound per portion when an array exceeds one binding) and the policy's
    /// `portion_tiles` allow.
    pub fn portions(&self, max_n: u64) -> Portions {
        let cap = max_n.max(1);
        let tile = self.policy.tile() as u64;
        let range = self.binding_range();
        let (kb, vb) = (self.key_words as u64 * 4, self.val_words as u64 * 4);
        let wide = self.policy.force_wide || cap * kb > range || cap * vb > range;
        let mut keys = MAX_PORTION_KEYS;
        if wide {
            keys = keys.min(range / kb);
            if let Some(k) = range.checked_div(vb) {
                keys = keys.min(k);
            }
        }
        let radix = self.policy.radix() as u64;
        let mut tiles = (keys / tile).min((range / 4).saturating_sub(STATUS_HDR) / radix);
        if self.policy.portion_tiles > 0 {
            tiles = tiles.min(self.policy.portion_tiles as u64);
        }
        // As few portions as allowed, of (nearly) equal size: the last one's grid has few idle workgroups.
        let all = cap.div_ceil(tile);
        let tiles = tiles.clamp(1, all);
        let tiles = all.div_ceil(all.div_ceil(tiles));
        Portions {
            wide,
            tiles,
            keys: tiles * tile,
            count: cap.div_ceil(tiles * tile),
        }
    }

    /// The scratch layout for up to `max_n` keys.
    pub fn layout(&self, max_n: u64) -> Layout {
        let cap = max_n.max(1);
        let portions = self.portions(cap);
        let alt_keys_bytes = cap * self.key_words as u64 * 4;
        let alt_vals_bytes = cap * self.val_words as u64 * 4;
        let alt_vals_off = alt_keys_bytes.next_multiple_of(ALIGN);
        let meta_off = (alt_vals_off + alt_vals_bytes).next_multiple_of(ALIGN);
        let radix = self.policy.radix() as u64;
        let tiles = cap.div_ceil(self.policy.tile() as u64);
        let hist_word = CTRL_WORDS;
        let meta_bytes = (hist_word + 2 * self.places as u64 * radix) * 4;
        let status_off = (meta_off + meta_bytes).next_multiple_of(ALIGN);
        let status_slot_bytes = ((STATUS_HDR + portions.tiles * radix) * 4).next_multiple_of(ALIGN);
        let status_slots = self.places as u64 * portions.count;
        let rts_status_bytes = radix * tiles * 4;
        let status_bytes = (status_slot_bytes * status_slots).max(rts_status_bytes);
        let msd_cap = cap.min(self.msd_capacity());
        let msd_keys_off = (status_off + status_bytes).next_multiple_of(ALIGN);
        let msd_keys_bytes = msd_cap * self.key_words as u64 * 4;
        let msd_vals_off = (msd_keys_off + msd_keys_bytes).next_multiple_of(ALIGN);
        let msd_vals_bytes = msd_cap * self.val_words as u64 * 4;
        let msd_tables_off = (msd_vals_off + msd_vals_bytes).next_multiple_of(ALIGN);
        let msd_stride = msd_cap.div_ceil(self.policy.msd_split_tile() as u64);
        let msd_tables_bytes = ((4 + radix) * msd_stride + radix) * 4;
        Layout {
            alt_keys_off: 0,
            alt_keys_bytes,
            alt_vals_off,
            alt_vals_bytes,
            meta_off,
            meta_bytes,
            hist_word,
            status_off,
            status_slot_bytes,
            status_slots,
            rts_status_bytes,
            status_bytes,
            msd_keys_off,
            msd_keys_bytes,
            msd_vals_off,
            msd_vals_bytes,
            msd_tables_off,
            msd_tables_bytes,
            msd_stride,
            portions,
            total: msd_tables_off + msd_tables_bytes,
        }
    }

    /// The most keys this sorter may sort with the MSD sort (0: never): [`MSD_MAX_KEYS`] when it is the
    /// configured algorithm, the policy's `msd_max` (at most that) under Auto.
    pub(crate) fn msd_capacity(&self) -> u64 {
        match self.algorithm {
            SortAlgorithm::Msd => MSD_MAX_KEYS,
            SortAlgorithm::Auto => (self.policy.msd_max as u64).min(MSD_MAX_KEYS),
            _ => 0,
        }
    }

    /// Usage flags the scratch buffer of a sort of up to `max_n` keys needs.
    pub fn scratch_usage(&self, max_n: u64) -> vk::BufferUsageFlags {
        with_address(SCRATCH_USAGE, self.portions(max_n).wide)
    }

    /// Ballot words of the ranking kernels (the policy's, or derived from the largest subgroup size).
    pub(crate) fn ballot_words(&self) -> u32 {
        self.policy.ballot_words_for(&self.plan)
    }

    /// The kernel `shader` with workgroup size `wg` and the constants `spec` (see [`SubgroupPlan::kernel`]).
    pub(crate) fn kernel(
        &self,
        shader: crate::shaders::ShaderId,
        wg: u32,
        spec: crate::shaders::Spec,
    ) -> Result<Arc<Kernel>> {
        self.plan.kernel(&self.ctx, shader, wg, spec)
    }

    /// Checks everything, then records the sort.
    pub fn cmd_sort(
        &self,
        rec: &mut Recorder,
        keys: BufferRef,
        values: Option<BufferRef>,
        scratch: BufferRef,
        count: Count,
    ) -> Result<()> {
        let ctx = rec.ctx();
        let (max_n, gpu_count) = match count {
            Count::Host(n) => (n, None),
            Count::Gpu { count, capacity } => (capacity, Some(count)),
        };
        if max_n > MAX_KEYS {
            return Err(Error::TooLarge {
                n: max_n,
                elem_bytes: (self.key_words * 4) as u64,
                limit: MAX_KEYS * (self.key_words * 4) as u64,
            });
        }
        let algorithm = self.algorithm_for(max_n);
        if algorithm == SortAlgorithm::Small && max_n > self.policy.small_capacity() as u64 {
            return Err(Error::InvalidArgument(format!(
                "the small sort takes at most {} keys, not {max_n}",
                self.policy.small_capacity()
            )));
        }
        if algorithm == SortAlgorithm::Msd && max_n > MSD_MAX_KEYS {
            return Err(Error::InvalidArgument(format!(
                "the MSD sort takes at most {MSD_MAX_KEYS} keys (its bucket pass holds one run per split tile in shared memory), not {max_n}"
            )));
        }
        let kb = max_n * self.key_words as u64 * 4;
        let vb = max_n * self.val_words as u64 * 4;
        let range = self.binding_range();
        let layout = self.layout(max_n);
        let portions = layout.portions;
        // Arrays larger than one binding are written through device addresses (the `wide` variants).
        if portions.wide && !ctx.caps().buffer_device_address {
            let eb = (self.key_words.max(self.val_words) * 4) as u64;
            return Err(Error::TooLarge {
                n: max_n,
                elem_bytes: eb,
                limit: range,
            });
        }
        if algorithm == SortAlgorithm::ReduceThenScan && layout.rts_status_bytes > range {
            return Err(Error::TooLarge {
                n: max_n,
                elem_bytes: (self.key_words * 4) as u64,
                limit: range / layout.rts_status_bytes.div_ceil(max_n.max(1)).max(1),
            });
        }
        let array_usage = with_address(vk::BufferUsageFlags::STORAGE_BUFFER, portions.wide);
        keys.check(ctx, "keys", kb, array_usage)?;
        match (values, self.val_words) {
            (Some(v), w) if w > 0 => v.check(ctx, "values", vb, array_usage)?,
            (None, 0) => {}
            (Some(_), _) => {
                return Err(Error::InvalidArgument(
                    "values given to a keys-only sorter (config.value is None)".into(),
                ))
            }
            (None, _) => {
                return Err(Error::InvalidArgument(
                    "the sorter carries values but no value buffer was given".into(),
                ))
            }
        }
        scratch.check(
            ctx,
            "scratch",
            layout.total,
            with_address(SCRATCH_USAGE, portions.wide),
        )?;
        let count_binding = match gpu_count {
            Some(c) => {
                if c.offset % 4 != 0 {
                    return Err(Error::Misaligned {
                        what: "count",
                        offset: c.offset,
                        alignment: 4,
                    });
                }
                let align = ctx.caps().min_storage_buffer_offset_alignment.max(4);
                let base = c.offset / align * align;
                let word = (c.offset - base) / 4;
                let bound = BufferRef {
                    buffer: c.buffer,
                    offset: base,
                    size: c.offset - base + 4,
                    usage: c.usage,
                };
                if c.size < 4 {
                    return Err(Error::BufferTooSmall {
                        what: "count",
                        needed: 4,
                        available: c.size,
                    });
                }
                bound.check(
                    ctx,
                    "count",
                    bound.size,
                    vk::BufferUsageFlags::STORAGE_BUFFER,
                )?;
                Some((bound, word as u32))
            }
            None => None,
        };
        if gpu_count.is_none() && max_n <= 1 {
            return Ok(());
        }
        let keys = keys.slice(0, kb.max(4));
        let alt_keys = scratch.slice(layout.alt_keys_off, layout.alt_keys_bytes);
        let values = values.map(|v| v.slice(0, vb));
        let alt_values = scratch.slice(layout.alt_vals_off, layout.alt_vals_bytes);
        let addr = if portions.wide && algorithm != SortAlgorithm::Small {
            let mut a = [0u32; 8];
            let vals = values.unwrap_or(alt_values);
            for (i, (what, r)) in [
                ("keys", keys),
                ("scratch", alt_keys),
                ("values", vals),
                ("scratch", alt_values),
            ]
            .iter()
            .enumerate()
            {
                let x = ctx.buffer_address(what, r)?;
                a[2 * i] = x as u32;
                a[2 * i + 1] = (x >> 32) as u32;
            }
            a
        } else {
            [0; 8]
        };
        let b = Bindings {
            keys,
            alt_keys,
            values,
            alt_values,
            meta: scratch.slice(layout.meta_off, layout.meta_bytes),
            status: scratch.slice(layout.status_off, layout.status_bytes),
            msd_keys: scratch.slice(layout.msd_keys_off, layout.msd_keys_bytes),
            msd_values: scratch.slice(layout.msd_vals_off, layout.msd_vals_bytes),
            msd_tables: scratch.slice(layout.msd_tables_off, layout.msd_tables_bytes),
            addr,
            layout,
            max_n,
            count: count_binding,
        };
        rec.scope("vksort::sort", |rec| match algorithm {
            SortAlgorithm::Small => small::record(self, rec, &b),
            SortAlgorithm::Msd => msd::record(self, rec, &b),
            _ => self.record_passes(rec, &b, algorithm),
        })
    }

    fn record_passes(
        &self,
        rec: &mut Recorder,
        b: &Bindings,
        algorithm: SortAlgorithm,
    ) -> Result<()> {
        // Zero the control block, histograms and (Onesweep) status slots, which follow the meta region in the
        // scratch, and write n.
        let l = &b.layout;
        let clear = BufferRef {
            size: if algorithm == SortAlgorithm::Onesweep {
                l.status_off + l.status_slot_bytes * l.status_slots - l.meta_off
            } else {
                l.meta_bytes
            },
            ..b.meta
        };
        setup::record(self, rec, b, clear)?;
        rec.barrier();
        upfront::record(self, rec, b)?;
        rec.barrier();
        if !upfront::plan_fused(b) && self.policy.debug_mode & 32 == 0 {
            upfront::record_plan(self, rec, b)?;
            rec.barrier();
        }
        for p in 0..self.places {
            match algorithm {
                SortAlgorithm::ReduceThenScan => {
                    rts::record(self, rec, b, p)?;
                    rec.barrier();
                }
                _ => {
                    // Portion q + 1 reads the digit offsets portion q's last tile leaves.
                    for q in 0..b.layout.portions.count {
                        onesweep::record(self, rec, b, p, q)?;
                        rec.barrier();
                    }
                }
            }
        }
        // With an even number of places the plan keeps the passes run even: nothing to copy back.
        if self.places % 2 == 1 {
            setup::record_copy(self, rec, b)?;
        }
        Ok(())
    }

    pub(crate) fn pass_shift(&self, p: u32) -> (u32, u32) {
        let shift = self.lo + p * self.policy.digit_bits;
        (shift, self.policy.digit_bits.min(self.hi - shift))
    }
}

/// The label of a pass over portion `q` of `count`: `base`, with `::portion<q>` when there are several.
pub(crate) fn portion_label(base: &str, q: u64, count: u64) -> String {
    if count > 1 {
        format!("{base}::portion{q}")
    } else {
        base.to_string()
    }
}

/// The label of place `p`'s `pass` over portion `q` of `count`.
pub(crate) fn pass_label(pass: &str, p: u32, q: u64, count: u64) -> String {
    portion_label(&format!("vksort::radix::{pass}::place{p}"), q, count)
}

/// `usage` plus `SHADER_DEVICE_ADDRESS` when the sort writes through device addresses.
fn with_address(usage: vk::BufferUsageFlags, wide: bool) -> vk::BufferUsageFlags {
    if wide {
        usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
    } else {
        usage
    }
}

/// The regions a sort binds.
pub(crate) struct Bindings {
    pub keys: BufferRef,
    pub alt_keys: BufferRef,
    pub values: Option<BufferRef>,
    pub alt_values: BufferRef,
    pub meta: BufferRef,
    pub status: BufferRef,
    /// The MSD sort's second scratch arrays and tables (see [`Layout`]).
    pub msd_keys: BufferRef,
    pub msd_values: BufferRef,
    pub msd_tables: BufferRef,
    /// Wide passes: device addresses (lo, hi words) of keys, scratch keys, values, scratch values.
    pub addr: [u32; 8],
    pub layout: Layout,
    pub max_n: u64,
    pub count: Option<(BufferRef, u32)>,
}

/// The source bindings of one portion of a pass: keys A, keys B, values A, values B, and the index of the
/// first key they hold.
pub(crate) struct PortionSources {
    pub refs: [BufferRef; 4],
    pub first: u64,
}

impl Bindings {
    /// Value bindings (the meta region stands in when there are no values; the shaders then never touch it).
    pub fn vals(&self) -> (BufferRef, BufferRef) {
        match self.values {
            Some(v) => (v, self.alt_values),
            None => (self.meta, self.meta),
        }
    }

    /// Portion `q`'s sources: the whole arrays (first key 0) unless the sort is wide, else the portion's
    /// slices of them (each within one binding).
    pub fn sources(&self, s: &RadixSort, q: u64) -> PortionSources {
        let (va, vb) = self.vals();
        let whole = [self.keys, self.alt_keys, va, vb];
        let p = self.layout.portions;
        if !p.wide {
            return PortionSources {
                refs: whole,
                first: 0,
            };
        }
        let first = q * p.keys;
        let len = p.keys.min(self.max_n.max(1).saturating_sub(first)).max(1);
        let (kb, vbytes) = (s.key_words as u64 * 4, s.val_words as u64 * 4);
        let cut = |r: BufferRef, eb: u64| {
            if eb == 0 {
                r
            } else {
                r.slice(first * eb, len * eb)
            }
        };
        PortionSources {
            refs: [
                cut(whole[0], kb),
                cut(whole[1], kb),
                cut(whole[2], if self.values.is_some() { vbytes } else { 0 }),
                cut(whole[3], if self.values.is_some() { vbytes } else { 0 }),
            ],
            first,
        }
    }

    /// The portions of the passes that only read keys by index (upfront histogram, final copy): one per
    /// portion when the sort is wide, else one covering every key. Returns (dispatches, keys per dispatch).
    pub fn source_portions(&self) -> (u64, u64) {
        let p = self.layout.portions;
        if p.wide {
            (p.count, p.keys)
        } else {
            (1, u32::MAX as u64)
        }
    }

    /// Onesweep's status slot of (place `p`, portion `q`).
    pub fn status_slot(&self, p: u32, q: u64) -> BufferRef {
        let l = &self.layout;
        let slot = p as u64 * l.portions.count + q;
        self.status
            .slice(slot * l.status_slot_bytes, l.status_slot_bytes)
    }

    /// Reduce-then-scan's per-(digit, tile) region.
    pub fn rts_status(&self) -> BufferRef {
        self.status.slice(0, self.layout.rts_status_bytes)
    }
    /// The indirect arguments at meta word `word`.
    pub fn args(&self, word: u64) -> BufferRef {
        self.meta.slice(word * 4, 12)
    }
}
