//! The device class: the one place that reads vendor ids and device types to decide how vksort tunes for a
//! device (docs/tuning.md holds the measurements behind each class's values).

use ash::vk;

/// The kind of device a policy tunes for, decided once ([`super::DeviceCaps::class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceClass {
    /// A CPU implementation such as lavapipe: few, wide workgroups; no spinning on other workgroups.
    Cpu,
    /// NVIDIA GPUs: the class with measured tuning tables.
    Nvidia,
    /// GPUs with weak forward-progress guarantees (Mali, Adreno, Apple): nothing may wait on a later workgroup.
    WeakForwardProgress,
    /// Every other GPU (AMD, Intel, ...): the generic tuning.
    Generic,
}

impl DeviceClass {
    /// The class of a device from its PCI vendor id and type.
    pub fn of(vendor_id: u32, device_type: vk::PhysicalDeviceType) -> Self {
        const NVIDIA: u32 = 0x10de;
        const WEAK_FORWARD_PROGRESS: [u32; 3] = [0x13b5, 0x5143, 0x106b];
        if device_type == vk::PhysicalDeviceType::CPU {
            Self::Cpu
        } else if vendor_id == NVIDIA {
            Self::Nvidia
        } else if WEAK_FORWARD_PROGRESS.contains(&vendor_id) {
            Self::WeakForwardProgress
        } else {
            Self::Generic
        }
    }

    /// True for CPU implementations.
    pub fn is_cpu(self) -> bool {
        self == Self::Cpu
    }

    /// Whether workgroups may spin on earlier workgroups of the dispatch (look-back) without risking a hang.
    pub fn forward_progress(self) -> bool {
        self != Self::WeakForwardProgress
    }
}
