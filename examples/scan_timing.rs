//! Times every scan algorithm, reduce and compaction on device-resident u32 data with timestamp queries.
//!
//! `cargo run --release --example scan_timing -- [LOG2_N=24]`. `vksort bench` is the full tool.
use vksort::gpu::{profiler::sum_by_label, Buffer, Profiler};
use vksort::scan::{ScanAlgorithm, ScanConfig, ScanPolicy, Scanner};

fn main() -> anyhow::Result<()> {
    let log2: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(24);
    let n = 1u64 << log2;
    let ctx = vksort::Context::new(Default::default())?;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let input = Buffer::from_slice(&ctx, "scan_timing::input", &data)?;
    let output = Buffer::device_local(&ctx, "scan_timing::output", n * 4)?;
    let mut prof = Profiler::new(&ctx, 256)?;
    let roof = vksort::copy::measure_roofline(
        &ctx,
        (n * 4).min(ctx.caps().max_storage_buffer_range & !15),
        5,
    )?;
    println!(
        "{}: n = 2^{log2}, compute copy {:.0} GB/s",
        ctx.caps().name,
        roof / 1e9
    );
    let median = |prof: &mut Profiler,
                  f: &mut dyn FnMut(&mut Profiler) -> anyhow::Result<()>|
     -> anyhow::Result<(f64, Vec<vksort::gpu::PassTime>)> {
        let mut t = Vec::new();
        for _ in 0..7 {
            f(prof)?;
            t.push(prof.total_ns()?);
        }
        if std::env::var("SCAN_VERBOSE").is_ok() {
            println!(
                "  runs (ms): {:?}",
                t.iter()
                    .map(|x| (x / 1e3).round() / 1e3)
                    .collect::<Vec<_>>()
            );
        }
        t.sort_by(|a, b| a.total_cmp(b));
        Ok((t[3], sum_by_label(&prof.results()?)))
    };
    // SCAN_EXPERIMENTS=1: does the data decide the bandwidth? Copy and look-back scan of the real input, of a
    // zero-filled and of a ones-filled buffer.
    let experiments = |prof: &mut Profiler, when: &str| -> anyhow::Result<()> {
        if std::env::var("SCAN_EXPERIMENTS").is_err() {
            return Ok(());
        }
        let other = Buffer::device_local(&ctx, "scan_timing::other", n * 4)?;
        let lb = Scanner::new(&ctx, ScanConfig::default())?;
        let lscratch = Buffer::device_local(&ctx, "scan_timing::lscratch", lb.scratch_bytes(n))?;
        for (what, fill) in [("real", None), ("zeros", Some(0u32)), ("ones", Some(1u32))] {
            let src = match fill {
                None => &input,
                Some(v) => {
                    ctx.submit("fill", |rec| rec.fill("fill", other.as_ref(), v))?;
                    &other
                }
            };
            let (copy_ns, _) = median(prof, &mut |p| {
                ctx.submit_profiled("copy", Some(p), |rec| {
                    vksort::copy::cmd_copy(rec, src.as_ref(), output.as_ref(), n * 4)
                })?;
                Ok(())
            })?;
            let (scan_ns, _) = median(prof, &mut |p| {
                ctx.submit_profiled("scan", Some(p), |rec| {
                    lb.cmd_scan(rec, src.as_ref(), output.as_ref(), lscratch.as_ref(), n)
                })?;
                Ok(())
            })?;
            println!(
                "{when} data {what:<6} copy {:>8.3} ms ({:>6.0} GB/s r+w)  lookback {:>8.3} ms ({:>6.0} GB/s r+w)",
                copy_ns / 1e6,
                8.0 * n as f64 / copy_ns,
                scan_ns / 1e6,
                8.0 * n as f64 / scan_ns
            );
        }
        Ok(())
    };
    experiments(&mut prof, "first")?;
    // SCAN_SWEEP="wg:items,...": look-back, reduce-then-scan and compaction with each policy, timed back to
    // back before anything is read back (no correctness check here; the tests cover it), between two copies.
    if let Ok(list) = std::env::var("SCAN_SWEEP") {
        let base = ScanPolicy::for_device(ctx.caps());
        let sscratch = Buffer::device_local(
            &ctx,
            "scan_timing::sweep_scratch",
            vksort::compact::compact_scratch_bytes(n).max(n.div_ceil(512) * 8 + 64),
        )?;
        let count = Buffer::device_local(&ctx, "scan_timing::sweep_count", 16)?;
        let copy_ms = |prof: &mut Profiler| -> anyhow::Result<f64> {
            let (ns, _) = median(prof, &mut |p| {
                ctx.submit_profiled("copy", Some(p), |rec| {
                    vksort::copy::cmd_copy(rec, input.as_ref(), output.as_ref(), n * 4)
                })?;
                Ok(())
            })?;
            Ok(ns / 1e6)
        };
        println!("sweep: copy before {:.3} ms", copy_ms(&mut prof)?);
        for item in list.split(',').filter(|s| !s.is_empty()) {
            let f: Vec<u32> = item
                .split(':')
                .map(|x| x.parse())
                .collect::<Result<_, _>>()?;
            let p = ScanPolicy {
                workgroup_size: f[0],
                items_per_thread: f[1],
                ..base
            };
            let mut line = format!("sweep wg{}x{:<3}", f[0], f[1]);
            for algo in [
                ScanAlgorithm::DecoupledLookback,
                ScanAlgorithm::ReduceThenScan,
            ] {
                let sc = Scanner::new(
                    &ctx,
                    ScanConfig {
                        algorithm: algo,
                        policy: Some(p),
                        ..Default::default()
                    },
                )?;
                let (ns, _) = median(&mut prof, &mut |pr| {
                    ctx.submit_profiled("scan", Some(pr), |rec| {
                        sc.cmd_scan(rec, input.as_ref(), output.as_ref(), sscratch.as_ref(), n)
                    })?;
                    Ok(())
                })?;
                line += &format!("  {} {:.3} ms", algo.name(), ns / 1e6);
            }
            let c = vksort::compact::Compactor::new(&ctx, Some(p))?;
            let (ns, _) = median(&mut prof, &mut |pr| {
                ctx.submit_profiled("compact", Some(pr), |rec| {
                    c.cmd_compact(
                        rec,
                        input.as_ref(),
                        None,
                        output.as_ref(),
                        count.as_ref(),
                        sscratch.as_ref(),
                        n,
                    )
                })?;
                Ok(())
            })?;
            line += &format!("  compact {:.3} ms", ns / 1e6);
            println!("{line}");
        }
        println!("sweep: copy after {:.3} ms", copy_ms(&mut prof)?);
    }
    // SCAN_POLICIES="wg:items[:spin],..." times the look-back and reduce-then-scan with each policy
    // (and prints the look-back's fallback count), e.g. SCAN_POLICIES=256:16,256:32,512:16.
    // SCAN_ALGOS=lookback,reduce-then-scan,...: the algorithms of the main loop, in this order.
    let mut runs: Vec<(ScanAlgorithm, Option<ScanPolicy>)> = match std::env::var("SCAN_ALGOS") {
        Ok(list) => list
            .split(',')
            .filter_map(ScanAlgorithm::from_name)
            .map(|a| (a, None))
            .collect(),
        Err(_) => ScanAlgorithm::ALL.iter().map(|&a| (a, None)).collect(),
    };
    if let Ok(list) = std::env::var("SCAN_POLICIES") {
        let base = ScanPolicy::for_device(ctx.caps());
        for item in list.split(',').filter(|s| !s.is_empty()) {
            let f: Vec<u32> = item
                .split(':')
                .map(|x| x.parse())
                .collect::<Result<_, _>>()?;
            let p = ScanPolicy {
                workgroup_size: f[0],
                items_per_thread: f[1],
                spin_limit: f.get(2).copied().unwrap_or(base.spin_limit),
                ..base
            };
            runs.push((ScanAlgorithm::DecoupledLookback, Some(p)));
            runs.push((ScanAlgorithm::ReduceThenScan, Some(p)));
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
        let (ns, passes) = median(&mut prof, &mut |p| {
            ctx.submit_profiled("scan", Some(p), |rec| {
                scanner.cmd_scan(rec, input.as_ref(), output.as_ref(), scratch.as_ref(), n)
            })?;
            Ok(())
        })?;
        let ok = output.read_vec::<u32>(n as usize)?
            == vksort::scan::cpu_scan_u32(&data, Default::default());
        let fallbacks = if algo == ScanAlgorithm::DecoupledLookback {
            format!(" fallbacks={}", scratch.read_vec::<u32>(2)?[1])
        } else {
            String::new()
        };
        let pol = policy.map_or(String::new(), |p| {
            format!(" wg{}x{}", p.workgroup_size, p.items_per_thread)
        });
        println!(
            "scan {:<18} {:>9.3} ms {:>8.1} G/s  {:>5.1}% of copy  correct={ok}{fallbacks}  [{}]",
            format!("{}{pol}", algo.name()),
            ns / 1e6,
            n as f64 / ns,
            100.0 * 8.0 * n as f64 / (ns * 1e-9) / roof,
            passes
                .iter()
                .map(|p| format!("{} {:.3}", p.label, p.ns / 1e6))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let scratch = Buffer::device_local(
        &ctx,
        "scan_timing::cscratch",
        vksort::compact::compact_scratch_bytes(n),
    )?;
    let count = Buffer::device_local(&ctx, "scan_timing::count", 16)?;
    let (ns, _) = median(&mut prof, &mut |p| {
        ctx.submit_profiled("compact", Some(p), |rec| {
            vksort::compact::cmd_compact(
                rec,
                input.as_ref(),
                None,
                output.as_ref(),
                count.as_ref(),
                scratch.as_ref(),
                n,
            )
        })?;
        Ok(())
    })?;
    println!(
        "compact (non-zero)       {:>9.3} ms {:>8.1} G/s",
        ns / 1e6,
        n as f64 / ns
    );
    let rscratch = Buffer::device_local(
        &ctx,
        "scan_timing::rscratch",
        vksort::reduce::reduce_scratch_bytes(n),
    )?;
    let (ns, _) = median(&mut prof, &mut |p| {
        ctx.submit_profiled("reduce", Some(p), |rec| {
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
        Ok(())
    })?;
    println!(
        "reduce max               {:>9.3} ms {:>8.1} G/s",
        ns / 1e6,
        n as f64 / ns
    );
    experiments(&mut prof, "last")?;
    Ok(())
}
