// A 15 x 15 single-precision convolution written the way Kernel Tuner tunes
// one: every tunable parameter is a preprocessor macro, so that polyvol
// compiles the very variant a tuner would measure:
//
//   polyvol predict convolution-15x15 --block 16,16 --fold 2,2 --tile strided \
//       --source examples/sources/convolution-15x15.cu --macro use_shmem=1
//
// polyvol passes the launch as block_size_x, block_size_y (the block) and
// tile_size_x, tile_size_y (the fold); the other parameters are --macro
// flags: read_only (1: loads through the read-only data path), use_shmem
// (1: each block first copies its input tile into shared memory) and
// use_padding (1: the shared rows are padded against bank conflicts where
// the block's width is not a multiple of 32).
//
// Thread (tx, ty) of block (bx, by) computes tile_size_x x tile_size_y
// outputs strided by the block size, at x = bx*block_size_x*tile_size_x +
// tx + i*block_size_x and likewise in y: the mapping of the measured
// sweeps in testdata/measured/kernel_tuner_convolution_*.csv. Where a
// block's tile does not divide the 4096 x 4096 image, every load and store
// checks its bounds. The filter is in constant memory.
//
// Written for polyvol from the thread mapping that the measurements'
// headers state; the measured kernel's own source is not copied.

#define IMAGE 4096
#define FILTER 15
#define INPUT (IMAGE + FILTER - 1)

#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef read_only
#define read_only 0
#endif
#ifndef use_shmem
#define use_shmem 0
#endif
#ifndef use_padding
#define use_padding 1
#endif

#define TILE_X (block_size_x * tile_size_x)
#define TILE_Y (block_size_y * tile_size_y)
#define CHECKS ((IMAGE % TILE_X) != 0 || (IMAGE % TILE_Y) != 0)

#if read_only
#define LOAD(p, i) __ldg((p) + (i))
#else
#define LOAD(p, i) ((p)[i])
#endif

#if use_padding && (block_size_x % 32) != 0
#define SHARED_PITCH (((TILE_X + FILTER - 1 + 31) / 32) * 32 + 1)
#else
#define SHARED_PITCH (TILE_X + FILTER - 1)
#endif

__constant__ float filter_weights[FILTER * FILTER];

__global__ void convolution(float *out, const float *in)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y;

#if use_shmem
    __shared__ float tile[TILE_Y + FILTER - 1][SHARED_PITCH];
    for (int i = ty; i < TILE_Y + FILTER - 1; i += block_size_y) {
        for (int j = tx; j < TILE_X + FILTER - 1; j += block_size_x) {
            float v = 0.0f;
            if (!CHECKS || (y0 + i < INPUT && x0 + j < INPUT)) {
                v = LOAD(in, (y0 + i) * INPUT + x0 + j);
            }
            tile[i][j] = v;
        }
    }
    __syncthreads();
#endif

    float sum[tile_size_y][tile_size_x];
#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            sum[yi][xi] = 0.0f;
        }
    }

#pragma unroll
    for (int i = 0; i < FILTER; i++) {
#pragma unroll
        for (int j = 0; j < FILTER; j++) {
            const float w = filter_weights[i * FILTER + j];
#pragma unroll
            for (int yi = 0; yi < tile_size_y; yi++) {
#pragma unroll
                for (int xi = 0; xi < tile_size_x; xi++) {
                    const int ly = ty + yi * block_size_y, lx = tx + xi * block_size_x;
#if use_shmem
                    const float v = tile[ly + i][lx + j];
#else
                    float v = 0.0f;
                    if (!CHECKS || (y0 + ly < IMAGE && x0 + lx < IMAGE)) {
                        v = LOAD(in, (y0 + ly + i) * INPUT + x0 + lx + j);
                    }
#endif
                    sum[yi][xi] += v * w;
                }
            }
        }
    }

#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            const int y = y0 + ty + yi * block_size_y, x = x0 + tx + xi * block_size_x;
            if (!CHECKS || (y < IMAGE && x < IMAGE)) {
                out[y * IMAGE + x] = sum[yi][xi];
            }
        }
    }
}
