package accuracy

// Block-size sweeps of the default cases: powers of two with 1024 and 256
// threads (the paper evaluates 1024-thread stencil blocks and 512-thread
// LBM blocks; the 256-thread ones add a second occupancy).
var (
	blocks3D = [][3]int64{
		{1024, 1, 1}, {256, 4, 1}, {256, 1, 4}, {128, 8, 1}, {64, 4, 4}, {32, 32, 1}, {32, 8, 4}, {32, 2, 16}, {16, 8, 8},
		{256, 1, 1}, {64, 4, 1}, {32, 8, 1}, {32, 4, 2}, {16, 4, 4},
	}
	// blocksLBM leaves out blocks wider than the 96-point LBM domain.
	blocksLBM = [][3]int64{
		{64, 16, 1}, {64, 4, 4}, {64, 2, 8}, {32, 32, 1}, {32, 8, 4}, {32, 4, 8}, {32, 2, 16}, {16, 8, 8},
		{64, 4, 1}, {64, 2, 2}, {32, 8, 1}, {32, 4, 2}, {16, 4, 4},
	}
	blocks2D = [][3]int64{
		{1024, 1, 1}, {512, 2, 1}, {256, 4, 1}, {128, 8, 1}, {64, 16, 1}, {32, 32, 1},
		{256, 1, 1}, {128, 2, 1}, {64, 4, 1}, {32, 8, 1}, {16, 16, 1},
	}
	blocks1D = [][3]int64{{1024, 1, 1}, {256, 1, 1}}
)

// DefaultCases are the sweeps of `polyvol accuracy`: the example kernels at
// domains a thread-by-thread simulation runs in seconds. The star stencils
// train the curve refit; box3d-r1, the LBM kernel and the streaming kernels
// are held out.
var DefaultCases = []Case{
	{Spec: "star3d-r4", Domain: [3]int64{160, 128, 128}, Blocks: blocks3D, Train: true},
	{Spec: "star3d-r1", Domain: [3]int64{256, 128, 128}, Blocks: blocks3D, Train: true},
	{Spec: "star2d-r1", Domain: [3]int64{2048, 2048, 1}, Blocks: blocks2D, Train: true},
	{Spec: "box3d-r1", Domain: [3]int64{128, 128, 128}, Blocks: blocks3D},
	{Spec: "lbm-d3q19-pull", Domain: [3]int64{96, 96, 96}, Blocks: blocksLBM},
	{Spec: "transpose2d", Domain: [3]int64{1024, 1024, 1}, Blocks: blocks2D},
	{Spec: "vec-copy", Domain: [3]int64{1 << 22, 1, 1}, Blocks: blocks1D},
}
