//! How a context is made: [`ContextOptions`] for [`Context::new`], [`AdoptInfo`] for [`Context::adopt`].

use super::requirements::{DeviceRequirements, OptionalFeatures};
#[cfg(doc)]
use super::{Context, DeviceCaps};
#[cfg(doc)]
use crate::error::Error;
use ash::vk;
use std::time::Duration;

/// How [`Context::new`] creates its instance and device. `Default` reads no environment variable.
#[derive(Clone)]
pub struct ContextOptions {
    /// An index into [`Context::enumerate`]'s order or a name substring ([`Error::NoDevice`] if none matches).
    /// Default `None`: the best device (discrete, integrated, virtual, then CPU).
    pub device: Option<String>,
    /// Validation layer with synchronization validation, its errors kept ([`Context::take_validation_errors`]).
    pub validation: bool,
    /// Bound of every fence wait of the host forms ([`Error::Timeout`] past it). Default 60 s.
    pub wait_timeout: Duration,
    /// Capture driver statistics where supported ([`Context::kernel_statistics`]). Default `false`.
    pub pipeline_statistics: bool,
    /// Enable shader clocks where present, for the radix tile clocks ([`DeviceCaps::shader_clock`]).
    pub shader_clock: bool,
    /// Enable explicit workgroup layouts and cooperative matrices where present, for the residency probes.
    pub residency_probes: bool,
    /// Data of [`Context::pipeline_cache_data`] from an earlier run (another device's is ignored).
    pub pipeline_cache: Option<Vec<u8>>,
    /// Lowered device limits, to test as on a smaller device: `shared=BYTES,invocations=N` (either or both;
    /// [`DeviceCaps::max_shared_memory`], [`DeviceCaps::max_workgroup_invocations`]), never below Vulkan's
    /// minimums (16384 bytes, 128 invocations) nor above the device's own. [`Context::new`] refuses other text
    /// ([`Error::InvalidArgument`]) and then refuses every kernel over them. [`Context::new`] only: an adopted
    /// device keeps its own. Default `None`.
    pub limits: Option<String>,
}

impl std::fmt::Debug for ContextOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextOptions")
            .field("device", &self.device)
            .field("validation", &self.validation)
            .field("wait_timeout", &self.wait_timeout)
            .field("pipeline_statistics", &self.pipeline_statistics)
            .field("shader_clock", &self.shader_clock)
            .field("residency_probes", &self.residency_probes)
            .field(
                "pipeline_cache",
                &self
                    .pipeline_cache
                    .as_ref()
                    .map(|d| format!("{} bytes", d.len())),
            )
            .field("limits", &self.limits)
            .finish()
    }
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            device: None,
            validation: false,
            wait_timeout: Duration::from_secs(60),
            pipeline_statistics: false,
            shader_clock: false,
            residency_probes: false,
            pipeline_cache: None,
            limits: None,
        }
    }
}

impl ContextOptions {
    /// The defaults overridden by `VKSORT_DEVICE` (empty: unset), `VKSORT_VALIDATION=1`, `VKSORT_TIMEOUT_MS`,
    /// `VKSORT_PIPELINE_STATS=1`, `VKSORT_SHADER_CLOCK=1` (a flag is on only for `1`) and `VKSORT_LIMITS`
    /// ([`ContextOptions::limits`]; empty: unset); no cache data.
    pub fn from_env() -> Self {
        let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
        let d = Self::default();
        Self {
            device: std::env::var("VKSORT_DEVICE")
                .ok()
                .filter(|s| !s.is_empty()),
            validation: flag("VKSORT_VALIDATION"),
            wait_timeout: std::env::var("VKSORT_TIMEOUT_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(d.wait_timeout, Duration::from_millis),
            pipeline_statistics: flag("VKSORT_PIPELINE_STATS"),
            shader_clock: flag("VKSORT_SHADER_CLOCK"),
            residency_probes: false,
            pipeline_cache: None,
            limits: std::env::var("VKSORT_LIMITS")
                .ok()
                .filter(|s| !s.trim().is_empty()),
        }
    }
}

/// Device limits lowered by [`ContextOptions::limits`]: `None` keeps the device's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LimitOverride {
    pub shared: Option<u32>,
    pub invocations: Option<u32>,
}

impl LimitOverride {
    /// Vulkan's minimum `maxComputeSharedMemorySize` and `maxComputeWorkGroupInvocations`: the policies need no
    /// plan below them.
    const MIN_SHARED: u32 = 16384;
    const MIN_INVOCATIONS: u32 = 128;

    /// Parses `shared=BYTES,invocations=N` (either or both, in any order, spaces allowed around items).
    pub(crate) fn parse(text: &str) -> crate::error::Result<Self> {
        let bad = |why: String| {
            crate::error::Error::InvalidArgument(format!(
                "device limits {text:?} (VKSORT_LIMITS, ContextOptions::limits): {why}; \
                 expected shared=BYTES,invocations=N"
            ))
        };
        let mut o = Self::default();
        crate::policy::for_each_key_value(text, &bad, |key, value| {
            let (slot, min) = match key {
                "shared" => (&mut o.shared, Self::MIN_SHARED),
                "invocations" => (&mut o.invocations, Self::MIN_INVOCATIONS),
                k => return Err(bad(format!("unknown limit {k:?}"))),
            };
            if value < min {
                return Err(bad(format!("{key} below Vulkan's minimum {min}")));
            }
            if slot.replace(value).is_some() {
                return Err(bad(format!("{key} given twice")));
            }
            Ok(())
        })?;
        if o == Self::default() {
            return Err(bad("no limit given".into()));
        }
        Ok(o)
    }
}

/// What a renderer hands to [`Context::adopt`]: its handles and the [`DeviceRequirements`] it created the
/// device with, that is what it enabled (the promises are under [`Context::adopt`]'s `# Safety`).
pub struct AdoptInfo {
    pub(super) entry: ash::Entry,
    pub(super) instance: ash::Instance,
    pub(super) physical_device: vk::PhysicalDevice,
    pub(super) device: ash::Device,
    pub(super) queue_family_index: u32,
    pub(super) queue: vk::Queue,
    pub(super) features: OptionalFeatures,
    pub(super) push_descriptor: bool,
    pub(super) instance_api_version: Option<u32>,
    pub(super) debug_utils: bool,
    pub(super) wait_timeout: Duration,
    pub(super) pipeline_cache: Option<Vec<u8>>,
}

impl AdoptInfo {
    /// The renderer's handles: `device` created from `physical_device` with what `requirements` lists enabled
    /// (the [`DeviceRequirements`] given to [`DeviceRequirements::enable`], or one describing the device:
    /// [`DeviceRequirements::from_create_info`], [`DeviceRequirements::minimum`] with its `with_*` setters),
    /// and a `queue` of a family with compute. vksort uses the optional features `requirements` lists that the
    /// device supports ([`DeviceCaps`]), and no other.
    pub fn new(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical_device: vk::PhysicalDevice,
        device: &ash::Device,
        queue_family_index: u32,
        queue: vk::Queue,
        requirements: &DeviceRequirements,
    ) -> Self {
        Self {
            entry: entry.clone(),
            instance: instance.clone(),
            physical_device,
            device: device.clone(),
            queue_family_index,
            queue,
            features: requirements.optional(),
            push_descriptor: requirements.push_descriptor(),
            instance_api_version: requirements.instance_api_version(),
            debug_utils: false,
            wait_timeout: ContextOptions::default().wait_timeout,
            pipeline_cache: None,
        }
    }

    /// Whether the instance has `VK_EXT_debug_utils`: vksort then names its objects and labels its passes.
    pub fn with_debug_utils(mut self, enabled: bool) -> Self {
        self.debug_utils = enabled;
        self
    }

    /// The bound of every fence wait (as [`ContextOptions::wait_timeout`]).
    pub fn with_wait_timeout(mut self, timeout: Duration) -> Self {
        self.wait_timeout = timeout;
        self
    }

    /// Pipeline-cache data to start from (as [`ContextOptions::pipeline_cache`]).
    pub fn with_pipeline_cache(mut self, data: Vec<u8>) -> Self {
        self.pipeline_cache = Some(data);
        self
    }
}
