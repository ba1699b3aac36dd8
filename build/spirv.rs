//! Step 3, SPIR-V: with `compile-shaders`, every variant compiled fresh by shaderc and compared with the shipped
//! `spirv/` (the drift check; `VKSORT_WRITE_SPIRV=1` rewrites `spirv/` instead); without it, the shipped blobs.

#[cfg(feature = "compile-shaders")]
use crate::collect::resolve_include;
use crate::collect::{embedded_name, Shader};
#[cfg(feature = "compile-shaders")]
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The blob of every variant as (embedded name, path of the `.spv` to embed), and the drift lines: compiled
/// fresh and compared with `spirv/`.
#[cfg(feature = "compile-shaders")]
pub fn blobs(
    shaders: &[Shader],
    glsl: &Path,
    out: &Path,
    spirv_dir: &Path,
    write_spirv: bool,
    errors: &mut Vec<String>,
) -> (Vec<(String, PathBuf)>, Vec<String>) {
    let fresh = compile_all(shaders, glsl, out, errors);
    let stale = if errors.is_empty() {
        drift(&fresh, spirv_dir, write_spirv)
    } else {
        Vec::new()
    };
    let embed = fresh
        .into_iter()
        .map(|(name, _)| {
            let path = out.join(format!("{name}.spv"));
            (name, path)
        })
        .collect();
    (embed, stale)
}

/// The blob of every variant: the shipped ones (no drift lines: nothing compiled to compare).
#[cfg(not(feature = "compile-shaders"))]
pub fn blobs(
    shaders: &[Shader],
    _glsl: &Path,
    _out: &Path,
    spirv_dir: &Path,
    write_spirv: bool,
    errors: &mut Vec<String>,
) -> (Vec<(String, PathBuf)>, Vec<String>) {
    if write_spirv {
        panic!(
            "VKSORT_WRITE_SPIRV=1 needs the `compile-shaders` feature (`./dev spirv` turns it on)"
        );
    }
    let names: Vec<String> = shaders
        .iter()
        .flat_map(|s| s.variants.iter().map(|v| embedded_name(&s.stem, v)))
        .collect();
    (shipped(&names, spirv_dir, errors), Vec::new())
}

/// Every variant of every shader, compiled: (embedded name, SPIR-V bytes), also written to `OUT_DIR/<name>.spv`.
#[cfg(feature = "compile-shaders")]
fn compile_all(
    shaders: &[Shader],
    glsl: &Path,
    out: &Path,
    errors: &mut Vec<String>,
) -> Vec<(String, Vec<u8>)> {
    let compiler = shaderc::Compiler::new().expect("shaderc compiler");
    let mut blobs = Vec::new();
    for s in shaders {
        for v in &s.variants {
            let name = embedded_name(&s.stem, v);
            match compile(&compiler, &s.rel, &s.text, glsl, &v.defs) {
                Ok(bytes) => {
                    std::fs::write(out.join(format!("{name}.spv")), &bytes).unwrap();
                    blobs.push((name, bytes));
                }
                Err(e) => errors.push(format!("GLSL error in {name} ({}):\n{e}", s.path.display())),
            }
        }
    }
    blobs
}

/// Compares the fresh blobs with `spirv/`: one line per blob that differs or is missing and per extra `.spv`
/// file. With `write` (`VKSORT_WRITE_SPIRV=1`, `./dev spirv`), brings `spirv/` up to date instead (writes what
/// differs, deletes extra `.spv` files) and reports nothing.
#[cfg(feature = "compile-shaders")]
fn drift(fresh: &[(String, Vec<u8>)], spirv_dir: &Path, write: bool) -> Vec<String> {
    let mut stale = Vec::new();
    if write {
        std::fs::create_dir_all(spirv_dir).unwrap();
    }
    for (name, bytes) in fresh {
        let path = spirv_dir.join(format!("{name}.spv"));
        let why = match std::fs::read(&path) {
            Ok(old) if old == *bytes => continue,
            Ok(old) => format!(
                "{name}.spv: differs from the compile of glsl/ ({} bytes shipped, {} compiled)",
                old.len(),
                bytes.len()
            ),
            Err(_) => format!("{name}.spv: missing"),
        };
        if write {
            std::fs::write(&path, bytes).unwrap();
        } else {
            stale.push(why);
        }
    }
    let known: BTreeSet<String> = fresh.iter().map(|(n, _)| format!("{n}.spv")).collect();
    for e in std::fs::read_dir(spirv_dir).into_iter().flatten() {
        let e = e.unwrap();
        let file = e.file_name().to_string_lossy().into_owned();
        if known.contains(&file) {
            continue;
        }
        if write {
            std::fs::remove_file(e.path()).unwrap();
        } else {
            stale.push(format!(
                "{file}: extra (no shader variant of glsl/ has this name)"
            ));
        }
    }
    stale.sort();
    stale
}

/// The shipped blobs `spirv/<name>.spv`, one per embedded name (no shaderc: the package's build).
#[cfg(not(feature = "compile-shaders"))]
fn shipped(names: &[String], spirv_dir: &Path, errors: &mut Vec<String>) -> Vec<(String, PathBuf)> {
    let mut embed = Vec::new();
    for name in names {
        let path = spirv_dir.join(format!("{name}.spv"));
        match std::fs::read(&path) {
            Ok(b) if b.len() % 4 == 0 && b.get(..4) == Some(&0x0723_0203u32.to_le_bytes()[..]) => {
                embed.push((name.clone(), path))
            }
            Ok(_) => errors.push(format!("{} is no SPIR-V module", path.display())),
            Err(e) => errors.push(format!(
                "{} ({e}): this copy of vksort lacks the compiled shader {name}; in the repository, `./dev \
                 spirv` regenerates spirv/ from glsl/ (or build with the `compile-shaders` feature)",
                path.display()
            )),
        }
    }
    embed
}

/// Compiles one variant. `rel` is the shader's path relative to `glsl/`, and includes resolve to names relative
/// to `glsl/` too: the debug info (OpSource/OpString file names) then holds no absolute path, so the blobs are
/// the same on every machine.
#[cfg(feature = "compile-shaders")]
fn compile(
    compiler: &shaderc::Compiler,
    rel: &str,
    text: &str,
    glsl: &Path,
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
    let root = glsl.to_path_buf();
    let inc = glsl.join("include");
    opts.set_include_callback(move |name, _kind, from, _depth| {
        // `from` is the including file, relative to `glsl/`: the shader's, or an include's resolved name.
        let from_dir = root.join(Path::new(from).parent().unwrap_or(Path::new("")));
        match resolve_include(name, &from_dir, &inc) {
            Some(p) => {
                let content = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
                println!("cargo:rerun-if-changed={}", p.display());
                let resolved = p.strip_prefix(&root).unwrap_or(&p);
                let resolved: Vec<String> = resolved
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                Ok(shaderc::ResolvedInclude {
                    resolved_name: resolved.join("/"),
                    content,
                })
            }
            None => Err(format!(
                "include {name} not found in {} or {}",
                from_dir.display(),
                inc.display()
            )),
        }
    });
    let art = compiler
        .compile_into_spirv(text, shaderc::ShaderKind::Compute, rel, "main", Some(&opts))
        .map_err(|e| e.to_string())?;
    Ok(art.as_binary_u8().to_vec())
}
