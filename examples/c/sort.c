/*
 * vksort from C, the way an engine uses it: the program creates its own Vulkan instance, device, queue,
 * buffers and command buffer; asks vksort what the device needs before creating it; adopts the device; sorts
 * key-value pairs (u32 and f32 keys, u32 values) recorded into its own command buffer, once with a host count
 * and once with a GPU-side count written by an earlier command (as an atomic counter of visible splats would);
 * and checks every result against a CPU sort.
 *
 * Build (from the repository root, after `cargo build --release -p vksort-capi`):
 *   cc -std=c99 -Wall -Wextra -Werror -Icapi/include examples/c/sort.c target/release/libvksort_c.a \
 *      -lvulkan -lpthread -ldl -lm -o sort
 * Run: ./sort [n]   (VKSORT_VALIDATION=1 enables the Khronos validation layer; any validation error fails)
 * Exit status 0 when every sort matched and no validation error was reported.
 */
#include <vulkan/vulkan.h>

#include "vksort.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_VK(call)                                                                    \
    do {                                                                                  \
        VkResult r_ = (call);                                                             \
        if (r_ != VK_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)r_); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define CHECK_VKSORT(call)                                                                              \
    do {                                                                                                \
        VksortResult r_ = (call);                                                                       \
        if (r_ != VKSORT_SUCCESS) {                                                                     \
            fprintf(stderr, "%s:%d: %s failed: %d: %s\n", __FILE__, __LINE__, #call, (int)r_,           \
                    vksortGetLastError());                                                              \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static int validation_errors = 0;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)types;
    (void)user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        fprintf(stderr, "[validation] %s\n", data && data->pMessage ? data->pMessage : "(no message)");
        validation_errors++;
    }
    return VK_FALSE;
}

/* The engine's Vulkan objects. */
typedef struct Engine {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkPhysicalDeviceMemoryProperties memory;
    int debug_utils;
    uint32_t api_version;             /* the instance's VkApplicationInfo::apiVersion */
    VksortDeviceRequirements enabled; /* what the device was created with, told to vksortCreateContext */
} Engine;

typedef struct Buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkBufferUsageFlags usage;
    void *mapped;
} Buffer;

static void engine_create(Engine *e) {
    const char *v = getenv("VKSORT_VALIDATION");
    int validation = v && strcmp(v, "1") == 0;
    memset(e, 0, sizeof *e);

    VkApplicationInfo app;
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "vksort C example";
    app.apiVersion = VK_API_VERSION_1_3;
    e->api_version = app.apiVersion;

    VkDebugUtilsMessengerCreateInfoEXT mi;
    memset(&mi, 0, sizeof mi);
    mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;

    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo ici;
    memset(&ici, 0, sizeof ici);
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (validation) {
        ici.pNext = &mi; /* messages of vkCreateInstance / vkDestroyInstance too */
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = layers;
        ici.enabledExtensionCount = 1;
        ici.ppEnabledExtensionNames = extensions;
        e->debug_utils = 1;
    }
    CHECK_VK(vkCreateInstance(&ici, NULL, &e->instance));
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            e->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create) {
            fprintf(stderr, "vkCreateDebugUtilsMessengerEXT missing\n");
            exit(1);
        }
        CHECK_VK(create(e->instance, &mi, NULL, &e->messenger));
    }

    /* The first physical device vksort can run on. */
    uint32_t count = 0;
    CHECK_VK(vkEnumeratePhysicalDevices(e->instance, &count, NULL));
    VkPhysicalDevice *devices = (VkPhysicalDevice *)calloc(count ? count : 1, sizeof *devices);
    CHECK_VK(vkEnumeratePhysicalDevices(e->instance, &count, devices));
    VksortDeviceRequirements req;
    memset(&req, 0, sizeof req);
    uint32_t i;
    for (i = 0; i < count; i++) {
        if (vksortGetDeviceRequirements(vkGetInstanceProcAddr, e->instance, app.apiVersion, devices[i], &req) == VKSORT_SUCCESS)
            break;
        fprintf(stderr, "skipping a device: %s\n", vksortGetLastError());
    }
    if (i == count) {
        fprintf(stderr, "no Vulkan device can run vksort\n");
        exit(1);
    }
    e->physical = devices[i];
    free(devices);
    vkGetPhysicalDeviceMemoryProperties(e->physical, &e->memory);
    e->family = req.computeQueueFamily;

    /* The engine's feature chain, vksort's features merged in (Vulkan allows one struct of each kind). */
    VkPhysicalDeviceVulkan13Features f13;
    memset(&f13, 0, sizeof f13);
    f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    VkPhysicalDeviceSubgroupSizeControlFeatures ssc;
    memset(&ssc, 0, sizeof ssc);
    ssc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES;
    VkPhysicalDeviceVulkan12Features f12;
    memset(&f12, 0, sizeof f12);
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    if (req.apiVersion >= VK_API_VERSION_1_3)
        f12.pNext = &f13;
    else if (req.subgroupSizeControl)
        f12.pNext = &ssc; /* VK_EXT_subgroup_size_control is among req's extensions then */
    VkPhysicalDeviceFeatures2 f2;
    memset(&f2, 0, sizeof f2);
    f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f2.pNext = &f12;
    CHECK_VKSORT(vksortMergeDeviceFeatures(&req, &f2));

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = e->family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &f2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    dci.enabledExtensionCount = req.extensionCount;
    dci.ppEnabledExtensionNames = req.extensionNames;
    CHECK_VK(vkCreateDevice(e->physical, &dci, NULL, &e->device));
    e->enabled = req;
    vkGetDeviceQueue(e->device, e->family, 0, &e->queue);

    VkCommandPoolCreateInfo pci;
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = e->family;
    CHECK_VK(vkCreateCommandPool(e->device, &pci, NULL, &e->pool));
    VkCommandBufferAllocateInfo cai;
    memset(&cai, 0, sizeof cai);
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = e->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    CHECK_VK(vkAllocateCommandBuffers(e->device, &cai, &e->cmd));
    VkFenceCreateInfo fci;
    memset(&fci, 0, sizeof fci);
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    CHECK_VK(vkCreateFence(e->device, &fci, NULL, &e->fence));
}

static void engine_destroy(Engine *e) {
    vkDestroyFence(e->device, e->fence, NULL);
    vkDestroyCommandPool(e->device, e->pool, NULL);
    vkDestroyDevice(e->device, NULL);
    if (e->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            e->instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(e->instance, e->messenger, NULL);
    }
    vkDestroyInstance(e->instance, NULL);
}

/* A buffer in memory with `want` properties (falling back to any type the buffer allows), mapped if it can be. */
static Buffer buffer_create(Engine *e, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want) {
    Buffer b;
    memset(&b, 0, sizeof b);
    b.size = size;
    b.usage = usage;
    VkBufferCreateInfo bi;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = usage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CHECK_VK(vkCreateBuffer(e->device, &bi, NULL, &b.buffer));
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(e->device, b.buffer, &mr);
    uint32_t type = UINT32_MAX, t;
    for (t = 0; t < e->memory.memoryTypeCount && type == UINT32_MAX; t++)
        if ((mr.memoryTypeBits & (1u << t)) && (e->memory.memoryTypes[t].propertyFlags & want) == want)
            type = t;
    for (t = 0; t < e->memory.memoryTypeCount && type == UINT32_MAX; t++)
        if (mr.memoryTypeBits & (1u << t))
            type = t;
    VkMemoryAllocateInfo ai;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = mr.size;
    ai.memoryTypeIndex = type;
    CHECK_VK(vkAllocateMemory(e->device, &ai, NULL, &b.memory));
    CHECK_VK(vkBindBufferMemory(e->device, b.buffer, b.memory, 0));
    if (e->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        CHECK_VK(vkMapMemory(e->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    return b;
}

static void buffer_destroy(Engine *e, Buffer *b) {
    vkDestroyBuffer(e->device, b->buffer, NULL);
    vkFreeMemory(e->device, b->memory, NULL);
}

static VksortBufferRegion region(const Buffer *b, VkDeviceSize size) {
    VksortBufferRegion r;
    memset(&r, 0, sizeof r);
    r.buffer = b->buffer;
    r.offset = 0;
    r.size = size;
    r.usage = b->usage;
    return r;
}

static void barrier(Engine *e, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access) {
    VkMemoryBarrier mb;
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = src_access;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(e->cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* The order vksort sorts f32 keys in (IEEE 754 totalOrder) as an unsigned order: flip the sign bit of
 * positives, every bit of negatives. */
static uint32_t ordered_bits(uint32_t k, int is_float) {
    if (!is_float)
        return k;
    return (k & 0x80000000u) ? ~k : (k | 0x80000000u);
}

typedef struct Pair {
    uint32_t key; /* ordered_bits of the key */
    uint32_t value;
} Pair;

static int pair_cmp(const void *a, const void *b) {
    const Pair *x = (const Pair *)a, *y = (const Pair *)b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : (x->value > y->value); /* values are input indices: a stable sort */
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Sorts `n` pairs of `key_type` keys (`gpu_count`: the count `m` is written on the GPU before the sort), checks
 * them against qsort; returns the number of mismatches. */
static int run(Engine *e, VksortContext *ctx, uint32_t key_type, int gpu_count, uint32_t n) {
    const int is_float = key_type == VKSORT_KEY_F32;
    const uint32_t m = gpu_count ? n - n / 5 : n; /* the GPU-side count: fewer than the capacity */
    VksortSortConfig config;
    memset(&config, 0, sizeof config);
    config.keyType = key_type;
    config.valueType = VKSORT_VALUE_U32;
    config.order = VKSORT_ORDER_ASCENDING;
    config.algorithm = VKSORT_ALGORITHM_AUTO;
    config.stable = VK_TRUE;
    config.maxCount = n;
    VksortSorter *sorter = NULL;
    CHECK_VKSORT(vksortCreateSorter(ctx, &config, &sorter));
    VksortStorageRequirements sr;
    CHECK_VKSORT(vksortGetSorterStorageRequirements(sorter, n, &sr));

    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    Buffer keys = buffer_create(e, (VkDeviceSize)n * 4, usage, host);
    Buffer values = buffer_create(e, (VkDeviceSize)n * 4, usage, host);
    Buffer count = buffer_create(e, 4, usage, host);
    Buffer scratch = buffer_create(e, sr.size, sr.usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (!keys.mapped || !values.mapped) {
        fprintf(stderr, "no host-visible memory for the keys\n");
        exit(1);
    }
    uint32_t *k = (uint32_t *)keys.mapped, *v = (uint32_t *)values.mapped;
    uint32_t *original = (uint32_t *)malloc((size_t)n * 4);
    Pair *expect = (Pair *)malloc((size_t)n * sizeof(Pair));
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint32_t bits = rng() % (n / 2 + 1); /* duplicates, so stability shows */
        if (is_float) {
            float f = ((float)bits - (float)(n / 4)) * 0.37f; /* negatives, zero and positives */
            memcpy(&bits, &f, 4);
        }
        k[i] = original[i] = bits;
        v[i] = i;
        expect[i].key = ordered_bits(bits, is_float);
        expect[i].value = i;
    }
    qsort(expect, m, sizeof(Pair), pair_cmp);

    /* An error is returned, not recorded: a count above the sorter's capacity. */
    VksortBufferRegion rk = region(&keys, keys.size), rv = region(&values, values.size),
                       rs = region(&scratch, sr.size), rc = region(&count, 4);
    CHECK_VK(vkResetCommandBuffer(e->cmd, 0));
    VkCommandBufferBeginInfo begin;
    memset(&begin, 0, sizeof begin);
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(e->cmd, &begin));
    if (vksortCmdSort(sorter, e->cmd, &rk, &rv, &rs, (uint64_t)n + 1) != VKSORT_ERROR_CAPACITY ||
        vksortGetLastError()[0] == '\0') {
        fprintf(stderr, "a count over the capacity was not refused\n");
        exit(1);
    }

    if (gpu_count) {
        /* Earlier GPU work leaves the count (here a fill; in a renderer, an atomic counter). */
        vkCmdFillBuffer(e->cmd, count.buffer, 0, 4, m);
    }
    /* The caller's barrier before the sort: its writes visible to compute reads, earlier uses (and earlier
     * vksort commands: compute writes) ordered. */
    barrier(e, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    if (gpu_count)
        CHECK_VKSORT(vksortCmdSortIndirect(sorter, e->cmd, &rk, &rv, &rs, &rc, n));
    else
        CHECK_VKSORT(vksortCmdSort(sorter, e->cmd, &rk, &rv, &rs, n));
    /* The caller's barrier after it: compute writes visible to the host. */
    barrier(e, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    CHECK_VK(vkEndCommandBuffer(e->cmd));
    VkSubmitInfo si;
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &e->cmd;
    CHECK_VK(vkQueueSubmit(e->queue, 1, &si, e->fence));
    CHECK_VK(vkWaitForFences(e->device, 1, &e->fence, VK_TRUE, UINT64_MAX));
    CHECK_VK(vkResetFences(e->device, 1, &e->fence));

    int bad = 0;
    for (i = 0; i < m; i++)
        if (ordered_bits(k[i], is_float) != expect[i].key || v[i] != expect[i].value) {
            if (bad < 5)
                fprintf(stderr, "  [%u]: got (%08x, %u), expected (%08x, %u)\n", i, ordered_bits(k[i], is_float),
                        v[i], expect[i].key, expect[i].value);
            bad++;
        }
    for (i = m; i < n; i++) /* beyond the GPU-side count: untouched */
        if (k[i] != original[i] || v[i] != i)
            bad++;
    printf("%s keys, u32 values, %s count %u of %u: %s\n", is_float ? "f32" : "u32", gpu_count ? "GPU-side" : "host",
           m, n, bad ? "MISMATCH" : "ok");

    free(original);
    free(expect);
    buffer_destroy(e, &keys);
    buffer_destroy(e, &values);
    buffer_destroy(e, &count);
    buffer_destroy(e, &scratch);
    vksortDestroySorter(sorter);
    return bad;
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100003u;
    if (n < 8) {
        fprintf(stderr, "usage: %s [n >= 8]\n", argv[0]);
        return 2;
    }
    Engine e;
    engine_create(&e);

    VksortContextCreateInfo ci;
    memset(&ci, 0, sizeof ci);
    ci.getInstanceProcAddr = vkGetInstanceProcAddr;
    ci.instance = e.instance;
    ci.physicalDevice = e.physical;
    ci.device = e.device;
    ci.queueFamilyIndex = e.family;
    ci.queue = e.queue;
    ci.debugUtils = e.debug_utils ? VK_TRUE : VK_FALSE;
    ci.instanceApiVersion = e.api_version;
    ci.pEnabled = &e.enabled;
    VksortContext *ctx = NULL;
    CHECK_VKSORT(vksortCreateContext(&ci, &ctx));

    int bad = 0;
    bad += run(&e, ctx, VKSORT_KEY_U32, 0, n);
    bad += run(&e, ctx, VKSORT_KEY_U32, 1, n);
    bad += run(&e, ctx, VKSORT_KEY_F32, 0, n);
    bad += run(&e, ctx, VKSORT_KEY_F32, 1, n);

    vksortDestroyContext(ctx);
    engine_destroy(&e);
    if (validation_errors)
        fprintf(stderr, "%d validation errors\n", validation_errors);
    return bad || validation_errors ? 1 : 0;
}
