//! Step 2, check: a constant name means one `constant_id` everywhere, one id one constant per shader, and
//! stems, embedded names and generated const names are unique Rust identifiers.

use crate::collect::{embedded_name, variant_const, SpecConst, Tree};
use std::collections::{BTreeMap, HashMap};

/// Every inconsistency of the declarations, one line each.
pub fn consistency(tree: &Tree) -> Vec<String> {
    let mut errors = Vec::new();
    constant_ids(tree, &mut errors);
    unique_names(tree, &mut errors);
    errors
}

/// One id per constant within a shader, one id per name across all files.
fn constant_ids(tree: &Tree, errors: &mut Vec<String>) {
    let mut by_name: BTreeMap<String, SpecConst> = BTreeMap::new();
    let all_consts = tree
        .shaders
        .iter()
        .map(|s| (&s.rel, &s.consts))
        .chain(tree.includes.iter().map(|i| (&i.rel, &i.consts)));
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
}

/// Unique stems (modules) and embedded names.
fn unique_names(tree: &Tree, errors: &mut Vec<String>) {
    let mut stems: HashMap<&str, &str> = HashMap::new();
    let mut embedded: HashMap<String, String> = HashMap::new();
    for s in &tree.shaders {
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
    for i in &tree.includes {
        let (r, stem) = (&i.rel, &i.stem);
        if let Some(other) = include_stems.insert(stem, r) {
            errors.push(format!(
                "includes {other} and {r} have the same stem `{stem}`"
            ));
        }
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "unsafe", "use", "where", "while", "yield",
];

/// A lower-snake-case Rust identifier (module names).
pub fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// An UPPER_SNAKE Rust identifier (consts).
pub fn is_const_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}
