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

    /// [`SubgroupPlan::workgroup_size`] rounded down to a power of two (at least the largest subgroup size).
    pub fn pow2_workgroup_size(&self, caps: &DeviceCaps, wish: u32) -> u32 {
        let w = self.workgroup_size(caps, wish);
        (1u32 << (31 - w.leading_zeros())).max(self.max)
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
    for_each_key_value(spec, &bad, |k, v| apply(k, v, &bad))
}

/// Calls `apply(key, value)` for each `key=value` item of `spec` (comma-separated, spaces around items and
/// around `=` allowed, values u32 numbers, empty items skipped); `bad` makes the error for a malformed item.
pub(crate) fn for_each_key_value(
    spec: &str,
    bad: &dyn Fn(String) -> Error,
    mut apply: impl FnMut(&str, u32) -> Result<()>,
) -> Result<()> {
    for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
        let v: u32 = v
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{kv}`: the value must be a number")))?;
        apply(k.trim(), v)?;
    }
    Ok(())
}

/// A policy field an override string can set: numbers as they are, flags as 0 or 1, modes by their index
/// (leaves), or a part of the policy whose own fields are set by path (`part.field`).
pub trait Field {
    /// Sets the field at `path` below this one (empty for a leaf) to `value`.
    fn set_path(&mut self, path: &str, value: u32) -> std::result::Result<(), String>;
    /// Adds this field's settable paths (`path`, or `path.sub` for a part) with their meaning to `out`.
    fn legend(path: &str, doc: &'static str, out: &mut Vec<(String, &'static str)>);
}

/// Implements [`Field`] for leaf types from a conversion of the override's number.
macro_rules! leaf_field {
    ($($t:ty => |$v:ident| $conv:expr;)*) => {$(
        impl $crate::policy::Field for $t {
            fn set_path(&mut self, path: &str, $v: u32) -> ::std::result::Result<(), String> {
                if !path.is_empty() {
                    return Err(format!("`.{path}`: not a part of the policy"));
                }
                *self = $conv?;
                Ok(())
            }
            fn legend(path: &str, doc: &'static str, out: &mut Vec<(String, &'static str)>) {
                out.push((path.to_string(), doc));
            }
        }
    )*};
}
pub(crate) use leaf_field;

leaf_field! {
    u32 => |v| Ok::<u32, String>(v);
    u64 => |v| Ok::<u64, String>(v as u64);
    bool => |v| match v {
        0 | 1 => Ok(v == 1),
        _ => Err(format!("{v} is no flag (0 or 1)")),
    };
}

/// Declares a policy or a part of one: a `#[non_exhaustive]` struct whose fields are set by path
/// (`onesweep.items_per_invocation=8`) and listed, with the first line of their docs, in its legend. Every
/// field's type is a [`Field`]: a number, a flag, a mode, or another part.
macro_rules! tunable {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[doc = $doc:literal])* $fvis:vis $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$m])*
        #[non_exhaustive]
        $vis struct $name { $($(#[doc = $doc])* $fvis $field: $ty),* }

        impl $crate::policy::Field for $name {
            fn set_path(&mut self, path: &str, value: u32) -> ::std::result::Result<(), String> {
                let (head, rest) = path.split_once('.').unwrap_or((path, ""));
                match head {
                    $(stringify!($field) => $crate::policy::Field::set_path(&mut self.$field, rest, value),)*
                    _ if head.is_empty() => Err("a part, not a value: name one of its fields".to_string()),
                    _ => Err(format!("`{head}` is not a field")),
                }
            }
            fn legend(path: &str, _doc: &'static str, out: &mut Vec<(String, &'static str)>) {
                $(<$ty as $crate::policy::Field>::legend(
                    &if path.is_empty() { stringify!($field).to_string() } else { format!("{path}.{}", stringify!($field)) },
                    $crate::policy::first_line(&[$($doc),*]),
                    out,
                );)*
            }
        }
    };
}
pub(crate) use tunable;

/// The first line of a doc comment given as its `#[doc]` lines.
pub(crate) const fn first_line(lines: &[&'static str]) -> &'static str {
    match lines.first() {
        Some(l) => l,
        None => "",
    }
}

/// Tuning as data: a family's policy. Any field is set by its path (`part.field=value`) and the
/// legend lists every path; the family checks it against the device before anything uses it.
pub trait Policy: Field + Clone {
    /// The family, as errors and override strings name it.
    const FAMILY: &'static str;

    /// Sets the fields of a `path=value,...` override string, in order.
    fn with_overrides(mut self, spec: &str) -> Result<Self> {
        for_each_override(spec, Self::FAMILY, |k, v, bad| {
            self.set_path(k, v).map_err(|e| bad(format!("`{k}`: {e}")))
        })?;
        Ok(self)
    }

    /// Every settable path with the first line of its field's docs, in declaration order.
    fn legend() -> Vec<(String, &'static str)>
    where
        Self: Sized,
    {
        let mut out = Vec::new();
        <Self as Field>::legend("", "", &mut out);
        out
    }
}

/// The legend's paths of `P`, each asserted to carry a doc line (the families' override-key tests).
#[cfg(test)]
pub(crate) fn legend_paths<P: Policy>() -> Vec<String> {
    let legend = <P as Policy>::legend();
    assert!(
        legend.iter().all(|(_, doc)| !doc.trim().is_empty()),
        "{legend:?}"
    );
    legend.into_iter().map(|(k, _)| k).collect()
}
