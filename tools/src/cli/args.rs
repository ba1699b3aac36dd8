//! The command line (clap). Flags are a contract for scripts; see `vksort <command> --help`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "vksort",
    version,
    about = "GPU sort, scan and stream compaction through Vulkan compute",
    after_help = "Exit status: 0 success, 1 a --check found a wrong result, 2 bad input or an error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
    /// Vulkan device: an index (as `vksort info` lists) or a case-insensitive name substring.
    #[arg(long, global = true, env = "VKSORT_DEVICE", value_name = "INDEX|NAME")]
    pub device: Option<String>,
    /// Debug lines on standard error: the pipeline cache (hit or miss, pipelines compiled), the stages of a
    /// run and their times (also `VKSORT_LOG=debug`).
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Sort keys (and values) on the GPU.
    Sort(SortArgs),
    /// Prefix sum (exclusive by default) on the GPU.
    Scan(ScanArgs),
    /// Stream compaction: keep the non-zero elements (or those whose flag is non-zero).
    Compact(CompactArgs),
    /// Sweep algorithms x types x sizes x distributions; tables, CSV, JSON, SVG plots, model, CUB comparison.
    Bench(BenchArgs),
    /// Measure the performance model's parameters on this device and cache them (for `--algo model`).
    Calibrate(CalibrateArgs),
    /// List the Vulkan devices, their limits and subgroup features, and the policy vksort picks on each.
    Info,
    /// Generate random numbers, scan, compact and sort them on the GPU, check each against the CPU.
    Demo(DemoArgs),
}

/// Where the input comes from.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input file: a raw little-endian array of the element type (`-`: standard input). A relative path is
    /// relative to the directory vksort was started in (also through `./dev vksort`).
    #[arg(long, value_name = "FILE", conflicts_with = "random")]
    pub input: Option<String>,
    /// Read and write one number per line instead of raw binary. A sort with --values reads `key value`
    /// lines (what --print writes) when no --input-values is given.
    #[arg(long)]
    pub text: bool,
    /// Generate N random elements instead of reading them. N: a number (`1000000`, `1_000_000`), `2^K`, or
    /// with a suffix: K, M, G are powers of 1000 (`100K` = 100000), Ki, Mi, Gi powers of 1024
    /// (`1Mi` = 1048576).
    #[arg(long, value_name = "N")]
    pub random: Option<String>,
    /// Seed of --random.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Distribution of --random: uniform, gaussian, bucket, sorted, reverse, zero, staggered, few-unique,
    /// entropy-K (K random words ANDed), visibility (view depths of a particle cloud seen from a camera; see
    /// `vksort_tools::bench::dist`).
    #[arg(long, value_name = "D", default_value = "uniform")]
    pub dist: String,
}

/// Where the output goes.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output file, same format as the input (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub output: Option<String>,
    /// Print the result to standard output, one number per line (`key value` with values).
    #[arg(long)]
    pub print: bool,
    /// Verify the result on the CPU; exit status 1 and the first bad index if it is wrong.
    #[arg(long)]
    pub check: bool,
    /// Print the GPU time of every pass (to standard error).
    #[arg(long)]
    pub passes: bool,
    /// Capture one run of the operation with RenderDoc into FILE.rdc (loads librenderdoc.so: RenderDoc must be
    /// installed); open it with `qrenderdoc FILE.rdc`. The passes are labelled `vksort::...`.
    #[arg(long, value_name = "FILE.rdc")]
    pub capture: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SortArgs {
    /// Key type: u32, i32, f32, u64, i64, f64, u128 (little-endian 16-byte words in files; decimal or 0x hex
    /// in text). The radix sorts take keys of up to 64 bits; u128 keys go to the comparison sorts.
    #[arg(long, default_value = "u32", value_name = "TYPE")]
    pub keys: String,
    /// Value type carried with the keys: none, u32, u64. Random input (or a key file without
    /// --input-values) gets the original index as values, so --check verifies stability.
    #[arg(long, default_value = "none", value_name = "TYPE")]
    pub values: String,
    /// Values file (raw little-endian or, with --text, one per line).
    #[arg(long, value_name = "FILE")]
    pub input_values: Option<String>,
    /// Values output file.
    #[arg(long, value_name = "FILE")]
    pub output_values: Option<String>,
    /// Sort in descending order.
    #[arg(long)]
    pub descending: bool,
    /// Sort by bits LO..HI of the key's order-preserving image only (e.g. 0..16).
    #[arg(long, value_name = "LO..HI")]
    pub bits: Option<String>,
    /// Algorithm: auto (the library's own choice, as `Sorter::new` with `SortAlgorithm::Auto` makes it:
    /// instant, no calibration), model (the calibrated performance model picks among the stable ones; the
    /// first use on a device calibrates it, see `vksort calibrate`), or any name `vksort info` lists
    /// (onesweep, reduce-then-scan, small, msd, bitonic, ...). One that cannot sort the key type is refused
    /// with the list of those that can.
    #[arg(long, default_value = "auto", value_name = "ALGO")]
    pub algo: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Element type: u32 or u64.
    #[arg(long, default_value = "u32", value_name = "TYPE")]
    pub keys: String,
    /// Inclusive scan (default exclusive).
    #[arg(long)]
    pub inclusive: bool,
    /// Algorithm: lookback (the library's default), reduce-then-scan, blelloch, hillis-steele.
    #[arg(long, default_value = "lookback", value_name = "ALGO")]
    pub algo: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// Element type (u32).
    #[arg(long, default_value = "u32", value_name = "TYPE")]
    pub keys: String,
    /// Flags file (u32, same format as the input): keep element i where flag i is non-zero.
    #[arg(long, value_name = "FILE")]
    pub flags: Option<String>,
    /// Keep the odd elements (value & 1 tested on each element, no flags: CUB's select_if_odd).
    #[arg(long, conflicts_with = "flags")]
    pub odd: bool,
    /// Keep the elements x with LO <= x < HI (unsigned; with --flags, tested on the flag), e.g. 100..200.
    #[arg(long, value_name = "LO..HI", conflicts_with = "odd")]
    pub range: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Directory for bench.csv, bench.json, vksort-cub-format.csv and the SVG plots.
    #[arg(long, default_value = "vksort-bench", value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Sizes as log2, comma-separated (default 10,12,...,28; clipped to the device).
    #[arg(long, value_delimiter = ',', value_name = "LOG2,...")]
    pub sizes: Option<Vec<u32>>,
    /// Families: sort, scan, compact, reduce, copy.
    #[arg(long, value_delimiter = ',', value_name = "OP,...")]
    pub ops: Option<Vec<String>>,
    /// Sort algorithms to run (default or `all`: every one of this build, the library's SortAlgorithm::ALL).
    #[arg(long, value_delimiter = ',', value_name = "ALGO,...")]
    pub algos: Option<Vec<String>>,
    /// Scan algorithms to run (default: all of this build).
    #[arg(long, value_delimiter = ',', value_name = "ALGO,...")]
    pub scan_algos: Option<Vec<String>>,
    /// Key types: u32, i32, f32, u64, i64, f64, u128 (default u32,f32,u64). Algorithms that refuse a key type
    /// (the radix sorts and u128) are skipped with a note.
    #[arg(long, value_delimiter = ',', value_name = "TYPE,...")]
    pub keys: Option<Vec<String>>,
    /// Value types: none, u32, u64 (default none,u32).
    #[arg(long, value_delimiter = ',', value_name = "TYPE,...")]
    pub values: Option<Vec<String>>,
    /// Distributions (default uniform; `all` for every one; `paper` for the GPU-quicksort paper's uniform,
    /// gaussian, bucket, sorted, zero, staggered, visibility).
    #[arg(long, value_delimiter = ',', value_name = "D,...")]
    pub dists: Option<Vec<String>>,
    /// Timed repeats per configuration (default 10; 3 with --quick); at most: a configuration whose run
    /// takes longer than --budget-ms / reps gets fewer (at least 3).
    #[arg(long)]
    pub reps: Option<usize>,
    /// GPU time in milliseconds that bounds a slow configuration's timed repeats (default 1000; 0: always
    /// --reps).
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<f64>,
    /// Skip sorts whose run would take longer than this many milliseconds and more than 10x the fastest
    /// algorithm's for the same operation and size, estimated from the last size measured (default 50; 0:
    /// none; e.g. WarpSort at 2^26-2^28 keys on an H200). They are listed in skipped.csv with the estimate.
    #[arg(long, value_name = "MS")]
    pub max_ms: Option<f64>,
    /// Sorts of 2^K keys or more are checked where their result lies (order,
    /// stability, a fingerprint against the input's) and read back for the CPU check only when that fails
    /// (default 22; 0: every result is read back and checked on the CPU).
    #[arg(long, value_name = "K")]
    pub gpu_check_from: Option<u32>,
    /// Untimed runs before them (default 2; 1 with --quick).
    #[arg(long)]
    pub warmup: Option<usize>,
    /// Also sweep descending sorts.
    #[arg(long)]
    pub descending: bool,
    /// Also sweep key-only sorts on bits LO..HI (e.g. 0..16, as CUB's sort_keys_u32_bits0-16).
    #[arg(long, value_name = "LO..HI")]
    pub bits: Option<String>,
    /// Count forms of every sort swept (default host): `host`, the host's N (`Sorter::cmd_sort`); `gpu`, a
    /// count that lives on the GPU as a renderer's cull count does (`Sorter::cmd_sort_indirect`: a device
    /// buffer holding N, capacity 2N; Auto chooses its algorithm for 2N). GPU-count rows have ops ending in
    /// `_gpucount` (compared with CUB's figures of the op without it) and `count` = `gpu` in bench.csv and
    /// bench.json; with `host,gpu` a "GPU-side count vs host count" table (ratio GPU / host per op and N)
    /// follows the tables and goes into bench.md.
    #[arg(long, value_delimiter = ',', value_name = "host,gpu")]
    pub counts: Option<Vec<String>>,
    /// Seed of the inputs.
    #[arg(long, default_value_t = 1234)]
    pub seed: u64,
    /// A small sweep (sizes 2^10 and 2^14, u32 keys, 3 repeats).
    #[arg(long)]
    pub quick: bool,
    /// CUB's figures to compare with: the CSV of cub_bench.cu and/or scripts/anchors/cub_merge_bench.cu
    /// (comma-separated or repeated; a later file's figure of the same op and N wins). `merge_<op>` lines are
    /// CUB's merge sort, reported beside its radix sort.
    #[arg(long, value_name = "CUB.CSV,...", value_delimiter = ',')]
    pub compare: Vec<PathBuf>,
    /// Print, per pass, predicted versus measured time and what bounds it.
    #[arg(long)]
    pub explain: bool,
    /// Skip the SVG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Recalibrate the model first even if a cached calibration exists.
    #[arg(long)]
    pub recalibrate: bool,
}

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Only print the cached calibration (if any).
    #[arg(long)]
    pub show: bool,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Elements (default 2^22 on a GPU, 2^20 on a CPU device; suffixes as --random's).
    #[arg(long, value_name = "N")]
    pub n: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}
