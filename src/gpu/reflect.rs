//! Shader interfaces from SPIR-V reflection: the descriptor types of set 0 and the push-constant size, never
//! written by hand.

use crate::error::{Error, Result};
use crate::shaders::ShaderId;
use ash::vk;

/// What reflection says of a shader's interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Descriptor types of set 0, by binding index (bindings must be dense from 0).
    pub bindings: Vec<vk::DescriptorType>,
    /// Byte size of the push-constant block (0 if none).
    pub push_constant_size: u32,
    /// The push-constant block's members as `(offset, size)` in bytes, in declaration order.
    pub push_members: Vec<(u32, u32)>,
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
    let push_members =
        super::push_members(bytes).map_err(|e| err(format!("push constants: {e}")))?;
    Ok(Interface {
        bindings,
        push_constant_size,
        push_members,
    })
}
