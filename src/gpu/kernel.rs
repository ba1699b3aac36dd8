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
use std::sync::Arc;

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
            unsafe { dev.create_compute_pipelines(self.pipeline_cache, &[info], None) }
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
