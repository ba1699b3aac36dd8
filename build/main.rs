//! The build script: embeds the SPIR-V of every compute shader under `glsl/` and generates the Rust names of the
//! shaders and their specialization constants (included by `src/shaders.rs`), in four steps, one module each:
//! collect (`glsl/`: shaders, `// @variant` lines, `constant_id` declarations), check (one id per constant name,
//! unique stems and names), spirv (shaderc with `compile-shaders` and the drift check against `spirv/`, or the
//! shipped `spirv/` blobs), generate (`OUT_DIR/shaders.rs`). docs/build.md says where the SPIR-V comes from and
//! why; a GLSL error fails the build with its file and line.

mod check;
mod collect;
mod generate;
mod spirv;

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let glsl = root.join("glsl");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let spirv_dir = root.join("spirv");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=glsl");
    println!("cargo:rerun-if-changed=spirv");
    println!("cargo:rerun-if-env-changed=VKSORT_WRITE_SPIRV");
    #[cfg(feature = "compile-shaders")]
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");
    let write_spirv = std::env::var_os("VKSORT_WRITE_SPIRV").is_some_and(|v| v == "1");

    let tree = collect::read(&glsl);
    let mut errors = tree.errors.clone();
    errors.extend(check::consistency(&tree));
    if !errors.is_empty() {
        panic!(
            "shader declarations are inconsistent:\n  {}",
            errors.join("\n  ")
        );
    }
    let (embed, stale) = spirv::blobs(
        &tree.shaders,
        &glsl,
        &out,
        &spirv_dir,
        write_spirv,
        &mut errors,
    );
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("shader error: {e}");
        }
        panic!(
            "{} shader(s) failed to compile or load:\n{}",
            errors.len(),
            errors.join("\n")
        );
    }
    generate::write(&out, &embed, &stale, &tree.shaders, &tree.includes);
}
