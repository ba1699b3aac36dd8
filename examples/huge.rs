//! Sorts more keys than one look-back status word counts (2^30 - 1) or than one storage-buffer binding holds, and
//! checks the result in O(n): `cargo run --release --example huge -- [N or LOG2_N=31] [none|u32]`.
//!
//! N up to 64 is read as a power of two. Keys are random u32 (values, when asked for, the original index). The
//! sort is cut into portions and written through device addresses as needed (the layout is printed). Keys and
//! values travel in 1 GiB pieces. The check: keys non-decreasing, the same multiset fingerprint (wrapping sum
//! and xor) as the input; with values: every value points at an input key equal to the sorted key, and values
//! of equal keys increase (stability). The sort runs three times on the same input, restored on the GPU from a
//! device-local copy before each run, each timed with timestamp queries; the last run's passes are printed.
//! The first run follows the host uploads, during which the GPU's SMs idle: on an H200 a 16 GiB upload left
//! them at idle clocks, and that run took 3-5x as long (docs/tuning.md, "Beyond one binding").
//!
//! `HUGE_BALLAST_GIB=G` (a diagnostic for issue 30) first allocates and fills G GiB of device-local memory that
//! the sort never touches: a keys-only sort beside ballast the size of the values and their scratch tells
//! whether pairs are slow for their traffic or for the memory they occupy.
use std::sync::Arc;
use vksort::gpu::{sum_by_label, Buffer, Profiler};
use vksort::sort::{KeyType, SortConfig, Sorter, ValueType};

const PIECE: usize = 1 << 28; // u32 words per upload/download piece (1 GiB)

fn upload(buf: &Buffer, data: &[u32]) -> anyhow::Result<()> {
    for (i, chunk) in data.chunks(PIECE).enumerate() {
        buf.write((i * PIECE * 4) as u64, bytemuck::cast_slice(chunk))?;
    }
    Ok(())
}

fn download(buf: &Buffer, n: usize) -> anyhow::Result<Vec<u32>> {
    let mut out = Vec::with_capacity(n);
    let mut off = 0usize;
    while off < n {
        let len = PIECE.min(n - off);
        let bytes = buf.read((off * 4) as u64, (len * 4) as u64)?;
        out.extend_from_slice(bytemuck::cast_slice(&bytes));
        off += len;
    }
    Ok(out)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: u64 = args.first().map(|s| s.parse()).transpose()?.unwrap_or(31);
    let n = if a <= 64 { 1u64 << a } else { a } as usize;
    let value = ValueType::from_name(args.get(1).map_or("none", |s| s.as_str()))
        .ok_or(anyhow::anyhow!("values: none or u32"))?;
    anyhow::ensure!(
        matches!(value, ValueType::None | ValueType::U32),
        "values: none or u32"
    );
    let ctx: Arc<vksort::Context> = vksort::Context::new(vksort::ContextOptions::from_env())?;
    let sorter = Sorter::new(
        &ctx,
        SortConfig {
            key: KeyType::U32,
            value,
            max_n: n as u64,
            ..Default::default()
        },
    )?;
    let layout = sorter
        .backend::<vksort::sort::radix::RadixSort>()
        .expect("a radix sorter")
        .pick(n as u64)
        .layout(n as u64);
    println!(
        "{}: n = {n} u32 keys{}, algorithm {:?}, portions {} x {} keys (wide writes: {}), scratch {:.2} GiB, binding range {:.2} GiB",
        ctx.caps().name,
        if value == ValueType::None { "" } else { " + u32 values" },
        sorter.algorithm_for(n as u64),
        layout.portions.count,
        layout.portions.keys,
        layout.portions.wide,
        layout.total as f64 / (1u64 << 30) as f64,
        ctx.caps().max_storage_buffer_range as f64 / (1u64 << 30) as f64,
    );
    let t0 = std::time::Instant::now();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let keys: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect();
    let with_values = value != ValueType::None;
    let idx: Vec<u32> = if with_values {
        (0..n as u32).collect()
    } else {
        Vec::new()
    };
    let ballast_gib: u64 = std::env::var("HUGE_BALLAST_GIB").map_or(Ok(0), |s| s.parse())?;
    let ballast: Vec<Buffer> = (0..ballast_gib)
        .map(|i| Buffer::device_local(&ctx, &format!("huge::ballast{i}"), 1 << 30))
        .collect::<Result<_, _>>()?;
    if !ballast.is_empty() {
        ctx.submit("huge::ballast", |rec| {
            for b in &ballast {
                rec.fill("huge::ballast", b.as_ref(), 0x5a5a_5a5a)?;
            }
            Ok(())
        })?;
        println!("ballast: {ballast_gib} GiB allocated and filled");
    }
    let kb = Buffer::device_local(&ctx, "huge::keys", n as u64 * 4)?;
    let vb = Buffer::device_local(
        &ctx,
        "huge::values",
        if with_values { n as u64 * 4 } else { 4 },
    )?;
    let req = sorter.storage_requirements(n as u64)?;
    let scratch = Buffer::new(
        &ctx,
        "huge::scratch",
        req.scratch_bytes,
        req.scratch_usage | ctx.default_usage(),
        vksort::gpu::MemoryLocation::GpuOnly,
    )?;
    println!(
        "generated and allocated in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    // The input is uploaded once into device-local copies; every run restores it from them on the GPU (runs 0
    // and 2 with vkCmdCopyBuffer, run 1 with vksort's compute copy, in 1 GiB pieces: within one binding).
    // Run 0 follows seconds of host uploads with the GPU's SMs idle, so it may start at idle clocks: runs 1 and
    // 2 are the measurement (docs/tuning.md, "Beyond one binding").
    let t = std::time::Instant::now();
    let kc = Buffer::device_local(&ctx, "huge::keys_input", n as u64 * 4)?;
    upload(&kc, &keys)?;
    let vc = Buffer::device_local(
        &ctx,
        "huge::values_input",
        if with_values { n as u64 * 4 } else { 4 },
    )?;
    if with_values {
        upload(&vc, &idx)?;
    }
    println!("uploaded in {:.1} s", t.elapsed().as_secs_f64());
    let restore = |dma: bool| -> anyhow::Result<()> {
        ctx.submit("huge::restore", |rec| {
            let mut pairs = vec![(&kc, &kb)];
            if with_values {
                pairs.push((&vc, &vb));
            }
            for (src, dst) in pairs {
                let bytes = n as u64 * 4;
                let mut off = 0;
                while off < bytes {
                    let len = (bytes - off).min(1 << 30);
                    let (from, to) = (src.slice(off, len), dst.slice(off, len));
                    if dma {
                        rec.copy("huge::restore", from, to, len)?;
                    } else {
                        vksort::copy::cmd_copy(rec, from, to, len)?;
                    }
                    off += len;
                }
            }
            Ok(())
        })?;
        Ok(())
    };
    let mut prof = Profiler::new(&ctx, 256)?;
    let mut passes = Vec::new();
    for run in 0..3 {
        restore(run != 1)?;
        let t = std::time::Instant::now();
        let vals = with_values.then(|| vb.as_ref());
        ctx.submit_profiled("huge::sort", Some(&mut prof), |rec| {
            sorter.cmd_sort(rec, kb.as_ref(), vals, scratch.as_ref(), n as u64)
        })?;
        let wall = t.elapsed().as_secs_f64();
        passes = prof.results()?;
        let total: f64 = passes.iter().map(|p| p.ns).sum();
        let upfront = passes
            .iter()
            .filter(|p| p.label.contains("upfront"))
            .fold(0.0, |a, p| a + p.ns);
        println!(
            "run {run}{}: sort submitted and waited {wall:.3} s, GPU time {:.2} ms = {:.2} G keys/s (upfront {:.2} ms)",
            if run == 0 { " (after the uploads)" } else { "" },
            total / 1e6,
            n as f64 / total,
            upfront / 1e6
        );
    }
    let total: f64 = passes.iter().map(|p| p.ns).sum();
    println!("run 2's passes:");
    for p in sum_by_label(&passes) {
        println!("  {:<48} {:>10.3} ms", p.label, p.ns / 1e6);
    }
    println!(
        "GPU time {:.2} ms = {:.2} G keys/s",
        total / 1e6,
        n as f64 / total
    );
    let t = std::time::Instant::now();
    let got = download(&kb, n)?;
    let ordered = got.windows(2).all(|w| w[0] <= w[1]);
    let fp = |v: &[u32]| {
        v.iter()
            .fold((0u64, 0u32), |(s, x), &k| (s.wrapping_add(k as u64), x ^ k))
    };
    let same = fp(&got) == fp(&keys);
    let mut stable = true;
    if with_values {
        let vals = download(&vb, n)?;
        stable = vals
            .iter()
            .zip(&got)
            .all(|(&v, &k)| (v as usize) < n && keys[v as usize] == k)
            && (1..n).all(|i| got[i - 1] != got[i] || vals[i - 1] < vals[i]);
    }
    println!(
        "check ({:.1} s): ordered {ordered}, same keys {same}{}",
        t.elapsed().as_secs_f64(),
        if with_values {
            format!(", values follow their keys stably {stable}")
        } else {
            String::new()
        }
    );
    anyhow::ensure!(ordered && same && stable, "WRONG RESULT");
    println!("OK");
    Ok(())
}
