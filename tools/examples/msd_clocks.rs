//! Where the MSD sort's bucket pass spends its time: runs the MSD sort with the clocked bucket kernel
//! ([`vksort::sort::radix::clocks::msd`]) on each distribution and prints the pass times (plain and clocked:
//! the instrumentation's cost) and the per-workgroup report: the span, each path's workgroups (counted buckets,
//! buckets in registers, helpers' shares) and the longest-lived workgroups phase by phase.
//!
//! `cargo run --release -p vksort-tools --example msd_clocks -- [LOG2_N=16] [u32|f32|u64|...] [none|u32|u64]
//! [DISTS=uniform,entropy-3,few-unique,visibility]` (VKSORT_POLICY overrides radix policy fields as in the
//! bench).
use std::sync::Arc;
use vksort::gpu::{Buffer, Profiler};
use vksort::sort::radix::{clocks::msd, RadixDebug, RadixPolicy};
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::Policy;
use vksort_tools::bench::data::ElemType;
use vksort_tools::bench::dist::Dist;

/// Bucket workgroups (2^digit_bits, at most 2^8) plus the most helpers.
const MAX_GROUPS: u64 = 256 + 2048;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log2: u32 = args.first().map(|s| s.parse()).transpose()?.unwrap_or(16);
    let key_name = args.get(1).map_or("u32", |s| s.as_str());
    let key = KeyType::from_name(key_name).ok_or(anyhow::anyhow!("key type"))?;
    let elem = ElemType::from_name(key_name).ok_or(anyhow::anyhow!("key type"))?;
    let value = ValueType::from_name(args.get(2).map_or("none", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("value type"))?;
    let dists: Vec<Dist> = args
        .get(3)
        .map_or("uniform,entropy-3,few-unique,visibility", |s| s.as_str())
        .split(',')
        .map(|d| d.parse().map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<_>>()?;
    let n = 1u64 << log2;
    let ctx: Arc<vksort::Context> = vksort::Context::new(vksort::ContextOptions {
        shader_clock: true,
        ..vksort::ContextOptions::from_env()
    })?;
    anyhow::ensure!(
        ctx.caps().shader_clock && ctx.caps().buffer_device_address,
        "{}: no VK_KHR_shader_clock or no buffer device addresses",
        ctx.caps().name
    );
    let mut policy = RadixPolicy::for_sort(ctx.caps(), key, value);
    if let Ok(spec) = std::env::var("VKSORT_POLICY") {
        policy = policy.with_overrides(&spec)?;
    }
    let records = Buffer::device_local(&ctx, "msd_clocks::records", MAX_GROUPS * 64)?;
    let sorter_for = |debug: RadixDebug| {
        Sorter::builder(
            &ctx,
            SortConfig {
                key,
                value,
                algorithm: SortAlgorithm::Msd,
                max_n: n,
                ..Default::default()
            },
        )
        .tuning(policy)
        .tuning(debug)
        .build()
    };
    let plain = sorter_for(RadixDebug::default())?;
    let clocked = sorter_for(RadixDebug {
        msd_clocks: records.device_address()?,
        ..Default::default()
    })?;
    let keys = Buffer::device_local(&ctx, "msd_clocks::keys", n * key.bytes() as u64)?;
    let vals = match value.bytes() {
        0 => None,
        b => Some(Buffer::device_local(
            &ctx,
            "msd_clocks::values",
            n * b as u64,
        )?),
    };
    let scratch = Buffer::device_local(
        &ctx,
        "msd_clocks::scratch",
        plain.storage_requirements(n)?.scratch_bytes,
    )?;
    let mut prof = Profiler::new(&ctx, 64)?;
    println!(
        "{} n=2^{log2} {} keys, {} values, MSD sort (bucket pass {}x{}, rank max {}, helper ratio {})",
        ctx.caps().name,
        key.name(),
        value.name(),
        policy.msd_bucket.workgroup_size,
        policy.msd_bucket.items_per_invocation,
        policy.msd.rank_max,
        policy.msd.helper_ratio
    );
    for dist in dists {
        let input = dist.generate(elem, n as usize, 7);
        println!("== {dist}");
        for (name, sorter) in [("plain", &plain), ("clocked", &clocked)] {
            // Per pass: the median of 9 runs (the first one warms the pipelines and caches).
            let mut per_pass: Vec<(String, Vec<f64>)> = Vec::new();
            for _ in 0..9 {
                keys.write(0, input.as_bytes())?;
                records.write(0, &vec![0u8; (MAX_GROUPS * 64) as usize])?;
                ctx.submit_profiled("msd_clocks", Some(&mut prof), |rec| {
                    sorter.cmd_sort(
                        rec,
                        keys.as_ref(),
                        vals.as_ref().map(|v| v.as_ref()),
                        scratch.as_ref(),
                        n,
                    )
                })?;
                for p in prof.results()? {
                    match per_pass.iter_mut().find(|(l, _)| *l == p.label) {
                        Some((_, v)) => v.push(p.ns),
                        None => per_pass.push((p.label.clone(), vec![p.ns])),
                    }
                }
            }
            let line: Vec<String> = per_pass
                .iter_mut()
                .map(|(label, v)| {
                    v.sort_by(|a, b| a.total_cmp(b));
                    let short = label.rsplit("::").next().unwrap_or(label);
                    format!("{short} {:.2} us", v[v.len() / 2] / 1e3)
                })
                .collect();
            println!("{name}: {}", line.join(", "));
        }
        let words: Vec<u32> = records.read_vec((MAX_GROUPS * 16) as usize)?;
        print!("{}", msd::summarize(&msd::decode(&words), 12));
    }
    Ok(())
}
