//! Compute kernels: a shader module, its descriptor set layout and push-constant range (both from SPIR-V
//! reflection, never written by hand), and a pipeline specialized with the policy's constants.
//!
//! Contract: kernels are cached per (shader, specialization constants, required subgroup size) in the
//! [`Context`] and live until it drops. Shaders and constants are named by the generated consts of
//! [`crate::shaders`] ([`ShaderId`], [`crate::shaders::SpecId`] in a [`Spec`]); a constant the shader does not
//! declare is refused. Set 0 of every shader is a push-descriptor set of storage buffers;
//! bindings are bound in binding order from the slice given to [`super::Recorder::dispatch`].

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

/// A listing in progress: the id of the context it plans for, and the kernels asked for that were not built
/// yet (each once, in the order asked), with their stand-ins.
type Listed = (u64, Vec<(KernelKey, Arc<Kernel>)>);

thread_local! {
    /// While [`Context::build_in_parallel`] lists a plan's kernels on this thread: what it listed so far.
    static WANTED: RefCell<Option<Listed>> = const { RefCell::new(None) };
}

/// Lists, on this thread, the kernels a context is asked for (see [`WANTED`]); dropping it (also on an error or
/// a panic) restores what was listed before, so that listings nest.
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

/// Cache key of a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelKey {
    pub shader: ShaderId,
    pub spec: Spec,
    pub subgroup: Option<u32>,
}

/// What reflection says of a shader's interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Descriptor types of set 0, by binding index (bindings must be dense from 0).
    pub bindings: Vec<vk::DescriptorType>,
    /// Byte size of the push-constant block (0 if none).
    pub push_constant_size: u32,
}

/// Reflects the interface of the embedded shader `shader`.
pub fn reflect_id(shader: ShaderId) -> Result<Interface> {
    reflect(shader.name())
}

/// Shaders whose SPIR-V rspirv-reflect cannot parse (it rejects `OpTypeCooperativeMatrixNV`), each with a
/// variant of the same source that declares the same bindings and push constants and is reflected instead.
const REFLECT_AS: &[(&str, &str)] = &[("debug_residency_sm_coop", "debug_residency_sm")];

/// Reflects the interface of the embedded shader `name` ([`ShaderId::name`]).
pub fn reflect(name: &str) -> Result<Interface> {
    let name = REFLECT_AS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(name, |(_, twin)| *twin);
    let bytes = crate::shaders::SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
        .ok_or_else(|| Error::Shader {
            name: name.into(),
            what: "not compiled into the library".into(),
        })?;
    let err = |what: String| Error::Shader {
        name: name.into(),
        what,
    };
    let refl = rspirv_reflect::Reflection::new_from_spirv(bytes)
        .map_err(|e| err(format!("reflection: {e:?}")))?;
    let sets = refl
        .get_descriptor_sets()
        .map_err(|e| err(format!("descriptor sets: {e:?}")))?;
    if sets.keys().any(|&s| s != 0) {
        return Err(err("only descriptor set 0 is supported".into()));
    }
    let mut bindings = Vec::new();
    if let Some(set0) = sets.get(&0) {
        for (i, (&binding, info)) in set0.iter().enumerate() {
            if binding as usize != i {
                return Err(err(format!(
                    "bindings must be dense from 0; found binding {binding} at position {i}"
                )));
            }
            bindings.push(vk::DescriptorType::from_raw(info.ty.0 as i32));
        }
    }
    let push_constant_size = refl
        .get_push_constant_range()
        .map_err(|e| err(format!("push constants: {e:?}")))?
        .map(|p| p.offset + p.size)
        .unwrap_or(0);
    Ok(Interface {
        bindings,
        push_constant_size,
    })
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
    /// How many pipelines this context has built so far (diagnostics: a test checks that recording a sort
    /// builds none).
    #[cfg(feature = "diagnostics")]
    pub fn kernel_count(&self) -> usize {
        self.kernels.lock().unwrap().len()
    }

    /// How long each pipeline this context built took to create (`vkCreateComputePipelines`' wall time, in
    /// the order they were built), with its shader's name.
    #[cfg(feature = "diagnostics")]
    pub fn pipeline_creation_times(&self) -> Vec<(&'static str, std::time::Duration)> {
        self.pipeline_times
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// The kernel for `shader` specialized with `spec` (which must set `WG_SIZE`, the workgroup size; see
    /// [`crate::policy::SubgroupPlan::kernel`], which also sets `MIN_SUBGROUP`), requiring subgroup size
    /// `subgroup` where the device supports subgroup size control. Cached. Fails with [`Error::Shader`] when
    /// `spec` sets a constant the shader does not declare.
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
        // Built without the lock (threads may build kernels at once); a thread that finds the kernel built
        // meanwhile destroys its own copy, so every kernel the map lets go of is destroyed once.
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

    /// Runs `plan` (which must only plan: record through planning recorders, never bind a pipeline) with
    /// every kernel it asks for built, compiling them on several threads at once.
    ///
    /// Drivers compile a pipeline inside `vkCreateComputePipelines`, on the calling thread: one after another,
    /// a sorter's pipelines would cost the sum of their compile times. So `plan` runs twice: first with
    /// stand-in kernels (no Vulkan object) while this thread lists the kernels it asks for, which are then built
    /// on up to [`MAX_BUILD_THREADS`] threads; then again, finding every kernel built (and building, on this
    /// thread, any a worker left). On CPU drivers `plan` runs once and builds on this thread: lavapipe compiles
    /// at the first dispatch, so threads gain nothing there, and they would share the cores with the driver's.
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

    /// Builds (and caches) `keys` on up to [`MAX_BUILD_THREADS`] threads. A worker that fails to spawn or
    /// stops at an error leaves its share unbuilt; the caller's second planning pass builds what is left.
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
            // Every worker is joined (the scope would re-raise an unjoined panic); one that panicked is an
            // error here, not a panic across the caller's boundary.
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

    /// While this thread lists kernels for this context ([`Context::build_in_parallel`]): lists `key` and
    /// returns a stand-in for it (its interface and workgroup size, no Vulkan object; one per key, since
    /// reflection is not free). `None` otherwise.
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

    /// A kernel's interface (from reflection) and workgroup size (`WG_SIZE` of `spec`, checked against the
    /// device).
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
        Ok((interface, workgroup_size))
    }

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
        // SAFETY: all objects created here are owned by the Kernel and destroyed with it (or on the error paths).
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
        let layout = match unsafe { dev.create_pipeline_layout(&layout_info, None) } {
            Ok(l) => l,
            Err(e) => {
                unsafe { dev.destroy_descriptor_set_layout(set_layout, None) };
                return Err(Error::Vulkan {
                    call: "vkCreatePipelineLayout",
                    result: e,
                });
            }
        };
        let module_info = vk::ShaderModuleCreateInfo::default().code(&words);
        let module = match unsafe { dev.create_shader_module(&module_info, None) } {
            Ok(m) => m,
            Err(e) => {
                unsafe {
                    dev.destroy_pipeline_layout(layout, None);
                    dev.destroy_descriptor_set_layout(set_layout, None);
                }
                return Err(Error::Vulkan {
                    call: "vkCreateShaderModule",
                    result: e,
                });
            }
        };
        let label = format!("vksort::{shader}");
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
        let data: &[u8] = bytemuck::cast_slice(&values);
        let spec_info = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(data);
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
        // Driver statistics (registers, spills) are only readable from pipelines created to capture them.
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
            let result = unsafe { dev.create_compute_pipelines(self.pipeline_cache, &[info], None) };
            let took = start.elapsed();
            if let Ok(mut times) = self.pipeline_times.lock() {
                times.push((shader.name(), took));
            }
            result
        };
        if result.is_ok() {
            self.pipelines_created
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if self.creation_feedback
                && feedback.flags.contains(
                    vk::PipelineCreationFeedbackFlags::VALID
                        | vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT,
                )
            {
                self.pipeline_cache_hits
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        unsafe { dev.destroy_shader_module(module, None) };
        let pipeline = match result {
            Ok(p) => p[0],
            Err((_, e)) => {
                unsafe {
                    dev.destroy_pipeline_layout(layout, None);
                    dev.destroy_descriptor_set_layout(set_layout, None);
                }
                return Err(Error::Vulkan {
                    call: "vkCreateComputePipelines",
                    result: e,
                });
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
}
