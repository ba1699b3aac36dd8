//! The documentation's commands and code blocks are tests: every fenced block of README.md, docs/*.md and
//! python/README.md is listed in [`BLOCKS`] with what checks it, and each command line of a shell block with
//! what runs it. `vksort` commands run here, as written (`./dev vksort ...` and `vksort ...` through the built
//! binary), on small input files made for them; Rust blocks are the crate's doctests; the Python lines run in
//! python/tests/test_docs.py; a block that cannot run here says why. A new block, a new command line or a
//! listed one that is gone fails the test, so the list and the docs move together. The commands written inline
//! in the prose are listed the same way in [`PROSE`].

#[path = "../../tests/common/skip.rs"]
mod skip;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{bin, tmp_dir};

/// What checks a block.
enum How {
    /// A shell block: each command line (comments and blank lines aside) with what runs it.
    Lines(&'static [(&'static str, Line)]),
    /// Compiled and run as a doctest of the library (the file is included in its docs).
    Doctest,
    /// A whole program (its own `fn main`) that runs as a doctest, not `no_run`: `cargo test` runs the block
    /// as written and its assertions are the check (the doctest fails where they fail).
    Program,
    /// Text (a layout, a sample of output): nothing to run.
    Text,
    /// Not run here, and why (what covers it instead).
    Why(&'static str),
    /// Checked by a function of this file.
    Check(fn(&str)),
}

/// What runs one command line.
enum Line {
    /// The line's `vksort` commands run here as written (`;` separates several).
    Run,
    /// These `vksort` argument lists run here instead, and why.
    RunAs(&'static [&'static [&'static str]], &'static str),
    /// Not run here, and why.
    Why(&'static str),
}

use How::*;
use Line::{Run, RunAs};

/// Every fenced block: (file, the block's first line, how it is checked).
const BLOCKS: &[(&str, &str, How)] = &[
    ("README.md", "./dev demo", Lines(&[
        ("./dev demo", Run),
        ("./dev test", Line::Why("CI's own command (.ci/run runs it)")),
    ])),
    ("README.md", "pip install ./python", Lines(&[
        ("pip install ./python", Line::Why("./dev test installs the package into target/py-venv before its Python tests")),
        ("python -c 'import numpy as np, vksort; a = np.random.rand(", Line::Why("python/tests/test_docs.py runs it")),
        ("python -c 'import numpy as np, vksort; a = np.random.randint", Line::Why("python/tests/test_docs.py runs it")),
        ("python -c 'import pandas as pd", Line::Why("python/tests/test_docs.py runs it")),
        ("python examples/python/dask_sort.py", Line::Why(
            "python/tests/test_pandas_dask.py runs the example on two worker processes (20,000 rows, --check)")),
    ])),
    ("README.md", "// A slice in, sorted on the best Vulkan device", Doctest),
    ("README.md", "./dev vksort sort --random 1M", Lines(&[
        ("./dev vksort sort --random 1M --keys f32 --values u32 --check", Run),
        ("./dev vksort sort --input depths.bin --keys f32 --output sorted.bin", Run),
        ("./dev vksort bench --sizes 16,20,24", Line::Why(
            "a timing sweep of every algorithm (minutes on lavapipe); tools/tests/cli.rs runs bench at small sizes")),
    ])),
    ("README.md", "vksort sort --random 16M", Lines(&[
        ("vksort sort --random 16M --keys f32 --values u32 --check", RunAs(
            &[&["sort", "--random", "1M", "--keys", "f32", "--values", "u32", "--check"]],
            "16M keys take 11 s on lavapipe: the same command at 1M")),
        ("vksort scan --algo lookback --input data.bin --output prefix.bin", Run),
        ("vksort compact --input data.bin --output kept.bin --range 100..200", Run),
        ("vksort bench --sizes 16,20,24,28 --compare cub.csv --explain", Line::Why(
            "2^28 keys and CUB's CSV: the GPU machine's (scripts/gpu-run.sh bench)")),
        ("vksort calibrate; vksort info; vksort demo", RunAs(
            &[&["info"], &["demo"]],
            "calibrate: tools/tests/cli.rs runs it (and `calibrate --show`)")),
        ("vksort sort --random 1M --keys f32 --capture sort.rdc", Line::Why(
            "needs RenderDoc's library (tools/tests/capture.rs runs --capture where it is installed)")),
    ])),
    ("README.md", "use ash::vk;", Doctest),
    ("README.md", "cargo run --release --example particles", Lines(&[
        ("cargo run --release --example particles", Line::Why(
            "a million particles for 100 frames at 1080p (a GPU's work); tests/particles.rs renders the same scene \
             with 3,000 and checks the picture")),
    ])),
    ("README.md", "build/            the build script", Text),
    ("docs/architecture.md", "Scratch (binding LB_BINDING", Text),
    ("docs/c-api.md", "/* 1. Before vkCreateDevice", Why(
        "a fragment (`...`); examples/c/sort.c is the whole program, compiled and run by capi/tests/c_api.rs \
         c_example_sorts")),
    ("docs/crate-readme.md", "[dependencies]", Check(dependency_line)),
    ("docs/crate-readme.md", "use std::sync::Arc;", Doctest),
    ("docs/first-minute.md", "let ctx = vksort::Context::new(vksort::ContextOptions {", Why(
        "a fragment (`path`, `config` and `log` are the reader's); tests/pipeline_cache.rs makes the same calls")),
    ("docs/first-minute.md", "vksort: debug: pipeline cache hit", Text),
    ("docs/recording.md", "use ash::vk;", Program),
    ("docs/recording.md", "use ash::vk;", Doctest),
    ("docs/wgpu.md", "let (device, queue) = vksort::wgpu::request_device", Why(
        "a fragment of a renderer's frame (its adapter, buffers and encoders); examples/wgpu_sort.rs is the whole \
         program, and tests/wgpu.rs runs it")),
    ("python/README.md", "pip install ./python", Lines(&[
        ("pip install ./python", Line::Why("./dev test installs the package into target/py-venv")),
        ("maturin build --release -m python/Cargo.toml", Line::Why(
            "./dev test builds the same package with `maturin develop`; a wheel file is not needed here")),
    ])),
    ("python/README.md", "import numpy as np, pandas as pd, vksort", Why("python/tests/test_docs.py runs it")),
];

/// Every command written inline in the prose of the same files (a backticked span that starts with `./dev`,
/// `cargo`, `vksort`, `python`, `pip`, `bash` or `maturin`, whitespace collapsed) with what runs it: the exact
/// text, run here or said why not. docs/tuning.md is left out: it records what was run and measured, with
/// dates (history, not instructions).
const PROSE: &[(&str, Line)] = &[
    ("./dev demo", Line::Why("the README's first block runs it (BLOCKS)")),
    ("./dev mutants", Line::Why("a rebuild per mutant, minutes: run by hand; scripts/mutants.sh checks that each mutant applies once")),
    ("./dev spirv", Line::Why("rewrites the committed spirv/: the `compile-shaders` build's drift check compares them instead")),
    ("./dev test", Line::Why("CI's own command (.ci/run runs it)")),
    ("./dev test --help", Line::Why("`dev` first installs what the machine lacks; the usage text is the script's own heredoc")),
    ("./dev vksort ...", Line::Why("a form with a placeholder")),
    ("./dev vksort ARGS", Line::Why("a form with a placeholder")),
    ("./dev vksort info", Run),
    ("bash scripts/gpu-run.sh tests bench", Line::Why("the GPU machine's script: no GPU here (BENCHMARKS.md, How to reproduce)")),
    ("bash scripts/gpu-run.sh table", Line::Why("the GPU machine's script: no GPU here (BENCHMARKS.md, Against CUB 3.5)")),
    ("cargo +1.80 build -p vksort --locked", Line::Why("tools/tests/package.rs builds the package with its minimum Rust")),
    ("cargo build", Line::Why("./dev test builds the workspace")),
    ("cargo build --release", Line::Why("./dev test builds the workspace in release")),
    ("cargo build --release -p vksort-capi", Line::Why("./dev test builds it; capi/tests/c_api.rs links examples/c/sort.c against its static library")),
    ("cargo build -p vksort", Line::Why("tools/tests/package.rs builds the packaged crate alone, as a dependent does")),
    ("cargo doc --open", Line::Why("opens a browser; the docs' Rust examples run as doctests")),
    ("cargo install --path tools", Line::Why("installs into ~/.cargo/bin; it builds the same binary tools/tests/cli.rs runs")),
    ("cargo package -p vksort", Line::Why("tools/tests/package.rs packages the crate and builds a dependent from it")),
    ("cargo run --example ...", Line::Why("a form with a placeholder")),
    ("cargo run --release --example creation", Line::Why("the example builds in ./dev test; its figures need a GPU (scripts/gpu-run.sh creation)")),
    ("cargo run --release --features wgpu --example wgpu_sort -- --n 1048576", Line::Why(
        "tests/wgpu.rs runs the example's program in-process at 100,003 and 1,000 keys")),
    ("cargo run --release -p vksort-tools --bin vksort -- ARGS", Line::Why("a form with a placeholder")),
    ("cargo test", Line::Why("./dev test runs the workspace's tests")),
    ("cargo test --workspace", Line::Why("./dev test runs it (in release)")),
    ("cargo tree -p vksort -e normal,build", Line::Why("tools/tests/deps.rs runs cargo tree on the package")),
    ("cargo update -p wgpu --precise 30.0.0", Line::Why("changes Cargo.lock: the oldest wgpu 30 was checked by hand (docs/wgpu.md)")),
    ("python -m vksort.bench --sizes 1e5,1e6,1e7", Line::Why(
        "python/tests/test_docs.py runs the bench at 10^3 and 10^4 keys (these sizes take minutes on lavapipe)")),
    ("vksort <command> --help", Line::Why("a form with a placeholder")),
    ("vksort = { path = \".../vksort\" }", Line::Why("a dependency line: tools/tests/package.rs builds a dependent crate")),
    ("vksort = { version = \"0.1\", features = [\"wgpu\"] }", Line::Why("a dependency line: capi's dev-dependency builds the feature in ./dev test")),
    ("vksort calibrate", Line::Why("tools/tests/cli.rs `demo_and_calibrate_run` runs it as written")),
    ("vksort info", Run),
    ("vksort sort", Line::Why("names the command; tools/tests/cli.rs runs its forms")),
    ("vksort sort --random 1M --keys f32 --check", Run),
    ("vksort sort --random 1M --keys u64 --values u32 --check", Run),
    ("vksort sort|scan|compact --capture", Line::Why("a form with alternatives: tools/tests/capture.rs captures each")),
    ("vksort sort|scan|compact ... --capture FILE.rdc", Line::Why("a form with alternatives: tools/tests/capture.rs captures each")),
];

/// The inline commands of `text`'s prose (outside fenced blocks), whitespace collapsed.
fn prose_commands(file: &str, text: &str) -> Vec<String> {
    let starts = [
        "./dev ", "cargo ", "vksort ", "python ", "python3 ", "pip ", "bash ", "maturin ",
    ];
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    assert!(!fenced, "{file}: a block is not closed");
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|span| starts.iter().any(|s| span.starts_with(s)))
        .collect()
}

#[test]
fn every_command_in_prose_is_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if !root.join("README.md").exists() {
        return skip::skip(
            "source-tree",
            &format!("no README.md under {}", root.display()),
        );
    }
    let dir = tmp_dir("docs", "prose");
    inputs(&dir);
    let mut seen = vec![false; PROSE.len()];
    for path in doc_files(&root) {
        let file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if file == "docs/tuning.md" {
            continue;
        }
        for cmd in prose_commands(&file, &std::fs::read_to_string(&path).unwrap()) {
            let k = PROSE.iter().position(|(c, _)| *c == cmd).unwrap_or_else(|| {
                panic!("{file}: the inline command `{cmd}` is not listed in tools/tests/docs.rs PROSE")
            });
            if !seen[k] {
                check_line(&dir, &file, &cmd, &PROSE[k].1);
            }
            seen[k] = true;
        }
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        panic!(
            "the listed inline command `{}` is in no document",
            PROSE[k].0
        );
    }
}

/// The files whose fenced blocks are listed.
fn doc_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("python/README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A block: its info string and its lines.
struct Block {
    lang: String,
    lines: Vec<String>,
}

/// The fenced blocks (``` at the start of a line) of `text`.
fn blocks(file: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    lang: info.trim().into(),
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => out.push(open.take().unwrap()),
            (Some(b), _) => b.lines.push(line.into()),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{file}: a block is not closed");
    out
}

/// The `crate-readme.md` dependency line names this package at its version.
fn dependency_line(block: &str) {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml"))
            .unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("the package version");
    let wanted = block
        .lines()
        .find_map(|l| l.strip_prefix("vksort = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("a `vksort = \"...\"` line");
    assert!(
        version.starts_with(&format!("{wanted}.")) || version == wanted,
        "docs/crate-readme.md asks for vksort {wanted}, the package is {version}"
    );
}

/// The `vksort` commands of one shell line, as argument lists (`./dev vksort` and `vksort` alike; `;` between).
fn vksort_commands(line: &str) -> Vec<Vec<String>> {
    let code = line.split(" #").next().unwrap();
    code.split(';')
        .map(|c| {
            let words: Vec<String> = c.split_whitespace().map(String::from).collect();
            let start = match words.first().map(String::as_str) {
                Some("./dev") if words.get(1).map(String::as_str) == Some("vksort") => 2,
                Some("./dev") => 1,
                Some("vksort") => 1,
                other => panic!("`{line}`: not a vksort command ({other:?})"),
            };
            words[start..].to_vec()
        })
        .collect()
}

/// Lists a block or line not run here (or run in another form), with the reason, on the test's stderr (not
/// captured, so `./dev test`'s log shows the list).
fn not_here(file: &str, what: &str, why: &str) {
    use std::io::Write;
    let what: String = what.chars().take(60).collect();
    let _ = writeln!(
        std::io::stderr(),
        "docs: not run as written: {file}: `{what}`: {why}"
    );
}

/// Checks one command `line` of `file` as `how` says: runs it (or its listed forms) in `dir`, or lists why not.
fn check_line(dir: &Path, file: &str, line: &str, how: &Line) {
    match how {
        Run => vksort_commands(line).iter().for_each(|c| run(dir, c)),
        RunAs(cmds, why) => {
            not_here(file, line, why);
            for c in cmds.iter() {
                run(dir, &c.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            }
        }
        Line::Why(why) => not_here(file, line, why),
    }
}

/// Runs `vksort args` in `dir`; fails the test on a non-zero exit.
fn run(dir: &Path, args: &[String]) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vksort {}: {}\n{}{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The input files the documented commands name, in `dir`: u32 data and f32 depths, a few thousand each.
fn inputs(dir: &Path) {
    let data: Vec<u8> = (0..5000u32)
        .flat_map(|i| (i.wrapping_mul(2654435761) % 1000).to_le_bytes())
        .collect();
    std::fs::write(dir.join("data.bin"), data).unwrap();
    let depths: Vec<u8> = (0..5000u32)
        .flat_map(|i| ((i.wrapping_mul(2654435761) % 10_000) as f32 / 7.0 - 300.0).to_le_bytes())
        .collect();
    std::fs::write(dir.join("depths.bin"), depths).unwrap();
}

#[test]
fn every_documented_block_is_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if !root.join("README.md").exists() {
        // A test executable carried away from its source tree (the GPU machine).
        return skip::skip(
            "source-tree",
            &format!("no README.md under {}", root.display()),
        );
    }
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let dir = tmp_dir("docs", "commands");
    inputs(&dir);
    let mut listed = vec![false; BLOCKS.len()];
    for path in doc_files(&root) {
        let file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for b in blocks(&file, &std::fs::read_to_string(&path).unwrap()) {
            let first = b
                .lines
                .iter()
                .find(|l| !l.trim().is_empty())
                .cloned()
                .unwrap_or_default();
            let at = BLOCKS
                .iter()
                .enumerate()
                .position(|(i, (f, start, _))| !listed[i] && *f == file && first.starts_with(start))
                .unwrap_or_else(|| {
                    panic!("{file}: a block starting `{first}` is not listed in tools/tests/docs.rs BLOCKS")
                });
            listed[at] = true;
            match &BLOCKS[at].2 {
                how @ (Doctest | Program) => {
                    assert!(
                        b.lang.starts_with("rust"),
                        "{file}: `{first}` is not a Rust block"
                    );
                    assert!(
                        !b.lang.contains("ignore"),
                        "{file}: `{first}` is marked ignore: not compiled"
                    );
                    assert!(
                        lib.contains(&format!("include_str!(\"../{file}\")")),
                        "{file} is not included in the crate's docs: its Rust blocks are not doctests"
                    );
                    if matches!(how, Program) {
                        assert!(
                            b.lang.split(',').all(|a| !["no_run", "compile_fail", "should_panic"]
                                .contains(&a.trim())),
                            "{file}: `{first}` is listed as a program that runs, but its block is `{}`",
                            b.lang
                        );
                        assert!(
                            b.lines.iter().any(|l| l.starts_with("fn main()"))
                                && !b.lines.iter().any(|l| l.starts_with("# ") || l.trim() == "#"),
                            "{file}: `{first}` is listed as a whole program: its own `fn main`, no hidden lines"
                        );
                    }
                }
                Text => {}
                Why(why) => not_here(&file, &first, why),
                Check(f) => f(&b.lines.join("\n")),
                Lines(lines) => {
                    let mut seen = vec![false; lines.len()];
                    for line in b
                        .lines
                        .iter()
                        .map(|l| l.trim())
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    {
                        let k = lines
                            .iter()
                            .position(|(start, _)| line.starts_with(start))
                            .unwrap_or_else(|| {
                                panic!("{file}: the line `{line}` is not listed in BLOCKS")
                            });
                        seen[k] = true;
                        check_line(&dir, &file, line, &lines[k].1);
                    }
                    if let Some(k) = seen.iter().position(|s| !s) {
                        panic!("{file}: the listed line `{}` is gone", lines[k].0);
                    }
                }
            }
        }
    }
    if let Some(i) = listed.iter().position(|l| !l) {
        panic!(
            "{}: the listed block `{}` is gone",
            BLOCKS[i].0, BLOCKS[i].1
        );
    }
}
