// Kernels with loops that clang keeps, for the trip-count tests of
// package compiled (tripcount_test.go): each iteration of each loop loads
// one float from global memory and adds it, so the weighted global loads
// and FP32 adds are the iterations, which the test counts by hand.

// nested: a loop of 100 iterations around one of 7, neither unrolled, then
// a loop of n iterations, n a kernel argument: its count is unknown.
__global__ void nested(const float *__restrict__ a, float *__restrict__ b, int n)
{
    const int i = blockIdx.x * 128 + threadIdx.x;
    float sum = 0;
#pragma unroll 1
    for (int j = 0; j < 100; j++) {
#pragma nounroll
        for (int m = 0; m < 7; m++)
            sum += a[i + j * 4096 + m * 64];
    }
#pragma unroll 1
    for (int j = 0; j < n; j++)
        sum += a[i + j * 33];
    b[i] = sum;
}

// counted: a loop of 12 iterations unrolled by 4 (3 trips of a body of 4
// loads), after a loop of 9 iterations left whole; every count is known.
__global__ void counted(const float *__restrict__ a, float *__restrict__ b)
{
    const int i = blockIdx.x * 128 + threadIdx.x;
    float sum = 0;
#pragma unroll 1
    for (int j = 0; j < 9; j++)
        sum += a[i + j * 4096];
#pragma unroll 4
    for (int j = 0; j < 12; j++)
        sum += a[i + j * 1024];
    b[i] = sum;
}
