// Rodinia's hotspot thermal stencil, temporally blocked, written the way
// Kernel Tuner tunes it: every tunable parameter is a preprocessor macro, so
// that polyvol compiles the very variant a tuner would measure:
//
//   polyvol predict hotspot --device RTX-A4000 --block 32,8 --fold 2,2 \
//       --tile strided --steps 4 --instructions compiled \
//       --source examples/sources/hotspot.cu --macro sh_power=1
//
// polyvol passes the launch as block_size_x, block_size_y (the block),
// tile_size_x, tile_size_y (the fold) and temporal_tiling_factor (--steps,
// the time steps T of one launch); the other parameters are --macro flags:
// sh_power (1: power is copied into shared memory with the temperature;
// 0: it is read from global memory at every step), loop_unroll_factor_t
// (the unrolling of the time loop; T, all of it, where not given: a time
// loop kept counts its body once per iteration, with the guarded points of
// its first steps' wider windows at every step), blocks_per_sm (the minimum
// resident blocks per SM of __launch_bounds__; 0: none) and grid_size (the
// side of the square grid of outputs, 4096).
//
// Block (BX, BY) owns the outputs x0 = BX*block_size_x*tile_size_x ..
// + block_size_x*tile_size_x - 1 and likewise in y. It copies the window of
// its outputs grown by T on every side from the temperature (and power)
// arrays, which carry a halo of 10 points around the grid, into shared
// memory, thread (tx, ty) taking the window's columns tx, tx + block_size_x,
// .. and rows ty, ty + block_size_y, ... Step t = 1 .. T updates the
// window's points t .. side - 1 - t on each axis, thread (tx, ty) taking
// t + tx, t + tx + block_size_x, .. and likewise in y, from one shared
// buffer into the other, and ends with __syncthreads(). After the last
// step the thread stores its outputs (tx + i*block_size_x, ty +
// j*block_size_y), tile_size_x x tile_size_y of them strided by the block:
// the mapping of the measured sweeps in
// testdata/measured/kernel_tuner_hotspot_*.csv.
//
// The update is a 5-point star of the temperature plus the power at the
// point and a pull towards the ambient temperature. Its coefficients are
// double literals, so that the sum runs in double precision; the sums of
// opposite neighbours, the ambient term and the stored value stay floats.
// The coefficients follow from the chip that Rodinia's hotspot simulates:
// a 16 mm x 16 mm die 0.5 mm thick of silicon (conductivity 100 W/(m K),
// volumetric specific heat 1.75e6 J/(m^3 K), capacitance factor 0.5), at
// most 3e6 W/m^2 of power, an ambient 80 degrees, and the time step that
// keeps the steepest heating under 0.001 degrees per step.
//
// Written for polyvol from the thread mapping that the measurements'
// headers state; the measured kernel's own source is not copied.

#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 8
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef temporal_tiling_factor
#define temporal_tiling_factor 1
#endif
#ifndef loop_unroll_factor_t
#define loop_unroll_factor_t temporal_tiling_factor
#endif
#ifndef sh_power
#define sh_power 0
#endif
#ifndef blocks_per_sm
#define blocks_per_sm 0
#endif
#ifndef grid_size
#define grid_size 4096
#endif

#define HALO 10
#define INPUT (grid_size + 2 * HALO)
#define STEPS temporal_tiling_factor
#define TILE_X (block_size_x * tile_size_x)
#define TILE_Y (block_size_y * tile_size_y)
#define WINDOW_X (TILE_X + 2 * STEPS)
#define WINDOW_Y (TILE_Y + 2 * STEPS)
#define CHECKS ((grid_size % TILE_X) != 0 || (grid_size % TILE_Y) != 0)
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

#define PRAGMA(x) _Pragma(#x)
#define UNROLL(n) PRAGMA(unroll n)

// The chip and the time step, in SI units.
#define CHIP_SIDE 0.016
#define CHIP_THICKNESS 0.0005
#define CONDUCTIVITY 100.0
#define HEAT_CAPACITY 1.75e6
#define CAPACITANCE_FACTOR 0.5
#define MAX_POWER_DENSITY 3.0e6
#define MAX_RISE_PER_STEP 0.001
#define CELL (CHIP_SIDE / grid_size)
#define CAPACITANCE (CAPACITANCE_FACTOR * HEAT_CAPACITY * CHIP_THICKNESS * CELL * CELL)
#define STEEPEST_SLOPE (MAX_POWER_DENSITY / (CAPACITANCE_FACTOR * CHIP_THICKNESS * HEAT_CAPACITY))
#define TIME_STEP (MAX_RISE_PER_STEP / STEEPEST_SLOPE)
// Conductances between neighbours (x, y) and to the ambient (z).
#define CONDUCTANCE_X (2.0 * CONDUCTIVITY * CHIP_THICKNESS)
#define CONDUCTANCE_Y (2.0 * CONDUCTIVITY * CHIP_THICKNESS)
#define CONDUCTANCE_Z_F ((float)(CONDUCTIVITY * CELL * CELL / CHIP_THICKNESS))
#define AMBIENT_F 80.0f

#if blocks_per_sm > 0
#define BOUNDS __launch_bounds__(block_size_x * block_size_y, blocks_per_sm)
#else
#define BOUNDS __launch_bounds__(block_size_x * block_size_y)
#endif

__global__ void BOUNDS hotspot(float *out, const float *temp, const float *power)
{
    __shared__ float window[2][WINDOW_Y][WINDOW_X];
#if sh_power
    __shared__ float window_power[WINDOW_Y][WINDOW_X];
#endif
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y;
    // The window's first element in the input arrays.
    const int first = (HALO - STEPS + y0) * INPUT + HALO - STEPS + x0;

#pragma unroll
    for (int j = 0; j < CEIL_DIV(WINDOW_Y, block_size_y); j++) {
        const int y = ty + j * block_size_y;
#pragma unroll
        for (int i = 0; i < CEIL_DIV(WINDOW_X, block_size_x); i++) {
            const int x = tx + i * block_size_x;
            if (y < WINDOW_Y && x < WINDOW_X && (!CHECKS || (y0 + y < INPUT - HALO + STEPS && x0 + x < INPUT - HALO + STEPS))) {
                window[0][y][x] = temp[first + y * INPUT + x];
#if sh_power
                window_power[y][x] = power[first + y * INPUT + x];
#endif
            }
        }
    }
    __syncthreads();

    UNROLL(loop_unroll_factor_t)
    for (int t = 1; t <= STEPS; t++) {
        const float(*now)[WINDOW_X] = window[(t - 1) & 1];
        float(*next)[WINDOW_X] = window[t & 1];
#pragma unroll
        for (int j = 0; j < CEIL_DIV(WINDOW_Y - 2 * t, block_size_y); j++) {
            const int y = t + ty + j * block_size_y;
#pragma unroll
            for (int i = 0; i < CEIL_DIV(WINDOW_X - 2 * t, block_size_x); i++) {
                const int x = t + tx + i * block_size_x;
                if (y < WINDOW_Y - t && x < WINDOW_X - t) {
                    const float here = now[y][x];
#if sh_power
                    const float heat = window_power[y][x];
#else
                    const float heat = power[first + y * INPUT + x];
#endif
                    const double rise = heat + (now[y - 1][x] + now[y + 1][x] - 2.0 * here) * CONDUCTANCE_Y +
                                        (now[y][x - 1] + now[y][x + 1] - 2.0 * here) * CONDUCTANCE_X +
                                        (AMBIENT_F - here) * CONDUCTANCE_Z_F;
                    next[y][x] = here + TIME_STEP / CAPACITANCE * rise;
                }
            }
        }
        __syncthreads();
    }

    const float(*last)[WINDOW_X] = window[STEPS & 1];
#pragma unroll
    for (int j = 0; j < tile_size_y; j++) {
#pragma unroll
        for (int i = 0; i < tile_size_x; i++) {
            const int y = ty + j * block_size_y, x = tx + i * block_size_x;
            if (!CHECKS || (y0 + y < grid_size && x0 + x < grid_size)) {
                out[(y0 + y) * grid_size + x0 + x] = last[STEPS + y][STEPS + x];
            }
        }
    }
}
