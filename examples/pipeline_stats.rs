//! Prints the driver's statistics (registers, spills, shared memory, ...) of every kernel a few typical sorts
//! and scans build, through VK_KHR_pipeline_executable_properties. For tuning work: registers per invocation
//! decide how many workgroups an SM keeps resident.
//!
//! `cargo run --release --example pipeline_stats` (sets VKSORT_PIPELINE_STATS=1 itself). VKSORT_POLICY
//! overrides radix policy fields as in `examples/timing` (e.g. `mor=1,rank2=2`).
use vksort::sort::{KeyType, SortConfig, ValueType};

fn main() -> anyhow::Result<()> {
    std::env::set_var("VKSORT_PIPELINE_STATS", "1");
    let ctx = vksort::Context::new(Default::default())?;
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
        let config = SortConfig {
            key,
            value,
            policy: Some(policy),
            ..Default::default()
        };
        let mut keys: Vec<u32> = (0..n * key.bytes() as usize / 4)
            .map(|i| (i as u32).wrapping_mul(2654435761))
            .collect();
        let mut vals: Vec<u32> = (0..n).map(|i| i as u32).collect();
        match (key, value) {
            (KeyType::U64, _) => {
                let mut k64: Vec<u64> = bytemuck::cast_slice(&keys).to_vec();
                vksort::sort::sort_with(&ctx, &mut k64, &config)?
            }
            (_, ValueType::U32) => {
                vksort::sort::sort_pairs_with(&ctx, &mut keys, &mut vals, &config)?
            }
            _ => vksort::sort::sort_with(&ctx, &mut keys, &config)?,
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
