// Host emulation of the CUDA runtime, so that g++ can build and run a
// generated program on the CPU (stage_test.go). The test rewrites every
// launch kernel<<<grid, block>>>(args) into
// cudaemu::launch(kernel, grid, block, args), and adds a call of
// cudaemu::shared after each __shared__ array.
//
// A launch runs the grid's blocks one after another. The threads of a block
// are fibers (ucontext) on one OS thread, run in their linear order: each
// runs until it reaches __syncthreads or returns, and when every thread of
// the block waits at the barrier all go on, again in order. The schedule is
// deterministic, and a thread that reads a shared element before the thread
// that copies it has reached the barrier reads what cudaemu::shared left
// there: all bits set, a NaN in floating point. It is an error for some
// threads of a block to return while others wait at a barrier. Once the
// first block of a launch has run without reaching a barrier, the other
// blocks run each thread as a plain call (__syncthreads is then an error).
//
// cudaMalloc is malloc, so that AddressSanitizer checks every access to
// device memory; cudaFree appends the array to the file named by the
// environment variable CUDAEMU_DUMP, as its size in bytes (8 bytes, host
// order) and its bytes. Timing and occupancy queries return placeholders.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sys/mman.h>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

struct double2 { double x, y; };
inline double2 make_double2(double x, double y) { return double2{x, y}; }
using std::fma;
using std::fmaf;

#if defined(__SANITIZE_ADDRESS__)
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
#define CUDAEMU_START_SWITCH(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define CUDAEMU_FINISH_SWITCH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define CUDAEMU_START_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define CUDAEMU_FINISH_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

namespace cudaemu {

[[noreturn]] inline void fail(const char* msg)
{
    std::fprintf(stderr, "cudaemu: %s (block %u,%u,%u thread %u,%u,%u)\n", msg,
                 blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    std::abort();
}

constexpr size_t stackBytes = 1 << 20; // per fiber; kernels keep hundreds of values in locals

enum class State { ready, barrier, done };

struct Fiber {
    ucontext_t ctx;
    char* stack = nullptr;
    State state = State::ready;
    void* fake = nullptr; // AddressSanitizer's fake stack while switched out
};

inline std::vector<Fiber> fibers;
inline std::function<void()> body; // the kernel call of the current launch
inline ucontext_t scheduler;
inline const void* schedulerBottom = nullptr; // the scheduler's stack, for AddressSanitizer
inline size_t schedulerSize = 0;
inline size_t current = 0;
inline bool fiberMode = false;
inline bool barrierSeen = false;

inline void setThread(size_t t)
{
    threadIdx.x = t % blockDim.x;
    threadIdx.y = t / blockDim.x % blockDim.y;
    threadIdx.z = t / (blockDim.x * blockDim.y);
}

// toScheduler leaves the current fiber; a finished one never comes back.
inline void toScheduler(bool finished)
{
    Fiber& f = fibers[current];
    CUDAEMU_START_SWITCH(finished ? nullptr : &f.fake, schedulerBottom, schedulerSize);
    swapcontext(&f.ctx, &scheduler);
    CUDAEMU_FINISH_SWITCH(f.fake, &schedulerBottom, &schedulerSize);
}

inline void entry()
{
    CUDAEMU_FINISH_SWITCH(nullptr, &schedulerBottom, &schedulerSize);
    body();
    fibers[current].state = State::done;
    toScheduler(true);
    fail("a finished thread was resumed");
}

inline void runBlockFibers(size_t n)
{
    fiberMode = true;
    if (fibers.size() < n) {
        fibers.resize(n);
    }
    for (size_t t = 0; t < n; ++t) {
        Fiber& f = fibers[t];
        if (f.stack == nullptr) {
            void* p = mmap(nullptr, stackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) {
                fail("no memory for a fiber stack");
            }
            f.stack = static_cast<char*>(p);
        }
        f.state = State::ready;
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = stackBytes;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, entry, 0);
    }
    for (;;) {
        for (size_t t = 0; t < n; ++t) {
            Fiber& f = fibers[t];
            if (f.state != State::ready) {
                continue;
            }
            current = t;
            setThread(t);
            void* fake = nullptr;
            CUDAEMU_START_SWITCH(&fake, f.stack, stackBytes);
            swapcontext(&scheduler, &f.ctx);
            CUDAEMU_FINISH_SWITCH(fake, nullptr, nullptr);
        }
        size_t waiting = 0, done = 0;
        for (size_t t = 0; t < n; ++t) {
            waiting += fibers[t].state == State::barrier;
            done += fibers[t].state == State::done;
        }
        if (waiting == 0) {
            break;
        }
        if (done > 0) {
            fail("threads of the block returned while others wait at __syncthreads");
        }
        barrierSeen = true;
        for (size_t t = 0; t < n; ++t) {
            fibers[t].state = State::ready;
        }
    }
    fiberMode = false;
}

template <class... P, class... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, A... args)
{
    body = [&] { kernel(args...); };
    gridDim = grid;
    blockDim = block;
    barrierSeen = false;
    const size_t n = (size_t)block.x * block.y * block.z;
    bool first = true;
    for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
            for (unsigned x = 0; x < grid.x; ++x) {
                blockIdx = uint3{x, y, z};
                if (first || barrierSeen) {
                    runBlockFibers(n);
                    first = false;
                    continue;
                }
                for (size_t t = 0; t < n; ++t) {
                    setThread(t);
                    body();
                }
            }
        }
    }
}

// shared fills a block's __shared__ array with all bits set when the
// block's first thread declares it, before any thread can write it.
inline void shared(void* p, size_t bytes)
{
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        std::memset(p, 0xff, bytes);
    }
}

inline std::map<void*, size_t> sizes;

} // namespace cudaemu

inline void __syncthreads()
{
    if (!cudaemu::fiberMode) {
        cudaemu::fail("__syncthreads in a launch whose first block reached none");
    }
    cudaemu::fibers[cudaemu::current].state = cudaemu::State::barrier;
    cudaemu::toScheduler(false);
}

enum cudaError_t { cudaSuccess = 0 };
typedef struct CUevent_st* cudaEvent_t;
inline const char* cudaGetErrorString(cudaError_t) { return "no error"; }
template <class T> cudaError_t cudaMalloc(T** p, size_t bytes)
{
    *p = static_cast<T*>(std::malloc(bytes));
    if (*p == nullptr) {
        cudaemu::fail("cudaMalloc: out of memory");
    }
    cudaemu::sizes[*p] = bytes;
    return cudaSuccess;
}
inline cudaError_t cudaFree(void* p)
{
    auto it = cudaemu::sizes.find(p);
    if (it == cudaemu::sizes.end()) {
        cudaemu::fail("cudaFree of a pointer cudaMalloc did not return");
    }
    if (const char* path = std::getenv("CUDAEMU_DUMP")) {
        FILE* f = std::fopen(path, "ab");
        const uint64_t n = it->second;
        if (f == nullptr || std::fwrite(&n, sizeof n, 1, f) != 1 || std::fwrite(p, 1, n, f) != n || std::fclose(f) != 0) {
            cudaemu::fail("cudaFree: cannot write CUDAEMU_DUMP");
        }
    }
    cudaemu::sizes.erase(it);
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e)
{
    *e = nullptr;
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t)
{
    *ms = 1;
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
template <class F> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F, int, size_t)
{
    *n = 1;
    return cudaSuccess;
}
