//! [`WarpSortPolicy`], the tiling of WarpSort's passes (chosen per device from its [`Limits`]), and [`Plan`], the
//! passes a sort of n keys records, each merge loop within [`MAX_MERGE_STEPS`] ([`WarpSortPolicy::max_keys`]).

use crate::error::{Error, Result};
use crate::gpu::{DeviceCaps, DeviceClass};
use crate::policy::SubgroupPlan;
use crate::sort::types::KeyType;

/// The most window steps of one merge (`warp_merge.glsl`'s `MAX_MERGE_STEPS`): lavapipe ends a shader invocation
/// after 65535 loop iterations in all, and the window-step loop is a merge's only loop.
pub const MAX_MERGE_STEPS: u64 = 65_000;

/// The most keys any WarpSort takes (u32 positions, 0xffffffff is the padding tag).
pub const MAX_KEYS: u64 = 1 << 31;

/// What the policy depends on, from the device ([`Limits::of`]) or made up (planning tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The smallest subgroup size pipelines may run with ([`SubgroupPlan`]).
    pub min_subgroup: u32,
    /// The largest subgroup size pipelines may run with.
    pub max_subgroup: u32,
    /// `maxComputeWorkGroupInvocations` (as limited for required subgroup sizes).
    pub max_workgroup: u32,
    /// Bytes of shared memory per workgroup.
    pub max_shared: u32,
    /// The device's class (its tuning values: src/tuning.rs).
    pub class: DeviceClass,
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
            class: caps.class,
        }
    }

    /// A wished-for workgroup size as a power-of-two multiple of the largest subgroup within the device limit.
    fn workgroup(&self, wish: u32) -> u32 {
        let wg = wish.min(self.max_workgroup).max(self.max_subgroup);
        pow2_floor(wg / self.max_subgroup * self.max_subgroup)
    }
}

crate::policy::tunable! {
    /// How WarpSort is tiled. Units: lanes (invocations), items (keys), powers of two where said. Override keys:
    /// the field paths (`split.rows=16`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct WarpSortPolicy {
        /// Lanes of a group (sorts a chunk, merges two runs): a power of two <= the smallest subgroup size (default).
        pub group_lanes: u32,
        /// Invocations per workgroup of the chunk, merge and piece passes. Default 256 on GPUs, 64 on CPUs.
        pub workgroup_size: u32,
        /// Items per lane of a chunk (`KPT`): a power of two, 1..=32. Default 4 on GPUs, 8 on CPUs.
        pub chunk_items_per_invocation: u32,
        /// Items each lane holds of each half of a merge window (`MPT`): a power of two, 1..=8. Default 4.
        pub merge_items_per_invocation: u32,
        /// When the rows of a large sort are cut into pieces, and how many.
        pub split: WarpSortSplit,
        /// The one workgroup that sorts the sample of a split.
        pub sample: WarpSortSample,
    }
}

crate::policy::tunable! {
    /// When and how a WarpSort splits its rows into pieces (regular sampling).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct WarpSortSplit {
        /// Sorts of at least this many keys (or whose one row would pass the row cap) split their rows into
        /// pieces; smaller ones merge the rows down to one. Default 2^13 on GPUs, 2^12 on CPUs.
        pub min_keys: u64,
        /// A splitting sort merges rows until at most this many (>= 2) remain. Default 64 on GPUs, 8 on CPUs.
        pub rows: u32,
        /// K: sample items per piece (every K-th of the sorted sample is a splitter). A power of two. Default 16.
        pub oversampling: u32,
        /// The most pieces: a power of two >= 2. Default (and most): the sample capacity / `oversampling`.
        pub max_pieces: u32,
        /// Target keys per piece (clamped to 2..=`max_pieces` pieces). Default 2048 on GPUs, 1024 on CPUs.
        pub piece_items: u32,
        /// Invocations per workgroup of the positions pass and the offsets scan. Default 256 (GPUs), 64 (CPUs).
        pub scan_workgroup_size: u32,
    }
}

crate::policy::tunable! {
    /// The workgroup that sorts a split's sample (a bitonic sort in shared memory).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct WarpSortSample {
        /// Invocations of the workgroup. Default: the largest (up to 1024) whose 8 items each fit shared memory;
        /// GPUs twice that at 4 items where allowed.
        pub workgroup_size: u32,
        /// Sample items per invocation (a power of two, 1..=32). Default 8; 4 where doubled.
        pub items_per_invocation: u32,
    }
}

impl crate::policy::Policy for WarpSortPolicy {
    const FAMILY: &'static str = "warpsort";
}

/// The policy refused for `what`.
fn invalid(what: String) -> Result<()> {
    Err(Error::InvalidPolicy {
        family: "warpsort",
        what,
    })
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

    /// The policy for `limits` and keys of `key_words` words (the sample's shared memory grows with them).
    pub fn for_limits(limits: &Limits, key_words: u32) -> Self {
        let t = &crate::tuning::for_class(limits.class).warpsort;
        let mut spi = 8u32;
        let mut swg = limits.workgroup(1024);
        while swg > limits.max_subgroup
            && sample_shared_bytes((swg * spi) as u64, key_words) > limits.max_shared as u64
        {
            swg /= 2;
        }
        // The same sample capacity on twice the invocations (docs/tuning.md, "Lighter pipelines").
        if t.wide_sample && swg * 2 <= limits.workgroup(1024) {
            swg *= 2;
            spi = 4;
        }
        let oversampling = t.oversampling;
        Self {
            group_lanes: pow2_floor(limits.min_subgroup),
            workgroup_size: limits.workgroup(t.workgroup_size),
            chunk_items_per_invocation: t.chunk_items_per_invocation,
            merge_items_per_invocation: t.merge_items_per_invocation,
            split: WarpSortSplit {
                min_keys: t.split_min_keys,
                rows: t.split_rows,
                oversampling,
                max_pieces: ((swg * spi) / oversampling).max(2),
                piece_items: t.piece_items,
                scan_workgroup_size: limits.workgroup(t.scan_workgroup_size),
            },
            sample: WarpSortSample {
                workgroup_size: swg,
                items_per_invocation: spi,
            },
        }
    }

    /// Items of a chunk (one group's bitonic sort).
    pub fn chunk(&self) -> u64 {
        (self.group_lanes * self.chunk_items_per_invocation) as u64
    }

    /// Items a merge window step emits (t).
    pub fn window(&self) -> u64 {
        (self.group_lanes * self.merge_items_per_invocation) as u64
    }

    /// Sample capacity of the splitter workgroup.
    pub fn sample_capacity(&self) -> u64 {
        (self.sample.workgroup_size * self.sample.items_per_invocation) as u64
    }

    /// The most keys a sort with this policy takes (larger plans pass `MAX_MERGE_STEPS` or `MAX_KEYS`).
    pub fn max_keys(&self) -> u64 {
        if Plan::new(self, MAX_KEYS).is_ok() {
            return MAX_KEYS;
        }
        // Only the pieces' bound fails a plan, and it grows with n once the pieces are at their most: bisect.
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
        self.check_tiling(limits)?;
        self.check_split(limits, key_words)?;
        if self.split.piece_items == 0 {
            return invalid("split.piece_items must be at least 1".into());
        }
        if Plan::row_cap(self) < 2 * self.chunk() {
            return invalid(
                "a merge window this small cannot merge two chunks within the loop bound".into(),
            );
        }
        Ok(())
    }

    /// The group, the items per lane or invocation, and the workgroup sizes.
    fn check_tiling(&self, limits: &Limits) -> Result<()> {
        let g = self.group_lanes;
        if !g.is_power_of_two() || g > limits.min_subgroup {
            return invalid(format!(
                "group_lanes {g} must be a power of two of at most the smallest subgroup size {}",
                limits.min_subgroup
            ));
        }
        for (name, v, max) in [
            (
                "chunk_items_per_invocation",
                self.chunk_items_per_invocation,
                32,
            ),
            (
                "merge_items_per_invocation",
                self.merge_items_per_invocation,
                8,
            ),
            (
                "sample.items_per_invocation",
                self.sample.items_per_invocation,
                32,
            ),
        ] {
            if !v.is_power_of_two() || v > max {
                return invalid(format!(
                    "{name} {v} must be a power of two of at most {max}"
                ));
            }
        }
        for (name, wg) in [
            ("workgroup_size", self.workgroup_size),
            ("sample.workgroup_size", self.sample.workgroup_size),
            ("split.scan_workgroup_size", self.split.scan_workgroup_size),
        ] {
            if !wg.is_power_of_two() || wg % limits.max_subgroup != 0 || wg > limits.max_workgroup {
                return invalid(format!(
                    "{name} {wg} must be a power of two, a multiple of the subgroup size {} and at most {}",
                    limits.max_subgroup, limits.max_workgroup
                ));
            }
        }
        Ok(())
    }

    /// The split: rows, oversampling, pieces, and the sample sort's shared memory.
    fn check_split(&self, limits: &Limits, key_words: u32) -> Result<()> {
        if self.split.rows < 2 {
            return invalid(format!("split.rows {} must be at least 2", self.split.rows));
        }
        if !self.split.oversampling.is_power_of_two() {
            return invalid(format!(
                "split.oversampling {} must be a power of two",
                self.split.oversampling
            ));
        }
        if !self.split.max_pieces.is_power_of_two() || self.split.max_pieces < 2 {
            return invalid(format!(
                "split.max_pieces {} must be a power of two of at least 2",
                self.split.max_pieces
            ));
        }
        if self.split.oversampling as u64 * self.split.max_pieces as u64 > self.sample_capacity() {
            return invalid(format!(
                "the sample (split.oversampling {} x split.max_pieces {}) exceeds the sample workgroup's {} items",
                self.split.oversampling,
                self.split.max_pieces,
                self.sample_capacity()
            ));
        }
        let need = sample_shared_bytes(self.sample_capacity(), key_words);
        if need > limits.max_shared as u64 {
            return invalid(format!(
                "a sample of {} items needs {need} bytes of shared memory; the device has {}",
                self.sample_capacity(),
                limits.max_shared
            ));
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
        n >= self.split.min_keys || steps(self, n) > MAX_MERGE_STEPS
    }

    /// The most rows a splitting sort of up to `n` keys cuts into pieces (monotone in n).
    pub(crate) fn rows_bound(&self, n: u64) -> u64 {
        (self.split.rows as u64).max(n.div_ceil(Plan::row_cap(self)))
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
    n.div_ceil(p.split.piece_items as u64)
        .next_power_of_two()
        .clamp(2, p.split.max_pieces as u64)
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
    /// The chunk pass sorts in place in the caller's buffers (an even number of passes follows).
    pub chunks_in_place: bool,
}

impl Plan {
    /// The longest row phase 2 may build: a chunk x 2^k whose merge stays within [`MAX_MERGE_STEPS`].
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
            oversampling: p.split.oversampling as u64,
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
            while chunks.div_ceil(1 << rounds) > p.split.rows as u64
                && (chunk << (rounds + 1)) <= cap
            {
                rounds += 1;
            }
            plan.merge_rounds = rounds;
            plan.row_len = chunk << rounds;
            plan.rows = n.div_ceil(plan.row_len);
            if plan.rows > 1 {
                let pieces = pieces_for(p, n);
                let sample = pieces * p.split.oversampling as u64;
                plan.pieces = pieces;
                plan.piece_rounds = ceil_log2(plan.rows);
                plan.piece_bound = if n >= sample {
                    ((p.split.oversampling as u64 + plan.rows) * n.div_ceil(sample)).min(n)
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
                if 2 * entries.div_ceil(p.split.scan_workgroup_size as u64) + 64 > MAX_MERGE_STEPS {
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
            class: if cpu {
                DeviceClass::Cpu
            } else {
                DeviceClass::Generic
            },
        }
    }

    /// Plans for every subgroup size: valid policies, loops within bounds, consistent rows, pieces and parity.
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
                        p.split.min_keys - 1,
                        p.split.min_keys,
                        p.split.min_keys + 1,
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
        let split = p.plan(p.split.min_keys).unwrap();
        assert!(split.pieces >= 2 && split.rows <= p.split.rows as u64);
    }

    /// Override keys are the field paths (the parts' under `split.` and `sample.`); the old short keys are refused.
    #[test]
    fn overrides() {
        use crate::policy::Policy;
        let keys: Vec<String> = WarpSortPolicy::legend()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            [
                "group_lanes",
                "workgroup_size",
                "chunk_items_per_invocation",
                "merge_items_per_invocation",
                "split.min_keys",
                "split.rows",
                "split.oversampling",
                "split.max_pieces",
                "split.piece_items",
                "split.scan_workgroup_size",
                "sample.workgroup_size",
                "sample.items_per_invocation"
            ]
        );
        let l = limits(32, false);
        let p = WarpSortPolicy::for_limits(&l, 1)
            .with_overrides(
                "group_lanes=16, merge_items_per_invocation=8,split.min_keys=1000,split.piece_items=512",
            )
            .unwrap();
        assert_eq!(
            (
                p.group_lanes,
                p.merge_items_per_invocation,
                p.split.min_keys,
                p.split.piece_items
            ),
            (16, 8, 1000, 512)
        );
        p.check(&l, 1).unwrap();
        for bad in [
            "group_lanes",
            "group_lanes=x",
            "nope=1",
            "lanes=16",
            "mpt=8",
            "split=1",
            "split.k=2",
        ] {
            assert!(
                matches!(
                    WarpSortPolicy::for_limits(&l, 1).with_overrides(bad),
                    Err(Error::InvalidPolicy { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn bad_policies_are_refused() {
        let l = limits(8, true);
        let good = WarpSortPolicy::for_limits(&l, 1);
        let changed = |f: &dyn Fn(&mut WarpSortPolicy)| {
            let mut p = good;
            f(&mut p);
            p
        };
        for bad in [
            changed(&|p| p.group_lanes = 16),
            changed(&|p| p.chunk_items_per_invocation = 3),
            changed(&|p| p.workgroup_size = 12),
            changed(&|p| p.split.rows = 1),
            changed(&|p| p.split.max_pieces = good.split.max_pieces * 2),
        ] {
            assert!(matches!(bad.check(&l, 1), Err(Error::InvalidPolicy { .. })));
        }
    }
}
