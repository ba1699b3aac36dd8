//! The pipeline cache a renderer keeps (issue 31): a context hands its cache data back, a later context starts
//! from it, and data of another device, or no pipeline-cache data at all, is ignored with the reason
//! (`Context::pipeline_cache_status`) while everything still works.

use std::sync::Arc;
use vksort::gpu::PipelineCacheStatus;
use vksort::sort::{SortConfig, Sorter};
use vksort::{Context, ContextOptions};

fn context(cache: Option<Vec<u8>>) -> Arc<Context> {
    Context::new(ContextOptions {
        pipeline_cache: cache,
        ..ContextOptions::from_env()
    })
    .expect("context")
}

/// Builds a sorter and sorts a few keys on `ctx`; no validation error.
fn works(ctx: &Arc<Context>) {
    let _sorter = Sorter::new(
        ctx,
        SortConfig {
            max_n: 4096,
            ..Default::default()
        },
    )
    .expect("sorter");
    let mut keys: Vec<u32> = (0..3000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let mut expected = keys.clone();
    expected.sort_unstable();
    vksort::sort::sort(ctx, &mut keys).expect("sort");
    assert_eq!(keys, expected);
    assert!(ctx.take_validation_errors().is_empty(), "validation errors");
}

#[test]
fn data_round_trips_and_foreign_data_is_ignored_with_a_reason() {
    let first = context(None);
    assert_eq!(first.pipeline_cache_status(), PipelineCacheStatus::Empty);
    works(&first);
    let (created, _) = first.pipeline_counts();
    assert!(created > 0, "the sorter built pipelines");
    let data = first.pipeline_cache_data().expect("cache data");
    // The driver's header names this device.
    assert!(data.len() >= 32, "{} bytes", data.len());
    assert_eq!(
        u32::from_le_bytes(data[8..12].try_into().unwrap()),
        first.caps().vendor_id
    );
    assert_eq!(&data[16..32], &first.caps().pipeline_cache_uuid);
    // Options print the size of the data, not the bytes.
    let opts = ContextOptions {
        pipeline_cache: Some(data.clone()),
        ..Default::default()
    };
    assert!(format!("{opts:?}").contains(&format!("{} bytes", data.len())));
    drop(first);

    // A later context starts from it.
    let second = context(Some(data.clone()));
    assert_eq!(
        second.pipeline_cache_status(),
        PipelineCacheStatus::Loaded { bytes: data.len() }
    );
    works(&second);
    let (created, hits) = second.pipeline_counts();
    println!(
        "warm context: {created} pipelines, cache hits {hits:?} ({} bytes of cache data)",
        data.len()
    );
    drop(second);

    // Too short, another device, another header version: ignored, with the reason; the context works.
    let mut foreign = data.clone();
    foreign[8..12].copy_from_slice(&0xdeadu32.to_le_bytes());
    foreign[16..32].copy_from_slice(&[0xab; 16]);
    let mut version = data.clone();
    version[4..8].copy_from_slice(&7u32.to_le_bytes());
    for (bad, why) in [
        (b"garbage".to_vec(), "shorter than a pipeline-cache header"),
        (foreign, "another device or driver"),
        (version, "header version 7"),
    ] {
        let ctx = context(Some(bad));
        match ctx.pipeline_cache_status() {
            PipelineCacheStatus::Rejected { reason } => {
                assert!(reason.contains(why), "{reason}")
            }
            s => panic!("expected a rejection ({why}), got {s:?}"),
        }
        works(&ctx);
    }

    // Merged after creation: the same checks.
    let ctx = context(None);
    assert_eq!(
        ctx.merge_pipeline_cache(&data),
        PipelineCacheStatus::Loaded { bytes: data.len() }
    );
    assert!(matches!(
        ctx.merge_pipeline_cache(b"garbage"),
        PipelineCacheStatus::Rejected { .. }
    ));
    assert!(matches!(
        ctx.pipeline_cache_status(),
        PipelineCacheStatus::Rejected { .. }
    ));
    works(&ctx);
    assert!(ctx.pipeline_cache_data().expect("data").len() >= 32);
}
