// cub_merge_bench: the comparison-sort anchor of vksort (issues 16 and 17). CUB's merge sort
// (cub::DeviceMergeSort, a comparison sort taking any key type with a less-than functor) of the keys vksort's
// comparison sorts take: u32 keys, u32 + u32 pairs, u64 keys, u64 + u32 pairs, u128 keys, u128 + u32 pairs; CUB's
// radix sort of the 128-bit keys beside it (the 32/64-bit radix figures come from cub_bench.cu); and both sorts
// of u32 keys on the GPU-quicksort paper's distributions, generated exactly as vksort's bench generates them
// (tools/src/bench/dist.rs: the same counter-based hash, so the same keys for the same seed and n).
//
// Build and run on the device machine (scripts/gpu-run.sh does it):
//   nvcc -O3 -std=c++17 -arch=sm_90 scripts/anchors/cub_merge_bench.cu -o cub_merge_bench
//   (add -DNO_RADIX_U128 where CUB's radix sort lacks 128-bit keys)
//   ./cub_merge_bench [--dists uniform,gaussian,...] [--dist-sizes 20,24] [--reps R] SIZES...
// SIZES are log2 N (default 16 20 24 28); --dist-sizes (default: none) are the log2 N of the distribution
// figures, --dists (default uniform,gaussian,bucket,sorted,zero,staggered,visibility) which ones.
// Prints CSV as cub_bench.cu does, read by `vksort bench --compare`: impl,op,n,ms_median,gitems_per_s. Op names
// are vksort's (`sort_keys_u128`, `sort_pairs_u64_u32`, `_<dist>` suffix except for uniform); CUB's merge sort
// is `merge_<op>`. Times: CUDA events around one call, median of the repeats after 2 warm-ups; in-place merge
// sorts restore their input before each run (not timed), radix sorts run out of place.
#include <cub/cub.cuh>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);            \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

typedef unsigned __int128 u128;

template <class K>
struct Less {
  __host__ __device__ bool operator()(const K& a, const K& b) const { return a < b; }
};

// tools/src/bench/dist.rs `hash`: SplitMix64's finalizer over a Weyl step.
__host__ __device__ inline uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed + i * 0x9e3779b97f4a7c15ull + 0x6a09e667f3bcc909ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
// Uniform word k of element i (dist.rs `word`).
__host__ __device__ inline uint64_t word(uint64_t seed, uint64_t k, uint64_t i) {
  return mix(seed + k * 0x9e3779b97f4a7c15ull, i);
}
__host__ __device__ inline double unit(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }
__host__ __device__ inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

enum Dist { UNIFORM, GAUSSIAN, BUCKET, SORTED, ZERO, STAGGERED, VISIBILITY, NDIST };
static const char* kDistNames[NDIST] = {"uniform", "gaussian", "bucket", "sorted", "zero", "staggered", "visibility"};

// The visibility workload's scene (dist.rs `Scene`): 16 emitters, the camera at EYE looking at the origin.
struct Scene {
  double c[16][3];
  double r[16];
};
static Scene make_scene(uint64_t seed) {
  const uint64_t SCENE = 0x7669736962696c65ull;
  Scene s;
  for (int k = 0; k < 16; k++) {
    for (int a = 0; a < 3; a++) s.c[k][a] = 2.0 * unit(mix(seed ^ SCENE, 3 * k + a)) - 1.0;
    s.r[k] = 0.05 + 0.25 * unit(mix(seed ^ SCENE, 48 + k));
  }
  return s;
}

// Order keys of 32-bit keys (u32: the key itself) of distribution `dist` (dist.rs `key_fn` for 32 bits); p, block
// and run as the host computes them from n.
__global__ void fill_u32(uint32_t* a, uint64_t n, uint64_t seed, int dist, uint64_t p, uint64_t block, uint64_t run,
                         Scene scene) {
  int logp = 0;
  while ((1ull << logp) < p) logp++;
  const int shift = 32 - logp;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint64_t key = 0;
    switch (dist) {
      case UNIFORM:
      case SORTED:
        key = word(seed, 0, i) & 0xffffffffull;
        break;
      case GAUSSIAN: {
        uint64_t q = 0, r = 0;
        for (int k = 0; k < 4; k++) {
          uint64_t x = word(seed, k, i) & 0xffffffffull;
          q += x >> 2;
          r += x & 3;
        }
        key = q + (r >> 2);
        break;
      }
      case BUCKET:
      case STAGGERED: {
        uint64_t j;
        if (dist == BUCKET) {
          j = min64((i % block) / run, p - 1);
        } else {
          uint64_t b = min64(i / block, p - 1);
          j = b < p / 2 ? 2 * b + 1 : 2 * (b - p / 2);
        }
        key = (j << shift) | (word(seed, 0, i) & ((1ull << shift) - 1));
        break;
      }
      case ZERO:
        key = 0;
        break;
      case VISIBILITY: {
        const double eye[3] = {2.0, 1.5, -2.5};
        const double len = sqrt(eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]);
        uint64_t h0 = word(seed, 0, i);
        double d = 0.0;
        for (int ax = 0; ax < 3; ax++) {
          double x;
          uint64_t w = word(seed, 1 + ax, i);
          if ((h0 & 7) == 0) {
            x = 2.0 * unit(w) - 1.0;
          } else {
            int k = (int)((h0 >> 3) % 16);
            double g = 0.0;
            for (int j = 0; j < 4; j++) g += (double)((w >> (16 * j)) & 0xffff) / 65536.0;
            x = scene.c[k][ax] + scene.r[k] * (g - 2.0);
          }
          d += (x - eye[ax]) * (-eye[ax] / len);
        }
        double t = (d - (len - 3.0)) / 6.0;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        key = (uint32_t)(t * 4294967295.0);
        break;
      }
    }
    a[i] = (uint32_t)key;
  }
}

// Uniform 64-bit keys (dist.rs: word 0) and 128-bit keys (word 0 low, word 1000 high).
__global__ void fill_u64(uint64_t* a, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    a[i] = word(seed, 0, i);
}
__global__ void fill_u128(u128* a, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    a[i] = ((u128)word(seed, 1000, i) << 64) | (u128)word(seed, 0, i);
}
__global__ void iota_u32(uint32_t* a, uint64_t n) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
    a[i] = (uint32_t)i;
}

template <class Setup, class Run>
float median_ms(Setup setup, Run run, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 2; r++) {
    setup();
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(atoi(p));
    while (*p && *p != ',') p++;
    if (*p == ',') p++;
  }
  return v;
}

int main(int argc, char** argv) {
  std::vector<int> logs, dist_logs;
  std::vector<int> dists = {UNIFORM, GAUSSIAN, BUCKET, SORTED, ZERO, STAGGERED, VISIBILITY};
  int reps_arg = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dist-sizes") && i + 1 < argc) {
      dist_logs = parse_list(argv[++i]);
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps_arg = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--dists") && i + 1 < argc) {
      dists.clear();
      std::string all = argv[++i];
      size_t pos = 0;
      while (pos <= all.size()) {
        size_t end = all.find(',', pos);
        if (end == std::string::npos) end = all.size();
        std::string name = all.substr(pos, end - pos);
        int found = -1;
        for (int d = 0; d < NDIST; d++)
          if (name == kDistNames[d]) found = d;
        if (found < 0) {
          fprintf(stderr, "unknown distribution `%s`\n", name.c_str());
          return 2;
        }
        dists.push_back(found);
        pos = end + 1;
      }
    } else {
      logs.push_back(atoi(argv[i]));
    }
  }
  if (logs.empty() && dist_logs.empty()) logs = {16, 20, 24, 28};
  int maxlog = 0;
  for (int l : logs) maxlog = std::max(maxlog, l);
  for (int l : dist_logs) maxlog = std::max(maxlog, l);
  if (maxlog > 30) {
    fprintf(stderr, "sizes are log2 N, at most 30\n");
    return 2;
  }
  const size_t maxn = (size_t)1 << maxlog;
  const int imaxn = (int)maxn;
  void *k0, *k1, *v0, *v1, *tmp;
  CK(cudaMalloc(&k0, maxn * 16));
  CK(cudaMalloc(&k1, maxn * 16));
  CK(cudaMalloc(&v0, maxn * 4));
  CK(cudaMalloc(&v1, maxn * 4));
  size_t tmpb = 0;
  auto need = [&](size_t s) { tmpb = std::max(tmpb, s); };
  {
    size_t s = 0;
    CK(cub::DeviceMergeSort::SortKeys(nullptr, s, (uint32_t*)k1, imaxn, Less<uint32_t>{})); need(s);
    CK(cub::DeviceMergeSort::SortPairs(nullptr, s, (uint32_t*)k1, (uint32_t*)v1, imaxn, Less<uint32_t>{})); need(s);
    CK(cub::DeviceMergeSort::SortKeys(nullptr, s, (uint64_t*)k1, imaxn, Less<uint64_t>{})); need(s);
    CK(cub::DeviceMergeSort::SortPairs(nullptr, s, (uint64_t*)k1, (uint32_t*)v1, imaxn, Less<uint64_t>{})); need(s);
    CK(cub::DeviceMergeSort::SortKeys(nullptr, s, (u128*)k1, imaxn, Less<u128>{})); need(s);
    CK(cub::DeviceMergeSort::SortPairs(nullptr, s, (u128*)k1, (uint32_t*)v1, imaxn, Less<u128>{})); need(s);
    CK(cub::DeviceRadixSort::SortKeys(nullptr, s, (uint32_t*)k0, (uint32_t*)k1, imaxn)); need(s);
#ifndef NO_RADIX_U128
    CK(cub::DeviceRadixSort::SortKeys(nullptr, s, (u128*)k0, (u128*)k1, imaxn)); need(s);
    CK(cub::DeviceRadixSort::SortPairs(nullptr, s, (u128*)k0, (u128*)k1, (uint32_t*)v0, (uint32_t*)v1, imaxn));
    need(s);
#endif
  }
  tmpb += 1 << 20;
  CK(cudaMalloc(&tmp, tmpb));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# device %s, CUB %d.%d.%d (cub_merge_bench)\n", prop.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
         CUB_SUBMINOR_VERSION);
  printf("impl,op,n,ms_median,gitems_per_s\n");
  const uint64_t seed = 1234;  // vksort bench's default --seed
  Scene scene = make_scene(seed);
  for (int lg : logs) {
    const int n = 1 << lg;
    size_t s = tmpb;
    const int reps = reps_arg > 0 ? reps_arg : (lg >= 26 ? 5 : 15);
    auto out = [&](const char* impl, const char* op, float ms) {
      printf("%s,%s,%d,%.5f,%.3f\n", impl, op, n, ms, n / ms / 1e6);
      fflush(stdout);
    };
    auto restore = [&](size_t kbytes, bool values) {
      return [=] {
        CK(cudaMemcpyAsync(k1, k0, (size_t)n * kbytes, cudaMemcpyDeviceToDevice));
        if (values) CK(cudaMemcpyAsync(v1, v0, (size_t)n * 4, cudaMemcpyDeviceToDevice));
      };
    };
    iota_u32<<<1024, 256>>>((uint32_t*)v0, n);
    // u32
    fill_u32<<<1024, 256>>>((uint32_t*)k0, n, seed, UNIFORM, 2, 1, 1, scene);
    CK(cudaDeviceSynchronize());
    out("cub", "merge_sort_keys_u32", median_ms(restore(4, false), [&] {
      CK(cub::DeviceMergeSort::SortKeys(tmp, s, (uint32_t*)k1, n, Less<uint32_t>{}));
    }, reps));
    out("cub", "merge_sort_pairs_u32_u32", median_ms(restore(4, true), [&] {
      CK(cub::DeviceMergeSort::SortPairs(tmp, s, (uint32_t*)k1, (uint32_t*)v1, n, Less<uint32_t>{}));
    }, reps));
    // u64
    fill_u64<<<1024, 256>>>((uint64_t*)k0, n, seed);
    CK(cudaDeviceSynchronize());
    out("cub", "merge_sort_keys_u64", median_ms(restore(8, false), [&] {
      CK(cub::DeviceMergeSort::SortKeys(tmp, s, (uint64_t*)k1, n, Less<uint64_t>{}));
    }, reps));
    out("cub", "merge_sort_pairs_u64_u32", median_ms(restore(8, true), [&] {
      CK(cub::DeviceMergeSort::SortPairs(tmp, s, (uint64_t*)k1, (uint32_t*)v1, n, Less<uint64_t>{}));
    }, reps));
    // u128
    fill_u128<<<1024, 256>>>((u128*)k0, n, seed);
    CK(cudaDeviceSynchronize());
    out("cub", "merge_sort_keys_u128", median_ms(restore(16, false), [&] {
      CK(cub::DeviceMergeSort::SortKeys(tmp, s, (u128*)k1, n, Less<u128>{}));
    }, reps));
    out("cub", "merge_sort_pairs_u128_u32", median_ms(restore(16, true), [&] {
      CK(cub::DeviceMergeSort::SortPairs(tmp, s, (u128*)k1, (uint32_t*)v1, n, Less<u128>{}));
    }, reps));
#ifndef NO_RADIX_U128
    auto nop = [] {};
    out("cub", "sort_keys_u128", median_ms(nop, [&] {
      CK(cub::DeviceRadixSort::SortKeys(tmp, s, (u128*)k0, (u128*)k1, n));
    }, reps));
    out("cub", "sort_pairs_u128_u32", median_ms(nop, [&] {
      CK(cub::DeviceRadixSort::SortPairs(tmp, s, (u128*)k0, (u128*)k1, (uint32_t*)v0, (uint32_t*)v1, n));
    }, reps));
#endif
  }
  // u32 keys of the paper's distributions: CUB's radix and merge sorts
  for (int lg : dist_logs) {
    const int n = 1 << lg;
    size_t s = tmpb;
    const int reps = reps_arg > 0 ? reps_arg : (lg >= 26 ? 5 : 15);
    uint64_t p = 128;
    while (p > 2 && p * p > (uint64_t)n) p /= 2;
    const uint64_t block = std::max<uint64_t>(((uint64_t)n + p - 1) / p, 1);
    const uint64_t run = std::max<uint64_t>((block + p - 1) / p, 1);
    for (int d : dists) {
      fill_u32<<<1024, 256>>>((uint32_t*)k0, n, seed, d, p, block, run, scene);
      CK(cudaGetLastError());
      if (d == SORTED) {
        CK(cub::DeviceRadixSort::SortKeys(tmp, s, (uint32_t*)k0, (uint32_t*)k1, n));
        CK(cudaMemcpy(k0, k1, (size_t)n * 4, cudaMemcpyDeviceToDevice));
      }
      CK(cudaDeviceSynchronize());
      std::string suffix = d == UNIFORM ? "" : std::string("_") + kDistNames[d];
      std::string radix_op = "sort_keys_u32" + suffix, merge_op = "merge_sort_keys_u32" + suffix;
      float radix = median_ms([] {}, [&] {
        CK(cub::DeviceRadixSort::SortKeys(tmp, s, (uint32_t*)k0, (uint32_t*)k1, n));
      }, reps);
      float merge = median_ms([&] { CK(cudaMemcpyAsync(k1, k0, (size_t)n * 4, cudaMemcpyDeviceToDevice)); }, [&] {
        CK(cub::DeviceMergeSort::SortKeys(tmp, s, (uint32_t*)k1, n, Less<uint32_t>{}));
      }, reps);
      printf("cub,%s,%d,%.5f,%.3f\n", radix_op.c_str(), n, radix, n / radix / 1e6);
      printf("cub,%s,%d,%.5f,%.3f\n", merge_op.c_str(), n, merge, n / merge / 1e6);
      fflush(stdout);
    }
  }
  return 0;
}
