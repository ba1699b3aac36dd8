//! A new user's first minute (issue 31): `vksort sort` picks what the library picks (no calibration), the
//! pipeline cache survives a damaged or foreign file (a warning, and the run succeeds), size suffixes mean what
//! the help says, and `--print`'s output reads back with `--input --text`.
//!
//! The binary is `VKSORT_BIN` when set, else the one cargo built. Children run with `VKSORT_VALIDATION=1`, one
//! at a time, and fail the test on any validation message.
mod support;
use support::bin;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use vksort::sort::{KeyType, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{Context, ContextOptions};

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn tmp(name: &str) -> PathBuf {
    support::tmp_dir("first-minute", name)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `vksort ARGS` with its caches (calibration and pipelines) under `cache`.
fn vksort(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new(bin())
        .args(args)
        .env("VKSORT_VALIDATION", "1")
        .env("VKSORT_CACHE_DIR", cache)
        .env_remove("VKSORT_PIPELINE_CACHE_DIR")
        .envs(env.iter().copied())
        .output()
        .expect("spawn vksort");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !r.stderr.contains("[vksort validation]"),
        "validation errors in `vksort {}`:\n{}",
        args.join(" "),
        r.stderr
    );
    r
}

/// The one pipeline-cache file under `cache/pipelines`.
fn cache_file(cache: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(cache.join("pipelines"))
        .expect("a pipelines directory")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_damaged_or_foreign_pipeline_cache_is_ignored_with_a_warning() {
    let cache = tmp("cache");
    let args = [
        "-v", "sort", "--random", "3000", "--values", "u32", "--check",
    ];
    // First run: a miss, then the file is written.
    let r = vksort(&cache, &args, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("pipeline cache miss"), "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    let file = cache_file(&cache);
    let good = std::fs::read(&file).unwrap();
    vksort_tools::cache::decode(&good).expect("a sound cache file");
    // Second run: a hit, nothing to warn about.
    let r = vksort(&cache, &args, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("pipeline cache hit"), "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);

    // Damaged: bytes flipped in the middle, then cut short, then garbage: each run succeeds with a warning and
    // leaves a sound file behind.
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    let damaged = [
        flipped,
        good[..good.len() - 7].to_vec(),
        b"not a cache".to_vec(),
    ];
    for bytes in damaged {
        std::fs::write(&file, &bytes).unwrap();
        let r = vksort(&cache, &args, &[]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stderr.contains("check passed"), "{}", r.stderr);
        assert!(
            r.stderr.contains("warning: ignoring the pipeline cache"),
            "{}",
            r.stderr
        );
        let rewritten = std::fs::read(&file).unwrap();
        vksort_tools::cache::decode(&rewritten).expect("rewritten sound");
    }

    // Foreign: a sound vksort file whose driver header names another device.
    let payload = vksort_tools::cache::decode(&good).unwrap().to_vec();
    let mut foreign = payload.clone();
    if foreign.len() < 32 {
        foreign.resize(32, 0);
        foreign[0..4].copy_from_slice(&32u32.to_le_bytes());
        foreign[4..8].copy_from_slice(&1u32.to_le_bytes());
    }
    foreign[8..12].copy_from_slice(&0xdeadu32.to_le_bytes());
    foreign[16..32].copy_from_slice(&[0xab; 16]);
    std::fs::write(&file, vksort_tools::cache::encode(&foreign)).unwrap();
    let r = vksort(&cache, &args, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: ignoring the pipeline cache")
            && r.stderr.contains("another device or driver"),
        "{}",
        r.stderr
    );

    // Turned off: no file is read or written.
    let off = tmp("off");
    let r = vksort(&off, &args, &[("VKSORT_PIPELINE_CACHE_DIR", "off")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!off.join("pipelines").exists());
    let _ = std::fs::remove_dir_all(&cache);
    let _ = std::fs::remove_dir_all(&off);
}

/// `[auto -> NAME]` of the CLI's report line.
fn reported(stdout: &str) -> Option<String> {
    let tail = stdout.split("[auto -> ").nth(1)?;
    Some(tail.split(']').next()?.to_string())
}

#[test]
fn the_cli_and_the_library_choose_the_same_algorithm() {
    let cache = tmp("choice");
    let ctx: Arc<Context> = Context::new(ContextOptions::from_env()).expect("context");
    let cases: &[(&str, KeyType)] = &[
        ("u32", KeyType::U32),
        ("f32", KeyType::F32),
        ("u64", KeyType::U64),
        ("u128", KeyType::U128),
    ];
    for &(name, key) in cases {
        for (vname, value) in [("none", ValueType::None), ("u32", ValueType::U32)] {
            for n in [5u64, 3000, 70_000] {
                let config = SortConfig {
                    key,
                    value,
                    max_n: n,
                    ..Default::default()
                };
                let (library, _) = Sorter::builder(&ctx, config)
                    .choose(n)
                    .expect("the library chooses");
                let ns = n.to_string();
                let r = vksort(
                    &cache,
                    &["sort", "--random", &ns, "--keys", name, "--values", vname],
                    &[],
                );
                assert_eq!(r.code, 0, "{}", r.stderr);
                let cli =
                    reported(&r.stdout).unwrap_or_else(|| panic!("no choice in {}", r.stdout));
                assert_eq!(
                    cli,
                    library.name(),
                    "{n} {name} keys, values {vname}: the CLI chose {cli}, the library {}",
                    library.name()
                );
                assert_ne!(library, SortAlgorithm::Auto);
            }
        }
    }
    // Nothing was calibrated on the way.
    assert!(
        !std::fs::read_dir(&cache).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("calibration")),
        "the default sort calibrated the model"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn suffixes_and_print_round_trip() {
    let cache = tmp("suffix");
    for (arg, n) in [("2K", 2000), ("2Ki", 2048), ("1_500", 1500), ("2^11", 2048)] {
        let r = vksort(&cache, &["sort", "--random", arg], &[]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.starts_with(&format!("sorted {n} u32 keys")),
            "--random {arg}: {}",
            r.stdout
        );
    }
    // --print writes `key value` lines; --input --text --values reads them back (already sorted, stable).
    let r = vksort(
        &cache,
        &[
            "sort", "--random", "500", "--keys", "u64", "--values", "u32", "--print",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let file = cache.join("printed.txt");
    std::fs::write(&file, &r.stdout).unwrap();
    let r2 = vksort(
        &cache,
        &[
            "sort",
            "--input",
            file.to_str().unwrap(),
            "--text",
            "--keys",
            "u64",
            "--values",
            "u32",
            "--print",
            "--check",
        ],
        &[],
    );
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    assert_eq!(r2.stdout, r.stdout, "a sorted input sorts to itself");
    // One element: no GPU time claimed.
    let r = vksort(&cache, &["sort", "--random", "1"], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("no GPU work"), "{}", r.stdout);
    let _ = std::fs::remove_dir_all(&cache);
}
