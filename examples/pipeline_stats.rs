//! Prints the driver's statistics (registers, spills, shared memory, ...) of every kernel a few typical sorts
//! and scans build, through VK_KHR_pipeline_executable_properties. For tuning work: registers per invocation
//! decide how many workgroups an SM keeps resident.
//!
//! `cargo run --release --example pipeline_stats` (asks for the statistics itself). VKSORT_ALGOS picks the sort
//! algorithms (comma-separated names; default auto), VKSORT_POLICY overrides fields of their family's policy as
//! in `examples/timing` (e.g. `tile.peer_match=1,tile.rank_counters=2` for the radix sorts,
//! `items_per_invocation=8` for the bitonic sort), VKSORT_MAX_N the sorters' capacity.
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};

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
    // VKSORT_MAX_N sets the sorters' capacity (default 2^20; e.g. 8192 for the one-workgroup sort).
    let n: usize = match std::env::var("VKSORT_MAX_N") {
        Ok(v) => v.parse()?,
        Err(_) => 1 << 20,
    };
    // VKSORT_ALGOS=bitonic,merge,... picks the sort algorithms (default auto: the radix sorts).
    let algos = std::env::var("VKSORT_ALGOS").unwrap_or_else(|_| "auto".into());
    for name in algos.split(',') {
        let algorithm = SortAlgorithm::from_name(name.trim())
            .ok_or_else(|| anyhow::anyhow!("unknown sort algorithm `{name}`"))?;
        for (key, value) in [
            (KeyType::U32, ValueType::None),
            (KeyType::U32, ValueType::U32),
            (KeyType::U64, ValueType::None),
        ] {
            // Creating the sorter builds every pipeline sorts of up to n keys use.
            let config = SortConfig {
                key,
                value,
                algorithm,
                max_n: n as u64,
                ..Default::default()
            };
            let mut builder = Sorter::builder(&ctx, config);
            if let Ok(spec) = std::env::var("VKSORT_POLICY") {
                builder = builder.policy_overrides(&spec)?;
            }
            builder.build()?;
        }
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
