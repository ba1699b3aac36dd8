//! Compiles every compute shader under `glsl/` to SPIR-V with shaderc and embeds it in the library.
//!
//! Layout: `glsl/` holds one folder per algorithm family, matching the Rust modules (`glsl/scan/` for
//! `src/scan/`, `glsl/sort/radix/` for `src/sort/radix/`); single-file families (`compact.comp`, ...) sit at the
//! top; shared building blocks in `glsl/include/`. Every `*.comp` below `glsl/` (walked recursively) is a
//! shader. Embedded names must be unique (the build fails otherwise).
//!
//! A shader that is generic declares its variants in lines of the form
//! `// @variant NAME DEFINE=VALUE DEFINE2=VALUE ...` ; each variant is compiled with those macro definitions
//! and embedded as `<stem>_<NAME>`. A shader without such lines is embedded once, as `<stem>`.
//! Includes (`#include "x.glsl"`) resolve against the including file's folder first, then `glsl/include/`. A GLSL error fails the build with its
//! file and line, as shaderc reports them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let glsl = root.join("glsl");
    let include_dir = glsl.join("include");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=glsl");
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");

    let compiler = shaderc::Compiler::new().expect("shaderc compiler");
    let mut sources = Vec::new();
    walk(&glsl, &mut sources);
    sources.retain(|p| p.extension().is_some_and(|e| e == "comp"));
    sources.sort();
    let mut embedded = std::collections::HashMap::new();

    let mut table = String::new();
    let mut errors = Vec::new();
    writeln!(table, "/// Every embedded shader: (name, SPIR-V bytes).").unwrap();
    writeln!(table, "pub static SHADERS: &[(&str, &[u8])] = &[").unwrap();
    for src in &sources {
        println!("cargo:rerun-if-changed={}", src.display());
        let text = std::fs::read_to_string(src).unwrap();
        let stem = src.file_stem().unwrap().to_str().unwrap().to_string();
        let mut variants: Vec<(String, Vec<(String, String)>)> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("// @variant "))
            .map(|rest| {
                let mut words = rest.split_whitespace();
                let name = words.next().expect("@variant needs a name").to_string();
                let defs = words
                    .map(|w| match w.split_once('=') {
                        Some((k, v)) => (k.to_string(), v.to_string()),
                        None => (w.to_string(), "1".to_string()),
                    })
                    .collect();
                (format!("{stem}_{name}"), defs)
            })
            .collect();
        if variants.is_empty() {
            variants.push((stem.clone(), Vec::new()));
        }
        for (name, defs) in variants {
            if let Some(other) = embedded.insert(name.clone(), src.clone()) {
                panic!(
                    "embedded name {name} comes from both {} and {}",
                    other.display(),
                    src.display()
                );
            }
            match compile(&compiler, src, &text, &include_dir, &defs) {
                Ok(words) => {
                    let spv = out.join(format!("{name}.spv"));
                    std::fs::write(&spv, words).unwrap();
                    writeln!(
                        table,
                        "    ({name:?}, include_bytes!({:?})),",
                        spv.display().to_string()
                    )
                    .unwrap();
                }
                Err(e) => errors.push(format!("{name} ({}):\n{e}", src.display())),
            }
        }
    }
    writeln!(table, "];").unwrap();
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("GLSL error in {e}");
        }
        panic!(
            "{} shader(s) failed to compile:\n{}",
            errors.len(),
            errors.join("\n")
        );
    }
    std::fs::write(out.join("shaders.rs"), table).unwrap();
}

/// All files below `dir`, recursively.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn compile(
    compiler: &shaderc::Compiler,
    path: &Path,
    text: &str,
    include_dir: &Path,
    defs: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let mut opts = shaderc::CompileOptions::new().map_err(|e| e.to_string())?;
    opts.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_2 as u32,
    );
    opts.set_target_spirv(shaderc::SpirvVersion::V1_5);
    opts.set_optimization_level(shaderc::OptimizationLevel::Performance);
    opts.set_generate_debug_info();
    for (k, v) in defs {
        opts.add_macro_definition(k, Some(v));
    }
    let inc = include_dir.to_path_buf();
    opts.set_include_callback(move |name, _kind, from, _depth| {
        // `from` is the including file: the shader's path, or an include's resolved name (its path).
        let local = Path::new(from).parent().unwrap_or(Path::new("."));
        for dir in [local, &inc] {
            let p = dir.join(name);
            if let Ok(content) = std::fs::read_to_string(&p) {
                println!("cargo:rerun-if-changed={}", p.display());
                return Ok(shaderc::ResolvedInclude {
                    resolved_name: p.display().to_string(),
                    content,
                });
            }
        }
        Err(format!(
            "include {name} not found in {} or {}",
            local.display(),
            inc.display()
        ))
    });
    let art = compiler
        .compile_into_spirv(
            text,
            shaderc::ShaderKind::Compute,
            &path.display().to_string(),
            "main",
            Some(&opts),
        )
        .map_err(|e| e.to_string())?;
    Ok(art.as_binary_u8().to_vec())
}
