//! Prints the driver's statistics (registers, spills, shared memory, ...) of every kernel a few typical sorts
//! and scans build, through VK_KHR_pipeline_executable_properties. For tuning work: registers per invocation
//! decide how many workgroups an SM keeps resident.
//!
//! `cargo run --release --example pipeline_stats` (asks for the statistics itself). VKSORT_POLICY
//! overrides radix policy fields as in `examples/timing` (e.g. `mor=1,rank2=2`).
use vksort::sort::{KeyType, SortConfig, Sorter, ValueType};

fn main() -> anyhow::Result<()> {
    let ctx = vksort::Context::new(vksort::ContextOptions {
        pipeline_statistics: true,
        ..vksort::ContextOptions::from_env()
    })?;
    if !ctx.caps().pipeline_statistics {
        println!(
            "{}: no VK_KHR_pipeline_executable_properties",
            ctx.caps().name
        );
        return Ok(());
    }
    let n = 1usize << 20;
    for (key, value) in [
        (KeyType::U32, ValueType::None),
        (KeyType::U32, ValueType::U32),
        (KeyType::U64, ValueType::None),
    ] {
        let mut policy = vksort::sort::radix::RadixPolicy::for_sort(ctx.caps(), key, value);
        if let Ok(spec) = std::env::var("VKSORT_POLICY") {
            policy = policy.with_overrides(&spec)?;
        }
        // Creating the sorter builds every pipeline sorts of up to n keys use.
        let config = SortConfig {
            key,
            value,
            max_n: n as u64,
            ..Default::default()
        };
        Sorter::builder(&ctx, config).tuning(policy).build()?;
    }
    let data: Vec<u32> = (0..n as u32).collect();
    vksort::scan::scan_u32(&ctx, &data, &Default::default())?;
    vksort::compact::compact_u32(&ctx, &data, None)?;
    println!("{} ({})", ctx.caps().name, ctx.caps().driver_info);
    for (kernel, stats) in ctx.kernel_statistics()? {
        let line: Vec<String> = stats.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("{kernel}\n    {}", line.join(", "));
    }
    Ok(())
}
