//! wgpu interop (feature `wgpu`, wgpu 30.x: its wgpu-hal is built on ash 0.38, as vksort): sorts
//! `wgpu::Buffer`s on a wgpu device on the Vulkan backend, recorded into a `wgpu::CommandEncoder` of its own.
//! [`request_device`] opens the device with what vksort needs, [`WgpuContext::new`] adopts it, [`WgpuSorter`]
//! records. vksort records a full barrier before and after its commands; wgpu does not see vksort's use of the
//! buffers, so keep them alive until the submission completes and initialise them through wgpu first. The
//! full contract: docs/wgpu.md.

use crate::error::{Error, Result, VkContext};
use crate::gpu::{AdoptInfo, DeviceRequirements, Profiler};
use crate::sort::{SortConfig, Sorter};
use crate::{BufferRef, Context, Recorder};
use ::wgpu::hal;
use ash::vk;
use std::sync::Arc;

type Vulkan = hal::api::Vulkan;

std::thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `catch_unwind(f)` with the panic hook silent on this thread meanwhile, so that wgpu's panic on a mixed
/// encoder becomes the documented error alone. The hook present at the first call is wrapped once; it still
/// runs for every other thread and every other time.
fn catch_quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    static WRAP: std::sync::Once = std::sync::Once::new();
    WRAP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r
}

/// [`Error::Unsupported`] for a wgpu object that is not on the Vulkan backend.
fn not_vulkan(what: &str) -> Error {
    Error::Unsupported {
        device: what.to_string(),
        what: "vksort's wgpu interop needs wgpu's Vulkan backend (wgpu::Backends::VULKAN)".into(),
    }
}

/// Opens a wgpu device on `adapter` with what `desc` asks plus [`DeviceRequirements`]'s extensions and
/// features. Errors: [`Error::Unsupported`] (not Vulkan, no compute on queue family 0, a device vksort cannot
/// run on), [`Error::Vulkan`] / [`Error::InvalidArgument`] (creating the device failed).
pub fn request_device(
    adapter: &::wgpu::Adapter,
    desc: &::wgpu::DeviceDescriptor<'_>,
) -> Result<(::wgpu::Device, ::wgpu::Queue)> {
    let name = adapter.get_info().name;
    let open = {
        // SAFETY: the guard is only read; nothing it refers to is destroyed.
        let hal_adapter = unsafe { adapter.as_hal::<Vulkan>() }.ok_or_else(|| not_vulkan(&name))?;
        // SAFETY: the handles come from wgpu's live adapter.
        unsafe { open_device(&hal_adapter, desc) }?
    };
    // SAFETY: `open` was created from this adapter with `desc.required_features` (and more).
    unsafe { adapter.create_device_from_hal::<Vulkan>(open, desc) }.map_err(|e| {
        Error::InvalidArgument(format!("wgpu could not wrap the device vksort opened: {e}"))
    })
}

/// Creates the `VkDevice` for [`request_device`]: wgpu's create info with vksort's extensions and features.
/// # Safety
/// `adapter` is wgpu's live Vulkan adapter.
unsafe fn open_device(
    adapter: &hal::vulkan::Adapter,
    desc: &::wgpu::DeviceDescriptor<'_>,
) -> Result<hal::OpenDevice<Vulkan>> {
    let shared = adapter.shared_instance();
    let (instance, version) = (shared.raw_instance(), shared.instance_api_version());
    let pd = adapter.raw_physical_device();
    // SAFETY: live handles of wgpu's instance, created with `version`.
    let reqs = unsafe { DeviceRequirements::query(instance, version, pd) }?;
    let family = 0u32; // wgpu-hal's queue family (`open` uses 0 as well)
    unsafe { check_compute_queue(instance, pd, &reqs) }?; // SAFETY: as above.
    let features = desc.required_features;
    let mut extensions = adapter.required_device_extensions(features);
    for e in reqs.extensions() {
        if !extensions.contains(e) {
            extensions.push(e);
        }
    }
    let names: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
    let mut wgpu_features = adapter.physical_device_features(&extensions, features);
    let mut core = wgpu_features.get_core();
    reqs.merge_features(&mut core);
    let mut ext_types = vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures::default()
        .shader_subgroup_extended_types(
            reqs.features12().shader_subgroup_extended_types == vk::TRUE,
        );
    let mut bda = vk::PhysicalDeviceBufferDeviceAddressFeatures::default()
        .buffer_device_address(reqs.buffer_device_address());
    let mut ssc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    reqs.merge_subgroup_size_control(&mut ssc);
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names);
    let mut info = wgpu_features
        .add_to_device_create(info)
        .enabled_features(&core);
    // SAFETY: wgpu-hal chained live structs owned by `wgpu_features`.
    let chained = unsafe { merge_into_chain(&info, &reqs, &ext_types, &bda) }?;
    if !chained.ext_types && ext_types.shader_subgroup_extended_types == vk::TRUE {
        info = info.push_next(&mut ext_types);
    }
    if !chained.bda && bda.buffer_device_address == vk::TRUE {
        info = info.push_next(&mut bda);
    }
    if !chained.ssc && reqs.subgroup_size_control() {
        info = info.push_next(&mut ssc);
    }
    // SAFETY: a valid create info of live structs for wgpu's physical device.
    let raw = unsafe { instance.create_device(pd, &info, None) }.vk("vkCreateDevice")?;
    // SAFETY: `raw` was created from this adapter with `family`, `extensions` (a superset of wgpu's required
    // ones) and wgpu's `physical_device_features` (plus vksort's); wgpu-hal takes ownership (no drop callback).
    unsafe {
        adapter.device_from_raw(
            raw,
            None,
            &extensions,
            features,
            &desc.required_limits,
            &desc.memory_hints,
            family,
            0,
        )
    }
    .map_err(|e| Error::InvalidArgument(format!("wgpu-hal could not adopt the device: {e}")))
}

/// [`Error::Unsupported`] unless queue family 0 (wgpu's) has compute.
/// # Safety
/// `instance` and `pd` are live handles of wgpu's instance.
unsafe fn check_compute_queue(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    reqs: &DeviceRequirements,
) -> Result<()> {
    // SAFETY: the caller's promise.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
    if families
        .first()
        .is_some_and(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
    {
        return Ok(());
    }
    Err(Error::Unsupported {
        device: reqs.device_name().to_string(),
        what: "queue family 0 (wgpu's) has no compute".into(),
    })
}

/// Which of vksort's feature structs wgpu had already chained.
struct Chained {
    ext_types: bool,
    bda: bool,
    ssc: bool,
}

/// Merges vksort's feature bits into the structs wgpu chained on `info` (one struct of a kind per chain).
/// # Safety
/// `info`'s chain holds live structs of the types their sType names, not otherwise borrowed.
unsafe fn merge_into_chain(
    info: &vk::DeviceCreateInfo<'_>,
    reqs: &DeviceRequirements,
    ext_types: &vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures<'_>,
    bda: &vk::PhysicalDeviceBufferDeviceAddressFeatures<'_>,
) -> Result<Chained> {
    let mut chained = Chained {
        ext_types: false,
        bda: false,
        ssc: false,
    };
    let mut node = info.p_next as *mut vk::BaseOutStructure<'_>;
    while !node.is_null() {
        // SAFETY: the caller's promise.
        unsafe {
            match (*node).s_type {
                vk::StructureType::PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES => {
                    let f = &mut *(node
                        as *mut vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures<'_>);
                    f.shader_subgroup_extended_types |= ext_types.shader_subgroup_extended_types;
                    chained.ext_types = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceBufferDeviceAddressFeatures<'_>);
                    f.buffer_device_address |= bda.buffer_device_address;
                    chained.bda = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => {
                    let f = &mut *(node as *mut vk::PhysicalDeviceSubgroupSizeControlFeatures<'_>);
                    reqs.merge_subgroup_size_control(f);
                    chained.ssc = true;
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
                | vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                    return Err(Error::InvalidArgument(
                        "wgpu chained VkPhysicalDeviceVulkan12/13Features: this wgpu version is not supported"
                            .into(),
                    ));
                }
                _ => {}
            }
            node = (*node).p_next;
        }
    }
    Ok(chained)
}

/// vksort's context on a wgpu device (from [`request_device`]); its clone of the device outlives vksort's objects.
pub struct WgpuContext {
    // Dropped first: vksort's objects before the wgpu device they live on.
    ctx: Arc<Context>,
    device: ::wgpu::Device,
}

impl WgpuContext {
    /// Adopts `device`'s `VkDevice`. Errors: [`Error::Unsupported`] when the device is not on Vulkan or was not
    /// opened with what vksort needs, naming the extensions it lacks (open it with [`request_device`]).
    pub fn new(device: &::wgpu::Device) -> Result<Self> {
        // SAFETY: only read; the wgpu device outlives the context (held in `self`).
        let hal_device =
            unsafe { device.as_hal::<Vulkan>() }.ok_or_else(|| not_vulkan("device"))?;
        let shared = hal_device.shared_instance();
        let (entry, instance) = (shared.entry(), shared.raw_instance());
        let pd = hal_device.raw_physical_device();
        // SAFETY: live handles of wgpu's instance, created with its version.
        let reqs =
            unsafe { DeviceRequirements::query(instance, shared.instance_api_version(), pd) }?;
        // `request_device` enables everything `reqs` lists (wgpu never enables VK_KHR_push_descriptor itself):
        // a device opened otherwise is refused here, naming what it lacks, not adopted with features it lacks.
        let enabled = hal_device.enabled_device_extensions();
        let missing: Vec<String> = reqs
            .extensions()
            .iter()
            .filter(|e| !enabled.contains(e))
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        if !missing.is_empty() {
            return Err(Error::Unsupported {
                device: reqs.device_name().to_string(),
                what: format!(
                    "vksort needs {} enabled on the device: open it with vksort::wgpu::request_device",
                    missing.join(", ")
                ),
            });
        }
        let info = AdoptInfo::new(
            entry,
            instance,
            pd,
            hal_device.raw_device(),
            hal_device.queue_family_index(),
            hal_device.raw_queue(),
            &reqs,
        );
        // SAFETY: wgpu's live handles of one another, alive while `self` and every sorter (holding clones of the
        // device) live; optional features as `request_device` enabled them, required ones checked by `adopt`.
        let ctx = unsafe { Context::adopt(info) }?;
        Ok(Self {
            ctx,
            device: device.clone(),
        })
    }

    /// The wgpu device.
    pub fn device(&self) -> &::wgpu::Device {
        &self.device
    }

    /// The vksort context, for the device's capabilities ([`Context::caps`]).
    ///
    /// # Safety
    /// The caller promises to drop every clone of the `Arc` (and everything made from it) before the wgpu
    /// device is destroyed (keep a clone of [`Self::device`] alongside).
    pub unsafe fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// A profiler for [`WgpuSorter::encode_sort_profiled`] of `capacity` timestamps (one per pass, plus one).
    pub fn profiler(&self, capacity: u32) -> Result<WgpuProfiler> {
        Ok(WgpuProfiler {
            profiler: Profiler::new(&self.ctx, capacity)?,
            _device: self.device.clone(),
        })
    }
}

/// A vksort [`Profiler`] on a wgpu device (holds a clone of the device).
pub struct WgpuProfiler {
    profiler: Profiler,
    _device: ::wgpu::Device,
}

impl WgpuProfiler {
    /// The GPU time of the sort last recorded with it, in nanoseconds, once its submission has completed.
    pub fn total_ns(&self) -> Result<f64> {
        self.profiler.total_ns()
    }
}

/// The Vulkan usage flags wgpu-hal creates a buffer of `usage` with (its `conv::map_buffer_usage`).
fn vk_usage(usage: ::wgpu::BufferUsages) -> vk::BufferUsageFlags {
    use ::wgpu::BufferUsages as U;
    let mut f = vk::BufferUsageFlags::empty();
    for (w, v) in [
        (U::COPY_SRC, vk::BufferUsageFlags::TRANSFER_SRC),
        (U::COPY_DST, vk::BufferUsageFlags::TRANSFER_DST),
        (U::UNIFORM, vk::BufferUsageFlags::UNIFORM_BUFFER),
        (U::STORAGE, vk::BufferUsageFlags::STORAGE_BUFFER),
        (U::INDEX, vk::BufferUsageFlags::INDEX_BUFFER),
        (U::VERTEX, vk::BufferUsageFlags::VERTEX_BUFFER),
        (U::INDIRECT, vk::BufferUsageFlags::INDIRECT_BUFFER),
    ] {
        if usage.contains(w) {
            f |= v;
        }
    }
    f
}

/// `buffer[offset..offset + size]` as a region (`size` None: to the end).
/// # Safety
/// The buffer stays alive until the GPU has finished the command buffer it is recorded into.
unsafe fn region(
    buffer: &::wgpu::Buffer,
    offset: u64,
    size: Option<u64>,
    what: &'static str,
) -> Result<BufferRef<'static>> {
    // SAFETY: only read.
    let hal_buffer = unsafe { buffer.as_hal::<Vulkan>() }.ok_or(Error::NullBuffer { what })?;
    // SAFETY: the caller's promise.
    let raw = unsafe { hal_buffer.raw_handle() };
    let size = size.unwrap_or(buffer.size().saturating_sub(offset));
    if offset.saturating_add(size) > buffer.size() {
        return Err(Error::BufferTooSmall {
            what,
            needed: offset.saturating_add(size),
            available: buffer.size(),
        });
    }
    // SAFETY: a live buffer of wgpu's device with these usages (wgpu-hal's mapping), the region within it.
    Ok(unsafe { BufferRef::from_raw(raw, offset, size, vk_usage(buffer.usage())) })
}

/// The barrier before and after vksort's commands in a wgpu encoder: every write visible to every later access.
/// # Safety
/// `cmd` is recording on `device`.
unsafe fn full_barrier(device: &ash::Device, cmd: vk::CommandBuffer) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE);
    // SAFETY: the caller's promise.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[b],
            &[],
            &[],
        )
    };
}

/// The count of a sort: on the host, or a u32 in a wgpu buffer with the capacity it is clamped to.
#[derive(Clone, Copy, Debug)]
pub enum WgpuCount<'a> {
    /// Sort the first `n` keys.
    Host(u64),
    /// Sort as many keys as the u32 at `offset` of `buffer` says (written by earlier GPU work), clamped.
    Gpu {
        /// The buffer holding the count (`BufferUsages::STORAGE`).
        buffer: &'a ::wgpu::Buffer,
        /// Byte offset of the u32 (a multiple of 4).
        offset: u64,
        /// The most keys sorted (at most the sorter's `max_n`).
        capacity: u64,
    },
}

/// A [`Sorter`] on a wgpu device: sorts `wgpu::Buffer`s in a `wgpu::CommandEncoder` (holds a device clone).
pub struct WgpuSorter {
    // Dropped first: the sorter's pipelines (and its context) before the wgpu device.
    sorter: Sorter,
    device: ::wgpu::Device,
}

impl WgpuSorter {
    /// A sorter for `config` on `ctx` ([`Sorter::new`]: every pipeline built and configuration error returned now).
    pub fn new(ctx: &WgpuContext, config: SortConfig) -> Result<Self> {
        Ok(Self {
            sorter: Sorter::new(&ctx.ctx, config)?,
            device: ctx.device.clone(),
        })
    }

    /// The sorter of the recording form.
    pub fn sorter(&self) -> &Sorter {
        &self.sorter
    }

    /// Bytes of scratch a sort of up to `max_n` keys needs ([`Sorter::storage_requirements`]).
    pub fn scratch_size(&self, max_n: u64) -> Result<u64> {
        Ok(self.sorter.storage_requirements(max_n)?.scratch_bytes)
    }

    /// The wgpu usages the scratch needs: `STORAGE | INDIRECT | COPY_SRC | COPY_DST`. Sorts beyond one storage
    /// binding need device-address usage, which wgpu buffers lack ([`Error::MissingUsage`]).
    pub fn scratch_usages() -> ::wgpu::BufferUsages {
        use ::wgpu::BufferUsages as U;
        U::STORAGE | U::INDIRECT | U::COPY_SRC | U::COPY_DST
    }

    /// A scratch buffer for sorts of up to `max_n` keys.
    pub fn create_scratch(&self, max_n: u64) -> Result<::wgpu::Buffer> {
        let size = self.scratch_size(max_n)?.max(4);
        Ok(self.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("vksort::scratch"),
            size: size.next_multiple_of(4),
            usage: Self::scratch_usages(),
            mapped_at_creation: false,
        }))
    }

    /// Records the sort of `keys` (and `values`, both from offset 0, `STORAGE`) in place into `encoder`, of
    /// `count` keys; `scratch` from [`Self::create_scratch`] (or as [`Self::scratch_size`] and
    /// [`Self::scratch_usages`] say). Checked first as [`Sorter::cmd_sort`]. `encoder` holds only vksort
    /// commands (wgpu panics when raw and wgpu commands mix: such an encoder, or one not on Vulkan, is an
    /// [`Error::InvalidArgument`], the encoder then unusable; vksort catches that panic with the panic hook
    /// silenced on this thread); full barriers before and after.
    ///
    /// # Safety
    /// The buffers stay alive until the GPU has finished the command buffer this encoder becomes (wgpu does not
    /// track vksort's use), and every buffer vksort reads was initialised through wgpu (a pass, a copy,
    /// `Queue::write_buffer`, mapped at creation), so wgpu does not zero-fill it later over vksort's results.
    pub unsafe fn encode_sort(
        &self,
        encoder: &mut ::wgpu::CommandEncoder,
        keys: &::wgpu::Buffer,
        values: Option<&::wgpu::Buffer>,
        scratch: &::wgpu::Buffer,
        count: WgpuCount<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        unsafe { self.encode(encoder, keys, values, scratch, count, None) }
    }

    /// [`Self::encode_sort`] with a timestamp per pass in `profiler` (read by [`WgpuProfiler::total_ns`]).
    ///
    /// # Safety
    /// As [`Self::encode_sort`]; and `profiler` stays alive until the GPU has finished the command buffer.
    pub unsafe fn encode_sort_profiled(
        &self,
        encoder: &mut ::wgpu::CommandEncoder,
        keys: &::wgpu::Buffer,
        values: Option<&::wgpu::Buffer>,
        scratch: &::wgpu::Buffer,
        count: WgpuCount<'_>,
        profiler: &mut WgpuProfiler,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        unsafe {
            self.encode(
                encoder,
                keys,
                values,
                scratch,
                count,
                Some(&mut profiler.profiler),
            )
        }
    }

    unsafe fn encode(
        &self,
        encoder: &mut ::wgpu::CommandEncoder,
        keys: &::wgpu::Buffer,
        values: Option<&::wgpu::Buffer>,
        scratch: &::wgpu::Buffer,
        count: WgpuCount<'_>,
        profiler: Option<&mut Profiler>,
    ) -> Result<()> {
        // SAFETY (the regions): the caller's promise.
        let keys = unsafe { region(keys, 0, None, "keys") }?;
        let values = match values {
            Some(v) => Some(unsafe { region(v, 0, None, "values") }?),
            None => None,
        };
        let scratch = unsafe { region(scratch, 0, None, "scratch") }?;
        let count_region = match count {
            WgpuCount::Host(_) => None,
            WgpuCount::Gpu { buffer, offset, .. } => {
                Some(unsafe { region(buffer, offset, Some(4), "count") }?)
            }
        };
        let ctx = self.sorter.context().clone();
        let record = move |enc: Option<&mut hal::vulkan::CommandEncoder>| -> Result<()> {
            let enc = enc.ok_or_else(|| {
                Error::InvalidArgument(
                    "the wgpu encoder is not a Vulkan encoder in the recording state".into(),
                )
            })?;
            // SAFETY: wgpu's open command buffer of the adopted device, recorded only while the callback runs
            // (as_hal_mut's contract); the buffers' promise is the caller's.
            unsafe {
                let cmd = enc.raw_handle();
                let device = ctx.device();
                let mut profiler = profiler;
                if let Some(p) = profiler.as_deref_mut() {
                    p.begin(device, cmd);
                }
                full_barrier(device, cmd);
                let mut rec = Recorder::new(&ctx, cmd);
                if let Some(p) = profiler {
                    rec = rec.with_profiler(p);
                }
                let r = match (count, count_region) {
                    (WgpuCount::Gpu { capacity, .. }, Some(c)) => self
                        .sorter
                        .cmd_sort_indirect(&mut rec, keys, values, scratch, c, capacity),
                    (WgpuCount::Host(n), _) => {
                        self.sorter.cmd_sort(&mut rec, keys, values, scratch, n)
                    }
                    _ => unreachable!(),
                };
                drop(rec);
                full_barrier(device, cmd);
                r
            }
        };
        // wgpu panics when raw and wgpu commands mix in one encoder: a clear error instead.
        catch_quietly(|| {
            // SAFETY: the callback records only into the hal encoder, does not end it, and touches the wgpu
            // encoder in no other way.
            unsafe { encoder.as_hal_mut::<Vulkan, _, _>(record) }
        })
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::InvalidArgument(format!(
                "vksort records into a wgpu encoder of its own (wgpu: {what})"
            )))
        })
    }
}
