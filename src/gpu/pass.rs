//! Passes as rows: `rec.pass(label, &kernel).bind(&[..]).push(&..).groups(n)?` (or `.indirect(args)?`), so
//! a family's passes read as short rows and the profiler, the model and captures see the same label.

use super::push_layout::layout_matches;
use super::{Kernel, PushBlock, Recorder, Region};
use crate::error::{Error, Result};

/// A pass being declared: its label and kernel, then its bindings (set 0, in binding order) and push constants;
/// [`PassBuilder::groups`] or [`PassBuilder::indirect`] records it.
#[must_use = "a pass is recorded by `.groups(n)` or `.indirect(args)`"]
pub(crate) struct PassBuilder<'r, 'a> {
    rec: &'r mut Recorder<'a>,
    label: &'r str,
    kernel: &'r Kernel,
    bindings: &'r [Region],
    push: &'r [u8],
    /// The pushed struct's members `(offset, size)`, checked against the shader's block.
    members: &'static [(u32, u32)],
}

impl<'a> Recorder<'a> {
    /// Starts the pass `label` running `kernel`.
    pub(crate) fn pass<'r>(
        &'r mut self,
        label: &'r str,
        kernel: &'r Kernel,
    ) -> PassBuilder<'r, 'a> {
        PassBuilder {
            rec: self,
            label,
            kernel,
            bindings: &[],
            push: &[],
            members: &[],
        }
    }
}

impl<'r, 'a> PassBuilder<'r, 'a> {
    /// The regions bound to set 0, in binding order.
    pub(crate) fn bind(mut self, bindings: &'r [Region]) -> Self {
        self.bindings = bindings;
        self
    }

    /// The push constants: a [`PushBlock`] whose members must lie on the shader's block.
    pub(crate) fn push<P: PushBlock>(mut self, push: &'r P) -> Self {
        self.push = bytemuck::bytes_of(push);
        self.members = P::MEMBERS;
        self
    }

    /// An error unless the pushed struct's members lie on the shader's push-constant block (the size alone is
    /// checked when the kernel is bound).
    fn check_layout(&self) -> Result<()> {
        let shader = &self.kernel.interface.push_members;
        if self.push.is_empty() || layout_matches(self.members, shader) {
            return Ok(());
        }
        Err(Error::Shader {
            name: self.kernel.name.clone(),
            what: format!(
                "the pushed struct's members (offset, size) {:?} do not lie on the shader's push-constant block {shader:?}",
                self.members
            ),
        })
    }

    /// Records the pass over `groups` workgroups (nothing when 0).
    pub(crate) fn groups(self, groups: u32) -> Result<()> {
        self.check_layout()?;
        self.rec
            .dispatch_bytes(self.label, self.kernel, self.bindings, self.push, groups)
    }

    /// Records the pass over the group counts in `args` (written before the last barrier).
    pub(crate) fn indirect(self, args: Region) -> Result<()> {
        self.check_layout()?;
        self.rec
            .dispatch_indirect_bytes(self.label, self.kernel, self.bindings, self.push, args)
    }
}

#[cfg(test)]
mod tests {
    use crate::gpu::{push_block, Buffer, Context, ContextOptions, Recorder};
    use crate::policy::SubgroupPlan;
    use crate::shaders::{copy, Spec};

    push_block! {
        /// `glsl/copy.comp`'s block is two u32 words; this struct cuts the first one in halves.
        struct Halves {
            a: u16,
            b: u16,
            c: u32,
        }
    }

    push_block! {
        /// The block as the shader declares it.
        struct Words {
            n_vec4: u32,
            group_count: u32,
        }
    }

    /// A pushed struct whose members do not lie on the shader's block is refused before anything is recorded;
    /// the matching one passes.
    #[test]
    fn push_layout_is_checked_against_the_shader() {
        let Ok(ctx) = Context::new(ContextOptions::default()) else {
            return; // no Vulkan device: nothing to check here
        };
        let plan = SubgroupPlan::for_device(ctx.caps());
        let kernel = plan
            .kernel(&ctx, copy::SHADER, plan.max, Spec::new())
            .unwrap();
        let buf = Buffer::device_local(&ctx, "test::copy", 64).unwrap();
        let r = buf.as_ref().region();
        let mut rec = Recorder::planning(&ctx);
        let halves = Halves { a: 1, b: 0, c: 1 };
        let err = rec
            .pass("test::copy", &kernel)
            .bind(&[r, r])
            .push(&halves)
            .groups(1);
        assert!(
            matches!(&err, Err(crate::Error::Shader { what, .. }) if what.contains("do not lie on")),
            "{err:?}"
        );
        let words = Words {
            n_vec4: 1,
            group_count: 1,
        };
        rec.pass("test::copy", &kernel)
            .bind(&[r, r])
            .push(&words)
            .groups(1)
            .unwrap();
    }
}
