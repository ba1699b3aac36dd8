//! What every family's policy shares: the subgroup plan (nothing assumes a subgroup size), the kernel it
//! specializes, and the parser of `key=value` override strings.

use crate::gpu::{Context, DeviceCaps, Kernel};
use crate::shaders::{include::common, ShaderId, Spec};
use crate::{Error, Result};
use std::sync::Arc;

/// Requires the subgroup operations every sort family's shaders use ([`Error::Unsupported`] without them).
pub(crate) fn require_sort_subgroup_ops(ctx: &Context) -> Result<()> {
    use ash::vk::SubgroupFeatureFlags as F;
    ctx.require_subgroup_ops(
        F::BASIC | F::VOTE | F::ARITHMETIC | F::BALLOT | F::SHUFFLE,
        "subgroup basic, vote, arithmetic, ballot and shuffle operations",
    )
}

/// How pipelines are built with respect to subgroups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubgroupPlan {
    /// The subgroup size pipelines require (full subgroups) with subgroup size control; `None`: the driver's.
    pub required: Option<u32>,
    /// The smallest subgroup size a pipeline may run with (`MIN_SUBGROUP`: sizes per-subgroup shared arrays).
    pub min: u32,
    /// The largest: workgroup sizes are multiples of it, so subgroups are full.
    pub max: u32,
}

impl SubgroupPlan {
    /// The plan for a device: the device's default subgroup size, required where possible.
    pub fn for_device(caps: &DeviceCaps) -> Self {
        if caps.subgroup_size_control {
            let s = caps
                .subgroup_size
                .clamp(caps.min_subgroup_size, caps.max_subgroup_size);
            Self {
                required: Some(s),
                min: s,
                max: s,
            }
        } else {
            let min = caps.min_subgroup_size.min(caps.subgroup_size).max(1);
            let max = caps.max_subgroup_size.max(caps.subgroup_size).max(1);
            Self {
                required: None,
                min,
                max,
            }
        }
    }

    /// Rounds a wished-for workgroup size to a multiple of the largest subgroup size within the device limit.
    pub fn workgroup_size(&self, caps: &DeviceCaps, wish: u32) -> u32 {
        let limit = caps.max_workgroup_invocations.max(self.max);
        let wg = wish.min(limit).max(self.max);
        wg / self.max * self.max
    }

    /// The kernel `shader` with workgroup size `wg`, this plan's subgroup sizes and the constants of `spec`.
    pub fn kernel(
        &self,
        ctx: &Context,
        shader: ShaderId,
        wg: u32,
        spec: Spec,
    ) -> Result<Arc<Kernel>> {
        let spec = spec
            .with(common::WG_SIZE, wg)
            .with(common::MIN_SUBGROUP, self.min);
        ctx.kernel(shader, &spec, self.required)
    }
}

/// Calls `apply(key, value, bad)` for each `key=value` of a comma-separated override string (values are
/// numbers); `bad` makes the [`Error::InvalidPolicy`] of `family` for a message.
pub(crate) fn for_each_override(
    spec: &str,
    family: &'static str,
    mut apply: impl FnMut(&str, u32, &dyn Fn(String) -> Error) -> Result<()>,
) -> Result<()> {
    let bad = |what: String| Error::InvalidPolicy {
        family,
        what: format!("overrides: {what}"),
    };
    for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
        let v: u32 = v
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{kv}`: the value must be a number")))?;
        apply(k.trim(), v, &bad)?;
    }
    Ok(())
}
