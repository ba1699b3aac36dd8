//! Push-constant layouts on both sides: the block a shader declares, read from its SPIR-V (each member's offset
//! and size), and the Rust struct a pass pushes ([`PushBlock`], declared through [`push_block!`]). The pass
//! builder compares the two before it records, so a struct that drifts from its shader is an error, not a
//! garbled dispatch.

/// A push-constant struct with its members' `(offset, size)` in bytes, in declaration order.
pub(crate) trait PushBlock: bytemuck::Pod {
    /// The members' `(offset, size)`.
    const MEMBERS: &'static [(u32, u32)];
}

/// No push constants (a shader without a push-constant block).
impl PushBlock for () {
    const MEMBERS: &'static [(u32, u32)] = &[];
}

/// Declares a `#[repr(C)]`, `Pod` push-constant struct and its [`PushBlock`] layout:
/// `push_block! { /// doc \n pub struct P { /// doc \n pub a: u32, pub b: [u32; 2] } }`.
/// `push_block! { internal struct P { .. } }` declares it public with the `diagnostics` feature and crate-private
/// without (as `internal!` does).
macro_rules! push_block {
    ($(#[$m:meta])* internal struct $name:ident { $($body:tt)* }) => {
        #[cfg(feature = "diagnostics")]
        $crate::gpu::push_block! { $(#[$m])* pub struct $name { $($body)* } }
        #[cfg(not(feature = "diagnostics"))]
        $crate::gpu::push_block! { $(#[$m])* pub(crate) struct $name { $($body)* } }
    };
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
        $vis struct $name { $($(#[$fm])* $fvis $field: $ty),* }

        impl $crate::gpu::PushBlock for $name {
            const MEMBERS: &'static [(u32, u32)] = &[$((
                ::std::mem::offset_of!($name, $field) as u32,
                ::std::mem::size_of::<$ty>() as u32,
            )),*];
        }
    };
}
pub(crate) use push_block;

/// Whether a Rust struct's members (`rust`) lie on the shader's block (`shader`, from [`push_members`]): the same
/// bytes in all, and every Rust member starting and ending on member boundaries of the shader's block (a Rust
/// member may cover several shader members: a nested struct, or `[u32; 2]` for `pad0, pad1`). Both in order.
pub(crate) fn layout_matches(rust: &[(u32, u32)], shader: &[(u32, u32)]) -> bool {
    let end = |m: &[(u32, u32)]| m.iter().map(|&(o, s)| o + s).max().unwrap_or(0);
    if end(rust) != end(shader) {
        return false;
    }
    // Called for every recorded pass: no allocation, the blocks have a handful of members.
    let starts = |o: u32| shader.iter().any(|&(so, _)| so == o);
    let ends = |e: u32| shader.iter().any(|&(so, ss)| so + ss == e);
    rust.iter().all(|&(o, s)| starts(o) && ends(o + s))
}

/// SPIR-V opcodes and enumerants read here.
mod op {
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_VECTOR: u32 = 23;
    pub const TYPE_ARRAY: u32 = 28;
    pub const TYPE_STRUCT: u32 = 30;
    pub const TYPE_POINTER: u32 = 32;
    pub const CONSTANT: u32 = 43;
    pub const VARIABLE: u32 = 59;
    pub const DECORATE: u32 = 71;
    pub const MEMBER_DECORATE: u32 = 72;
    pub const DECORATION_ARRAY_STRIDE: u32 = 6;
    pub const DECORATION_OFFSET: u32 = 35;
    pub const STORAGE_PUSH_CONSTANT: u32 = 9;
}

/// The push-constant block of a SPIR-V module as its members' `(offset, size)`, in declaration order (empty when
/// the module has none).
pub(crate) fn push_members(spirv: &[u8]) -> Result<Vec<(u32, u32)>, String> {
    if spirv.len() % 4 != 0 || spirv.len() < 20 {
        return Err("not a SPIR-V module".into());
    }
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let m = Module::read(&words[5..])?;
    let Some(block) = m.push_block() else {
        return Ok(Vec::new());
    };
    let members = m
        .structs
        .get(&block)
        .ok_or("push constant block is no struct")?;
    members
        .iter()
        .enumerate()
        .map(|(i, &ty)| {
            let offset = *m
                .member_offsets
                .get(&(block, i as u32))
                .ok_or_else(|| format!("push constant member {i} has no Offset"))?;
            Ok((offset, m.size(ty)?))
        })
        .collect()
}

/// The type declarations of a module, by result id.
#[derive(Default)]
struct Module {
    scalars: std::collections::HashMap<u32, u32>,
    vectors: std::collections::HashMap<u32, (u32, u32)>,
    arrays: std::collections::HashMap<u32, (u32, u32)>,
    structs: std::collections::HashMap<u32, Vec<u32>>,
    pointers: std::collections::HashMap<u32, (u32, u32)>,
    constants: std::collections::HashMap<u32, u32>,
    array_strides: std::collections::HashMap<u32, u32>,
    member_offsets: std::collections::HashMap<(u32, u32), u32>,
    push_variable_types: Vec<u32>,
}

impl Module {
    fn read(mut words: &[u32]) -> Result<Self, String> {
        let mut m = Module::default();
        while let Some(&first) = words.first() {
            let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
            if count == 0 || count > words.len() {
                return Err("truncated instruction".into());
            }
            let a = &words[1..count];
            let arg = |i: usize| a.get(i).copied().unwrap_or(0);
            match opcode {
                op::TYPE_INT | op::TYPE_FLOAT => {
                    m.scalars.insert(arg(0), arg(1) / 8);
                }
                op::TYPE_VECTOR => {
                    m.vectors.insert(arg(0), (arg(1), arg(2)));
                }
                op::TYPE_ARRAY => {
                    m.arrays.insert(arg(0), (arg(1), arg(2)));
                }
                op::TYPE_STRUCT => {
                    m.structs.insert(arg(0), a[1..].to_vec());
                }
                op::TYPE_POINTER => {
                    m.pointers.insert(arg(0), (arg(1), arg(2)));
                }
                op::CONSTANT => {
                    m.constants.insert(arg(1), arg(2));
                }
                op::VARIABLE if arg(2) == op::STORAGE_PUSH_CONSTANT => {
                    m.push_variable_types.push(arg(0))
                }
                op::DECORATE if arg(1) == op::DECORATION_ARRAY_STRIDE => {
                    m.array_strides.insert(arg(0), arg(2));
                }
                op::MEMBER_DECORATE if arg(2) == op::DECORATION_OFFSET => {
                    m.member_offsets.insert((arg(0), arg(1)), arg(3));
                }
                _ => {}
            }
            words = &words[count..];
        }
        Ok(m)
    }

    /// The struct type behind the push-constant variable.
    fn push_block(&self) -> Option<u32> {
        let ptr = *self.push_variable_types.first()?;
        self.pointers.get(&ptr).map(|&(_, pointee)| pointee)
    }

    /// Bytes a member of type `ty` covers in the block.
    fn size(&self, ty: u32) -> Result<u32, String> {
        if let Some(&bytes) = self.scalars.get(&ty) {
            Ok(bytes)
        } else if let Some(&(elem, n)) = self.vectors.get(&ty) {
            Ok(self.size(elem)? * n)
        } else if let Some(&(elem, len)) = self.arrays.get(&ty) {
            let len = *self
                .constants
                .get(&len)
                .ok_or("array length is no constant")?;
            let stride = match self.array_strides.get(&ty) {
                Some(&s) => s,
                None => self.size(elem)?,
            };
            Ok(stride * len)
        } else if let Some(members) = self.structs.get(&ty) {
            let mut end = 0;
            for (i, &t) in members.iter().enumerate() {
                let offset = self
                    .member_offsets
                    .get(&(ty, i as u32))
                    .copied()
                    .unwrap_or(0);
                end = end.max(offset + self.size(t)?);
            }
            Ok(end)
        } else {
            Err(format!(
                "type %{ty} in the push constant block is not understood"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every embedded shader's push block parses, and its members end where reflection says the block ends.
    #[test]
    fn every_shader_push_block_is_read() {
        for (name, bytes) in crate::shaders::SHADERS {
            let members = push_members(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            let Ok(iface) = crate::gpu::kernel::reflect(name) else {
                continue;
            };
            let end = members.iter().map(|&(o, s)| o + s).max().unwrap_or(0);
            assert_eq!(end, iface.push_constant_size, "{name}: {members:?}");
        }
    }

    push_block! {
        /// A test block.
        struct Two {
            a: u32,
            b: [u32; 3],
            c: u64,
        }
    }

    #[test]
    fn layouts_match_on_member_boundaries() {
        let shader = [(0, 4), (4, 4), (8, 4), (16, 8)];
        assert!(layout_matches(&[(0, 8), (8, 4), (16, 8)], &shader));
        assert!(layout_matches(&[(0, 4), (4, 4), (8, 4), (16, 8)], &shader));
        assert!(
            !layout_matches(&[(0, 4), (4, 4), (8, 4)], &shader),
            "shorter"
        );
        assert!(
            !layout_matches(&[(0, 6), (6, 6), (16, 8)], &shader),
            "misaligned"
        );
        assert!(layout_matches(&[], &[]));
        assert!(!layout_matches(&[(0, 4)], &[]));
    }

    #[test]
    fn rust_layout_is_offsets_and_sizes() {
        assert_eq!(Two::MEMBERS, &[(0, 4), (4, 12), (16, 8)]);
    }
}
