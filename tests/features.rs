//! Test files that need a feature (`required-features` in Cargo.toml) are left out by a `cargo test` without it;
//! this test names each one left out through the visible skip mechanism (`SKIP ... [feature-NAME]`), so a
//! feature-less run says what it did not test. With every feature on it checks that each declared file exists.

#[path = "common/skip.rs"]
mod skip;

/// (test name, its required features) for every `[[test]]` of the package's Cargo.toml.
fn declared() -> Vec<(String, Vec<String>)> {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_test = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_test = line == "[[test]]";
            if in_test {
                out.push((String::new(), Vec::new()));
            }
        } else if let (true, Some(last)) = (in_test, out.last_mut()) {
            let value = |l: &str| l.split_once('=').map(|(_, v)| v.trim().to_string());
            if line.starts_with("name") {
                last.0 = value(line).unwrap().trim_matches('"').to_string();
            } else if line.starts_with("required-features") {
                let v = value(line).unwrap();
                last.1 = v
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|f| f.trim().trim_matches('"').to_string())
                    .filter(|f| !f.is_empty())
                    .collect();
            }
        }
    }
    out
}

fn enabled(feature: &str) -> bool {
    match feature {
        "diagnostics" => cfg!(feature = "diagnostics"),
        "wgpu" => cfg!(feature = "wgpu"),
        "compile-shaders" => cfg!(feature = "compile-shaders"),
        other => panic!("Cargo.toml names a feature this test does not know: {other}"),
    }
}

#[test]
fn test_files_left_out_are_named() {
    let tests = declared();
    assert!(tests.len() >= 3, "no [[test]] entries read from Cargo.toml");
    for (name, features) in &tests {
        let path = format!("{}/tests/{name}.rs", env!("CARGO_MANIFEST_DIR"));
        assert!(
            std::path::Path::new(&path).exists(),
            "Cargo.toml declares a test with no file: {path}"
        );
        for f in features.iter().filter(|f| !enabled(f)) {
            skip::skip(
                &format!("feature-{f}"),
                &format!("tests/{name}.rs left out: it needs `--features {f}`"),
            );
        }
    }
}
