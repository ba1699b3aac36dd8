//! The SPIR-V of every shader under `glsl/`, compiled by `build.rs` and embedded.
//!
//! Names are the shader's file stem, or `<stem>_<variant>` for shaders with `// @variant` lines.

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The SPIR-V words of the shader `name`, or `None` if no such shader was compiled.
pub fn spirv(name: &str) -> Option<Vec<u32>> {
    let (_, bytes) = SHADERS.iter().find(|(n, _)| *n == name)?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes)).ok()
}
