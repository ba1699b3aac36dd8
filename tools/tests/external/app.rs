//! A crate outside the vksort workspace, as a renderer's author writes one: it depends on the packaged vksort
//! (`vksort = { path = "<the unpacked .crate>" }`, no feature) and uses the host forms only. Built and run by
//! tools/tests/package.rs, which copies this file to `src/main.rs` of a fresh crate in a temporary folder.
//!
//! Sorts random u32 keys, and f32 keys with u32 values (few distinct keys, so stability shows), on the default
//! device (lavapipe where there is no GPU), checks both against a CPU sort, and checks that the validation layer
//! (on with `VKSORT_VALIDATION=1`) reported nothing. Exits non-zero on any mismatch.

use std::process::ExitCode;

/// splitmix64: the keys are reproducible, and the crate needs no dependency but vksort.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("external crate: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("external crate: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let validation = std::env::var("VKSORT_VALIDATION").is_ok_and(|v| v == "1");
    let ctx = vksort::Context::new(vksort::ContextOptions {
        validation,
        ..Default::default()
    })
    .map_err(|e| format!("no Vulkan context: {e}"))?;
    println!(
        "device: {} (validation {})",
        ctx.caps().name,
        if validation { "on" } else { "off" }
    );
    let mut rng = Rng(0x5eed);

    // Keys alone: u32, the whole range.
    let n = 100_000;
    let mut keys: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let mut expected = keys.clone();
    expected.sort_unstable();
    vksort::sort::sort(&ctx, &mut keys).map_err(|e| format!("sort: {e}"))?;
    if keys != expected {
        let at = keys.iter().zip(&expected).position(|(a, b)| a != b).unwrap();
        return Err(format!(
            "u32 keys: first mismatch at {at}: {} != {}",
            keys[at], expected[at]
        ));
    }
    println!("sorted {n} u32 keys");

    // Pairs: f32 keys (negative, zero of both signs, infinities; 64 distinct values) and their input positions
    // as values. The CPU reference is a stable sort in IEEE 754 totalOrder, as vksort's.
    let n = 50_000u32;
    let mut fkeys: Vec<f32> = (0..n)
        .map(|_| match rng.next() % 64 {
            0 => -0.0,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            k => (k as f32 - 32.0) * 0.25,
        })
        .collect();
    let mut values: Vec<u32> = (0..n).collect();
    let mut pairs: Vec<(f32, u32)> = fkeys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    vksort::sort::sort_pairs(&ctx, &mut fkeys, &mut values).map_err(|e| format!("sort_pairs: {e}"))?;
    for (i, ((k, v), (ek, ev))) in fkeys.iter().zip(&values).zip(&pairs).enumerate() {
        if k.to_bits() != ek.to_bits() || v != ev {
            return Err(format!(
                "f32/u32 pairs: first mismatch at {i}: ({k}, {v}) != ({ek}, {ev})"
            ));
        }
    }
    println!("sorted {n} f32 keys with u32 values (stable)");

    let errors = ctx.take_validation_errors();
    if !errors.is_empty() {
        return Err(format!(
            "{} validation error(s):\n{}",
            errors.len(),
            errors.join("\n")
        ));
    }
    Ok(())
}
