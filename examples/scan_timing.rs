//! Times every scan algorithm, reduce and compaction on device-resident u32 data with timestamp queries.
//!
//! `cargo run --release --example scan_timing -- [LOG2_N=24]`. `vksort bench` is the full tool.
//!
//! Method: GPUs lower their clocks when they look idle, and a loop of short submissions each followed by a
//! host wait (and a host-side check) looks idle: on an H200 the SM clock fell from 1980 to 345 MHz in the
//! middle of such a run and every pass, the plain copy included, got 2-6x slower. So each measurement
//! records `reps` repetitions of the operation in ONE submission (a barrier between them), first submits it
//! repeatedly for WARMUP_MS of busy GPU time, then takes the median over 5 submissions of (total / reps).
//! The copy roofline is measured the same way, just before the scans.
//!
//! Environment: SCAN_POLICIES="wg:items,..." also times look-back, reduce-then-scan and compaction with each
//! policy; WARMUP_MS (default 300).
use vksort::gpu::{sum_by_label, Buffer, PassTime, Profiler, Recorder};
use vksort::scan::{ScanAlgorithm, ScanConfig, ScanPolicy, Scanner};

type Op<'a> = dyn FnMut(&mut Recorder) -> vksort::Result<()> + 'a;

/// Median time per repetition (ns) and the per-label pass times per repetition.
fn measure(
    ctx: &std::sync::Arc<vksort::Context>,
    prof: &mut Profiler,
    capacity: usize,
    op: &mut Op,
) -> anyhow::Result<(f64, Vec<PassTime>)> {
    // One repetition first: how many passes it records.
    ctx.submit_profiled("timing", Some(prof), |rec| op(rec))?;
    let passes = prof.results()?.len().max(1);
    let reps = (capacity.saturating_sub(2) / passes).clamp(1, 20);
    let mut batch = |prof: &mut Profiler| -> anyhow::Result<()> {
        ctx.submit_profiled("timing", Some(prof), |rec| {
            for r in 0..reps {
                if r > 0 {
                    rec.barrier();
                }
                op(rec)?;
            }
            Ok(())
        })?;
        Ok(())
    };
    let warm: f64 = std::env::var("WARMUP_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300.0);
    let start = std::time::Instant::now();
    while start.elapsed().as_secs_f64() * 1e3 < warm {
        batch(prof)?;
    }
    let mut t = Vec::new();
    let mut labels = Vec::new();
    for _ in 0..5 {
        batch(prof)?;
        t.push(prof.total_ns()? / reps as f64);
        labels.push(sum_by_label(&prof.results()?));
    }
    let mut order: Vec<usize> = (0..t.len()).collect();
    order.sort_by(|&a, &b| t[a].total_cmp(&t[b]));
    let mid = order[t.len() / 2];
    let per_rep = labels[mid]
        .iter()
        .map(|p| PassTime {
            label: p.label.clone(),
            ns: p.ns / reps as f64,
        })
        .collect();
    Ok((t[mid], per_rep))
}

fn main() -> anyhow::Result<()> {
    let log2: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(24);
    let n = 1u64 << log2;
    let ctx = vksort::Context::new(vksort::ContextOptions::from_env())?;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let input = Buffer::from_slice(&ctx, "scan_timing::input", &data)?;
    let output = Buffer::device_local(&ctx, "scan_timing::output", n * 4)?;
    let capacity = 256;
    let mut prof = Profiler::new(&ctx, capacity as u32)?;
    let (copy_ns, _) = measure(&ctx, &mut prof, capacity, &mut |rec| {
        vksort::copy::cmd_copy(rec, input.as_ref(), output.as_ref(), n * 4)
    })?;
    let roof = 8.0 * n as f64 / (copy_ns * 1e-9);
    println!(
        "{}: n = 2^{log2}, compute copy {:.3} ms = {:.0} GB/s (r+w)",
        ctx.caps().name,
        copy_ns / 1e6,
        roof / 1e9
    );
    let pct = |ns: f64| 100.0 * 8.0 * n as f64 / (ns * 1e-9) / roof;
    let fmt_passes = |passes: &[PassTime]| {
        passes
            .iter()
            .map(|p| format!("{} {:.3}", p.label, p.ns / 1e6))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut runs: Vec<(ScanAlgorithm, Option<ScanPolicy>)> =
        ScanAlgorithm::ALL.iter().map(|&a| (a, None)).collect();
    let mut compact_policies: Vec<Option<ScanPolicy>> = vec![None];
    if let Ok(list) = std::env::var("SCAN_POLICIES") {
        let base = ScanPolicy::for_device(ctx.caps());
        for item in list.split(',').filter(|s| !s.is_empty()) {
            let f: Vec<u32> = item
                .split(':')
                .map(|x| x.parse())
                .collect::<Result<_, _>>()?;
            let mut p = base;
            p.workgroup_size = f[0];
            p.items_per_invocation = f[1];
            runs.push((ScanAlgorithm::DecoupledLookback, Some(p)));
            runs.push((ScanAlgorithm::ReduceThenScan, Some(p)));
            compact_policies.push(Some(p));
        }
    }
    for (algo, policy) in runs {
        let scanner = Scanner::new(
            &ctx,
            ScanConfig {
                algorithm: algo,
                policy,
                ..Default::default()
            },
        )?;
        let scratch = Buffer::device_local(
            &ctx,
            "scan_timing::scratch",
            scanner.scratch_bytes(n).max(16),
        )?;
        let (ns, passes) = measure(&ctx, &mut prof, capacity, &mut |rec| {
            scanner.cmd_scan(rec, input.as_ref(), output.as_ref(), scratch.as_ref(), n)
        })?;
        let ok = output.read_vec::<u32>(n as usize)?
            == vksort::scan::cpu_scan_u32(&data, Default::default());
        let fallbacks = if algo == ScanAlgorithm::DecoupledLookback {
            format!(" fallbacks={}", scratch.read_vec::<u32>(2)?[1])
        } else {
            String::new()
        };
        let p = scanner.policy();
        println!(
            "scan {:<18} wg{}x{:<2} {:>9.3} ms {:>8.1} G/s  {:>5.1}% of copy  correct={ok}{fallbacks}  [{}]",
            algo.name(),
            p.workgroup_size,
            p.items_per_invocation,
            ns / 1e6,
            n as f64 / ns,
            pct(ns),
            fmt_passes(&passes)
        );
    }
    let cscratch = Buffer::device_local(
        &ctx,
        "scan_timing::cscratch",
        vksort::compact::compact_scratch_bytes(n),
    )?;
    let count = Buffer::device_local(&ctx, "scan_timing::count", 16)?;
    let want_count = data.iter().filter(|&&x| x != 0).count() as u32;
    for policy in compact_policies {
        let c = vksort::compact::Compactor::new(&ctx, policy.map(Into::into))?;
        let (ns, _) = measure(&ctx, &mut prof, capacity, &mut |rec| {
            c.cmd_compact(
                rec,
                input.as_ref(),
                None,
                output.as_ref(),
                count.as_ref(),
                cscratch.as_ref(),
                n,
            )
        })?;
        let ok = count.read_vec::<u32>(1)?[0] == want_count;
        let tile = c.tile_size(n);
        println!(
            "compact (non-zero) tile {tile:<6} {:>9.3} ms {:>8.1} G/s  {:>5.1}% of copy  count ok={ok}",
            ns / 1e6,
            n as f64 / ns,
            pct(ns)
        );
    }
    let rscratch = Buffer::device_local(
        &ctx,
        "scan_timing::rscratch",
        vksort::reduce::reduce_scratch_bytes(n),
    )?;
    let (ns, _) = measure(&ctx, &mut prof, capacity, &mut |rec| {
        vksort::reduce::cmd_reduce(
            rec,
            input.as_ref(),
            count.as_ref(),
            rscratch.as_ref(),
            n,
            vksort::reduce::ReduceOp::Max,
            vksort::scan::ScanElem::U32,
        )
    })?;
    println!(
        "reduce max                   {:>9.3} ms {:>8.1} G/s  ({:.0} GB/s read)",
        ns / 1e6,
        n as f64 / ns,
        4.0 * n as f64 / ns
    );
    Ok(())
}
