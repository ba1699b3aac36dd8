//! vksort in a wgpu program (feature `wgpu`): a headless wgpu device on the Vulkan backend, opened with what
//! vksort needs ([`vksort::wgpu::request_device`]); a WGSL compute pass fills key and value buffers (and, for
//! the GPU-side count, writes the count as an atomic counter would); vksort sorts them in the same submission;
//! a following WGSL pass checks the order on the GPU; the results are read back and checked against a CPU sort.
//! u32 and f32 keys with u32 values, host and GPU-side counts.
//!
//! `cargo run --release --features wgpu --example wgpu_sort -- [--n N] [--key u32|f32|both] [--count host|gpu|both]`
//! prints each sort's GPU time (vksort's timestamps around its passes). `VKSORT_VALIDATION=1` turns on wgpu's
//! validation (the Khronos layer) and fails on any validation error.
//!
//! `... --example wgpu_sort -- --bench REPS [--sizes 16,20,24]` times u32 keys with u32 values (uniform random,
//! host count, the default algorithm) through the wgpu path and through vksort's own ash context on the same
//! GPU, the same way for both: each run restores the unsorted input by a copy outside the timed span, then a
//! timestamp, the sort, a timestamp (wgpu: the sort in an encoder of its own between two encoders that write
//! the stamps; ash: the sort between two `Recorder::stamp`s); all runs of a size in one submission after at
//! least 300 ms of untimed ones (clocks); the median run is printed and the last run checked against a CPU sort.
//! tools/anchors/wgpu-sort times the `wgpu_sort` crate (WGSL) the same way.

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use vksort::sort::{KeyType, SortConfig, ValueType};
use vksort::wgpu::{request_device, WgpuContext, WgpuCount, WgpuSorter};

/// The fill and check passes. `params`: n, the count m, key kind (0: u32, 1: f32).
const SHADER: &str = r#"
struct Params { n: u32, m: u32, kind: u32, pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> counter: array<atomic<u32>, 2>;

fn hash(x: u32) -> u32 {
    var h = x * 747796405u + 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    return (h >> 22u) ^ h;
}

fn key_of(i: u32) -> u32 {
    let r = hash(i) % (params.n / 2u + 1u);
    if (params.kind == 1u) {
        return bitcast<u32>((f32(r) - f32(params.n / 4u)) * 0.37);
    }
    return r;
}

fn ordered(k: u32) -> u32 {
    if (params.kind == 1u) {
        return select(k | 0x80000000u, ~k, (k & 0x80000000u) != 0u);
    }
    return k;
}

@compute @workgroup_size(64)
fn fill(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 65535u * 64u;
    if (i >= params.n) { return; }
    keys[i] = key_of(i);
    values[i] = i;
    // The GPU-side count, as a renderer's culling pass counts visible items.
    if (i < params.m) { atomicAdd(&counter[0], 1u); }
}

@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 65535u * 64u;
    if (i == 0u || i >= params.m) { return; }
    let a = ordered(keys[i - 1u]);
    let b = ordered(keys[i]);
    if (a > b || (a == b && values[i - 1u] > values[i])) { atomicAdd(&counter[1], 1u); }
}
"#;

fn hash(x: u32) -> u32 {
    let h = x.wrapping_mul(747796405).wrapping_add(2891336453);
    let h = ((h >> ((h >> 28) + 4)) ^ h).wrapping_mul(277803737);
    (h >> 22) ^ h
}

fn key_of(i: u32, n: u32, float: bool) -> u32 {
    let r = hash(i) % (n / 2 + 1);
    if float {
        ((r as f32 - (n / 4) as f32) * 0.37).to_bits()
    } else {
        r
    }
}

fn ordered(k: u32, float: bool) -> u32 {
    if !float {
        k
    } else if k & 0x8000_0000 != 0 {
        !k
    } else {
        k | 0x8000_0000
    }
}

/// Blocks on a future that wgpu's native backends complete at once. (`Waker::noop` needs Rust 1.85; the `wgpu`
/// feature needs 1.87 anyway, wgpu's own minimum.)
#[allow(clippy::incompatible_msrv)]
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

static VALIDATION_ERRORS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) && !data.is_null() {
        // SAFETY: the layer passes valid callback data.
        let msg = unsafe { (*data).message_as_c_str() }
            .map(CStr::to_string_lossy)
            .unwrap_or_default();
        // wgpu's InstanceFlags::DEBUG (which enables VK_EXT_debug_utils, so this messenger) also makes naga emit
        // `OpSource WGSL` (source language 10), which older SPIRV-Tools in the layer (Debian 12's) reject. It is
        // about wgpu's own shaders, not vksort's: reported, not counted.
        if msg.contains("Invalid source language operand") {
            eprintln!("[validation, ignored: naga debug info vs. an older layer] {msg}");
        } else {
            eprintln!("[validation] {msg}");
            VALIDATION_ERRORS.fetch_add(1, Ordering::Relaxed);
        }
    }
    vk::FALSE
}

/// Options: `--n`, `--key`, `--count`; `--bench REPS` and `--sizes` (log2 sizes) for [`bench`].
pub struct Options {
    pub n: u32,
    pub keys: Vec<KeyType>,
    pub gpu_counts: Vec<bool>,
    pub bench: Option<u32>,
    pub sizes: Vec<u32>,
}

impl Options {
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self> {
        let mut o = Options {
            n: 1 << 16,
            keys: vec![KeyType::U32, KeyType::F32],
            gpu_counts: vec![false, true],
            bench: None,
            sizes: vec![16, 20, 24],
        };
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            let mut v = || args.next().with_context(|| format!("{a} needs a value"));
            match a.as_str() {
                "--n" => o.n = v()?.parse()?,
                "--key" => {
                    o.keys = match v()?.as_str() {
                        "u32" => vec![KeyType::U32],
                        "f32" => vec![KeyType::F32],
                        "both" => vec![KeyType::U32, KeyType::F32],
                        k => bail!("--key {k}: u32, f32 or both"),
                    }
                }
                "--count" => {
                    o.gpu_counts = match v()?.as_str() {
                        "host" => vec![false],
                        "gpu" => vec![true],
                        "both" => vec![false, true],
                        c => bail!("--count {c}: host, gpu or both"),
                    }
                }
                "--bench" => o.bench = Some(v()?.parse()?),
                "--sizes" => {
                    o.sizes = v()?
                        .split(',')
                        .map(|s| s.trim().parse())
                        .collect::<Result<_, _>>()?
                }
                _ => bail!(
                    "unknown argument {a} (--n N, --key u32|f32|both, --count host|gpu|both, --bench REPS, \
                     --sizes 16,20,24)"
                ),
            }
        }
        ensure!(o.n >= 8, "--n must be at least 8");
        ensure!(o.bench != Some(0), "--bench needs at least one run");
        ensure!(
            o.sizes.iter().all(|&s| (3..=30).contains(&s)),
            "--sizes: log2 sizes from 3 to 30"
        );
        Ok(o)
    }
}

/// Runs every sort of `o` (or [`bench`] with `--bench`); Err on a mismatch or a validation error.
pub fn run(o: &Options) -> Result<()> {
    if let Some(reps) = o.bench {
        return bench(reps, &o.sizes);
    }
    let validation = std::env::var("VKSORT_VALIDATION").is_ok_and(|v| v == "1");
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        flags: if validation {
            wgpu::InstanceFlags::VALIDATION | wgpu::InstanceFlags::DEBUG
        } else {
            wgpu::InstanceFlags::empty()
        },
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    // Our own messenger on wgpu's instance: count validation errors (wgpu only logs them).
    let messenger = if validation {
        // SAFETY: wgpu's live Vulkan instance, created with VK_EXT_debug_utils (InstanceFlags::DEBUG); the
        // messenger is destroyed below, before the instance.
        unsafe {
            let hal = instance
                .as_hal::<wgpu::hal::api::Vulkan>()
                .context("no Vulkan instance")?;
            let shared = hal.shared_instance();
            let du = ash::ext::debug_utils::Instance::new(shared.entry(), shared.raw_instance());
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                )
                .pfn_user_callback(Some(on_message));
            let m = du.create_debug_utils_messenger(&info, None)?;
            Some((du, m))
        }
    } else {
        None
    };
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .context("no wgpu adapter on the Vulkan backend")?;
    println!(
        "adapter: {} ({:?})",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    let (device, queue) = request_device(
        &adapter,
        &wgpu::DeviceDescriptor {
            label: Some("vksort example"),
            required_limits: adapter.limits(),
            ..Default::default()
        },
    )?;
    let ctx = WgpuContext::new(&device)?;
    let mut profiler = ctx.profiler(64)?;

    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("fill and check"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = |entry: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let (fill, check) = (pipeline("fill"), pipeline("check"));

    let n = o.n;
    let bytes = n as u64 * 4;
    let storage = |label, size| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let readback = |label, size| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let mut failures = 0;
    for &key in &o.keys {
        let float = key == KeyType::F32;
        let sorter = WgpuSorter::new(
            &ctx,
            SortConfig {
                key,
                value: ValueType::U32,
                stable: true,
                max_n: n as u64,
                ..Default::default()
            },
        )?;
        let scratch = sorter.create_scratch(n as u64)?;
        for &gpu_count in &o.gpu_counts {
            let m = if gpu_count { n - n / 5 } else { n };
            let keys = storage("keys", bytes);
            let values = storage("values", bytes);
            let counter = storage("counter", 8);
            let params = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM,
                mapped_at_creation: true,
            });
            params
                .slice(..)
                .get_mapped_range_mut()?
                .copy_from_slice(bytemuck::cast_slice(&[n, m, float as u32, 0]));
            params.unmap();
            let groups = n.div_ceil(64);
            let grid = (groups.min(65535), groups.div_ceil(65535));
            let bind = |p: &wgpu::ComputePipeline| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &p.get_bind_group_layout(0),
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: params.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: keys.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: values.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: counter.as_entire_binding(),
                        },
                    ],
                })
            };
            let (fill_bind, check_bind) = (bind(&fill), bind(&check));

            // 1. wgpu: fill the keys and values, count the first m.
            let mut a = device.create_command_encoder(&Default::default());
            {
                let mut pass = a.begin_compute_pass(&Default::default());
                pass.set_pipeline(&fill);
                pass.set_bind_group(0, &fill_bind, &[]);
                pass.dispatch_workgroups(grid.0, grid.1, 1);
            }
            // 2. vksort: sort them, in an encoder of its own (wgpu 30 does not mix raw and wgpu commands).
            let mut b = device.create_command_encoder(&Default::default());
            let count = if gpu_count {
                WgpuCount::Gpu {
                    buffer: &counter,
                    offset: 0,
                    capacity: n as u64,
                }
            } else {
                WgpuCount::Host(n as u64)
            };
            // SAFETY: the buffers live until the poll below has waited for the submission; all were written by
            // the fill pass (wgpu-initialised) but the scratch, which only vksort uses.
            unsafe {
                sorter.encode_sort_profiled(
                    &mut b,
                    &keys,
                    Some(&values),
                    &scratch,
                    count,
                    &mut profiler,
                )
            }?;
            // 3. wgpu: check the order in a following pass, copy the results out.
            let mut c = device.create_command_encoder(&Default::default());
            {
                let mut pass = c.begin_compute_pass(&Default::default());
                pass.set_pipeline(&check);
                pass.set_bind_group(0, &check_bind, &[]);
                pass.dispatch_workgroups(grid.0, grid.1, 1);
            }
            let (rk, rv, rc) = (
                readback("rk", bytes),
                readback("rv", bytes),
                readback("rc", 8),
            );
            c.copy_buffer_to_buffer(&keys, 0, &rk, 0, bytes);
            c.copy_buffer_to_buffer(&values, 0, &rv, 0, bytes);
            c.copy_buffer_to_buffer(&counter, 0, &rc, 0, 8);
            queue.submit([a.finish(), b.finish(), c.finish()]);
            for r in [&rk, &rv, &rc] {
                r.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
            }
            device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })?;
            let got_k: Vec<u32> = bytemuck::cast_slice(&rk.get_mapped_range(..)?).to_vec();
            let got_v: Vec<u32> = bytemuck::cast_slice(&rv.get_mapped_range(..)?).to_vec();
            let counts: Vec<u32> = bytemuck::cast_slice(&rc.get_mapped_range(..)?).to_vec();

            // The CPU reference: the same keys, a stable sort of the first m.
            let mut expect: Vec<(u32, u32)> = (0..m)
                .map(|i| (ordered(key_of(i, n, float), float), i))
                .collect();
            expect.sort();
            let mut bad = (0..m as usize)
                .filter(|&i| (ordered(got_k[i], float), got_v[i]) != expect[i])
                .count();
            bad += (m..n)
                .filter(|&i| got_k[i as usize] != key_of(i, n, float) || got_v[i as usize] != i)
                .count();
            let ms = profiler.total_ns()? / 1e6;
            println!(
                "{} keys, u32 values, {} count {m} of {n}: GPU check {} out of order, CPU check {}, sort {ms:.3} ms GPU",
                if float { "f32" } else { "u32" },
                if gpu_count { "GPU-side" } else { "host" },
                counts[1],
                if bad == 0 { "ok" } else { "MISMATCH" },
            );
            if bad > 0 || counts[1] > 0 || counts[0] != m {
                failures += 1;
            }
        }
    }
    drop(profiler);
    drop(ctx);
    drop((device, queue));
    if let Some((du, m)) = messenger {
        // SAFETY: created above on the live instance.
        unsafe { du.destroy_debug_utils_messenger(m, None) };
    }
    let errors = VALIDATION_ERRORS.load(Ordering::Relaxed);
    ensure!(failures == 0, "{failures} sorts did not match");
    ensure!(errors == 0, "{errors} validation errors");
    Ok(())
}

/// Uniform random u32 keys (xorshift) and values 0..n.
fn bench_input(n: u32) -> (Vec<u32>, Vec<u32>) {
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
    let keys = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32
        })
        .collect();
    (keys, (0..n).collect())
}

/// The sorted keys match a CPU sort, and each value is the index of an input key equal to its key.
fn bench_check(keys: &[u32], got_k: &[u32], got_v: &[u32]) -> bool {
    let mut expect = keys.to_vec();
    expect.sort_unstable();
    got_k == expect.as_slice()
        && got_v
            .iter()
            .zip(got_k)
            .all(|(&v, &k)| keys.get(v as usize) == Some(&k))
}

fn median_and_min(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[0])
}

/// Runs untimed batches for at least 300 ms: a GPU that idled while the host set up runs at low clocks for a
/// while (an H200 measured the same sort 3-4x slower without this).
fn warm_up(mut batch: impl FnMut() -> Result<()>) -> Result<()> {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(300) {
        batch()?;
    }
    Ok(())
}

/// `--bench`: the wgpu path and the ash path at each size, timed alike (see the file's documentation).
pub fn bench(reps: u32, sizes: &[u32]) -> Result<()> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .context("no wgpu adapter on the Vulkan backend")?;
    let name = adapter.get_info().name;
    println!("adapter: {name} (wgpu 30)");
    let (device, queue) = request_device(
        &adapter,
        &wgpu::DeviceDescriptor {
            label: Some("vksort wgpu bench"),
            required_features: wgpu::Features::TIMESTAMP_QUERY
                | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
            required_limits: adapter.limits(),
            ..Default::default()
        },
    )?;
    let wctx = WgpuContext::new(&device)?;
    let ash_ctx = vksort::Context::new(vksort::ContextOptions::from_env())?;
    println!("ash context: {}", ash_ctx.caps().name);
    let period = queue.get_timestamp_period() as f64;
    for &log2 in sizes {
        let n = 1u32 << log2;
        let bytes = n as u64 * 4;
        let (keys, values) = bench_input(n);
        let config = SortConfig {
            key: KeyType::U32,
            value: ValueType::U32,
            max_n: n as u64,
            ..Default::default()
        };

        // wgpu path.
        let sorter = WgpuSorter::new(&wctx, config)?;
        let scratch = sorter.create_scratch(n as u64)?;
        let init = |data: &[u32], usage| {
            let b = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: bytes,
                usage,
                mapped_at_creation: true,
            });
            b.slice(..)
                .get_mapped_range_mut()
                .expect("mapped at creation")
                .copy_from_slice(bytemuck::cast_slice(data));
            b.unmap();
            b
        };
        let work = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let (k0, v0) = (
            init(&keys, wgpu::BufferUsages::COPY_SRC),
            init(&values, wgpu::BufferUsages::COPY_SRC),
        );
        let (kb, vb) = (init(&keys, work), init(&values, work));
        let stamps = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2 * reps,
        });
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16 * reps as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let read = |src: &wgpu::Buffer, size: u64| -> Result<Vec<u8>> {
            let dst = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut e = device.create_command_encoder(&Default::default());
            e.copy_buffer_to_buffer(src, 0, &dst, 0, size);
            queue.submit([e.finish()]);
            dst.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
            device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })?;
            let v = dst.get_mapped_range(..)?.to_vec();
            Ok(v)
        };
        let batch = |timed: bool| -> Result<()> {
            let mut cmds = Vec::new();
            for i in 0..reps {
                let mut a = device.create_command_encoder(&Default::default());
                a.copy_buffer_to_buffer(&k0, 0, &kb, 0, bytes);
                a.copy_buffer_to_buffer(&v0, 0, &vb, 0, bytes);
                if timed {
                    a.write_timestamp(&stamps, 2 * i);
                }
                cmds.push(a.finish());
                let mut b = device.create_command_encoder(&Default::default());
                // SAFETY: the buffers outlive the poll below, which waits for the submission; all but the
                // scratch (only vksort uses it) were initialised through wgpu.
                unsafe {
                    sorter.encode_sort(&mut b, &kb, Some(&vb), &scratch, WgpuCount::Host(n as u64))
                }?;
                cmds.push(b.finish());
                let mut c = device.create_command_encoder(&Default::default());
                if timed {
                    c.write_timestamp(&stamps, 2 * i + 1);
                }
                cmds.push(c.finish());
            }
            let mut r = device.create_command_encoder(&Default::default());
            if timed {
                r.resolve_query_set(&stamps, 0..2 * reps, &resolved, 0);
            }
            cmds.push(r.finish());
            queue.submit(cmds);
            device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })?;
            Ok(())
        };
        warm_up(|| batch(false))?;
        batch(true)?;
        let t: Vec<u64> = bytemuck::cast_slice(&read(&resolved, 16 * reps as u64)?).to_vec();
        let (wgpu_med, wgpu_min) = median_and_min(
            (0..reps as usize)
                .map(|i| t[2 * i + 1].wrapping_sub(t[2 * i]) as f64 * period / 1e6)
                .collect(),
        );
        let got_k: Vec<u32> = bytemuck::cast_slice(&read(&kb, bytes)?).to_vec();
        let got_v: Vec<u32> = bytemuck::cast_slice(&read(&vb, bytes)?).to_vec();
        let wgpu_ok = bench_check(&keys, &got_k, &got_v);
        drop((sorter, scratch, k0, v0, kb, vb));

        // ash path: vksort's own context on the same GPU.
        let sorter = vksort::sort::Sorter::new(&ash_ctx, config)?;
        let k0 = vksort::gpu::Buffer::from_slice(&ash_ctx, "bench::k0", &keys)?;
        let v0 = vksort::gpu::Buffer::from_slice(&ash_ctx, "bench::v0", &values)?;
        let kb = vksort::gpu::Buffer::device_local(&ash_ctx, "bench::keys", bytes)?;
        let vb = vksort::gpu::Buffer::device_local(&ash_ctx, "bench::values", bytes)?;
        let scratch = vksort::gpu::Buffer::device_local(
            &ash_ctx,
            "bench::scratch",
            sorter.storage_requirements(n as u64)?.scratch_bytes,
        )?;
        let mut prof = vksort::gpu::Profiler::per_run(&ash_ctx, 2 * reps + 1)?;
        let ash_batch = |prof: Option<&mut vksort::gpu::Profiler>| {
            ash_ctx.submit_timed("bench::ash", prof, |rec| {
                for _ in 0..reps {
                    rec.copy("bench::restore", k0.as_ref(), kb.as_ref(), bytes)?;
                    rec.copy("bench::restore", v0.as_ref(), vb.as_ref(), bytes)?;
                    rec.barrier();
                    rec.stamp("restore");
                    sorter.cmd_sort(
                        rec,
                        kb.as_ref(),
                        Some(vb.as_ref()),
                        scratch.as_ref(),
                        n as u64,
                    )?;
                    rec.stamp("sort");
                    rec.barrier();
                }
                Ok(())
            })
        };
        warm_up(|| ash_batch(None).map_err(Into::into))?;
        ash_batch(Some(&mut prof))?;
        let (ash_med, ash_min) = median_and_min(
            prof.results()?
                .iter()
                .filter(|p| p.label == "sort")
                .map(|p| p.ns / 1e6)
                .collect(),
        );
        let ash_ok = bench_check(
            &keys,
            &kb.read_vec::<u32>(n as usize)?,
            &vb.read_vec::<u32>(n as usize)?,
        );
        for (path, med, min, ok) in [
            ("wgpu", wgpu_med, wgpu_min, wgpu_ok),
            ("ash", ash_med, ash_min, ash_ok),
        ] {
            println!(
                "vksort-{path} u32+u32 n={n} median_ms={med:.4} min_ms={min:.4} gkeys_s={:.3} check={}",
                n as f64 / med / 1e6,
                if ok { "ok" } else { "MISMATCH" }
            );
        }
        println!(
            "n=2^{log2}: wgpu path / ash path = {:.3} (median)",
            wgpu_med / ash_med
        );
        ensure!(
            wgpu_ok && ash_ok,
            "a benchmarked sort did not match the CPU sort"
        );
    }
    Ok(())
}

#[allow(dead_code)]
fn main() -> Result<()> {
    run(&Options::parse(std::env::args().skip(1))?)
}
