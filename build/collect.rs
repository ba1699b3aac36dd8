//! Step 1, collect: every shader under `glsl/` (walked recursively), its `// @variant` lines and the
//! specialization constants it and its includes declare (textually: a declaration anywhere counts).

use crate::check::{is_const_ident, is_ident};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One `layout(constant_id = N) const TYPE NAME = DEFAULT;` declaration.
#[derive(Clone, Debug)]
pub struct SpecConst {
    pub id: u32,
    pub ty: String,
    pub name: String,
    pub default: String,
    /// Where it is declared, relative to `glsl/`, with the line.
    pub at: String,
}

/// One embedded shader variant.
pub struct Variant {
    /// The `@variant` name (`None`: the shader has no variants).
    pub name: Option<String>,
    /// Its macro definitions.
    pub defs: Vec<(String, String)>,
}

/// One shader (`*.comp`) and what it declares.
pub struct Shader {
    /// The path and the text are compiled only with `compile-shaders`.
    #[cfg_attr(not(feature = "compile-shaders"), allow(dead_code))]
    pub path: PathBuf,
    pub rel: String,
    pub stem: String,
    #[cfg_attr(not(feature = "compile-shaders"), allow(dead_code))]
    pub text: String,
    pub summary: String,
    pub variants: Vec<Variant>,
    pub consts: Vec<SpecConst>,
}

/// One include (`*.glsl`) and the constants it declares.
pub struct Include {
    pub rel: String,
    pub stem: String,
    pub summary: String,
    pub consts: Vec<SpecConst>,
    /// Its top-level `const uint NAME = LITERAL;` lines: the values the host shares with the shaders.
    pub host: Vec<HostConst>,
}

/// A top-level `const uint NAME = LITERAL;  // doc` of an include, generated for the host as a `u32`.
pub struct HostConst {
    pub name: String,
    pub value: u32,
    pub doc: String,
    pub at: String,
}

/// What `glsl/` holds, and what could not be read.
#[derive(Default)]
pub struct Tree {
    pub shaders: Vec<Shader>,
    pub includes: Vec<Include>,
    pub errors: Vec<String>,
}

/// Reads every `*.comp` and `*.glsl` below `glsl`.
pub fn read(glsl: &Path) -> Tree {
    let include_dir = glsl.join("include");
    let mut files = Vec::new();
    walk(glsl, &mut files);
    files.sort();
    let mut tree = Tree::default();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        read_file(path, glsl, &include_dir, &mut tree);
    }
    tree
}

/// `path` relative to `glsl/`, `/`-separated on every host (names in messages and in the SPIR-V's debug info).
pub fn rel(glsl: &Path, p: &Path) -> String {
    let parts: Vec<String> = p
        .strip_prefix(glsl)
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

fn read_file(path: &Path, glsl: &Path, include_dir: &Path, tree: &mut Tree) {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext != "comp" && ext != "glsl" {
        return;
    }
    let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
    if !is_ident(&stem) {
        tree.errors.push(format!(
            "{}: the file stem `{stem}` is no Rust identifier (lower snake case, not a keyword)",
            rel(glsl, path)
        ));
        return;
    }
    let mut consts = Vec::new();
    scan_consts(
        path,
        glsl,
        include_dir,
        &mut BTreeSet::new(),
        &mut consts,
        &mut tree.errors,
    );
    let text = std::fs::read_to_string(path).unwrap();
    let summary = summary(&text, path);
    if ext == "glsl" {
        let host = host_consts(&text, &rel(glsl, path));
        tree.includes.push(Include {
            rel: rel(glsl, path),
            stem,
            summary,
            consts,
            host,
        });
        return;
    }
    let variants = variants(&text);
    tree.shaders.push(Shader {
        path: path.to_path_buf(),
        rel: rel(glsl, path),
        stem,
        text,
        summary,
        variants,
        consts,
    });
}

/// The header comment's first line, without the file's name: `x.comp: what it does` -> `what it does`.
fn summary(text: &str, path: &Path) -> String {
    let first = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("//"))
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let file_name = path.file_name().unwrap().to_str().unwrap();
    first
        .strip_prefix(file_name)
        .and_then(|s| s.strip_prefix(':'))
        .unwrap_or(first)
        .trim()
        .to_string()
}

/// The `// @variant NAME DEFINE=VALUE DEFINE2 ...` lines (a bare DEFINE is `DEFINE=1`); one unnamed variant
/// where there are none.
fn variants(text: &str) -> Vec<Variant> {
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
    variants
}

/// The include's top-level `const uint NAME = 12u;` (decimal or hex) lines with their trailing comments.
fn host_consts(text: &str, rel: &str) -> Vec<HostConst> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("const uint ") else {
            continue;
        };
        let (code, doc) = rest.split_once("//").unwrap_or((rest, ""));
        let Some((name, value)) = code
            .trim()
            .strip_suffix(';')
            .and_then(|c| c.split_once('='))
        else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim().trim_end_matches('u'));
        let value = match value.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        };
        if let (Some(value), true) = (value, is_const_ident(name)) {
            out.push(HostConst {
                name: name.to_string(),
                value,
                doc: doc.trim().to_string(),
                at: format!("{rel}:{}", i + 1),
            });
        }
    }
    out
}

/// A variant's embedded name: `<stem>_<NAME>`, or `<stem>`.
pub fn embedded_name(stem: &str, v: &Variant) -> String {
    match &v.name {
        Some(n) => format!("{stem}_{n}"),
        None => stem.to_string(),
    }
}

/// A variant's Rust const name: its name in UPPER_SNAKE, or `SHADER`.
pub fn variant_const(v: &Variant) -> String {
    match &v.name {
        Some(n) => n.to_uppercase(),
        None => "SHADER".into(),
    }
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
pub fn resolve_include(name: &str, from_dir: &Path, include_dir: &Path) -> Option<PathBuf> {
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
