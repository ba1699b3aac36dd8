//! The context's pipeline cache: started from the caller's data where its header matches the device, read
//! back and merged into later. The library reads and writes no file.

#[cfg(doc)]
use super::{AdoptInfo, ContextOptions};
use super::{Context, DeviceCaps};
use crate::error::{Result, VkContext};
use ash::vk;
use std::sync::atomic::Ordering;

/// What became of the pipeline-cache data a context was given ([`Context::pipeline_cache_status`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PipelineCacheStatus {
    /// No data was given: the cache started empty.
    Empty,
    /// The data was handed to the driver's pipeline cache.
    Loaded {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The data was ignored (the cache is as it was without it).
    Rejected {
        /// Why: too short, another device or driver (its header), or the driver refused it.
        reason: String,
    },
}

/// The size of `VkPipelineCacheHeaderVersionOne`.
const CACHE_HEADER_BYTES: usize = 32;

/// Checks the `VkPipelineCacheHeaderVersionOne` of `data` against the device (the driver ignores a mismatch
/// silently; this says why).
fn check_cache_header(data: &[u8], caps: &DeviceCaps) -> std::result::Result<(), String> {
    if data.len() < CACHE_HEADER_BYTES {
        return Err(format!(
            "{} bytes, shorter than a pipeline-cache header ({CACHE_HEADER_BYTES})",
            data.len()
        ));
    }
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let (size, version, vendor, device) = (word(0), word(4), word(8), word(12));
    if (size as usize) < CACHE_HEADER_BYTES || size as usize > data.len() {
        return Err(format!(
            "a header size of {size} bytes in {} bytes of data",
            data.len()
        ));
    }
    if version != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
        return Err(format!("header version {version} (Vulkan's is 1)"));
    }
    let uuid = &data[16..32];
    if vendor != caps.vendor_id || device != caps.device_id || uuid != caps.pipeline_cache_uuid {
        let hex = |u: &[u8]| u.iter().map(|b| format!("{b:02x}")).collect::<String>();
        return Err(format!(
            "written by another device or driver (vendor {vendor:#x}, device {device:#x}, cache UUID {}; this \
             device: vendor {:#x}, device {:#x}, cache UUID {})",
            hex(uuid),
            caps.vendor_id,
            caps.device_id,
            hex(&caps.pipeline_cache_uuid)
        ));
    }
    Ok(())
}

/// A pipeline cache started from `initial` where it fits the device, else an empty one (the status says why).
pub(super) fn create_pipeline_cache(
    device: &ash::Device,
    caps: &DeviceCaps,
    initial: Option<&[u8]>,
) -> Result<(vk::PipelineCache, PipelineCacheStatus)> {
    let mut status = PipelineCacheStatus::Empty;
    if let Some(data) = initial {
        match check_cache_header(data, caps) {
            Ok(()) => {
                let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
                // SAFETY: plain object creation on a valid device; `data` outlives the call.
                match unsafe { device.create_pipeline_cache(&info, None) } {
                    Ok(c) => {
                        return Ok((c, PipelineCacheStatus::Loaded { bytes: data.len() }));
                    }
                    Err(e) => {
                        status = PipelineCacheStatus::Rejected {
                            reason: format!("the driver refused it ({e})"),
                        }
                    }
                }
            }
            Err(reason) => status = PipelineCacheStatus::Rejected { reason },
        }
    }
    // SAFETY: plain object creation on a valid device.
    let cache =
        unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
            .vk("vkCreatePipelineCache")?;
    Ok((cache, status))
}

impl Context {
    /// What became of the data given at creation or, since, of the last data merged.
    pub fn pipeline_cache_status(&self) -> PipelineCacheStatus {
        self.cache_status.lock().unwrap().clone()
    }

    /// The cache's current data, for [`ContextOptions::pipeline_cache`] in a later run.
    pub fn pipeline_cache_data(&self) -> Result<Vec<u8>> {
        let _shared = self.cache_lock.read().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the cache was created on this device and lives as long as the context.
        unsafe { self.device.get_pipeline_cache_data(self.pipeline_cache) }
            .vk("vkGetPipelineCacheData")
    }

    /// Merges data into the cache, checked as [`ContextOptions::pipeline_cache`] is; its status is reported
    /// from then on. Pipelines already built are unaffected.
    pub fn merge_pipeline_cache(&self, data: &[u8]) -> PipelineCacheStatus {
        let status = match create_pipeline_cache(&self.device, &self.caps, Some(data)) {
            Ok((src, status)) => self.merge_from(src, status),
            Err(e) => PipelineCacheStatus::Rejected {
                reason: e.to_string(),
            },
        };
        *self.cache_status.lock().unwrap() = status.clone();
        status
    }

    /// Merges the cache `src` (just created, as `status` says) into the context's and destroys it.
    fn merge_from(
        &self,
        src: vk::PipelineCache,
        status: PipelineCacheStatus,
    ) -> PipelineCacheStatus {
        if !matches!(status, PipelineCacheStatus::Loaded { .. }) {
            // SAFETY: `src` is an empty cache created by the caller and used by nothing else.
            unsafe { self.device.destroy_pipeline_cache(src, None) };
            return status;
        }
        let _exclusive = self.cache_lock.write().unwrap_or_else(|e| e.into_inner());
        // SAFETY: both caches are this device's; the lock synchronizes the destination.
        let merged = unsafe {
            self.device
                .merge_pipeline_caches(self.pipeline_cache, &[src])
        };
        // SAFETY: `src` was created by the caller and is used by nothing else.
        unsafe { self.device.destroy_pipeline_cache(src, None) };
        match merged {
            Ok(()) => status,
            Err(e) => PipelineCacheStatus::Rejected {
                reason: format!("vkMergePipelineCaches failed ({e})"),
            },
        }
    }

    /// `(pipelines created, of them found in the cache)`; hits are `None` without creation feedback.
    pub fn pipeline_counts(&self) -> (usize, Option<usize>) {
        (
            self.pipelines_created.load(Ordering::Relaxed),
            self.creation_feedback
                .then(|| self.pipeline_cache_hits.load(Ordering::Relaxed)),
        )
    }
}
