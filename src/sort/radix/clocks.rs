//! Per-tile phase clocks of the Onesweep pass (diagnostics, [`super::RadixDebug::tile_clocks`]) and per-workgroup
//! clocks of the MSD bucket pass ([`msd`]). The `_clock` kernels' invocation 0 reads the SM clock after each of
//! the tile's own barriers (the schedule is unchanged) and writes a [`RECORD_WORDS`]-word record at
//! `tile_clocks + (place x tiles + tile) x 64` bytes; [`summarize`] reports one place's records.

// The record layouts (glsl/sort/radix/clock.glsl).
use crate::shaders::include::clock as glsl;

/// 32-bit words per tile record.
pub const RECORD_WORDS: usize = glsl::CLOCK_WORDS as usize;
/// Bytes per tile record.
pub const RECORD_BYTES: u64 = RECORD_WORDS as u64 * 4;

/// Record words 0..=8: the SM clock (low 32 bits) at these phase boundaries, in order.
pub const PHASES: [&str; glsl::TILE_CLOCK_END as usize + 1] = [
    "entry",
    "tile claimed",
    "early counts published",
    "items matched and counted",
    "subgroup prefixes",
    "digit scan (ranked)",
    "look-back",
    "exchange written",
    "end",
];
/// Word of the SM id (0 without `VK_NV_shader_sm_builtins`).
pub const W_SM: usize = glsl::TILE_CLOCK_SM as usize;
/// Words of the device real-time clock (lo, hi) at entry and at the end.
pub const W_RT_ENTRY: usize = glsl::TILE_CLOCK_RT_ENTRY as usize;
pub const W_RT_END: usize = glsl::TILE_CLOCK_RT_END as usize;
/// Word of the warp id of invocation 0 (NVIDIA).
pub const W_WARP: usize = glsl::TILE_CLOCK_WARP as usize;
/// Word of the tile's global index + 1 (0: no record written).
pub const W_TILE: usize = glsl::TILE_CLOCK_TILE as usize;

/// One tile's record, decoded.
#[derive(Clone, Copy, Debug)]
pub struct TileClock {
    pub tile: u32,
    pub sm: u32,
    /// SM clock at the phase boundaries (0 where the tile skipped a phase).
    pub cycles: [u32; 9],
    /// Device clock (ns on NVIDIA) at entry and end.
    pub entry_ns: u64,
    pub end_ns: u64,
}

/// Decodes the written records of `words` (records of tiles that never ran stay zero and are skipped).
pub fn decode(words: &[u32]) -> Vec<TileClock> {
    words
        .chunks_exact(RECORD_WORDS)
        .filter(|r| r[W_TILE] != 0)
        .map(|r| {
            let mut cycles = [0u32; 9];
            cycles.copy_from_slice(&r[..9]);
            TileClock {
                tile: r[W_TILE] - 1,
                sm: r[W_SM],
                cycles,
                entry_ns: word64(r, W_RT_ENTRY),
                end_ns: word64(r, W_RT_END),
            }
        })
        .collect()
}

/// The 64-bit value of record words `w` (low) and `w + 1` (high): the device clock.
fn word64(r: &[u32], w: usize) -> u64 {
    r[w] as u64 | (r[w + 1] as u64) << 32
}

fn quantiles(mut v: Vec<f64>) -> Option<(f64, f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    Some((q(0.1), q(0.5), q(0.9), mean))
}

/// SM cycles from the previous boundary passed to boundary `i` of `cycles` (None: not passed, or `i` is 0).
fn phase_cycles(cycles: &[u32], i: usize) -> Option<u32> {
    if i == 0 || cycles[i] == 0 {
        return None;
    }
    let prev = (0..i).rev().find(|&k| cycles[k] != 0)?;
    Some(cycles[i].wrapping_sub(cycles[prev]))
}

/// A text report of one place's records: SM cycles per phase, tile lifetimes and residency per SM.
pub fn summarize(tiles: &[TileClock]) -> String {
    if tiles.is_empty() {
        return "no tile records\n".into();
    }
    phase_report(tiles) + &residency_report(tiles)
}

/// The SM cycles per phase of `tiles` (phases a variant skips are 0 and left out).
fn phase_report(tiles: &[TileClock]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let total: Vec<f64> = tiles
        .iter()
        .map(|t| t.cycles[8].wrapping_sub(t.cycles[0]) as f64)
        .collect();
    let mean_total = total.iter().sum::<f64>() / total.len() as f64;
    let _ = writeln!(
        out,
        "{} tiles; SM cycles per phase (of tiles that passed both ends): p10 / median / p90 / mean (share of a tile)",
        tiles.len()
    );
    for (i, phase) in PHASES.iter().enumerate().skip(1) {
        let d: Vec<f64> = tiles
            .iter()
            .filter_map(|t| phase_cycles(&t.cycles, i))
            .map(|c| c as f64)
            .collect();
        if let Some((p10, p50, p90, mean)) = quantiles(d.clone()) {
            let _ = writeln!(
                out,
                "  {:<26} {:>9.0} {:>9.0} {:>9.0} {:>9.0}  {:>5.1}%  ({} tiles)",
                phase,
                p10,
                p50,
                p90,
                mean,
                100.0 * mean * d.len() as f64 / tiles.len() as f64 / mean_total,
                d.len()
            );
        }
    }
    if let Some((p10, p50, p90, mean)) = quantiles(total) {
        let _ = writeln!(
            out,
            "  {:<26} {:>9.0} {:>9.0} {:>9.0} {:>9.0}",
            "whole tile", p10, p50, p90, mean
        );
    }
    out
}

/// The tiles' lifetimes, span and residency in device time.
fn residency_report(tiles: &[TileClock]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let life: Vec<f64> = tiles
        .iter()
        .map(|t| t.end_ns.saturating_sub(t.entry_ns) as f64)
        .collect();
    let first = tiles.iter().map(|t| t.entry_ns).min().unwrap_or(0);
    let last = tiles.iter().map(|t| t.end_ns).max().unwrap_or(0);
    let span = last.saturating_sub(first).max(1) as f64;
    let busy: f64 = life.iter().sum();
    let cyc_per_ns: Vec<f64> = tiles
        .iter()
        .zip(&life)
        .filter(|(_, &l)| l > 0.0)
        .map(|(t, &l)| t.cycles[8].wrapping_sub(t.cycles[0]) as f64 / l)
        .collect();
    if let Some((_, p50, _, _)) = quantiles(life.clone()) {
        let _ = writeln!(
            out,
            "tile lifetime median {:.2} us, mean {:.2} us; span {:.3} ms; SM clock ~{:.2} GHz",
            p50 / 1e3,
            busy / life.len() as f64 / 1e3,
            span / 1e6,
            quantiles(cyc_per_ns).map_or(0.0, |q| q.1)
        );
    }
    let mut sms: Vec<u32> = tiles.iter().map(|t| t.sm).collect();
    sms.sort_unstable();
    sms.dedup();
    let peaks: Vec<i32> = sms.iter().map(|&sm| peak_residency(tiles, sm)).collect();
    let peak_sum: i32 = peaks.iter().sum();
    let _ = writeln!(
        out,
        "{} SMs seen; tiles resident at once: {:.2} on average over the span ({:.2} per SM), peak per SM {:.2} mean / {} max",
        sms.len(),
        busy / span,
        busy / span / sms.len() as f64,
        peak_sum as f64 / sms.len() as f64,
        peaks.iter().copied().max().unwrap_or(0)
    );
    out
}

/// The most tiles resident at once on SM `sm`: a sweep over entry (+1) and end (-1) events.
fn peak_residency(tiles: &[TileClock], sm: u32) -> i32 {
    let mut ev: Vec<(u64, i32)> = tiles
        .iter()
        .filter(|t| t.sm == sm)
        .flat_map(|t| [(t.entry_ns, 1), (t.end_ns, -1)])
        .collect();
    ev.sort_unstable();
    let (mut cur, mut peak) = (0i32, 0i32);
    for (_, e) in ev {
        cur += e;
        peak = peak.max(cur);
    }
    peak
}

/// Per-workgroup clocks of the MSD bucket pass ([`super::RadixDebug::msd_clocks`]): every workgroup with work
/// writes a [`RECORD_WORDS`]-word record at `msd_clocks + group x 64` bytes (helpers first, then the buckets).
pub mod msd {
    use super::{glsl, quantiles};

    /// Record words 0..=7: the SM clock (low 32 bits) at these phase boundaries (0: not passed).
    pub const PHASES: [&str; glsl::MSD_CLOCK_END as usize + 1] = [
        "entry",
        "role and runs",
        "sample ranked",
        "counted",
        "share written",
        "keys in registers",
        "sorted",
        "end",
    ];
    /// Word of the SM id (0 without `VK_NV_shader_sm_builtins`).
    pub const W_SM: usize = glsl::MSD_CLOCK_SM as usize;
    /// Word of the workgroup's index in the dispatch + 1 (0: no record written).
    pub const W_GROUP: usize = glsl::MSD_CLOCK_GROUP as usize;
    /// Word of the path (bits 0..7), the bucket (bits 8..23) and the digit places sorted (bits 24..31).
    pub const W_PATH: usize = glsl::MSD_CLOCK_PATH as usize;
    /// Word of the keys the workgroup handled (its bucket's or its share's).
    pub const W_KEYS: usize = glsl::MSD_CLOCK_KEYS as usize;
    /// Words of the device real-time clock (lo, hi) at entry and at the end.
    pub const W_RT_ENTRY: usize = glsl::MSD_CLOCK_RT_ENTRY as usize;
    pub const W_RT_END: usize = glsl::MSD_CLOCK_RT_END as usize;

    /// What a workgroup of the bucket pass did.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Path {
        /// A bucket with no keys.
        Empty,
        /// A bucket placed by counting (at most `msd.rank_max` keys).
        Counted,
        /// A bucket sorted in registers.
        Registers,
        /// A bucket larger than the bucket tile, left to the helpers.
        Left,
        /// A helper's share of a large bucket, found alone (the bucket read twice in parts), sorted in registers.
        Share,
        /// A helper's share larger than the bucket tile, sorted through global memory.
        ShareGlobal,
        /// A helper with nothing to do (no large bucket for it, or an empty share).
        Idle,
        /// A share of cooperating helpers, sorted in registers ("counted": counts published and agreed; "share
        /// written": every helper's scatter done).
        ShareCoop,
    }

    impl Path {
        fn from_word(w: u32) -> Self {
            match w & 0xFF {
                0 => Path::Empty,
                1 => Path::Counted,
                2 => Path::Registers,
                3 => Path::Left,
                4 => Path::Share,
                5 => Path::ShareGlobal,
                7 => Path::ShareCoop,
                _ => Path::Idle,
            }
        }
    }

    /// One workgroup's record, decoded.
    #[derive(Clone, Copy, Debug)]
    pub struct GroupClock {
        pub group: u32,
        pub sm: u32,
        pub path: Path,
        /// The bucket (split digit value) it sorted or helped with (2^digit_bits: none).
        pub bucket: u32,
        /// Digit places of the register sort that had differing keys (skipped places are not counted).
        pub places: u32,
        pub keys: u32,
        /// SM clock at the phase boundaries (0 where the workgroup did not pass a phase).
        pub cycles: [u32; 8],
        pub entry_ns: u64,
        pub end_ns: u64,
    }

    impl GroupClock {
        /// Device time from entry to end, in ns.
        pub fn life_ns(&self) -> u64 {
            self.end_ns.saturating_sub(self.entry_ns)
        }

        /// SM cycles from the previous boundary passed to boundary `i` (None: not passed).
        pub fn phase(&self, i: usize) -> Option<u32> {
            super::phase_cycles(&self.cycles, i)
        }
    }

    /// Decodes the written records of `words` (slots of workgroups that wrote none are skipped).
    pub fn decode(words: &[u32]) -> Vec<GroupClock> {
        words
            .chunks_exact(super::RECORD_WORDS)
            .filter(|r| r[W_GROUP] != 0)
            .map(|r| {
                let mut cycles = [0u32; 8];
                cycles.copy_from_slice(&r[..8]);
                GroupClock {
                    group: r[W_GROUP] - 1,
                    sm: r[W_SM],
                    path: Path::from_word(r[W_PATH]),
                    bucket: (r[W_PATH] >> 8) & 0xFFFF,
                    places: r[W_PATH] >> 24,
                    keys: r[W_KEYS],
                    cycles,
                    entry_ns: super::word64(r, W_RT_ENTRY),
                    end_ns: super::word64(r, W_RT_END),
                }
            })
            .collect()
    }

    /// A text report: the span, each path's keys, lifetimes and cycles per phase, the `longest` workgroups.
    pub fn summarize(groups: &[GroupClock], longest: usize) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let Some(first) = groups.iter().map(|g| g.entry_ns).min() else {
            return "no workgroup records\n".into();
        };
        let last = groups.iter().map(|g| g.end_ns).max().unwrap_or(first);
        let _ = writeln!(
            out,
            "{} workgroups; span {:.2} us (first entry to last end)",
            groups.len(),
            (last - first) as f64 / 1e3
        );
        let mut paths: Vec<Path> = groups.iter().map(|g| g.path).collect();
        paths.sort_unstable();
        paths.dedup();
        for path in paths {
            let of: Vec<&GroupClock> = groups.iter().filter(|g| g.path == path).collect();
            let keys = quantiles(of.iter().map(|g| g.keys as f64).collect());
            let life = quantiles(of.iter().map(|g| g.life_ns() as f64).collect());
            let max_life = of.iter().map(|g| g.life_ns()).max().unwrap_or(0);
            let start = quantiles(of.iter().map(|g| (g.entry_ns - first) as f64).collect());
            if let (Some(k), Some(l), Some(s)) = (keys, life, start) {
                let kmax = of.iter().map(|g| g.keys).max().unwrap_or(0);
                let _ = writeln!(
                    out,
                    "  {:?}: {} groups, keys median {:.0} max {}; life median {:.2} us max {:.2} us; entry median +{:.2} us",
                    path,
                    of.len(),
                    k.1,
                    kmax,
                    l.1 / 1e3,
                    max_life as f64 / 1e3,
                    s.1 / 1e3
                );
            }
            for (i, name) in PHASES.iter().enumerate().skip(1) {
                let d: Vec<f64> = of
                    .iter()
                    .filter_map(|g| g.phase(i))
                    .map(|c| c as f64)
                    .collect();
                let max = d.iter().copied().fold(0.0, f64::max);
                if let Some((_, p50, _, mean)) = quantiles(d) {
                    let _ = writeln!(
                        out,
                        "    {:<18} cycles median {:>8.0} mean {:>8.0} max {:>8.0}",
                        name, p50, mean, max
                    );
                }
            }
        }
        let mut by_life: Vec<&GroupClock> = groups.iter().collect();
        by_life.sort_by_key(|g| std::cmp::Reverse(g.life_ns()));
        let _ = writeln!(
            out,
            "  longest: group path bucket keys places | entry +us life us | cycles per phase (role, sample, count, compact, load, sort, end)"
        );
        for g in by_life.into_iter().take(longest) {
            let phases: Vec<String> = (1..8)
                .map(|i| g.phase(i).map_or("-".into(), |c| c.to_string()))
                .collect();
            let _ = writeln!(
                out,
                "  {:>5} {:?} {} {} {} | +{:.2} {:.2} | {}",
                g.group,
                g.path,
                g.bucket,
                g.keys,
                g.places,
                (g.entry_ns - first) as f64 / 1e3,
                g.life_ns() as f64 / 1e3,
                phases.join(" ")
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(tile: u32, sm: u32, c0: u32, step: u32, entry: u64, end: u64) -> [u32; RECORD_WORDS] {
        let mut r = [0u32; RECORD_WORDS];
        for (i, w) in r.iter_mut().take(9).enumerate() {
            *w = c0.wrapping_add(step * i as u32);
        }
        r[W_SM] = sm;
        r[W_RT_ENTRY] = entry as u32;
        r[W_RT_ENTRY + 1] = (entry >> 32) as u32;
        r[W_RT_END] = end as u32;
        r[W_RT_END + 1] = (end >> 32) as u32;
        r[W_TILE] = tile + 1;
        r
    }

    #[test]
    fn decodes_and_summarizes() {
        let mut words = Vec::new();
        // Two SMs, two overlapping tiles on SM 0 (one wrapping its cycle counter), one on SM 1, one empty slot.
        words.extend(record(0, 0, 100, 10, 1_000, 2_000));
        words.extend(record(1, 0, u32::MAX - 15, 10, 1_500, 2_500));
        words.extend(record(2, 1, 0, 10, 1_000, 3_000));
        words.extend([0u32; RECORD_WORDS]);
        let t = decode(&words);
        assert_eq!(t.len(), 3);
        assert_eq!(t[1].tile, 1);
        assert_eq!(t[2].end_ns, 3_000);
        let s = summarize(&t);
        assert!(s.contains("3 tiles"), "{s}");
        assert!(s.contains("2 SMs seen"), "{s}");
        assert!(s.contains("2 max"), "{s}");
        // Every phase is 10 cycles, the whole tile 80 (also across the wrap).
        assert!(s.contains("whole tile"), "{s}");
        assert!(
            s.lines()
                .any(|l| l.contains("look-back") && l.contains(" 10 ")),
            "{s}"
        );
    }
}
