//! wgpu interop (feature `wgpu`): examples/wgpu_sort.rs run in-process, on the first Vulkan adapter wgpu finds
//! (lavapipe in CI): a WGSL pass fills u32 or f32 keys and u32 values, vksort sorts them in the same
//! submission with a host and a GPU-side count, a following WGSL pass checks the order, and the read-back
//! results match a CPU sort; under `VKSORT_VALIDATION=1` any validation error fails. Plus: an adapter on
//! another backend is refused with a clear error (where wgpu has one; lavapipe machines have none).

#[path = "../examples/wgpu_sort.rs"]
mod example;

#[test]
fn wgpu_sorts_pairs() {
    let o = example::Options::parse(["--n".to_string(), "100003".to_string()]).unwrap();
    example::run(&o).unwrap();
}

#[test]
fn wgpu_sorts_small_counts() {
    let o = example::Options::parse(["--n".to_string(), "1000".to_string()]).unwrap();
    example::run(&o).unwrap();
}

/// `--bench`: both paths time and check a small sort (the GPU machine runs the real sizes).
#[test]
fn wgpu_bench_runs() {
    example::bench(2, &[8, 12]).unwrap();
}
