//! The `vksort` command line: `sort`, `scan`, `compact` (input from files, standard input or a random
//! distribution; output to files or standard output; `--check` against the CPU; a report line), `bench`,
//! `calibrate`, `info`, `demo`.
//!
//! Exit status: 0 success; 1 a `--check` (or the demo's check) found a wrong result; 2 bad input or any error
//! (then no output file is left behind).

pub mod args;
pub mod check;
pub mod info;
pub mod io;

use crate::bench::data::{Column, ElemType};
use crate::bench::dist::Dist;
use crate::bench::ops::{self, FlagMode, Input, OpSpec, Output, Timing};
use crate::bench::{self, BenchOptions};
use crate::cache::PipelineCacheFile;
use crate::capture::RenderDoc;
use crate::model::Calibration;
use anyhow::{bail, Context as _, Result};
use args::{
    BenchArgs, CalibrateArgs, Cli, Cmd, CompactArgs, DemoArgs, InputArgs, OutputArgs, ScanArgs,
    SortArgs,
};
use clap::Parser;
use std::io::{IsTerminal, Write as _};
use std::sync::Arc;
use std::time::Instant;
use vksort::{Context, ContextOptions};

/// Sort algorithm names (the library's `SortAlgorithm::ALL`: the list grows with it).
fn sort_algos() -> Vec<&'static str> {
    ops::sort_algorithms()
}

/// Scan algorithm names (the library's `ScanAlgorithm::ALL`).
fn scan_algos() -> Vec<&'static str> {
    ops::scan_algorithms()
}

/// Runs the command line; returns the exit status.
pub fn main() -> i32 {
    let start = Instant::now();
    // `vksort ... | head`: a closed standard output ends the process quietly (status 141, as SIGPIPE would).
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default_hook(info)
    }));
    let cli = Cli::parse();
    crate::progress::set_verbose(cli.verbose);
    let code = match run(cli, start) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vksort: error: {e:#}");
            2
        }
    };
    save_pipeline_caches();
    crate::progress::debug(format!(
        "done in {:.0} ms",
        start.elapsed().as_secs_f64() * 1e3
    ));
    code
}

/// The contexts of this run with their pipeline-cache files, written back when the command is done.
static CACHES: std::sync::Mutex<Vec<(Arc<Context>, PipelineCacheFile)>> =
    std::sync::Mutex::new(Vec::new());

/// Writes every context's pipeline cache back to its file (when it changed), atomically.
fn save_pipeline_caches() {
    let caches = std::mem::take(&mut *CACHES.lock().unwrap_or_else(|e| e.into_inner()));
    for (ctx, file) in caches {
        let (created, hits) = ctx.pipeline_counts();
        crate::progress::debug(format!(
            "{created} pipelines created{}",
            hits.map_or(String::new(), |h| format!(
                ", {h} of them found in the pipeline cache"
            ))
        ));
        match file.save(&ctx) {
            Ok(Some(bytes)) => crate::progress::debug(format!(
                "pipeline cache saved: {bytes} bytes to `{}`",
                file.path().display()
            )),
            Ok(None) => crate::progress::debug("pipeline cache unchanged"),
            Err(e) => crate::progress::warn(format!("could not save the pipeline cache: {e}")),
        }
    }
}

fn run(cli: Cli, start: Instant) -> Result<i32> {
    let device = cli.device.clone();
    // The one-off runs name their buffers `vksort::cli::*` (a capture of `vksort sort` shows no benchmark).
    if matches!(
        cli.cmd,
        Cmd::Sort(_) | Cmd::Scan(_) | Cmd::Compact(_) | Cmd::Demo(_)
    ) {
        ops::set_namespace("vksort::cli");
    }
    match cli.cmd {
        Cmd::Sort(a) => sort(a, device, start),
        Cmd::Scan(a) => scan(a, device, start),
        Cmd::Compact(a) => compact(a, device, start),
        Cmd::Bench(a) => bench_cmd(a, device),
        Cmd::Calibrate(a) => calibrate(a, device),
        Cmd::Info => info::run(device.as_deref()),
        Cmd::Demo(a) => demo(a, device),
    }
}

/// The Vulkan context, its pipeline cache loaded from the user's cache directory ([`crate::cache`]; written
/// back when the command is done).
fn context(device: Option<String>) -> Result<Arc<Context>> {
    let mut opts = ContextOptions::from_env();
    if device.is_some() {
        opts.device = device;
    }
    let t = Instant::now();
    let ctx = Context::new(opts).context("creating the Vulkan context")?;
    crate::progress::debug(format!(
        "context on {} ({}) created in {:.0} ms",
        ctx.caps().name,
        ctx.caps().driver_info,
        t.elapsed().as_secs_f64() * 1e3
    ));
    if let Some((file, notes)) = PipelineCacheFile::attach(&ctx) {
        for n in notes {
            match n.level {
                crate::cache::Level::Debug => crate::progress::debug(n.message),
                crate::cache::Level::Warn => crate::progress::warn(n.message),
            }
        }
        CACHES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ctx.clone(), file));
    } else {
        crate::progress::debug(
            "no pipeline cache (VKSORT_PIPELINE_CACHE_DIR is off, or no cache directory)",
        );
    }
    Ok(ctx)
}

/// `--capture`: RenderDoc, loaded before the context's instance is created (its layer hooks only instances
/// created after it is loaded).
fn load_renderdoc(o: &OutputArgs) -> Result<Option<RenderDoc>> {
    if o.capture.is_none() {
        return Ok(None);
    }
    RenderDoc::load()
        .map(Some)
        .context("--capture needs RenderDoc")
}

/// Runs the operation once and times it ([`ops::run_once`]); with `--capture`, first records one run (the
/// restore of its inputs and the operation) in a submission of its own, labelled `vksort::capture`, inside a
/// RenderDoc capture written to the file asked for.
fn run_op(
    ctx: &Arc<Context>,
    spec: &OpSpec,
    input: &Input,
    o: &OutputArgs,
    renderdoc: Option<&RenderDoc>,
) -> Result<(Output, Timing)> {
    let (Some(rd), Some(path)) = (renderdoc, &o.capture) else {
        return Ok(ops::run_once(ctx, spec, input)?);
    };
    let title = format!("vksort {} {}", spec.family(), spec.algo());
    let r = ops::run_once_with(ctx, spec, input, |runner| -> Result<()> {
        rd.capture(ctx, path, &title, || {
            // Without breadcrumbs (Context::submit_timed): the capture holds the run's commands only.
            Ok(ctx.submit_timed("vksort::capture", None, |rec| ops::record_run(rec, runner))?)
        })
    })?;
    eprintln!(
        "vksort: captured one run into {} ({}; open it with `qrenderdoc {}`)",
        path.display(),
        rd.describe(),
        path.display()
    );
    Ok(r)
}

fn elem_type(s: &str, what: &str, allowed: &[ElemType]) -> Result<ElemType> {
    match ElemType::from_name(s) {
        Some(t) if allowed.contains(&t) => Ok(t),
        _ => bail!(
            "unknown {what} type `{s}` (one of {})",
            allowed
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `LO..HI` of the option `flag` (`--bits`, `--range`), as two u32; `example` shows the form in the error.
fn parse_lo_hi(s: &str, flag: &str, example: &str) -> Result<(u32, u32)> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| anyhow::anyhow!("{flag} takes LO..HI, e.g. {example}"))?;
    let lo: u32 = lo.trim().parse().with_context(|| format!("{flag} LO"))?;
    let hi: u32 = hi.trim().parse().with_context(|| format!("{flag} HI"))?;
    Ok((lo, hi))
}

/// `LO..HI` of `vksort compact --range` (LO <= HI).
fn parse_range(s: &str) -> Result<(u32, u32)> {
    let (lo, hi) = parse_lo_hi(s, "--range", "100..200")?;
    if lo > hi {
        bail!("--range {s}: LO must not exceed HI");
    }
    Ok((lo, hi))
}

fn parse_bits(s: &str, key: ElemType) -> Result<(u32, u32)> {
    let (lo, hi) = parse_lo_hi(s, "--bits", "0..16")?;
    if lo >= hi || hi > key.bits() {
        bail!(
            "--bits {lo}..{hi} must satisfy LO < HI <= {} for {key} keys",
            key.bits()
        );
    }
    Ok((lo, hi))
}

/// The main input before the device is known: a file's column, or the count of a random one (generated only
/// once the device is known to hold it).
enum Source {
    Data(Column),
    Random { n: usize, dist: Dist, seed: u64 },
}

impl Source {
    fn read(a: &InputArgs, ty: ElemType) -> Result<Self> {
        match (&a.input, &a.random) {
            (Some(path), None) => Ok(Source::Data(io::read_column(path, ty, a.text, "input")?)),
            (None, Some(n)) => {
                let n = io::parse_count(n)?;
                let dist: Dist = a.dist.parse().map_err(|e: String| anyhow::anyhow!(e))?;
                if n > (isize::MAX as u64) / 16 {
                    bail!("--random {n} is too large");
                }
                Ok(Source::Random {
                    n: n as usize,
                    dist,
                    seed: a.seed,
                })
            }
            (None, None) => {
                bail!("give an input: --input FILE (`-` for standard input) or --random N")
            }
            (Some(_), Some(_)) => bail!("--input and --random exclude each other"),
        }
    }

    fn len(&self) -> usize {
        match self {
            Source::Data(c) => c.len(),
            Source::Random { n, .. } => *n,
        }
    }

    fn into_column(self, ty: ElemType) -> Column {
        match self {
            Source::Data(c) => c,
            Source::Random { n, dist, seed } => dist.generate(ty, n, seed),
        }
    }
}

/// Refuses N the device cannot hold (before anything is uploaded).
fn check_fits(ctx: &Context, spec: &OpSpec, n: usize) -> Result<()> {
    let max = bench::max_items(ctx, spec);
    if n as u64 > max {
        bail!(
            "{n} elements are more than {} can hold for this operation (at most {max}: max storage buffer range {}, \
             device-local memory {})",
            ctx.caps().name,
            io::fmt_bytes(ctx.caps().max_storage_buffer_range),
            io::fmt_bytes(ctx.caps().device_local_bytes)
        );
    }
    Ok(())
}

/// Writes the outputs (temporary files renamed together at the end), prints, checks, and prints the report
/// line. Returns the exit status.
#[allow(clippy::too_many_arguments)]
fn finish(
    spec: &OpSpec,
    input: &Input,
    out: &Output,
    timing: &Timing,
    o: &OutputArgs,
    text: bool,
    output_values: Option<&str>,
    ctx: &Context,
    verb_line: String,
    start: Instant,
) -> Result<i32> {
    let mut staged = Vec::new();
    if let Some(path) = &o.output {
        staged.extend(io::stage(path, &out.keys, text)?);
    }
    if let (Some(path), Some(v)) = (output_values, &out.values) {
        staged.extend(io::stage(path, v, text)?);
    }
    let status = if o.check {
        check::report(spec, input, out)
    } else {
        0
    };
    for s in staged {
        s.commit()?;
    }
    if o.print {
        io::print(&out.keys, out.values.as_ref())?;
    }
    if o.passes {
        for p in &timing.passes {
            eprintln!("  {:<32} {}", p.label, io::fmt_ms(p.ns / 1e6));
        }
    }
    let gpu_ms = timing.median_ns() / 1e6;
    let n = input.len() as f64;
    let unit = if spec.family() == "sort" {
        "keys"
    } else {
        "items"
    };
    // Nothing but the restore of the inputs reached the GPU (n <= 1, or nothing to scan): no GPU time.
    let gpu_ms = if timing.passes.is_empty() {
        0.0
    } else {
        gpu_ms
    };
    let rate = if timing.passes.is_empty() || gpu_ms <= 0.0 {
        "no GPU work".to_string()
    } else {
        format!("{} {unit}/s", io::fmt_rate(n / (gpu_ms * 1e-3)))
    };
    let algo = match out.algorithm {
        Some(a) if a.name() != spec.algo() => format!("{} -> {}", spec.algo(), a.name()),
        _ => spec.algo(),
    };
    let line = format!(
        "{verb_line} on {} in {} GPU ({rate}), {:.0} ms total [{algo}]",
        ctx.caps().name,
        io::fmt_ms(gpu_ms.max(0.0)),
        start.elapsed().as_secs_f64() * 1e3,
    );
    // stdout carries data when printing or writing to `-`: the report line then goes to stderr
    if o.print || o.output.as_deref() == Some("-") || output_values == Some("-") {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    if o.output.is_none() && output_values.is_none() && !o.print && !o.check {
        eprintln!("note: the result was not kept or checked (--output FILE, --print or --check)");
    }
    Ok(status)
}

fn sort(a: SortArgs, device: Option<String>, start: Instant) -> Result<i32> {
    let key = elem_type(&a.keys, "key", &ElemType::ALL)?;
    let value = match a.values.trim().to_ascii_lowercase().as_str() {
        "none" => None,
        v => Some(elem_type(v, "value", &[ElemType::U32, ElemType::U64])?),
    };
    let model = a.algo.trim().eq_ignore_ascii_case("model");
    let algo = if model {
        "auto"
    } else {
        ops::sort_algorithm_name(&a.algo).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown sort algorithm `{}` (one of model, {})",
                a.algo,
                sort_algos().join(", ")
            )
        })?
    };
    let bits = a.bits.as_deref().map(|b| parse_bits(b, key)).transpose()?;
    if a.input_values.is_some() && value.is_none() {
        bail!("--input-values needs --values u32|u64");
    }
    if a.output_values.is_some() && value.is_none() {
        bail!("--output-values needs --values u32|u64");
    }
    let (source, values) = match (&a.input.input, value, &a.input_values, a.input.text) {
        // `key value` lines, as --print writes them
        (Some(path), Some(t), None, true) => {
            let (k, v) = io::read_text_keys_values(path, key, t)?;
            (Source::Data(k), v)
        }
        (_, Some(t), Some(path), _) => (
            Source::read(&a.input, key)?,
            Some(io::read_column(path, t, a.input.text, "values")?),
        ),
        _ => (Source::read(&a.input, key)?, None),
    };
    let n = source.len();
    if let Some(v) = &values {
        if v.len() != n {
            bail!("{n} keys but {} values: the counts must match", v.len());
        }
    }
    if value == Some(ElemType::U32) && values.is_none() && n as u64 > u32::MAX as u64 {
        bail!("u32 index values cannot number {n} keys; use --values u64");
    }
    let renderdoc = load_renderdoc(&a.output)?;
    let ctx = context(device)?;
    let mut spec = OpSpec::Sort {
        algo: algo.to_string(),
        key,
        value,
        descending: a.descending,
        bits,
        count: ops::CountForm::Host,
    };
    check_fits(&ctx, &spec, n)?;
    let stages = crate::progress::Stages::new(n >= LARGE);
    if matches!(source, Source::Random { .. }) {
        stages.stage(format!("generating {n} random {key} keys"));
    }
    let keys = source.into_column(key);
    let values = match (value, values) {
        (Some(t), None) => Some(Column::index(t, n)),
        (_, v) => v,
    };
    if model {
        if let Some(choice) = model_choice(&ctx, key, value, bits, keys.len() as u64) {
            if let OpSpec::Sort { algo, .. } = &mut spec {
                *algo = choice;
            }
        }
    }
    if !spec.available() {
        bail!(
            "sort algorithm `{}` is not in this build of vksort",
            spec.algo()
        );
    }
    if let Err(reason) = ops::sort_check(&ctx, &spec, n as u64) {
        let can = ops::sort_algorithms_for(&ctx, &spec, n as u64);
        bail!(
            "sort algorithm `{}` cannot sort {n} {key} keys{} here: {reason} (algorithms that can: {})",
            spec.algo(),
            value.map_or(String::new(), |v| format!(" with {v} values")),
            if can.is_empty() {
                "none".to_string()
            } else {
                can.join(", ")
            }
        );
    }
    let input = Input {
        keys,
        values,
        flags: None,
    };
    let bytes = (n * (key.bytes() + value.map_or(0, |v| v.bytes()))) as u64;
    stages.stage(format!(
        "sorting {n} {key} keys ({}): upload, sorter (pipelines), sort, read back",
        io::fmt_bytes(bytes)
    ));
    let t = Instant::now();
    let (out, timing) = run_op(&ctx, &spec, &input, &a.output, renderdoc.as_ref())?;
    crate::progress::debug(format!(
        "sort done in {:.0} ms (wall, with upload, pipelines and read-back)",
        t.elapsed().as_secs_f64() * 1e3
    ));
    if a.output.check {
        stages.stage(format!("checking {n} keys on the CPU"));
    }
    drop(stages);
    let n = input.len();
    let verb = format!(
        "sorted {n} {key} keys{}{} ({})",
        value.map_or(String::new(), |v| format!(" with {v} values")),
        if a.descending { " descending" } else { "" },
        io::fmt_bytes(bytes),
    );
    finish(
        &spec,
        &input,
        &out,
        &timing,
        &a.output,
        a.input.text,
        a.output_values.as_deref(),
        &ctx,
        verb,
        start,
    )
}

/// Sorts (and scans, compactions) of this many elements or more show their stages on a terminal.
const LARGE: usize = 1 << 24;

/// The calibrated model's choice for `--algo model` (None: let the library's own `auto` decide). Calibrates
/// first where this device has no calibration yet (with a progress bar).
fn model_choice(
    ctx: &Arc<Context>,
    key: ElemType,
    value: Option<ElemType>,
    bits: Option<(u32, u32)>,
    n: u64,
) -> Option<String> {
    let cal = Calibration::load_or_calibrate(ctx).ok()?;
    cal.choose_sort(ctx, key, value, bits, n).map(|c| c.0)
}

fn scan(a: ScanArgs, device: Option<String>, start: Instant) -> Result<i32> {
    let elem = elem_type(&a.keys, "scan element", &[ElemType::U32, ElemType::U64])?;
    let algo = ops::scan_algorithm_name(&a.algo).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown scan algorithm `{}` (one of {})",
            a.algo,
            scan_algos().join(", ")
        )
    })?;
    let source = Source::read(&a.input, elem)?;
    let renderdoc = load_renderdoc(&a.output)?;
    let ctx = context(device)?;
    let spec = OpSpec::Scan {
        algo: algo.to_string(),
        elem,
        inclusive: a.inclusive,
    };
    check_fits(&ctx, &spec, source.len())?;
    let keys = source.into_column(elem);
    if !spec.available() {
        bail!("scan algorithm `{}` is not in this build of vksort", algo);
    }
    let input = Input {
        keys,
        values: None,
        flags: None,
    };
    let (out, timing) = run_op(&ctx, &spec, &input, &a.output, renderdoc.as_ref())?;
    let n = input.len();
    let verb = format!(
        "scanned {n} {elem} ({}, {})",
        if a.inclusive {
            "inclusive"
        } else {
            "exclusive"
        },
        io::fmt_bytes((n * elem.bytes()) as u64),
    );
    finish(
        &spec,
        &input,
        &out,
        &timing,
        &a.output,
        a.input.text,
        None,
        &ctx,
        verb,
        start,
    )
}

fn compact(a: CompactArgs, device: Option<String>, start: Instant) -> Result<i32> {
    let elem = elem_type(&a.keys, "compaction element", &[ElemType::U32])?;
    let source = Source::read(&a.input, elem)?;
    let given = match &a.flags {
        Some(path) => {
            let f = io::read_column(path, ElemType::U32, a.input.text, "flags")?;
            if f.len() != source.len() {
                bail!(
                    "{} elements but {} flags: the counts must match",
                    source.len(),
                    f.len()
                );
            }
            Some(f)
        }
        None => None,
    };
    let renderdoc = load_renderdoc(&a.output)?;
    let ctx = context(device)?;
    let range = a.range.as_deref().map(parse_range).transpose()?;
    let spec = OpSpec::Compact {
        elem,
        flags: match (range, a.flags.is_some()) {
            (Some((lo, hi)), flags) => FlagMode::Range { lo, hi, flags },
            (None, true) => FlagMode::Given,
            (None, false) if a.odd => FlagMode::Odd,
            (None, false) => FlagMode::NonZero,
        },
    };
    check_fits(&ctx, &spec, source.len())?;
    let keys = source.into_column(elem);
    let flags = given;
    if !spec.available() {
        bail!("compaction is not in this build of vksort");
    }
    let input = Input {
        keys,
        values: None,
        flags,
    };
    let (out, timing) = run_op(&ctx, &spec, &input, &a.output, renderdoc.as_ref())?;
    let n = input.len();
    let verb = format!(
        "compacted {n} {elem} to {} ({})",
        out.keys.len(),
        io::fmt_bytes((n * elem.bytes()) as u64)
    );
    finish(
        &spec,
        &input,
        &out,
        &timing,
        &a.output,
        a.input.text,
        None,
        &ctx,
        verb,
        start,
    )
}

fn bench_cmd(a: BenchArgs, device: Option<String>) -> Result<i32> {
    let mut opts = if a.quick {
        BenchOptions::quick()
    } else {
        BenchOptions::standard()
    };
    if let Some(s) = a.sizes {
        if s.iter().any(|&x| x > 34) {
            bail!("--sizes are log2 values (e.g. 16,20,24,28)");
        }
        opts.sizes = s;
    }
    if let Some(o) = a.ops {
        for op in &o {
            if !["sort", "scan", "compact", "reduce", "copy"].contains(&op.as_str()) {
                bail!("unknown op family `{op}` (sort, scan, compact, reduce, copy)");
            }
        }
        opts.ops = o;
    }
    if let Some(k) = a.keys {
        opts.keys = k
            .iter()
            .map(|s| elem_type(s, "key", &ElemType::ALL))
            .collect::<Result<_>>()?;
    }
    if let Some(v) = a.values {
        opts.values = v
            .iter()
            .map(|s| match s.as_str() {
                "none" => Ok(None),
                s => elem_type(s, "value", &[ElemType::U32, ElemType::U64]).map(Some),
            })
            .collect::<Result<_>>()?;
    }
    if let Some(d) = a.dists {
        opts.dists = if d.iter().any(|x| x == "all") {
            Dist::ALL.to_vec()
        } else if d.iter().any(|x| x == "paper") {
            Dist::PAPER.to_vec()
        } else {
            d.iter()
                .map(|s| s.parse::<Dist>().map_err(|e| anyhow::anyhow!(e)))
                .collect::<Result<_>>()?
        };
    }
    if let Some(al) = a.algos {
        opts.sort_algos = if al.iter().any(|x| x == "all") {
            None
        } else {
            Some(algorithm_names(
                &al,
                ops::sort_algorithm_name,
                "sort",
                &sort_algos(),
            )?)
        };
    }
    if let Some(al) = a.scan_algos {
        opts.scan_algos = Some(algorithm_names(
            &al,
            ops::scan_algorithm_name,
            "scan",
            &scan_algos(),
        )?);
    }
    if let Some(r) = a.reps {
        opts.reps = r.max(1);
    }
    if let Some(b) = a.budget_ms {
        if !(b >= 0.0 && b.is_finite()) {
            anyhow::bail!("--budget-ms {b}: a number of milliseconds, 0 or more");
        }
        opts.budget_ms = b;
    }
    if let Some(m) = a.max_ms {
        if !(m >= 0.0 && m.is_finite()) {
            anyhow::bail!("--max-ms {m}: a number of milliseconds, 0 or more");
        }
        opts.max_run_ms = m;
    }
    if let Some(k) = a.gpu_check_from {
        if k >= 64 {
            anyhow::bail!("--gpu-check-from {k}: an exponent below 64 (0: never)");
        }
        opts.gpu_check_min = if k == 0 { 0 } else { 1 << k };
    }
    if let Some(w) = a.warmup {
        opts.warmup = w;
    }
    opts.seed = a.seed;
    opts.descending = a.descending;
    if let Some(b) = &a.bits {
        opts.bits = Some(parse_bits(b, ElemType::U128)?);
    }
    if let Some(c) = &a.counts {
        let mut counts = Vec::new();
        for name in c {
            let form = ops::CountForm::from_name(name).ok_or_else(|| {
                anyhow::anyhow!("unknown count form `{name}` in --counts (host, gpu)")
            })?;
            if !counts.contains(&form) {
                counts.push(form);
            }
        }
        if counts.is_empty() {
            bail!("--counts: host, gpu or both");
        }
        opts.counts = counts;
    }
    let mut cub: Option<bench::compare::CubFigures> = None;
    for p in &a.compare {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading `{}`", p.display()))?;
        let figures =
            bench::compare::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        match &mut cub {
            Some(c) => c.merge(figures),
            None => cub = Some(figures),
        }
    }
    let ctx = context(device)?;
    eprintln!(
        "measuring the compute-copy roofline on {} ...",
        ctx.caps().name
    );
    let roofline = crate::calibrate::measure_roofline(&ctx)?;
    let cal = match (Calibration::load(&ctx), a.recalibrate) {
        (Some(c), false) => c,
        _ => {
            let c = Calibration::measure(&ctx, Some(roofline))?;
            let _ = c.save(&ctx);
            c
        }
    };
    let total = opts.plan(&ctx).len() as u64;
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    // rows are appended to bench.partial.csv as they are measured (kept if the sweep is cut short), and
    // logged to stderr when no progress bar is shown
    std::fs::create_dir_all(&a.out_dir)
        .with_context(|| format!("creating `{}`", a.out_dir.display()))?;
    let partial_path = a.out_dir.join("bench.partial.csv");
    let mut partial = std::fs::File::create(&partial_path)
        .with_context(|| format!("creating `{}`", partial_path.display()))?;
    let _ = partial.write_all(bench::report::CSV_HEADER.as_bytes());
    let tty = std::io::stderr().is_terminal();
    let mut progress = |done: usize, total: usize, what: &str, row: Option<&bench::Row>| {
        bar.set_position(done as u64);
        if !what.is_empty() {
            bar.set_message(what.to_string());
        }
        if let Some(r) = row {
            let _ = partial.write_all(bench::report::csv_line(r).as_bytes());
            if !tty {
                let w = r.wall_s;
                eprintln!(
                    "[{done}/{total}] {} {} {} 2^{}: {} (wall {:.2} s: inputs {:.2}, prepare {:.2}, timing {:.2}, \
                     readback {:.2}, checks {:.2})",
                    r.op,
                    r.algo,
                    r.dist,
                    r.n.trailing_zeros(),
                    if r.verified {
                        format!("{:.4} ms", r.ms_median)
                    } else {
                        "FAILED".into()
                    },
                    w.iter().sum::<f64>(),
                    w[0],
                    w[1],
                    w[2],
                    w[3],
                    w[4]
                );
            }
        }
    };
    let started = std::time::Instant::now();
    let mut report = bench::run(&ctx, &opts, &cal, roofline, &mut progress)?;
    bar.finish_and_clear();
    eprintln!(
        "sweep of {} configurations: {:.1} s ({})",
        report.rows.len() + report.skipped.len(),
        started.elapsed().as_secs_f64(),
        report
            .phases_s
            .iter()
            .map(|(k, v)| match k.as_str() {
                "checks" => format!("{k} {v:.1} s alongside"),
                _ => format!("{k} {v:.1} s"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(c) = &cub {
        bench::compare::attach(&mut report, c);
    }
    print!("{}", bench::report::table(&report));
    if a.explain {
        print!("\n{}", bench::report::explain(&report));
    }
    let mut files = bench::report::write_files(&report, &a.out_dir)
        .with_context(|| format!("writing into `{}`", a.out_dir.display()))?;
    let _ = std::fs::remove_file(&partial_path);
    if !a.no_plots {
        files.extend(
            bench::plot::write_plots(&report, &a.out_dir)
                .map_err(|e| anyhow::anyhow!("plots: {e}"))?,
        );
    }
    println!(
        "\nwrote {}",
        files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let failures = report.failures();
    if !failures.is_empty() {
        eprintln!(
            "vksort: {} configurations FAILED verification",
            failures.len()
        );
        return Ok(1);
    }
    Ok(0)
}

fn calibrate(a: CalibrateArgs, device: Option<String>) -> Result<i32> {
    let ctx = context(device)?;
    let cal = if a.show {
        match Calibration::load(&ctx) {
            Some(c) => c,
            None => {
                println!(
                    "no cached calibration for {} (run `vksort calibrate`)",
                    ctx.caps().name
                );
                return Ok(0);
            }
        }
    } else {
        let c = Calibration::measure(&ctx, None)?;
        match c.save(&ctx) {
            Ok(p) => println!("saved {}", p.display()),
            Err(e) => eprintln!("vksort: could not save the calibration: {e}"),
        }
        c
    };
    println!(
        "{}: roofline {:.1} GB/s, {:.2} us per dispatch",
        cal.device_name,
        cal.roofline_bytes_per_s / 1e9,
        cal.fixed_ns_per_dispatch / 1e3
    );
    for (k, v) in &cal.efficiency {
        println!(
            "  {k:<28} efficiency {v:.3}, overhead {:.1} us",
            cal.overhead_ns.get(k).copied().unwrap_or(0.0) / 1e3
        );
    }
    Ok(0)
}

fn demo(a: DemoArgs, device: Option<String>) -> Result<i32> {
    let ctx = context(device)?;
    let n = match &a.n {
        Some(s) => io::parse_count(s)? as usize,
        None if ctx.caps().is_cpu() => 1 << 20,
        None => 1 << 22,
    };
    println!(
        "vksort demo on {} ({}), N = {n}",
        ctx.caps().name,
        ctx.caps().driver_info
    );
    let roof = crate::calibrate::measure_roofline(&ctx)?;
    println!("compute-copy roofline: {:.1} GB/s", roof / 1e9);
    let mut specs = vec![
        OpSpec::Scan {
            algo: "lookback".into(),
            elem: ElemType::U32,
            inclusive: false,
        },
        OpSpec::Compact {
            elem: ElemType::U32,
            flags: FlagMode::Odd,
        },
        OpSpec::Reduce {
            elem: ElemType::U32,
            op: "sum".into(),
        },
    ];
    specs.push(OpSpec::Sort {
        algo: "auto".into(),
        key: ElemType::U32,
        value: Some(ElemType::U32),
        descending: false,
        bits: None,
        count: ops::CountForm::Host,
    });
    specs.push(OpSpec::Copy {
        elem: ElemType::U32,
    });
    let mut status = 0;
    for spec in &specs {
        let title = format!("{} [{}]", spec.op_name(Dist::Uniform), spec.algo());
        if !spec.available() {
            println!("{title}: not in this build of vksort yet");
            continue;
        }
        let input = Input::generate(spec, n, Dist::Uniform, a.seed);
        let (out, timing) = ops::run_once(&ctx, spec, &input)?;
        // Auto's choice, as the run made it.
        let title = match out.algorithm {
            Some(a) if a.name() != spec.algo() => {
                format!(
                    "{} [{}: {}]",
                    spec.op_name(Dist::Uniform),
                    spec.algo(),
                    a.name()
                )
            }
            _ => title,
        };
        let ms = timing.median_ns() / 1e6;
        let verdict = match ops::verify(spec, &input, &out, n <= 1 << 22) {
            Ok(()) => "matches the CPU".to_string(),
            Err(m) => {
                status = 1;
                format!("MISMATCH: {m}")
            }
        };
        println!(
            "{title}: {} GPU, {} items/s; {verdict}",
            io::fmt_ms(ms),
            io::fmt_rate(n as f64 / (ms * 1e-3).max(1e-12))
        );
        for p in &timing.passes {
            println!("    {:<32} {}", p.label, io::fmt_ms(p.ns / 1e6));
        }
    }
    Ok(status)
}

/// Maps the names (or aliases) the user gave to the library's algorithm names, or an error listing them.
fn algorithm_names(
    given: &[String],
    lookup: fn(&str) -> Option<&'static str>,
    family: &str,
    known: &[&str],
) -> Result<Vec<String>> {
    given
        .iter()
        .map(|x| {
            lookup(x).map(str::to_string).ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown {family} algorithm `{x}` (one of {})",
                    known.join(", ")
                )
            })
        })
        .collect()
}
