// Minimal stand-in for the CUDA runtime header, so that g++ can check the
// syntax of generated programs (go test -tags gxx ./cudagen). Kernel
// launches <<<grid, block>>> are removed by the test before compiling.
#pragma once
#include <cmath>
#include <cstddef>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
inline void __syncthreads() {}

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

struct double2 { double x, y; };
inline double2 make_double2(double x, double y) { return double2{x, y}; }
using std::fma;
using std::fmaf;

enum cudaError_t { cudaSuccess = 0 };
typedef struct CUevent_st* cudaEvent_t;
const char* cudaGetErrorString(cudaError_t);
template <class T> cudaError_t cudaMalloc(T** p, size_t bytes);
cudaError_t cudaFree(void*);
cudaError_t cudaGetLastError();
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaEventCreate(cudaEvent_t*);
cudaError_t cudaEventRecord(cudaEvent_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
template <class F> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, F, int, size_t);
