//! Sorts more keys than one look-back status word counts (2^30 - 1) or than one storage-buffer binding holds, and
//! checks the result in O(n): `cargo run --release --example huge -- [N or LOG2_N=31] [none|u32|u64] [u32|u64]`
//! (values, then keys).
//!
//! N up to 64 is read as a power of two. Keys are random (values, when asked for, the original index). The
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

/// Bytes per upload/download piece (1 GiB).
const PIECE_BYTES: usize = 1 << 30;

/// A key or value word of the example: u32 or u64.
trait Word: bytemuck::Pod + Ord + Send + Sync {
    fn from_u64(x: u64) -> Self;
    fn to_u64(self) -> u64;
}

impl Word for u32 {
    fn from_u64(x: u64) -> Self {
        x as u32
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
}

impl Word for u64 {
    fn from_u64(x: u64) -> Self {
        x
    }
    fn to_u64(self) -> u64 {
        self
    }
}

fn upload<T: Word>(buf: &Buffer, data: &[T]) -> anyhow::Result<()> {
    let piece = PIECE_BYTES / std::mem::size_of::<T>();
    for (i, chunk) in data.chunks(piece).enumerate() {
        buf.write((i * PIECE_BYTES) as u64, bytemuck::cast_slice(chunk))?;
    }
    Ok(())
}

fn download<T: Word>(buf: &Buffer, n: usize) -> anyhow::Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    let piece = PIECE_BYTES / size;
    let mut out = Vec::with_capacity(n);
    let mut off = 0usize;
    while off < n {
        let len = piece.min(n - off);
        let bytes = buf.read((off * size) as u64, (len * size) as u64)?;
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
        .filter(|v| matches!(v, ValueType::None | ValueType::U32 | ValueType::U64))
        .ok_or(anyhow::anyhow!("values: none, u32 or u64"))?;
    let key = KeyType::from_name(args.get(2).map_or("u32", |s| s.as_str()))
        .filter(|k| matches!(k, KeyType::U32 | KeyType::U64))
        .ok_or(anyhow::anyhow!("keys: u32 or u64"))?;
    match (key, value) {
        (KeyType::U32, ValueType::U64) => run::<u32, u64>(n, key, value),
        (KeyType::U32, _) => run::<u32, u32>(n, key, value),
        (_, ValueType::U64) => run::<u64, u64>(n, key, value),
        _ => run::<u64, u32>(n, key, value),
    }
}

/// Sorts `n` random `K` keys (with `V` values, the original index, unless `value` is none) and checks them.
fn run<K: Word, V: Word>(n: usize, key: KeyType, value: ValueType) -> anyhow::Result<()> {
    let (kw, vw) = (
        std::mem::size_of::<K>() as u64,
        std::mem::size_of::<V>() as u64,
    );
    let ctx: Arc<vksort::Context> = vksort::Context::new(vksort::ContextOptions::from_env())?;
    let sorter = Sorter::new(
        &ctx,
        SortConfig {
            key,
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
        "{}: n = {n} {} keys{}, algorithm {:?}, portions {} x {} keys (wide writes: {}), scratch {:.2} GiB, binding range {:.2} GiB",
        ctx.caps().name,
        key.name(),
        if value == ValueType::None {
            String::new()
        } else {
            format!(" + {} values", value.name())
        },
        sorter.algorithm_for(n as u64),
        layout.portions.count,
        layout.portions.keys,
        layout.portions.wide,
        layout.total as f64 / (1u64 << 30) as f64,
        ctx.caps().max_storage_buffer_range as f64 / (1u64 << 30) as f64,
    );
    let t0 = std::time::Instant::now();
    // splitmix64 of the index, so that threads generate their parts independently; 32-bit keys take the high half.
    let mut keys: Vec<K> = vec![K::from_u64(0); n];
    par_chunks(&mut keys, |start, part| {
        for (i, k) in part.iter_mut().enumerate() {
            let x = splitmix64((start + i) as u64);
            *k = K::from_u64(if kw == 4 { x >> 32 } else { x });
        }
    });
    let with_values = value != ValueType::None;
    let mut idx: Vec<V> = vec![V::from_u64(0); if with_values { n } else { 0 }];
    par_chunks(&mut idx, |start, part| {
        for (i, v) in part.iter_mut().enumerate() {
            *v = V::from_u64((start + i) as u64);
        }
    });
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
    let (key_bytes, val_bytes) = (n as u64 * kw, if with_values { n as u64 * vw } else { 4 });
    let kb = Buffer::device_local(&ctx, "huge::keys", key_bytes)?;
    let vb = Buffer::device_local(&ctx, "huge::values", val_bytes)?;
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
    let kc = Buffer::device_local(&ctx, "huge::keys_input", key_bytes)?;
    upload(&kc, &keys)?;
    let vc = Buffer::device_local(&ctx, "huge::values_input", val_bytes)?;
    if with_values {
        upload(&vc, &idx)?;
    }
    drop(idx);
    println!("uploaded in {:.1} s", t.elapsed().as_secs_f64());
    let restore = |dma: bool| -> anyhow::Result<()> {
        ctx.submit("huge::restore", |rec| {
            let mut pairs = vec![(&kc, &kb, key_bytes)];
            if with_values {
                pairs.push((&vc, &vb, val_bytes));
            }
            for (src, dst, bytes) in pairs {
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
    let got: Vec<K> = download(&kb, n)?;
    // The check runs on every host thread: 2^31 random reads of the input keys take minutes on one.
    let ordered = par_all(n, |r| {
        let end = (r.end + 1).min(n);
        got[r.start..end].windows(2).all(|w| w[0] <= w[1])
    });
    let fp = |v: &[K]| {
        par_map(v.len(), |r| {
            v[r].iter().fold((0u64, 0u64), |(s, x), &k| {
                (s.wrapping_add(k.to_u64()), x ^ k.to_u64())
            })
        })
        .into_iter()
        .fold((0u64, 0u64), |(s, x), (a, b)| (s.wrapping_add(a), x ^ b))
    };
    let same = fp(&got) == fp(&keys);
    let mut stable = true;
    if with_values {
        let vals: Vec<V> = download(&vb, n)?;
        stable = par_all(n, |r| {
            r.into_iter().all(|i| {
                let v = vals[i].to_u64() as usize;
                v < n
                    && keys[v] == got[i]
                    && (i == 0 || got[i - 1] != got[i] || vals[i - 1] < vals[i])
            })
        });
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

/// splitmix64: a well-mixed 64-bit value of `i`.
fn splitmix64(i: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |t| t.get())
}

/// Runs `f(first index, part)` over about equal parts of `v`, one per host thread.
fn par_chunks<T: Send>(v: &mut [T], f: impl Fn(usize, &mut [T]) + Sync) {
    let part = v.len().div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (j, c) in v.chunks_mut(part).enumerate() {
            let f = &f;
            s.spawn(move || f(j * part, c));
        }
    });
}

/// `f` over about equal index ranges of `0..n`, one per host thread; the results in order.
fn par_map<R: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> R + Sync) -> Vec<R> {
    let part = n.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(part)
            .map(|start| {
                let f = &f;
                s.spawn(move || f(start..(start + part).min(n)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a check thread panicked"))
            .collect()
    })
}

fn par_all(n: usize, f: impl Fn(std::ops::Range<usize>) -> bool + Sync) -> bool {
    par_map(n, f).into_iter().all(|b| b)
}
