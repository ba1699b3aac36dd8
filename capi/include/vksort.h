/*
 * vksort.h: the C API of vksort (GPU sort through Vulkan compute on the caller's device).
 * Generated from capi/src/lib.rs by cbindgen; do not edit (capi/tests/c_api.rs checks it is current).
 *
 * Link: libvksort_c.a (static; also -lvulkan -lpthread -ldl -lm) or libvksort_c.so (shared; and -lvulkan), built by
 * `cargo build --release -p vksort-capi`. Compiles as C99 and as C++.
 */

#ifndef VKSORT_H
#define VKSORT_H

#include <stdint.h>
#include <vulkan/vulkan.h>

// The most extensions `VksortDeviceRequirements` lists.
#define VKSORT_MAX_DEVICE_EXTENSIONS 8

// What a vksort function returned. `VKSORT_SUCCESS` is 0 and every error is negative, as `VkResult`;
// `vksortGetLastError` says what went wrong in words.
typedef enum {
  // It worked.
  VKSORT_SUCCESS = 0,
  // An argument is out of range: a NULL pointer where one is required, an unknown enum value, a bad bit
  // range, values given to a keys-only sorter (or none to a sorter with values), a handle of another context.
  VKSORT_ERROR_INVALID_ARGUMENT = -1,
  // The device cannot run vksort (a missing extension, feature or subgroup operation), or the algorithm
  // asked for cannot do the configuration (key type, count, stability).
  VKSORT_ERROR_UNSUPPORTED = -2,
  // A buffer region is VK_NULL_HANDLE, too small, misaligned, lacks a usage flag vksort needs, or shares
  // bytes with another region of the same command.
  VKSORT_ERROR_BUFFER = -3,
  // A count above the sorter's `maxCount` (or above a limit of the algorithm or device).
  VKSORT_ERROR_CAPACITY = -4,
  // A Vulkan call failed: `vksortGetLastVkResult` returns its `VkResult`.
  VKSORT_ERROR_VULKAN = -5,
  // Host or device memory ran out.
  VKSORT_ERROR_OUT_OF_MEMORY = -6,
  // VK_ERROR_DEVICE_LOST.
  VKSORT_ERROR_DEVICE_LOST = -7,
  // A bounded wait ran out.
  VKSORT_ERROR_TIMEOUT = -8,
  // A bug inside vksort (a caught panic, a shader that failed to load): never the caller's input.
  VKSORT_ERROR_INTERNAL = -9,
} VksortResult;

// Key types (`VksortSortConfig::keyType`). Floats sort in IEEE 754 totalOrder
// (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
typedef enum {
  // 32-bit unsigned integer keys.
  VKSORT_KEY_U32 = 0,
  // 32-bit signed integer keys.
  VKSORT_KEY_I32 = 1,
  // 32-bit IEEE 754 float keys.
  VKSORT_KEY_F32 = 2,
  // 64-bit unsigned integer keys (sorted as two 32-bit words: no device feature needed).
  VKSORT_KEY_U64 = 3,
  // 64-bit signed integer keys.
  VKSORT_KEY_I64 = 4,
  // 64-bit IEEE 754 float keys.
  VKSORT_KEY_F64 = 5,
  // 128-bit unsigned integer keys (four 32-bit words, lowest first; the comparison sorts take them).
  VKSORT_KEY_U128 = 6,
} VksortKeyType;

// Value types (`VksortSortConfig::valueType`): the payload moved with each key.
typedef enum {
  // Keys only.
  VKSORT_VALUE_NONE = 0,
  // A 4-byte value per key (a u32 index, or any 4 bytes).
  VKSORT_VALUE_U32 = 1,
  // An 8-byte value per key.
  VKSORT_VALUE_U64 = 2,
} VksortValueType;

// Sort order (`VksortSortConfig::order`).
typedef enum {
  // Smallest key first.
  VKSORT_ORDER_ASCENDING = 0,
  // Largest key first.
  VKSORT_ORDER_DESCENDING = 1,
} VksortOrder;

// Sort algorithms (`VksortSortConfig::algorithm`). `VKSORT_ALGORITHM_AUTO` lets the device's policy pick per
// size and only picks stable algorithms; the others are for benchmarks and special cases.
typedef enum {
  // The device policy picks per size (stable).
  VKSORT_ALGORITHM_AUTO = 0,
  // LSD radix sort, one pass per digit place with decoupled look-back (stable).
  VKSORT_ALGORITHM_ONESWEEP = 1,
  // LSD radix sort, upsweep / spine / downsweep per digit place (stable).
  VKSORT_ALGORITHM_REDUCE_THEN_SCAN = 2,
  // Rank sort of a few thousand keys, all held in shared memory (small counts only; stable).
  VKSORT_ALGORITHM_SMALL = 3,
  // MSD radix sort (up to 2^20 keys; stable).
  VKSORT_ALGORITHM_MSD = 4,
  // MSD hybrid radix sort (stable).
  VKSORT_ALGORITHM_HYBRID = 5,
  // Bitonic sort (not stable).
  VKSORT_ALGORITHM_BITONIC = 6,
  // Merge sort (stable).
  VKSORT_ALGORITHM_MERGE = 7,
  // Split radix sort, blocked (stable).
  VKSORT_ALGORITHM_SPLIT_RADIX = 8,
  // Split radix sort, one split per bit (stable).
  VKSORT_ALGORITHM_SPLIT_RADIX_BIT = 9,
  // WarpSort (stable).
  VKSORT_ALGORITHM_WARPSORT = 10,
  // GPU quicksort (not stable).
  VKSORT_ALGORITHM_QUICKSORT = 11,
} VksortAlgorithm;

// An adopted device: vksort's pipelines, caches and allocator on the caller's device. Opaque.
typedef struct VksortContext VksortContext;

// A planned sort for one `VksortSortConfig` on one context. Opaque.
typedef struct VksortSorter VksortSorter;

// What the device must be created with for vksort, from `vksortGetDeviceRequirements`, before the device
// exists. Enable every listed extension and every feature set to VK_TRUE (`vksortMergeDeviceFeatures` sets
// them in the caller's feature chain).
typedef struct {
  // The physical device's Vulkan version (at least 1.2). Create the instance with at least this version, up
  // to 1.3, for the feature structs named below.
  uint32_t apiVersion;
  // The first queue family with compute (any family with compute will do).
  uint32_t computeQueueFamily;
  // How many of `extensionNames` are set.
  uint32_t extensionCount;
  // The device extensions to enable (static strings): VK_KHR_push_descriptor, and where the device has them
  // VK_EXT_subgroup_size_control (before Vulkan 1.3) and VK_NV_shader_subgroup_partitioned.
  const char *extensionNames[VKSORT_MAX_DEVICE_EXTENSIONS];
  // `VkPhysicalDeviceFeatures::shaderInt64`.
  VkBool32 shaderInt64;
  // `VkPhysicalDeviceVulkan12Features::shaderSubgroupExtendedTypes` (or the separate struct's).
  VkBool32 shaderSubgroupExtendedTypes;
  // `VkPhysicalDeviceVulkan12Features::bufferDeviceAddress` (or the separate struct's).
  VkBool32 bufferDeviceAddress;
  // `subgroupSizeControl` of `VkPhysicalDeviceVulkan13Features` (Vulkan 1.3) or of
  // `VkPhysicalDeviceSubgroupSizeControlFeatures`.
  VkBool32 subgroupSizeControl;
  // `computeFullSubgroups`, in the same struct as `subgroupSizeControl`.
  VkBool32 computeFullSubgroups;
} VksortDeviceRequirements;

// What `vksortCreateContext` adopts: the caller's Vulkan objects. vksort keeps them and destroys none.
typedef struct {
  // The loader's (or a layer-aware) `vkGetInstanceProcAddr`, from which vksort loads every command.
  PFN_vkGetInstanceProcAddr getInstanceProcAddr;
  // The caller's instance.
  VkInstance instance;
  // The physical device, enumerated from `instance`.
  VkPhysicalDevice physicalDevice;
  // The caller's device, created from `physicalDevice` with what `vksortGetDeviceRequirements` lists.
  VkDevice device;
  // A queue family of `device` with compute: the command buffers vksort records into come from a pool of
  // it.
  uint32_t queueFamilyIndex;
  // A queue of `device` in `queueFamilyIndex` (vksort records only; it never submits from the C API).
  VkQueue queue;
  // VK_TRUE when the instance was created with VK_EXT_debug_utils: vksort then names its objects and
  // labels its passes for captures.
  VkBool32 debugUtils;
  // The `VkApplicationInfo::apiVersion` the instance was created with (0 is Vulkan 1.0): below
  // VK_API_VERSION_1_2, VKSORT_ERROR_UNSUPPORTED says so before any query.
  uint32_t instanceApiVersion;
  // What the device was created with: the extensions and features set in it (from
  // `vksortGetDeviceRequirements`, with those the device was not created with cleared, or filled by the
  // caller). vksort uses those the device supports, and no other. NULL: everything
  // `vksortGetDeviceRequirements` lists for the physical device was enabled.
  const VksortDeviceRequirements *pEnabled;
} VksortContextCreateInfo;

// What a sorter sorts and how. Zero-initialise it and set what you need: the zero values are u32 keys, no
// values, ascending, all bits, the automatic algorithm, stability not required, and (for `maxCount == 0`)
// 2^20 keys.
typedef struct {
  // A `VksortKeyType`.
  uint32_t keyType;
  // A `VksortValueType`.
  uint32_t valueType;
  // A `VksortOrder`.
  uint32_t order;
  // Sort on bits `[bitBegin, bitEnd)` of the transformed key only (as CUB's begin_bit / end_bit; the
  // transform makes the unsigned order of the bits the key order). `bitBegin == bitEnd == 0`: all bits.
  uint32_t bitBegin;
  // One past the last bit sorted on (see `bitBegin`).
  uint32_t bitEnd;
  // A `VksortAlgorithm`.
  uint32_t algorithm;
  // VK_TRUE: require a stable sort (an unstable algorithm is refused with VKSORT_ERROR_UNSUPPORTED).
  VkBool32 stable;
  // The most keys one sort of this sorter takes (a host count, or the capacity of a GPU-side count).
  // Pipelines for every size up to it are built when the sorter is created. 0: 2^20.
  uint64_t maxCount;
} VksortSortConfig;

// The scratch buffer a sort needs.
typedef struct {
  // Bytes of scratch.
  VkDeviceSize size;
  // The scratch region's offset must be a multiple of this (the device's minStorageBufferOffsetAlignment).
  VkDeviceSize alignment;
  // Usage flags the scratch buffer needs (storage and transfer; `SHADER_DEVICE_ADDRESS` for sorts larger than
  // one storage-buffer binding).
  VkBufferUsageFlags usage;
} VksortStorageRequirements;

// A region of one of the caller's buffers. vksort cannot check the handle; it checks the rest (null handle,
// size, usage, alignment, overlap) before recording anything.
typedef struct {
  // The buffer (a buffer of the context's device, its memory bound).
  VkBuffer buffer;
  // Byte offset of the region; a multiple of the device's minStorageBufferOffsetAlignment.
  VkDeviceSize offset;
  // Byte size of the region (`VK_WHOLE_SIZE` is not accepted: give the size).
  VkDeviceSize size;
  // The usage flags the buffer was created with (vksort checks it has what it needs).
  VkBufferUsageFlags usage;
} VksortBufferRegion;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// The message of the last vksort error on the calling thread ("" after a call that succeeded). The string
// stays valid until the next vksort call on this thread.
const char *vksortGetLastError(void);

// The `VkResult` of the last failed Vulkan call behind a `VKSORT_ERROR_VULKAN` (or out-of-memory, device-lost)
// result on the calling thread; `VK_SUCCESS` (0) otherwise.
VkResult vksortGetLastVkResult(void);

// Fills `*pRequirements` with what the device must be created with for vksort: extensions and features
// (call it between enumerating the physical device and `vkCreateDevice`). Returns VKSORT_ERROR_UNSUPPORTED,
// naming everything missing in `vksortGetLastError`, where the physical device cannot run vksort (it needs
// Vulkan 1.2, VK_KHR_push_descriptor, a queue family with compute, and subgroup basic, vote, arithmetic,
// ballot and shuffle operations in compute shaders).
//
// `instanceApiVersion` is the `VkApplicationInfo::apiVersion` the instance was created with (0 is Vulkan 1.0):
// below VK_API_VERSION_1_2 the error names it, before any query.
//
// The caller promises: `getInstanceProcAddr` is valid, `instance` is a live instance created with
// `instanceApiVersion` and `physicalDevice` was enumerated from it. Records nothing, creates nothing.
VksortResult vksortGetDeviceRequirements(PFN_vkGetInstanceProcAddr getInstanceProcAddr,
                                         VkInstance instance,
                                         uint32_t instanceApiVersion,
                                         VkPhysicalDevice physicalDevice,
                                         VksortDeviceRequirements *pRequirements);

// Sets (ORs) the features of `*pRequirements` in the caller's feature chain that starts at `pFeatures`
// (a `VkPhysicalDeviceFeatures2` chained into `VkDeviceCreateInfo::pNext`): `shaderInt64` in
// `pFeatures->features`; `shaderSubgroupExtendedTypes` and `bufferDeviceAddress` in the chained
// `VkPhysicalDeviceVulkan12Features` (or the separate `VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures` /
// `VkPhysicalDeviceBufferDeviceAddressFeatures`); `subgroupSizeControl` and `computeFullSubgroups` in the
// chained `VkPhysicalDeviceVulkan13Features` or `VkPhysicalDeviceSubgroupSizeControlFeatures`. The caller's
// own bits stay set. Adds no struct to the chain (Vulkan forbids two of a kind, and C owns the memory):
// where a feature is required and no struct of the chain holds it, returns VKSORT_ERROR_INVALID_ARGUMENT
// naming the struct to chain, having set the others.
//
// The caller promises: every struct of the chain is a live, writable struct of the type its `sType` names.
VksortResult vksortMergeDeviceFeatures(const VksortDeviceRequirements *pRequirements,
                                       VkPhysicalDeviceFeatures2 *pFeatures);

// Adopts the caller's device: creates vksort's context (allocator, pipeline cache, command pool) on it and
// writes the handle to `*pContext`. Checks the instance's version and the device first (Vulkan 1.2, a compute
// queue family, VK_KHR_push_descriptor enabled, subgroup operations): VKSORT_ERROR_UNSUPPORTED names what is
// missing. vksort plans within the features `pEnabled` lists: a sorter needing one that is missing fails at
// `vksortCreateSorter`.
//
// The caller promises: the handles of `*pCreateInfo` are live and of one another (the physical device
// enumerated from the instance, the instance created with `instanceApiVersion`, the device created from it
// with everything `pEnabled` (or, where NULL, `vksortGetDeviceRequirements`) lists, the queue of that device
// in `queueFamilyIndex`); they stay alive until the context and every sorter made from it are destroyed, and
// until the GPU has finished every command buffer vksort recorded into.
VksortResult vksortCreateContext(const VksortContextCreateInfo *pCreateInfo,
                                 VksortContext **pContext);

// Destroys a context (NULL is ignored). Sorters made from it keep what they need alive: the context's Vulkan
// objects go with the last of them. Waits for the device to be idle when the last reference goes, so no
// command buffer vksort recorded may be pending forever (and the caller's queues must not be in use on
// another thread then).
void vksortDestroyContext(VksortContext *context);

// Creates a sorter for `*pConfig` on `context` and writes it to `*pSorter`. Builds every pipeline a sort of
// up to `maxCount` keys may use, so recording never compiles. Returns every error it can know now: an unknown
// enum value or a bad bit range (VKSORT_ERROR_INVALID_ARGUMENT), an algorithm that cannot take the key type,
// count or stability (VKSORT_ERROR_UNSUPPORTED).
VksortResult vksortCreateSorter(const VksortContext *context,
                                const VksortSortConfig *pConfig,
                                VksortSorter **pSorter);

// Destroys a sorter (NULL is ignored). The GPU must have finished every command buffer it recorded into (or
// they were reset or freed unsubmitted).
void vksortDestroySorter(VksortSorter *sorter);

// Writes to `*pRequirements` the scratch buffer a sort of up to `maxCount` keys needs: its size, the alignment
// of its offset and its usage flags (any algorithm the sorter may choose for that count). `maxCount` above the
// sorter's is VKSORT_ERROR_CAPACITY.
VksortResult vksortGetSorterStorageRequirements(const VksortSorter *sorter,
                                                uint64_t maxCount,
                                                VksortStorageRequirements *pRequirements);

// Writes to `*pOffset` the byte offset, within the scratch region, of the control block of a sort recorded for
// `maxCount` keys (the host count, or the capacity of an indirect sort): u32 words 0 (the count sorted, after
// clamping), 1 (1 when a GPU-side count exceeded the capacity) and 2 (the GPU-side count as found).
VksortResult vksortGetSorterControlOffset(const VksortSorter *sorter,
                                          uint64_t maxCount,
                                          VkDeviceSize *pOffset);

// Records the ascending (or descending) sort of the first `count` keys of `*pKeys` (and their values in
// `*pValues`, NULL for a keys-only sorter) in place into `commandBuffer`.
//
// Buffers: keys and values need `VK_BUFFER_USAGE_STORAGE_BUFFER_BIT` (and
// `VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT` for arrays larger than the device's maxStorageBufferRange);
// `*pScratch` holds `vksortGetSorterStorageRequirements(count)` bytes with its usage flags and alignment.
// vksort overwrites the first `count` keys and values (sorted) and the scratch region; nothing else. The key,
// value and scratch regions may not share a byte.
//
// Checked before anything is recorded (an error leaves the command buffer and the buffers untouched):
// `count` against the sorter's `maxCount` (VKSORT_ERROR_CAPACITY), each region's handle, size, usage and
// alignment and their overlap (VKSORT_ERROR_BUFFER), values present exactly when the sorter has them
// (VKSORT_ERROR_INVALID_ARGUMENT).
//
// Barriers: before this command the caller records a global memory barrier (`VkMemoryBarrier`) that makes its
// writes of the keys and values visible to `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` reads
// (`VK_ACCESS_SHADER_READ_BIT`), orders earlier uses of the scratch before compute and transfer writes, and
// orders earlier vksort commands of the context on this queue before this one (its source scope includes
// `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` with `VK_ACCESS_SHADER_WRITE_BIT`; semaphores between submissions
// do too); vksort records its own barriers between its dispatches;
// after it, the caller records a barrier from `VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT` writes
// (`VK_ACCESS_SHADER_WRITE_BIT`) to whatever reads the results (vertex shaders, transfers, the host).
// State overwritten: the bound compute pipeline, compute push constants and push descriptor set 0; graphics
// state is untouched.
//
// The caller promises: `commandBuffer` is in the recording state, of the context's device, from a pool of a
// queue family with compute, not recorded into from another thread meanwhile; every region's buffer is a
// live buffer of the device created with at least the stated usage, the region lies within it, and the
// buffers, the sorter and the context stay alive until the GPU has finished the command buffer; command
// buffers with this context's sorts never execute at the same time on two queues (small sorts share status
// blocks of the context, each left zeroed for the next run; one queue's order, behind the caller's barrier
// before each command, keeps them apart).
VksortResult vksortCmdSort(const VksortSorter *sorter,
                           VkCommandBuffer commandBuffer,
                           const VksortBufferRegion *pKeys,
                           const VksortBufferRegion *pValues,
                           const VksortBufferRegion *pScratch,
                           uint64_t count);

// Records the sort of a GPU-side count of keys: the u32 at `pCount->offset` of `pCount->buffer` (a region of
// at least 4 bytes, offset a multiple of 4, `VK_BUFFER_USAGE_STORAGE_BUFFER_BIT`), written by earlier GPU work,
// e.g. an atomic counter of visible splats. The count is clamped to `capacity` (at most the sorter's
// `maxCount`: what the buffers and scratch are sized for); the clamped count and an overflow flag are left in
// the scratch's control block (`vksortGetSorterControlOffset(capacity)`). The count's 4 bytes are read, never
// written, and may not share bytes with the key, value or scratch regions.
//
// Everything else as `vksortCmdSort` with `count = capacity` for the sizes: scratch of
// `vksortGetSorterStorageRequirements(capacity)` bytes, the same checks, barriers (the caller's barrier before
// it also covers the count's write), overwritten state and promises.
VksortResult vksortCmdSortIndirect(const VksortSorter *sorter,
                                   VkCommandBuffer commandBuffer,
                                   const VksortBufferRegion *pKeys,
                                   const VksortBufferRegion *pValues,
                                   const VksortBufferRegion *pScratch,
                                   const VksortBufferRegion *pCount,
                                   uint64_t capacity);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* VKSORT_H */
