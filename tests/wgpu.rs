//! wgpu interop (feature `wgpu`): examples/wgpu_sort.rs run in-process, on the first Vulkan adapter wgpu finds
//! (lavapipe in CI): a WGSL pass fills u32 or f32 keys and u32 values, vksort sorts them in the same
//! submission with a host and a GPU-side count, a following WGSL pass checks the order, and the read-back
//! results match a CPU sort; under `VKSORT_VALIDATION=1` any validation error fails. Plus: an adapter on
//! another backend is refused with a clear error (where wgpu has one; lavapipe machines have none), and a
//! device wgpu opened without vksort's extensions is refused by `WgpuContext::new`, naming them.

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

/// A device wgpu opened by itself (not through `request_device`) lacks VK_KHR_push_descriptor: `WgpuContext::new`
/// refuses it naming the extension, rather than adopting features the device was not created with.
#[test]
fn wgpu_device_without_vksort_extensions_is_refused() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter =
        example::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .expect("a wgpu adapter on the Vulkan backend");
    let (device, _queue) =
        example::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    match vksort::wgpu::WgpuContext::new(&device) {
        Err(e @ vksort::Error::Unsupported { .. }) => {
            let text = e.to_string();
            assert!(text.contains("VK_KHR_push_descriptor"), "{text}");
            assert!(text.contains("request_device"), "{text}");
        }
        Err(e) => panic!("the wrong error: {e}"),
        Ok(_) => panic!("a device opened without VK_KHR_push_descriptor was adopted"),
    }
}
