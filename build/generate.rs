//! Step 4, generate: `OUT_DIR/shaders.rs`, included by `src/shaders.rs`: the embedded blobs (`SHADERS`), the drift
//! lines (`STALE_SPIRV`), every shader id (`ALL`), a module per shader stem with its variants' `ShaderId`s and its
//! specialization constants' `SpecId`s, and a module per include under `include` with its constants.

use crate::collect::{embedded_name, variant_const, Include, Shader, SpecConst};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes `out/shaders.rs`.
pub fn write(
    out: &Path,
    embed: &[(String, PathBuf)],
    stale: &[String],
    shaders: &[Shader],
    includes: &[Include],
) {
    let mut table = String::new();
    blob_table(&mut table, embed, stale);
    shader_ids(&mut table, shaders);
    for s in shaders {
        shader_module(&mut table, s);
    }
    include_modules(&mut table, includes);
    std::fs::write(out.join("shaders.rs"), table).unwrap();
}

fn blob_table(table: &mut String, embed: &[(String, PathBuf)], stale: &[String]) {
    writeln!(table, "/// Every embedded shader: (name, SPIR-V bytes).").unwrap();
    writeln!(table, "pub static SHADERS: &[(&str, &[u8])] = &[").unwrap();
    for (name, path) in embed {
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
}

fn shader_ids(table: &mut String, shaders: &[Shader]) {
    writeln!(table, "\n/// Every embedded shader's identifier.").unwrap();
    writeln!(table, "pub static ALL: &[ShaderId] = &[").unwrap();
    for s in shaders {
        for v in &s.variants {
            writeln!(table, "    {}::{},", s.stem, variant_const(v)).unwrap();
        }
    }
    writeln!(table, "];").unwrap();
}

/// `pub mod <stem>`: the shader's constants, their list and one `ShaderId` per variant.
fn shader_module(table: &mut String, s: &Shader) {
    writeln!(table, "\n/// `glsl/{}`: {}", s.rel, escape_doc(&s.summary)).unwrap();
    writeln!(table, "pub mod {} {{", s.stem).unwrap();
    writeln!(table, "    #[allow(unused_imports)]").unwrap();
    writeln!(table, "    use super::{{ShaderId, SpecId}};").unwrap();
    write_consts(table, &s.consts);
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
                let defs: Vec<String> = v.defs.iter().map(|(k, v)| format!("{k}={v}")).collect();
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

fn include_modules(table: &mut String, includes: &[Include]) {
    writeln!(
        table,
        "\n/// What included files (`*.glsl`) declare for the host: their specialization constants, for code that \
         sets the constants\n/// of an include several shaders share (ids are the same in every shader: the build \
         checks), and their\n/// top-level `const uint` values (control words, flags, key kinds: one source for \
         GLSL and Rust)."
    )
    .unwrap();
    writeln!(table, "pub mod include {{").unwrap();
    for i in includes {
        let (r, stem, summary, consts) = (&i.rel, &i.stem, &i.summary, &i.consts);
        if consts.is_empty() && i.host.is_empty() {
            continue;
        }
        writeln!(table, "    /// `glsl/{r}`: {}", escape_doc(summary)).unwrap();
        writeln!(table, "    #[allow(dead_code, unused_imports)]").unwrap();
        writeln!(table, "    pub mod {stem} {{").unwrap();
        writeln!(table, "        use crate::shaders::SpecId;").unwrap();
        let mut body = String::new();
        write_consts(&mut body, consts);
        for h in &i.host {
            let doc = if h.doc.is_empty() {
                String::new()
            } else {
                format!("{}; ", escape_doc(&h.doc))
            };
            writeln!(body, "    /// `{}` ({doc}`{}`).", h.name, h.at).unwrap();
            writeln!(body, "    pub const {}: u32 = {};", h.name, h.value).unwrap();
        }
        for l in body.lines() {
            writeln!(table, "    {l}").unwrap();
        }
        writeln!(table, "    }}").unwrap();
    }
    writeln!(table, "}}").unwrap();
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

/// One doc line of GLSL comment text: brackets escaped (`out[0]` is no intra-doc link).
fn escape_doc(s: &str) -> String {
    s.replace('\n', " ").replace('[', "\\[").replace(']', "\\]")
}
