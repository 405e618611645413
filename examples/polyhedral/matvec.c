// Matrix-vector product y = A x in Kerncraft's kernel code: A is M x N,
// doubles. Each y[i] sums over j, a reduction: the import gives each row
// one thread that loops over j with the sum in a register (a fold along the
// reduced loop) and suggests the launch in a note. The sizes are bound on
// the command line as with kerncraft -D:
//
//   polyvol import kerncraft examples/polyhedral/matvec.c -D M=65536 -D N=512
//   polyvol predict examples/polyhedral/matvec.c -D M=65536 -D N=512 \
//       --block 256,1 --fold 1,512
//
// with the --block and --fold that the import's header and note suggest.

double A[M][N];
double x[N];
double y[M];

for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
        y[i] += A[i][j] * x[j];
