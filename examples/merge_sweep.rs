//! The merge sort's tuning sweep: times sorts under a grid of [`MergePolicy`] values, to choose the device's
//! defaults (`MergePolicy::for_items`).
//!
//! `cargo run --release --example merge_sweep -- [LOG2_SIZES=16,20,24] [KEYS=u32,u64,u128] [VALUES=none,u32]`
//!
//! For each key/value configuration: stage 1 times the six (merge kernel, split search) pairs on the device's tiles;
//! stage 2 times a grid of block and merge tiles (workgroup size x keys per invocation) with the pair that won
//! stage 1 (the sum of its times over the sizes). `VKSORT_MERGE_POLICY="block_workgroup_size=512,merge_kernel=1;merge_items_per_invocation=16"`
//! instead times exactly those overrides of the device policy (`;` between policies; the keys are the field names,
//! `MergePolicy::legend`). Each time is the median of 7 runs of the sort alone (two timestamps around
//! it, the input restored before each run by a compute copy outside them; clocks are not warmed: for figures to
//! compare, sweep through `vksort bench` with `VKSORT_POLICY`); every policy's output of up to 2^20
//! keys is checked sorted and a permutation of the input (keys only: the values are not read). Prints one line per policy and
//! size, then the best policy per configuration.
use std::sync::Arc;
use vksort::gpu::{Buffer, Profiler};
use vksort::sort::merge::{MergeKernel, MergePolicy, MergeSort, Partition};
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, Policy};

fn list<T>(arg: Option<&String>, default: &str, f: impl Fn(&str) -> Option<T>) -> Vec<T> {
    arg.map_or(default, |s| s.as_str())
        .split(',')
        .map(|s| f(s.trim()).unwrap_or_else(|| panic!("cannot read `{s}`")))
        .collect()
}

fn describe(p: &MergePolicy) -> String {
    format!(
        "block {}x{} merge {}x{} {} {}",
        p.block_workgroup_size,
        p.block_items_per_invocation,
        p.merge_workgroup_size,
        p.merge_items_per_invocation,
        p.merge_kernel.name(),
        p.partition.name()
    )
}

/// Median ms of a sort of each size with policy `p` (None: the policy is refused by the device).
fn time_policy(
    ctx: &Arc<Context>,
    key: KeyType,
    value: ValueType,
    p: MergePolicy,
    sizes: &[u64],
    input: &Buffer,
) -> anyhow::Result<Option<Vec<f64>>> {
    let max_n = *sizes.iter().max().unwrap();
    let config = SortConfig {
        key,
        value,
        algorithm: SortAlgorithm::Merge,
        max_n,
        ..Default::default()
    };
    let sorter = match Sorter::builder(ctx, config).tuning(p).build() {
        Ok(s) => s,
        Err(vksort::Error::InvalidPolicy { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let kb = key.bytes() as u64;
    let keys = Buffer::device_local(ctx, "sweep::keys", (max_n * kb).div_ceil(16) * 16)?;
    let vals = Buffer::device_local(ctx, "sweep::values", (max_n * value.bytes() as u64).max(16))?;
    let scratch = Buffer::device_local(
        ctx,
        "sweep::scratch",
        sorter.storage_requirements(max_n)?.scratch_bytes,
    )?;
    let vref = (value != ValueType::None).then(|| vals.as_ref());
    let mut out = Vec::new();
    for &n in sizes {
        let bytes = (n * kb).div_ceil(16) * 16;
        let mut prof = Profiler::per_run(ctx, 64)?;
        let mut runs = Vec::new();
        for rep in 0..9 {
            ctx.submit_timed("sweep", Some(&mut prof), |rec| {
                vksort::copy::cmd_copy(rec, input.as_ref(), keys.as_ref(), bytes)?;
                rec.barrier();
                rec.stamp("restore");
                sorter.cmd_sort(rec, keys.as_ref(), vref, scratch.as_ref(), n)?;
                rec.stamp("sort");
                Ok(())
            })?;
            if rep >= 2 {
                let spans = prof.results()?;
                runs.extend(spans.iter().filter(|s| s.label == "sort").map(|s| s.ns));
            }
        }
        runs.sort_by(|a, b| a.total_cmp(b));
        out.push(runs[runs.len() / 2] / 1e6);
        // Sorted (unsigned keys: raw order) and a permutation of the input (sizes up to 2^20, to keep the host's
        // share of the sweep short).
        if n > 1 << 20 {
            continue;
        }
        let words = (n * kb / 4) as usize;
        let got = keys.read_vec::<u32>(words)?;
        let mut want = input.read_vec::<u32>(words)?;
        let w = key.words() as usize;
        let as_key = |c: &[u32]| c.iter().rev().fold(0u128, |a, &x| (a << 32) | x as u128);
        let mut wk: Vec<u128> = want.chunks(w).map(as_key).collect();
        wk.sort_unstable();
        want.clear();
        let gk: Vec<u128> = got.chunks(w).map(as_key).collect();
        anyhow::ensure!(
            gk == wk,
            "{} {} n={n} {}: wrong output",
            key.name(),
            value.name(),
            describe(&p)
        );
    }
    Ok(Some(out))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<u64> = list(args.first(), "16,20,24", |s| s.parse::<u32>().ok())
        .into_iter()
        .map(|l| 1u64 << l)
        .collect();
    let keys = list(args.get(1), "u32,u64,u128", KeyType::from_name);
    let values = list(args.get(2), "none,u32", ValueType::from_name);
    for k in &keys {
        assert!(
            matches!(k, KeyType::U32 | KeyType::U64 | KeyType::U128),
            "the sweep checks unsigned keys only"
        );
    }
    let ctx = Context::new(vksort::ContextOptions::from_env())?;
    let max_n = *sizes.iter().max().unwrap();
    println!(
        "{}: merge sort sweep, sizes {:?}",
        ctx.caps().name,
        sizes.iter().map(|n| n.trailing_zeros()).collect::<Vec<_>>()
    );
    let explicit = std::env::var("VKSORT_MERGE_POLICY").ok();
    let mut summary = Vec::new();
    for &key in &keys {
        // Random input words, on the device once per key type.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let words: Vec<u32> = (0..(max_n * key.bytes() as u64 / 4).max(4))
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 16) as u32
            })
            .collect();
        let input = Buffer::from_slice(&ctx, "sweep::input", &words)?;
        for &value in &values {
            let d = Sorter::new(
                &ctx,
                SortConfig {
                    key,
                    value,
                    algorithm: SortAlgorithm::Merge,
                    max_n: 1,
                    ..Default::default()
                },
            )?
            .backend::<MergeSort>()
            .unwrap()
            .policy;
            let mut results: Vec<(MergePolicy, Vec<f64>)> = Vec::new();
            let run = |p: MergePolicy,
                       results: &mut Vec<(MergePolicy, Vec<f64>)>|
             -> anyhow::Result<()> {
                if results.iter().any(|(q, _)| *q == p) {
                    return Ok(());
                }
                if let Some(ms) = time_policy(&ctx, key, value, p, &sizes, &input)? {
                    let cells: Vec<String> = ms.iter().map(|t| format!("{t:9.4}")).collect();
                    println!(
                        "{:>5} {:>5}  {:<44} ms: {}",
                        key.name(),
                        value.name(),
                        describe(&p),
                        cells.join(" ")
                    );
                    results.push((p, ms));
                }
                Ok(())
            };
            if let Some(spec) = &explicit {
                for one in spec.split(';') {
                    run(d.with_overrides(one)?, &mut results)?;
                }
            } else {
                for kernel in MergeKernel::ALL {
                    for partition in Partition::ALL {
                        let mut p = d;
                        (p.merge_kernel, p.partition) = (kernel, partition);
                        run(p, &mut results)?;
                    }
                }
                let total = |ms: &Vec<f64>| ms.iter().sum::<f64>();
                let best = results
                    .iter()
                    .min_by(|a, b| total(&a.1).total_cmp(&total(&b.1)))
                    .map(|r| r.0)
                    .unwrap_or(d);
                // Block tiles of 2048..8192 keys and merge tiles of 1024..4096 (shared memory: 4 bytes per u32
                // key), with the best kernel and split search of stage 1.
                for (bwg, bkpt) in [(256, 16), (512, 8), (256, 8), (128, 16), (512, 16)] {
                    for (mwg, mkpt) in [(256, 16), (512, 8), (256, 8), (128, 16), (256, 4)] {
                        let mut p = best;
                        (p.block_workgroup_size, p.block_items_per_invocation) = (bwg, bkpt);
                        (p.merge_workgroup_size, p.merge_items_per_invocation) = (mwg, mkpt);
                        run(p, &mut results)?;
                    }
                }
            }
            let total = |ms: &Vec<f64>| ms.iter().sum::<f64>();
            if let Some((p, ms)) = results
                .iter()
                .min_by(|a, b| total(&a.1).total_cmp(&total(&b.1)))
            {
                let def = results.iter().find(|(q, _)| *q == d).map(|r| r.1.clone());
                summary.push(format!(
                    "{:>5} {:>5}  best {:<44} ms: {:?}; device default {}: {:?}",
                    key.name(),
                    value.name(),
                    describe(p),
                    ms,
                    describe(&d),
                    def
                ));
            }
        }
    }
    println!("\nbest per configuration (the smallest sum over the sizes):");
    for s in summary {
        println!("{s}");
    }
    Ok(())
}
