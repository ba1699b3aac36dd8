//! `wgpu-sort-anchor [REPS] [LOG2_N...]`: times the `wgpu_sort` crate's key-value sort (u32 keys, u32 values,
//! uniform random keys) on the first Vulkan adapter with GPU timestamps, as examples/wgpu_sort.rs `--bench`
//! times vksort: each run restores the unsorted input by a copy (outside the timed span), then a timestamp,
//! the sort, a timestamp; all runs in one submission after 300 ms of untimed ones; the median run is
//! reported. The last run's output is checked against a CPU sort. One line per size:
//! `wgpu_sort u32+u32 n=N median_ms=.. min_ms=.. gkeys_s=.. check=ok`.

use std::num::NonZeroU32;
use wgpu::util::DeviceExt;
use wgpu_sort::{utils::guess_workgroup_size, GPUSorter};

fn read_back(device: &wgpu::Device, queue: &wgpu::Queue, src: &wgpu::Buffer, size: u64) -> Vec<u8> {
    let dst = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut e = device.create_command_encoder(&Default::default());
    e.copy_buffer_to_buffer(src, 0, &dst, 0, size);
    queue.submit([e.finish()]);
    dst.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::Maintain::Wait);
    let v = dst.slice(..).get_mapped_range().to_vec();
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: u32 = args.first().map_or(30, |s| s.parse().expect("REPS"));
    let sizes: Vec<u32> = if args.len() > 1 {
        args[1..].iter().map(|s| s.parse().expect("LOG2_N")).collect()
    } else {
        vec![16, 20, 24]
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..Default::default()
    });
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("no Vulkan adapter");
    println!("adapter: {} (wgpu 0.19, wgpu_sort 0.1.0)", adapter.get_info().name);
    let (device, queue) = pollster::block_on(adapter.request_device(
        &wgpu::DeviceDescriptor {
            label: None,
            required_features: wgpu::Features::TIMESTAMP_QUERY,
            required_limits: adapter.limits(),
        },
        None,
    ))
    .expect("device");
    let subgroup = pollster::block_on(guess_workgroup_size(&device, &queue)).expect("subgroup size");
    let sorter = GPUSorter::new(&device, subgroup);
    let period = queue.get_timestamp_period() as f64;
    for log2 in sizes {
        let n = 1u32 << log2;
        let bytes = n as u64 * 4;
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ log2 as u64;
        let keys: Vec<u32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u32
            })
            .collect();
        let values: Vec<u32> = (0..n).collect();
        let src = |data: &[u32]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::COPY_SRC,
            })
        };
        let (k0, v0) = (src(&keys), src(&values));
        let buffers = sorter.create_sort_buffers(&device, NonZeroU32::new(n).unwrap());
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
        let batch = |timed: bool| {
            let mut e = device.create_command_encoder(&Default::default());
            for i in 0..reps {
                e.copy_buffer_to_buffer(&k0, 0, buffers.keys(), 0, bytes);
                e.copy_buffer_to_buffer(&v0, 0, buffers.values(), 0, bytes);
                if timed {
                    e.write_timestamp(&stamps, 2 * i);
                }
                sorter.sort(&mut e, &queue, &buffers, Some(n));
                if timed {
                    e.write_timestamp(&stamps, 2 * i + 1);
                }
            }
            if timed {
                e.resolve_query_set(&stamps, 0..2 * reps, &resolved, 0);
            }
            queue.submit([e.finish()]);
            device.poll(wgpu::Maintain::Wait);
        };
        // At least 300 ms of untimed runs first: a GPU that idled runs at low clocks for a while.
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(300) {
            batch(false);
        }
        batch(true);
        let t: Vec<u64> = bytemuck::cast_slice(&read_back(&device, &queue, &resolved, 16 * reps as u64)).to_vec();
        let mut ms: Vec<f64> = (0..reps as usize)
            .map(|i| t[2 * i + 1].wrapping_sub(t[2 * i]) as f64 * period / 1e6)
            .collect();
        ms.sort_by(f64::total_cmp);
        let got_k: Vec<u32> = bytemuck::cast_slice(&read_back(&device, &queue, buffers.keys(), bytes)).to_vec();
        let got_v: Vec<u32> = bytemuck::cast_slice(&read_back(&device, &queue, buffers.values(), bytes)).to_vec();
        let mut expect: Vec<(u32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        expect.sort_by_key(|p| p.0);
        // Keys must match exactly; each value must carry its own key (the sort need not be stable).
        let ok = (0..n as usize).all(|i| got_k[i] == expect[i].0 && keys[got_v[i] as usize] == got_k[i]);
        let median = ms[ms.len() / 2];
        println!(
            "wgpu_sort u32+u32 n={n} median_ms={median:.4} min_ms={:.4} gkeys_s={:.3} check={}",
            ms[0],
            n as f64 / median / 1e6,
            if ok { "ok" } else { "MISMATCH" }
        );
    }
}
