//! `cargo bench -p vksort-tools`: the benchmark sweep with `--quick`-like settings on the default device (or
//! `VKSORT_DEVICE`), printed as a table. The full sweep, files, plots and the CUB comparison are
//! `vksort bench` (see `vksort bench --help`).

use vksort::{Context, ContextOptions};
use vksort_tools::bench::{self, BenchOptions};
use vksort_tools::model::Calibration;

fn main() {
    // `cargo test --benches` passes `--bench`-less args; run the sweep either way, it is short.
    let ctx = match Context::new(ContextOptions::from_env()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vksort bench: no Vulkan device ({e}); nothing to measure");
            return;
        }
    };
    let roofline = vksort_tools::calibrate::measure_roofline(&ctx).expect("roofline");
    let cal = Calibration::load_or_calibrate(&ctx).expect("calibration");
    let mut opts = BenchOptions::quick();
    if !ctx.caps().is_cpu() {
        opts.sizes = vec![16, 20, 24];
        opts.reps = 5;
    }
    let report = bench::run(&ctx, &opts, &cal, roofline, &mut |_, _, _, _| {}).expect("bench");
    print!("{}", bench::report::table(&report));
    let failures = report.failures();
    assert!(
        failures.is_empty(),
        "{} configurations failed verification",
        failures.len()
    );
}
