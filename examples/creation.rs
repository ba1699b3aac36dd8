//! What `Sorter::new` costs, per algorithm and key type, with a cold and a warm pipeline cache: a markdown
//! table for BENCHMARKS.md.
//!
//! `cargo run --release --example creation -- [--keys u32,f32,u64,u128] [--algos auto,onesweep,...|all]
//!  [--values none|u32|u64] [--max-n N] [--policy KEY=V,...] [--driver-cache]`
//!
//! `--policy` applies tuning overrides to every sorter (`SorterBuilder::policy_overrides`: the algorithm's
//! family's field paths, e.g. `msd_bucket.items_per_invocation=8` for the radix MSD bucket pass): what a
//! lighter or heavier kernel costs to compile.
//!
//! For every (key type, algorithm): a fresh context with an empty pipeline cache builds the sorter (cold), its
//! cache is written to a file of this run's own directory (as the `vksort` tools keep theirs,
//! `tools/src/cache.rs`), and a second fresh context, its cache loaded from that file, builds the same sorter
//! (warm). Each context is new, so nothing is reused in-process: the table shows what a renderer's start-up
//! pays on a first and on a later launch.
//!
//! Drivers keep disk caches of their own, which would make "cold" warm from the second run of this example on:
//! it turns them off in its own environment before the first Vulkan call (`MESA_SHADER_CACHE_DISABLE=true` for
//! Mesa's drivers such as lavapipe and RADV, `__GL_SHADER_DISK_CACHE=0` for NVIDIA's), unless `--driver-cache`
//! is given (then "cold" means "cold for vksort", with whatever the driver kept). For a cold number on NVIDIA
//! without this example, run with `__GL_SHADER_DISK_CACHE=0` or a fresh `__GL_SHADER_DISK_CACHE_PATH`.
//!
//! The sorter builds its pipelines on several threads: "sum of pipelines" adds up their creation times (what
//! one thread would have taken), "slowest pipeline" is the one the wall time cannot go below.
//!
//! Pipelines counts the pipelines the sorter built; hits those the driver reported found in the cache
//! (`VK_EXT_pipeline_creation_feedback`; `-` where the driver reports none). A driver whose pipeline cache
//! stores nothing (lavapipe of Mesa 22: 32 bytes, the header) shows warm = cold.

#[path = "../tools/src/cache.rs"]
#[allow(dead_code)]
mod cache;

use std::sync::Arc;
use std::time::Instant;
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, ContextOptions};

struct Row {
    max_n: u64,
    algo: &'static str,
    key: &'static str,
    pipelines: usize,
    cold_ms: f64,
    /// Sum of the cold run's pipeline creation times (what building them one after another would take).
    cold_sum_ms: f64,
    /// The cold run's slowest pipeline: its shader and creation time.
    slowest: (&'static str, f64),
    warm_ms: f64,
    hits: Option<usize>,
    cache_bytes: usize,
}

fn arg(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1).cloned())
}

/// What one `Sorter::new` cost.
struct Built {
    ms: f64,
    pipelines: usize,
    hits: Option<usize>,
    cache_bytes: usize,
    /// Each pipeline's creation time: shader, milliseconds.
    times: Vec<(&'static str, f64)>,
}

/// Builds the sorter of `config` on a fresh context whose pipeline cache is the file in `dir` (loaded if it
/// exists, saved afterwards).
fn build(dir: &std::path::Path, config: SortConfig, policy: Option<&str>) -> anyhow::Result<Built> {
    let ctx: Arc<Context> = Context::new(ContextOptions::from_env())?;
    let (file, notes) = cache::PipelineCacheFile::attach_in(dir, &ctx);
    for n in notes.iter().filter(|n| n.level == cache::Level::Warn) {
        eprintln!("creation: warning: {}", n.message);
    }
    let (before, hits_before) = ctx.pipeline_counts();
    let t = Instant::now();
    let mut builder = Sorter::builder(&ctx, config);
    if let Some(spec) = policy {
        builder = builder.policy_overrides(spec)?;
    }
    let sorter = builder.build()?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let (after, hits_after) = ctx.pipeline_counts();
    drop(sorter);
    let saved = file.save(&ctx).map_err(anyhow::Error::msg)?.unwrap_or(0);
    let times = ctx
        .pipeline_creation_times()
        .into_iter()
        .map(|(shader, d)| (shader, d.as_secs_f64() * 1e3))
        .collect();
    Ok(Built {
        ms,
        pipelines: after - before,
        hits: hits_after.map(|h| h - hits_before.unwrap_or(0)),
        cache_bytes: saved,
        times,
    })
}

/// Open file descriptors and threads of this process (Linux; 0 elsewhere): a context that leaks its device
/// leaks the driver's descriptors and threads too.
fn open_fds_and_threads() -> (usize, usize) {
    let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
    let threads = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|t| t.trim().parse().ok())
        })
        .unwrap_or(0);
    (fds, threads)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--driver-cache") {
        // Before any Vulkan call (the loader and drivers read these at instance creation), single-threaded.
        std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
        std::env::set_var("__GL_SHADER_DISK_CACHE", "0");
    }
    let keys: Vec<KeyType> = arg(&args, "--keys")
        .unwrap_or_else(|| "u32,f32,u64,u128".into())
        .split(',')
        .map(|k| KeyType::from_name(k).ok_or_else(|| anyhow::anyhow!("unknown key type `{k}`")))
        .collect::<anyhow::Result<_>>()?;
    let value = ValueType::from_name(&arg(&args, "--values").unwrap_or_else(|| "none".into()))
        .ok_or_else(|| anyhow::anyhow!("--values: none, u32 or u64"))?;
    let algos: Vec<SortAlgorithm> = match arg(&args, "--algos").as_deref() {
        None | Some("all") => SortAlgorithm::ALL.to_vec(),
        Some(list) => list
            .split(',')
            .map(|a| {
                SortAlgorithm::from_name(a)
                    .ok_or_else(|| anyhow::anyhow!("unknown algorithm `{a}`"))
            })
            .collect::<anyhow::Result<_>>()?,
    };
    let max_n: u64 = match arg(&args, "--max-n") {
        Some(s) => match s.strip_prefix("2^") {
            Some(e) => 1u64 << e.parse::<u32>()?,
            None => s.parse()?,
        },
        None => vksort::sort::DEFAULT_MAX_N,
    };
    let policy = arg(&args, "--policy");
    let policy = policy.as_deref();
    let root = std::env::temp_dir().join(format!("vksort-creation-{}", std::process::id()));
    let t = Instant::now();
    let probe = Context::new(ContextOptions::from_env())?;
    let context_ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "`Sorter::new` on {} ({}), max_n = {max_n}, values {}, policy overrides {}; Context::new {context_ms:.0} ms; driver disk \
         caches {}",
        probe.caps().name,
        probe.caps().driver_info,
        value.name(),
        policy.unwrap_or("none"),
        if args.iter().any(|a| a == "--driver-cache") {
            "left on"
        } else {
            "off (MESA_SHADER_CACHE_DISABLE, __GL_SHADER_DISK_CACHE=0)"
        }
    );
    drop(probe);
    println!();
    let mut rows = Vec::new();
    for &key in &keys {
        for &algorithm in &algos {
            let mut config = SortConfig {
                key,
                value,
                algorithm,
                max_n,
                ..Default::default()
            };
            let dir = root.join(format!("{}-{}", key.name(), algorithm.name()));
            let cold = match build(&dir, config, policy) {
                Ok(r) => r,
                // An algorithm of a smaller range (the one-workgroup and hybrid sorts): at its largest.
                Err(e) => match e.downcast_ref::<vksort::Error>() {
                    Some(vksort::Error::AlgorithmLimit { max, .. }) if *max < max_n => {
                        config.max_n = *max;
                        build(&dir, config, policy)?
                    }
                    _ => {
                        eprintln!("creation: {} {}: {e}", algorithm.name(), key.name());
                        continue;
                    }
                },
            };
            let warm = build(&dir, config, policy)?;
            let row = Row {
                max_n: config.max_n,
                algo: algorithm.name(),
                key: key.name(),
                pipelines: cold.pipelines,
                cold_ms: cold.ms,
                cold_sum_ms: cold.times.iter().map(|t| t.1).sum(),
                slowest: cold
                    .times
                    .iter()
                    .copied()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap_or(("-", 0.0)),
                warm_ms: warm.ms,
                hits: warm.hits,
                cache_bytes: cold.cache_bytes,
            };
            eprintln!(
                "creation: {} {}: {} pipelines, cold {:.0} ms (pipelines {}), warm {:.0} ms; {:?} open fds and threads",
                row.algo,
                row.key,
                row.pipelines,
                row.cold_ms,
                cold.times
                    .iter()
                    .map(|(s, ms)| format!("{s} {ms:.0}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                row.warm_ms,
                open_fds_and_threads()
            );
            rows.push(row);
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "| algorithm | key | max_n | pipelines | cold (ms) | sum of pipelines (ms) | slowest pipeline (ms) | \
         warm (ms) | warm cache hits | cache file (bytes) |"
    );
    println!("|---|---|---:|---:|---:|---:|---|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {:.0} | {:.0} | {} {:.0} | {:.0} | {} | {} |",
            r.algo,
            r.key,
            r.max_n,
            r.pipelines,
            r.cold_ms,
            r.cold_sum_ms,
            r.slowest.0,
            r.slowest.1,
            r.warm_ms,
            r.hits.map_or("-".to_string(), |h| h.to_string()),
            r.cache_bytes
        );
    }
    if let Some(worst) = rows.iter().max_by(|a, b| a.cold_ms.total_cmp(&b.cold_ms)) {
        let warm_worst = rows.iter().map(|r| r.warm_ms).fold(0.0, f64::max);
        println!(
            "\nworst cold: {} {} {:.0} ms; worst warm: {warm_worst:.0} ms",
            worst.algo, worst.key, worst.cold_ms
        );
    }
    Ok(())
}
