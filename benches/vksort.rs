//! `cargo bench`: the library alone, through its public API: the radix sort (u32 keys; u32 keys with u32
//! values) and the decoupled look-back scan (u32, exclusive) on the default device (or `VKSORT_DEVICE`), timed
//! with timestamp queries, checked against the CPU, printed as a table. The full sweep (every algorithm and
//! type, distributions, files, plots, the CUB comparison) is `vksort bench` in the tools package.
//!
//! Each run is timed as `vksort bench` times it: in one submission, runs back to back, each a restore of the
//! input (a buffer copy), a stamp, the operation, a stamp; the time of a run is the span between its two stamps.

use std::sync::Arc;
use vksort::gpu::{Buffer, BufferRef, Profiler, Recorder};
use vksort::scan::{ScanAlgorithm, ScanConfig, Scanner};
use vksort::sort::{KeyType, SortConfig, Sorter, ValueType};
use vksort::{Context, ContextOptions, Result};

/// The label of a run's closing stamp.
const RUN: &str = "bench::run";

/// Median GPU time (ns) of `reps` runs of `op`, each after `restore`, all in one submission (after `warmup`
/// untimed runs in another).
fn time(
    ctx: &Arc<Context>,
    warmup: usize,
    reps: usize,
    restore: &dyn Fn(&mut Recorder) -> Result<()>,
    op: &dyn Fn(&mut Recorder) -> Result<()>,
) -> Result<f64> {
    if warmup > 0 {
        ctx.submit_timed("bench::warmup", None, |rec| {
            for _ in 0..warmup {
                restore(rec)?;
                rec.barrier();
                op(rec)?;
                rec.barrier();
            }
            Ok(())
        })?;
    }
    let mut prof = Profiler::per_run(ctx, 2 * reps as u32 + 2)?;
    ctx.submit_timed("bench::timed", Some(&mut prof), |rec| {
        for _ in 0..reps {
            restore(rec)?;
            rec.barrier();
            rec.stamp("bench::restore");
            op(rec)?;
            rec.stamp(RUN);
            rec.barrier();
        }
        Ok(())
    })?;
    let mut runs: Vec<f64> = prof
        .results()?
        .into_iter()
        .filter(|p| p.label == RUN)
        .map(|p| p.ns)
        .collect();
    assert_eq!(runs.len(), reps, "one timed span per run");
    runs.sort_by(|a, b| a.total_cmp(b));
    Ok(runs[runs.len() / 2])
}

/// Deterministic pseudo-random u32 words (xorshift).
fn random_words(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect()
}

/// Times the radix sort of `n` random u32 keys (with u32 values `0..n` when `pairs`), checks the output; the
/// median time in ns.
fn bench_sort(ctx: &Arc<Context>, n: u64, pairs: bool, warmup: usize, reps: usize) -> Result<f64> {
    let value = if pairs {
        ValueType::U32
    } else {
        ValueType::None
    };
    let sorter = Sorter::new(
        ctx,
        SortConfig {
            key: KeyType::U32,
            value,
            ..Default::default()
        },
    )?;
    let input = random_words(n as usize, 0x9e37_79b9_7f4a_7c15 ^ n);
    let index: Vec<u32> = (0..n as u32).collect();
    let src_keys = Buffer::from_slice(ctx, "bench::src_keys", &input)?;
    let keys = Buffer::device_local(ctx, "bench::keys", n * 4)?;
    let (src_vals, vals) = if pairs {
        (
            Some(Buffer::from_slice(ctx, "bench::src_values", &index)?),
            Some(Buffer::device_local(ctx, "bench::values", n * 4)?),
        )
    } else {
        (None, None)
    };
    let scratch = Buffer::device_local(
        ctx,
        "bench::scratch",
        sorter
            .storage_requirements(n)
            .unwrap()
            .scratch_bytes
            .max(16),
    )?;
    let vals_ref: Option<BufferRef> = vals.as_ref().map(|v| v.as_ref());
    let restore = |rec: &mut Recorder| -> Result<()> {
        rec.copy(
            "bench::restore_keys",
            src_keys.as_ref(),
            keys.as_ref(),
            n * 4,
        )?;
        if let (Some(s), Some(d)) = (&src_vals, &vals) {
            rec.copy("bench::restore_values", s.as_ref(), d.as_ref(), n * 4)?;
        }
        Ok(())
    };
    let op =
        |rec: &mut Recorder| sorter.cmd_sort(rec, keys.as_ref(), vals_ref, scratch.as_ref(), n);
    let ns = time(ctx, warmup, reps, &restore, &op)?;
    // The buffers hold the last timed run's output.
    let out = keys.read_vec::<u32>(n as usize)?;
    let mut expected = input.clone();
    expected.sort_unstable();
    assert!(
        out == expected,
        "the sorted keys (n = {n}) differ from the CPU's"
    );
    if let Some(v) = &vals {
        let out_vals = v.read_vec::<u32>(n as usize)?;
        assert!(
            out_vals
                .iter()
                .zip(&out)
                .all(|(&i, &k)| (i as usize) < input.len() && input[i as usize] == k),
            "the sorted values (n = {n}) do not travel with their keys"
        );
    }
    Ok(ns)
}

/// Times the look-back scan (u32, exclusive sum) of `n` random words, checks the output; the median in ns.
fn bench_scan(ctx: &Arc<Context>, n: u64, warmup: usize, reps: usize) -> Result<f64> {
    let scanner = Scanner::new(
        ctx,
        ScanConfig {
            algorithm: ScanAlgorithm::DecoupledLookback,
            ..Default::default()
        },
    )?;
    let input: Vec<u32> = random_words(n as usize, 0x2545_f491_4f6c_dd1d ^ n)
        .into_iter()
        .map(|w| w & 0xff)
        .collect();
    let src = Buffer::from_slice(ctx, "bench::scan_input", &input)?;
    let output = Buffer::device_local(ctx, "bench::scan_output", n * 4)?;
    let scratch =
        Buffer::device_local(ctx, "bench::scan_scratch", scanner.scratch_bytes(n).max(16))?;
    // The input stays as it is; the "restore" clears the output, so every run writes it afresh.
    let restore = |rec: &mut Recorder| rec.fill("bench::clear", output.as_ref(), 0);
    let op = |rec: &mut Recorder| {
        scanner.cmd_scan(rec, src.as_ref(), output.as_ref(), scratch.as_ref(), n)
    };
    let ns = time(ctx, warmup, reps, &restore, &op)?;
    let out = output.read_vec::<u32>(n as usize)?;
    let mut sum = 0u32;
    for (i, (&x, &y)) in input.iter().zip(&out).enumerate() {
        assert_eq!(
            y, sum,
            "exclusive scan (n = {n}) differs from the CPU's at {i}"
        );
        sum = sum.wrapping_add(x);
    }
    Ok(ns)
}

fn main() {
    let ctx = match Context::new(ContextOptions::from_env()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vksort bench: no Vulkan device ({e}); nothing to measure");
            return;
        }
    };
    let cpu = ctx.caps().is_cpu();
    let (log2s, warmup, reps): (&[u32], usize, usize) = if cpu {
        (&[12, 16], 1, 3)
    } else {
        (&[16, 20, 24], 20, 20)
    };
    println!("{}", ctx.caps().name);
    println!(
        "{:<22} {:>10} {:>10} {:>9}",
        "operation", "n", "ms", "Gkeys/s"
    );
    for &log2 in log2s {
        let n = 1u64 << log2;
        let rows: [(&str, Result<f64>); 3] = [
            ("radix sort u32", bench_sort(&ctx, n, false, warmup, reps)),
            (
                "radix sort u32+u32",
                bench_sort(&ctx, n, true, warmup, reps),
            ),
            ("look-back scan u32", bench_scan(&ctx, n, warmup, reps)),
        ];
        for (what, r) in rows {
            match r {
                Ok(ns) => println!(
                    "{what:<22} {:>10} {:>10.3} {:>9.3}",
                    format!("2^{log2}"),
                    ns / 1e6,
                    n as f64 / ns.max(1.0)
                ),
                Err(e) => println!("{what:<22} {:>10} skipped: {e}", format!("2^{log2}")),
            }
        }
    }
}
