//! The scan family: every algorithm x {exclusive, inclusive} x {u32, u64} against the CPU reference
//! (bitwise), edge sizes around each algorithm's tile, wrapping values, the look-back stall emulation,
//! in-place scans, bad input (typed errors, output untouched) and push-constant sizes.
mod common;
use common::{with_gpu, Rng};
use std::sync::Arc;
use vksort::gpu::kernel::reflect;
use vksort::gpu::{Buffer, Profiler};
use vksort::scan::{
    self, cpu_scan_u32, cpu_scan_u64, ScanAlgorithm, ScanConfig, ScanElem, ScanKind, ScanPolicy,
    Scanner, StallMode,
};
use vksort::{Context, Error};

const KINDS: [ScanKind; 2] = [ScanKind::Exclusive, ScanKind::Inclusive];

/// Random values, a third of them near the top of the range so that sums wrap.
fn data_u32(n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => u32::MAX - (r.next_u32() & 0xff),
            1 => r.next_u32(),
            _ => r.next_u32() & 0xffff,
        })
        .collect()
}

fn data_u64(n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| match i % 3 {
            0 => u64::MAX - (r.next_u64() & 0xffff),
            1 => r.next_u64(),
            _ => r.next_u64() >> 20,
        })
        .collect()
}

fn check(ctx: &Arc<Context>, config: ScanConfig, sizes: &[usize]) {
    for &n in sizes {
        let seed = n as u64 * 31 + config.algorithm as u64;
        match config.elem {
            ScanElem::U32 => {
                let d = data_u32(n, seed);
                let got = scan::scan_u32(ctx, &d, &config).unwrap();
                let want = cpu_scan_u32(&d, config.kind);
                if got != want {
                    let i = got.iter().zip(&want).position(|(a, b)| a != b);
                    panic!("{config:?} n={n}: first difference at {i:?}");
                }
            }
            ScanElem::U64 => {
                if !ctx.caps().int64 {
                    continue;
                }
                let d = data_u64(n, seed);
                let got = scan::scan_u64(ctx, &d, &config).unwrap();
                let want = cpu_scan_u64(&d, config.kind);
                if got != want {
                    let i = got.iter().zip(&want).position(|(a, b)| a != b);
                    panic!("{config:?} n={n}: first difference at {i:?}");
                }
            }
        }
    }
}

fn edge_sizes(tile: usize) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 7, 33, 1001];
    v.extend(tile - 2..=tile + 2);
    v.extend([2 * tile - 1, 3 * tile + 5]);
    v
}

fn run_algorithm(algorithm: ScanAlgorithm) {
    with_gpu(|ctx| {
        for elem in [ScanElem::U32, ScanElem::U64] {
            for kind in KINDS {
                let config = ScanConfig {
                    algorithm,
                    kind,
                    elem,
                    policy: None,
                };
                if elem == ScanElem::U64 && !ctx.caps().int64 {
                    continue;
                }
                let tile = Scanner::new(ctx, config).unwrap().tile_size() as usize;
                let mut sizes = edge_sizes(tile);
                sizes.push((1 << 16) + 3);
                check(ctx, config, &sizes);
            }
        }
        // The big sizes once per algorithm.
        let ex = ScanConfig {
            algorithm,
            ..Default::default()
        };
        check(ctx, ex, &[1 << 20]);
        let inc = ScanConfig {
            algorithm,
            kind: ScanKind::Inclusive,
            ..Default::default()
        };
        check(ctx, inc, &[(1 << 22) + 1]);
    });
}

#[test]
fn lookback_matches_cpu() {
    run_algorithm(ScanAlgorithm::DecoupledLookback);
}

#[test]
fn reduce_then_scan_matches_cpu() {
    run_algorithm(ScanAlgorithm::ReduceThenScan);
}

#[test]
fn blelloch_matches_cpu() {
    run_algorithm(ScanAlgorithm::Blelloch);
}

#[test]
fn hillis_steele_matches_cpu() {
    run_algorithm(ScanAlgorithm::HillisSteele);
}
