//! How many workgroups a device keeps resident at once, against each workgroup's shared memory, size and
//! register demand: the microbenchmark behind the "shared memory per SM" finding in `docs/tuning.md`.
//!
//! `cargo run --release --example residency [-- quick]`
//!
//! Each probe ([`vksort::diagnostics::cmd_residency`]) runs many workgroups that hold their shared memory and
//! registers for a while and counts, per SM (`VK_NV_shader_sm_builtins`; else for the whole device), the most that
//! were resident at once. Printed per probe: workgroup size, shared KiB per workgroup, live words per invocation,
//! the driver's register count and shared-memory size (`VK_KHR_pipeline_executable_properties`, where present),
//! workgroups resident per SM (most and fewest over the SMs that ran any), and what that residency holds per SM
//! (shared KiB, invocations, registers). Sweeps: shared memory at 128, 256, 384, 512 and 1024 invocations with
//! few registers; registers at 256 invocations with no shared memory; shared memory at 256 invocations with many
//! registers; and, where the device has the extensions, shared memory at 256 invocations declared as a block
//! (`VK_KHR_workgroup_memory_explicit_layout`) or beside a cooperative-matrix multiply-add
//! (`VK_NV_cooperative_matrix`): whether either kind of pipeline gets more shared memory per SM. `quick`: fewer
//! points (the CI smoke run on lavapipe).
use std::sync::Arc;
use vksort::diagnostics::{cmd_residency, ResidencyMemory, ResidencyShape, ResidencySlots};
use vksort::gpu::Buffer;

/// Counter slots of a per-SM probe: more than any GPU has SMs.
const MAX_SMS: u32 = 1024;

struct Probe {
    resident_max: u32,
    resident_min: u32,
    sms: usize,
    ms: f64,
}

fn probe(
    ctx: &Arc<vksort::Context>,
    counters: &Buffer,
    shape: ResidencyShape,
    slots: ResidencySlots,
    groups: u32,
    iterations: u32,
) -> anyhow::Result<Probe> {
    let t = std::time::Instant::now();
    ctx.submit("residency", |rec| {
        cmd_residency(rec, counters.as_ref(), shape, slots, iterations, groups)
    })?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let n = slots.count() as usize;
    let words = counters.read_vec::<u32>(2 * n + 1)?;
    let peaks: Vec<u32> = words[n..2 * n].iter().copied().filter(|&p| p > 0).collect();
    anyhow::ensure!(
        words[..n].iter().all(|&c| c == 0),
        "a workgroup did not count itself out"
    );
    Ok(Probe {
        resident_max: peaks.iter().copied().max().unwrap_or(0),
        resident_min: peaks.iter().copied().min().unwrap_or(0),
        sms: peaks.len(),
        ms,
    })
}

/// The driver's register count and shared-memory bytes of the probe kernel with these constants, if reported.
fn driver_stats(ctx: &vksort::Context, shape: ResidencyShape) -> (String, String) {
    let want = format!("WG_SIZE={}, MIN_SUBGROUP=", shape.workgroup_size);
    let tail = format!(
        "SHARED_WORDS={}, LIVE_REGS={}}}",
        shape.shared_bytes.div_ceil(4).max(1),
        shape.live_words
    );
    let stats = ctx.kernel_statistics().unwrap_or_default();
    let Some((_, values)) = stats
        .iter()
        .find(|(k, _)| k.starts_with("debug_residency") && k.contains(&want) && k.ends_with(&tail))
    else {
        return ("-".into(), "-".into());
    };
    let find = |needle: &str| {
        values
            .iter()
            .find(|(name, _)| name.to_lowercase().contains(needle))
            .map_or("-".to_string(), |(_, v)| v.clone())
    };
    (find("register"), find("shared"))
}

fn main() -> anyhow::Result<()> {
    let quick = std::env::args().any(|a| a == "quick");
    let ctx = vksort::Context::new(vksort::ContextOptions {
        shader_clock: true,
        residency_probes: true,
        pipeline_statistics: true,
        ..vksort::ContextOptions::from_env()
    })?;
    let caps = ctx.caps().clone();
    let slots = if caps.sm_builtins {
        ResidencySlots::PerSm { sms: MAX_SMS }
    } else {
        ResidencySlots::Device
    };
    let counters = Buffer::device_local(&ctx, "residency::counters", slots.counter_bytes())?;
    // A CPU driver runs few workgroups at a time and slowly: a short probe.
    let (groups, iterations) = if caps.is_cpu() || quick {
        (64, 64)
    } else {
        (MAX_SMS * 16, 20_000)
    };
    println!(
        "{} ({}); max shared memory per workgroup {} KiB; counting {}",
        caps.name,
        caps.driver_info,
        caps.max_shared_memory / 1024,
        match slots {
            ResidencySlots::PerSm { .. } => "per SM (gl_SMIDNV)",
            ResidencySlots::Device => "for the whole device (no VK_NV_shader_sm_builtins)",
        }
    );
    let plan = vksort::policy::SubgroupPlan::for_device(&caps);
    let max_kib = caps.max_shared_memory / 1024;
    let kib_points: Vec<u32> = if quick {
        vec![0, 8, max_kib]
    } else {
        [0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 44, 48]
            .into_iter()
            .filter(|&k| k <= max_kib)
            .collect()
    };
    let wgs: Vec<u32> = if quick {
        vec![plan.max * 4]
    } else {
        [128, 256, 384, 512, 1024].to_vec()
    }
    .into_iter()
    .filter(|&w| w % plan.max == 0 && w <= caps.max_workgroup_invocations)
    .collect();
    let mut shapes = Vec::new();
    for &wg in &wgs {
        for &kib in &kib_points {
            shapes.push(ResidencyShape {
                workgroup_size: wg,
                shared_bytes: kib * 1024,
                live_words: 8,
                memory: ResidencyMemory::Plain,
            });
        }
    }
    let reg_points: &[u32] = if quick {
        &[64]
    } else {
        &[16, 32, 48, 64, 80, 96, 128, 160, 200, 255]
    };
    let reg_wg = if wgs.contains(&256) { 256 } else { wgs[0] };
    for &live in reg_points {
        shapes.push(ResidencyShape {
            workgroup_size: reg_wg,
            shared_bytes: 0,
            live_words: live,
            memory: ResidencyMemory::Plain,
        });
    }
    if !quick {
        for kib in [4, 8, 12, 16, 24] {
            shapes.push(ResidencyShape {
                workgroup_size: reg_wg,
                shared_bytes: kib * 1024,
                live_words: 64,
                memory: ResidencyMemory::Plain,
            });
        }
    }
    // Whether a shared block (explicit layout) or a cooperative-matrix pipeline gets more shared memory per SM
    // (issue 19, step 1): 256 invocations, few registers, where the device has the extension.
    for memory in [ResidencyMemory::Block, ResidencyMemory::CooperativeMatrix] {
        if !memory.supported(&caps) {
            println!("({} probes skipped: not supported here)", memory.name());
            continue;
        }
        let points: &[u32] = if quick {
            &[1, 8]
        } else {
            &[1, 4, 8, 12, 16, 20, 24, 32, 48]
        };
        for &kib in points.iter().filter(|&&k| k <= max_kib) {
            shapes.push(ResidencyShape {
                workgroup_size: reg_wg,
                shared_bytes: kib * 1024,
                live_words: 8,
                memory,
            });
        }
    }
    println!(
        "| shared memory | invocations | shared KiB | live words | registers (driver) | shared bytes (driver) | resident per SM (most / fewest) | SMs | shared KiB held | invocations held | ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for shape in shapes {
        let p = probe(&ctx, &counters, shape, slots, groups, iterations)?;
        let (regs, shared) = driver_stats(&ctx, shape);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} / {} | {} | {:.1} | {} | {:.2} |",
            shape.memory.name(),
            shape.workgroup_size,
            shape.shared_bytes as f64 / 1024.0,
            shape.live_words,
            regs,
            shared,
            p.resident_max,
            p.resident_min,
            p.sms,
            p.resident_max as f64 * shape.shared_bytes as f64 / 1024.0,
            p.resident_max * shape.workgroup_size,
            p.ms
        );
    }
    Ok(())
}
