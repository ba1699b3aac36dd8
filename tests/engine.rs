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
            assert!(passes[0].ns >= 0.0);
        }
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
        let mut no_storage = dst.as_ref();
        no_storage.usage = ash::vk::BufferUsageFlags::TRANSFER_DST;
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
        }
        // size not a multiple of 16
        assert!(matches!(
            run(src.as_ref(), dst.as_ref(), 20),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(dst.read_vec::<u32>(64).unwrap(), vec![7u32; 64]);
    });
}

/// A wait longer than the context's bound ends in a typed error naming the pass, not a hung process.
#[test]
fn waits_are_bounded() {
    let ctx = vksort::Context::new(vksort::ContextOptions {
        wait_timeout: Duration::from_millis(20),
        ..Default::default()
    })
    .unwrap();
    let counter = Buffer::from_slice(&ctx, "test::counter", &[0u32; 2]).unwrap();
    // Seconds of dependent arithmetic on lavapipe; on a big GPU, 256 times more workgroups.
    let groups = if ctx.caps().is_cpu() {
        16384
    } else {
        65535 * 256
    };
    let t = std::time::Instant::now();
    let r = ctx.submit("test::spin", |rec| {
        diagnostics::cmd_spin(rec, counter.as_ref(), 32768, groups)
    });
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the wait was not bounded: {:?}",
        t.elapsed()
    );
    match r {
        Err(Error::Timeout { last_pass, .. }) => {
            assert!(
                last_pass == "vksort::diagnostics::spin" || last_pass.starts_with('('),
                "{last_pass}"
            )
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn unsupported_is_reported_by_name() {
    with_gpu(|ctx| {
        let e = ctx.unsupported("needs subgroup ballot");
        assert!(e.to_string().contains("needs subgroup ballot"));
        assert!(e.to_string().contains(&ctx.caps().name));
    });
}
