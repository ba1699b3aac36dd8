//! Shared test support: one context per test binary, GPU tests serialized, validation errors fail the test
//! that caused them, and a small deterministic random generator.
#![allow(dead_code)]

use std::sync::{Arc, Mutex, OnceLock};
use vksort::{Context, ContextOptions};

static CTX: OnceLock<Arc<Context>> = OnceLock::new();
static LOCK: Mutex<()> = Mutex::new(());

/// The test context: `VKSORT_DEVICE` picks the device; validation is on when `VKSORT_VALIDATION=1`
/// (`./dev test` sets it; CI and the README's test command always run with it).
pub fn ctx() -> Arc<Context> {
    CTX.get_or_init(|| {
        let ctx = Context::new(ContextOptions::from_env()).expect("Vulkan context");
        eprintln!(
            "vksort tests on {} (subgroup {} [{}..{}], validation {})",
            ctx.caps().name,
            ctx.caps().subgroup_size,
            ctx.caps().min_subgroup_size,
            ctx.caps().max_subgroup_size,
            ctx.validation_enabled()
        );
        ctx
    })
    .clone()
}

/// Serializes a test that makes its own device with the other GPU tests.
pub fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` with the GPU to itself, then fails if validation reported any error during it.
pub fn with_gpu<T>(f: impl FnOnce(&Arc<Context>) -> T) -> T {
    let _guard = lock();
    let ctx = ctx();
    let _ = ctx.take_validation_errors();
    let out = f(&ctx);
    let errors = ctx.take_validation_errors();
    assert!(
        errors.is_empty(),
        "validation errors:\n{}",
        errors.join("\n")
    );
    out
}

/// `region` claiming only `usage` of the flags its buffer was created with, for the missing-usage checks: a
/// subset (asserted), so the claim stays true.
pub fn with_usage(
    region: vksort::BufferRef<'_>,
    usage: ash::vk::BufferUsageFlags,
) -> vksort::BufferRef<'_> {
    assert!(
        region.usage().contains(usage),
        "a region may claim only less usage"
    );
    // SAFETY: the same buffer and range as `region`, which borrows its live `Buffer` for the returned lifetime;
    // the usage claimed is a subset of the buffer's.
    unsafe { vksort::BufferRef::from_raw(region.buffer(), region.offset(), region.size(), usage) }
}

/// SplitMix64: deterministic test data without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    pub fn vec_u32(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }
    pub fn vec_u64(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next_u64()).collect()
    }
}

pub mod skip;
pub mod sorting;

/// A visible skip note for want of `capability`, or a failure where `VKSORT_REQUIRE` names it ([`skip::skip`]).
pub fn skip(capability: &str, why: &str) {
    skip::skip(capability, why)
}
