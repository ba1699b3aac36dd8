//! The `vksort` binary: round trips through binary files, text files and standard input; `--check`; the error
//! cases (exit status 2, a message, no output file left); `bench --quick` output files; and the library's
//! verification functions catching a corrupted output.
//!
//! The binary is `VKSORT_BIN` when set (scripts/gpu-run.sh points it at the unpacked one on the GPU machine),
//! else the one cargo built for this test.
//!
//! Children run with `VKSORT_VALIDATION=1` and fail the test on any validation message. Operations this build
//! of vksort lacks are skipped with a note (the CLI then refuses them with exit status 2, tested too).
#[path = "../../tests/common/skip.rs"]
mod skip;
mod support;
use support::bin;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vksort::compact::Predicate;
use vksort_tools::bench::data::{Column, ElemType};
use vksort_tools::bench::dist::Dist;
use vksort_tools::bench::ops::{self, FlagMode, OpSpec};
use vksort_tools::bench::verify::{self, SortSpec};

struct Run {
    code: i32,
    signal: Option<i32>,
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
    support::tmp_dir("cli", name)
}

fn vksort(args: &[&str], stdin: Option<&[u8]>) -> Run {
    vksort_in(&cache_dir(), args, stdin)
}

/// [`vksort`] with extra environment variables.
fn vksort_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    vksort_run(&cache_dir(), args, None, env)
}

/// Children run one at a time: the tests of this file run in parallel, and a dozen vksort processes at once would
/// put a dozen lavapipe thread pools (and validation-layer threads) on the machine's two cores. A child killed by
/// a signal fails its test: the heap faults that once made this file rerun such a child came from the validation
/// layer's handling of freed command buffers (docs/tuning.md, "Open problems"), which vksort no longer frees.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn vksort_in(cache: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    vksort_run(cache, args, stdin, &[])
}

fn vksort_run(cache: &Path, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let run = vksort_once(cache, args, stdin, env);
    assert!(
        run.signal.is_none(),
        "`vksort {}` was killed by signal {:?}; its stderr:\n{}",
        args.join(" "),
        run.signal,
        run.stderr
    );
    assert!(
        !run.stderr.contains("[vksort validation]"),
        "validation errors in `vksort {}`:\n{}",
        args.join(" "),
        run.stderr
    );
    run
}

fn vksort_once(cache: &Path, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .envs(env.iter().copied())
        .env("VKSORT_VALIDATION", "1")
        .env("VKSORT_CACHE_DIR", cache)
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
    Run {
        code: out.status.code().unwrap_or(-1),
        signal: out.status.signal(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
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
        skip::skip("sort", "this build has no sort yet: the sort round trips");
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
        let mut raw: Vec<u128> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
        raw[500] = raw[499];
        let bad = Column::from_raw_bits(ty, &raw);
        let e = verify::check_sort(&input, &bad, None, &spec).unwrap_err();
        assert_eq!(e.index, 500, "{ty}: {e}");
        assert!(e.message.contains("permutation"), "{e}");
        // swap two elements: unsorted at the first
        let mut raw: Vec<u128> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
        raw.swap(100, 101);
        let bad = Column::from_raw_bits(ty, &raw);
        if bad != sorted {
            let e = verify::check_sort(&input, &bad, None, &spec).unwrap_err();
            assert_eq!(e.index, 101, "{ty}: {e}");
        }
        assert!(verify::check_sort_fast(
            &input,
            &Column::from_raw_bits(ty, &{
                let mut r: Vec<u128> = (0..sorted.len()).map(|i| sorted.raw_bits(i)).collect();
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
    // an unstable sort may leave equal keys in any order, but every value stays with its key
    let unstable = SortSpec {
        unstable: true,
        ..Default::default()
    };
    assert_eq!(
        verify::check_sort(&keys, &out_keys, Some((&vals, &swapped)), &unstable),
        Ok(())
    );
    assert_eq!(
        verify::check_sort_fast(&keys, &out_keys, Some(&swapped), &unstable),
        Ok(())
    );
    let broken = Column::U32(vec![3, 0, 1, 2]);
    let e = verify::check_sort(&keys, &out_keys, Some((&vals, &broken)), &unstable).unwrap_err();
    assert_eq!(e.index, 1, "{e}");
    assert!(verify::check_sort_fast(&keys, &out_keys, Some(&broken), &unstable).is_err());
    // one input index twice: caught by the stable check's rising indices and by the unstable check's record
    let twice = Column::U32(vec![1, 1, 0, 2]);
    for s in [&spec, &unstable] {
        let e = verify::check_sort_fast(&keys, &out_keys, Some(&twice), s).unwrap_err();
        assert!(e.message.contains("distinct"), "{e}");
    }
    // large enough for the linear checks to split across threads: the first fault by index is reported
    let n = 1 << 19;
    let big = Column::U32((0..n as u32).map(|i| i / 3).collect());
    let big_vals = Column::index(ElemType::U32, n);
    assert_eq!(
        verify::check_sort_fast(&big, &big, Some(&big_vals), &spec),
        Ok(())
    );
    assert_eq!(verify::check_sort_fast(&big, &big, None, &spec), Ok(()));
    // values moved between keys: the pair hash differs and the exact check names the first fault
    let mut moved: Vec<u128> = (0..n as u128).collect();
    moved.swap(10, 200_000);
    let moved = Column::from_raw_bits(ElemType::U32, &moved);
    let e = verify::check_sort_fast(&big, &big, Some(&moved), &unstable).unwrap_err();
    assert_eq!(e.index, 10, "{e}");
    assert!(e.message.contains("travelled"), "{e}");
    // (stable: value 200000 leaves its run of equal keys out of input order first)
    let e = verify::check_sort_fast(&big, &big, Some(&moved), &spec).unwrap_err();
    assert_eq!(e.index, 11, "{e}");
    let mut raw: Vec<u128> = (0..n).map(|i| big.raw_bits(i)).collect();
    raw.swap(400_000, 400_003);
    raw.swap(300_000, 300_003);
    let e = verify::check_sorted(&Column::from_raw_bits(ElemType::U32, &raw), &spec).unwrap_err();
    assert_eq!(e.index, 300_001, "{e}");
    raw.swap(300_000, 300_003);
    raw.swap(400_000, 400_003);
    raw[123_455] = raw[123_456]; // 41151 -> 41152: still sorted, not a permutation
    let e = verify::check_sort_fast(
        &big,
        &Column::from_raw_bits(ElemType::U32, &raw),
        None,
        &spec,
    )
    .unwrap_err();
    assert!(e.message.contains("permutation"), "{e}");
    // 128-bit keys: order on all 128 bits, bit ranges above bit 64
    let wide = Column::U128(vec![3 << 100, 1, (1 << 100) | 5, u128::MAX]);
    let sorted = Column::U128(vec![1, (1 << 100) | 5, 3 << 100, u128::MAX]);
    assert_eq!(verify::check_sort(&wide, &sorted, None, &spec), Ok(()));
    let e = verify::check_sort(
        &wide,
        &Column::U128(vec![1, 3 << 100, (1 << 100) | 5, u128::MAX]),
        None,
        &spec,
    )
    .unwrap_err();
    assert_eq!(e.index, 2, "{e}");
    let high = SortSpec {
        bits: Some((100, 128)),
        ..Default::default()
    };
    assert!(verify::check_sort(
        &wide,
        &Column::U128(vec![(1 << 100) | 5, 1, 3 << 100, u128::MAX]),
        None,
        &high
    )
    .is_err());
    assert!(verify::check_sort(
        &wide,
        &Column::U128(vec![1, (1 << 100) | 5, 3 << 100, u128::MAX]),
        None,
        &high
    )
    .is_ok());
    // descending and bit ranges
    let desc = SortSpec {
        descending: true,
        ..Default::default()
    };
    assert!(verify::check_sort(&keys, &Column::U32(vec![5, 5, 1, 1]), None, &desc).is_ok());
    assert!(verify::check_sort(&keys, &out_keys, None, &desc).is_err());
    let low = SortSpec {
        bits: Some((0, 4)),
        ..Default::default()
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
    assert!(
        verify::check_compact(&x, None, Predicate::NonZero, &Column::U32(vec![3, 7, 2])).is_ok()
    );
    assert_eq!(
        verify::check_compact(&x, None, Predicate::NonZero, &Column::U32(vec![3, 2, 7]))
            .unwrap_err()
            .index,
        1
    );
    assert_eq!(
        verify::check_compact(&x, None, Predicate::NonZero, &Column::U32(vec![3, 7]))
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
    for ty in ElemType::ALL {
        let s = Dist::Sorted.generate(ty, 700, 2);
        assert!(
            verify::check_sorted(&s, &SortSpec::default()).is_ok(),
            "{ty}"
        );
        let r = Dist::Reverse.generate(ty, 700, 2);
        let desc = SortSpec {
            descending: true,
            ..Default::default()
        };
        assert!(verify::check_sorted(&r, &desc).is_ok(), "{ty}");
    }
    // u128: 16 bytes per key, little-endian; text in decimal or hex; values beyond 64 bits
    let big = Column::U128(vec![u128::MAX, 1 << 64, 7]);
    assert_eq!(big.as_bytes().len(), 48);
    assert_eq!(&big.as_bytes()[16..32], &(1u128 << 64).to_le_bytes());
    let parsed = Column::parse_text(
        ElemType::U128,
        "340282366920938463463374607431768211455\n0x1_0000_0000_0000_0000\n7\n",
    )
    .unwrap();
    assert_eq!(parsed, big);
    assert!(
        Column::parse_text(ElemType::U128, "340282366920938463463374607431768211456\n").is_err()
    );
    assert!(Column::parse_text(ElemType::U64, "0x1_0000_0000_0000_0000\n").is_err());
    // 128-bit distributions use the high half too
    let u = Dist::Uniform.generate(ElemType::U128, 1000, 4);
    assert!((0..1000).any(|i| u.raw_bits(i) >> 120 != 0));
    assert!((0..1000).any(|i| u.raw_bits(i) as u64 != 0));
    let g = Dist::Gaussian.generate(ElemType::U128, 1000, 4);
    let mid = (0..1000)
        .filter(|&i| (g.raw_bits(i) >> 126) == 1 || (g.raw_bits(i) >> 126) == 2)
        .count();
    assert!(mid > 800, "gaussian keys gather around the middle: {mid}");
    // the visibility workload: positive view depths, deterministic, in emission order (not sorted), and the
    // same order for every key type
    let depth = Dist::Visibility.generate(ElemType::F32, 4000, 11);
    let Column::F32(d) = &depth else {
        unreachable!()
    };
    assert!(d.iter().all(|&x| x > 0.3 && x < 7.0), "{:?}", &d[..8]);
    assert_eq!(depth, Dist::Visibility.generate(ElemType::F32, 4000, 11));
    assert_ne!(depth, Dist::Visibility.generate(ElemType::F32, 4000, 12));
    assert!(verify::check_sorted(&depth, &SortSpec::default()).is_err());
    let spread = d.iter().cloned().fold(0f32, f32::max) - d.iter().cloned().fold(9f32, f32::min);
    assert!(spread > 1.0, "depths spread over the scene: {spread}");
    for ty in [ElemType::U32, ElemType::I64, ElemType::F64, ElemType::U128] {
        let k = Dist::Visibility.generate(ty, 4000, 11);
        let order = |c: &Column| {
            let mut idx: Vec<usize> = (0..c.len()).collect();
            idx.sort_by_key(|&i| (c.order_key(i), i));
            idx
        };
        let (a, b) = (order(&depth), order(&k));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        assert!(same > 3000, "{ty}: {same} of 4000 in the f32 depth order");
    }
    assert_eq!(
        "visibility".parse::<Dist>().unwrap().to_string(),
        "visibility"
    );
    assert_eq!(
        OpSpec::Sort {
            algo: "bitonic".into(),
            key: ElemType::U128,
            value: Some(ElemType::U32),
            descending: false,
            bits: None,
            count: ops::CountForm::Host,
        }
        .op_name(Dist::Visibility),
        "sort_pairs_u128_u32_visibility"
    );
    // a GPU-side count: CUB's name with `_gpucount` last, which cub_op_name drops again
    let gpu_op = OpSpec::Sort {
        algo: "auto".into(),
        key: ElemType::U32,
        value: None,
        descending: true,
        bits: None,
        count: ops::CountForm::Gpu,
    }
    .op_name(Dist::Gaussian);
    assert_eq!(gpu_op, "sort_keys_u32_desc_gaussian_gpucount");
    assert_eq!(ops::cub_op_name(&gpu_op), "sort_keys_u32_desc_gaussian");
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
        skip::skip("scan", "no scan in this build");
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
        let r = vksort(
            &[
                "compact", "--text", "--input", "-", "--range", "2..7", "--print", "--check",
            ],
            Some(b"0\n5\n0\n7\n1\n3\n2\n"),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.out(), "5\n3\n2\n");
        let r = vksort(
            &["compact", "--text", "--input", "-", "--range", "7..2"],
            Some(b"1\n"),
        );
        assert_ne!(r.code, 0);
        assert!(r.stderr.contains("LO must not exceed HI"), "{}", r.stderr);
    } else {
        skip::skip("compact", "no compaction in this build");
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
    // The rates agree with the times and sizes they come from (a unit slip shows here): GB/s = model bytes
    // over the median time, items/s = n over it, the roofline fraction = GB/s over the measured roofline.
    let roofline = json["roofline_gbps"].as_f64().unwrap();
    assert!(
        roofline.is_finite() && roofline > 0.0,
        "roofline {roofline}"
    );
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs());
    for row in json["rows"].as_array().unwrap() {
        let f = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k} in {row}"));
        let ns = f("ms_median") * 1e6;
        assert!(ns > 0.0, "{row}");
        assert!(
            close(f("gbytes_per_s"), f("model_bytes") / ns),
            "GB/s: {row}"
        );
        assert!(close(f("gitems_per_s"), f("n") / ns), "items/s: {row}");
        assert!(
            close(f("roofline_fraction"), f("gbytes_per_s") / roofline),
            "roofline fraction: {row}"
        );
    }
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
        assert!(r.out().contains("model picks"), "{}", r.out());
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
        // Auto's choice is named, not only `auto`.
        assert!(r.out().contains("[auto: "), "{}", r.out());
    }
    let d = tmp("calibrate");
    let run = |args: &[&str]| {
        let r = vksort_in(&d, args, None);
        (Some(r.code), r.out())
    };
    let (code, out) = run(&["calibrate", "--show"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no cached calibration"), "{out}");
    let (code, out) = run(&["calibrate"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("roofline") && out.contains("copy"), "{out}");
    // One calibration file (beside the pipeline cache's folder, which drivers with a cache fill).
    let files: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name() != "pipelines")
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let (code, out) = run(&["calibrate", "--show"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("efficiency"), "{out}");
}

#[test]
/// A format mix-up gets a hint, and a sort whose result goes nowhere says so.
fn format_mixups_get_a_hint_and_a_discarded_result_a_note() {
    if !has_sort() {
        return;
    }
    let d = tmp("hints");
    // Text read as raw u32: 7 bytes, not a multiple of 4.
    let text = d.join("numbers.txt");
    std::fs::write(&text, "3\n1\n22\n").unwrap();
    let r = vksort(&["sort", "--input", path(&text), "--print"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("add --text"), "{}", r.stderr);
    // Text whose length happens to fit is read as numbers, with a note.
    std::fs::write(&text, "3\n1\n2\n4\n").unwrap();
    let r = vksort(&["sort", "--input", path(&text), "--check"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("looks like text"), "{}", r.stderr);
    // Binary read as text.
    let bin = d.join("numbers.bin");
    std::fs::write(&bin, [0xffu8, 0xfe, 0x00, 0x80]).unwrap();
    let r = vksort(&["sort", "--input", path(&bin), "--text", "--print"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("leave out --text"), "{}", r.stderr);
    // Nothing kept: a note; something kept: none.
    let r = vksort(&["sort", "--random", "1000"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("not kept or checked"), "{}", r.stderr);
    let r = vksort(&["sort", "--random", "1000", "--check"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("not kept"), "{}", r.stderr);
}

/// 128-bit keys through files, text and standard input: sorted by a comparison sort (`auto` resolves to one),
/// `--check` with index values (an unstable sort's pairs checked as pairs), and the radix sorts refused with
/// the list of the algorithms that can.
#[test]
fn u128_keys_round_trip_through_files() {
    if !ops::sort_algorithms().contains(&"bitonic") {
        skip::skip(
            "comparison-sort",
            "no comparison sort in this build: the u128 round trips",
        );
        return;
    }
    let d = tmp("u128");
    let input = Dist::Uniform.generate(ElemType::U128, 1500, 21);
    let Column::U128(mut keys) = input.clone() else {
        unreachable!()
    };
    // duplicates, keys that differ only in the high or the low half, the extremes
    keys[0] = u128::MAX;
    keys[1] = 0;
    keys[2] = keys[3];
    keys[4] = (keys[5] & !(u64::MAX as u128)) | 1;
    let input = Column::U128(keys.clone());
    let (inp, out) = (d.join("k128.bin"), d.join("k128.out"));
    std::fs::write(&inp, input.as_bytes()).unwrap();
    for algo in ["auto", "bitonic"] {
        let r = vksort(
            &[
                "sort",
                "--keys",
                "u128",
                "--algo",
                algo,
                "--input",
                path(&inp),
                "--output",
                path(&out),
                "--check",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{algo}: {}", r.stderr);
        assert!(r.out().starts_with("sorted 1500 u128 keys"), "{}", r.out());
        let got = std::fs::read(&out).unwrap();
        let mut expect = keys.clone();
        expect.sort_unstable();
        assert_eq!(got, bytemuck::cast_slice::<u128, u8>(&expect), "{algo}");
    }
    // descending, with u32 index values: pairs stay together
    let (ko, vo) = (d.join("k.out"), d.join("v.out"));
    let r = vksort(
        &[
            "sort",
            "--keys",
            "u128",
            "--values",
            "u32",
            "--descending",
            "--input",
            path(&inp),
            "--output",
            path(&ko),
            "--output-values",
            path(&vo),
            "--check",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("check passed"), "{}", r.stderr);
    let k: Vec<u128> = std::fs::read(&ko)
        .unwrap()
        .chunks_exact(16)
        .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let v = u32s(&std::fs::read(&vo).unwrap());
    assert!(k.windows(2).all(|w| w[0] >= w[1]));
    assert!(k.iter().zip(&v).all(|(k, &v)| keys[v as usize] == *k));
    // text through standard input: decimal and hex
    let r = vksort(
        &[
            "sort", "--keys", "u128", "--text", "--input", "-", "--print", "--check",
        ],
        Some(
            b"0xffffffffffffffffffffffffffffffff\n18446744073709551616\n5\n18446744073709551615\n",
        ),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.out(),
        "5\n18446744073709551615\n18446744073709551616\n340282366920938463463374607431768211455\n"
    );
    // random u128 keys of the paper's distributions
    for dist in ["gaussian", "zero", "visibility"] {
        let r = vksort(
            &[
                "sort", "--keys", "u128", "--random", "3000", "--dist", dist, "--values", "u32",
                "--check",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{dist}: {}", r.stderr);
    }
    // a radix sort refuses them, naming the algorithms that can; no output left behind
    let r = vksort(
        &[
            "sort",
            "--keys",
            "u128",
            "--algo",
            "onesweep",
            "--input",
            path(&inp),
            "--output",
            path(&d.join("refused.out")),
        ],
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot sort 1500 u128 keys") && r.stderr.contains("at most 64 bits"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("algorithms that can: auto"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("bitonic"), "{}", r.stderr);
    assert!(!d.join("refused.out").exists());
}

/// `--dist` takes the GPU-quicksort paper's distributions (visibility included) for every key width.
#[test]
fn dist_parsing_and_paper_distributions() {
    for d in Dist::PAPER {
        assert_eq!(d.to_string().parse::<Dist>().unwrap(), d);
    }
    assert!("Visibility".parse::<Dist>().is_ok());
    assert!("entropy-0".parse::<Dist>().is_err());
    let e = "pareto".parse::<Dist>().unwrap_err();
    assert!(e.contains("visibility"), "{e}");
    if !has_sort() {
        return;
    }
    for (dist, key) in [
        ("visibility", "f32"),
        ("staggered", "u64"),
        ("bucket", "i32"),
        ("sorted", "f64"),
    ] {
        let r = vksort(
            &[
                "sort", "--random", "2^12", "--dist", dist, "--keys", key, "--values", "u32",
                "--check",
            ],
            None,
        );
        assert_eq!(r.code, 0, "{dist} {key}: {}", r.stderr);
        assert!(r.stderr.contains("check passed"), "{}", r.stderr);
    }
    let r = vksort(
        &["sort", "--random", "64", "--dist", "visibility", "--print"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let depths: Vec<u32> = r.out().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(depths.len(), 64);
    assert!(depths.windows(2).all(|w| w[0] <= w[1]));
}

/// `vksort bench` over algorithms x key types x distributions: the combinations an algorithm cannot run (the
/// radix sorts and u128 keys, the one-workgroup sort above its capacity) are skipped with a note, everything
/// else measured and verified; CSV, skipped.csv and the markdown tables written.
#[test]
fn bench_skips_unsupported_combinations() {
    if !ops::sort_algorithms().contains(&"bitonic") {
        skip::skip("comparison-sort", "no comparison sort in this build");
        return;
    }
    let d = tmp("bench-sorts");
    let out = d.join("results");
    let cub = d.join("cub.csv");
    std::fs::write(
        &cub,
        "# device SAMPLE (made-up figures)\nimpl,op,n,ms_median,gitems_per_s\n\
         cub,sort_keys_u32,512,0.01,0.05\ncub,merge_sort_keys_u32,512,0.02,0.025\n\
         cub,merge_sort_keys_u128_visibility,16384,0.05,0.32\n",
    )
    .unwrap();
    let r = vksort(
        &[
            "bench",
            "--ops",
            "sort",
            "--algos",
            "onesweep,small,bitonic",
            "--keys",
            "u32,u128",
            "--values",
            "none",
            "--dists",
            "uniform,visibility",
            "--sizes",
            "9,14",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--no-plots",
            "--out-dir",
            path(&out),
            "--compare",
            path(&cub),
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}\n{}", r.out(), r.stderr);
    let text = r.out();
    assert!(text.contains("skipped"), "{text}");
    assert!(
        text.contains("onesweep: the onesweep algorithm cannot do this: u128 keys"),
        "{text}"
    );
    let csv = std::fs::read_to_string(out.join("bench.csv")).unwrap();
    for want in [
        "sort_keys_u128,sort,bitonic,u128,none,uniform,512,",
        "sort_keys_u128_visibility,sort,bitonic,u128,none,visibility,16384,",
        "sort_keys_u32,sort,onesweep,u32,none,uniform,16384,",
        "sort_keys_u32_visibility,sort,small,u32,none,visibility,512,",
    ] {
        assert!(csv.contains(want), "{want} missing:\n{csv}");
    }
    assert!(!csv.contains("sort_keys_u128,sort,onesweep"), "{csv}");
    let skipped = std::fs::read_to_string(out.join("skipped.csv")).unwrap();
    assert!(
        skipped.contains("sort_keys_u128_visibility,sort,onesweep,u128,none,visibility,512,"),
        "{skipped}"
    );
    assert!(
        skipped.contains("sort_keys_u128,sort,small,u128,none,uniform,512,"),
        "{skipped}"
    );
    // the one-workgroup sort above its capacity (2048 keys on lavapipe, 8192 with NVIDIA's policy)
    assert!(
        skipped.contains(
            "sort_keys_u32,sort,small,u32,none,uniform,16384,\"the small sort takes at most"
        ),
        "{skipped}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verified"] == true), "{json}");
    let merged = rows
        .iter()
        .find(|r| r["op"] == "sort_keys_u32" && r["n"] == 512 && r["algo"] == "bitonic")
        .unwrap();
    assert!(merged["cub_merge_ratio"].as_f64().is_some(), "{merged}");
    assert!(merged["cub_ratio"].as_f64().is_some(), "{merged}");
    let md = std::fs::read_to_string(out.join("bench.md")).unwrap();
    for want in [
        "## Sort algorithms x distributions",
        "### sort_keys_u32, N = 2^9",
        "| algorithm | uniform | visibility |",
        "## Sort rate by N",
        "## Key widths",
        "### sort_keys_u128 relative to sort_keys_u32, uniform",
        "CUB merge sort",
        "## Notes",
        "— [",
    ] {
        assert!(md.contains(want), "{want} missing from bench.md:\n{md}");
    }
    assert!(text.contains("versus CUB's merge sort"), "{text}");
}

/// `vksort bench --counts host,gpu`: every sort also recorded with a GPU-side count
/// (`Sorter::cmd_sort_indirect`, a count buffer holding N, capacity 2N), verified as the host form is; its rows
/// carry `_gpucount` and `count` = `gpu`, are compared with CUB's figures of the same op, and the comparison
/// table is printed and written into bench.md. The one-workgroup sort at 2^11 keys fits its capacity on
/// lavapipe (2048) with a host count but not with a GPU-side one (capacity 4096): skipped with a note there.
#[test]
fn bench_times_gpu_side_counts_beside_host_counts() {
    if !has_sort() {
        return;
    }
    let d = tmp("bench-gpu-counts");
    let out = d.join("results");
    let cub = d.join("cub.csv");
    std::fs::write(
        &cub,
        "# device SAMPLE (made-up figures)\nimpl,op,n,ms_median,gitems_per_s\n\
         cub,sort_keys_u32,2048,0.01,0.2\n",
    )
    .unwrap();
    let r = vksort(
        &[
            "bench",
            "--ops",
            "sort",
            "--counts",
            "host,gpu",
            "--algos",
            "auto,onesweep,small",
            "--keys",
            "u32",
            "--values",
            "none,u32",
            "--sizes",
            "11",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--no-plots",
            "--gpu-check-from",
            "11",
            "--out-dir",
            path(&out),
            "--compare",
            path(&cub),
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}\n{}", r.out(), r.stderr);
    let text = r.out();
    let csv = std::fs::read_to_string(out.join("bench.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().ends_with(",wall_s,count"),
        "{csv}"
    );
    for want in [
        "sort_keys_u32,sort,auto,u32,none,uniform,2048,",
        "sort_keys_u32_gpucount,sort,auto,u32,none,uniform,2048,",
        "sort_pairs_u32_u32,sort,onesweep,u32,u32,uniform,2048,",
        "sort_pairs_u32_u32_gpucount,sort,onesweep,u32,u32,uniform,2048,",
    ] {
        assert!(csv.contains(want), "{want} missing:\n{csv}");
    }
    for line in csv.lines().skip(1) {
        let form = if line.starts_with("sort_keys_u32_gpucount,")
            || line.starts_with("sort_pairs_u32_u32_gpucount,")
        {
            "gpu"
        } else {
            "host"
        };
        assert!(line.ends_with(&format!(",{form}")), "{line}");
    }
    // the one-workgroup sort: run with the GPU-side count where its capacity takes 2N, else skipped at 2N
    // (the library's "takes at most 2048 keys, not 4096", or the bench's note on the capacity)
    let skipped = std::fs::read_to_string(out.join("skipped.csv")).unwrap();
    let small_skipped = skipped.lines().find(|l| {
        l.starts_with(
            "sort_keys_u32_gpucount,sort,small,u32,none,uniform,2048,\"the small sort takes at most",
        )
    });
    assert!(
        csv.contains("sort_keys_u32_gpucount,sort,small,")
            || small_skipped.is_some_and(|l| l.contains("4096") || l.contains("capacity is 2N")),
        "{csv}\n{skipped}"
    );
    assert!(!skipped.contains("sort_keys_u32,sort,small,"), "{skipped}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verified"] == true), "{json}");
    // GPU-count rows: what the sorter ran for the capacity, CUB's figure of the same op
    let gpu = rows
        .iter()
        .find(|r| r["op"] == "sort_keys_u32_gpucount" && r["algo"] == "auto")
        .unwrap();
    assert_eq!(gpu["count"], "gpu", "{gpu}");
    assert_eq!(gpu["base_op"], "sort_keys_u32_gpucount", "{gpu}");
    assert!(gpu["ran"].as_str().is_some_and(|a| a != "auto"), "{gpu}");
    assert_eq!(gpu["cub_ms"].as_f64(), Some(0.01), "{gpu}");
    let cub_csv = std::fs::read_to_string(out.join("vksort-cub-format.csv")).unwrap();
    assert!(
        cub_csv.contains("vksort-auto-gpucount,sort_keys_u32,2048,"),
        "{cub_csv}"
    );
    // the comparison: printed after the tables and written into bench.md
    let md = std::fs::read_to_string(out.join("bench.md")).unwrap();
    for doc in [&text, &md] {
        assert!(doc.contains("## GPU-side count vs host count"), "{doc}");
        assert!(
            doc.contains(
                "| op | algo | N | runs (host / GPU count) | host ms | GPU-count ms | GPU / host |"
            ),
            "{doc}"
        );
        for op in [
            "| sort_keys_u32 | auto | 2^11 |",
            "| sort_pairs_u32_u32 | onesweep | 2^11 | onesweep / onesweep |",
        ] {
            assert!(doc.contains(op), "{op} missing:\n{doc}");
        }
    }
    assert!(md.contains("### sort_keys_u32_gpucount, uniform"), "{md}");
}

/// Sorts from `--gpu-check-from` on are verified where their result lies (`vksort::sort::check`); a wrong
/// result is still read back, and the CPU check names the fault.
#[test]
fn bench_checks_large_sorts_on_the_gpu_and_names_faults_on_the_cpu() {
    let d = tmp("bench-gpu-check");
    let out = d.join("results");
    let args = |algos: &'static str| {
        vec![
            "bench",
            "--ops",
            "sort",
            "--algos",
            algos,
            "--keys",
            "u32,f32",
            "--values",
            "none,u32",
            "--sizes",
            "12",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--no-plots",
            "--gpu-check-from",
            "12",
            "--out-dir",
            path(&out),
        ]
    };
    // stable (index values checked for rising order) and unstable sorts pass
    let r = vksort(&args("onesweep,merge,bitonic"), None);
    assert_eq!(r.code, 0, "{}\n{}", r.out(), r.stderr);
    let csv = std::fs::read_to_string(out.join("bench.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 12, "{csv}");
    assert!(!csv.contains(",false,"), "{csv}");
    // a sort broken on purpose (Onesweep without its scatter): the GPU check fails it, the CPU check says where
    let r = vksort_env(&args("onesweep"), &[("VKSORT_RADIX_DEBUG", "debug=4")]);
    assert_ne!(r.code, 0, "{}", r.out());
    let text = r.out();
    assert!(text.contains("FAILED: bad output at index"), "{text}");
    assert!(text.contains("not sorted"), "{text}");
}
