//! How a Vulkan renderer embeds vksort: it adopts the renderer's instance and device, and records a depth sort
//! of a GPU-side particle count into the renderer's own command buffer, on the renderer's own buffers.
//!
//! `cargo run --release --example renderer`
//!
//! The renderer creates its device with what `vksort::gpu::DeviceRequirements` lists (extensions and features,
//! added to its own create info by `DeviceRequirements::enable`), allocates its buffers with STORAGE_BUFFER usage (plus what vksort's storage query
//! asks of the scratch), and owes the barriers described in `vksort::gpu::recorder`: its writes visible to compute
//! reads before, compute writes visible to its consumers after. Both `vksort::Context::adopt` and
//! `vksort::gpu::Recorder::new` are `unsafe fn`: the renderer vouches for its raw handles (see their `# Safety`
//! sections; the `// SAFETY:` comments below say why each promise holds here).
use ash::vk;
use std::time::Duration;
use vksort::gpu::{AdoptInfo, Buffer, DeviceRequirements, Recorder};
use vksort::sort::{KeyType, SortConfig, Sorter, ValueType};

fn main() -> anyhow::Result<()> {
    // --- the renderer's own set-up (normally already done) ---
    // SAFETY: plain Vulkan object creation; everything is destroyed at the end of main.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?
    };
    let pd = unsafe { instance.enumerate_physical_devices()? }[0];
    // What vksort needs of the device (an error names what it lacks), and a compute family for it.
    // SAFETY: `instance` is live and `pd` was enumerated from it just above.
    let mut reqs = unsafe { DeviceRequirements::query(&instance, vk::API_VERSION_1_3, pd) }?;
    let family = reqs.compute_queue_family();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&prio)];
    // The renderer's own create info (its extensions and feature structs would be here); vksort's are added.
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: `info` was built with ash's builders from locals that outlive the device creation.
    let info = unsafe { reqs.enable(info) };
    let device = unsafe { instance.create_device(pd, &info, None)? };
    let queue = unsafe { device.get_device_queue(family, 0) };

    // --- vksort adopts it: creates nothing global, destroys nothing of the renderer's ---
    // SAFETY: the handles below are this program's live instance, device and queue (of a compute family),
    // the device created with `reqs`; they outlive `ctx` (dropped before them at the end of main).
    let ctx = unsafe {
        vksort::Context::adopt(
            AdoptInfo::new(&entry, &instance, pd, &device, family, queue, &reqs)
                .with_wait_timeout(Duration::from_secs(10)),
        )
    }?;

    // Particles: depth keys (f32, view-space z) with particle indices as values; the live count is on the GPU.
    let capacity = 100_000u64;
    let live = 73_421u32;
    let depths: Vec<f32> = (0..capacity)
        .map(|i| ((i * 7919) % 10007) as f32 * 0.25 - 1000.0)
        .collect();
    let indices: Vec<u32> = (0..capacity as u32).collect();
    let keys = Buffer::from_slice(&ctx, "renderer::depths", &depths)?;
    let values = Buffer::from_slice(&ctx, "renderer::indices", &indices)?;
    let count = Buffer::from_slice(&ctx, "renderer::live_count", &[live])?;
    let sorter = Sorter::new(
        &ctx,
        SortConfig {
            key: KeyType::F32,
            value: ValueType::U32,
            order: descending_back_to_front(),
            max_n: capacity,
            ..Default::default()
        },
    )?;
    let req = sorter.storage_requirements(capacity)?;
    let scratch = Buffer::new(
        &ctx,
        "renderer::sort_scratch",
        req.scratch_bytes,
        req.scratch_usage | vk::BufferUsageFlags::TRANSFER_SRC,
        vksort::gpu::MemoryLocation::GpuOnly,
    )?;

    // --- one frame: record into the renderer's command buffer ---
    unsafe {
        let pool = device.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(family),
            None,
        )?;
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1),
        )?[0];
        device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        // SAFETY: `cmd` is this device's, allocated from a pool of the compute queue family, recording (begun
        // above) and recorded on this thread only; it stays recording until `end_command_buffer` below, after
        // `rec`'s last use. The key, value, scratch and count buffers and `ctx` outlive the fence wait below.
        let mut rec = Recorder::new(&ctx, cmd);
        sorter.cmd_sort_indirect(
            &mut rec,
            keys.as_ref(),
            Some(values.as_ref()),
            scratch.as_ref(),
            count.as_ref(),
            capacity,
        )?;
        // What the renderer owes after: compute writes -> its consumers (here the host, via a copy).
        let mb = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::HOST_READ);
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[mb],
            &[],
            &[],
        );
        device.end_command_buffer(cmd)?;
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let cmds = [cmd];
        device.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            fence,
        )?;
        device.wait_for_fences(&[fence], true, 10_000_000_000)?;
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
    }

    let sorted: Vec<f32> = keys.read_vec(live as usize)?;
    let order: Vec<u32> = values.read_vec(live as usize)?;
    assert!(sorted.windows(2).all(|w| w[0] >= w[1]), "back to front");
    assert!(
        order
            .iter()
            .zip(&sorted)
            .all(|(&i, &d)| depths[i as usize] == d),
        "values follow keys"
    );
    println!(
        "sorted {live} of {capacity} particles back to front on {} (first depth {}, last {})",
        ctx.caps().name,
        sorted[0],
        sorted[live as usize - 1]
    );

    drop((keys, values, count, scratch, sorter));
    drop(ctx);
    // The renderer still owns its device and instance.
    unsafe {
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    Ok(())
}

/// Back-to-front rendering wants the farthest (largest depth) first.
fn descending_back_to_front() -> vksort::sort::Order {
    vksort::sort::Order::Descending
}
