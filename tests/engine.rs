//! The GPU layer: reflection, buffers, the copy kernel, profiler, bounded waits and input checks.
mod common;
use common::{with_gpu, Rng};
use std::time::Duration;
use vksort::gpu::{kernel::reflect, Buffer, Profiler};
use vksort::{copy, diagnostics, Error};

/// Every Rust push-constant struct has the size the shader's reflection reports.
#[test]
fn push_constant_structs_match_reflection() {
    let cases: &[(&str, usize)] = &[
        ("copy", std::mem::size_of::<copy::CopyPush>()),
        ("debug_spin", std::mem::size_of::<diagnostics::SpinPush>()),
        ("debug_wait_flag", 0),
        (
            "debug_residency_device",
            std::mem::size_of::<diagnostics::ResidencyPush>(),
        ),
    ];
    for (shader, size) in cases {
        let iface = reflect(shader).unwrap();
        assert_eq!(
            iface.push_constant_size as usize, *size,
            "push constants of {shader}"
        );
    }
    for (name, _) in vksort::shaders::SHADERS {
        reflect(name).unwrap_or_else(|e| panic!("reflection of {name}: {e}"));
    }
}

#[test]
fn copy_matches_input_and_is_profiled() {
    with_gpu(|ctx| {
        for n in [4usize, 1020, 4096, 65536 + 4] {
            let data = Rng(n as u64).vec_u32(n);
            let src = Buffer::from_slice(ctx, "test::src", &data).unwrap();
            let dst = Buffer::from_slice(ctx, "test::dst", &vec![0xdeadbeefu32; n]).unwrap();
            let mut prof = Profiler::new(ctx, 4).unwrap();
            ctx.submit_profiled("test::copy", Some(&mut prof), |rec| {
                copy::cmd_copy(rec, src.as_ref(), dst.as_ref(), (n * 4) as u64)
            })
            .unwrap();
            assert_eq!(dst.read_vec::<u32>(n).unwrap(), data);
            let passes = prof.results().unwrap();
            assert_eq!(passes.len(), 1);
            assert_eq!(passes[0].label, "vksort::copy");
            // A real interval: finite, and not zero once the copy is large.
            assert!(
                passes[0].ns.is_finite() && passes[0].ns >= 0.0,
                "{:?}",
                passes[0]
            );
            if n > 65536 {
                assert!(passes[0].ns > 0.0, "{:?}", passes[0]);
            }
        }
        // A profiler too small for the passes says so instead of returning partial times.
        let src = Buffer::from_slice(ctx, "test::src", &[1u32; 16]).unwrap();
        let dst = Buffer::from_slice(ctx, "test::dst", &[0u32; 16]).unwrap();
        let mut prof = Profiler::new(ctx, 2).unwrap();
        ctx.submit_profiled("test::copy", Some(&mut prof), |rec| {
            copy::cmd_copy(rec, src.as_ref(), dst.as_ref(), 64)?;
            rec.barrier();
            copy::cmd_copy(rec, src.as_ref(), dst.as_ref(), 64)
        })
        .unwrap();
        assert!(matches!(
            prof.results(),
            Err(Error::ProfilerOverflow { capacity: 2 })
        ));
    });
}

#[test]
fn copy_rejects_bad_input_and_writes_nothing() {
    with_gpu(|ctx| {
        let src = Buffer::from_slice(ctx, "test::src", &[1u32; 64]).unwrap();
        let dst = Buffer::from_slice(ctx, "test::dst", &[7u32; 64]).unwrap();
        let run = |s: vksort::BufferRef, d: vksort::BufferRef, bytes: u64| {
            ctx.submit("test::bad", |rec| copy::cmd_copy(rec, s, d, bytes))
        };
        // too small
        assert!(matches!(
            run(src.as_ref(), dst.slice(0, 128), 256),
            Err(Error::BufferTooSmall { .. })
        ));
        // missing usage
        let no_storage = common::with_usage(dst.as_ref(), ash::vk::BufferUsageFlags::TRANSFER_DST);
        assert!(matches!(
            run(src.as_ref(), no_storage, 256),
            Err(Error::MissingUsage { .. })
        ));
        // misaligned offset
        let align = ctx.caps().min_storage_buffer_offset_alignment.max(4);
        if align > 4 {
            let mis = dst.as_ref().slice(4, 128);
            assert!(matches!(
                run(src.as_ref(), mis, 64),
                Err(Error::Misaligned { .. })
            ));
        } else {
            common::skip(
                "offset-alignment",
                "minStorageBufferOffsetAlignment is 4: no misaligned offset to refuse",
            );
        }
        // null handle
        // SAFETY: a null handle is refused before anything is recorded.
        let null = unsafe {
            vksort::BufferRef::from_raw(
                ash::vk::Buffer::null(),
                0,
                dst.size(),
                dst.as_ref().usage(),
            )
        };
        assert!(matches!(
            run(src.as_ref(), null, 256),
            Err(Error::NullBuffer { what: "dst" })
        ));
        // size not a multiple of 16
        assert!(matches!(
            run(src.as_ref(), dst.as_ref(), 20),
            Err(Error::SizeNotMultiple {
                size: 20,
                multiple: 16,
                ..
            })
        ));
        assert_eq!(dst.read_vec::<u32>(64).unwrap(), vec![7u32; 64]);
    });
}

/// Transfers through staging chunks, the path of device-local memory (forced here: lavapipe's memory is all
/// mapped): a buffer of two chunks and an odd tail written and read whole, then a part that starts inside the
/// first chunk and ends inside the second written, and everything from byte 3 read back; every byte checked
/// against the same writes on the host. A chunk copied to the wrong offset, or a short one, fails it.
#[test]
fn staged_transfers_cross_chunks() {
    with_gpu(|ctx| {
        let chunk = vksort::gpu::STAGING_CHUNK as usize;
        let len = 2 * chunk + 4099;
        let word = |i: usize| ((i as u32).wrapping_mul(0x9e37_79b1) >> 24) as u8;
        let mut expect: Vec<u8> = (0..len).map(word).collect();
        let location = vksort::gpu::MemoryLocation::GpuOnly;
        let usage = vksort::gpu::DEFAULT_USAGE;
        let buf = Buffer::new(ctx, "test::staged", len as u64, usage, location).unwrap();
        buf.write_staged(0, &expect).unwrap();
        let mut back = vec![0u8; len];
        buf.read_staged_into(0, &mut back).unwrap();
        let first_wrong = |a: &[u8], b: &[u8]| a.iter().zip(b).position(|(x, y)| x != y);
        assert_eq!(first_wrong(&back, &expect), None, "whole buffer");
        let (off, part) = (chunk - 1001, chunk + 2002);
        let patch: Vec<u8> = (0..part).map(|i| !word(i + 17)).collect();
        buf.write_staged(off as u64, &patch).unwrap();
        expect[off..off + part].copy_from_slice(&patch);
        let mut back = vec![0u8; len - 3];
        buf.read_staged_into(3, &mut back).unwrap();
        assert_eq!(first_wrong(&back, &expect[3..]), None, "from byte 3");
        // The mapped path (where there is one) sees the same bytes.
        assert_eq!(buf.read(0, len as u64).unwrap(), expect);
    });
}

/// A wait longer than the context's bound ends in a typed error naming the pass, not a hung process. The
/// kernel polls a flag that the host sets only once the wait has returned, so it outlasts the bound on any
/// device; no clock is asserted. Should the wait not be bounded, a watchdog sets the flag after a minute: the
/// submission then succeeds and the test fails (instead of hanging).
#[test]
fn waits_are_bounded() {
    let _guard = common::lock();
    let ctx = vksort::Context::new(vksort::ContextOptions {
        wait_timeout: Duration::from_millis(20),
        ..vksort::ContextOptions::from_env()
    })
    .unwrap();
    let flag = Buffer::from_slice(&ctx, "test::flag", &[0u32; 2]).unwrap();
    // A mapped write where the flag is host-visible (lavapipe); on a device-local flag (NVIDIA) the write is a
    // submission, which the lost context refuses once the wait has timed out: the kernel then polls on in the
    // leaked device until the process ends.
    let set_flag = || {
        let _ = flag.write(0, bytemuck::bytes_of(&1u32));
    };
    let returned = std::sync::atomic::AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..600 {
                if returned.load(std::sync::atomic::Ordering::Acquire) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            set_flag();
        });
        let r = ctx.submit("test::wait_flag", |rec| {
            diagnostics::cmd_wait_flag(rec, flag.as_ref())
        });
        returned.store(true, std::sync::atomic::Ordering::Release);
        r
    });
    // The kernel still polls: let it end (the buffer stays alive: the lost context frees nothing).
    set_flag();
    match r {
        Err(Error::Timeout { last_pass, .. }) => {
            assert!(
                last_pass == "vksort::diagnostics::wait_flag" || last_pass.starts_with('('),
                "{last_pass}"
            )
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // The late work may still run: the context is lost, refuses host-form work, and frees nothing it might
    // use (the buffer and, on drop, the device are leaked rather than destroyed under the running work).
    assert!(ctx.is_lost());
    assert!(matches!(
        ctx.submit("test::after", |_| Ok(())),
        Err(Error::DeviceLost { .. })
    ));
    drop(flag);
    drop(ctx);
}

#[test]
fn unsupported_is_reported_by_name() {
    with_gpu(|ctx| {
        let e = ctx.unsupported("needs subgroup ballot");
        assert!(e.to_string().contains("needs subgroup ballot"));
        assert!(e.to_string().contains(&ctx.caps().name));
    });
}

/// A renderer's own instance and device, adopted: vksort records into the renderer's command buffer, then drops
/// without destroying anything it did not create (the renderer's device still works afterwards).
#[test]
fn adopted_device_is_used_and_left_alive() {
    use ash::vk;
    let _guard = common::lock();
    // SAFETY (test): plain Vulkan set-up by "the renderer".
    unsafe {
        let entry = ash::Entry::load().unwrap();
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let pds = instance.enumerate_physical_devices().unwrap();
        let pd = pds[0];
        let family = instance
            .get_physical_device_queue_family_properties(pd)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .unwrap() as u32;
        // SAFETY: `instance` is live and `pd` was enumerated from it.
        let mut reqs =
            vksort::gpu::DeviceRequirements::query(&instance, vk::API_VERSION_1_3, pd).unwrap();
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let info = reqs.enable(vk::DeviceCreateInfo::default().queue_create_infos(&queues));
        let device = instance.create_device(pd, &info, None).unwrap();
        let queue = device.get_device_queue(family, 0);
        // SAFETY: the instance, physical device, device and compute queue made above, the device with `reqs`;
        // all outlive `ctx` (dropped below before they are destroyed), and the queue is used on this thread only.
        let ctx = vksort::Context::adopt(
            vksort::gpu::AdoptInfo::new(&entry, &instance, pd, &device, family, queue, &reqs)
                .with_wait_timeout(Duration::from_secs(30)),
        )
        .unwrap();
        // Record into the renderer's command buffer, on buffers vksort allocated for the test.
        let data = Rng(5).vec_u32(1000);
        let src = Buffer::from_slice(&ctx, "renderer::src", &data).unwrap();
        let dst = Buffer::from_slice(&ctx, "renderer::dst", &[0u32; 1000]).unwrap();
        // A command buffer of the renderer's device and queue (common::record_own: then the barrier the caller
        // owes, a submission and a fence wait).
        common::record_own(&ctx, |rec| {
            copy::cmd_copy(rec, src.as_ref(), dst.as_ref(), 4000).unwrap()
        });
        assert_eq!(dst.read_vec::<u32>(1000).unwrap(), data);
        drop((src, dst));
        drop(ctx);
        // The renderer's device and instance are still alive and usable.
        let b = device
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(64)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                None,
            )
            .unwrap();
        device.destroy_buffer(b, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

#[test]
fn device_selection_by_index_and_name() {
    let _guard = common::lock();
    let devices = vksort::Context::enumerate().unwrap();
    assert!(!devices.is_empty());
    let (idx, caps) = &devices[0];
    let by_index = vksort::Context::new(vksort::ContextOptions {
        device: Some(idx.to_string()),
        ..vksort::ContextOptions::from_env()
    });
    assert_eq!(by_index.unwrap().caps().name, caps.name);
    let word = caps.name.split_whitespace().next().unwrap().to_lowercase();
    let by_name = vksort::Context::new(vksort::ContextOptions {
        device: Some(word),
        ..vksort::ContextOptions::from_env()
    });
    assert!(by_name.is_ok());
    let none = vksort::Context::new(vksort::ContextOptions {
        device: Some("no such gpu".into()),
        ..vksort::ContextOptions::from_env()
    });
    assert!(matches!(none, Err(Error::NoDevice(_))));
}

/// `ContextOptions::default()` is the documented defaults (whatever the environment says); the `VKSORT_*`
/// variables only enter through `from_env`.
#[test]
fn context_options_default_is_documented_defaults() {
    let d = vksort::ContextOptions::default();
    assert_eq!(d.device, None);
    assert!(!d.validation);
    assert_eq!(d.wait_timeout, Duration::from_secs(60));
    assert!(!d.pipeline_statistics);
    assert!(!d.shader_clock);
    assert!(!d.residency_probes);
    let e = vksort::ContextOptions::from_env();
    assert_eq!(
        e.validation,
        std::env::var("VKSORT_VALIDATION").is_ok_and(|v| v == "1")
    );
}

/// The residency probe counts every workgroup in and out, and its peak is at least one workgroup; bad shapes
/// are refused before anything is recorded.
#[test]
fn residency_probe_counts_workgroups() {
    use diagnostics::{cmd_residency, ResidencyShape, ResidencySlots};
    with_gpu(|ctx| {
        let slots = ResidencySlots::Device;
        let counters = Buffer::device_local(ctx, "test::counters", slots.counter_bytes()).unwrap();
        let wg = vksort::policy::SubgroupPlan::for_device(ctx.caps()).max * 2;
        let shape = ResidencyShape {
            workgroup_size: wg,
            shared_bytes: 4096,
            live_words: 16,
            memory: diagnostics::ResidencyMemory::Plain,
        };
        ctx.submit("test::residency", |rec| {
            cmd_residency(rec, counters.as_ref(), shape, slots, 16, 12)
        })
        .unwrap();
        let words = counters.read_vec::<u32>(3).unwrap();
        assert_eq!(words[0], 0, "every workgroup counted itself out");
        assert!((1..=12).contains(&words[1]), "peak {}", words[1]);
        for bad in [
            ResidencyShape {
                workgroup_size: wg + 1,
                ..shape
            },
            ResidencyShape {
                shared_bytes: ctx.caps().max_shared_memory + 4,
                ..shape
            },
            ResidencyShape {
                live_words: 0,
                ..shape
            },
        ] {
            let r = ctx.submit("test::residency", |rec| {
                cmd_residency(rec, counters.as_ref(), bad, slots, 16, 12)
            });
            assert!(
                matches!(r, Err(vksort::Error::InvalidPolicy { .. })),
                "{bad:?}: {r:?}"
            );
        }
        // The block and cooperative-matrix probes count per SM: refused for one device-wide counter.
        for memory in [
            diagnostics::ResidencyMemory::Block,
            diagnostics::ResidencyMemory::CooperativeMatrix,
        ] {
            let r = ctx.submit("test::residency", |rec| {
                cmd_residency(
                    rec,
                    counters.as_ref(),
                    ResidencyShape { memory, ..shape },
                    slots,
                    16,
                    12,
                )
            });
            assert!(
                matches!(r, Err(vksort::Error::Unsupported { .. })),
                "{memory:?}: {r:?}"
            );
        }
    });
}

/// The shaders' shared workgroup scan (`DEFINE_WG_SCAN`, through `diagnostics::cmd_wg_scan`) bitwise against
/// the CPU: every exclusive prefix and the total, u32 and u64 (wrapping), at workgroup sizes from one subgroup
/// to the device's limit (k times the subgroup for k = 1, 2, 3, 4, 6, 8, ...), at every subgroup size a
/// pipeline can require. Where the scan's former total (subgroupAdd steps) differs, a line names the shape.
#[test]
fn workgroup_scan_is_exact_at_every_shape() {
    use std::io::Write as _;
    use vksort::scan::ScanElem;
    const GROUPS: u32 = 24;
    with_gpu(|ctx| {
        let caps = ctx.caps().clone();
        let default = vksort::policy::SubgroupPlan::for_device(&caps).max;
        let widths: Vec<Option<u32>> = if caps.subgroup_size_control {
            (0..8)
                .map(|i| 1u32 << i)
                .filter(|s| (caps.min_subgroup_size..=caps.max_subgroup_size).contains(s))
                .map(Some)
                .collect()
        } else {
            vec![None]
        };
        let elems: &[ScanElem] = if caps.int64 {
            &[ScanElem::U32, ScanElem::U64]
        } else {
            &[ScanElem::U32]
        };
        let mut rng = Rng(0x5ca7);
        let (mut wrong, mut shapes) = (Vec::new(), 0);
        for &elem in elems {
            for &sg in &widths {
                let s = sg.unwrap_or(default);
                let ks = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];
                for wg in ks
                    .iter()
                    .map(|k| k * s)
                    .filter(|&w| w <= caps.max_workgroup_invocations)
                {
                    shapes += 1;
                    let n = (GROUPS * wg) as usize;
                    let out_n = GROUPS as usize * diagnostics::wg_scan_out_elems(wg) as usize;
                    // u64 values; u32 elements take their low words (and wrap alike).
                    let v64 = rng.vec_u64(n);
                    let narrow = |x: u64| {
                        if elem == ScanElem::U32 {
                            x as u32 as u64
                        } else {
                            x
                        }
                    };
                    let (values, out) = match elem {
                        ScanElem::U32 => {
                            let v: Vec<u32> = v64.iter().map(|&x| x as u32).collect();
                            (
                                Buffer::from_slice(ctx, "test::values", &v),
                                Buffer::from_slice(ctx, "test::out", &vec![0xabu32; out_n]),
                            )
                        }
                        ScanElem::U64 => (
                            Buffer::from_slice(ctx, "test::values", &v64),
                            Buffer::from_slice(ctx, "test::out", &vec![0xabu64; out_n]),
                        ),
                    };
                    let (values, out) = (values.unwrap(), out.unwrap());
                    ctx.submit("test::wg_scan", |rec| {
                        diagnostics::cmd_wg_scan(
                            rec,
                            values.as_ref(),
                            out.as_ref(),
                            elem,
                            wg,
                            sg,
                            GROUPS,
                        )
                    })
                    .unwrap();
                    let got: Vec<u64> = match elem {
                        ScanElem::U32 => out
                            .read_vec::<u32>(out_n)
                            .unwrap()
                            .into_iter()
                            .map(u64::from)
                            .collect(),
                        ScanElem::U64 => out.read_vec::<u64>(out_n).unwrap(),
                    };
                    let shape = format!("{elem:?}, subgroup {s}, workgroup {wg}");
                    for g in 0..GROUPS as usize {
                        let row = &got[g * (wg as usize + 2)..(g + 1) * (wg as usize + 2)];
                        let mut sum = 0u64;
                        for i in 0..wg as usize {
                            if row[i] != narrow(sum) {
                                wrong.push(format!(
                                    "{shape}: group {g}, prefix {i}: {} != {}",
                                    row[i],
                                    narrow(sum)
                                ));
                                break;
                            }
                            sum = sum.wrapping_add(v64[g * wg as usize + i]);
                        }
                        if row[wg as usize] != narrow(sum) {
                            wrong.push(format!(
                                "{shape}: group {g}, total {} != {}",
                                row[wg as usize],
                                narrow(sum)
                            ));
                        }
                        if row[wg as usize + 1] != narrow(sum) {
                            let line = format!(
                                "wg_scan: the former total is wrong ({shape}, group {g})\n"
                            );
                            let _ = std::io::stderr().write_all(line.as_bytes());
                        }
                    }
                }
            }
        }
        assert!(shapes >= 2, "only {shapes} shapes ran");
        assert!(
            wrong.is_empty(),
            "{} wrong:\n{}",
            wrong.len(),
            wrong[..wrong.len().min(20)].join("\n")
        );
    });
}
