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

/// Records `record` in one submission and asserts that recording built no kernel: the objects it records
/// built every kernel they may use when they were made. `what` names the case in the failure.
pub fn assert_records_without_building(
    ctx: &Arc<Context>,
    what: &str,
    record: impl FnOnce(&mut vksort::Recorder) -> vksort::Result<()>,
) {
    let built = ctx.kernel_count();
    ctx.submit("test::record", record).unwrap();
    assert_eq!(
        ctx.kernel_count(),
        built,
        "{what}: recording built a kernel"
    );
}

/// A visible skip note for want of `capability`, or a failure where `VKSORT_REQUIRE` names it ([`skip::skip`]).
pub fn skip(capability: &str, why: &str) {
    skip::skip(capability, why)
}

/// Records `f` into a command buffer of the test's own (`Recorder::new`), with a profiler attached where the
/// device has timestamps, between the barriers the caller owes (before: compute and transfer writes to compute
/// reads and writes; after: to host reads);
/// submits it with a fence of its own and waits. Returns the labels of the passes recorded (None without
/// timestamps). The caller holds the test lock ([`with_gpu`]) for `ctx`'s queue.
pub fn record_own(
    ctx: &Arc<Context>,
    f: impl FnOnce(&mut vksort::Recorder),
) -> Option<Vec<String>> {
    record_own_with(ctx, true, f)
}

/// [`record_own`] without a profiler: no timestamp between the passes, which on some GPUs (NVIDIA's) waits for
/// the work before it, so passes that lack a barrier between them may overlap, as in a renderer's frame.
pub fn record_unprofiled(ctx: &Arc<Context>, f: impl FnOnce(&mut vksort::Recorder)) {
    record_own_with(ctx, false, f);
}

fn record_own_with(
    ctx: &Arc<Context>,
    profiled: bool,
    f: impl FnOnce(&mut vksort::Recorder),
) -> Option<Vec<String>> {
    use ash::vk;
    use vksort::gpu::Profiler;
    use vksort::Recorder;
    let mut prof = profiled.then(|| Profiler::new(ctx, 256).ok()).flatten();
    let dev = ctx.device();
    // SAFETY: plain Vulkan on the context's device; the command buffer is recorded on this thread only, from
    // `begin` to `end`, with buffers (and the profiler) the caller keeps alive until the fence wait below has
    // returned; the queue is used by nothing else meanwhile (the test lock).
    unsafe {
        let pool = dev
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family()),
                None,
            )
            .unwrap();
        let cmd = dev
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        dev.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .unwrap();
        if let Some(p) = prof.as_mut() {
            p.begin(dev, cmd);
        }
        // The caller's barrier before vksort's commands: earlier ones (other tests' runs on this queue) ordered
        // before them, as `Recorder::new` asks.
        let before = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
        dev.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[before],
            &[],
            &[],
        );
        {
            let rec = Recorder::new(ctx, cmd);
            let mut rec = match prof.as_mut() {
                Some(p) => rec.with_profiler(p),
                None => rec,
            };
            f(&mut rec);
        }
        let mb = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        dev.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[mb],
            &[],
            &[],
        );
        dev.end_command_buffer(cmd).unwrap();
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let queue = dev.get_device_queue(ctx.queue_family(), 0);
        let cmds = [cmd];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            fence,
        )
        .unwrap();
        dev.wait_for_fences(&[fence], true, ctx.wait_timeout().as_nanos() as u64)
            .unwrap();
        dev.destroy_fence(fence, None);
        dev.destroy_command_pool(pool, None);
    }
    prof.map(|p| p.results().unwrap().into_iter().map(|t| t.label).collect())
}
