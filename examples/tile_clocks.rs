//! Where a Onesweep tile's time goes: runs one sort with the clocked kernels ([`vksort::sort::radix::clocks`]) and
//! prints, per digit place, SM cycles per phase, tile lifetimes and how many tiles each SM holds at once.
//! Also times the same sort with and without the clocks (the instrumentation's cost).
//!
//! `cargo run --release --example tile_clocks -- [LOG2_N=24] [u32|f32|u64|...] [none|u32|u64]`
//! (asks for the shader clock itself; VKSORT_POLICY overrides policy fields as in `examples/timing`). Needs the
//! `diagnostics` feature: `cargo run --release --features diagnostics --example tile_clocks`.
use std::sync::Arc;
use vksort::gpu::{Buffer, Profiler};
use vksort::sort::radix::{clocks, RadixDebug, RadixSort};
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::Policy;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log2: u32 = args.first().map(|s| s.parse()).transpose()?.unwrap_or(24);
    let key = KeyType::from_name(args.get(1).map_or("u32", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("key type"))?;
    let value = ValueType::from_name(args.get(2).map_or("none", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("value type"))?;
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
    let mut policy = vksort::sort::radix::RadixPolicy::for_sort(ctx.caps(), key, value);
    if let Ok(spec) = std::env::var("VKSORT_POLICY") {
        policy = policy.with_overrides(&spec)?;
    }
    let sorter_for = |debug: RadixDebug| {
        Sorter::builder(
            &ctx,
            SortConfig {
                key,
                value,
                algorithm: SortAlgorithm::Onesweep,
                max_n: n,
                ..Default::default()
            },
        )
        .tuning(policy)
        .tuning(debug)
        .build()
    };
    // VKSORT_RADIX_DEBUG: diagnostics knobs for both runs (RadixDebug::with_overrides), e.g. debug=8.
    let base_debug = match std::env::var("VKSORT_RADIX_DEBUG") {
        Ok(knobs) if !knobs.is_empty() => RadixDebug::default().with_overrides(&knobs)?,
        _ => RadixDebug::default(),
    };
    let plain = sorter_for(base_debug)?;
    let radix = plain.backend::<RadixSort>().expect("a radix sorter");
    let layout = radix.pick(n).layout(n);
    let tiles = layout.portions.count * layout.portions.tiles;
    let places = (key.bytes() * 8).div_ceil(policy.tile.digit_bits) as u64;
    let records = Buffer::device_local(&ctx, "tile_clocks::records", places * tiles * 64)?;
    let addr = records.device_address()?;
    let clocked = sorter_for(RadixDebug {
        tile_clocks: addr,
        ..base_debug
    })?;

    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let words: Vec<u32> = (0..n * key.bytes() as u64 / 4)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as u32
        })
        .collect();
    let keys = Buffer::from_slice(&ctx, "tile_clocks::keys", &words)?;
    let vals = match value.bytes() {
        0 => None,
        b => Some(Buffer::device_local(
            &ctx,
            "tile_clocks::values",
            n * b as u64,
        )?),
    };
    let scratch = Buffer::device_local(
        &ctx,
        "tile_clocks::scratch",
        plain.storage_requirements(n)?.scratch_bytes,
    )?;
    let mut prof = Profiler::new(&ctx, 256)?;
    for (name, sorter) in [("plain", &plain), ("clocked", &clocked)] {
        let mut times = Vec::new();
        for _ in 0..6 {
            keys.write(0, bytemuck::cast_slice(&words))?;
            ctx.submit_profiled("tile_clocks", Some(&mut prof), |rec| {
                sorter.cmd_sort(
                    rec,
                    keys.as_ref(),
                    vals.as_ref().map(|v| v.as_ref()),
                    scratch.as_ref(),
                    n,
                )
            })?;
            let passes = prof.results()?;
            let onesweep: f64 = passes
                .iter()
                .filter(|p| p.label.contains("onesweep"))
                .map(|p| p.ns)
                .sum();
            times.push(onesweep);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{name}: Onesweep passes {:.3} ms (median of 6, all places)",
            times[times.len() / 2] / 1e6
        );
    }
    let all: Vec<u32> = records.read_vec((places * tiles) as usize * clocks::RECORD_WORDS)?;
    println!(
        "{} n=2^{log2} {} keys, {} values, policy {}x{} ({} tiles per place)",
        ctx.caps().name,
        key.name(),
        value.name(),
        policy.tile.workgroup_size,
        policy.tile.items_per_invocation,
        tiles
    );
    for (p, chunk) in all
        .chunks_exact(tiles as usize * clocks::RECORD_WORDS)
        .enumerate()
    {
        println!("== place {p}");
        print!("{}", clocks::summarize(&clocks::decode(chunk)));
    }
    Ok(())
}
