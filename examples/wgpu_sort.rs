//! vksort in a wgpu program (feature `wgpu`): a headless wgpu device on the Vulkan backend, opened with what
//! vksort needs ([`vksort::wgpu::request_device`]); a WGSL compute pass fills key and value buffers (and, for
//! the GPU-side count, writes the count as an atomic counter would); vksort sorts them in the same submission;
//! a following WGSL pass checks the order on the GPU; the results are read back and checked against a CPU sort.
//! u32 and f32 keys with u32 values, host and GPU-side counts.
//!
//! `cargo run --release --features wgpu --example wgpu_sort -- [--n N] [--key u32|f32|both] [--count host|gpu|both]`
//! prints each sort's GPU time (vksort's timestamps around its passes). `VKSORT_VALIDATION=1` turns on wgpu's
//! validation (the Khronos layer) and fails on any validation error.

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
fn block_on<F: std::future::Future>(f: F) -> F::Output {
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

/// Options: `--n`, `--key`, `--count`.
pub struct Options {
    pub n: u32,
    pub keys: Vec<KeyType>,
    pub gpu_counts: Vec<bool>,
}

impl Options {
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self> {
        let mut o = Options {
            n: 1 << 16,
            keys: vec![KeyType::U32, KeyType::F32],
            gpu_counts: vec![false, true],
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
                _ => {
                    bail!("unknown argument {a} (--n N, --key u32|f32|both, --count host|gpu|both)")
                }
            }
        }
        ensure!(o.n >= 8, "--n must be at least 8");
        Ok(o)
    }
}

/// Runs every sort of `o`; Err on a mismatch or a validation error.
pub fn run(o: &Options) -> Result<()> {
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

#[allow(dead_code)]
fn main() -> Result<()> {
    run(&Options::parse(std::env::args().skip(1))?)
}
