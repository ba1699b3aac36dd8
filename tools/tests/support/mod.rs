//! What the tools' tests that run the `vksort` binary share.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The `vksort` binary under test: `VKSORT_BIN` (scripts/gpu-run.sh sets it on the GPU machine, which has no
/// cargo), else the one cargo built.
pub fn bin() -> PathBuf {
    std::env::var_os("VKSORT_BIN")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vksort")))
}

/// A fresh, empty folder `<prefix>-<pid>-<name>` under cargo's temporary folder for tests.
pub fn tmp_dir(prefix: &str, name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
