//! The WarpSort policy (tuning as data) and the host-side plan of one sort.
//!
//! [`WarpSortPolicy`] says how the passes are tiled: lanes per group (the unit that sorts a chunk and merges two
//! runs: one subgroup, or an aligned slice of one), items per lane of a chunk and of a merge window, workgroup
//! sizes, when the rows are split into pieces by sample splitters (and how finely), the sample's size. It is
//! chosen per device from its limits ([`Limits`]: subgroup sizes, workgroup size, shared memory, CPU or GPU),
//! checked, and reaches the shaders as specialization constants (`GROUP_LANES`, `KPT`, `MPT`, `WG_SIZE`).
//!
//! [`Plan`] is what a sort of n keys (the host count, or the capacity of a GPU-side count) records: chunks,
//! merge rounds until the row stop rule, then (when splitting) the pieces and their merge rounds, and whether
//! the chunk pass works in place so that the last pass ends in the caller's buffers. Every merge loop of the
//! plan runs at most [`MAX_MERGE_STEPS`] window steps (lavapipe ends any shader loop after 65535 iterations):
//! rows stop growing at [`Plan::row_cap`], and sorts whose pieces could exceed the bound are refused
//! ([`WarpSortPolicy::max_keys`]).

use crate::error::{Error, Result};
use crate::gpu::DeviceCaps;
use crate::policy::SubgroupPlan;
use crate::sort::types::KeyType;

/// The most window steps of one merge (`warp_merge.glsl`'s `MAX_MERGE_STEPS`). Lavapipe counts every
/// iteration of every loop of a shader invocation against one budget of 65535 (llvmpipe's loop limiter, per
/// invocation, not per loop); the window-step loop is a merge's only loop (the shader unrolls everything
/// inside it), so the plan keeps every merge within this many steps.
pub const MAX_MERGE_STEPS: u64 = 65_000;

/// The most keys any WarpSort takes (u32 positions, 0xffffffff is the padding tag).
pub const MAX_KEYS: u64 = 1 << 31;

/// What the policy depends on, from the device ([`Limits::of`]) or made up (planning tests for other subgroup
/// sizes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The smallest and largest subgroup size pipelines may run with ([`SubgroupPlan`]).
    pub min_subgroup: u32,
    pub max_subgroup: u32,
    /// `maxComputeWorkGroupInvocations` (as limited for required subgroup sizes).
    pub max_workgroup: u32,
    /// Bytes of shared memory per workgroup.
    pub max_shared: u32,
    /// A CPU device (lavapipe): smaller defaults.
    pub cpu: bool,
}

impl Limits {
    /// The limits of a device.
    pub fn of(caps: &DeviceCaps) -> Self {
        let plan = SubgroupPlan::for_device(caps);
        Self {
            min_subgroup: plan.min,
            max_subgroup: plan.max,
            max_workgroup: caps.max_workgroup_invocations.max(plan.max),
            max_shared: caps.max_shared_memory,
            cpu: caps.is_cpu(),
        }
    }

    /// A wished-for workgroup size as a multiple of the largest subgroup within the device limit (as
    /// [`SubgroupPlan::workgroup_size`]), rounded down to a power of two.
    fn workgroup(&self, wish: u32) -> u32 {
        let wg = wish.min(self.max_workgroup).max(self.max_subgroup);
        pow2_floor(wg / self.max_subgroup * self.max_subgroup)
    }
}

/// How WarpSort is tiled. Units: lanes (invocations), items (keys), powers of two where said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpSortPolicy {
    /// Lanes of one group, the unit that sorts a chunk and merges two runs with subgroup shuffles only (no
    /// barriers, no shared memory): a power of two of at most the smallest subgroup size, so a group is a
    /// subgroup (the default: the device's subgroup size) or an aligned slice of one.
    pub group_lanes: u32,
    /// Items each lane holds while a group sorts its chunk (`KPT` of `vksort::warpsort::chunks`): a power of
    /// two, 1..=32. A chunk (the rows of the first merge round) is `group_lanes x chunk_items_per_lane` items.
    /// Default 4 on GPUs, 8 on CPUs.
    pub chunk_items_per_lane: u32,
    /// Items each lane holds of each half of a merge window (`MPT`): a power of two, 1..=8. The window step
    /// emits `t = group_lanes x merge_items_per_lane` items (a buffer of 2t). Default 4.
    pub merge_items_per_lane: u32,
    /// Invocations per workgroup of the chunk, merge and piece passes (`workgroup_size / group_lanes`
    /// groups each): a power of two and a multiple of the largest subgroup size. Default 256 on GPUs, 64 on
    /// CPUs.
    pub workgroup_size: u32,
    /// Sorts of at least this many keys split their rows into pieces (phases 3 and 4); smaller ones merge the
    /// rows pairwise down to one. Sorts whose single row would exceed the row cap of the plan always split. Default
    /// 2^13 on GPUs (below it the last merge, one group for all n keys, runs at most 64 window steps), 2^12
    /// on CPUs.
    pub split_min: u64,
    /// The row stop rule of a splitting sort: rows are merged pairwise until at most this many remain (fewer
    /// rounds when rows would outgrow the row cap of the plan); those rows are cut into pieces. At least 2. Default
    /// 64 on GPUs, 8 on CPUs.
    pub split_rows: u32,
    /// K: sample items per piece (the sample is K x pieces items, taken regularly over the sorted rows; every
    /// K-th of the sorted sample is a splitter). A power of two. Default 16.
    pub oversampling: u32,
    /// The most pieces (a power of two, at least 2, and `oversampling x max_pieces` at most the sample
    /// capacity `sample_workgroup_size x sample_items_per_invocation`). Default: the sample capacity /
    /// oversampling.
    pub max_pieces: u32,
    /// The pieces' target size in items: a sort of n keys cuts its rows into next_pow2(n / piece_items)
    /// pieces, at least 2 and at most `max_pieces`. Default 2048 on GPUs, 1024 on CPUs.
    pub piece_items: u32,
    /// Invocations of the one workgroup that sorts the sample (`vksort::warpsort::splitters`, a bitonic sort in
    /// shared memory): a power of two, a multiple of the largest subgroup size. Default: the largest (up to
    /// 1024) whose sample of 8 items per invocation fits the shared memory; on GPUs twice that, at 4 items each,
    /// where the workgroup can double.
    pub sample_workgroup_size: u32,
    /// Sample items per invocation of that workgroup (a power of two, 1..=32). Default 8; 4 on GPUs where
    /// the workgroup can double (the same sample capacity).
    pub sample_items_per_invocation: u32,
    /// Invocations per workgroup of the split-position pass and of the one-workgroup offsets scan. Default 256
    /// (GPUs), 64 (CPUs).
    pub scan_workgroup_size: u32,
}

fn pow2_floor(x: u32) -> u32 {
    1u32 << (31 - x.max(1).leading_zeros())
}

fn ceil_log2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        64 - (x - 1).leading_zeros()
    }
}

/// Shared memory of a one-workgroup bitonic sort of `items` tagged items (bitonic.glsl's s_items).
pub(crate) fn sample_shared_bytes(items: u64, key_words: u32) -> u64 {
    (items + items / 32) * (key_words as u64 + 1) * 4
}

impl WarpSortPolicy {
    /// The device's policy for keys of `key_words` u32 words.
    pub(crate) fn for_device(caps: &DeviceCaps, key_words: u32) -> Self {
        Self::for_limits(&Limits::of(caps), key_words)
    }

    /// The device's policy for sorts of `key` keys (what a sorter uses without a tuning override).
    pub fn for_sort(caps: &DeviceCaps, key: KeyType) -> Self {
        Self::for_device(caps, key.words())
    }

    /// Overrides fields from a tuning string `key=value,...` (`VKSORT_POLICY` of the benchmark, for sweeps).
    /// Keys: lanes (group_lanes), cpt (chunk_items_per_lane), mpt (merge_items_per_lane), wg
    /// (workgroup_size), smin (split_min), rows (split_rows), k (oversampling), pmax (max_pieces), pitems
    /// (piece_items), swg (sample_workgroup_size), skpt (sample_items_per_invocation), scanwg
    /// (scan_workgroup_size). Nothing is checked against a device here (the sorter does that).
    pub fn with_overrides(mut self, spec: &str) -> Result<Self> {
        crate::policy::for_each_override(spec, "warpsort", |k, v, bad| {
            match k {
                "lanes" => self.group_lanes = v,
                "cpt" => self.chunk_items_per_lane = v,
                "mpt" => self.merge_items_per_lane = v,
                "wg" => self.workgroup_size = v,
                "smin" => self.split_min = v as u64,
                "rows" => self.split_rows = v,
                "k" => self.oversampling = v,
                "pmax" => self.max_pieces = v,
                "pitems" => self.piece_items = v,
                "swg" => self.sample_workgroup_size = v,
                "skpt" => self.sample_items_per_invocation = v,
                "scanwg" => self.scan_workgroup_size = v,
                other => return Err(bad(format!("unknown key `{other}`"))),
            }
            Ok(())
        })?;
        Ok(self)
    }

    /// The policy for `limits` and keys of `key_words` words (the shared-memory need of the sample grows with
    /// the key words).
    pub fn for_limits(limits: &Limits, key_words: u32) -> Self {
        let cpu = limits.cpu;
        let mut spi = 8u32;
        let mut swg = limits.workgroup(1024);
        while swg > limits.max_subgroup
            && sample_shared_bytes((swg * spi) as u64, key_words) > limits.max_shared as u64
        {
            swg /= 2;
        }
        // GPUs: the sample on twice the invocations at 4 items each where the workgroup allows (the same
        // capacity), and chunks of 4 items per lane: both pipelines build ~2x faster and sort as fast or faster
        // (docs/tuning.md, "Lighter pipelines"). CPUs keep 8 (measured there).
        if !cpu && swg * 2 <= limits.workgroup(1024) {
            swg *= 2;
            spi = 4;
        }
        let oversampling = 16;
        Self {
            group_lanes: pow2_floor(limits.min_subgroup),
            chunk_items_per_lane: if cpu { 8 } else { 4 },
            merge_items_per_lane: 4,
            workgroup_size: limits.workgroup(if cpu { 64 } else { 256 }),
            split_min: if cpu { 1 << 12 } else { 1 << 13 },
            split_rows: if cpu { 8 } else { 64 },
            oversampling,
            max_pieces: ((swg * spi) / oversampling).max(2),
            piece_items: if cpu { 1024 } else { 2048 },
            sample_workgroup_size: swg,
            sample_items_per_invocation: spi,
            scan_workgroup_size: limits.workgroup(if cpu { 64 } else { 256 }),
        }
    }

    /// Items of a chunk (one group's bitonic sort).
    pub fn chunk(&self) -> u64 {
        (self.group_lanes * self.chunk_items_per_lane) as u64
    }

    /// Items a merge window step emits (t).
    pub fn window(&self) -> u64 {
        (self.group_lanes * self.merge_items_per_lane) as u64
    }

    /// Sample capacity of the splitter workgroup.
    pub fn sample_capacity(&self) -> u64 {
        (self.sample_workgroup_size * self.sample_items_per_invocation) as u64
    }

    /// The most keys a sort with this policy takes: the plan of every larger count would need a merge loop
    /// longer than 65,000 window steps (or exceed 2^31 keys).
    pub fn max_keys(&self) -> u64 {
        if Plan::new(self, MAX_KEYS).is_ok() {
            return MAX_KEYS;
        }
        // The plans fail only through the pieces' length bound, which grows with n once the pieces are at
        // their most: bisect.
        let (mut lo, mut hi) = (0u64, MAX_KEYS);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if Plan::new(self, mid).is_ok() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Checks the policy against the device limits and the key width.
    pub fn check(&self, limits: &Limits, key_words: u32) -> Result<()> {
        let bad = |what: String| {
            Err(Error::InvalidPolicy {
                family: "warpsort",
                what,
            })
        };
        let g = self.group_lanes;
        if !g.is_power_of_two() || g > limits.min_subgroup {
            return bad(format!(
                "group_lanes {g} must be a power of two of at most the smallest subgroup size {}",
                limits.min_subgroup
            ));
        }
        for (name, v, max) in [
            ("chunk_items_per_lane", self.chunk_items_per_lane, 32),
            ("merge_items_per_lane", self.merge_items_per_lane, 8),
            (
                "sample_items_per_invocation",
                self.sample_items_per_invocation,
                32,
            ),
        ] {
            if !v.is_power_of_two() || v > max {
                return bad(format!(
                    "{name} {v} must be a power of two of at most {max}"
                ));
            }
        }
        for (name, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("sample_workgroup_size", self.sample_workgroup_size),
            ("scan_workgroup_size", self.scan_workgroup_size),
        ] {
            if !wg.is_power_of_two() || wg % limits.max_subgroup != 0 || wg > limits.max_workgroup {
                return bad(format!(
                    "{name} {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                    limits.max_subgroup, limits.max_workgroup
                ));
            }
        }
        if self.split_rows < 2 {
            return bad(format!("split_rows {} must be at least 2", self.split_rows));
        }
        if !self.oversampling.is_power_of_two() {
            return bad(format!(
                "oversampling {} must be a power of two",
                self.oversampling
            ));
        }
        if !self.max_pieces.is_power_of_two() || self.max_pieces < 2 {
            return bad(format!(
                "max_pieces {} must be a power of two of at least 2",
                self.max_pieces
            ));
        }
        if self.oversampling as u64 * self.max_pieces as u64 > self.sample_capacity() {
            return bad(format!(
                "the sample (oversampling {} x max_pieces {}) exceeds the sample workgroup's {} items",
                self.oversampling,
                self.max_pieces,
                self.sample_capacity()
            ));
        }
        let need = sample_shared_bytes(self.sample_capacity(), key_words);
        if need > limits.max_shared as u64 {
            return bad(format!(
                "a sample of {} items needs {need} bytes of shared memory; the device has {}",
                self.sample_capacity(),
                limits.max_shared
            ));
        }
        if self.piece_items == 0 {
            return bad("piece_items must be at least 1".into());
        }
        if Plan::row_cap(self) < 2 * self.chunk() {
            return bad(
                "a merge window this small cannot merge two chunks within the loop bound".into(),
            );
        }
        Ok(())
    }

    /// The plan of a sort of `n` keys.
    pub fn plan(&self, n: u64) -> Result<Plan> {
        Plan::new(self, n).map_err(|_| Error::AlgorithmLimit {
            algorithm: "warpsort",
            max: self.max_keys(),
            n,
        })
    }

    /// Whether a sort of up to `n` keys may split (monotone in n: the scratch layout's bound).
    pub(crate) fn may_split(&self, n: u64) -> bool {
        n >= self.split_min || steps(self, n) > MAX_MERGE_STEPS
    }

    /// The most rows a splitting sort of up to `n` keys cuts into pieces (monotone in n).
    pub(crate) fn rows_bound(&self, n: u64) -> u64 {
        (self.split_rows as u64).max(n.div_ceil(Plan::row_cap(self)))
    }

    /// The most pieces a sort of up to `n` keys uses (monotone in n).
    pub(crate) fn pieces_bound(&self, n: u64) -> u64 {
        pieces_for(self, n)
    }
}

/// Window steps of a merge that emits `len` items (the initial load counts as one).
fn steps(p: &WarpSortPolicy, len: u64) -> u64 {
    len.div_ceil(p.window()) + 1
}

fn pieces_for(p: &WarpSortPolicy, n: u64) -> u64 {
    n.div_ceil(p.piece_items as u64)
        .next_power_of_two()
        .clamp(2, p.max_pieces as u64)
}

/// The passes of one sort of `n` keys (see the module docs of [`crate::sort::warpsort`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub n: u64,
    /// Items of a chunk (phase 1's rows).
    pub chunk: u64,
    /// Items a window step emits.
    pub window: u64,
    /// Chunks: ceil(n / chunk).
    pub chunks: u64,
    /// Pairwise row-merge rounds (phase 2).
    pub merge_rounds: u32,
    /// Row length after phase 2: chunk x 2^merge_rounds.
    pub row_len: u64,
    /// Rows after phase 2: ceil(n / row_len).
    pub rows: u64,
    /// Pieces the rows are cut into (0: no split, phase 2 merged everything into one row).
    pub pieces: u64,
    /// Sample items per piece (K); the sample is `oversampling x pieces` items.
    pub oversampling: u64,
    /// Merge rounds of the pieces' row segments (phase 4): ceil(log2(rows)).
    pub piece_rounds: u32,
    /// The most items one piece can hold (regular sampling: (K + rows) x ceil(n / sample)).
    pub piece_bound: u64,
    /// The chunk pass sorts in place in the caller's buffers (an even number of passes follows), else it
    /// writes the scratch copy.
    pub chunks_in_place: bool,
}

impl Plan {
    /// The longest row phase 2 may build: a power-of-two multiple of the chunk whose merge stays within
    /// [`MAX_MERGE_STEPS`].
    pub fn row_cap(p: &WarpSortPolicy) -> u64 {
        let mut r = p.chunk();
        while steps(p, 2 * r) <= MAX_MERGE_STEPS {
            r *= 2;
        }
        r
    }

    /// The plan for `n` keys, or why none fits the loop bound.
    pub fn new(p: &WarpSortPolicy, n: u64) -> std::result::Result<Plan, String> {
        if n > MAX_KEYS {
            return Err(format!("more than {MAX_KEYS} keys"));
        }
        let chunk = p.chunk();
        let chunks = n.div_ceil(chunk);
        let cap = Self::row_cap(p);
        let mut plan = Plan {
            n,
            chunk,
            window: p.window(),
            chunks,
            merge_rounds: 0,
            row_len: chunk,
            rows: chunks,
            pieces: 0,
            oversampling: p.oversampling as u64,
            piece_rounds: 0,
            piece_bound: 0,
            chunks_in_place: true,
        };
        if chunks <= 1 {
            return Ok(plan);
        }
        if !p.may_split(n) {
            // Merge every row pairwise into one; the last merge emits n items (within the bound).
            plan.merge_rounds = ceil_log2(chunks);
            plan.row_len = chunk << plan.merge_rounds;
            plan.rows = 1;
        } else {
            let mut rounds = 0u32;
            while chunks.div_ceil(1 << rounds) > p.split_rows as u64
                && (chunk << (rounds + 1)) <= cap
            {
                rounds += 1;
            }
            plan.merge_rounds = rounds;
            plan.row_len = chunk << rounds;
            plan.rows = n.div_ceil(plan.row_len);
            if plan.rows > 1 {
                let pieces = pieces_for(p, n);
                let sample = pieces * p.oversampling as u64;
                plan.pieces = pieces;
                plan.piece_rounds = ceil_log2(plan.rows);
                plan.piece_bound = if n >= sample {
                    ((p.oversampling as u64 + plan.rows) * n.div_ceil(sample)).min(n)
                } else {
                    n
                };
                if steps(p, plan.piece_bound) > MAX_MERGE_STEPS {
                    return Err(format!(
                        "pieces of up to {} keys exceed the merge loop bound",
                        plan.piece_bound
                    ));
                }
                // The offsets scan loops twice over its share of the segments.
                let entries = pieces * plan.rows;
                if 2 * entries.div_ceil(p.scan_workgroup_size as u64) + 64 > MAX_MERGE_STEPS {
                    return Err(format!(
                        "{entries} piece offsets exceed the scan's loop bound"
                    ));
                }
            }
        }
        plan.chunks_in_place = (plan.merge_rounds + plan.piece_rounds) % 2 == 0;
        Ok(plan)
    }

    /// Groups of merge round `round` (1-based) of phase 2: pairs of rows of chunk x 2^(round - 1).
    pub fn merge_pairs(&self, round: u32) -> u64 {
        self.n.div_ceil(self.chunk << round)
    }

    /// Pairs per piece of piece round `q` (0-based).
    pub fn piece_pairs(&self, q: u32) -> u64 {
        self.rows.div_ceil(2 << q)
    }

    /// Data passes: the chunk pass, the merge rounds and the piece rounds.
    pub fn data_passes(&self) -> u32 {
        1 + self.merge_rounds + self.piece_rounds
    }

    /// The longest merge loop of the plan, in window steps.
    pub fn longest_merge(&self) -> u64 {
        let w = |len: u64| len.div_ceil(self.window) + 1;
        let mut m = 0;
        if self.merge_rounds > 0 {
            m = w(self.n.min(self.row_len));
        }
        if self.pieces > 0 {
            m = m.max(w(self.piece_bound));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(sub: u32, cpu: bool) -> Limits {
        Limits {
            min_subgroup: sub,
            max_subgroup: sub,
            max_workgroup: 1024,
            max_shared: if cpu { 32768 } else { 49152 },
            cpu,
        }
    }

    /// The host-side plans for every subgroup size the shaders are written for: valid policies, every loop
    /// within its bound, rows and pieces consistent, the pass parity that ends in the caller's buffers.
    #[test]
    fn plans_for_every_subgroup_size() {
        for sub in [8, 16, 32, 64, 128] {
            for cpu in [false, true] {
                for kw in [1, 2, 4] {
                    let l = limits(sub, cpu);
                    let p = WarpSortPolicy::for_limits(&l, kw);
                    p.check(&l, kw).unwrap();
                    assert_eq!(p.chunk(), sub as u64 * if cpu { 8 } else { 4 });
                    assert_eq!(p.workgroup_size % sub, 0);
                    let max = p.max_keys();
                    assert!(max >= 1 << 24, "sub {sub} cpu {cpu} kw {kw}: max {max}");
                    let mut sizes: Vec<u64> =
                        vec![0, 1, 2, p.chunk() - 1, p.chunk(), p.chunk() + 1];
                    sizes.extend([
                        p.split_min - 1,
                        p.split_min,
                        p.split_min + 1,
                        1 << 20,
                        1 << 24,
                        max,
                    ]);
                    for n in sizes {
                        let plan = p.plan(n).unwrap();
                        assert!(plan.longest_merge() <= MAX_MERGE_STEPS, "{plan:?}");
                        assert_eq!(plan.row_len, plan.chunk << plan.merge_rounds);
                        if plan.pieces > 0 {
                            assert!(plan.rows >= 2 && plan.rows <= p.rows_bound(n));
                            assert!(plan.pieces <= p.pieces_bound(n));
                            assert!(plan.pieces * plan.oversampling <= p.sample_capacity());
                            assert_eq!(plan.piece_rounds, ceil_log2(plan.rows));
                        } else {
                            assert!(plan.rows <= 1 || n <= p.chunk());
                            assert!(n <= p.chunk() << plan.merge_rounds);
                        }
                        let after = plan.merge_rounds + plan.piece_rounds;
                        assert_eq!(plan.chunks_in_place, after % 2 == 0);
                    }
                    assert!(p.plan(max + 1).is_err() || max == MAX_KEYS);
                }
            }
        }
    }

    #[test]
    fn small_sorts_skip_phases() {
        let l = limits(32, false);
        let p = WarpSortPolicy::for_limits(&l, 1);
        let one = p.plan(p.chunk()).unwrap();
        assert_eq!((one.merge_rounds, one.pieces, one.data_passes()), (0, 0, 1));
        let few = p.plan(3 * p.chunk()).unwrap();
        assert_eq!((few.merge_rounds, few.pieces), (2, 0));
        let split = p.plan(p.split_min).unwrap();
        assert!(split.pieces >= 2 && split.rows <= p.split_rows as u64);
    }

    #[test]
    fn overrides() {
        let l = limits(32, false);
        let p = WarpSortPolicy::for_limits(&l, 1)
            .with_overrides("lanes=16, mpt=8,smin=1000,pitems=512")
            .unwrap();
        assert_eq!(
            (
                p.group_lanes,
                p.merge_items_per_lane,
                p.split_min,
                p.piece_items
            ),
            (16, 8, 1000, 512)
        );
        p.check(&l, 1).unwrap();
        for bad in ["lanes", "lanes=x", "nope=1"] {
            assert!(matches!(
                WarpSortPolicy::for_limits(&l, 1).with_overrides(bad),
                Err(Error::InvalidPolicy { .. })
            ));
        }
    }

    #[test]
    fn bad_policies_are_refused() {
        let l = limits(8, true);
        let good = WarpSortPolicy::for_limits(&l, 1);
        for bad in [
            WarpSortPolicy {
                group_lanes: 16,
                ..good
            },
            WarpSortPolicy {
                chunk_items_per_lane: 3,
                ..good
            },
            WarpSortPolicy {
                workgroup_size: 12,
                ..good
            },
            WarpSortPolicy {
                split_rows: 1,
                ..good
            },
            WarpSortPolicy {
                max_pieces: good.max_pieces * 2,
                ..good
            },
        ] {
            assert!(matches!(bad.check(&l, 1), Err(Error::InvalidPolicy { .. })));
        }
    }
}
