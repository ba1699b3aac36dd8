//! Passes as rows: `rec.pass(label, &kernel).bind(&[..]).push(&..).groups(n)?` (or `.indirect(args)?`), so
//! a family's passes read as short rows and the profiler, the model and captures see the same label.

use super::{Kernel, Recorder, Region};
use crate::error::Result;

/// A pass being declared: its label and kernel, then its bindings (set 0, in binding order) and push constants;
/// [`PassBuilder::groups`] or [`PassBuilder::indirect`] records it.
#[must_use = "a pass is recorded by `.groups(n)` or `.indirect(args)`"]
pub(crate) struct PassBuilder<'r, 'a> {
    rec: &'r mut Recorder<'a>,
    label: &'r str,
    kernel: &'r Kernel,
    bindings: &'r [Region],
    push: &'r [u8],
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
        }
    }
}

impl<'r, 'a> PassBuilder<'r, 'a> {
    /// The regions bound to set 0, in binding order.
    pub(crate) fn bind(mut self, bindings: &'r [Region]) -> Self {
        self.bindings = bindings;
        self
    }

    /// The push constants (the shader's push-constant block, byte for byte).
    pub(crate) fn push<P: bytemuck::Pod>(mut self, push: &'r P) -> Self {
        self.push = bytemuck::bytes_of(push);
        self
    }

    /// Records the pass over `groups` workgroups (nothing when 0).
    pub(crate) fn groups(self, groups: u32) -> Result<()> {
        self.rec
            .dispatch_bytes(self.label, self.kernel, self.bindings, self.push, groups)
    }

    /// Records the pass over the group counts in `args` (written before the last barrier).
    pub(crate) fn indirect(self, args: Region) -> Result<()> {
        self.rec
            .dispatch_indirect_bytes(self.label, self.kernel, self.bindings, self.push, args)
    }
}
