//! Skips that CI can see. libtest captures `print!`/`eprint!` of a passing test, so a skip noted that way reads
//! "ok"; [`skip`] writes to the process's stderr directly (not captured), appends the line to the file
//! `VKSORT_SKIP_LOG` names (`./dev test` sets it and lists the skips at the end), and fails the test instead
//! when `VKSORT_REQUIRE` (comma-separated; `all` for every one) names the missing capability.
//!
//! Shared by the library's tests (`tests/common/mod.rs`) and the tools' (`#[path]` include): std only.
#![allow(dead_code)]

use std::io::Write;

/// Whether `VKSORT_REQUIRE` names `capability` (or `all`).
pub fn required(capability: &str) -> bool {
    std::env::var("VKSORT_REQUIRE").is_ok_and(|v| {
        v.split(',')
            .map(str::trim)
            .any(|c| c == capability || c == "all")
    })
}

/// Notes that the calling test skips a check for want of `capability` (`int64`, `renderdoc`, ...), saying
/// `why`; panics instead when the capability is required. The caller then skips the check (`return skip(..)`).
pub fn skip(capability: &str, why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed)")
        .to_string();
    assert!(
        !required(capability),
        "{test}: VKSORT_REQUIRE names `{capability}`, which is missing: {why}"
    );
    let line = format!("SKIP {test} [{capability}]: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os("VKSORT_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}
