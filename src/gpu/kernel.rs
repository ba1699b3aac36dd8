//! Compute kernels: pipelines from embedded SPIR-V with reflected layouts (set 0 a push-descriptor set, in
//! binding order) and specialization constants, cached per (shader, constants, subgroup size) in the
//! [`Context`] until it drops. Constants are named by the generated [`crate::shaders`] ids; one the shader
//! does not declare is refused.

pub use super::reflect::{reflect, reflect_id, Interface};
use super::Context;
use crate::error::{Error, Result, VkContext};
use crate::shaders::{ShaderId, Spec};
use ash::vk;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The most threads [`Context::build_in_parallel`] compiles pipelines on.
const MAX_BUILD_THREADS: usize = 16;

/// Threads to build `kernels` pipelines on: the host's parallelism, at most [`MAX_BUILD_THREADS`].
fn build_threads(kernels: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_BUILD_THREADS)
        .min(kernels)
}

/// A listing in progress: the context's id, and the unbuilt kernels asked for (each once) with stand-ins.
type Listed = (u64, Vec<(KernelKey, Arc<Kernel>)>);

thread_local! {
    /// While [`Context::build_in_parallel`] lists a plan's kernels on this thread: what it listed so far.
    static WANTED: RefCell<Option<Listed>> = const { RefCell::new(None) };
}

/// Lists the kernels a context is asked for on this thread ([`WANTED`]); dropping it restores the outer one.
struct Listing {
    outer: Option<Listed>,
}

impl Listing {
    fn start(context: u64) -> Self {
        Listing {
            outer: WANTED.with(|w| w.replace(Some((context, Vec::new())))),
        }
    }

    /// The kernels listed since [`Listing::start`]; restores the outer listing.
    fn finish(mut self) -> Vec<KernelKey> {
        let listed = WANTED.with(|w| w.replace(self.outer.take()));
        // Restored above: the drop would overwrite it.
        std::mem::forget(self);
        listed
            .map(|(_, listed)| listed.into_iter().map(|(key, _)| key).collect())
            .unwrap_or_default()
    }
}

impl Drop for Listing {
    fn drop(&mut self) {
        let outer = self.outer.take();
        WANTED.with(|w| *w.borrow_mut() = outer);
    }
}

/// Bytes of shared memory `shader` declares with `spec` ([`Error::Shader`] where it cannot be evaluated).
fn workgroup_bytes_of(shader: ShaderId, spec: &Spec) -> Result<u64> {
    let err = |what: String| Error::Shader {
        name: shader.name().into(),
        what,
    };
    let words = shader
        .spirv()
        .ok_or_else(|| err("not compiled into the library".into()))?;
    super::workgroup_memory::workgroup_bytes(&words, spec)
        .map_err(|e| err(format!("shared memory: {e}")))
}

/// Cache key of a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelKey {
    pub shader: ShaderId,
    pub spec: Spec,
    pub subgroup: Option<u32>,
}

/// A compute pipeline and its layouts.
pub struct Kernel {
    pub name: String,
    pub interface: Interface,
    /// Invocations per workgroup (specialization constant `WG_SIZE`).
    pub workgroup_size: u32,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layout: vk::DescriptorSetLayout,
}

impl Kernel {
    /// # Safety
    /// The device must be idle with respect to this kernel's pipeline.
    pub(crate) unsafe fn destroy(&self, device: &ash::Device) {
        device.destroy_pipeline(self.pipeline, None);
        device.destroy_pipeline_layout(self.layout, None);
        device.destroy_descriptor_set_layout(self.set_layout, None);
    }
}

impl Context {
    /// How many pipelines this context has built so far (a test checks that recording builds none).
    #[cfg(feature = "diagnostics")]
    pub fn kernel_count(&self) -> usize {
        self.kernels.lock().unwrap().len()
    }

    /// Each pipeline's creation wall time, in build order, with its shader's name.
    #[cfg(feature = "diagnostics")]
    pub fn pipeline_creation_times(&self) -> Vec<(&'static str, std::time::Duration)> {
        self.pipeline_times
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// The kernel for `shader` with `spec` (which sets `WG_SIZE`; [`crate::policy::SubgroupPlan::kernel`]),
    /// requiring subgroup size `subgroup` where supported. Cached. [`Error::Shader`] for an undeclared constant.
    pub(crate) fn kernel(
        &self,
        shader: ShaderId,
        spec: &Spec,
        subgroup: Option<u32>,
    ) -> Result<Arc<Kernel>> {
        let subgroup = subgroup.filter(|_| self.caps.subgroup_size_control);
        if let Some((id, _)) = spec.entries().iter().find(|(id, _)| !shader.declares(*id)) {
            return Err(Error::Shader {
                name: shader.name().into(),
                what: format!(
                    "no specialization constant {} with constant_id {} (it declares {:?})",
                    id.name(),
                    id.id(),
                    shader.spec_constants()
                ),
            });
        }
        let key = KernelKey {
            shader,
            spec: spec.clone(),
            subgroup,
        };
        if let Some(k) = self.kernels.lock().unwrap().get(&key) {
            return Ok(k.clone());
        }
        if let Some(stand_in) = self.list(&key)? {
            return Ok(stand_in);
        }
        // Built without the lock; a thread that finds it built meanwhile destroys its own copy.
        let kernel = Arc::new(self.create_kernel(shader, spec, subgroup)?);
        match self.kernels.lock().unwrap().entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => {
                // SAFETY: this copy was created above by this context's device and never left this function.
                unsafe { kernel.destroy(&self.device) };
                Ok(e.get().clone())
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(kernel.clone());
                Ok(kernel)
            }
        }
    }

    /// Runs `plan` (which only plans, through planning recorders) with every kernel it asks for built: once
    /// with stand-ins to list them, which are built on up to [`MAX_BUILD_THREADS`] threads, then for real.
    /// On CPU drivers it runs once on this thread (docs/architecture.md says why).
    pub(crate) fn build_in_parallel(&self, mut plan: impl FnMut() -> Result<()>) -> Result<()> {
        if self.caps.is_cpu() || build_threads(usize::MAX) <= 1 {
            return plan();
        }
        let listing = Listing::start(self.id);
        plan()?;
        let wanted = listing.finish();
        self.build_kernels(&wanted)?;
        plan()
    }

    /// Builds (and caches) `keys` on up to [`MAX_BUILD_THREADS`] threads; what a failed worker leaves, the
    /// caller's second planning pass builds.
    fn build_kernels(&self, keys: &[KernelKey]) -> Result<()> {
        let threads = build_threads(keys.len());
        if threads <= 1 {
            return Ok(());
        }
        let next = AtomicUsize::new(0);
        let worker = || -> Result<()> {
            while let Some(k) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                self.kernel(k.shader, &k.spec, k.subgroup)?;
            }
            Ok(())
        };
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .filter_map(|i| {
                    std::thread::Builder::new()
                        .name(format!("vksort-pipelines-{i}"))
                        .spawn_scoped(s, worker)
                        .ok()
                })
                .collect();
            // Every worker is joined; a panic is an error here, not a panic across the caller's boundary.
            let mut result = Ok(());
            for w in workers {
                let r = w.join().unwrap_or_else(|_| {
                    Err(Error::InvalidArgument(
                        "a pipeline-building thread panicked".into(),
                    ))
                });
                result = result.and(r);
            }
            result
        })
    }

    /// While this thread lists kernels for this context: lists `key` and returns its stand-in (interface and
    /// workgroup size, no Vulkan object; one per key). `None` otherwise.
    fn list(&self, key: &KernelKey) -> Result<Option<Arc<Kernel>>> {
        let listed = WANTED.with(|w| match &*w.borrow() {
            Some((id, listed)) if *id == self.id => Some(
                listed
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, stand_in)| stand_in.clone()),
            ),
            _ => None,
        });
        match listed {
            None => Ok(None),
            Some(Some(stand_in)) => Ok(Some(stand_in)),
            Some(None) => {
                let (interface, workgroup_size) = self.describe(key.shader, &key.spec)?;
                let stand_in = Arc::new(Kernel {
                    name: key.shader.name().into(),
                    interface,
                    workgroup_size,
                    pipeline: vk::Pipeline::null(),
                    layout: vk::PipelineLayout::null(),
                    set_layout: vk::DescriptorSetLayout::null(),
                });
                WANTED.with(|w| {
                    if let Some((_, listed)) = &mut *w.borrow_mut() {
                        listed.push((key.clone(), stand_in.clone()));
                    }
                });
                Ok(Some(stand_in))
            }
        }
    }

    /// A kernel's interface (reflected) and workgroup size (`WG_SIZE` of `spec`, checked against the device).
    fn describe(&self, shader: ShaderId, spec: &Spec) -> Result<(Interface, u32)> {
        let interface = reflect_id(shader)?;
        let workgroup_size = spec
            .get(crate::shaders::include::common::WG_SIZE)
            .ok_or_else(|| {
                Error::InvalidArgument(format!("no workgroup size (WG_SIZE) given for {shader}"))
            })?;
        if workgroup_size == 0 || workgroup_size > self.caps.max_workgroup_invocations {
            return Err(Error::InvalidArgument(format!(
                "workgroup size {workgroup_size} of {shader} outside 1..={}",
                self.caps.max_workgroup_invocations
            )));
        }
        if self.caps.limits_lowered {
            let bytes = workgroup_bytes_of(shader, spec)?;
            if bytes > self.caps.max_shared_memory as u64 {
                return Err(Error::Unsupported {
                    device: self.caps.name.clone(),
                    what: format!(
                        "{shader} {spec:?} declares {bytes} bytes of shared memory, over \
                         maxComputeSharedMemorySize {} (lowered by ContextOptions::limits)",
                        self.caps.max_shared_memory
                    ),
                });
            }
        }
        Ok((interface, workgroup_size))
    }

    /// Each pipeline built so far: its shader's name, workgroup size and bytes of shared memory (as the
    /// lowered-limits check counts them), in no particular order.
    #[cfg(feature = "diagnostics")]
    pub fn kernel_footprints(&self) -> Result<Vec<(&'static str, u32, u64)>> {
        let kernels = self.kernels.lock().unwrap();
        kernels
            .iter()
            .map(|(key, k)| {
                Ok((
                    key.shader.name(),
                    k.workgroup_size,
                    workgroup_bytes_of(key.shader, &key.spec)?,
                ))
            })
            .collect()
    }

    /// Builds the pipeline of `shader` with `spec`, requiring subgroup size `subgroup` where given.
    fn create_kernel(
        &self,
        shader: ShaderId,
        spec: &Spec,
        subgroup: Option<u32>,
    ) -> Result<Kernel> {
        let words = shader.spirv().ok_or_else(|| Error::Shader {
            name: shader.name().into(),
            what: "not compiled into the library".into(),
        })?;
        let (interface, workgroup_size) = self.describe(shader, spec)?;
        let (set_layout, layout) = self.create_layouts(&interface)?;
        let label = format!("vksort::{shader}");
        let pipeline = match self.create_pipeline(shader, &words, spec, subgroup, layout, &label) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: created above for this kernel and used by nothing else.
                unsafe { destroy_layouts(&self.device, set_layout, layout) };
                return Err(e);
            }
        };
        self.name(pipeline, &label);
        self.name(layout, &format!("{label}::layout"));
        self.name(set_layout, &format!("{label}::set_layout"));
        Ok(Kernel {
            name: shader.name().into(),
            interface,
            workgroup_size,
            pipeline,
            layout,
            set_layout,
        })
    }

    /// The push-descriptor set layout and the pipeline layout of a shader with `interface`.
    fn create_layouts(
        &self,
        interface: &Interface,
    ) -> Result<(vk::DescriptorSetLayout, vk::PipelineLayout)> {
        let dev = &self.device;
        let binding_infos: Vec<vk::DescriptorSetLayoutBinding> = interface
            .bindings
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&binding_infos);
        // SAFETY: both objects are owned by the Kernel and destroyed with it (or on the error paths).
        let set_layout = unsafe { dev.create_descriptor_set_layout(&set_info, None) }
            .vk("vkCreateDescriptorSetLayout")?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(interface.push_constant_size)];
        let set_layouts = [set_layout];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if interface.push_constant_size > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        match unsafe { dev.create_pipeline_layout(&layout_info, None) } {
            Ok(layout) => Ok((set_layout, layout)),
            Err(e) => {
                unsafe { dev.destroy_descriptor_set_layout(set_layout, None) };
                Err(Error::Vulkan {
                    call: "vkCreatePipelineLayout",
                    result: e,
                })
            }
        }
    }

    /// Compiles `words` into a pipeline of `layout` through a shader module that lives for the call.
    fn create_pipeline(
        &self,
        shader: ShaderId,
        words: &[u32],
        spec: &Spec,
        subgroup: Option<u32>,
        layout: vk::PipelineLayout,
        label: &str,
    ) -> Result<vk::Pipeline> {
        let dev = &self.device;
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the module is destroyed below, once the pipeline is created (or not).
        let module =
            unsafe { dev.create_shader_module(&module_info, None) }.vk("vkCreateShaderModule")?;
        self.name(module, &format!("{label}::module"));
        let entries: Vec<vk::SpecializationMapEntry> = spec
            .entries()
            .iter()
            .enumerate()
            .map(|(i, (id, _))| vk::SpecializationMapEntry {
                constant_id: id.id(),
                offset: (i * 4) as u32,
                size: 4,
            })
            .collect();
        let values: Vec<u32> = spec.entries().iter().map(|&(_, v)| v).collect();
        let spec_info = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(bytemuck::cast_slice(&values));
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main")
            .specialization_info(&spec_info);
        if let Some(sg) = subgroup {
            required = required.required_subgroup_size(sg);
            stage = stage
                .flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS)
                .push_next(&mut required);
        }
        let result = self.compile(shader, stage, layout);
        unsafe { dev.destroy_shader_module(module, None) };
        result
    }

    /// `vkCreateComputePipelines` of `stage`, timed, counting cache hits where the driver reports them.
    fn compile(
        &self,
        shader: ShaderId,
        stage: vk::PipelineShaderStageCreateInfo<'_>,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline> {
        // Driver statistics are only readable from pipelines created to capture them.
        let flags = if self.caps.pipeline_statistics {
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
        } else {
            vk::PipelineCreateFlags::empty()
        };
        let mut feedback = vk::PipelineCreationFeedback::default();
        let mut stage_feedback = [vk::PipelineCreationFeedback::default()];
        let mut feedback_info = vk::PipelineCreationFeedbackCreateInfo::default()
            .pipeline_creation_feedback(&mut feedback)
            .pipeline_stage_creation_feedbacks(&mut stage_feedback);
        let mut info = vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(layout);
        if self.creation_feedback {
            info = info.push_next(&mut feedback_info);
        }
        let result = {
            // Shared: a merge into the cache (Context::merge_pipeline_cache) waits for creations to end.
            let _shared = self.cache_lock.read().unwrap_or_else(|e| e.into_inner());
            let start = std::time::Instant::now();
            let result = unsafe {
                (self.device).create_compute_pipelines(self.pipeline_cache, &[info], None)
            };
            let took = start.elapsed();
            if let Ok(mut times) = self.pipeline_times.lock() {
                times.push((shader.name(), took));
            }
            result
        };
        let pipeline = result.map_err(|(_, e)| Error::Vulkan {
            call: "vkCreateComputePipelines",
            result: e,
        })?[0];
        self.pipelines_created.fetch_add(1, Ordering::Relaxed);
        let hit = vk::PipelineCreationFeedbackFlags::VALID
            | vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT;
        if self.creation_feedback && feedback.flags.contains(hit) {
            self.pipeline_cache_hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok(pipeline)
    }

    /// Driver statistics (registers, spills, ...) of every kernel built so far, as the driver names them.
    /// Empty unless [`super::DeviceCaps::pipeline_statistics`].
    pub fn kernel_statistics(&self) -> Result<Vec<KernelStatistics>> {
        if !self.caps.pipeline_statistics {
            return Ok(Vec::new());
        }
        let fns =
            ash::khr::pipeline_executable_properties::Device::new(&self.instance, &self.device);
        let mut out = Vec::new();
        for (key, k) in self.kernels.lock().unwrap().iter() {
            let info = vk::PipelineInfoKHR::default().pipeline(k.pipeline);
            // SAFETY: the pipeline was created with CAPTURE_STATISTICS on this device.
            let count = unsafe { fns.get_pipeline_executable_properties(&info) }
                .vk("vkGetPipelineExecutablePropertiesKHR")?
                .len();
            for e in 0..count as u32 {
                let einfo = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(k.pipeline)
                    .executable_index(e);
                let stats = unsafe { fns.get_pipeline_executable_statistics(&einfo) }
                    .vk("vkGetPipelineExecutableStatisticsKHR")?;
                let values = stats.iter().map(statistic).collect();
                out.push((format!("{} spec {:?}", key.shader, key.spec), values));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

/// A kernel's name and specialization, and the driver's statistics of it as (name, value) pairs.
pub type KernelStatistics = (String, Vec<(String, String)>);

/// One driver statistic as (name, value).
fn statistic(st: &vk::PipelineExecutableStatisticKHR<'_>) -> (String, String) {
    let name = st
        .name_as_c_str()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    use vk::PipelineExecutableStatisticFormatKHR as Format;
    // SAFETY: the union member read is the one `format` names.
    let value = unsafe {
        match st.format {
            Format::BOOL32 => (st.value.b32 != 0).to_string(),
            Format::INT64 => st.value.i64.to_string(),
            Format::UINT64 => st.value.u64.to_string(),
            Format::FLOAT64 => st.value.f64.to_string(),
            _ => "?".into(),
        }
    };
    (name, value)
}

/// Destroys a kernel's layouts.
///
/// # Safety
/// Both were created on `device` and are used by no pipeline that may still run.
unsafe fn destroy_layouts(
    device: &ash::Device,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
) {
    // SAFETY: the caller's promise.
    unsafe {
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_set_layout(set_layout, None);
    }
}
