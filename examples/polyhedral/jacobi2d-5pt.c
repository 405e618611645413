// 2D 5-point Jacobi sweep in Kerncraft's kernel code: b becomes the mean of
// the four neighbours of each interior point of a, on an M x N grid of
// doubles with a one-point halo. The grid sizes are constants, bound on the
// command line as with kerncraft -D:
//
//   polyvol import kerncraft examples/polyhedral/jacobi2d-5pt.c -D M=4098 -D N=4098
//   polyvol predict examples/polyhedral/jacobi2d-5pt.c -D M=4098 -D N=4098
//
// The loops become the lattice (i on x, j on y): a 4096 x 4096 interior.

double a[M][N];
double b[M][N];

for (int j = 1; j < M - 1; ++j)
    for (int i = 1; i < N - 1; ++i)
        b[j][i] = 0.25 * (a[j][i - 1] + a[j][i + 1] + a[j - 1][i] + a[j + 1][i]);
