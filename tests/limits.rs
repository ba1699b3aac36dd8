//! `ContextOptions::limits` (`VKSORT_LIMITS`): a context made with lowered limits reports them, every pipeline a
//! sorter of any family builds stays within them (or the sorter is refused, naming the limit), the override
//! never raises a limit, and bad text is refused. `./dev test` runs families, misuse and the radix smoke tests
//! under the override too.
mod common;
use common::sorting::Case;
use std::sync::Arc;
use vksort::sort::{KeyType, SortAlgorithm, Sorter, ValueType};
use vksort::{Context, ContextOptions, Error};

fn with_limits(limits: Option<&str>) -> vksort::Result<Arc<Context>> {
    Context::new(ContextOptions {
        limits: limits.map(Into::into),
        ..ContextOptions::from_env()
    })
}

/// The device's own limits (`VKSORT_LIMITS` may lower those of `common::ctx()`).
fn real_caps() -> vksort::DeviceCaps {
    with_limits(None).unwrap().caps().clone()
}

/// Vulkan's minimums: every family plans within them or refuses with `Unsupported`; the pipelines built use
/// at most the lowered invocations and bytes.
#[test]
fn every_family_within_the_minimum_limits() {
    let _guard = common::lock();
    let real = real_caps();
    let ctx = with_limits(Some("shared=16384,invocations=128")).unwrap();
    let caps = ctx.caps();
    assert_eq!(caps.max_shared_memory, real.max_shared_memory.min(16384));
    assert_eq!(
        caps.max_workgroup_invocations,
        real.max_workgroup_invocations.min(128)
    );
    assert_eq!(
        caps.limits_lowered,
        real.max_shared_memory > 16384 || real.max_workgroup_invocations > 128
    );
    for alg in SortAlgorithm::ALL {
        for (key, value) in [
            (KeyType::U32, ValueType::U32),
            (KeyType::U64, ValueType::U64),
        ] {
            let c = Case {
                value,
                ..Case::new(alg, key)
            };
            // The capacity the family takes, at most 2^16 keys (the one-workgroup sort's is lower).
            let r = match Sorter::new(&ctx, c.config(1 << 16)) {
                Err(Error::AlgorithmLimit { max, .. }) => Sorter::new(&ctx, c.config(max as usize)),
                r => r,
            };
            match r {
                Ok(_) | Err(Error::AlgorithmLimit { .. } | Error::UnsupportedAlgorithm { .. }) => {}
                Err(Error::Unsupported { what, .. }) => assert!(
                    what.contains("maxCompute") || what.contains("limit"),
                    "{c:?}: refused without naming the limit: {what}"
                ),
                Err(e) => panic!("{c:?}: {e}"),
            }
        }
    }
    let footprints = ctx.kernel_footprints().unwrap();
    // Not vacuous: the tiles of several families fill a good part of the 16 KiB.
    assert!(
        footprints.iter().any(|&(_, _, bytes)| bytes > 8192),
        "{footprints:?}"
    );
    for (name, invocations, bytes) in footprints {
        assert!(
            invocations <= caps.max_workgroup_invocations,
            "{name}: {invocations} invocations"
        );
        assert!(
            bytes <= caps.max_shared_memory as u64,
            "{name}: {bytes} bytes"
        );
    }
    assert!(ctx.take_validation_errors().is_empty());
}

/// Limits above the device's leave them; bad text is an `InvalidArgument` before any device is made.
#[test]
fn limits_only_lower_and_bad_text_is_refused() {
    let _guard = common::lock();
    let real = real_caps();
    let ctx = with_limits(Some("invocations=4000000000, shared=4000000000")).unwrap();
    assert_eq!(ctx.caps().max_shared_memory, real.max_shared_memory);
    assert_eq!(
        ctx.caps().max_workgroup_invocations,
        real.max_workgroup_invocations
    );
    assert!(!ctx.caps().limits_lowered);
    drop(ctx);
    for bad in [
        "shared",
        "shared=16k",
        "cores=4",
        "shared=1024",
        "invocations=64",
        "shared=16384,shared=32768",
        ",",
    ] {
        match with_limits(Some(bad)) {
            Err(Error::InvalidArgument(msg)) => {
                assert!(msg.contains("VKSORT_LIMITS"), "{bad}: {msg}")
            }
            other => panic!("{bad:?}: {:?}", other.map(|_| ())),
        }
    }
}
