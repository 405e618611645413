// The CUDA dialect on clang's own builtins, so that a device-only compile
// needs neither the CUDA toolkit nor ROCm: polyvol force-includes this file
// (clang -include) before the kernel's source. NVPTX takes threadIdx and
// its kin from clang's resource header; AMDGPU from the amdgcn builtins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __restrict__ __restrict

#if defined(__NVPTX__)
#include <__clang_cuda_builtin_vars.h> // __syncthreads is a builtin of the target
static __device__ __forceinline__ float __ldg(const float *p) { return __nvvm_ldg_f(p); }
static __device__ __forceinline__ double __ldg(const double *p) { return __nvvm_ldg_d(p); }
static __device__ __forceinline__ int __ldg(const int *p) { return __nvvm_ldg_i(p); }
#elif defined(__AMDGPU__)
#define POLYVOL_DIM3(NAME, X, Y, Z)                                                     \
	struct NAME {                                                                         \
		__declspec(property(get = get_x)) unsigned x;                                     \
		__declspec(property(get = get_y)) unsigned y;                                     \
		__declspec(property(get = get_z)) unsigned z;                                     \
		static __device__ __forceinline__ unsigned get_x() { return X; }                  \
		static __device__ __forceinline__ unsigned get_y() { return Y; }                  \
		static __device__ __forceinline__ unsigned get_z() { return Z; }                  \
	}
POLYVOL_DIM3(polyvol_thread_idx, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z());
POLYVOL_DIM3(polyvol_block_idx, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z());
POLYVOL_DIM3(polyvol_block_dim, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z());
POLYVOL_DIM3(polyvol_grid_dim, __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(),
	__builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z());
extern const __device__ __attribute__((weak)) polyvol_thread_idx threadIdx;
extern const __device__ __attribute__((weak)) polyvol_block_idx blockIdx;
extern const __device__ __attribute__((weak)) polyvol_block_dim blockDim;
extern const __device__ __attribute__((weak)) polyvol_grid_dim gridDim;
static __device__ __forceinline__ void __syncthreads()
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
template <class T> static __device__ __forceinline__ T __ldg(const T *p) { return *p; }
#endif

struct __attribute__((aligned(16))) double2 {
	double x, y;
};
static __device__ __forceinline__ double2 make_double2(double x, double y) { return double2{x, y}; }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static __device__ __forceinline__ float sqrtf(float a) { return __builtin_sqrtf(a); }
static __device__ __forceinline__ double sqrt(double a) { return __builtin_sqrt(a); }
static __device__ __forceinline__ float fabsf(float a) { return __builtin_fabsf(a); }
static __device__ __forceinline__ double fabs(double a) { return __builtin_fabs(a); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
