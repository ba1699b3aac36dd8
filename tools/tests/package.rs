//! The package a renderer depends on builds and works outside this repository (docs/build.md):
//!
//! - `external_crate_builds_against_the_package`: `cargo package -p vksort`, the `.crate` unpacked in a
//!   temporary folder, a small external crate (tools/tests/external/app.rs) depending on it by path, built with
//!   plain `cargo build --release` (no feature, no `SHADERC_LIB_DIR`, none of this repository's cargo
//!   configuration, a fresh target folder) and run on the default device (lavapipe without a GPU; under
//!   validation with `VKSORT_VALIDATION=1`): it sorts keys and pairs and checks them against a CPU sort. It fails
//!   when the package lacks a file the build needs, or holds files beyond the library's.
//! - `library_builds_with_rust_version`: the library builds with the `rust-version` Cargo.toml declares (the
//!   toolchain installed through rustup when missing) and the locked dependencies.
//!
//! The package's size and the dependent's clean build time are written straight to stderr (libtest captures
//! only `print!`/`eprintln!`), so CI logs show them. Skipped, with a note, where cargo cannot be run (the GPU
//! machine has no toolchain). Both tests run cargo builds; a lock keeps them from running at once.

#[path = "../../tests/common/skip.rs"]
mod skip;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

/// The external crate's source, compiled in so the test executable needs no file of the repository.
const APP: &str = include_str!("external/app.rs");

/// The top-level entries a package may hold: the library (build/, src/, glsl/, spirv/), its manifest, lock
/// file and VCS note (cargo's), the licenses, the package README and the changelog.
const PACKAGE_ENTRIES: &[&str] = &[
    ".cargo_vcs_info.json",
    "CHANGELOG.md",
    "Cargo.lock",
    "Cargo.toml",
    "Cargo.toml.orig",
    "LICENSE-APACHE",
    "LICENSE-MIT",
    "build",
    "docs",
    "glsl",
    "spirv",
    "src",
];

static BUILDS: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A direct write to stderr: shown in the log even when the test passes.
fn note(s: &str) {
    let _ = writeln!(std::io::stderr(), "{s}");
}

/// False (with a note) where cargo cannot be run.
fn cargo_runs() -> bool {
    match Command::new(cargo()).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            skip::skip("cargo", &format!("cannot run cargo ({:?})", cargo()));
            false
        }
    }
}

/// A command with none of the environment that `cargo test` or this repository set: no `SHADERC_LIB_DIR`, no
/// `CARGO_*` but cargo's home, registry and network settings, no `RUSTFLAGS`; as a new user's shell has it.
fn clean_command(program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(dir);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        let keep = k == "CARGO_HOME"
            || k.starts_with("CARGO_NET_")
            || k.starts_with("CARGO_HTTP_")
            || k.starts_with("CARGO_REGISTRIES_");
        let drop = (k.starts_with("CARGO") && !keep)
            || k.starts_with("RUSTFLAGS")
            || k == "RUSTDOCFLAGS"
            || k == "RUSTC"
            || k == "RUSTC_WRAPPER"
            || k == "RUSTC_WORKSPACE_WRAPPER"
            || k.starts_with("SHADERC_")
            || k == "VKSORT_WRITE_SPIRV";
        if drop {
            c.env_remove(&k);
        }
    }
    c
}

fn run(c: &mut Command, what: &str) -> String {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{text}",
        out.status
    );
    text
}

/// A temporary folder outside the repository (so none of its `.cargo/config.toml` applies), emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vksort-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn external_crate_builds_against_the_package() {
    if !cargo_runs() {
        return;
    }
    let _lock = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let root = root();
    let work = scratch("package");

    // The package, as `cargo publish` would upload it (not verified here: the external crate's build is the
    // verification, from the unpacked .crate and without this repository's configuration).
    let pkg_target = work.join("package-target");
    run(
        Command::new(cargo()).current_dir(&root).args([
            "package",
            "-p",
            "vksort",
            "--allow-dirty",
            "--no-verify",
            "--target-dir",
            pkg_target.to_str().unwrap(),
        ]),
        "cargo package -p vksort",
    );
    let crate_file = std::fs::read_dir(pkg_target.join("package"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "crate"))
        .expect("cargo package wrote no .crate");
    let crate_bytes = std::fs::metadata(&crate_file).unwrap().len();
    run(
        Command::new("tar")
            .arg("-xzf")
            .arg(&crate_file)
            .arg("-C")
            .arg(&work),
        "tar -xzf",
    );
    let unpacked = work.join(crate_file.file_stem().unwrap());
    let mut unpacked_bytes = 0u64;
    let mut files = 0usize;
    let mut stack = vec![unpacked.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                unpacked_bytes += e.metadata().unwrap().len();
                files += 1;
            }
        }
    }
    let mut extra: Vec<String> = std::fs::read_dir(&unpacked)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !PACKAGE_ENTRIES.contains(&n.as_str()))
        .collect();
    extra.sort();
    assert!(
        extra.is_empty(),
        "the package holds more than the library: {extra:?} (Cargo.toml's `include`)"
    );
    note(&format!(
        "package: {} is {:.2} MiB ({files} files, {:.1} MiB unpacked)",
        crate_file.file_name().unwrap().to_string_lossy(),
        crate_bytes as f64 / (1 << 20) as f64,
        unpacked_bytes as f64 / (1 << 20) as f64
    ));

    // The external crate: its own workspace, a fresh target folder. The workspace's Cargo.lock seeds its lock so
    // that it builds the dependency versions this repository tests (cargo drops the entries it does not need).
    let app = work.join("app");
    std::fs::create_dir_all(app.join("src")).unwrap();
    std::fs::write(
        app.join("Cargo.toml"),
        format!(
            "[package]\nname = \"vksort-external\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = \
             false\n\n[dependencies]\nvksort = {{ path = {:?} }}\n\n# Not a member of any enclosing \
             workspace.\n[workspace]\n",
            unpacked.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(app.join("src/main.rs"), APP).unwrap();
    std::fs::copy(root.join("Cargo.lock"), app.join("Cargo.lock")).unwrap();
    let target = work.join("app-target");
    let t = Instant::now();
    run(
        clean_command(cargo(), &app)
            .args(["build", "--release"])
            .env("CARGO_TARGET_DIR", &target),
        "cargo build --release of the external crate against the packaged vksort",
    );
    let build_s = t.elapsed().as_secs_f64();
    note(&format!(
        "package: the external crate's clean `cargo build --release` against the packaged vksort took {build_s:.1} s"
    ));

    let exe = target.join("release/vksort-external");
    let mut c = clean_command(&exe, &app);
    if let Some(v) = std::env::var_os("VKSORT_VALIDATION") {
        c.env("VKSORT_VALIDATION", v);
    }
    let out = run(&mut c, "the external crate");
    note(&format!("package: {}", out.trim().replace('\n', "; ")));
    assert!(out.contains("external crate: ok"), "{out}");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn library_builds_with_rust_version() {
    if !cargo_runs() {
        return;
    }
    let root = root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let msrv = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("rust-version = "))
        .map(|v| v.trim_matches('"').to_string())
        .expect("Cargo.toml declares no rust-version");
    if std::env::var_os("VKSORT_SKIP_MSRV").is_some_and(|v| v == "1") {
        skip::skip("msrv", "VKSORT_SKIP_MSRV=1");
        return;
    }
    let Ok(rustup) = Command::new("rustup").arg("--version").output() else {
        skip::skip("msrv", &format!("no rustup to install Rust {msrv} with"));
        return;
    };
    assert!(rustup.status.success(), "rustup --version failed");
    let _lock = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    run(
        clean_command("rustup", &root).args([
            "toolchain",
            "install",
            &msrv,
            "--profile",
            "minimal",
        ]),
        "rustup toolchain install (set VKSORT_SKIP_MSRV=1 where no toolchain can be downloaded)",
    );
    // Its own target folder, kept between runs (the toolchains' artifacts do not mix); the library alone, no
    // feature: what a dependent builds.
    let t = Instant::now();
    run(
        clean_command("rustup", &root)
            .args(["run", &msrv, "cargo", "build", "-p", "vksort", "--locked"])
            .env("CARGO_TARGET_DIR", root.join("target/msrv")),
        &format!("cargo {msrv} build -p vksort --locked"),
    );
    note(&format!(
        "msrv: the library builds with Rust {msrv} ({:.1} s)",
        t.elapsed().as_secs_f64()
    ));
}
