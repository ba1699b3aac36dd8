//! The library stays light: `cargo tree` of the root package's normal dependencies (what a renderer depending on
//! vksort builds) names none of the tools' crates, nor the examples' own. Skipped, with a note, where cargo cannot
//! be run (the GPU machine has no toolchain).

#[path = "../../tests/common/skip.rs"]
mod skip;
use std::path::Path;
use std::process::Command;

/// The command line's, the bench's, the plots' and the calibration cache's crates: tools/ only.
const TOOLS_ONLY: &[&str] = &[
    "clap",
    "plotters",
    "indicatif",
    "serde",
    "serde_json",
    "dirs",
];

/// The examples' and tests' own crates (root dev-dependencies: the particle renderer's PNG output).
const DEV_ONLY: &[&str] = &["png"];

#[test]
fn library_depends_on_no_tools_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = match Command::new(&cargo)
        .current_dir(&root)
        .args([
            "tree",
            "--offline",
            "-p",
            "vksort",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
    {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            return skip::skip(
                "cargo",
                &format!(
                    "`cargo tree --offline` failed ({}): {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                ),
            );
        }
        Err(e) => return skip::skip("cargo", &format!("cannot run {cargo:?} ({e})")),
    };
    let tree = String::from_utf8_lossy(&out.stdout);
    // One crate a line: "NAME vVERSION [(PATH)] [(*)]".
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.first() == Some(&"vksort"),
        "unexpected `cargo tree` output:\n{tree}"
    );
    let found: Vec<&str> = TOOLS_ONLY
        .iter()
        .copied()
        .filter(|c| names.contains(c))
        .collect();
    assert!(
        found.is_empty(),
        "the vksort library depends on {found:?}, which belong in tools/:\n{tree}"
    );
    let found: Vec<&str> = DEV_ONLY
        .iter()
        .copied()
        .filter(|c| names.contains(c))
        .collect();
    assert!(
        found.is_empty(),
        "the vksort library depends on {found:?}, which belong in [dev-dependencies]:\n{tree}"
    );
}
