//! Times one sort configuration with timestamp queries and prints the per-pass breakdown.
//!
//! `cargo run --release --example timing -- [LOG2_N=24] [u32|f32|u64|u128|...] [none|u32|u64] [ALGORITHM=auto]`
//! The `vksort bench` command is the full tool; this is the smallest program that shows how to time a recorded
//! sort on device-resident buffers. VKSORT_POLICY overrides policy fields; VKSORT_ENTROPY=k makes each key word
//! the AND of k random words.
use std::sync::Arc;
use vksort::gpu::{sum_by_label, Buffer, Profiler};
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let log2: u32 = args.first().map(|s| s.parse()).transpose()?.unwrap_or(24);
    let key = KeyType::from_name(args.get(1).map_or("u32", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("key type"))?;
    let value = ValueType::from_name(args.get(2).map_or("none", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("value"))?;
    let algorithm = SortAlgorithm::from_name(args.get(3).map_or("auto", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("algo"))?;
    let n = 1u64 << log2;
    let ctx: Arc<vksort::Context> = vksort::Context::new(vksort::ContextOptions::from_env())?;
    // VKSORT_POLICY="workgroup_size=256,items_per_invocation=8,..." overrides fields of the default policy of the
    // algorithm's family for this key/value type (for tuning sweeps; the keys are the fields' paths, `legend()`).
    let spec = std::env::var("VKSORT_POLICY").ok();
    let tag = spec.as_ref().map_or(String::new(), |s| format!(" [{s}]"));
    let config = SortConfig {
        key,
        value,
        algorithm,
        max_n: n,
        ..Default::default()
    };
    let mut builder = Sorter::builder(&ctx, config);
    if let Some(s) = &spec {
        builder = builder.policy_overrides(s)?;
    }
    let sorter = builder.build()?;
    // VKSORT_ENTROPY=k: each key word the AND of k random words (skewed keys; default 1: uniform).
    let and_of: u32 = std::env::var("VKSORT_ENTROPY").map_or(Ok(1), |s| s.parse())?;
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as u32
    };
    let words: Vec<u32> = (0..n * key.bytes() as u64 / 4)
        .map(|_| (0..and_of.max(1)).fold(!0u32, |a, _| a & next()))
        .collect();
    let keys = Buffer::from_slice(&ctx, "timing::keys", &words)?;
    let vals = if value.bytes() > 0 {
        Some(Buffer::device_local(
            &ctx,
            "timing::values",
            n * value.bytes() as u64,
        )?)
    } else {
        None
    };
    let scratch = Buffer::device_local(
        &ctx,
        "timing::scratch",
        sorter.storage_requirements(n)?.scratch_bytes,
    )?;
    // Clocks: a GPU that idled while the host set up runs short sorts at idle clocks (an H100: 345 instead of
    // 1980 MHz, 5x slower), so ~200 ms of sorts run back to back, in one submission, before the timed ones.
    {
        let mut prof = Profiler::per_run(&ctx, 4)?;
        ctx.submit_timed("timing::probe", Some(&mut prof), |rec| {
            rec.stamp("start");
            sorter.cmd_sort(
                rec,
                keys.as_ref(),
                vals.as_ref().map(|v| v.as_ref()),
                scratch.as_ref(),
                n,
            )?;
            rec.stamp("run");
            Ok(())
        })?;
        let once: f64 = prof
            .results()?
            .iter()
            .filter(|p| p.label == "run")
            .map(|p| p.ns)
            .sum();
        let reps = ((200e6 / once.max(1.0)).ceil() as usize).clamp(1, 2000);
        ctx.submit_timed("timing::warmup", None, |rec| {
            for _ in 0..reps {
                sorter.cmd_sort(
                    rec,
                    keys.as_ref(),
                    vals.as_ref().map(|v| v.as_ref()),
                    scratch.as_ref(),
                    n,
                )?;
                rec.barrier();
            }
            Ok(())
        })?;
    }
    let mut prof = Profiler::new(&ctx, 256)?;
    let mut totals = Vec::new();
    let mut per_pass = Vec::new();
    for rep in 0..8 {
        keys.write(0, bytemuck::cast_slice(&words))?;
        ctx.submit_profiled("timing", Some(&mut prof), |rec| {
            sorter.cmd_sort(
                rec,
                keys.as_ref(),
                vals.as_ref().map(|v| v.as_ref()),
                scratch.as_ref(),
                n,
            )
        })?;
        let passes = prof.results()?;
        let total: f64 = passes.iter().map(|p| p.ns).sum();
        if rep >= 2 {
            totals.push(total);
            per_pass.push(sum_by_label(&passes));
        }
    }
    // Per-pass medians over the timed repetitions (labels in recording order).
    for (i, p) in per_pass[0].iter().enumerate() {
        let mut v: Vec<f64> = per_pass
            .iter()
            .filter_map(|r| r.get(i).map(|q| q.ns))
            .collect();
        v.sort_by(|a, b| a.total_cmp(b));
        println!("{:<40} {:>10.3} ms (median)", p.label, v[v.len() / 2] / 1e6);
    }
    totals.sort_by(|a, b| a.total_cmp(b));
    let med = totals[totals.len() / 2];
    let roof = vksort::copy::measure_roofline(
        &ctx,
        (1u64 << 30).min(ctx.caps().max_storage_buffer_range & !15),
        5,
    )?;
    println!(
        "{} n=2^{log2} {} keys, {} values, {:?} ({:?}): median {:.3} ms = {:.2} G keys/s; compute copy {:.0} GB/s{tag}",
        ctx.caps().name,
        key.name(),
        value.name(),
        algorithm,
        sorter.algorithm_for(n),
        med / 1e6,
        n as f64 / med,
        roof / 1e9
    );
    Ok(())
}
