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

/// The first adapter wgpu finds on its Vulkan backend.
fn vulkan_adapter() -> wgpu::Adapter {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    example::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .expect("a wgpu adapter on the Vulkan backend")
}

/// A device wgpu opened by itself (not through `request_device`) lacks VK_KHR_push_descriptor: `WgpuContext::new`
/// refuses it naming the extension, rather than adopting features the device was not created with.
#[test]
fn wgpu_device_without_vksort_extensions_is_refused() {
    let adapter = vulkan_adapter();
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

/// Bad input to `WgpuSorter::encode_sort` with u64, i64 and f64 keys (descending, u32 values): a host count above
/// `max_n`, a GPU-side count's capacity above it, keys / values / scratch buffers too small, keys and
/// scratch without `STORAGE`, values given to a keys-only sorter, a misaligned GPU-side count, a count
/// inside the keys, and (at `WgpuSorter::new`) bad bit ranges: each is refused with its typed error, and the
/// buffers read back unchanged. Then a u64 descending sort with values matches a stable CPU sort.
#[test]
fn wgpu_bad_input_is_refused_and_changes_nothing() {
    use vksort::sort::{KeyType, Order, SortConfig, ValueType};
    use vksort::wgpu::{request_device, WgpuContext, WgpuCount, WgpuSorter};
    use vksort::Error;
    use wgpu::util::DeviceExt as _;
    use wgpu::BufferUsages as U;

    let adapter = vulkan_adapter();
    let (device, queue) = request_device(
        &adapter,
        &wgpu::DeviceDescriptor {
            required_limits: adapter.limits(),
            ..Default::default()
        },
    )
    .unwrap();
    let ctx = WgpuContext::new(&device).unwrap();
    const N: u64 = 1000;

    // A buffer holding `bytes` (always COPY_SRC, to read it back).
    let init = |bytes: &[u8], usage: U| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytes,
            usage: usage | U::COPY_SRC,
        })
    };
    let read = |b: &wgpu::Buffer| -> Vec<u8> {
        let dst = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: b.size(),
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        let mut e = device.create_command_encoder(&Default::default());
        e.copy_buffer_to_buffer(b, 0, &dst, 0, b.size());
        queue.submit([e.finish()]);
        dst.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .unwrap();
        dst.get_mapped_range(..).unwrap().to_vec()
    };
    // Encodes one sort in an encoder of its own and submits it (barriers only when refused).
    let sort = |s: &WgpuSorter,
                keys: &wgpu::Buffer,
                values: Option<&wgpu::Buffer>,
                scratch: &wgpu::Buffer,
                count: WgpuCount<'_>|
     -> vksort::Result<()> {
        let mut e = device.create_command_encoder(&Default::default());
        // SAFETY (test): the buffers outlive the submission, which is waited for; all made through wgpu.
        let r = unsafe { s.encode_sort(&mut e, keys, values, scratch, count) };
        queue.submit([e.finish()]);
        device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .unwrap();
        r
    };
    // Distinct fill patterns, so a write of any region shows.
    let pattern = |len: u64, seed: u8| -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    };

    for key in [KeyType::U64, KeyType::I64, KeyType::F64] {
        let config = SortConfig {
            key,
            value: ValueType::U32,
            order: Order::Descending,
            max_n: N,
            ..Default::default()
        };
        // Bad bit ranges are refused when the sorter is made.
        for bits in [(0, 65), (10, 10), (40, 20)] {
            match WgpuSorter::new(
                &ctx,
                SortConfig {
                    bits: Some(bits),
                    ..config
                },
            ) {
                Err(Error::InvalidBitRange { lo, hi, key_bits }) => {
                    assert_eq!((lo, hi, key_bits), (bits.0, bits.1, 64), "{key:?}")
                }
                Err(e) => panic!("{key:?} bits {bits:?}: the wrong error: {e}"),
                Ok(_) => panic!("{key:?} bits {bits:?}: accepted"),
            }
        }
        let s = WgpuSorter::new(&ctx, config).unwrap();
        let keys_only = WgpuSorter::new(
            &ctx,
            SortConfig {
                value: ValueType::None,
                ..config
            },
        )
        .unwrap();
        let scratch_bytes = s.scratch_size(N).unwrap().next_multiple_of(4);
        let (k0, v0, s0) = (
            pattern(N * 8, 1),
            pattern(N * 4, 2),
            pattern(scratch_bytes, 3),
        );
        let keys = init(&k0, U::STORAGE);
        let values = init(&v0, U::STORAGE);
        let scratch = init(&s0, WgpuSorter::scratch_usages());
        let count = init(&[7, 0, 0, 0, 9, 0, 0, 0], U::STORAGE);
        let small_keys = init(&k0[..(N as usize - 1) * 8], U::STORAGE);
        let small_values = init(&v0[..(N as usize - 1) * 4], U::STORAGE);
        let small_scratch = init(&s0[..16], WgpuSorter::scratch_usages());
        let keys_no_storage = init(&k0, U::COPY_DST);
        let scratch_no_storage = init(&s0, U::INDIRECT | U::COPY_DST);
        let all = [
            &keys,
            &values,
            &scratch,
            &count,
            &small_keys,
            &small_values,
            &small_scratch,
            &keys_no_storage,
            &scratch_no_storage,
        ];
        let before: Vec<Vec<u8>> = all.iter().map(|b| read(b)).collect();

        let host = WgpuCount::Host;
        let gpu = |buffer, offset, capacity| WgpuCount::Gpu {
            buffer,
            offset,
            capacity,
        };
        // (what, the result, the error expected)
        type Case<'a> = (&'a str, vksort::Result<()>, &'a dyn Fn(&Error) -> bool);
        let cases: Vec<Case> = vec![
            (
                "host count over max_n",
                sort(&s, &keys, Some(&values), &scratch, host(N + 1)),
                &|e| matches!(e, Error::CountOverCapacity { n, capacity } if *n == N + 1 && *capacity == N),
            ),
            (
                "host count u64::MAX",
                sort(&s, &keys, Some(&values), &scratch, host(u64::MAX)),
                &|e| matches!(e, Error::CountOverCapacity { n: u64::MAX, .. }),
            ),
            (
                "GPU-side capacity over max_n",
                sort(&s, &keys, Some(&values), &scratch, gpu(&count, 0, N + 1)),
                &|e| matches!(e, Error::CountOverCapacity { n, capacity } if *n == N + 1 && *capacity == N),
            ),
            (
                "keys too small",
                sort(&s, &small_keys, Some(&values), &scratch, host(N)),
                &|e| matches!(e, Error::BufferTooSmall { what: "keys", needed, available } if *needed == N * 8 && *available == (N - 1) * 8),
            ),
            (
                "values too small",
                sort(&s, &keys, Some(&small_values), &scratch, host(N)),
                &|e| matches!(e, Error::BufferTooSmall { what: "values", .. }),
            ),
            (
                "scratch too small",
                sort(&s, &keys, Some(&values), &small_scratch, host(N)),
                &|e| {
                    matches!(
                        e,
                        Error::BufferTooSmall {
                            what: "scratch",
                            available: 16,
                            ..
                        }
                    )
                },
            ),
            (
                "keys without STORAGE",
                sort(&s, &keys_no_storage, Some(&values), &scratch, host(N)),
                &|e| matches!(e, Error::MissingUsage { what: "keys", missing } if missing.contains(ash::vk::BufferUsageFlags::STORAGE_BUFFER)),
            ),
            (
                "scratch without STORAGE",
                sort(&s, &keys, Some(&values), &scratch_no_storage, host(N)),
                &|e| matches!(e, Error::MissingUsage { what: "scratch", missing } if missing.contains(ash::vk::BufferUsageFlags::STORAGE_BUFFER)),
            ),
            (
                "no values for a sorter with values",
                sort(&s, &keys, None, &scratch, host(N)),
                &|e| matches!(e, Error::ValuesMismatch { expected: true }),
            ),
            (
                "values for a keys-only sorter",
                sort(&keys_only, &keys, Some(&values), &scratch, host(N)),
                &|e| matches!(e, Error::ValuesMismatch { expected: false }),
            ),
            (
                "GPU-side count misaligned",
                sort(&s, &keys, Some(&values), &scratch, gpu(&count, 2, N)),
                &|e| {
                    matches!(
                        e,
                        Error::Misaligned {
                            what: "count",
                            offset: 2,
                            alignment: 4
                        }
                    )
                },
            ),
            (
                "GPU-side count past the end of its buffer",
                sort(&s, &keys, Some(&values), &scratch, gpu(&count, 8, N)),
                &|e| matches!(e, Error::BufferTooSmall { what: "count", .. }),
            ),
            (
                "GPU-side count inside the keys",
                sort(&s, &keys, Some(&values), &scratch, gpu(&keys, 16, N)),
                &|e| {
                    matches!(
                        e,
                        Error::Overlap {
                            a: "keys",
                            b: "count"
                        }
                    )
                },
            ),
        ];
        for (what, r, expected) in &cases {
            match r {
                Err(e) => assert!(expected(e), "{key:?}, {what}: the wrong error: {e:?}"),
                Ok(()) => panic!("{key:?}, {what}: accepted"),
            }
        }
        let after: Vec<Vec<u8>> = all.iter().map(|b| read(b)).collect();
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            assert!(b == a, "{key:?}: buffer {i} changed by a refused sort");
        }
        assert_eq!(before[0], k0);
        assert_eq!(before[2], s0);
    }

    // A u64 descending sort with values, against a stable CPU sort.
    let s = WgpuSorter::new(
        &ctx,
        SortConfig {
            key: KeyType::U64,
            value: ValueType::U32,
            order: Order::Descending,
            max_n: N,
            ..Default::default()
        },
    )
    .unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let k: Vec<u64> = (0..N)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Duplicates (stability shows) and both halves of the 64 bits.
            if i % 5 == 0 {
                1 << 40
            } else {
                x
            }
        })
        .collect();
    let v: Vec<u32> = (0..N as u32).collect();
    let keys = init(bytemuck::cast_slice(&k), U::STORAGE);
    let values = init(bytemuck::cast_slice(&v), U::STORAGE);
    let scratch = s.create_scratch(N).unwrap();
    sort(&s, &keys, Some(&values), &scratch, WgpuCount::Host(N)).unwrap();
    let got_k: Vec<u64> = bytemuck::cast_slice(&read(&keys)).to_vec();
    let got_v: Vec<u32> = bytemuck::cast_slice(&read(&values)).to_vec();
    let mut expect: Vec<(u64, u32)> = k.iter().copied().zip(v.iter().copied()).collect();
    expect.sort_by_key(|e| std::cmp::Reverse(e.0)); // stable: equal keys keep their order
    let (ek, ev): (Vec<u64>, Vec<u32>) = expect.into_iter().unzip();
    assert_eq!(got_k, ek);
    assert_eq!(got_v, ev);
}

/// An encoder that already holds a wgpu command is refused with `Error::InvalidArgument`, and nothing is printed
/// for wgpu's panic on it (docs/wgpu.md, "Encoder"). The case runs in a child process of this test executable,
/// whose stderr the parent reads: a panic message printed there fails the test.
#[test]
fn wgpu_mixed_encoder_is_refused_without_a_panic_message() {
    const NAME: &str = "wgpu_mixed_encoder_is_refused_without_a_panic_message";
    if std::env::var_os("VKSORT_TEST_MIXED_CHILD").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env("VKSORT_TEST_MIXED_CHILD", "1")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success(),
            "the child failed:\n{stdout}\n{stderr}"
        );
        assert!(
            stdout.contains("refused: "),
            "the child did not reach the case:\n{stdout}"
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Mixing"),
            "a panic message was printed:\n{stderr}"
        );
        return;
    }
    use vksort::sort::SortConfig;
    use vksort::wgpu::{request_device, WgpuContext, WgpuCount, WgpuSorter};
    let adapter = vulkan_adapter();
    let (device, _queue) = request_device(&adapter, &Default::default()).unwrap();
    let ctx = WgpuContext::new(&device).unwrap();
    let s = WgpuSorter::new(
        &ctx,
        SortConfig {
            max_n: 1000,
            ..Default::default()
        },
    )
    .unwrap();
    let keys = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4000,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let scratch = s.create_scratch(1000).unwrap();
    let mut e = device.create_command_encoder(&Default::default());
    e.clear_buffer(&keys, 0, None);
    // SAFETY (test): nothing is submitted; the encoder is dropped unfinished.
    let r = unsafe { s.encode_sort(&mut e, &keys, None, &scratch, WgpuCount::Host(1000)) };
    match r {
        Err(vksort::Error::InvalidArgument(m)) => println!("refused: {m}"),
        other => panic!("an encoder with wgpu commands: {other:?}"),
    }
    drop(e);
}
