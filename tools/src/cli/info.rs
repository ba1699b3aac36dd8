//! `vksort info`: the Vulkan devices, the limits and subgroup features vksort reads, and the policy it picks.

use anyhow::Result;
use ash::vk;
use vksort::policy::SubgroupPlan;
use vksort::Context;

fn subgroup_ops(ops: vk::SubgroupFeatureFlags) -> String {
    let names = [
        (vk::SubgroupFeatureFlags::BASIC, "basic"),
        (vk::SubgroupFeatureFlags::VOTE, "vote"),
        (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
        (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
        (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
        (
            vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
            "shuffle-relative",
        ),
        (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
        (vk::SubgroupFeatureFlags::QUAD, "quad"),
        (vk::SubgroupFeatureFlags::PARTITIONED_NV, "partitioned"),
    ];
    names
        .iter()
        .filter(|(f, _)| ops.contains(*f))
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(selected: Option<&str>) -> Result<i32> {
    let devices = Context::enumerate()?;
    if devices.is_empty() {
        println!("no Vulkan devices");
        return Ok(2);
    }
    for (i, caps) in &devices {
        let api = caps.api_version;
        println!(
            "[{i}] {} ({:?}, {}, Vulkan {}.{}.{}){}",
            caps.name,
            caps.device_type,
            caps.vendor(),
            vk::api_version_major(api),
            vk::api_version_minor(api),
            vk::api_version_patch(api),
            match selected {
                Some(s)
                    if s == i.to_string()
                        || caps.name.to_lowercase().contains(&s.to_lowercase()) =>
                    "  <- selected",
                _ => "",
            }
        );
        println!(
            "    driver: {} (version {:#x})",
            caps.driver_info, caps.driver_version
        );
        println!(
            "    subgroup: size {} (range {}..{}), size control {}; ops: {}",
            caps.subgroup_size,
            caps.min_subgroup_size,
            caps.max_subgroup_size,
            if caps.subgroup_size_control {
                "yes"
            } else {
                "no"
            },
            subgroup_ops(caps.subgroup_ops)
        );
        println!(
            "    shared memory {} KiB, workgroup <= {} invocations, grid {:?}",
            caps.max_shared_memory / 1024,
            caps.max_workgroup_invocations,
            caps.max_workgroup_count
        );
        println!(
            "    max storage buffer range {}, device-local memory {}, storage offset alignment {}, push constants {} B",
            super::io::fmt_bytes(caps.max_storage_buffer_range),
            super::io::fmt_bytes(caps.device_local_bytes),
            caps.min_storage_buffer_offset_alignment,
            caps.max_push_constants_size
        );
        println!(
            "    timestamps: {} valid bits, {} ns per tick; device UUID {}",
            caps.timestamp_valid_bits,
            caps.timestamp_period,
            crate::model::uuid_hex(&caps.device_uuid)
        );
        let plan = SubgroupPlan::for_device(caps);
        println!(
            "    policy: subgroup plan {:?}, workgroup size {} (for a wish of 256)",
            plan,
            plan.workgroup_size(caps, 256)
        );
        for line in crate::bench::ops::sort_families_summary() {
            println!("    sort family {line}");
        }
        for line in crate::bench::ops::policy_summary(caps) {
            println!("    policy: {line}");
        }
        let cache = crate::model::Calibration::cache_dir().map(|d| {
            d.join(format!(
                "calibration-{}.json",
                crate::model::uuid_hex(&caps.device_uuid)
            ))
        });
        match cache {
            Some(p) if p.exists() => println!("    calibration: {}", p.display()),
            _ => println!(
                "    calibration: none cached (`vksort calibrate`; used by `--algo model` only)"
            ),
        }
        match crate::cache::cache_dir().map(|d| d.join(crate::cache::file_name(caps))) {
            Some(p) => match std::fs::metadata(&p) {
                Ok(m) => println!("    pipeline cache: {} ({} bytes)", p.display(), m.len()),
                Err(_) => println!("    pipeline cache: {} (not written yet)", p.display()),
            },
            None => println!("    pipeline cache: off"),
        }
    }
    Ok(0)
}
