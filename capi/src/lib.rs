//! The C API of vksort: a thin layer over the library's recording form ([`vksort::Context::adopt`],
//! [`vksort::sort::Sorter`]), for C and C++ engines that create their own Vulkan device.
//!
//! The header `include/vksort.h` is generated from this file by cbindgen (build.rs); the doc comments below are
//! the header's documentation. Every exported function catches panics (turned into `VKSORT_ERROR_INTERNAL`),
//! and every error leaves a message for `vksortGetLastError` on the calling thread.
#![allow(non_snake_case, non_camel_case_types)]
#![deny(unsafe_op_in_unsafe_fn)]
// Each exported function states the caller's promises in its docs ("The caller promises: ..."), the
// text cbindgen copies into vksort.h, rather than under a Rust `# Safety` heading.
#![allow(clippy::missing_safety_doc)]

use ash::vk;
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use vksort::gpu::{AdoptInfo, DeviceRequirements};
use vksort::sort::{KeyType, Order, SortAlgorithm, SortConfig, Sorter, ValueType};
use vksort::{BufferRef, Context, Error, Recorder};

/// `VkInstance` (vulkan.h).
pub type VkInstance = vk::Instance;
/// `VkPhysicalDevice` (vulkan.h).
pub type VkPhysicalDevice = vk::PhysicalDevice;
/// `VkDevice` (vulkan.h).
pub type VkDevice = vk::Device;
/// `VkQueue` (vulkan.h).
pub type VkQueue = vk::Queue;
/// `VkCommandBuffer` (vulkan.h).
pub type VkCommandBuffer = vk::CommandBuffer;
/// `VkBuffer` (vulkan.h).
pub type VkBuffer = vk::Buffer;
/// `VkBufferUsageFlags` (vulkan.h).
pub type VkBufferUsageFlags = u32;
/// `VkDeviceSize` (vulkan.h).
pub type VkDeviceSize = u64;
/// `VkBool32` (vulkan.h).
pub type VkBool32 = u32;
/// `VkResult` (vulkan.h).
pub type VkResult = i32;
/// `PFN_vkGetInstanceProcAddr` (vulkan.h).
pub type PFN_vkGetInstanceProcAddr = Option<vk::PFN_vkGetInstanceProcAddr>;
/// `VkPhysicalDeviceFeatures2` (vulkan.h).
pub type VkPhysicalDeviceFeatures2 = vk::PhysicalDeviceFeatures2<'static>;

/// What a vksort function returned. `VKSORT_SUCCESS` is 0 and every error is negative, as `VkResult`;
/// `vksortGetLastError` says what went wrong in words.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VksortResult {
    /// It worked.
    VKSORT_SUCCESS = 0,
    /// An argument is out of range: a NULL pointer where one is required, an unknown enum value, a bad bit
    /// range, values given to a keys-only sorter (or none to a sorter with values), a handle of another context.
    VKSORT_ERROR_INVALID_ARGUMENT = -1,
    /// The device cannot run vksort (a missing extension, feature or subgroup operation), or the algorithm
    /// asked for cannot do the configuration (key type, count, stability).
    VKSORT_ERROR_UNSUPPORTED = -2,
    /// A buffer region is VK_NULL_HANDLE, too small, misaligned, lacks a usage flag vksort needs, or shares
    /// bytes with another region of the same command.
    VKSORT_ERROR_BUFFER = -3,
    /// A count above the sorter's `maxCount` (or above a limit of the algorithm or device).
    VKSORT_ERROR_CAPACITY = -4,
    /// A Vulkan call failed: `vksortGetLastVkResult` returns its `VkResult`.
    VKSORT_ERROR_VULKAN = -5,
    /// Host or device memory ran out.
    VKSORT_ERROR_OUT_OF_MEMORY = -6,
    /// VK_ERROR_DEVICE_LOST.
    VKSORT_ERROR_DEVICE_LOST = -7,
    /// A bounded wait ran out.
    VKSORT_ERROR_TIMEOUT = -8,
    /// A bug inside vksort (a caught panic, a shader that failed to load): never the caller's input.
    VKSORT_ERROR_INTERNAL = -9,
}

/// Key types (`VksortSortConfig::keyType`). Floats sort in IEEE 754 totalOrder
/// (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub enum VksortKeyType {
    /// 32-bit unsigned integer keys.
    VKSORT_KEY_U32 = 0,
    /// 32-bit signed integer keys.
    VKSORT_KEY_I32 = 1,
    /// 32-bit IEEE 754 float keys.
    VKSORT_KEY_F32 = 2,
    /// 64-bit unsigned integer keys (sorted as two 32-bit words: no device feature needed).
    VKSORT_KEY_U64 = 3,
    /// 64-bit signed integer keys.
    VKSORT_KEY_I64 = 4,
    /// 64-bit IEEE 754 float keys.
    VKSORT_KEY_F64 = 5,
    /// 128-bit unsigned integer keys (four 32-bit words, lowest first; the comparison sorts take them).
    VKSORT_KEY_U128 = 6,
}

/// Value types (`VksortSortConfig::valueType`): the payload moved with each key.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub enum VksortValueType {
    /// Keys only.
    VKSORT_VALUE_NONE = 0,
    /// A 4-byte value per key (a u32 index, or any 4 bytes).
    VKSORT_VALUE_U32 = 1,
    /// An 8-byte value per key.
    VKSORT_VALUE_U64 = 2,
}

/// Sort order (`VksortSortConfig::order`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub enum VksortOrder {
    /// Smallest key first.
    VKSORT_ORDER_ASCENDING = 0,
    /// Largest key first.
    VKSORT_ORDER_DESCENDING = 1,
}

/// Sort algorithms (`VksortSortConfig::algorithm`). `VKSORT_ALGORITHM_AUTO` lets the device's policy pick per
/// size and only picks stable algorithms; the others are for benchmarks and special cases.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub enum VksortAlgorithm {
    /// The device policy picks per size (stable).
    VKSORT_ALGORITHM_AUTO = 0,
    /// LSD radix sort, one pass per digit place with decoupled look-back (stable).
    VKSORT_ALGORITHM_ONESWEEP = 1,
    /// LSD radix sort, upsweep / spine / downsweep per digit place (stable).
    VKSORT_ALGORITHM_REDUCE_THEN_SCAN = 2,
    /// Rank sort of a few thousand keys, all held in shared memory (small counts only; stable).
    VKSORT_ALGORITHM_SMALL = 3,
    /// MSD radix sort (up to 2^20 keys; stable).
    VKSORT_ALGORITHM_MSD = 4,
    /// MSD hybrid radix sort (stable).
    VKSORT_ALGORITHM_HYBRID = 5,
    /// Bitonic sort (not stable).
    VKSORT_ALGORITHM_BITONIC = 6,
    /// Merge sort (stable).
    VKSORT_ALGORITHM_MERGE = 7,
    /// Split radix sort, blocked (stable).
    VKSORT_ALGORITHM_SPLIT_RADIX = 8,
    /// Split radix sort, one split per bit (stable).
    VKSORT_ALGORITHM_SPLIT_RADIX_BIT = 9,
    /// WarpSort (stable).
    VKSORT_ALGORITHM_WARPSORT = 10,
    /// GPU quicksort (not stable).
    VKSORT_ALGORITHM_QUICKSORT = 11,
}

/// What a sorter sorts and how. Zero-initialise it and set what you need: the zero values are u32 keys, no
/// values, ascending, all bits, the automatic algorithm, stability not required, and (for `maxCount == 0`)
/// 2^20 keys.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VksortSortConfig {
    /// A `VksortKeyType`.
    pub keyType: u32,
    /// A `VksortValueType`.
    pub valueType: u32,
    /// A `VksortOrder`.
    pub order: u32,
    /// Sort on bits `[bitBegin, bitEnd)` of the transformed key only (as CUB's begin_bit / end_bit; the
    /// transform makes the unsigned order of the bits the key order). `bitBegin == bitEnd == 0`: all bits.
    pub bitBegin: u32,
    /// One past the last bit sorted on (see `bitBegin`).
    pub bitEnd: u32,
    /// A `VksortAlgorithm`.
    pub algorithm: u32,
    /// VK_TRUE: require a stable sort (an unstable algorithm is refused with VKSORT_ERROR_UNSUPPORTED).
    pub stable: VkBool32,
    /// The most keys one sort of this sorter takes (a host count, or the capacity of a GPU-side count).
    /// Pipelines for every size up to it are built when the sorter is created. 0: 2^20.
    pub maxCount: u64,
}

/// A region of one of the caller's buffers. vksort cannot check the handle; it checks the rest (null handle,
/// size, usage, alignment, overlap) before recording anything.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VksortBufferRegion {
    /// The buffer (a buffer of the context's device, its memory bound).
    pub buffer: VkBuffer,
    /// Byte offset of the region; a multiple of the device's minStorageBufferOffsetAlignment.
    pub offset: VkDeviceSize,
    /// Byte size of the region (`VK_WHOLE_SIZE` is not accepted: give the size).
    pub size: VkDeviceSize,
    /// The usage flags the buffer was created with (vksort checks it has what it needs).
    pub usage: VkBufferUsageFlags,
}

/// The scratch buffer a sort needs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VksortStorageRequirements {
    /// Bytes of scratch.
    pub size: VkDeviceSize,
    /// The scratch region's offset must be a multiple of this (the device's minStorageBufferOffsetAlignment).
    pub alignment: VkDeviceSize,
    /// Usage flags the scratch buffer needs (storage and transfer; `SHADER_DEVICE_ADDRESS` for sorts larger than
    /// one storage-buffer binding).
    pub usage: VkBufferUsageFlags,
}

/// The most extensions `VksortDeviceRequirements` lists.
pub const VKSORT_MAX_DEVICE_EXTENSIONS: usize = 8;

/// What the device must be created with for vksort, from `vksortGetDeviceRequirements`, before the device
/// exists. Enable every listed extension and every feature set to VK_TRUE (`vksortMergeDeviceFeatures` sets
/// them in the caller's feature chain).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VksortDeviceRequirements {
    /// The physical device's Vulkan version (at least 1.2). Create the instance with at least this version, up
    /// to 1.3, for the feature structs named below.
    pub apiVersion: u32,
    /// The first queue family with compute (any family with compute will do).
    pub computeQueueFamily: u32,
    /// How many of `extensionNames` are set.
    pub extensionCount: u32,
    /// The device extensions to enable (static strings): VK_KHR_push_descriptor, and where the device has them
    /// VK_EXT_subgroup_size_control (before Vulkan 1.3) and VK_NV_shader_subgroup_partitioned.
    pub extensionNames: [*const c_char; VKSORT_MAX_DEVICE_EXTENSIONS],
    /// `VkPhysicalDeviceFeatures::shaderInt64`.
    pub shaderInt64: VkBool32,
    /// `VkPhysicalDeviceVulkan12Features::shaderSubgroupExtendedTypes` (or the separate struct's).
    pub shaderSubgroupExtendedTypes: VkBool32,
    /// `VkPhysicalDeviceVulkan12Features::bufferDeviceAddress` (or the separate struct's).
    pub bufferDeviceAddress: VkBool32,
    /// `subgroupSizeControl` of `VkPhysicalDeviceVulkan13Features` (Vulkan 1.3) or of
    /// `VkPhysicalDeviceSubgroupSizeControlFeatures`.
    pub subgroupSizeControl: VkBool32,
    /// `computeFullSubgroups`, in the same struct as `subgroupSizeControl`.
    pub computeFullSubgroups: VkBool32,
}

/// What `vksortCreateContext` adopts: the caller's Vulkan objects. vksort keeps them and destroys none.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VksortContextCreateInfo {
    /// The loader's (or a layer-aware) `vkGetInstanceProcAddr`, from which vksort loads every command.
    pub getInstanceProcAddr: PFN_vkGetInstanceProcAddr,
    /// The caller's instance.
    pub instance: VkInstance,
    /// The physical device, enumerated from `instance`.
    pub physicalDevice: VkPhysicalDevice,
    /// The caller's device, created from `physicalDevice` with what `vksortGetDeviceRequirements` lists.
    pub device: VkDevice,
    /// A queue family of `device` with compute: the command buffers vksort records into come from a pool of
    /// it.
    pub queueFamilyIndex: u32,
    /// A queue of `device` in `queueFamilyIndex` (vksort records only; it never submits from the C API).
    pub queue: VkQueue,
    /// VK_TRUE when the instance was created with VK_EXT_debug_utils: vksort then names its objects and
    /// labels its passes for captures.
    pub debugUtils: VkBool32,
    /// The `VkApplicationInfo::apiVersion` the instance was created with (0 is Vulkan 1.0): below
    /// VK_API_VERSION_1_2, VKSORT_ERROR_UNSUPPORTED says so before any query.
    pub instanceApiVersion: u32,
    /// What the device was created with: the extensions and features set in it (from
    /// `vksortGetDeviceRequirements`, with those the device was not created with cleared, or filled by the
    /// caller). vksort uses those the device supports, and no other. NULL: everything
    /// `vksortGetDeviceRequirements` lists for the physical device was enabled.
    pub pEnabled: *const VksortDeviceRequirements,
}

/// An adopted device: vksort's pipelines, caches and allocator on the caller's device. Opaque.
pub struct VksortContext {
    ctx: Arc<Context>,
}

/// A planned sort for one `VksortSortConfig` on one context. Opaque.
pub struct VksortSorter {
    sorter: Sorter,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    static LAST_VK_RESULT: Cell<i32> = const { Cell::new(0) };
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn clear_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::default());
    LAST_VK_RESULT.with(|r| r.set(0));
}

/// The result code of a vksort error, its message left for `vksortGetLastError`.
fn fail(e: Error) -> VksortResult {
    use VksortResult::*;
    set_error(&e.to_string());
    match e {
        Error::InvalidArgument(_)
        | Error::InvalidBitRange { .. }
        | Error::InvalidPolicy { .. }
        | Error::ValuesMismatch { .. }
        | Error::LengthMismatch { .. }
        | Error::SizeNotMultiple { .. }
        | Error::WrongContext { .. } => VKSORT_ERROR_INVALID_ARGUMENT,
        Error::Unsupported { .. }
        | Error::NoDevice(_)
        | Error::Loader(_)
        | Error::UnsupportedAlgorithm { .. }
        | Error::AlgorithmLimit { .. }
        | Error::NotStable { .. } => VKSORT_ERROR_UNSUPPORTED,
        Error::Overlap { .. }
        | Error::BufferTooSmall { .. }
        | Error::NullBuffer { .. }
        | Error::MissingUsage { .. }
        | Error::Misaligned { .. } => VKSORT_ERROR_BUFFER,
        Error::CountOverCapacity { .. } | Error::TooLarge { .. } | Error::GridTooLarge { .. } => {
            VKSORT_ERROR_CAPACITY
        }
        Error::Vulkan { result, .. } => {
            LAST_VK_RESULT.with(|r| r.set(result.as_raw()));
            match result {
                vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
                    VKSORT_ERROR_OUT_OF_MEMORY
                }
                vk::Result::ERROR_DEVICE_LOST => VKSORT_ERROR_DEVICE_LOST,
                _ => VKSORT_ERROR_VULKAN,
            }
        }
        Error::Allocation { .. } => VKSORT_ERROR_OUT_OF_MEMORY,
        Error::DeviceLost { .. } => VKSORT_ERROR_DEVICE_LOST,
        Error::Timeout { .. } => VKSORT_ERROR_TIMEOUT,
        _ => VKSORT_ERROR_INTERNAL,
    }
}

fn invalid(msg: &str) -> VksortResult {
    set_error(&format!("invalid argument: {msg}"));
    VksortResult::VKSORT_ERROR_INVALID_ARGUMENT
}

/// Runs an exported function's body: clears the thread's last error, catches a panic (VKSORT_ERROR_INTERNAL,
/// its message kept) so none crosses the C boundary.
fn guard(f: impl FnOnce() -> VksortResult) -> VksortResult {
    clear_error();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_error(&format!(
                "internal error (panic caught at the C boundary): {what}"
            ));
            VksortResult::VKSORT_ERROR_INTERNAL
        }
    }
}

/// ash's instance function table from the caller's `vkGetInstanceProcAddr`.
///
/// # Safety
/// `gipa` is a valid `vkGetInstanceProcAddr` and `instance` a live instance of it.
unsafe fn load_instance(
    gipa: vk::PFN_vkGetInstanceProcAddr,
    instance: vk::Instance,
) -> (ash::Entry, ash::Instance) {
    // SAFETY: the caller's promise.
    unsafe {
        let entry = ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: gipa,
        });
        let inst = ash::Instance::load(entry.static_fn(), instance);
        (entry, inst)
    }
}

/// `VksortKeyType` numbers the key types in `KeyType::ALL`'s order (`header_enums_follow_the_library`).
fn key_type(v: u32) -> Option<KeyType> {
    KeyType::ALL.get(v as usize).copied()
}

fn value_type(v: u32) -> Option<ValueType> {
    Some(match v {
        0 => ValueType::None,
        1 => ValueType::U32,
        2 => ValueType::U64,
        _ => return None,
    })
}

/// `VksortAlgorithm` numbers the algorithms in `SortAlgorithm::ALL`'s order (`header_enums_follow_the_library`).
fn algorithm(v: u32) -> Option<SortAlgorithm> {
    SortAlgorithm::ALL.get(v as usize).copied()
}

/// The message of the last vksort error on the calling thread ("" after a call that succeeded). The string
/// stays valid until the next vksort call on this thread.
#[no_mangle]
pub extern "C" fn vksortGetLastError() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The `VkResult` of the last failed Vulkan call behind a `VKSORT_ERROR_VULKAN` (or out-of-memory, device-lost)
/// result on the calling thread; `VK_SUCCESS` (0) otherwise.
#[no_mangle]
pub extern "C" fn vksortGetLastVkResult() -> VkResult {
    LAST_VK_RESULT.with(|r| r.get())
}

/// Fills `*pRequirements` with what the device must be created with for vksort: extensions and features
/// (call it between enumerating the physical device and `vkCreateDevice`). Returns VKSORT_ERROR_UNSUPPORTED,
/// naming everything missing in `vksortGetLastError`, where the physical device cannot run vksort (it needs
/// Vulkan 1.2, VK_KHR_push_descriptor, a queue family with compute, and subgroup basic, vote, arithmetic,
/// ballot and shuffle operations in compute shaders).
///
/// `instanceApiVersion` is the `VkApplicationInfo::apiVersion` the instance was created with (0 is Vulkan 1.0):
/// below VK_API_VERSION_1_2 the error names it, before any query.
///
/// The caller promises: `getInstanceProcAddr` is valid, `instance` is a live instance created with
/// `instanceApiVersion` and `physicalDevice` was enumerated from it. Records nothing, creates nothing.
#[no_mangle]
pub unsafe extern "C" fn vksortGetDeviceRequirements(
    getInstanceProcAddr: PFN_vkGetInstanceProcAddr,
    instance: VkInstance,
    instanceApiVersion: u32,
    physicalDevice: VkPhysicalDevice,
    pRequirements: *mut VksortDeviceRequirements,
) -> VksortResult {
    guard(|| {
        let Some(gipa) = getInstanceProcAddr else {
            return invalid("getInstanceProcAddr is NULL");
        };
        if pRequirements.is_null() || instance == vk::Instance::null() {
            return invalid("instance or pRequirements is NULL");
        }
        // SAFETY: the caller's promise.
        let (_entry, inst) = unsafe { load_instance(gipa, instance) };
        // SAFETY: the caller's promise.
        let reqs =
            match unsafe { DeviceRequirements::query(&inst, instanceApiVersion, physicalDevice) } {
                Ok(r) => r,
                Err(e) => return fail(e),
            };
        let mut names = [std::ptr::null(); VKSORT_MAX_DEVICE_EXTENSIONS];
        let exts = reqs.extensions();
        for (slot, e) in names.iter_mut().zip(exts) {
            *slot = e.as_ptr();
        }
        let out = VksortDeviceRequirements {
            apiVersion: reqs.api_version(),
            computeQueueFamily: reqs.compute_queue_family(),
            extensionCount: exts.len().min(VKSORT_MAX_DEVICE_EXTENSIONS) as u32,
            extensionNames: names,
            shaderInt64: reqs.features().shader_int64,
            shaderSubgroupExtendedTypes: reqs.features12().shader_subgroup_extended_types,
            bufferDeviceAddress: reqs.features12().buffer_device_address,
            subgroupSizeControl: reqs.subgroup_size_control() as u32,
            computeFullSubgroups: reqs.subgroup_size_control() as u32,
        };
        // SAFETY: checked non-NULL; the caller's promise that it points to writable storage.
        unsafe { pRequirements.write(out) };
        VksortResult::VKSORT_SUCCESS
    })
}

/// Sets (ORs) the features of `*pRequirements` in the caller's feature chain that starts at `pFeatures`
/// (a `VkPhysicalDeviceFeatures2` chained into `VkDeviceCreateInfo::pNext`): `shaderInt64` in
/// `pFeatures->features`; `shaderSubgroupExtendedTypes` and `bufferDeviceAddress` in the chained
/// `VkPhysicalDeviceVulkan12Features` (or the separate `VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures` /
/// `VkPhysicalDeviceBufferDeviceAddressFeatures`); `subgroupSizeControl` and `computeFullSubgroups` in the
/// chained `VkPhysicalDeviceVulkan13Features` or `VkPhysicalDeviceSubgroupSizeControlFeatures`. The caller's
/// own bits stay set. Adds no struct to the chain (Vulkan forbids two of a kind, and C owns the memory):
/// where a feature is required and no struct of the chain holds it, returns VKSORT_ERROR_INVALID_ARGUMENT
/// naming the struct to chain, having set the others.
///
/// The caller promises: every struct of the chain is a live, writable struct of the type its `sType` names.
#[no_mangle]
pub unsafe extern "C" fn vksortMergeDeviceFeatures(
    pRequirements: *const VksortDeviceRequirements,
    pFeatures: *mut VkPhysicalDeviceFeatures2,
) -> VksortResult {
    guard(|| {
        if pRequirements.is_null() || pFeatures.is_null() {
            return invalid("pRequirements or pFeatures is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promise.
        let r = unsafe { *pRequirements };
        let f2 = unsafe { &mut *pFeatures };
        if f2.s_type != vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
            return invalid("pFeatures is not a VkPhysicalDeviceFeatures2 (sType)");
        }
        f2.features.shader_int64 |= r.shaderInt64;
        let (mut ext_types, mut bda, mut ssc) = (
            r.shaderSubgroupExtendedTypes == 0,
            r.bufferDeviceAddress == 0,
            r.subgroupSizeControl == 0 && r.computeFullSubgroups == 0,
        );
        let mut node = f2.p_next as *mut vk::BaseOutStructure<'static>;
        while !node.is_null() {
            // SAFETY: the caller's promise: each node is a live struct of the type its sType names.
            unsafe {
                match (*node).s_type {
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceVulkan12Features<'static>);
                        f.shader_subgroup_extended_types |= r.shaderSubgroupExtendedTypes;
                        f.buffer_device_address |= r.bufferDeviceAddress;
                        ext_types = true;
                        bda = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES => {
                        let f = &mut *(node
                            as *mut vk::PhysicalDeviceShaderSubgroupExtendedTypesFeatures<'static>);
                        f.shader_subgroup_extended_types |= r.shaderSubgroupExtendedTypes;
                        ext_types = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceBufferDeviceAddressFeatures<
                            'static,
                        >);
                        f.buffer_device_address |= r.bufferDeviceAddress;
                        bda = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceVulkan13Features<'static>);
                        f.subgroup_size_control |= r.subgroupSizeControl;
                        f.compute_full_subgroups |= r.computeFullSubgroups;
                        ssc = true;
                    }
                    vk::StructureType::PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES => {
                        let f = &mut *(node as *mut vk::PhysicalDeviceSubgroupSizeControlFeatures<
                            'static,
                        >);
                        f.subgroup_size_control |= r.subgroupSizeControl;
                        f.compute_full_subgroups |= r.computeFullSubgroups;
                        ssc = true;
                    }
                    _ => {}
                }
                node = (*node).p_next;
            }
        }
        let mut missing = Vec::new();
        if !ext_types || !bda {
            missing.push("VkPhysicalDeviceVulkan12Features");
        }
        if !ssc {
            missing.push(if r.apiVersion >= vk::API_VERSION_1_3 {
                "VkPhysicalDeviceVulkan13Features"
            } else {
                "VkPhysicalDeviceSubgroupSizeControlFeatures"
            });
        }
        if missing.is_empty() {
            VksortResult::VKSORT_SUCCESS
        } else {
            invalid(&format!(
                "the feature chain lacks {} for vksort's features",
                missing.join(" and ")
            ))
        }
    })
}

/// Adopts the caller's device: creates vksort's context (allocator, pipeline cache, command pool) on it and
/// writes the handle to `*pContext`. Checks the instance's version and the device first (Vulkan 1.2, a compute
/// queue family, VK_KHR_push_descriptor enabled, subgroup operations): VKSORT_ERROR_UNSUPPORTED names what is
/// missing. vksort plans within the features `pEnabled` lists: a sorter needing one that is missing fails at
/// `vksortCreateSorter`.
///
/// The caller promises: the handles of `*pCreateInfo` are live and of one another (the physical device
/// enumerated from the instance, the instance created with `instanceApiVersion`, the device created from it
/// with everything `pEnabled` (or, where NULL, `vksortGetDeviceRequirements`) lists, the queue of that device
/// in `queueFamilyIndex`); they stay alive until the context and every sorter made from it are destroyed, and
/// until the GPU has finished every command buffer vksort recorded into.
#[no_mangle]
pub unsafe extern "C" fn vksortCreateContext(
    pCreateInfo: *const VksortContextCreateInfo,
    pContext: *mut *mut VksortContext,
) -> VksortResult {
    guard(|| {
        if pCreateInfo.is_null() || pContext.is_null() {
            return invalid("pCreateInfo or pContext is NULL");
        }
        // SAFETY: checked non-NULL.
        let info = unsafe { *pCreateInfo };
        unsafe { pContext.write(std::ptr::null_mut()) };
        let Some(gipa) = info.getInstanceProcAddr else {
            return invalid("getInstanceProcAddr is NULL");
        };
        if info.instance == vk::Instance::null() || info.device == vk::Device::null() {
            return invalid("instance or device is NULL");
        }
        // SAFETY: the caller's promise (live handles of one another).
        let (entry, instance) = unsafe { load_instance(gipa, info.instance) };
        let device = unsafe { ash::Device::load(instance.fp_v1_0(), info.device) };
        let reqs = if info.pEnabled.is_null() {
            let version = info.instanceApiVersion;
            match unsafe { DeviceRequirements::query(&instance, version, info.physicalDevice) } {
                Ok(r) => r,
                Err(e) => return fail(e),
            }
        } else {
            // SAFETY: non-NULL; the caller's promise that it points to a filled struct.
            unsafe { enabled_requirements(&*info.pEnabled) }
                .with_instance_api_version(info.instanceApiVersion)
        };
        let adopt = AdoptInfo::new(
            &entry,
            &instance,
            info.physicalDevice,
            &device,
            info.queueFamilyIndex,
            info.queue,
            &reqs,
        )
        .with_debug_utils(info.debugUtils != 0);
        // SAFETY: the caller's promise, as documented above (Context::adopt's).
        match unsafe { Context::adopt(adopt) } {
            Ok(ctx) => {
                let boxed = Box::into_raw(Box::new(VksortContext { ctx }));
                unsafe { pContext.write(boxed) };
                VksortResult::VKSORT_SUCCESS
            }
            Err(e) => fail(e),
        }
    })
}

/// The features `r` says are enabled, as the library's requirements (a feature counts where all its bits are).
///
/// # Safety
/// `r.extensionNames[..extensionCount]` are NULL or NUL-terminated strings.
unsafe fn enabled_requirements(r: &VksortDeviceRequirements) -> DeviceRequirements {
    let on = |b: VkBool32| b == vk::TRUE;
    let count = (r.extensionCount as usize).min(VKSORT_MAX_DEVICE_EXTENSIONS);
    // SAFETY: the caller's promise.
    let partitioned = r.extensionNames[..count].iter().any(|&p| {
        !p.is_null() && unsafe { CStr::from_ptr(p) } == ash::nv::shader_subgroup_partitioned::NAME
    });
    DeviceRequirements::minimum()
        .with_int64(on(r.shaderInt64) && on(r.shaderSubgroupExtendedTypes))
        .with_subgroup_size_control(on(r.subgroupSizeControl) && on(r.computeFullSubgroups))
        .with_buffer_device_address(on(r.bufferDeviceAddress))
        .with_subgroup_partitioned(partitioned)
}

/// Destroys a context (NULL is ignored). Sorters made from it keep what they need alive: the context's Vulkan
/// objects go with the last of them. Waits for the device to be idle when the last reference goes, so no
/// command buffer vksort recorded may be pending forever (and the caller's queues must not be in use on
/// another thread then).
#[no_mangle]
pub unsafe extern "C" fn vksortDestroyContext(context: *mut VksortContext) {
    let _ = guard(|| {
        if !context.is_null() {
            // SAFETY: made by vksortCreateContext and not destroyed yet (the caller's promise).
            drop(unsafe { Box::from_raw(context) });
        }
        VksortResult::VKSORT_SUCCESS
    });
}

/// Creates a sorter for `*pConfig` on `context` and writes it to `*pSorter`. Builds every pipeline a sort of
/// up to `maxCount` keys may use, so recording never compiles. Returns every error it can know now: an unknown
/// enum value or a bad bit range (VKSORT_ERROR_INVALID_ARGUMENT), an algorithm that cannot take the key type,
/// count or stability (VKSORT_ERROR_UNSUPPORTED).
#[no_mangle]
pub unsafe extern "C" fn vksortCreateSorter(
    context: *const VksortContext,
    pConfig: *const VksortSortConfig,
    pSorter: *mut *mut VksortSorter,
) -> VksortResult {
    guard(|| {
        if context.is_null() || pConfig.is_null() || pSorter.is_null() {
            return invalid("context, pConfig or pSorter is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promise that they are live.
        let (ctx, c) = unsafe { (&(*context).ctx, *pConfig) };
        unsafe { pSorter.write(std::ptr::null_mut()) };
        let Some(key) = key_type(c.keyType) else {
            return invalid("unknown keyType");
        };
        let Some(value) = value_type(c.valueType) else {
            return invalid("unknown valueType");
        };
        let order = match c.order {
            0 => Order::Ascending,
            1 => Order::Descending,
            _ => return invalid("unknown order"),
        };
        let Some(algorithm) = algorithm(c.algorithm) else {
            return invalid("unknown algorithm");
        };
        let config = SortConfig {
            key,
            value,
            order,
            bits: (c.bitBegin != 0 || c.bitEnd != 0).then_some((c.bitBegin, c.bitEnd)),
            algorithm,
            stable: c.stable != 0,
            max_n: if c.maxCount == 0 {
                vksort::sort::DEFAULT_MAX_N
            } else {
                c.maxCount
            },
        };
        match Sorter::new(ctx, config) {
            Ok(sorter) => {
                unsafe { pSorter.write(Box::into_raw(Box::new(VksortSorter { sorter }))) };
                VksortResult::VKSORT_SUCCESS
            }
            Err(e) => fail(e),
        }
    })
}

/// Destroys a sorter (NULL is ignored). The GPU must have finished every command buffer it recorded into (or
/// they were reset or freed unsubmitted).
#[no_mangle]
pub unsafe extern "C" fn vksortDestroySorter(sorter: *mut VksortSorter) {
    let _ = guard(|| {
        if !sorter.is_null() {
            // SAFETY: made by vksortCreateSorter and not destroyed yet (the caller's promise).
            drop(unsafe { Box::from_raw(sorter) });
        }
        VksortResult::VKSORT_SUCCESS
    });
}

/// Writes to `*pRequirements` the scratch buffer a sort of up to `maxCount` keys needs: its size, the alignment
/// of its offset and its usage flags (any algorithm the sorter may choose for that count). `maxCount` above the
/// sorter's is VKSORT_ERROR_CAPACITY.
#[no_mangle]
pub unsafe extern "C" fn vksortGetSorterStorageRequirements(
    sorter: *const VksortSorter,
    maxCount: u64,
    pRequirements: *mut VksortStorageRequirements,
) -> VksortResult {
    guard(|| {
        if sorter.is_null() || pRequirements.is_null() {
            return invalid("sorter or pRequirements is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promise that it is live.
        let s = unsafe { &(*sorter).sorter };
        match s.storage_requirements(maxCount) {
            Ok(r) => {
                let out = VksortStorageRequirements {
                    size: r.scratch_bytes,
                    alignment: s
                        .context()
                        .caps()
                        .min_storage_buffer_offset_alignment
                        .max(4),
                    usage: r.scratch_usage.as_raw(),
                };
                unsafe { pRequirements.write(out) };
                VksortResult::VKSORT_SUCCESS
            }
            Err(e) => fail(e),
        }
    })
}

/// Writes to `*pOffset` the byte offset, within the scratch region, of the control block of a sort recorded for
/// `maxCount` keys (the host count, or the capacity of an indirect sort): u32 words 0 (the count sorted, after
/// clamping), 1 (1 when a GPU-side count exceeded the capacity) and 2 (the GPU-side count as found).
#[no_mangle]
pub unsafe extern "C" fn vksortGetSorterControlOffset(
    sorter: *const VksortSorter,
    maxCount: u64,
    pOffset: *mut VkDeviceSize,
) -> VksortResult {
    guard(|| {
        if sorter.is_null() || pOffset.is_null() {
            return invalid("sorter or pOffset is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promise that it is live.
        let s = unsafe { &(*sorter).sorter };
        if maxCount > s.config().max_n {
            return fail(Error::CountOverCapacity {
                n: maxCount,
                capacity: s.config().max_n,
            });
        }
        unsafe { pOffset.write(s.control_offset(maxCount)) };
        VksortResult::VKSORT_SUCCESS
    })
}

/// A raw region as the library's `BufferRef`.
///
/// # Safety
/// `r` points to a live region struct; the buffer promise of `vksortCmdSort`.
unsafe fn region(r: *const VksortBufferRegion) -> BufferRef<'static> {
    // SAFETY: the caller's promise.
    unsafe {
        let r = *r;
        BufferRef::from_raw(
            r.buffer,
            r.offset,
            r.size,
            vk::BufferUsageFlags::from_raw(r.usage),
        )
    }
}

/// Records the ascending (or descending) sort of the first `count` keys of `*pKeys` (and their values in
/// `*pValues`, NULL for a keys-only sorter) in place into `commandBuffer`.
///
/// Buffers: keys and values need `VK_BUFFER_USAGE_STORAGE_BUFFER_BIT` (and
/// `VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT` for arrays larger than the device's maxStorageBufferRange);
/// `*pScratch` holds `vksortGetSorterStorageRequirements(count)` bytes with its usage flags and alignment.
/// vksort overwrites the first `count` keys and values (sorted) and the scratch region; nothing else. The key,
/// value and scratch regions may not share a byte.
///
/// Checked before anything is recorded (an error leaves the command buffer and the buffers untouched):
/// `count` against the sorter's `maxCount` (VKSORT_ERROR_CAPACITY), each region's handle, size, usage and
/// alignment and their overlap (VKSORT_ERROR_BUFFER), values present exactly when the sorter has them
/// (VKSORT_ERROR_INVALID_ARGUMENT).
///
/// Barriers: before this command the caller records a global memory barrier (`VkMemoryBarrier`) that makes its
/// writes of the keys and values visible to `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` reads
/// (`VK_ACCESS_SHADER_READ_BIT`), orders earlier uses of the scratch before compute and transfer writes, and
/// orders earlier vksort commands of the context on this queue before this one (its source scope includes
/// `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` with `VK_ACCESS_SHADER_WRITE_BIT`; semaphores between submissions
/// do too); vksort records its own barriers between its dispatches;
/// after it, the caller records a barrier from `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` writes
/// (`VK_ACCESS_SHADER_WRITE_BIT`) to whatever reads the results (vertex shaders, transfers, the host).
/// State overwritten: the bound compute pipeline, compute push constants and push descriptor set 0; graphics
/// state is untouched.
///
/// The caller promises: `commandBuffer` is in the recording state, of the context's device, from a pool of a
/// queue family with compute, not recorded into from another thread meanwhile; every region's buffer is a
/// live buffer of the device created with at least the stated usage, the region lies within it, and the
/// buffers, the sorter and the context stay alive until the GPU has finished the command buffer; command
/// buffers with this context's sorts never execute at the same time on two queues (small sorts share status
/// blocks of the context, each left zeroed for the next run; one queue's order, behind the caller's barrier
/// before each command, keeps them apart).
#[no_mangle]
pub unsafe extern "C" fn vksortCmdSort(
    sorter: *const VksortSorter,
    commandBuffer: VkCommandBuffer,
    pKeys: *const VksortBufferRegion,
    pValues: *const VksortBufferRegion,
    pScratch: *const VksortBufferRegion,
    count: u64,
) -> VksortResult {
    guard(|| {
        if sorter.is_null() || pKeys.is_null() || pScratch.is_null() {
            return invalid("sorter, pKeys or pScratch is NULL");
        }
        if commandBuffer == vk::CommandBuffer::null() {
            return invalid("commandBuffer is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promises, as documented above.
        unsafe {
            let s = &(*sorter).sorter;
            let mut rec = Recorder::new(s.context(), commandBuffer);
            let values = (!pValues.is_null()).then(|| region(pValues));
            match s.cmd_sort(&mut rec, region(pKeys), values, region(pScratch), count) {
                Ok(()) => VksortResult::VKSORT_SUCCESS,
                Err(e) => fail(e),
            }
        }
    })
}

/// Records the sort of a GPU-side count of keys: the u32 at `pCount->offset` of `pCount->buffer` (a region of
/// at least 4 bytes, offset a multiple of 4, `VK_BUFFER_USAGE_STORAGE_BUFFER_BIT`), written by earlier GPU work,
/// e.g. an atomic counter of visible splats. The count is clamped to `capacity` (at most the sorter's
/// `maxCount`: what the buffers and scratch are sized for); the clamped count and an overflow flag are left in
/// the scratch's control block (`vksortGetSorterControlOffset(capacity)`). The count's 4 bytes are read, never
/// written, and may not share bytes with the key, value or scratch regions.
///
/// Everything else as `vksortCmdSort` with `count = capacity` for the sizes: scratch of
/// `vksortGetSorterStorageRequirements(capacity)` bytes, the same checks, barriers (the caller's barrier before
/// it also covers the count's write), overwritten state and promises.
#[no_mangle]
pub unsafe extern "C" fn vksortCmdSortIndirect(
    sorter: *const VksortSorter,
    commandBuffer: VkCommandBuffer,
    pKeys: *const VksortBufferRegion,
    pValues: *const VksortBufferRegion,
    pScratch: *const VksortBufferRegion,
    pCount: *const VksortBufferRegion,
    capacity: u64,
) -> VksortResult {
    guard(|| {
        if sorter.is_null() || pKeys.is_null() || pScratch.is_null() || pCount.is_null() {
            return invalid("sorter, pKeys, pScratch or pCount is NULL");
        }
        if commandBuffer == vk::CommandBuffer::null() {
            return invalid("commandBuffer is NULL");
        }
        // SAFETY: checked non-NULL; the caller's promises, as documented above.
        unsafe {
            let s = &(*sorter).sorter;
            let mut rec = Recorder::new(s.context(), commandBuffer);
            let values = (!pValues.is_null()).then(|| region(pValues));
            match s.cmd_sort_indirect(
                &mut rec,
                region(pKeys),
                values,
                region(pScratch),
                region(pCount),
                capacity,
            ) {
                Ok(()) => VksortResult::VKSORT_SUCCESS,
                Err(e) => fail(e),
            }
        }
    })
}

// The handles are used from C without synchronisation between sorters: keep the Rust types Send + Sync.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<VksortContext>();
    send_sync::<VksortSorter>();
};

#[cfg(test)]
mod enum_drift {
    use vksort::sort::{KeyType, SortAlgorithm};

    /// `(NAME, value)` of every `PREFIX<NAME> = <value>,` line of the committed header.
    fn header_enum(prefix: &str) -> Vec<(String, u32)> {
        include_str!("../include/vksort.h")
            .lines()
            .filter_map(|l| l.trim().strip_prefix(prefix))
            .filter_map(|l| {
                let (name, value) = l.trim_end_matches(',').split_once(" = ")?;
                Some((name.to_string(), value.parse().ok()?))
            })
            .collect()
    }

    fn c_name(rust_name: &str) -> String {
        rust_name.to_uppercase().replace('-', "_")
    }

    /// The C enums list the library's algorithms and key types, in the library's order: a family or key type
    /// added in Rust but not in the C API (or the reverse, or renumbered) fails here.
    #[test]
    fn header_enums_follow_the_library() {
        let algos: Vec<(String, u32)> = (SortAlgorithm::ALL.iter().enumerate())
            .map(|(i, a)| (c_name(a.name()), i as u32))
            .collect();
        assert_eq!(header_enum("VKSORT_ALGORITHM_"), algos);
        let keys: Vec<(String, u32)> = (KeyType::ALL.iter().enumerate())
            .map(|(i, k)| (c_name(k.name()), i as u32))
            .collect();
        assert_eq!(header_enum("VKSORT_KEY_"), keys);
        for (i, a) in SortAlgorithm::ALL.iter().enumerate() {
            assert_eq!(super::algorithm(i as u32), Some(*a));
        }
        assert_eq!(super::algorithm(SortAlgorithm::ALL.len() as u32), None);
        assert_eq!(super::key_type(KeyType::ALL.len() as u32), None);
    }
}
