//! The SPIR-V of every shader under `glsl/` (compiled by `build.rs`, embedded) and typed names generated from
//! the GLSL: per shader stem a module (e.g. [`radix_onesweep`]) with a [`ShaderId`] per variant
//! (`radix_onesweep::BALLOT` is `radix_onesweep_ballot`; `SHADER` without variants), a [`SpecId`] per
//! specialization constant (`radix_onesweep::KPT`; one id per name across shaders) and `SPEC_CONSTANTS`;
//! shared includes' constants under [`include`](mod@include). `SHADERS` lists the embedded SPIR-V, [`ALL`]
//! every shader.

use std::fmt;

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// One embedded shader (a variant of a `glsl/` compute shader); only generated consts make one.
#[derive(Clone, Copy)]
pub struct ShaderId {
    name: &'static str,
    spec: &'static [SpecId],
}

impl ShaderId {
    pub(crate) const fn new(name: &'static str, spec: &'static [SpecId]) -> Self {
        Self { name, spec }
    }

    /// The embedded name (`radix_onesweep_ballot`): labels, [`crate::gpu::kernel::reflect`], [`spirv`].
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The specialization constants the shader declares, by id.
    pub fn spec_constants(self) -> &'static [SpecId] {
        self.spec
    }

    /// True when the shader declares the constant `id` (the same name at the same id).
    pub fn declares(self, id: SpecId) -> bool {
        self.spec.contains(&id)
    }

    /// The shader embedded as `name`.
    pub fn by_name(name: &str) -> Option<ShaderId> {
        ALL.iter().copied().find(|s| s.name == name)
    }

    /// The shader's SPIR-V words.
    pub fn spirv(self) -> Option<Vec<u32>> {
        spirv(self.name)
    }
}

impl PartialEq for ShaderId {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for ShaderId {}

impl std::hash::Hash for ShaderId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h)
    }
}

impl fmt::Debug for ShaderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl fmt::Display for ShaderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A specialization constant: its `constant_id` and its GLSL name (for messages and statistics).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpecId {
    id: u32,
    name: &'static str,
}

impl SpecId {
    pub(crate) const fn new(id: u32, name: &'static str) -> Self {
        Self { id, name }
    }

    /// The `constant_id`.
    pub fn id(self) -> u32 {
        self.id
    }

    /// The GLSL name.
    pub fn name(self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for SpecId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.name, self.id)
    }
}

/// The specialization constants of a kernel (part of its cache key): (constant, value) pairs sorted by id, each
/// id once; constants not set keep the shader's default.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Spec(Vec<(SpecId, u32)>);

impl Spec {
    /// No constant set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `id` to `value` (replacing an earlier value).
    pub fn with(mut self, id: SpecId, value: u32) -> Self {
        self.set(id, value);
        self
    }

    /// Sets `id` to `value` (replacing an earlier value).
    pub fn set(&mut self, id: SpecId, value: u32) -> &mut Self {
        match self.0.binary_search_by_key(&id.id, |(s, _)| s.id) {
            Ok(i) => {
                debug_assert_eq!(
                    self.0[i].0, id,
                    "two constants with one id in one specialization"
                );
                self.0[i] = (id, value);
            }
            Err(i) => self.0.insert(i, (id, value)),
        }
        self
    }

    /// Every (constant, value) of `other` set here too.
    pub fn merge(mut self, other: Spec) -> Self {
        for (id, v) in other.0 {
            self.set(id, v);
        }
        self
    }

    /// The value of `id`, if set.
    pub fn get(&self, id: SpecId) -> Option<u32> {
        self.0.iter().find(|(s, _)| *s == id).map(|&(_, v)| v)
    }

    /// The pairs, by id.
    pub fn entries(&self) -> &[(SpecId, u32)] {
        &self.0
    }
}

impl fmt::Debug for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (id, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}={v}", id.name)?;
        }
        f.write_str("}")
    }
}

/// The SPIR-V words of the shader `name`, or `None` if no such shader was compiled.
pub fn spirv(name: &str) -> Option<Vec<u32>> {
    let (_, bytes) = SHADERS.iter().find(|(n, _)| *n == name)?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_and_spec() {
        let spec = Spec::new()
            .with(radix_onesweep::KPT, 8)
            .with(radix_onesweep::DIGIT_BITS, 8);
        assert_eq!(
            radix_onesweep::PARTITIONED_WIDE.name(),
            "radix_onesweep_partitioned_wide"
        );
        assert!(radix_onesweep::BALLOT.declares(radix_onesweep::KPT));
        assert_eq!(spec.get(radix_onesweep::KPT), Some(8));
    }
}

/// The shipped `spirv/` blobs (what a crate depending on vksort embeds) equal this build's compile of `glsl/`.
#[cfg(all(test, feature = "compile-shaders"))]
mod spirv_drift {
    #[test]
    fn shipped_spirv_matches_glsl() {
        assert!(
            super::STALE_SPIRV.is_empty(),
            "spirv/ is stale against glsl/ (run `./dev spirv` and commit spirv/):\n  {}",
            super::STALE_SPIRV.join("\n  ")
        );
    }
}
