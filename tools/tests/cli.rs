//! The `vksort` binary: round trips through binary files, text files and standard input; `--check`; the error
//! cases (exit status 2, a message, no output file left); `bench --quick` output files; and the library's
//! verification functions catching a corrupted output.
//!
//! The binary is `VKSORT_BIN` when set (scripts/gpu-run.sh points it at the unpacked one on the GPU machine),
//! else the one cargo built for this test.
//!
//! Children run with `VKSORT_VALIDATION=1` and fail the test on any validation message. Operations this build
//! of vksort lacks are skipped with a note (the CLI then refuses them with exit status 2, tested too).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vksort_tools::bench::data::{Column, ElemType};
use vksort_tools::bench::dist::Dist;
use vksort_tools::bench::ops::{self, FlagMode, OpSpec};
use vksort_tools::bench::verify::{self, SortSpec};

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

fn cache_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vksort-cli-cache");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tmp(name: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The `vksort` binary under test: `VKSORT_BIN`, else the one cargo built.
fn bin() -> PathBuf {
    std::env::var_os("VKSORT_BIN")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vksort")))
}

fn vksort(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env("VKSORT_VALIDATION", "1")
        .env("VKSORT_CACHE_DIR", cache_dir())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn vksort");
    if let Some(data) = stdin {
        use std::io::Write;
        let mut s = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = s.write_all(&data);
        });
    }
    let out = child.wait_with_output().unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("[vksort validation]"),
        "validation errors in `vksort {}`:\n{}",
        args.join(" "),
        run.stderr
    );
    run
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn has_sort() -> bool {
    let ok = !ops::sort_algorithms().is_empty();
    if !ok {
        eprintln!("note: this build has no sort yet; skipping the sort round trips");
    }
    ok
}

fn cpu_sorted(col: &Column, descending: bool) -> Column {
    let ty = col.ty();
    let mut k = col.order_keys();
    k.sort_unstable();
    if descending {
        k.reverse();
    }
    Column::from_order_keys(ty, &k)
}

#[test]
fn info_lists_devices() {
    let r = vksort(&["info"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.out().contains("subgroup"), "{}", r.out());
    assert!(r.out().contains("policy"), "{}", r.out());
}

/// Each error case: exit status 2, a clear message, and no output file left behind.
#[test]
fn errors_exit_2_with_a_message_and_no_output() {
    let d = tmp("errors");
    let out = d.join("out.bin");
    let outv = d.join("outv.bin");
    let seven = d.join("seven.bin");
    std::fs::write(&seven, [1u8, 2, 3, 4, 5, 6, 7]).unwrap();
    let four_keys = d.join("keys.bin");
    std::fs::write(&four_keys, bytemuck::cast_slice::<u32, u8>(&[4, 3, 2, 1])).unwrap();
    let three_values = d.join("values.bin");
    std::fs::write(&three_values, bytemuck::cast_slice::<u32, u8>(&[0, 1, 2])).unwrap();
    let missing = d.join("missing.bin");
    let bad_text = d.join("bad.txt");
    std::fs::write(&bad_text, "1\n2\nthree\n").unwrap();
    let o = path(&out);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["sort", "--input", path(&seven), "--output", o],
            "not a multiple of the u32 size",
        ),
        (
            vec![
                "sort",
                "--keys",
                "u64",
                "--input",
                path(&three_values),
                "--output",
                o,
            ],
            "not a multiple of the u64 size",
        ),
        (
            vec!["sort", "--keys", "u16", "--random", "8", "--output", o],
            "unknown key type `u16`",
        ),
        (
            vec!["sort", "--values", "f32", "--random", "8", "--output", o],
            "unknown value type `f32`",
        ),
        (
            vec![
                "sort",
                "--values",
                "u32",
                "--input",
                path(&four_keys),
                "--input-values",
                path(&three_values),
                "--output",
                o,
                "--output-values",
                path(&outv),
            ],
            "4 keys but 3 values",
        ),
        (vec!["sort", "--random", "2^34", "--output", o], "can hold"),
        (
            vec!["sort", "--random", "16", "--dist", "pareto", "--output", o],
            "unknown distribution",
        ),
        (
            vec!["sort", "--random", "16", "--bits", "8..40", "--output", o],
            "--bits",
        ),
        (
            vec!["sort", "--random", "16", "--algo", "bogo", "--output", o],
            "unknown sort algorithm",
        ),
        (
            vec!["sort", "--text", "--input", path(&bad_text), "--output", o],
            "line 3",
        ),
        (
            vec!["sort", "--input", path(&missing), "--output", o],
            "missing.bin",
        ),
        (
            vec![
                "--device",
                "no-such-device",
                "sort",
                "--random",
                "16",
                "--output",
                o,
            ],
            "no device matches",
        ),
        (
            vec![
                "sort", "--random", "100000", "--algo", "small", "--output", o,
            ],
            "small sort takes at most",
        ),
        (
            vec!["scan", "--keys", "f32", "--random", "16", "--output", o],
            "unknown scan element type",
        ),
        (
            vec![
                "compact",
                "--input",
                path(&four_keys),
                "--flags",
                path(&three_values),
                "--output",
                o,
            ],
            "4 elements but 3 flags",
        ),
    ];
    for (args, msg) in cases {
        let r = vksort(&args, None);
        assert_eq!(r.code, 2, "`vksort {}`: {}", args.join(" "), r.stderr);
        assert!(
            r.stderr.contains(msg),
            "`vksort {}` should say `{msg}`, said: {}",
            args.join(" "),
            r.stderr
        );
        assert!(
            !out.exists() && !outv.exists(),
            "`vksort {}` left an output file",
            args.join(" ")
        );
        let leftovers: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("vksort-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}

/// The verification the CLI's `--check` uses catches one corrupted element and names its index.
#[test]
fn check_catches_a_corrupted_output() {
    for ty in ElemType::ALL {
        let input = Dist::Uniform.generate(ty, 1000, 3);
        let sorted = cpu_sorted(&input, false);
        let spec = SortSpec::default();
        assert_eq!(verify::check_sort(&input, &sorted, None, &spec), Ok(()));
        // replace one element by another value: still sorted at that spot only if equal, so use a neighbour's
        let mut raw: Vec<u64> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
        raw[500] = raw[499];
        let bad = Column::from_raw_bits(ty, &raw);
        let e = verify::check_sort(&input, &bad, None, &spec).unwrap_err();
        assert_eq!(e.index, 500, "{ty}: {e}");
        assert!(e.message.contains("permutation"), "{e}");
        // swap two elements: unsorted at the first
        let mut raw: Vec<u64> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
        raw.swap(100, 101);
        let bad = Column::from_raw_bits(ty, &raw);
        if bad != sorted {
            let e = verify::check_sort(&input, &bad, None, &spec).unwrap_err();
            assert_eq!(e.index, 101, "{ty}: {e}");
        }
        assert!(verify::check_sort_fast(
            &input,
            &Column::from_raw_bits(ty, &{
                let mut r: Vec<u64> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
                r[700] = r[701];
                r
            }),
            None,
            &spec
        )
        .is_err());
    }
    // stability: equal keys with their values out of input order
    let keys = Column::U32(vec![5, 1, 5, 1]);
    let vals = Column::index(ElemType::U32, 4);
    let out_keys = Column::U32(vec![1, 1, 5, 5]);
    let good = Column::U32(vec![1, 3, 0, 2]);
    let swapped = Column::U32(vec![3, 1, 0, 2]);
    let spec = SortSpec::default();
    assert_eq!(
        verify::check_sort(&keys, &out_keys, Some((&vals, &good)), &spec),
        Ok(())
    );
    let e = verify::check_sort(&keys, &out_keys, Some((&vals, &swapped)), &spec).unwrap_err();
    assert_eq!(e.index, 0);
    let e = verify::check_sort_fast(&keys, &out_keys, Some(&swapped), &spec).unwrap_err();
    assert_eq!(e.index, 1);
    // descending and bit ranges
    let desc = SortSpec {
        descending: true,
        bits: None,
    };
    assert!(verify::check_sort(&keys, &Column::U32(vec![5, 5, 1, 1]), None, &desc).is_ok());
    assert!(verify::check_sort(&keys, &out_keys, None, &desc).is_err());
    let low = SortSpec {
        descending: false,
        bits: Some((0, 4)),
    };
    let k = Column::U32(vec![0x12, 0x21, 0x03]);
    assert!(verify::check_sort(&k, &Column::U32(vec![0x21, 0x12, 0x03]), None, &low).is_ok());
    assert!(verify::check_sort(&k, &Column::U32(vec![0x12, 0x21, 0x03]), None, &low).is_err());
    // scans and compaction
    let x = Column::U32(vec![3, 0, 7, 2]);
    assert!(verify::check_scan(&x, &Column::U32(vec![0, 3, 3, 10]), false).is_ok());
    assert_eq!(
        verify::check_scan(&x, &Column::U32(vec![0, 3, 4, 10]), false)
            .unwrap_err()
            .index,
        2
    );
    assert!(verify::check_scan(&x, &Column::U32(vec![3, 3, 10, 12]), true).is_ok());
    assert!(verify::check_compact(&x, None, &Column::U32(vec![3, 7, 2])).is_ok());
    assert_eq!(
        verify::check_compact(&x, None, &Column::U32(vec![3, 2, 7]))
            .unwrap_err()
            .index,
        1
    );
    assert_eq!(
        verify::check_compact(&x, None, &Column::U32(vec![3, 7]))
            .unwrap_err()
            .index,
        2
    );
}

#[test]
fn text_and_binary_formats_round_trip() {
    for ty in ElemType::ALL {
        let col = Dist::Uniform.generate(ty, 257, 9);
        let back = Column::from_bytes(ty, col.as_bytes()).unwrap();
        assert_eq!(back.as_bytes(), col.as_bytes());
        let mut text = Vec::new();
        col.write_text(&mut text).unwrap();
        let back = Column::parse_text(ty, std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(back.as_bytes(), col.as_bytes(), "{ty}");
    }
    for d in Dist::ALL {
        let s = d.to_string();
        assert_eq!(s.parse::<Dist>().unwrap(), d);
        for ty in ElemType::ALL {
            assert_eq!(d.generate(ty, 300, 1).len(), 300);
        }
    }
    let sorted = Dist::Sorted.generate(ElemType::F32, 500, 1);
    assert!(verify::check_sorted(&sorted, &SortSpec::default()).is_ok());
    assert_eq!(
        OpSpec::Copy {
            elem: ElemType::U32
        }
        .op_name(Dist::Entropy(3)),
        "memcpy_u32_entropy0.544"
    );
}

#[test]
fn sort_round_trips_through_files_text_and_stdin() {
    if !has_sort() {
        // the CLI refuses cleanly instead
        let r = vksort(&["sort", "--random", "100"], None);
        assert_eq!(r.code, 2, "{}", r.stderr);
        return;
    }
    let d = tmp("sort");
    for ty in [ElemType::U32, ElemType::F32, ElemType::I64] {
        let input = Dist::Uniform.generate(ty, 3000, 5);
        let inp = d.join(format!("in-{ty}.bin"));
        let out = d.join(format!("out-{ty}.bin"));
        std::fs::write(&inp, input.as_bytes()).unwrap();
        let r = vksort(
            &[
                "sort",
                "--keys",
                ty.name(),
                "--input",
                path(&inp),
                "--output",
                path(&out),
                "--check",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.out().starts_with(&format!("sorted 3000 {ty} keys")),
            "{}",
            r.out()
        );
        let got = Column::from_bytes(ty, &std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(got.as_bytes(), cpu_sorted(&input, false).as_bytes(), "{ty}");
    }
    // empty and one-element inputs
    let empty = d.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let eo = d.join("empty.out");
    let r = vksort(
        &[
            "sort",
            "--input",
            path(&empty),
            "--output",
            path(&eo),
            "--check",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read(&eo).unwrap().len(), 0);
    let r = vksort(
        &["sort", "--text", "--input", "-", "--print", "--check"],
        Some(b"42\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.out(), "42\n");
    // text, descending, through stdin and --print
    let r = vksort(
        &[
            "sort",
            "--keys",
            "i32",
            "--text",
            "--input",
            "-",
            "--descending",
            "--print",
            "--check",
        ],
        Some(b"3\n-7\n12\n0\n-7\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.out(), "12\n3\n0\n-7\n-7\n");
    // pairs printed as `key value`, index values show stability
    let r = vksort(
        &[
            "sort", "--text", "--input", "-", "--values", "u32", "--print", "--check",
        ],
        Some(b"5\n3\n5\n1\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.out(), "1 3\n3 1\n5 0\n5 2\n");
    // binary through stdin to stdout
    let data: Vec<u32> = vec![9, 1, 8, 2, 7, 3];
    let r = vksort(
        &["sort", "--input", "-", "--output", "-"],
        Some(bytemuck::cast_slice(&data)),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        bytemuck::cast_slice::<u32, u8>(&[1, 2, 3, 7, 8, 9])
    );
    // pairs from files: values follow their keys, stably
    let keys: Vec<u32> = (0..2000u32).map(|i| (i * 7919) % 61).collect();
    let vals: Vec<u64> = (0..2000u64).map(|i| i * 3 + 1).collect();
    let (kp, vp, ko, vo) = (
        d.join("k.bin"),
        d.join("v.bin"),
        d.join("ko.bin"),
        d.join("vo.bin"),
    );
    std::fs::write(&kp, bytemuck::cast_slice(&keys)).unwrap();
    std::fs::write(&vp, bytemuck::cast_slice(&vals)).unwrap();
    let r = vksort(
        &[
            "sort",
            "--values",
            "u64",
            "--input",
            path(&kp),
            "--input-values",
            path(&vp),
            "--output",
            path(&ko),
            "--output-values",
            path(&vo),
            "--check",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut expect: Vec<(u32, u64)> = keys.iter().copied().zip(vals.iter().copied()).collect();
    expect.sort_by_key(|p| p.0);
    let ko = u32s(&std::fs::read(&ko).unwrap());
    let vo: Vec<u64> = std::fs::read(&vo)
        .unwrap()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ko, expect.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(vo, expect.iter().map(|p| p.1).collect::<Vec<_>>());
    // random inputs of every distribution pass --check with index values (stability)
    for dist in ["gaussian", "few-unique", "entropy-3", "zero", "reverse"] {
        let r = vksort(
            &[
                "sort", "--random", "5000", "--dist", dist, "--values", "u32", "--check", "--keys",
                "f32",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{dist}: {}", r.stderr);
        assert!(r.stderr.contains("check passed"), "{}", r.stderr);
    }
}

#[test]
fn scan_and_compact_round_trip() {
    let d = tmp("scan");
    let data: Vec<u32> = (0..5000u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let inp = d.join("in.bin");
    std::fs::write(&inp, bytemuck::cast_slice(&data)).unwrap();
    let scan = OpSpec::Scan {
        algo: "lookback".into(),
        elem: ElemType::U32,
        inclusive: false,
    };
    if scan.available() {
        let out = d.join("scan.bin");
        let r = vksort(
            &[
                "scan",
                "--input",
                path(&inp),
                "--output",
                path(&out),
                "--check",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let got = u32s(&std::fs::read(&out).unwrap());
        let mut acc = 0u32;
        let expect: Vec<u32> = data
            .iter()
            .map(|&x| {
                let e = acc;
                acc = acc.wrapping_add(x);
                e
            })
            .collect();
        assert_eq!(got, expect);
        let r = vksort(
            &["scan", "--inclusive", "--text", "--input", "-", "--print"],
            Some(b"1\n2\n3\n"),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.out(), "1\n3\n6\n");
    } else {
        eprintln!("note: no scan in this build; skipped");
    }
    let compact = OpSpec::Compact {
        elem: ElemType::U32,
        flags: FlagMode::Given,
    };
    if compact.available() {
        let r = vksort(
            &["compact", "--text", "--input", "-", "--print", "--check"],
            Some(b"0\n5\n0\n7\n1\n"),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.out(), "5\n7\n1\n");
        let r = vksort(
            &["compact", "--odd", "--input", path(&inp), "--check"],
            None,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
    } else {
        eprintln!("note: no compaction in this build; skipped");
    }
}

#[test]
fn bench_quick_writes_csv_json_and_svg() {
    let d = tmp("bench");
    let out = d.join("results");
    // (embedded: the test executables also run from a copy of the tree on the GPU machine)
    let cub = d.join("cub-sample.csv");
    std::fs::write(&cub, include_str!("data/cub-sample.csv")).unwrap();
    let r = vksort(
        &[
            "bench",
            "--quick",
            "--sizes",
            "10,12",
            "--out-dir",
            path(&out),
            "--explain",
            "--compare",
            path(&cub),
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}\n{}", r.out(), r.stderr);
    for f in [
        "bench.csv",
        "bench.json",
        "vksort-cub-format.csv",
        "passes.svg",
        "rate-copy.svg",
    ] {
        let p = out.join(f);
        assert!(p.exists(), "{f} missing; wrote: {}", r.out());
        assert!(std::fs::metadata(&p).unwrap().len() > 50, "{f} is empty");
    }
    let csv = std::fs::read_to_string(out.join("bench.csv")).unwrap();
    assert!(csv.starts_with("op,family,algo"), "{csv}");
    assert!(csv.contains("memcpy_u32,copy,compute-copy"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    assert!(json["roofline_gbps"].as_f64().unwrap() > 0.0);
    assert!(json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["verified"] == true));
    // CUB figures matched by op and N
    let copy_1024 = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["op"] == "memcpy_u32" && r["n"] == 1024)
        .unwrap();
    assert!(copy_1024["cub_ratio"].as_f64().is_some(), "{copy_1024}");
    assert!(r.out().contains("versus CUB"), "{}", r.out());
    assert!(r.out().contains("bound"), "{}", r.out());
    let svg = std::fs::read_to_string(out.join("passes.svg")).unwrap();
    assert!(svg.contains("<svg"));
    if has_sort() {
        assert!(out.join("rate-sort.svg").exists());
        assert!(r.out().contains("auto picks"), "{}", r.out());
    }
}

#[test]
fn demo_and_calibrate_run() {
    let r = vksort(&["demo", "--n", "4096"], None);
    assert_eq!(r.code, 0, "{}\n{}", r.out(), r.stderr);
    assert!(r.out().contains("memcpy_u32"), "{}", r.out());
    assert!(!r.out().contains("MISMATCH"), "{}", r.out());
    if has_sort() {
        assert!(r.out().contains("sort_pairs_u32_u32"), "{}", r.out());
        assert!(r.out().contains("matches the CPU"), "{}", r.out());
    }
    let d = tmp("calibrate");
    let run = |args: &[&str]| {
        let out = Command::new(bin())
            .args(args)
            .env("VKSORT_VALIDATION", "1")
            .env("VKSORT_CACHE_DIR", &d)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!err.contains("[vksort validation]"), "{err}");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run(&["calibrate", "--show"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no cached calibration"), "{out}");
    let (code, out) = run(&["calibrate"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("roofline") && out.contains("copy"), "{out}");
    let files: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let (code, out) = run(&["calibrate", "--show"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("efficiency"), "{out}");
}
