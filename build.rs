//! Embeds the SPIR-V of every compute shader under `glsl/` in the library and generates the Rust names of the
//! shaders and of their specialization constants (included by `src/shaders.rs`).
//!
//! Where the SPIR-V comes from (docs/build.md says why):
//! - without the `compile-shaders` feature (what a crate depending on vksort builds): the committed blobs under
//!   `spirv/`, one `<embedded name>.spv` per variant, generated from `glsl/` by `./dev spirv` and shipped in the
//!   package. No C++ compiler, no shaderc, no system package. A missing blob fails the build, naming it.
//! - with `compile-shaders` (the repository's own builds: tools/ turns it on): a fresh shaderc compile of
//!   `glsl/`, embedded; each blob is compared with `spirv/<name>.spv` and every mismatch (different, missing,
//!   extra) is listed in the generated `STALE_SPIRV`, which a test of `src/shaders.rs` fails on. With
//!   `VKSORT_WRITE_SPIRV=1` (`./dev spirv`) the build writes the fresh blobs into `spirv/` and deletes stale ones;
//!   it never writes into the source tree otherwise.
//!
//! The compile is reproducible: shaderc is given paths relative to `glsl/` (the shader, its includes), so the
//! debug info (source names for RenderDoc and validation messages) holds no path of the machine.
//!
//! Layout: `glsl/` holds one folder per algorithm family, matching the Rust modules (`glsl/scan/` for
//! `src/scan/`, `glsl/sort/radix/` for `src/sort/radix/`); single-file families (`compact.comp`, ...) sit at the
//! top; shared building blocks in `glsl/include/`. Every `*.comp` below `glsl/` (walked recursively) is a
//! shader; `#include "x.glsl"` resolves against the including file's folder first, then `glsl/include/`.
//!
//! Variants: a shader that is generic declares them in lines of the form
//! `// @variant NAME DEFINE=VALUE DEFINE2 ...` (a bare DEFINE is `DEFINE=1`); each variant is compiled with
//! those macro definitions and embedded as `<stem>_<NAME>`. A shader without such lines is embedded once, as
//! `<stem>`. Embedded names must be unique (the build fails otherwise), so file stems are unique across folders.
//!
//! Specialization constants: every `layout(constant_id = N) const TYPE NAME = DEFAULT;` of a shader, its
//! includes resolved textually (preprocessor conditionals are not evaluated: a declaration anywhere counts).
//! The build fails when one shader declares two constants with one id, or when one constant name has
//! different ids in different files: a name means one id everywhere.
//!
//! Generated (see `src/shaders.rs` for the types):
//! - `SHADERS`: every embedded shader as (name, SPIR-V bytes);
//! - per shader stem a module, e.g. `shaders::radix_onesweep`, with one `ShaderId` const per variant named in
//!   UPPER_SNAKE (`BALLOT`, `PARTITIONED_WIDE`; `SHADER` for a shader without variants), one `SpecId` const per
//!   specialization constant named as in GLSL (`WG_SIZE`, `KPT`, ...), and `SPEC_CONSTANTS` (all of them);
//! - per include that declares constants, a module under `shaders::include` (e.g. `shaders::include::common`)
//!   with its `SpecId` consts, for code that sets the constants of an include shared by several shaders;
//! - `ALL`: every `ShaderId`.
//!
//! A GLSL error fails the build with its file and line, as shaderc reports them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One `layout(constant_id = N) const TYPE NAME = DEFAULT;` declaration.
#[derive(Clone, Debug)]
struct SpecConst {
    id: u32,
    ty: String,
    name: String,
    default: String,
    /// Where it is declared, relative to `glsl/`, with the line.
    at: String,
}

/// One embedded shader variant.
struct Variant {
    /// The `@variant` name (`None`: the shader has no variants).
    name: Option<String>,
    defs: Vec<(String, String)>,
}

struct Shader {
    /// The path and the text are compiled only with `compile-shaders`.
    #[cfg_attr(not(feature = "compile-shaders"), allow(dead_code))]
    path: PathBuf,
    rel: String,
    stem: String,
    #[cfg_attr(not(feature = "compile-shaders"), allow(dead_code))]
    text: String,
    summary: String,
    variants: Vec<Variant>,
    consts: Vec<SpecConst>,
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let glsl = root.join("glsl");
    let include_dir = glsl.join("include");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let spirv_dir = root.join("spirv");
    println!("cargo:rerun-if-changed=glsl");
    println!("cargo:rerun-if-changed=spirv");
    println!("cargo:rerun-if-env-changed=VKSORT_WRITE_SPIRV");
    #[cfg(feature = "compile-shaders")]
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");
    let write_spirv = std::env::var_os("VKSORT_WRITE_SPIRV").is_some_and(|v| v == "1");

    let mut files = Vec::new();
    walk(&glsl, &mut files);
    files.sort();
    // Relative to `glsl/`, `/`-separated on every host (names in messages and in the SPIR-V's debug info).
    let rel = |p: &Path| {
        let parts: Vec<String> = p
            .strip_prefix(&glsl)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    };
    let mut errors = Vec::new();

    // Shaders, their variants and their specialization constants.
    let mut shaders = Vec::new();
    let mut includes = Vec::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "comp" && ext != "glsl" {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if !is_ident(&stem) {
            errors.push(format!(
                "{}: the file stem `{stem}` is no Rust identifier (lower snake case, not a keyword)",
                rel(path)
            ));
            continue;
        }
        let mut consts = Vec::new();
        scan_consts(
            path,
            &glsl,
            &include_dir,
            &mut BTreeSet::new(),
            &mut consts,
            &mut errors,
        );
        let text = std::fs::read_to_string(path).unwrap();
        let summary = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("//"))
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        // Header comments start with the file's name: `x.comp: what it does`.
        let file_name = path.file_name().unwrap().to_str().unwrap();
        let summary = summary
            .strip_prefix(file_name)
            .and_then(|s| s.strip_prefix(':'))
            .unwrap_or(summary)
            .trim()
            .to_string();
        if ext == "glsl" {
            includes.push((rel(path), stem, summary, consts));
            continue;
        }
        let mut variants: Vec<Variant> = text
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
                Variant {
                    name: Some(name),
                    defs,
                }
            })
            .collect();
        if variants.is_empty() {
            variants.push(Variant {
                name: None,
                defs: Vec::new(),
            });
        }
        shaders.push(Shader {
            path: path.clone(),
            rel: rel(path),
            stem,
            text,
            summary,
            variants,
            consts,
        });
    }

    // One id per constant within a shader, one id per name across all files.
    let mut by_name: BTreeMap<String, SpecConst> = BTreeMap::new();
    let all_consts = shaders
        .iter()
        .map(|s| (&s.rel, &s.consts))
        .chain(includes.iter().map(|(r, _, _, c)| (r, c)));
    for (file, consts) in all_consts {
        let mut ids: BTreeMap<u32, &SpecConst> = BTreeMap::new();
        let mut names: BTreeMap<&str, &SpecConst> = BTreeMap::new();
        for c in consts {
            if let Some(other) = ids.insert(c.id, c) {
                errors.push(format!(
                    "{file}: specialization constants {} ({}) and {} ({}) share constant_id {}",
                    other.name, other.at, c.name, c.at, c.id
                ));
            }
            if let Some(other) = names.insert(&c.name, c) {
                errors.push(format!(
                    "{file}: specialization constant {} declared twice ({} and {})",
                    c.name, other.at, c.at
                ));
            }
            match by_name.get(&c.name) {
                Some(first) if first.id != c.id => errors.push(format!(
                    "specialization constant {} has constant_id {} in {} but {} in {}: one name, one id in \
                     every shader",
                    c.name, first.id, first.at, c.id, c.at
                )),
                Some(_) => {}
                None => {
                    by_name.insert(c.name.clone(), c.clone());
                }
            }
        }
    }

    // Unique stems (modules) and embedded names.
    let mut stems: HashMap<&str, &str> = HashMap::new();
    let mut embedded: HashMap<String, String> = HashMap::new();
    for s in &shaders {
        if s.stem == "include" {
            errors.push(format!(
                "{}: the stem `include` is taken by the includes' module",
                s.rel
            ));
        }
        if let Some(other) = stems.insert(&s.stem, &s.rel) {
            errors.push(format!(
                "shaders {other} and {} have the same stem `{}`",
                s.rel, s.stem
            ));
        }
        let mut items: BTreeMap<String, String> = s
            .consts
            .iter()
            .map(|c| (c.name.clone(), format!("constant {}", c.name)))
            .collect();
        items.insert("SPEC_CONSTANTS".into(), "the constants' list".into());
        for v in &s.variants {
            let name = embedded_name(&s.stem, v);
            if let Some(other) = embedded.insert(name.clone(), s.rel.clone()) {
                errors.push(format!(
                    "embedded name {name} comes from both {other} and {}",
                    s.rel
                ));
            }
            let item = variant_const(v);
            if !is_const_ident(&item) {
                errors.push(format!(
                    "{}: variant `{}` gives no Rust const name (`{item}`)",
                    s.rel,
                    v.name.as_deref().unwrap_or("")
                ));
            }
            if let Some(what) = items.insert(item.clone(), format!("variant {name}")) {
                errors.push(format!(
                    "{}: the const {item} would name both {what} and variant {name}",
                    s.rel
                ));
            }
        }
    }
    let mut include_stems: HashMap<&str, &str> = HashMap::new();
    for (r, stem, _, _) in &includes {
        if let Some(other) = include_stems.insert(stem, r) {
            errors.push(format!(
                "includes {other} and {r} have the same stem `{stem}`"
            ));
        }
    }
    if !errors.is_empty() {
        panic!(
            "shader declarations are inconsistent:\n  {}",
            errors.join("\n  ")
        );
    }

    // The SPIR-V of every variant: compiled fresh (and compared with `spirv/`), or the shipped blobs.
    #[cfg(feature = "compile-shaders")]
    let (embed, stale) = {
        let fresh = compile_all(&shaders, &glsl, &out, &mut errors);
        let stale = if errors.is_empty() {
            drift(&fresh, &spirv_dir, write_spirv)
        } else {
            Vec::new()
        };
        let embed: Vec<(String, PathBuf)> = fresh
            .into_iter()
            .map(|(name, _)| {
                let path = out.join(format!("{name}.spv"));
                (name, path)
            })
            .collect();
        (embed, stale)
    };
    #[cfg(not(feature = "compile-shaders"))]
    let (embed, stale) = {
        if write_spirv {
            panic!("VKSORT_WRITE_SPIRV=1 needs the `compile-shaders` feature (`./dev spirv` turns it on)");
        }
        let names: Vec<String> = shaders
            .iter()
            .flat_map(|s| s.variants.iter().map(|v| embedded_name(&s.stem, v)))
            .collect();
        (
            shipped(&names, &spirv_dir, &mut errors),
            Vec::<String>::new(),
        )
    };
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
    let mut table = String::new();
    writeln!(table, "/// Every embedded shader: (name, SPIR-V bytes).").unwrap();
    writeln!(table, "pub static SHADERS: &[(&str, &[u8])] = &[").unwrap();
    for (name, path) in &embed {
        writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    writeln!(table, "];").unwrap();
    writeln!(
        table,
        "\n/// The shipped blobs under `spirv/` that differ from this build's compile of `glsl/` (`NAME.spv: \
         why`); always empty without the `compile-shaders` feature (nothing compiled to compare)."
    )
    .unwrap();
    writeln!(table, "#[allow(dead_code)]").unwrap();
    writeln!(table, "pub(crate) const STALE_SPIRV: &[&str] = &{stale:?};").unwrap();

    // The names.
    writeln!(table, "\n/// Every embedded shader's identifier.").unwrap();
    writeln!(table, "pub static ALL: &[ShaderId] = &[").unwrap();
    for s in &shaders {
        for v in &s.variants {
            writeln!(table, "    {}::{},", s.stem, variant_const(v)).unwrap();
        }
    }
    writeln!(table, "];").unwrap();
    for s in &shaders {
        writeln!(table, "\n/// `glsl/{}`: {}", s.rel, escape_doc(&s.summary)).unwrap();
        writeln!(table, "pub mod {} {{", s.stem).unwrap();
        writeln!(table, "    #[allow(unused_imports)]").unwrap();
        writeln!(table, "    use super::{{ShaderId, SpecId}};").unwrap();
        write_consts(&mut table, &s.consts);
        writeln!(
            table,
            "    /// Every specialization constant of `{}`, by id.",
            s.stem
        )
        .unwrap();
        let list: Vec<&str> = s.consts.iter().map(|c| c.name.as_str()).collect();
        writeln!(
            table,
            "    pub const SPEC_CONSTANTS: &[SpecId] = &[{}];",
            list.join(", ")
        )
        .unwrap();
        for v in &s.variants {
            let name = embedded_name(&s.stem, v);
            let doc = match &v.name {
                Some(n) if v.defs.is_empty() => format!("Variant `{n}`"),
                Some(n) => {
                    let defs: Vec<String> =
                        v.defs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("Variant `{n}` (`{}`)", defs.join(" "))
                }
                None => "The shader".to_string(),
            };
            writeln!(table, "    /// {doc}, embedded as `{name}`.").unwrap();
            writeln!(
                table,
                "    pub const {}: ShaderId = ShaderId::new({name:?}, SPEC_CONSTANTS);",
                variant_const(v)
            )
            .unwrap();
        }
        writeln!(table, "}}").unwrap();
    }
    writeln!(
        table,
        "\n/// The specialization constants of included files (`*.glsl`), for code that sets the constants of an \
         include\n/// several shaders share (ids are the same in every shader: the build checks)."
    )
    .unwrap();
    writeln!(table, "pub mod include {{").unwrap();
    for (r, stem, summary, consts) in &includes {
        if consts.is_empty() {
            continue;
        }
        writeln!(table, "    /// `glsl/{r}`: {}", escape_doc(summary)).unwrap();
        writeln!(table, "    pub mod {stem} {{").unwrap();
        writeln!(table, "        use crate::shaders::SpecId;").unwrap();
        let mut body = String::new();
        write_consts(&mut body, consts);
        for l in body.lines() {
            writeln!(table, "    {l}").unwrap();
        }
        writeln!(table, "    }}").unwrap();
    }
    writeln!(table, "}}").unwrap();
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

/// `#include "name"` from a file in `from_dir`: that folder first, then `glsl/include/`.
fn resolve_include(name: &str, from_dir: &Path, include_dir: &Path) -> Option<PathBuf> {
    [from_dir, include_dir]
        .iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Collects the specialization constants declared in `path` and (textually, each file once) its includes.
fn scan_consts(
    path: &Path,
    glsl: &Path,
    include_dir: &Path,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut Vec<SpecConst>,
    errors: &mut Vec<String>,
) {
    if !seen.insert(path.to_path_buf()) {
        return;
    }
    let rel = path
        .strip_prefix(glsl)
        .unwrap_or(path)
        .display()
        .to_string();
    let text = std::fs::read_to_string(path).unwrap();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap().trim();
        if let Some(rest) = code.strip_prefix("#include") {
            let name = rest
                .trim()
                .trim_matches(|c| c == '"' || c == '<' || c == '>');
            match resolve_include(name, path.parent().unwrap(), include_dir) {
                Some(p) => scan_consts(&p, glsl, include_dir, seen, out, errors),
                None => errors.push(format!(
                    "{rel}:{}: include {name} not found beside it or in glsl/include",
                    i + 1
                )),
            }
        } else if code.contains("constant_id") {
            match parse_const(code) {
                Some((id, ty, name, default)) => out.push(SpecConst {
                    id,
                    ty,
                    name,
                    default,
                    at: format!("{rel}:{}", i + 1),
                }),
                None => errors.push(format!(
                    "{rel}:{}: cannot read `{code}` (expected `layout(constant_id = N) const TYPE NAME = \
                     DEFAULT;` on one line)",
                    i + 1
                )),
            }
        }
    }
    out.sort_by_key(|c| c.id);
}

/// `layout(constant_id = N) const TYPE NAME = DEFAULT;` -> (N, TYPE, NAME, DEFAULT).
fn parse_const(code: &str) -> Option<(u32, String, String, String)> {
    let rest = code
        .strip_prefix("layout")?
        .trim_start()
        .strip_prefix('(')?;
    let (inside, rest) = rest.split_once(')')?;
    let (key, id) = inside.split_once('=')?;
    if key.trim() != "constant_id" {
        return None;
    }
    let id = id.trim().parse().ok()?;
    let rest = rest.trim().strip_prefix("const")?;
    let (decl, default) = rest.split_once('=')?;
    let mut words = decl.split_whitespace();
    let (ty, name) = (words.next()?, words.next()?);
    if words.next().is_some() || !is_const_ident(name) {
        return None;
    }
    let default = default.trim().strip_suffix(';')?.trim();
    Some((id, ty.into(), name.into(), default.into()))
}

fn write_consts(out: &mut String, consts: &[SpecConst]) {
    for c in consts {
        writeln!(
            out,
            "    /// `{} {}` = {} (constant_id {}, {}).",
            c.ty, c.name, c.default, c.id, c.at
        )
        .unwrap();
        writeln!(
            out,
            "    pub const {}: SpecId = SpecId::new({}, {:?});",
            c.name, c.id, c.name
        )
        .unwrap();
    }
}

fn embedded_name(stem: &str, v: &Variant) -> String {
    match &v.name {
        Some(n) => format!("{stem}_{n}"),
        None => stem.to_string(),
    }
}

fn variant_const(v: &Variant) -> String {
    match &v.name {
        Some(n) => n.to_uppercase(),
        None => "SHADER".into(),
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "unsafe", "use", "where", "while", "yield",
];

/// A lower-snake-case Rust identifier (module names).
fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// An UPPER_SNAKE Rust identifier (consts).
fn is_const_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn escape_doc(s: &str) -> String {
    s.replace('\n', " ")
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
